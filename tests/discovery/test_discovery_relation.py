"""The text relation classifier: markers, mentions, its training loop on a tiny synthetic
set with a tiny BERT, the swapped order, and checked save/load."""

from __future__ import annotations

import numpy as np
import pytest

from causalqa.discovery.corpora import A_CAUSES_B, B_CAUSES_A, CAUSAL, NONE, RelationExample
from causalqa.discovery.relation import (
    Mention,
    RelationClassifier,
    RelationEnsemble,
    mark,
    mentions_in,
)
from causalqa.errors import EvidenceArtefactError, MentionError


def test_mark_wraps_both_mentions_and_finds_the_markers():
    text, ca, cb = mark(Mention("Smoking causes lung cancer.", (0, 7), (15, 26)))
    assert text == "@ Smoking @ causes @ lung cancer @ ."
    assert text[ca] == "@" and text[cb] == "@" and text[cb + 2 :].startswith("lung")
    # B before A in the sentence: the offsets follow the names, not the order
    text, ca, cb = mark(Mention("Cancer from smoke.", (12, 17), (0, 6)))
    assert text[ca + 2 : ca + 7] == "smoke" and text[cb + 2 : cb + 8] == "Cancer"


def test_mentions_in_the_sentence_or_a_clear_error():
    m = mentions_in("Aspirin-induced asthma was seen.", "aspirin", "asthma")
    assert m.text[slice(*m.a)] == "Aspirin" and m.text[slice(*m.b)] == "asthma"
    tagged = mentions_in("<e1> X </e1> makes <e2> Y </e2>", "X", "Y")
    assert tagged.text == "X makes Y"
    with pytest.raises(MentionError, match="empty"):
        mentions_in("   ", "a", "b")
    with pytest.raises(MentionError, match="'melanoma' does not occur"):
        mentions_in("Aspirin causes asthma.", "aspirin", "melanoma")
    with pytest.raises(MentionError, match="empty"):
        mentions_in("Aspirin causes asthma.", "", "asthma")
    with pytest.raises(MentionError, match="overlap") as nested:  # ADE names one in another
        mentions_in("Ocular ethambutol toxicity.", "ethambutol", "Ocular ethambutol toxicity")
    assert "leave --context out" in nested.value.hint


def _examples(n=48):
    out = []
    for i in range(n):
        a, b = f"cause{i}", f"effect{i}"
        kind = i % 4
        if kind == 0:
            text = f"The {a} produced the {b} today."
            label = A_CAUSES_B
        elif kind == 1:
            text = f"The {b} was caused by the {a} today."
            a, b = b, a  # A names the effect: B causes A
            label = B_CAUSES_A
        elif kind == 2:
            text = f"The {a} sat next to the {b} today."
            label = NONE
        else:
            text = f"The {a} produced the {b} today."
            label = CAUSAL
        i_a, i_b = text.index(a), text.index(b)
        out.append(
            RelationExample(text, (i_a, i_a + len(a)), (i_b, i_b + len(b)), label, str(i), "t")
        )
    return out


@pytest.mark.parametrize(
    ("mode", "features"), [("frozen", "layers"), ("frozen", "last"), ("finetune", None)]
)
def test_the_training_loop_learns_a_tiny_synthetic_set(tiny_encoder, mode, features, tmp_path):
    examples = _examples()
    options = {"epochs": 60, "lr": 3e-3} if mode == "frozen" else {"epochs": 12, "lr": 1e-3}
    clf = RelationClassifier(
        mode=mode, model_path=tiny_encoder, batch_size=16, seed=0, features=features, **options
    )
    steps = []
    clf.fit(examples, on_progress=lambda *s: steps.append(s))
    assert steps and clf.n_examples_ == len(examples)
    if mode == "finetune":
        # the token embeddings stay as shipped (freeze_embeddings; up to the float16 the
        # weights are stored in), the layers above learn
        from transformers import AutoModel

        shipped = {
            k: v.half().float() if v.is_floating_point() else v
            for k, v in AutoModel.from_pretrained(tiny_encoder).state_dict().items()
        }
        trained = clf.encoder_state_
        emb = [k for k in shipped if k.startswith("embeddings.")]
        assert emb and all(np.array_equal(shipped[k], trained[k]) for k in emb)
        assert any(
            not np.array_equal(shipped[k], trained[k])
            for k in shipped
            if k.startswith("encoder.") and k.endswith("weight")
        )
    mentions = [Mention.of(e) for e in examples]
    p = clf.predict_proba(mentions)
    assert p.shape == (len(examples), 3) and np.allclose(p.sum(axis=1), 1.0)
    labels = np.array([e.label for e in examples])
    causal = p[:, 1] + p[:, 2]
    # "produced"/"caused by" sentences score causal above "sat next to" ones
    assert causal[labels != NONE].mean() > causal[labels == NONE].mean() + 0.2
    # the swapped order (trained on both orders) reads the direction the other way round
    swapped = clf.predict_proba([Mention(m.text, m.b, m.a) for m in mentions])
    assert np.abs(swapped[:, 1] - p[:, 2]).mean() < 0.1
    direct = labels == A_CAUSES_B
    assert (p[direct, 1] > p[direct, 2]).mean() > 0.8 and (
        swapped[direct, 2] > swapped[direct, 1]
    ).mean() > 0.8
    # save and load give the same answers (weights are stored in float16 and the fitted
    # model is rounded to them, so a service's model and the CLI's agree); a damaged file
    # is refused
    clf.save(tmp_path / "m", info={"what": "test"})
    again = RelationClassifier.load(tmp_path / "m")
    again.model_path = tiny_encoder
    assert np.allclose(again.predict_proba(mentions[:5]), p[:5], rtol=0, atol=1e-6)
    assert again.manifest_["info"] == {"what": "test"}
    ens = RelationEnsemble([clf, again])
    assert np.allclose(ens.predict_proba(mentions[:5]), p[:5], atol=1e-3)
    (tmp_path / "m" / "head.pt").write_bytes(b"garbage")
    with pytest.raises(EvidenceArtefactError, match="does not match"):
        RelationClassifier.load(tmp_path / "m")


def test_layered_features_swap_only_what_belongs_to_a_and_b(tiny_encoder):
    # the tiny encoder: width 16, one layer (the middle layers repeat it)
    m = Mention("The heavy rain caused the flood in the valley.", (10, 14), (26, 31))
    fwd, bwd = RelationClassifier(model_path=tiny_encoder).encode([m])
    w = 16
    assert fwd.shape == bwd.shape == (1, 21 * w)
    a, b = fwd[0, :w], fwd[0, w : 2 * w]
    assert np.array_equal(bwd[0, :w], b) and np.array_equal(bwd[0, w : 2 * w], a)
    mid = slice(3 * w, 13 * w)
    assert np.array_equal(bwd[0, 3 * w : 8 * w], fwd[0, 8 * w : 13 * w])
    assert not np.array_equal(bwd[0, mid], fwd[0, mid])
    # the sentence's mean and what lies between the mentions do not depend on the order
    assert np.array_equal(bwd[0, 2 * w : 3 * w], fwd[0, 2 * w : 3 * w])
    assert np.array_equal(bwd[0, 13 * w :], fwd[0, 13 * w :])
    # the words between the mentions are read: changing the verb changes them
    other = Mention("The heavy rain followed the flood in the valley.", (10, 14), (28, 33))
    moved, _ = RelationClassifier(model_path=tiny_encoder).encode([other])
    assert not np.allclose(moved[0, 13 * w : 14 * w], fwd[0, 13 * w : 14 * w])


def test_one_expert_per_family_of_text_and_a_gate_between_them(tiny_encoder, tmp_path):
    from dataclasses import replace

    # "produced" is causal in the general sentences and not in the drug reports (a head
    # shared by both must average them; the experts need not)
    general = _examples(32)
    drug = [
        replace(
            e,
            text=e.text.replace("today", "in the patient"),
            label=NONE if "produced" in e.text else e.label,
        )
        for e in _examples(32)
    ]
    examples = general + drug
    families = ["general"] * len(general) + ["drug"] * len(drug)
    clf = RelationClassifier(model_path=tiny_encoder, seed=0).fit(examples, families=families)
    assert clf.families_ == ["drug", "general"] and clf.head_.gate is not None
    p = clf.predict_proba([Mention.of(e) for e in examples])
    assert np.allclose(p.sum(axis=1), 1.0)
    produced = np.array(["produced" in e.text for e in examples])
    is_general = np.arange(len(examples)) < len(general)
    causal = p[:, 1] + p[:, 2]
    assert causal[produced & is_general].mean() > causal[produced & ~is_general].mean() + 0.3
    clf.save(tmp_path / "m")
    again = RelationClassifier.load(tmp_path / "m")
    again.model_path = tiny_encoder
    assert again.families_ == ["drug", "general"]
    assert np.allclose(again.predict_proba([Mention.of(e) for e in examples[:6]]), p[:6], atol=1e-6)
    # no families given, or by_family off: one head
    assert RelationClassifier(model_path=tiny_encoder).fit(_examples()).families_ == ["all"]
    one = RelationClassifier(model_path=tiny_encoder, by_family=False)
    one.fit(examples, families=families)
    assert one.families_ == ["all"] and one.head_.gate is None
    # a family with no causal example gets no expert: its sentences join another's
    only_none = [replace(e, label=NONE) for e in _examples(8)]
    mixed = RelationClassifier(model_path=tiny_encoder).fit(
        general + only_none, families=["general"] * len(general) + ["drug"] * 8
    )
    assert mixed.families_ == ["general"]
    with pytest.raises(EvidenceArtefactError, match="1 families for 32 examples"):
        RelationClassifier(model_path=tiny_encoder).fit(general, families=["general"])


def test_a_model_saved_before_layered_features_loads_as_it_was(tiny_encoder, tmp_path):
    import json

    examples = _examples()
    old = RelationClassifier(model_path=tiny_encoder, features="last", epochs=20, seed=0)
    old.fit(examples)
    old.save(tmp_path / "m")
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    del manifest["features"], manifest["params"]["features"], manifest["params"]["l2"]
    (tmp_path / "m" / "manifest.json").write_text(json.dumps(manifest))
    again = RelationClassifier.load(tmp_path / "m")
    again.model_path = tiny_encoder
    mentions = [Mention.of(e) for e in examples[:5]]
    assert again.features == "last"
    assert np.allclose(again.predict_proba(mentions), old.predict_proba(mentions), atol=1e-6)


def test_bad_use_is_a_clear_error(tiny_encoder, tmp_path):
    with pytest.raises(EvidenceArtefactError, match="needs mode='frozen'"):
        RelationClassifier(mode="finetune", features="layers", model_path=tiny_encoder).fit(
            _examples()
        )
    with pytest.raises(EvidenceArtefactError, match="not fitted"):
        RelationClassifier().predict_proba([Mention("a b", (0, 1), (2, 3))])
    none_only = [e for e in _examples() if e.label == NONE]
    with pytest.raises(EvidenceArtefactError, match="causal and non-causal"):
        RelationClassifier(model_path=tiny_encoder).fit(none_only)
    with pytest.raises(EvidenceArtefactError, match="no relation classifier"):
        RelationClassifier.load(tmp_path / "nothing")
