"""Reading premises of stated (in)dependences and causal claims: the paper's wording, other
wordings, real variable names, and the refusals (unreadable sentence, unknown variable,
wrong count, contradiction, ambiguity)."""

from __future__ import annotations

import pytest

from causalqa.errors import StoryError
from causalqa.stated.independence_reader import read_claim, read_premise

PAPER = (
    "Suppose there is a closed system of 4 variables, A, B, C and D. All the statistical "
    "relations among these 4 variables are as follows: A correlates with B. A is "
    "independent of C. However, A and C are independent given B. A and D are independent "
    "given B and C."
)


def facts(premise):
    return {(s.x, s.y, s.given, s.independent) for s in premise.statements}


def test_the_papers_premise_form():
    premise = read_premise(PAPER)
    assert premise.variables == ("A", "B", "C", "D")
    assert premise.declared
    assert facts(premise) == {
        ("A", "B", (), False),
        ("A", "C", (), True),
        ("A", "C", ("B",), True),
        ("A", "D", ("B", "C"), True),
    }
    # each statement keeps the sentence it came from
    assert premise.statements[2].sentence == "However, A and C are independent given B"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("A and B are correlated.", ("A", "B", (), False)),
        ("A is associated with B.", ("A", "B", (), False)),
        ("A is positively correlated with B.", ("A", "B", (), False)),
        ("A is statistically dependent on B.", ("A", "B", (), False)),
        ("There is a correlation between A and B.", ("A", "B", (), False)),
        ("A and B are not independent.", ("A", "B", (), False)),
        ("A is not independent of C given B.", ("A", "C", ("B",), False)),
        ("A and C are dependent given B.", ("A", "C", ("B",), False)),
        ("A is uncorrelated with C.", ("A", "C", (), True)),
        ("A and C are uncorrelated.", ("A", "C", (), True)),
        ("A does not correlate with C.", ("A", "C", (), True)),
        ("There is no correlation between A and C.", ("A", "C", (), True)),
        ("A and C are independent of each other.", ("A", "C", (), True)),
        ("A and C are marginally independent.", ("A", "C", (), True)),
        ("A ⫫ C.", ("A", "C", (), True)),
        ("A ⫫ C | B.", ("A", "C", ("B",), True)),
        ("A ⊥ D | B, C.", ("A", "D", ("B", "C"), True)),
        ("A ⫫̸ B.", ("A", "B", (), False)),
        ("A and C are conditionally independent given B.", ("A", "C", ("B",), True)),
        ("A is independent of C conditional on B.", ("A", "C", ("B",), True)),
        ("A is uncorrelated with C when controlling for B.", ("A", "C", ("B",), True)),
        ("A and C are independent once B is known.", ("A", "C", ("B",), True)),
        ("Given B, A and C are independent.", ("A", "C", ("B",), True)),
        ("Given B and C, A and D are independent.", ("A", "D", ("B", "C"), True)),
        ("Once B and C are known, A is independent of D.", ("A", "D", ("B", "C"), True)),
        ("A and D are independent given both C and B.", ("A", "D", ("B", "C"), True)),
        ("A and D are independent given {B, C}.", ("A", "D", ("B", "C"), True)),
        ("A and D are independent given B, C.", ("A", "D", ("B", "C"), True)),
        (
            "Moreover, A is independent of D given the variables B and C.",
            ("A", "D", ("B", "C"), True),
        ),
        ("A and C become independent when conditioning on B.", ("A", "C", ("B",), True)),
        ("A and C are d-separated by B.", ("A", "C", ("B",), True)),
        ("No correlation exists between A and C.", ("A", "C", (), True)),
        ("A is correlated to B.", ("A", "B", (), False)),
        ("A and B are statistically correlated.", ("A", "B", (), False)),
        ("A remains correlated with C given B.", ("A", "C", ("B",), False)),
    ],
)
def test_other_wordings_of_one_statement(sentence, expected):
    premise = read_premise(
        f"Suppose there is a closed system of 4 variables, A, B, C and D. {sentence}"
    )
    assert facts(premise) == {expected}


def test_several_statements_in_one_sentence_and_object_lists():
    premise = read_premise(
        "Consider a closed system with the variables A, B, C and D. A correlates with B and "
        "C; B correlates with D, and C is independent of D given A and B."
    )
    assert facts(premise) == {
        ("A", "B", (), False),
        ("A", "C", (), False),
        ("B", "D", (), False),
        ("C", "D", ("A", "B"), True),
    }


def test_real_names_with_spaces_and_shared_words():
    premise = read_premise(
        "There are 3 variables in a closed system: ice cream sales, sales and drowning "
        "incidents. Ice cream sales correlates with drowning incidents. Sales is associated "
        "with ice cream sales. However, sales and drowning incidents are independent given "
        "ice cream sales."
    )
    assert premise.variables == ("ice cream sales", "sales", "drowning incidents")
    assert facts(premise) == {
        ("ice cream sales", "drowning incidents", (), False),
        ("sales", "ice cream sales", (), False),
        ("sales", "drowning incidents", ("ice cream sales",), True),
    }


def test_a_premise_without_a_list_of_variables_takes_the_named_ones():
    premise = read_premise(
        "X correlates with Y. Y correlates with Z. X is independent of Z given Y."
    )
    assert not premise.declared
    assert premise.variables == ("X", "Y", "Z")
    assert ("X", "Z", ("Y",), True) in facts(premise)


def test_number_words_and_the_intro_sentence():
    premise = read_premise(
        "Suppose there is a closed system of three variables: A, B and C. We know all their "
        "statistical relations: A correlates with B. B correlates with C. A is independent "
        "of C given B."
    )
    assert premise.variables == ("A", "B", "C")
    assert len(premise.statements) == 3


# -- refusals -------------------------------------------------------------------------------
def test_an_unreadable_sentence_is_named():
    with pytest.raises(StoryError) as error:
        read_premise(
            "Suppose there is a closed system of 3 variables, A, B and C. A correlates with "
            "B. A makes B happy. B correlates with C."
        )
    assert "'A makes B happy'" in error.value.message


def test_a_statement_about_an_undeclared_variable_is_refused():
    with pytest.raises(StoryError) as error:
        read_premise(
            "Suppose there is a closed system of 3 variables, A, B and C. A correlates with E."
        )
    assert "'A correlates with E'" in error.value.message
    assert "A, B, C" in error.value.message


def test_a_wrong_count_of_variables_is_refused():
    with pytest.raises(StoryError, match="says 4 variables but lists 3"):
        read_premise(
            "Suppose there is a closed system of 4 variables, A, B and C. A correlates with B."
        )


def test_contradictory_statements_are_refused_naming_both():
    with pytest.raises(StoryError) as error:
        read_premise(
            "Suppose there is a closed system of 3 variables, A, B and C. A correlates with "
            "B. B correlates with C. However, B is independent of A."
        )
    message = error.value.message
    assert "contradictory" in message
    assert "'A correlates with B'" in message and "'However, B is independent of A'" in message


def test_contradiction_between_conditional_statements_in_other_words():
    with pytest.raises(StoryError, match="contradictory"):
        read_premise(
            "Suppose there is a closed system of 3 variables, A, B and C. A ⫫ C | B. "
            "A and C are dependent given B."
        )


def test_a_statement_conditioning_on_its_own_variable_is_refused():
    with pytest.raises(
        StoryError, match="cannot read the sentence 'A is independent of C given A'"
    ):
        read_premise(
            "Suppose there is a closed system of 3 variables, A, B and C. "
            "A is independent of C given A."
        )


def test_an_open_system_is_refused():
    with pytest.raises(StoryError, match="unobserved"):
        read_premise("A correlates with B, and there may be unobserved common causes.")


def test_an_empty_premise_is_refused():
    with pytest.raises(StoryError, match="empty"):
        read_premise("   ")


# -- claims ---------------------------------------------------------------------------------
VARIABLES = ("A", "B", "C", "D")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the paper's six templates
        ("A directly causes B.", "Is-Parent(A, B)"),
        ("B directly causes A.", "Is-Parent(B, A)"),
        ("A causes something else which causes B.", "Is-Ancestor(A, B)"),
        ("B is a cause for A, but not a direct one.", "Is-Descendant(A, B)"),
        (
            "There exists at least one collider (i.e., common effect) of A and B.",
            "Has-Collider(A, B)",
        ),
        (
            "There exists at least one confounder (i.e., common cause) of A and B.",
            "Has-Confounder(A, B)",
        ),
        # other wordings
        ("A is a direct cause of B", "Is-Parent(A, B)"),
        ("A has a direct causal effect on B.", "Is-Parent(A, B)"),
        ("A -> B", "Is-Parent(A, B)"),
        ("B is directly caused by A.", "Is-Child(B, A)"),
        ("B is a child of A.", "Is-Child(B, A)"),
        ("A affects B only through other variables.", "Is-Ancestor(A, B)"),
        ("A is an indirect cause of B.", "Is-Ancestor(A, B)"),
        ("A is an ancestor of B.", "Is-Ancestor(A, B)"),
        ("A causes B indirectly.", "Is-Ancestor(A, B)"),
        ("B is an indirect effect of A.", "Is-Descendant(B, A)"),
        ("B is only indirectly caused by A.", "Is-Descendant(B, A)"),
        ("A and B have a common cause.", "Has-Confounder(A, B)"),
        ("A and B share a confounder.", "Has-Confounder(A, B)"),
        ("A and B are confounded.", "Has-Confounder(A, B)"),
        ("Some other variable causes both A and B.", "Has-Confounder(A, B)"),
        ("A and B have a common effect.", "Has-Collider(A, B)"),
        ("There is a collider between A and B.", "Has-Collider(A, B)"),
        ("Some third variable is caused by both A and B.", "Has-Collider(A, B)"),
        ("B is caused by something which is caused by A.", "Is-Descendant(B, A)"),
        ("There is a variable that is a common effect of A and B.", "Has-Collider(A, B)"),
        ("A and B are both causes of some other variable.", "Has-Collider(A, B)"),
        ("There exists a node which is a common cause of A and B.", "Has-Confounder(A, B)"),
        ("A causes B.", "Is-Cause(A, B)"),
        ("B is caused by A.", "Is-Cause(A, B)"),
        # questions
        ("Does A directly cause B?", "Is-Parent(A, B)"),
        ("Is A a direct cause of B?", "Is-Parent(A, B)"),
        ("Is B directly caused by A?", "Is-Child(B, A)"),
        ("Does A cause something else which causes B?", "Is-Ancestor(A, B)"),
        ("Do A and B have a common cause?", "Has-Confounder(A, B)"),
        ("Is there a confounder of A and B?", "Has-Confounder(A, B)"),
        ("Does there exist a common effect of A and B?", "Has-Collider(A, B)"),
        ("Hypothesis: A directly causes B.", "Is-Parent(A, B)"),
        ("Is it true that A is an indirect cause of B?", "Is-Ancestor(A, B)"),
        # negations
        ("A does not directly cause B.", "not Is-Parent(A, B)"),
        ("A is not a direct cause of B.", "not Is-Parent(A, B)"),
        ("There is no confounder of A and B.", "not Has-Confounder(A, B)"),
        ("A and B have no common effect.", "not Has-Collider(A, B)"),
        ("A and B do not share a common cause.", "not Has-Confounder(A, B)"),
    ],
)
def test_claim_wordings(text, expected):
    assert read_claim(text, VARIABLES).describe() == expected


def test_claims_with_real_names():
    names = ("air pollution", "asthma", "air quality alerts")
    claim = read_claim("Air pollution causes something else which causes asthma.", names)
    assert (claim.describe(), claim.a, claim.b) == (
        "Is-Ancestor(air pollution, asthma)",
        "air pollution",
        "asthma",
    )


def test_a_claim_about_an_unknown_variable_names_it():
    with pytest.raises(StoryError, match="names 'E', which is not one of the premise's"):
        read_claim("A directly causes E.", VARIABLES)
    with pytest.raises(StoryError, match="names 'Q'"):
        read_claim("A and Q have a common cause.", VARIABLES)


def test_an_unreadable_claim_is_refused():
    with pytest.raises(StoryError, match=r"cannot read the claim 'A eats B\.'"):
        read_claim("A eats B.", VARIABLES)


def test_a_claim_relating_a_variable_to_itself_is_refused():
    with pytest.raises(StoryError, match="relates A to itself"):
        read_claim("A directly causes A.", VARIABLES)
