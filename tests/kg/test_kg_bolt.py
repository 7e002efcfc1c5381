"""Commands that take a KG store also take a Neo4j server (``--store bolt://host:7687``).

No Neo4j server can be installed here (none on PyPI or in Debian), so the end-to-end test
skips unless ``NEO4J_URI`` points at one. Offline, the official driver is replaced twice:
a recording fake checks the Cypher each command sends, and an engine-backed stand-in runs
what the Neo4j backend sends — load, clear, the shared queries — verbatim on the embedded
Cypher engine (LadybugDB), answering only the Neo4j-only path query by Neo4j's matching
rules, so the backend is held to the embedded store's answers and its values are shown to
travel as parameters, never as query text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from causalqa.cli.kg import app
from causalqa.cli.options import open_kg
from causalqa.errors import KGStoreError
from causalqa.kg import GraphData, KnowledgeGraph
from causalqa.kg import store as kg_store
from causalqa.kg.paths import cypher_path_query

from .conftest import random_graph
from .test_kg_paths import PAIRS, nx_paths

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
    reason="no Neo4j server can be installed here (none on PyPI or in Debian); set "
    "NEO4J_URI=bolt://… (and NEO4J_USER, NEO4J_PASSWORD) to run against one",
)
def test_load_stats_paths_against_a_real_neo4j(tmp_path):
    uri = os.environ["NEO4J_URI"]
    triples = write_triples(tmp_path)
    result = runner.invoke(app, ["load", "triples", str(triples), "--store", uri, "--replace"])
    assert result.exit_code == 0, result.output
    stats = json.loads(runner.invoke(app, ["stats", "--store", uri, "--json"]).stdout)
    assert stats["backend"] == "neo4j" and stats["nodes"] > 0


# -- the Neo4j backend's Cypher, run on a Cypher engine ------------------------------------
CONSTRAINT = "CREATE CONSTRAINT causalqa_node_id IF NOT EXISTS"
PATH_QUERIES = {cypher_path_query("neo4j", n): n for n in range(1, 7)}


class EngineDriver:
    """The official driver's stand-in that runs what the Neo4j backend sends on a real
    Cypher engine: each statement, its text and parameters unchanged, on a writable
    embedded LadybugDB (the shared queries and the backend's own load, clear and
    is-empty statements run there verbatim). Two Neo4j-only pieces are not sent there:
    the uniqueness constraint (the Node table's primary key holds it) and the
    variable-length path query, whose list comprehensions LadybugDB lacks; that one is
    answered with Neo4j's matching rules computed here from the edges the engine holds —
    each relationship at most once in a path, nodes free to repeat, either direction —
    in the rows its RETURN lists (ids, names, kinds, relations, abbreviations, each
    relationship's startNode id, ids)."""

    def __init__(self, conn, sent):
        self.conn, self.sent = conn, sent

    def verify_connectivity(self):
        pass

    def execute_query(self, query, params=None, database_=None):
        params = dict(params or {})
        self.sent.append((query, params, database_))
        if query.startswith(CONSTRAINT):
            return [], None, []
        if query in PATH_QUERIES:
            rows = self._paths(PATH_QUERIES[query], params["a"], params["b"])
            return [Record(r) for r in rows], None, [f"c{i}" for i in range(7)]
        rows, keys = self._run(query, params)
        return [Record(r) for r in rows], None, keys

    def _paths(self, length, a, b):
        nodes = {i: (n, k) for i, n, k in self._run(kg_store.Q_NODES)[0]}
        edges = self._run(kg_store.Q_EDGES)[0]  # source, target, relation, abbrev
        around: dict[str, list[tuple[int, str]]] = {}
        for e, (s, t, _, _) in enumerate(edges):
            around.setdefault(s, []).append((e, t))
            if t != s:
                around.setdefault(t, []).append((e, s))
        rows = []

        def walk(ids, used):
            if len(used) == length:
                if ids[-1] == b:
                    chosen = [edges[e] for e in used]
                    rows.append(
                        [ids, [nodes[i][0] for i in ids], [nodes[i][1] for i in ids]]
                        + [[e[2] for e in chosen], [e[3] for e in chosen]]
                        + [[e[0] for e in chosen], list(ids)]
                    )
                return
            for e, other in around.get(ids[-1], []):
                if e not in used:
                    walk(ids + [other], used + [e])

        if a in nodes and b in nodes:
            walk([a], [])
        return rows

    def _run(self, query, params=None):
        result = self.conn.execute(query, params or {})
        rows = []
        while result.has_next():
            rows.append(result.get_next())
        return rows, result.get_column_names()

    def close(self):
        pass


@pytest.fixture
def engines(monkeypatch, tmp_path):
    """`engines()` starts a fresh engine database that every driver made from then on
    talks to, and returns the list of (query, parameters, database) sent to it."""
    started = []

    def start():
        backend = kg_store.LadybugBackend(tmp_path / f"neo4j-{len(started)}.lbug", read_only=False)
        started.append(backend)
        backend.run(kg_store.SCHEMA_NODES)
        backend.run(kg_store.SCHEMA_RELS)
        sent: list[tuple[str, dict, str | None]] = []
        monkeypatch.setattr(
            neo4j.GraphDatabase, "driver", lambda uri, auth=None: EngineDriver(backend._conn, sent)
        )
        return sent

    monkeypatch.delenv("NEO4J_DATABASE", raising=False)
    yield start
    for backend in started:
        backend.close()


def test_the_neo4j_backend_loads_and_answers_like_the_embedded_store(engines, tmp_path):
    """Offline twin of the live test: load through the Neo4j backend's UNWIND batches,
    then stats, nodes, neighbours and paths (both engines) as the embedded store gives
    them, on a graph with parallel edges, opposite twins and a self-loop; a second load
    refused, then done with replace (the batched DETACH DELETE)."""
    sent = engines()
    data = random_graph()
    neo = KnowledgeGraph.neo4j(URI)
    neo.backend.batch = 50  # several batches
    neo.import_data(data)
    creates = [q for q, _, _ in sent if q.startswith("UNWIND $rows AS row CREATE (:Node")]
    assert len(creates) == -(-len(data.nodes) // 50)
    with KnowledgeGraph.build(data, tmp_path / "store") as embedded:
        counts = ("nodes", "edges", "kinds", "relations")
        assert {c: neo.stats()[c] for c in counts} == {c: embedded.stats()[c] for c in counts}
        assert neo.node("N03") == embedded.node("N03")
        assert neo.neighbours("N00", limit=1000) == embedded.neighbours("N00", limit=1000)
        for a, b in PAIRS:
            expected = nx_paths(data, a, b, 3)
            assert embedded.paths(a, b, k=3, limit=None) == expected
            assert neo.paths(a, b, k=3, limit=None) == expected  # cypher, Neo4j's default
            assert neo.paths(a, b, k=3, limit=None, engine="index") == expected
        assert neo.paths("N00", "N01", k=4, limit=5) == nx_paths(data, "N00", "N01", 4)[:5]
        assert neo.paths("N03", "N03", k=2) == []
    with pytest.raises(KGStoreError, match="already holds"):
        neo.import_data(data)
    other = random_graph(seed=8)
    neo.import_data(other, replace=True)
    assert neo.stats()["edges"] == len(other.edges) and neo.stats()["nodes"] == len(other.nodes)
    assert neo.paths("N02", "N05", k=3, limit=None) == nx_paths(other, "N02", "N05", 3)


HOSTILE = [
    "x'}) DETACH DELETE n //",
    'q"} RETURN 1 //',
    "$a",
    "back\\slash",
    "two\nlines",
    "{id: 'N00'}",
    "é 漢字 🙂",
]


def _chain(ids: list[str]) -> GraphData:
    """One path through `ids`; names, kinds and relations made from them."""
    nodes = pd.DataFrame(
        {"id": ids, "name": [f"name {i}" for i in ids], "kind": [f"kind {i}" for i in ids]}
    )
    edges = pd.DataFrame(
        {
            "source": ids[:-1],
            "target": ids[1:],
            "relation": [f"rel {i}" for i in ids[:-1]],
            "abbrev": [i[:3] for i in ids[:-1]],
        }
    )
    return GraphData(nodes, edges, source={"format": "chain"})


def _use(data: GraphData) -> None:
    """Load `data`, a chain, through the Neo4j backend and read it back every way."""
    ids = data.nodes["id"].tolist()
    neo = KnowledgeGraph.neo4j(URI)
    neo.import_data(data)
    assert (
        neo.nodes()
        .sort_values("id", ignore_index=True)
        .equals(data.nodes.sort_values("id", ignore_index=True))
    )
    for i in ids:
        assert neo.node(i).name == f"name {i}" and neo.resolve(i).id == i
    (path,) = neo.paths(ids[0], ids[-1], k=len(ids) - 1, limit=None)
    assert [n.id for n in path.nodes] == ids
    assert [s.relation for s in path.steps] == [f"rel {i}" for i in ids[:-1]]
    assert {n.id for n, _, _ in neo.neighbours(ids[1])} == {ids[0], ids[2]}
    assert neo.stats()["nodes"] == len(ids)


def test_names_and_ids_are_parameters_never_query_text(engines):
    """Ids, names, kinds and relations that would break or rewrite a query they were
    pasted into go in and come back unchanged; the statements sent for them are the very
    texts sent for plain ones, the values only in the parameters."""
    hostile = engines()
    _use(_chain(HOSTILE))
    plain = engines()
    _use(_chain([f"N{i}" for i in range(len(HOSTILE))]))
    assert [q for q, _, _ in hostile] == [q for q, _, _ in plain]
    for query, _, _ in hostile:
        assert not any(h in query for h in HOSTILE if h != "$a"), query  # $a: a parameter
    a, b = HOSTILE[0], HOSTILE[-1]
    assert [p for q, p, _ in hostile if q in PATH_QUERIES] == [{"a": a, "b": b}] * 6
    assert {"id": HOSTILE[1], "limit": 100} in [p for q, p, _ in hostile]
    rows = [r for q, p, _ in hostile if q.startswith("UNWIND") for r in p["rows"]]
    assert {r.get("id") for r in rows} >= set(HOSTILE)
