"""General English word knowledge (`causalqa/stated/lexicon.txt`): synonyms, opposite
ends, several-word entries and values of a kind, and what they let the reader do — tell
which value a question's outcome names when the story names the same value in other
words ("the barn burns down" / "the barn on fire", "wakes up late" / "waking up on time",
"gets typhoid" / "typhoid infection")."""

# ruff: noqa: E501

from __future__ import annotations

import pytest

from causalqa.stated.answer import answer_story
from causalqa.stated.text import (
    opposite_words,
    phrase_words,
    stem,
    stems_match,
    value_of_kind,
)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("burns", "fire"),
        ("lives", "survival"),
        ("hard-working", "effort"),
        ("degree", "education"),
        ("admitted", "acceptance"),
        ("bill", "costs"),
    ],
)
def test_synonyms_match(a, b):
    assert any(stems_match(x, y) for x in phrase_words(a).content for y in phrase_words(b).content)


def test_synonymy_is_not_transitive_across_groups():
    # "fire" is in the group of "burn" and in the group of "dismiss"; burn is not dismiss
    assert stems_match(stem("fire"), stem("burn"))
    assert stems_match(stem("fire"), stem("dismiss"))
    assert not stems_match(stem("burn"), stem("dismiss"))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("arrives late", "arriving on time"),
        ("tanned skin", "pale skin"),
        ("healthy heart", "heart problems"),
        ("normal birth weight", "low birth weight"),
        ("increased supply", "reduced supply"),
        ("retain the employee", "fire the employee"),
        ("penguin happiness", "penguin saddness"),  # a doubled consonant, as misspelt
        ("ringing alarm", "silent alarm"),
    ],
)
def test_opposite_ends(a, b):
    assert opposite_words(phrase_words(a).content, phrase_words(b).content)


@pytest.mark.parametrize(
    ("a", "b"),
    [("burns down", "on fire"), ("gets cholera", "cholera contraction"), ("high", "high")],
)
def test_not_opposite(a, b):
    assert not opposite_words(phrase_words(a).content, phrase_words(b).content)


def test_several_word_entries_read_as_one_word():
    pw = phrase_words("Alice had gotten up on time")
    assert {"get_up", "on_tim"} <= pw.content
    assert "tim" not in pw.content


def test_get_with_a_noun_is_acquiring_and_with_a_participle_a_passive():
    assert stems_match(stem("acquire"), stem("contraction"))
    assert "acquir" in phrase_words("the person gets typhoid").content
    assert "acquir" not in phrase_words("the applicant gets admitted").content


def test_values_of_a_kind():
    assert value_of_kind(stem("male"), stem("gender"))
    assert value_of_kind(stem("elderly"), stem("age"))
    assert not value_of_kind(stem("male"), stem("age"))


CLOSED = "Imagine a self-contained, hypothetical world with only the following conditions."


@pytest.mark.parametrize(
    ("story", "question", "expected"),
    [
        # the alarm rings: the sleeper wakes on time; without it, not on time, i.e. late
        (
            f"{CLOSED} Alarm has a direct effect on sleeper. We know that the alarm ringing causes the sleeper waking up on time. We observed the alarm ringing.",
            "Would the sleeper wakes up late if the alarm not ringing instead of the alarm ringing?",
            "yes",
        ),
        (
            f"{CLOSED} Alarm has a direct effect on sleeper. We know that the alarm ringing causes the sleeper waking up on time. We observed the alarm ringing.",
            "Would the sleeper wakes up late if the alarm ringing instead of the alarm not ringing?",
            "no",
        ),
        (
            f"{CLOSED} Spark has a direct effect on barn. We know that a spark in the hay causes the barn on fire. We observed a spark in the hay.",
            "Would the barn burns down if no spark in the hay instead of a spark in the hay?",
            "no",
        ),
        (
            f"{CLOSED} Spark has a direct effect on barn. We know that a spark in the hay causes the barn on fire. We observed a spark in the hay.",
            "Would the barn burns down if a spark in the hay instead of no spark in the hay?",
            "yes",
        ),
        (
            f"{CLOSED} Water has a direct effect on typhoid. We know that dirty water causes typhoid infection. We observed dirty water.",
            "Would the person gets typhoid if clean water instead of dirty water?",
            "no",
        ),
        (
            f"{CLOSED} Water has a direct effect on typhoid. We know that dirty water causes typhoid infection. We observed dirty water.",
            "Would the person gets typhoid if dirty water instead of clean water?",
            "yes",
        ),
    ],
)
def test_outcome_named_in_other_words(story, question, expected):
    a = answer_story(story, question)
    assert a.answer == expected, a.reason


def test_phrase_maps_to_the_variable_its_synonym_names():
    # "hard-working" names effort, not the admission the graph also has; the two
    # stated numbers are then P(effort | talent), and effort and talent are independent
    story = (
        f"{CLOSED} Talent has a direct effect on admission. Effort has a direct effect on admission. "
        "The overall probability of talent is 40%. For students who are not talented, the probability "
        "of being hard-working is 30%. For students who are talented, the probability of being hard-working is 30%."
    )
    a = answer_story(story, "Is being hard-working more likely than being lazy overall?")
    assert a.answer == "no"
    effort = next(v for v in a.model["variables"] if v["name"] == "effort")
    assert "being hard-working" in effort["value_1"] + effort["value_0"]


def test_phrase_leans_to_the_name_it_covers_but_for_a_dimension_word():
    # "vaccinated" is in both names; "vaccination status" differs from it only by the
    # dimension word "status", "vaccination reaction" by a word of its own
    story = (
        "List of direct causal effects (from, to): (vaccination reaction, smallpox survival); "
        "(vaccination status, getting smallpox); (vaccination status, vaccination reaction); "
        "(getting smallpox, smallpox survival). Smallpox survival has probability 40 percent for "
        "unvaccinated individuals and 70 in 100 for vaccinated individuals."
    )
    a = answer_story(story, "Will vaccination increase the chance of smallpox survival?")
    assert a.answer == "yes", a.reason
    assert not any("tie" in step for step in a.route)  # the words decide, not the answers
    status = next(v for v in a.model["variables"] if v["name"] == "vaccination status")
    assert "vaccinated individuals" in status["value_1"] + status["value_0"]
