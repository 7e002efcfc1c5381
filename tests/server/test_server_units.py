"""The service's parts without a real model: the registry, highlighting, sessions, jobs,
the worker's queue, the limits, the token, the errors — over a scripted LLM."""

from __future__ import annotations

import io
import threading
import time

import networkx as nx
import pandas as pd
import pytest
from tests.conftest import have
from tests.server.conftest import PARTNERS, REPORT, STATEMENT, settings
from typer.testing import CliRunner

from causalqa.causal_model import CausalModel
from causalqa.errors import (
    ConfigError,
    ConflictError,
    NotFoundError,
    NotReadyError,
    QueueFullError,
    ServiceError,
)
from causalqa.server.highlight import used_subgraph
from causalqa.server.sessions import JobStore, SessionStore
from causalqa.server.settings import ServerSettings, is_loopback
from causalqa.server.store import ModelStore, check_id, graph_suffix, slug
from causalqa.server.worker import ModelWorker

GRAPH = (PARTNERS / "graph.graphml").read_bytes()
EFFECTS = (PARTNERS / "effects.csv").read_bytes()


# -- the registry --------------------------------------------------------------------------
def test_ids_are_slugs_and_never_paths():
    assert slug("Partners (2025)") == "partners-2025"
    assert slug("Größe") == "grosse"
    with pytest.raises(ServiceError):
        slug("../..")
    for bad in ("../etc", "a/b", "A", "", ".hidden", "x" * 65, "a\x00"):
        with pytest.raises(NotFoundError):
            check_id(bad)


def test_store_adds_atomically_refuses_to_overwrite_and_deletes(tmp_path):
    store = ModelStore(tmp_path / "models")
    model = CausalModel.load(PARTNERS / "graph.graphml", PARTNERS / "effects.csv")
    info = store.add(model, "My Partners", "upload")
    assert info.id == "my-partners" and info.subjects == 1000 and not info.read_only
    files = sorted(p.name for p in (tmp_path / "models" / "my-partners").iterdir())
    assert files == ["effects.csv", "graph.graphml", "meta.json"]
    assert [p.name for p in (tmp_path / "models").iterdir()] == ["my-partners"]  # no leftovers
    with pytest.raises(ConflictError):
        store.add(model, "my partners", "upload")
    fresh = ModelStore(tmp_path / "models")  # read back from disk
    assert fresh.get("my-partners").treatments == model.treatments
    assert [i.id for i in fresh.list()] == ["my-partners"]
    fresh.delete("my-partners")
    assert fresh.list() == [] and list((tmp_path / "models").iterdir()) == []
    with pytest.raises(NotFoundError):
        fresh.delete("my-partners")


def test_loaded_models_are_read_only(tmp_path):
    store = ModelStore(tmp_path / "models", {"partners": PARTNERS})
    assert store.info("partners").read_only
    with pytest.raises(ConflictError):
        store.delete("partners")
    with pytest.raises(ConflictError):
        store.add(store.get("partners"), "partners", "upload")


def test_graph_format_from_declaration_name_or_content():
    assert graph_suffix("dot", "x.graphml", b"") == ".dot"
    assert graph_suffix(None, "../../etc/passwd.json", b"") == ".json"
    assert graph_suffix(None, "graph.exe", b"<?xml") == ".graphml"
    assert graph_suffix(None, None, b"  digraph { a -> b }") == ".dot"
    assert graph_suffix(None, None, b'{"nodes": []}') == ".json"
    assert graph_suffix(None, None, b"source,target\na,b") == ".csv"


# -- what an answer used ---------------------------------------------------------------------
def _model():
    g = nx.DiGraph([("T", "M"), ("M", "Y"), ("T", "Y"), ("Z", "T"), ("Z", "Y"), ("W", "Y")])
    g.graph["outcome"] = "Y"
    effects = pd.DataFrame({"id": ["s1", "s2"], "T": [1.0, 2.0], "W": [0.5, 0.1]})
    return CausalModel.from_graph(g, effects)


def test_highlight_follows_the_plan():
    m = _model()
    plan = {"steps": [{"tool": "paths_between", "args": {"source": "T", "target": "Y"}}]}
    h = used_subgraph(m, {"plan": plan, "result": None})
    assert h == {"nodes": ["T", "M", "Y"], "edges": [["T", "M"], ["T", "Y"], ["M", "Y"]]}
    # the open tools read off the same routes light them up too
    for tool, args in [("mediators", {"source": "T", "target": "Y"}),
                       ("on_path", {"variable": "M", "source": "T", "target": "Y"}),
                       ("effect_kind", {"cause": "T", "effect": "Y"})]:  # fmt: skip
        h = used_subgraph(m, {"plan": {"steps": [{"tool": tool, "args": args}]}, "result": None})
        assert h["edges"] == [["T", "M"], ["T", "Y"], ["M", "Y"]], tool
    parents = {"steps": [{"tool": "parents", "args": {"variable": "Y"}}]}
    h = used_subgraph(m, {"plan": parents, "result": ["M", "T", "Z", "W"]})
    assert h["edges"] == [["T", "Y"], ["M", "Y"], ["Z", "Y"], ["W", "Y"]]
    best = {"steps": [{"tool": "best_treatment", "args": {"subject": "s1"}}]}
    h = used_subgraph(m, {"plan": best, "result": {"arg": "W", "value": 0.5}})
    assert h == {"nodes": ["Y", "W"], "edges": [["W", "Y"]]}
    assert used_subgraph(m, {"plan": None, "grounding": {"variables": ["Nope", "Z"]}}) == {
        "nodes": ["Z"],
        "edges": [],
    }


# -- sessions, jobs, the worker ---------------------------------------------------------------
def test_sessions_expire_and_are_bounded():
    now = [0.0]
    store = SessionStore(ttl=10, max_sessions=2, clock=lambda: now[0])
    a = store.create("m", object())
    now[0] = 5
    b = store.create("m", object())
    now[0] = 6
    assert store.get(a.id) is a  # used at 6: expires at 16
    now[0] = 12
    c = store.create("m", object())  # full: the least recently used (b) makes room
    with pytest.raises(NotFoundError):
        store.get(b.id)
    now[0] = 30
    with pytest.raises(NotFoundError, match="expired"):
        store.get(c.id)
    assert len(store) == 0


def test_worker_refuses_when_loading_and_when_full():
    gate = threading.Event()

    def slow_open():
        gate.wait(10)
        return "llm"

    worker = ModelWorker(slow_open, queue_size=1, name="test").start()
    with pytest.raises(NotReadyError, match="loading"):
        worker.submit(lambda llm: 1)
    gate.set()
    assert worker.wait_ready(10)
    hold = threading.Event()
    running = worker.submit(lambda llm: hold.wait(10))
    while worker.waiting or not worker.running:
        time.sleep(0.01)
    queued = worker.submit(lambda llm: llm)
    with pytest.raises(QueueFullError):
        worker.submit(lambda llm: 3)
    hold.set()
    assert running.result(10) is True and queued.result(10) == "llm"
    worker.stop()


def test_worker_that_failed_to_load_says_why():
    def broken():
        raise ConfigError("no such GGUF", hint="check --llm")

    worker = ModelWorker(broken, queue_size=1, name="local:/x.gguf").start()
    assert not worker.wait_ready(10)
    with pytest.raises(NotReadyError, match="failed to load: no such GGUF"):
        worker.submit(lambda llm: 1)
    worker.stop()


def test_jobs_report_progress_and_can_be_cancelled():
    worker = ModelWorker(lambda: "llm", queue_size=4).start()
    worker.wait_ready(10)
    jobs = JobStore(max_jobs=4, ttl=60, timeout=60)
    step = threading.Event()

    def work(llm, job):
        for i in range(100):
            job.report(i, 100, f"step {i}")
            step.wait(0.05)
        return {"done": True}

    job = jobs.start("test", worker.submit, work, lambda e: {"message": str(e)})
    while job.progress.get("done", 0) < 2:
        time.sleep(0.01)
    assert job.status == "running" and job.progress["total"] == 100
    job.cancel()
    while not job.finished:
        time.sleep(0.01)
    assert job.status == "cancelled" and job.result is None
    quick = jobs.start("test", worker.submit, lambda llm, j: {"n": 1}, lambda e: {})
    while not quick.finished:
        time.sleep(0.01)
    assert quick.to_dict()["result"] == {"n": 1} and quick.status == "done"
    worker.stop()


# -- settings and the command line ------------------------------------------------------------
def test_listening_beyond_loopback_needs_a_token(tmp_path):
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    with pytest.raises(ConfigError, match="refusing to listen on 0.0.0.0 without a token"):
        ServerSettings(data_dir=tmp_path, host="0.0.0.0").check_exposure()
    ServerSettings(data_dir=tmp_path, host="0.0.0.0", token="a-long-token").check_exposure()
    with pytest.raises(ConfigError, match="shorter than 8"):
        ServerSettings(data_dir=tmp_path, token="short")


def test_serve_refuses_to_start_open_to_the_network(tmp_path, monkeypatch):
    import uvicorn

    from causalqa.cli import app

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("started"))
    monkeypatch.delenv("CAUSALQA_TOKEN", raising=False)
    args = ["serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert isinstance(result.exception, ConfigError)
    assert "--token" in result.exception.hint
    started = []
    monkeypatch.setattr(uvicorn, "run", lambda app_, **k: started.append(k))
    monkeypatch.setenv("CAUSALQA_TOKEN", "from-the-environment")
    result = CliRunner().invoke(app, [*args, "--load", f"p={PARTNERS}", "--max-body", "2M"])
    assert result.exit_code == 0, result.output
    assert started[0]["host"] == "0.0.0.0"


# -- the HTTP layer over a scripted LLM ---------------------------------------------------------
def test_every_error_is_json_with_code_message_and_hint(scripted):
    client, service, _ = scripted()
    with client:
        service.worker.wait_ready(10)
        r = client.post("/v1/ask", json={"model": "nope", "question": "Is A a cause of B?"})
        assert r.status_code == 404
        assert r.json()["error"]["code"] == "not_found" and r.json()["error"]["hint"]
        r = client.post("/v1/ask", json={"model": "partners", "question": ""})
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
        assert "question" in r.json()["error"]["message"]
        r = client.post(
            "/v1/ask", content=b"{not json", headers={"content-type": "application/json"}
        )
        assert r.status_code == 422 and set(r.json()["error"]) == {"code", "message", "hint"}
        r = client.get("/v1/no-such-thing")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        r = client.delete("/v1/ready")
        assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
        r = client.post("/v1/deduce", json={"context": "zzzz qqqq", "statement": "frost"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_text"
        r = client.post("/v1/discover/graph", json={"variables": [f"v{i}" for i in range(13)]})
        assert r.status_code == 400 and "at most 12" in r.json()["error"]["message"]


def test_a_bug_is_a_500_without_a_traceback(scripted, monkeypatch):
    client, service, _ = scripted()
    with client:
        monkeypatch.setattr(service, "list_models", lambda: 1 / 0)
        r = client.get("/v1/models")
        assert r.status_code == 500
        assert r.json()["error"]["code"] == "internal"
        assert "Traceback" not in r.text and "ZeroDivisionError" in r.text


def test_body_and_upload_limits_answer_413(scripted):
    client, _, _ = scripted(max_body=1000, max_upload=5000)
    with client:
        big = {"model": "partners", "question": "x" * 1500}
        r = client.post("/v1/ask", json=big)
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"

        def chunks():  # no Content-Length: counted as it streams in
            for _ in range(20):
                yield b"x" * 100

        r = client.post("/v1/ask", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        r = client.post(
            "/v1/models", data={"name": "big"}, files={"graph": ("g.graphml", GRAPH * 4)}
        )
        assert r.status_code == 413
        r = client.post("/v1/models", data={"name": "small"}, files={"graph": ("g.csv", b"a,b\n")})
        assert r.status_code == 422  # under the upload limit, above the body limit: read


def test_the_token_is_required_when_set(scripted):
    client, service, _ = scripted(token="s3cret-token")
    with client:
        assert client.get("/v1/health").status_code == 200  # liveness stays open
        assert client.get("/").status_code == 200  # the page asks for the token itself
        for method, path in [("get", "/v1/models"), ("get", "/v1/ready"), ("post", "/v1/ask")]:
            r = getattr(client, method)(path)
            assert r.status_code == 401, path
            assert r.json()["error"]["code"] == "unauthorized"
            assert r.headers["www-authenticate"] == "Bearer"
        bad = {"Authorization": "Bearer wrong-token"}
        assert client.get("/v1/models", headers=bad).status_code == 401
        good = {"Authorization": "Bearer s3cret-token"}
        assert client.get("/v1/models", headers=good).status_code == 200
        assert "HTTPBearer" in client.get("/openapi.json").json()["components"]["securitySchemes"]


def test_a_full_queue_answers_429_and_loading_503(scripted):
    client, service, llm = scripted(queue=1)
    with client:
        service.worker.wait_ready(10)
        llm.gate.clear()  # the model "thinks" until the gate opens
        results = []
        body = {"context": REPORT, "statement": STATEMENT, "method": "logprobs"}
        threads = [
            threading.Thread(target=lambda: results.append(client.post("/v1/deduce", json=body)))
            for _ in range(2)
        ]
        for t in threads:
            t.start()
            time.sleep(0.3)
        while service.worker.waiting < 1:
            time.sleep(0.01)
        r = client.post("/v1/deduce", json=body)
        assert r.status_code == 429 and r.json()["error"]["code"] == "queue_full"
        assert r.headers["retry-after"] == "5"
        llm.gate.set()
        for t in threads:
            t.join(30)
        assert [x.status_code for x in results] == [200, 200]
        assert results[0].json()["label"] == "True"


def test_a_request_past_the_time_limit_answers_504(scripted):
    client, service, llm = scripted(timeout=0.5)
    with client:
        service.worker.wait_ready(10)
        llm.gate.clear()
        body = {"context": REPORT, "statement": STATEMENT, "method": "logprobs"}
        r = client.post("/v1/deduce", json=body)
        assert r.status_code == 504 and r.json()["error"]["code"] == "timeout"
        llm.gate.set()


def test_cors_is_off_unless_configured(scripted):
    client, _, _ = scripted()
    with client:
        r = client.get("/v1/health", headers={"Origin": "http://evil.example"})
        assert "access-control-allow-origin" not in r.headers
    client, _, _ = scripted(cors_origins=("http://app.example",))
    with client:
        r = client.get("/v1/health", headers={"Origin": "http://app.example"})
        assert r.headers["access-control-allow-origin"] == "http://app.example"


def test_uploads_never_write_where_the_client_says(scripted, tmp_path):
    client, service, _ = scripted()
    with client:
        name = "../../../../tmp/pwned.graphml"
        r = client.post("/v1/models", data={"name": "../evil"}, files={"graph": (name, GRAPH)})
        assert r.status_code == 201 and r.json()["id"] == "evil"
        stored = sorted(
            p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()
        )
        assert stored == [
            "srv/models/evil/graph.graphml",
            "srv/models/evil/meta.json",
        ]
        r = client.post(
            "/v1/models",
            data={"name": "bad"},
            files={"graph": ("g.csv", b"source,target\nA,B\nB,A\n")},
        )
        assert r.status_code == 422
        err = r.json()["error"]
        assert "graph upload 'g.csv'" in err["message"] and "cycle" in err["message"]
        assert str(tmp_path) not in err["message"]  # no server path in the reply
        r = client.post(
            "/v1/models",
            data={"name": "bad-effects"},
            files={"graph": ("g.graphml", GRAPH), "effects": ("e.csv", b"id,T\n1,x\n")},
        )
        assert r.status_code == 422 and "effects upload 'e.csv'" in r.json()["error"]["message"]
        assert not (tmp_path / "srv" / "models" / "bad-effects").exists()


def test_the_page_and_its_assets_are_served_offline(scripted):
    client, _, _ = scripted()
    with client:
        page = client.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert "default-src 'self'" in page.headers["content-security-policy"]
        for src in ("/static/cytoscape.min.js", "/static/app.js", "/static/app.css"):
            assert src in page.text
            assert client.get(src).status_code == 200
        assert "http://" not in page.text and "https://" not in page.text  # no CDN
        assert "Permission is hereby granted" in client.get("/static/cytoscape.LICENSE").text
        docs = client.get("/docs")
        assert docs.status_code == 200 and "/static/swagger/swagger-ui-bundle.js" in docs.text
        assert "cdn." not in docs.text and client.get("/redoc").status_code == 404
        for src in ("/static/swagger/swagger-ui-bundle.js", "/static/swagger/swagger-ui.css"):
            assert client.get(src).status_code == 200


def test_uploaded_csv_effects_parse_with_pandas_types(scripted):
    client, _, _ = scripted()
    with client:
        csv = io.StringIO("Partner ID,Tech Support,Already Engaged\nP1,1.5,yes\nP2,2.5,no\n")
        graph = b"source,target\nTech Support,Revenue\nAlready Engaged,Revenue\n"
        r = client.post(
            "/v1/models",
            data={"name": "tiny", "outcome": "Revenue"},
            files={"graph": ("g.csv", graph), "effects": ("e.csv", csv.getvalue().encode())},
        )
        assert r.status_code == 201, r.text
        d = client.get("/v1/models/tiny").json()
        assert d["treatments"] == ["Tech Support"] and d["filters"] == ["Already Engaged"]
        assert d["ate"] == {"Tech Support": 2.0} and d["outcome"] == "Revenue"
        assert d["effects_preview"]["rows"][0] == ["P1", 1.5, True]


def test_hostile_graphml_is_refused(scripted):
    laughs = "".join(f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    bomb = (
        f'<?xml version="1.0"?><!DOCTYPE g [<!ENTITY l0 "lol">{laughs}]>'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
        '<node id="&l9;"/></graph></graphml>'
    ).encode()
    xxe = (
        b'<?xml version="1.0"?><!DOCTYPE g [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
        b'<node id="&x;"/><node id="b"/><edge source="&x;" target="b"/></graph></graphml>'
    )
    client, _, _ = scripted()
    with client:
        for name, data in (("bomb", bomb), ("xxe", xxe)):
            r = client.post("/v1/models", data={"name": name}, files={"graph": ("g.graphml", data)})
            assert r.status_code == 422, r.text
            assert "root:" not in r.text  # nothing of /etc/passwd comes back


# -- discovery: the CLI's defaults ------------------------------------------------------------
def test_discover_pair_defaults_to_the_clis_evidence_method(
    scripted, evidence_model, tmp_path, monkeypatch
):
    import json

    from causalqa.cli.discover import app as discover_cli

    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))  # no KG store: text only
    client, service, llm = scripted()
    service._evidence_judge = evidence_model[0]
    body = {"a": "GENEX", "b": "cancerX", "context": "GENEX causes cancerX in patients ."}
    with client:
        r = client.post("/v1/discover/pair", json=body)
        assert r.status_code == 200, r.text
        api = r.json()
        args = ["pair", body["a"], body["b"], "--context", body["context"], "--json"]
        cli = CliRunner().invoke(discover_cli, [*args, "--evidence-model", str(evidence_model[2])])
        assert cli.exit_code == 0, cli.output
        cli = json.loads(cli.stdout)
        for d in (api, cli):
            d.pop("seconds")
        assert api == cli and api["method"] == "evidence" and api["direction"] in ("A→B", "B→A")
        assert not llm.calls  # this evidence model has no LLM feature
        r = client.post("/v1/discover/pair", json={**body, "ranker": "random", "top_k": 2})
        assert r.status_code == 400 and "ranker, top_k" in r.json()["error"]["message"]
        assert "method 'llm'" in r.json()["error"]["hint"]
        r = client.post("/v1/discover/pair", json={"a": "GENEX", "b": "cancerX"})
        assert r.status_code == 503 and r.json()["error"]["code"] == "kg_unavailable"
        r = client.post("/v1/discover/pair", json={**body, "a": " "})
        assert r.status_code == 400 and "empty" in r.json()["error"]["message"]


@pytest.fixture(scope="module")
def shipped_judge():
    from causalqa.discovery.evidence import EvidenceJudge, default_artefacts

    return EvidenceJudge.load(default_artefacts())


def test_discover_pair_without_evidence_is_unknown_as_in_the_cli(
    scripted, shipped_judge, tiny_kg, monkeypatch
):
    """No sentence, no path between the linked nodes, no LLM feature: the same unknown
    verdict as ``discover pair --json``, its hint in the API's own field names."""
    import json

    from causalqa.cli.discover import app as discover_cli
    from causalqa.discovery.evidence import default_artefacts
    from causalqa.kg.linking import Linker

    client, service, llm = scripted(kg=tiny_kg)
    service._evidence_judge = shipped_judge
    with client:
        r = client.post("/v1/discover/pair", json={"a": "lonely", "b": "melanoma"})
        assert r.status_code == 200, r.text
        api = r.json()
        assert api["verdict"] == "unknown" and api["causal"] is None
        assert api["direction"] is None and api["probability"] is None
        hint = api["abstention"]["hint"]
        assert '"kinds_b": ["Side Effect"]' in hint
        assert 'give a sentence that names both ("context")' in hint
        assert "a server started with --kg DIR" in hint and "--context" not in hint
        args = ["pair", "lonely", "melanoma", "--kg", str(tiny_kg), "--json"]
        args += ["--evidence-model", str(default_artefacts())]
        cli = json.loads(CliRunner().invoke(discover_cli, args).stdout)
        for d in (api, cli):
            d.pop("seconds")
            d["abstention"].pop("hint")  # each in its own surface's words
        assert api == cli
        # a path alone decides
        r = client.post("/v1/discover/pair", json={"a": "TXNRD1", "b": "ERBB2"})
        assert r.status_code == 200 and r.json()["verdict"] in ("causal", "non-causal")
        assert r.json()["abstention"] is None
        # a name only guessed by meaning is not in the graph: the CLI's error, as a 422
        monkeypatch.setattr(Linker, "_embedding", lambda self, q, allowed, limit: [(0, 64.0)])
        r = client.post("/v1/discover/pair", json={"a": "Raloxifene", "b": "qqzzx"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "unknown_entity"
        assert "only a guess" in r.json()["error"]["message"]
        assert '("context")' in r.json()["error"]["hint"]
    assert not llm.calls


@pytest.mark.skipif(not have("mcp"), reason="the mcp package is not installed")
def test_the_mcp_tool_answers_unknown_in_its_own_words(tmp_path, shipped_judge, tiny_kg):
    """The MCP server's discover_pair, called in process by the MCP SDK's client."""
    import asyncio

    from mcp import Client

    from causalqa.llm.testing import ScriptedLLM
    from causalqa.server.mcp_server import build_mcp
    from causalqa.server.service import Service

    service = Service(settings(tmp_path, llm="scripted", kg=tiny_kg), llm=ScriptedLLM()).start()
    service._evidence_judge = shipped_judge

    async def call(args):
        async with Client(build_mcp(service)) as client:
            return await client.call_tool("discover_pair", args)

    try:
        got = asyncio.run(call({"a": "lonely", "b": "melanoma"})).structured_content
        path = asyncio.run(call({"a": "TXNRD1", "b": "ERBB2"})).structured_content
    finally:
        service.stop()
    assert got["verdict"] == "unknown" and got["causal"] is None and got["probability"] is None
    hint = got["abstention"]["hint"]
    assert "give a sentence that names both (the context argument)" in hint
    assert "an MCP server started with --kg DIR" in hint
    assert "kind" not in hint  # the tool cannot choose node kinds
    assert path["verdict"] in ("causal", "non-causal") and path["abstention"] is None


def test_discover_graph_defaults_to_the_clis_decision_rule(scripted):
    from causalqa.discovery.graph import DEFAULT_DECISION

    client, _, _ = scripted()
    with client:
        r = client.post("/v1/discover/graph", json={"variables": ["a", "b"], "ranker": "none"})
        assert r.status_code == 202, r.text
        for _ in range(300):
            job = client.get(f"/v1/jobs/{r.json()['id']}").json()
            if job["status"] not in ("queued", "running"):
                break
            time.sleep(0.1)
        assert job["status"] == "done", job
        assert job["result"]["decision"] == DEFAULT_DECISION == "batch"


def test_discover_pair_consults_every_loaded_store_as_the_cli_does(
    scripted, shipped_judge, tmp_path, monkeypatch
):
    """A server started without --kg consults every store loaded under $CAUSALQA_HOME/kg,
    as `discover pair` does: CauseNet's direct claim answers an everyday pair, with its
    direction and path, the same JSON as the CLI's."""
    import json

    from tests.kg.test_kg_causenet import write_causenet

    from causalqa.cli.discover import app as discover_cli
    from causalqa.discovery.evidence import default_artefacts
    from causalqa.kg.store import load_causenet

    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    load_causenet(write_causenet(tmp_path / "core")).close()
    client, service, llm = scripted()
    service._evidence_judge = shipped_judge
    with client:
        for a, b, direction in [("alcohol", "suicide", "A→B"), ("suicide", "alcohol", "B→A")]:
            r = client.post("/v1/discover/pair", json={"a": a, "b": b})
            assert r.status_code == 200, r.text
            api = r.json()
            assert (api["verdict"], api["direction"]) == ("causal", direction), api
            assert api["evidence"]["paths"][0]["path"] == "alcohol → suicide (CauseNet, support 9)"
            args = [
                "pair",
                a,
                b,
                "--json",
                "--evidence-model",
                str(default_artefacts()),
            ]
            cli = json.loads(CliRunner().invoke(discover_cli, args).stdout)
            for d in (api, cli):
                d.pop("seconds")
            assert api == cli
        r = client.post("/v1/discover/pair", json={"a": "music", "b": "rain"})
        assert r.status_code == 200 and r.json()["verdict"] == "unknown", r.text
    assert not llm.calls
