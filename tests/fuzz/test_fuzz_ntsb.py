"""NTSB report files (read-only use of `causalqa.deduction.dataset`): the narratives CSV
and the fatal-accidents JSON, generated with junk values and mutated, load as reports
with non-empty text, or fail with one `DatasetError` naming the file; the deduction data
set JSONL (`load_jsonl`) likewise."""

from __future__ import annotations

import csv
import io
import json

from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.common import FUZZ, load_or_refused, mutated, texts

from causalqa.deduction.dataset import load_fatal, load_jsonl, load_narratives

values = st.one_of(
    texts,
    st.none(),
    st.integers(),
    st.floats(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def load_or_error(loader, name: str, text: str):
    reports = load_or_refused(loader, name, text)
    if reports is None:
        return None
    for r in reports:
        assert r.report_id.strip() and r.context.strip()
    return reports


@st.composite
def narratives(draw) -> str:
    columns = ["ev_id", "narr_accp", "narr_accf", "narr_cause", "aircraft_key"]
    if draw(st.integers(0, 9)) == 0:
        columns.remove(draw(st.sampled_from(columns)))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for i in range(draw(st.integers(0, 5))):
        row = {c: draw(texts) for c in columns}
        row["ev_id"] = draw(st.sampled_from([f"2021{i}", "2021x", ""]))
        w.writerow([row[c] for c in columns])
    return buf.getvalue()


@FUZZ
@given(narratives())
def test_generated_narratives_csv(text):
    load_or_error(load_narratives, "narratives-2021.csv", text)


NARRATIVE = (
    "ev_id,narr_accp,narr_accf,narr_cause\n"
    '20210101X1,"The pilot took off.","Frost on the wings, then a stall.",'
    '"The pilot\'s failure to remove frost."\n'
)


@FUZZ
@given(mutated(NARRATIVE))
def test_mutated_narratives_csv(text):
    load_or_error(load_narratives, "narratives-2021.csv", text)


FIELDS = ["NtsbNo", "ProbableCause", "Findings", "EventType", "City", "State", "Make", "Model",
          "EventDate", "AirCraftCategory", "FatalInjuryCount", "FAR", "EngineType"]  # fmt: skip


@FUZZ
@given(
    st.one_of(
        st.lists(st.dictionaries(st.sampled_from(FIELDS), values, max_size=8), max_size=4),
        values,
    )
)
def test_generated_fatal_json(records):
    load_or_error(load_fatal, "fatal.json", json.dumps(records))


FATAL = json.dumps(
    [
        {
            "NtsbNo": "ERA21FA001",
            "ProbableCause": "Loss of control.",
            "Findings": "Personnel issues-Aircraft control, Aircraft-Performance",
            "EventDate": "2021-01-01",
            "City": "Ely",
            "FatalInjuryCount": 1.0,
        }
    ]  # fmt: skip
)


@FUZZ
@given(mutated(FATAL))
def test_mutated_fatal_json(text):
    load_or_error(load_fatal, "fatal.json", text)


EXAMPLES = "".join(
    json.dumps(r) + "\n"
    for r in [
        {"report_id": "A", "context": "Frost.", "statement": "Frost.", "label": True},
        {"report_id": 2, "context": "Ice.", "statement": "Frost.", "label": False,
         "source": "false-rules"},
    ]
)  # fmt: skip


@FUZZ
@given(mutated(EXAMPLES))
def test_mutated_deduction_dataset_jsonl(text):
    for ex in load_or_refused(load_jsonl, "data.jsonl", text) or []:
        assert ex.context.strip() and ex.statement.strip() and isinstance(ex.label, bool)
