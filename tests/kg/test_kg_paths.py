from __future__ import annotations

import networkx as nx
import pytest

from causalqa.kg import EntityNotFoundError, KGError, KGPath, Node, PathIndex, Step, verbalise

from .conftest import random_graph


def nx_paths(data, a: str, b: str, k: int) -> list[KGPath]:
    """Reference: every simple path up to k edges by networkx, as `KGPath`s, sorted."""
    graph = nx.MultiGraph()
    nodes = {r.id: Node(r.id, r.name, r.kind) for r in data.nodes.itertuples()}
    graph.add_nodes_from(nodes)
    for e in data.edges.itertuples():
        graph.add_edge(e.source, e.target, key=(e.source, e.relation, e.abbrev), src=e.source)
    result = []
    for edge_path in nx.all_simple_edge_paths(graph, a, b, cutoff=k):
        walk, steps = [a], []
        for u, v, key in edge_path:
            src, relation, abbrev = key
            steps.append(Step(relation, abbrev, forward=src == u))
            walk.append(v)
        result.append(KGPath(tuple(nodes[n] for n in walk), tuple(steps)))
    return sorted(result, key=KGPath.sort_key)


PAIRS = [("N00", "N01"), ("N02", "N05"), ("N07", "N20"), ("N11", "N04"), ("N30", "N09")]


@pytest.mark.parametrize(("a", "b"), PAIRS)
@pytest.mark.parametrize("engine", ["index", "cypher"])
def test_same_path_sets_as_networkx(small_kg, small_data, engine, a, b):
    expected = nx_paths(small_data, a, b, 3)
    got = small_kg.paths(a, b, k=3, limit=None, engine=engine)
    assert got == expected  # same paths, same order
    assert len(got) > 0
    assert [p.length for p in got] == sorted(p.length for p in got)


def test_four_hops_index_matches_networkx(small_kg, small_data):
    for a, b in PAIRS[:3]:
        assert small_kg.paths(a, b, k=4, limit=None) == nx_paths(small_data, a, b, 4)


def test_direction_and_parallel_edges(small_kg):
    direct = [p for p in small_kg.paths("N00", "N01", k=1, limit=None)]
    labels = [(p.steps[0].relation, p.steps[0].forward) for p in direct]
    # N00-binds->N01, N00-treats->N01 and N01-binds->N00 are three distinct one-hop paths
    assert ("binds", True) in labels and ("binds", False) in labels and ("treats", True) in labels
    back = next(p for p in direct if not p.steps[0].forward)
    assert back.verbalise() == "Compound node 0 <-binds- Gene node 1"


def test_caps_are_a_stable_prefix(small_kg):
    full = small_kg.paths("N02", "N05", k=4, limit=None)
    for engine in ("index", "cypher"):
        capped = small_kg.paths("N02", "N05", k=4, limit=7, engine=engine)
        assert capped == full[:7]
    assert small_kg.paths("N02", "N05", k=4, limit=7) == small_kg.paths("N02", "N05", limit=7)


def test_type_filter(small_kg, small_data):
    types = ["Compound", "Gene", "Disease", "Gene"]
    a, b = "N00", "N01"
    expected = [p for p in nx_paths(small_data, a, b, 3) if list(p.kinds) == types]
    for engine in ("index", "cypher"):
        got = small_kg.paths(a, b, types=types, limit=None, engine=engine)
        assert got == expected
    wild = small_kg.paths(a, b, types=["Compound", "*", "*", "Gene"], limit=None)
    assert wild == [p for p in nx_paths(small_data, a, b, 3) if p.length == 3]
    assert small_kg.paths(a, b, types=["Disease", "Gene"], limit=None) == []  # wrong end type
    assert small_kg.paths(a, b, types=["Compound", "Planet", "Gene"], limit=None) == []


def test_no_path_and_unknown_entity(small_kg):
    assert small_kg.paths("N00", "N35", k=4) == []  # N35 is isolated
    assert small_kg.paths("N00", "N35", k=4, engine="cypher") == []
    assert small_kg.paths("N00", "N00") == []
    with pytest.raises(EntityNotFoundError, match="no node with id 'nope'"):
        small_kg.paths("N00", "nope")


def test_bad_arguments(small_kg):
    with pytest.raises(KGError, match="limit"):
        small_kg.paths("N00", "N01", limit=0)
    with pytest.raises(KGError, match="k"):
        small_kg.paths("N00", "N01", k=0)
    with pytest.raises(KGError, match="two types"):
        small_kg.paths("N00", "N01", types=["Compound"])
    with pytest.raises(KGError, match="engine"):
        small_kg.paths("N00", "N01", engine="magic")


def test_index_from_frames_equals_store_index(small_kg, small_data):
    index = PathIndex(small_data.nodes, small_data.edges)
    for a, b in PAIRS:
        assert index.paths(a, b, k=3, limit=None) == small_kg.paths(a, b, k=3, limit=None)


def test_verbalise_both_ways_of_eq7():
    nodes = (
        Node("G1", "FGF6", "Gene"),
        Node("A1", "tendon", "Anatomy"),
        Node("G2", "SDRDL", "Gene"),
    )
    steps = (Step("expresses", "AeG", False), Step("expresses", "AeG", True))
    path = KGPath(nodes, steps)
    assert verbalise(path) == (
        "Gene FGF6 <-expresses- Anatomy tendon, Anatomy tendon -expresses-> Gene SDRDL"
    )
    assert path.verbalise(directed=False) == (
        "Gene FGF6 -expresses-> Anatomy tendon, Anatomy tendon -expresses-> Gene SDRDL"
    )
    assert path.verbalise(types=False, relations=False) == "FGF6 - tendon - SDRDL"
    assert path.verbalise(types=False, relations=False, sep=" → ") == "FGF6 → tendon → SDRDL"
    assert path.verbalise(types=False) == "FGF6 <-expresses- tendon -expresses-> SDRDL"
    assert path.verbalise(relations=False) == "Gene FGF6 - Anatomy tendon - Gene SDRDL"
    assert path.metapath == "Gene<-expresses-Anatomy-expresses-Gene"


def test_record_matches_path_to_causality_shape():
    path = KGPath(
        (
            Node("Compound::DB00207", "Azithromycin", "Compound"),
            Node("Side Effect::C1", "Hearing impaired", "Side Effect"),
            Node("Gene::1", "G", "Gene"),
            Node("Gene::2", "H", "Gene"),
        ),
        (
            Step("causes", "CcSE", True),
            Step("causes", "CcSE", False),
            Step("regulates", "Gr>G", True),
        ),
    )
    record = path.to_record()
    assert record["stops"] == "Azithromycin - Hearing impaired - G - H"
    assert record["reltypes"] == "CAUSES_CcSE - CAUSES_CcSE - REGULATES_GrG"
    assert record["nodelabels"] == "Compound - SideEffect - Gene - Gene"
    assert record["directions"] == ["forward", "backward", "forward"]
    with pytest.raises(ValueError):
        KGPath(path.nodes, path.steps[:1])


def test_bigger_random_graph_index_vs_networkx():
    data = random_graph(seed=3, n=60, m=260)
    index = PathIndex(data.nodes, data.edges)
    for a, b in [("N01", "N02"), ("N10", "N40"), ("N05", "N33")]:
        assert index.paths(a, b, k=3, limit=None) == nx_paths(data, a, b, 3)
