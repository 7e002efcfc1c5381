"""The test session's own CAUSALQA_HOME (tests/conftest.py): tests never write into the
user's real home, except the shared model directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
from tests.conftest import SESSION_HOME

from causalqa import config


def test_the_home_is_the_sessions_own_directory():
    assert config.home_dir() == SESSION_HOME
    assert Path(os.environ["CAUSALQA_HOME"]) == SESSION_HOME
    real = Path(platformdirs.user_cache_dir("causalqa"))
    assert real not in (SESSION_HOME, *SESSION_HOME.parents)
    # every per-user artefact an engine writes lands under the session's home
    from causalqa.deduction.verifier import user_verifier_path
    from causalqa.kg.store import default_store

    for path in (user_verifier_path(), default_store(), config.cache_path("responses")):
        assert SESSION_HOME in path.parents, path


def test_the_models_directory_is_shared():
    models = config.models_dir()
    assert models.is_symlink() and models.is_dir()
    assert models.resolve() != SESSION_HOME / "models"


def test_subprocesses_inherit_the_sessions_home():
    code = "from causalqa import config; print(config.home_dir())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)  # fmt: skip
    assert Path(out.stdout.strip()) == SESSION_HOME
