"""Small, fast runs of the benchmarks on the real small model (CI smoke tests); the full
runs are manual (`causalqa bench llm`, `causalqa bench qa`)."""

import json
import subprocess
import sys

import pytest
from tests.conftest import requires_llama

pytestmark = [pytest.mark.model, requires_llama]


def run(*args, timeout=900):
    return subprocess.run(
        [sys.executable, "-m", "causalqa.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_bench_llm_quick(tmp_path):
    proc = run(
        "bench", "llm", "--quick", "--models", "local:small", "--out", str(tmp_path), "--json"
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    row = report["rows"][0]
    assert row["spec"] == "local:small" and "error" not in row
    assert row["prompt_tok_per_s"] > 0 and row["gen_tok_per_s"] > 0 and row["peak_rss_mb"] > 100
    assert row["prefix_warm_seconds"] < row["prefix_cold_seconds"]
    env = report["environment"]
    assert env["cores"] and env["date"] and env["cpu"]
    assert (tmp_path / "llm-latest.md").read_text().startswith("# causalqa bench llm")


def test_bench_qa_quick(tmp_path):
    proc = run(
        "bench",
        "qa",
        "--quick",
        "--modes",
        "tool",
        "--llm",
        "local:small",
        "--out",
        str(tmp_path),
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    families = {r["family"] for r in report["rows"]}
    assert families == {"graph", "effect"}
    for row in report["rows"]:
        # Plans are decoded under the schema: every question gets a plan that runs.
        assert row["unparseable"].startswith("0.00"), row
        assert row["paper_correct"]  # the paper's numbers are printed beside ours
    assert (tmp_path / "qa-latest.png").stat().st_size > 1000
