"""The stated precision: with ``precision="interval"`` each number stands for the interval
it rounds (26% for [25.5%, 26.5%]); an answer whose sign changes within those intervals is
refused as too close to call, and one whose sign holds across them is answered. With the
default ``"as-stated"`` the numbers are exact and such an answer is given with a note
saying it is a close call. Intervals and limits are worked out by hand in each test."""

# ruff: noqa: E501

from __future__ import annotations

import pytest

from causalqa.stated.answer import answer_story
from causalqa.stated.solve import half_unit


def strict(story: str, question: str):
    return answer_story(story, question, precision="interval")


GRAPH = "Smoking has a direct effect on cancer."
QUESTION = "Is the chance of cancer larger when observing smoking?"


@pytest.mark.parametrize(
    ("number", "half"),
    [
        ("26%", 0.005),
        ("26.5%", 0.0005),
        ("0.26", 0.005),
        ("0.263", 0.0005),
        ("26 in 100", 0.005),
        ("26 out of 100", 0.005),
        ("263 in 1000", 0.0005),
        ("26 percent", 0.005),
        ("3 out of 4", 0.0),  # counts over a denominator that is not a power of ten: exact
    ],
)
def test_half_unit_of_the_last_written_digit(number, half):
    assert half_unit(number) == pytest.approx(half)


def test_sign_that_changes_within_the_rounding_is_refused():
    # P(cancer | smoker) in [0.495, 0.505], P(cancer | nonsmoker) in [0.485, 0.495]: the
    # difference ranges over [-0.0, 0.02], so 0 (no increase) is within the rounding
    story = f"{GRAPH} For smokers, the probability of cancer is 50%. For nonsmokers, the probability of cancer is 49%."
    a = strict(story, QUESTION)
    assert a.answer is None
    assert "too close to call" in a.reason
    assert a.value == pytest.approx(0.01)  # the stated values' own difference is shown


def test_same_numbers_to_more_digits_are_answered():
    # [0.4995, 0.5005] against [0.4895, 0.4905]: the difference stays in [0.009, 0.011]
    story = f"{GRAPH} For smokers, the probability of cancer is 0.500. For nonsmokers, the probability of cancer is 0.490."
    a = answer_story(story, QUESTION)
    assert a.answer == "yes"
    assert a.value == pytest.approx(0.01)


def test_equal_stated_numbers_are_a_tie_not_a_zero_effect():
    story = f"{GRAPH} For smokers, the probability of cancer is 53%. For nonsmokers, the probability of cancer is 53%."
    a = strict(story, "Will smoking increase the chance of cancer?")
    assert a.answer is None and "too close to call" in a.reason


def test_ratio_through_small_denominator_is_too_close():
    # P(cancer | nonsmoker) = P(nonsmoker, cancer) / P(nonsmoker) = 0.02 / 0.05 = 0.4, but
    # within the rounding it ranges over [0.015/0.055, 0.025/0.045] = [0.27, 0.56], which
    # holds P(cancer | smoker) = 0.46 / 0.95 = 0.484 (itself in [0.476, 0.492])
    story = (
        f"{GRAPH} The overall probability of smoking is 95%. The probability of nonsmoking and "
        "cancer is 2%. The probability of smoking and cancer is 46%."
    )
    a = strict(story, QUESTION)
    assert a.answer is None and "too close to call" in a.reason


def test_wide_margin_survives_the_rounding():
    # 0.484 against 0.2: every corner of the rounding keeps the difference positive
    story = (
        f"{GRAPH} The overall probability of smoking is 95%. The probability of nonsmoking and "
        "cancer is 1%. The probability of smoking and cancer is 46%."
    )
    a = answer_story(story, QUESTION)
    assert a.answer == "yes"
    assert a.value == pytest.approx(0.46 / 0.95 - 0.01 / 0.05)


def test_marginal_near_one_half_is_too_close():
    # P(cancer) = 0.5 * 0.6 + 0.5 * 0.41 = 0.505; the rounding of the three numbers moves it
    # by up to 0.005 * (0.6 - 0.41) + 0.5 * 0.005 + 0.5 * 0.005 = 0.00595 > 0.005
    story = (
        f"{GRAPH} The overall probability of smoking is 50%. For smokers, the probability of "
        "cancer is 60%. For nonsmokers, the probability of cancer is 41%."
    )
    a = strict(story, "Is cancer more likely than not overall?")
    assert a.answer is None and "too close to call" in a.reason
    a = strict(story.replace("41%", "45%"), "Is cancer more likely than not overall?")
    assert a.answer == "yes"  # 0.525, and the rounding moves it by 0.0058 at most


def test_as_stated_answers_a_close_call_with_a_note():
    # 0.50 - 0.49 = 0.01 > 0 with the numbers taken as exact: yes, flagged as a close call
    story = f"{GRAPH} For smokers, the probability of cancer is 50%. For nonsmokers, the probability of cancer is 49%."
    a = answer_story(story, QUESTION)
    assert a.answer == "yes" and a.value == pytest.approx(0.01)
    assert a.note is not None and "close call" in a.note
    wide = answer_story(story.replace("49%", "20%"), QUESTION)
    assert wide.answer == "yes" and wide.note is None  # 0.30: no caveat


def test_unknown_precision_is_a_clear_error():
    from causalqa.errors import StoryError

    with pytest.raises(StoryError, match="precision"):
        answer_story(
            f"{GRAPH} For smokers, the probability of cancer is 50%.", QUESTION, precision="fuzzy"
        )
