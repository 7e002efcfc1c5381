"""The tool API, the plan schema and the executor, checked by hand on small models."""

import doctest
import inspect
import json
import pathlib
import time

import jsonschema
import networkx as nx
import pandas as pd
import pytest

import causalqa.qa.tools as tools_module
from causalqa.causal_model import CausalModel
from causalqa.errors import CausalQAError
from causalqa.llm.grammar import schema_to_gbnf
from causalqa.qa.tools import (
    TOOLS,
    ExecutionResult,
    PlanError,
    ToolError,
    Where,
    ancestors,
    ate,
    available_tools,
    best_subject,
    best_treatment,
    children,
    compare_treatments,
    descendants,
    execute,
    filters,
    is_cause,
    is_parent,
    ite,
    parents,
    paths_between,
    plan_schema,
    subjects,
    top_k_subjects,
    top_k_treatments,
    treatments,
    validate_plan,
    variables,
)

NOT_ENGAGED = {"filter": "Already Engaged", "value": False}
ENGAGED = {"filter": "Already Engaged", "value": True}


def partners(tmp_path=None):
    """The docstring model (Listing 4's scenario), hand-checkable.

    Graph: Price → Demand ← Discount, Demand → Revenue ← Discount,
           Tech Support → Satisfaction → Revenue.
    Table:   id  Tech Support  Discount  New Engagement Strategy  Already Engaged
             1        10          20               30                  True
             2        40          95               60                  False
             3        70          80               90                  True
    Means: TS 40, D 65, NES 60; engaged (1, 3): TS 40, D 50, NES 60.
    """
    graph = nx.DiGraph(
        [
            ("Price", "Demand"),
            ("Discount", "Demand"),
            ("Demand", "Revenue"),
            ("Discount", "Revenue"),
            ("Tech Support", "Satisfaction"),
            ("Satisfaction", "Revenue"),
        ]
    )
    table = pd.DataFrame(
        {
            "Partner ID": [1, 2, 3],
            "Tech Support": [10.0, 40.0, 70.0],
            "Discount": [20.0, 95.0, 80.0],
            "New Engagement Strategy": [30.0, 60.0, 90.0],
            "Already Engaged": [True, False, True],
        }
    )
    return CausalModel.from_graph(graph, table)


@pytest.fixture
def model():
    return partners()


# -- graph tools -------------------------------------------------------------------------


def test_graph_tools(model):
    assert variables(model) == [
        "Price",
        "Demand",
        "Discount",
        "Revenue",
        "Tech Support",
        "Satisfaction",
    ]
    assert parents(model, "Demand") == ["Price", "Discount"]
    assert parents(model, "Revenue") == ["Demand", "Discount", "Satisfaction"]
    assert parents(model, "Price") == []
    assert children(model, "Discount") == ["Demand", "Revenue"]
    assert children(model, "Revenue") == []
    assert ancestors(model, "Revenue") == [
        "Price",
        "Demand",
        "Discount",
        "Tech Support",
        "Satisfaction",
    ]
    assert descendants(model, "Tech Support") == ["Revenue", "Satisfaction"]
    assert descendants(model, "Revenue") == []
    assert is_parent(model, "Discount", "Revenue") and not is_parent(model, "Price", "Revenue")
    assert is_cause(model, "Price", "Revenue") and is_cause(model, "Tech Support", "Revenue")
    assert not is_cause(model, "Revenue", "Price") and not is_cause(model, "Price", "Discount")
    assert not is_cause(model, "Price", "Price")  # acyclic: nothing causes itself


def test_paths_between_small(model):
    r = paths_between(model, "Discount", "Revenue")
    assert r == {
        "variables": ["Demand"],
        "paths": [["Discount", "Revenue"], ["Discount", "Demand", "Revenue"]],
        "count": 2,
        "truncated": False,
    }
    assert paths_between(model, "Tech Support", "Revenue")["variables"] == ["Satisfaction"]
    none = {"variables": [], "paths": [], "count": 0, "truncated": False}
    assert paths_between(model, "Revenue", "Price") == none
    assert paths_between(model, "Price", "Price") == none


def test_paths_between_diamond_order_and_cap():
    # s → a, b, c → t, plus s → t and a → b: paths 1 of length 1, 3 of length 2, 1 of length 3.
    g = nx.DiGraph(
        [
            ("s", "c"),
            ("s", "b"),
            ("s", "a"),
            ("a", "t"),
            ("b", "t"),
            ("c", "t"),
            ("s", "t"),
            ("a", "b"),
            ("x", "t"),
        ]
    )
    m = CausalModel.from_graph(g)  # model order: s, c, b, a, t, x
    r = paths_between(m, "s", "t")
    assert r["paths"] == [
        ["s", "t"],
        ["s", "c", "t"],
        ["s", "b", "t"],
        ["s", "a", "t"],
        ["s", "a", "b", "t"],
    ]
    assert r["variables"] == ["c", "b", "a"] and r["count"] == 5
    capped = paths_between(m, "s", "t", max_paths=2)
    assert capped["paths"] == r["paths"][:2] and capped["truncated"] and capped["count"] == 5
    assert capped["variables"] == r["variables"]  # exact even when the list is capped


def test_paths_between_is_fast_on_a_graph_with_astronomically_many_paths():
    # 40 layers of 5 fully connected nodes: 5**38 source→sink paths.
    g = nx.DiGraph()
    layers = [[f"L{i}-{j}" for j in range(5)] for i in range(40)]
    for a, b in zip(layers, layers[1:], strict=False):
        g.add_edges_from((u, v) for u in a for v in b)
    m = CausalModel.from_graph(g)
    start = time.perf_counter()
    r = paths_between(m, "L0-0", "L39-0")
    assert time.perf_counter() - start < 2
    assert r["count"] == 5**38 and len(r["paths"]) == tools_module.MAX_PATHS and r["truncated"]
    assert r["paths"][0] == ["L0-0"] + [f"L{i}-0" for i in range(1, 40)]
    assert len(r["variables"]) == 38 * 5
    assert all(len(p) == 40 for p in r["paths"])


def test_graph_tools_refuse_unknown_variables_with_a_suggestion(model):
    with pytest.raises(ToolError) as info:
        parents(model, "Prise")
    assert "'Prise' is not a variable" in info.value.message and "'Price'" in info.value.message
    with pytest.raises(ToolError, match="the variables are"):
        is_cause(model, "Price", "zzzzzz")
    with pytest.raises(ToolError, match="did you mean 'Tech Support'"):
        children(model, "tech support")
    with pytest.raises(ToolError):
        descendants(model, 3)
    assert issubclass(ToolError, PlanError) and issubclass(PlanError, CausalQAError)


# -- effect tools ------------------------------------------------------------------------


def test_listing_tools(model):
    assert treatments(model) == ["Tech Support", "Discount", "New Engagement Strategy"]
    assert subjects(model) == ["1", "2", "3"]
    assert filters(model) == ["Already Engaged"]


def test_ate(model):
    assert ate(model, "Tech Support") == 40.0
    assert ate(model, "Discount") == 65.0
    assert ate(model, "Discount", ENGAGED) == 50.0
    assert ate(model, "Discount", NOT_ENGAGED) == 95.0
    assert ate(model, "Discount", Where("Already Engaged", False)) == 95.0
    assert ate(model, "Discount", Where("Already Engaged")) == 50.0


def test_ite(model):
    assert ite(model, "Discount", "2") == 95.0
    assert ite(model, "Discount", 2) == 95.0  # Python callers may pass an int id
    with pytest.raises(ToolError, match="not a subject"):
        ite(model, "Discount", "4")
    with pytest.raises(ToolError, match="did you mean 'Discount'"):
        ite(model, "Discont", "1")


def test_best_treatment(model):
    assert best_treatment(model) == {"arg": "Discount", "value": 65.0}
    assert best_treatment(model, where=ENGAGED) == {"arg": "New Engagement Strategy", "value": 60.0}
    assert best_treatment(model, where=NOT_ENGAGED) == {"arg": "Discount", "value": 95.0}
    assert best_treatment(model, subject="1") == {"arg": "New Engagement Strategy", "value": 30.0}
    assert best_treatment(model, subject="2", where=NOT_ENGAGED) == {
        "arg": "Discount",
        "value": 95.0,
    }
    with pytest.raises(ToolError, match="subject '1' does not have 'Already Engaged' = false"):
        best_treatment(model, subject="1", where=NOT_ENGAGED)


def test_best_subject_and_top_k(model):
    assert best_subject(model, "Tech Support") == {"arg": "3", "value": 70.0}
    assert best_subject(model, "Tech Support", NOT_ENGAGED) == {"arg": "2", "value": 40.0}
    assert best_subject(model, "Discount", ENGAGED) == {"arg": "3", "value": 80.0}
    assert top_k_subjects(model, "Discount", 2) == [
        {"arg": "2", "value": 95.0},
        {"arg": "3", "value": 80.0},
    ]
    assert [r["arg"] for r in top_k_subjects(model, "Discount", 10)] == ["2", "3", "1"]
    assert top_k_subjects(model, "Discount", 1, ENGAGED) == [{"arg": "3", "value": 80.0}]
    assert top_k_treatments(model, 2) == [
        {"arg": "Discount", "value": 65.0},
        {"arg": "New Engagement Strategy", "value": 60.0},
    ]
    assert [r["arg"] for r in top_k_treatments(model, 3, subject="3")] == [
        "New Engagement Strategy",
        "Discount",
        "Tech Support",
    ]
    for bad in (0, -1, True, 1.5, "2"):
        with pytest.raises(ToolError, match="k must be"):
            top_k_subjects(model, "Discount", bad)


def test_ties_go_to_the_first_in_table_order():
    table = pd.DataFrame({"id": ["b", "a", "c"], "T": [5.0, 5.0, 1.0], "U": [5.0, 5.0, 1.0]})
    m = CausalModel.from_graph(nx.DiGraph([("x", "y")]), table)
    assert best_subject(m, "T") == {"arg": "b", "value": 5.0}
    assert [r["arg"] for r in top_k_subjects(m, "T", 3)] == ["b", "a", "c"]
    assert best_treatment(m) == {"arg": "T", "value": 11 / 3}
    assert compare_treatments(m, "T", "U")["arg"] is None  # a tie is said, not broken


def test_compare_treatments(model):
    r = compare_treatments(model, "Tech Support", "Discount")
    assert r == {
        "arg": "Discount",
        "value": 65.0,
        "values": {"Tech Support": 40.0, "Discount": 65.0},
        "difference": -25.0,
    }
    r = compare_treatments(model, "New Engagement Strategy", "Discount", where=ENGAGED)
    assert r["arg"] == "New Engagement Strategy" and r["difference"] == 10.0
    assert compare_treatments(model, "Tech Support", "Discount", subject="1")["values"] == {
        "Tech Support": 10.0,
        "Discount": 20.0,
    }


def test_effect_tool_errors(model):
    with pytest.raises(
        ToolError, match="'Already engaged' is not a filter.*did you mean 'Already Engaged'"
    ):
        ate(model, "Discount", {"filter": "Already engaged", "value": True})
    with pytest.raises(ToolError, match="true or false"):
        ate(model, "Discount", {"filter": "Already Engaged", "value": "no"})
    with pytest.raises(ToolError, match="a where must be"):
        ate(model, "Discount", {"column": "Already Engaged"})
    with pytest.raises(ToolError, match="a where must be"):
        ate(model, "Discount", ("Already Engaged", True))
    with pytest.raises(ToolError, match="'Revenue' is not a treatment"):
        ate(model, "Revenue")
    everyone = pd.DataFrame({"id": [1, 2], "T": [1.0, 2.0], "Already Engaged": [True, True]})
    m = CausalModel.from_graph(nx.DiGraph([("x", "y")]), everyone)
    with pytest.raises(ToolError, match="no subject has 'Already Engaged' = false"):
        ate(m, "T", NOT_ENGAGED)
    no_effects = CausalModel.from_graph(nx.DiGraph([("x", "y")]))
    for call in (
        lambda: treatments(no_effects),
        lambda: ate(no_effects, "T"),
        lambda: best_treatment(no_effects),
    ):
        with pytest.raises(ToolError, match="no effects table"):
            call()
    no_filters = CausalModel.from_graph(nx.DiGraph([("x", "y")]), everyone[["id", "T"]])
    with pytest.raises(ToolError, match="has no filter columns"):
        ate(no_filters, "T", ENGAGED)


def test_odd_names_from_files(tmp_path):
    g = tmp_path / "g.dot"
    g.write_text(
        'digraph { "Größe (m²)" -> "say \\"hi\\", ok?" -> "开销"; "a/b & <c>" -> "开销" }',
        encoding="utf-8",
    )
    e = tmp_path / "effects.csv"
    e.write_text(
        'Kunde,"Rabatt, 10 %",Überweisung,Schon dabei?\nä-1,5,-1,yes\n007,7,2,no\n',
        encoding="utf-8",
    )
    m = CausalModel.load(g, e)
    assert ancestors(m, "开销") == ["Größe (m²)", 'say "hi", ok?', "a/b & <c>"]
    assert paths_between(m, "Größe (m²)", "开销")["variables"] == ['say "hi", ok?']
    assert treatments(m) == ["Rabatt, 10 %", "Überweisung"]
    assert best_subject(m, "Rabatt, 10 %") == {"arg": "007", "value": 7.0}
    assert ite(m, "Überweisung", "ä-1") == -1.0
    assert best_treatment(m, where={"filter": "Schon dabei?", "value": True}) == {
        "arg": "Rabatt, 10 %",
        "value": 5.0,
    }
    plan = {"steps": [{"tool": "is_cause", "args": {"cause": "a/b & <c>", "effect": "开销"}}]}
    assert execute(json.dumps(plan, ensure_ascii=False), m).result is True
    schema_to_gbnf(plan_schema(m))


# -- registry ----------------------------------------------------------------------------

KINDS = {
    "variable", "treatment", "subject", "filter", "where", "bool", "int", "number", "stat",
    "value", "conditions", "variables",
}  # fmt: skip


def test_registry_matches_the_functions():
    assert {
        "variables",
        "parents",
        "children",
        "ancestors",
        "descendants",
        "paths_between",
        "is_cause",
        "treatments",
        "subjects",
        "filters",
        "ate",
        "ite",
        "best_treatment",
        "best_subject",
        "top_k_subjects",
        "top_k_treatments",
        "compare_treatments",
    } <= set(TOOLS)
    for name, tool in TOOLS.items():
        assert tool.name == name and tool.func.__name__ == name
        assert tool.description and "\n" not in tool.description
        assert tool.func.__doc__ and ">>>" in tool.func.__doc__
        sig = inspect.signature(tool.func)
        params = [
            p for p in sig.parameters.values() if p.name != "model" and p.kind is not p.KEYWORD_ONLY
        ]
        assert [p.name for p in params] == [p.name for p in tool.params], name
        for p, fp in zip(tool.params, params, strict=True):
            assert p.kind in KINDS
            assert p.required == (fp.default is inspect.Parameter.empty), (name, p.name)
    assert TOOLS["ate"].signature == "ate(treatment, where?)"


def test_available_tools(model):
    graph_only = CausalModel.from_graph(nx.DiGraph([("x", "y")]))
    assert [t.name for t in available_tools(graph_only)] == [
        t.name for t in TOOLS.values() if not t.needs_effects
    ]
    assert len(available_tools(model)) == len(TOOLS)
    assert [t.name for t in available_tools(model, ["ate", "parents"])] == ["parents", "ate"]
    with pytest.raises(PlanError, match="unknown tools"):
        available_tools(model, ["get_parents"])


# -- plan schema -------------------------------------------------------------------------

ALLOWED = {
    "type",
    "properties",
    "required",
    "enum",
    "const",
    "items",
    "minItems",
    "maxItems",
    "anyOf",
    "$defs",
    "$ref",
    "additionalProperties",
}


def keywords(schema, found=None):
    found = set() if found is None else found
    if isinstance(schema, dict):
        for k, v in schema.items():
            found.add(k)
            if k == "properties":
                for sub in v.values():
                    keywords(sub, found)
            elif k == "$defs":
                for sub in v.values():
                    keywords(sub, found)
            elif k in ("items", "additionalProperties"):
                keywords(v, found)
            elif k == "anyOf":
                for sub in v:
                    keywords(sub, found)
    return found


def valid(schema, plan):
    return jsonschema.Draft202012Validator(schema).is_valid(plan)


def step(tool, **args):
    return {"tool": tool, "args": args}


def test_plan_schema_is_valid_and_uses_only_supported_keywords(model):
    schema = plan_schema(model)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert keywords(schema) <= ALLOWED
    assert schema["properties"]["steps"]["maxItems"] == tools_module.MAX_STEPS
    assert schema["$defs"]["variable"] == {"enum": variables(model)}
    assert schema["$defs"]["subject"] == {"enum": ["1", "2", "3"]}
    grammar = schema_to_gbnf(schema)
    assert '"\\"New Engagement Strategy\\""' in grammar


def test_plan_schema_accepts_valid_plans_and_rejects_nonexistent_names(model):
    s = plan_schema(model)
    assert valid(s, {"steps": [step("parents", variable="Demand")]})
    assert valid(s, {"steps": [step("variables")]})
    assert valid(s, {"steps": [step("best_subject", treatment="Discount", where=NOT_ENGAGED)]})
    assert valid(
        s,
        {"steps": [step("top_k_treatments", k=2, subject="3"), step("ate", treatment="Discount")]},
    )
    rejected = [
        {"steps": [step("parents", variable="Demandd")]},  # a variable that does not exist
        {"steps": [step("parents", variable="Tech Support ")]},
        {"steps": [step("ite", treatment="Revenue", subject="1")]},  # a variable, not a treatment
        {"steps": [step("ite", treatment="Discount", subject="4")]},
        {"steps": [step("ite", treatment="Discount", subject=1)]},  # ids are strings
        {"steps": [step("ate", treatment="Discount", where={"filter": "Churned", "value": True})]},
        {
            "steps": [
                step(
                    "ate", treatment="Discount", where={"filter": "Already Engaged", "value": "no"}
                )
            ]
        },
        {"steps": [step("get_parents", variable="Demand")]},
        {"steps": [step("parents", node="Demand")]},
        {"steps": [step("parents")]},
        {"steps": [step("parents", variable="Demand", extra=1)]},
        {"steps": [step("top_k_subjects", treatment="Discount", k="2")]},
        {"steps": []},
        {"steps": [step("variables")] * 5},
        {"steps": [step("variables")], "answer": "x"},
        [step("variables")],
    ]
    for plan in rejected:
        assert not valid(s, plan), plan


def test_plan_schema_adapts_to_the_model():
    graph_only = CausalModel.from_graph(nx.DiGraph([("x", "y")]))
    s = plan_schema(graph_only, max_steps=2)
    assert set(s["$defs"]) == {"variable", "variables"} | {
        f"tool_{t.name}" for t in available_tools(graph_only)
    }
    assert not valid(s, {"steps": [step("ate", treatment="x")]})
    assert s["properties"]["steps"]["maxItems"] == 2
    schema_to_gbnf(s)

    no_filters = CausalModel.from_graph(
        nx.DiGraph([("x", "y")]), pd.DataFrame({"id": [1], "T": [1.0]})
    )
    s = plan_schema(no_filters)
    assert "where" not in s["$defs"] and "filter" not in s["$defs"]
    assert valid(s, {"steps": [step("ate", treatment="T")]})
    assert not valid(
        s, {"steps": [step("ate", treatment="T", where={"filter": "x", "value": True})]}
    )
    schema_to_gbnf(s)

    only = plan_schema(partners(), tools=["ate"])
    assert list(only["$defs"]) == ["tool_ate", "where", "treatment", "filter"]
    with pytest.raises(PlanError, match="none of the requested tools"):
        plan_schema(graph_only, tools=["ate"])


def test_plan_schema_stays_compact_for_big_models():
    g = nx.gnp_random_graph(1000, 0.002, seed=1, directed=True)
    dag = nx.DiGraph([(u, v) for u, v in g.edges() if u < v])
    dag.add_nodes_from(range(1000))
    table = pd.DataFrame({"id": [f"subject {i}" for i in range(10_000)]})
    for t in range(40):
        table[f"treatment {t}"] = float(t)
    table["Already Engaged"] = [i % 2 == 0 for i in range(10_000)]
    m = CausalModel.from_graph(dag, table)
    text = json.dumps(plan_schema(m))
    assert text.count('"subject 9999"') == 1 and text.count('"treatment 39"') == 1
    assert text.count('"999"') == 1
    grammar = schema_to_gbnf(plan_schema(m))
    assert grammar.count('"\\"subject 9999\\""') == 1


# -- executor ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "plan_steps, expected",
    [
        ([step("is_cause", cause="Price", effect="Revenue")], True),
        ([step("is_parent", parent="Price", child="Revenue")], False),
        ([step("parents", variable="Demand")], ["Price", "Discount"]),
        ([step("children", variable="Discount")], ["Demand", "Revenue"]),
        ([step("ancestors", variable="Satisfaction")], ["Tech Support"]),
        ([step("descendants", variable="Price")], ["Demand", "Revenue"]),
        (
            [step("variables")],
            ["Price", "Demand", "Discount", "Revenue", "Tech Support", "Satisfaction"],
        ),
        ([step("treatments")], ["Tech Support", "Discount", "New Engagement Strategy"]),
        ([step("subjects")], ["1", "2", "3"]),
        ([step("filters")], ["Already Engaged"]),
        ([step("ate", treatment="Tech Support")], 40.0),
        ([step("ite", treatment="New Engagement Strategy", subject="2")], 60.0),
        ([step("best_treatment")], {"arg": "Discount", "value": 65.0}),
        ([step("best_treatment", subject="3")], {"arg": "New Engagement Strategy", "value": 90.0}),
        (
            [step("best_subject", treatment="Tech Support", where=NOT_ENGAGED)],
            {"arg": "2", "value": 40.0},
        ),
        ([step("top_k_subjects", treatment="Tech Support", k=1)], [{"arg": "3", "value": 70.0}]),
        (
            [step("top_k_treatments", k=1, where=ENGAGED)],
            [{"arg": "New Engagement Strategy", "value": 60.0}],
        ),
        (
            [step("compare_treatments", a="Discount", b="Tech Support", subject="1")],
            {
                "arg": "Discount",
                "value": 20.0,
                "values": {"Discount": 20.0, "Tech Support": 10.0},
                "difference": 10.0,
            },
        ),
    ],
)
def test_execute_gives_the_hand_checked_result(model, plan_steps, expected):
    result = execute({"steps": plan_steps}, model)
    assert isinstance(result, ExecutionResult)
    assert result.result == expected
    assert type(result.result) is type(expected)


def test_execute_paths_and_multi_step_plans(model):
    r = execute({"steps": [step("paths_between", source="Price", target="Revenue")]}, model)
    assert r.result["variables"] == ["Demand"] and r.result["paths"] == [
        ["Price", "Demand", "Revenue"]
    ]
    plan = {
        "steps": [
            step("ate", treatment="Discount"),
            step("ate", treatment="Discount", where=NOT_ENGAGED),
        ]
    }
    r = execute(plan, model)
    assert [s.result for s in r.steps] == [65.0, 95.0] and r.result == 95.0
    assert [s.tool for s in r.steps] == ["ate", "ate"]
    assert r.steps[1].args == {"treatment": "Discount", "where": NOT_ENGAGED}
    dumped = json.loads(r.model_dump_json())
    assert dumped["result"] == 95.0 and dumped["steps"][0]["tool"] == "ate"


def test_execute_accepts_json_text(model):
    text = '{"steps": [{"tool": "best_subject", "args": {"treatment": "Discount"}}]}'
    assert execute(text, model).result == {"arg": "2", "value": 95.0}
    assert validate_plan(text, model) == json.loads(text)


def plan_error(model, plan):
    with pytest.raises(PlanError) as info:
        execute(plan, model)
    assert info.value.hint
    return info.value.message


def test_execute_errors_are_clear_enough_to_repair_from(model):
    msg = plan_error(model, {"steps": [step("parents", variable="Prise")]})
    assert (
        "step 1 (parents(variable))" in msg
        and "'Prise' is not a variable" in msg
        and "'Price'" in msg
    )
    msg = plan_error(model, {"steps": [step("variables"), step("get_parents", variable="Demand")]})
    assert (
        "step 2" in msg and "unknown tool 'get_parents'" in msg and "did you mean 'parents'" in msg
    )
    msg = plan_error(model, {"steps": [step("ite", treatment="Discount")]})
    assert "missing argument 'subject'" in msg and "ite(treatment, subject)" in msg
    msg = plan_error(model, {"steps": [step("parents", node="Demand")]})
    assert "unexpected argument 'node'" in msg
    msg = plan_error(model, {"steps": [step("ite", treatment="Discount", subject=2)]})
    assert "argument 'subject'" in msg and "did you mean '2'" in msg
    msg = plan_error(model, {"steps": [step("top_k_subjects", treatment="Discount", k="2")]})
    assert "argument 'k'" in msg and "whole number" in msg
    msg = plan_error(
        model, {"steps": [step("ate", treatment="Discount", where={"filter": "Already Engaged"})]}
    )
    assert "argument 'where'" in msg
    msg = plan_error(model, {"steps": [step("variables")] * 5})
    assert "5 steps" in msg and "at most 4" in msg
    assert "non-empty" in plan_error(model, {"steps": []})
    assert "a plan is" in plan_error(model, [step("variables")])
    assert "unexpected keys" in plan_error(model, {"steps": [step("variables")], "answer": 1})
    assert "step 1 must be" in plan_error(model, {"steps": [{"tool": "variables"}]})
    assert "args must be an object" in plan_error(
        model, {"steps": [{"tool": "variables", "args": []}]}
    )
    assert "not valid JSON" in plan_error(model, '{"steps": [')
    graph_only = CausalModel.from_graph(nx.DiGraph([("x", "y")]))
    assert "needs an effects table" in plan_error(
        graph_only, {"steps": [step("ate", treatment="x")]}
    )


def test_execute_reports_runtime_failures_with_the_step(model):
    everyone = pd.DataFrame({"id": [1, 2], "T": [1.0, 2.0], "Already Engaged": [True, True]})
    m = CausalModel.from_graph(nx.DiGraph([("x", "y")]), everyone)
    msg = plan_error(
        m, {"steps": [step("variables"), step("best_subject", treatment="T", where=NOT_ENGAGED)]}
    )
    assert msg.startswith(
        "step 2 (best_subject(treatment, where?, lowest?)): "
        "no subject has 'Already Engaged' = false"
    )
    msg = plan_error(m, {"steps": [step("top_k_subjects", treatment="T", k=0)]})
    assert "k must be" in msg
    msg = plan_error(model, {"steps": [step("best_treatment", subject="1", where=NOT_ENGAGED)]})
    assert "does not have 'Already Engaged' = false" in msg


def test_no_eval_or_exec_anywhere():
    source = pathlib.Path(tools_module.__file__).read_text(encoding="utf-8")
    for word in ("eval(", "exec(", "getattr(", "__import__", "globals("):
        assert word not in source


def test_docstring_examples_run():
    result = doctest.testmod(tools_module, extraglobs={"model": partners()})
    assert result.attempted > 20 and result.failed == 0


def test_lowest_reverses_every_best_of_tool(partners):
    from causalqa.qa import tools

    assert tools.best_subject(partners, "Tech Support", lowest=True) == {"arg": "4", "value": -5.0}
    assert tools.best_treatment(partners, subject="4", lowest=True)["arg"] == "Tech Support"
    low = tools.top_k_subjects(partners, "Discount (%)", 2, lowest=True)
    assert [r["arg"] for r in low] == ["4", "1"]
    assert tools.top_k_treatments(partners, 1, lowest=True)[0]["arg"] == "Tech Support"
    with pytest.raises(tools.ToolError):
        tools.best_subject(partners, "Tech Support", lowest="yes")
