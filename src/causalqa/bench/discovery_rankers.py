"""The subgraph-ranker benchmark (paper 001, Table D2): every ranker fitted on a data set's
``train_full`` and scored on its ``test_truth`` queries by NDCG@5 and Recall@5, beside random
ranking (its exact expectation and many seeded draws) and the paper's numbers."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from causalqa import config, registry
from causalqa.bench.published import published
from causalqa.discovery.pathdata import (
    PathDataset,
    PathRecord,
    load_path_dataset,
    validation_split,
)
from causalqa.discovery.rankers import (
    LOSSES,
    CrossEncoderRanker,
    LLMPermutationRanker,
    RandomRanker,
    Ranker,
    SimilarityRanker,
    XGBoostRanker,
    load_ranker,
    ranker_file,
    save_ranker,
    stable_seed,
)
from causalqa.errors import CausalQAError, PairDiscoveryError, RankerError
from causalqa.llm.concurrent import BUSY, run_ordered
from causalqa.metrics import (
    expected_random_ndcg,
    ndcg_at_k,
    paired_bootstrap,
    recall_at_k,
    relevance_labels,
)

PAPER_TABLE_D2: dict[str, dict[str, dict[str, float]]] = published("001")["rankers"]["tables"]
"""Table D2 (cross-encoders over roberta-base): data set → loss → NDCG@5, Recall@5."""

RANKER_NAMES = ("similarity", "rmse", "ranknet", "listnet", "xgboost")


def saved_rankers_dir() -> Path:
    """Where the benchmarks keep fitted trained rankers:
    ``$CAUSALQA_HOME/discovery/rankers/bench/<full|validation>/<data set>/<name>.npz``."""
    return config.rankers_dir() / "bench"


def _params(ranker) -> dict[str, str]:
    """A ranker's constructor parameters (sklearn's rule: public, not learned), as text."""
    skip = {"embedder", "llm", "name", "on_step"}
    return {
        k: repr(v)
        for k, v in vars(ranker).items()
        if not k.startswith("_") and not k.endswith("_") and k not in skip
    }


def unfitted_ranker(method: str, *, seed: int = 0, embedder=None):
    """A new, unfitted trained-kind ranker: XGBoost, or a cross-encoder with loss `method`."""
    return registry.create("ranker", method, seed=seed, embedder=embedder)


def saved_like(fresh, method: str, folder: Path, *, embedder=None):
    """The ranker saved as ``folder/<method>.npz`` when it has `fresh`'s type and
    parameters (its embedder, not saved, set to `embedder`), else None."""
    if not ranker_file(method, folder).is_file():
        return None
    try:
        saved = load_ranker(method, folder)
    except PairDiscoveryError:
        return None
    if type(saved) is not type(fresh) or _params(saved) != _params(fresh):
        return None
    if getattr(saved, "embedder", False) is None:
        saved.embedder = embedder
    return saved


def trained_ranker(
    method: str,
    data: PathDataset,
    *,
    seed: int = 0,
    embedder=None,
    folder: Path | None = None,
    tag: str = "full",
    on_step: Callable[[int, int], None] | None = None,
):
    """The trained ranker `method` for data set `data`: loaded from
    ``folder/<tag>/<data set>/<method>.npz`` when saved there with the same parameters,
    else fitted on ``data.train`` (and saved there when `folder` is given).
    Returns (ranker, how: "loaded" or "fitted", seconds)."""
    fresh = unfitted_ranker(method, seed=seed, embedder=embedder)
    start = time.perf_counter()
    where = folder / tag / data.name if folder is not None else None
    saved = saved_like(fresh, method, where, embedder=embedder) if where is not None else None
    if saved is not None:
        return saved, "loaded", time.perf_counter() - start
    if on_step is not None and hasattr(fresh, "on_step"):
        fresh.on_step = on_step
    fresh.fit(data.train)
    if hasattr(fresh, "on_step"):
        fresh.on_step = None
    if where is not None:
        save_ranker(fresh, method, where)
    return fresh, "fitted", time.perf_counter() - start


def default_rankers(seed: int = 0, embedder=None) -> list[Ranker]:
    """Similarity, the three cross-encoders and XGBoost (one shared embedder); the random
    baseline is `evaluate_rankers`' own row (a mean over many draws)."""
    if embedder is None:
        from causalqa.embed import Embedder

        embedder = Embedder()
    return [
        SimilarityRanker(embedder),
        *(CrossEncoderRanker(loss, seed=seed) for loss in LOSSES),
        XGBoostRanker(embedder=embedder, seed=seed),
    ]


def evaluate_ranking(
    queries: Sequence[PathRecord], orders: Sequence[Sequence[int]], *, k: int = 5
) -> dict[str, Any]:
    """Mean NDCG@k and Recall@k (in %) of `orders` (one per query, indices into its paths)
    against Table D2's labels from the queries' ``rel_score``; plus Recall@k of the paths
    with which the LLM was right (``relevant``), over queries that have one."""
    ndcg, rec, rec_right = [], [], []
    for q, order in zip(queries, orders):
        labels = relevance_labels([p.rel_score for p in q.paths])
        ndcg.append(ndcg_at_k(labels, order, k))
        rec.append(recall_at_k(labels, order, k))
        right = [bool(p.relevant) for p in q.paths]
        r = recall_at_k(labels, order, k, relevant=right)
        if r is not None:
            rec_right.append(r)
    return {
        f"ndcg@{k}": round(100 * float(np.mean(ndcg)), 2) if ndcg else None,
        f"recall@{k}": round(100 * float(np.mean(rec)), 2) if rec else None,
        f"recall@{k}_relevant": round(100 * float(np.mean(rec_right)), 2) if rec_right else None,
        "queries": len(ndcg),
    }


def versus_random(
    queries: Sequence[PathRecord], orders: Sequence[Sequence[int]], *, k: int = 5, seed: int = 0
) -> dict[str, float]:
    """How far `orders` are above a random ranking, in NDCG@k points: the mean per-query
    difference from the exact random expectation (`metrics.expected_random_ndcg`) with a
    95% bootstrap interval over queries and a one-sided bootstrap p-value; and the mean
    difference on causal and on non-causal pairs apart (``by_label``). Eq. 1 makes a path
    relevant when it moves the relevance LLM towards the *gold* label, so a ranker that
    cannot tell the label gains on one class what it loses on the other."""
    got, expected, gold = [], [], []
    for q, order in zip(queries, orders):
        labels = relevance_labels([p.rel_score for p in q.paths])
        got.append(ndcg_at_k(labels, order, k))
        expected.append(expected_random_ndcg(labels, k))
        gold.append(q.label)
    r = paired_bootstrap(got, expected, seed=seed)
    diff = 100 * (np.asarray(got) - np.asarray(expected))
    by_label = {
        name: round(float(diff[np.asarray(gold) == y].mean()), 2)
        for y, name in ((1, "causal"), (0, "non-causal"))
        if (np.asarray(gold) == y).any()
    }
    return {
        "mean": round(100 * r["mean"], 2),
        "low": round(100 * r["low"], 2),
        "high": round(100 * r["high"], 2),
        "p": round(r["p_not_better"], 4),
        "by_label": by_label,
    }


@dataclass
class RankerEvaluation:
    """Table D2-shaped results for one data set."""

    dataset: str
    rows: list[dict[str, Any]]
    k: int = 5
    notes: list[str] = field(default_factory=list)

    @property
    def paper(self) -> dict[str, dict[str, float]]:
        return PAPER_TABLE_D2.get(self.dataset, {})

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "k": self.k,
            "rows": self.rows,
            "paper_table_d2": self.paper,
            "notes": self.notes,
        }

    def to_markdown(self) -> str:
        k = self.k
        lines = [
            f"| ranker | NDCG@{k} | vs random (95% CI; p) | vs random on causal / non-causal "
            f"pairs | Recall@{k} | Recall@{k} (LLM-right paths) | queries | fit s | rank s "
            f"| paper NDCG@{k} | paper Recall@{k} |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in self.rows:
            if "error" in r:
                lines.append(f"| {r['ranker']} | error: {r['error']} |" + " |" * 9)
                continue
            loss = r["ranker"].split("-")[0]
            p = self.paper.get(loss, {}) if r["ranker"].endswith("cross-encoder") else {}
            ndcg = r[f"ndcg@{k}"]
            if r.get(f"ndcg@{k}_sd") is not None:
                ndcg = f"{ndcg} ± {r[f'ndcg@{k}_sd']}"
            vs = r.get("vs_random")
            vs_cell = (
                f"{vs['mean']:+.2f} ({vs['low']:+.2f} to {vs['high']:+.2f}; p = {vs['p']:.3f})"
                if vs
                else ""
            )
            by = (vs or {}).get("by_label", {})
            by_cell = " / ".join(
                f"{by[name]:+.2f}" if name in by else "–" for name in ("causal", "non-causal")
            )
            cells = [
                r["ranker"], ndcg, vs_cell, by_cell if by else "", r[f"recall@{k}"],
                r[f"recall@{k}_relevant"],
                r["queries"], r.get("fit_seconds", ""), r.get("rank_seconds", ""),
                p.get("ndcg@5", ""), p.get("recall@5", ""),
            ]  # fmt: skip
            lines.append("| " + " | ".join("" if c is None else str(c) for c in cells) + " |")
        return "\n".join(lines)


def shuffled(query: PathRecord, seed: int) -> np.ndarray:
    # test_truth lists paths sorted by relevance: rankers must not see that order.
    rng = np.random.default_rng([seed, stable_seed("shuffle", query.qid, query.e1, query.e2)])
    return rng.permutation(len(query.paths))


def gpt_orders(truth: Sequence[PathRecord], gpt: Sequence[PathRecord]):
    """The paper's gpt-3.5 permutation (test_gpt file) as orders over test_truth's paths,
    matched by qid and (pathid, stops); queries whose paths do not all match are skipped."""
    by_qid = {r.qid: r for r in gpt}
    queries, orders = [], []
    for q in truth:
        g = by_qid.get(q.qid)
        if g is None or len(g.paths) != len(q.paths):
            continue
        where = {(p.path_id, p.stops): i for i, p in enumerate(q.paths)}
        order = [where.get((p.path_id, p.stops)) for p in g.paths]
        if None in order or len(set(order)) != len(order):
            continue
        queries.append(q)
        orders.append(order)
    return queries, orders


def _random_row(queries: Sequence[PathRecord], seed: int, draws: int, k: int) -> dict[str, Any]:
    rng = np.random.default_rng([seed, stable_seed("random-draws")])
    runs = [
        evaluate_ranking(queries, [rng.permutation(len(q.paths)) for q in queries], k=k)
        for _ in range(draws)
    ]
    row: dict[str, Any] = {"ranker": f"random (mean of {draws} draws)"}
    for key in (f"ndcg@{k}", f"recall@{k}", f"recall@{k}_relevant"):
        vals = [r[key] for r in runs if r[key] is not None]
        row[key] = round(float(np.mean(vals)), 2) if vals else None
    row[f"ndcg@{k}_sd"] = round(float(np.std([r[f"ndcg@{k}"] for r in runs])), 2)
    row["queries"] = len(queries)
    return row


def evaluate_rankers(
    dataset: str | PathDataset,
    *,
    rankers: Sequence[Ranker] | None = None,
    root=None,
    seed: int = 0,
    k: int = 5,
    llm_ranker: LLMPermutationRanker | None = None,
    llm_queries: int = 2,
    random_draws: int = 100,
    on_progress: Callable[[str], None] | None = None,
    on_fit_step: Callable[[int, int], None] | None = None,
    save_dir=None,
    refit: bool = True,
    concurrency: int = 1,
) -> RankerEvaluation:
    """Fit each trained ranker on ``train_full`` and rank every ``test_truth`` query.

    Candidates reach each ranker in a seeded shuffled order. Rows: random ranking as the
    mean over `random_draws` seeded draws (one draw over ~35 queries varies by ±3–5 NDCG
    points), one row per ranker, the paper's own gpt-3.5 permutation from ``test_gpt_*``
    where its paths match, and `llm_ranker` on the first `llm_queries` queries only when
    given (an LLM call per query, `concurrency` of them in flight). `on_fit_step(done,
    total)` reports training steps of rankers that have them (the cross-encoders). With
    `save_dir`, every fitted trained ranker is saved there as ``<loss or xgboost>.npz``
    (`rankers.save_ranker`). With
    ``refit=False`` a trained ranker that is already fitted (e.g. loaded from such a file)
    is used as it is; its row says so.
    """
    data = dataset if isinstance(dataset, PathDataset) else load_path_dataset(dataset, root)
    display = data.display_name
    queries = [q for q in data.truth if q.paths]
    if not queries:
        raise RankerError(f"{display}: no test query with paths")
    rankers = list(rankers) if rankers is not None else default_rankers(seed)
    rows: list[dict[str, Any]] = []
    if random_draws > 0:
        rows.append(_random_row(queries, seed, random_draws, k))

    def run(ranker: Ranker, qs: Sequence[PathRecord]) -> dict[str, Any]:
        if on_progress:
            on_progress(f"{display}: {ranker.name}")
        start = time.perf_counter()
        reused = ranker.trained and not refit and getattr(ranker, "model_", None) is not None
        if ranker.trained and not reused:
            if on_fit_step is not None and hasattr(ranker, "on_step"):
                ranker.on_step = on_fit_step
            try:
                ranker.fit(data.train)
            finally:
                if hasattr(ranker, "on_step"):
                    ranker.on_step = None
            if save_dir is not None:
                save_ranker(ranker, ranker.name.split("-")[0], save_dir)
        fit_s = time.perf_counter() - start
        start = time.perf_counter()

        def order(q: PathRecord):
            perm = shuffled(q, seed)
            return perm[ranker.rank(q, [q.paths[i] for i in perm]).order]

        if ranker is llm_ranker:  # the one that waits on a server: queries in flight
            orders = run_ordered(order, qs, concurrency=concurrency, retry=BUSY)
        else:
            orders = [order(q) for q in qs]
        rank_s = time.perf_counter() - start
        return {
            "ranker": ranker.name + (" (saved fit)" if reused else ""),
            **evaluate_ranking(qs, orders, k=k),
            "vs_random": versus_random(qs, orders, k=k, seed=seed),
            "fit_seconds": "" if reused else round(fit_s, 2),
            "rank_seconds": round(rank_s, 2),
        }

    for ranker in rankers:
        try:
            rows.append(run(ranker, queries))
        except CausalQAError as e:
            rows.append({"ranker": ranker.name, "error": e.message})
    notes = [
        f"{len(queries)} test queries, {sum(len(q.paths) for q in queries)} paths; "
        f"{len(data.train)} training records.",
        "Labels: Table D2's graded relevance from rel_score (best of k gets k); "
        "NDCG gain 2^label - 1. Recall@k counts every candidate relevant, as Table D2 does "
        "(hence min(k, n)/n for every ranker); 'LLM-right paths' counts only the paths with "
        "which the relevance LLM was right.",
        "Cross-encoders: all-MiniLM-L6-v2 fine-tuned end to end with a linear head, the "
        "backbone being MiniLM because roberta-base (the paper's) cannot be obtained here; "
        "input: pair and sentence [SEP] typed path; training queries weighted by gold label "
        "(settings chosen on a by-query validation split of train_full, never on test_truth).",
        "The gpt-3.5 row re-scores the paper's test_gpt file. Its order agrees with the "
        "relevance order far more than any trained ranker's; most likely the permutations "
        "were made from lists already in test_truth's (relevance-sorted) order, so they "
        "inherit the ground truth. Shown for reference, not as a fair comparison.",
        "vs random: the mean per-query NDCG difference from a random order's exact "
        "expectation, in points, with a 95% bootstrap interval over queries and the "
        "one-sided bootstrap p-value of 'not better than random'.",
    ]
    if data.gpt:
        qs, orders = gpt_orders(queries, data.gpt)
        if qs:
            rows.append(
                {
                    "ranker": "gpt-3.5 permutation (paper's test_gpt file)",
                    **evaluate_ranking(qs, orders, k=k),
                    "vs_random": versus_random(qs, orders, k=k, seed=seed),
                }
            )
    if llm_ranker is not None and llm_queries > 0:
        subset = queries[:llm_queries]
        try:
            row = run(llm_ranker, subset)
            row["ranker"] = f"{llm_ranker.name} (first {len(subset)} queries)"
            rows.append(row)
            base = run(RandomRanker(seed), subset)
            base["ranker"] = f"random (same {len(subset)} queries)"
            rows.append(base)
        except CausalQAError as e:
            rows.append({"ranker": llm_ranker.name, "error": e.message})
    return RankerEvaluation(display, rows, k, notes)


def make_rankers(names: Sequence[str], seed: int, saved: Path | None = None) -> list[Ranker]:
    """Fresh rankers by name (one shared embedder); with `saved`, a trained one saved there
    with the same parameters (``<name>.npz``) is loaded instead."""
    from causalqa.embed import Embedder

    embedder = Embedder()
    made: list[Ranker] = []
    for name in names:
        if name == "similarity":
            made.append(SimilarityRanker(embedder))
            continue
        fresh = unfitted_ranker(name, seed=seed, embedder=embedder)
        old = saved_like(fresh, name, saved, embedder=embedder) if saved is not None else None
        made.append(old if old is not None else fresh)
    return made


def run_rankers_bench(
    datasets: Sequence[str],
    rankers: Sequence[str],
    *,
    validation: bool = False,
    save: bool = True,
    reuse: bool = False,
    root=None,
    llm_ranker: LLMPermutationRanker | None = None,
    llm_queries: int = 0,
    seed: int = 0,
    on_progress: Callable[[str], None] | None = None,
    on_fit_step: Callable[[int, int], None] | None = None,
    concurrency: int = 1,
) -> tuple[dict[str, Any], str, str]:
    """Table D2 for `datasets`: (report, Markdown body, report name). With
    `validation`, on a by-query validation split of each ``train_full`` (20%), the rankers
    fitted on the rest; fitted rankers are saved under `saved_rankers_dir` (`save`) or
    reloaded from there (`reuse`). `concurrency`: the LLM ranker's queries in flight."""
    split = "validation" if validation else "full"
    results = []
    for name in datasets:
        dataset: Any = name
        if validation:
            dataset = validation_split(load_path_dataset(name, root, splits=("train",)), seed=seed)
        saved = saved_rankers_dir() / split / name
        results.append(
            evaluate_rankers(
                dataset,
                rankers=make_rankers(rankers, seed, saved if reuse else None),
                refit=not reuse,
                root=root,
                seed=seed,
                llm_ranker=llm_ranker,
                llm_queries=llm_queries,
                on_progress=on_progress,
                on_fit_step=on_fit_step,
                save_dir=saved if save else None,
                concurrency=concurrency,
            )
        )
    report = {
        "benchmark": "rankers",
        "split": "validation (20% of train_full's queries)" if validation else "test_truth",
        "seed": seed,
        "llm": getattr(llm_ranker.llm, "model", None) if llm_ranker else None,
        "datasets": [r.to_dict() for r in results],
    }
    md = "\n\n".join(f"## {r.dataset}\n\n{r.to_markdown()}" for r in results)
    if results:
        md += "\n\n" + "\n".join(f"- {n}" for n in results[0].notes[1:])
    if validation:
        md = (
            "Validation split: 20% of each train_full's queries (seeded, by query), the "
            "rankers fitted on the other 80%; test_truth is not read.\n\n" + md
        )
    name = "rankers-validation" if validation else "rankers"
    return report, md, name
