"""Full-graph knowledge-based discovery among N variables, and the SACHS run of "ours"
(paper 001, Table 3).

`discover_graph(variables, kg=..., llm=...)` asks every *ordered* pair (a, b) — n(n − 1)
questions — with `DIRECTED_INSTRUCTION` ("does the first cause the second?") and the
top-k paths from a to b. The rule that turns the answers into a directed adjacency:

- neither direction says causal → no edge;
- exactly one says causal → that edge;
- both say causal → the edge whose P(causal) is higher; an exact tie keeps both
  (``A[i, j] = A[j, i] = 1``, an undirected edge, which the metrics score as both).

`benchmark_sachs_kg` runs it on SACHS' 11 variables (the protein names of Sachs et al.;
each mapped to Hetionet gene symbols by `SACHS_KG_NAMES`) and the three statistical
baselines (`sachs.benchmark_sachs`) in the same run, all scored by `metrics.graph_metrics`.
PIP2 and PIP3 are phospholipids, not genes: Hetionet has no node for them, so every
question that involves them is decided from the pair alone (the report says so).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from causalqa.discovery.metrics import graph_metrics
from causalqa.discovery.pair import (
    DIRECTED_INSTRUCTION,
    NO_ENTITY,
    NO_PATH,
    PairVerdict,
    candidate_from_path,
    classify_pair,
    content_free_logprobs,
    get_ranker,
    rank_paths,
)
from causalqa.discovery.pathdata import PathRecord
from causalqa.errors import CausalQAError

__all__ = [
    "DIRECTION_RULE",
    "GraphDiscovery",
    "SACHS_CONTEXT",
    "SACHS_KG_NAMES",
    "SACHS_LABELS",
    "benchmark_sachs_kg",
    "decide_directions",
    "discover_graph",
]

DIRECTION_RULE = (
    "both ordered pairs asked; an edge a→b when (a, b) is judged causal and (b, a) is not, "
    "or both are and P(a→b) > P(b→a); an exact tie keeps both directions"
)

# SACHS' CSV columns → the protein names of Sachs et al. 2005 (what the LLM reads).
SACHS_LABELS: dict[str, str] = {
    "praf": "Raf", "pmek": "Mek", "plcg": "PLCg", "PIP2": "PIP2", "PIP3": "PIP3",
    "p44/42": "Erk", "pakts473": "Akt", "PKA": "PKA", "PKC": "PKC", "P38": "P38",
    "pjnk": "Jnk",
}  # fmt: skip
# Protein → Hetionet gene symbols, tried in order (Erk = p44/42 = MAPK3/MAPK1; PKC and PKA
# are families: the classic catalytic isoforms PRKCA and PRKACA). PIP2/PIP3 are lipids.
SACHS_KG_NAMES: dict[str, tuple[str, ...]] = {
    "Raf": ("RAF1",), "Mek": ("MAP2K1", "MAP2K2"), "PLCg": ("PLCG1",), "PIP2": (),
    "PIP3": (), "Erk": ("MAPK3", "MAPK1"), "Akt": ("AKT1",), "PKA": ("PRKACA",),
    "PKC": ("PRKCA",), "P38": ("MAPK14",), "Jnk": ("MAPK8",),
}  # fmt: skip
SACHS_CONTEXT = (
    "Protein signalling in human primary CD4+ T cells: single-cell measurements of "
    "phosphorylated proteins and phospholipids (Sachs et al., 2005)."
)
"""Ours: the paper does not print the textual context it gave for SACHS."""


_PAPER_ROWS = {
    "none": "no-subgraph (LLM)",
    "xgboost": "Subgraph Ranker (XGBoost)",
    **{loss: f"Subgraph Ranker ({loss}-cross encoder)" for loss in ("rmse", "ranknet", "listnet")},
}


class GraphDiscoveryError(CausalQAError):
    """A graph cannot be discovered as asked (too few variables, duplicates, ...)."""


def decide_directions(prob: np.ndarray, causal: np.ndarray) -> np.ndarray:
    """`DIRECTION_RULE` on the matrices of P(i→j causal) and of the verdicts."""
    n = prob.shape[0]
    adj = np.zeros((n, n), dtype=int)
    for i, j in itertools.combinations(range(n), 2):
        fwd, back = bool(causal[i, j]), bool(causal[j, i])
        if fwd and back:
            if prob[i, j] > prob[j, i]:
                adj[i, j] = 1
            elif prob[j, i] > prob[i, j]:
                adj[j, i] = 1
            else:
                adj[i, j] = adj[j, i] = 1
        elif fwd:
            adj[i, j] = 1
        elif back:
            adj[j, i] = 1
    return adj


DECISIONS = ("content-free", "argmax", "batch")
"""How a question's label log-probs become a verdict: ``argmax`` (the paper's rule),
``content-free`` (contextual calibration, `pair.content_free_logprobs`) or ``batch``
(batch calibration: the log-odds minus their mean over all questions of the run with the
same number of paths in the prompt — label-free, the rule chosen on the validation split
of the path data sets, see `bench_pairs`)."""


BATCH_MIN_QUESTIONS = 20
"""Fewer questions than this (5 variables ask 20) make a poor batch mean."""


def verdict_log_odds(verdicts: Sequence[PairVerdict], decision: str) -> np.ndarray:
    """Each verdict's log-odds of "causal" under `decision` (see `DECISIONS`)."""
    from causalqa.discovery.pair import CAUSAL, NON_CAUSAL

    if decision not in DECISIONS:
        raise GraphDiscoveryError(
            f"unknown decision rule {decision!r}", hint=f"use {', '.join(DECISIONS)}"
        )
    raw = np.array([v.logprobs[CAUSAL] - v.logprobs[NON_CAUSAL] for v in verdicts])
    if decision == "argmax":
        return raw
    if decision == "content-free":
        if any(v.content_free is None for v in verdicts):
            raise GraphDiscoveryError("content-free decision needs calibrated verdicts")
        return raw - np.array(
            [v.content_free[CAUSAL] - v.content_free[NON_CAUSAL] for v in verdicts]
        )
    shapes = np.array([len(v.paths) for v in verdicts])
    out = raw.copy()
    for n in set(shapes.tolist()):
        out[shapes == n] -= raw[shapes == n].mean()
    return out


@dataclass
class GraphDiscovery:
    """The discovered graph: `adjacency[i, j] = 1` for i → j, `probability[i, j]` =
    P(causal) of the ordered question (i, j), and every pair's verdict."""

    variables: list[str]
    adjacency: np.ndarray
    probability: np.ndarray
    verdicts: list[PairVerdict]
    ranker: str | None
    top_k: int
    notes: list[str] = field(default_factory=list)
    linked: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    rule: str = DIRECTION_RULE
    decision: str = "content-free"

    def edges(self) -> list[tuple[str, str]]:
        return [(self.variables[i], self.variables[j]) for i, j in zip(*np.nonzero(self.adjacency))]

    def decided(self, decision: str) -> GraphDiscovery:
        """The same answers turned into a graph by another `decision` rule (no LLM call)."""
        n = len(self.variables)
        lo = verdict_log_odds(self.verdicts, decision)
        prob = np.zeros((n, n))
        causal = np.zeros((n, n), dtype=bool)
        ordered = [(i, j) for i in range(n) for j in range(n) if i != j]
        for (i, j), x in zip(ordered, lo):
            prob[i, j] = 1.0 / (1.0 + np.exp(-np.clip(x, -700, 700)))
            causal[i, j] = x > 0
        notes = list(self.notes)
        if decision == "batch" and len(self.verdicts) < BATCH_MIN_QUESTIONS:
            notes.append(
                f"batch verdicts over only {len(self.verdicts)} questions: their mean is the "
                "threshold, so about half are called causal whatever the answers; with fewer "
                f"than {BATCH_MIN_QUESTIONS} questions prefer --decision content-free"
            )
        return replace(
            self,
            adjacency=decide_directions(prob, causal),
            probability=prob,
            decision=decision,
            notes=notes,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "variables": self.variables,
            "edges": [list(e) for e in self.edges()],
            "adjacency": self.adjacency.tolist(),
            "probability": np.round(self.probability, 4).tolist(),
            "rule": self.rule,
            "decision": self.decision,
            "ranker": self.ranker,
            "top_k": self.top_k,
            "linked": self.linked,
            "notes": self.notes,
            "seconds": round(self.seconds, 2),
            "pairs": [
                {k: v for k, v in verdict.to_dict().items() if k not in ("prompt", "linked")}
                for verdict in self.verdicts
            ],
        }

    def to_markdown(self) -> str:
        lines = [
            f"Variables: {', '.join(self.variables)}; ranker {self.ranker}, top-{self.top_k}.",
            f"Rule: {self.rule}. Verdicts: {self.decision} (see `graph.DECISIONS`).",
            "",
            "| cause | effect | P(cause→effect) | P(effect→cause) | path used |",
            "|---|---|---|---|---|",
        ]
        by = {(v.a, v.b): v for v in self.verdicts}
        for a, b in self.edges():
            i, j = self.variables.index(a), self.variables.index(b)
            used = by.get((a, b))
            path = used.paths[0] if used and used.paths else "(none)"
            lines.append(
                f"| {a} | {b} | {self.probability[i, j]:.3f} | {self.probability[j, i]:.3f} "
                f"| {path} |"
            )
        if not self.edges():
            lines.append("| (no edge) | | | | |")
        if self.notes:
            lines += ["", *(f"- {n}" for n in self.notes)]
        return "\n".join(lines)


def _link_variable(kg, variable: str, names: Sequence[str], options: Mapping[str, Any]):
    """The first of `names` (default: the variable itself) that links to one node."""
    tried = []
    for name in names:
        try:
            linking = kg.link(name, **options)
        except CausalQAError as e:
            tried.append(f"{name}: {e.message}")
            continue
        if linking.best is not None:
            return linking.best.node, {"query": name, "node": linking.best.node.to_dict()}
        tried.append(f"{name}: {'ambiguous' if linking.candidates else 'no match'}")
    return None, {"query": list(names), "node": None, "tried": tried}


def discover_graph(
    variables: Sequence[str],
    *,
    kg=None,
    llm,
    ranker: Any = "similarity",
    top_k: int = 1,
    context: str | None = None,
    k: int = 4,
    limit: int = 100,
    kg_names: Mapping[str, Sequence[str] | str | None] | None = None,
    link_options: Mapping[str, Any] | None = None,
    instruction: str | None = DIRECTED_INSTRUCTION,
    seed: int = 0,
    on_progress: Callable[[int, int, str], None] | None = None,
    calibrate: bool = True,
    decision: str | None = None,
) -> GraphDiscovery:
    """Discover a directed graph among `variables` from the LLM and the paths of `kg`.

    Each variable is linked once: to the first of ``kg_names[v]`` that links to one node
    (default: its own name; an empty list means "not in the graph"). Without `kg` (or
    with ``ranker="none"``) every question is decided from the pair alone. `on_progress`
    is called with (done, total, "a → b"). `calibrate`: contextual calibration of each
    verdict (`pair.classify_pair`), with one content-free prompt per prompt shape.
    `decision` (one of `DECISIONS`; default: ``content-free`` when `calibrate`, else
    ``argmax``) turns the answers into edges.
    """
    default = "content-free" if calibrate else "argmax"
    decision = decision or default
    if decision not in DECISIONS:
        raise GraphDiscoveryError(
            f"unknown decision rule {decision!r}", hint=f"use {', '.join(DECISIONS)}"
        )
    if decision == "content-free" and not calibrate:
        raise GraphDiscoveryError("the content-free decision needs calibrate=True")
    names = [v.strip() for v in variables]
    if len(names) < 2:
        raise GraphDiscoveryError("need at least two variables")
    if len(set(names)) != len(names):
        raise GraphDiscoveryError("the variables repeat a name")
    start = time.perf_counter()
    rk = get_ranker(ranker, llm=llm, seed=seed) if isinstance(ranker, str) else ranker
    rk_name = ranker if isinstance(ranker, str) else getattr(ranker, "name", "custom")
    notes: list[str] = []
    nodes: dict[str, Any] = {}
    linked: dict[str, Any] = {}
    if kg is not None and rk is not None and top_k > 0:
        for v in names:
            raw = (kg_names or {}).get(v, (v,))
            wanted = (raw,) if isinstance(raw, str) else tuple(raw or ())
            if not wanted:
                nodes[v], linked[v] = None, {"query": [], "node": None}
                notes.append(f"{v}: not in the graph (no name to link); {NO_ENTITY}")
                continue
            nodes[v], linked[v] = _link_variable(kg, v, wanted, dict(link_options or {}))
            if nodes[v] is None:
                notes.append(f"{v}: {'; '.join(linked[v]['tried'])}; {NO_ENTITY}")
    n = len(names)
    prob = np.zeros((n, n))
    causal = np.zeros((n, n), dtype=bool)
    verdicts: list[PairVerdict] = []
    ordered = [(i, j) for i in range(n) for j in range(n) if i != j]
    priors: dict[tuple[int, bool], dict[str, float]] = {}
    no_path = []
    for done, (i, j) in enumerate(ordered):
        a, b = names[i], names[j]
        if on_progress:
            on_progress(done, len(ordered), f"{a} → {b}")
        na, nb = nodes.get(a), nodes.get(b)
        chosen = []
        found = 0
        if na is not None and nb is not None:
            try:
                paths = kg.paths(na, nb, k=k, limit=limit)
            except CausalQAError:
                paths = []
            candidates = [candidate_from_path(p, x) for x, p in enumerate(paths)]
            found = len(candidates)
            if rk_name == "llm":
                candidates = candidates[:10]
            if not candidates and i < j:
                no_path.append(f"{a}–{b}")
            query = PathRecord(f"{a}\x1f{b}", context or "", na.name, nb.name, 0, tuple(candidates))
            chosen = rank_paths(rk, query, candidates, top_k)
        shape = (len(chosen), bool(context and context.strip()))
        if calibrate and shape not in priors:
            priors[shape] = content_free_logprobs(
                llm, n_paths=shape[0], has_context=shape[1], instruction=instruction
            )
        verdict = classify_pair(
            a,
            b,
            llm,
            paths=chosen,
            context=context,
            instruction=instruction,
            calibrate=priors[shape] if calibrate else False,
        )
        verdict.ranker = rk_name
        verdict.candidates = found
        verdicts.append(verdict)
        prob[i, j] = verdict.probability
        causal[i, j] = verdict.causal
    if on_progress:
        on_progress(len(ordered), len(ordered), "done")
    if no_path:
        notes.append(f"{NO_PATH} within {k} hops for: {', '.join(no_path)}")
    found = GraphDiscovery(
        variables=names,
        adjacency=decide_directions(prob, causal),
        probability=prob,
        verdicts=verdicts,
        ranker=rk_name,
        top_k=top_k,
        notes=notes,
        linked=linked,
        seconds=time.perf_counter() - start,
        decision=default,
    )
    return found if decision == default else found.decided(decision)


def benchmark_sachs_kg(
    *,
    kg,
    llm,
    rankers: Sequence[Any] = ("none", "similarity"),
    top_k: int = 1,
    context: str | None = SACHS_CONTEXT,
    truth: str = "cdt",
    methods: Sequence[str] | None = None,
    root=None,
    seed: int = 0,
    on_progress: Callable[[str], None] | None = None,
    calibrate: bool = True,
    decisions: Sequence[str] | None = None,
):
    """Table 3 in one run: the statistical baselines of `sachs.benchmark_sachs` plus one
    "ours" row per ranker — a name of `pair.RANKERS` ("none" is the paper's no-subgraph
    LLM baseline) or a fitted `Ranker`. Returns the `SachsBenchmark` with the extra rows,
    and the discovered graphs by ranker name (a cross-encoder's by its loss). With
    `decisions` (names of `DECISIONS`), each ranker's answers give one row per rule
    (``content-free`` needs `calibrate`); by default one row, by `calibrate`."""
    from causalqa.discovery.sachs import PAPER_TABLE3, benchmark_sachs, load_sachs
    from causalqa.discovery.statistical import BASELINES

    bench = benchmark_sachs(
        root,
        truth=truth,
        methods=tuple(methods if methods is not None else BASELINES),
        seed=seed,
        on_progress=on_progress,
    )
    sachs = load_sachs(root, truth=truth)
    labels = [SACHS_LABELS[c] for c in sachs.names]
    paper = {r["method"]: r for r in PAPER_TABLE3}
    graphs: dict[str, GraphDiscovery] = {}
    for ranker in rankers:
        name = ranker if isinstance(ranker, str) else ranker.name.split("-")[0]

        def progress(done, total, what, name=name):
            if on_progress:
                on_progress(f"ours ({name}) {done}/{total}: {what}")

        g = discover_graph(
            labels,
            kg=kg,
            llm=llm,
            ranker=ranker,
            top_k=top_k,
            context=context,
            kg_names=SACHS_KG_NAMES,
            seed=seed,
            on_progress=progress,
            calibrate=calibrate,
        )
        g.ranker = name
        graphs[name] = g
        ref = paper.get(_PAPER_ROWS.get(name, ""))
        with_paths = sum(1 for v in g.verdicts if v.paths)
        label = (
            "ours: no-subgraph (LLM)"
            if name == "none"
            else f"ours: {name} ranker (LLM+KG, a path in {with_paths}/{len(g.verdicts)})"
            if with_paths
            else f"ours: {name} ranker (LLM only: no KG path for any pair)"
        )
        for decision in decisions or [None]:
            graph = g if decision is None else g.decided(decision)
            bench.rows.append(
                {
                    "method": label if decision is None else f"{label}, {decision} verdicts",
                    "key": f"ours-{name}" if decision is None else f"ours-{name}-{decision}",
                    **graph_metrics(graph.adjacency, sachs.truth),
                    "seconds": round(g.seconds, 2),
                    "model": getattr(llm, "model", ""),
                    "decision": decision or ("content-free" if calibrate else "argmax"),
                    "questions_with_paths": with_paths,
                    "questions": len(g.verdicts),
                    "paper": {k: ref[k] for k in ("precision", "recall", "f1", "hd", "nhd")}
                    if ref
                    else None,
                }
            )
    return bench, graphs
