"""The default path, end to end, on the default model: `causalqa chat` over the bundled
partner example with the embedded Qwen2.5-Coder-1.5B-Instruct (no --llm), checked
against numbers computed here from the effects table — not against a stored score."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from tests.conftest import requires_default_model
from tests.hardening.support import PARTNERS, ROOT

pytestmark = [pytest.mark.model, requires_default_model]


def test_qa_on_the_default_model_answers_from_the_effects_table():
    effects = pd.read_csv(PARTNERS / "model" / "effects.csv")
    ate = effects["Tech Support"].mean()
    open_ = effects[~effects["Already Engaged"]]
    best = str(open_.loc[open_["Tech Support"].idxmax(), "Partner ID"])
    questions = (
        "What is the average effect of Tech Support?\n"
        "Which partner not yet engaged benefits most from Tech Support?\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CAUSALQA_LLM"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "--json", "chat", "--graph",
         str(PARTNERS / "model" / "graph.graphml"), "--effects",
         str(PARTNERS / "model" / "effects.csv")],
        input=questions, capture_output=True, text=True, timeout=900, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    first, second = (json.loads(line) for line in proc.stdout.splitlines())
    assert "1.5B" in first["model"], first["model"]  # the default, not the small model
    assert first["plan"]["steps"][0]["tool"] == "ate"
    assert first["result"] == pytest.approx(ate, abs=1e-3)
    assert f"{ate:.2f}" in first["answer"]
    assert second["result"]["arg"] == best, second
    assert best in second["answer"]
