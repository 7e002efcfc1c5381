"""The deduction data set: NTSB loaders, cause splitting, False statements, JSONL."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from causalqa.deduction.dataset import (
    Cause,
    Example,
    Report,
    build_dataset,
    default_data_dir,
    fatal_context,
    load_fatal,
    load_jsonl,
    load_narratives,
    load_ntsb,
    parse_list_items,
    rule_negatives,
    sample_report_ids,
    save_jsonl,
    split_probable_cause,
    summary,
)
from causalqa.errors import DatasetError
from causalqa.llm.testing import ScriptedLLM

SHARED = default_data_dir() if default_data_dir().is_dir() else Path("/work/shared/data")
needs_shared = pytest.mark.skipif(
    not (SHARED / "ntsb" / "fatal.json").exists(), reason="shared NTSB data not mounted"
)


# -- splitting probable causes -------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "The pilot’s loss of airplane control due to spatial disorientation. Contributing to "
            "the accident was the pilot’s distraction with a “popped” circuit breaker and "
            "communications with air traffic control.",
            [
                Cause("The pilot’s loss of airplane control due to spatial disorientation."),
                Cause(
                    "The pilot’s distraction with a “popped” circuit breaker and communications "
                    "with air traffic control.",
                    "contributing",
                ),
            ],
        ),
        (
            "The pilot’s failure to maintain proper airspeed and his exceedance of the "
            "airplane’s critical angle of attack, which resulted in an aerodynamic stall.",
            [
                Cause("The pilot’s failure to maintain proper airspeed."),
                Cause(
                    "The pilot’s exceedance of the airplane’s critical angle of attack, which "
                    "resulted in an aerodynamic stall."
                ),
            ],
        ),
        (
            # After "which resulted in", "and the airplane's …" is an effect, not a cause.
            "The pilot’s failure to respond to a trim condition, which resulted in his decision "
            "to eject and the airplane’s subsequent runway excursion.",
            [
                Cause(
                    "The pilot’s failure to respond to a trim condition, which resulted in his "
                    "decision to eject and the airplane’s subsequent runway excursion."
                )
            ],
        ),
        (
            "The pilot’s failure to maintain directional control on takeoff for unknown reasons; "
            "whether the pilot’s acute stroke contributed to the accident could not be determined.",
            [
                Cause(
                    "The pilot’s failure to maintain directional control on takeoff for "
                    "unknown reasons."
                )
            ],
        ),
        (
            "The flight crew’s decision to test in icing. Also causal was the manufacturer’s lack "
            "of training requirements. Contributing to the accident were (1) the pilot’s fatigue "
            "and (2) the operator’s pressure to fly.",
            [
                Cause("The flight crew’s decision to test in icing."),
                Cause("The manufacturer’s lack of training requirements."),
                Cause("The pilot’s fatigue.", "contributing"),
                Cause("The operator’s pressure to fly.", "contributing"),
            ],
        ),
        (
            "The probable cause of the employee fatality at the Dyno Nobel facility was a result "
            "of the conductor being impacted by the moving railcars.",
            [Cause("The conductor being impacted by the moving railcars.")],
        ),
        (
            "The pilot’s overconfidence and fatigue due to the time of the flight and her work "
            "schedule.",
            [
                Cause(
                    "The pilot’s overconfidence and fatigue due to the time of the flight and "
                    "her work schedule."
                )
            ],
        ),
        ("A stuck No. 3 cylinder intake valve.", [Cause("A stuck No. 3 cylinder intake valve.")]),
        ("", []),
    ],
)
def test_split_probable_cause(text, expected):
    assert split_probable_cause(text) == expected


def test_parse_list_items_for_prompts_1_and_2():
    reply = "[START_CAUSES]\n- Frost on wings\n- **Late** rotation\n[END_CAUSES]\n- ignored"
    assert parse_list_items(reply) == ["Frost on wings", "Late rotation"]
    assert parse_list_items("1. A cause\n2) Another cause\nprose\n3. A cause") == [
        "A cause",
        "Another cause",
    ]


# -- the shared NTSB files (fast parts) ----------------------------------------------------
@needs_shared
def test_load_shared_ntsb_files():
    narr = load_narratives(data_dir=SHARED)
    assert len(narr) == 36  # 37 rows with an analysis; one collision repeats its event
    assert len({r.report_id for r in narr}) == len(narr)
    frost = next(r for r in narr if r.report_id == "ntsb-20231206193483")
    assert frost.context.startswith("On December 6, 2023")  # factual narrative first
    assert "frost-contaminated wings" in frost.context  # then the analysis
    assert frost.probable_cause.startswith("The pilot’s decision to attempt takeoff")
    fatal = load_fatal(data_dir=SHARED)
    assert len(fatal) == 397
    era = next(r for r in fatal if r.report_id == "ERA24LA297")
    assert "Findings:\n- Personnel issues - Physical - Impairment/incapacitation - Alcohol" in (
        era.context
    )
    assert "Injuries: 1 fatal." in era.context
    assert "ProbableCause" not in era.context and "powerlines" not in era.context
    both = load_ntsb(SHARED)
    assert len(both) == 429  # ≤ 2,000 words, the paper's limit
    assert len(load_ntsb(SHARED, max_words=None)) == 433


@needs_shared
def test_every_shared_report_passes_the_context_checks():
    # The garbled-text checks of `deduce` and `kg mine` must never refuse a real report.
    from causalqa.deduction.deduce import check_text

    for r in load_ntsb(SHARED, max_words=None):
        check_text(r.context, what=f"report {r.report_id}")


def test_sample_report_ids_is_seeded_extends_and_ignores_labels():
    ids = [f"r{i:02d}" for i in range(40)]
    a = sample_report_ids(ids, 10, seed=3)
    assert len(set(a)) == 10 and a == sample_report_ids(reversed(ids), 10, seed=3)
    assert sample_report_ids(ids, 25, seed=3)[:10] == a  # a larger sample extends it
    assert sample_report_ids(ids, 10, seed=4) != a
    assert sample_report_ids(ids + ids, None) == sorted(ids) == sample_report_ids(ids, 99)


@needs_shared
def test_every_shared_probable_cause_splits_into_statements():
    reports = load_ntsb(SHARED, max_words=None)
    counts = [len(split_probable_cause(r.probable_cause)) for r in reports]
    assert min(counts) >= 1
    assert 1.2 < sum(counts) / len(counts) < 2.0
    starts = {c.text.split()[0] for r in reports for c in split_probable_cause(r.probable_cause)}
    assert not starts & {"And", "Or", "Whether", "Contributing"}


def test_missing_data_dir_is_a_clear_error(tmp_path):
    with pytest.raises(DatasetError, match="cannot find narratives-2021.csv"):
        load_narratives(data_dir=tmp_path)


# -- tiny fixtures -------------------------------------------------------------------------
def test_narratives_and_fatal_from_tiny_files(tmp_path):
    (tmp_path / "ntsb").mkdir()
    (tmp_path / "ntsb" / "narratives-2021.csv").write_text(
        "ev_id,aircraft_key,narr_accp,narr_accf,narr_cause\n"
        '1,1,"Facts one.","Analysis one.","Cause one."\n'
        '1,2,"Facts one.","Analysis one.","Cause one."\n'
        '2,1,,"Analysis two.","Cause two."\n'
        '3,1,"Facts only.",,\n',
        encoding="utf-8",
    )
    narr = load_narratives(data_dir=tmp_path)
    assert [(r.report_id, r.context) for r in narr] == [
        ("ntsb-1", "Facts one.\n\nAnalysis one."),
        ("ntsb-2", "Analysis two."),
    ]
    rec = {
        "NtsbNo": "X1",
        "EventDate": "2024-05-20T09:42:00Z",
        "Make": "CESSNA",
        "Model": "172",
        "AirCraftCategory": "AIR",
        "City": "Town",
        "State": "Ohio",
        "Country": "United States",
        "FatalInjuryCount": 1,
        "SeriousInjuryCount": math.nan,
        "WeatherCondition": "IMC",
        "Findings": "Aircraft - Fuel - Fuel exhaustion, Personnel issues - Planning - Pilot",
        "ProbableCause": "Fuel exhaustion.",
    }
    (tmp_path / "ntsb" / "fatal.json").write_text(
        json.dumps([rec, {"NtsbNo": "X2", "ProbableCause": None}]), encoding="utf-8"
    )
    (fatal,) = load_fatal(data_dir=tmp_path)
    assert fatal.context == fatal_context(rec)
    assert fatal.context.splitlines() == [
        "On 2024-05-20, a CESSNA 172 (airplane) was involved in an accident near Town, Ohio, "
        "United States.",
        "Weather: IMC.",
        "Injuries: 1 fatal.",
        "Findings:",
        "- Aircraft - Fuel - Fuel exhaustion",
        "- Personnel issues - Planning - Pilot",
    ]


def _truths_and_embedder(make_embedder):
    """Four reports; cosines with report A's true statement chosen by hand."""
    truths = {
        "A": ["t-a"],
        "B": ["in-range-1"],
        "C": ["in-range-2", "too-similar"],
        "D": ["too-far", "in-range-3"],
        "E": ["in-range-4"],
    }

    def unit(cos):  # a vector with the given cosine to e0
        return np.array([cos, math.sqrt(1 - cos**2), 0, 0, 0, 0], dtype=np.float32)

    fixed = {
        "t-a": np.array([1, 0, 0, 0, 0, 0], dtype=np.float32),
        "in-range-1": unit(0.6),
        "in-range-2": unit(0.7) * 1 + np.array([0, 0, 0.0, 0, 0, 0]),
        "too-similar": unit(0.9),
        "too-far": unit(0.3),
        "in-range-3": unit(0.55),
        "in-range-4": unit(0.74),
    }
    return truths, make_embedder(fixed=fixed)


def test_rule_negatives_stay_in_the_similarity_band(make_embedder):
    truths, emb = _truths_and_embedder(make_embedder)
    got = rule_negatives(truths, emb, per_true=3, seed=0)
    picked = got["A"]
    assert len(picked) == 3
    for false, true, sim in picked:
        assert true == "t-a"
        assert 0.5 <= sim <= 0.75
        assert false.startswith("in-range")
    assert rule_negatives(truths, emb, per_true=3, seed=0) == got  # deterministic
    # With only four candidates in range, a larger draw takes all four — never more.
    assert {f for f, _, _ in rule_negatives(truths, emb, per_true=10)["A"]} == {
        "in-range-1",
        "in-range-2",
        "in-range-3",
        "in-range-4",
    }


def test_rule_negatives_never_take_a_report_s_own_or_a_paraphrase(make_embedder):
    truths, emb = _truths_and_embedder(make_embedder)
    truths["A"].append("in-range-1")  # now also a true statement of A
    for rid, picked in rule_negatives(truths, emb, per_true=10).items():
        own = {s.casefold() for s in truths[rid]}
        assert not {f.casefold() for f, _, _ in picked} & own


def _reports():
    return [
        Report(
            report_id="r1",
            context="Frost on the wings; the airplane stalled on takeoff.",
            probable_cause="The pilot’s decision to take off with frost on the wings. "
            "Contributing to the accident was the pilot’s haste.",
        ),
        Report(
            report_id="r2",
            context="Carburetor ice; power loss in cruise.",
            probable_cause="The pilot’s delayed use of carburetor heat.",
        ),
        Report(
            report_id="r3",
            context="Fuel exhaustion on approach.",
            probable_cause="The pilot’s inadequate fuel planning.",
        ),
    ]


def test_build_dataset_rules_only_is_deterministic(embedder):
    a = build_dataset(_reports(), embedder=embedder, low=0.0, high=0.99, seed=1)
    b = build_dataset(_reports(), embedder=embedder, low=0.0, high=0.99, seed=1)
    assert a == b
    trues = [e for e in a if e.label]
    assert [e.statement for e in trues] == [
        "The pilot’s decision to take off with frost on the wings.",
        "The pilot’s haste.",
        "The pilot’s delayed use of carburetor heat.",
        "The pilot’s inadequate fuel planning.",
    ]
    assert all(e.source == "true" for e in trues)
    falses = [e for e in a if not e.label]
    assert falses and all(e.source == "false-rules" for e in falses)
    for e in falses:  # never the report's own cause
        assert e.statement not in {t.statement for t in trues if t.report_id == e.report_id}
    s = summary(a)
    assert s["reports"] == 3 and s["true"] == 4 and s["by_source"]["false-rules"] == len(falses)


def test_build_dataset_with_llm_prompts_1_and_2(embedder):
    def reply(messages):
        content = messages[-1]["content"]
        if "[START_CONTEXT]" in content:
            return "[START_CAUSES]\n- Frost on the wings\n- Hasty departure\n[END_CAUSES]"
        return (
            "1. Inadequate weather briefing.\n2. Frost on the wings\n3. Worn tires on the "
            "main gear.\n4. x"
        )

    llm = ScriptedLLM(reply)
    data = build_dataset(
        _reports()[:1], embedder=embedder, llm=llm, true_from="llm", with_llm_negatives=True
    )
    assert [(e.statement, e.source) for e in data] == [
        ("Frost on the wings.", "true"),
        ("Hasty departure.", "true"),
        ("Inadequate weather briefing.", "false-llm"),  # "Frost on the wings" repeats a truth
        ("Worn tires on the main gear.", "false-llm"),
    ]
    assert (
        "<CAUSES>\n- Frost on the wings.\n- Hasty departure.\n</CAUSES>"
        in (llm.calls[-1]["messages"][0]["content"])
    )
    with pytest.raises(DatasetError, match="LLM is needed"):
        build_dataset(_reports(), embedder=embedder, with_llm_negatives=True)


def test_build_dataset_with_llm_in_flight_keeps_the_order_and_waits_for_a_busy_server(
    embedder,
):
    """--true-from llm and Prompt 2 at concurrency 4 give the data set of concurrency 1,
    though replies arrive out of order and the server first answers 429."""
    from tests.llm.busy_llm import BusyLLM

    def reply(messages):
        content = messages[-1]["content"]
        n = re.search(r"problem number (\d+)", content).group(1)
        if "[START_CONTEXT]" in content:
            return f"- Engine problem number {n}\n- Pilot fatigue on leg {n}"
        return f"1. Worn tires number {n}.\n2. Late briefing on leg {n}."

    reports = [
        Report(
            report_id=f"r{i}",
            context=f"Engine problem number {i} in cruise; the pilot landed in a field.",
            probable_cause=f"Engine problem number {i}.",
        )
        for i in range(10)
    ]
    built = {}
    for c, busy in ((1, 0), (4, 2)):
        llm = BusyLLM(reply, busy=busy)
        built[c] = build_dataset(
            reports, embedder=embedder, llm=llm, true_from="llm", with_llm_negatives=True,
            concurrency=c,
        )  # fmt: skip
        assert llm.most == 1 if c == 1 else llm.most > 1
    assert built[4] == built[1]
    assert [e.report_id for e in built[1]] == sorted(
        (e.report_id for e in built[1]), key=lambda r: int(r[1:])
    )
    assert {e.source for e in built[1]} >= {"true", "false-llm"}
    assert ("Engine problem number 7.", "true") in [(e.statement, e.source) for e in built[1]]


# -- JSONL ---------------------------------------------------------------------------------
def test_jsonl_roundtrip_and_user_files(tmp_path, embedder):
    data = build_dataset(_reports(), embedder=embedder, low=0.0, high=0.99)
    path = save_jsonl(data, tmp_path / "d.jsonl")
    assert load_jsonl(path) == data
    user = tmp_path / "user.jsonl"
    user.write_text(
        '{"report_id": 7, "context": "c", "statement": "s", "label": true, "fold": 3}\n\n'
        '{"report_id": "8", "context": "c", "statement": "s2", "label": false}\n',
        encoding="utf-8",
    )
    got = load_jsonl(user)
    assert [(e.report_id, e.source) for e in got] == [("7", "true"), ("8", "false")]


@pytest.mark.parametrize(
    "line, problem",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"report_id": "r", "context": "c", "statement": "s"}', "label: Field required"),
        ('{"report_id": "r", "context": " ", "statement": "s", "label": true}', "context"),
        (
            '{"report_id": "r", "context": "c", "statement": "s", "label": true, '
            '"source": "false-llm"}',
            "contradicts",
        ),
        (
            '{"report_id": "r", "context": "c", "statement": "s", "label": false, '
            '"source": "made-up"}',
            "source",
        ),
        ('{"report_id": "r", "context": "c", "statement": "s", "label": "maybe"}', "label"),
    ],
)
def test_malformed_jsonl_names_file_and_line(tmp_path, line, problem):
    good = json.dumps(Example(report_id="r", context="c", statement="s", label=True).model_dump())
    p = tmp_path / "bad.jsonl"
    p.write_text(good + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        load_jsonl(p)
    assert f"{p}:2:" in info.value.message
    assert problem in info.value.message
    assert info.value.line == 2


def test_empty_or_missing_jsonl(tmp_path):
    with pytest.raises(DatasetError, match="no such data set file"):
        load_jsonl(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="holds no examples"):
        load_jsonl(tmp_path / "empty.jsonl")


def test_report_date_reads_records_and_narratives_and_nothing_else():
    from causalqa.deduction.dataset import report_date

    assert report_date("On 2021-06-05, a Cessna 172 (airplane) was involved") == (2021, 6, 5)
    assert report_date("Factual.\n\nOn June 23, 2024, about 0906 central time") == (2024, 6, 23)
    assert report_date("The pilot had not refueled on May 3 or since 2019.") is None


def test_narrative_views_add_shorter_tellings_under_the_same_report():
    from causalqa.deduction.dataset import narrative_views

    analysis = " ".join(f"Sentence number {i} of the analysis is here." for i in range(8))
    narrative = "On June 1, 2023, the pilot departed.\n\n" + analysis
    coded = "On 2021-06-05, a record.\nFindings:\n- Aircraft - Fluids - Fuel - Fluid level"
    data = [
        Example(report_id="n", context=narrative, statement="The pilot's act.", label=True),
        Example(report_id="n", context=narrative, statement="Another act.", label=False),
        Example(report_id="c", context=coded, statement="Fuel exhaustion.", label=True),
    ]
    out = narrative_views(data)
    views = {e.context for e in out if e.report_id == "n"}
    assert len(views) == 3 and {narrative, analysis} <= views
    assert (views - {narrative, analysis}).pop().count("Sentence number") == 4
    assert [e for e in out if e.report_id == "c"] == data[2:]  # a coded record has none
    # Every view carries the report's statements with their labels.
    for v in views:
        got = {(e.statement, e.label) for e in out if e.context == v}
        assert got == {("The pilot's act.", True), ("Another act.", False)}
