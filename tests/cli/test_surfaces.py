"""One command per benchmark, retired names that still work, and options declared once:
the older spellings run the same library call as the new commands, after one line on
stderr naming the new command, and are hidden from --help."""

from __future__ import annotations

import json
import re

import pytest
from tests.deduction.conftest import REPORT_A
from tests.discovery.test_discovery_pair import PromptLLM, tiny_graph
from typer.testing import CliRunner

from causalqa.cli import app
from causalqa.kg import KnowledgeGraph

runner = CliRunner()


def deprecation_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if "deprecated" in line]


@pytest.fixture
def bench_calls(monkeypatch):
    """The QA benchmark functions, replaced by recorders of their arguments."""
    import causalqa.bench.qa
    import causalqa.bench.qa_open

    calls = []

    def record(name):
        def run(*args, **kwargs):
            kwargs.pop("console", None)
            calls.append((name, args, kwargs))
            return {"markdown": f"{name} ran", "outcomes": []}

        return run

    monkeypatch.setattr(causalqa.bench.qa, "run_qa_bench", record("templates"))
    monkeypatch.setattr(causalqa.bench.qa_open, "run_open_bench", record("open"))
    monkeypatch.setattr(causalqa.bench.qa_open, "replay_open_bench", record("replay"))
    return calls


def test_each_qa_benchmark_has_its_command(bench_calls, tmp_path):
    out = ["--out", str(tmp_path)]
    for argv, name in (
        (["bench", "qa", "--quick", *out], "templates"),
        (["bench", "qa-open", "--wordings", "dev2", "--sizes", "small", "--seeds", "2", *out],
         "open"),
        (["bench", "qa-replay", str(tmp_path / "run.json"), *out], "replay"),
    ):  # fmt: skip
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, result.output
        assert bench_calls[-1][0] == name and f"{name} ran" in result.stdout
        assert not deprecation_lines(result)
    _, args, kwargs = bench_calls[1]
    assert kwargs["wording"] == "dev2" and kwargs["sizes"] == ("small",) and kwargs["seeds"] == 2
    assert bench_calls[2][1] == (tmp_path / "run.json",)


def test_the_old_flag_forms_run_the_same_benchmark_and_say_what_to_use(bench_calls, tmp_path):
    out = ["--out", str(tmp_path)]
    pairs = [
        (["bench", "qa-open", "--wordings", "test3", "--sizes", "small,large", "--cold", "2"],
         ["bench", "qa", "--open", "--wordings", "test3", "--open-sizes", "small,large",
          "--cold", "2"], "causalqa bench qa-open"),
        (["bench", "qa-replay", str(tmp_path / "r.json")],
         ["bench", "qa", "--open", "--replay", str(tmp_path / "r.json")],
         "causalqa bench qa-replay"),
    ]  # fmt: skip
    for new, old, named in pairs:
        assert runner.invoke(app, [*new, *out]).exit_code == 0
        result = runner.invoke(app, [*old, *out])
        assert result.exit_code == 0, result.output
        assert bench_calls[-1] == bench_calls[-2]  # the same call, argument for argument
        (line,) = deprecation_lines(result)
        assert named in line


def test_the_old_flags_are_hidden_and_the_new_commands_listed():
    qa_help = runner.invoke(app, ["bench", "qa", "--help"]).stdout
    for flag in ("--open", "--replay", "--wordings", "--open-sizes", "--cold"):
        assert not re.search(rf"{flag}\b", qa_help), flag
    bench_help = runner.invoke(app, ["bench", "--help"]).stdout
    assert "qa-open" in bench_help and "qa-replay" in bench_help
    listed = set(re.findall(r"^│ (\w\S*)\s", runner.invoke(app, ["deduction", "--help"]).stdout,
                            re.M))  # fmt: skip
    assert listed == {"dataset", "train", "stats", "reparse"}, listed


def test_a_retired_command_still_answers_as_the_new_one(monkeypatch):
    from causalqa.llm.testing import ScriptedLLM

    llm = ScriptedLLM(label_scores={"True": -0.2, "False": -1.8})
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: llm)
    args = ["-c", REPORT_A, "-s", "The frost on the wings.", "--method", "logprobs", "--json"]
    new = runner.invoke(app, ["deduce", *args])
    old = runner.invoke(app, ["deduction", "deduce", *args])
    assert new.exit_code == 0 and old.exit_code == 0, old.output
    first, second = json.loads(new.stdout), json.loads(old.stdout)
    first.pop("seconds"), second.pop("seconds")
    # P(True) = e^-0.2 / (e^-0.2 + e^-1.8) = 1 / (1 + e^-1.6)
    assert first == second and first["probability"] == pytest.approx(0.832, abs=1e-3)
    assert not deprecation_lines(new)
    (line,) = deprecation_lines(old)
    assert "use causalqa deduce instead" in line


def test_retired_graph_and_pair_spellings_name_their_replacement(monkeypatch, tmp_path):
    import causalqa.cli.bench

    seen = {}
    monkeypatch.setattr(causalqa.cli.bench, "sachs_kg", lambda *a: seen.setdefault("args", a))
    result = runner.invoke(app, ["discover", "graph", "--sachs", "--ranker", "none"])
    assert result.exit_code == 0, result.output
    (line,) = deprecation_lines(result)
    assert "causalqa bench discovery sachs --ours none,none" in line and seen["args"]
    store = tmp_path / "store"
    KnowledgeGraph.build(tiny_graph(), store).close()
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: PromptLLM(lambda text: 0.8))
    args = ["discover", "pair", "Raloxifene", "breast cancer", "--kg", str(store)]
    result = runner.invoke(app, [*args, "--method", "llm", "--no-calibrate", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["decision"] == "argmax"
    (line,) = deprecation_lines(result)
    assert "--decision" in line


def test_shared_options_read_the_same_everywhere():
    """An option declared once reads the same in every command that takes it."""

    def help_of(command: str) -> str:
        text = runner.invoke(app, [*command.split(), "--help"]).stdout
        return re.sub(r"[\s│]+", " ", text)  # the help's table, as one line of words

    for command in ("discover graph", "discover train", "serve", "mcp",
                    "bench discovery sachs", "bench discovery latency"):  # fmt: skip
        assert "Knowledge graph store folder (default:" in help_of(command), command
    # discover pair consults every loaded store unless one is named
    assert "The one store to consult" in help_of("discover pair")
    assert "default: every store loaded under" in help_of("discover pair")
    for command in ("deduce", "deduction train", "bench deduction"):
        assert "A mined causal KG directory" in help_of(command), command
    for command in ("llm", "batch", "bench qa", "bench qa-open", "bench discovery pairs"):
        assert "The on-disk LLM response cache" in help_of(command), command


def test_the_deduction_cost_benchmarks_have_their_commands(monkeypatch, tmp_path):
    import causalqa.bench.deduction_mining as costs

    calls = []
    for name in ("run_mining_bench", "run_speed_bench"):
        monkeypatch.setattr(
            costs, name, lambda *a, _n=name, **k: calls.append((_n, a, k)) or {"markdown": _n}
        )
    data, out = str(tmp_path / "d.jsonl"), ["--out", str(tmp_path)]
    pairs = [
        (["bench", "deduction-mining", "--data", data, "--reports", "3", "--mode", "paper"],
         ["bench", "deduction", "--data", data, "--mining", "--limit-reports", "3",
          "--mining-mode", "paper"], "causalqa bench deduction-mining"),
        (["bench", "deduction-speed", "--data", data, "--seed", "2"],
         ["bench", "deduction", "--data", data, "--speed", "--seed", "2"],
         "causalqa bench deduction-speed"),
    ]  # fmt: skip
    for new, old, named in pairs:
        first = runner.invoke(app, [*new, *out])
        assert first.exit_code == 0, first.output
        assert not deprecation_lines(first)
        second = runner.invoke(app, [*old, *out])
        assert second.exit_code == 0, second.output
        assert calls[-1] == calls[-2]  # the same call, argument for argument
        (line,) = deprecation_lines(second)
        assert named in line
    assert calls[0][2]["reports"] == 3 and calls[0][2]["mode"] == "paper"
    assert calls[2][2]["seed"] == 2
