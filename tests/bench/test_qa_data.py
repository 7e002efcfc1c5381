"""The QA benchmark data: generator, questions and their ground truth, paraphrases,
graders and the paper's numbers."""

import doctest
import itertools
import math
import re
import string

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import causalqa.bench.qa_data as qa_data
from causalqa.bench.qa_data import (
    ENGAGED,
    TEMPLATES,
    QAItem,
    generate_model,
    generate_questions,
    grade_exact,
    judge_prompt,
    normalize_result,
    paper_tables,
    paraphrase_set,
    paraphrase_sets,
    parse_judge,
)
from causalqa.bench.wordings import wording_sets
from causalqa.causal_model import CausalModel
from causalqa.errors import CausalQAError, ConfigError
from causalqa.qa.tools import execute

PARAPHRASES = paraphrase_set("a")


@pytest.fixture(scope="module")
def big_graph():
    """1,000 variables at the paper's p = 0.2 (about 100,000 edges)."""
    return generate_model(1000, 3, 10, seed=11)


# -- the generator -------------------------------------------------------------------------


def test_graph_is_a_dag_with_edge_density_p(big_graph):
    g = big_graph.graph
    n = g.number_of_nodes()
    assert n == 1000 and nx.is_directed_acyclic_graph(g)
    density = g.number_of_edges() / (n * (n - 1) / 2)
    # Binomial over 499,500 pairs: the standard error is 0.0006.
    assert abs(density - 0.2) < 0.003

    sparse = generate_model(300, 2, 5, p=0.05, seed=2).graph
    assert nx.is_directed_acyclic_graph(sparse)
    assert abs(sparse.number_of_edges() / (300 * 299 / 2) - 0.05) < 0.006
    assert generate_model(30, 2, 5, p=0.0, seed=2).graph.number_of_edges() == 0
    full = generate_model(30, 2, 5, p=1.0, seed=2).graph
    assert full.number_of_edges() == 30 * 29 // 2 and nx.is_directed_acyclic_graph(full)


def test_file_order_is_not_the_topological_order():
    g = generate_model(40, 2, 5, seed=4).graph
    pos = {v: i for i, v in enumerate(g.nodes)}
    backwards = sum(pos[u] > pos[v] for u, v in g.edges)
    assert 0 < backwards < g.number_of_edges()


def test_names_unique_readable_and_varied_at_1000_nodes(big_graph):
    names = big_graph.variables
    assert len(set(names)) == 1000
    for name in names:
        assert name == name.strip() and "  " not in name and "," not in name
        assert re.search(r"[A-Za-z]{3}", name), name
    assert any(" " in n for n in names)
    assert any(re.search(r"[()%&/-]", n) for n in names)
    assert any(not n.isascii() for n in names)
    # Small models use plain base names only.
    small = generate_model(20, 5, 10, seed=1)
    assert set(small.variables) <= set(qa_data.BASE_VARIABLES)
    # Treatments too scale past their word list, uniquely.
    many = generate_model(3, 120, 5, seed=1).treatments
    assert len(set(many)) == 120


def test_effects_table_shape_and_distribution():
    m = generate_model(5, 5, 10_000, seed=7)
    eff = m.effects
    assert m.subject_column == "Partner ID"
    assert m.subjects[:3] == ["1", "2", "3"] and m.subjects[-1] == "10000"
    assert m.filters == [ENGAGED] and len(m.treatments) == 5
    assert list(eff.columns) == [*m.treatments, ENGAGED]  # id first, filter last
    values = eff[m.treatments].to_numpy()
    # e = 100·ε − 30 over 50,000 draws: standard errors 0.45 (mean) and 0.32 (std).
    assert abs(values.mean() + 30) < 2.0
    assert abs(values.std() - 100) < 2.0
    assert np.allclose(values, values.round(2))
    assert 0.45 < eff[ENGAGED].mean() < 0.55
    # Graph and table are separate artefacts: treatments need not be variables.
    assert m.treatments != m.variables


def test_already_engaged_always_has_a_false_and_a_true():
    for seed in range(200):
        flags = generate_model(2, 1, 2, seed=seed).effects[ENGAGED]
        assert flags.any() and not flags.all()
    assert not generate_model(2, 1, 1, seed=0).effects[ENGAGED].any()


def test_generated_model_survives_a_save_and_load_round_trip(tmp_path):
    m = generate_model(12, 4, 10, seed=3)
    m.save(tmp_path)
    back = CausalModel.load(tmp_path / "graph.graphml", tmp_path / "effects.csv")
    assert back.variables == m.variables and set(back.graph.edges) == set(m.graph.edges)
    assert back.treatments == m.treatments and back.filters == [ENGAGED]
    pd.testing.assert_frame_equal(back.effects, m.effects)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_nodes": 0, "n_treatments": 1, "n_subjects": 1},
        {"n_nodes": 3, "n_treatments": 0, "n_subjects": 1},
        {"n_nodes": 3, "n_treatments": 1, "n_subjects": 2.5},
        {"n_nodes": 3, "n_treatments": 1, "n_subjects": 1, "p": 1.5},
        {"n_nodes": 3, "n_treatments": 1, "n_subjects": 1, "p": True},
    ],
)
def test_bad_sizes_raise_a_config_error(kwargs):
    with pytest.raises(ConfigError) as e:
        generate_model(**kwargs, seed=0)
    assert isinstance(e.value, CausalQAError) and e.value.hint


def test_determinism():
    a, b = generate_model(20, 5, 30, seed=5), generate_model(20, 5, 30, seed=5)
    assert a.variables == b.variables and list(a.graph.edges) == list(b.graph.edges)
    pd.testing.assert_frame_equal(a.effects, b.effects)
    qa = [i.to_dict() for i in generate_questions(a, n_per_template=4, seed=9)]
    qb = [i.to_dict() for i in generate_questions(b, n_per_template=4, seed=9)]
    assert qa == qb
    pa = generate_questions(a, n_per_template=4, seed=9, paraphrased=True)
    assert [i.to_dict() for i in pa] == [
        i.to_dict() for i in generate_questions(b, n_per_template=4, seed=9, paraphrased=True)
    ]
    c = generate_model(20, 5, 30, seed=6)
    assert c.variables != a.variables or list(c.graph.edges) != list(a.graph.edges)
    assert [i.to_dict() for i in generate_questions(a, n_per_template=4, seed=10)] != qa


# -- questions and their ground truth ------------------------------------------------------


def _check_items(model, items, n, templates=tuple(TEMPLATES)):
    assert len({i.id for i in items}) == len(items)
    for item in items:
        assert isinstance(item, QAItem)
        tpl = TEMPLATES[item.template]
        assert item.family == tpl.family
        assert item.question and item.ideal
        for value in item.slots.values():
            assert value in item.question
        run = execute({"steps": item.plan}, model)
        got = normalize_result(run.result)
        assert grade_exact(item.expected, run), (item, got)
        if isinstance(item.expected, bool | list):
            assert got == item.expected  # names in model order, exactly
        elif isinstance(item.expected, dict):
            assert got["arg"] == item.expected["arg"]
            assert math.isclose(got["value"], item.expected["value"], rel_tol=1e-9, abs_tol=1e-9)
        else:
            assert math.isclose(got, item.expected, rel_tol=1e-9, abs_tol=1e-9)
    counts = {t: sum(i.template == t for i in items) for t in templates}
    for t, c in counts.items():
        assert 1 <= c <= n, (t, c)


@pytest.mark.parametrize("n_nodes", [5, 10, 20, 40])
def test_graph_questions_execute_to_their_expected_result(n_nodes):
    for seed in range(3):
        model = generate_model(n_nodes, 5, 10, seed=seed)
        items = generate_questions(model, n_per_template=6, seed=seed)
        _check_items(model, items, 6)
        g = model.graph
        conn = [i for i in items if i.template == "connectivity"]
        yes = sum(i.expected for i in conn)
        no = len(conn) - yes
        n_conn = sum(len(nx.descendants(g, v)) for v in g)
        n_unconn = n_nodes * (n_nodes - 1) - n_conn
        # Balanced, unless the graph runs out of one kind of pair.
        assert abs(yes - no) <= 1 or yes == n_conn or no == n_unconn
        assert conn[0].expected is (n_conn > 0)
        paths = [i for i in items if i.template == "paths"]
        joined = [nx.has_path(g, i.slots["X"], i.slots["Y"]) for i in paths]
        assert sum(joined) == min(len(paths), n_conn)  # pairs with a path first
        assert joined == sorted(joined, reverse=True)


@pytest.mark.parametrize("n_t", [5, 10, 20, 40])
def test_effect_questions_execute_to_their_expected_result(n_t):
    for n_s in (10, 30, 100):
        model = generate_model(5, n_t, n_s, seed=n_t + n_s)
        items = generate_questions(model, n_per_template=4, seed=1)
        _check_items(model, items, 4)
        eff = model.effects
        for item in items:
            if item.template.endswith("_not_engaged"):
                assert item.plan[0]["args"]["where"] == {"filter": ENGAGED, "value": False}
            if item.template == "best_subject_not_engaged":
                assert not eff.loc[item.expected["arg"], ENGAGED]


def test_large_models_also_execute(big_graph):
    items = generate_questions(
        big_graph, n_per_template=3, seed=2, templates=qa_data.GRAPH_TEMPLATES
    )
    _check_items(big_graph, items, 3, qa_data.GRAPH_TEMPLATES)
    assert {i.expected for i in items if i.template == "connectivity"} == {True, False}


def test_worked_example_by_hand():
    graph = nx.DiGraph([("Price", "Demand"), ("Demand", "Revenue"), ("Discount", "Revenue")])
    table = pd.DataFrame(
        {
            "Partner ID": ["1", "2", "3"],
            "Tech Support": [10.0, 40.0, 70.0],
            "Discount": [20.0, 95.0, 80.0],
            ENGAGED: [True, False, True],
        }
    )
    model = CausalModel.from_graph(graph, table)
    items = {
        (i.template, tuple(i.slots.values())): i
        for i in generate_questions(model, n_per_template=20, seed=0)
    }
    assert items["paths", ("Price", "Revenue")].expected == ["Demand"]
    assert items["paths", ("Price", "Revenue")].ideal == (
        "Price influences Revenue through Demand."
    )
    assert items["connectivity", ("Revenue", "Price")].expected is False
    assert items["parents", ("Revenue",)].expected == ["Demand", "Discount"]
    assert items["parents", ("Revenue",)].ideal == "Demand and Discount directly influence Revenue."
    assert (
        items["children", ("Revenue",)].ideal
        == "Revenue does not directly influence any variables."
    )
    assert items["best_treatment", ()].expected == {"arg": "Discount", "value": 65.0}
    assert items["best_treatment_not_engaged", ()].expected == {"arg": "Discount", "value": 95.0}
    assert items["best_subject_not_engaged", ("Tech Support",)].expected == {
        "arg": "2",
        "value": 40.0,
    }
    assert items["ite", ("Discount", "3")].expected == 80.0
    assert items["ate", ("Tech Support",)].question == (
        'What\'s the average effect of the engagement "Tech Support"?'
    )
    assert items["best_treatment_for_subject", ("1",)].question == (
        "Which engagement has the highest effect on partner 1?"
    )


def test_models_without_effects_or_filter_get_only_what_they_can_answer():
    g = generate_model(8, 2, 5, seed=0).graph
    only_graph = generate_questions(CausalModel.from_graph(g), n_per_template=2, seed=0)
    assert {i.family for i in only_graph} == {"graph"}
    table = pd.DataFrame({"Patient ID": ["a", "b"], "Flu Vaccine": [1.5, -2.0]})
    items = generate_questions(CausalModel.from_graph(g, table), n_per_template=2, seed=0)
    assert not any(i.template.endswith("_not_engaged") for i in items)
    assert any("patient b" in i.question or "patient a" in i.question for i in items)
    one = generate_questions(
        CausalModel.from_graph(nx.DiGraph([("A", "B")])), n_per_template=3, seed=0
    )
    assert [i.expected for i in one if i.template == "connectivity"] == [True, False]
    with pytest.raises(ConfigError):
        generate_questions(CausalModel.from_graph(g), n_per_template=2, seed=0, templates=["nope"])
    with pytest.raises(ConfigError):
        generate_questions(CausalModel.from_graph(g), n_per_template=0, seed=0)


def test_templates_subset_gives_the_same_items():
    model = generate_model(10, 5, 10, seed=3)
    every = generate_questions(model, n_per_template=3, seed=4)
    some = generate_questions(model, n_per_template=3, seed=4, templates=["ite", "paths"])
    assert [i.to_dict() for i in some] == [
        i.to_dict() for i in every if i.template in ("ite", "paths")
    ]


# -- paraphrases ---------------------------------------------------------------------------


def _grams(text, n=4):
    words = re.findall(r"\{\w+\}|[\w']+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_paraphrases_are_independent_of_the_templates():
    assert set(PARAPHRASES) == set(TEMPLATES)
    template_grams = set().union(*(_grams(t.text) for t in TEMPLATES.values()))
    template_texts = [t.text.lower().rstrip("?") for t in TEMPLATES.values()]
    for tid, paras in PARAPHRASES.items():
        assert len(paras) >= 5 and len(set(paras)) == len(paras), tid
        needed = set(TEMPLATES[tid].slots)
        for text in paras:
            fields = set(re.findall(r"\{(\w+)\}", text))
            assert needed <= fields <= needed | {"unit", "Unit"}, text
            assert text.lower().rstrip("?") not in template_texts
            assert not any(t in text.lower() for t in template_texts), text
            shared = _grams(text) & template_grams
            assert not shared, (text, shared)


@pytest.mark.parametrize("name", paraphrase_sets())
def test_every_paraphrase_set_words_every_template_with_exactly_its_slots(name):
    wordings = paraphrase_set(name)
    for tid, texts in wordings.items():
        assert texts, tid
        needed = set(TEMPLATES[tid].slots)
        for i, text in enumerate(texts):
            fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            # the wording itself is not printed: held-out sets stay unread
            assert needed <= fields <= needed | {"unit", "Unit"}, f"{name}/{tid}[{i}]"


def test_the_paraphrase_sets_and_which_are_held_out():
    assert paraphrase_sets() == [
        "a",
        "dev",
        "dev2",
        "dev3",
        "dev4",
        "dev5",
        "test",
        "test2",
        "test3",
    ]
    assert wording_sets("paraphrase", status="held-out") == ["a", "test", "test2", "test3"]


def test_an_unknown_paraphrase_set_is_a_clear_error():
    model = generate_model(5, 2, 4, seed=0)
    with pytest.raises(ConfigError, match="unknown paraphrase wording set 'dev9'") as e:
        generate_questions(model, n_per_template=1, seed=0, paraphrased="dev9")
    assert "dev5" in e.value.hint


def test_paraphrased_items_match_template_items():
    model = generate_model(10, 5, 30, seed=2)
    plain = generate_questions(model, n_per_template=5, seed=2)
    para = generate_questions(model, n_per_template=5, seed=2, paraphrased=True)
    assert [i.id for i in para] == [i.id for i in plain]
    for a, b in zip(plain, para):
        assert (a.expected, a.plan, a.ideal, a.slots) == (b.expected, b.plan, b.ideal, b.slots)
        assert a.paraphrase is None and b.paraphrase is not None
        assert b.question == PARAPHRASES[b.template][b.paraphrase].format(
            **b.slots, unit="partner", Unit="Partner"
        )
        assert a.question != b.question
    # Over a few dozen seeds (models) every paraphrase is used, even of the slot-free
    # templates that ask one question per model.
    used = {
        (i.template, i.paraphrase)
        for s in range(40)
        for i in generate_questions(model, n_per_template=5, seed=s, paraphrased=True)
    }
    assert used == {(t, k) for t, ps in PARAPHRASES.items() for k in range(len(ps))}


# -- graders -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, result, ok",
    [
        (True, True, True),
        (True, False, False),
        (False, False, True),
        (True, 1, False),
        (False, 0, False),
        (True, "yes", False),
        (True, np.bool_(True), True),
        (["A", "B"], ["B", "A"], True),
        (["A", "B"], ["A", "B", "B"], True),
        (["A", "B"], ["A"], False),
        (["A"], ["A", "C"], False),
        ([], [], True),
        ([], None, False),
        ([], False, False),
        (["A"], "A", False),
        (["A", "B"], {"variables": ["B", "A"], "paths": [], "count": 1, "truncated": False}, True),
        (12.3456789, 12.3456789, True),
        (12.3456789, 12.35, True),
        (12.3456789, 12.34, True),
        (12.3456789, 12.33, False),
        (12.3456789, 12.36, False),
        (-37.21266, -37.21, True),
        (1e9, 1e9 + 500, True),
        (1e9, 1e9 + 5000, False),
        (5.0, True, False),
        (5.0, "5.0", False),
        (5.0, float("nan"), False),
        (5.0, np.float32(5.0), True),
        ({"arg": "Discount", "value": 65.0}, {"arg": "Discount", "value": 65.004}, True),
        ({"arg": "Discount", "value": 65.0}, {"arg": "Discount", "value": 66.0}, False),
        ({"arg": "Discount", "value": 65.0}, {"arg": "Tech Support", "value": 65.0}, False),
        ({"arg": "Discount", "value": 65.0}, {"arg": "Discount"}, False),
        ({"arg": "Discount", "value": 65.0}, "Discount", False),
        ({"arg": "3", "value": 0.7}, {"arg": 3, "value": 0.7}, True),
        ({"arg": 3, "value": 0.7}, {"arg": "3", "value": 0.70001}, True),
        (
            {"arg": "Discount", "value": 65.0},
            {"arg": "Discount", "value": 65.0, "values": {}, "difference": 1.0},
            True,
        ),
        ({"arg": "Discount", "value": 65.0}, {"arg": None, "value": 65.0}, False),
    ],
)
def test_grade_exact(expected, result, ok):
    assert grade_exact(expected, result) is ok


def test_judge_prompt_is_listing_5():
    text = judge_prompt("Is A a cause of B?", "Yes, it costs $5 and $ideal.", "A causes B.")
    assert text.startswith(
        "You are assessing a submitted answer on a given task based on an ideal answer. "
        "Here is the data:\n[BEGIN DATA]\n***\n[Task]: Is A a cause of B?\n***\n"
        "[Submission]: Yes, it costs $5 and $ideal.\n***\n[Ideal]: A causes B.\n***\n"
        "[END DATA]\nDo the submission and the ideal answer match?\n"
    )
    assert text.endswith(
        "If the question asks about the best intervention or the best partner it is enough "
        "if the submission answers this correctly.\nReasoning:"
    )
    assert 'Then print only the single character "Y" or "N" (without quotes or punctuation)' in text
    assert text.count("\n") == 17  # Listing 5's 18 lines (its other breaks are the PDF's)


@pytest.mark.parametrize(
    "output, verdict",
    [
        ("The submission says X0 causes X2.\nThe ideal agrees.\nY\nY", True),
        ("They disagree.\nN\nN\n", False),
        ("Reasoning... at first Y\nY\nbut on reflection\nN", False),
        ("  Y  \n", True),
        ("Yes.", None),
        ("The answer is N.", None),
        ("Y.\nN:", None),
        ("", None),
    ],
)
def test_parse_judge(output, verdict):
    assert parse_judge(output) is verdict


# -- the paper's numbers -------------------------------------------------------------------


def test_paper_tables():
    t = paper_tables()
    graph, effect = t["graph"], t["effect"]
    for metric in ("unparseable", "correct"):
        for llm, method in itertools.product(("gpt-3.5-turbo", "gpt-4"), ("tool", "context")):
            assert sorted(graph[metric][llm][method]) == [5, 10, 20, 40]
            cells = effect[metric][llm][method]
            assert sorted(cells) == [5, 10, 20, 40]
            assert all(sorted(row) == [10, 30, 100] for row in cells.values())
    # Spot checks against Tables 1–4 (GPT-3.5) and 6–9 (GPT-4).
    assert graph["unparseable"]["gpt-3.5-turbo"]["tool"][5] == {"mean": 0.16, "std": 0.37}
    assert graph["correct"]["gpt-3.5-turbo"]["context"][10] == {"mean": 0.06, "std": 0.24}
    assert graph["unparseable"]["gpt-4"]["tool"][20] == {"mean": 0.57, "std": 0.50}
    assert graph["correct"]["gpt-4"]["context"][40] == {"mean": 0.01, "std": 0.12}
    assert effect["unparseable"]["gpt-3.5-turbo"]["context"][10][100] == {"mean": 1.0, "std": 0.0}
    assert effect["unparseable"]["gpt-4"]["tool"][40][30] == {"mean": 0.74, "std": 0.44}
    assert effect["correct"]["gpt-3.5-turbo"]["tool"][5][10] == {"mean": 0.69, "std": 0.46}
    assert effect["correct"]["gpt-4"]["tool"][40][100] == {"mean": 0.86, "std": 0.35}
    # "-" (nothing parseable) is None exactly where context mode was 100% unparseable.
    for llm in ("gpt-3.5-turbo", "gpt-4"):
        for n_t, n_s in itertools.product((5, 10, 20, 40), (10, 30, 100)):
            missing = effect["correct"][llm]["context"][n_t][n_s] is None
            unparseable = effect["unparseable"][llm]["context"][n_t][n_s]
            assert missing == (unparseable == {"mean": 1.0, "std": 0.0}), (llm, n_t, n_s)
    assert paper_tables() is not t and paper_tables() == t


def test_doctests():
    result = doctest.testmod(qa_data, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
