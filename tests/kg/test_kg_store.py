from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from causalqa.kg import (
    KGFormatError,
    KGStoreError,
    KnowledgeGraph,
    default_store,
    load_hetionet,
    read_hetionet,
)

from .conftest import EDGES, random_graph, write_hetionet

HETIONET = Path("/work/shared/data/hetionet")


def test_build_open_stats_and_cypher(tmp_path, hetionet_dir):
    store = tmp_path / "store"
    with load_hetionet(hetionet_dir, store) as kg:
        stats = kg.stats()
        assert stats["nodes"] == 8 and stats["edges"] == 6
        assert stats["kinds"]["Gene"] == 2
        assert {"relation": "binds", "abbrev": "CbG", "edges": 2} in stats["relations"]
        assert kg.node("Gene::2064").name == "ERBB2"
        rows = kg.cypher(
            "MATCH (c:Node {kind: 'Compound'})-[r:Rel]->(g:Node) RETURN g.name ORDER BY g.name"
        )
        assert [r[0] for r in rows] == ["ERBB2", "TXNRD1", "breast cancer"]
        assert {n.name for n, _, _ in kg.neighbours("Gene::2064")} >= {"Raloxifene", "melanoma"}
    # reopened from disk, read-only, by a second handle at once
    with KnowledgeGraph.open(store) as one, KnowledgeGraph.open(store) as two:
        assert one.stats()["edges"] == two.stats()["edges"] == 6
        assert one.meta["source"]["format"] == "hetionet"


def test_never_overwrites_silently(tmp_path, hetionet_dir):
    store = tmp_path / "store"
    load_hetionet(hetionet_dir, store).close()
    with pytest.raises(KGStoreError, match="already exists") as info:
        load_hetionet(hetionet_dir, store)
    assert "--replace" in info.value.hint
    with KnowledgeGraph.build(random_graph(), store, replace=True) as kg:
        assert kg.stats()["nodes"] == 36
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "store"]
    assert leftovers == ["hetionet"]


def test_replace_refuses_a_folder_that_is_not_a_store(tmp_path):
    folder = tmp_path / "precious"
    folder.mkdir()
    (folder / "thesis.txt").write_text("do not delete")
    with pytest.raises(KGStoreError, match="not a causalqa graph store"):
        KnowledgeGraph.build(random_graph(), folder, replace=True)
    assert (folder / "thesis.txt").exists()


def test_failed_load_keeps_the_old_store(tmp_path, hetionet_dir):
    store = tmp_path / "store"
    load_hetionet(hetionet_dir, store).close()
    bad = write_hetionet(tmp_path / "bad", edges=EDGES + "nope\tCbG\tGene::2064\n")
    with pytest.raises(KGFormatError):
        load_hetionet(bad, store, replace=True)
    with KnowledgeGraph.open(store) as kg:
        assert kg.stats()["edges"] == 6


def test_open_missing_store(tmp_path):
    with pytest.raises(KGStoreError, match="no knowledge graph store") as info:
        KnowledgeGraph.open(tmp_path / "none")
    assert "kg load" in info.value.hint


def test_default_store_follows_causalqa_home(tmp_path, monkeypatch, hetionet_dir):
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    assert default_store() == tmp_path / "home" / "kg" / "default"
    load_hetionet(hetionet_dir).close()
    with KnowledgeGraph.open() as kg:
        assert kg.path == tmp_path / "home" / "kg" / "default"


@pytest.mark.skipif(not (HETIONET / "edges-5k.sif.gz").exists(), reason="no shared Hetionet")
def test_hetionet_sample_loads_fast_and_finds_paths(tmp_path):
    started = time.perf_counter()
    kg = KnowledgeGraph.build(read_hetionet(HETIONET), tmp_path / "h")
    assert time.perf_counter() - started < 60
    with kg:
        assert kg.stats()["nodes"] == 47031 and kg.stats()["edges"] == 99676
        a = kg.resolve("raloxifene")
        b = kg.resolve("melanoma", kinds=["Disease"])
        paths = kg.paths(a, b, limit=10)
        assert len(paths) == 10 and paths[0].length == 2
        compound_gene_disease = kg.paths(a, b, types=["Compound", "Gene", "Disease"])
        assert compound_gene_disease and all(
            p.kinds == ("Compound", "Gene", "Disease") for p in compound_gene_disease
        )


@pytest.mark.skipif(not os.environ.get("NEO4J_URI"), reason="NEO4J_URI not set")
def test_neo4j_backend_same_answers(tmp_path):
    data = random_graph()
    neo = KnowledgeGraph.neo4j()
    try:
        neo.import_data(data, replace=True)
        with KnowledgeGraph.build(data, tmp_path / "store") as embedded:
            assert neo.stats()["kinds"] == embedded.stats()["kinds"]
            for a, b in [("N00", "N01"), ("N02", "N05")]:
                expected = embedded.paths(a, b, k=3, limit=None)
                assert neo.paths(a, b, k=3, limit=None, engine="cypher") == expected
                assert neo.paths(a, b, k=3, limit=None, engine="index") == expected
    finally:
        neo.close()
