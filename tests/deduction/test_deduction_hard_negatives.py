"""The hard-negative builder: other reports' causes, nearest first, never the report's own."""

from __future__ import annotations

import pytest

from causalqa.deduction.dataset import SOURCES, Example
from causalqa.deduction.hard_negatives import (
    hard_negative_examples,
    hard_negatives,
    with_hard_negatives,
)
from causalqa.errors import DatasetError

FUEL = "The engine lost power when the fuel tanks ran empty; the pilot had not refueled."
ICE = "The engine lost power in cruise; ice had formed in the carburetor in humid air."
WIND = "During landing a gust of crosswind lifted the wing and the airplane left the runway."
CAUSES = {
    "fuel": "The pilot's inadequate fuel planning, which resulted in fuel exhaustion.",
    "ice": "The pilot's failure to use carburetor heat in conditions conducive to icing.",
    "wind": "The pilot's failure to maintain directional control in gusting crosswind.",
}


def _data(extra: list[Example] = ()) -> list[Example]:
    out = [
        Example(report_id=r, context=c, statement=CAUSES[r], label=True)
        for r, c in (("fuel", FUEL), ("ice", ICE), ("wind", WIND))
    ]
    return out + list(extra)


def test_false_hard_is_a_label_source():
    assert "false-hard" in SOURCES
    e = Example(report_id="r", context="c", statement="s s", label=False, source="false-hard")
    assert e.source == "false-hard"
    with pytest.raises(ValueError):
        Example(report_id="r", context="c", statement="s s", label=True, source="false-hard")


def test_nearest_other_report_s_cause_comes_first(embedder):
    found = hard_negatives(
        {e.report_id: [e.statement] for e in _data()},
        {e.report_id: e.context for e in _data()},
        1,
        embedder=embedder,
    )
    # The two engine-power reports are each other's nearest; neither gets its own cause.
    assert [s for s, _, _ in found["fuel"]] == [CAUSES["ice"]]
    assert [s for s, _, _ in found["ice"]] == [CAUSES["fuel"]]
    for rid, items in found.items():
        assert all(src != rid and s != CAUSES[rid] for s, src, _ in items)


def test_identical_reports_never_lend_each_other_their_shared_cause(embedder):
    # Two ids, the same text and the same cause (one event entered twice), plus a
    # paraphrase of it under a third id: none of those is a False statement for the others.
    twin = Example(report_id="fuel-2", context=FUEL, statement=CAUSES["fuel"], label=True)
    para = Example(
        report_id="fuel-3",
        context=FUEL,
        statement="The pilot's inadequate fuel planning, which resulted in fuel exhaustion",
        label=True,
    )
    data = _data([twin, para])
    out = hard_negative_examples(data, 3, embedder=embedder)
    own = {e.report_id: {x.statement for x in data if x.report_id == e.report_id} for e in data}
    for e in out:
        assert e.label is False and e.source == "false-hard"
        assert e.statement not in own[e.report_id]
        if e.report_id.startswith("fuel"):
            assert "fuel" not in e.statement.lower()
    # The twins still get the other reports' causes.
    assert {e.statement for e in out if e.report_id == "fuel-2"} >= {CAUSES["ice"]}


def test_sources_limit_where_causes_come_from(embedder):
    out = hard_negative_examples(_data(), 2, sources={"wind", "fuel"}, embedder=embedder)
    assert CAUSES["ice"] not in {e.statement for e in out}
    assert {e.report_id for e in out} == {"fuel", "ice", "wind"}


def test_deterministic_and_independent_of_input_order(embedder):
    data = _data()
    a = hard_negative_examples(data, 2, embedder=embedder)
    b = hard_negative_examples(list(reversed(data)), 2, embedder=embedder)
    assert a == hard_negative_examples(data, 2, embedder=embedder)
    assert sorted((e.report_id, e.statement) for e in a) == sorted(
        (e.report_id, e.statement) for e in b
    )


def test_with_hard_negatives_keeps_reports_together(embedder):
    out = with_hard_negatives(_data(), 1, embedder=embedder)
    ids = [e.report_id for e in out]
    assert ids == sorted(ids, key=["fuel", "ice", "wind"].index)
    assert sum(e.source == "false-hard" for e in out) == 3


@pytest.mark.parametrize("k", [0, -1, 1.5, "3", True, None])
def test_bad_k_is_a_clear_error(k, embedder):
    with pytest.raises(DatasetError, match="whole number ≥ 1"):
        hard_negative_examples(_data(), k, embedder=embedder)


def test_unknown_similarity_is_a_clear_error(embedder):
    with pytest.raises(DatasetError, match="unknown similarity"):
        hard_negative_examples(_data(), 1, similarity="cosine", embedder=embedder)
