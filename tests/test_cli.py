"""The command line as a user meets it: in a subprocess, exit codes and one-line errors."""

import json
import subprocess
import sys

import pytest

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


def assert_one_clear_error(proc, *needles):
    assert proc.returncode == 1, proc
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
    assert_one_clear_error(proc, "cannot reach", "127.0.0.1:9")


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
