"""Bad input: a refusal that names the sentence (or the quantity), never a traceback or
a guess; nonsense argument types raise StoryError."""

# Stories and questions read best one sentence to a line.
# ruff: noqa: E501

from __future__ import annotations

import pytest

from causalqa.errors import CausalQAError, StoryError
from causalqa.llm.testing import ScriptedLLM
from causalqa.stated.answer import answer_story, read_story

GRAPH = "Smoking has a direct effect on cancer."
Q = "Will smoking increase the chance of cancer?"


def refused(story: str, question: str = Q):
    a = answer_story(story, question)
    assert a.answer is None and a.reason
    return a.reason


def test_cycle_names_the_sentence():
    reason = refused(
        "A has a direct effect on B. B has a direct effect on C. C has a direct effect on A. The overall probability of a is 30%.",
        "Is a more likely than not a overall?",
    )
    assert "cycle" in reason and "C has a direct effect on A" in reason


def test_probability_above_100_percent():
    reason = refused(
        GRAPH
        + " For smokers, the probability of cancer is 130%. For nonsmokers, the probability of cancer is 10%."
    )
    assert "130%" in reason and "For smokers" in reason


def test_contradictory_statements():
    reason = refused(
        GRAPH
        + " For smokers, the probability of cancer is 30%. For nonsmokers, the probability of cancer is 10%. "
        "Among smokers, the chance of cancer is 45%."
    )
    assert "twice" in reason and "45%" in reason


def test_complements_that_do_not_add_up():
    reason = refused(
        GRAPH
        + " The overall probability of cancer is 30%. The overall probability of no cancer is 50%.",
        "Is cancer more likely than no cancer overall?",
    )
    assert "100%" in reason


def test_a_number_about_no_variable_is_not_used():
    # "snow" is in no graph sentence: it cannot be read as a stated number of the model
    a = answer_story(
        GRAPH
        + " For smokers, the probability of cancer is 30%. For nonsmokers, the probability of cancer is 10%. "
        "The overall probability of snow is 40%.",
        "Is cancer more likely than no cancer overall?",
    )
    assert a.answer is None


def test_half_stated_conditional_is_refused():
    reason = refused(
        "Smoking has a direct effect on tar and cancer. Tar has a direct effect on cancer. "
        "For smokers and high tar, the probability of cancer is 30%. For nonsmokers and high tar, the probability of cancer is 20%. "
        "For smokers and low tar, the probability of cancer is 25%."
    )
    assert "not for the others" in reason


def test_empty_story_and_unknown_question():
    assert "empty" in refused("   ")
    assert "form" in refused(
        GRAPH + " The overall probability of smoking is 30%.", "What is the meaning of this?"
    )


def test_not_identified_names_the_missing_quantity():
    reason = refused(
        "Gender has a direct effect on treatment and recovery. Treatment has a direct effect on recovery. "
        "For patients receiving treatment, the probability of recovery is 60%. For patients not receiving treatment, the probability of recovery is 50%.",
        "Will receiving treatment increase the chance of recovery?",
    )
    assert "P(" in reason and "gender" in reason


@pytest.mark.parametrize("story,question", [(None, Q), (42, Q), (GRAPH, None), (GRAPH, ["x"])])
def test_nonsense_types_raise_story_error(story, question):
    with pytest.raises(StoryError) as info:
        answer_story(story, question)
    assert isinstance(info.value, CausalQAError)


def test_read_story_raises_a_refusal_that_is_a_story_error():
    with pytest.raises(StoryError, match="cycle"):
        read_story("A has a direct effect on B. B has a direct effect on A.")


TIED = (
    # "quop" and "flin" are in no variable name: the words cannot tell which is zorb
    "Zorb has a direct effect on glim. Blick has a direct effect on glim. "
    "For those who are quop, the probability of glim is 30%. For those who are not quop, the probability of glim is 20%. "
    "For those who are flin, the probability of glim is 25%. For those who are not flin, the probability of glim is 35%."
)


def test_tied_readings_are_refused_even_with_an_llm():
    q = "Will zorb increase the chance of glim?"
    a = answer_story(TIED, q)
    assert a.answer is None and "rather than guessed" in a.reason
    # the rules read the story (two readings): the LLM reads only what they cannot, and
    # never picks between readings that answer differently
    llm = ScriptedLLM(["unused"])
    b = answer_story(TIED, q, llm=llm)
    assert b.answer is None and "rather than guessed" in b.reason and llm.calls == []
