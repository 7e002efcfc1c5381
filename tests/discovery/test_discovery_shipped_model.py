"""The evidence model that ships with causalqa, read as `discover pair` reads it: small,
traceable to its training command and data, and reading real sentences with the embedded
MiniLM and its lexical readers."""

from __future__ import annotations

import pytest
from tests.conftest import requires_minilm

from causalqa.discovery.evidence import EvidenceJudge, default_artefacts
from causalqa.discovery.pair import judge_pair


@pytest.fixture(scope="module")
def shipped():
    return EvidenceJudge.load(default_artefacts())


def test_the_shipped_model_is_small_and_says_how_it_was_made(shipped):
    folder = default_artefacts()
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size <= 10_000_000
    info = shipped.manifest["info"]
    assert info["command"].startswith("causalqa discover train")
    for name in ("semeval2010-task8/TRAIN_FILE.TXT", "ade-corpus-v2/DRUG-AE.rel"):
        assert len(info["data"][name]) == 64
    # SemEval's reserved test file never reached training
    assert not any("TEST_FILE" in name for name in info["data"])
    assert {"text", "text+kg", "kg"} <= set(shipped.combiners)
    assert len(shipped.lexical) == 3 and shipped.text is not None
    names = shipped.combiners["text"].feature_names_
    assert "text_causal" in names and any(n.startswith("text_lexical_") for n in names)


@pytest.mark.embed
@requires_minilm
def test_it_reads_real_sentences(shipped):
    """A sentence saying aspirin caused the bleeding reads as A→B (B→A with the names
    swapped) and far more probable than one that only lists both — through the real
    all-MiniLM-L6-v2 under the shipped text head, so it needs the embed extra."""
    said = judge_pair(
        "aspirin",
        "gastric bleeding",
        judge=shipped,
        context="Aspirin caused severe gastric bleeding in two elderly patients.",
    )
    listed = judge_pair(
        "aspirin",
        "gastric bleeding",
        judge=shipped,
        context="The survey asked about aspirin use and, separately, about gastric bleeding.",
    )
    assert said.causal and said.direction == "A→B"
    assert said.probability > listed.probability + 0.2
    assert said.terms["family"] == "drug"
    backwards = judge_pair(
        "gastric bleeding",
        "aspirin",
        judge=shipped,
        context="Aspirin caused severe gastric bleeding in two elderly patients.",
    )
    assert backwards.direction == "B→A"
