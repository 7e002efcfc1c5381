"""Open questions: the query tools on a small table against hand-computed truth, the frame
that reads what a question asks, the check that refuses a plan that does not compute it,
and the assistant end to end (no LLM call is needed for these)."""

from __future__ import annotations

import networkx as nx
import pandas as pd
import pytest

from causalqa.causal_model import CausalModel
from causalqa.llm.testing import ScriptedLLM
from causalqa.qa import tools
from causalqa.qa.assistant import Assistant
from causalqa.qa.check import problems
from causalqa.qa.frame import plan_of, read_frame
from causalqa.qa.grounding import ground

GRAPH = nx.DiGraph(
    [
        ("Market Growth", "Discount"),
        ("Market Growth", "Revenue"),
        ("Discount", "Demand"),
        ("Demand", "Revenue"),
        ("Tech Support", "Satisfaction"),
        ("Satisfaction", "Revenue"),
    ]
)
TABLE = pd.DataFrame(
    {
        "Partner ID": ["P1", "P2", "P3", "P4", "P5"],
        "Tech Support": [10.0, -5.0, 20.0, 30.0, 0.5],
        "Discount": [5.0, 15.0, -10.0, 25.0, 2.0],
        "Already Engaged": [True, False, True, False, True],
    }
)


@pytest.fixture
def model():
    return CausalModel(GRAPH, TABLE, outcome="Revenue")


def run(model, tool, **args):
    return tools.execute({"steps": [{"tool": tool, "args": args}]}, model).result


T = {"treatment": "Tech Support"}
D = {"treatment": "Discount"}


def test_statistics_against_hand_computed_truth(model):
    assert run(model, "summarize", value=T, stat="median") == 10.0
    assert run(model, "summarize", value=T, stat="min") == -5.0
    assert run(model, "summarize", value=T, stat="max") == 30.0
    assert run(model, "summarize", value=T, stat="sum") == 55.5
    assert run(model, "summarize", value=T, stat="quantile", q=0.25) == 0.5
    assert run(model, "summarize", value=T, stat="std") == pytest.approx(
        pd.Series([10.0, -5.0, 20.0, 30.0, 0.5]).std()
    )
    engaged = {"filter": "Already Engaged", "value": True}
    assert run(model, "summarize", value=T, stat="mean", where=engaged) == pytest.approx(30.5 / 3)
    diff = {"difference": ["Tech Support", "Discount"]}
    assert run(model, "summarize", value=diff, stat="mean") == pytest.approx((55.5 - 37.0) / 5)


def test_counts_shares_lists_and_ranks(model):
    beats = [{"value": T, "op": ">", "than": D}]
    assert run(model, "count_subjects", conditions=beats) == 3  # P1, P3, P4
    assert (
        run(
            model,
            "count_subjects",
            conditions=beats,
            where={"filter": "Already Engaged", "value": True},
        )
        == 2
    )
    assert run(model, "share_subjects", conditions=[{"value": D, "op": ">", "than": 0}]) == 0.8
    assert run(model, "list_subjects", conditions=[{"value": T, "op": "<", "than": 0}]) == ["P2"]
    assert run(model, "list_subjects", conditions=[{"value": T, "op": ">=", "than": 20}]) == [
        "P3",
        "P4",
    ]
    ranked = run(model, "rank_subjects", value={"difference": ["Tech Support", "Discount"]}, k=2)
    assert [r["arg"] for r in ranked] == ["P3", "P1"]
    assert run(model, "rank_treatments", stat="median")[0] == {"arg": "Tech Support", "value": 10.0}
    assert (
        run(
            model, "subject_value", value={"difference": ["Discount", "Tech Support"]}, subject="P2"
        )
        == 20.0
    )
    assert [r["arg"] for r in run(model, "subject_values", value=D)] == [
        "P1",
        "P2",
        "P3",
        "P4",
        "P5",
    ]


def test_graph_tools(model):
    assert run(model, "common_causes", a="Discount", b="Revenue") == ["Market Growth"]
    assert run(model, "adjustment_set", treatment="Discount", outcome="Revenue") == [
        "Market Growth"
    ]
    assert run(model, "on_path", variable="Demand", source="Discount", target="Revenue")
    assert not run(model, "on_path", variable="Satisfaction", source="Discount", target="Revenue")
    assert run(model, "d_separated", a="Discount", b="Tech Support", given=[])
    assert not run(model, "d_separated", a="Discount", b="Tech Support", given=["Revenue"])
    assert run(model, "effect_kind", cause="Discount", effect="Revenue") == "indirect"


def test_bad_arguments_are_plan_errors(model):
    with pytest.raises(tools.PlanError, match="quantile needs q"):
        run(model, "summarize", value=T, stat="quantile")
    with pytest.raises(tools.PlanError, match="no subject meets"):
        run(
            model,
            "summarize",
            value=T,
            stat="mean",
            conditions=[{"value": T, "op": ">", "than": 99}],
        )
    with pytest.raises(tools.PlanError, match="two different treatments"):
        run(model, "summarize", value={"difference": ["Discount", "Discount"]}, stat="mean")
    with pytest.raises(tools.PlanError, match="not a variable"):
        run(model, "d_separated", a="Discount", b="Nope", given=[])


# -- the frame, the check and the assistant, with the questions users asked -----------------

EXPECTED = [
    ("What is the median effect of Tech Support?", "summarize", 10.0),
    ("What is the smallest effect Tech Support has on any partner?", "summarize", -5.0),
    ("What fraction of partners benefit from Discount?", "share_subjects", 0.8),
    ("Among partners already engaged, how many gain more from Tech Support than from Discount?", "count_subjects", 2),
    ("Which treatment raises Revenue the most on average?", None, {"arg": "Tech Support", "value": 11.1}),
    ("What confounds the effect of Discount on Revenue?", "common_causes", ["Market Growth"]),
    ("Does Demand lie on a causal path from Discount to Revenue?", "on_path", True),
    ("Are Discount and Tech Support independent once we condition on Revenue?", "d_separated", False),
    ("How many partners have an effect of Discount above 10?", "count_subjects", 2),
    ("Is the effect of Discount on Revenue direct, indirect or both?", "effect_kind", "indirect"),
    ("Which variables must I adjust for to estimate the effect of Discount on Revenue?", "adjustment_set", ["Market Growth"]),
    # the same kinds as people also write them
    ("Discount ⊥ Tech Support | Revenue?", "d_separated", False),
    ("Does any directed path from Discount to Revenue go via Demand?", "on_path", True),
    ("Tell me the biggest gain produced by Discount for any one partner.", "summarize", 25.0),
    ("Median effect of Discount among partners who benefit from it?", "summarize", 10.0),
    ("Tech Support vs Discount: what's the average amount by which the first one's effect exceeds the second's?", "summarize", 3.7),
    ("I'd like to know the value that 50 percent of the effects of Discount fall below.", "summarize", 5.0),
    # a median described, a standard deviation by its symbol (sample sd: sqrt(809.2 / 4))
    ("If you lined up every partner's gain from Tech Support, what value sits in the middle?", "summarize", 10.0),
    ("Half the partners get more than what from Tech Support, and half get less?", "summarize", 10.0),
    ("sigma of the Tech Support lift across partners", "summarize", 202.3**0.5),
    # a difference written as a formula (mean of T - D: (5 - 20 + 30 + 5 - 1.5) / 5)
    ("Mean of (Tech Support effect − Discount effect) across the partners?", "summarize", 3.7),
    ("Which partner has the biggest Tech Support-minus-Discount gap?", "rank_subjects", [{"arg": "P3", "value": 30.0}]),
    ("partner w/ biggest edge for Discount over Tech Support?", "rank_subjects", [{"arg": "P2", "value": 20.0}]),
    # extremes, quantiles and counts described rather than named
    ("How far down does Tech Support's individual effect go at its very bottom?", "summarize", -5.0),
    ("What's the peak per-partner return from Discount?", "summarize", 25.0),
    ("how high does the effect of Tech Support get, at most?", "summarize", 30.0),
    ("Tech Support's 25th-percentile uplift across partners?", "summarize", 0.5),
    ("Below what effect of Tech Support do 25 percent of partners fall?", "summarize", 0.5),
    ("How volatile is Tech Support's lift between partners, in standard-deviation terms?", "summarize", 202.3**0.5),
    ("tally of partners w/ positive uplift from Discount?", "count_subjects", 4),
    ("How many partners would see a gain from Discount?", "count_subjects", 4),
    ("How much of the partner base comes out ahead with Discount, as a share?", "share_subjects", 0.8),
    ("Within the already-engaged group, how many partners gain more from Tech Support than they would from Discount?", "count_subjects", 2),
    ("For partner P1, by how much does the uplift from Tech Support exceed the uplift from Discount?", "subject_value", 5.0),
    ("By how much does Tech Support outperform Discount on average per partner?", "summarize", 3.7),
    ("The mean uplift gap across partners when we subtract the effect of Discount from that of Tech Support?", "summarize", 3.7),
    # routes, effect kinds, conditioning and blankets in other words
    ("Is Demand a mediator of Discount's effect on Revenue?", "on_path", True),
    ("Discount on Revenue: direct or indirect effect?", "effect_kind", "indirect"),
    ("Is Discount d-separated from Tech Support by Revenue?", "d_separated", False),
    ("Does knowing Demand and Market Growth make Discount and Revenue conditionally independent?", "d_separated", True),
    ("Do Market Growth and Demand d-separate Discount and Revenue?", "d_separated", True),
    ("Discount -> ... -> Demand -> ... -> Revenue: does such a path exist?", "on_path", True),
    ("Does Demand lie on a route by which Discount influences Revenue?", "on_path", True),
    # an eighth writer's wordings (test8, read after its held-out measurement)
    ("Is the impact of Discount on Revenue a direct one, does it run through other variables, or is it both?", "effect_kind", "indirect"),
    ("Would you say Discount acts on Revenue directly, indirectly or through both channels?", "effect_kind", "indirect"),
    ("how does Discount reach Revenue: straight arrow, through mediators, or both", "effect_kind", "indirect"),
    ("Which variables influence both Discount and Revenue?", "common_causes", ["Market Growth"]),
    ("Through which variables does Discount affect Revenue?", "mediators", ["Demand"]),
    ("How does Discount influence Revenue, i.e. which variables sit in between?", "mediators", ["Demand"]),
    ("Does Discount influence Revenue via Demand?", "on_path", True),
    ("Is Demand one of the variables sitting between Discount and Revenue on a directed path?", "on_path", True),
    ("Discount indep Tech Support | Revenue?", "d_separated", False),
    ("If we regress Revenue on Discount, which other variables need to be included so the coefficient can be read causally?", "adjustment_set", ["Market Growth"]),
    ("In the causal graph, which variables form the Markov blanket that renders Demand independent of everything else?", "markov_blanket", ["Market Growth", "Discount", "Revenue", "Satisfaction"]),
    ("For partner P1, how much larger is the effect of Tech Support than the effect of Discount?", "subject_value", 5.0),
    ("If we compare Tech Support against Discount for partner P1, what's the extra effect from Tech Support?", "subject_value", 5.0),
    ("what's the avg uplift of Tech Support over Discount across all partners", "summarize", 3.7),
    ("Who benefits most from getting Tech Support instead of Discount?", "rank_subjects", [{"arg": "P3", "value": 30.0}]),
    ("which partner has the highest ITE gap of Discount over Tech Support", "rank_subjects", [{"arg": "P2", "value": 20.0}]),
    ("For all partners, one by one, what effect does Discount have?", "subject_values", [{"arg": p, "value": v} for p, v in zip(TABLE["Partner ID"], TABLE["Discount"], strict=True)]),
    ("10th pct of Tech Support uplift?", "summarize", -2.8),
    ("Please count the partners for whom the individual impact of Discount is over 10.", "count_subjects", 2),
    ("By how much do partners' Tech Support effects typically deviate from their mean, i.e. what is the standard deviation?", "summarize", 202.3**0.5),
    ("Who does Discount harm? Give me the partner IDs.", "list_subjects", ["P3"]),
    # earlier writers' wordings still refused at the start of this round
    ("I'd like to know by how much Tech Support beats Discount on average across partners.", "summarize", 3.7),
    ("ATE(Tech Support) - ATE(Discount)?", "summarize", 3.7),
    ("Compare Tech Support with Discount: what is the mean per-partner difference in their effects?", "summarize", 3.7),
    ("On average, how much more uplift per partner does Tech Support deliver compared with Discount?", "summarize", 3.7),
    ("Identify the partner that maximizes CATE(Tech Support) - CATE(Discount).", "rank_subjects", [{"arg": "P3", "value": 30.0}]),
    ("Who benefits most from choosing Tech Support over Discount?", "rank_subjects", [{"arg": "P3", "value": 30.0}]),
    ("how much bigger is Tech Support's impact than Discount's for partner P1?", "subject_value", 5.0),
    ("I'd like to know, for partner P1, the effect of Tech Support net of the effect of Discount.", "subject_value", 5.0),
    # a ninth writer's wordings (test9, read after its held-out measurement)
    ("Across the partner base, what's the middle value of the per-partner effect of Tech Support? I mean the median.", "summarize", 10.0),
    ("If we line up every partner's impact from Tech Support from smallest to largest, what's the median value?", "summarize", 10.0),
    ("Looking across all partners, what is the top individual effect of Discount? just the number", "summarize", 25.0),
    ("Give me the value below which 25% of the partners' effects of Tech Support fall.", "summarize", 0.5),
    ("For how many partners is the effect of Discount greater than 0?", "count_subjects", 4),
    ("how many percent of partners get a positive effect from Discount", "share_subjects", 0.8),
    ("engaged partners only: how many have ITE of Tech Support > ITE of Discount?", "count_subjects", 2),
    ("Considering only partner P1, by how much does its treatment effect of Tech Support exceed its treatment effect of Discount?", "subject_value", 5.0),
    ("mean of (ITE of Tech Support - ITE of Discount) over partners", "summarize", 3.7),
    ("On average, how much larger is a partner's effect of Tech Support than their effect of Discount?", "summarize", 3.7),
    ("Compute the mean per-partner difference between the individual effect of Tech Support and the individual effect of Discount.", "summarize", 3.7),
    ("I need the mean over partners of each partner's Tech Support effect less their Discount effect.", "summarize", 3.7),
    ("partner with max (ITE of Tech Support - ITE of Discount)?", "rank_subjects", [{"arg": "P3", "value": 30.0}]),
    ("which partner has the biggest gap of Discount uplift over Tech Support uplift", "rank_subjects", [{"arg": "P2", "value": 20.0}]),
    ("I need every partner's individual effect of Discount: the full listing, not a summary.", "subject_values", [{"arg": p, "value": v} for p, v in zip(TABLE["Partner ID"], TABLE["Discount"], strict=True)]),
    ("treatment with highest mean effect on Revenue?", "best_treatment", {"arg": "Tech Support", "value": 11.1}),
    ("Rank the treatments by average effect on Revenue; which is first?", "best_treatment", {"arg": "Tech Support", "value": 11.1}),
    ("Is Demand one of the variables through which Discount influences Revenue? yes or no", "on_path", True),
    ("Discount independent of Tech Support conditioned on Revenue?", "d_separated", False),
    ("I'm estimating the impact of Discount on Revenue: which controls do I need to include so the estimate is causal and not confounded?", "adjustment_set", ["Market Growth"]),
    ("In the causal graph, does Discount affect Revenue through a direct edge only, only indirectly through other variables, both, or not at all?", "effect_kind", "indirect"),
    ("For the regression of Revenue on Discount, which controls do I need to get the causal effect?", "adjustment_set", ["Market Growth"]),
    # earlier writers' wordings still refused after that
    ("What effect of Tech Support sits at percentile 25 among partners?", "summarize", 0.5),
    ("how many partners clear the 10 mark on Discount's impact (strictly above, not equal)", "count_subjects", 2),
    ("Discount: how many partners beat an uplift of 10?", "count_subjects", 2),
    ("Within the Already Engaged = yes group, how many partners have effect(Tech Support) > effect(Discount)?", "count_subjects", 2),
    ("how many partners, as a share of the total, hit 10+ on Discount impact", "share_subjects", 0.4),
    ("What is the mean difference between Tech Support's effect and Discount's effect over all partners?", "summarize", 3.7),
    ("I'd like to know whether Discount influences Revenue via Demand.", "on_path", True),
    ("Knowing Demand, does Discount tell us nothing more about Revenue?", "d_separated", False),
    ("Knowing Demand and Market Growth, does Discount tell us anything more about Revenue?", "d_connected", False),
    ("What's the minimal set of variables that shields Demand from the rest of the graph?", "markov_blanket", ["Market Growth", "Discount", "Revenue", "Satisfaction"]),
    ("What minimal set of variables makes Demand independent of all the others?", "markov_blanket", ["Market Growth", "Discount", "Revenue", "Satisfaction"]),
    ("Rank the treatments by ATE on Revenue: which is top?", "best_treatment", {"arg": "Tech Support", "value": 11.1}),
    ("Which factors carry the effect of Discount through to Revenue?", "mediators", ["Demand"]),
    ("List the nodes on directed paths from Discount to Revenue, excluding the endpoints.", "mediators", ["Demand"]),
    ("How does Discount reach Revenue — via which variables?", "mediators", ["Demand"]),
    ("is Demand between Discount and Revenue causally?", "on_path", True),
    ("After adjusting for Revenue, are Discount and Tech Support d-separated in the graph?", "d_separated", False),
    ("If you line up all partners by their Tech Support effect, what's the value in the middle?", "summarize", 10.0),
    ("Restricting to already engaged partners, how many favour Tech Support over Discount in terms of effect?", "count_subjects", 2),
    ("For partner P1, how does the effect of Tech Support compare to Discount's? Give me the difference.", "subject_value", 5.0),
    ("Tell me how much more Tech Support lifts partner P1 than Discount does.", "subject_value", 5.0),
    ("On average across partners, what's Tech Support's effect minus Discount's?", "summarize", 3.7),
    ("How much extra impact does Tech Support deliver compared with Discount, on average per partner?", "summarize", 3.7),
    ("Looking at medians, which treatment delivers the biggest impact?", "rank_treatments", [{"arg": "Tech Support", "value": 10.0}]),
    ("Tell me the partner with the largest excess of Discount's effect over Tech Support's.", "rank_subjects", [{"arg": "P2", "value": 20.0}]),
    ("For which partner is the uplift from Discount furthest above the uplift from Tech Support?", "rank_subjects", [{"arg": "P2", "value": 20.0}]),
    ("Show the Discount effect for all partners, one row each.", "subject_values", [{"arg": p, "value": v} for p, v in zip(TABLE["Partner ID"], TABLE["Discount"], strict=True)]),
    ("controls needed for Discount on Revenue?", "adjustment_set", ["Market Growth"]),
    # a tenth writer's wordings (test10, read after its held-out measurement)
    ("Does Discount have a direct arrow into Revenue, an indirect route, both, or no causal effect on Revenue at all?", "effect_kind", "indirect"),
    ("Is Demand part of the mechanism by which Discount influences Revenue?", "on_path", True),
    ("For each partner take the Tech Support effect minus the Discount effect, then average it: what do you get?", "summarize", 3.7),
    ("by how much does Tech Support outperform Discount on average, partner by partner", "summarize", 3.7),
    ("For the board deck, I need the mean difference in individual effects, Tech Support versus Discount, taken over all partners.", "summarize", 3.7),
    ("Identify the partner where the effect of Discount exceeds the effect of Tech Support by the most.", "rank_subjects", [{"arg": "P2", "value": 20.0}]),
    ("For the board deck I need the mechanism: which variables carry Discount's influence through to Revenue?", "mediators", ["Demand"]),
    # a sixth writer's wordings (test6, read after three held-out measurements) and the rest
    # of the tenth's
    ("Does Discount affect Revenue directly or indirectly?", "effect_kind", "indirect"),
    ("MB of Demand pls", "markov_blanket", ["Market Growth", "Discount", "Revenue", "Satisfaction"]),
    ("best case: how big does the Tech Support effect get for the partner who responds most?", "summarize", 30.0),
    ("If you lined up every partner by how much Tech Support moves them, what would the one in the middle get?", "summarize", 10.0),
    ("% of partners where the Discount effect is 10+", "share_subjects", 0.4),
    ("For the account review of partner P1, how does the uplift from Tech Support compare with that from Discount? Give me the difference.", "subject_value", 5.0),
    ("How does Tech Support stack up against Discount on average - what's the mean gap in effect?", "summarize", 3.7),
    ("partner with max (Tech Support - Discount) effect gap", "rank_subjects", [{"arg": "P3", "value": 30.0}]),
    ("Where does Discount have its biggest edge over Tech Support? Which partner?", "rank_subjects", [{"arg": "P2", "value": 20.0}]),
    ("best treatmnet for Revenue on avg?", "best_treatment", {"arg": "Tech Support", "value": 11.1}),
    ("Of everything we could do, what moves Revenue the most on average?", "best_treatment", {"arg": "Tech Support", "value": 11.1}),
    ("Through what does Discount affect Revenue?", "mediators", ["Demand"]),
    ("what sits between Discount and Revenue on the causal paths?", "mediators", ["Demand"]),
    ("How does Discount end up changing Revenue? Name the variables in between.", "mediators", ["Demand"]),
    ("Once Market Growth is held fixed, do Discount and Satisfaction become independent?", "d_separated", True),
    ("For the causal diagram review: is the influence of Discount on Revenue direct, mediated, or a mix of the two?", "effect_kind", "indirect"),
    ("For the dashboard, which metrics get moved by both Discount and Satisfaction?", "common_effects", ["Revenue"]),
    ("Of all the per-partner effects from Discount, which value is the smallest?", "summarize", -10.0),
    ("Tally the rows in the effects table where the Discount column is over 10 (strictly).", "count_subjects", 2),
    ("With a cutoff of 10, how many partners have individual effects of Discount that are higher than that?", "count_subjects", 2),
    ("Share benefiting from Discount, across all partners: what is it?", "share_subjects", 0.8),
    ("Taking 15 as the bar, what percent of partners meet or exceed it with Discount?", "share_subjects", 0.4),
    ("I want the IDs of all partners whose individual treatment effect of Discount is less than zero.", "list_subjects", ["P3"]),
    # "P1" is the table's id here, not "p1" (the first percentile)
    ("For P1, subtract the individual effect of Discount from the individual effect of Tech Support.", "subject_value", 5.0),
    ("what is the p5 of Discount effects?", "summarize", -7.6),
    # the conditioning clause ends at "d-separate" (it ran on and took the pair with it)
    ("does conditioning on Market Growth d-separate Discount and Satisfaction in the graph", "d_separated", True),
    # an eleventh writer's (test11, read after its held-out measurement): "dependence"
    ("Given Market Growth, is there any remaining dependence between Discount and Satisfaction?", "d_connected", False),
    ("Is there no dependence between Discount and Satisfaction given Market Growth?", "d_separated", True),
    # a twelfth writer's (test12, read after its held-out measurement): refused before
    ("By how much, typically, does a partner's Tech Support effect deviate from the average Tech Support effect? (standard deviation please)", "summarize", (809.2 / 4) ** 0.5),
    ("Please report the number of already-engaged partners for which the individual effect of Discount exceeds the individual effect of Tech Support.", "count_subjects", 1),
    ("Please enumerate all partners whose treatment effect of Discount is less than zero.", "list_subjects", ["P3"]),
    ("show Discount effect for all partners pls", "subject_values", [{"arg": s, "value": v} for s, v in zip(["P1", "P2", "P3", "P4", "P5"], [5.0, 15.0, -10.0, 25.0, 2.0])]),
    ("what works best for Revenue on average, across all our partners?", "best_treatment", {"arg": "Tech Support", "value": 11.1}),
    ("For our quarterly review, could you report the median of the per-partner treatment effects of Tech Support, so outliers don't skew the picture?", "summarize", 10.0),
    # a thirteenth writer's (test13, read after its held-out measurement): wrong before
    ("List the variables that are ancestors of both Discount and Revenue.", "common_causes", ["Market Growth"]),
    ("List the variables that are descendants of both Discount and Tech Support.", "common_effects", ["Revenue"]),
    ("is Demand a mediator of Discount on Revenue?", "on_path", True),
    ("is Discount a mediator of Demand on Revenue?", "on_path", False),
    ("Please determine whether Market Growth d-separates Discount from Satisfaction.", "d_separated", True),
    ("Check whether conditioning on Revenue blocks every path between Discount and Tech Support.", "d_separated", False),
    # … and refused before
    ("Please list every partner whose individual effect of Discount is below zero.", "list_subjects", ["P3"]),
    ("Tell me which partner has the highest Tech Support-effect-minus-Discount-effect.", "rank_subjects", [{"arg": "P3", "value": 30.0}]),
    ("Tech Support over Discount: which partner has the biggest advantage?", "rank_subjects", [{"arg": "P3", "value": 30.0}]),
    ("Rank treatments by their mean effect on Revenue across partners and tell me the top one.", "best_treatment", {"arg": "Tech Support", "value": 11.1}),
    ("Demand on a causal path Discount -> Revenue? y/n", "on_path", True),
    ("give me the parents, children and children's co-parents of Discount", "markov_blanket", ["Market Growth", "Demand"]),
]  # fmt: skip


@pytest.mark.parametrize(("question", "tool", "expected"), EXPECTED)
def test_the_issue_examples_answer_correctly(model, question, tool, expected):
    llm = ScriptedLLM(['{"tool": "best_treatment"}'] if tool is None else [])
    answer = Assistant(model, llm).ask(question)
    assert answer.answered, answer.answer
    if isinstance(expected, dict) and "arg" in expected:
        assert answer.result["arg"] == expected["arg"]
        assert answer.result["value"] == pytest.approx(expected["value"])
    elif isinstance(expected, float):
        assert answer.result == pytest.approx(expected)
    else:
        assert answer.result == expected
    if tool is not None:
        assert answer.plan["steps"][0]["tool"] == tool
        assert llm.calls == []  # read from the wording; the check still ran
    assert answer.computed and "check" in answer.step_seconds


MISMATCHED = [
    ("What is the median effect of Tech Support?", "ate", {"treatment": "Tech Support"}, "median"),
    ("What fraction of partners benefit from Discount?", "ate", {"treatment": "Discount"}, "share"),
    ("How many partners have an effect of Discount above 10?", "subjects", {}, "number"),
    ("What confounds the effect of Discount on Revenue?", "ate", {"treatment": "Discount"}, "common causes"),
    ("Are Discount and Tech Support independent given Revenue?", "is_cause", {"cause": "Discount", "effect": "Tech Support"}, "dependence"),
    ("What is the effect of Tech Support on each partner?", "ate", {"treatment": "Tech Support"}, "each subject"),
    # "per partner" is a rate only when an average is asked
    ("Show the effect of Discount per partner.", "ate", {"treatment": "Discount"}, "each subject"),
    ("What is the 90th percentile of Discount's effect?", "summarize", {"value": D, "stat": "median"}, "quantile"),
    ("What is the mode of Discount's effects?", "ate", {"treatment": "Discount"}, "mode"),
    # the result's shape: one subject for a list, a subject for a number
    ("Show me the partners Discount harms.", "best_subject", D, "subjects that match"),
    ("What's the lowest Discount effect anyone gets?", "best_subject", {**D, "lowest": True}, "a number"),
    # the direction of a comparison, and a sign
    ("How many partners have a Tech Support effect > their Discount effect?", "count_subjects",
     {"conditions": [{"value": D, "op": ">", "than": T}]}, "other way round"),
    ("What share of partners see a positive Discount uplift?", "share_subjects",
     {"conditions": [{"value": D, "op": "<", "than": 0}]}, "other way round"),
    # the route named, a third variable on it, a share of two variables
    ("Does Demand sit between Market Growth and Revenue on a causal path?", "on_path",
     {"variable": "Revenue", "source": "Demand", "target": "Market Growth"}, "route"),
    ("Does Discount affect Revenue via Demand?", "is_cause", {"cause": "Discount", "effect": "Revenue"}, "route"),
    ("What do Discount and Tech Support both affect?", "is_cause", {"cause": "Discount", "effect": "Tech Support"}, "share"),
    ("Is Discount's impact on Revenue a direct one, an indirect one, or a mix?", "is_parent",
     {"parent": "Discount", "child": "Revenue"}, "direct, indirect or both"),
    ("List the parents, children and co-parents of Demand.", "parents", {"variable": "Demand"}, "Markov blanket"),
    # words that name a statistic or an intervention without its usual name
    ("What's the middle value of Discount's effect across partners?", "ate", D, "median"),
    ("How wide is the middle half of Discount's effects?", "ate", D, "interquartile"),
    ("Which Discount effect occurs most often?", "best_subject", D, "mode"),
    ("How probable is it that Discount pays off for partner P1?", "ite", {**D, "subject": "P1"}, "probability"),
    ("What is Revenue if Discount is doubled?", "is_cause", {"cause": "Discount", "effect": "Revenue"}, "intervention"),
    ("Discount on Revenue: straight, via others, both, or not at all?", "mediators", {"source": "Discount", "target": "Revenue"}, "direct, indirect or both"),
    ("# partners benefiting from Discount", "best_subject", D, "a count"),
    # who loses, run as who gains most
    ("Who loses out under Discount?", "best_subject", D, "those who lose"),
    ("Which partner is hurt most by Discount?", "top_k_subjects", {**D, "k": 1}, "those who lose"),
    # a statistician's notation
    ("P(Discount helps partner P1)?", "ite", {**D, "subject": "P1"}, "probability"),
    ("What's r between Discount and Revenue?", "paths_between", {"source": "Discount", "target": "Revenue"}, "correlation"),
    ("corr(Demand, Revenue)", "paths_between", {"source": "Demand", "target": "Revenue"}, "correlation"),
    # a Markov blanket, an effect kind, shared causes and an ATE under other words
    ("Which variables screen off Demand from the rest of the graph?", "ancestors", {"variable": "Demand"}, "Markov blanket"),
    ("Does Discount move Revenue directly, or only through other variables?", "is_cause",
     {"cause": "Discount", "effect": "Revenue"}, "direct, indirect or both"),
    ("What jointly drives Discount and Revenue?", "common_effects", {"a": "Discount", "b": "Revenue"}, "common causes"),
    ("What lies upstream of both Discount and Revenue?", "paths_between",
     {"source": "Discount", "target": "Revenue"}, "common causes"),
    ("Order the treatments by their ATE on Revenue; which comes first?", "ancestors", {"variable": "Revenue"}, "an average"),
    ("Classify the effect of Discount on Revenue as direct, indirect, a mix of both, or absent.",
     "is_parent", {"parent": "Discount", "child": "Revenue"}, "direct, indirect or both"),
    # a yes/no question widened to any route, run as a direct edge
    ("Through a direct link or a chain, does Revenue depend causally on Discount?", "is_parent",
     {"parent": "Discount", "child": "Revenue"}, "any route"),
    # "how much each partner gains" asks every partner's effect, not only the gainers'
    ("How much does each partner gain from Discount, one value per partner?", "subject_values",
     {**D, "conditions": [{"value": {"treatment": "Discount"}, "op": ">", "than": 0}]},
     "by the sign of the effect"),
    ("Show me the effect of Discount for each partner.", "subject_values",
     {**D, "conditions": [{"value": {"treatment": "Discount"}, "op": ">", "than": 0}]},
     "by the sign of the effect"),
    # a threshold the question never states, a share it does not ask, a comparison of two
    # treatments where it compares none
    ("Show Discount's uplift for all partners individually.", "subject_values",
     {**D, "conditions": [{"value": D, "op": ">", "than": 0.01}]}, "does not state"),
    ("How many partners would see a gain from Discount?", "count_subjects",
     {"conditions": [{"value": D, "op": "<", "than": 0.01}]}, "does not state"),
    ("tally of partners w/ a positive Discount effect", "share_subjects",
     {"conditions": [{"value": D, "op": ">", "than": 0}]}, "share of subjects"),
    ("For the tech support team, list each partner's gain from Discount.", "subject_values",
     {**T, "conditions": [{"value": T, "op": "<", "than": D}]}, "which the question does not"),
    # the route of an on-path question in other words, and an effect kind "X on Y:"
    ("Is Demand a mediator of Discount's effect on Revenue?", "on_path",
     {"variable": "Revenue", "source": "Demand", "target": "Discount"}, "route"),
    ("Is Demand downstream of Discount and upstream of Revenue?", "on_path",
     {"variable": "Discount", "source": "Demand", "target": "Revenue"}, "route"),
    ("Discount on Revenue: direct or indirect effect?", "effect_kind",
     {"cause": "Revenue", "effect": "Discount"}, "the plan about"),
    # the lowest where nothing low is asked; a sign nobody asked for
    ("Which treatment wins on median impact?", "rank_treatments", {"stat": "median", "lowest": True},
     "picks the lowest"),
    ("Which partner shows the largest excess uplift of Discount over Tech Support?", "rank_subjects",
     {"value": {"difference": ["Discount", "Tech Support"]}, "conditions": [{"value": T, "op": ">", "than": 0}]},
     "sign of an effect"),
    ("Identify the partner where Discount outperforms Tech Support the most.", "rank_subjects",
     {"value": {"difference": ["Discount", "Tech Support"]}, "conditions": [{"value": T, "op": ">", "than": 0}]},
     "sign of an effect"),
    # the direction stated after an opening clause, and by "the regression of Y on X"
    ("In the causal graph, does Discount affect Revenue through a direct edge only, only indirectly through other variables, both, or not at all?",
     "effect_kind", {"cause": "Revenue", "effect": "Discount"}, "the plan about"),
    ("For the regression of Revenue on Discount, which controls do I need to get the causal effect?",
     "adjustment_set", {"treatment": "Revenue", "outcome": "Discount"}, "the plan about"),
    # "is reached from" states the direction; "after adjusting for" is a conditioning set
    ("Revenue is reached from Discount through which variables?", "mediators",
     {"source": "Revenue", "target": "Discount"}, "the plan about"),
    ("After adjusting for Revenue, are Discount and Tech Support d-separated?", "adjustment_set",
     {"treatment": "Discount", "outcome": "Tech Support"}, "(in)dependence"),
    # an effect kind asked as "a direct arrow, an indirect route, both, or none", run as a
    # direct edge; an on-path question whose route is stated as "the mechanism by which"
    ("Does Discount have a direct arrow into Revenue, an indirect route, both, or no causal effect on Revenue at all?",
     "is_parent", {"parent": "Discount", "child": "Revenue"}, "direct, indirect or both"),
    ("Is Demand part of the mechanism by which Discount influences Revenue?", "on_path",
     {"variable": "Revenue", "source": "Demand", "target": "Discount"}, "route"),
    # an on-path plan about a variable the question never names
    ("Is there something in between Discount and Revenue?", "on_path",
     {"variable": "Demand", "source": "Discount", "target": "Revenue"}, "does not name"),
    # "how many percent" asks a share, not a count
    ("how many percent of partners gain from Discount", "count_subjects",
     {"conditions": [{"value": D, "op": ">", "than": 0}]}, "a share of subjects"),
    # the top of one treatment's effects is a number, not who has it
    ("What is the top individual effect of Discount?", "best_subject", D, "a number"),
    ("best case: how big does the Tech Support effect get for the partner who responds most?",
     "best_subject", T, "a number"),
    # "does A affect B directly or indirectly?" asks which; "MB" is the Markov blanket
    ("Does Discount affect Revenue directly or indirectly?", "is_cause",
     {"cause": "Discount", "effect": "Revenue"}, "direct, indirect or both"),
    ("MB of Demand pls", "children", {"variable": "Demand"}, "Markov blanket"),
    # a d-separation plan must condition on what the wording conditions on
    ("Once Market Growth is held fixed, do Discount and Satisfaction become independent?",
     "d_separated", {"a": "Discount", "b": "Market Growth", "given": ["Satisfaction"]},
     "conditions on other variables"),
    ("Are Discount and Tech Support independent given Revenue?", "d_separated",
     {"a": "Discount", "b": "Tech Support", "given": []}, "conditions on other variables"),
    ("Given Market Growth, is there any remaining dependence between Discount and Satisfaction?",
     "on_path", {"variable": "Market Growth", "source": "Discount", "target": "Satisfaction"},
     "(in)dependence"),
    # a path or d-separation test the wording never asks for (an LLM plan for a wording
    # no frame reads): refused, whatever its answer would be
    ("Given Market Growth, would a change in Discount still show up in Satisfaction?",
     "on_path", {"variable": "Market Growth", "source": "Discount", "target": "Satisfaction"},
     "lies on a causal path"),
    ("Does Demand matter for how Discount works on Revenue?", "d_separated",
     {"a": "Discount", "b": "Revenue", "given": ["Demand"]}, "(in)dependence given a set"),
    # test12's wrong answers: an effect kind offered as "a direct link, only through
    # intermediate variables, through both routes, or no effect" (read as the mediators),
    # and a share of gainers run over the losers
    ("I'm trying to understand how Discount influences Revenue. Is it via a direct link, only through intermediate variables, through both routes, or is there no effect?",
     "mediators", {"source": "Discount", "target": "Revenue"}, "direct, indirect or both"),
    ("Please report the share of partners whose individual treatment effect of Discount is strictly positive.",
     "share_subjects", {"conditions": [{"value": D, "op": "<", "than": 0}]}, "the opposite"),
    ("How many partners are hurt by Discount?", "count_subjects",
     {"conditions": [{"value": D, "op": ">", "than": 0}]}, "the opposite"),
    # test13's wrong answers (LLM plans the check let through): the route of "a mediator
    # of A on B" reversed, ancestors run as descendants, the conditioning set of "Z
    # d-separates A from B" swapped, "conditioning on Z blocks every path" run as on-path
    ("is Demand a mediator of Discount on Revenue?", "on_path",
     {"variable": "Discount", "source": "Demand", "target": "Revenue"}, "route"),
    ("List the variables that are ancestors of both Discount and Revenue.", "common_effects",
     {"a": "Discount", "b": "Revenue"}, "common causes"),
    ("Please determine whether Market Growth d-separates Discount from Satisfaction.",
     "d_separated", {"a": "Market Growth", "b": "Discount", "given": ["Satisfaction"]},
     "conditions on other variables"),
    ("Check whether conditioning on Revenue blocks every path between Discount and Tech Support.",
     "on_path", {"variable": "Revenue", "source": "Discount", "target": "Tech Support"},
     "(in)dependence given a set"),
    # on *every* path is not on some path
    ("Does Demand lie on every directed path from Discount to Revenue?", "on_path",
     {"variable": "Demand", "source": "Discount", "target": "Revenue"}, "every path"),
    ("Do all paths from Discount to Revenue go through Demand?", "on_path",
     {"variable": "Demand", "source": "Discount", "target": "Revenue"}, "every path"),
    # a threshold named first and compared with later ("higher than that")
    ("With a cutoff of 10, how many partners have individual effects of Discount that are higher than that?",
     "count_subjects", {"conditions": [{"value": D, "op": ">", "than": 0}]}, "number(s) 10"),
]  # fmt: skip


@pytest.mark.parametrize(("question", "tool", "args", "said"), MISMATCHED)
def test_the_check_refuses_a_plan_that_computes_something_else(model, question, tool, args, said):
    g = ground(question, model)
    found = problems(question, {"steps": [{"tool": tool, "args": args}]}, g, model)
    assert found and any(said in p for p in found), found


def test_the_check_passes_the_right_plan_and_a_paper_plan(model):
    q = "What is the median effect of Tech Support?"
    g = ground(q, model)
    assert problems(q, plan_of(read_frame(q, g, model), g), g, model) == []
    q = "What is the average effect of Tech Support among partners not yet engaged?"
    plan = {
        "steps": [
            {
                "tool": "ate",
                "args": {
                    "treatment": "Tech Support",
                    "where": {"filter": "Already Engaged", "value": False},
                },
            }
        ]
    }
    assert problems(q, plan, ground(q, model), model) == []


@pytest.mark.parametrize(
    "question",
    [
        "What is the median effect of Tech Support?",
        "What is the variance of the effect of Discount?",
        "How many partners gain at least 10 from Discount?",
        "What is the interquartile range of Tech Support's effect?",
        "What's the distance between the first and third quartile of the gain from Discount?",
        "What is the upper quartile minus the lower quartile of Discount's effects?",
        "What is the correlation between Discount and Revenue?",
        "How skewed are the effects of Discount across partners?",
    ],
)
def test_no_shortcut_answers_a_quantity_it_does_not_compute(model, question):
    """Whatever path a plan comes from — the wording's frame, a cue rule, or the LLM
    (here scripted to pick the paper's average) — the answer computes the quantity asked
    or is a refusal."""
    llm = ScriptedLLM(['{"tool": "ate"}'] * 3)
    answer = Assistant(model, llm).ask(question)
    if answer.answered:
        assert problems(question, answer.plan, ground(question, model), model) == []
        assert answer.plan["steps"][0]["tool"] != "ate"
    else:
        assert "I can answer" in answer.answer or "cannot" in answer.answer


def test_unsupported_questions_are_refused_naming_what_can_be_asked(model):
    answer = Assistant(model, ScriptedLLM([])).ask("What is the mode of Discount's effects?")
    assert not answer.answered and answer.result is None
    assert "mode" in answer.answer and "I can answer, for example" in answer.answer
    assert "'Discount'" in answer.answer or "'Tech Support'" in answer.answer


@pytest.mark.parametrize(
    ("tool", "args", "words"),
    [
        (
            "summarize",
            {"value": {"treatment": "Discount"}, "stat": "median"},
            "the median of the effect of 'Discount' over 5 partners",
        ),
        (
            "count_subjects",
            {"conditions": [{"value": {"treatment": "Discount"}, "op": ">", "than": 0}]},
            "the number of the 5 partners that have the effect of 'Discount' above 0",
        ),
        (
            "ite",
            {"treatment": "Discount", "subject": "P2"},
            "the effect of 'Discount' on partner P2",
        ),
        (
            "d_separated",
            {"a": "Discount", "b": "Revenue", "given": ["Demand", "Market Growth"]},
            "whether 'Discount' and 'Revenue' are d-separated given 'Demand', 'Market Growth'",
        ),
        ("d_connected", {"a": "Discount", "b": "Revenue"}, "given nothing"),
        (
            "adjustment_set",
            {"treatment": "Discount", "outcome": "Revenue"},
            "back-door adjustment set for the effect of 'Discount' on 'Revenue'",
        ),
    ],
)
def test_every_answer_says_what_it_computed_in_words(model, tool, args, words):
    from causalqa.qa.verbalise import computation

    text = computation({"steps": [{"tool": tool, "args": args}]}, model)
    assert words in text
    assert f"{tool}(" not in text


RIGHT = [
    ("Show me the partners Discount harms.", "list_subjects",
     {"conditions": [{"value": D, "op": "<", "than": 0}]}),
    ("How many partners have a Tech Support effect > their Discount effect?", "count_subjects",
     {"conditions": [{"value": T, "op": ">", "than": D}]}),
    ("Does Demand sit between Market Growth and Revenue on a causal path?", "on_path",
     {"variable": "Demand", "source": "Market Growth", "target": "Revenue"}),
    ("Does Discount affect Revenue via Demand?", "on_path",
     {"variable": "Demand", "source": "Discount", "target": "Revenue"}),
    ("Which partner gains most from Discount?", "best_subject", D),
    ("Does Discount affect Revenue, directly or indirectly?", "is_cause",
     {"cause": "Discount", "effect": "Revenue"}),
    ("Through a direct link or a chain, does Revenue depend causally on Discount?", "is_cause",
     {"cause": "Discount", "effect": "Revenue"}),
    ("How much does each partner gain from Discount, one value per partner?", "subject_values", D),
    ("How many partners see a lift from Discount?", "count_subjects",
     {"conditions": [{"value": {"treatment": "Discount"}, "op": ">", "than": 0}]}),
    ("How many partners see a lift from Discount, directly or indirectly?", "count_subjects",
     {"conditions": [{"value": {"treatment": "Discount"}, "op": ">", "than": 0}]}),
    # "in the middle" of a path is a mediator, not a median
    ("Which variable sits in the middle between Discount and Revenue?", "mediators",
     {"source": "Discount", "target": "Revenue"}),
    ("How many partners have a Discount effect above 10?", "count_subjects",
     {"conditions": [{"value": D, "op": ">", "than": 10}]}),
    ("What percent of partners gain from Discount?", "share_subjects",
     {"conditions": [{"value": D, "op": ">", "than": 0}]}),
    ("How many partners gain more from Discount than from Tech Support?", "count_subjects",
     {"conditions": [{"value": D, "op": ">", "than": T}]}),
    ("For how many partners is the effect of Discount greater than 0?", "count_subjects",
     {"conditions": [{"value": D, "op": ">", "than": 0}]}),
    ("Rank the partners' Discount effects from lowest to highest: what is the median?", "summarize",
     {"value": D, "stat": "median"}),
]  # fmt: skip


@pytest.mark.parametrize(("question", "tool", "args"), RIGHT)
def test_the_check_passes_the_plan_that_computes_it(model, question, tool, args):
    g = ground(question, model)
    assert problems(question, {"steps": [{"tool": tool, "args": args}]}, g, model) == []


def test_a_graph_frame_is_not_overruled_by_the_learned_check(model, monkeypatch):
    """The wording read by rule (common causes) and the learned check (here trained to
    read common effects) disagree: the answer is a refusal, not the other kind's plan."""
    from causalqa.qa import check as check_module
    from causalqa.qa import sources as sources_module
    from causalqa.qa.intent import IntentModel

    texts = [
        "what sits upstream of both ⟦1⟧ and ⟦2⟧?",
        "which variables lie upstream of both ⟦1⟧ and ⟦2⟧",
        "upstream of both ⟦1⟧ and ⟦2⟧: what is there?",
        "what are the parents of ⟦1⟧?",
        "which variables directly cause ⟦1⟧?",
        "what is the median effect of ⟦1⟧?",
        "what confounds the effect of ⟦1⟧ on ⟦2⟧?",
        "name the confounders of ⟦1⟧ and ⟦2⟧",
    ]
    kinds = ["common_effects"] * 3 + ["paper:parents"] * 2 + ["median"] + ["confounders"] * 2
    wrong = IntentModel(char_min_df=1).fit(texts, kinds)
    monkeypatch.setattr(check_module, "default_model", lambda: wrong)
    monkeypatch.setattr(sources_module, "default_intent_model", lambda: wrong)
    question = "What sits upstream of both Discount and Revenue?"
    answer = Assistant(model, ScriptedLLM([])).ask(question)
    assert not answer.answered, answer.answer
    assert "common effects" in answer.answer


def test_directly_or_indirectly_asks_which_unless_set_off_by_a_comma(model):
    # "does A affect B directly or indirectly?" asks which; "does A affect B, directly or
    # indirectly?" asks whether at all (the paper's yes/no question, planned as before)
    q = "Does Discount affect Revenue directly or indirectly?"
    assert read_frame(q, ground(q, model), model).kind == "effect_kind"
    q = "Does Discount impact Revenue, directly or indirectly?"
    assert read_frame(q, ground(q, model), model) is None
    answer = Assistant(model, ScriptedLLM(['{"tool": "is_cause"}'])).ask(q)
    assert answer.plan["steps"][0]["tool"] == "is_cause" and answer.result is True


@pytest.mark.parametrize(
    ("question", "passes"),
    [
        ("Would Revenue react to an intervention on Discount?", True),
        ("what happens to Revenue if we tweak Discount? does it budge?", True),
        ("Would Revenue double if we doubled Discount?", False),
        ("If we set Discount to 10, would Revenue go up?", False),
    ],
)
def test_whether_a_variable_responds_is_not_the_level_it_reaches(model, question, passes):
    plan = {"steps": [{"tool": "is_cause", "args": {"cause": "Discount", "effect": "Revenue"}}]}
    assert (problems(question, plan, ground(question, model), model) == []) is passes


def test_the_mean_demand_is_read_before_the_each_demand():
    # problems() waives "per partner" as a listing only when the mean demand, read first,
    # found an average asked
    from causalqa.qa.check import DEMANDS

    names = [d.name for d in DEMANDS]
    assert names.index("mean") < names.index("each")
