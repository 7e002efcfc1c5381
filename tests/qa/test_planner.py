import jsonschema
import pytest

from causalqa.llm.grammar import schema_to_gbnf
from causalqa.qa.grounding import ground
from causalqa.qa.planner import Planner, grounded_schema
from causalqa.qa.tools import PAPER_TOOLS, TOOLS


def tools_of(schema):
    return {
        ref["$ref"].split("tool_", 1)[1] for ref in schema["properties"]["steps"]["items"]["anyOf"]
    }


def test_schema_is_narrowed_to_the_question(partners):
    g = ground("Does a change in Price lead to a change in Churn?", partners)
    s = grounded_schema(partners, g)
    assert s["$defs"]["variable"] == {"enum": ["Price", "Churn"]}
    names = tools_of(s)
    assert {"is_cause", "paths_between", "is_parent"} <= names
    # Two variables named: a one-variable tool would drop one of them.
    assert not names & {"parents", "children", "ancestors", "descendants"}
    # Nothing names a treatment or subject, so tools needing one are gone.
    assert "ite" not in names and "ate" not in names
    ok = {"steps": [{"tool": "is_cause", "args": {"cause": "Price", "effect": "Churn"}}]}
    jsonschema.validate(ok, s)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"steps": [{"tool": "is_cause", "args": {"cause": "Demand", "effect": "Churn"}}]}, s
        )
    schema_to_gbnf(s)  # the grammar converter accepts it


def test_filter_becomes_a_required_constant(partners):
    g = ground("Which partner not yet engaged benefits most from Tech Support?", partners)
    s = grounded_schema(partners, g)
    args = s["$defs"]["tool_best_subject"]["properties"]["args"]
    assert args["properties"]["where"] == {"const": {"filter": "Already Engaged", "value": False}}
    assert "where" in args["required"]


def test_two_variable_tools_need_two_variables(partners):
    g = ground("What are the parents of Revenue?", partners)
    names = tools_of(grounded_schema(partners, g))
    assert "parents" in names and "is_cause" not in names and "paths_between" not in names


def test_a_named_subject_must_be_used(partners):
    g = ground("For partner 3, what lift does Tech Support produce?", partners)
    names = tools_of(grounded_schema(partners, g))
    assert "ite" in names and "best_treatment" in names
    assert "ate" not in names and "best_subject" not in names


def test_nothing_grounded_leaves_only_tools_without_names(partners):
    import networkx as nx

    from causalqa.causal_model import CausalModel

    graph_only = CausalModel.from_graph(nx.DiGraph([("A b", "C")]))
    assert tools_of(grounded_schema(graph_only, ground("What is the weather?", graph_only))) == {
        "variables"
    }


def test_prompt_has_a_fixed_prefix(partners):
    from causalqa.llm.testing import ScriptedLLM

    p = Planner(ScriptedLLM())
    m1 = p.messages("Is Price a cause of Churn?", ground("Is Price a cause of Churn?", partners))
    m2 = p.messages(
        "Which partner gains most from Tech Support?",
        ground("Which partner gains most from Tech Support?", partners),
    )
    assert m1[:-1] == m2[:-1]  # only the last turn differs: the KV cache keeps the rest
    assert all(TOOLS[t].signature in m1[0]["content"] for t in PAPER_TOOLS)


def test_two_variables_not_both_treatments_mean_a_graph_question(partners):
    # "Tech Support" is a variable and a treatment; "Churn" only a variable.
    g = ground("How does Tech Support affect Churn?", partners)
    names = tools_of(grounded_schema(partners, g))
    assert "is_cause" in names and not names & {"ate", "best_subject", "compare_treatments"}


@pytest.mark.parametrize(
    "question, offered",
    [
        ("Say, is there some chain of causes from Price to Churn?", {"is_cause", "is_parent"}),
        ("Name what sits on the causal routes from Price to Churn.", {"paths_between"}),
        ("Price and Churn: how are they related?", {"is_cause", "is_parent", "paths_between"}),
    ],
)
def test_answer_type_narrows_the_choice(partners, question, offered):
    import json

    from causalqa.llm.testing import ScriptedLLM

    pick = sorted(offered)[0]
    llm = ScriptedLLM([json.dumps({"tool": pick})])
    plan = Planner(llm).plan(question, partners, ground(question, partners)).plan
    if len(offered) > 1:
        assert set(llm.calls[0]["schema"]["properties"]["tool"]["enum"]) == offered
    else:
        assert not llm.calls  # one tool left: nothing to ask
    assert plan["steps"][0]["tool"] in offered


def test_wording_corrects_direction_scope_and_count(partners):
    import json

    from causalqa.llm.testing import ScriptedLLM

    def planned(question, said):
        llm = ScriptedLLM([json.dumps({"tool": said})])
        return Planner(llm).plan(question, partners, ground(question, partners)).plan["steps"][0]

    # scope: "immediately" makes an ancestors choice a parents call
    assert planned("What feeds immediately into Revenue?", "ancestors")["tool"] == "parents"
    # direction: Revenue is the effect, so children becomes parents
    assert planned("Revenue is shaped directly by what?", "children")["tool"] == "parents"
    # count: no number and a singular noun is one result, not a top-3 list
    assert planned("The single strongest engagement overall?", "top_k_treatments")["tool"] == (
        "best_treatment"
    )
    step = planned("Name the five strongest engagements.", "best_treatment")
    assert step == {"tool": "top_k_treatments", "args": {"k": 5}}
    # order: the cause is read from "by shifting X", not from the order of mention
    step = planned("Can Churn be moved by shifting Price at all?", "is_cause")
    assert step["args"] == {"cause": "Price", "effect": "Churn"}


def test_cues_can_be_switched_off(partners):
    from causalqa.llm.testing import ScriptedLLM

    q = "Say, is there some chain of causes from Price to Churn?"
    llm = ScriptedLLM(['{"tool": "paths_between"}'])
    step = Planner(llm, cues=False).plan(q, partners, ground(q, partners)).plan["steps"][0]
    assert step["tool"] == "paths_between"  # the model's own choice, uncorrected
