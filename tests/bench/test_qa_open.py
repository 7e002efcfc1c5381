"""The open-question benchmark's generator and grader: truths computed independently of
the engine agree with networkx where networkx has the answer, every wording fits its kind,
and grading counts refusals and wrong answers as the benchmark says."""

from __future__ import annotations

import string

import networkx as nx
import numpy as np
import pytest

from causalqa.bench import qa_open
from causalqa.bench.wordings import load_wordings, wording_sets
from causalqa.errors import ConfigError

PLACEHOLDERS = {
    "median": {"T"}, "minimum": {"T"}, "maximum": {"T"}, "std": {"T"}, "percentile": {"T", "P"},
    "count_benefit": {"T"}, "count_threshold": {"T", "N"}, "count_more_engaged": {"T", "U"},
    "share_benefit": {"T"}, "share_at_least": {"T", "N"}, "list_hurt": {"T"},
    "subject_difference": {"S", "T", "U"}, "mean_difference": {"T", "U"}, "best_by_median": set(),
    "best_subject_difference": {"T", "U"}, "each": {"T"}, "best_on_average_outcome": {"Y"},
    "confounders": {"A", "B"}, "mediators": {"A", "B"}, "on_path": {"M", "A", "B"},
    "independence": {"A", "B", "Z"}, "adjustment": {"A", "B"}, "markov_blanket": {"A"},
    "effect_kind": {"A", "B"}, "common_effects": {"A", "B"}, "mode": {"T"},
    "correlation": {"A", "B"}, "probability": {"S", "T"}, "intervention_level": {"A", "B"},
    "iqr": {"T"},
}  # fmt: skip


def test_every_kind_has_dev_wordings_with_its_placeholders():
    dev = load_wordings("dev", "open").wordings
    assert set(dev) == set(qa_open.KIND_NAMES) == set(PLACEHOLDERS)
    for kind, texts in dev.items():
        for text in texts:
            names = {f for _, f, _, _ in string.Formatter().parse(text) if f} - {"unit", "Unit"}
            assert names == PLACEHOLDERS[kind], (kind, text)


@pytest.mark.parametrize("name", wording_sets("open"))
def test_every_wording_set_asks_every_kind_with_exactly_its_placeholders(name):
    texts = load_wordings(name, "open").wordings
    assert set(texts) == set(PLACEHOLDERS)
    for kind, wordings in texts.items():
        assert wordings, kind
        for i, text in enumerate(wordings):
            names = {f for _, f, _, _ in string.Formatter().parse(text) if f} - {"unit", "Unit"}
            # the wording itself is not printed: held-out sets stay unread
            assert names == PLACEHOLDERS[kind], f"{name}/{kind}[{i}]"


def test_the_sets_are_the_ones_measured():
    # dev, dev2, test, test2 … test14 (bench/README.md); only test14 is still held out
    assert wording_sets("open") == ["dev", "dev2", "test", *(f"test{i}" for i in range(2, 15))]
    assert wording_sets("open", status="held-out") == ["test14"]


def test_an_unknown_set_is_a_clear_error():
    m = qa_open.open_model("small", 0)
    with pytest.raises(ConfigError, match="unknown open wording set 'test99'") as e:
        qa_open.generate_open_questions(m, seed=0, wording="test99")
    assert "test14" in e.value.hint
    # the benchmark says so before it loads an LLM
    with pytest.raises(ConfigError, match="'test99'"):
        qa_open.run_open_bench("no-such-backend", wording="test99")


@pytest.mark.parametrize("seed", range(4))
def test_independent_d_separation_agrees_with_networkx(seed):
    m = qa_open.open_model("small", seed)
    rng = np.random.default_rng(seed)
    nodes = sorted(m.graph)
    for _ in range(30):
        a, b = rng.choice(nodes, size=2, replace=False)
        z = set(rng.choice([n for n in nodes if n not in (a, b)], size=2, replace=False))
        ours = qa_open._ancestral_moral_separated(m.graph, a, b, z)
        assert ours == nx.is_d_separator(m.graph, {a}, {b}, z)


def test_questions_are_generated_for_every_size_with_exact_truth():
    for size in qa_open.SIZES:
        m = qa_open.open_model(size, 0)
        items = qa_open.generate_open_questions(m, seed=0)
        kinds = {i.kind for i in items}
        assert {"median", "confounders", "independence", "mode"} <= kinds
        median = next(i for i in items if i.kind == "median")
        assert median.expected == pytest.approx(float(m.effects[median.pick["T"]].median()))
        assert m.outcome is not None  # "which treatment raises {Y}" needs one


def test_grading():
    m = qa_open.open_model("small", 1)
    items = {i.kind: i for i in qa_open.generate_open_questions(m, seed=1)}
    median = items["median"]
    assert qa_open.grade_open(median, True, median.expected, m) == "right"
    assert qa_open.grade_open(median, True, median.expected + 0.5, m) == "wrong"
    assert qa_open.grade_open(median, False, None, m) == "refused"
    # "is there any remaining dependence …?" answered by d_connected: True means dependent
    dsep = items["independence"]
    assert qa_open.grade_open(dsep, True, dsep.expected, m, "d_separated") == "right"
    assert qa_open.grade_open(dsep, True, not dsep.expected, m, "d_connected") == "right"
    assert qa_open.grade_open(dsep, True, dsep.expected, m, "d_connected") == "wrong"
    mode = items["mode"]
    assert qa_open.grade_open(mode, False, None, m) == "right"
    assert qa_open.grade_open(mode, True, 3.0, m) == "wrong"
    adjustment = items["adjustment"]
    x, y = adjustment.expected
    parents = sorted(m.graph.predecessors(x))  # the parents of x always block the back doors
    assert qa_open.grade_open(adjustment, True, parents, m) == "right"
    descendants = sorted(nx.descendants(m.graph, x))
    if descendants:
        assert qa_open.grade_open(adjustment, True, descendants[:1], m) == "wrong"
    # compare_treatments names both effects: right in either order, wrong over another set
    from causalqa.qa.tools import compare_treatments

    diff = items["mean_difference"]
    t, u = diff.pick["T"], diff.pick["U"]
    assert qa_open.grade_open(diff, True, compare_treatments(m, u, t), m) == "right"
    one = items["subject_difference"]
    s, t, u = one.pick["S"], one.pick["T"], one.pick["U"]
    assert qa_open.grade_open(one, True, compare_treatments(m, t, u, subject=s), m) == "right"
    assert qa_open.grade_open(one, True, compare_treatments(m, t, u), m) == "wrong"


def test_the_questions_do_not_depend_on_the_hash_seed():
    """Sets iterate in an order that changes with PYTHONHASHSEED; the questions must not."""
    import os
    import subprocess
    import sys

    code = (
        "from causalqa.bench import qa_open\n"
        "for size in ('small', 'medium'):\n"
        "    m = qa_open.open_model(size, 1)\n"
        "    for it in qa_open.generate_open_questions(m, seed=1, wording='dev'):\n"
        "        print(it.question)\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout
        for seed in (1, 2, 3)
    ]
    assert runs[0] and runs[0] == runs[1] == runs[2]


def _recorded(question, plan=None):
    return {"size": "small", "seed": 0, "question": question, "plan": plan,
            "llm_called": plan is not None}  # fmt: skip


def _stored_run(tmp_path, outcomes):
    import json

    path = tmp_path / "qa-open-stored.json"
    run = {"benchmark": "qa-open", "llm": "local:test", "wording": "dev", "seeds": 1,
           "sizes": {"small": qa_open.SIZES["small"]}, "environment": {"date": "2026-11-26"},
           "outcomes": outcomes}  # fmt: skip
    path.write_text(json.dumps(run))
    return path


def test_a_replay_gives_the_recorded_plans_and_grades_with_todays_engine(tmp_path):
    model = qa_open.open_model("small", 0)
    items = qa_open.generate_open_questions(model, seed=0, wording="dev")
    median = next(i for i in items if i.kind == "median")
    best = [i for i in items if i.kind == "best_on_average_outcome"][:2]
    t = median.pick["T"]
    stored = [
        # answered by the frames then: no LLM plan recorded
        _recorded(median.question),
        # the LLM's plans: the right one, and one the check refuses (one treatment's average
        # where the best treatment is asked)
        _recorded(best[0].question, {"steps": [{"tool": "best_treatment", "args": {}}]}),
        _recorded(best[1].question, {"steps": [{"tool": "ate", "args": {"treatment": t}}]}),
        # a question of a wording set edited since the run
        _recorded(f"What was the median of {t}?"),
    ]  # fmt: skip
    report = qa_open.replay_open_bench(_stored_run(tmp_path, stored), out_dir=tmp_path / "out")
    assert [o["grade"] for o in report["outcomes"]] == ["right", "right", "refused"]
    assert [o["llm_called"] for o in report["outcomes"]] == [False, True, True]
    assert "I cannot answer that exactly" in report["outcomes"][2]["answer"]
    assert report["unmatched_questions"] == 1
    assert report["replay_of"].endswith("qa-open-stored.json")
    assert (tmp_path / "out" / "qa-open-latest.md").read_text().count("A replay of") == 1


def test_a_replay_of_something_else_is_a_clear_error(tmp_path):
    from causalqa.errors import CausalQAError

    bad = tmp_path / "x.json"
    bad.write_text('{"benchmark": "qa", "outcomes": []}')
    with pytest.raises(CausalQAError, match="not the JSON of a `bench qa-open` run"):
        qa_open.replay_open_bench(bad, out_dir=tmp_path)
    with pytest.raises(CausalQAError, match="no such run file"):
        qa_open.replay_open_bench(tmp_path / "none.json", out_dir=tmp_path)
    with pytest.raises(CausalQAError, match="none of the 1 questions"):
        stored = [
            {"size": "small", "seed": 0, "question": "gone?", "plan": None, "llm_called": False}
        ]
        qa_open.replay_open_bench(_stored_run(tmp_path, stored), out_dir=tmp_path)
