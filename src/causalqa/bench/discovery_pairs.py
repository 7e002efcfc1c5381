"""The zero-shot pair-classification benchmark (paper 001, Tables 1–2).

For each path-to-causality data set (GENEC, ADE, COMAGC over Hetionet paths; SEMEVAL over
the Wikidata paths the data carries) the test pairs of ``test_truth.jsonl`` are classified
with `pair.classify_pair` — textual context = the record's sentence (its ``<e1>``/``<e2>``
tags removed, as the App. C prompt shows it), top-k paths chosen among the record's own
candidate paths by each method:

- ``none``: no-subgraph (the paper's baseline 1);
- ``random``: `RandomRanker` (baseline 2);
- ``similarity``: MiniLM cosine, `SimilarityRanker` (baseline 3, App. F.1);
- ``gpt``: the paper's own gpt-3.5 permutation order (``test_gpt_*.jsonl``; baseline 4);
- ``llm`` (optional, slow): `LLMPermutationRanker` with the benchmark's LLM;
- ``xgboost``, ``rmse``, ``ranknet``, ``listnet``: the trained Subgraph Rankers (App. D),
  fitted on ``train_full`` — or loaded from `ranker_dir`, where ``bench discovery rankers
  --save-rankers`` leaves them (a saved ranker whose parameters differ is refitted);
- ``oracle``: the data's ``rel_score`` order (the relevance labels themselves, made with
  mistral-7b's verdicts *and the ground truth*): an upper reference, not a method.

Each verdict is reported twice: by the paper's rule (the more probable label) and with
contextual calibration (`pair.content_free_logprobs`; no labels used).
P/R/F1 (%, positive class "causal") per method and data set, beside the paper's numbers
for its three 7–8B LLMs (`PAPER_TABLES`: the paper's, never recomputed). The paper
classifies the whole filtered test sets; `limit` takes a seeded sample of N pairs.

``split="validation"`` runs the same on a by-query validation split of ``train_full``
(`pathdata.validation_split`; trained rankers fitted on the rest of it): the place to
choose prompt settings (top-k, path form, calibration) without looking at test labels.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.bench.discovery_rankers import gpt_orders, shuffled, trained_ranker
from causalqa.bench.published import published
from causalqa.discovery.pair import (
    CAUSAL,
    LABELS,
    NON_CAUSAL,
    SUBJECTS,
    classify_pair,
    content_free_logprobs,
    get_ranker,
    verbalise_path,
)
from causalqa.discovery.pathdata import (
    DATASETS,
    PathRecord,
    clean_sentence,
    load_path_dataset,
    validation_split,
)
from causalqa.errors import CausalQAError, DataFileError, PairDiscoveryError
from causalqa.llm.concurrent import BUSY, run_ordered
from causalqa.metrics import binary_scores, f1_difference, roc_auc

__all__ = [
    "METHODS",
    "PAPER_TABLES",
    "PATH_FORMATS",
    "PairBenchmark",
    "benchmark_pairs",
    "plot_pairs",
]

METHODS = (
    "none", "random", "similarity", "gpt", "llm", "xgboost", "rmse", "ranknet", "listnet",
    "oracle",
)  # fmt: skip
DEFAULT_METHODS = (
    "none", "random", "similarity", "gpt", "xgboost", "rmse", "ranknet", "listnet", "oracle",
)  # fmt: skip
TRAINED_METHODS = ("xgboost", "rmse", "ranknet", "listnet")
UNTRAINED_METHODS = ("random", "similarity", "llm")  # built by `pair.get_ranker`
METHOD_LABELS = {
    "none": "(baseline) no-subgraph",
    "random": "(baseline) random subgraph selection",
    "similarity": "(baseline) similarity-based ranker",
    "gpt": "(baseline) GPT-based ranker (paper's gpt-3.5 order)",
    "llm": "(baseline) LLM permutation ranker (our LLM)",
    "xgboost": "(ours) Subgraph Ranker (XGBoost)",
    "rmse": "(ours) Subgraph Ranker (rmse-cross encoder, MiniLM)",
    "ranknet": "(ours) Subgraph Ranker (ranknet-cross encoder, MiniLM)",
    "listnet": "(ours) Subgraph Ranker (listnet-cross encoder, MiniLM)",
    "oracle": "(reference) relevance order of the data (oracle)",
}
_PAPER_ROW = {
    "none": "no-subgraph",
    "random": "random",
    "similarity": "similarity",
    "gpt": "gpt",
    "llm": "gpt",
    "xgboost": "xgboost",
    "rmse": "rmse",
    "ranknet": "ranknet",
    "listnet": "listnet",
}
PATH_FORMATS: dict[str, dict[str, bool]] = {
    "plain": {},
    "types": {"types": True},
    "relations": {"relations": True},
    "full": {"types": True, "relations": True},
    "sentences": {"sentences": True},
}
"""Path forms in the prompt → options of `pair.verbalise_path`: "plain" is App. C's
"FGF6 - tendon - SDRDL", "full" is Eq. 7 with types and relations, "sentences" (ours) one
clause per hop, subject first ("Dasatinib causes Conjunctivitis")."""

PAPER_MODELS = ("mistral-7b-instruct", "llama-3-8b-instruct", "gemma-7b-it")
PAPER_SHORT = ("mistral-7b", "llama-3-8b", "gemma-7b")

# Tables 1 (COMAGC, GENEC, ADE) and 2 (SEMEVAL): data set → model → method → P/R/F1 (%).
PAPER_TABLES: dict[str, dict[str, dict[str, dict[str, float]]]] = published("001")["pairs"][
    "tables"
]


@dataclass
class PairBenchmark:
    """Rows per data set and method, with the predictions behind them."""

    model: str
    limit: int | None
    top_k: int
    split: str = "test"
    path_format: str = "plain"
    rows: list[dict[str, Any]] = field(default_factory=list)
    predictions: list[dict[str, Any]] = field(default_factory=list)
    thresholds: dict[str, dict[int, float]] | None = None
    """Batch calibration's mean log-odds by data set and number of paths, when used."""
    content_free: dict[str, dict[int, dict[str, float]]] = field(default_factory=dict)
    """data set → number of paths → the labels' log-probs on the content-free prompt."""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "limit": self.limit,
            "top_k": self.top_k,
            "split": self.split,
            "path_format": self.path_format,
            "rows": self.rows,
            "notes": self.notes,
            "content_free": self.content_free,
            "batch_thresholds": self.thresholds,
            "paper_tables": PAPER_TABLES,
            "predictions": self.predictions,
        }

    def to_markdown(self) -> str:
        """One table per data set: P/R/F1/accuracy by the paper's rule (argmax), with
        content-free calibration and, when computed, with batch calibration."""
        rules = [("", None), ("content-free", "calibrated")]
        if any("batch" in r for r in self.rows):
            rules.append(("batch", "batch"))
        head = ["method"]
        for name, _ in rules:
            head += [f"{name} {m}".strip() for m in ("P", "R", "F1", "acc")]
        head += ["ROC AUC"]
        # The F1 gain over no path under the last rule that has one (batch, else argmax).
        vs_rule = "batch" if rules[-1][1] == "batch" else None
        head += [f"{vs_rule or 'argmax'} F1 − no-subgraph (95% CI)"]
        head += ["paths in prompt", "s/pair"] + [f"paper F1 {m}" for m in PAPER_SHORT]
        lines: list[str] = []
        for ds in dict.fromkeys(r["dataset"] for r in self.rows):
            rows = [r for r in self.rows if r["dataset"] == ds]
            lines += [
                f"## {DATASETS[ds][1]} ({rows[0]['pairs']} {self.split} pairs, "
                f"{rows[0]['positives']} causal)",
                "",
                "| " + " | ".join(head) + " |",
                "|" + "---|" * len(head),
            ]
            for r in rows:
                if "error" in r:
                    lines.append(f"| {r['label']} | error: {r['error']} |" + " |" * (len(head) - 2))
                    continue
                paper = r.get("paper") or {}
                cells: list[Any] = [r["label"]]
                for _, key in rules:
                    res = r if key is None else (r.get(key) or {})
                    cells += [res.get(m, "") for m in ("precision", "recall", "f1", "accuracy")]
                cells.append("" if r.get("auc") is None else r["auc"])
                vs = (r if vs_rule is None else (r.get(vs_rule) or {})).get("f1_vs_none")
                cells.append(
                    f"{vs['diff']:+.1f} ({vs['low']:+.1f} to {vs['high']:+.1f})" if vs else ""
                )
                cells += [r["with_paths"], r["seconds_per_pair"]]
                cells += [paper.get(m, {}).get("f1", "") for m in PAPER_MODELS]
                lines.append("| " + " | ".join(str(c) for c in cells) + " |")
            lines.append("")
        lines += [f"- {n}" for n in self.notes]
        return "\n".join(lines)


def _log_odds(prediction: Mapping[str, Any]) -> float:
    lp = prediction["logprobs"]
    return float(lp[CAUSAL] - lp[NON_CAUSAL])


def batch_thresholds(predictions: Sequence[Mapping[str, Any]]) -> dict[str, dict[int, float]]:
    """Batch calibration's thresholds: data set → number of paths in the prompt → the mean
    log-odds of "causal" over `predictions` (a pairs report's, e.g. a validation run's).
    Label-free: the gold labels are not read.

    >>> batch_thresholds([{"dataset": "ade", "paths": [], "logprobs": {"causal": -1.0,
    ...     "non-causal": -2.0}}])
    {'ade': {0: 1.0}}
    """
    sums: dict[tuple[str, int], list[float]] = {}
    for p in predictions:
        sums.setdefault((p["dataset"], len(p["paths"])), []).append(_log_odds(p))
    out: dict[str, dict[int, float]] = {}
    for (ds, n), values in sorted(sums.items()):
        out.setdefault(ds, {})[n] = float(np.mean(values))
    return out


def read_thresholds(path: Path) -> dict[str, dict[int, float]]:
    """`batch_thresholds` of a pairs report JSON (``bench discovery pairs --validation``)."""
    import json

    try:
        report = json.loads(Path(path).read_text())
        predictions = report["predictions"]
        return batch_thresholds(predictions)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise DataFileError(
            f"{path}: not a pairs report with predictions and log-probs ({e})",
            hint="make one with: causalqa bench discovery pairs --validation",
            path=str(path),
        ) from None


def sample_records(records: list[PathRecord], limit: int | None, seed: int) -> list[PathRecord]:
    """A seeded sample of `limit` records in their given order (all when `limit` is None)."""
    if limit is None or limit >= len(records):
        return list(records)
    rng = np.random.default_rng(seed)
    keep = sorted(rng.choice(len(records), size=limit, replace=False))
    return [records[i] for i in keep]


def _orders(
    method: str, queries, data, llm, seed, ranker, top_k, concurrency: int = 1
) -> dict[str, list[int]]:
    """qid → top-k indices into the query's paths (empty for no-subgraph); the LLM
    ranker ranks `concurrency` queries at once."""
    if method == "none":
        return {q.qid: [] for q in queries}
    if method == "oracle":
        out = {}
        for q in queries:
            scores = [p.rel_score if p.rel_score is not None else -np.inf for p in q.paths]
            out[q.qid] = [int(i) for i in np.argsort(-np.asarray(scores), kind="stable")[:top_k]]
        return out
    if method == "gpt":
        if not data.gpt:
            raise PairDiscoveryError(f"{data.display_name}: no gpt-3.5 order for these pairs")
        gq, gorders = gpt_orders(queries, data.gpt)
        out = {q.qid: [] for q in queries}
        out.update({q.qid: list(o[:top_k]) for q, o in zip(gq, gorders)})
        return out
    if ranker is None:
        raise PairDiscoveryError(f"unknown method {method!r}", hint=f"use {', '.join(METHODS)}")

    def top(q) -> list[int]:
        # test_truth lists paths by relevance: rankers see them in a seeded shuffle.
        perm = shuffled(q, seed)
        cands = [q.paths[i] for i in perm]
        return [int(perm[i]) for i in ranker.rank(q, cands).top(top_k)] if cands else []

    if method == "llm":  # the one ranker that waits on a server; the others stay here
        tops = run_ordered(top, queries, concurrency=concurrency, retry=BUSY)
    else:
        tops = [top(q) for q in queries]
    return {q.qid: t for q, t in zip(queries, tops)}


def _call(llm, form: Mapping[str, Any], job: tuple) -> tuple[Any, float]:
    """One prompt of `benchmark_pairs` and its seconds: a pair's (`classify_pair`) or a
    shape's content-free prompt."""
    kind, _, _, args = job
    t0 = time.perf_counter()
    if kind == "prior":
        n_paths, context, subject = args
        out = content_free_logprobs(llm, n_paths=n_paths, has_context=context, subject=subject)
    else:
        e1, e2, paths, sentence, subject = args
        out = classify_pair(e1, e2, llm, paths=paths, context=sentence, subject=subject, **form)
    return out, time.perf_counter() - t0


def benchmark_pairs(
    llm,
    *,
    datasets: Sequence[str] = tuple(DATASETS),
    methods: Sequence[str] = DEFAULT_METHODS,
    limit: int | None = None,
    top_k: int = 1,
    path_format: str = "plain",
    split: str = "test",
    root=None,
    seed: int = 0,
    context: bool = True,
    embedder=None,
    ranker_dir: Path | None = None,
    thresholds: Mapping[str, Mapping[int, float]] | None = None,
    on_step: Callable[[str, int], None] | None = None,
    concurrency: int = 1,
) -> PairBenchmark:
    """Run Tables 1–2 with `llm`. `on_step(description, advance)` reports progress: one
    call per classified pair (and one per method set-up, with advance 0).

    `split`: ``"test"`` (``test_truth``, trained rankers fitted on ``train_full``) or
    ``"validation"`` (a by-query split of ``train_full``, rankers fitted on the rest).
    `path_format`: a key of `PATH_FORMATS`. `ranker_dir`: where trained rankers are
    loaded from and saved to (see `trained_ranker`). `thresholds` (`batch_thresholds` of a
    validation run) adds batch-calibrated verdicts: "causal" when the log-odds exceed the
    mean log-odds of the validation prompts of the same data set and number of paths; a
    validation run uses its own predictions' means (label-free either way).
    `concurrency` > 1 keeps that many prompts in flight (a server with several slots);
    the results are those of one at a time.
    """
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise PairDiscoveryError(f"unknown methods {bad}", hint=f"use {', '.join(METHODS)}")
    if path_format not in PATH_FORMATS:
        raise PairDiscoveryError(
            f"unknown path format {path_format!r}", hint=f"use {', '.join(PATH_FORMATS)}"
        )
    if split not in ("test", "validation"):
        raise PairDiscoveryError(f"unknown split {split!r}", hint="use test or validation")
    form = PATH_FORMATS[path_format]
    model = getattr(llm, "model", "") or type(llm).__name__
    bench = PairBenchmark(
        model=model, limit=limit, top_k=top_k, split=split, path_format=path_format
    )
    if embedder is None and any(m in ("similarity", *TRAINED_METHODS) for m in methods):
        from causalqa.embed import Embedder

        embedder = Embedder()
    memo: dict[str, Any] = {}
    priors: dict[tuple[str, int], dict[str, float]] = {}
    for ds in datasets:
        if split == "test":
            data = load_path_dataset(ds, root, splits=("train", "truth", "gpt"))
        else:
            data = validation_split(load_path_dataset(ds, root, splits=("train",)), seed=seed)
        queries = sample_records(data.truth, limit, seed)
        gold = [q.label for q in queries]
        subject = SUBJECTS.get(ds, "pair of variables")
        rows: dict[str, dict[str, Any]] = {}
        orders: dict[str, dict[str, list[int]]] = {}
        for method in methods:
            if on_step:
                on_step(f"{DATASETS[ds][1]}: {method} (set-up)", 0)
            row: dict[str, Any] = {
                "dataset": ds,
                "method": method,
                "label": METHOD_LABELS[method],
                "pairs": len(queries),
                "positives": int(sum(gold)),
            }
            paper_key = _PAPER_ROW.get(method)
            row["paper"] = (
                {m: PAPER_TABLES[ds][m][paper_key] for m in PAPER_MODELS} if paper_key else None
            )
            rows[method] = row
            start = time.perf_counter()
            try:
                ranker = (
                    get_ranker(method, llm=llm, embedder=embedder, seed=seed)
                    if method in UNTRAINED_METHODS
                    else None
                )
                if method in TRAINED_METHODS:

                    def fit_step(done, total, ds=ds, method=method):
                        if on_step:
                            on_step(f"{DATASETS[ds][1]}: {method} (fit {done}/{total})", 0)

                    ranker, how, _ = trained_ranker(
                        method,
                        data,
                        seed=seed,
                        embedder=embedder,
                        folder=ranker_dir,
                        tag="full" if split == "test" else "validation",
                        on_step=fit_step,
                    )
                    row["ranker"] = how
                orders[method] = _orders(
                    method, queries, data, llm, seed, ranker, top_k, concurrency
                )
            except CausalQAError as e:
                row["error"] = e.message
                if on_step:
                    on_step(f"{DATASETS[ds][1]}: {method} (error)", len(queries))
                continue
            row["ranker_seconds"] = round(time.perf_counter() - start, 2)
        # Pair by pair, every method in turn: their prompts share the prefix up to the
        # paths, which the local backend evaluates once. The calls (each new prompt, and
        # the content-free prompt of each new shape where it first appears) are listed in
        # that order and run with up to `concurrency` in flight; the answers are then read
        # in the same order, as one at a time would.
        preds: dict[str, list[int]] = {m: [] for m in orders}
        cal_preds: dict[str, list[int]] = {m: [] for m in orders}
        llm_s: dict[str, float] = dict.fromkeys(orders, 0.0)
        sentence_of = {q.qid: clean_sentence(q.sentence) if context else None for q in queries}
        entries: list[tuple[PathRecord, str, str, tuple]] = []
        calls: list[tuple] = []  # (kind, key, method, arguments): "pair" or "prior"
        wanted = set(memo) | set(priors)
        waiting: dict[str, list[str]] = {}  # progress lines of each prompt not yet answered
        for q in queries:
            sentence = sentence_of[q.qid]
            for method, order in orders.items():
                paths = [q.paths[i] for i in order.get(q.qid, [])]
                key = "\x1f".join(
                    [ds, q.e1, q.e2, sentence or "", *(p.text(types=False) for p in paths)]
                )
                shape = (ds, sum(1 for p in paths if verbalise_path(p, **form)))  # = v.paths
                entries.append((q, method, key, shape))
                waiting.setdefault(key, []).append(f"{DATASETS[ds][1]}: {q.e1} – {q.e2} ({method})")
                if key not in wanted:
                    wanted.add(key)
                    calls.append(("pair", key, method, (q.e1, q.e2, paths, sentence, subject)))
                if shape not in wanted:
                    wanted.add(shape)
                    calls.append(("prior", shape, method, (shape[1], context, subject)))

        def answered(_i: int, job: tuple, got: tuple[Any, float]) -> None:
            kind, k, method, _ = job
            (memo if kind == "pair" else priors)[k] = got[0]
            llm_s[method] += got[1]  # noqa: B023 - run_ordered returns within the iteration
            if kind == "prior":
                bench.content_free.setdefault(k[0], {})[k[1]] = got[0]
            elif on_step:
                for what in waiting.pop(k, []):  # noqa: B023 - as above
                    on_step(what, 1)

        run_ordered(
            partial(_call, llm, form),
            calls,
            concurrency=concurrency,
            retry=BUSY,
            on_result=answered,
        )
        for q, method, key, shape in entries:
            v = memo[key]
            if shape not in priors:  # not foreseen (cannot happen): asked here, in order
                job = ("prior", shape, method, (shape[1], context, subject))
                answered(0, job, _call(llm, form, job))
            cal = {lab: v.logprobs[lab] - priors[shape][lab] for lab in LABELS}
            cal_causal = cal[CAUSAL] > cal[NON_CAUSAL]
            preds[method].append(int(v.causal))
            cal_preds[method].append(int(cal_causal))
            bench.predictions.append(
                {
                    "dataset": ds,
                    "method": method,
                    "qid": q.qid,
                    "e1": q.e1,
                    "e2": q.e2,
                    "gold": q.label,
                    "pred": int(v.causal),
                    "p_causal": round(v.probability, 4),
                    "pred_calibrated": int(cal_causal),
                    "logprobs": {k: round(x, 4) for k, x in v.logprobs.items()},
                    "paths": v.paths,
                }
            )
        mine = [p for p in bench.predictions if p["dataset"] == ds]
        means = (
            thresholds.get(ds)
            if thresholds is not None
            else batch_thresholds(mine).get(ds)
            if split == "validation"
            else None
        )
        if means:
            bench.thresholds = {**(bench.thresholds or {}), ds: dict(means)}
        for method, order in orders.items():
            row = rows[method]
            row.update(binary_scores(preds[method], gold))
            row["calibrated"] = binary_scores(cal_preds[method], gold)
            if means:
                ps = [p for p in mine if p["method"] == method]
                if all(len(p["paths"]) in means for p in ps):
                    batch = [int(_log_odds(p) > means[len(p["paths"])]) for p in ps]
                    row["batch"] = binary_scores(batch, gold)
                    for p, b in zip(ps, batch):
                        p["pred_batch"] = b
            row["with_paths"] = sum(1 for q in queries if order.get(q.qid))
            row["seconds_per_pair"] = round(llm_s[method] / max(len(queries), 1), 2)
            row["auc"] = roc_auc([_log_odds(p) for p in mine if p["method"] == method], gold)
        if "none" in orders:
            # Is a path better than none on these pairs, or within the noise of ~35 pairs?
            for method in orders:
                if method == "none":
                    continue
                row, base = rows[method], rows["none"]
                row["f1_vs_none"] = f1_difference(preds[method], preds["none"], gold, seed=seed)
                if "batch" in row and "batch" in base:
                    mine_m = [p["pred_batch"] for p in mine if p["method"] == method]
                    mine_0 = [p["pred_batch"] for p in mine if p["method"] == "none"]
                    row["batch"]["f1_vs_none"] = f1_difference(mine_m, mine_0, gold, seed=seed)
        bench.rows.extend(rows[m] for m in methods)
    where = (
        "test_truth.jsonl"
        if split == "test"
        else "a by-query validation split of train_full.jsonl (20% of its queries; trained "
        "rankers fitted on the other 80%)"
    )
    bench.notes = [
        f"Model: {model}; top-{top_k} path(s) in the prompt, {path_format} form; textual "
        "context = the record's sentence"
        + (" without its entity tags; " if context else " (left out); ")
        + "label log-probabilities over 'causal' and 'non-causal' (chat turn).",
        f"Pairs: {where}"
        + (f", a seeded sample of {limit} per data set" if limit else " (all)")
        + "; the paper's numbers (its 7–8B LLMs, full filtered test sets) are beside ours "
        "for orientation only.",
        "gpt: the paper's own gpt-3.5 permutation order (test_gpt file); pairs whose paths "
        "do not match test_truth's get no path. oracle: the data's rel_score order, which "
        "was computed with the ground truth — an upper reference, not a method.",
        "Cross-encoder rankers: all-MiniLM-L6-v2 fine-tuned end to end (the paper's "
        "roberta-base cannot be obtained here).",
        "P/R/F1: the paper's rule (the more probable label). Calibrated: each label's "
        "log-probability minus its log-probability on a content-free prompt of the same shape "
        "('N/A' for pair, context and paths; Zhao et al., 2021) — label-free, one extra call "
        "per data set and prompt shape.",
        "Identical prompts (e.g. when two rankers pick the same path) are asked once; "
        "s/pair counts only the LLM calls made for that row.",
    ]
    if bench.thresholds:
        bench.notes.append(
            "Batch: batch calibration (Zhou et al., 2024) — 'causal' when the log-odds exceed "
            "the mean log-odds of the "
            + ("same run's prompts" if split == "validation" else "validation run's prompts")
            + " with the same data set and number of paths (label-free); chosen on the "
            "validation split, where the paper's argmax said non-causal to nearly every "
            "prompt with a path and content-free calibration said causal to every prompt."
        )
    return bench


def plot_pairs(bench: PairBenchmark, path: Path) -> Path | None:
    """A grouped bar plot of F1 per data set and method (ours only) as PNG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return None
    rows = [r for r in bench.rows if "error" not in r]
    if not rows:
        return None
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    width = 0.8 / len(methods)
    panels = [
        ("the paper's rule (argmax)", lambda r: r["f1"]),
        ("content-free calibration", lambda r: (r.get("calibrated") or {}).get("f1", 0.0)),
    ]
    if any("batch" in r for r in rows):
        panels.append(("batch calibration", lambda r: (r.get("batch") or {}).get("f1", 0.0)))
    width_in = len(panels) * max(6, 2 * len(datasets) + 2)
    fig, axes = plt.subplots(1, len(panels), figsize=(width_in, 4), sharey=True)
    x = np.arange(len(datasets))
    n = rows[0]["pairs"]
    for ax, (title, pick) in zip(axes, panels):
        for m_i, m in enumerate(methods):
            vals = [
                next((pick(r) for r in rows if r["dataset"] == d and r["method"] == m), 0.0)
                for d in datasets
            ]
            ax.bar(x + (m_i - (len(methods) - 1) / 2) * width, vals, width, label=m)
        ax.set_xticks(x, [DATASETS[d][1] for d in datasets])
        ax.set_ylim(0, 100)
        ax.set_title(f"F1, {title}", fontsize=10)
    axes[0].set_ylabel("F1 (%)")
    axes[-1].legend(fontsize=8, ncol=2)
    fig.suptitle(
        f"Zero-shot pair classification, {bench.model}, top-{bench.top_k}, "
        f"{bench.split} pairs, n≈{n}/set"
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def count_pairs(
    datasets: Sequence[str], *, validation: bool, limit: int | None, root=None, seed: int = 0
) -> int:
    """How many pairs `benchmark_pairs` will classify per method (for a progress bar)."""
    total = 0
    for name in datasets:
        loaded = load_path_dataset(name, root, splits=("train",) if validation else ("truth",))
        n = len(validation_split(loaded, seed=seed).truth if validation else loaded.truth)
        total += min(n, limit) if limit else n
    return total


def pairs_report(bench: PairBenchmark, out_dir: Path, *, seed: int, validation: bool):
    """The pairs benchmark as (report, Markdown body, report name), with its plot
    written beside the report."""
    report = {"benchmark": "pairs", "seed": seed, **bench.to_dict()}
    name = "pairs-validation" if validation else "pairs"
    png = plot_pairs(bench, out_dir / f"{name}-latest.png")
    md = bench.to_markdown()
    if png:
        md += f"\n\n![F1 per data set and method]({png.name})"
        report["plot"] = str(png)
    return report, md, name
