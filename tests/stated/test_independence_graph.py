"""The graph steps of stated (in)dependences against brute force: d-separation against
networkx on every DAG over 3–4 nodes, and PC + Meek + the class's members against the
set of all labelled DAGs with the same d-separations."""

from __future__ import annotations

import itertools
from collections import defaultdict

import networkx as nx
import pytest

from causalqa.stated.independence_graph import (
    Dag,
    Relation,
    class_members,
    d_separated,
    independence_set,
    mask_of,
    pc,
    relation_holds,
)


def all_dags(n: int) -> list[nx.DiGraph]:
    pairs = list(itertools.combinations(range(n), 2))
    found = []
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):
        graph = nx.DiGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from((i, j) if c == 1 else (j, i) for (i, j), c in zip(pairs, choice) if c)
        if nx.is_directed_acyclic_graph(graph):
            found.append(graph)
    return found


def nx_independences(graph: nx.DiGraph) -> frozenset:
    n = graph.number_of_nodes()
    out = set()
    for x, y in itertools.combinations(range(n), 2):
        rest = [v for v in range(n) if v not in (x, y)]
        for size in range(len(rest) + 1):
            for given in itertools.combinations(rest, size):
                if nx.is_d_separator(graph, {x}, {y}, set(given)):
                    out.add((x, y, mask_of(given)))
    return frozenset(out)


DAGS = {n: all_dags(n) for n in (2, 3, 4)}
INDEPENDENCES = {n: [nx_independences(g) for g in DAGS[n]] for n in DAGS}


def test_the_numbers_of_labelled_dags_are_the_known_ones():
    # OEIS A003024: 1, 3, 25, 543 labelled DAGs on 1-4 nodes.
    assert [len(DAGS[n]) for n in (2, 3, 4)] == [3, 25, 543]


@pytest.mark.parametrize("n", [3, 4])
def test_d_separation_agrees_with_networkx_on_every_dag(n):
    for graph, expected in zip(DAGS[n], INDEPENDENCES[n]):
        dag = Dag.from_edges(n, graph.edges)
        assert independence_set(dag) == expected, sorted(graph.edges)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pc_and_the_class_members_equal_brute_force_enumeration(n):
    by_independences = defaultdict(set)
    for graph, found in zip(DAGS[n], INDEPENDENCES[n]):
        by_independences[found].add(frozenset(graph.edges))
    # 2, 11 and 185 Markov equivalence classes over 2, 3 and 4 labelled nodes.
    assert len(by_independences) == {2: 2, 3: 11, 4: 185}[n]
    for stated, brute_force in by_independences.items():
        pattern = pc(n, lambda x, y, given, s=stated: (x, y, given) in s)
        assert not pattern.conflicts
        members = class_members(pattern, limit=1000)
        assert {frozenset(m.edges) for m in members} == brute_force
        # The CPDAG: directed exactly where every member agrees.
        for a, b in itertools.permutations(range(n), 2):
            in_all = all((a, b) in m for m in brute_force)
            assert ((a, b) in pattern.directed) == in_all
        undirected = {
            frozenset(e)
            for m in brute_force
            for e in m
            if not all(e in other for other in brute_force)
        }
        assert pattern.undirected == undirected


def test_class_members_stops_at_the_limit():
    # The complete graph on 4 nodes: no independences, 4! = 24 members.
    pattern = pc(4, lambda x, y, given: False)
    assert len(class_members(pattern, limit=100)) == 24
    assert class_members(pattern, limit=10) is None


def test_conflicting_v_structures_are_reported():
    # A ⫫ C and B ⫫ D on the 4-cycle A–B–C–D–A: A→B←C and B→A←D orient A–B both ways.
    stated = {(0, 2, 0), (1, 3, 0)}
    pattern = pc(4, lambda x, y, given: (x, y, given) in stated)
    assert pattern.conflicts


# Relations on hand-made DAGs: 0 → 1 → 2, 0 → 2 and 3 → 1, 3 → 4.
DIAMOND = Dag.from_edges(5, [(0, 1), (1, 2), (0, 2), (3, 1), (3, 4)])


@pytest.mark.parametrize(
    ("relation", "a", "b", "expected"),
    [
        (Relation.PARENT, 0, 1, True),
        (Relation.PARENT, 1, 0, False),
        (Relation.CHILD, 1, 0, True),
        (Relation.CHILD, 0, 1, False),
        # 0 → 1 → 2 exists but so does the edge 0 → 2: not an ancestor in the paper's sense
        (Relation.ANCESTOR, 0, 2, False),
        (Relation.ANCESTOR, 3, 2, True),
        (Relation.ANCESTOR, 2, 3, False),
        (Relation.DESCENDANT, 2, 3, True),
        (Relation.DESCENDANT, 2, 0, False),
        (Relation.CAUSE, 0, 2, True),
        (Relation.CAUSE, 3, 2, True),
        (Relation.CAUSE, 2, 3, False),
        # 0 → 1 ← 3: a collider of 0 and 3; 0 → 2 ← 1: of 0 and 1 although they are adjacent
        (Relation.COLLIDER, 0, 3, True),
        (Relation.COLLIDER, 0, 1, True),
        (Relation.COLLIDER, 3, 4, False),
        # 3 → 1 and 3 → 4: 3 is a common cause of 1 and 4
        (Relation.CONFOUNDER, 1, 4, True),
        (Relation.CONFOUNDER, 4, 1, True),
        (Relation.CONFOUNDER, 0, 3, False),
        # 0 → 1 and 0 → 2: a common cause of 1 and 2 although 1 → 2
        (Relation.CONFOUNDER, 1, 2, True),
    ],
)
def test_relations_on_a_hand_made_dag(relation, a, b, expected):
    assert relation_holds(DIAMOND, relation, a, b) is expected


def test_d_separation_on_the_textbook_cases():
    chain = Dag.from_edges(3, [(0, 1), (1, 2)])
    fork = Dag.from_edges(3, [(1, 0), (1, 2)])
    collider = Dag.from_edges(4, [(0, 1), (2, 1), (1, 3)])
    assert not d_separated(chain, 0, 2, 0) and d_separated(chain, 0, 2, 0b10)
    assert not d_separated(fork, 0, 2, 0) and d_separated(fork, 0, 2, 0b10)
    assert d_separated(collider, 0, 2, 0)
    assert not d_separated(collider, 0, 2, 0b10)
    # conditioning on the collider's descendant opens it too
    assert not d_separated(collider, 0, 2, 0b1000)
