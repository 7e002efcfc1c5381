"""Conventions a user relies on, for every command group: the global ``--llm`` and
``--json`` (given before the command) are honoured; ``--json`` prints one JSON document
per line; exit codes say what went wrong (1 bad input, 2 internal error, 3 the LLM
cannot be reached); one data-directory variable.

The LLM is a scripted backend found by its spec (``--llm scripted:NAME``) through the
real registry: a command that ignored the global ``--llm`` would reach for the default
embedded model instead, and `ScriptedBackend.asked` would not name the spec."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pytest
from tests.deduction.conftest import REPORT_A, REPORT_B, BagOfWordsEmbedder
from tests.discovery.test_discovery_pair import tiny_graph, write_path_data
from tests.hardening.support import (
    PARTNERS,
    ROOT,
    FuzzLLM,
    assert_clean_exit,
    run_cli,
    scripted_backend,
)

from causalqa import config
from causalqa.causal_model import CausalModel
from causalqa.kg import KnowledgeGraph

GRAPH = str(PARTNERS / "model" / "graph.graphml")
EFFECTS = str(PARTNERS / "model" / "effects.csv")


@pytest.fixture
def backend():
    with scripted_backend(FuzzLLM(seed=1, text="The frost caused the stall.")) as backend:
        yield backend


@pytest.fixture
def bag_of_words(monkeypatch):
    monkeypatch.setattr("causalqa.embed.Embedder", lambda *a, **k: BagOfWordsEmbedder())


@pytest.fixture
def store(tmp_path):
    KnowledgeGraph.build(tiny_graph(), tmp_path / "store").close()
    return tmp_path / "store"


def one_json_line(run):
    assert_clean_exit(run, codes=(0,))
    docs = run.json_lines()
    assert len(docs) == 1, run.stdout
    return docs[0]


# -- the global --llm reaches every command that asks an LLM --------------------------------
def llm_commands(tmp_path, store):
    reports = tmp_path / "reports"
    reports.mkdir(exist_ok=True)
    (reports / "A.txt").write_text(REPORT_A)
    (reports / "B.txt").write_text(REPORT_B)
    root = tmp_path / "p2c"
    if not root.exists():
        write_path_data(root)
    return {
        "llm": ["llm", "hi"],
        "ask": ["ask", "What is the average effect of Tech Support?", "--graph", GRAPH,
                "--effects", EFFECTS],
        "chat": ["chat", "--graph", GRAPH, "--effects", EFFECTS],
        "deduce": ["deduce", "--context", REPORT_A, "--statement", "The frost on the wings.",
                   "--method", "text"],
        "kg mine": ["kg", "mine", str(reports), "--out", str(tmp_path / "ckg")],
        "deduction mine": ["deduction", "mine", str(reports), "--out", str(tmp_path / "ckg2")],
        "discover pair": ["discover", "pair", "Raloxifene", "melanoma", "--kg", str(store),
                          "--ranker", "random", "--method", "llm"],
        "discover graph": ["discover", "graph", "--variables", "Raloxifene,melanoma",
                           "--ranker", "none"],
        "bench discovery reference": ["bench", "discovery", "reference", "--datasets",
                                      "comagc", "--per-dataset", "2", "--no-evaluate",
                                      "--data", str(root), "--out", str(tmp_path / "out")],
        "bench discovery pairs": ["bench", "discovery", "pairs", "--datasets", "comagc",
                                  "--methods", "none", "--data", str(root), "--out",
                                  str(tmp_path / "out")],
    }  # fmt: skip


COMMANDS = [
    "llm",
    "ask",
    "chat",
    "deduce",
    "kg mine",
    "deduction mine",
    "discover pair",
    "discover graph",
    "bench discovery reference",
    "bench discovery pairs",
]


@pytest.mark.parametrize("name", COMMANDS)
def test_global_llm_and_json_reach_the_command(name, tmp_path, store, backend, bag_of_words):
    argv = llm_commands(tmp_path, store)[name]
    stdin = "What is the average effect of Discount?\n" if name == "chat" else ""
    run = run_cli("--llm", f"scripted:{name}", "--json", *argv, stdin=stdin)
    doc = one_json_line(run)
    assert backend.asked and set(backend.asked) == {name}, backend.asked
    assert isinstance(doc, dict)


def test_global_llm_selects_what_bench_llm_measures(monkeypatch):
    import causalqa.bench.llm

    seen = {}

    def fake(specs, **kwargs):
        seen["specs"] = specs
        return {"markdown": "measured", "specs": specs}

    monkeypatch.setattr(causalqa.bench.llm, "run_llm_bench", fake)
    doc = one_json_line(run_cli("--llm", "local:small", "--json", "bench", "llm", "--quick"))
    assert seen["specs"] == ["local:small"] and doc["specs"] == ["local:small"]
    run_cli("bench", "llm", "--quick")
    assert seen["specs"] == ["local:small", "local"]  # no --llm: both embedded models


def test_global_llm_reaches_models_and_the_command_flag_wins(backend):
    assert one_json_line(run_cli("--llm", "scripted:g", "--json", "models"))["current"] == (
        "scripted:g"
    )
    run = run_cli("--llm", "scripted:global", "--json", "llm", "--llm", "scripted:own", "hi")
    one_json_line(run)
    assert backend.asked == ["own"]


def test_global_llm_reaches_serve_and_mcp(monkeypatch, tmp_path):
    """The service surfaces take the model from the global --llm too (their servers are
    not started here: uvicorn.run and the MCP transport are replaced)."""
    import uvicorn

    import causalqa.server
    import causalqa.server.mcp_server
    import causalqa.server.service

    seen = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    monkeypatch.setattr(causalqa.server, "create_app", lambda s: seen.append(s.llm))

    class NoService:
        def __init__(self, settings):
            seen.append(settings.llm)

        def start(self):
            return self

        def stop(self):
            pass

    class NoServer:
        def streamable_http_app(self, **kw):
            return None

    monkeypatch.setattr(causalqa.server.service, "Service", NoService)
    monkeypatch.setattr(causalqa.server.mcp_server, "build_mcp", lambda service: NoServer())
    data = ["--data-dir", str(tmp_path / "server")]
    assert_clean_exit(run_cli("--llm", "scripted:serve", "serve", *data), codes=(0,))
    run = run_cli("--llm", "scripted:mcp", "mcp", "--transport", "http", *data)
    assert_clean_exit(run, codes=(0,))
    run = run_cli("--llm", "scripted:global", "mcp", "--transport", "http", "--llm",
                  "scripted:own", *data)  # fmt: skip
    assert_clean_exit(run, codes=(0,))
    assert seen == ["scripted:serve", "scripted:mcp", "scripted:own"]


# -- --json: one document per line, for commands without an LLM too ------------------------
def test_json_is_one_line_for_fit_kg_and_deduction_stats(tmp_path, store, bag_of_words):
    fit = one_json_line(
        run_cli("--json", "fit", str(PARTNERS / "partners.csv"), "-t", "Tech Support",
                "-y", "Revenue", "--subject-column", "Partner ID", "--out",
                str(tmp_path / "m"))
    )  # fmt: skip
    assert fit["subjects"] == 1000
    triples = tmp_path / "t.tsv"
    triples.write_text("head\trelation\ttail\nsmoking\tcauses\tcancer\ntar\tin\tsmoking\n")
    kg = str(tmp_path / "kg")
    assert (
        one_json_line(run_cli("--json", "kg", "load", "triples", str(triples), "--store", kg))[
            "edges"
        ]
        == 2
    )
    assert one_json_line(run_cli("--json", "kg", "stats", "--store", kg))["nodes"] == 3
    paths = one_json_line(run_cli("--json", "kg", "paths", "tar", "cancer", "--store", kg))
    assert paths["count"] == 1


def test_chat_json_prints_one_line_per_answer(backend):
    questions = "What is the average effect of Tech Support?\nWhich partner gains most?\n"
    run = run_cli("--llm", "scripted:x", "--json", "chat", "--graph", GRAPH, "--effects",
                  EFFECTS, stdin=questions)  # fmt: skip
    assert_clean_exit(run, codes=(0,))
    answers = run.json_lines()
    assert len(answers) == 2 and all("answer" in a for a in answers)
    # one line per question, in the order asked; the first is the table's average
    assert [a["question"] for a in answers] == questions.splitlines()
    import pandas as pd

    ate = float(pd.read_csv(EFFECTS)["Tech Support"].mean())
    assert answers[0]["result"] == pytest.approx(ate)


def test_emit_json_is_standard_json_on_one_line(capsys):
    from causalqa.cli.options import emit_json

    emit_json({"nan": float("nan"), "text": "two\nlines\u2028and more", "tuple": (1, 2)})
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and len(out.splitlines()) == 1
    assert json.loads(out, parse_constant=pytest.fail) == {
        "nan": None,
        "text": "two\nlines\u2028and more",
        "tuple": [1, 2],
    }


# -- exit codes ---------------------------------------------------------------------------
def test_exit_codes_are_documented_and_distinct():
    from causalqa import cli
    from causalqa.errors import (
        CausalQAError,
        LLMTimeoutError,
        LLMUnavailableError,
        ModelDataError,
        ModelFileError,
    )

    assert cli.exit_code(ModelDataError("bad file")) == cli.EXIT_BAD_INPUT == 1
    assert cli.exit_code(ModelFileError("not a GGUF")) == 1
    assert cli.exit_code(LLMUnavailableError("cannot reach")) == cli.EXIT_LLM == 3
    assert cli.exit_code(LLMTimeoutError("too slow")) == 3
    assert cli.exit_code(KeyError("bug")) == cli.EXIT_INTERNAL == 2
    assert cli.exit_code(CausalQAError("x")) == 1
    for code in ("1", "2", "3"):
        assert f"- {code} (`EXIT_" in cli.__doc__
    readme = (ROOT / "README.md").read_text()
    assert "exit code" in readme.lower() and "3" in readme


def test_a_usage_error_is_bad_input_not_an_internal_error():
    run = run_cli("ask", "--no-such-option")
    assert run.code == 1 and "No such option" in run.stderr and "Traceback" not in run.stderr


def test_an_internal_error_exits_2_without_a_traceback(monkeypatch):
    import causalqa.cli.llm

    def broken(*a, **k):
        raise KeyError("a bug")

    monkeypatch.setattr("causalqa.llm.schema.load_schema", broken)
    run = run_cli("llm", "--schema", "x.json", "hi")
    assert run.code == 2 and run.stderr.startswith("internal error: KeyError")
    assert "Traceback" not in run.stderr
    assert causalqa.cli.llm  # imported for the patch target


def test_unreachable_server_exits_3_in_a_real_process():
    proc = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "--llm", "openai:http://127.0.0.1:9/v1#m",
         "llm", "--timeout", "3", "hi"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.startswith("error:") and "Traceback" not in proc.stderr


def test_ask_with_an_unreachable_server_exits_3_not_0():
    # context mode always asks the LLM (a tool-mode question may be read without it)
    proc = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "--llm", "openai:http://127.0.0.1:9/v1#m",
         "ask", "Which partner benefits most from Tech Support?", "--graph", GRAPH,
         "--effects", EFFECTS, "--mode", "context"],
        capture_output=True, text=True, timeout=120, env={**__import__("os").environ,
                                                            "CAUSALQA_TIMEOUT": "3"},
    )  # fmt: skip
    assert proc.returncode == 3, (proc.returncode, proc.stdout, proc.stderr)


def test_discover_pair_refuses_empty_names(store, backend):
    run = run_cli("--llm", "scripted:x", "discover", "pair", "", "", "--kg", str(store))
    assert run.code == 1 and "empty" in run.stderr.lower(), (run.code, run.stdout, run.stderr)


# -- one data-directory variable ----------------------------------------------------------
def test_causalqa_data_names_the_data_directory(monkeypatch, tmp_path):
    monkeypatch.delenv("CAUSALQA_DATA_DIR", raising=False)
    monkeypatch.setenv("CAUSALQA_DATA", str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert config.data_dir() == tmp_path


def test_the_old_variable_still_works_and_warns(monkeypatch, tmp_path):
    monkeypatch.delenv("CAUSALQA_DATA", raising=False)
    monkeypatch.setenv("CAUSALQA_DATA_DIR", str(tmp_path))
    with pytest.warns(FutureWarning, match="CAUSALQA_DATA_DIR is deprecated.*CAUSALQA_DATA"):
        assert config.data_dir() == tmp_path
    monkeypatch.setenv("CAUSALQA_DATA", str(tmp_path / "new"))
    with pytest.warns(FutureWarning, match="ignored"):
        assert config.data_dir() == tmp_path / "new"


def test_without_a_variable_the_shared_data_beside_the_repository(monkeypatch):
    monkeypatch.delenv("CAUSALQA_DATA", raising=False)
    monkeypatch.delenv("CAUSALQA_DATA_DIR", raising=False)
    assert config.data_dir().parts[-2:] == ("shared", "data")


@pytest.mark.parametrize("module", ["causalqa.discovery.pathdata", "causalqa.deduction.dataset"])
def test_every_engine_finds_its_data_through_config_data_dir(module, monkeypatch, tmp_path):
    import importlib

    monkeypatch.delenv("CAUSALQA_DATA_DIR", raising=False)
    monkeypatch.setenv("CAUSALQA_DATA", str(tmp_path / "a"))
    assert importlib.import_module(module).default_data_dir() == tmp_path / "a"
    monkeypatch.delenv("CAUSALQA_DATA")
    monkeypatch.setenv("CAUSALQA_DATA_DIR", str(tmp_path / "b"))
    with pytest.warns(FutureWarning):
        assert importlib.import_module(module).default_data_dir() == tmp_path / "b"


# -- discover graph → ask --graph ---------------------------------------------------------
def test_a_discovered_graph_round_trips_into_ask(tmp_path, backend):
    out = tmp_path / "g.graphml"
    run = run_cli("--llm", "scripted:x", "discover", "graph", "--variables",
                  "Smoking,Tar,Cancer", "--ranker", "none", "--out", str(out))  # fmt: skip
    assert run.code == 0 and out.is_file(), (run.code, run.stderr)
    graph = CausalModel.load(out).graph
    assert set(graph.nodes) == {"Smoking", "Tar", "Cancer"}
    asked = run_cli("--llm", "scripted:x", "--json", "ask", "Does Smoking cause Cancer?",
                    "--graph", str(out))  # fmt: skip
    assert asked.code == 0 and len(asked.json_lines()) == 1
