"""The evidence method end to end on the tiny data folder: training (cross-fitted text
classifier, calibrated combiners, thresholds, manifest with the data's hashes), the
three-way verdict with its reasons, and the errors a user can meet."""

from __future__ import annotations

import hashlib
import json
import pickle
import re

import numpy as np
import pytest
from tests.discovery.test_discovery_pair import PromptLLM, tiny_graph

from causalqa.discovery.evidence import (
    EvidenceJudge,
    PairEvidence,
    direction_share,
    text_features,
    variant_of,
)
from causalqa.discovery.pair import gather_evidence, judge_pair
from causalqa.discovery.training import fit_combiner, load_record, out_of_fold, train_evidence
from causalqa.errors import (
    EntityNotFoundError,
    EvidenceArtefactError,
    MentionError,
    PairDiscoveryError,
)
from causalqa.kg import GraphData, KnowledgeGraph


@pytest.fixture(scope="module")
def trained(evidence_model):
    return evidence_model


def test_training_writes_a_checked_model_with_its_data_hashes(trained):
    judge, record, out, work, steps = trained
    assert steps and set(judge.combiners) == {"text"}  # no KG, no LLM given
    assert 0 < judge.thresholds["text"] < 1
    again = EvidenceJudge.load(out)
    assert set(again.combiners) == {"text"} and again.text is not None
    info = again.combiners["text"].manifest_["info"]
    assert info["command"] == "pytest" and "semeval2010-task8/TRAIN_FILE.TXT" in info["data"]
    assert len(info["data"]["semeval2010-task8/TRAIN_FILE.TXT"]) == 64
    assert record.corpus["probs"] and load_record(work, "frozen").text_model == record.text_model
    # the combiner reads no directional feature (its verdict may not depend on the order)
    assert "text_fwd" not in again.combiners["text"].feature_names_


def test_a_rerun_reuses_the_fold_models(trained, evidence_data, tiny_encoder):
    judge, record, out, work, _ = trained
    before = sorted(p.stat().st_mtime for p in (work / "text-frozen").rglob("head.pt"))
    train_evidence(data_dir=evidence_data[0], mode="frozen", work=work, out=out, folds=2,
                   text_options={"model_path": tiny_encoder})  # fmt: skip
    after = sorted(p.stat().st_mtime for p in (work / "text-frozen").rglob("head.pt"))
    assert before == after


def test_lexical_features_of_training_rows_are_cross_fitted(trained, evidence_data):
    """A training row's lexical features come from the fold model that never saw its
    sentence; a test row's from the mean of all fold models."""
    from causalqa.discovery.corpora import sentence_key, training_corpus
    from causalqa.discovery.lexical import mean_features
    from causalqa.discovery.relation import Mention
    from causalqa.discovery.rewrites import rewrite_examples
    from causalqa.discovery.training import text_folds

    judge, record = trained[0], trained[1]
    rows, feats = record.train()
    # the folds as training made them: the corpus with its rewrites, every training row
    # (the general sentences' too)
    corpus = training_corpus(evidence_data[0], augment=rewrite_examples).examples
    every = [r for key, v in record.rows.items() if key.endswith("/train") for r in v]
    folds = text_folds(corpus, every, len(judge.lexical))
    checked = 0
    for row, f in zip(rows, feats):
        mention = Mention(row.sentence, row.span_a, row.span_b)
        k = folds[sentence_key(row.sentence)]
        own = mean_features([judge.lexical[k]], [mention])[0]
        pooled = mean_features(judge.lexical, [mention])[0]
        lexical = {n: v for n, v in f.items() if n.startswith(("text_lexical_", "text_domain_"))}
        assert lexical == pytest.approx(own)
        checked += lexical != pytest.approx(pooled)
    assert checked > len(rows) // 2  # the check can tell the two apart
    test = record.rows["comagc/test"][0]
    got = record.features["comagc/test"][0]
    want = mean_features(judge.lexical, [Mention(test.sentence, test.span_a, test.span_b)])[0]
    assert {n: got[n] for n in want} == pytest.approx(want)


def test_three_way_answers_with_reasons(trained):
    judge = trained[0]
    yes = judge_pair(
        "GENEQ1", "cancerQ1", judge=judge, context="GENEQ1 causes cancerQ1 in patients ."
    )
    no = judge_pair(
        "GENEQ2", "cancerQ2", judge=judge, context="GENEQ2 was measured beside cancerQ2 ."
    )
    assert yes.probability > no.probability
    for v in (yes, no):
        assert set(v.probabilities) == {"A→B", "B→A", "none"}
        assert sum(v.probabilities.values()) == pytest.approx(1.0)
        assert v.direction in ("A→B", "B→A", "none") and v.variant == "text"
        assert v.contributions and v.contributions[0]["group"] == "text"
        assert v.text_model and "frozen" in v.text_model
        d = v.to_dict()
        assert {"causal", "probability", "direction", "evidence"} <= set(d)
        assert d["evidence"]["used"] == "text"
    assert any("no knowledge graph" in n for n in yes.notes)
    assert yes.cue == "causes"
    # the lexical readers are saved with the model, read the sentence, and say why
    assert len(judge.lexical) == 2 and len(EvidenceJudge.load(trained[2]).lexical) == 2
    ev = gather_evidence("GENEQ1", "cancerQ1", judge=judge, context="GENEQ1 causes cancerQ1 .")
    assert any(k.startswith("text_lexical_") for k in ev.features)
    assert any(k.startswith("text_domain_") for k in ev.features)
    terms = yes.to_dict()["evidence"]["terms"]
    assert terms["family"] and terms["terms"] and "term" in terms["terms"][0]


def test_bad_input_is_a_clear_error(trained, tmp_path):
    judge = trained[0]
    with pytest.raises(MentionError, match="empty"):
        judge_pair("a", "b", judge=judge, context="  ")
    with pytest.raises(MentionError, match="does not occur"):
        judge_pair("GENE1", "melanoma", judge=judge, context="GENE1 causes cancer1 .")
    with pytest.raises(MentionError, match="empty"):
        judge_pair("", "b", judge=judge, context="b and more")
    with pytest.raises(PairDiscoveryError, match="no knowledge graph and no sentence"):
        judge_pair("a", "b", judge=judge)
    # a graph the model knows nothing about: it was trained without KG features, so only a
    # graph without any node kind in common with a KG-trained model is refused
    judge.manifest["kinds"] = ["Gene"]
    nodes = {"id": ["x1", "x2"], "name": ["thing one", "thing two"], "kind": ["Widget", "Widget"]}
    import pandas as pd

    data = GraphData(
        pd.DataFrame(nodes), pd.DataFrame(columns=["source", "target", "relation", "abbrev"])
    )
    other = KnowledgeGraph.build(data, tmp_path / "widgets")
    try:
        with pytest.raises(PairDiscoveryError, match="none of the node kinds"):
            judge_pair("thing one", "thing two", judge=judge, kg=other)
    finally:
        other.close()
        judge.manifest["kinds"] = []


@pytest.fixture
def tiny_kg(tmp_path):
    kg = KnowledgeGraph.build(tiny_graph(), tmp_path / "kg")
    yield kg
    kg.close()


def test_unknown_entities_name_the_closest_nodes(trained, tiny_kg, monkeypatch):
    from causalqa.kg.linking import Linker

    monkeypatch.setattr(Linker, "_embedding", lambda self, q, allowed, limit: [])
    judge = trained[0]
    with pytest.raises(EntityNotFoundError) as info:
        judge_pair("Raloxifen", "qqqzzz", judge=judge, kg=tiny_kg)
    assert "'qqqzzz' matches no node" in info.value.message
    with pytest.raises(PairDiscoveryError, match="no node kind Planet"):
        judge_pair("Raloxifene", "melanoma", judge=judge, kg=tiny_kg, kinds_b=["Planet"])
    # with a sentence, a name the graph lacks is a note, and the text decides
    ev = gather_evidence("Raloxifene", "qqqzzz", judge=judge, kg=tiny_kg,
                         context="Raloxifene causes qqqzzz in patients .")  # fmt: skip
    assert ev.kg is None and any("not in the graph" in n for n in ev.notes)
    assert ev.features["link_max"] == 1.0 and ev.features["link_min"] == 0.0


def test_kg_evidence_gives_direction_when_there_is_no_sentence(trained, tiny_kg):
    judge = trained[0]
    ev = gather_evidence("TXNRD1", "ERBB2", judge=judge, kg=tiny_kg)  # TXNRD1 regulates ERBB2
    share, source = direction_share(ev)
    assert source == "kg" and share > 0.5
    back = gather_evidence("ERBB2", "TXNRD1", judge=judge, kg=tiny_kg)
    assert direction_share(back)[0] == pytest.approx(1 - share)
    assert variant_of(ev.has_text, ev.has_kg, ev.has_llm) == "kg"
    with pytest.raises(PairDiscoveryError, match="no evidence model for"):
        judge.judge(ev)  # this judge was trained on sentences only


def test_the_llm_feature_is_one_feature_among_others(trained, tiny_kg):
    judge = trained[0]
    llm = PromptLLM(lambda text: 0.9)
    ev = gather_evidence("Raloxifene", "melanoma", judge=judge, kg=tiny_kg, llm=llm,
                         context="Raloxifene causes melanoma in patients .")  # fmt: skip
    assert ev.variant() == "text+kg+llm" and ev.features["llm_log_odds"] == pytest.approx(np.log(9))
    assert "[Relation Paths]" in llm.calls[0]["prompt"] and ev.llm["paths"]
    v = judge.judge(ev)
    assert v.variant == "text" and any("not used" in n for n in v.notes)


def test_combiner_calibration_on_grouped_folds():
    rng = np.random.default_rng(0)
    n = 600
    signal = rng.normal(size=n)
    labels = (signal + rng.normal(scale=0.8, size=n) > 0.8).astype(int)
    feats = [{"text_causal": float(s), "cue_causal": float(rng.integers(0, 2))} for s in signal]
    groups = [str(i // 3) for i in range(n)]
    p, folds = out_of_fold(feats, labels, groups, "text")
    assert set(folds.tolist()) == set(range(5))
    for g in set(groups):  # a group never straddles folds
        assert len({folds[i] for i in range(n) if groups[i] == g}) == 1
    from causalqa.metrics import expected_calibration_error, roc_auc

    assert roc_auc(p, labels) > 0.8
    assert expected_calibration_error(labels, p) < 0.08
    model = fit_combiner(feats, labels, groups, "text")
    assert model.feature_names_ == ["cue_causal", "text_causal"]


def test_text_features_and_direction_share():
    f = text_features([0.2, 0.6, 0.2])
    assert f["text_causal"] == pytest.approx(np.log(4)) and f["text_fwd"] == pytest.approx(0.75)
    ev = PairEvidence("a", "b", features=f, text_probs=np.array([0.2, 0.6, 0.2]))
    assert direction_share(ev) == (pytest.approx(0.75), "text")
    assert direction_share(PairEvidence("a", "b")) == (0.5, "none")


# -- the training record: arrays and a checked manifest, no pickle ---------------------------


def _same(a, b) -> bool:
    """Equal values of the same types, all the way down (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    if hasattr(a, "__dataclass_fields__"):
        return all(_same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    return a == b


def test_the_training_record_comes_back_identical(trained, tmp_path):
    from causalqa.discovery.training import read_record, record_file, save_record

    judge, record, out, work, _ = trained
    written = record_file(work, "frozen")
    assert written.name == "record-frozen.npz" and not (work / "record-frozen.pkl").exists()
    assert _same(load_record(work, "frozen").rows, record.rows)
    assert load_record(work, "frozen").manifest_["what"] == "training record"
    path = save_record(record, tmp_path / "record.npz", command="pytest")
    again = read_record(path)
    assert _same(again.rows, record.rows) and _same(again.features, record.features)
    assert _same(again.corpus, record.corpus) and _same(again.info, record.info)
    assert again.text_model == record.text_model and again.manifest_["command"] == "pytest"
    assert _same(again.train(), record.train())
    # nothing but the record's own classes is named in the file
    with np.load(path, allow_pickle=False) as npz:
        text = npz["__state__"].tobytes().decode()
    assert set(re.findall(r'"object": "([^"]+)"', text)) == {
        "causalqa.discovery.training.TrainingRecord",
        "causalqa.discovery.training.PairRow",
    }


def test_a_tampered_or_unvouched_record_is_refused_unread(trained, tmp_path, monkeypatch):
    from causalqa.discovery.training import read_record, record_file, save_record

    record = trained[1]
    path = save_record(record, record_file(tmp_path, "frozen"))
    assert _same(read_record(path).rows, record.rows)
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    path.write_bytes(bytes(blob))
    opened = []
    with monkeypatch.context() as m:
        m.setattr(np, "load", lambda *a, **k: opened.append(a))
        with pytest.raises(EvidenceArtefactError, match="does not match its manifest") as e:
            load_record(tmp_path, "frozen")
    assert opened == [] and e.value.hint == "run: causalqa discover train --mode frozen"
    # an earlier causalqa pickled the record with nothing beside it: not unpickled
    legacy = tmp_path / "old"
    legacy.mkdir()
    (legacy / "record-finetune.pkl").write_bytes(pickle.dumps(_Payload()))
    with pytest.raises(EvidenceArtefactError, match="has no manifest") as e:
        load_record(legacy, "finetune")
    assert RAN == [] and "causalqa discover train --mode finetune" in e.value.hint
    # one whose manifest vouches for it is read
    blob = pickle.dumps(record)
    (legacy / "record-finetune.pkl").write_bytes(blob)
    digest = {"sha256": hashlib.sha256(blob).hexdigest()}
    (legacy / "record-finetune.pkl.json").write_text(json.dumps(digest))
    assert _same(load_record(legacy, "finetune").features, record.features)
    with pytest.raises(EvidenceArtefactError, match="no training record at"):
        load_record(tmp_path / "absent", "frozen")


RAN: list[str] = []


def _side_effect() -> None:
    RAN.append("unpickled")


class _Payload:
    def __reduce__(self):
        return (_side_effect, ())
