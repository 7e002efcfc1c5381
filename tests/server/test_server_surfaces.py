"""The HTTP API and the CLI reach discovery and deduction through the same library
functions (`discover_pairs`, `find_graph`, `deduce_items`): each is replaced by a recorder
that calls it through, and a request to each surface must pass through it."""

from __future__ import annotations

import json
import time

import pytest
from tests.server.conftest import REPORT, STATEMENT
from typer.testing import CliRunner

from causalqa.cli import app as cli


@pytest.fixture
def through(monkeypatch):
    """{function name: the surfaces' calls that went through it}."""
    import causalqa.deduction.deduce
    import causalqa.discovery.graph
    import causalqa.discovery.pair

    seen: dict[str, list[str]] = {}
    for module, name in (
        (causalqa.discovery.pair, "discover_pairs"),
        (causalqa.discovery.graph, "find_graph"),
        (causalqa.deduction.deduce, "deduce_items"),
    ):
        real = getattr(module, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            seen.setdefault(_name, []).append(kwargs.get("method"))
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    return seen


def wait_done(client, job_id: str) -> dict:
    for _ in range(300):
        job = client.get(f"/v1/jobs/{job_id}").json()
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.1)
    raise AssertionError("the job did not end")


def test_a_pair_goes_through_discover_pairs_from_both_surfaces(
    scripted, evidence_model, through, tmp_path, monkeypatch
):
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))  # no KG store: text only
    client, service, _ = scripted()
    service._evidence_judge = evidence_model[0]
    body = {"a": "GENEX", "b": "cancerX", "context": "GENEX causes cancerX in patients ."}
    with client:
        api = client.post("/v1/discover/pair", json=body)
    assert api.status_code == 200, api.text
    args = ["discover", "pair", body["a"], body["b"], "--context", body["context"]]
    run = CliRunner().invoke(cli, [*args, "--evidence-model", str(evidence_model[2]), "--json"])
    assert run.exit_code == 0, run.output
    assert through["discover_pairs"] == ["evidence", "evidence"]
    api, run = api.json(), json.loads(run.stdout)
    api.pop("seconds"), run.pop("seconds")
    assert api == run


def test_a_graph_goes_through_find_graph_from_both_surfaces(scripted, through, monkeypatch):
    client, _, llm = scripted()
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: llm)
    with client:
        r = client.post("/v1/discover/graph", json={"variables": ["a", "b"], "ranker": "none"})
        assert r.status_code == 202, r.text
        job = wait_done(client, r.json()["id"])
    assert job["status"] == "done", job
    run = CliRunner().invoke(cli, ["discover", "graph", "--variables", "a,b", "--ranker", "none",
                                   "--json"])  # fmt: skip
    assert run.exit_code == 0, run.output
    assert through["find_graph"] == ["llm", "llm"]
    api, run = job["result"], json.loads(run.stdout)
    api.pop("seconds"), run.pop("seconds")
    for pair in api["pairs"] + run["pairs"]:
        pair.pop("seconds")
    assert api == run


def test_a_statement_goes_through_deduce_items_from_both_surfaces(scripted, through, monkeypatch):
    client, _, llm = scripted()
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: llm)
    with client:
        r = client.post(
            "/v1/deduce", json={"context": REPORT, "statement": STATEMENT, "method": "logprobs"}
        )
    assert r.status_code == 200, r.text
    args = ["deduce", "-c", REPORT, "-s", STATEMENT, "--method", "logprobs", "--json"]
    run = CliRunner().invoke(cli, args)
    assert run.exit_code == 0, run.output
    assert through["deduce_items"] == ["logprobs", "logprobs"]
    api, run = r.json(), json.loads(run.stdout)
    api.pop("seconds"), run.pop("seconds")
    # the scripted label scores: P(True) = 1 / (1 + e^(-1.8 + 0.2))
    assert api == run and api["probability"] == pytest.approx(0.832, abs=1e-3)
