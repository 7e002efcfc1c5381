"""The text classifier's training corpus: readers, labels and directions, groups, and that
no sentence of an evaluation split (nor SemEval's reserved test file) reaches training."""

from __future__ import annotations

import pytest

from causalqa.discovery.corpora import (
    A_CAUSES_B,
    B_CAUSES_A,
    CAUSAL,
    HELDOUT_NAME,
    NONE,
    evaluation_sentences,
    is_heldout,
    locate,
    read_ade,
    read_semeval,
    sentence_key,
    training_corpus,
    untag,
)
from causalqa.discovery.rewrites import rewrite_examples
from causalqa.discovery.training import check_no_overlap, pair_rows, text_folds
from causalqa.errors import CorpusError


def test_locate_and_untag():
    assert locate("Bax rose in T47D cells.", "t47d") == (12, 16)
    assert locate("ERK1/2 activity", "ERK1 / 2") == (0, 6)
    assert locate("aspirin aspirin", "aspirin", avoid=(0, 7)) == (8, 15)
    assert locate("caspirin", "aspirin") is None  # whole words only
    assert locate("anything", "  ") is None
    text, spans = untag("In <e2> T47D </e2> , <e1> Bax </e1> rose")
    assert text[slice(*spans["e1"])] == "Bax" and text[slice(*spans["e2"])] == "T47D"
    assert sentence_key("In <e2> T47D </e2> , Bax rose.") == sentence_key("In T47D, Bax rose")


def test_semeval_labels_and_direction(evidence_data):
    root, _ = evidence_data
    examples = read_semeval(root / "semeval2010-task8" / "TRAIN_FILE.TXT")
    assert len(examples) == 24
    first, second, third = examples[:3]
    assert first.label == A_CAUSES_B and first.a_text == "storm0" and first.b_text == "flood0"
    assert second.label == B_CAUSES_A and second.a_text == "flood1"
    assert third.label == NONE
    assert second.swapped().label == A_CAUSES_B and second.swapped().a_text == "storm1"


def test_the_reserved_semeval_file_is_refused(evidence_data):
    """Refused by its name, before any file is opened: no such file exists here, and the
    error is the refusal, not a missing file."""
    root, _ = evidence_data
    reserved = root / "semeval2010-task8" / "TEST_FILE_FULL.TXT"
    assert not reserved.exists()
    with pytest.raises(CorpusError, match="reserved"):
        read_semeval(reserved)


def test_ade_positives_negatives_and_drug_groups(evidence_data):
    root, _ = evidence_data
    positives, vocabulary = read_ade(root / "ade-corpus-v2")
    assert all(e.label == A_CAUSES_B and e.group.startswith("drug:") for e in positives)
    assert positives[0].a_text == "drugol0" and positives[0].b_text == "rashitis0"
    assert "drugol3" in vocabulary["drugs"]


def test_training_corpus_drops_every_evaluation_sentence(evidence_data):
    root, facts = evidence_data
    corpus = training_corpus(root, augment=rewrite_examples)
    held = evaluation_sentences(root / "path-to-causality")
    assert all(sentence_key(s) in held for s in facts["eval_sentences"])
    assert check_no_overlap(corpus.examples, held) == []
    dropped = corpus.dropped
    assert dropped["p2c-comagc: sentence in an evaluation split"] == 1
    assert dropped["ade: sentence in an evaluation split"] == 1
    semeval = read_semeval(root / "semeval2010-task8" / "TRAIN_FILE.TXT")
    ours = [e for e in semeval if is_heldout(sentence_key(e.text))]
    assert ours, "the fixture should put a sentence into the held-out split"
    assert all(held[sentence_key(e.text)] == HELDOUT_NAME for e in ours)
    # every SemEval sentence in a path-to-causality evaluation file or in ours is dropped
    evaluated = {sentence_key(s) for s in facts["eval_sentences"]}
    expected = [e for e in semeval if sentence_key(e.text) in evaluated or e in ours]
    assert dropped["semeval: sentence in an evaluation split"] == len(expected)
    assert dropped["p2c-semeval: not in TRAIN_FILE (from the reserved test file)"] == 1
    assert {e.source for e in corpus.examples} == {
        "semeval",
        "semeval-negated",
        "semeval-denied",
        "semeval-hedged",
        "semeval-association",
        "semeval-hedged_association",
        "semeval-reworded",
        "ade",
        "ade-neg",
        "p2c-comagc",
        "p2c-gene",
    }
    # no held-out sentence reaches training, rewritten or not
    kept_refs = {e.ref for e in corpus.examples if e.source.startswith("semeval-")}
    assert not any(sentence_key(e.text) in held for e in corpus.examples)
    assert kept_refs and not kept_refs & {e.group for e in ours}
    plain = training_corpus(root)
    assert {e.source for e in plain.examples} == {
        "semeval",
        "ade",
        "ade-neg",
        "p2c-comagc",
        "p2c-gene",
    }
    labels = {
        e.source: {x.label for x in corpus.examples if x.source == e.source}
        for e in corpus.examples
    }
    assert labels["p2c-comagc"] == {CAUSAL, NONE} and labels["ade-neg"] == {NONE}
    reserved = {sentence_key(s) for s in facts["semeval_reserved"]}
    assert not any(sentence_key(e.text) in reserved for e in corpus.examples)


def test_rows_leave_out_test_sentences_and_get_groups(evidence_data):
    root, facts = evidence_data
    held = evaluation_sentences(root / "path-to-causality")
    train = []
    for name in ("comagc", "gene", "ade", "semeval"):
        rows = pair_rows(name, "train", root)
        assert rows and check_no_overlap(rows, held) == []
        train += rows
        assert all(r.group for r in rows)
    ade = pair_rows("ade", "train", root)
    assert {r.source for r in ade} == {"p2c", "ade-neg"}
    assert sum(r.label for r in ade) == sum(1 - r.label for r in ade)
    # rows about one drug share a group
    by_drug = {}
    for r in ade:
        by_drug.setdefault(r.a.lower(), set()).add(r.group)
    assert all(len(g) == 1 for g in by_drug.values())
    semeval = pair_rows("semeval", "train", root)
    assert all(r.qid != "99" for r in semeval)  # the reserved file's sentence
    test = pair_rows("comagc", "test", root)
    assert len(test) == 6
    corpus = training_corpus(root)
    folds = text_folds(corpus.examples, train, 3)
    assert set(folds.values()) <= {0, 1, 2}
    assert all(sentence_key(r.sentence) in folds for r in train)


def test_text_folds_keep_a_pair_and_an_ade_drug_in_one_fold():
    from causalqa.discovery.corpora import RelationExample
    from causalqa.discovery.training import PairRow

    def ex(text, a, b):
        i, j = text.index(a), text.index(b)
        return RelationExample(text, (i, i + len(a)), (j, j + len(b)), NONE, "g", "semeval")

    examples = [ex(f"Sentence {i}: alpha{i % 4} and beta{i % 4}.", f"alpha{i % 4}", f"beta{i % 4}")
                for i in range(40)]  # fmt: skip
    rows = [PairRow("ade", "train", str(i), "drugx", f"fx{i}", f"Drugx gave fx{i} {i}.", (0, 5),
                    (11, 13), 1) for i in range(10)]  # fmt: skip
    folds = text_folds(examples, rows, 3)
    for k in range(4):
        assert len({folds[sentence_key(e.text)] for e in examples[k::4]}) == 1
    assert len({folds[sentence_key(r.sentence)] for r in rows}) == 1
