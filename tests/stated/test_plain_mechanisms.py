"""Deterministic stories in everyday English (`stated.plain_mechanisms`): mechanisms by
their connectives, facts told as a narrative, the counterfactual asked as a conditional.
Stories written for these tests (not from any writer's set)."""

from __future__ import annotations

import pytest

from causalqa.stated.compute import counterfactual
from causalqa.stated.model import Mechanism, Query, StatedModel, Variable
from causalqa.stated.plain_mechanisms import (
    PLAIN_ROUTE,
    answer_plain,
    read_counterfactual,
    read_plain_story,
)
from causalqa.stated.route import ask_story

PUMP = (
    "Basement notes: the pump runs if and only if the float is up and the power is on. "
    "Last night the float was up, the power was on, and the pump ran."
)


@pytest.mark.parametrize(
    ("story", "question", "expected"),
    [
        (PUMP, "Had the power been off last night, would the pump have run?", "no"),
        (PUMP, "Would the pump have run if the float had been down?", "no"),
        (
            # "unless": the other value exactly when the condition holds; the vent's state
            # said with an antonym ("stayed shut")
            "The vent opens whenever it is hot inside, unless the storm lock is engaged. "
            "Yesterday it was hot inside, the storm lock was engaged, and the vent stayed shut.",
            "If the storm lock had not been engaged, would the vent have opened?",
            "yes",
        ),
        (
            # "or when": the connective said again; who did it ("Priya", "she") is not
            # what happened; "earned" / "awarded" / "got" name one thing
            "The badge is awarded if the player finishes the cave level or when the player "
            "finds the map; nothing else grants it. Priya finished the cave level, found the "
            "map, and got the badge.",
            "If she had not finished the cave level, would she still have earned the badge?",
            "yes",
        ),
        (
            # a chain, a root known only from its effect (abduction), "without"
            "The valve opens exactly when the soil is dry. The beds are watered if and only "
            "if the valve is open and the tank is full. The seedlings thrive if the beds are "
            "watered or it rains. Yesterday it did not rain and the seedlings thrived.",
            "Would the seedlings have thrived without the valve opening?",
            "no",
        ),
        (
            # two alarms that share words are two variables: each has its own mechanism
            "The front alarm sounds when the front door opens, and only then. The back alarm "
            "sounds when the back door opens, and only then. Last night the back door opened "
            "and the back alarm sounded; the front door stayed shut.",
            "Had the front door opened, would the back alarm have sounded?",
            "yes",
        ),
        (
            # the mechanism said twice in other words ("without …, no …")
            "The engine starts exactly when the key is turned; without the key turned, no "
            "engine start. Yesterday the key was turned and the engine started.",
            "Had the key not been turned, would the engine have started?",
            "no",
        ),
        (
            # a log line's notation
            "[ops] compressor C2: runs iff thermostat_call && !lockout. lockout set iff "
            "pressure_high. 03:10 pressure_high=0, thermostat_call=1, C2 running.",
            "Had pressure been high at 03:10, would C2 have been running?",
            "no",
        ),
    ],
)
def test_it_answers_what_the_mechanisms_and_facts_decide(story, question, expected):
    a = answer_plain(story, question)
    assert a is not None and a.answer == expected, a and a.reason
    assert a.route == [PLAIN_ROUTE]
    assert a.model["mechanisms"] and a.derivation


@pytest.mark.parametrize(
    ("story", "question", "why"),
    [
        (
            # the facts leave whether the system was armed open, and it matters
            "The alarm sounds exactly when the door is opened while the system is armed. "
            "On Friday the alarm stayed silent.",
            "Had the door been opened, would the alarm have sounded?",
            "worlds disagree",
        ),
        (
            "The lamp is on exactly when the fan runs. The fan runs exactly when the lamp is "
            "on. Yesterday the lamp was on.",
            "Had the fan not run, would the lamp have been on?",
            "cycle",
        ),
        (PUMP, "Had the power been off, would the garage door have opened?", "the question"),
        (
            # "the safety screen is clear", said once, shares "screen" with "the screen is
            # blocked": read apart, the facts would fix it for the wrong reason
            "The press cycles exactly when the button is held and the safety screen is clear. "
            "The screen is blocked whenever a hand is inside. The button was held and the "
            "press did not cycle.",
            "Had no hand been inside, would the press have cycled?",
            "shares words",
        ),
        (
            # the second sentence is not the first told from its other value
            "The light is on when the switch is up. The light is off when the fuse is blown. "
            "Yesterday the switch was up and the light was on.",
            "Had the switch been down, would the light have been on?",
            "do not say the same",
        ),
        (
            "The light is on if the switch is up and the timer is set or the sensor fires. "
            "The switch was up.",
            "Had the switch been down, would the light have been on?",
            "both 'and' and 'or'",
        ),
    ],
)
def test_it_refuses_what_the_words_do_not_decide(story, question, why):
    a = answer_plain(story, question)
    assert a is not None and a.answer is None
    assert why in a.reason


def test_a_fact_that_is_not_sure_is_left_out_and_said():
    # "the hose had water" names nothing the mechanisms name: left out, and said
    story = (
        "The pump runs exactly when the float is up and the switch is on. Yesterday the float "
        "was up, the switch was on, the hose had water, and the pump ran."
    )
    a = answer_plain(story, "Had the switch been off, would the pump have run?")
    assert a.answer == "no"
    assert any("a fact left out" in step and "hose had water" in step for step in a.derivation)


def test_an_answer_that_hangs_on_a_fact_left_out_is_refused():
    # "the tank had water" against "the tank is not empty": no word tells the value; read
    # as "the tank is empty" it would contradict the running pump, so the story might
    # contradict itself, and the answer is refused rather than taken from the other facts
    story = (
        "The pump runs exactly when the tank is not empty and the switch is on. Yesterday the "
        "tank had water, and the pump ran."
    )
    a = answer_plain(story, "Had the switch been off, would the pump have run?")
    assert a.answer is None and "hangs on the fact 'Yesterday the tank had water'" in a.reason


def test_it_is_not_its_kind_of_story():
    assert (
        answer_plain(
            "Rain makes the grass wet 80% of the time.", "Had it rained, would the grass be wet?"
        )
        is None
    )
    assert answer_plain(PUMP, "Is the pump more likely to run than not?") is None


def test_ask_story_shows_the_reading_and_does_not_answer_from_it():
    a = ask_story(PUMP, "Had the power been off last night, would the pump have run?")
    assert a.answer is None
    assert "gives 'no'" in a.reason and PLAIN_ROUTE in a.route
    assert a.value == 0.0 and a.model["mechanisms"] and a.query["kind"] == "counterfactual"


def test_the_parts_of_a_story_and_a_question():
    plain = read_plain_story(
        "Design doc: the drawbridge stays down unless the lever is pulled. The archers fire "
        "whenever the drawbridge is raised and the player is in the courtyard, and only then. "
        "Bent coins are always rejected. In the playtest the archers fired."
    )
    assert [(r.effect, r.says, r.op) for r in plain.rules] == [
        ("not the drawbridge stays down", "iff", "and"),
        ("The archers fire", "if", "and"),
    ]
    assert plain.rules[1].inputs == ["the drawbridge is raised", "the player is in the courtyard"]
    # a general remark in the present is not what happened
    assert [f for f, _ in plain.facts] == ["In the playtest the archers fired"]
    assert read_counterfactual("Would the archers have fired without the lever being pulled?") == (
        ["not the lever being pulled"],
        "the archers have fired",
    )
    assert read_counterfactual("Is the drawbridge down?") is None


def test_a_mechanism_with_requirements_besides_its_inputs():
    # light = (a or b) and not c, as "a or b, unless c" reads
    model = StatedModel(
        variables={k: Variable(k) for k in ("a", "b", "c", "light")},
        edges=[("a", "light"), ("b", "light"), ("c", "light")],
        mechanisms=[Mechanism("light", 1, "or", [("a", 1), ("b", 1)], "s", requires=[("c", 0)])],
    )
    from causalqa.stated.model import Observation

    model.observations = [
        Observation("a", 1, "s"),
        Observation("b", 0, "s"),
        Observation("c", 0, "s"),
    ]
    on = counterfactual(model, Query("counterfactual", "c", 1, "light", 1))
    assert on.value == 0.0  # c switches it off whatever a and b are
    assert counterfactual(model, Query("counterfactual", "a", 0, "light", 1)).value == 0.0
    assert counterfactual(model, Query("counterfactual", "b", 1, "light", 1)).value == 1.0


ALARM = "The alarm sounds exactly when the door is opened while the system is armed. "


@pytest.mark.parametrize(
    ("facts", "question", "expected"),
    [
        # "the back door was opened" says more than "the door is opened": left out, and
        # the answer holds without it
        (
            "Last night the system was armed and the back door was opened.",
            "Had the system not been armed, would the alarm have sounded?",
            "no",
        ),
        # here the answer hangs on it: refused
        (
            "Last night the back door was opened and the system was not armed.",
            "Had the system been armed, would the alarm have sounded?",
            None,
        ),
        # said in no more words than the mechanism's: read
        (
            "Last night the door was opened and the system was not armed.",
            "Had the system been armed, would the alarm have sounded?",
            "yes",
        ),
    ],
)
def test_a_fact_that_says_more_than_its_variable_is_read_only_if_the_answer_holds_without_it(
    facts, question, expected
):
    a = answer_plain(ALARM + facts, question)
    assert a.answer == expected, a.reason


def test_a_mechanism_that_starts_with_it_is_not_taken_for_a_remark():
    # "it runs whenever the power is on" begins like "it needs both" but is a mechanism
    a = answer_plain(
        "The fan: it runs whenever the power is on, and nothing else starts it. Yesterday "
        "the power was on and the fan ran.",
        "Had the power been off, would the fan have run?",
    )
    assert a.answer == "no", a.reason


@pytest.mark.parametrize(
    ("story", "question", "why"),
    [
        (
            # two log entries the reader cannot read for sure contradict the story only
            # together (tightened -> not loose -> no glow, yet glowing)
            "The lamp glows whenever its bulb is loose, and only then. The bulb is loose "
            "exactly when it hasn't been tightened this month. Log: bulb tightened two days "
            "ago; lamp glowing.",
            "If the bulb had not been tightened this month, would the lamp glow?",
            "hangs on 2 sentences",
        ),
        (
            # "the oven is started" beside "the oven is running": read apart, the cycle
            # fan -> room -> oven -> fan would not be seen
            "The fan spins exactly when the room is warm. The room is warm exactly when the "
            "oven is running, and the oven is started whenever the fan spins. Last night the "
            "fan spun.",
            "If the oven had not been running, would the fan have spun?",
            "said once",
        ),
    ],
)
def test_what_would_hide_a_contradiction_or_a_cycle_is_refused(story, question, why):
    a = answer_plain(story, question)
    assert a.answer is None and why in a.reason, a.reason
