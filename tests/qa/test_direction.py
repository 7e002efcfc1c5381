import pytest

from causalqa.qa.direction import asked_direction, orient
from causalqa.qa.grounding import ground


@pytest.mark.parametrize(
    ("question", "direction"),
    [
        ("Which variables directly influence Revenue?", "causes"),
        ("Which nodes point directly into Revenue?", "causes"),
        ("By which variables is Revenue directly influenced?", "causes"),
        ("Which variables have a direct effect on Revenue?", "causes"),
        ("What is Revenue driven by?", "causes"),
        ("Revenue depends directly on which variables?", "causes"),
        ("What are the causes of Revenue?", "causes"),
        ("If I change the value of Revenue, which variables are directly affected?", "effects"),
        ("Which nodes are directly caused by Revenue?", "effects"),
        ("What are the direct effects of Revenue?", "effects"),
        ("Which variables does Revenue directly influence?", "effects"),
        ("If Revenue is modified, which variables respond directly to it?", "effects"),
        ("Which variables sit immediately downstream of Revenue?", "effects"),
        ("Which variables respond to Revenue?", "effects"),
        ("Revenue: immediate causes only, list.", "causes"),
        ("Revenue's direct drivers?", "causes"),
        ("Of which variables is Revenue a direct effect?", "causes"),
        ("Of Revenue, which variables are its parents?", "causes"),
        ("Which variables get effect from Revenue directly?", "effects"),
        ("Which variables receive a directed edge originating from Revenue?", "effects"),
        (
            "By Revenue, which variables are influenced directly, with nothing in between?",
            "effects",
        ),
        ("Which variables are influenced, directly and with no mediator, by Revenue?", "effects"),
        ("Of Revenue, which variables are the direct effects?", "effects"),
        ("Revenue -> ? immediate effects only.", "effects"),
        ("Is Revenue a direct cause of which variables?", "effects"),
        ("Under do(Revenue), which variables move directly?", "effects"),
        ("Revenue is immediately downstream of which nodes?", "causes"),
        ("Which factors could shift Revenue directly if we set them?", "causes"),
        ("Looking at Revenue: what points straight into it?", "causes"),
        ("Which nodes use Revenue as a direct input?", "effects"),
        ("What does a shock to Revenue reach in one step?", "effects"),
        ("What directly causes a change in Revenue?", "causes"),
        ("What variables Revenue is directly impacting on?", "effects"),
        ("What does Revenue end up influencing?", "effects"),
        ("Which variables can make a change on Revenue?", "causes"),
        # No cue, or two variables: the model decides.
        ("Revenue: neighbours?", None),
        ("Does Price affect Revenue?", None),
    ],
)
def test_asked_direction(partners, question, direction):
    assert asked_direction(question, ground(question, partners)) == direction


def test_orient_mirrors_only_structural_tools(partners):
    q = "Which nodes point directly into Revenue?"
    g = ground(q, partners)
    assert orient("children", q, g) == "parents"
    assert orient("parents", q, g) == "parents"
    assert orient("descendants", q, g) == "ancestors"
    assert orient("is_cause", q, g) == "is_cause"
