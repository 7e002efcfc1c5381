import jsonschema
import pytest

from causalqa.llm.grammar import schema_to_gbnf
from causalqa.qa.grounding import ground
from causalqa.qa.planner import Planner, grounded_schema
from causalqa.qa.tools import TOOLS


def tools_of(schema):
    return {
        ref["$ref"].split("tool_", 1)[1] for ref in schema["properties"]["steps"]["items"]["anyOf"]
    }


def test_schema_is_narrowed_to_the_question(partners):
    g = ground("Does a change in Price lead to a change in Churn?", partners)
    s = grounded_schema(partners, g)
    assert s["$defs"]["variable"] == {"enum": ["Price", "Churn"]}
    names = tools_of(s)
    assert {"is_cause", "paths_between", "parents"} <= names
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

    from causalqa.knowledge import CausalModel

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
    assert all(t.signature in m1[0]["content"] for t in TOOLS.values())
