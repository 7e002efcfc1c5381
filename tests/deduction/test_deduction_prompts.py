"""Prompt formats V1–V9 (Prompts 5–13) and Prompts 1–4, as messages."""

from __future__ import annotations

import os

import pytest

from causalqa.deduction.chains import Chain
from causalqa.deduction.prompts import (
    ACK,
    FORMATS,
    causes_messages,
    extract_messages,
    get_format,
    infer_messages,
    negatives_messages,
    paper_verdict,
    render,
)
from causalqa.errors import UnknownFormatError

CTX = "The engine lost power {not a slot} after takeoff."
ST = "Fuel exhaustion."
REL = {
    "retrieved": [Chain(("Retrieved cause", "Retrieved effect"))],
    "extracted": [("Extracted cause", "Extracted effect")],
    "inferred": ["Inferred cause --> Inferred effect"],
}

TASK_HEAD = (
    "Based on an accident investigation bounded by <CONTEXT> delimiters, answer if the "
    "statement within <STATEMENT> delimiters about the probable cause(s) of the accident is "
    "True or False. Your answer must be based on the investigation facts and details within "
    "<CONTEXT>."
)


def test_nine_formats_numbered_like_the_paper():
    assert list(FORMATS) == [f"V{i}" for i in range(1, 10)]
    assert [f.prompt for f in FORMATS.values()] == list(range(5, 14))
    assert get_format("v6") is get_format("P10") is get_format("6") is FORMATS["V6"]
    with pytest.raises(UnknownFormatError):
        get_format("V10")


def test_v1_is_one_user_turn_with_the_task():
    (m,) = render("V1", CTX, ST)
    assert m["role"] == "user"
    assert m["content"].startswith(TASK_HEAD)
    assert (
        "<CONTEXT>\nThe engine lost power {not a slot} after takeoff.\n</CONTEXT>" in m["content"]
    )
    assert m["content"].endswith(
        "Is this statement True or False?\n<STATEMENT>\nFuel exhaustion.\n</STATEMENT>\n\nAnswer:"
    )
    assert "<RELATIONS>" not in m["content"]


@pytest.mark.parametrize("name", [f"V{i}" for i in range(2, 10)])
def test_multi_turn_layout(name):
    msgs = render(name, CTX, ST, **REL)
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[1]["content"] == ACK == "Yes, I understand."
    assert msgs[0]["content"].startswith(
        'You have a fair understanding of causal relations, where "-->" represents "causes"'
    )
    assert msgs[2]["content"].startswith(TASK_HEAD)


@pytest.mark.parametrize(
    "name, first, task",
    [
        ("V2", set(), set()),
        ("V3", set(), {"extracted"}),
        ("V4", set(), {"inferred"}),
        ("V5", set(), {"extracted", "inferred"}),
        ("V6", {"retrieved"}, set()),
        ("V7", {"retrieved"}, {"extracted"}),
        ("V8", {"retrieved"}, {"extracted", "inferred"}),
        ("V9", {"retrieved", "extracted", "inferred"}, set()),
    ],
)
def test_which_relations_go_where(name, first, task):
    msgs = render(name, CTX, ST, **REL)
    for kind in ("retrieved", "extracted", "inferred"):
        marker = f"- {kind.capitalize()} cause --> {kind.capitalize()} effect"
        assert (marker in msgs[0]["content"]) == (kind in first), (name, kind)
        assert (marker in msgs[2]["content"]) == (kind in task), (name, kind)


def test_v6_first_turn_and_v9_relations_block():
    v6 = render("V6", CTX, ST, **REL)[0]["content"]
    assert v6 == (
        'You have a fair understanding of causal relations, where "-->" represents "causes", '
        "such as:\n- Retrieved cause --> Retrieved effect"
    )
    v9 = render("V9", CTX, ST, **REL)[0]["content"]
    assert "<RELATIONS>\nHistorical relations:\n- Retrieved cause" in v9
    assert "Relations extracted from <CONTEXT>:\n- Extracted cause" in v9
    assert "Possible relations linking probable cause in <STATEMENT> to accident:\n- Inferred" in v9
    assert v9.endswith("</RELATIONS>")


def test_v5_relations_block_order():
    task = render("V5", CTX, ST, **REL)[2]["content"]
    block = task[task.index("<RELATIONS>") : task.index("</RELATIONS>")]
    assert block.index("Relations extracted") < block.index("Possible relations linking")
    assert task.index("</RELATIONS>") < task.index("Is this statement True or False?")


def test_empty_relations_say_none():
    task = render("V3", CTX, ST, extracted=[])[2]["content"]
    assert "Relations extracted from <CONTEXT>:\nNone\n</RELATIONS>" in task


def test_mining_and_dataset_prompts():
    (p3,) = extract_messages("Report text.")
    assert p3["content"].startswith("Extract all the causal events in this report:\nReport text.")
    assert 'where "-->" represents "causes", so "Cause Event --> Effect Event".' in p3["content"]
    (p4,) = infer_messages("Report text.", "A cause.")
    assert (
        "<STATEMENT>\nA cause.\n</STATEMENT>\n<CONTEXT>\nReport text.\n</CONTEXT>" in p4["content"]
    )
    assert "Train collided with another train (Accident)" in p4["content"]
    (p1,) = causes_messages("The probable cause was X.")
    assert "[START_CONTEXT]\nThe probable cause was X.\n[END_CONTEXT]" in p1["content"]
    (p2,) = negatives_messages("Report text.", ["X.", "Y."])
    assert "<CAUSES>\n- X.\n- Y.\n</CAUSES>" in p2["content"]
    assert "provide a list of 10 possible causes" in p2["content"]


def test_prompt_4_context_first_has_the_same_words_and_a_shared_prefix():
    (paper,) = infer_messages("Report text.", "A cause.")
    (first,) = infer_messages("Report text.", "A cause.", context_first=True)
    assert sorted(paper["content"].splitlines()) == sorted(first["content"].splitlines())
    assert "</CONTEXT>\n<STATEMENT>\nA cause.\n</STATEMENT>" in first["content"]
    # Two statements about one report share everything up to the end of the context.
    (other,) = infer_messages("Report text.", "Fatigue.", context_first=True)
    shared = len(os.path.commonprefix([first["content"], other["content"]]))
    assert first["content"][:shared].endswith("Report text.\n</CONTEXT>\n<STATEMENT>\n")


@pytest.mark.parametrize(
    "reply, verdict",
    [
        ("True", True),
        ("Answer: The statement is True.", True),
        ("False", False),
        ("The statement is false.", False),
        ("True. It is not False that…", False),  # the paper's rule: "False" anywhere
        ("Falsely accused", True),
        ("", True),
    ],
)
def test_paper_verdict(reply, verdict):
    assert paper_verdict(reply) is verdict


def test_context_first_prompt_4_has_the_same_lines_in_another_order():
    from causalqa.deduction.prompts import INFER, INFER_CONTEXT_FIRST

    assert INFER_CONTEXT_FIRST != INFER
    assert sorted(INFER_CONTEXT_FIRST.splitlines()) == sorted(INFER.splitlines())
    assert INFER_CONTEXT_FIRST.index("<CONTEXT>") < INFER_CONTEXT_FIRST.index("<STATEMENT>")
