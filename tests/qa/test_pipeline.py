"""The QA reader as one pipeline: one lexicon, plan sources asked in order, one check, and
a route that says which source planned and which check rules the plan passed."""

import ast
import doctest
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import causalqa.qa as qa_package
from causalqa.errors import DataFileError
from causalqa.llm.testing import ScriptedLLM
from causalqa.qa import check, cues, frame, grounding, lexicon
from causalqa.qa.assistant import Assistant, explain_route
from causalqa.qa.examples import EXAMPLES, OPEN_EXAMPLES, load_examples
from causalqa.qa.sources import SOURCES

QA_DIR = Path(qa_package.__file__).parent
ROOT = Path(__file__).resolve().parents[2]


def plan(tool, **args):
    return json.dumps({"steps": [{"tool": tool, "args": args}]})


# -- the lexicon ---------------------------------------------------------------------------


def _word_lists(path: Path) -> dict[str, set[str]]:
    """Module-level literal collections of five or more plain words, by name."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
            continue
        value = node.value
        if isinstance(value, ast.Call) and value.args:  # frozenset({...})
            value = value.args[0]
        if isinstance(value, ast.Dict):  # a word → value table ("two": 2)
            if not all(isinstance(v, ast.Constant | ast.List) for v in value.values):
                continue
            value = ast.Tuple(elts=list(value.keys))
        if not isinstance(value, ast.Tuple | ast.List | ast.Set):
            continue
        words = [e.value for e in value.elts if isinstance(e, ast.Constant)]
        plain = [w for w in words if isinstance(w, str) and re.sub(r"[ '/-]", "", w).isalpha()]
        if len(words) >= 5 and len(plain) == len(words):
            found[node.targets[0].id] = set(words)
    return found


READERS = ("grounding.py", "frame.py", "check.py", "cues.py", "direction.py")


def test_the_readers_take_their_word_lists_from_the_lexicon():
    elsewhere = {
        f"{name}:{var}": words
        for name in READERS
        for var, words in _word_lists(QA_DIR / name).items()
    }
    assert elsewhere == {}


def test_no_word_list_is_defined_twice_in_qa():
    lists = {
        f"{path.name}:{var}": words
        for path in sorted(QA_DIR.glob("*.py"))
        for var, words in _word_lists(path).items()
    }
    assert {"lexicon.py:NEGATIONS", "lexicon.py:NUMBER_WORDS", "lexicon.py:SUBJECT_NOUNS"} <= set(
        lists
    )
    names = sorted(lists)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert lists[a] != lists[b], (a, b)


def test_plurals_and_alternations_read_every_form():
    nouns = re.compile(rf"\b{lexicon.alternation(lexicon.SUBJECT_NOUNS, plural=True)}\b")
    for word in ("partner", "partners", "company", "companies", "people", "person"):
        assert nouns.fullmatch(word), word
    assert not nouns.fullmatch("partnership")
    assert lexicon.plurals(("strategy", "child", "user")) == ("strategies", "children", "users")
    spaced = re.compile(lexicon.alternation(("of them",)))
    assert spaced.fullmatch("of  them")


def test_grounding_reads_subject_ids_after_every_subject_noun(partners):
    # "firm" was missing from one of the four subject-noun lists before the lexicon
    g = grounding.ground("What does Tech Support give firm 3?", partners)
    assert g.names("subject") == ["3"]


@pytest.mark.parametrize("module", [lexicon, frame, check, cues, grounding])
def test_the_pattern_families_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


# -- the planner's worked examples as data ------------------------------------------------


def test_worked_examples_are_read_from_the_data_file():
    data = json.loads((QA_DIR / "examples.json").read_text(encoding="utf-8"))
    assert [e.question for e in EXAMPLES] == [e["question"] for e in data["paper"]]
    assert [e.plan for e in OPEN_EXAMPLES] == [e["plan"] for e in data["open"]]
    tools = {e.plan["steps"][0]["tool"] for e in EXAMPLES}
    assert {"is_cause", "parents", "children", "ate", "best_subject"} <= tools


def test_a_missing_or_broken_examples_file_is_a_clear_error(tmp_path):
    with pytest.raises(DataFileError, match="missing"):
        load_examples.__wrapped__(tmp_path / "nope.json")
    broken = tmp_path / "examples.json"
    broken.write_text('{"paper": [{"question": "x"}]}', encoding="utf-8")
    with pytest.raises(DataFileError, match="not the planner's examples"):
        load_examples.__wrapped__(broken)


# -- plan sources and the route ------------------------------------------------------------


def test_the_sources_are_asked_in_order():
    assert [s.name for s in SOURCES] == ["frame", "planner", "open planner", "learned intent"]


def test_a_frame_question_is_planned_by_the_frame_and_never_asks_the_llm(partners):
    llm = ScriptedLLM([])
    a = Assistant(partners, llm).ask("What is the median effect of Tech Support?")
    assert a.answered and llm.calls == []
    first = a.route[0]
    assert first["source"] == "frame" and first["outcome"] == "plan"
    assert first["plan"]["steps"][0]["args"]["stat"] == "median"
    assert first["check"]["failed"] == {}
    assert "demand:median" in first["check"]["passed"]
    assert "learned check" in first["check"]["passed"]
    assert len(a.route) == 1  # the first plan that passes ends the search


def test_the_llm_plans_when_no_frame_is_read(partners):
    llm = ScriptedLLM([plan("is_cause", cause="Price", effect="Revenue")])
    a = Assistant(partners, llm, strategy="plan", sure=None).ask(
        "Would Revenue change if we moved Price?"
    )
    assert a.answered and a.result is True
    assert [(r["source"], r["outcome"]) for r in a.route] == [
        ("frame", "nothing"),
        ("planner", "plan"),
    ]
    assert a.route[1]["llm_called"] is True


def test_a_plan_that_fails_the_check_names_the_rule_and_the_next_sources_are_asked(partners):
    # "directly or indirectly" asks about a link by any route: the LLM's direct-edge plan
    # fails that demand; the open planner writes the same plan again (not offered twice);
    # the learned intent may write the plan of the kind it is sure of.
    direct = plan("is_parent", parent="Price", child="Revenue")
    llm = ScriptedLLM([direct, direct])
    a = Assistant(partners, llm, strategy="plan", sure=None).ask(
        "Does Price affect Revenue, directly or indirectly?"
    )
    steps = [(r["source"], r["outcome"]) for r in a.route]
    assert steps[:3] == [("frame", "nothing"), ("planner", "plan"), ("open planner", "nothing")]
    failed = a.route[1]["check"]["failed"]
    assert list(failed) == ["demand:any route"]
    assert "any route" in failed["demand:any route"][0]
    if a.answered:
        assert steps[-1] == ("learned intent", "plan")
        assert a.plan["steps"][0]["tool"] == "is_cause" and a.result is True
    else:
        assert steps[-1] == ("learned intent", "nothing") and "any route" in a.answer


def test_a_refusal_before_planning_is_on_the_route(partners):
    a = Assistant(partners, ScriptedLLM([])).ask("What is the mode of Tech Support's effects?")
    assert not a.answered
    assert a.route == [{"source": "reading", "outcome": "refused", "why": a.answer}]


def test_explain_route_prints_each_source_and_the_check(partners):
    llm = ScriptedLLM([plan("is_cause", cause="Price", effect="Revenue")])
    a = Assistant(partners, llm, strategy="plan", sure=None).ask(
        "Would Revenue change if we moved Price?"
    )
    text = explain_route(a)
    lines = text.splitlines()
    assert lines[0] == "1. frame: nothing to offer"
    assert lines[1] == "2. planner (LLM): is_cause(cause='Price', effect='Revenue')"
    assert lines[2].startswith("   check passed:")


def test_ask_explain_prints_the_route(tmp_path):
    # an unloadable LLM: the frames answer the question, so the route names the frame
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 64)
    graph = ROOT / "examples/partners/model/graph.graphml"
    effects = ROOT / "examples/partners/model/effects.csv"
    args = ["--graph", str(graph), "--effects", str(effects), "--llm", f"local:{broken}"]
    env = {**os.environ, "COLUMNS": "200"}
    question = "What is the median effect of Tech Support?"
    proc = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "ask", question, *args, "--explain"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "route:" in proc.stdout
    assert "1. frame: summarize(" in proc.stdout and "check passed" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "ask", question, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert json.loads(proc.stdout)["route"][0]["source"] == "frame"
