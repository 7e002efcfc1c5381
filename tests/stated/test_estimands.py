"""Every estimand against values computed in the test itself: the stated numbers are made
from a full binary model by enumerating its joint distribution, and the true causal
quantity is computed from the same model by intervention (or by its structural
equations for the natural effects), never from the program's output."""

# Stories and questions read best one sentence to a line.
# ruff: noqa: E501

from __future__ import annotations

import itertools

import pytest

from causalqa.stated.answer import answer_story


class Model:
    """Binary variables with P(v=1 | parents) tables; `do` replaces a variable's table."""

    def __init__(self, parents: dict[str, list[str]], tables: dict[str, dict[tuple, float]]):
        self.parents, self.tables = parents, tables
        self.order = list(parents)

    def joint(self, do: dict[str, int] | None = None) -> dict[tuple, float]:
        out = {}
        for values in itertools.product((0, 1), repeat=len(self.order)):
            w = dict(zip(self.order, values))
            p = 1.0
            for v in self.order:
                if do and v in do:
                    p *= 1.0 if w[v] == do[v] else 0.0
                    continue
                p1 = self.tables[v][tuple(w[u] for u in self.parents[v])]
                p *= p1 if w[v] else 1 - p1
            out[values] = p
        return out

    def p(self, event: dict, given: dict | None = None, do: dict | None = None) -> float:
        j = self.joint(do)
        idx = {v: i for i, v in enumerate(self.order)}

        def mass(cond):
            return sum(
                p for vals, p in j.items() if all(vals[idx[k]] == x for k, x in cond.items())
            )

        given = given or {}
        return mass({**event, **given}) / mass(given)


def pct(x: float) -> str:
    return f"{x:.4f}"


def test_ate_back_door_confounder():
    # Z -> X, Z -> Y, X -> Y
    m = Model(
        {"age": [], "drug": ["age"], "recovery": ["age", "drug"]},
        {
            "age": {(): 0.4},
            "drug": {(0,): 0.1, (1,): 0.9},
            "recovery": {(0, 0): 0.6, (0, 1): 0.7, (1, 0): 0.2, (1, 1): 0.3},
        },
    )
    lines = [f"The overall probability of old age is {pct(m.p({'age': 1}))}."]
    for a, d in itertools.product((0, 1), repeat=2):
        a_txt = "old age" if a else "young age"
        d_txt = "taking the drug" if d else "not taking the drug"
        lines.append(
            f"For people with {a_txt} and {d_txt}, the probability of recovery is {pct(m.p({'recovery': 1}, {'age': a, 'drug': d}))}."
        )
    story = (
        "Age has a direct effect on drug and recovery. Drug has a direct effect on recovery. "
        + " ".join(lines)
    )
    truth = m.p({"recovery": 1}, do={"drug": 1}) - m.p({"recovery": 1}, do={"drug": 0})
    a = answer_story(story, "Will taking the drug increase the chance of recovery?")
    assert a.value == pytest.approx(truth, abs=1e-3)
    assert a.answer == ("yes" if truth > 0 else "no")
    # the confounded difference P(y|x=1) - P(y|x=0) has the other sign here: adjustment matters
    naive = m.p({"recovery": 1}, {"drug": 1}) - m.p({"recovery": 1}, {"drug": 0})
    assert (naive > 0) != (truth > 0)


def test_ett_with_stated_weights_and_sign_only_without_them():
    m = Model(
        {"z": [], "x": ["z"], "y": ["z", "x"]},
        {
            "z": {(): 0.5},
            "x": {(0,): 0.2, (1,): 0.8},
            "y": {(0, 0): 0.1, (0, 1): 0.5, (1, 0): 0.4, (1, 1): 0.9},
        },
    )
    # E[Y_{x=0} | X=1] = sum_z P(z | X=1) P(y | x=0, z) with P(z | X=1) from the joint
    cf = sum(m.p({"z": z}, {"x": 1}) * m.tables["y"][(z, 0)] for z in (0, 1))
    truth = cf - m.p({"y": 1}, {"x": 1})  # < 0: the treated would have done worse untreated
    cpt = " ".join(
        f"For those who are {'zuph' if z else 'not zuph'} and {'jyka' if x else 'not jyka'}, the probability of rixq is {pct(m.tables['y'][(z, x)])}."
        for z, x in itertools.product((0, 1), repeat=2)
    )
    graph = "Zuph has a direct effect on jyka and rixq. Jyka has a direct effect on rixq."
    weights = " ".join(
        f"For those who are {'jyka' if x else 'not jyka'}, the probability of zuph is {pct(m.p({'z': 1}, {'x': x}))}."
        for x in (0, 1)
    )
    q = "For those who are jyka, would it be less likely to see rixq if the individual was not jyka?"
    a = answer_story(f"{graph} {cpt} {weights}", q)
    assert a.value == pytest.approx(truth, abs=1e-3) and a.answer == "yes"
    # without P(zuph | jyka) the size is unknown, but both differences are negative: the sign is fixed
    b = answer_story(f"{graph} {cpt} The overall probability of zuph is 0.5000.", q)
    assert b.answer == "yes" and "sign" in b.estimand


def test_front_door_matches_intervention_on_the_full_model():
    # U (unobserved) -> X, U -> Y, X -> M -> Y
    m = Model(
        {"u": [], "x": ["u"], "m": ["x"], "y": ["u", "m"]},
        {
            "u": {(): 0.3},
            "x": {(0,): 0.2, (1,): 0.9},
            "m": {(0,): 0.1, (1,): 0.8},
            "y": {(0, 0): 0.2, (0, 1): 0.5, (1, 0): 0.6, (1, 1): 0.95},
        },
    )
    truth = m.p({"y": 1}, do={"x": 1}) - m.p({"y": 1}, do={"x": 0})
    s = [
        "Gene has a direct effect on smoking and cancer. Smoking has a direct effect on tar. Tar has a direct effect on cancer. Gene is unobserved.",
        f"The overall probability of smoking is {pct(m.p({'x': 1}))}.",
    ]
    for x in (0, 1):
        s.append(
            f"For {'smokers' if x else 'nonsmokers'}, the probability of high tar is {pct(m.p({'m': 1}, {'x': x}))}."
        )
    for x, t in itertools.product((0, 1), repeat=2):
        s.append(
            f"For {'smokers' if x else 'nonsmokers'} and {'high tar' if t else 'low tar'}, the probability of cancer is {pct(m.p({'y': 1}, {'x': x, 'm': t}))}."
        )
    a = answer_story(" ".join(s), "Will smoking increase the chance of cancer?")
    assert "front-door" in a.estimand
    assert a.value == pytest.approx(truth, abs=2e-3)


def test_natural_direct_and_indirect_effects_from_the_structural_equations():
    # X -> M, X -> Y, M -> Y; each variable is 1 when its own uniform noise is below its table
    pm = {0: 0.3, 1: 0.7}
    py = {(0, 0): 0.2, (0, 1): 0.4, (1, 0): 0.5, (1, 1): 0.6}

    # E[Y_{x, M_{x'}}] = sum_m P(M_{x'} = m) * P(Y = 1 | x, m): the noises are independent
    def nested(x, xm):
        return sum((pm[xm] if mm else 1 - pm[xm]) * py[(x, mm)] for mm in (0, 1))

    nde = nested(1, 0) - nested(0, 0)
    nie = nested(0, 1) - nested(0, 0)
    s = ["Exercise has a direct effect on weight and health. Weight has a direct effect on health."]
    for x in (0, 1):
        s.append(
            f"For people who {'exercise' if x else 'do not exercise'}, the probability of low weight is {pct(pm[x])}."
        )
    for x, w in itertools.product((0, 1), repeat=2):
        s.append(
            f"For people who {'exercise' if x else 'do not exercise'} and with {'low weight' if w else 'high weight'}, the probability of good health is {pct(py[(x, w)])}."
        )
    story = " ".join(s)
    a = answer_story(
        story,
        "If we disregard the mediation effect through weight, would exercise positively affect health?",
    )
    b = answer_story(story, "Does exercise positively affect health through weight?")
    assert a.value == pytest.approx(nde, abs=1e-3) and a.answer == "yes"
    assert b.value == pytest.approx(nie, abs=1e-3) and b.answer == "yes"


def test_instrumental_variable_ratio_equals_a_homogeneous_effect():
    # Y = 1 when its noise is below 0.2 + 0.3 * X + 0.4 * U: the effect of X is 0.3 for everyone
    m = Model(
        {"u": [], "z": [], "x": ["u", "z"], "y": ["u", "x"]},
        {
            "u": {(): 0.5},
            "z": {(): 0.5},
            "x": {(0, 0): 0.1, (0, 1): 0.6, (1, 0): 0.4, (1, 1): 0.9},
            "y": {(u, x): 0.2 + 0.3 * x + 0.4 * u for u in (0, 1) for x in (0, 1)},
        },
    )
    s = [
        "Income has a direct effect on college and salary. Proximity has a direct effect on college. College has a direct effect on salary. Income is unobserved."
    ]
    for z in (0, 1):
        near = "living near a college" if z else "living far from a college"
        s.append(
            f"For people {near}, the probability of a college degree is {pct(m.p({'x': 1}, {'z': z}))}."
        )
        s.append(
            f"For people {near}, the probability of high salary is {pct(m.p({'y': 1}, {'z': z}))}."
        )
    a = answer_story(" ".join(s), "Will a college degree increase the chance of high salary?")
    assert "instrumental" in a.estimand
    assert a.value == pytest.approx(0.3, abs=2e-3)


def test_correlation_marginal_and_explaining_away_from_the_joint():
    m = Model(
        {"talent": [], "effort": [], "fame": ["talent", "effort"]},
        {
            "talent": {(): 0.3},
            "effort": {(): 0.6},
            "fame": {(0, 0): 0.05, (0, 1): 0.4, (1, 0): 0.5, (1, 1): 0.9},
        },
    )
    graph = "Talent has a direct effect on fame. Effort has a direct effect on fame."
    s = [graph, f"The overall probability of talent is {pct(m.p({'talent': 1}))}."]
    for t, f in itertools.product((0, 1), repeat=2):
        s.append(
            f"For people who are {'talented' if t else 'untalented'} and {'famous' if f else 'not famous'}, the probability of effort is {pct(m.p({'effort': 1}, {'talent': t, 'fame': f}))}."
        )
    a = answer_story(
        " ".join(s),
        "If we look at people who are famous, does the chance of effort increase when talented?",
    )
    truth = m.p({"effort": 1}, {"talent": 1, "fame": 1}) - m.p({"effort": 1}, {"fame": 1})
    assert truth < 0 and a.answer == "no"
    # talent and effort are independent: the graph alone makes their correlation 0
    c = answer_story(
        graph
        + " The overall probability of talent is 0.30. The probability of talent and effort is 0.19. The probability of no talent and effort is 0.41.",
        "Is the chance of effort larger when observing talent?",
    )
    assert c.answer == "no" and c.value == 0.0
    marg = answer_story(
        "Smoking has a direct effect on cancer. The overall probability of smoking is 0.40. "
        "For smokers, the probability of cancer is 0.70. For nonsmokers, the probability of cancer is 0.45.",
        "Is cancer more likely than no cancer overall?",
    )
    assert marg.value == pytest.approx(0.4 * 0.7 + 0.6 * 0.45) and marg.answer == "yes"


def test_back_door_method_choice():
    story = (
        "Gender has a direct effect on treatment and recovery. Treatment has a direct effect on recovery. "
        "Method 1: We look directly at how treatment correlates with recovery in general. "
        "Method 2: We look at this correlation case by case according to gender."
    )
    q = "To understand how treatment affects recovery, is it more correct to use the Method 1 than Method 2?"
    assert answer_story(story, q).answer == "no"  # gender confounds: only method 2 is valid
    chain = (
        "Treatment has a direct effect on blood pressure. Blood pressure has a direct effect on recovery. "
        "Method 1: We look directly at how treatment correlates with recovery in general. "
        "Method 2: We look at this correlation case by case according to blood pressure."
    )
    assert answer_story(chain, q).answer == "yes"  # adjusting for a mediator blocks the effect


def test_collider_bias_no_causal_path():
    story = (
        "Talent has a direct effect on fame. Effort has a direct effect on fame. "
        "For people who are famous, the correlation between talent and effort is -0.30."
    )
    assert (
        answer_story(
            story, "If we look at people who are famous, does it mean that talent affects effort?"
        ).answer
        == "no"
    )
    assert (
        answer_story(
            story,
            "If we look at people who are famous, does it mean that talent does not affect effort?",
        ).answer
        == "yes"
    )


def test_deterministic_counterfactual_abduction_action_prediction():
    story = (
        "Rain has a direct effect on sprinkler and ground. Sprinkler has a direct effect on ground. "
        "We know that rain causes sprinkler off. rain or sprinkler on causes wet ground. We observed no rain."
    )
    # observed no rain: the sprinkler is on and the ground wet; had it rained, the sprinkler
    # would be off but the rain alone wets the ground
    a = answer_story(story, "Would the ground is wet if rain instead of no rain?")
    assert a.answer == "yes"
    b = answer_story(
        "Rain has a direct effect on ground. Sprinkler has a direct effect on ground. "
        "We know that rain and sprinkler on causes wet ground. We observed sprinkler off.",
        "Would the ground is wet if rain instead of no rain?",
    )
    assert b.answer == "no"


def test_mediator_confounded_by_a_stated_unobserved_variable_is_bounded():
    # W -> M, W -> Y, X -> M, X -> Y, M -> Y with W unobserved: P(Y | X, M, W) is not stated
    s = (
        "Xevo has a direct effect on tijv and gyzp. Tijw has a direct effect on tijv and gyzp. "
        "Tijv has a direct effect on gyzp. Tijw is unobserved. "
        "For those who are not xevo and are not tijv, the probability of gyzp is 11%. "
        "For those who are not xevo and are tijv, the probability of gyzp is 8%. "
        "For those who are xevo and are not tijv, the probability of gyzp is 98%. "
        "For those who are xevo and are tijv, the probability of gyzp is 31%. "
        "For those who are not xevo and are not tijw, the probability of tijv is 50%. "
        "For those who are not xevo and are tijw, the probability of tijv is 13%. "
        "For those who are xevo and are not tijw, the probability of tijv is 51%. "
        "For those who are xevo and are tijw, the probability of tijv is 86%. "
        "The overall probability of tijw is 41%."
    )
    a = answer_story(
        s, "If we disregard the mediation effect through tijv, would xevo positively affect gyzp?"
    )
    # every completion of P(gyzp | xevo, tijv, tijw) consistent with the numbers gives a
    # positive direct effect here (the two differences 0.87 and 0.23 are both positive)
    assert a.answer == "yes" and "sign" not in (a.reason or "")
