"""Training the evidence model (`causalqa discover train`): the labelled pairs it learns
from, their features, and the fitted combiners.

Rows: the ``train_full`` pairs of each path-to-causality set (SEMEVAL: only sentences of
SemEval's ``TRAIN_FILE``; the rest come from its reserved test file) and, for ADE, whose
pairs are all causal, as many ``ADE-NEG`` negatives; every sentence of an evaluation split
is dropped (`check_no_overlap`). Groups keep related rows on one side of every fold: rows
that share a sentence or a pair, and for ADE a drug.

Text features are cross-fitted: the sentence classifier and the lexical readers for fold f
of `text_folds` never saw that fold's sentences, so the combiner learns how far to trust
them on unseen text; the test pairs are read by the mean of the fold models.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from networkx.utils import UnionFind

from causalqa import config
from causalqa.discovery.corpora import (
    A_CAUSES_B,
    B_CAUSES_A,
    NONE,
    RelationExample,
    evaluation_sentences,
    example_from_record,
    sentence_key,
)
from causalqa.discovery.evidence import VARIANTS, group_of, order_free
from causalqa.discovery.pathdata import DATASETS, load_path_dataset
from causalqa.errors import EvidenceArtefactError

__all__ = [
    "PairRow",
    "check_no_overlap",
    "cross_fitted",
    "fit_combiner",
    "pair_rows",
    "row_groups",
    "select_features",
    "text_folds",
    "train_lexical_folds",
]

TEXT_FOLDS = 3


def _norm(name: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in name.lower()).split())


def _pair_key(a: str, b: str) -> str:
    return "p:" + "|".join(sorted((_norm(a), _norm(b))))


def text_folds(
    examples: Sequence[RelationExample], rows: Sequence[PairRow] = (), folds: int = TEXT_FOLDS
) -> dict[str, int]:
    """The cross-fitting fold of every sentence (by `corpora.sentence_key`): sentences
    joined by a shared pair (either order) — and, among the rows, ADE rows by a shared
    drug — are one component, and a component is one fold. So the classifier that reads a
    row never saw that row's sentence, nor another sentence about the same pair (a pair's
    name cannot stand in for its label), nor, for ADE, the same drug."""
    components = UnionFind()

    keys: list[str] = []
    for ex in examples:
        key = "s:" + sentence_key(ex.text)
        components.union(key, _pair_key(ex.a_text, ex.b_text))
        keys.append(key)
    for r in rows:
        key = "s:" + sentence_key(r.sentence)
        components.union(key, _pair_key(r.a, r.b))
        if r.dataset == "ade":
            components.union(key, "d:" + _norm(r.a))
        keys.append(key)
    members: dict[str, list[str]] = {}
    for key in set(keys):
        members.setdefault(components[key], []).append(key)
    out: dict[str, int] = {}
    for group in members.values():
        first = min(group)
        fold = int(hashlib.sha1(first.encode()).hexdigest(), 16) % folds
        for key in group:
            out[key[2:]] = fold
    return out


@dataclass(frozen=True)
class PairRow:
    """One labelled pair: data set, split, id, the names A and B, the sentence (tags
    removed), the spans of A and B in it, the label (1 causal), its group."""

    dataset: str
    split: str
    qid: str
    a: str
    b: str
    sentence: str
    span_a: tuple[int, int]
    span_b: tuple[int, int]
    label: int
    group: str = ""
    source: str = "p2c"


def _row(dataset: str, split: str, ex: RelationExample, a: str, b: str, qid: str, source: str):
    return PairRow(
        dataset, split, qid, a, b, ex.text, ex.a, ex.b, int(ex.label != NONE), source=source
    )


def pair_rows(
    dataset: str,
    split: str = "train",
    root: str | os.PathLike[str] | None = None,
    *,
    seed: int = 0,
    ade_negatives: Sequence[RelationExample] | None = None,
) -> list[PairRow]:
    """The labelled pairs of one data set: ``train`` (for fitting and grouped CV) or
    ``test`` (``test_truth``, the paper's test split). ADE's train rows get as many
    ADE-NEG negatives as it has positives (`ade_negatives`: the corpus's ``ade-neg``
    examples; read from the data folder when None), a seeded sample."""
    if dataset not in DATASETS:
        raise EvidenceArtefactError(f"unknown data set {dataset!r}", hint=", ".join(DATASETS))
    base = Path(root) if root is not None else config.data_dir()
    p2c = base / "path-to-causality"
    data = load_path_dataset(dataset, p2c, splits=("train", "truth"))
    records = data.train if split == "train" else data.truth
    rows: list[PairRow] = []
    semeval_keys: set[str] | None = None
    held = evaluation_sentences(p2c) if split == "train" else {}
    if dataset == "semeval" and split == "train":
        from causalqa.discovery.corpora import read_semeval

        semeval_keys = {
            sentence_key(e.text)
            for e in read_semeval(base / "semeval2010-task8" / "TRAIN_FILE.TXT")
        }
    for record in records:
        key = sentence_key(record.sentence)
        if key in held:
            continue
        if semeval_keys is not None and key not in semeval_keys:
            continue  # from SemEval's reserved test file
        ex = example_from_record(record, dataset)
        if ex is None:
            continue
        rows.append(_row(dataset, split, ex, record.e1, record.e2, record.qid, "p2c"))
    if dataset == "ade" and split == "train":
        if ade_negatives is None:
            from causalqa.discovery.corpora import ade_negatives as read_negatives
            from causalqa.discovery.corpora import read_ade

            folder = base / "ade-corpus-v2"
            _, vocabulary = read_ade(folder)
            ade_negatives = read_negatives(folder, vocabulary)
        pool = [e for e in ade_negatives if sentence_key(e.text) not in held]
        want = min(len(pool), sum(r.label for r in rows))
        rng = np.random.default_rng([seed, 16])
        for i in sorted(rng.choice(len(pool), size=want, replace=False).tolist()):
            ex = pool[i]
            rows.append(_row("ade", "train", ex, ex.a_text, ex.b_text, f"neg-{i}", "ade-neg"))
    groups = row_groups(rows)
    return [PairRow(**{**r.__dict__, "group": g}) for r, g in zip(rows, groups)]


SENTENCES = "sentences"
"""The rows key (``sentences/train``) of the corpus's general sentences as combiner rows."""


def sentence_rows(
    examples: Sequence[RelationExample], skip: Sequence[PairRow] = ()
) -> list[PairRow]:
    """The general-family corpus examples (SemEval-2010 ``TRAIN_FILE`` outside the held-out
    split, and their `rewrites`) as combiner rows, so the combiner learns how far to trust a
    general sentence from thousands of them rather than from the few path-to-causality SEMEVAL
    rows; sentences of `skip` (those rows) are left out, not counted twice."""
    from causalqa.discovery.lexical import family_of

    seen = {sentence_key(r.sentence) for r in skip}
    rows = []
    for i, ex in enumerate(examples):
        if family_of(ex.source) != "general" or sentence_key(ex.text) in seen:
            continue
        rows.append(_row(SENTENCES, "train", ex, ex.a_text, ex.b_text, f"s{i}", ex.source))
    groups = row_groups(rows)
    return [PairRow(**{**r.__dict__, "group": g}) for r, g in zip(rows, groups)]


def row_groups(rows: Sequence[PairRow]) -> list[str]:
    """Union of rows that share a sentence or a pair (either order), and ADE rows that
    share a drug (A): each component is one group, named by its first row."""
    components = UnionFind()
    for i, r in enumerate(rows):
        me = f"row:{i}"
        components.union(me, "s:" + sentence_key(r.sentence))
        components.union(me, _pair_key(r.a, r.b))
        if r.dataset == "ade":
            components.union(me, "d:" + _norm(r.a))
    roots: dict[str, str] = {}
    out = []
    for i, r in enumerate(rows):
        root = components[f"row:{i}"]
        roots.setdefault(root, f"{r.dataset}:{r.qid}")
        out.append(roots[root])
    return out


def check_no_overlap(train: Sequence[Any], held: Mapping[str, str]) -> list[str]:
    """The sentences of `train` (rows or examples, anything with ``sentence`` or ``text``)
    that occur in `held` (`corpora.evaluation_sentences`): must be empty."""
    hits = []
    for item in train:
        text = getattr(item, "sentence", None) or getattr(item, "text", "")
        if sentence_key(text) in held:
            hits.append(text)
    return hits


# -- features of rows --------------------------------------------------------------------------


@dataclass
class RowEvidence:
    """Features (by name) of each row, with what was computed and how long it took."""

    rows: list[PairRow]
    features: list[dict[str, float]]
    text_probs: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


def cross_fitted(
    rows: Sequence[PairRow],
    predict: Callable[[int | None, list], Sequence[Any]],
    *,
    folds: Mapping[str, int] | None = None,
) -> list[Any]:
    """Per row, what `predict(fold, mentions)` gives for its mention, asked of the fold
    model that did not see the row's sentence (`text_folds`; training rows), or
    `predict(None, mentions)` (the fold models together, as for the test rows) when
    `folds` is None or does not hold the sentence."""
    from causalqa.discovery.relation import Mention

    mentions = [Mention(r.sentence, r.span_a, r.span_b) for r in rows]
    which = [None if folds is None else folds.get(sentence_key(r.sentence)) for r in rows]
    out: list[Any] = [None] * len(rows)
    for f in sorted(set(which), key=lambda v: -1 if v is None else v):
        idx = [i for i, w in enumerate(which) if w == f]
        for i, value in zip(idx, predict(f, [mentions[i] for i in idx])):
            out[i] = value
    return out


def text_probabilities(
    rows: Sequence[PairRow],
    predict: Callable[[int | None, list], np.ndarray],
    *,
    folds: Mapping[str, int] | None = None,
) -> np.ndarray:
    """P(none, A→B, B→A) per row, cross-fitted as `cross_fitted` says."""
    got = cross_fitted(rows, predict, folds=folds)
    return np.array(got, dtype=float).reshape(len(rows), 3)


def row_features(
    rows: Sequence[PairRow],
    *,
    kg=None,
    text_probs: np.ndarray | None = None,
    lexical: Sequence[Mapping[str, float]] | None = None,
    llm_log_odds: Mapping[int, float] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> RowEvidence:
    """`pair.gather_evidence` for every row (the sentence's spans as given), with its
    text probabilities, the lexical readers' features and LLM log-odds already computed."""
    from causalqa.discovery.evidence import llm_features, text_features
    from causalqa.discovery.features import cue_features, kg_features, missing_kg
    from causalqa.discovery.pair import link_for_evidence

    started = time.perf_counter()
    links: dict[str, tuple] = {}
    feats: list[dict[str, float]] = []
    for i, r in enumerate(rows):
        f: dict[str, float] = {}
        if text_probs is not None:
            f.update(text_features(text_probs[i]))
            f.update(cue_features(r.sentence, r.span_a, r.span_b))
        if lexical is not None:
            f.update(lexical[i])
        if kg is not None:
            nodes, infos = [], []
            for name in (r.a, r.b):
                if name not in links:
                    links[name] = link_for_evidence(kg, name, guesses=False)[:2]
                node, info = links[name]
                nodes.append(node)
                infos.append(info)
            if None in nodes:
                f.update(missing_kg(*infos))
            else:
                f.update(
                    kg_features(kg, nodes[0], nodes[1], link_a=infos[0], link_b=infos[1]).features
                )
        if llm_log_odds is not None and i in llm_log_odds:
            f.update(llm_features(*llm_log_odds[i]))
        feats.append(f)
        if on_progress:
            on_progress(i + 1, len(rows))
    return RowEvidence(
        list(rows), feats, text_probs, seconds={"features": time.perf_counter() - started}
    )


# -- the combiner -------------------------------------------------------------------------------


def select_features(
    features: Sequence[Mapping[str, float]],
    variant: str,
    *,
    min_rows: int = 10,
    max_metapaths: int = 40,
) -> list[str]:
    """The feature names a variant's combiner reads: the order-free features of its
    evidence groups present in at least `min_rows` rows; of the metapaths (``mp=``) the
    `max_metapaths` most common."""
    groups = set(variant.split("+"))
    counts: dict[str, int] = {}
    for row in features:
        for name, value in row.items():
            if value is not None and (
                value != 0 or not name.startswith(("mp=", "edge=", "kinds="))
            ):
                counts[name] = counts.get(name, 0) + 1
    names = [n for n in counts if group_of(n) in groups and counts[n] >= min_rows]
    names = order_free(names)
    mps = sorted((n for n in names if n.startswith("mp=")), key=lambda n: (-counts[n], n))
    keep_mp = set(mps[:max_metapaths])
    return sorted(n for n in names if not n.startswith("mp=") or n in keep_mp)


def has_variant(row: Mapping[str, float], variant: str) -> bool:
    """Whether a row carries every evidence group of `variant`. Beside a sentence, and
    alone, KG evidence is a path between the two linked nodes (`evidence.has_kg_evidence`):
    a pair with a sentence and two placed names with no path between them is judged as if
    no graph were loaded (`EvidenceJudge.judge` does the same), so the absence of a path in
    a sampled graph cannot overrule a sentence; and with neither a sentence nor a path the
    verdict is unknown (`EvidenceJudge.abstention`), so the KG-only combiner learns from
    pairs with a path, the only ones it decides."""
    from causalqa.discovery.evidence import has_kg_evidence

    groups = set(variant.split("+"))
    need = {"text": "text_causal", "kg": "shortest", "llm": "llm_log_odds"}
    if "kg" in groups and "llm" not in groups and not has_kg_evidence(row):
        return False
    return all(need[g] in row for g in groups)


MIN_REGIME_ROWS = 200


def regime_thresholds(
    features: Sequence[Mapping[str, float]],
    labels: Sequence[int],
    p: Sequence[float],
    variant: str,
    *,
    min_rows: int = MIN_REGIME_ROWS,
) -> dict[str, float]:
    """A threshold per family of text (``<variant>@<family>``, `evidence.text_family`) for
    a variant with a sentence, each chosen on the out-of-fold predictions `p` of that
    family's training rows where it has `min_rows` rows of both classes: the families'
    corpora differ in how sure the combiner is of their sentences, so one threshold over
    all of them misplaces the general family's (SemEval-style sentences at P 0.2–0.4 said
    non-causal). Chosen by balanced accuracy, which does not depend on how common causal
    sentences are: how common they are in a corpus says nothing of the sentences a user
    asks about."""
    from causalqa.discovery.evidence import text_family
    from causalqa.evidence import choose_threshold

    if "text" not in variant.split("+"):
        return {}
    y = np.asarray(labels)
    p = np.asarray(p, dtype=float)
    fam = np.array([text_family(f) or "" for f in features])
    out = {}
    for family in sorted(set(fam.tolist()) - {""}):
        idx = np.flatnonzero(fam == family)
        if idx.size >= min_rows and 0 < y[idx].sum() < idx.size:
            out[f"{variant}@{family}"] = choose_threshold(y[idx], p[idx], metric="balanced")
    return out


def fit_combiner(
    features: Sequence[Mapping[str, float]],
    labels: Sequence[int],
    groups: Sequence[str],
    variant: str,
    *,
    kind: str = "xgboost",
    calibration: str = "isotonic",
    seed: int = 0,
    names: Sequence[str] | None = None,
    params: Mapping[str, Any] | None = None,
):
    """An `EvidenceModel` for one variant over `features` (named dicts), calibrated on
    grouped folds."""
    from causalqa.discovery.features import vectorize
    from causalqa.evidence import EvidenceModel

    names = list(names) if names is not None else select_features(features, variant)
    x = vectorize(features, names)
    model = EvidenceModel(
        kind=kind, calibration=calibration, cv=5, seed=seed, params=dict(params or {})
    )
    return model.fit(x, np.asarray(labels), feature_names=names, groups=list(groups))


def out_of_fold(
    features: Sequence[Mapping[str, float]],
    labels: Sequence[int],
    groups: Sequence[str],
    variant: str,
    *,
    folds: int = 5,
    seed: int = 0,
    **options: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """P(causal) of every row from a combiner fitted on the other grouped folds (feature
    names chosen on those folds too), and each row's fold."""
    from causalqa.evidence import grouped_folds

    labels = np.asarray(labels)
    p = np.zeros(len(labels))
    fold_of = np.zeros(len(labels), dtype=int)
    for f, (tr, te) in enumerate(grouped_folds(groups, folds, seed=seed)):
        sub = [features[i] for i in tr]
        model = fit_combiner(
            sub, labels[tr], [groups[i] for i in tr], variant, seed=seed, **options
        )
        from causalqa.discovery.features import vectorize

        p[te] = model.predict_proba(vectorize([features[i] for i in te], model.feature_names_))[
            :, 1
        ]
        fold_of[te] = f
    return p, fold_of


VARIANT_ORDER = VARIANTS


def row_key(row: PairRow) -> str:
    """A stable key of a row (data set, split, id, names), e.g. for a cache file."""
    return "\x1f".join((row.dataset, row.split, row.qid, row.a, row.b))


def llm_log_odds(
    rows: Sequence[PairRow],
    *,
    llm,
    kg=None,
    context: bool = True,
    cache_file: str | os.PathLike[str] | None = None,
    compute: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, tuple[float, bool]]:
    """The LLM's log-odds of "causal" for each row under the paper's prompt (pair, the
    sentence when `context`, the strongest KG path when `kg` places both names), keyed by
    `row_key`: ``(log-odds, whether a path was in the prompt)``. With `cache_file` (JSON
    Lines) finished rows are kept and a rerun resumes; with ``compute=False`` only rows
    already there are returned (no LLM call)."""
    from causalqa.discovery.features import kg_features
    from causalqa.discovery.pair import classify_pair, link_for_evidence
    from causalqa.jsonl import appending, read_jsonl

    model = getattr(llm, "model", "") or type(llm).__name__
    done: dict[str, tuple[float, bool]] = {}
    path = Path(cache_file) if cache_file else None
    if path is not None and path.is_file():
        for _, obj in read_jsonl(path, torn_tail=True):
            if obj.get("model") == model and obj.get("context") == context:
                done[obj["key"]] = (float(obj["log_odds"]), bool(obj["path"]))
    links: dict[str, tuple] = {}
    with appending(path) as keep:
        for i, r in enumerate(rows):
            key = row_key(r)
            if key not in done and compute:
                chosen = []
                if kg is not None:
                    nodes = []
                    for name in (r.a, r.b):
                        if name not in links:
                            links[name] = link_for_evidence(kg, name, guesses=False)[:2]
                        nodes.append(links[name][0])
                    if None not in nodes:
                        ev = kg_features(kg, nodes[0], nodes[1])
                        chosen = [p for p, _ in ev.strongest(1)]
                v = classify_pair(
                    r.a, r.b, llm, paths=chosen, context=r.sentence if context else None
                )
                done[key] = (v.log_odds, bool(chosen))
                keep(
                    {
                        "key": key,
                        "model": model,
                        "context": context,
                        "log_odds": round(v.log_odds, 5),
                        "path": bool(chosen),
                        "paths": v.paths,
                    }
                )
            if on_progress:
                on_progress(i + 1, len(rows))
    return {row_key(r): done[row_key(r)] for r in rows if row_key(r) in done}


# -- the whole training run --------------------------------------------------------------------


def file_digests(paths: Sequence[str | os.PathLike[str]]) -> dict[str, str]:
    """sha256 of each file (the data a model was trained on)."""
    out = {}
    for p in paths:
        p = Path(p)
        if p.is_file():
            out[p.name if p.parent.name in ("", ".") else f"{p.parent.name}/{p.name}"] = (
                hashlib.sha256(p.read_bytes()).hexdigest()
            )
    return out


def kg_identity(kg) -> dict[str, Any]:
    """What a KG's features depend on: its source and size."""
    if kg is None:
        return {}
    meta = getattr(kg, "meta", {}) or {}
    index = kg.path_index()
    return {
        "nodes": int(index.n_nodes),
        "edges": int(index.n_edges),
        "source": meta.get("source"),
        "kinds": sorted(str(k) for k in kg.nodes()["kind"].unique()),
    }


@dataclass
class TrainingRecord:
    """Everything a training run computed, for the benchmark to evaluate without
    recomputing: rows (train and test), their features, the text model's name."""

    rows: dict[str, list[PairRow]]
    features: dict[str, list[dict[str, float]]]
    text_model: str
    info: dict[str, Any] = field(default_factory=dict)
    corpus: dict[str, list] = field(default_factory=dict)
    """Per corpus example: source, label, cross-fitting fold, the fold model's
    probabilities (none, A→B, B→A) and the marked sentence (for the TF-IDF baseline)."""

    def train(self, datasets: Sequence[str] | None = None) -> tuple[list[PairRow], list[dict]]:
        names = datasets or [d for d in DATASETS if f"{d}/train" in self.rows]
        rows = [r for d in names for r in self.rows.get(f"{d}/train", [])]
        feats = [f for d in names for f in self.features.get(f"{d}/train", [])]
        return rows, feats


def _cached_rows(path: Path, key: str) -> dict[str, dict]:
    from causalqa.jsonl import read_jsonl

    out = {}
    if path.is_file():
        for _, obj in read_jsonl(path, torn_tail=True):
            if obj.get("store") == key:
                out[obj["row"]] = obj["features"]
    return out


def kg_row_features(
    rows: Sequence[PairRow],
    kg,
    *,
    cache_file: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, float]]:
    """`row_features`' KG part for each row, kept in `cache_file` (JSON Lines keyed by
    the row and the store's size), so a rerun reads instead of recomputing."""
    from causalqa.jsonl import appending

    ident = kg_identity(kg)
    store = f"{ident.get('nodes')}:{ident.get('edges')}"
    cached = _cached_rows(cache_file, store) if cache_file else {}
    out: list[dict[str, float]] = []
    with appending(cache_file) as keep:
        for i, r in enumerate(rows):
            key = row_key(r)
            if key not in cached:
                cached[key] = row_features([r], kg=kg).features[0]
                keep({"row": key, "store": store, "features": cached[key]})
            out.append(cached[key])
            if on_progress:
                on_progress(i + 1, len(rows))
    return out


def train_text_folds(
    corpus_examples: Sequence[RelationExample],
    folds: Mapping[str, int],
    *,
    mode: str,
    work: Path,
    n_folds: int = TEXT_FOLDS,
    seed: int = 0,
    threads: int = 1,
    options: Mapping[str, Any] | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
):
    """One `RelationClassifier` per fold, trained on every corpus sentence outside it, kept
    under ``work/text-<mode>[-<features>]/fold<k>`` (an existing one is loaded, not
    retrained), with its predictions for the sentences of its own fold. Returns (fold
    models, out-of-fold probabilities of every corpus example, each example's fold)."""
    from causalqa.discovery.lexical import family_of
    from causalqa.discovery.relation import Mention, RelationClassifier

    which = np.array([folds[sentence_key(e.text)] for e in corpus_examples])
    layout = RelationClassifier(mode=mode, **dict(options or {}))._layout()
    # Fold models of another feature layout in the same work folder are not reused.
    folder = work / (f"text-{mode}" if layout == "last" else f"text-{mode}-{layout}")
    features = None
    if mode == "frozen":
        features = _frozen_features(corpus_examples, work, threads, options, on_progress)
    members = []
    oof = np.zeros((len(corpus_examples), 3))
    for k in range(n_folds):
        target = folder / f"fold{k}"
        idx = np.flatnonzero(which != k)
        held = np.flatnonzero(which == k)
        if (target / "manifest.json").is_file():
            clf = RelationClassifier.load(target, threads=threads)
        else:
            clf = RelationClassifier(mode=mode, seed=seed, threads=threads, **dict(options or {}))
            clf.fit(
                [corpus_examples[i] for i in idx],
                features=(features[0][idx], features[1][idx]) if features is not None else None,
                families=[family_of(corpus_examples[i].source) for i in idx],
                on_progress=(lambda s, d, t, k=k: on_progress(f"fold {k + 1}/{n_folds}: {s}", d, t))
                if on_progress
                else None,
            )
            clf.save(target, info={"fold": k, "examples": int(idx.size)})
        members.append(clf)
        saved = target / "held-out.npy"
        if saved.is_file():
            got = np.load(saved)
            oof[got[:, 0].astype(int)] = got[:, 1:]
            continue
        if features is not None:
            probs = clf.predict_features(features[0][held])
        else:
            probs = clf.predict_proba([Mention.of(corpus_examples[i]) for i in held])
        oof[held] = probs
        np.save(saved, np.column_stack([held, probs]))
    return members, oof, which


def _frozen_features(corpus_examples, work: Path, threads: int, options, on_progress):
    """The frozen encoder's features of every corpus example, encoding only the examples
    no earlier run in `work` encoded (``frozen-features-*.npz``, keyed by each example's
    sentence and spans), so a corpus that grows by a few examples costs only those. The
    ``"layers"`` features (``frozen-layers-*.npz``) are kept in float16."""
    from causalqa.discovery.relation import Mention, RelationClassifier

    enc = RelationClassifier(mode="frozen", threads=threads, **dict(options or {}))
    layout = enc._layout()
    prefix = "frozen-features-" if layout == "last" else f"frozen-{layout}-"
    keys = [Mention.of(e).key() for e in corpus_examples]
    digest = hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]
    cache = work / f"{prefix}{digest}.npz"
    if cache.is_file():
        z = np.load(cache)
        if "keys" not in z.files:
            return z["fwd"], z["bwd"]
    known: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for old in sorted(work.glob(f"{prefix}*.npz")):
        z = np.load(old)
        if "keys" in z.files:
            for k, f, b in zip(z["keys"].tolist(), z["fwd"], z["bwd"]):
                known[k] = (f, b)
    missing = [i for i, k in enumerate(keys) if k not in known]
    if missing:
        fwd, bwd = enc.encode(
            [Mention.of(corpus_examples[i]) for i in missing],
            on_progress=(lambda d, t: on_progress("encode corpus", d, t)) if on_progress else None,
        )
        for j, i in enumerate(missing):
            known[keys[i]] = (fwd[j], bwd[j])
    stored = np.float32 if layout == "last" else np.float16
    features = tuple(np.stack([known[k][j] for k in keys]).astype(stored) for j in (0, 1))
    work.mkdir(parents=True, exist_ok=True)
    np.savez(cache, fwd=features[0], bwd=features[1], keys=np.array(keys))
    return features


def train_lexical_folds(
    corpus_examples: Sequence[RelationExample],
    folds: Mapping[str, int],
    *,
    n_folds: int = TEXT_FOLDS,
    options: Mapping[str, Any] | None = None,
):
    """One `lexical.LexicalEvidence` per cross-fitting fold, trained on every corpus
    sentence outside it (as `train_text_folds` does for the transformer; a minute, so not
    cached). Returns the fold models."""
    from causalqa.discovery.lexical import LexicalEvidence
    from causalqa.discovery.relation import Mention

    which = np.array([folds[sentence_key(e.text)] for e in corpus_examples])
    mentions = [Mention.of(e) for e in corpus_examples]
    labels = np.array([int(e.label != NONE) for e in corpus_examples])
    sources = [e.source for e in corpus_examples]
    members = []
    for k in range(n_folds):
        idx = np.flatnonzero(which != k)
        members.append(
            LexicalEvidence(**dict(options or {})).fit(
                [mentions[i] for i in idx], labels[idx], [sources[i] for i in idx]
            )
        )
    return members


def train_evidence(
    *,
    data_dir: str | os.PathLike[str] | None = None,
    kg=None,
    llm=None,
    mode: str = "finetune",
    work: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    datasets: Sequence[str] = tuple(DATASETS),
    folds: int = TEXT_FOLDS,
    seed: int = 0,
    threads: int = 1,
    kind: str = "xgboost",
    calibration: str = "isotonic",
    command: str = "",
    text_options: Mapping[str, Any] | None = None,
    llm_compute: bool = True,
    general_rows: bool = True,
    rewrites: bool = True,
    on_progress: Callable[[str, int, int], None] | None = None,
):
    """Train the evidence model end to end and write it to `out` (default: the cache's
    `evidence.trained_artefacts`); every slow step is kept in `work` (default
    ``$CAUSALQA_HOME/discovery/evidence-work``), so a rerun only does what is missing.

    Steps: the text corpus (`corpora.training_corpus`) → the rows of each data set →
    `text_folds` → one text classifier per fold (`mode` frozen or finetune) and one lexical
    reader per fold → cross-fitted text probabilities and lexical log-odds of the training
    rows, the fold models' mean for the test rows →
    KG features (with `kg`) → the LLM's log-odds (with `llm`: slow, resumable; with
    ``llm_compute=False`` only those already cached, so "+llm" variants are fitted on the
    rows that have them) → one calibrated combiner per evidence variant, its threshold chosen
    on grouped out-of-fold predictions (and per family of text, `regime_thresholds`), and
    the direction reader (`fit_direction`). `general_rows`: the corpus's general sentences
    are combiner rows too (`sentence_rows`); `rewrites`: the corpus holds the rewrites of
    its causal SemEval sentences (`rewrites.rewrite_examples`). Returns (`EvidenceJudge`,
    `TrainingRecord`)."""
    from causalqa.discovery.corpora import training_corpus
    from causalqa.discovery.evidence import EvidenceJudge, trained_artefacts
    from causalqa.discovery.lexical import mean_features
    from causalqa.discovery.relation import RelationEnsemble
    from causalqa.evidence import choose_threshold

    started = time.perf_counter()
    root = Path(data_dir) if data_dir is not None else config.data_dir()
    work_dir = Path(work) if work else config.home_dir() / "discovery" / "evidence-work"
    out_dir = Path(out) if out else trained_artefacts()
    step = on_progress or (lambda *_: None)

    step("corpus", 0, 1)
    from causalqa.discovery.rewrites import rewrite_examples

    corpus = training_corpus(root, augment=rewrite_examples if rewrites else None)
    rows: dict[str, list[PairRow]] = {}
    negatives = [e for e in corpus.examples if e.source == "ade-neg"]
    for d in datasets:
        for split in ("train", "test"):
            rows[f"{d}/{split}"] = pair_rows(
                d, split, root, seed=seed, ade_negatives=negatives if d == "ade" else None
            )
    if general_rows:
        rows[f"{SENTENCES}/train"] = sentence_rows(
            corpus.examples, skip=rows.get("semeval/train", [])
        )
    combined = [*datasets, SENTENCES] if general_rows else list(datasets)
    train_rows = [r for d in combined for r in rows[f"{d}/train"]]
    held = evaluation_sentences(root / "path-to-causality")
    leaked = check_no_overlap(list(corpus.examples) + train_rows, held)
    if leaked:
        raise EvidenceArtefactError(
            f"{len(leaked)} training sentences occur in an evaluation split, e.g. {leaked[0]!r}"
        )
    step("corpus", 1, 1)

    fold_map = text_folds(corpus.examples, train_rows, folds)
    members, corpus_oof, corpus_fold = train_text_folds(
        corpus.examples,
        fold_map,
        mode=mode,
        work=work_dir,
        n_folds=folds,
        seed=seed,
        threads=threads,
        options=text_options,
        on_progress=step,
    )
    ensemble = RelationEnsemble(members)
    step("lexical readers", 0, 1)
    lexical = train_lexical_folds(corpus.examples, fold_map, n_folds=folds)
    step("lexical readers", 1, 1)

    def predict(fold, mentions):
        if fold is None:
            return ensemble.predict_proba(mentions)
        return members[fold].predict_proba(mentions)

    def predict_lexical(fold, mentions):
        return mean_features(lexical if fold is None else [lexical[fold]], mentions)

    features: dict[str, list[dict[str, float]]] = {}
    llm_model = getattr(llm, "model", "") if llm is not None else ""
    for key, group in rows.items():
        step(f"text: {key}", 0, len(group))
        cross = fold_map if key.endswith("/train") else None
        probs = text_probabilities(group, predict, folds=cross)
        lexical_feats = cross_fitted(group, predict_lexical, folds=cross)
        feats = row_features(group, text_probs=probs, lexical=lexical_feats).features
        if kg is not None and not key.startswith(f"{SENTENCES}/"):
            # The general sentences are text rows: their everyday names rarely name a node
            # of a biomedical graph, and looking up thousands of names that match nothing
            # (fuzzy and embedding search each) would take hours.
            kg_feats = kg_row_features(
                group,
                kg,
                cache_file=work_dir / "kg-features.jsonl",
                on_progress=lambda d, t, key=key: step(f"KG: {key}", d, t),
            )
            for f, g in zip(feats, kg_feats):
                f.update(g)
        if llm is not None:
            odds = llm_log_odds(
                group,
                llm=llm,
                kg=kg,
                cache_file=work_dir / f"llm-{_slug(llm_model)}.jsonl",
                compute=llm_compute,
                on_progress=lambda d, t, key=key: step(f"LLM: {key}", d, t),
            )
            from causalqa.discovery.evidence import llm_features

            for r, f in zip(group, feats):
                if row_key(r) in odds:
                    f.update(llm_features(*odds[row_key(r)]))
        features[key] = feats

    how = "fine-tuned" if mode == "finetune" else "frozen"
    text_model = f"all-MiniLM-L6-v2 ({how}, {folds}-fold ensemble)"
    record = TrainingRecord(rows, features, text_model, info={"mode": mode, "folds": folds})
    record.corpus = {
        "source": [e.source for e in corpus.examples],
        "label": [e.label for e in corpus.examples],
        "fold": corpus_fold.tolist(),
        "probs": corpus_oof.round(5).tolist(),
        "marked": [_marked(e) for e in corpus.examples],
    }
    train_feats = [f for d in combined for f in features[f"{d}/train"]]
    labels = np.array([r.label for r in train_rows])
    groups = [r.group for r in train_rows]
    combiners, thresholds, oof = {}, {}, {}
    for variant in VARIANTS:
        if "kg" in variant and kg is None:
            continue
        keep = [i for i, f in enumerate(train_feats) if has_variant(f, variant)]
        if len(keep) < 50 or len(set(labels[keep].tolist())) < 2:
            continue
        step(f"combiner {variant}", 0, 1)
        sub = [train_feats[i] for i in keep]
        sub_groups = [groups[i] for i in keep]
        p, _ = out_of_fold(
            sub, labels[keep], sub_groups, variant, seed=seed, kind=kind, calibration=calibration
        )
        thresholds[variant] = choose_threshold(labels[keep], p, metric="macro_f1")
        thresholds.update(regime_thresholds(sub, labels[keep], p, variant))
        combiners[variant] = fit_combiner(
            sub, labels[keep], sub_groups, variant, seed=seed, kind=kind, calibration=calibration
        )
        oof[variant] = {"rows": keep, "p": p.tolist()}
        step(f"combiner {variant}", 1, 1)
    record.info["oof"] = oof
    data_files = [
        root / "semeval2010-task8" / "TRAIN_FILE.TXT",
        root / "ade-corpus-v2" / "DRUG-AE.rel",
        root / "ade-corpus-v2" / "ADE-NEG.txt",
        *(
            root / "path-to-causality" / d / f
            for d in datasets
            for f in ("train_full.jsonl", "test_truth.jsonl")
        ),
    ]
    info = {
        "command": command or "causalqa discover train",
        "data": file_digests(data_files),
        "kg": kg_identity(kg),
        "llm": llm_model or None,
        "llm_rows": {k: sum(1 for f in v if "llm_log_odds" in f) for k, v in features.items()},
        "corpus": corpus.summary(),
        "rows": {k: {"n": len(v), "causal": sum(r.label for r in v)} for k, v in rows.items()},
        "text_model": text_model,
        "mode": mode,
        "folds": folds,
        "seed": seed,
        "seconds": round(time.perf_counter() - started, 1),
        "combiner": {"kind": kind, "calibration": calibration},
    }
    manifest = {"text_model": text_model, "kinds": info["kg"].get("kinds", []), "kg": info["kg"]}
    step("direction reader", 0, 1)
    manifest["direction"] = fit_direction(corpus.examples, corpus_oof, fold_map)
    step("direction reader", 1, 1)
    judge = EvidenceJudge(ensemble, combiners, thresholds, manifest, lexical=lexical)
    out_dir.mkdir(parents=True, exist_ok=True)
    judge.save(out_dir, info=info)
    judge.folder = out_dir
    if mode != "frozen":
        ensemble.save(out_dir / "text", info=info)
        _set_text(out_dir)
    save_record(record, record_file(work_dir, mode), command=info["command"])
    record.info.update(info)
    return judge, record


def fit_direction(
    examples: Sequence[RelationExample],
    probs: np.ndarray,
    folds: Mapping[str, int],
) -> dict[str, Any] | None:
    """The direction reader of a causal sentence: a logistic regression over
    `evidence.direction_inputs` (the cross-fitted text classifier's A→B log-odds `probs`
    and the causal phrase's voice), fitted on the corpus's sentences with an annotated
    direction; its accuracy on grouped folds (`folds`) beside the text classifier's alone.
    Why: where a causal phrase joins the two mentions its voice nearly always gives the
    annotated direction, more often than the classifier (bench/README.md)."""
    from sklearn.linear_model import LogisticRegression

    from causalqa.discovery.evidence import DIRECTION_FEATURES, direction_inputs, text_features
    from causalqa.discovery.features import cue_features

    idx = [i for i, e in enumerate(examples) if e.label in (A_CAUSES_B, B_CAUSES_A)]
    if len(idx) < 50:
        return None
    x, y, fold = [], [], []
    for i in idx:
        e = examples[i]
        f = {**text_features(probs[i]), **cue_features(e.text, e.a, e.b)}
        x.append(direction_inputs(f))
        y.append(int(e.label == A_CAUSES_B))
        fold.append(folds.get(sentence_key(e.text), 0))
    x, y, fold = np.array(x), np.array(y), np.array(fold)
    if len(set(y.tolist())) < 2:
        return None
    right = 0
    for k in sorted(set(fold.tolist())):
        tr, te = fold != k, fold == k
        if len(set(y[tr].tolist())) < 2:
            right += int(((x[te, 0] > 0) == y[te]).sum())
            continue
        m = LogisticRegression(C=1.0, max_iter=1000).fit(x[tr], y[tr])
        right += int((m.predict(x[te]) == y[te]).sum())
    model = LogisticRegression(C=1.0, max_iter=1000).fit(x, y)
    return {
        "features": list(DIRECTION_FEATURES),
        "coef": [round(float(c), 6) for c in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
        "sentences": int(len(y)),
        "cv_accuracy": round(right / len(y), 4),
        "text_alone_accuracy": round(float(((x[:, 0] > 0) == y).mean()), 4),
    }


def _marked(ex: RelationExample) -> str:
    from causalqa.discovery.relation import Mention, mark

    return mark(Mention.of(ex))[0]


def _set_text(out_dir: Path) -> None:
    import json

    path = out_dir / "judge.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["text"] = "text"
    path.write_text(json.dumps(manifest, indent=2, default=str), encoding="utf-8")


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text) or "llm"


def record_file(work: str | os.PathLike[str] | None = None, mode: str = "finetune") -> Path:
    """Where a training run keeps its `TrainingRecord`: ``<work>/record-<mode>.npz`` (and
    its manifest, ``record-<mode>.npz.json``); `work` defaults to
    ``$CAUSALQA_HOME/discovery/evidence-work``."""
    folder = Path(work) if work else config.home_dir() / "discovery" / "evidence-work"
    return folder / f"record-{mode}.npz"


def save_record(record: TrainingRecord, path: str | os.PathLike[str], *, command: str = "") -> Path:
    """Write `record` to `path` without pickle (`causalqa.evidence.artefact`: a state
    tree and arrays, a manifest with their sha256 beside it). Returns the path."""
    from causalqa.evidence.artefact import save_state

    manifest = {"what": "training record", "text_model": record.text_model, "command": command}
    return save_state(path, record, manifest, trusted=(TrainingRecord, PairRow))


def read_record(path: str | os.PathLike[str], *, hint: str | None = None) -> TrainingRecord:
    """The `TrainingRecord` at `path` (written by `save_record`), read only after its bytes
    match its manifest's sha256. A record an earlier causalqa pickled (``.pkl``) is read
    only when a manifest beside it vouches for it.

    Raises:
        EvidenceArtefactError: missing, damaged, replaced, or not a training record.
    """
    from causalqa.errors import DataFileError
    from causalqa.evidence.artefact import load_artefact

    try:
        return load_artefact(
            path,
            TrainingRecord,
            what="training record",
            hint=hint or "rebuild it: causalqa discover train",
            trusted=(PairRow,),
        )
    except DataFileError as e:
        raise EvidenceArtefactError(e.message, hint=e.hint) from None


def load_record(
    work: str | os.PathLike[str] | None = None, mode: str = "finetune"
) -> TrainingRecord:
    """The `TrainingRecord` a training run left in `work` (see `record_file`); an earlier
    causalqa's ``record-<mode>.pkl`` only with a manifest that vouches for its bytes."""
    path = record_file(work, mode)
    legacy = path.with_suffix(".pkl")
    if not path.is_file() and legacy.is_file():
        path = legacy
    return read_record(path, hint=f"run: causalqa discover train --mode {mode}")
