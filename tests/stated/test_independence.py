"""Answering claims from stated (in)dependences: hand-checked chain, fork, collider and
4-variable examples, the refusals (contradiction, unreadable sentence, unfaithful sets),
the derivation, and speed."""

from __future__ import annotations

import doctest
import random
import time

import pytest

from causalqa.errors import StoryError
from causalqa.stated.independence import (
    answer_independence_claim,
    equivalence_class,
    is_independence_story,
    read_premise,
)

# A → B → C, A ← B ← C and A ← B → C share these independences (a class of 3).
CHAIN = (
    "Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
    "relations among these 3 variables are as follows: A correlates with B. A correlates "
    "with C. B correlates with C. However, A and C are independent given B."
)
# The fork in other words and real names: smoking ← genotype → cancer (the same class).
FORK = (
    "Consider a closed system with the variables genotype, smoking and cancer. Genotype is "
    "associated with smoking. Genotype and cancer are correlated. Smoking and cancer are "
    "correlated, but they are independent once genotype is known."
)
# A → C ← B: the only DAG with these independences.
COLLIDER = (
    "Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
    "relations among these 3 variables are as follows: A correlates with C. B correlates "
    "with C. However, A is independent of B."
)


def ask(story, claim):
    answer = answer_independence_claim(story, claim)
    assert answer.reason is None, answer.reason
    return answer


@pytest.mark.parametrize(
    ("claim", "expected", "share"),
    [
        # members: A→B→C, A←B←C, A←B→C
        ("A directly causes B.", "no", 1 / 3),
        ("B directly causes A.", "no", 2 / 3),
        ("A causes something else which causes C.", "no", 1 / 3),
        ("There exists at least one confounder (i.e., common cause) of A and C.", "no", 1 / 3),
        ("There exists at least one collider (i.e., common effect) of A and C.", "no", 0.0),
        ("There is no collider of A and C.", "yes", 1.0),
        ("A does not directly cause C.", "yes", 1.0),
        ("A is a cause for C, but not a direct one.", "no", 1 / 3),
    ],
)
def test_chain(claim, expected, share):
    answer = ask(CHAIN, claim)
    assert (answer.answer, answer.value) == (expected, pytest.approx(share))


def test_fork_in_other_words_has_the_chains_class():
    answer = ask(FORK, "Do smoking and cancer have a common cause?")
    assert answer.answer == "no" and answer.value == pytest.approx(1 / 3)
    assert "Markov equivalence class: 3 DAG(s)" in " ".join(answer.derivation)
    assert ask(FORK, "Smoking directly causes cancer.").value == 0.0


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("A directly causes C.", "yes"),
        ("B directly causes C.", "yes"),
        ("C directly causes A.", "no"),
        ("C is directly caused by B.", "yes"),
        ("There exists at least one collider (i.e., common effect) of A and B.", "yes"),
        ("There exists at least one confounder (i.e., common cause) of A and B.", "no"),
        ("A causes something else which causes B.", "no"),
        ("A and C have a common cause.", "no"),
    ],
)
def test_collider(claim, expected):
    answer = ask(COLLIDER, claim)
    assert answer.answer == expected
    assert answer.value == (1.0 if expected == "yes" else 0.0)


# A → C ← B, C → D (derived by hand): independences A ⫫ B; A ⫫ D | C; A ⫫ D | B, C;
# B ⫫ D | C; B ⫫ D | A, C. PC: skeleton A–C, B–C, C–D; the v-structure A→C←B; Meek's
# rule 1 orients C→D. The class is that one DAG.
FOUR = (
    "Suppose there is a closed system of 4 variables, A, B, C and D. All the statistical "
    "relations among these 4 variables are as follows: A correlates with C. A correlates "
    "with D. B correlates with C. B correlates with D. C correlates with D. However, A is "
    "independent of B. A and D are independent given C. A and D are independent given B "
    "and C. B and D are independent given C. B and D are independent given A and C."
)


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("A causes something else which causes D.", "yes"),
        ("A is a cause for D, but not a direct one.", "yes"),
        ("D is a cause for A, but not a direct one.", "no"),
        ("A directly causes D.", "no"),
        ("C directly causes D.", "yes"),
        ("D directly causes C.", "no"),
        ("There exists at least one collider (i.e., common effect) of A and B.", "yes"),
        ("There exists at least one confounder (i.e., common cause) of C and D.", "no"),
        ("A causes D.", "yes"),
    ],
)
def test_four_variables_with_a_single_member(claim, expected):
    assert ask(FOUR, claim).answer == expected


def test_four_variables_derivation():
    answer = ask(FOUR, "C directly causes D.")
    text = "\n".join(answer.derivation)
    assert "skeleton (PC, the statements as independence oracle): A–C, B–C, C–D" in text
    assert "v-structures: A→C←B" in text
    assert "CPDAG (Meek's rules): directed A→C, B→C, C→D; undirected none" in text
    assert "Markov equivalence class: 1 DAG(s)" in text
    assert answer.query == {
        "relation": "Is-Parent",
        "a": "C",
        "b": "D",
        "negated": False,
        "text": "C directly causes D.",
    }
    assert answer.model["variables"] == ["A", "B", "C", "D"]
    assert len(answer.model["statements"]) == 10
    assert answer.route == ["rules"]


# A–B, A–C, B–C, A–D with no v-structure (derived by hand): the triangle's 6 orientations
# with A → D, plus the 2 with A first in the triangle and D → A (any other D → A would
# make a new v-structure D → A ← B or D → A ← C): 8 members.
STAR = (
    "Suppose there is a closed system of 4 variables, A, B, C and D. All the statistical "
    "relations among these 4 variables are as follows: A correlates with B. A correlates "
    "with C. A correlates with D. B correlates with C. B correlates with D. C correlates "
    "with D. However, B and D are independent given A. B and D are independent given A and "
    "C. C and D are independent given A. C and D are independent given A and B."
)


@pytest.mark.parametrize(
    ("claim", "share"),
    [
        ("A directly causes D.", 6 / 8),
        ("D directly causes A.", 2 / 8),
        # B ← A → C: A first in the triangle (2 orientations) × either direction of A–D
        ("B and C have a common cause.", 4 / 8),
        # B → A → D needs A → D (6) and B → A: triangle orders with B before A: B,A,C /
        # B,C,A / C,B,A — 3 of them, all with A → D.
        ("B causes something else which causes D.", 3 / 8),
    ],
)
def test_four_variables_with_eight_members(claim, share):
    answer = ask(STAR, claim)
    assert answer.answer == "no"
    assert answer.value == pytest.approx(share)
    assert "Markov equivalence class: 8 DAG(s)" in " ".join(answer.derivation)


def test_the_claim_may_follow_the_premise_as_a_hypothesis():
    answer = answer_independence_claim(f"Premise: {COLLIDER}\nHypothesis: A directly causes C.")
    assert answer.answer == "yes"


# -- refusals -------------------------------------------------------------------------------
def refused(story, claim="A directly causes B."):
    answer = answer_independence_claim(story, claim)
    assert answer.answer is None and answer.refused
    return answer.reason


def test_contradiction_is_refused_naming_both_sentences():
    reason = refused(
        "Suppose there is a closed system of 2 variables, A and B. A correlates with B. "
        "A is independent of B."
    )
    assert "contradictory" in reason
    assert "'A correlates with B'" in reason and "'A is independent of B'" in reason


def test_unreadable_sentence_is_refused_naming_it():
    reason = refused(
        "Suppose there is a closed system of 3 variables, A, B and C. A correlates with B. "
        "C is a consequence of everything."
    )
    assert "'C is a consequence of everything'" in reason


def test_unfaithful_set_is_refused():
    # A ⫫ B and B ⫫ C marginally leave only A–C, where B is independent of everything
    # given anything, but the closed system says A and B are dependent given C.
    reason = refused(
        "Suppose there is a closed system of 3 variables, A, B and C. A is independent of "
        "B. B is independent of C. A correlates with C."
    )
    assert reason.startswith("no causal graph over these variables has exactly these independences")
    assert "A and B independent given C" in reason


def test_a_stated_independence_no_graph_can_have_is_refused():
    # A ⫫ C | B with B a collider-free middle, but also A ⫫ C marginally: in any DAG on
    # the skeleton A–B–C one of the two fails.
    reason = refused(
        "Suppose there is a closed system of 3 variables, A, B and C. A correlates with B. "
        "B correlates with C. A is independent of C. A is independent of C given B."
    )
    assert "no causal graph over these variables has exactly these independences" in reason
    assert "A is independent of C given B" in reason


def test_conflicting_v_structures_are_refused():
    reason = refused(
        "Suppose there is a closed system of 4 variables, A, B, C and D. A is independent "
        "of C. B is independent of D."
    )
    assert "no causal graph over these variables has exactly these independences" in reason
    assert "both ways" in reason


def test_unknown_variable_in_the_claim_is_refused():
    reason = refused(COLLIDER, "A directly causes Z.")
    assert "'Z'" in reason


def test_missing_claim_is_refused():
    assert "no claim to check" in refused(COLLIDER, None)


def test_equivalence_class_raises_for_an_unfaithful_premise():
    premise = read_premise(
        "Suppose there is a closed system of 3 variables, A, B and C. A is independent of "
        "B. B is independent of C. A correlates with C."
    )
    with pytest.raises(StoryError):
        equivalence_class(premise)


def test_routing_tells_independence_stories_from_probability_stories():
    assert is_independence_story(CHAIN) and is_independence_story(FORK)
    assert not is_independence_story(
        "Smoking has a direct effect on tar and on cancer. 40% of people smoke. Among "
        "smokers the probability of cancer is 30%."
    )


def test_six_variables_in_milliseconds():
    # The complete graph on 6 variables less one edge: the largest classes at this size.
    names = "ABCDEF"
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    story = "Suppose there is a closed system of 6 variables, A, B, C, D, E and F. " + " ".join(
        f"{a} correlates with {b}." for a, b in pairs
    )
    start = time.perf_counter()
    answer = answer_independence_claim(story, "A directly causes B.")
    elapsed = time.perf_counter() - start
    assert answer.answer == "no"
    assert "Markov equivalence class: 720 DAG(s)" in " ".join(answer.derivation)
    assert elapsed < 2.0


def test_mangled_premises_and_claims_never_raise():
    # Words dropped, inserted or replaced at random: every outcome is an answer or a
    # refusal with a reason, never an exception.
    rng = random.Random(0)
    stories = [CHAIN, FORK, COLLIDER, FOUR, STAR]
    claims = [
        "A directly causes C.",
        "Do B and C have a common cause?",
        "C is a cause for A, but not a direct one.",
    ]
    noise = [
        "and",
        "given",
        ",",
        ".",
        "not",
        "independent",
        "of",
        "A",
        "Z",
        "⫫",
        "|",
        "{",
        "However,",
        ":",
        "both",
        "?",
    ]
    for _ in range(300):
        words = rng.choice(stories).split(" ")
        for _ in range(rng.randint(1, 4)):
            k = rng.randrange(len(words))
            roll = rng.random()
            if roll < 0.3:
                del words[k]
            elif roll < 0.6:
                words.insert(k, rng.choice(noise))
            else:
                words[k] = rng.choice(noise)
        answer = answer_independence_claim(" ".join(words), rng.choice(claims))
        assert answer.answer in ("yes", "no") or answer.reason


def test_the_docstring_examples_run():
    from causalqa.stated import independence, independence_graph, independence_reader

    for module in (independence, independence_graph, independence_reader):
        assert doctest.testmod(module).failed == 0
