"""The general reader on wordings of my own, unlike both the generator's and the
development set's: headers whose list runs into a clause, sentences read by their parts in
any order, prose and closed-world sentences skipped, claims by relation cues and voice —
and the sentences it must refuse rather than misread. Expected values are read off the
sentences by hand; the end-to-end answers are derived by hand from the classes."""

from __future__ import annotations

import pytest

from causalqa.errors import StoryError
from causalqa.stated.independence import answer_independence_claim
from causalqa.stated.independence_reader import read_claim, read_premise

HEADER = "Take a closed system over the variables A, B, C and D. "


def facts(premise):
    return {(s.x, s.y, s.given, s.independent) for s in premise.statements}


# -- headers ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("header", "variables"),
    [
        ("Four variables, A, B, C and D, make up a closed system.", ("A", "B", "C", "D")),
        (
            "Our closed system has four variables — salt intake, age, sleep and mood — and "
            "nothing else.",
            ("salt intake", "age", "sleep", "mood"),
        ),
        ("We observe 4 variables (A, B, C, D) and no others.", ("A", "B", "C", "D")),
        ("Variables: A, B, C and D. There are no hidden variables.", ("A", "B", "C", "D")),
        (
            "Consider three variables, the weather, sales and the price, which form a closed "
            "system.",
            ("weather", "sales", "price"),
        ),
        ("In a closed system of 4 variables: A, B, C, and D, nothing else.", ("A", "B", "C", "D")),
    ],
)
def test_the_variable_list_ends_where_it_turns_into_a_clause(header, variables):
    first, second = variables[0], variables[1]
    premise = read_premise(f"{header} {first.capitalize()} covaries with {second}.")
    assert premise.variables == variables
    assert facts(premise) == {(first, second, (), False)}


def test_without_a_list_the_variables_are_the_names_the_statements_use():
    premise = read_premise(
        "Smoking is related to tar. Tar covaries with lung cancer. Smoking and lung cancer "
        "are unrelated once tar is observed. Smoking is not independent of lung cancer."
    )
    assert not premise.declared
    assert premise.variables == ("Smoking", "tar", "lung cancer")
    assert ("Smoking", "lung cancer", ("tar",), True) in facts(premise)


def test_a_stated_count_the_statements_do_not_match_is_refused():
    with pytest.raises(StoryError, match="says 3 variables but its statements name 2"):
        read_premise("There are 3 variables in a closed system. A covaries with B.")


# -- statements, by their parts --------------------------------------------------------------
@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("A and B covary.", {("A", "B", (), False)}),
        ("B depends on A.", {("B", "A", (), False)}),
        ("A and B show a statistical dependence.", {("A", "B", (), False)}),
        ("A link exists between A and B.", {("A", "B", (), False)}),
        # the article "A" is no variable A
        ("A statistical dependence exists between B and C.", {("B", "C", (), False)}),
        ("It is not true that A and C are independent.", {("A", "C", (), False)}),
        ("A has no association with C.", {("A", "C", (), True)}),
        ("A and C are not correlated at all.", {("A", "C", (), True)}),
        ("A _||_ C | B.", {("A", "C", ("B",), True)}),
        ("A ⊥̸ C | B.", {("A", "C", ("B",), False)}),
        ("Knowing B renders A and C independent.", {("A", "C", ("B",), True)}),
        ("Holding B fixed, A is unrelated to C.", {("A", "C", ("B",), True)}),
        ("With B and D held constant, A and C are uncorrelated.", {("A", "C", ("B", "D"), True)}),
        ("After adjusting for D and B, A and C are independent.", {("A", "C", ("B", "D"), True)}),
        ("Within levels of B, A and C show no association.", {("A", "C", ("B",), True)}),
        ("Stratifying by B, A and C become independent.", {("A", "C", ("B",), True)}),
        ("Conditioning on B does not make A and C independent.", {("A", "C", ("B",), False)}),
        # a leading set with commas ends at its last comma
        ("Given B, C and D, A is unrelated to E.", {("A", "E", ("B", "C", "D"), True)}),
        ("A and E are independent, given B as well as D.", {("A", "E", ("B", "D"), True)}),
        ("A is independent of both C and D.", {("A", "C", (), True), ("A", "D", (), True)}),
        ("A and B are correlated with E.", {("A", "E", (), False), ("B", "E", (), False)}),
        (
            "A and B are correlated and independent of E.",
            {("A", "B", (), False), ("A", "E", (), True), ("B", "E", (), True)},
        ),
        (
            "A is independent of B and C is correlated with D.",
            {("A", "B", (), True), ("C", "D", (), False)},
        ),
        (
            "A and C are independent; however, they become correlated given B.",
            {("A", "C", (), True), ("A", "C", ("B",), False)},
        ),
        (
            "A, B and C are pairwise independent.",
            {("A", "B", (), True), ("A", "C", (), True), ("B", "C", (), True)},
        ),
    ],
)
def test_statements_are_read_by_their_parts(sentence, expected):
    premise = read_premise(f"Consider the variables A, B, C, D and E. {sentence}")
    assert facts(premise) == expected


def test_the_parts_may_come_in_any_order():
    orders = [
        "A and C are independent given B and D.",
        "Given B and D, A and C are independent.",
        "Conditioning on B and D makes A and C independent.",
        "A and C become independent once B and D are known.",
        "Independent: A and C, given B and D.",
        "A ⫫ C | B, D.",
    ]
    for sentence in orders:
        assert facts(read_premise(HEADER + sentence)) == {("A", "C", ("B", "D"), True)}, sentence


# -- sentences that name no variable ---------------------------------------------------------
def test_prose_and_closed_world_sentences_are_skipped_and_noted():
    premise = read_premise(
        HEADER + "The measurements are listed below. Every statistical relation among them "
        "follows. A covaries with B. Every pair not listed as independent is dependent. No "
        "other independences hold."
    )
    assert facts(premise) == {("A", "B", (), False)}
    notes = "\n".join(premise.notes)
    assert "skipped (prose, no variable named): 'The measurements are listed below'" in notes
    assert "closed-system statement" in notes
    assert "Every pair not listed as independent is dependent" in notes
    assert "No other independences hold" in notes
    # C and D are listed and never mentioned: said, not silently assumed
    assert "'C' is listed but no statement mentions it" in notes


def test_the_skipped_sentences_appear_in_the_derivation():
    answer = answer_independence_claim(
        "Three variables, A, B and C, make up a closed system. Here is what we know. A "
        "covaries with C. B covaries with C. A and B are unrelated.",
        "C has A as a parent.",
    )
    assert answer.answer == "yes"
    assert any("'Here is what we know'" in line for line in answer.derivation)


def test_a_sentence_saying_the_unlisted_pairs_are_independent_is_refused():
    with pytest.raises(StoryError, match="says the pairs not listed are independent"):
        read_premise(HEADER + "A covaries with B. All other pairs are independent.")


def test_a_relation_between_no_named_variables_is_refused():
    with pytest.raises(StoryError, match="names none of the variables"):
        read_premise(HEADER + "A covaries with B. X and Y are correlated.")


# -- sentences it must refuse rather than misread --------------------------------------------
@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("A and C are independent unless B is known.", "'unless'"),
        ("A is independent of C given B or D.", "'or'"),
        ("A correlates with B, not with C.", "a negation after the relation word"),
        ("A is independent of B, and C is too.", "'too'"),
        ("A, B and C are mutually independent.", "mutual independence"),
        ("A is independent of C given B, and given D.", "more than one conditioning set"),
        ("A and C are independent given B but not given D.", "'but' inside one statement"),
        ("A correlates with B (r = 0.4).", "'r'"),
        ("A and C are independent given A.", "both in the pair and given"),
    ],
)
def test_sentences_it_cannot_put_together_are_refused_naming_them(sentence, why):
    with pytest.raises(StoryError) as error:
        read_premise(HEADER + sentence)
    message = error.value.message
    assert f"cannot read the sentence {sentence.rstrip('.')!r}" in message
    assert why in message


# -- claims ----------------------------------------------------------------------------------
VARIABLES = ("A", "B", "C", "D", "salt intake", "blood pressure")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A is an immediate cause of B.", "Is-Parent(A, B)"),
        ("There is an edge from A to B.", "Is-Parent(A, B)"),
        ("A drives B directly.", "Is-Parent(A, B)"),
        ("B is an immediate effect of A.", "Is-Child(B, A)"),
        ("B has A as a parent.", "Is-Child(B, A)"),
        ("A has B as a child.", "Is-Parent(A, B)"),
        (
            "Is salt intake a direct cause of blood pressure?",
            "Is-Parent(salt intake, blood pressure)",
        ),
        ("A affects B via some intermediate variable.", "Is-Ancestor(A, B)"),
        ("A is an ancestor but not a parent of B.", "Is-Ancestor(A, B)"),
        ("A's effect on B is mediated by other variables.", "Is-Ancestor(A, B)"),
        ("B is downstream of A but not directly.", "Is-Descendant(B, A)"),
        ("B results from A only indirectly.", "Is-Descendant(B, A)"),
        # the same relation as Is-Ancestor(A, B)
        ("A influences B, though not directly.", "Is-Descendant(B, A)"),
        ("A and B are both direct causes of a third variable.", "Has-Collider(A, B)"),
        ("A third variable is directly caused by both A and B.", "Has-Collider(A, B)"),
        ("A causes something that is also caused by B.", "Has-Collider(A, B)"),
        ("A and B share a common child.", "Has-Collider(A, B)"),
        ("A and B are both caused by a third variable.", "Has-Confounder(A, B)"),
        ("A is caused by something which also causes B.", "Has-Confounder(A, B)"),
        ("A and B share a parent.", "Has-Confounder(A, B)"),
        ("A common cause of A and B exists.", "Has-Confounder(A, B)"),
        ("It is not the case that A directly causes B.", "not Is-Parent(A, B)"),
        ("A never directly causes B.", "not Is-Parent(A, B)"),
        ("No other variable causes both A and B.", "not Has-Confounder(A, B)"),
        ("Can we conclude that B is caused by A?", "Is-Cause(A, B)"),
    ],
)
def test_claims_are_read_by_their_cues(text, expected):
    assert read_claim(text, VARIABLES).describe() == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("A causes B and C.", "names 3 variables"),
        ("A influences B through C.", "names 3 variables"),
        ("A and B have a common descendant.", "'common'"),  # not a common child
        ("A directly or indirectly causes B.", "'or'"),
        ("A and B have a direct cause.", "no relation between the two variables"),
        ("A is the only direct cause of B.", "'only'"),
        ("A is correlated with B.", "'correlated with'"),
        ("A directly causes B and B directly causes A.", "causal verbs on both sides"),
    ],
)
def test_claims_it_cannot_read_are_refused(text, why):
    with pytest.raises(StoryError) as error:
        read_claim(text, VARIABLES)
    assert why in error.value.message


# -- end to end, answers derived by hand -----------------------------------------------------
# rain → wet grass ← sprinkler: the only DAG with these independences.
SPRINKLER = (
    "Three variables, rain, sprinkler and wet grass, make up a closed system. Rain and "
    "sprinkler are unrelated. Wet grass covaries with rain. Sprinkler and wet grass show a "
    "statistical dependence. Apart from these, all pairs are dependent under every "
    "conditioning set."
)
# A → C ← B, C → D: the only DAG with these independences.
FOUR = (
    "Our closed system has four variables — A, B, C and D — and nothing else. A and B are "
    "unrelated. A covaries with C. B depends on C. A link exists between C and D. A and D "
    "show a statistical dependence. B is not independent of D. Knowing C renders A and D "
    "independent. Holding B and C fixed, A is unrelated to D. Within levels of C, B and D "
    "show no association. After adjusting for A and C, B is independent of D. No other "
    "independences hold."
)


@pytest.mark.parametrize(
    ("story", "claim", "expected"),
    [
        (SPRINKLER, "Rain is an immediate cause of wet grass.", "yes"),
        (SPRINKLER, "Rain and sprinkler share a common child.", "yes"),
        (SPRINKLER, "Wet grass has sprinkler as a parent.", "yes"),
        (SPRINKLER, "Rain and sprinkler are both caused by a third variable.", "no"),
        (SPRINKLER, "Wet grass affects rain via some intermediate variable.", "no"),
        (FOUR, "A affects D via some intermediate variable.", "yes"),
        (FOUR, "D is downstream of A but not directly.", "yes"),
        (FOUR, "A and B jointly cause another variable.", "yes"),
        (FOUR, "C has D as a child.", "yes"),
        (FOUR, "C and D are both caused by a third variable.", "no"),
        (FOUR, "Is D a parent of C?", "no"),
        (FOUR, "A never directly causes D.", "yes"),
    ],
)
def test_answers_on_reworded_premises(story, claim, expected):
    answer = answer_independence_claim(story, claim)
    assert answer.answer == expected, answer.reason or answer.derivation


def test_the_chain_class_in_new_words_without_a_header():
    # smoking – tar – lung cancer with smoking ⫫ lung cancer | tar: the class of the chain
    # in either direction and the fork (3 members), so no edge's direction follows.
    story = (
        "Smoking is related to tar. Tar covaries with lung cancer. Smoking and lung cancer "
        "are unrelated once tar is observed. Smoking is not independent of lung cancer."
    )
    assert answer_independence_claim(story, "Tar is an immediate cause of lung cancer.").value == (
        pytest.approx(2 / 3)
    )
    assert (
        answer_independence_claim(story, "Smoking and lung cancer share a common child.").answer
        == "no"
    )
    assert (
        answer_independence_claim(story, "There is no collider of smoking and lung cancer.").answer
        == "yes"
    )


def test_lowercase_one_letter_names_and_the_article_a():
    story = (
        "Consider a closed system with the variables a, b and c. There is a correlation "
        "between a and c. b correlates with c. a is independent of b."
    )
    premise = read_premise(story)
    assert facts(premise) == {("a", "c", (), False), ("b", "c", (), False), ("a", "b", (), True)}
    assert answer_independence_claim(story, "Is there a common effect of a and b?").answer == "yes"


def test_a_heading_with_a_relation_word_introduces_and_states_nothing():
    premise = read_premise(
        "Consider the variables A, B and C. Correlations: A correlates with B. B correlates "
        "with C. The independences are the following: A ⫫ C | B."
    )
    assert facts(premise) == {
        ("A", "B", (), False),
        ("B", "C", (), False),
        ("A", "C", ("B",), True),
    }
    assert any("'Correlations'" in note for note in premise.notes)
