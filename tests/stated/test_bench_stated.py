"""The benchmark's scoring helpers: the generator's formal quantities, and the check that
catches a number read as another quantity (a misread)."""

# ruff: noqa: E501

from __future__ import annotations

import pytest

from causalqa.bench.stated import formal_quantities, misread_statements


def test_formal_quantities_read_the_generators_keys():
    f = formal_quantities(
        {
            "p(Y | X, V2)": [[0.1, 0.2], [0.3, 0.4]],
            "P(X=1)": 0.6,
            "P(Y=1, X=0)": 0.05,
            "p(V1)": [0.7],
        }
    )
    assert f[(frozenset({("Y", 1)}), frozenset({("X", 1), ("V2", 0)}))] == pytest.approx(0.3)
    assert f[(frozenset({("X", 1)}), frozenset())] == pytest.approx(0.6)
    assert f[(frozenset({("Y", 1), ("X", 0)}), frozenset())] == pytest.approx(0.05)
    assert f[(frozenset({("V1", 1)}), frozenset())] == pytest.approx(0.7)


ITEM = {
    "given_info_formal": {"P(X)": 0.4, "P(Y | X)": [0.2, 0.7]},
    "variable_mapping": {"Xname": "smoking", "Yname": "cancer", "V2name": "gene"},
}


def model(probs):
    return {"probabilities": [{"event": e, "given": g, "value": v} for e, g, v in probs]}


def test_a_right_reading_has_no_misread_whatever_it_calls_value_1():
    right = model(
        [
            ({"smoking": 1}, {}, 0.4),
            ({"cancer": 1}, {"smoking": 0}, 0.2),
            ({"cancer": 1}, {"smoking": 1}, 0.7),
        ]
    )
    assert misread_statements(right, ITEM) == 0
    # calling the other value 1 is the reader's choice, not a misread
    relabelled = model(
        [
            ({"smoking": 0}, {}, 0.4),
            ({"cancer": 1}, {"smoking": 1}, 0.2),
            ({"cancer": 1}, {"smoking": 0}, 0.7),
        ]
    )
    assert misread_statements(relabelled, ITEM) == 0


def test_a_number_read_as_another_variable_is_a_misread():
    wrong_variable = model(
        [
            ({"gene": 1}, {}, 0.4),
            ({"cancer": 1}, {"gene": 0}, 0.2),
            ({"cancer": 1}, {"gene": 1}, 0.7),
        ]
    )
    assert misread_statements(wrong_variable, ITEM) == 3
    swapped_values = model(
        [
            ({"smoking": 1}, {}, 0.4),
            ({"cancer": 1}, {"smoking": 0}, 0.7),
            ({"cancer": 1}, {"smoking": 1}, 0.2),
        ]
    )
    assert misread_statements(swapped_values, ITEM) >= 1


FORK_ITEM = {
    "given_info_formal": {"p(Y | X)": [0.29, 0.63]},
    "variable_mapping": {"Xname": "the man", "V2name": "the candle", "Yname": "room"},
    "structure": "X->Y,V2->Y",
}
# 'blowing out the candle' read as a value of the candle; the generator gives it to the man
CANDLE_READING = model([({"room": 1}, {"candle": 0}, 0.29), ({"room": 1}, {"candle": 1}, 0.63)])


def test_a_reading_that_only_swaps_variables_the_graph_cannot_tell_apart_is_no_misread():
    # both are root causes of the room: every number is the same quantity of the graph
    assert misread_statements(CANDLE_READING, FORK_ITEM) == 0
    assert misread_statements(CANDLE_READING, FORK_ITEM, up_to_symmetry=False) == 2


def test_a_swap_the_graph_can_tell_apart_stays_a_misread():
    chain = {**FORK_ITEM, "structure": "X->V2,V2->Y"}  # the candle is a mediator here
    assert misread_statements(CANDLE_READING, chain) == 2


def test_graph_symmetries_list_the_identity_first():
    from causalqa.bench.stated import graph_symmetries

    fork = graph_symmetries("X->Y,V2->Y")
    assert fork[0] == {"X": "X", "Y": "Y", "V2": "V2"}
    assert {"X": "V2", "V2": "X", "Y": "Y"} in fork and len(fork) == 2
    assert graph_symmetries("V1->X,V1->Y,X->Y") == [{"V1": "V1", "X": "X", "Y": "Y"}]


def test_only_questions_the_stated_numbers_decide_count_as_decided():
    from causalqa.bench.stated import decided_by_the_stated_numbers

    assert decided_by_the_stated_numbers({"result": "wrong", "close_call": False})
    assert not decided_by_the_stated_numbers({"result": "right", "close_call": True})
    assert not decided_by_the_stated_numbers(
        {"result": "refused", "refusal_kind": "not identified by the stated numbers"}
    )
    # a refusal for another reason (a sentence the reader cannot take) still counts against
    assert decided_by_the_stated_numbers({"result": "refused", "refusal_kind": "other"})
