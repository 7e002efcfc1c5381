"""The default path, end to end, on the default model: `causalqa chat` over the bundled
partner example with the embedded Qwen2.5-Coder-1.5B-Instruct (no --llm), checked
against numbers computed here from the effects table — not against a stored score."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pandas as pd
import pytest
from tests.conftest import requires_default_model
from tests.hardening.support import PARTNERS, ROOT

pytestmark = [pytest.mark.model, requires_default_model]


def test_qa_on_the_default_model_answers_from_the_effects_table():
    effects = pd.read_csv(PARTNERS / "model" / "effects.csv")
    open_ = effects[~effects["Already Engaged"]]
    best = open_.loc[open_["Tech Support"].idxmax()]
    env = {k: v for k, v in os.environ.items() if k != "CAUSALQA_LLM"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "--json", "ask",
         "Which partner not yet engaged benefits most from Tech Support?", "--graph",
         str(PARTNERS / "model" / "graph.graphml"), "--effects",
         str(PARTNERS / "model" / "effects.csv")],
        capture_output=True, text=True, timeout=900, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (answer,) = (json.loads(line) for line in proc.stdout.splitlines())
    assert "1.5B" in answer["model"], answer["model"]  # the default, not the small model
    assert answer["answered"] and answer["result"], answer
    assert answer["result"]["arg"] == str(best["Partner ID"]), answer
    assert answer["result"]["value"] == pytest.approx(best["Tech Support"], abs=1e-3), answer
    assert str(best["Partner ID"]) in answer["answer"], answer


def test_the_default_model_itself_generates():
    """`causalqa llm` with no --llm: the embedded 1.5B is loaded and writes tokens that
    answer (the QA test above may be answered without the model writing anything)."""
    env = {k: v for k, v in os.environ.items() if k != "CAUSALQA_LLM"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "--json", "llm", "--no-cache", "--max-tokens",
         "24", "Count from 1 to 6, the numbers separated by commas. Reply with them only."],
        capture_output=True, text=True, timeout=900, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    reply = json.loads(proc.stdout)
    assert (reply["spec"], reply["spec_source"]) == ("local", "default"), reply
    assert "1.5B" in reply["model"], reply
    assert reply["usage"]["completion_tokens"] >= 6, reply
    assert [int(n) for n in re.findall(r"\d+", reply["text"])] == [1, 2, 3, 4, 5, 6], reply
