"""The wording cues: answer type, scope, count, and which of two variables is the cause.

Wordings here are written for these tests; none comes from the benchmark's paraphrase sets.
"""

import pytest

from causalqa.qa.cues import answer_type, requested_count, rescope, scope
from causalqa.qa.direction import cause_and_effect
from causalqa.qa.grounding import ground


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Does Price matter for Churn at all?", "bool"),
        ("Price, Churn — is one a cause of the other?", "bool"),
        ("Before we reprice: would Churn move if Price moved?", "bool"),
        ("Tell me if Price causes Churn.", "bool"),
        ("Could you tell me which factors feed Churn?", "variables"),  # a request, not yes/no
        ("Can you list what lies between Price and Churn?", "variables"),
        ("Which partner should get the Discount first?", "subject"),
        ("Who would profit most from a Discount?", "subject"),
        ("Identify the account that gains the most from Discount.", "subject"),
        ("Which engagement tops the table for partner 9?", "treatment"),
        ("What should we offer partner 9?", "treatment"),
        ("How big is the average lift from Discount?", "number"),
        ("What is the mean treatment effect of Discount?", "number"),  # "treatment" modifies
        ("By how much would partner 2 grow with a Discount?", "number"),
        ("Through what does Price act on Churn?", "variables"),
        ("Mediators of Price on Churn?", "variables"),  # a fragment led by its noun
        ("Does Price reach Churn via other nodes? If so, which ones?", "variables"),
        ("Intermediate nodes Price -> Churn, please", "variables"),
        ("Leaving out anyone who is engaged, which engagement wins?", "treatment"),
        ("Of the partners who are new, which one gains most from Discount?", "subject"),
        ("Who are the direct drivers of Churn?", "variables"),  # "who" + a variable noun
        ("Of the accounts on trial, which one gains most from Discount?", "subject"),
        ("For partner 4 we have three programs; which one pays best?", "treatment"),
        ("Price and Churn", None),
    ],
)
def test_answer_type(question, expected):
    assert answer_type(question) == expected


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Is Price an immediate cause of Churn?", "direct"),
        ("Which variables have an arrow straight into Churn?", "direct"),
        ("Does Price act on Churn directly or via other variables?", "any"),
        ("Does Price act on Churn, whether directly or not?", "any"),
        ("Is Churn anywhere downstream of Price?", "any"),
        ("Is Price a direct parent of Churn, or an ancestor further up?", "any"),
        ("Does Price hit Churn in one step or in several?", "any"),
        ("What lies a single hop downstream of Churn?", "direct"),
        ("Does Price cause Churn?", None),
    ],
)
def test_scope(question, expected):
    assert scope(question) == expected


def test_rescope_maps_to_the_counterpart():
    assert rescope("ancestors", "Which variables act on Churn immediately?") == "parents"
    assert rescope("is_parent", "Does Price affect Churn, even indirectly?") == "is_cause"
    assert rescope("paths_between", "the immediate link from Price to Churn") == "paths_between"


@pytest.mark.parametrize(
    "question, expected",
    [
        ("the 4 strongest engagements", 4),
        ("top-2 partners for Discount", 2),
        ("Which five partners react best to Discount?", 5),
        ("the best partners for Discount", 3),  # plural, no number
        ("the best engagement for partner 12", None),  # "12" is an id
        ("top engagement overall", None),
    ],
)
def test_requested_count(question, expected):
    assert requested_count(question) == expected


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Is Churn swayed, through any route, by Price?", ("Price", "Churn")),
        ("Churn: does it hinge on Price?", None),  # "it" is not a name: no cue read
        ("Does Churn respond when we move Price?", ("Price", "Churn")),
        ("Churn -> Price: any route?", ("Churn", "Price")),
        ("What is the effect of Churn on Price?", ("Churn", "Price")),
        ("Is Price something Churn ultimately depends on?", ("Price", "Churn")),
        ("Are Price and Churn related?", None),
        ("Which nodes does Price pass through to change Churn?", ("Price", "Churn")),
        ("Churn is what we watch. Is Price one of its causes at all?", ("Price", "Churn")),
        ("Can Price make a change on Churn, also through others?", ("Price", "Churn")),
        ("Is Churn something that Price ends up influencing, directly or not?", ("Price", "Churn")),
        ("Does a change in Churn lead to a change in Price?", ("Churn", "Price")),
    ],
)
def test_cause_and_effect(partners, question, expected):
    assert cause_and_effect(question, ground(question, partners)) == expected
