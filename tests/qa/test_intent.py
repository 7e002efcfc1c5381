"""The learned question check: its analyzers and features match scikit-learn's, it saves
and loads without pickle, and it refuses plans of a kind the question does not ask."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.sparse import hstack
from sklearn.feature_extraction.text import TfidfVectorizer

from causalqa.bench import qa_data, qa_open
from causalqa.errors import DataFileError, LLMOutputError
from causalqa.llm.testing import ScriptedLLM
from causalqa.qa.assistant import Assistant
from causalqa.qa.check import intent_problems, problems
from causalqa.qa.frame import slotted
from causalqa.qa.grounding import Grounding, ground
from causalqa.qa.intent import (
    ANSWERS,
    DEFAULT_PATH,
    IntentModel,
    answers,
    char_terms,
    default_model,
    masked_question,
    plan_for,
    slot_terms,
    word_terms,
)
from causalqa.qa.tools import Where

TEXTS = [
    "what is the median effects of ⟦1⟧ across partners?",
    "MB(⟦1⟧)?",
    "  how  many partners gain more than 20 from ⟦1⟧ ",
    "is ⟦1⟧ d-separated from ⟦2⟧ given ⟦3⟧ and ⟦4⟧?",
    "a",
]


def test_analyzers_are_scikit_learns():
    word = TfidfVectorizer(token_pattern=r"[^\s?.,!:;()]+", ngram_range=(1, 2)).build_analyzer()
    char = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5)).build_analyzer()
    for text in TEXTS:
        assert word_terms(text) == word(text)
        assert char_terms(text) == char(text)


def test_a_name_mentioned_twice_fills_one_slot_for_the_classifier():
    model = qa_open.open_model("small", 0)
    t, u = model.treatments[:2]
    once = f"What's the effect of {t} on partner 3? I mean the effect of {t} alone."
    twice = f"What's the effect of {t} minus that of {u}?"
    text = masked_question(once, ground(once, model))
    assert text.count("⟦1⟧") == 2 and "⟦2⟧" not in text
    assert slot_terms(text) == ["slots:1t0v"]
    assert slot_terms(masked_question(twice, ground(twice, model))) == ["slots:2t0v"]
    v = model.variables[0]
    graph = f"Is {v} a cause of {model.outcome}?"
    assert slot_terms(masked_question(graph, ground(graph, model))) == ["slots:0t2v"]


@pytest.fixture(scope="module")
def small_model():
    kinds = ["median", "markov_blanket", "count_threshold", "independence", "median"]
    return IntentModel(char_min_df=1).fit(TEXTS, kinds)


def test_features_match_scikit_learns_tfidf(small_model):
    vectorizers = [
        TfidfVectorizer(analyzer=word_terms, sublinear_tf=True),
        TfidfVectorizer(analyzer=char_terms, sublinear_tf=True),
        TfidfVectorizer(analyzer=slot_terms, sublinear_tf=True),
    ]
    expected = hstack([v.fit_transform(TEXTS) for v in vectorizers]).toarray()
    new = ["median of ⟦1⟧ please", "zzz"]
    expected_new = hstack([v.transform(new) for v in vectorizers]).toarray()
    assert np.allclose(small_model.features(TEXTS), expected, atol=1e-6)
    assert np.allclose(small_model.features(new), expected_new, atol=1e-6)
    p = small_model.predict_proba(TEXTS)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert small_model.classes_[p[0].argmax()] == "median"


def test_save_and_load_round_trip_without_pickle(small_model, tmp_path):
    path = small_model.save(tmp_path / "m.npz", info={"command": "test"})
    loaded = IntentModel.load(path)
    assert np.allclose(
        loaded.predict_proba(TEXTS), small_model.predict_proba(TEXTS), atol=2e-3
    )  # coefficients are stored as float16
    with np.load(path, allow_pickle=False) as z:  # arrays only: loads with pickle off
        assert set(z.files) >= {"classes", "coef", "intercept", "vocab0", "idf1"}
    assert json.loads((tmp_path / "m.npz.json").read_text())["command"] == "test"


def test_an_altered_or_missing_model_is_a_clear_error(small_model, tmp_path):
    path = small_model.save(tmp_path / "m.npz")
    path.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    with pytest.raises(DataFileError, match="does not match its manifest"):
        IntentModel.load(path)
    with pytest.raises(DataFileError, match="cannot read"):
        IntentModel.load(tmp_path / "missing.npz")


def test_a_model_built_by_an_older_version_is_a_clear_error(small_model, tmp_path):
    """One saved before the names' count was a feature (two analyzers, not three)."""
    import hashlib

    path = small_model.save(tmp_path / "m.npz")
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files if k not in ("vocab2", "idf2")}
    np.savez_compressed(path, **arrays)
    manifest = json.loads((tmp_path / "m.npz.json").read_text())
    manifest["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (tmp_path / "m.npz.json").write_text(json.dumps(manifest))
    with pytest.raises(DataFileError, match="another version"):
        IntentModel.load(path)


def _summary(stat, **value):
    return {"tool": "summarize", "args": {"stat": stat, "value": value}}


@pytest.mark.parametrize(
    "kind, plan, ok",
    [
        ("median", _summary("median", treatment="T"), True),
        ("median", _summary("mean", treatment="T"), False),
        ("median", {"tool": "ate", "args": {"treatment": "T"}}, False),
        ("mean_difference", _summary("mean", difference=["T", "U"]), True),
        ("paper:ate", _summary("mean", difference=["T", "U"]), False),
        ("iqr", _summary("quantile", treatment="T"), False),
        ("markov_blanket", {"tool": "children", "args": {"variable": "X"}}, False),
        ("paper:parents", {"tool": "children", "args": {"variable": "X"}}, True),
        ("tool:ancestors", {"tool": "ancestors", "args": {"variable": "X"}}, True),
    ],
)
def test_which_plans_answer_a_kind(kind, plan, ok):
    assert answers(kind, {"steps": [plan]}) is ok


def test_the_shipped_model_is_built_from_todays_development_wordings():
    from causalqa.bench.qa_intent import data_hash, training_rows

    manifest = json.loads(DEFAULT_PATH.with_name(DEFAULT_PATH.name + ".json").read_text())
    rows = training_rows()
    assert manifest["data_sha256"] == data_hash(rows), (
        "the wordings changed: python -m causalqa.bench.qa_intent build"
    )
    assert not any(r.group.startswith(("paper-test", "paper-a")) for r in rows)
    assert set(manifest["classes"]) >= set(ANSWERS)
    assert 0 < default_model().threshold < 0.5


@pytest.fixture(scope="module")
def open_model():
    return qa_open.open_model("small", 0)


def _plan(tool, **args):
    return {"steps": [{"tool": tool, "args": args}]}


def test_the_learned_check_refuses_a_plan_of_another_kind(open_model):
    t = open_model.treatments[0]
    v = open_model.variables[0]
    cases = [
        (
            f"If you line up all partners by their {t} effect, what's the value in the middle?",
            _plan("ate", treatment=t),
            _plan("summarize", value={"treatment": t}, stat="median"),
        ),
        (f"MB({v})?", _plan("children", variable=v), _plan("markov_blanket", variable=v)),
        (
            f"Tell me the peak individual lift from {t}.",
            _plan("ate", treatment=t),
            _plan("summarize", value={"treatment": t}, stat="max"),
        ),
    ]
    for question, wrong, right in cases:
        text = masked_question(question, ground(question, open_model))
        assert intent_problems(text, wrong), question
        assert intent_problems(text, right) == [], question
        g = ground(question, open_model)
        assert any("reads as asking for" in p for p in problems(question, wrong, g, open_model))


def test_the_paper_templates_right_plans_pass_the_learned_check():
    model = qa_data.generate_model(10, 5, 30, seed=3)
    items = qa_data.generate_questions(model, n_per_template=2, seed=3)
    assert items
    for item in items:
        text = masked_question(item.question, ground(item.question, model))
        assert intent_problems(text, {"steps": item.plan}) == [], item.question


def test_a_plan_answering_the_likeliest_kind_passes_below_the_threshold(monkeypatch):
    text = "what is the median effects of ⟦1⟧ across partners?"
    model = default_model()
    p = model.predict_proba([text])[0]
    top = str(model.classes_[p.argmax()])
    plan = _plan("summarize", value={"treatment": "T"}, stat="median")
    assert answers(top, plan)
    monkeypatch.setattr(model, "threshold", 0.999)  # no support could pass
    assert intent_problems(text, plan) == []
    assert intent_problems(text, _plan("ate", treatment="T"))


def test_a_plan_whose_kinds_together_outweigh_every_other_reading_passes(monkeypatch):
    model = default_model()
    plan = _plan("best_subject", treatment="T")
    # the plan's kinds together (0.27) outweigh the likeliest single other kind (0.25)
    monkeypatch.setattr(model, "support", lambda text, plan: (0.27, "each", 0.25))
    assert intent_problems("top partner for ⟦1⟧ by lift?", plan) == []
    # … and not when they do not, or when they are a long shot themselves
    monkeypatch.setattr(model, "support", lambda text, plan: (0.22, "each", 0.25))
    assert intent_problems("top partner for ⟦1⟧ by lift?", plan)
    monkeypatch.setattr(model, "support", lambda text, plan: (0.15, "each", 0.12))
    assert intent_problems("top partner for ⟦1⟧ by lift?", plan)


def test_a_tool_known_only_from_examples_is_refused_only_against_a_sure_open_kind(open_model):
    a, b = open_model.variables[:2]

    def problems_of(question, tool, **args):
        return intent_problems(
            masked_question(question, ground(question, open_model)), _plan(tool, **args)
        )

    assert problems_of(f"What is the Markov blanket of {a}?", "ancestors", variable=a)
    assert problems_of(
        f"Classify the effect of {a} on {b} as direct, indirect, a mix of both, or absent.",
        "is_parent",
        parent=a,
        child=b,
    )
    assert problems_of(f"What are the ancestors of {a}?", "ancestors", variable=a) == []
    # read as the paper's "children" (0.8): a paper kind is not held against the plan
    assert (
        problems_of(f"Which variables does {a} eventually influence?", "descendants", variable=a)
        == []
    )


def test_a_plan_no_kind_covers_is_not_judged():
    assert default_model().support("what is ⟦1⟧?", _plan("no_such_tool")) is None


def test_a_plan_of_a_tool_known_only_from_worked_examples_is_not_judged():
    assert default_model().support("what shapes ⟦1⟧?", _plan("ancestors", variable="X")) is None


def _slots(model, question):
    return slotted(question, ground(question, model))[1]


def test_plan_for_writes_only_plans_whose_arguments_cannot_be_misread(open_model):
    t, u = open_model.treatments[:2]
    a, b = open_model.variables[:2]
    none = Grounding()
    one = _slots(open_model, f"median of {t}?")
    assert plan_for("median", one, none) == _plan(
        "summarize", value={"treatment": t}, stat="median"
    )
    where = {"filter": "Already Engaged", "value": True}
    engaged = Grounding(where=Where("Already Engaged", True))
    assert plan_for("count_benefit", one, engaged) == _plan(
        "count_subjects",
        conditions=[{"value": {"treatment": t}, "op": ">", "than": 0}],
        where=where,
    )
    assert plan_for("median", _slots(open_model, f"median of {t} minus {u}?"), none) is None
    assert plan_for("mean_difference", _slots(open_model, f"{t} minus {u}?"), none) is None
    two = _slots(open_model, f"what confounds {a} and {b}?")
    assert plan_for("confounders", two, none) == _plan("common_causes", a=a, b=b)
    assert plan_for("effect_kind", two, none) is None  # its direction could be misread
    assert plan_for("markov_blanket", _slots(open_model, f"MB({a})"), none) == _plan(
        "markov_blanket", variable=a
    )


def _read(model, question):
    return slotted(question, ground(question, model))


def test_plan_for_reads_order_and_numbers_only_where_the_wording_states_them(open_model):
    t, u = open_model.treatments[:2]
    a, b = open_model.variables[:2]
    none = Grounding()
    text, slots = _read(open_model, f"is the effect of {a} on {b} direct or indirect?")
    assert plan_for("effect_kind", slots, none, text) == _plan("effect_kind", cause=a, effect=b)
    text, slots = _read(open_model, f"is {b} affected by {a} directly or through others?")
    assert plan_for("effect_kind", slots, none, text) == _plan("effect_kind", cause=a, effect=b)
    text, slots = _read(open_model, f"what do I control for, {b} and {a}?")
    assert plan_for("adjustment", slots, none, text) is None  # the order is not stated
    text, slots = _read(open_model, f"average of {t} minus {u}?")
    assert plan_for("mean_difference", slots, none, text) == _plan(
        "summarize", value={"difference": [t, u]}, stat="mean"
    )
    text, slots = _read(open_model, f"{t} and {u}: mean gap?")
    assert plan_for("mean_difference", slots, none, text) is None
    text, slots = _read(open_model, f"the 90th percentile of {t}?")
    assert plan_for("percentile", slots, none, text) == _plan(
        "summarize", value={"treatment": t}, stat="quantile", q=0.9
    )
    text, slots = _read(open_model, f"how many partners have a {t} effect above 12?")
    assert plan_for("count_threshold", slots, none, text) == _plan(
        "count_subjects", conditions=[{"value": {"treatment": t}, "op": ">", "than": 12}]
    )
    text, slots = _read(open_model, f"how many partners gain more from {t} than from {u}?")
    assert plan_for("count_more_engaged", slots, none, text) is None  # no filter was read
    engaged = Grounding(where=Where("Already Engaged", True))
    assert plan_for("count_more_engaged", slots, engaged, text) == _plan(
        "count_subjects",
        conditions=[{"value": {"treatment": t}, "op": ">", "than": {"treatment": u}}],
        where={"filter": "Already Engaged", "value": True},
    )


class _NoLLM(ScriptedLLM):
    def _generate(self, *args, **kwargs):
        raise LLMOutputError("no language model in this test")


def test_a_refused_plan_is_replaced_by_the_plan_of_the_kind_the_question_asks(open_model):
    t = open_model.treatments[0]
    q = f"If you line up all partners by their {t} effect, what's the value in the middle?"
    answer = Assistant(open_model, _NoLLM()).ask(q)
    assert answer.answered, answer.answer
    assert answer.plan == _plan("summarize", value={"treatment": t}, stat="median")
    assert answer.result == pytest.approx(float(open_model.effects[t].median()))


@pytest.mark.parametrize(
    "wording, op",
    [
        ("no smaller than 20", ">="),
        ("not less than 20", ">="),
        ("not below 20", ">="),
        ("no more than 20", "<="),
        ("not above 20", "<="),
        ("no greater than 20", "<="),
        ("that beats 20", ">"),
        ("clearing 20", ">"),
        ("surpassing 20", ">"),
    ],
)
def test_comparisons_read_as_their_operator(open_model, wording, op):
    t = open_model.treatments[0]
    answer = Assistant(open_model, _NoLLM()).ask(f"How many partners have a {t} effect {wording}?")
    (condition,) = answer.plan["steps"][0]["args"]["conditions"]
    assert (condition["op"], condition["than"]) == (op, 20)
    expected = open_model.effects[t]
    expected = {">=": expected >= 20, "<=": expected <= 20, ">": expected > 20}[op]
    assert answer.result == int(expected.sum())


def test_a_tool_the_learned_check_is_sure_of_is_taken_without_the_llm(partners):
    q = "Does a change in Price lead to a change in Revenue?"
    llm = ScriptedLLM([])
    a = Assistant(partners, llm).ask(q)
    assert llm.calls == [] and a.plan["steps"][0]["tool"] == "is_cause", a.answer
    assert a.result is True
    # unsure (or turned off): the LLM chooses, as before
    llm = ScriptedLLM(['{"tool": "is_cause"}'])
    a = Assistant(partners, llm)
    a.planner.sure = None
    assert a.ask(q).plan["steps"][0]["tool"] == "is_cause" and len(llm.calls) == 1


def test_a_follow_up_is_not_read_without_its_history(partners):
    llm = ScriptedLLM(['{"tool": "ate"}', '{"tool": "ate"}'])
    a = Assistant(partners, llm)
    a.ask("What is the average effect of Tech Support?")
    calls = len(llm.calls)
    answer = a.ask("and for Discount (%)?")
    assert len(llm.calls) == calls + 1  # the LLM sees the conversation
    # the learned check reads the question it follows, not "and for ⟦1⟧?"
    assert answer.answered, answer.answer
    assert answer.plan == {"steps": [{"tool": "ate", "args": {"treatment": "Discount (%)"}}]}
    answer = a.ask("and for Tech Support?")
    assert answer.answered and answer.plan["steps"][0]["args"] == {"treatment": "Tech Support"}


@pytest.mark.parametrize("word, lowest", [("argmax", False), ("argmin", True)])
def test_argmax_and_argmin_ask_which_one(open_model, word, lowest):
    t, u = open_model.treatments[:2]
    a = Assistant(open_model, _NoLLM()).ask(f"{word} over partners of {t} minus {u}?")
    assert a.plan == _plan("rank_subjects", value={"difference": [t, u]}, k=1, lowest=lowest), (
        a.answer
    )
    a = Assistant(open_model, _NoLLM()).ask(f"{word} over treatments of the median CATE?")
    assert a.plan == _plan("rank_treatments", stat="median", k=1, lowest=lowest), a.answer
