"""Rewrites of causal training sentences (negated, denied, hedged, association, hedged
association, reworded), the inflection stage of the mention finder, and the per-family
thresholds of the evidence model."""

from __future__ import annotations

import re

import numpy as np
import pytest

from causalqa.discovery.corpora import A_CAUSES_B, B_CAUSES_A, NONE, RelationExample, locate
from causalqa.discovery.rewrites import KINDS, rewrite, rewrite_examples
from causalqa.discovery.training import has_variant, regime_thresholds


def example(text: str, a: str, b: str, label: int = A_CAUSES_B) -> RelationExample:
    sa, sb = locate(text, a), locate(text, b, avoid=locate(text, a))
    assert sa and sb
    return RelationExample(text, sa, sb, label, "semeval:1", "semeval", "1")


@pytest.mark.parametrize(
    ("text", "a", "b", "claim", "expected", "label"),
    [
        ("The spark caused the fire.", "spark", "fire", "negated",
         "The spark (did not cause|didn't cause|never caused) the fire.", NONE),
        ("The spark causes the fire.", "spark", "fire", "hedged",
         "The spark (may|might|could) cause the fire.", A_CAUSES_B),
        ("The fire was caused by a spark.", "fire", "spark", "negated",
         "The fire was not caused by a spark.", NONE),
        ("The fire was caused by a spark.", "fire", "spark", "hedged",
         "The fire (may|might|could) have been caused by a spark.", B_CAUSES_A),
        ("Storms led to floods.", "Storms", "floods", "negated",
         "Storms (did not lead|didn't lead|never led) to floods.", NONE),
        ("Smoking is the main cause of cancer.", "Smoking", "cancer", "negated",
         "Smoking is not the main cause of cancer.", NONE),
    ],
)  # fmt: skip
def test_a_rewrite_changes_the_claim_and_keeps_both_mentions(text, a, b, claim, expected, label):
    src = example(text, a, b, B_CAUSES_A if claim != "negated" and "by" in text else A_CAUSES_B)
    if label != NONE:
        label = src.label
    new = rewrite(src, claim)
    assert new is not None
    assert re.fullmatch(expected.replace(".", r"\."), new.text), new.text
    assert new.label == label
    assert (new.a_text, new.b_text) == (src.a_text, src.b_text)
    assert new.source == f"semeval-{claim}" and new.group == src.group


def test_association_is_not_causal_and_agrees_in_number():
    new = rewrite(example("Floods are caused by storms.", "Floods", "storms", B_CAUSES_A),
                  "association")  # fmt: skip
    assert new is not None and new.label == NONE
    assert new.text.startswith("Floods are ") and new.text.endswith(" storms.")
    assert "caused" not in new.text


@pytest.mark.parametrize(
    ("text", "a", "b", "label", "tense"),
    [
        ("The spark caused the fire.", "spark", "fire", A_CAUSES_B, " have been "),
        ("Sparks cause fires.", "Sparks", "fires", A_CAUSES_B, " be "),
        ("Fires are caused by sparks.", "Fires", "sparks", B_CAUSES_A, " be "),
        ("Smoking is the main cause of cancer.", "Smoking", "cancer", A_CAUSES_B, " be "),
    ],
)  # fmt: skip
def test_a_hedged_association_is_not_causal_in_either_tense(text, a, b, label, tense):
    from causalqa.discovery.lexical import family_of

    new = rewrite(example(text, a, b, label), "hedged_association")
    assert new is not None and new.label == NONE
    assert re.search(r"\b(may|might|could)" + tense + r"(associated with|linked to|"
                     r"correlated with|tied to)\b", new.text), new.text  # fmt: skip
    assert "cause" not in new.text.lower()
    assert (new.a_text, new.b_text) == (a, b)
    assert family_of(new.source) == family_of("semeval")


def test_a_reworded_claim_keeps_its_label_and_where_cause_and_effect_stand():
    causal_verbs = ("cause", "trigger", "induce", "provoke", "spark", "lead", "led", "result",
                    "give", "gave", "bring", "brought", "stem", "arise", "arose")  # fmt: skip
    seen = set()
    for i in range(40):
        src = example(f"The storm{i} caused the flood.", f"storm{i}", "flood")
        new = rewrite(src, "reworded")
        assert new is not None and "caused" not in new.text
        assert (new.a_text, new.b_text) == (src.a_text, src.b_text)
        verb = new.text.split()[2]
        assert verb.startswith(causal_verbs), new.text
        seen.add(verb)
        # never a verb that puts the effect first ("the storm resulted from the flood")
        assert not re.search(r"\b(resulted|stemmed|arose) from\b", new.text), new.text
        assert new.label == A_CAUSES_B
        passive = rewrite(example(f"The flood{i} was caused by the storm{i}.", f"flood{i}",
                                  f"storm{i}", B_CAUSES_A), "reworded")  # fmt: skip
        assert re.search(r" was (\w+( about)? by|due to) ", passive.text), passive.text
        assert "caused" not in passive.text and passive.label == B_CAUSES_A
    assert len(seen) >= 6  # the new verb varies with the sentence
    effect_first = rewrite(example("The flood resulted from the storm.", "flood", "storm",
                                   B_CAUSES_A), "reworded")  # fmt: skip
    assert re.fullmatch(r"The flood (stemmed|arose) from the storm\.", effect_first.text)
    assert effect_first.label == B_CAUSES_A
    assert rewrite(example("Smoking is the main cause of cancer.", "Smoking", "cancer"),
                   "reworded") is None  # fmt: skip


def test_a_negation_varies_its_words_and_keeps_the_verb_form():
    got = {rewrite(example(f"Storm {w} caused the flood.", f"Storm {w}", "flood"), "negated").text
           for w in ("one", "two", "three", "four", "five", "six", "seven")}  # fmt: skip
    phrases = {re.search(r"(did not cause|didn't cause|never caused)", t).group(1) for t in got}
    assert len(phrases) >= 2
    present = rewrite(example("Sparks cause fires.", "Sparks", "fires"), "negated")
    assert re.fullmatch(r"Sparks (do not|don't|will not|won't|cannot|never) cause fires\.",
                        present.text), present.text  # fmt: skip


def test_an_association_reads_as_a_sentence_in_each_number():
    for text, a, b, label in (
        ("The spark caused the fire.", "spark", "fire", A_CAUSES_B),
        ("Sparks cause fires.", "Sparks", "fires", A_CAUSES_B),
        ("The fire was caused by a spark.", "fire", "spark", B_CAUSES_A),
    ):
        new = rewrite(example(text, a, b, label), "association")
        assert re.search(r"\b(is|are|was|were) (associated with|linked to|correlated with|"
                         r"tied to)\b", new.text), new.text  # fmt: skip


def test_what_cannot_be_rewritten_is_left_out():
    # not causal, no known verb between the two, a verb already inside a verb phrase
    assert rewrite(example("The book is on the table.", "book", "table", NONE), "negated") is None
    assert rewrite(example("The heat from the sun.", "heat", "sun"), "negated") is None
    assert rewrite(example("The storm has caused floods.", "storm", "floods"), "negated") is None
    with pytest.raises(ValueError):
        rewrite(example("The spark caused the fire.", "spark", "fire"), "sarcastic")
    spark = example("The spark caused the fire.", "spark", "fire")
    got = rewrite_examples([spark, example("The book is on the table.", "book", "table", NONE)])
    assert sorted(e.source for e in got) == sorted(f"semeval-{k}" for k in KINDS)
    denied = rewrite(example("The spark caused the fire.", "spark", "fire"), "denied")
    assert denied.label == NONE and (denied.a_text, denied.b_text) == ("spark", "fire")
    assert denied.text.endswith(" the spark caused the fire.")


def test_a_name_is_found_in_the_other_number():
    assert locate("Stress may be linked to headaches.", "headache") == (24, 33)
    assert locate("The battery died.", "batteries") == (4, 11)
    assert locate("The boxes fell.", "box") == (4, 9)
    # the exact form still comes first, and no partial word is taken
    assert locate("A headache, then headaches.", "headaches") == (17, 26)
    assert locate("The boxer fell.", "box") is None


def test_each_family_gets_its_threshold_where_it_has_rows():
    rng = np.random.default_rng(0)
    feats, labels, p = [], [], []
    for family, shift, n in (("general", 0.3, 400), ("drug", -0.2, 400), ("gene", 0.0, 50)):
        for _ in range(n):
            y = int(rng.random() < 0.3)
            feats.append({f"text_domain_{family}": 0.9, "text_causal": 0.0})
            labels.append(y)
            p.append(float(np.clip(0.5 + shift + (0.3 if y else -0.3) + rng.normal(0, 0.1), 0, 1)))
    got = regime_thresholds(feats, labels, p, "text")
    assert set(got) == {"text@general", "text@drug"}  # gene: too few rows
    assert got["text@general"] > got["text@drug"] + 0.3
    # balanced accuracy: the same whatever share of rows is causal
    again = regime_thresholds(
        feats + [f for f, y in zip(feats, labels) if y] * 3,
        labels + [1] * 3 * sum(labels),
        p + [q for q, y in zip(p, labels) if y] * 3,
        "text",
    )
    assert abs(again["text@general"] - got["text@general"]) < 0.05
    assert regime_thresholds(feats, labels, p, "kg") == {}


def test_a_sentence_beside_a_graph_without_a_path_is_text_evidence():
    placed_no_path = {"text_causal": 1.0, "shortest": 5.0, "log_paths": 0.0}
    placed_path = {"text_causal": 1.0, "shortest": 2.0, "log_paths": 1.1}
    assert not has_variant(placed_no_path, "text+kg")
    assert has_variant(placed_path, "text+kg")
    assert has_variant(placed_no_path, "text")
    assert not has_variant({"shortest": 5.0, "log_paths": 0.0}, "kg")
    assert has_variant({"shortest": 5.0, "log_paths": 0.0, "llm_log_odds": 0.1}, "kg+llm")


def test_the_direction_reader_learns_when_to_trust_the_causal_phrase():
    from causalqa.discovery.corpora import sentence_key
    from causalqa.discovery.evidence import PairEvidence, direction_share
    from causalqa.discovery.training import fit_direction

    rng = np.random.default_rng(1)
    examples, probs, folds = [], [], {}
    for i in range(240):
        label = A_CAUSES_B if i % 2 else B_CAUSES_A
        if label == A_CAUSES_B:
            ex = example(f"The storm{i} caused the flood{i}.", f"storm{i}", f"flood{i}", label)
        else:
            ex = example(f"The flood{i} was caused by the storm{i}.", f"flood{i}", f"storm{i}",
                         label)  # fmt: skip
        # a text classifier that gets the direction wrong one time in four
        right = rng.random() > 0.25
        fwd = 0.8 if (label == A_CAUSES_B) == right else 0.2
        examples.append(ex)
        probs.append([0.1, 0.9 * fwd, 0.9 * (1 - fwd)])
        folds[sentence_key(ex.text)] = i % 3
    reader = fit_direction(examples, np.array(probs), folds)
    assert reader is not None and reader["sentences"] == 240
    assert reader["cv_accuracy"] > reader["text_alone_accuracy"] + 0.15
    # the phrase says A→B, the classifier leans B→A: the reader sides with the phrase
    ev = PairEvidence("storm", "flood", text_probs=np.array([0.1, 0.3, 0.6]))
    ev.features = {"text_fwd": 1 / 3, "cue_fwd": 1.0, "cue_bwd": 0.0}
    share, source = direction_share(ev, reader)
    assert share > 0.5 and source == "text+cue"
    assert direction_share(ev)[0] < 0.5  # without the reader: the classifier's share
