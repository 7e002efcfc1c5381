"""The graph operations against hand-worked truth on small graphs, and against networkx's
own d-separation and a brute-force back-door check on random DAGs."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from causalqa.qa import graph_ops as ops

# Z → X → M → Y, X → Y, Z → Y, W → Y, X → C ← W   (C a collider of X and W)
G = nx.DiGraph(
    [("Z", "X"), ("X", "M"), ("M", "Y"), ("X", "Y"), ("Z", "Y"), ("W", "Y"), ("X", "C"), ("W", "C")]
)


def test_mediators_and_on_path():
    assert ops.mediators(G, "X", "Y") == {"M"}
    assert ops.mediators(G, "Z", "Y") == {"X", "M"}
    assert ops.mediators(G, "Y", "X") == set()
    assert ops.on_causal_path(G, "M", "X", "Y")
    assert not ops.on_causal_path(G, "C", "X", "Y")
    assert not ops.on_causal_path(G, "Z", "X", "Y")  # a cause of both, not between them


def test_common_causes_and_effects():
    assert ops.common_causes(G, "X", "Y") == {"Z"}
    # X, W and Z each reach C and Y by paths that avoid the other one
    assert ops.common_causes(G, "C", "Y") == {"X", "W", "Z"}
    assert ops.common_causes(G, "M", "Y") == {"X", "Z"}
    assert ops.common_effects(G, "X", "W") == {"Y", "C"}
    assert ops.common_effects(G, "Z", "M") == {"Y"}


def test_common_causes_exclude_causes_only_through_the_other():
    # A → B → C: A causes C only through B, so it is not a common cause of B and C.
    g = nx.DiGraph([("A", "B"), ("B", "C")])
    assert ops.common_causes(g, "B", "C") == set()
    g.add_edge("A", "C")
    assert ops.common_causes(g, "B", "C") == {"A"}


def test_markov_blanket():
    assert ops.markov_blanket(G, "X") == {"Z", "M", "Y", "C", "W"}
    assert ops.markov_blanket(G, "W") == {"Y", "C", "X", "M", "Z"}


def test_d_separation_by_hand():
    assert ops.d_separated(G, "X", "W")  # every path meets a collider (Y or C)
    assert not ops.d_separated(G, "X", "W", ["C"])
    assert ops.d_separated(G, "Z", "W")
    assert not ops.d_separated(G, "Z", "W", ["Y"])  # conditioning on a collider opens it
    assert ops.d_separated(G, "Z", "M", ["X"])
    assert not ops.d_separated(G, "X", "Y", ["M"])  # the direct edge stays


def test_backdoor_set_by_hand():
    assert ops.backdoor_adjustment_set(G, "X", "Y") == {"Z"}
    assert ops.backdoor_adjustment_set(G, "M", "Y") == {"X"}
    assert ops.backdoor_adjustment_set(G, "Z", "Y") == set()
    assert ops.is_backdoor_adjustment_set(G, "X", "Y", {"Z"})
    assert not ops.is_backdoor_adjustment_set(G, "X", "Y", {"M"})  # a descendant of X
    assert not ops.is_backdoor_adjustment_set(G, "X", "Y", set())


def test_effect_kind():
    assert ops.effect_kind(G, "X", "Y") == "both"
    assert ops.effect_kind(G, "M", "Y") == "direct"
    assert ops.effect_kind(G, "Z", "M") == "indirect"
    assert ops.effect_kind(G, "Y", "X") == "none"


def test_unknown_names_raise():
    with pytest.raises(nx.NodeNotFound):
        ops.mediators(G, "X", "nope")
    with pytest.raises(nx.NodeNotFound):
        ops.d_separated(G, "X", "Y", ["nope"])


def _random_dag(n: int, p: float, seed: int) -> nx.DiGraph:
    rng = np.random.default_rng(seed)
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    for i, j in itertools.combinations(range(n), 2):
        if rng.random() < p:
            g.add_edge(i, j)
    return nx.relabel_nodes(g, {i: f"v{i}" for i in range(n)})


def _separated_by_moralisation(g, a, b, z):
    keep = {a, b} | z
    for n in list(keep):
        keep |= nx.ancestors(g, n)
    sub = g.subgraph(keep)
    moral = nx.Graph(sub.to_undirected())
    for child in sub:
        moral.add_edges_from(itertools.combinations(list(sub.predecessors(child)), 2))
    moral.remove_nodes_from(z)
    return not nx.has_path(moral, a, b)


@pytest.mark.parametrize("seed", range(6))
def test_d_separation_and_backdoor_agree_with_independent_checks(seed):
    g = _random_dag(9, 0.3, seed)
    rng = np.random.default_rng(seed)
    nodes = sorted(g)
    for _ in range(40):
        a, b = rng.choice(nodes, size=2, replace=False)
        rest = [n for n in nodes if n not in (a, b)]
        z = set(rng.choice(rest, size=int(rng.integers(0, 3)), replace=False))
        assert ops.d_separated(g, a, b, z) == _separated_by_moralisation(g, a, b, z)
        if nx.has_path(g, a, b):
            found = ops.backdoor_adjustment_set(g, a, b)
            assert found is not None and ops.is_backdoor_adjustment_set(g, a, b, found)
            # minimal: no member can be dropped
            for member in found:
                assert not ops.is_backdoor_adjustment_set(g, a, b, found - {member})
