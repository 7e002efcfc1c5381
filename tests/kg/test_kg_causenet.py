"""`kg load causenet`: the CauseNet core (a few rows written here) read into a store of its
own — every edge with its support, one Concept per lemma, surface forms as aliases — and
each bad input refused with one clear error."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from causalqa.cli.kg import app
from causalqa.errors import KGFormatError, KGStoreError
from causalqa.kg import KnowledgeGraph
from causalqa.kg.loaders import read_causenet
from causalqa.kg.store import default_store, load_causenet, loaded_stores

HEADER = "Source\tTarget\tWeight_Source_Target\tAnnotation\n"
EDGES = [
    ("alcohol", "suicide", 9),
    ("alcohol", "depression", 82),
    ("depression", "suicide", 837),
    ("smoking", "lung_cancer", 300),
    ("lung_cancer", "death", 120),
    ("stress", "insomnia", 12),
    ("insomnia", "stress", 3),
    ("rain", "flood", 40),
    ("heat", "heat", 2),  # a self-loop: kept, as every edge is
    ("music", "dance", 5),
]
MAPPING = [
    ("lung_cancer", "lung_cancers"),
    ("lung_cancer", "lungs_cancer"),
    ("suicide", "suicides"),
    ("flood", "floods"),
    ("aid", "aids"),  # not a concept of the core: no alias
    ("rain", "Rain"),  # the node's own name, folded: the node wins
    ("dance", "music"),  # another node's name: the node wins
]


def write_causenet(folder, edges=EDGES, mapping=MAPPING, header=HEADER):
    folder.mkdir(parents=True, exist_ok=True)
    rows = "".join(f"{s}\t{t}\t{w}\tTBD\n" for s, t, w in edges)
    (folder / "core-raw.tsv").write_text(header + rows, encoding="utf-8")
    lines = "".join(f"{lemma}\t{surface}\n" for lemma, surface in mapping)
    (folder / "lem_mapping-precision.tsv").write_text("Lemmatized\tOriginal\n" + lines)
    return folder


@pytest.fixture
def causenet_dir(tmp_path):
    return write_causenet(tmp_path / "causenet-core")


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_read_keeps_every_edge_with_its_support_and_the_surface_forms(causenet_dir):
    data = read_causenet(causenet_dir)
    assert len(data.edges) == len(EDGES)  # the self-loop and both stress/insomnia edges too
    assert data.edge_properties == ["support"]
    support = {(s, t): w for s, t, w in data.edges[["source", "target", "support"]].values}
    assert support == {(s, t): w for s, t, w in EDGES}
    assert set(data.edges["relation"]) == {"CAUSES"}
    nodes = data.nodes.set_index("id")
    assert nodes.loc["lung_cancer", "name"] == "lung cancer"
    assert set(nodes["kind"]) == {"Concept"}
    aliases = dict(zip(data.aliases["name"], data.aliases["id"]))
    assert aliases == {
        "lung cancers": "lung_cancer",
        "lungs cancer": "lung_cancer",
        "suicides": "suicide",
        "floods": "flood",
    }
    assert data.source["format"] == "causenet" and "CC BY 4.0" in data.source["licence"]
    assert "Heindorf" in data.source["attribution"]


def test_store_of_its_own_with_support_and_aliases(causenet_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    assert default_store("causenet") == tmp_path / "home" / "kg" / "causenet"
    assert default_store("hetionet") == tmp_path / "home" / "kg" / "default"
    with load_causenet(causenet_dir) as kg:
        assert kg.path == default_store("causenet")
        assert kg.format == "causenet"
        assert kg.meta["edge_properties"] == ["support"] and kg.meta["aliases"] == 4
        rows = kg.cypher(
            "MATCH (a:Node {id: 'alcohol'})-[r:Rel]->(b:Node) RETURN b.id, r.support ORDER BY b.id"
        )
        assert rows == [["depression", 82], ["suicide", 9]]
        assert kg.stats()["edges"] == len(EDGES)
        # linking: the lemma with spaces, its case, its surface forms
        assert kg.link("lung cancer").best.node.id == "lung_cancer"
        assert kg.link("Lung Cancer").best.method == "normalized"
        linking = kg.link("lung cancers")
        assert (linking.best.node.id, linking.method) == ("lung_cancer", "alias")
        assert kg.link("suicides").best.node.id == "suicide"
        assert kg.link("music").best.node.id == "music"  # a name wins over an alias
    assert loaded_stores() == [default_store("causenet")]


def test_cli_load_says_what_it_loaded_and_never_overwrites(causenet_dir, tmp_path):
    store = tmp_path / "cn"
    result = invoke("load", "causenet", causenet_dir, "--store", store, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["nodes"], report["edges"], report["aliases"]) == (13, 10, 4)
    assert report["edge_properties"] == ["support"] and "CC BY 4.0" in report["attribution"]
    assert report["total_seconds"] >= report["read_seconds"] >= 0
    before = {p.name: p.read_bytes() for p in store.iterdir()}
    result = invoke("load", "causenet", causenet_dir, "--store", store)
    assert isinstance(result.exception, KGStoreError) and result.exit_code == 1
    assert "already exists" in result.exception.message and "--replace" in result.exception.hint
    assert {p.name: p.read_bytes() for p in store.iterdir()} == before
    write_causenet(causenet_dir, edges=EDGES[:3])
    result = invoke("load", "causenet", causenet_dir, "--store", store, "--replace")
    assert result.exit_code == 0, result.output
    assert "loaded 3 nodes and 3 edges" in result.stdout and "Heindorf" in result.stdout


BAD = {
    "wrong columns": dict(header="head\ttail\tweight\n"),
    "non-integer weight": dict(edges=[("a", "b", 2), ("b", "c", "2.5")]),
    "a word for a weight": dict(edges=[("a", "b", "many")]),
    "zero weight": dict(edges=[("a", "b", 0)]),
    "header only": dict(edges=[]),
    "an empty field": dict(edges=[("a", "", 3)]),
    "the same edge twice": dict(edges=[("a", "b", 3), ("a", "b", 4)]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_each_bad_input_is_one_clear_error(case, tmp_path):
    folder = write_causenet(tmp_path / "core", **BAD[case])
    with pytest.raises(KGFormatError) as caught:
        read_causenet(folder)
    error = caught.value
    assert "core-raw.tsv" in error.message, error.message
    expected = {
        "wrong columns": "expected the tab-separated columns Source, Target",
        "non-integer weight": "'2.5' is not a positive whole number",
        "a word for a weight": "'many' is not a positive whole number",
        "zero weight": "'0' is not a positive whole number",
        "header only": "no data rows",
        "an empty field": "missing or empty",
        "the same edge twice": "a → b appears twice",
    }[case]
    assert expected in error.message
    if case in ("non-integer weight", "the same edge twice"):
        assert error.line == 3  # the header is line 1
    result = invoke("load", "causenet", folder, "--store", tmp_path / "never")
    assert isinstance(result.exception, KGFormatError) and result.exit_code == 1
    assert not (tmp_path / "never").exists()


def test_missing_or_empty_files(tmp_path):
    with pytest.raises(KGFormatError, match="no such folder"):
        read_causenet(tmp_path / "nowhere")
    (tmp_path / "file.tsv").write_text(HEADER)
    with pytest.raises(KGFormatError, match="not a folder"):
        read_causenet(tmp_path / "file.tsv")
    folder = write_causenet(tmp_path / "core")
    (folder / "lem_mapping-precision.tsv").unlink()
    with pytest.raises(KGFormatError, match="no lem_mapping-precision.tsv") as caught:
        read_causenet(folder)
    assert "core-raw.tsv" in caught.value.hint  # says what the folder holds
    (folder / "core-raw.tsv").unlink()
    with pytest.raises(KGFormatError, match="no core-raw.tsv"):
        read_causenet(folder)
    folder = write_causenet(tmp_path / "empty")
    (folder / "core-raw.tsv").write_text("")
    with pytest.raises(KGFormatError, match="the file is empty"):
        read_causenet(folder)
    folder = write_causenet(tmp_path / "bad-mapping")
    (folder / "lem_mapping-precision.tsv").write_text("lemma\tsurface\nx\ty\n")
    with pytest.raises(KGFormatError, match="Lemmatized, Original"):
        read_causenet(folder)


def test_loaded_stores_lists_default_first(causenet_dir, tmp_path, monkeypatch):
    from tests.kg.conftest import random_graph

    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    assert loaded_stores() == []
    load_causenet(causenet_dir).close()
    KnowledgeGraph.build(random_graph()).close()  # the default store
    (tmp_path / "home" / "kg" / "not-a-store").mkdir()
    assert [p.name for p in loaded_stores()] == ["default", "causenet"]


def test_a_neo4j_server_gets_the_support_and_the_aliases(causenet_dir, monkeypatch):
    pytest.importorskip("neo4j", reason="the neo4j driver is not installed")
    from tests.kg.test_kg_bolt import URI, RecordingDriver

    made: list[RecordingDriver] = []
    monkeypatch.setattr(
        "neo4j.GraphDatabase.driver",
        lambda uri, auth=None: made.append(RecordingDriver(uri)) or made[-1],
    )
    result = invoke("load", "causenet", causenet_dir, "--store", URI, "--json")
    assert result.exit_code == 0, result.output
    sent = [(q, p) for d in made for q, p, _ in d.sent]
    edges = [p for q, p in sent if "CREATE (a)-[:Rel" in q]
    assert all("support: row.support" in q for q, _ in sent if "CREATE (a)-[:Rel" in q)
    assert {(r["source"], r["target"], r["support"]) for r in edges[0]["rows"]} == set(EDGES)
    assert all(type(r["support"]) is int for r in edges[0]["rows"])  # sent as a number
    aliases = [p for q, p in sent if q.startswith("UNWIND $rows AS row CREATE (:Alias")]
    assert {r["name"] for r in aliases[0]["rows"]} == {"lung cancers", "lungs cancer",
                                                        "suicides", "floods"}  # fmt: skip
