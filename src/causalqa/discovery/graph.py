"""Full-graph knowledge-based discovery among N variables, and the SACHS run of "ours"
(paper 001, Table 3).

`discover_graph(variables, kg=..., llm=...)` asks every *ordered* pair (a, b) — n(n − 1)
questions — with `DIRECTED_INSTRUCTION` ("does the first cause the second?") and the
top-k paths from a to b. The rule that turns the answers into a directed adjacency:

- neither direction says causal → no edge;
- exactly one says causal → that edge;
- both say causal → the edge whose P(causal) is higher; an exact tie keeps both
  (``A[i, j] = A[j, i] = 1``, an undirected edge, which the metrics score as both).

`find_graph(variables, method=...)` is what every surface calls (``causalqa discover
graph``, the API's ``/discover/graph``): every ordered pair asked of the LLM as above, or
every pair judged by the evidence model and, given observations, knowledge-guided PC
(`guided_pc`); with observations also the statistical baselines. Its `GraphFinding`
renders as JSON and Markdown and writes GraphML that ``causalqa ask --graph`` loads
(`write_graphml`).

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
    "DEFAULT_DECISION",
    "DIRECTION_RULE",
    "GRAPH_METHODS",
    "GraphDiscovery",
    "GraphFinding",
    "GuidedGraph",
    "as_dag",
    "check_graph_out",
    "decide_directions",
    "discover_graph",
    "evidence_adjacency",
    "find_graph",
    "guided_pc",
    "knowledge_from_verdicts",
    "orient_by_evidence",
    "pair_verdicts",
    "write_graphml",
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
DEFAULT_DECISION = "batch"
"""The rule `discover graph` (CLI and API) uses when none is named."""
"""How a question's label log-probs become a verdict: ``argmax`` (the paper's rule),
``content-free`` (contextual calibration, `pair.content_free_logprobs`) or ``batch``
(batch calibration: the log-odds minus their mean over all questions of the run with the
same number of paths in the prompt — label-free, the rule chosen on the validation split
of the path data sets, see `bench_pairs`)."""


BATCH_MIN_QUESTIONS = 20
"""Fewer questions than this (5 variables ask 20) make a poor batch mean."""


def as_dag(variables: Sequence[str], adjacency: np.ndarray, weight: np.ndarray | None = None):
    """The discovered graph as a networkx DiGraph over every variable that a causal model
    accepts (`causalqa.causal_model`): while a directed cycle remains (a tie kept both
    directions, PC left a pair undirected, or verdicts close a loop), drop the cycle's edge
    of least `weight` (``weight[i, j]`` for i → j; ties: the later edge in variable order).
    Returns (graph, the dropped edges)."""
    import networkx as nx

    names = list(variables)
    w = np.zeros_like(adjacency, dtype=float) if weight is None else np.asarray(weight, float)
    g = nx.DiGraph()
    g.add_nodes_from(names)
    index = {n: i for i, n in enumerate(names)}
    g.add_edges_from((names[i], names[j]) for i, j in zip(*np.nonzero(adjacency)) if i != j)
    dropped = []
    while True:
        try:
            cycle = nx.find_cycle(g)
        except nx.NetworkXNoCycle:
            break
        a, b = min(
            ((u, v) for u, v, *_ in cycle),
            key=lambda e: (w[index[e[0]], index[e[1]]], -index[e[0]], -index[e[1]]),
        )
        g.remove_edge(a, b)
        dropped.append((a, b))
    return g, dropped


def evidence_adjacency(
    variables: Sequence[str], verdicts: Mapping[tuple[str, str], Mapping[str, Any] | None]
) -> tuple[np.ndarray, np.ndarray]:
    """From the evidence model's pair verdicts alone (no data): an edge a→b when the
    three-way answer is a→b. Returns (adjacency, weight = P(a→b)) over `variables`."""
    names = list(variables)
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    adj, weight = np.zeros((n, n), dtype=int), np.zeros((n, n))
    for (a, b), v in verdicts.items():
        if not v or "p_ab" not in v:
            continue
        i, j = index[a], index[b]
        weight[i, j], weight[j, i] = v["p_ab"], v["p_ba"]
        if v.get("direction") == "A→B":
            adj[i, j] = 1
        elif v.get("direction") == "B→A":
            adj[j, i] = 1
    return adj, weight


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


# -- knowledge-guided PC and evidence-ranked orientation ------------------------------------


@dataclass
class GuidedGraph:
    """PC on observations guided by pair evidence: `verdicts` (unordered pair → P(causal)
    and P(a→b), P(b→a), or None where there was no evidence), the background knowledge
    they gave (`required`, `forbidden` directed edges), the plain PC graph, the guided one,
    and the final `adjacency` after evidence-ranked orientation of what PC left undirected."""

    variables: list[str]
    adjacency: np.ndarray
    pc: Any
    guided: Any
    verdicts: dict[tuple[str, str], dict[str, Any] | None]
    required: list[tuple[str, str]]
    forbidden: list[tuple[str, str]]
    oriented: list[tuple[str, str]]
    settings: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def edges(self) -> list[tuple[str, str]]:
        return [(self.variables[i], self.variables[j]) for i, j in zip(*np.nonzero(self.adjacency))]

    def to_dict(self) -> dict[str, Any]:
        return {
            "variables": self.variables,
            "edges": [list(e) for e in self.edges()],
            "adjacency": self.adjacency.tolist(),
            "pc_edges": [list(e) for e in self.pc.edges()],
            "guided_edges": [list(e) for e in self.guided.edges()],
            "required": [list(e) for e in self.required],
            "forbidden": [list(e) for e in self.forbidden],
            "oriented": [list(e) for e in self.oriented],
            "verdicts": [
                {"a": a, "b": b, **(v or {"evidence": None})} for (a, b), v in self.verdicts.items()
            ],
            "settings": self.settings,
            "notes": self.notes,
        }


def pair_verdicts(
    variables: Sequence[str],
    *,
    judge,
    kg=None,
    llm=None,
    kg_names: Mapping[str, Sequence[str] | str | None] | None = None,
    kinds: Sequence[str] | None = None,
    context: str | None = None,
    general: Sequence[Any] = (),
    on_progress: Callable[[int, int, str], None] | None = None,
) -> dict[tuple[str, str], dict[str, Any] | None]:
    """The evidence model's verdict on every unordered pair (asked as (a, b) in the order of
    `variables`): P(causal), P(a→b), P(b→a) and the evidence used; None for a pair with no
    evidence (no sentence, and a variable the graph does not place); ``{"verdict":
    "unknown", "evidence": "none", "lacking": [...]}`` for a pair both of whose names the
    graph places but with no path, sentence or LLM feature to decide it — counted apart,
    never as non-causal (it has no ``p_causal``, so it forbids and requires nothing).
    ``kg_names[v]``: the names to look the variable up by in the graph (first that links;
    empty: not in it). `general`: stores of general causal claims (CauseNet), consulted as
    `discover pair` does (`general.with_general`) for pairs the typed graph cannot judge
    alone."""
    from causalqa.discovery.general import general_evidence
    from causalqa.discovery.pair import judge_pair, places

    def query(v: str) -> str | None:
        raw = (kg_names or {}).get(v, (v,))
        wanted = (raw,) if isinstance(raw, str) else tuple(raw or ())
        if kg is None:
            return v
        for name in wanted:
            try:
                linking = kg.link(name, kinds=list(kinds) if kinds else None)
            except CausalQAError:
                continue
            if places(linking):
                return name
        return None

    names = {v: query(v) for v in variables}
    pairs = list(itertools.combinations(variables, 2))
    out: dict[tuple[str, str], dict[str, Any] | None] = {}
    for done, (a, b) in enumerate(pairs):
        if on_progress:
            on_progress(done, len(pairs), f"{a} – {b}")
        qa, qb = names[a], names[b]
        placed = kg is not None and qa is not None and qb is not None
        # CauseNet is asked here only when the typed graph cannot judge the pair alone;
        # what it said is handed on, so `judge_pair` does not ask again
        needed = general and context is None and not placed
        claims = general_evidence(a, b, general) if needed else None
        decidable = placed or (claims is not None and claims.placed)
        if context is None and not decidable and (kg is not None or general):
            out[(a, b)] = None
            continue
        try:
            v = judge_pair(
                qa or a,
                qb or b,
                judge=judge,
                kg=kg if placed else None,
                llm=llm,
                context=context,
                kinds_a=kinds,
                kinds_b=kinds,
                general=general,
                general_claims=claims,
            )
        except CausalQAError as e:
            out[(a, b)] = {"error": e.message}
            continue
        if v.abstention is not None:
            out[(a, b)] = {"verdict": v.verdict, "evidence": "none",
                           "lacking": list(v.abstention.lacking)}  # fmt: skip
            continue
        out[(a, b)] = {
            "p_causal": round(v.probability, 4),
            "p_ab": round(v.probabilities["A→B"], 4),
            "p_ba": round(v.probabilities["B→A"], 4),
            "direction": v.direction,
            "evidence": v.variant,
        }
    if on_progress:
        on_progress(len(pairs), len(pairs), "done")
    return out


def knowledge_from_verdicts(
    verdicts: Mapping[tuple[str, str], Mapping[str, Any] | None],
    *,
    require: float = 0.9,
    forbid: float = 0.05,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Background knowledge from confident verdicts: an edge a→b is required when
    P(a→b) ≥ `require` (and b→a is then forbidden); both directions are forbidden when
    P(causal) ≤ `forbid`. Pairs without evidence give none."""
    required, forbidden = [], []
    for (a, b), v in verdicts.items():
        if not v or "p_causal" not in v:
            continue
        if v["p_causal"] <= forbid:
            forbidden += [(a, b), (b, a)]
            continue
        for (x, y), p in (((a, b), v["p_ab"]), ((b, a), v["p_ba"])):
            if p >= require:
                required.append((x, y))
                forbidden.append((y, x))
    return required, forbidden


def orient_by_evidence(
    result,
    verdicts: Mapping[tuple[str, str], Mapping[str, Any] | None],
    *,
    margin: float = 0.05,
) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Orient the pairs PC left undirected (both ways in its adjacency) towards the more
    probable direction by the evidence, when P(a→b) and P(b→a) differ by at least `margin`;
    others stay as they are. Returns (adjacency, the edges oriented)."""
    adj = result.adjacency.copy()
    index = {n: i for i, n in enumerate(result.names)}
    oriented = []
    for a, b in result.undirected:
        v = verdicts.get((a, b))
        p_ab, p_ba = (v["p_ab"], v["p_ba"]) if v and "p_ab" in v else (None, None)
        if v is None or p_ab is None:
            w = verdicts.get((b, a))
            if w and "p_ab" in w:
                p_ab, p_ba = w["p_ba"], w["p_ab"]
        if p_ab is None or abs(p_ab - p_ba) < margin:
            continue
        i, j = index[a], index[b]
        if p_ab > p_ba:
            adj[j, i] = 0
            oriented.append((a, b))
        else:
            adj[i, j] = 0
            oriented.append((b, a))
    return adj, oriented


def guided_pc(
    data,
    variables: Sequence[str],
    verdicts: Mapping[tuple[str, str], Mapping[str, Any] | None],
    *,
    alpha: float = 0.05,
    require: float = 0.9,
    forbid: float = 0.05,
    margin: float = 0.05,
) -> GuidedGraph:
    """Knowledge-guided PC: PC (`statistical.pc`) with the background knowledge of
    `knowledge_from_verdicts`, then `orient_by_evidence` on what it left undirected."""
    from causalqa.discovery.statistical import pc

    names = list(variables)
    plain = pc(data, names=names, alpha=alpha)
    required, forbidden = knowledge_from_verdicts(verdicts, require=require, forbid=forbid)
    guided = pc(data, names=names, alpha=alpha, required=required, forbidden=forbidden)
    adjacency, oriented = orient_by_evidence(guided, verdicts, margin=margin)
    with_evidence = sum(1 for v in verdicts.values() if v and "p_causal" in v)
    notes = [
        f"evidence for {with_evidence} of {len(verdicts)} pairs; {len(required)} edges "
        f"required, {len(forbidden)} directed edges forbidden; {len(oriented)} of "
        f"{len(guided.undirected)} undirected pairs oriented by evidence"
    ]
    settings = {"alpha": alpha, "require": require, "forbid": forbid, "margin": margin}
    return GuidedGraph(
        names, adjacency, plain, guided, dict(verdicts), required, forbidden, oriented,
        settings, notes,
    )  # fmt: skip


# -- a graph among variables, as every surface asks for one ---------------------------------

GRAPH_METHODS = ("llm", "evidence")
"""How `find_graph` (``causalqa discover graph``, the API's ``/discover/graph``) decides:
``llm`` asks every ordered pair with the paper's prompt (`discover_graph`); ``evidence``
judges every pair with the evidence model (`pair_verdicts`) and, given observations, runs
knowledge-guided PC on them (`guided_pc`)."""


@dataclass
class GraphFinding:
    """A graph found among `variables` by `find_graph`, as every surface reports it
    (`to_dict` is ``discover graph --json`` and the API job's result, `to_markdown` the
    command's text): for the ``llm`` method the `discovery` and the LLM's `model`; for
    ``evidence`` the pair `verdicts`, the evidence model's `text_model` and, with
    observations, the `guided` PC graph; with observations also the `statistical`
    baselines; `written` once `write_graphml` has written it."""

    method: str
    variables: list[str]
    discovery: GraphDiscovery | None = None
    model: str = ""
    verdicts: dict[tuple[str, str], dict[str, Any] | None] | None = None
    text_model: str | None = None
    guided: GuidedGraph | None = None
    statistical: list[dict[str, Any]] | None = None
    written: dict[str, Any] | None = None

    def weighted_adjacency(self) -> tuple[np.ndarray, np.ndarray]:
        """(the graph's adjacency, each edge's weight: the probability it stands on), as
        `write_graphml` breaks cycles by them."""
        if self.discovery is not None:
            return self.discovery.adjacency, self.discovery.probability
        adjacency, weight = evidence_adjacency(self.variables, self.verdicts or {})
        if self.guided is not None:  # PC on the data decided the edges; evidence weighs them
            adjacency = self.guided.adjacency
        return adjacency, weight

    def write_graphml(self, path, *, force: bool = False) -> dict[str, Any]:
        """Write the graph as GraphML (`write_graphml`) and remember what was written."""
        adjacency, weight = self.weighted_adjacency()
        self.written = write_graphml(path, self.variables, adjacency, weight, force=force)
        return self.written

    def _pair_rows(self) -> list[dict[str, Any]]:
        return [{"a": a, "b": b, **(v or {"evidence": None})}
                for (a, b), v in (self.verdicts or {}).items()]  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        if self.discovery is not None:
            report: dict[str, Any] = {"model": self.model, **self.discovery.to_dict()}
            if self.written is not None:
                report["written"] = self.written
            if self.statistical is not None:
                report["statistical"] = self.statistical
            return report
        report = {"method": "evidence", "text_model": self.text_model, "pairs": self._pair_rows()}
        if self.guided is not None:
            report["graph"] = self.guided.to_dict()
        if self.statistical is not None:
            report["statistical"] = self.statistical
        if self.written is not None:
            report["written"] = self.written
        return report

    def to_markdown(self) -> str:
        if self.discovery is not None:
            md = self.discovery.to_markdown() + self._written_markdown()
            if self.statistical is not None:
                md += "\n\nStatistical baselines on the data:\n\n" + "\n".join(
                    f"- {r['method']}: "
                    + (r.get("error") or ", ".join(f"{a}→{b}" for a, b in r["edges"]))
                    for r in self.statistical
                )
            return md
        lines = ["| a | b | P(causal) | P(a→b) | P(b→a) | evidence |", "|---|---|---|---|---|---|"]
        for r in self._pair_rows():
            if "p_causal" in r:
                lines.append(
                    f"| {r['a']} | {r['b']} | {r['p_causal']:.3f} | {r['p_ab']:.3f} "
                    f"| {r['p_ba']:.3f} | {r['evidence']} |"
                )
            else:
                why = r.get("error") or (
                    f"unknown (lacks {', '.join(r['lacking'])})" if r.get("lacking") else "none"
                )
                lines.append(f"| {r['a']} | {r['b']} | – | – | – | {why} |")
        if self.guided is not None:
            g = self.guided
            lines += [
                "",
                "Knowledge-guided PC: "
                + (", ".join(f"{a}→{b}" for a, b in g.edges()) or "no edge"),
                "PC alone: " + (", ".join(f"{a}→{b}" for a, b in g.pc.edges()) or "no edge"),
                *(f"- {n}" for n in g.notes),
            ]
        if self.written is not None:
            lines.append(self._written_markdown().strip())
        return "\n".join(lines)

    def _written_markdown(self) -> str:
        if self.written is None:
            return ""
        w = self.written
        md = f"\n\nWrote {w['path']} ({len(w['edges'])} edges)"
        if w["dropped_for_acyclicity"]:
            md += "; dropped to break cycles: " + ", ".join(
                f"{a}→{b}" for a, b in w["dropped_for_acyclicity"]
            )
        return md + "."


def find_graph(
    variables: Sequence[str],
    *,
    method: str = "llm",
    kg=None,
    llm=None,
    judge=None,
    context: str | None = None,
    ranker: Any = "similarity",
    top_k: int = 1,
    hops: int = 4,
    decision: str | None = None,
    observations=None,
    alpha: float = 0.05,
    require: float = 0.9,
    forbid: float = 0.05,
    general: Sequence[Any] = (),
    on_progress: Callable[[int, int, str], None] | None = None,
) -> GraphFinding:
    """A directed graph among `variables`, as ``causalqa discover graph`` and the API find
    it (`GRAPH_METHODS`).

    ``llm``: `discover_graph` with `ranker`, `top_k`, `hops` and `decision` (default
    `DEFAULT_DECISION`; the content-free prompt is asked exactly when that rule needs it).
    ``evidence``: `pair_verdicts` by `judge` (default: the trained or shipped evidence
    model; `general` stores of causal claims consulted beside `kg`), and with
    `observations` (a DataFrame whose columns are the variables) `guided_pc` at level
    `alpha`, requiring edges at P(a→b) ≥ `require` and forbidding pairs at P(causal) ≤
    `forbid`. With `observations` either way, the statistical baselines run on them too.
    `on_progress(done, total, what)` follows the questions.
    """
    if method not in GRAPH_METHODS:
        raise GraphDiscoveryError(
            f"unknown method {method!r}", hint=f"use {', '.join(GRAPH_METHODS)}"
        )
    names = [v.strip() for v in variables]
    statistical = None
    if method == "llm":
        decision = decision or DEFAULT_DECISION
        found = discover_graph(
            names, kg=kg, llm=llm, ranker=ranker, top_k=top_k, context=context, k=hops,
            on_progress=on_progress, calibrate=decision == "content-free", decision=decision,
        )  # fmt: skip
        if observations is not None:
            from causalqa.discovery.statistical import run_baselines

            statistical = run_baselines(observations)
        return GraphFinding("llm", names, discovery=found, model=getattr(llm, "model", ""),
                            statistical=statistical)  # fmt: skip
    for name, value in (("require", require), ("forbid", forbid)):
        if not 0.0 <= value <= 1.0:
            raise GraphDiscoveryError(f"{name} must be a probability, got {value}")
    from causalqa.discovery.evidence import EvidenceJudge

    judge = judge or EvidenceJudge.load()
    verdicts = pair_verdicts(names, judge=judge, kg=kg, llm=llm, context=context,
                             general=general, on_progress=on_progress)  # fmt: skip
    guided = None
    if observations is not None:
        from causalqa.discovery.statistical import run_baselines

        guided = guided_pc(observations, names, verdicts, alpha=alpha, require=require,
                           forbid=forbid)  # fmt: skip
        statistical = run_baselines(observations)
    return GraphFinding("evidence", names, verdicts=verdicts, text_model=judge.text_model,
                        guided=guided, statistical=statistical)  # fmt: skip


def check_graph_out(path, force: bool = False) -> None:
    """Refuse, before any work, a GraphML target that is not a ``.graphml`` (or ``.xml``)
    file name, or that exists (unless `force`)."""
    from pathlib import Path

    from causalqa.errors import ConfigError

    path = Path(path)
    if path.suffix.lower() not in (".graphml", ".xml"):
        raise ConfigError(
            f"--out {path}: the graph is written as GraphML",
            hint="give a file name ending in .graphml",
        )
    if path.is_dir() or (path.exists() and not force):
        raise ConfigError(
            f"--out {path} already exists", hint="pass --force to overwrite it, or another --out"
        )


def write_graphml(
    path, variables: Sequence[str], adjacency: np.ndarray, weight: np.ndarray | None = None,
    *, force: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Write a discovered graph as GraphML that ``causalqa ask --graph`` loads, atomically
    (a reader never sees half a file). A causal model's graph must be acyclic: `as_dag`
    drops the weakest edge of each cycle. Returns the path, the edges written and those
    dropped for acyclicity."""
    import os
    import tempfile
    from pathlib import Path

    from causalqa.causal_model import CausalModel

    path = Path(path)
    check_graph_out(path, force)
    dag, dropped = as_dag(variables, adjacency, weight)
    text = CausalModel.from_graph(dag).to_graphml()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return {
        "path": str(path),
        "edges": [list(e) for e in dag.edges()],
        "dropped_for_acyclicity": [list(e) for e in dropped],
    }
