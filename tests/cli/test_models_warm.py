"""`causalqa models --warm`: the model made ready and the planner's prompt states saved,
so that the first planned question of a later process loads them instead of evaluating
its long prompt; a rerun loads them again (nothing rebuilt, nothing new written)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import requires_small_model

from causalqa.config import models_dir

pytestmark = [pytest.mark.model, requires_small_model]

PARTNERS = Path(__file__).resolve().parents[2] / "examples" / "partners" / "model"


def warm(home: Path) -> dict:
    env = {**os.environ, "CAUSALQA_HOME": str(home), "CAUSALQA_KV_CACHE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "--json", "models", "--warm", "--llm",
         "local:small"],
        capture_output=True, text=True, timeout=900, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)["warm"]


def test_warm_saves_the_planner_prompts_and_the_next_process_loads_them(tmp_path, monkeypatch):
    from causalqa.causal_model import CausalModel
    from causalqa.llm import get_llm
    from causalqa.qa.grounding import ground
    from causalqa.qa.planner import Planner

    home = tmp_path / "home"
    home.mkdir()
    (home / "models").symlink_to(models_dir().resolve(), target_is_directory=True)
    first = warm(home)
    assert first["prefix_states"] == ["saved"] * 4, first
    states = sorted((home / "kv").glob("*.npz"))
    assert len(states) == 4
    again = warm(home)
    assert again["prefix_states"] == ["loaded"] * 4, again
    assert sorted((home / "kv").glob("*.npz")) == states
    assert again["seconds"] < first["seconds"]

    # A planned question in a new model instance starts from the saved state.
    monkeypatch.setenv("CAUSALQA_HOME", str(home))
    model = CausalModel.load(PARTNERS / "graph.graphml", PARTNERS / "effects.csv")
    llm = get_llm("local:small", cache=False, quiet=True, timeout=300)
    llm.prefix_state_dir = home / "kv"
    question = "Which engagement works best for partner P007?"
    Planner(llm, sure=None).plan(question, model, ground(question, model))
    assert llm.prefix_state_events == ["loaded"]
    llm.close()
