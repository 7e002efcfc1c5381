"""Every endpoint of the HTTP API over the real embedded model (``local:small``), the
bundled partners model and a tiny knowledge graph — including the errors a client meets.
The discovery and deduction replies are compared with what the CLI's ``--json`` prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from tests.conftest import requires_llama
from tests.server.conftest import (
    PARTNERS,
    PARTNERS_DATA,
    REPORT,
    ROOT,
    STATEMENT,
    average_effect,
    settings,
    wait_ready,
)

pytestmark = [pytest.mark.model, requires_llama]


def cli_json(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "--llm", "local:small", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def poll(client, job_id: str, timeout: float = 300) -> dict:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        job = client.get(f"/v1/jobs/{job_id}").json()
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish")


def test_status_endpoints(real_client):
    assert real_client.get("/v1/health").json()["status"] == "ok"
    ready = real_client.get("/v1/ready").json()
    assert ready["ready"] and ready["llm"] == "local:small" and "0.5B" in ready["model"]
    assert ready["queue"]["capacity"] == 8
    assert real_client.get("/v1/version").json()["api"] == "v1"
    spec = real_client.get("/openapi.json").json()
    assert "/v1/discover/pair" in spec["paths"] and spec["info"]["title"] == "causalqa"


def test_ask_answers_with_its_plan_and_the_graph_it_used(real_client):
    r = real_client.post(
        "/v1/ask",
        json={
            "model": "partners",
            "question": "Does a change in Discount lead to a change in Revenue?",
        },
    )
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["result"] is True and a["answered"]
    assert a["plan"]["steps"] == [
        {"tool": "is_cause", "args": {"cause": "Discount", "effect": "Revenue"}}
    ]
    assert {"Discount", "Revenue"} <= set(a["grounding"]["variables"])
    # a paper template is read by the learned check, so no LLM tokens need be spent
    assert a["model"].startswith("local:") and a["usage"]["prompt_tokens"] == 0
    h = a["highlight"]
    assert ["Discount", "Demand"] in h["edges"] and ["Demand", "Revenue"] in h["edges"]
    assert ["Tech Support", "Revenue"] not in h["edges"]
    r = real_client.post(
        "/v1/ask",
        json={"model": "partners", "question": "Does the weather in Paris affect Revenue?"},
    )
    assert r.status_code == 200 and not r.json()["answered"] and "Paris" in r.json()["answer"]


def test_a_chat_session_keeps_the_context(real_client):
    r = real_client.post("/v1/sessions", json={"model": "partners"})
    assert r.status_code == 201
    sid = r.json()["id"]
    first = real_client.post(
        f"/v1/sessions/{sid}/ask",
        json={"question": "Which engagement works best for partner P007?"},
    ).json()
    assert first["plan"]["steps"][0]["args"] == {"subject": "P007"}
    follow = real_client.post(f"/v1/sessions/{sid}/ask", json={"question": "and for partner P042?"})
    assert follow.status_code == 200
    f = follow.json()
    assert f["session"] == sid and f["grounding"]["subjects"] == ["P042"]
    assert f["plan"]["steps"][0] == {"tool": "best_treatment", "args": {"subject": "P042"}}
    record = real_client.get(f"/v1/sessions/{sid}").json()
    assert [t["question"] for t in record["turns"]][1] == "and for partner P042?"
    assert record["expires_in"] > 0
    assert real_client.delete(f"/v1/sessions/{sid}").status_code == 204
    assert real_client.get(f"/v1/sessions/{sid}").status_code == 404
    r = real_client.post(f"/v1/sessions/{sid}/ask", json={"question": "and for partner P001?"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


def test_models_upload_show_conflict_delete(real_client):
    files = {
        "graph": ("graph.graphml", (PARTNERS / "graph.graphml").read_bytes()),
        "effects": ("effects.csv", (PARTNERS / "effects.csv").read_bytes()),
    }
    r = real_client.post("/v1/models", data={"name": "Uploaded Partners"}, files=files)
    assert r.status_code == 201, r.text
    assert r.json()["id"] == "uploaded-partners" and r.json()["source"] == "upload"
    assert (
        real_client.post("/v1/models", data={"name": "uploaded partners"}, files=files).status_code
        == 409
    )
    ids = [m["id"] for m in real_client.get("/v1/models").json()["models"]]
    assert ids == ["partners", "uploaded-partners"]
    d = real_client.get("/v1/models/uploaded-partners").json()
    assert len(d["nodes"]) == 9 and ["Discount", "Demand"] in d["edge_list"]
    ate = average_effect("Tech Support")  # of the table just uploaded
    assert d["ate"]["Tech Support"] == round(ate, 4)  # shown to 4 decimals
    q = {"model": "uploaded-partners", "question": "What is the average effect of Tech Support?"}
    assert real_client.post("/v1/ask", json=q).json()["result"] == pytest.approx(ate)
    assert real_client.delete("/v1/models/uploaded-partners").status_code == 204
    assert real_client.get("/v1/models/uploaded-partners").status_code == 404
    assert real_client.delete("/v1/models/partners").status_code == 409  # the operator's


def test_errors_unknown_model_malformed_upload_oversize(real_client):
    r = real_client.post(
        "/v1/ask", json={"model": "no-such-model", "question": "Is A a cause of B?"}
    )
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    assert real_client.get("/v1/models/no-such-model").status_code == 404
    bad = {"graph": ("g.graphml", b"<graphml><graph><node id='a'>")}
    r = real_client.post("/v1/models", data={"name": "broken"}, files=bad)
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_file"
    assert "graph upload 'g.graphml', line 1" in r.json()["error"]["message"]
    r = real_client.post("/v1/deduce", json={"context": "x" * 1_100_000, "statement": "s"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"


def test_fit_from_data_is_a_job_with_progress_events(real_client):
    form = {
        "name": "fitted",
        "treatment": ["Tech Support", "Discount"],
        "outcome": "Revenue",
        "subject_column": "Partner ID",
        "filter": ["Already Engaged"],
    }
    files = {"data": ("partners.csv", PARTNERS_DATA.read_bytes())}
    r = real_client.post("/v1/models/fit", data=form, files=files)
    assert r.status_code == 202, r.text
    job_id = r.json()["id"]
    with real_client.stream("GET", f"/v1/jobs/{job_id}/events") as stream:
        events = [line[7:] for line in stream.iter_lines() if line.startswith("event: ")]
    assert events[-1] == "done" and set(events[:-1]) <= {"progress"}
    job = poll(real_client, job_id)
    assert job["status"] == "done" and job["result"]["id"] == "fitted"
    assert job["result"]["treatments"] == ["Tech Support", "Discount"]
    assert any(j["id"] == job_id for j in real_client.get("/v1/jobs").json()["jobs"])
    assert real_client.delete(f"/v1/jobs/{job_id}").json()["status"] == "done"  # too late
    r = real_client.post(
        "/v1/models/fit", data={**form, "name": "bad-fit", "outcome": "Nope"}, files=files
    )
    failed = poll(real_client, r.json()["id"])
    assert failed["status"] == "failed" and failed["error"]["code"] == "invalid_file"
    assert "data upload 'partners.csv'" in failed["error"]["message"]
    assert real_client.delete("/v1/models/fitted").status_code == 204


def test_discover_pair_returns_what_the_cli_prints(real_client, tiny_kg):
    body = {"a": "Raloxifene", "b": "breast cancer", "ranker": "random", "context": "A trial."}
    body["method"] = "llm"
    r = real_client.post("/v1/discover/pair", json=body)
    assert r.status_code == 200, r.text
    api = r.json()
    assert api["verdict"] in ("causal", "non-causal") and 0 <= api["probability"] <= 1
    assert api["paths"] and api["paths_found"] >= 1
    cli = cli_json(
        "discover", "pair", "Raloxifene", "breast cancer", "--kg", str(tiny_kg),
        "--ranker", "random", "--context", "A trial.", "--method", "llm",
    )  # fmt: skip
    for d in (api, cli):
        d.pop("seconds")
    assert api == cli


def test_discover_pair_defaults_to_the_evidence_method_as_the_cli(real_client, tiny_kg):
    r = real_client.post("/v1/discover/pair", json={"a": "Raloxifene", "b": "breast cancer"})
    assert r.status_code == 200, r.text
    api = r.json()
    assert api["method"] == "evidence" and api["direction"] in ("A→B", "B→A", "none")
    cli = cli_json("discover", "pair", "Raloxifene", "breast cancer", "--kg", str(tiny_kg))
    for d in (api, cli):
        d.pop("seconds")
    assert api == cli


def test_discover_graph_is_a_job_whose_result_is_the_cli_json(real_client, tiny_kg):
    body = {"variables": ["Raloxifene", "breast cancer", "melanoma"], "ranker": "random"}
    r = real_client.post("/v1/discover/graph", json=body)
    assert r.status_code == 202
    job = poll(real_client, r.json()["id"])
    assert job["status"] == "done", job
    assert job["progress"]["total"] == 6
    result = job["result"]
    cli = cli_json(
        "discover", "graph", "--variables", "Raloxifene,breast cancer,melanoma",
        "--kg", str(tiny_kg), "--ranker", "random",
    )  # fmt: skip
    assert set(result) == set(cli) and result["variables"] == cli["variables"]
    assert result["model"] == cli["model"] and len(result["pairs"]) == 6
    assert result["decision"] == cli["decision"] == "batch"


def test_deduce_returns_what_the_cli_prints(real_client):
    # the default method, as in the CLI: the evidence verifier
    r = real_client.post("/v1/deduce", json={"context": REPORT, "statement": STATEMENT})
    assert r.status_code == 200, r.text
    api = r.json()
    assert api["method"] == "verifier" and api["contributions"]
    # the statement is the cause the report itself states: the verifier must say so
    assert api["label"] == "True" and api["threshold"] <= api["probability"] <= 1
    cli = cli_json("deduce", "--context", REPORT, "--statement", STATEMENT)
    for d in (api, cli):
        d.pop("seconds")
    assert api == cli
    # the paper's prompt-only method, by name
    r = real_client.post(
        "/v1/deduce", json={"context": REPORT, "statement": STATEMENT, "method": "logprobs"}
    )
    assert r.status_code == 200, r.text
    api = r.json()
    assert set(api["logprobs"]) == {"True", "False"} and api["fmt"] == "V1"
    cli = cli_json("deduce", "--context", REPORT, "--statement", STATEMENT, "--method", "logprobs")
    for d in (api, cli):
        d.pop("seconds")
    assert api == cli
    r = real_client.post(
        "/v1/deduce", json={"context": REPORT, "statement": STATEMENT, "retriever": "semantic"}
    )
    assert r.status_code == 400 and "method 'logprobs'" in r.json()["error"]["hint"]
    r = real_client.post(
        "/v1/deduce",
        json={
            "context": REPORT,
            "statement": STATEMENT,
            "retriever": "semantic",
            "method": "logprobs",
        },  # fmt: skip
    )
    assert r.status_code == 400 and "--deduction-kg" in r.json()["error"]["hint"]


def test_full_queue_answers_429_with_the_real_model(real_client):
    worker = real_client.app.state.service.worker
    gate = threading.Event()
    held = [worker.submit(lambda llm: gate.wait(60))]
    while worker.waiting or not worker.running:  # the worker has taken it
        time.sleep(0.01)
    held += [worker.submit(lambda llm: gate.wait(60)) for _ in range(worker.queue_size)]
    try:
        r = real_client.post(
            "/v1/ask", json={"model": "partners", "question": "Is Discount a cause of Revenue?"}
        )
        assert r.status_code == 429 and r.json()["error"]["code"] == "queue_full"
        r = real_client.post("/v1/discover/graph", json={"variables": ["a", "b"], "ranker": "none"})
        assert r.status_code == 429
    finally:
        gate.set()
    for f in held:
        f.result(30)


def test_missing_token_answers_401(tmp_path, tiny_kg, real_client):
    from fastapi.testclient import TestClient

    from causalqa.server import create_app

    llm = real_client.app.state.service.worker.llm  # the loaded model, shared
    app = create_app(settings(tmp_path, token="a-test-token", kg=tiny_kg), llm=llm)
    with TestClient(app) as client:
        token = {"Authorization": "Bearer a-test-token"}
        wait_ready(client, 60, headers=token)
        q = {"model": "partners", "question": "What is the average effect of Discount?"}
        r = client.post("/v1/ask", json=q)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
        r = client.post("/v1/ask", json=q, headers=token)
        assert r.status_code == 200 and r.json()["plan"]["steps"][0]["tool"] == "ate"
