"""The load test's fast form (``bench/serve_load.py`` with few questions): the real server
on loopback answers every question, refuses the burst beyond its queue with 429, and the
report says so. The full run (200 questions, 8 clients) is manual; see bench/README.md."""

from __future__ import annotations

import importlib.util
import json

import pytest
from tests.conftest import requires_llama
from tests.server.conftest import ROOT

pytestmark = [pytest.mark.model, requires_llama]


def test_load_smoke(tmp_path):
    spec = importlib.util.spec_from_file_location("serve_load", ROOT / "bench" / "serve_load.py")
    serve_load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve_load)
    args = ["--llm", "local:small", "--questions", "8", "--clients", "2", "--queue", "2"]
    code = serve_load.main([*args, "--burst", "8", "--max-seconds", "600", "--out", str(tmp_path)])
    report = json.loads((tmp_path / "serve-load-local-small-latest.json").read_text())
    assert code == 0 and report["errors_not_designed"] == 0
    assert report["answered_ok"] == 8 and report["latency_seconds"]["p95"] > 0
    # at most the queue, the running one and one that the worker took meanwhile get in
    assert report["burst"]["results"].get("429 queue_full", 0) >= 8 - 2 - 1 - 1
    assert (tmp_path / "serve-load-local-small-latest.png").exists()
    assert report["rss_mb"]["peak"] > report["rss_mb"]["ready"]
