"""The README's main command, as written (after its install step), on the embedded
Qwen2.5-Coder-1.5B: each of its nine answers checked against what the bundled model's
files say — the graph read by networkx, the effects table by pandas — so the test fails
if any answer changes. The install step itself is what `scripts/setup.sh` is; CI runs it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest
from tests.conftest import requires_default_model

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "examples" / "partners" / "model"
QUESTIONS = [
    "Does a change in Discount lead to a change in Revenue?",
    "Through which variables does Tech Support influence Revenue?",
    "Which variables directly influence Revenue?",
    "What is the average effect of Tech Support?",
    "Which engagement has the highest average effect?",
    "Which partner that is not yet engaged benefits most from New Engagement Strategy?",
    "Which engagement works best for partner P007?",
    "and for partner P042?",
    "Does the weather in Paris affect Revenue?",
]


def main_command() -> str:
    """The README's "Run the main job" command without its install step, run by this
    checkout's interpreter."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("**Run the main job**") :]
    command = re.search(r"```bash\n(.+?)\n```", section, re.S)[1].strip()
    install, _, run = command.partition(" && ")
    assert install == "bash scripts/setup.sh", command
    assert run.startswith(".venv/bin/causalqa chat "), command
    return run.replace(".venv/bin/causalqa", f"{sys.executable} -m causalqa.cli", 1)


def answers(stdout: str) -> dict[str, str]:
    """Each question's printed block (answer, what was computed, the footer), its
    whitespace made single spaces (the terminal wraps long lines)."""
    blocks = re.split(r"^\? ", stdout, flags=re.M)[1:]
    out = {}
    for block in blocks:
        flat = " ".join(block.split())
        question = next(q for q in QUESTIONS if flat.startswith(q))
        out[question] = flat[len(question) :].strip()
    return out


def quoted(answer: str) -> set[str]:
    """The names an answer quotes, before its "computed:" line."""
    return set(re.findall(r"'([^']+)'", answer.split("computed:")[0]))


def money(x: float) -> str:
    return f"{x:.2f}"


def test_the_example_questions_are_the_ones_checked_here():
    lines = (ROOT / "examples" / "partners" / "questions.txt").read_text().splitlines()
    assert [q for q in lines if q.strip()] == QUESTIONS


@pytest.mark.model
@requires_default_model
def test_the_readme_main_command_gives_the_answers_the_model_files_give():
    graph = nx.read_graphml(MODEL / "graph.graphml")
    effects = pd.read_csv(MODEL / "effects.csv", index_col="Partner ID")
    treatments = ["Tech Support", "Discount", "New Engagement Strategy"]
    means = effects[treatments].mean()

    env = {k: v for k, v in os.environ.items() if k != "CAUSALQA_LLM"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        ["bash", "-c", main_command()],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=1200,
        env=env,
    )  # the answers on stdout; what was computed and the footers on stderr
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "Traceback" not in proc.stdout
    got = answers(proc.stdout)
    assert list(got) == QUESTIONS, proc.stdout

    # 1. A directed path, or none.
    has_path = nx.has_path(graph, "Discount", "Revenue")
    assert got[QUESTIONS[0]].startswith("Yes" if has_path else "No"), got[QUESTIONS[0]]
    # 2. The variables on directed paths between the two.
    between = nx.descendants(graph, "Tech Support") & nx.ancestors(graph, "Revenue")
    assert quoted(got[QUESTIONS[1]]) - {"Tech Support", "Revenue"} == between
    # 3. The direct causes.
    assert quoted(got[QUESTIONS[2]]) - {"Revenue"} == set(graph.predecessors("Revenue"))
    # 4. The mean effect over all partners.
    assert money(means["Tech Support"]) in got[QUESTIONS[3]]
    assert f"over {len(effects):,} partners" in got[QUESTIONS[3]]
    # 5. The treatment with the highest mean effect.
    best = means.idxmax()
    assert quoted(got[QUESTIONS[4]]) == {best} and money(means[best]) in got[QUESTIONS[4]]
    # 6. Among partners not yet engaged, the largest effect of New Engagement Strategy.
    open_ = effects.loc[~effects["Already Engaged"], "New Engagement Strategy"]
    answer = got[QUESTIONS[5]]
    assert f"Subject {open_.idxmax()} " in answer and money(open_.max()) in answer, answer
    assert f"over {len(open_):,} partners" in answer, answer
    # 7-8. Each partner's best treatment (the second a follow-up of the first).
    for question, partner in [(QUESTIONS[6], "P007"), (QUESTIONS[7], "P042")]:
        row = effects.loc[partner, treatments].astype(float)
        answer = got[question]
        assert f"subject {partner} " in answer, answer
        assert quoted(answer) == {row.idxmax()} and money(row.max()) in answer, answer
    # 9. A name the model does not have: refused, and said why.
    assert "no variable or treatment named 'Paris'" in got[QUESTIONS[8]]

    # Every answer says it ran on the default 1.5B, in tool mode; the model wrote at least
    # one plan (the P007 question needs it: no rule decides which tool answers it).
    footers = [re.search(r"tool · (\S+) · (\d+) prompt \+ (\d+) completion tokens", a)
               for a in got.values()]  # fmt: skip
    assert all(f and "1.5B" in f[1] for f in footers), got
    assert int(footers[6][3]) > 0, got[QUESTIONS[6]]
