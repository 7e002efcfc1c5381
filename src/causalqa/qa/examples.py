"""Worked examples for the planner: questions about a small illustrative model (the
partners/engagements scenario of the paper's Listing 4) with their plans.

They are written by hand, independently of the benchmark's templates and paraphrases,
and show each tool at least once with varied wording. The planner retrieves the ones
nearest to a question (sentence embeddings) or uses a fixed selection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Example:
    question: str
    mentioned: dict[str, Any]
    """What grounding finds in the question (variables, treatments, subjects, where)."""
    plan: dict[str, Any]


def _ex(question: str, tool: str, args: dict[str, Any], **mentioned: Any) -> Example:
    return Example(question, mentioned, {"steps": [{"tool": tool, "args": args}]})


_NOT_ENGAGED = {"filter": "Already Engaged", "value": False}
_ENGAGED = {"filter": "Already Engaged", "value": True}

EXAMPLES: list[Example] = [
    _ex(
        "Is Price a cause of Revenue?",
        "is_cause",
        {"cause": "Price", "effect": "Revenue"},
        variables=["Price", "Revenue"],
    ),
    _ex(
        "Would changing Satisfaction have any impact on Discount?",
        "is_cause",
        {"cause": "Satisfaction", "effect": "Discount"},
        variables=["Satisfaction", "Discount"],
    ),
    _ex(
        "Does Churn depend on Tech Support in any way?",
        "is_cause",
        {"cause": "Tech Support", "effect": "Churn"},
        variables=["Churn", "Tech Support"],
    ),
    _ex(
        "Is Demand a direct cause of Revenue?",
        "is_parent",
        {"parent": "Demand", "child": "Revenue"},
        variables=["Demand", "Revenue"],
    ),
    _ex(
        "List all paths between Price and Churn.",
        "paths_between",
        {"source": "Price", "target": "Churn"},
        variables=["Price", "Churn"],
    ),
    _ex(
        "Via which intermediate variables does Discount act on Satisfaction?",
        "paths_between",
        {"source": "Discount", "target": "Satisfaction"},
        variables=["Discount", "Satisfaction"],
    ),
    _ex(
        "What are the direct causes of Revenue?",
        "parents",
        {"variable": "Revenue"},
        variables=["Revenue"],
    ),
    _ex(
        "Which factors have an immediate effect on Churn?",
        "parents",
        {"variable": "Churn"},
        variables=["Churn"],
    ),
    _ex(
        "What does Demand directly change?",
        "children",
        {"variable": "Demand"},
        variables=["Demand"],
    ),
    _ex(
        "If we adjust Tech Support, what is immediately affected?",
        "children",
        {"variable": "Tech Support"},
        variables=["Tech Support"],
    ),
    _ex(
        "Is Price an ancestor of Satisfaction?",
        "is_cause",
        {"cause": "Price", "effect": "Satisfaction"},
        variables=["Price", "Satisfaction"],
    ),
    _ex(
        "List everything upstream of Satisfaction.",
        "ancestors",
        {"variable": "Satisfaction"},
        variables=["Satisfaction"],
    ),
    _ex(
        "Which variables does Discount influence, directly or indirectly?",
        "descendants",
        {"variable": "Discount"},
        variables=["Discount"],
    ),
    _ex(
        "On average, what's the effect of the engagement Discount?",
        "ate",
        {"treatment": "Discount"},
        treatments=["Discount"],
    ),
    _ex(
        "What uplift can we expect from Tech Support among partners who are already engaged?",
        "ate",
        {"treatment": "Tech Support", "where": _ENGAGED},
        treatments=["Tech Support"],
        where=_ENGAGED,
    ),
    _ex(
        "When applying New Engagement Strategy to partner 2, what's the effect?",
        "ite",
        {"treatment": "New Engagement Strategy", "subject": "2"},
        treatments=["New Engagement Strategy"],
        subjects=["2"],
    ),
    _ex("Which engagement has the highest average effect?", "best_treatment", {}),
    _ex(
        "What should we offer partners that are not engaged yet to grow revenue most?",
        "best_treatment",
        {"where": _NOT_ENGAGED},
        where=_NOT_ENGAGED,
    ),
    _ex(
        "Which treatment works best for partner 7?",
        "best_treatment",
        {"subject": "7"},
        subjects=["7"],
    ),
    _ex(
        "Which partner gains the most from Discount?",
        "best_subject",
        {"treatment": "Discount"},
        treatments=["Discount"],
    ),
    _ex(
        "Among partners not yet engaged, who benefits most from Tech Support?",
        "best_subject",
        {"treatment": "Tech Support", "where": _NOT_ENGAGED},
        treatments=["Tech Support"],
        where=_NOT_ENGAGED,
    ),
    _ex(
        "Who are the top 3 partners for New Engagement Strategy?",
        "top_k_subjects",
        {"treatment": "New Engagement Strategy", "k": 3},
        treatments=["New Engagement Strategy"],
    ),
    _ex(
        "Rank the two best engagements for partner 4.",
        "top_k_treatments",
        {"k": 2, "subject": "4"},
        subjects=["4"],
    ),
    _ex(
        "Is Discount better than Tech Support on average?",
        "compare_treatments",
        {"a": "Discount", "b": "Tech Support"},
        treatments=["Discount", "Tech Support"],
    ),
]
"""The library, in a fixed order."""


_D, _T = {"treatment": "Discount"}, {"treatment": "Tech Support"}

# Worked examples of the query tools beyond the paper's (the open planner's shots).
OPEN_EXAMPLES: list[Example] = [
    _ex(
        "What is the middle value of the per-partner effects of Discount?",
        "summarize",
        {"value": _D, "stat": "median"},
        treatments=["Discount"],
    ),
    _ex(
        "How widely do Tech Support's effects vary across partners?",
        "summarize",
        {"value": _T, "stat": "std"},
        treatments=["Tech Support"],
    ),
    _ex(
        "How many partners would gain over 12 from Discount?",
        "count_subjects",
        {"conditions": [{"value": _D, "op": ">", "than": 12}]},
        treatments=["Discount"],
    ),
    _ex(
        "For what fraction of engaged partners does Tech Support beat Discount?",
        "share_subjects",
        {"where": _ENGAGED, "conditions": [{"value": _T, "op": ">", "than": _D}]},
        treatments=["Tech Support", "Discount"],
        where=_ENGAGED,
    ),
    _ex(
        "On average, how much more does Tech Support give than Discount?",
        "summarize",
        {"value": {"difference": ["Tech Support", "Discount"]}, "stat": "mean"},
        treatments=["Tech Support", "Discount"],
    ),
    _ex(
        "Which engagement has the highest median effect?",
        "rank_treatments",
        {"stat": "median"},
    ),
    _ex(
        "What lies between Price and Churn on the causal routes?",
        "mediators",
        {"source": "Price", "target": "Churn"},
        variables=["Price", "Churn"],
    ),
    _ex(
        "What drives both Demand and Churn?",
        "common_causes",
        {"a": "Demand", "b": "Churn"},
        variables=["Demand", "Churn"],
    ),
    _ex(
        "Once Demand is known, is Price still informative about Revenue?",
        "d_connected",
        {"a": "Price", "b": "Revenue", "given": ["Demand"]},
        variables=["Demand", "Price", "Revenue"],
    ),
    _ex(
        "To estimate Price's effect on Churn, what should I control for?",
        "adjustment_set",
        {"treatment": "Price", "outcome": "Churn"},
        variables=["Price", "Churn"],
    ),
]


def mentioned_text(mentioned: dict[str, Any]) -> str:
    """How grounding results are shown to the planner."""
    parts = []
    for key in ("variables", "treatments", "subjects"):
        if mentioned.get(key):
            parts.append(f"{key}: " + ", ".join(str(x) for x in mentioned[key]))
    where = mentioned.get("where")
    if where:
        parts.append(f"filter: {where['filter']} = {'true' if where['value'] else 'false'}")
    return "; ".join(parts) if parts else "nothing"
