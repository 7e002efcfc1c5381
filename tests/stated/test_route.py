"""`ask_story` and `ask_batch`, the entry every surface calls: which reader a story goes
to, answers against values derived by hand, the CPDAG an independence premise adds for
drawing, refusals, and a batch's order, ids and malformed lines."""

from __future__ import annotations

import doctest
import json

import pytest

import causalqa.stated
from causalqa.errors import StoryError
from causalqa.stated import route as route_module
from causalqa.stated.route import INDEPENDENCES, STATED_MODEL, ask_batch, ask_story

PREAMBLE = (
    "Imagine a self-contained, hypothetical world with only the following conditions, and "
    "without any unmentioned factors or causal relationships: "
)
# smoking -> tar -> cancer. By hand: P(c | do(s)) = sum_t P(t | s) P(c | t), so
# ATE = (0.7 - 0.1) * (0.5 - 0.2) = 0.18.
CHAIN = PREAMBLE + (
    "Smoking has a direct effect on tar deposit. Tar deposit has a direct effect on lung "
    "cancer. For nonsmokers, the probability of tar deposit is 10%. For smokers, the "
    "probability of tar deposit is 70%. For people without tar deposit, the probability of "
    "lung cancer is 20%. For people with tar deposit, the probability of lung cancer is 50%."
)
# gender -> smoking, gender -> cancer, smoking -> cancer. By hand (back-door over gender):
# ATE = 0.6 * (0.3 - 0.1) + 0.4 * (0.6 - 0.2) = 0.12 + 0.16 = 0.28.
CONFOUNDED = PREAMBLE + (
    "Gender has a direct effect on smoking and lung cancer. Smoking has a direct effect on "
    "lung cancer. The overall probability of male gender is 40%. For those who are not male "
    "and are nonsmokers, the probability of lung cancer is 10%. For those who are not male "
    "and are smokers, the probability of lung cancer is 30%. For those who are male and are "
    "nonsmokers, the probability of lung cancer is 20%. For those who are male and are "
    "smokers, the probability of lung cancer is 60%."
)
SMOKING = "Will smoking increase the chance of lung cancer?"
# The DAG A -> C <- B, C -> D: A and B independent marginally only (C and its descendant D
# are colliders' sets), A and D and B and D separated by C. PC finds the v-structure at C
# and Meek's first rule orients C -> D, so the class has one member.
COLLIDER_THEN_CHAIN = (
    "Suppose there is a closed system of 4 variables, A, B, C and D. All the statistical "
    "relations among these 4 variables are as follows: A correlates with C. A correlates "
    "with D. B correlates with C. B correlates with D. C correlates with D. However, A is "
    "independent of B. A and D are independent given C. A and D are independent given B and "
    "C. B and D are independent given C. B and D are independent given A and C."
)
# A back-door question: no numbers, and "correlates with" as a Corr2Cause premise says it.
METHODS = PREAMBLE + (
    "Gender has a direct effect on smoking and lung cancer. Smoking has a direct effect on "
    "lung cancer. Method 1: We look at how smoking correlates with lung cancer case by case "
    "according to gender. Method 2: We look directly at how smoking correlates with lung "
    "cancer in general."
)


def test_a_chain_story_gives_the_hand_computed_effect():
    a = ask_story(CHAIN, SMOKING)
    assert a.answer == "yes"
    assert a.value == pytest.approx(0.18, abs=1e-9)
    assert a.route[0] == STATED_MODEL
    assert a.model["edges"] == [["smoking", "tar deposit"], ["tar deposit", "lung cancer"]]


def test_a_confounded_story_is_adjusted_for_the_confounder():
    a = ask_story(CONFOUNDED, SMOKING)
    assert a.answer == "yes"
    assert a.value == pytest.approx(0.28, abs=1e-9)
    assert "gender" in a.estimand


def test_a_question_for_a_decrease_is_answered_no():
    a = ask_story(CHAIN, "Will smoking decrease the chance of lung cancer?")
    assert a.answer == "no"


def test_a_premise_of_independences_goes_to_the_class_reader_with_its_cpdag():
    a = ask_story(COLLIDER_THEN_CHAIN, "Does C directly cause D?")
    assert (a.answer, a.route[0]) == ("yes", INDEPENDENCES)
    assert a.model["cpdag"] == {"directed": [["A", "C"], ["B", "C"], ["C", "D"]], "undirected": []}
    # a claim in place of a question
    assert ask_story(COLLIDER_THEN_CHAIN, "D directly causes C.").answer == "no"
    assert ask_story(COLLIDER_THEN_CHAIN, "A causes something else which causes D.").answer == (
        "yes"
    )


def test_a_chain_premise_leaves_its_edges_undirected():
    # A - B - C with A and C independent given B: the chain and the fork are all in the
    # class, so no edge has one direction and "A directly causes B" does not follow.
    premise = (
        "Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
        "relations among these 3 variables are as follows: A correlates with B. A correlates "
        "with C. B correlates with C. However, A and C are independent given B."
    )
    a = ask_story(premise, "A directly causes B.")
    assert a.answer == "no"
    assert a.model["cpdag"] == {"directed": [], "undirected": [["A", "B"], ["B", "C"]]}


def test_a_story_that_sounds_like_a_premise_but_states_a_graph_goes_to_the_story_reader():
    a = ask_story(
        METHODS,
        "To understand how smoking affects lung cancer, is it more correct to use the Method 1 "
        "than Method 2?",
    )
    # gender opens a back-door path, so only method 1 (case by case by gender) is valid
    assert (a.answer, a.route[0]) == ("yes", STATED_MODEL)


def test_a_premise_no_dag_fits_is_refused_without_a_cpdag():
    # A and B independent, and independent given C, yet both depend on C: no DAG has
    # exactly these independences (a collider at C would make them dependent given C).
    premise = (
        "Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
        "relations among these 3 variables are as follows: A correlates with C. B "
        "correlates with C. However, A is independent of B. A and B are independent given C."
    )
    a = ask_story(premise, "A directly causes C.")
    assert a.answer is None and "no causal graph" in a.reason
    assert a.route[0] == INDEPENDENCES and "cpdag" not in a.model


def test_text_neither_reader_can_read_is_refused_with_both_reasons():
    a = ask_story("Suppose there is a closed system. Nothing else is said.", "Does A cause B?")
    assert a.answer is None
    assert "read as stated (in)dependences:" in a.reason
    assert "read as a graph with numbers:" in a.reason
    assert a.route == [INDEPENDENCES, STATED_MODEL]


@pytest.mark.parametrize(("story", "question"), [(None, "q"), ("a story", 3), (b"s", "q")])
def test_arguments_that_are_not_text_are_a_story_error(story, question):
    with pytest.raises(StoryError):
        ask_story(story, question)


def test_the_package_exports_ask_story_lazily():
    assert causalqa.stated.ask_story is ask_story


def test_the_docstring_example_runs():
    assert doctest.testmod(route_module).failed == 0


def _lines(*items) -> list[str]:
    return [item if isinstance(item, str) else json.dumps(item) for item in items]


def test_a_batch_answers_in_input_order_and_reports_each_malformed_line():
    lines = _lines(
        {"id": "premise", "story": COLLIDER_THEN_CHAIN, "question": "Does C directly cause D?"},
        "",
        {"id": 7, "story": CHAIN, "question": SMOKING},
        "{not json",
        ["a list"],
        {"id": "no-question", "story": CHAIN},
        {"story": CONFOUNDED, "question": SMOKING, "expected": "yes"},
        {"id": "blank", "story": "  ", "question": SMOKING},
    )
    results = list(ask_batch(lines))
    assert [(r["id"], r["line"], r["malformed"]) for r in results] == [
        ("premise", 1, False),
        (7, 3, False),
        (None, 4, True),
        (None, 5, True),
        ("no-question", 6, True),
        (None, 7, False),
        ("blank", 8, True),
    ]
    assert [r["answer"] for r in results] == ["yes", "yes", None, None, None, "yes", None]
    assert results[1]["value"] == pytest.approx(0.18, abs=1e-9)
    assert results[5]["value"] == pytest.approx(0.28, abs=1e-9)
    assert results[2]["reason"].startswith("line 4: not JSON")
    assert results[3]["reason"] == "line 5: not a JSON object"
    assert results[4]["reason"] == "line 6: no text in question"
    assert results[6]["reason"] == "line 8: no text in story"
    assert "expected" not in results[5]
    # every line has the same keys, so a script can read them as one table
    assert len({tuple(r) for r in results}) == 1


def test_a_batch_item_beyond_the_readers_limits_is_reported_and_the_next_answered():
    lines = _lines(
        {"id": "long", "story": CHAIN, "question": "Is it? " * 400},
        {"id": "next", "story": CHAIN, "question": SMOKING},
    )
    first, second = ask_batch(lines)
    assert first["malformed"] and "longer than" in first["reason"]
    assert (second["id"], second["answer"]) == ("next", "yes")
