"""Every example in the READMEs runs as written: each fenced ``bash`` block through bash,
each ``python`` block through Python, in a scratch folder holding a copy of ``examples/``
(so relative paths work and nothing in the repository is touched), with the package of
this checkout on the path. A block that cannot run here says so right above it with
``<!-- readme-test: skip — why -->`` (installing from PyPI, starting or needing a server);
only those are skipped, ``text`` blocks are synopses, not examples, and ``json`` blocks
(configuration snippets) must parse. Blocks that reach the LLM run the real
embedded model, so they are marked ``model``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import requires_default_model

ROOT = Path(__file__).resolve().parents[1]
READMES = [ROOT / "README.md", ROOT / "examples" / "partners" / "README.md"]
FENCE = re.compile(r"(?P<before>[^\n]*)\n```(?P<lang>[^\n`]*)\n(?P<body>.*?)\n```", re.S)
SKIP = re.compile(r"<!-- readme-test: skip — (?P<why>.+?) -->")
RUNNABLE = {"bash": "bash", "sh": "bash", "shell": "bash", "python": "python"}
NEEDS_LLM = re.compile(r"causalqa (ask|chat|llm|deduce|discover)\b|get_llm\(")


def blocks():
    found = []
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text[: m.start("body")].count("\n") + 1
            found.append((readme.relative_to(ROOT), line, m["lang"].strip(), m["body"],
                          SKIP.search(m["before"])))  # fmt: skip
    return found


BLOCKS = blocks()


def params():
    for readme, line, lang, body, skip in BLOCKS:
        if lang not in RUNNABLE:
            continue
        marks = []
        if skip:
            marks.append(pytest.mark.skip(reason=f"marked in the README: {skip['why']}"))
        elif NEEDS_LLM.search(body):
            marks += [pytest.mark.model, requires_default_model]
        yield pytest.param(lang, body, id=f"{readme}:{line}", marks=marks)


def test_every_fenced_block_is_runnable_text_or_marked():
    for readme, line, lang, body, _skip in BLOCKS:
        assert lang in RUNNABLE or lang in ("text", "json"), (
            f"{readme}:{line}: give the block a language (bash, python, json, or text for a "
            "synopsis)"
        )
        if lang == "json":
            json.loads(body)
    skipped = [b for b in BLOCKS if b[4]]
    assert len(skipped) == 6 and all(
        "PyPI" in b[4]["why"] or "server" in b[4]["why"] for b in skipped
    ), [b[4]["why"] for b in skipped]


@pytest.mark.parametrize(("lang", "body"), list(params()))
def test_readme_example_runs_as_written(lang, body, tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        "CAUSALQA_THREADS": os.environ.get("CAUSALQA_THREADS", "2"),
    }
    if lang == "python":
        cmd = [sys.executable, "-c", body]
    else:
        cmd = ["bash", "-euo", "pipefail", "-c", body]
    proc = subprocess.run(
        cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 0, f"{body}\n--- stderr:\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr
