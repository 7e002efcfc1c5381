"""The reader on hand-written stories: graph wordings, number formats, value phrases that
differ between sentences, value declarations, tables, and made-up words."""

# Stories and questions read best one sentence to a line.
# ruff: noqa: E501

from __future__ import annotations

import pytest

from causalqa.stated.answer import read_query, read_story


def prob(model, event: dict, given: dict | None = None) -> float:
    for p in model.probabilities:
        if p.event == event and p.given == (given or {}):
            return p.value
    raise AssertionError(
        f"no stated P({event} | {given}) in {[(p.event, p.given) for p in model.probabilities]}"
    )


ALARM = (
    "Husband has a direct effect on wife and alarm clock. Wife has a direct effect on alarm clock. "
    "For husbands that don't set the alarm, the probability of ringing alarm is 26%. "
    "For husbands that set the alarm, the probability of ringing alarm is 85%."
)


def test_phrases_that_differ_between_sentences_map_to_one_variable():
    m = read_story(ALARM)
    assert set(m.variables) == {"husband", "wife", "alarm clock"}
    assert ("husband", "wife") in m.edges and ("wife", "alarm clock") in m.edges
    # the negated condition is value 0, the other value 1, and the event is the alarm
    assert prob(m, {"alarm clock": 1}, {"husband": 0}) == pytest.approx(0.26)
    assert prob(m, {"alarm clock": 1}, {"husband": 1}) == pytest.approx(0.85)
    q = read_query("Will alarm set by husband increase the chance of ringing alarm?", m)
    assert (q.kind, q.treatment, q.treatment_value, q.outcome, q.outcome_value) == (
        "ate",
        "husband",
        1,
        "alarm clock",
        1,
    )


@pytest.mark.parametrize(
    "graph",
    [
        "Husband -> wife, husband -> alarm clock, wife -> alarm clock.",
        "Wife depends on husband. Alarm clock depends on husband and wife.",
        "Husband is one of the causes of wife. Husband influences alarm clock. Wife is a cause of alarm clock.",
        "The direct causes of alarm clock are husband and wife. Wife is directly affected by husband.",
        "What causes what:\n- husband directly affects wife\n- husband directly affects alarm clock\n- wife directly affects alarm clock",
    ],
)
def test_graph_wordings(graph):
    m = read_story(graph + "\nThe overall probability of alarm set by husband is 40%.")
    assert sorted(m.edges) == [
        ("husband", "alarm clock"),
        ("husband", "wife"),
        ("wife", "alarm clock"),
    ]


@pytest.mark.parametrize(
    "number,value",
    [
        ("26%", 0.26),
        ("0.26", 0.26),
        ("26 in 100", 0.26),
        ("26 out of 100", 0.26),
        ("26 percent", 0.26),
    ],
)
def test_number_formats(number, value):
    m = read_story(
        f"Smoking has a direct effect on cancer. The overall probability of smoking is {number}."
    )
    assert prob(m, {"smoking": 1}) == pytest.approx(value)


def test_numbers_after_the_graph_or_before_it_read_the_same():
    numbers = (
        "Among smokers, the chance of cancer is 0.30. Among nonsmokers, the chance of cancer is 0.10. "
        "The overall probability of smoking is 40%."
    )
    graph = "Smoking has a direct effect on cancer."
    a, b = read_story(f"{graph} {numbers}"), read_story(f"{numbers} {graph}")
    for m in (a, b):
        assert prob(m, {"cancer": 1}, {"smoking": 1}) == pytest.approx(0.30)
        assert prob(m, {"cancer": 1}, {"smoking": 0}) == pytest.approx(0.10)


def test_made_up_words_and_distributive_sentences():
    m = read_story(
        "Rixq has a direct effect on zuph and xevu. Zuph has a direct effect on xevu. "
        "The chance of xevu is 0.1 for those who are not rixq and are not zuph, 0.2 for those who are "
        "not rixq and are zuph, 0.3 for those who are rixq and are not zuph, and 0.4 for those who are "
        "rixq and are zuph."
    )
    assert prob(m, {"xevu": 1}, {"rixq": 1, "zuph": 0}) == pytest.approx(0.3)
    assert prob(m, {"xevu": 1}, {"rixq": 0, "zuph": 1}) == pytest.approx(0.2)


def test_value_declarations_and_a_table():
    m = read_story(
        "Gender takes two values: male gender / non-male gender. Possible values of admission status: "
        "admission acceptance, admission rejection. Gender affects admission status.\n"
        "Admission acceptance rates:\n- male gender: 40%\n- non-male gender: 55 in 100"
    )
    assert prob(m, {"admission status": 1}, {"gender": 1}) == pytest.approx(0.40)
    assert prob(m, {"admission status": 1}, {"gender": 0}) == pytest.approx(0.55)
    assert m.variables["gender"].phrases[1][0] == "male gender"


def test_contrast_without_negation_and_joint_statements():
    # "high school degree or lower" has no negation word; the two joint statements that
    # differ only in it make it the other value of education
    m = read_story(
        "Education level has a direct effect on salary. The overall probability of college degree or "
        "higher is 30%. The probability of high school degree or lower and high salary is 21%. The "
        "probability of college degree or higher and high salary is 18%."
    )
    assert prob(m, {"education level": 0, "salary": 1}) == pytest.approx(0.21)
    assert prob(m, {"education level": 1, "salary": 1}) == pytest.approx(0.18)


def test_unobserved_and_mechanisms():
    m = read_story(
        "Pollution has a direct effect on smoking and cancer. Smoking has a direct effect on cancer. "
        "Pollution is unobserved. We know that high pollution causes smoking. high pollution or smoking "
        "causes cancer. We observed the person lives in a place with low pollution."
    )
    assert m.variables["pollution"].observed is False
    ops = {mm.effect: mm.op for mm in m.mechanisms}
    assert ops == {"smoking": "and", "cancer": "or"}
    assert [(o.variable, o.value) for o in m.observations] == [("pollution", 0)]
