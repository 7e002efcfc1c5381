"""Smoke tests on the real models: the embedded LLM and the MiniLM embedder."""

from __future__ import annotations

import importlib.util

import pytest

from causalqa.deduction.dataset import Report, rule_negatives
from causalqa.deduction.deduce import deduce
from causalqa.deduction.event_graph import CausalKG
from causalqa.deduction.mining import mine
from causalqa.deduction.retrieve import SemanticRetriever

requires_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python not installed"
)

REPORT = (
    "The pilot reported that the engine lost power during cruise. The temperature and dew "
    "point were conducive to serious carburetor icing. The pilot applied carburetor heat too "
    "late, the engine did not recover, and the airplane was damaged in a forced landing."
)


@pytest.mark.model
@requires_llama
def test_mine_and_deduce_with_the_embedded_model(embedder):
    from causalqa.llm import get_llm

    llm = get_llm("local:small", cache=False, quiet=True, timeout=300)
    kg = CausalKG()
    run = mine([Report(report_id="r", context=REPORT)], llm, kg, max_tokens=64)
    assert run.calls == 1 and kg.records[0].raw
    retriever = SemanticRetriever(embedder).fit(kg) if kg.nodes else None
    d = deduce(
        REPORT + " The pilot was not injured.",
        "The pilot's delayed use of carburetor heat.",
        llm,
        retriever,
        fmt="V6" if retriever else "V2",
    )
    assert 0.0 < d.probability < 1.0
    assert d.label in ("True", "False")


@pytest.mark.embed
def test_rule_negatives_with_minilm():
    texts = [
        "The pilot’s failure to maintain airspeed while maneuvering, which resulted in an "
        "aerodynamic stall.",
        "The pilot’s exceedance of the airplane’s critical angle of attack during takeoff, "
        "which resulted in an aerodynamic stall.",
        "The pilot’s failure to maintain control of the airplane during the landing roll.",
        "A total loss of engine power due to fuel exhaustion.",
        "A total loss of engine power due to carburetor icing.",
        "The pilot’s inadequate fuel planning, which resulted in fuel exhaustion.",
    ]
    truths = {f"r{i}": [t] for i, t in enumerate(texts)}
    got = rule_negatives(truths, per_true=3, seed=0)
    for rid, picked in got.items():
        for false, _, sim in picked:
            assert 0.5 <= sim <= 0.75 and false not in truths[rid]
    # MiniLM puts fuel exhaustion vs. carburetor icing at ≈0.63: inside the band.
    assert texts[4] in {f for f, _, _ in got["r3"]}
