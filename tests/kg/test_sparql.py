"""The SPARQL backend, offline.

An embedded pyoxigraph store holds an RDF sample built here from the path-to-causality
test subgraphs: the Hetionet-shaped records (ADE, COMAGC, GENE) as plain RDF (rdfs:label,
rdf:type, one predicate per relation), the Wikidata-shaped SemEval records as Wikidata's
RDF (wd:Q…, wdt:P…, property labels through wikibase:directClaim). Paths are held to
networkx's over the same triples; the real HTTP client talks to a real SPARQL server, an
Oxigraph process on loopback holding the same sample (``pip install oxigraph``; those tests
skip without it), and to a stand-in for what no real server does on demand (broken or slow
answers); bad input must give one clear error.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import shlex
import shutil
import socket
import subprocess
import sysconfig
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from causalqa import config
from causalqa.cli.kg import app
from causalqa.errors import EntityNotFoundError, KGBackendError, KGError, KGStoreError
from causalqa.kg import GraphData, KnowledgeGraph
from causalqa.kg.sparql import (
    GENERIC,
    RDF,
    RDFS,
    SKOS,
    USER_AGENT,
    WD,
    WDT,
    WIKIBASE,
    WIKIDATA,
    WIKIDATA_URL,
    HttpEndpoint,
    SparqlKnowledgeGraph,
    StoreEndpoint,
    parse_results,
    sparql_iri,
    sparql_literal,
    sparql_location,
)

from .test_kg_paths import nx_paths

ox = pytest.importorskip("pyoxigraph", reason="pyoxigraph is not installed")

DATA = config.data_dir() / "path-to-causality"
pytestmark = pytest.mark.skipif(
    not (DATA / "ade" / "test_truth.jsonl").is_file(), reason="shared path-to-causality data absent"
)
EX = "http://example.org/causalqa/"
RECORDS_PER_SET = 6
runner = CliRunner()


# -- the sample ----------------------------------------------------------------------------
@dataclass
class Sample:
    """RDF triples for the store and the same graph as a `GraphData` (ids as the SPARQL
    graph writes them) for networkx; `walks` are the metapaths the sample came from (ids,
    reltypes) and `aliases` the alternative labels added."""

    triples: list = field(default_factory=list)
    nodes: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (name, kind)
    edges: set[tuple[str, str, str]] = field(default_factory=set)  # (source, target, rel)
    walks: list[tuple[list[str], list[str]]] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)  # alias -> id

    def data(self) -> GraphData:
        nodes = pd.DataFrame(
            [(i, n, k) for i, (n, k) in sorted(self.nodes.items())], columns=["id", "name", "kind"]
        )
        edges = pd.DataFrame(
            [(s, t, r, "") for s, t, r in sorted(self.edges)],
            columns=["source", "target", "relation", "abbrev"],
        )
        return GraphData(nodes, edges, source={"format": "sample"})

    def store(self):
        store = ox.Store()
        store.extend(ox.Quad(s, p, o) for s, p, o in self.triples)
        return store


def _records(name: str) -> list[dict]:
    lines = (DATA / name / "test_truth.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:RECORDS_PER_SET]]


def _abbrev(kind: str) -> str:
    return "".join(ch for ch in kind if ch.isupper())


def _forward(reltype: str, left: str, right: str) -> bool:
    """Whether Hetionet's metaedge (``ASSOCIATES_DaG``) points from `left` to `right`."""
    edge = reltype.rsplit("_", 1)[-1].replace(">", "")
    a, b = _abbrev(left), _abbrev(right)
    if edge.startswith(a) and edge.endswith(b):
        return True
    return not (edge.startswith(b) and edge.endswith(a))


def hetionet_sample() -> Sample:
    """ADE, COMAGC and GENE subgraphs as plain RDF: an entity per (kind, name)."""
    sample = Sample()
    label, kind_of = ox.NamedNode(RDFS + "label"), ox.NamedNode(RDF + "type")
    for data_set in ("ade", "comagc", "gene"):
        for record in _records(data_set):
            for meta in record["metapaths"]:
                stops, rels = meta["stops"].split(" - "), meta["reltypes"].split(" - ")
                kinds = meta["nodelabels"].split(" - ")
                if not (len(stops) == len(kinds) == len(rels) + 1) or not all(rels):
                    continue
                ids = [f"{EX}entity/{quote(k)}/{quote(s, safe='')}" for s, k in zip(stops, kinds)]
                for i, stop, kind in zip(ids, stops, kinds):
                    if i not in sample.nodes:
                        sample.nodes[i] = (stop, kind)
                        klass = ox.NamedNode(f"{EX}kind/{kind}")
                        sample.triples += [
                            (ox.NamedNode(i), label, ox.Literal(stop, language="en")),
                            (ox.NamedNode(i), kind_of, klass),
                            (klass, label, ox.Literal(kind)),
                        ]
                for x, y, rel, kx, ky in zip(ids, ids[1:], rels, kinds, kinds[1:]):
                    s, t = (x, y) if _forward(rel, kx, ky) else (y, x)
                    predicate = ox.NamedNode(f"{EX}rel/{rel}")
                    sample.edges.add((s, t, rel))
                    sample.triples += [
                        (ox.NamedNode(s), predicate, ox.NamedNode(t)),
                        (predicate, label, ox.Literal(rel, language="en")),
                        (predicate, label, ox.Literal(f"!{rel}")),  # untagged: sorts first
                    ]
                sample.walks.append((ids, rels))
    isotretinoin = f"{EX}entity/Compound/Isotretinoin"
    assert isotretinoin in sample.nodes  # ADE's first record
    sample.aliases["Accutane"] = isotretinoin
    node = ox.NamedNode(isotretinoin)
    sample.triples += [
        (node, ox.NamedNode(SKOS + "altLabel"), ox.Literal("Accutane", language="en")),
        # an English label is preferred to an untagged one (which sorts first), and a
        # label in another language is never the name
        (node, label, ox.Literal("ISOTRETINOIN (untagged)")),
        (node, label, ox.Literal("Isotretinoin (de)", language="de")),
    ]
    return sample


def wikidata_sample() -> Sample:
    """SemEval's Wikidata subgraphs as Wikidata's RDF; kinds come from P31 edges."""
    sample = Sample()
    label = ox.NamedNode(RDFS + "label")
    names: dict[str, set[str]] = {}
    for record in _records("semeval"):
        for meta in record["metapaths"]:
            stops, rels = meta["stops"].split(" - "), meta["reltypes"].split(" - ")
            qids = meta.get("stops_id", "").split(" - ")
            pids = meta.get("reltypes_id", "").split(" - ")
            if not (len(stops) == len(qids) == len(rels) + 1 == len(pids) + 1) or not all(pids):
                continue
            for qid, stop in zip(qids, stops):
                names.setdefault(qid, set()).add(stop)
                sample.triples.append(
                    (ox.NamedNode(WD + qid), label, ox.Literal(stop, language="en"))
                )
            for s, t, rel, pid in zip(qids, qids[1:], rels, pids):
                sample.edges.add((f"wd:{s}", f"wd:{t}", rel))
                sample.triples += [
                    (ox.NamedNode(WD + s), ox.NamedNode(WDT + pid), ox.NamedNode(WD + t)),
                    (
                        ox.NamedNode(WD + pid),
                        ox.NamedNode(WIKIBASE + "directClaim"),
                        ox.NamedNode(WDT + pid),
                    ),
                    (ox.NamedNode(WD + pid), label, ox.Literal(rel, language="en")),
                    # a label in another language must not be chosen
                    (ox.NamedNode(WD + pid), label, ox.Literal(f"[{rel}]", language="de")),
                ]
            sample.walks.append(([f"wd:{q}" for q in qids], rels))
    for qid, labels in names.items():
        types = sorted(
            min(names[t.removeprefix("wd:")])
            for s, t, r in sample.edges
            if s == f"wd:{qid}" and r == "instance of"
        )
        sample.nodes[f"wd:{qid}"] = (min(labels), types[0] if types else "Entity")
    return sample


@pytest.fixture(scope="module")
def hetionet():
    return hetionet_sample()


@pytest.fixture(scope="module")
def wikidata():
    return wikidata_sample()


@pytest.fixture(scope="module")
def kg(hetionet):
    return SparqlKnowledgeGraph.from_store(hetionet.store())


@pytest.fixture(scope="module")
def wkg(wikidata):
    return SparqlKnowledgeGraph.from_store(wikidata.store(), vocabulary=WIKIDATA)


def _pairs(sample: Sample, n: int, most: int = 3) -> list[tuple[str, str]]:
    """Ends of the first `n` distinct walks of at most `most` hops (a path exists)."""
    found = []
    for ids, _ in sample.walks:
        pair = (ids[0], ids[-1])
        if len(ids) - 1 <= most and ids[0] != ids[-1] and pair not in found:
            found.append(pair)
    return found[:n]


# -- paths ---------------------------------------------------------------------------------
def test_the_sample_is_big_enough(hetionet, wikidata):
    assert len(hetionet.nodes) > 100 and len(hetionet.edges) > 150
    assert len({r for _, _, r in hetionet.edges}) >= 5
    assert len(wikidata.nodes) > 40 and len(wikidata.edges) > 40
    # both directions occur, so walking against an edge is exercised
    assert any(not _forward(r, "Gene", "Disease") for _, _, r in hetionet.edges)


def test_paths_equal_networkx(kg, hetionet):
    data = hetionet.data()
    pairs = _pairs(hetionet, 8)
    assert len(pairs) == 8
    for a, b in pairs:
        expected = nx_paths(data, a, b, 3)
        got = kg.paths(a, b, k=3, limit=None)
        assert got == expected  # the same paths in the same order
        assert got and not kg.truncated
    a, b = pairs[0]
    assert kg.paths(a, b, k=4, limit=None) == nx_paths(data, a, b, 4)
    # near pairs, where walks that revisit a node exist and must be left out
    near = [(s, t) for s, t, _ in sorted(hetionet.edges) if s != t][:3]
    near += [p for p in _pairs(hetionet, 40, most=2) if p not in near][:2]
    for a, b in near:
        expected = nx_paths(data, a, b, 4)
        assert kg.paths(a, b, k=4, limit=None) == expected
        assert any(p.length == 1 for p in expected) or any(p.length == 2 for p in expected)


def test_wikidata_shaped_paths_equal_networkx(wkg, wikidata):
    data = wikidata.data()
    pairs = _pairs(wikidata, 6)
    assert len(pairs) == 6
    for a, b in pairs:
        got = wkg.paths(a, b, k=3, limit=None)
        assert got == nx_paths(data, a, b, 3)
        assert got and all(n.id.startswith("wd:Q") for p in got for n in p.nodes)
        # relations are the property labels in English, never the German ones
        assert not any(s.relation.startswith("[") for p in got for s in p.steps)


def test_the_sample_paths_come_back(kg, hetionet):
    for ids, rels in hetionet.walks[:25]:
        if len(ids) - 1 > 3 or ids[0] == ids[-1] or len(set(ids)) < len(ids):
            continue
        got = kg.paths(ids[0], ids[-1], k=len(rels), limit=None)
        walks = {(tuple(n.id for n in p.nodes), tuple(s.relation for s in p.steps)) for p in got}
        assert (tuple(ids), tuple(rels)) in walks
        record = next(p for p in got if [n.id for n in p.nodes] == ids).to_record()
        assert record["reltypes"] == " - ".join(rels)


def test_limit_is_a_prefix_types_filter_and_truncation(kg, hetionet):
    a, b = _pairs(hetionet, 8)[1]
    full = kg.paths(a, b, k=3, limit=None)
    assert len(full) >= 3
    assert kg.paths(a, b, k=3, limit=2) == full[:2]
    assert [p.length for p in full] == sorted(p.length for p in full)
    kinds = list(full[-1].kinds)
    assert kg.paths(a, b, types=kinds, limit=None) == [p for p in full if list(p.kinds) == kinds]
    assert kg.paths(a, b, types=[kinds[0], "Planet", kinds[-1]], limit=None) == []
    small = SparqlKnowledgeGraph(kg.endpoint, max_rows=1)
    capped = small.paths(a, b, k=3, limit=None)
    assert small.truncated and 1 <= len(capped) < len(full)
    assert set(capped) <= set(full)


def test_each_hop_length_is_one_query_with_explicit_triples_and_a_limit(kg, hetionet):
    sent = []

    class Recording:
        name = "recording"

        def select(self, query):
            sent.append(query)
            return kg.endpoint.select(query)

        def close(self):
            pass

    a, b = _pairs(hetionet, 8)[2]
    SparqlKnowledgeGraph(Recording()).paths(a, b, k=3, limit=None)
    path_queries = [q for q in sent if "?p1 ?d1" in q]
    assert len(path_queries) == 3
    for length, query in enumerate(path_queries, 1):
        assert query.count(" UNION ") == length and f"LIMIT {10_000}" in query
        assert "*" not in query.split("WHERE")[1]  # no property path


# -- entities ------------------------------------------------------------------------------
def test_resolve_by_label_alias_case_and_id(kg, hetionet):
    iso = f"{EX}entity/Compound/Isotretinoin"
    assert kg.resolve("Isotretinoin").id == iso
    assert kg.resolve("isotretinoin").id == iso  # case variant
    assert kg.resolve("ACCUTANE").id == iso  # an alias, any case
    assert kg.resolve(iso) == kg.resolve(f"<{iso}>") == kg.node(iso)
    node = kg.node(iso)
    assert (node.name, node.kind) == ("Isotretinoin", "Compound")
    # a label whose case no simple variant reaches is found by the case-insensitive scan
    odd = next(n for n, _ in hetionet.nodes.values() if n not in _variants(n.lower()))
    assert kg.link(odd.lower()).best.node.name == odd


def _variants(text):
    return {text, text.lower(), text.upper(), text.capitalize(), text.title()}


def test_same_name_two_kinds_is_ambiguous_until_the_kind_is_given(kg, hetionet):
    by_lower: dict[str, list[str]] = {}
    for i, (name, _) in hetionet.nodes.items():
        by_lower.setdefault(name.lower(), []).append(i)
    name, ids = next((n, i) for n, i in sorted(by_lower.items()) if len(i) > 1)
    with pytest.raises(EntityNotFoundError, match="ambiguous") as caught:
        kg.resolve(name)
    assert {c.node.id for c in caught.value.candidates} == set(ids)
    kind = hetionet.nodes[ids[0]][1]
    assert kg.resolve(name, kinds=[kind]).id == ids[0]


def test_unknown_name_lists_the_closest_names(kg):
    with pytest.raises(EntityNotFoundError, match="closest names: Isotretinoin") as caught:
        kg.resolve("isotretinoine")
    assert caught.value.candidates[0].node.name == "Isotretinoin"
    with pytest.raises(EntityNotFoundError, match="matches no entity"):
        kg.resolve("zz")
    with pytest.raises(EntityNotFoundError, match="no entity"):
        kg.node(f"{EX}entity/Compound/Unobtainium")
    with pytest.raises(EntityNotFoundError):
        kg.paths(f"{EX}entity/Compound/Isotretinoin", "not an id")


HOSTILE = [
    'x" } ; DROP ALL ; #',
    "x\\",
    "\\u0022) } #",
    "two\nlines\r\t",
    "'''\"\"\"",
    "} UNION { ?n ?p ?l }",
    "é 漢字 🙂",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_are_data_not_query(kg, name):
    with pytest.raises(EntityNotFoundError):
        kg.resolve(name)


def _round_trip(text: str) -> str:
    query = f"SELECT ?x WHERE {{ BIND({sparql_literal(text)} AS ?x) }}"
    return StoreEndpoint(ox.Store()).select(query)[0]["x"].value


@given(st.text(max_size=40))
@settings(max_examples=40, deadline=None)
def test_literals_round_trip_through_a_real_parser(text):
    assert _round_trip(text) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_literals_round_trip(text):
    assert _round_trip(text) == text


def test_iris_that_could_break_a_query_are_refused(kg):
    for bad in ["http://x/a> } DROP ALL {", 'http://x/"', "http://x/a b", "not-an-iri"]:
        with pytest.raises(KGError):
            sparql_iri(bad)
    with pytest.raises(KGError):
        kg.node("<http://x/a> ?p ?o>")
    with pytest.raises(KGError):
        sparql_literal("x", lang="en; DROP")
    assert sparql_iri(WD + "Q42") == f"<{WD}Q42>"


def test_wikidata_ids_and_labels(wkg, wikidata):
    qid, (name, kind) = next(iter(sorted(wikidata.nodes.items())))
    node = wkg.resolve(qid.removeprefix("wd:"))  # a bare Q-id
    assert node == wkg.resolve(qid) == wkg.resolve(WD + qid.removeprefix("wd:"))
    assert (node.id, node.name, node.kind) == (qid, name, kind)
    typed = [i for i, (_, k) in wikidata.nodes.items() if k != "Entity"]
    assert typed, "a P31 edge gives a kind"
    assert wkg.node(typed[0]).kind == wikidata.nodes[typed[0]][1]


def test_neighbours(kg, hetionet):
    iso = f"{EX}entity/Compound/Isotretinoin"
    expected = sorted(
        {(t if s == iso else s, r) for s, t, r in hetionet.edges if iso in (s, t) and s != t}
    )
    got = kg.neighbours(iso, limit=1000)
    assert [(n.id, r) for n, r, _ in got] == expected
    assert len(kg.neighbours(iso, limit=2)) == 2


def test_stats_count_the_sample(kg, hetionet):
    stats = kg.stats()
    assert stats["backend"] == "sparql"
    assert stats["edges"] == len(hetionet.edges)
    assert stats["nodes"] == len(hetionet.nodes)
    kinds: dict[str, int] = {}
    for _, kind in hetionet.nodes.values():
        kinds[kind] = kinds.get(kind, 0) + 1
    assert stats["kinds"] == kinds
    per_relation: dict[str, int] = {}
    for _, _, r in hetionet.edges:
        per_relation[r] = per_relation.get(r, 0) + 1
    assert {r["relation"]: r["edges"] for r in stats["relations"]} == per_relation


def test_whole_graph_reads_are_refused_with_a_hint(kg):
    for method in (kg.nodes, kg.edges, kg.path_index):
        with pytest.raises(KGBackendError, match="queried, not read whole") as caught:
            method()
        assert "kg load" in caught.value.hint


def test_wikidata_is_not_counted_and_falls_back_to_entity_search(wikidata):
    """EntitySearch runs only on Wikidata's service: stand in for that one SERVICE call."""
    store = StoreEndpoint(wikidata.store())
    name = next(n for n, _ in wikidata.nodes.values() if n not in _variants(n.lower()))
    qid = next(i for i, (n, _) in wikidata.nodes.items() if n == name)
    searched = []

    class WithSearch:
        name = "wikidata stand-in"

        def select(self, query):
            if "EntitySearch" in query:
                searched.append(query)
                return parse_results(_binding(WD + qid.removeprefix("wd:")), source="stand-in")
            return store.select(query)

        def close(self):
            pass

    wkg = SparqlKnowledgeGraph(WithSearch(), vocabulary=WIKIDATA)
    assert wkg.resolve(name.lower()).id == qid
    assert sparql_literal(name.lower()) in searched[0] and "mwapi" in searched[0]
    with pytest.raises(EntityNotFoundError, match=f"closest names: {re.escape(name)}"):
        wkg.resolve(name.lower() + "x")  # search finds it, but it is not an exact match
    stats = wkg.stats()
    assert stats["nodes"] is None and "too large" in stats["note"]


def _binding(iri: str) -> bytes:
    return json.dumps(
        {
            "head": {"vars": ["item"]},
            "results": {"bindings": [{"item": {"type": "uri", "value": iri}}]},
        }
    ).encode()


# -- locations -----------------------------------------------------------------------------
def test_locations():
    wikidata = "sparql:" + WIKIDATA_URL
    assert sparql_location("wikidata") == sparql_location("sparql:wikidata") == wikidata
    assert sparql_location("sparql:https:/query.wikidata.org/sparql") == wikidata  # via Path
    assert sparql_location("sparql:http://h:8890/sparql") == "sparql:http://h:8890/sparql"
    assert sparql_location("sparql:graph.ttl") == "sparql:graph.ttl"
    for other in (None, "kg/store", "bolt://h:7687", "/data/wikidata2"):
        assert sparql_location(other) is None
    kg = KnowledgeGraph.connect("wikidata")  # nothing is sent before the first query
    assert isinstance(kg, SparqlKnowledgeGraph) and kg.vocabulary is WIKIDATA
    assert kg.location == WIKIDATA_URL
    kg = KnowledgeGraph.connect("sparql:http://127.0.0.1:9/sparql")
    assert kg.vocabulary is GENERIC
    with pytest.raises(KGError):
        SparqlKnowledgeGraph.connect("sparql:")


def test_an_rdf_file(tmp_path, hetionet):
    path = tmp_path / "sample.nt"
    hetionet.store().dump(str(path), ox.RdfFormat.N_TRIPLES, from_graph=ox.DefaultGraph())
    with KnowledgeGraph.connect(f"sparql:{path}") as kg:
        assert kg.stats()["edges"] == len(hetionet.edges)
    # N-Quads put each triple in a named graph: the loaded graph is all of them
    quads = tmp_path / "sample.nq"
    graph = ox.NamedNode("http://example.org/graph")
    ox.serialize(
        [ox.Quad(t.subject, t.predicate, t.object, graph) for t in hetionet.store()],
        str(quads),
        ox.RdfFormat.N_QUADS,
    )
    with KnowledgeGraph.connect(f"sparql:{quads}") as kg:
        assert kg.stats()["edges"] == len(hetionet.edges)
    bad = tmp_path / "bad.ttl"
    bad.write_text("<a> <b> .\n", encoding="utf-8")
    with pytest.raises(KGError, match="not valid RDF"):
        KnowledgeGraph.connect(f"sparql:{bad}")
    with pytest.raises(KGError, match="no RDF file"):
        KnowledgeGraph.connect(f"sparql:{tmp_path / 'missing.ttl'}")


# -- HTTP: a real SPARQL server --------------------------------------------------------------
OXIGRAPH = "oxigraph==0.5.13"
"""The PyPI package that ships Oxigraph's SPARQL server binary (in causalqa's dev extra)."""


def oxigraph_binary() -> str | None:
    """The ``oxigraph`` server that ``pip install oxigraph`` puts beside this Python's own
    scripts (a venv's bin/, on PATH or not), else one on PATH; None if there is none."""
    return shutil.which("oxigraph", path=sysconfig.get_path("scripts")) or shutil.which("oxigraph")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _log(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace").strip() if path.exists() else ""
    return text[-4000:] or "(nothing)"


def _answers(url: str) -> bool:
    """Whether the SPARQL endpoint at `url` answers ``ASK {}`` (a GET, as a probe)."""
    probe = url + "?" + urllib.parse.urlencode({"query": "ASK {}"})
    try:
        with urllib.request.urlopen(probe, timeout=1) as response:
            return response.status == 200 and b"true" in response.read()
    except (OSError, http.client.HTTPException):  # URLError and timeouts are OSErrors
        return False


@contextlib.contextmanager
def oxigraph_server(sample: Sample, folder: Path, *options: str, startup: float = 30.0):
    """A real Oxigraph SPARQL server process on loopback holding `sample`; yields its query
    URL and stops the process on leaving, whatever happened.

    The sample is written as N-Triples, loaded into a store folder with ``oxigraph load``
    and served read-only with ``oxigraph serve-read-only`` on a free port; a server that
    does not answer within `startup` seconds fails the test with its output; `options` go
    to the server (``--timeout-s 1``). Skips when the binary is not installed.
    """
    binary = oxigraph_binary()
    if binary is None:
        pytest.skip(f"the Oxigraph SPARQL server is not installed: pip install {OXIGRAPH}")
    rdf, db = folder / "sample.nt", folder / "db"
    sample.store().dump(str(rdf), ox.RdfFormat.N_TRIPLES, from_graph=ox.DefaultGraph())
    load = [binary, "load", "--location", str(db), "--file", str(rdf)]
    done = subprocess.run(load, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        pytest.fail(f"{shlex.join(load)} failed ({done.returncode}):\n{done.stderr}")
    for attempt in range(3):  # the free port may be taken before the server binds it
        port, log = _free_port(), folder / f"server-{attempt}.log"
        serve = [binary, "serve-read-only", "--location", str(db), "--bind", f"127.0.0.1:{port}"]
        serve += options
        with log.open("wb") as out:
            process = subprocess.Popen(
                serve, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
            )
        try:
            url = f"http://127.0.0.1:{port}/query"
            deadline = time.monotonic() + startup
            while process.poll() is None and time.monotonic() < deadline:
                if _answers(url):
                    yield url
                    return
                time.sleep(0.05)
            if process.poll() is not None and "in use" in _log(log) and attempt < 2:
                continue
            why = (
                f"exited with {process.returncode}"
                if process.poll() is not None
                else f"did not answer within {startup:g} s"
            )
            pytest.fail(f"{shlex.join(serve)} {why}; its output:\n{_log(log)}")
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@pytest.fixture(scope="module")
def oxigraph(hetionet, tmp_path_factory):
    """The query URL of a real Oxigraph server holding the Hetionet-shaped sample."""
    with oxigraph_server(hetionet, tmp_path_factory.mktemp("oxigraph")) as url:
        yield url


@pytest.fixture(scope="module")
def oxigraph_wikidata(wikidata, tmp_path_factory):
    """The query URL of a real Oxigraph server holding the Wikidata-shaped sample."""
    with oxigraph_server(wikidata, tmp_path_factory.mktemp("oxigraph-wikidata")) as url:
        yield url


@pytest.fixture(scope="module")
def oxigraph_quick(hetionet, tmp_path_factory):
    """The same server, stopping any query after 1 s (``--timeout-s 1``)."""
    folder = tmp_path_factory.mktemp("oxigraph-quick")
    with oxigraph_server(hetionet, folder, "--timeout-s", "1") as url:
        yield url


def test_http_client_against_a_real_sparql_server(oxigraph, kg, hetionet):
    remote = KnowledgeGraph.connect(f"sparql:{oxigraph}")
    assert isinstance(remote, SparqlKnowledgeGraph) and remote.vocabulary is GENERIC
    for a, b in _pairs(hetionet, 8)[:4]:
        assert remote.paths(a, b, k=3, limit=None) == kg.paths(a, b, k=3, limit=None)
    a, b = _pairs(hetionet, 8)[0]
    assert remote.paths(a, b, k=4, limit=None) == kg.paths(a, b, k=4, limit=None)
    assert remote.resolve("isotretinoin") == kg.resolve("isotretinoin")
    assert remote.resolve("ACCUTANE") == kg.resolve("ACCUTANE")  # an alias
    iso = f"{EX}entity/Compound/Isotretinoin"
    assert remote.neighbours(iso, limit=1000) == kg.neighbours(iso, limit=1000)
    assert remote.stats() == {**kg.stats(), "store": oxigraph}
    with pytest.raises(EntityNotFoundError, match="closest names: Isotretinoin"):
        remote.resolve("isotretinoine")


def test_wikidata_vocabulary_against_a_real_sparql_server(oxigraph_wikidata, wkg, wikidata):
    """LANGMATCHES, STRSTARTS and property labels through wikibase:directClaim, on a real
    server. Only ids are resolved: a name not found by label would ask Wikidata's
    EntitySearch SERVICE, which only Wikidata's own service runs."""
    remote = SparqlKnowledgeGraph.connect(f"sparql:{oxigraph_wikidata}", vocabulary=WIKIDATA)
    for a, b in _pairs(wikidata, 6):
        assert remote.paths(a, b, k=3, limit=None) == wkg.paths(a, b, k=3, limit=None)
    qid = next(iter(sorted(wikidata.nodes)))
    assert remote.resolve(qid.removeprefix("wd:")) == wkg.resolve(qid)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_literals_round_trip_through_a_real_server(oxigraph, text):
    """Escaped, form-encoded, parsed by the server and sent back as JSON: the same text."""
    query = f"SELECT ?x WHERE {{ BIND({sparql_literal(text)} AS ?x) }}"
    assert HttpEndpoint(oxigraph).select(query)[0]["x"].value == text


def test_cli_kg_paths_and_stats_over_sparql(oxigraph, hetionet):
    url = f"sparql:{oxigraph}"
    a, b = _pairs(hetionet, 8)[0]
    result = runner.invoke(app, ["paths", a, b, "--kg", url, "--k", "3", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    expected = nx_paths(hetionet.data(), a, b, 3)
    assert out["count"] == len(expected) > 0
    assert [p["text"] for p in out["paths"]] == [p.verbalise() for p in expected[:100]]
    result = runner.invoke(app, ["paths", "isotretinoin", "unobtainium", "--kg", url])
    assert isinstance(result.exception, EntityNotFoundError)
    result = runner.invoke(app, ["stats", "--kg", url, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["edges"] == len(hetionet.edges)
    result = runner.invoke(app, ["stats", "--kg", url])
    assert result.exit_code == 0 and "sparql" in result.stdout
    result = runner.invoke(app, ["load", "triples", "x.tsv", "--store", url])
    assert isinstance(result.exception, KGStoreError)


def test_a_real_server_refusing_a_query_or_a_path(oxigraph):
    with pytest.raises(KGBackendError, match=r"rejected the query \(400\): error at 1:") as caught:
        HttpEndpoint(oxigraph).select("SELECT ?x WHERE { ?x ")
    assert "SPARQL 1.1" in caught.value.hint
    elsewhere = oxigraph.replace("/query", "/elsewhere")
    with pytest.raises(KGBackendError, match=r"no SPARQL endpoint at .* \(404\)") as caught:
        SparqlKnowledgeGraph.connect(f"sparql:{elsewhere}").resolve("isotretinoin")
    assert "check the URL" in caught.value.hint


def test_a_query_the_real_server_stops_at_its_time_limit(oxigraph_quick, hetionet):
    """Oxigraph has sent 200 and the start of the JSON when its timeout stops a query; the
    answer then ends in "has been cancelled". That is its time limit, not a server that
    does not speak SPARQL JSON. (A COUNT over three joined triple patterns: seconds of
    work, which this server is seen to give up after its 1 s.)"""
    assert len(hetionet.store()) > 500  # so the query cannot finish in 1 s
    slow = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f FILTER(?a != ?c) }"
    started = time.perf_counter()
    with pytest.raises(KGBackendError, match="at its own time limit; .*cancelled") as caught:
        HttpEndpoint(oxigraph_quick, timeout=30).select(slow)
    assert "fewer hops" in caught.value.hint
    assert time.perf_counter() - started < 25
    assert HttpEndpoint(oxigraph_quick).select("SELECT ?x WHERE { BIND(1 AS ?x) }")


# -- HTTP: what a real server cannot show ------------------------------------------------------
CANCELLED = b"The SPARQL operation has been cancelled"


class StandIn(BaseHTTPRequestHandler):
    """What no well-behaved server does on demand, on loopback: /record passes the request
    on to the real server (`upstream`) and records what the client sent (the real server
    answers but cannot show the request); /garbage answers HTML, /notresults JSON of
    another shape, /timeout a store's own time limit (a Java stack's), /cancelled the same
    in Oxigraph's words at the end of a 200 answer already begun (as the real server does
    only after a second's work), /busy 429 with Retry-After, /slow answers after 1.5 s."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.seen.append((self.command, self.path, dict(self.headers), body))
        if self.path == "/record":
            forward = urllib.request.Request(
                self.server.upstream, data=body, method="POST", headers=dict(self.headers)
            )
            with urllib.request.urlopen(forward, timeout=30) as response:
                self._send(response.status, response.read(), response.headers["Content-Type"])
        elif self.path == "/slow":
            time.sleep(1.5)
            self._send(200, b'{"head": {}, "results": {"bindings": []}}', "application/json")
        elif self.path == "/garbage":
            self._send(200, b"<html><body>Welcome to nginx!</body></html>", "text/html")
        elif self.path == "/notresults":
            self._send(200, b'{"hello": "world"}', "application/json")
        elif self.path == "/timeout":
            self._send(500, b"java.util.concurrent.TimeoutException", "text/plain")
        elif self.path == "/cancelled":
            begun = b'{"head":{"vars":["n"]},"results":{"bindings":['
            self._send(200, begun + CANCELLED, "application/sparql-results+json")
        elif self.path == "/busy":
            self._send(429, b"slow down", "text/plain", {"Retry-After": "7"})
        else:
            self._send(404, b"not here", "text/plain")

    def _send(self, status, body, kind, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except BrokenPipeError:  # the client gave up (the timeout test)
            pass

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def stand_in():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    httpd.daemon_threads = True
    httpd.seen, httpd.upstream = [], None
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_the_requests_a_real_server_answered(stand_in, oxigraph, kg, hetionet):
    """The SPARQL 1.1 protocol's POST of a form, JSON results asked for, causalqa's
    User-Agent: recorded on the way to the real server, which answered them."""
    httpd, base = stand_in
    httpd.upstream, httpd.seen[:] = oxigraph, []
    remote = KnowledgeGraph.connect(f"sparql:{base}/record")
    a, b = _pairs(hetionet, 8)[0]
    assert remote.paths(a, b, k=3, limit=None) == kg.paths(a, b, k=3, limit=None)
    assert httpd.seen
    for method, path, headers, body in httpd.seen:
        assert (method, path) == ("POST", "/record")
        assert headers["User-Agent"] == USER_AGENT and USER_AGENT.startswith("causalqa/")
        assert headers["Accept"] == "application/sparql-results+json"
        assert headers["Content-Type"] == "application/x-www-form-urlencoded"
        (query,) = urllib.parse.parse_qs(body.decode("utf-8"), strict_parsing=True)["query"]
        assert "LIMIT" in query


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("/garbage", "not JSON: '<html><body>Welcome to nginx!"),
        ("/notresults", "not SPARQL SELECT results"),
        ("/timeout", "its own time limit"),
        ("/cancelled", "its own time limit; its answer broke off with .*cancelled"),
        ("/busy", r"limiting requests \(429\); it asks to wait 7 s"),
        ("/elsewhere", r"no SPARQL endpoint at .* \(404\)"),
    ],
)
def test_broken_endpoints_give_one_clear_error(stand_in, where, message):
    _, base = stand_in
    kg = SparqlKnowledgeGraph.connect(f"sparql:{base}{where}")
    with pytest.raises(KGBackendError, match=message) as caught:
        kg.resolve("isotretinoin")
    assert caught.value.hint


def test_endpoint_down_and_too_slow(stand_in):
    _, base = stand_in
    down = SparqlKnowledgeGraph.connect(f"sparql:http://127.0.0.1:{_free_port()}/sparql")
    with pytest.raises(KGBackendError, match="cannot reach the SPARQL endpoint") as caught:
        down.stats()
    assert "check the URL" in caught.value.hint
    slow = SparqlKnowledgeGraph.connect(f"sparql:{base}/slow", timeout=0.3)
    started = time.perf_counter()
    with pytest.raises(KGBackendError, match=r"did not answer within 0.3 s"):
        slow.resolve("isotretinoin")
    assert time.perf_counter() - started < 1.4
    result = runner.invoke(app, ["stats", "--kg", f"sparql:http://127.0.0.1:{_free_port()}/q"])
    assert isinstance(result.exception, KGBackendError)


def test_malformed_results_are_refused():
    for body in [
        b"",
        b"[1, 2]",
        b'{"results": {"bindings": [1]}}',
        b'{"results": {"bindings": [{"x": {"type": "uri"}}]}}',
        b"\xff\xfe",
    ]:
        with pytest.raises(KGBackendError):
            parse_results(body, source="test")
    rows = parse_results(
        b'{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "literal", '
        b'"value": "a", "xml:lang": "en"}}]}}',
        source="test",
    )
    assert rows[0]["x"].value == "a" and rows[0]["x"].lang == "en"


def test_a_store_folder_named_wikidata_wins(tmp_path, monkeypatch, small_data):
    monkeypatch.chdir(tmp_path)
    KnowledgeGraph.build(small_data, "wikidata").close()
    with KnowledgeGraph.connect("wikidata") as kg:
        assert isinstance(kg, KnowledgeGraph) and kg.stats()["nodes"] == len(small_data.nodes)
