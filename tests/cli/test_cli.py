"""The command line as a user meets it: in a subprocess, exit codes and one-line errors."""

import json
import subprocess
import sys

import pytest
from tests.conftest import requires_small_model

from causalqa import __version__


def run(*args, stdin=None, env_extra=None, timeout=120):
    import os

    env = {**os.environ, "COLUMNS": "200", **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "causalqa.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=timeout,
        env=env,
    )


def assert_one_clear_error(proc, *needles, code=1):
    assert proc.returncode == code, proc
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error:"), proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def test_version():
    proc = run("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"causalqa {__version__}"


def test_unknown_backend():
    assert_one_clear_error(run("llm", "--llm", "gpt5", "hi"), "unknown LLM backend", "hint:")


def test_unknown_backend_from_environment():
    assert_one_clear_error(
        run("llm", "hi", env_extra={"CAUSALQA_LLM": "nope:x"}), "unknown LLM backend"
    )


def test_missing_schema_file(tmp_path):
    proc = run("llm", "--schema", str(tmp_path / "nope.json"), "hi")
    assert_one_clear_error(proc, "does not exist")


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "not valid JSON"),
        ('{"type": "strng"}', "invalid JSON schema"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_invalid_schema_file(tmp_path, content, needle):
    path = tmp_path / "s.json"
    path.write_text(content)
    assert_one_clear_error(run("llm", "--schema", str(path), "hi"), needle)


def test_verbose_shows_the_traceback():
    proc = run("--verbose", "llm", "--llm", "gpt5", "hi")
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr and "unknown LLM backend" in proc.stderr


def test_local_gguf_that_is_not_a_model(tmp_path):
    bad = tmp_path / "m.gguf"
    bad.write_bytes(b"\x00" * 1000)
    assert_one_clear_error(run("llm", "--llm", f"local:{bad}", "hi"), "not a GGUF")


def test_unreachable_server_cli():
    proc = run("llm", "--llm", "openai:http://127.0.0.1:9/v1#m", "--timeout", "3", "hi")
    assert_one_clear_error(proc, "cannot reach", "127.0.0.1:9", code=3)  # LLM unreachable


def test_models_json():
    proc = run("models", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    specs = [b["spec"] for b in data["backends"]]
    assert specs[:2] == ["local", "local:small"]
    assert data["current"] == "local"
    small = data["backends"][1]
    assert small["bytes"] == 491_400_064 and small["license"] == "Apache-2.0"


def test_models_table():
    proc = run("models")
    assert proc.returncode == 0
    assert "Qwen2.5-Coder-1.5B" in proc.stdout


PARTNERS = ["examples/partners/model/graph.graphml", "examples/partners/model/effects.csv"]


def effects_table():
    """The bundled partners table, read with pandas: the expected answers are computed
    from it, not copied from the program's output."""
    import pandas as pd

    return pd.read_csv(PARTNERS[1]).set_index("Partner ID")


def test_fit_writes_a_model_and_never_overwrites(tmp_path):
    args = (
        "fit",
        "examples/partners/partners.csv",
        "-t",
        "Tech Support",
        "-t",
        "Discount",
        "-y",
        "Revenue",
        "--subject-column",
        "Partner ID",
        "--filter",
        "Already Engaged",
        "--out",
        str(tmp_path / "m"),
        "--json",
    )
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["subjects"] == 1000 and summary["treatments"] == ["Tech Support", "Discount"]
    # the summary describes the files written: their graph and their table's averages
    import networkx as nx
    import pandas as pd

    graph = nx.read_graphml(tmp_path / "m" / "graph.graphml")
    assert (summary["variables"], summary["edges"]) == (len(graph.nodes), len(graph.edges))
    table = pd.read_csv(tmp_path / "m" / "effects.csv")
    assert len(table) == 1000
    assert list(table.columns) == ["Partner ID", "Tech Support", "Discount", "Already Engaged"]
    assert summary["ate"] == {t: round(float(table[t].mean()), 4) for t in summary["treatments"]}
    written = {f.name: f.read_bytes() for f in (tmp_path / "m").iterdir()}
    again = run(*args)
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert "overwrite" in again.stderr
    assert {f.name: f.read_bytes() for f in (tmp_path / "m").iterdir()} == written  # untouched


def test_fit_bad_column_is_a_clear_error(tmp_path):
    proc = run(
        "fit",
        "examples/partners/partners.csv",
        "-t",
        "Nope",
        "-y",
        "Revenue",
        "--out",
        str(tmp_path / "m"),
    )
    assert_one_clear_error(proc, "Nope")


def test_ask_with_a_missing_graph_file(tmp_path):
    proc = run("ask", "Is A a cause of B?", "--graph", str(tmp_path / "g.graphml"))
    assert_one_clear_error(proc)


def test_ask_with_a_cyclic_graph(tmp_path):
    g = tmp_path / "g.csv"
    g.write_text("source,target\nA,B\nB,C\nC,A\n")
    assert_one_clear_error(run("ask", "Is A a cause of B?", "--graph", str(g)), "cycle")


@pytest.mark.model
@requires_small_model
def test_ask_json_on_the_bundled_example():
    proc = run(
        "ask",
        "What is the average effect of Tech Support?",
        "--graph",
        PARTNERS[0],
        "--effects",
        PARTNERS[1],
        "--llm",
        "local:small",
        "--json",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {"answer", "result", "plan", "mode", "usage", "seconds"} <= set(out)
    assert out["plan"]["steps"][0] == {"tool": "ate", "args": {"treatment": "Tech Support"}}
    ate = float(effects_table()["Tech Support"].mean())
    assert out["result"] == pytest.approx(ate)
    assert f"{ate:.2f}" in out["answer"]


@pytest.mark.model
@requires_small_model
def test_chat_session_with_a_follow_up():
    questions = "Which engagement works best for partner P007?\nand for partner P042?\n"
    proc = run(
        "chat",
        "--graph",
        PARTNERS[0],
        "--effects",
        PARTNERS[1],
        "--llm",
        "local:small",
        "--json",
        stdin=questions,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    decoder = json.JSONDecoder()
    text, objs, i = proc.stdout, [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        obj, i = decoder.raw_decode(text, i)
        objs.append(obj)
    assert len(objs) == 2
    assert objs[0]["plan"]["steps"][0]["args"].get("subject") == "P007"
    assert objs[1]["plan"]["steps"][0]["args"].get("subject") == "P042"
    assert objs[0]["plan"]["steps"][0]["tool"] == objs[1]["plan"]["steps"][0]["tool"]
    # each answer names the partner's own best treatment in the table
    table = effects_table().select_dtypes("float")
    for obj, partner in zip(objs, ("P007", "P042"), strict=True):
        best = table.loc[partner].idxmax()
        assert obj["result"]["arg"] == best, obj
        assert obj["result"]["value"] == pytest.approx(table.loc[partner, best])


def _unloadable_model(tmp_path):
    # passes the header check at start-up; llama.cpp fails only when it reads the weights
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 64)
    return f"local:{path}"


def test_ask_answered_by_the_frames_never_loads_the_llm(tmp_path):
    llm = _unloadable_model(tmp_path)
    question = "What is the median effect of Tech Support?"
    args = ["--graph", PARTNERS[0], "--effects", PARTNERS[1], "--llm", llm, "--json"]
    proc = run("ask", question, *args)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["plan"]["steps"][0]["args"]["stat"] == "median"
    assert out["result"] == pytest.approx(float(effects_table()["Tech Support"].median()))
    assert out["usage"].get("prompt_tokens", 0) == 0


def test_ask_that_needs_the_llm_reports_an_unloadable_model_clearly(tmp_path):
    llm = _unloadable_model(tmp_path)
    args = ["--graph", PARTNERS[0], "--effects", PARTNERS[1], "--llm", llm]
    proc = run("ask", "Tell me a story about Tech Support", *args)
    assert_one_clear_error(proc, "could not load")
