"""Causal questions about a DAG as plain functions over a `networkx.DiGraph`: mediators,
common causes (confounders) and common effects, the Markov blanket, d-separation, a
back-door adjustment set and whether an effect is direct, indirect or both.

Each takes the graph and node names and returns sets or plain values; names that are not
in the graph raise `networkx.NodeNotFound` (the QA tools check names first).

>>> import networkx as nx
>>> g = nx.DiGraph([("Z", "X"), ("Z", "Y"), ("X", "M"), ("M", "Y"), ("X", "Y")])
>>> sorted(mediators(g, "X", "Y")), sorted(common_causes(g, "X", "Y"))
(['M'], ['Z'])
>>> effect_kind(g, "X", "Y"), sorted(backdoor_adjustment_set(g, "X", "Y"))
('both', ['Z'])
>>> d_separated(g, "X", "Y", ["Z"]), d_separated(g, "Z", "M", ["X"])
(False, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import networkx as nx

EffectKind = Literal["direct", "indirect", "both", "none"]


def _check(g: nx.DiGraph, *nodes: str) -> None:
    for n in nodes:
        if n not in g:
            raise nx.NodeNotFound(f"{n!r} is not in the graph")


def mediators(g: nx.DiGraph, source: str, target: str) -> set[str]:
    """The variables that lie on some directed path from `source` to `target`, both
    endpoints excluded (empty when there is no such path)."""
    _check(g, source, target)
    if source == target:
        return set()
    return nx.descendants(g, source) & nx.ancestors(g, target)


def on_causal_path(g: nx.DiGraph, variable: str, source: str, target: str) -> bool:
    """Whether `variable` lies on a directed path from `source` to `target` (strictly
    between them)."""
    _check(g, variable)
    return variable in mediators(g, source, target)


def common_causes(g: nx.DiGraph, a: str, b: str) -> set[str]:
    """The confounders of `a` and `b`: variables with a directed path to `a` that avoids
    `b` and a directed path to `b` that avoids `a` (a cause of `b` only by way of `a` is
    not a common cause)."""
    _check(g, a, b)
    if a == b:
        return set()
    without_a = g.subgraph(n for n in g if n != a)
    without_b = g.subgraph(n for n in g if n != b)
    return nx.ancestors(without_b, a) & nx.ancestors(without_a, b)


def common_effects(g: nx.DiGraph, a: str, b: str) -> set[str]:
    """Variables both `a` and `b` lead to, each by a directed path that avoids the other
    (so a consequence of `b` only by way of `a` does not count)."""
    _check(g, a, b)
    if a == b:
        return set()
    without_a = g.subgraph(n for n in g if n != a)
    without_b = g.subgraph(n for n in g if n != b)
    return (nx.descendants(without_b, a) & nx.descendants(without_a, b)) - {a, b}


def markov_blanket(g: nx.DiGraph, variable: str) -> set[str]:
    """Parents, children and the children's other parents of `variable`: given these,
    it is independent of every other variable."""
    _check(g, variable)
    children = set(g.successors(variable))
    spouses = {p for c in children for p in g.predecessors(c)}
    return (set(g.predecessors(variable)) | children | spouses) - {variable}


def d_separated(g: nx.DiGraph, a: str, b: str, given: Iterable[str] = ()) -> bool:
    """Whether `a` and `b` are d-separated given `given` in the DAG — the graph's statement
    that they are independent once we condition on those variables."""
    z = set(given)
    _check(g, a, b, *z)
    if a == b or a in z or b in z:
        return False
    return nx.is_d_separator(g, {a}, {b}, z)


def backdoor_adjustment_set(g: nx.DiGraph, treatment: str, outcome: str) -> set[str] | None:
    """A minimal set of variables that satisfies the back-door criterion for the effect of
    `treatment` on `outcome`: no descendant of `treatment`, and it blocks every path from
    `treatment` to `outcome` that starts with an arrow into `treatment`. The empty set
    when nothing needs adjusting for; None when no set of observed variables works (never
    for a fully observed DAG, but kept for graphs with restrictions)."""
    _check(g, treatment, outcome)
    if treatment == outcome:
        return set()
    cut = g.copy()
    cut.remove_edges_from(list(g.out_edges(treatment)))
    allowed = set(g) - nx.descendants(g, treatment) - {treatment, outcome}
    found = nx.find_minimal_d_separator(cut, {treatment}, {outcome}, restricted=allowed)
    return None if found is None else set(found)


def is_backdoor_adjustment_set(
    g: nx.DiGraph, treatment: str, outcome: str, given: Iterable[str]
) -> bool:
    """Whether `given` satisfies the back-door criterion for `treatment` → `outcome`."""
    z = set(given)
    _check(g, treatment, outcome, *z)
    if z & (nx.descendants(g, treatment) | {treatment, outcome}):
        return False
    cut = g.copy()
    cut.remove_edges_from(list(g.out_edges(treatment)))
    return nx.is_d_separator(cut, {treatment}, {outcome}, z)


def effect_kind(g: nx.DiGraph, cause: str, effect: str) -> EffectKind:
    """How `cause` affects `effect`: "direct" (an edge and no longer directed path),
    "indirect" (only paths through other variables), "both", or "none"."""
    _check(g, cause, effect)
    if cause == effect:
        return "none"
    direct = g.has_edge(cause, effect)
    indirect = bool(mediators(g, cause, effect))
    if direct and indirect:
        return "both"
    return "direct" if direct else "indirect" if indirect else "none"
