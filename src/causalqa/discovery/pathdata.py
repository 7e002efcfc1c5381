"""The path-to-causality data sets (paper 001's released data) as typed records.

Layout: ``<root>/{ade,comagc,gene,semeval}/`` each holding

- ``train_full.jsonl``: training pairs with candidate paths and their LLM relevance;
- ``test_truth.jsonl``: test pairs, paths sorted by ``rel_score`` (the ranking ground truth);
- ``test_sim.jsonl``: test pairs, paths ranked by embedding similarity (``sim_score``); its
  candidate sets were sampled separately and mostly differ from ``test_truth``'s;
- ``test_gpt_<a|c|g|s>.jsonl``: test pairs, paths in the order an LLM permutation ranker
  (gpt-3.5) gave. Its ``rel_score``/``prob_score``/``relevant`` columns were *not* permuted
  with the paths (they stay sorted), so only the path order is meaningful there.

One JSON object per line (fields as measured on the shared copy):

=================  =======  ===========================================================
field              type     meaning
=================  =======  ===========================================================
qid                str      query id (unique per file; test_sim numbers from 0)
sentence           str      the textual context in which the pair co-occurs
e1, e2             str      the variable pair
ground_truth       "0"/"1"  human label: 1 causal, 0 non-causal
llm_pred           "0"/"1"  the relevance LLM's verdict with all paths (absent in test_sim)
metapaths          list     candidate paths, each:
 .pathid           int      path id within the query
 .stops            str      node names joined by " - "
 .reltypes         str      relation labels joined by " - " (Hetionet metaedges, Wikidata)
 .nodelabels       str      node types joined by " - " ("" for SEMEVAL/Wikidata)
 .rel_score        float    Eq. 1 relevance, ±1/|prob_score|, + when the LLM was right
 .prob_score       float    log-probability of the LLM's verdict given this path
 .relevant         "0"/"1"  the LLM's verdict with this path was right
 .sim_score        float    (test_sim only) MiniLM cosine of pair and path
 .stops_id         str      (SEMEVAL only) Wikidata ids of the stops
 .reltypes_id      str      (SEMEVAL only) Wikidata property ids
=================  =======  ===========================================================

>>> recs = read_path_file("../shared/data/path-to-causality/ade/train_full.jsonl")  # doctest: +SKIP
>>> recs[0].pair, recs[0].paths[0].text()                                # doctest: +SKIP
(('azithromycin', 'ototoxicity'), 'Compound Azithromycin - SideEffect Hearing impaired - ...')
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causalqa import config
from causalqa.errors import PathDataError
from causalqa.jsonl import read_jsonl

__all__ = [
    "DATASETS",
    "PathCandidate",
    "PathDataError",
    "PathDataset",
    "PathRecord",
    "default_data_dir",
    "load_path_dataset",
    "read_path_file",
    "validation_split",
]

# data set folder → (suffix of its test_gpt file, the paper's display name)
DATASETS: dict[str, tuple[str, str]] = {
    "comagc": ("c", "COMAGC"),
    "gene": ("g", "GENEC"),
    "ade": ("a", "ADE"),
    "semeval": ("s", "SEMEVAL"),
}
SPLITS = ("train", "truth", "sim", "gpt")
_SEP = " - "


default_data_dir = config.data_dir
"""The shared data folder: `causalqa.config.data_dir` (this module's older name for it)."""


def _split(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in text.split(_SEP)) if text.strip() else ()


@dataclass(frozen=True)
class PathCandidate:
    """One metapath-based subgraph between a pair."""

    path_id: int
    stops: tuple[str, ...]
    relations: tuple[str, ...] = ()
    node_types: tuple[str, ...] = ()
    rel_score: float | None = None
    prob_score: float | None = None
    relevant: bool | None = None
    sim_score: float | None = None
    stop_ids: tuple[str, ...] = ()
    relation_ids: tuple[str, ...] = ()

    def text(self, *, types: bool = True, relations: bool = False) -> str:
        """Verbalise the path.

        ``types=True`` prefixes each node with its type as the paper's ranker input (Eq. 5,
        App. D.1: "Gene FGF6 - Anatomy tendon - ..."); where a path has no node types
        (Wikidata) the relation labels are interleaved instead, as App. D.1 does.
        ``relations=True`` writes every hop with its relation (Eq. 7). An empty path gives "".
        """
        typed = types and len(self.node_types) == len(self.stops)
        if typed:
            nodes = [f"{t} {s}" for t, s in zip(self.node_types, self.stops)]
        else:
            nodes = list(self.stops)
        hops_ok = bool(self.relations) and len(self.relations) == len(self.stops) - 1
        if relations and hops_ok:
            hops = [f"-[{r}]-> {n}" for r, n in zip(self.relations, nodes[1:])]
            return " ".join([nodes[0], *hops])
        if types and not typed and hops_ok:
            parts = [nodes[0]]
            for r, n in zip(self.relations, nodes[1:]):
                parts += [r, n]
            return _SEP.join(parts)
        return _SEP.join(nodes)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "pathid": self.path_id,
            "stops": _SEP.join(self.stops),
            "reltypes": _SEP.join(self.relations),
            "nodelabels": _SEP.join(self.node_types),
        }
        if self.rel_score is not None:
            d["rel_score"] = self.rel_score
        if self.prob_score is not None:
            d["prob_score"] = self.prob_score
        if self.relevant is not None:
            d["relevant"] = "1" if self.relevant else "0"
        if self.sim_score is not None:
            d["sim_score"] = self.sim_score
        return d


@dataclass(frozen=True)
class PathRecord:
    """A variable pair in its sentence, its causal label and its candidate paths."""

    qid: str
    sentence: str
    e1: str
    e2: str
    label: int
    paths: tuple[PathCandidate, ...]
    llm_pred: int | None = None
    source: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)

    @property
    def pair(self) -> tuple[str, str]:
        return (self.e1, self.e2)


@dataclass
class PathDataset:
    """The four files of one data set (``sim``/``gpt`` may be empty when absent)."""

    name: str
    train: list[PathRecord]
    truth: list[PathRecord]
    sim: list[PathRecord] = field(default_factory=list)
    gpt: list[PathRecord] = field(default_factory=list)

    @property
    def display_name(self) -> str:
        return DATASETS.get(self.name, ("", self.name.upper()))[1]


_TAG = re.compile(r"\s*</?e[12]>\s*")


def clean_sentence(sentence: str) -> str:
    """The record's sentence without its ``<e1>``/``<e2>`` entity tags.

    >>> clean_sentence("<e1> FGF6 </e1> drives <e2> prostate cancer </e2> .")
    'FGF6 drives prostate cancer .'
    """
    return " ".join(_TAG.sub(" ", sentence).split())


def _fail(path: Path, line: int, problem: str) -> PathDataError:
    return PathDataError(f"{path}:{line}: {problem}", path=str(path), line=line)


def _str(obj: dict, key: str, path: Path, line: int, *, where: str = "") -> str:
    if key not in obj:
        raise _fail(path, line, f"missing field {where}{key!r}")
    value = obj[key]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise _fail(path, line, f"field {where}{key!r} must be a string, got {value!r}")
    return value


def _label(obj: dict, key: str, path: Path, line: int, *, where: str = "") -> int:
    value = _str(obj, key, path, line, where=where).strip()
    if value not in ("0", "1"):
        raise _fail(path, line, f"field {where}{key!r} must be '0' or '1', got {value!r}")
    return int(value)


def _float(obj: dict, key: str, path: Path, line: int, where: str) -> float | None:
    if key not in obj or obj[key] is None:
        return None
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _fail(path, line, f"field {where}{key!r} must be a number, got {value!r}")
    try:
        return float(value)
    except ValueError:
        raise _fail(path, line, f"field {where}{key!r} must be a number, got {value!r}") from None


def _opt_text(obj: dict, key: str, path: Path, line: int, where: str) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None:
        return ()
    if not isinstance(value, str):
        raise _fail(path, line, f"field {where}{key!r} must be a string, got {value!r}")
    return _split(value)


def _candidate(m: Any, k: int, path: Path, line: int) -> PathCandidate:
    where = f"metapaths[{k}]."
    if not isinstance(m, dict):
        raise _fail(path, line, f"metapaths[{k}] must be an object, got {m!r}")
    pid = m.get("pathid", k)
    if isinstance(pid, bool) or not isinstance(pid, int | str):
        raise _fail(path, line, f"field {where}'pathid' must be an integer, got {pid!r}")
    try:
        pid = int(pid)
    except ValueError:
        raise _fail(path, line, f"field {where}'pathid' must be an integer, got {pid!r}") from None
    # SEMEVAL holds a few empty paths ("stops": ""): a scored "no path" candidate, kept.
    stops = _split(_str(m, "stops", path, line, where=where))
    relevant = _label(m, "relevant", path, line, where=where) if "relevant" in m else None
    return PathCandidate(
        path_id=pid,
        stops=stops,
        relations=_opt_text(m, "reltypes", path, line, where),
        node_types=_opt_text(m, "nodelabels", path, line, where),
        rel_score=_float(m, "rel_score", path, line, where),
        prob_score=_float(m, "prob_score", path, line, where),
        relevant=None if relevant is None else bool(relevant),
        sim_score=_float(m, "sim_score", path, line, where),
        stop_ids=_opt_text(m, "stops_id", path, line, where),
        relation_ids=_opt_text(m, "reltypes_id", path, line, where),
    )


def parse_record(obj: Any, *, source: str | Path = "<record>", line: int = 0) -> PathRecord:
    """Build a `PathRecord` from one decoded JSON object; `PathDataError` names
    `source` and `line` when a field is missing or of the wrong type."""
    path = Path(source)
    if not isinstance(obj, dict):
        raise _fail(path, line, f"expected a JSON object, got {type(obj).__name__}")
    metapaths = obj.get("metapaths")
    if not isinstance(metapaths, list):
        raise _fail(path, line, "field 'metapaths' must be a list")
    return PathRecord(
        qid=_str(obj, "qid", path, line),
        sentence=_str(obj, "sentence", path, line),
        e1=_str(obj, "e1", path, line),
        e2=_str(obj, "e2", path, line),
        label=_label(obj, "ground_truth", path, line),
        llm_pred=_label(obj, "llm_pred", path, line) if "llm_pred" in obj else None,
        paths=tuple(_candidate(m, k, path, line) for k, m in enumerate(metapaths)),
        source=str(path),
        line=line,
    )


def read_path_file(path: str | os.PathLike[str]) -> list[PathRecord]:
    """Read one path-to-causality JSONL file into records (blank lines are skipped).

    Raises `PathDataError` naming the file and the 1-based line of the first malformed
    line, or when the file is missing, unreadable or holds no record.
    """
    p = Path(path)
    if not p.is_file():
        raise PathDataError(f"{p}: no such file")
    records = [parse_record(obj, source=p, line=n) for n, obj in read_jsonl(p, error=PathDataError)]
    if not records:
        raise PathDataError(f"{p}: the file holds no record")
    return records


def dataset_files(name: str, root: str | os.PathLike[str] | None = None) -> dict[str, Path]:
    """Paths of a data set's files by split: train, truth, sim, gpt."""
    if name not in DATASETS:
        raise PathDataError(
            f"unknown path data set {name!r}", hint=f"use one of: {', '.join(DATASETS)}"
        )
    base = Path(root) if root is not None else config.data_dir() / "path-to-causality"
    folder = base / name
    return {
        "train": folder / "train_full.jsonl",
        "truth": folder / "test_truth.jsonl",
        "sim": folder / "test_sim.jsonl",
        "gpt": folder / f"test_gpt_{DATASETS[name][0]}.jsonl",
    }


def load_path_dataset(
    name: str,
    root: str | os.PathLike[str] | None = None,
    *,
    splits: Sequence[str] = SPLITS,
) -> PathDataset:
    """Load one data set (``ade``, ``comagc``, ``gene`` or ``semeval``) from `root` (the
    ``path-to-causality`` folder; default: under `config.data_dir`). ``train`` and
    ``truth`` are required; ``sim`` and ``gpt`` are loaded when present."""
    files = dataset_files(name, root)
    unknown = set(splits) - set(SPLITS)
    if unknown:
        raise PathDataError(f"unknown splits {sorted(unknown)}", hint=f"use {', '.join(SPLITS)}")
    folder = files["train"].parent
    if not folder.is_dir():
        raise PathDataError(
            f"no data set folder {folder}",
            hint="pass root= (the path-to-causality folder) or set CAUSALQA_DATA_DIR",
        )
    loaded: dict[str, list[PathRecord]] = {}
    for split in splits:
        if split in ("sim", "gpt") and not files[split].exists():
            loaded[split] = []
            continue
        loaded[split] = read_path_file(files[split])
    return PathDataset(
        name=name,
        train=loaded.get("train", []),
        truth=loaded.get("truth", []),
        sim=loaded.get("sim", []),
        gpt=loaded.get("gpt", []),
    )


def validation_split(data: PathDataset, *, fraction: float = 0.2, seed: int = 0) -> PathDataset:
    """A by-query split of ``train_full`` for choosing settings without the test set.

    Returns a `PathDataset` named like `data` whose ``train`` is the rest of ``train_full``
    and whose ``truth`` is a seeded `fraction` of its queries (never a test record), with
    no ``sim``/``gpt`` files. A query is in exactly one part, so every path of it is too.

    >>> val = validation_split(load_path_dataset("comagc"))       # doctest: +SKIP
    >>> len(val.train), len(val.truth)                            # doctest: +SKIP
    (510, 128)
    """
    import numpy as np

    if not 0.0 < fraction < 1.0:
        raise PathDataError(f"the validation fraction must be in (0, 1), got {fraction}")
    n = len(data.train)
    n_val = int(round(fraction * n))
    if n_val < 1 or n_val >= n:
        raise PathDataError(f"{data.name}: {n} training records cannot be split {fraction:g}")
    order = np.random.default_rng([seed, 20240]).permutation(n)
    held = set(order[:n_val].tolist())
    return PathDataset(
        name=data.name,
        train=[r for i, r in enumerate(data.train) if i not in held],
        truth=[r for i, r in enumerate(data.train) if i in held],
    )
