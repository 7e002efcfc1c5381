"""The lexical reader: placeholders instead of names, a fit that learns the words that
signal causality, explanations by n-gram, and files that are checked when read."""

from __future__ import annotations

import numpy as np
import pytest

from causalqa.discovery.lexical import (
    FAMILIES,
    LexicalEvidence,
    LexicalRelation,
    explain_terms,
    family_of,
    mean_features,
    mean_terms,
    placeholder_text,
)
from causalqa.discovery.relation import Mention, mentions_in
from causalqa.errors import EvidenceArtefactError, EvidenceModelError


def _m(sentence: str, a: str, b: str) -> Mention:
    return mentions_in(sentence, a, b)


CAUSAL = [
    ("{a} induced {b} in three patients .", 1),
    ("{b} caused by {a} was reported .", 1),
    ("{a} leads to {b} .", 1),
    ("{a} and {b} were both measured .", 0),
    ("We list {a} next to {b} .", 0),
    ("{a} was unrelated to {b} .", 0),
]
NAMES = [("aspirin", "bleeding"), ("TP53", "lung cancer"), ("smoking", "cough"), ("X1", "Y1")]


def _training():
    mentions, labels = [], []
    for a, b in NAMES:
        for pattern, y in CAUSAL:
            mentions.append(_m(pattern.format(a=a, b=b), a, b))
            labels.append(y)
    return mentions, labels


def test_placeholder_replaces_both_mentions_whatever_their_order():
    m = _m("Bleeding caused by aspirin .", "aspirin", "Bleeding")
    assert placeholder_text(m) == "ENT caused by ENT ."
    # the names never reach the features
    assert "aspirin" not in placeholder_text(m).lower()


def test_the_reader_learns_the_causal_words_not_the_names():
    mentions, labels = _training()
    model = LexicalRelation(C=10.0).fit(mentions, labels)
    unseen = [
        _m("metformin induced nausea in three patients .", "metformin", "nausea"),
        _m("metformin and nausea were both measured .", "metformin", "nausea"),
    ]
    p = model.predict_proba(unseen)
    assert p[0] > 0.5 > p[1]
    np.testing.assert_allclose(np.log(p / (1 - p)), model.decision_function(unseen))
    terms = [t for t, _ in model.terms(unseen[0], top=None)]
    assert any("induced" in t for t in terms)
    # the placeholder is shown as such, never as a word of the sentence
    assert "‹name› induced" in terms and not any("ent" in t.split() for t in terms)
    assert all(c != 0 for _, c in model.terms(unseen[0]))


def _two_families():
    """Gene–disease sentences where 'correlates with' is causal, general ones where it
    is not: one reader over both could not learn both."""
    mentions, labels, sources = [], [], []
    for a, b in NAMES:
        for pattern, y_gene, y_general in [
            ("{a} expression correlates with {b} growth .", 1, 0),
            ("{a} was sequenced in {b} tissue samples .", 0, 0),
            ("the {a} correlates with the {b} .", 1, 0),
            ("{a} causes {b} .", 1, 1),
        ]:
            text = pattern.format(a=a, b=b)
            mentions += [_m(text, a, b), _m(text.replace(" .", " , they said ."), a, b)]
            labels += [y_gene, y_general]
            sources += ["p2c-comagc", "semeval"]
    return mentions, labels, sources


def test_one_reader_per_family_and_the_family_of_a_sentence():
    assert [family_of(s) for s in ("p2c-comagc", "p2c-gene", "ade", "ade-neg", "semeval")] == [
        "gene", "gene", "drug", "drug", "general",
    ]  # fmt: skip
    with pytest.raises(EvidenceModelError, match="no family of text"):
        family_of("p2c-newset")  # a new corpus is placed by hand, never by its prefix
    mentions, labels, sources = _two_families()
    model = LexicalEvidence().fit(mentions, labels, sources)
    assert set(model.readers_) == {"gene", "general"}
    gene = _m("GENEX expression correlates with tumourY growth .", "GENEX", "tumourY")
    general = _m(
        "GENEX expression correlates with tumourY growth , they said .", "GENEX", "tumourY"
    )
    f_gene, f_general = model.features([gene, general])
    # each reader judges 'correlates with' as its own corpus labels it
    assert f_gene["text_lexical_gene"] > 0 > f_gene["text_lexical_general"]
    # and the family classifier tells the two kinds of text apart
    assert f_gene["text_domain_gene"] > 0.5 > f_general["text_domain_gene"]
    assert sum(f_gene[f"text_domain_{f}"] for f in FAMILIES) == pytest.approx(1.0)
    assert "text_lexical_drug" not in f_gene  # no drug reader was trained
    assert explain_terms([model], gene)["family"] == "gene"
    assert explain_terms([model], general)["family"] == "general"


def test_fold_models_are_read_as_their_mean():
    mentions, labels, sources = _two_families()
    models = [
        LexicalEvidence().fit(mentions[:-8], labels[:-8], sources[:-8]),
        LexicalEvidence().fit(mentions[8:], labels[8:], sources[8:]),
    ]
    m = [_m("TP53 causes lung cancer .", "TP53", "lung cancer")]
    got = mean_features(models, m)[0]
    p = np.mean([1 / (1 + np.exp(-x.features(m)[0]["text_lexical_gene"])) for x in models])
    assert got["text_lexical_gene"] == pytest.approx(float(np.log(p / (1 - p))))
    dom = np.mean([x.features(m)[0]["text_domain_gene"] for x in models])
    assert got["text_domain_gene"] == pytest.approx(float(dom))
    why = explain_terms(models, m[0], top=2)
    # no ", they said": the sentence reads like the gene–disease family's
    assert why["family"] == "gene" and len(why["terms"]) == 2
    readers = [x.readers_["gene"] for x in models]
    top = mean_terms(readers, m[0], top=2)
    assert abs(top[0]["contribution"]) >= abs(top[1]["contribution"])


def test_bad_training_input_and_damaged_files_are_clear_errors(tmp_path):
    mentions, labels = _training()
    with pytest.raises(EvidenceModelError, match="causal and non-causal"):
        LexicalRelation().fit(mentions[:3], [1, 1, 1])
    with pytest.raises(EvidenceModelError, match="must agree"):
        LexicalRelation().fit(mentions, labels[:-1])
    with pytest.raises(EvidenceModelError, match="not fitted"):
        LexicalRelation().predict_proba(mentions[:1])
    model = LexicalRelation().fit(mentions, labels)
    path = model.save(tmp_path / "lex.pkl", info={"command": "pytest"})
    again = LexicalRelation.load(path)
    np.testing.assert_allclose(again.decision_function(mentions), model.decision_function(mentions))
    assert again.manifest_["info"]["command"] == "pytest"
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(EvidenceArtefactError, match="does not match its manifest"):
        LexicalRelation.load(path)
    fam = LexicalEvidence().fit(*_two_families())
    again = LexicalEvidence.load(fam.save(tmp_path / "fam.pkl"))
    assert again.features(mentions[:2]) == fam.features(mentions[:2])
    with pytest.raises(EvidenceModelError, match="one entry each"):
        LexicalEvidence().fit(mentions, labels, ["semeval"])
    with pytest.raises(EvidenceArtefactError, match="no lexical reader"):
        LexicalRelation.load(tmp_path / "missing.pkl")
