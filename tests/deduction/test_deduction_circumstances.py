"""Circumstance agreement between a statement and a report, and coded findings as phrases."""

from __future__ import annotations

import pickle

import numpy as np

from causalqa.deduction.circumstances import CIRCUMSTANCES, agreement
from causalqa.deduction.features import LEGACY_FEATURES, findings

_FINDINGS = (
    "Personnel issues - Task performance - Use of equip/info - Aircraft control - "
    "Student/instructed pilot",
    "Aircraft - Aircraft oper/perf/capability - Performance/control parameters - "
    "Angle of attack - Capability exceeded",
    "Environmental issues - Physical environment - Object/animal/substance - Wire - "
    "Response/compensation",
)
RECORD = (
    "On 2023-01-07, a PIPER PA28 (airplane) was involved in an accident near Suffolk.\n"
    "Engines: 1 reciprocating.\nPurpose of flight: instructional.\n"
    "Phase of flight: Approach.\nWeather: VMC.\nFindings:\n"
    + "\n".join(f"- {f}" for f in _FINDINGS)
)

NARRATIVE = (
    "The helicopter pilot reported that the main rotor struck a tree while hovering. "
    "The helicopter sustained substantial damage to the tail boom."
)


def test_a_statement_that_fits_the_record_agrees_on_what_it_names():
    a = agreement(
        RECORD,
        "The student pilot's exceedance of the airplane's critical angle of attack during the "
        "approach, which resulted in a collision with power lines.",
    )
    v = a.values
    assert v["fits_aircraft"] == 1 and v["fits_phase"] == 1 and v["fits_actor"] == 1
    assert v["fits_topics"] == 2 and v["misses_topics"] == 0  # a stall, wires
    assert v["fits_purpose"] == 1  # 'student' fits an instructional flight
    assert set(a.reasons) == {k for k, x in v.items() if x}


def test_a_cause_written_for_another_accident_contradicts_the_record():
    a = agreement(
        RECORD,
        "The helicopter pilot's decision to take off into instrument meteorological "
        "conditions, and the flight instructor's fuel mismanagement, which resulted in fuel "
        "starvation and a loss of carburetor heat.",
    )
    v = a.values
    assert v["fits_aircraft"] == -1
    assert v["fits_phase"] == -1
    assert v["fits_weather"] == -1
    assert v["fits_actor"] == -1
    assert v["fits_engine"] == 1  # the carburetor of a reciprocating engine fits
    assert v["misses_topics"] >= 2 and v["fits_topics"] < 0
    assert (
        "helicopter" in a.reasons["fits_aircraft"] and "an airplane" in a.reasons["fits_aircraft"]
    )
    assert "Approach" in a.reasons["fits_phase"]
    assert "a flight instructor" in a.reasons["fits_actor"]


def test_a_silent_statement_or_record_gives_no_evidence():
    a = agreement(RECORD, "The pilot's inadequate decision-making.")
    assert all(a.values[k] == 0 for k in CIRCUMSTANCES if k not in ("fits_topics",))
    b = agreement("Something happened.", "The helicopter's tail rotor failed during takeoff.")
    assert b.values["fits_aircraft"] == 0 and b.values["fits_phase"] == 0
    assert list(a.values) == list(CIRCUMSTANCES)


def test_a_narrative_reveals_its_aircraft_in_words():
    assert agreement(NARRATIVE, "The helicopter's main rotor strike.").values["fits_aircraft"] == 1
    assert agreement(NARRATIVE, "The airplane's stall.").values["fits_aircraft"] == -1
    a = agreement(NARRATIVE, "The main rotor's strike of a tree.")
    assert a.values["fits_topics"] == 2 and a.values["misses_topics"] == 0
    b = agreement(NARRATIVE, "The pilot's fuel exhaustion.")
    assert b.values["fits_topics"] == -1 and b.values["misses_topics"] == 1


def test_undetermined_causes_need_undetermined_findings():
    said = "A total loss of engine power for reasons that could not be determined."
    assert agreement(RECORD, said).values["fits_undetermined"] == -1
    undetermined = (
        RECORD
        + "\n- Not determined - Not determined - (general) - (general) - Unknown/Not determined"
    )
    assert agreement(undetermined, said).values["fits_undetermined"] == 1


def test_findings_read_as_short_phrases():
    assert findings(RECORD) == [
        "Aircraft control Student or instructed pilot",
        "Angle of attack Capability exceeded",
        "Wire Response or compensation",
    ]
    assert findings(NARRATIVE) == []


def test_a_verifier_trained_before_these_features_reads_its_own(embedder):
    """A verifier pickled before the findings and circumstance features existed has no
    `text_features_` (nor `implied_`): it must read only the legacy columns, not crash on a
    width mismatch."""
    from causalqa.deduction.dataset import Example
    from causalqa.deduction.verifier import Verifier

    ex = []
    for i in range(12):
        ctx = RECORD.replace("Suffolk", f"Town {i}")
        ex.append(
            Example(
                report_id=f"r{i}", context=ctx, statement="Angle of attack exceeded.", label=True
            )
        )
        ex.append(
            Example(
                report_id=f"r{i}",
                context=ctx,
                statement="Fuel exhaustion in cruise.",
                label=False,
                source="false-rules",
            )
        )
    v = Verifier(cross_encoder=False, kind="logistic", embedder=embedder).fit(ex)
    assert v.feature_names_[: len(v.text_features_)] == v.text_features_
    old = pickle.loads(pickle.dumps(v))
    del old.text_features_
    del old.implied_  # nor the implied-findings model, added later still
    assert old._text_names() == list(LEGACY_FEATURES)
    X, _ = old.evidence([(RECORD, "Angle of attack exceeded.")])
    assert X.shape[1] == len(LEGACY_FEATURES) + 1  # + the term-pairs logit
    assert np.isfinite(X).all()


def test_deduce_explains_a_circumstance_with_what_it_found():
    from causalqa.deduction.deduce import _with_reasons

    a = agreement(RECORD, "The pilot's loss of control during takeoff.")
    shown = _with_reasons(
        [
            {"feature": "fits_phase", "value": -1.0, "description": "generic"},
            {"feature": "tfidf_cos", "value": 0.1, "description": "TF-IDF cosine"},
        ],
        a.reasons,
    )
    assert shown[0]["description"] == (
        "the statement says 'takeoff'; the report's phase of flight is Approach"
    )
    assert shown[1]["description"] == "TF-IDF cosine"


def test_a_phase_reason_quotes_the_word_that_fits():
    """Naming a phase that contradicts the record and one that fits is agreement, and the
    reason must read as agreement, not quote the contradicting word."""
    a = agreement(RECORD, "A stall during the takeoff briefing review and the approach.")
    assert a.values["fits_phase"] == 1
    assert a.reasons["fits_phase"].startswith("the statement says 'approach'")


def test_the_vocabulary_is_a_data_file_read_by_one_function(tmp_path):
    import json

    import pytest

    from causalqa.deduction.circumstances import DESCRIPTIONS, TABLE, load_table
    from causalqa.errors import DataFileError

    table = load_table()
    assert TABLE.name == "circumstances.json" and tuple(table.descriptions) == CIRCUMSTANCES
    assert table.descriptions == DESCRIPTIONS
    fuel = dict((t, (said, there)) for t, said, there in table.topics)["fuel exhaustion"]
    # a statement's words match in any case; a report's coded finding only as written
    assert fuel[0].search("FUEL EXHAUSTION due to poor planning")
    assert fuel[1].search("Fluid level - Fuel - Not attained") and not fuel[1].search("FLUID LEVEL")
    doc = json.loads(TABLE.read_text(encoding="utf-8"))
    for broken, message in (
        ({**doc, "phases": [{"statement": "(unclosed", "report_phases": []}]}, "bad pattern"),
        ({k: v for k, v in doc.items() if k != "topics"}, "not a circumstance table"),
        ({**doc, "descriptions": {"fits_phase": "x"}}, "describes"),
    ):
        path = tmp_path / "table.json"
        path.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(DataFileError, match=message):
            load_table(path)
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(DataFileError, match="unreadable"):
        load_table(tmp_path / "bad.json")
