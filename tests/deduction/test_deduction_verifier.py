"""The evidence verifier: features, training, verdicts, files, and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from causalqa.deduction.dataset import Example
from causalqa.deduction.deduce import check_pair, verify, verify_batch
from causalqa.deduction.features import (
    FEATURES,
    IMPLIED_FEATURES,
    ImpliedFindings,
    TextFeatures,
    passages,
    terms,
)
from causalqa.deduction.verifier import Verifier, load_verifier
from causalqa.errors import ContextError, DataFileError, DeductionError

TOPICS = [
    (
        "frost",
        "The pilot did not remove frost from the wings before takeoff.",
        "Frost on the wings.",
    ),
    (
        "fuel",
        "The engine stopped because the fuel tanks were empty after a long flight.",
        "Fuel exhaustion.",
    ),
    (
        "ice",
        "Carburetor ice formed in humid air and the engine lost power in cruise.",
        "Carburetor icing.",
    ),
    (
        "wire",
        "The helicopter struck power lines while maneuvering at low altitude.",
        "Wire strike.",
    ),
    (
        "night",
        "The pilot continued visual flight into clouds at night and lost control.",
        "Flight into IMC.",
    ),
    ("bird", "A flock of geese struck the windshield during the initial climb.", "Bird strike."),
]
FILLER = (
    " The airplane was substantially damaged. The weather was recorded at a nearby airport. "
    "The pilot held a private pilot certificate."
)


def _examples(n_reports: int = 24) -> list[Example]:
    out = []
    for i in range(n_reports):
        key, ctx, true = TOPICS[i % len(TOPICS)]
        other = TOPICS[(i + 1) % len(TOPICS)][2]
        context = f"Report {i}. {ctx}{FILLER}"
        out.append(Example(report_id=f"r{i}", context=context, statement=true, label=True))
        out.append(
            Example(
                report_id=f"r{i}",
                context=context,
                statement=other,
                label=False,
                source="false-rules",
            )
        )
    return out


def test_passages_and_terms():
    ps = passages("Findings:\n- Aircraft - Fuel - Exhausted\nThe pilot ran out of fuel. He landed.")
    # One-word lines ("Findings:") carry no evidence and are dropped.
    assert ps == ["Aircraft - Fuel - Exhausted", "The pilot ran out of fuel.", "He landed."]
    assert terms("The pilot's failure to maintain airspeed") == [
        "pilot",
        "failure",
        "maintain",
        "airspeed",
    ]


def test_text_features_favour_the_supported_statement(embedder):
    ex = _examples(6)
    tf = TextFeatures(embedder).fit([e.context for e in ex])
    rows = tf.transform([(e.context, e.statement) for e in ex[:2]])
    true_row, false_row = rows
    assert set(true_row.values) == set(FEATURES)
    for f in ("bm25_max", "tfidf_cos", "coverage", "emb_max"):
        assert true_row.values[f] > false_row.values[f], f
    assert "frost" in true_row.ranked[0][0]
    with pytest.raises(DeductionError, match="not fitted"):
        TextFeatures(embedder).transform([("a b c", "d")])


FINDINGS = {
    "airspeed": "Aircraft - Aircraft oper/perf/capability - Performance/control parameters - "
    "Airspeed - Not attained/maintained - Pilot",
    "fuel": "Aircraft - Aircraft propeller/rotor - Fuel - Fuel exhaustion - Pilot",
    "wire": "Environmental issues - Physical environment - Object/animal/substance - Wire - "
    "Contributed to outcome",
}
CAUSES = {
    "airspeed": "The pilot's failure to maintain adequate airspeed in the turn.",
    "fuel": "The pilot's inadequate fuel planning, which resulted in fuel exhaustion.",
    "wire": "The pilot's failure to see and avoid the power lines.",
}


def _fatal(i: int, *keys: str) -> str:
    lines = "\n".join(f"- {FINDINGS[k]}" for k in keys)
    head = f"On 2024-01-{i:02d}, a CESSNA 172 (airplane) was involved in an accident."
    return f"{head}\nFindings:\n{lines}"


def test_implied_findings_read_which_findings_a_cause_implies():
    keys = list(CAUSES)
    contexts, statements, labels = [], [], []
    for i in range(30):
        k = keys[i % 3]
        contexts.append(_fatal(i + 1, k))
        statements.append(CAUSES[k])
        labels.append(True)
        # A False row says nothing about which findings a cause implies: it is not read.
        contexts.append(_fatal(i + 1, k))
        statements.append(CAUSES[keys[(i + 1) % 3]])
        labels.append(False)
    m = ImpliedFindings(min_reports=3).fit(contexts, statements, labels)
    assert len(m.labels_) == 3
    report = _fatal(1, "airspeed")
    X = m.transform(
        [report, report, "A narrative: the engine quit."],
        [CAUSES["airspeed"], CAUSES["fuel"], CAUSES["fuel"]],
    )
    assert X.shape == (3, len(IMPLIED_FEATURES))
    fits, other, narrative = X
    col = dict(zip(IMPLIED_FEATURES, range(len(IMPLIED_FEATURES))))
    assert fits[col["implied_finding_p"]] > other[col["implied_finding_p"]]
    assert other[col["implied_absent_p"]] > fits[col["implied_absent_p"]]
    assert fits[col["implied_top_present"]] == 1 and other[col["implied_top_present"]] == 0
    assert not narrative.any()  # no coded findings: nothing to check against
    # Each value is explained in words, naming the finding, from the same pass as the values.
    contexts3 = [report, report, "A narrative: the engine quit."]
    statements3 = [CAUSES["fuel"], CAUSES["airspeed"], CAUSES["fuel"]]
    columns, said = m.explain(contexts3, statements3)
    assert np.array_equal(columns, m.transform(contexts3, statements3))
    fuel, airspeed, narrative_said = said
    assert (
        "Fuel exhaustion" in fuel["implied_absent_p"]
        and "does not list" in fuel["implied_absent_p"]
    )
    assert "not among the report's" in fuel["implied_top_present"]
    assert "Airspeed" in airspeed["implied_finding_p"]
    # A narrative has nothing to check, and says so instead of showing a bare 0.
    assert set(narrative_said) == set(IMPLIED_FEATURES)
    assert all("no coded findings" in v for v in narrative_said.values())
    # The False rows change nothing: only probable causes teach what a cause implies.
    only_true = ImpliedFindings(min_reports=3).fit(contexts[::2], statements[::2], labels[::2])
    assert np.allclose(
        only_true.transform([report], [CAUSES["fuel"]]), m.transform([report], [CAUSES["fuel"]])
    )
    # Without any True row (or any finding) it learns nothing and gives zeros.
    empty = ImpliedFindings().fit(contexts[1::2], statements[1::2], labels[1::2])
    assert not empty.transform([report], [CAUSES["fuel"]]).any()


def test_verifier_learns_and_explains(embedder, tmp_path):
    ex = _examples()
    v = Verifier(cross_encoder=False, kind="logistic", embedder=embedder).fit(ex)
    assert v.train_reports_ == sorted({e.report_id for e in ex})
    assert set(IMPLIED_FEATURES) <= set(v.feature_names_)
    assert 0 < v.threshold_ < 1
    ctx = "The pilot did not remove frost from the wings before takeoff." + FILLER
    d_true = verify(ctx, "Frost on the wings.", v)
    d_false = verify(ctx, "Bird strike.", v)
    assert d_true.verdict and not d_false.verdict
    assert d_true.probability > d_false.probability
    # A narrative (no coded findings) is judged by the narratives' model, at their threshold.
    assert v.narrative_model_ is not None and "narrative" in v.thresholds_
    cut = v.thresholds_["narrative"]
    assert d_true.method == "verifier" and d_true.threshold == pytest.approx(cut, abs=1e-4)
    assert "frost" in d_true.evidence[0]["passage"]
    assert d_true.contributions and {"feature", "value", "contribution", "description"} <= set(
        d_true.contributions[0]
    )
    # A batch gives the same answers, in order.
    batch = verify_batch([(ctx, "Bird strike."), (ctx, "Frost on the wings.")], v)
    assert [b.verdict for b in batch] == [False, True]
    # Saved and loaded: the same probabilities; the manifest records what it was trained on.
    path = v.save(tmp_path / "v.pkl", info={"command": "test", "data_sha256": "x"})
    w = load_verifier(path, embedder=embedder)
    assert w.manifest_["info"]["command"] == "test"
    assert w.manifest_["bytes"] < 10_000_000
    assert verify(ctx, "Frost on the wings.", w).probability == d_true.probability


def test_damaged_or_missing_verifier_files_are_clear_errors(embedder, tmp_path):
    v = Verifier(cross_encoder=False, kind="logistic", embedder=embedder).fit(_examples(12))
    path = v.save(tmp_path / "v.pkl")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(DataFileError, match="does not match its manifest") as e:
        load_verifier(path)
    assert "causalqa deduction train" in e.value.hint
    with pytest.raises(DataFileError, match="no verifier"):
        load_verifier(tmp_path / "absent.pkl")
    (tmp_path / "bad.pkl").write_bytes(b"x")
    (tmp_path / "bad.pkl.json").write_text("{not json")
    with pytest.raises(DataFileError, match="unreadable"):
        load_verifier(tmp_path / "bad.pkl")


def test_verifier_needs_both_labels_and_llm_features(embedder):
    ex = [e for e in _examples(6) if e.label]
    with pytest.raises(DeductionError, match="both True and False"):
        Verifier(cross_encoder=False, embedder=embedder).fit(ex)
    v = Verifier(cross_encoder=False, kind="logistic", llm_features=("llm_v1",), embedder=embedder)
    ex = _examples(12)
    v.fit(ex, llm={"llm_v1": [2.0 if e.label else -2.0 for e in ex]})
    assert "llm_v1" in v.feature_names_
    with pytest.raises(DeductionError, match="--no-llm"):
        verify(ex[0].context, ex[0].statement, v, llm=None)


def test_bad_input_is_a_clear_error():
    report = (
        "The pilot did not remove frost from the wings before takeoff and the airplane stalled."
    )
    with pytest.raises(ContextError, match="longer than the report"):
        check_pair(report, report + " " + report)
    with pytest.raises(ContextError, match="empty"):
        check_pair("", "Frost.")
    french = (
        "Le pilote n'a pas retiré le givre des ailes avant le décollage, et l'avion a décroché "
        "pendant la rotation. Les enquêteurs ont examiné les restes de l'épave sur la piste "
        "et ont trouvé des traces de givre sur le bord d'attaque des deux ailes."
    )
    with pytest.raises(ContextError, match="English"):
        check_pair(french, "Du givre sur les ailes.")


def test_verdicts_do_not_depend_on_the_order_of_a_batch(embedder):
    v = Verifier(cross_encoder=False, kind="logistic", embedder=embedder).fit(_examples(12))
    items = [(e.context, e.statement) for e in _examples(12)[:6]]
    a = [d.probability for d in verify_batch(items, v)]
    b = [d.probability for d in verify_batch(items[::-1], v)][::-1]
    assert np.allclose(a, b)
    assert json.loads(verify_batch(items[:1], v)[0].model_dump_json())["verdict"] in (True, False)


CODED = (
    "On 2021-06-05, a Cessna 172 (airplane) was involved in an accident near Town, Ohio.\n"
    "Phase of flight: Enroute.\nFindings:\n"
    "- Aircraft - Fluids/misc hardware - Fluids - Fuel - Fluid level\n"
    "- Personnel issues - Task performance - Planning/preparation - Fuel planning - Pilot"
)


def test_input_kind_and_per_kind_thresholds(embedder):
    from causalqa.deduction.verifier import input_kind

    assert input_kind(CODED) == "coded"
    assert input_kind("The engine quit when the tanks ran dry. The pilot landed.") == "narrative"
    # Too few narrative reports (11 < 20): no narratives' model, the pooled threshold.
    v = Verifier(cross_encoder=False, kind="logistic", embedder=embedder).fit(_examples(11))
    assert v.narrative_model_ is None and "narrative" not in v.thresholds_
    assert v.threshold_for(["free text", CODED]).tolist() == [v.threshold_, v.threshold_]
    # Without the narratives' model, its rows are read by the main model.
    v = Verifier(
        cross_encoder=False, kind="logistic", narrative_model=False, embedder=embedder
    ).fit(_examples())
    assert v.narrative_model_ is None
    ctx = "Report 0. " + TOPICS[0][1] + FILLER
    X, _ = v.evidence([(ctx, "Frost on the wings.")])
    assert v.proba(X, [ctx])[0] == pytest.approx(v.model_.predict_proba(X)[0, 1])


def test_narratives_model_reads_no_coded_finding_feature(embedder):
    from causalqa.deduction.verifier import CODED_ONLY

    v = Verifier(cross_encoder=False, kind="logistic", embedder=embedder).fit(_examples())
    read = {v.feature_names_[i] for i in v.narrative_cols_}
    assert read and not read & CODED_ONLY
    ctx = "Report 0. " + TOPICS[0][1] + FILLER
    d = verify(ctx, "Frost on the wings.", v)
    # Its explanation names only features that model reads.
    assert {c["feature"] for c in d.contributions} <= read


def test_hard_negatives_in_training_come_from_training_reports(embedder):
    ex = _examples()
    # Each topic has four reports with one cause: the three nearest give nothing (their
    # cause is the report's own), the fourth gives another topic's cause.
    v = Verifier(cross_encoder=False, kind="logistic", hard_negatives=3, embedder=embedder)
    assert v.fit(ex).n_train_ == len(ex)
    v = Verifier(cross_encoder=False, kind="logistic", hard_negatives=4, embedder=embedder)
    assert v.fit(ex).n_train_ > len(ex)
    with pytest.raises(Exception, match="whole number"):
        Verifier(cross_encoder=False, hard_negatives=-1, embedder=embedder).fit(ex)
