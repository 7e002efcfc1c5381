"""Fixtures of the service tests: the bundled partners model, a tiny knowledge graph, and
apps over the real embedded model (``local:small``) or, for the fast unit tests of limits
and errors, over a scripted LLM."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from tests.conftest import have
from tests.discovery.test_discovery_pair import tiny_graph

from causalqa.kg import KnowledgeGraph
from causalqa.llm.testing import ScriptedLLM
from causalqa.server import ServerSettings, create_app

ROOT = Path(__file__).resolve().parents[2]
PARTNERS = ROOT / "examples" / "partners" / "model"
PARTNERS_DATA = ROOT / "examples" / "partners" / "partners.csv"
REPORT = (
    "The pilot did not remove the frost from the wings before takeoff. Shortly after "
    "liftoff the airplane stalled, rolled to the left and hit the ground short of the runway."
)
STATEMENT = "The pilot's failure to remove frost from the wings before takeoff."


def average_effect(treatment: str) -> float:
    """`treatment`'s average effect in the bundled partners table, computed with pandas."""
    import pandas as pd

    return float(pd.read_csv(PARTNERS / "effects.csv")[treatment].mean())


requires_chromium = pytest.mark.skipif(
    not Path("/usr/bin/chromium").exists() or not have("playwright"),
    reason="browser tests need Debian's chromium (bash scripts/setup.sh --dev installs it) "
    "and the playwright package",
)


@pytest.fixture(scope="session")
def tiny_kg(tmp_path_factory) -> Path:
    """A knowledge-graph store with Raloxifene, ERBB2, melanoma, breast cancer …"""
    path = tmp_path_factory.mktemp("kg") / "store"
    KnowledgeGraph.build(tiny_graph(), path).close()
    return path


def wait_ready(client, timeout: float = 600.0, headers: dict | None = None) -> None:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if client.get("/v1/ready", headers=headers).status_code == 200:
            return
        time.sleep(0.2)
    raise AssertionError("the model did not load")


def settings(tmp_path: Path, **options) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path / "srv",
        llm=options.pop("llm", "local:small"),
        load=options.pop("load", {"partners": PARTNERS}),
        **options,
    )


@pytest.fixture(scope="module")
def real_client(tmp_path_factory, tiny_kg):
    """One app over the real small model, shared by a module's tests (loading is slow)."""
    from fastapi.testclient import TestClient

    app = create_app(settings(tmp_path_factory.mktemp("real"), kg=tiny_kg))
    with TestClient(app) as client:
        wait_ready(client)
        yield client


class GatedLLM(ScriptedLLM):
    """A scripted LLM whose label scores wait for a gate: a way to hold the worker busy."""

    def __init__(self, **kwargs):
        super().__init__(label_scores={"True": -0.2, "False": -1.8}, **kwargs)
        self.gate = threading.Event()
        self.gate.set()

    def _score_labels(self, prompt, labels):
        self.gate.wait(30)
        return super()._score_labels(prompt, labels)


@pytest.fixture
def scripted(tmp_path):
    """(TestClient, service, LLM) over a scripted LLM: the fast tests of the service."""
    from fastapi.testclient import TestClient

    llm = GatedLLM()

    def make(**options):
        app = create_app(settings(tmp_path, llm="scripted", **options), llm=llm)
        return TestClient(app, raise_server_exceptions=False), app.state.service, llm

    return make


from tests.discovery.conftest import evidence_data, evidence_model, tiny_encoder  # noqa: E402, F401


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where the page tests' screenshots go: ``$CAUSALQA_SCREENSHOTS``, else a temporary
    directory."""
    out = os.environ.get("CAUSALQA_SCREENSHOTS")
    path = Path(out) if out else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path
