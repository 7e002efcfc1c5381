"""`--concurrency N` on every command that sends many LLM requests: there, validated, and
defaulting to 1 for a local model and more for an ``openai:`` server."""

import json

import pytest
import typer.main
from tests.bench.test_qa_concurrency import SlowScripted
from typer.testing import CliRunner

from causalqa.bench import qa as bench_qa
from causalqa.cli import app
from causalqa.llm.concurrent import SERVER_CONCURRENCY

MANY_REQUESTS = [
    ("bench", "qa"),
    ("bench", "deduction"),
    ("bench", "discovery", "pairs"),
    ("bench", "discovery", "reference"),
    ("bench", "discovery", "rankers"),  # the LLM ranker's queries (--llm-queries)
    ("kg", "mine"),
    ("deduction", "dataset"),
    ("batch",),
]


@pytest.mark.parametrize("path", MANY_REQUESTS, ids=" ".join)
def test_the_commands_that_send_many_requests_take_concurrency(path):
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    options = {o for p in command.params for o in p.opts}
    assert "--concurrency" in options


@pytest.mark.parametrize(
    "extra, expected",
    [
        (["--concurrency", "3"], 3),
        ([], 1),  # the local model answers one call at a time
        (["--llm", "openai:http://127.0.0.1:9/v1#m"], SERVER_CONCURRENCY),
    ],
)
def test_bench_qa_runs_at_the_concurrency_asked(monkeypatch, tmp_path, extra, expected):
    monkeypatch.delenv("CAUSALQA_CONCURRENCY", raising=False)
    monkeypatch.delenv("CAUSALQA_LLM", raising=False)
    llm = SlowScripted()
    monkeypatch.setattr(bench_qa, "get_llm", lambda spec, **kw: llm)
    args = ["bench", "qa", "--quick", "--modes", "context", "--no-cache", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, *extra, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["concurrency"] == expected
    assert (llm.most > 1) == (expected > 1)


def test_a_concurrency_below_one_is_refused(tmp_path):
    result = CliRunner().invoke(app, ["bench", "qa", "--quick", "--concurrency", "0"])
    assert result.exit_code != 0 and "--concurrency" in result.output
