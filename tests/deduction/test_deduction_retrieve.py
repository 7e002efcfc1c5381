"""The semantic retriever on a tiny KG."""

from __future__ import annotations

import pytest

from causalqa.deduction.chains import EXTRACTED, INFERRED, Chain
from causalqa.deduction.event_graph import CausalKG, MiningRecord, context_sha
from causalqa.deduction.retrieve import NoRetriever, Retriever, SemanticRetriever, get_retriever
from causalqa.errors import DeductionError, EventGraphError

FROST_CTX = "Frost covered the wings; the airplane stalled after rotation."


@pytest.fixture
def kg():
    g = CausalKG()
    g.add_chains(
        [
            Chain(("Frost on the wings", "Reduced lift", "Aerodynamic stall"), report_id="r1"),
            Chain(("Frost on the wings", "Increased drag"), report_id="r1"),
            Chain(("Carburetor ice", "Loss of engine power", "Forced landing"), report_id="r2"),
            Chain(("Ice on the wings", "Aerodynamic stall", "Impact"), INFERRED, "r3", "Ice"),
            Chain(("Fuel exhaustion", "Loss of engine power"), report_id="r4"),
        ]
    )
    g.add_record(MiningRecord(report_id="r1", task="extract", context_sha=context_sha(FROST_CTX)))
    return g


def test_protocol_and_registry():
    assert isinstance(SemanticRetriever(), Retriever)
    assert isinstance(NoRetriever(), Retriever)
    assert NoRetriever().fit(None).retrieve("c", "s", 3) == []
    assert isinstance(get_retriever("Semantic"), SemanticRetriever)
    with pytest.raises(DeductionError, match="unknown retriever"):
        get_retriever("rotg?")


def test_not_fitted_is_a_clear_error():
    with pytest.raises(EventGraphError, match="not fitted"):
        SemanticRetriever().retrieve("c", "s")


def test_nearest_nodes_and_their_chains(kg, embedder):
    r = SemanticRetriever(embedder).fit(kg)
    assert r.backend_ == "faiss"
    (top, score), *_ = r.nearest_nodes("", "carburetor ice", 2)
    assert kg.nodes[top].text == "Carburetor ice" and score == pytest.approx(1.0, abs=1e-5)
    chains = r.retrieve("An unrelated context.", "engine power loss", k=1)
    assert [c.nodes for c in chains] == [
        ("Carburetor ice", "Loss of engine power", "Forced landing"),
        ("Fuel exhaustion", "Loss of engine power"),
    ]
    assert all(c.score is not None for c in chains)


def test_faiss_and_numpy_agree(kg, embedder):
    a = SemanticRetriever(embedder).fit(kg).retrieve("", "frost on the wings stall", k=2)
    b = SemanticRetriever(embedder, use_faiss=False).fit(kg)
    assert b.backend_ == "numpy"
    assert [c.nodes for c in b.retrieve("", "frost on the wings stall", k=2)] == [
        c.nodes for c in a
    ]


def test_own_report_and_excluded_reports_are_never_returned(kg, embedder):
    r = SemanticRetriever(embedder).fit(kg)
    # The context is report r1's (same fingerprint): its chains are not shown back to it.
    got = r.retrieve(FROST_CTX, "frost on the wings", k=5)
    assert got and all(c.report_id != "r1" for c in got)
    got = r.retrieve("", "frost on the wings", k=5, exclude_reports=["r3"])
    assert all(c.report_id != "r3" for c in got)


def test_fit_on_some_reports_and_kinds(kg, embedder):
    r = SemanticRetriever(embedder, kinds=(EXTRACTED,)).fit(kg, reports=["r2", "r3"])
    got = r.retrieve("", "stall", k=5)
    assert {c.report_id for c in got} == {"r2"}


def test_cleaning_dedupes_and_truncates(embedder):
    g = CausalKG()
    g.add_chains(
        [Chain(("Icing", f"Effect {i:02d} of icing"), report_id=f"r{i}") for i in range(15)]
    )
    g.add_chains([Chain(("Icing", "Totally different outcome here"), report_id="x")])
    got = SemanticRetriever(embedder, dedupe=None).fit(g).retrieve("", "icing", k=1)
    assert len(got) == 10  # first 10 per kind
    got = SemanticRetriever(embedder).fit(g).retrieve("", "icing", k=1)
    assert len(got) == 2  # "Icing --> Effect NN of icing" are near-duplicates
    got = SemanticRetriever(embedder, dedupe=None, per_kind=None).fit(g).retrieve("", "icing", 1)
    assert len(got) == 16


def test_context_weight_mixes_the_context_in(kg, embedder):
    r = SemanticRetriever(embedder, context_weight=5.0).fit(kg)
    got = r.retrieve("carburetor ice carburetor ice", "something vague", k=1)
    assert got[0].nodes[0] == "Carburetor ice"
