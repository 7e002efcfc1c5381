"""Which part of the causal graph an answer used: the nodes and edges the web page lights
up. Read from the answer's plan (each tool and its arguments), its result and what the
question was grounded to — no model call."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx

from causalqa.causal_model import CausalModel
from causalqa.qa.check import ROLES

_PATH_TOOLS = {
    tool: ROLES[tool]
    for tool in ("is_cause", "paths_between", "mediators", "on_path", "effect_kind")
}
"""Tools whose answer is read off the directed paths from one argument to the other, with
the (cause, effect) arguments the check reads too."""
_TREATMENT_ARGS = ("treatment", "a", "b")
_MAX_NAMES = 500


def _names_in(value: Any, graph: nx.DiGraph, found: set[str], budget: list[int]) -> None:
    """Every string in `value` (nested lists and dicts) that is a node of `graph`."""
    if budget[0] <= 0:
        return
    budget[0] -= 1
    if isinstance(value, str):
        if value in graph:
            found.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            _names_in(v, graph, found, budget)
    elif isinstance(value, list | tuple):
        for v in value:
            _names_in(v, graph, found, budget)


def _between(graph: nx.DiGraph, a: str, b: str) -> tuple[set[str], set[tuple[str, str]]]:
    """The nodes and edges of every directed path from a to b (none when there is none)."""
    if a not in graph or b not in graph or a == b or not nx.has_path(graph, a, b):
        return set(), set()
    on = (nx.descendants(graph, a) & nx.ancestors(graph, b)) | {a, b}
    return on, set(graph.subgraph(on).edges())


def used_subgraph(model: CausalModel, answer: Any) -> dict[str, list]:
    """``{"nodes": [...], "edges": [[cause, effect], ...]}`` in the model's order.

    `answer` is a `causalqa.qa.assistant.Answer` (or its dict): the plan's tools say
    which edges (a cause's paths to its effect, a variable's parent edges, a treatment's
    paths to the outcome), the arguments, result and grounding which nodes.
    """
    data = answer if isinstance(answer, dict) else answer.model_dump()
    graph = model.graph
    nodes: set[str] = set()
    edges: set[tuple[str, str]] = set()
    steps = (data.get("plan") or {}).get("steps") or []
    result = data.get("result")
    result_names: set[str] = set()
    _names_in(result, graph, result_names, [_MAX_NAMES])
    for step in steps if isinstance(steps, list) else []:
        if not isinstance(step, dict):
            continue
        tool, args = step.get("tool"), step.get("args") or {}
        if not isinstance(args, dict):
            continue
        _names_in(args, graph, nodes, [_MAX_NAMES])
        if tool in _PATH_TOOLS:
            a, b = (args.get(k) for k in _PATH_TOOLS[tool])
            on, used = _between(graph, str(a), str(b))
            nodes |= on
            edges |= used
        elif tool == "is_parent":
            a, b = str(args.get("parent")), str(args.get("child"))
            if graph.has_edge(a, b):
                edges.add((a, b))
        elif tool in ("parents", "children", "ancestors", "descendants"):
            v = str(args.get("variable"))
            if v in graph:
                related = result_names - {v}
                nodes |= related
                if tool == "parents":
                    edges |= {(r, v) for r in related if graph.has_edge(r, v)}
                elif tool == "children":
                    edges |= {(v, r) for r in related if graph.has_edge(v, r)}
                else:
                    edges |= set(graph.subgraph(related | {v}).edges())
        else:
            treatments = {str(args[k]) for k in _TREATMENT_ARGS if isinstance(args.get(k), str)}
            treatments |= {n for n in result_names if n in model.treatments}
            if model.outcome is not None:
                for t in treatments:
                    on, used = _between(graph, t, model.outcome)
                    nodes |= on
                    edges |= used
    nodes |= result_names
    grounding = data.get("grounding") or {}
    for key in ("variables", "treatments"):
        nodes |= {n for n in grounding.get(key) or [] if isinstance(n, str) and n in graph}
    where = grounding.get("where") or {}
    if isinstance(where, dict) and where.get("filter") in graph:
        nodes.add(where["filter"])
    return {"nodes": _ordered(model, nodes), "edges": _ordered_edges(model, edges)}


def _ordered(model: CausalModel, names: Iterable[str]) -> list[str]:
    return sorted(names, key=model.order)


def _ordered_edges(model: CausalModel, edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    return [list(e) for e in sorted(edges, key=lambda e: (model.order(e[0]), model.order(e[1])))]
