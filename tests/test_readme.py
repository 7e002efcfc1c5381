"""Every example in the READMEs runs as written: each fenced ``bash`` block through bash,
each ``python`` block through Python, in a scratch folder holding a copy of ``examples/``
(so relative paths work and nothing in the repository is touched), with the package of
this checkout on the path. A block that cannot run here says so right above it with
``<!-- readme-test: skip — why -->`` (installing from PyPI, starting or needing a server);
only those are skipped, ``text`` blocks are synopses, not examples, and ``json`` blocks
(configuration snippets) must parse. Blocks that reach the LLM run the real
embedded model, so they are marked ``model``.

Running is not enough: a block followed by a ``text`` block (what the README says it
prints) must print exactly that, and every other block has a check below of what the
README says it does, with the expected values computed from the files it writes or reads
(pandas over the effects table, softmax of the printed log-probabilities)."""

from __future__ import annotations

import ast
import json
import math
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


# a ``text`` block right after a runnable one (only a blank line between): what it prints
PRINTS = re.compile(r"\n[ \t]*\n```text\n(?P<out>.*?)\n```", re.S)


def blocks():
    found = []
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text[: m.start("body")].count("\n") + 1
            found.append((readme.relative_to(ROOT), line, m["lang"].strip(), m["body"],
                          SKIP.search(m["before"])))  # fmt: skip
    return found


def printed_output(body: str) -> str | None:
    """The ``text`` block the README shows right after the block `body`, if any."""
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        at = text.find(f"\n{body}\n```")
        if at >= 0:
            m = PRINTS.match(text, at + len(body) + 5)
            return m["out"] if m else None
    raise AssertionError(f"block not found: {body[:60]}")


BLOCKS = blocks()


# -- what each block without a printed-output block does, as the README says ---------------


def _fitted_ates(stdout: str) -> dict[str, float]:
    return {t: float(v) for t, v in re.findall(r"ATE of '(.+?)' on 'Revenue': (\S+)", stdout)}


def _means(effects: Path) -> dict[str, float]:
    import pandas as pd

    table = pd.read_csv(effects)
    return {c: float(table[c].mean()) for c in table.columns[1:] if table[c].dtype.kind == "f"}


def check_fit_ask_chat(proc, tmp_path):
    """`fit` writes model/ and prints each treatment's average effect (the written table's
    column means); `ask --json` gives answer, result, plan, mode, usage and seconds, and the
    result is the partner not yet engaged with the largest Tech Support effect in the table
    `fit` wrote; `chat` with nothing on its input ends without answering anything."""
    import pandas as pd

    effects = tmp_path / "model" / "effects.csv"
    assert (tmp_path / "model" / "graph.graphml").is_file() and effects.is_file()
    means = _means(effects)
    assert set(means) == {"Tech Support", "Discount"}
    ates = _fitted_ates(proc.stdout)
    assert ates == {t: round(v, 4) for t, v in means.items()}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    # one JSON answer, printed last: chat, reading nothing, answered nothing
    assert len(lines) == 1 and proc.stdout.splitlines()[-1] == lines[0], proc.stdout
    out = json.loads(lines[0])
    assert {"answer", "result", "plan", "mode", "usage", "seconds"} <= set(out)
    table = pd.read_csv(effects)
    waiting = table[~table["Already Engaged"].astype(bool)]
    best = waiting.loc[waiting["Tech Support"].idxmax()]
    assert out["result"]["arg"] == best["Partner ID"]
    assert out["result"]["value"] == pytest.approx(best["Tech Support"])
    assert best["Partner ID"] in out["answer"]


def check_llm_layer(proc, tmp_path):
    """`r.data` is `{'answer': True}` as the comment says, with tokens counted and time
    spent; `label_logprobs` gives negative log-probabilities, `best` their argmax ("True"
    for "Does smoking cause cancer?") and `normalized` their softmax."""
    data, usage, scores = proc.stdout.splitlines()
    assert ast.literal_eval(data) == {"answer": True}
    m = re.fullmatch(r"Usage\(prompt_tokens=(\d+), completion_tokens=(\d+)\) (\S+)", usage)
    assert m and int(m[1]) > 0 and int(m[2]) > 0 and float(m[3]) > 0, usage
    m = re.fullmatch(r"(\{.*?\}) (\w+) (\{.*\})", scores)
    assert m, scores
    logprobs, best, normalized = ast.literal_eval(m[1]), m[2], ast.literal_eval(m[3])
    assert set(logprobs) == {"True", "False"} and all(v < 0 for v in logprobs.values())
    assert best == max(logprobs, key=logprobs.get) == "True"
    total = sum(math.exp(v) for v in logprobs.values())
    assert normalized == pytest.approx({k: math.exp(v) / total for k, v in logprobs.items()})


def check_partners_fit(proc, tmp_path):
    """The fit writes what ships in examples/partners/model/ ("what `causalqa fit` made of
    it"), prints each treatment's average effect (the written table's column means), and
    those round to the numbers the partners README gives ("the fitted table gives …")."""
    import networkx as nx
    import pandas as pd

    written, shipped = tmp_path / "examples/partners/model", ROOT / "examples/partners/model"
    new, old = pd.read_csv(written / "effects.csv"), pd.read_csv(shipped / "effects.csv")
    assert list(new.columns) == list(old.columns) and len(new) == len(old) == 1000
    for col in new.columns:
        if new[col].dtype.kind == "f":
            assert new[col].to_numpy() == pytest.approx(old[col].to_numpy(), abs=1e-6), col
        else:
            assert new[col].tolist() == old[col].tolist(), col
    g_new, g_old = (nx.read_graphml(d / "graph.graphml") for d in (written, shipped))
    assert set(g_new.edges) == set(g_old.edges) and set(g_new.nodes) == set(g_old.nodes)
    means = _means(written / "effects.csv")
    assert _fitted_ates(proc.stdout) == {t: round(v, 4) for t, v in means.items()}
    said = re.search(
        r"the fitted table gives ([\d.]+),\s+([\d.]+)\s+and\s+([\d.]+)\.",
        (ROOT / "examples/partners/README.md").read_text(encoding="utf-8"),
    )
    assert said, "the partners README no longer states the fitted averages"
    assert [float(x) for x in said.groups()] == [round(v, 1) for v in means.values()]


# A distinctive piece of each block → its check. The partners chat session's nine answers
# (the main README's first command) are checked by tests/test_readme_main.py.
CHECKS = {
    "--out model/ --overwrite": check_fit_ask_chat,
    "print(r.data)  # {'answer': True}": check_llm_layer,
    "--out examples/partners/model --overwrite": check_partners_fit,
    "< examples/partners/questions.txt": None,
}


def check_of(body: str):
    found = [key for key in CHECKS if key in body]
    assert len(found) == 1, f"give this README block one check in CHECKS: {body[:80]}"
    return CHECKS[found[0]]


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
    for _readme, _line, lang, body, skip in BLOCKS:
        if lang in RUNNABLE and not skip and printed_output(body) is None:
            check_of(body)  # what it does is checked, not only that it exits 0
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
    shown = printed_output(body)
    if shown is not None:
        # what the README shows it prints, after the files a `cat` in the block prints
        cats = "".join(
            (tmp_path / f).read_text(encoding="utf-8")
            for f in re.findall(r"^cat (\S+)$", body, re.M)
        )
        assert proc.stdout == cats + shown + "\n"
    elif (check := check_of(body)) is not None:
        check(proc, tmp_path)
