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

from causalqa._compat import moved_names
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
from causalqa.errors import CausalQAError, GraphDiscoveryError

__all__ = [
    "DIRECTION_RULE",
    "GraphDiscovery",
    "decide_directions",
    "discover_graph",
]

DIRECTION_RULE = (
    "both ordered pairs asked; an edge a→b when (a, b) is judged causal and (b, a) is not, "
    "or both are and P(a→b) > P(b→a); an exact tie keeps both directions"
)


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


__getattr__ = moved_names(__name__)  # old names, for one release
