"""Sentence-level training data for the text relation classifier: SemEval-2010 Task 8's
``TRAIN_FILE``, the ADE corpus v2 and the path-to-causality train splits, read into
`RelationExample`s (a sentence, the spans of A and B, a three-way label, a group), and the
sentences of every evaluation split, which never reach training (`training_corpus` drops
them and says how many). SemEval's ``TEST_FILE_FULL`` is reserved: `read_semeval` refuses it.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from causalqa import config
from causalqa.discovery.pathdata import DATASETS, PathRecord, dataset_files
from causalqa.errors import CorpusError

__all__ = [
    "A_CAUSES_B",
    "B_CAUSES_A",
    "CAUSAL",
    "LABEL_NAMES",
    "NONE",
    "Corpus",
    "RelationExample",
    "ade_negatives",
    "evaluation_sentences",
    "example_from_record",
    "locate",
    "read_ade",
    "read_semeval",
    "semeval_heldout",
    "sentence_key",
    "training_corpus",
]

NONE, A_CAUSES_B, B_CAUSES_A, CAUSAL = 0, 1, 2, 3
"""Labels: no causal relation; A causes B; B causes A; causal, direction not annotated
(the path-to-causality sets label a pair causal or not, without saying which way)."""
LABEL_NAMES = {NONE: "none", A_CAUSES_B: "A→B", B_CAUSES_A: "B→A", CAUSAL: "causal"}

RESERVED = re.compile(r"^TEST_FILE", re.IGNORECASE)
HELDOUT_PERCENT = 12
"""The share of SemEval-2010 ``TRAIN_FILE`` sentences kept out of every training step, as
our own SemEval-style test split (`semeval_heldout`): the reserved test file is for
independent evaluation only, so the sentence regime is measured on these."""
HELDOUT_NAME = "semeval2010-task8/TRAIN_FILE.TXT (held out)"


def sentence_key(text: str) -> str:
    """A sentence reduced to its lower-case letters and digits (entity tags dropped): two
    copies of one sentence with other spacing, tags or punctuation get the same key.

    >>> sentence_key("In <e2> T47D </e2> , Bax rose.") == sentence_key("In T47D, Bax rose")
    True
    """
    return re.sub(r"[^0-9a-z]+", "", re.sub(r"</?e[12]>", " ", text.lower()))


@dataclass(frozen=True)
class RelationExample:
    """A pair (A, B) in a sentence: `text` (no tags), the character spans of A and B, the
    label (`NONE`, `A_CAUSES_B`, `B_CAUSES_A` or `CAUSAL`), the `group` no fold may split
    (a drug, a sentence), and where it came from."""

    text: str
    a: tuple[int, int]
    b: tuple[int, int]
    label: int
    group: str
    source: str
    ref: str = ""

    @property
    def a_text(self) -> str:
        return self.text[self.a[0] : self.a[1]]

    @property
    def b_text(self) -> str:
        return self.text[self.b[0] : self.b[1]]

    @property
    def causal(self) -> bool:
        return self.label != NONE

    def swapped(self) -> RelationExample:
        """The same pair asked the other way round (A and B exchanged, direction flipped)."""
        label = {A_CAUSES_B: B_CAUSES_A, B_CAUSES_A: A_CAUSES_B}.get(self.label, self.label)
        return replace(self, a=self.b, b=self.a, label=label)


# -- finding a mention ---------------------------------------------------------------------


def _alnum_map(text: str) -> tuple[str, list[int]]:
    chars, where = [], []
    for i, ch in enumerate(text):
        if ch.isalnum():
            chars.append(ch.lower())
            where.append(i)
    return "".join(chars), where


def _bounded(text: str, start: int, end: int) -> bool:
    before = start == 0 or not text[start - 1].isalnum()
    after = end == len(text) or not text[end].isalnum()
    return before and after


def locate(text: str, name: str, *, avoid: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """The character span of `name` in `text`: a whole-word match ignoring case first, then
    one ignoring spacing and punctuation ("ERK1 / 2" finds "ERK1/2"), then one where the
    name's last word is another number of the same noun ("headache" finds "headaches",
    "batteries" finds "battery"); never a span that overlaps `avoid`. None when the name is
    not there.

    >>> locate("Bax and Bad rose in T47D cells.", "t47d")
    (20, 24)
    >>> locate("Stress may be linked to headaches.", "headache")
    (24, 33)
    """
    needle = name.strip()
    if not needle:
        return None

    def free(s: int, e: int) -> bool:
        return avoid is None or e <= avoid[0] or s >= avoid[1]

    low, target = text.lower(), needle.lower()
    start = low.find(target)
    while start >= 0:
        end = start + len(target)
        if _bounded(text, start, end) and free(start, end):
            return start, end
        start = low.find(target, start + 1)
    squeezed, where = _alnum_map(text)
    key = "".join(ch.lower() for ch in needle if ch.isalnum())
    if not key:
        return None
    start = squeezed.find(key)
    while start >= 0:
        s, e = where[start], where[start + len(key) - 1] + 1
        if _bounded(text, s, e) and free(s, e):
            return s, e
        start = squeezed.find(key, start + 1)
    for form in _other_numbers(needle):
        for m in re.finditer(re.escape(form.lower()), low):
            if _bounded(text, m.start(), m.end()) and free(m.start(), m.end()):
                return m.start(), m.end()
    return None


def _other_numbers(name: str) -> list[str]:
    """`name` with its last word in the other grammatical number, by English's regular
    endings (singular ↔ plural: -s, -es, -y/-ies); irregular plurals are not guessed."""
    head, _, last = name.rpartition(" ")
    prefix = head + " " if head else ""
    low = last.lower()
    if not low.isalpha() or len(low) < 3:
        return []
    forms: list[str] = []
    if low.endswith("ies") and len(low) > 4:
        forms.append(last[:-3] + "y")
    elif low.endswith(("ches", "shes", "sses", "xes", "zes")):
        forms.append(last[:-2])
    elif low.endswith("s") and not low.endswith("ss"):
        forms.append(last[:-1])
    else:
        if low.endswith("y") and low[-2] not in "aeiou":
            forms.append(last[:-1] + "ies")
        elif low.endswith(("ch", "sh", "s", "x", "z")):
            forms.append(last + "es")
        else:
            forms.append(last + "s")
    return [prefix + f for f in forms]


_TAGGED = re.compile(r"<(e[12])>\s*(.*?)\s*</\1>", re.DOTALL)


def untag(sentence: str) -> tuple[str, dict[str, tuple[int, int]]]:
    """A sentence without its ``<e1>``/``<e2>`` tags, spaces collapsed, and the spans the
    tags marked.

    >>> untag("In <e2> T47D </e2> , <e1> Bax </e1> rose")
    ('In T47D , Bax rose', {'e2': (3, 7), 'e1': (10, 13)})
    """
    out: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    pos = 0
    length = 0

    def emit(piece: str) -> None:
        nonlocal length
        piece = " ".join(piece.split())
        if not piece:
            return
        if out and not out[-1].endswith(" "):
            out.append(" ")
            length += 1
        out.append(piece)
        length += len(piece)

    for m in _TAGGED.finditer(sentence):
        emit(sentence[pos : m.start()])
        inner = " ".join(m.group(2).split())
        if out and not out[-1].endswith(" "):
            out.append(" ")
            length += 1
        spans[m.group(1)] = (length, length + len(inner))
        out.append(inner)
        length += len(inner)
        pos = m.end()
    emit(sentence[pos:])
    return "".join(out), spans


# -- SemEval-2010 Task 8 ---------------------------------------------------------------------


def read_semeval(path: str | os.PathLike[str]) -> list[RelationExample]:
    """SemEval-2010 Task 8's training file: ``Cause-Effect(e1,e2)`` is A→B with A = e1,
    ``Cause-Effect(e2,e1)`` is B→A, every other relation (and ``Other``) is none. One group
    per sentence. The reserved test file (``TEST_FILE*``) is refused."""
    p = Path(path)
    if RESERVED.match(p.name):
        raise CorpusError(
            f"{p.name} is SemEval-2010's reserved test file: it is never read for training",
            hint="give TRAIN_FILE.TXT",
            path=str(p),
        )
    if not p.is_file():
        raise CorpusError(f"{p}: no such file", path=str(p))
    lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
    out: list[RelationExample] = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if not line:
            i += 1
            continue
        if "\t" not in line or i + 1 >= len(lines):
            raise CorpusError(
                f"{p}:{i + 1}: expected 'id<TAB>\"sentence\"'", path=str(p), line=i + 1
            )
        sid, sentence = line.split("\t", 1)
        relation = lines[i + 1].strip()
        text, spans = untag(sentence.strip().strip('"'))
        if set(spans) != {"e1", "e2"}:
            raise CorpusError(
                f"{p}:{i + 1}: the sentence lacks <e1> or <e2>", path=str(p), line=i + 1
            )
        label = (
            A_CAUSES_B
            if relation == "Cause-Effect(e1,e2)"
            else B_CAUSES_A
            if relation == "Cause-Effect(e2,e1)"
            else NONE
        )
        out.append(
            RelationExample(
                text, spans["e1"], spans["e2"], label, f"semeval:{sid}", "semeval", sid.strip()
            )
        )
        i += 2
        while i < len(lines) and lines[i].strip():
            i += 1  # the Comment: line
    if not out:
        raise CorpusError(f"{p}: no sentence in the file", path=str(p))
    return out


# -- ADE corpus v2 ---------------------------------------------------------------------------


def _drug_group(drug: str) -> str:
    return "drug:" + " ".join(re.sub(r"[^0-9a-z]+", " ", drug.lower()).split())


def read_ade(folder: str | os.PathLike[str]) -> tuple[list[RelationExample], dict[str, set]]:
    """``DRUG-AE.rel``: each (drug, adverse effect) in its sentence is A→B with A = the drug;
    in a sentence with several annotated drugs or effects, the drug–effect pairs that are
    not annotated are none. Grouped by drug. Also returns the vocabulary (``drugs``,
    ``effects``) that `ade_negatives` looks for."""
    path = Path(folder) / "DRUG-AE.rel"
    if not path.is_file():
        raise CorpusError(f"{path}: no such file", path=str(path))
    by_sentence: dict[str, list[tuple[str, str, str]]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("|")
        if len(parts) != 8:
            raise CorpusError(
                f"{path}:{n}: expected 8 '|'-separated fields", path=str(path), line=n
            )
        pmid, sentence, effect, drug = parts[0], parts[1], parts[2], parts[5]
        by_sentence.setdefault(sentence, []).append((pmid, drug, effect))
    out: list[RelationExample] = []
    drugs: set[str] = set()
    effects: set[str] = set()
    for sentence, rows in by_sentence.items():
        related = {(d.lower(), e.lower()) for _, d, e in rows}
        pmid = rows[0][0]
        names_d = list(dict.fromkeys(d for _, d, _ in rows))
        names_e = list(dict.fromkeys(e for _, _, e in rows))
        drugs.update(x.lower() for x in names_d)
        effects.update(x.lower() for x in names_e)
        for drug in names_d:
            for effect in names_e:
                a = locate(sentence, drug)
                b = locate(sentence, effect, avoid=a) if a else None
                if a is None or b is None:
                    continue
                label = A_CAUSES_B if (drug.lower(), effect.lower()) in related else NONE
                out.append(RelationExample(sentence, a, b, label, _drug_group(drug), "ade", pmid))
    return out, {"drugs": drugs, "effects": effects}


def ade_negatives(
    folder: str | os.PathLike[str], vocabulary: dict[str, set], *, min_length: int = 4
) -> list[RelationExample]:
    """Negatives from ``ADE-NEG.txt`` (sentences that state no adverse drug effect): every
    drug and every adverse-effect name of `vocabulary` found in such a sentence (whole
    words, at least `min_length` characters) makes a (drug, effect) pair labelled none.
    Grouped by drug, like the positives."""
    path = Path(folder) / "ADE-NEG.txt"
    if not path.is_file():
        raise CorpusError(f"{path}: no such file", path=str(path))
    drugs = sorted((d for d in vocabulary["drugs"] if len(d) >= min_length), key=len, reverse=True)
    effects = sorted(
        (e for e in vocabulary["effects"] if len(e) >= min_length), key=len, reverse=True
    )
    drug_re = _alternation(drugs)
    effect_re = _alternation(effects)
    out: list[RelationExample] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3:
            continue
        pmid, sentence = parts[0], parts[2].strip()
        found_d = _mentions(drug_re, sentence)
        if not found_d:
            continue
        found_e = _mentions(effect_re, sentence)
        for ds, de in found_d:
            for es, ee in found_e:
                if ee <= ds or es >= de:
                    drug = sentence[ds:de]
                    out.append(
                        RelationExample(
                            sentence, (ds, de), (es, ee), NONE, _drug_group(drug), "ade-neg", pmid
                        )
                    )
    return out


def _alternation(names: Sequence[str]) -> re.Pattern | None:
    if not names:
        return None
    return re.compile(
        r"(?<![0-9A-Za-z])(?:" + "|".join(re.escape(n) for n in names) + r")(?![0-9A-Za-z])",
        re.IGNORECASE,
    )


def _mentions(pattern: re.Pattern | None, text: str) -> list[tuple[int, int]]:
    if pattern is None:
        return []
    seen: dict[str, tuple[int, int]] = {}
    for m in pattern.finditer(text):
        seen.setdefault(m.group(0).lower(), m.span())
    return list(seen.values())


# -- path-to-causality ---------------------------------------------------------------------


def example_from_record(record: PathRecord, dataset: str) -> RelationExample | None:
    """A path-to-causality record as an example: the spans from its ``<e1>``/``<e2>`` tags
    (or found by name), label `CAUSAL` (ADE: A→B, the drug first) or `NONE`. None when a
    name cannot be found in the sentence."""
    text, spans = untag(record.sentence)
    a = spans.get("e1") or locate(text, record.e1)
    b = (spans.get("e2") or locate(text, record.e2, avoid=a)) if a else None
    if a is None or b is None:
        return None
    label = NONE if not record.label else A_CAUSES_B if dataset == "ade" else CAUSAL
    return RelationExample(
        text, a, b, label, f"p2c-{dataset}:{sentence_key(text)}", f"p2c-{dataset}", record.qid
    )


def is_heldout(key: str) -> bool:
    """Whether a SemEval ``TRAIN_FILE`` sentence (by `sentence_key`) is in our held-out split:
    a fixed hash of the sentence, so the split needs no file and never moves."""
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % 100 < HELDOUT_PERCENT


def semeval_heldout(data_dir: str | os.PathLike[str] | None = None) -> list[RelationExample]:
    """Our SemEval-style test split: the ``TRAIN_FILE`` sentences `is_heldout` picks (about
    12%, split by sentence), with SemEval's labels. No training step sees them
    (`evaluation_sentences` lists them)."""
    root = Path(data_dir) if data_dir is not None else config.data_dir()
    examples = read_semeval(root / "semeval2010-task8" / "TRAIN_FILE.TXT")
    return [e for e in examples if is_heldout(sentence_key(e.text))]


def evaluation_sentences(root: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """`sentence_key` → "<data set>/<file>" for every sentence of every evaluation file of
    the path-to-causality sets (``test_truth``, ``test_sim``, ``test_gpt``), and of our
    SemEval-style held-out split of ``TRAIN_FILE`` (`semeval_heldout`)."""
    from causalqa.discovery.pathdata import read_path_file

    keys: dict[str, str] = {}
    p2c = Path(root) if root is not None else config.data_dir() / "path-to-causality"
    semeval_file = p2c.parent / "semeval2010-task8" / "TRAIN_FILE.TXT"
    if semeval_file.is_file():
        for ex in read_semeval(semeval_file):
            key = sentence_key(ex.text)
            if is_heldout(key):
                keys[key] = HELDOUT_NAME
    for name in DATASETS:
        files = dataset_files(name, root)
        for split in ("truth", "sim", "gpt"):
            path = files[split]
            if not path.exists():
                continue
            for record in read_path_file(path):
                keys.setdefault(sentence_key(record.sentence), f"{name}/{path.name}")
    return keys


# -- the whole corpus ------------------------------------------------------------------------


@dataclass
class Corpus:
    """The training examples and an account of what was left out and why."""

    examples: list[RelationExample]
    dropped: dict[str, int] = field(default_factory=dict)
    sources: dict[str, Counter] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

    def summary(self) -> dict:
        return {
            "examples": len(self.examples),
            "by_source": {s: dict(sorted(c.items())) for s, c in sorted(self.sources.items())},
            "dropped": dict(sorted(self.dropped.items())),
            "files": self.files,
        }


def _label_count(examples: Iterable[RelationExample]) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for ex in examples:
        out.setdefault(ex.source, Counter())[LABEL_NAMES[ex.label]] += 1
    return out


def training_corpus(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    datasets: Sequence[str] = tuple(DATASETS),
    ade_negative_ratio: float = 1.0,
    seed: int = 0,
    augment: Callable[[list[RelationExample]], Iterable[RelationExample]] | None = None,
) -> Corpus:
    """Every training example for the text classifier, evaluation sentences removed.

    Reads ``semeval2010-task8/TRAIN_FILE.TXT``, ``ade-corpus-v2`` (positives, in-sentence
    negatives, and ADE-NEG negatives — a seeded sample of `ade_negative_ratio` × the
    positives) and the ``train_full`` split of each path-to-causality set in `datasets`.
    Dropped, and counted in ``Corpus.dropped``:

    - every example whose sentence occurs in any evaluation file (`evaluation_sentences`);
    - path-to-causality SEMEVAL records whose sentence is not in ``TRAIN_FILE``: SemEval has
      only a train and a test file, so they come from the reserved test file;
    - path-to-causality SEMEVAL records whose sentence *is* in ``TRAIN_FILE``: that file's
      own example (SemEval's label) stands for the sentence;
    - path-to-causality ADE records: the same sentences are ADE corpus examples;
    - duplicates (same sentence, same two spans) after the first.

    `augment` (e.g. `rewrites.rewrite_examples`) is given the kept SemEval examples and what
    it returns is added, unless its sentence is an evaluation sentence or already there.
    """
    from causalqa.discovery.pathdata import load_path_dataset

    root = Path(data_dir) if data_dir is not None else config.data_dir()
    semeval_file = root / "semeval2010-task8" / "TRAIN_FILE.TXT"
    ade_dir = root / "ade-corpus-v2"
    p2c_root = root / "path-to-causality"
    dropped: Counter = Counter()
    examples: list[RelationExample] = []

    semeval = read_semeval(semeval_file)
    semeval_keys = {sentence_key(e.text) for e in semeval}
    examples += semeval

    ade, vocabulary = read_ade(ade_dir)
    examples += ade
    negatives = ade_negatives(ade_dir, vocabulary)
    positives = sum(1 for e in ade if e.label != NONE)
    want = int(round(ade_negative_ratio * positives))
    if len(negatives) > want:
        rng = np.random.default_rng([seed, 7])
        keep = np.sort(rng.choice(len(negatives), size=want, replace=False))
        dropped["ade-neg: beyond the sampled ratio"] += len(negatives) - want
        negatives = [negatives[i] for i in keep]
    examples += negatives

    for name in datasets:
        records = load_path_dataset(name, p2c_root, splits=("train",)).train
        for record in records:
            if name == "ade":
                dropped["p2c-ade: the ADE corpus holds the sentence"] += 1
                continue
            key = sentence_key(record.sentence)
            if name == "semeval":
                if key in semeval_keys:
                    dropped["p2c-semeval: TRAIN_FILE's example stands for it"] += 1
                else:
                    dropped["p2c-semeval: not in TRAIN_FILE (from the reserved test file)"] += 1
                continue
            ex = example_from_record(record, name)
            if ex is None:
                dropped[f"p2c-{name}: a name not found in its sentence"] += 1
                continue
            examples.append(ex)

    held_out = evaluation_sentences(p2c_root)
    kept: list[RelationExample] = []
    seen: set[tuple[str, tuple[int, int], tuple[int, int]]] = set()
    for ex in examples:
        key = sentence_key(ex.text)
        if key in held_out:
            dropped[f"{ex.source}: sentence in an evaluation split"] += 1
            continue
        ident = (key, ex.a, ex.b)
        if ident in seen:
            dropped[f"{ex.source}: duplicate"] += 1
            continue
        seen.add(ident)
        kept.append(ex)
    for ex in augment([e for e in kept if e.source == "semeval"]) if augment else ():
        ident = (sentence_key(ex.text), ex.a, ex.b)
        if ident not in seen and sentence_key(ex.text) not in held_out:
            seen.add(ident)
            kept.append(ex)
    files = {
        "semeval": str(semeval_file),
        "ade": str(ade_dir),
        "path-to-causality": str(p2c_root),
    }
    return Corpus(kept, dict(dropped), _label_count(kept), files)
