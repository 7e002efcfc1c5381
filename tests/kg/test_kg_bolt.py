"""Commands that take a KG store also take a Neo4j server (``--store bolt://host:7687``).

No Neo4j server can run here (it needs a JVM server), so the end-to-end test skips unless
``NEO4J_URI`` points at one; the contract test runs every command against a recording
fake of the official driver and checks the Cypher each one sends."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from causalqa.cli.kg import app
from causalqa.cli.options import open_kg
from causalqa.kg import store as kg_store
from causalqa.kg.paths import cypher_path_query

neo4j = pytest.importorskip("neo4j", reason="the neo4j driver is not installed")

runner = CliRunner()
URI = "bolt://graph.example:7687"


class Record:
    def __init__(self, values):
        self._values = list(values)

    def values(self):
        return list(self._values)


class RecordingDriver:
    """Answers like a Neo4j holding Raloxifene -treats-> melanoma; records every query."""

    NODES = [["C1", "Raloxifene", "Compound"], ["D1", "melanoma", "Disease"]]
    loaded = False

    def __init__(self, uri, auth=None):
        self.uri, self.auth = uri, auth
        self.sent: list[tuple[str, dict, str | None]] = []

    def verify_connectivity(self):
        pass

    def execute_query(self, query, params=None, database_=None):
        self.sent.append((query, params or {}, database_))
        rows, keys = [], []
        if query == kg_store.Q_KINDS:
            rows = [["Compound", 1], ["Disease", 1]]
        elif query == kg_store.Q_RELATIONS:
            rows = [["treats", "CtD", 1]]
        elif query == kg_store.Q_NODES:
            rows, keys = self.NODES, ["id", "name", "kind"]
        elif query == kg_store.Q_NODE:
            rows = [n for n in self.NODES if n[0] == params["id"]]
        elif query == cypher_path_query("neo4j", 1):
            ids = ["C1", "D1"]
            rows = [[ids, ["Raloxifene", "melanoma"], ["Compound", "Disease"], ["treats"]]]
            rows[0] += [["CtD"], ["C1"], ids]
        elif query.startswith("MATCH (n:Node) RETURN n.id LIMIT 1"):
            rows = [["C1"]] if self.loaded else []
        return [Record(r) for r in rows], None, keys

    def close(self):
        pass


@pytest.fixture
def driver(monkeypatch):
    made: list[RecordingDriver] = []

    def factory(uri, auth=None):
        made.append(RecordingDriver(uri, auth))
        return made[-1]

    monkeypatch.setattr(neo4j.GraphDatabase, "driver", factory)
    monkeypatch.setenv("NEO4J_USER", "reader")
    monkeypatch.setenv("NEO4J_PASSWORD", "secret")
    monkeypatch.setenv("NEO4J_DATABASE", "graphs")
    return made


def write_triples(folder: Path) -> Path:
    path = folder / "triples.tsv"
    path.write_text("head\trelation\ttail\nRaloxifene\ttreats\tmelanoma\nERBB2\tbinds\tmelanoma\n")
    return path


def queries(driver) -> list[str]:
    return [q for d in driver for q, _, _ in d.sent]


def test_a_bolt_uri_is_recognised_even_after_pathlib_folded_it():
    assert kg_store.neo4j_uri("bolt://h:7687") == "bolt://h:7687"
    assert kg_store.neo4j_uri(Path("bolt://h:7687")) == "bolt://h:7687"  # Path made it bolt:/
    assert kg_store.neo4j_uri(Path("neo4j+s://h")) == "neo4j+s://h"
    assert kg_store.neo4j_uri("kg/store") is None and kg_store.neo4j_uri(None) is None


def test_stats_sends_the_shared_cypher_with_credentials_from_the_environment(driver):
    result = runner.invoke(app, ["stats", "--store", URI, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["kinds"] == {"Compound": 1, "Disease": 1}
    (d,) = driver
    assert d.uri == URI and d.auth == ("reader", "secret")
    assert queries(driver) == [kg_store.Q_KINDS, kg_store.Q_RELATIONS]
    assert {db for _, _, db in d.sent} == {"graphs"}


def test_paths_link_names_and_walk_with_variable_length_cypher(driver):
    result = runner.invoke(app, ["paths", "raloxifene", "D1", "--kg", URI, "--k", "2", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["count"] == 1 and out["paths"][0]["text_plain"] == "Raloxifene - melanoma"
    sent = queries(driver)
    assert sent[0] == kg_store.Q_NODES  # linking reads the node table once
    assert sent[-2:] == [cypher_path_query("neo4j", 1), cypher_path_query("neo4j", 2)]
    assert [p for q, p, _ in driver[0].sent if q == cypher_path_query("neo4j", 1)] == [
        {"a": "C1", "b": "D1"}
    ]


def test_load_creates_the_constraint_and_unwinds_batches_and_refuses_to_replace(driver, tmp_path):
    triples = write_triples(tmp_path)
    result = runner.invoke(app, ["load", "triples", str(triples), "--store", URI, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["store"] == URI
    sent = queries(driver)
    assert sent[0].startswith("MATCH (n:Node) RETURN n.id LIMIT 1")  # is it empty?
    assert sent[1].startswith("CREATE CONSTRAINT causalqa_node_id IF NOT EXISTS")
    assert sent[2].startswith("UNWIND $rows AS row CREATE (:Node")
    assert sent[3].startswith("UNWIND $rows AS row MATCH (a:Node {id: row.source})")
    rows = next(p for q, p, _ in driver[0].sent if q.startswith("UNWIND $rows AS row CREATE"))
    assert {"id", "name", "kind"} <= set(rows["rows"][0])

    RecordingDriver.loaded = True  # the server now holds a graph
    try:
        result = runner.invoke(app, ["load", "triples", str(triples), "--store", URI])
    finally:
        RecordingDriver.loaded = False
    assert result.exit_code != 0 and "already holds" in str(result.exception)


def test_open_kg_routes_uris_to_neo4j_and_folders_to_the_embedded_store(driver, tmp_path):
    with open_kg(Path(URI)) as kg:
        assert kg.backend.dialect == "neo4j"
    with pytest.raises(Exception, match="no knowledge graph store"):
        open_kg(tmp_path / "nothing")


@pytest.mark.skipif(
    not os.environ.get("NEO4J_URI"),
    reason="no Neo4j server can run here (it needs a JVM server); set NEO4J_URI=bolt://… "
    "(and NEO4J_USER, NEO4J_PASSWORD) to run against one",
)
def test_load_stats_paths_against_a_real_neo4j(tmp_path):
    uri = os.environ["NEO4J_URI"]
    triples = write_triples(tmp_path)
    result = runner.invoke(app, ["load", "triples", str(triples), "--store", uri, "--replace"])
    assert result.exit_code == 0, result.output
    stats = json.loads(runner.invoke(app, ["stats", "--store", uri, "--json"]).stdout)
    assert stats["backend"] == "neo4j" and stats["nodes"] > 0
