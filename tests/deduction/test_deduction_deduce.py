"""`deduce` with a scripted LLM: formats, verdict methods, relations, input checks."""

from __future__ import annotations

import pytest

from causalqa.deduction.chains import INFERRED, Chain
from causalqa.deduction.deduce import check_text, deduce, read_context
from causalqa.deduction.event_graph import CausalKG, MiningRecord, context_sha
from causalqa.deduction.retrieve import SemanticRetriever
from causalqa.errors import ContextError, DeductionError, UnknownFormatError
from causalqa.llm.testing import ScriptedLLM

CTX = (
    "The pilot did not remove frost from the wings before takeoff. During rotation the "
    "airplane exceeded its critical angle of attack, stalled, and impacted the runway."
)
ST = "The pilot's decision to take off with frost on the wings."


def test_logprobs_verdict_and_probability():
    llm = ScriptedLLM(label_scores={"True": -2.0, "False": -0.1})
    d = deduce(CTX, ST, llm)
    assert (d.verdict, d.label, d.fmt, d.method) == (False, "False", "V1", "logprobs")
    assert d.probability == pytest.approx(0.13, abs=0.01)
    assert d.reply is None and d.logprobs == {"True": -2.0, "False": -0.1}
    (call,) = llm.calls
    assert call["labels"] == ["True", "False"]
    assert call["prompt"][0]["content"].endswith("</STATEMENT>\n\nAnswer:")


@pytest.mark.parametrize(
    "reply, verdict", [("True", True), ("Answer: The statement is False.", False)]
)
def test_text_verdict_is_the_papers_rule(reply, verdict):
    d = deduce(CTX, ST, ScriptedLLM([reply]), method="text")
    assert d.verdict is verdict and d.reply == reply and d.probability is None


def test_both_takes_the_verdict_from_text_and_probability_from_logprobs():
    d = deduce(
        CTX, ST, ScriptedLLM(["True"], label_scores={"True": -3, "False": -0.05}), method="both"
    )
    assert d.verdict is True and d.probability < 0.1


def test_retriever_defaults_to_v6_multi_turn(embedder):
    kg = CausalKG()
    kg.add_chains([Chain(("Frost on the wings", "Reduced lift", "Stall"), report_id="other")])
    r = SemanticRetriever(embedder).fit(kg)
    llm = ScriptedLLM(label_scores={"True": -0.1, "False": -2.0})
    d = deduce(CTX, ST, llm, r)
    assert d.fmt == "V6" and d.retriever == "semantic" and d.verdict
    assert [c["text"] for c in d.chains] == ["Frost on the wings --> Reduced lift --> Stall"]
    msgs = llm.calls[0]["prompt"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert "- Frost on the wings --> Reduced lift --> Stall" in msgs[0]["content"]


def test_retrieved_formats_need_a_retriever():
    with pytest.raises(DeductionError, match="no retriever"):
        deduce(CTX, ST, ScriptedLLM(), fmt="V7")
    with pytest.raises(UnknownFormatError):
        deduce(CTX, ST, ScriptedLLM(), fmt="V0")


def test_formats_with_extracted_and_inferred_mine_them_when_missing():
    def reply(messages):
        content = messages[-1]["content"]
        if content.startswith("Extract all"):
            return "1. Frost --> Lift loss --> Stall"
        if content.startswith("Based on your knowledge"):
            return "- Frost on the wings --> Stall (Accident)"
        raise AssertionError("the verdict is read from log-probabilities")

    llm = ScriptedLLM(reply, label_scores={"True": -0.5, "False": -1.0})
    d = deduce(CTX, ST, llm, fmt="V5")
    assert d.extracted == ["Frost --> Lift loss --> Stall"]
    assert d.inferred == ["Frost on the wings --> Stall"]
    task = llm.calls[-1]["prompt"][2]["content"]
    assert "Relations extracted from <CONTEXT>:\n- Frost --> Lift loss --> Stall" in task
    assert d.usage["completion_tokens"] > 0


def test_formats_take_relations_from_the_kg_or_arguments():
    kg = CausalKG()
    kg.add_chains(
        [
            Chain(("Frost", "Stall"), report_id="r1"),
            Chain(("Pilot's decision", "Stall"), INFERRED, "r1", ST),
        ]
    )
    kg.add_record(MiningRecord(report_id="r1", task="extract", context_sha=context_sha(CTX)))
    llm = ScriptedLLM(label_scores={"True": -0.5, "False": -1.0})  # no generation allowed
    d = deduce(CTX, ST, llm, fmt="V5", kg=kg)
    assert d.extracted == ["Frost --> Stall"] and d.inferred == ["Pilot's decision --> Stall"]
    d = deduce(CTX, ST, llm, fmt="V3", extracted=[Chain(("X", "Y"))])
    assert d.extracted == ["X --> Y"]


def test_a_kg_that_mined_the_context_without_chains_is_not_mined_again():
    # The 1.5B model often answers Prompt 4 with the prompt's own example: no chain. The
    # KG records that the statement was mined; deduce shows "None", no second call.
    kg = CausalKG()
    sha = context_sha(CTX)
    kg.add_record(MiningRecord(report_id="r1", task="extract", context_sha=sha))
    kg.add_record(MiningRecord(report_id="r1", task="infer", statement=ST, context_sha=sha))
    llm = ScriptedLLM(label_scores={"True": -0.5, "False": -1.0})  # no generation allowed
    d = deduce(CTX, ST, llm, fmt="V5", kg=kg)
    assert d.extracted == [] and d.inferred == []
    assert "Relations extracted from <CONTEXT>:\nNone" in llm.calls[-1]["prompt"][2]["content"]
    assert kg.context_mined(CTX, "infer", ST.upper()) and not kg.context_mined(CTX, "infer", "X")
    # A failed call is not a mined unit: that statement is mined now.
    kg.add_record(MiningRecord(report_id="r1", task="infer", statement="Y", error="timeout"))
    replies = ScriptedLLM(["- Y --> Stall"], label_scores={"True": -0.5, "False": -1.0})
    assert deduce(CTX, "Y happened", replies, fmt="V4", kg=kg).inferred == ["Y --> Stall"]


@pytest.mark.parametrize(
    "context, problem",
    [
        ("", "empty"),
        ("   \n\t", "empty"),
        ("Engine failed.", "too short"),
        ("xqzt brrk plmnt vxkr zzkt qwrt hjkl mnbv crtz frtz", "garbled"),
        ("1234 5678 %%%% #### 9999 0000 ---- **** ++++ a b c d e f g h", "garbled"),
        ("\x00\x01\x02binary PK\x03\x04 stuff here and more words to pass", "binary"),
        # base64 of random bytes: letters, no spaces (it once reached the model).
        ("dGhlIHBpbG90IGRpZCBub3QgcmVtb3ZlIGZyb3N0IGZyb20gdGhlIHdpbmdzIGJlZm9yZQ" * 8, "garbled"),
        # random "words" with vowels, but none of the commonest English words.
        (" ".join(["kelavo musiru tapeno dirafu goleni basuke"] * 5), "English"),
    ],
)
def test_empty_or_garbled_context_is_a_clear_error(context, problem):
    with pytest.raises(ContextError, match=problem) as info:
        deduce(context, ST, ScriptedLLM())
    assert info.value.hint


def test_statement_is_checked_too():
    with pytest.raises(ContextError, match="statement is empty"):
        deduce(CTX, " ", ScriptedLLM())
    assert check_text("Fatigue.", what="statement", min_words=1) == "Fatigue."


def test_read_context_file_or_text(tmp_path):
    f = tmp_path / "report.txt"
    f.write_text(CTX, encoding="utf-8")
    assert read_context(str(f)) == CTX
    assert read_context(CTX) == CTX
    assert read_context("Short-text-without-spaces") == "Short-text-without-spaces"
    with pytest.raises(ContextError, match="no such context file"):
        read_context(str(tmp_path / "missing.txt"))
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ContextError, match="not UTF-8"):
        read_context(str(tmp_path / "bin.txt"))
    with pytest.raises(ContextError, match="directory"):
        read_context(tmp_path)


def test_rotg_is_found_by_name_without_importing_it_first():
    import subprocess
    import sys

    code = (
        "from causalqa.deduction.retrieve import get_retriever;"
        "print(type(get_retriever('rotg')).__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "RoTGRetriever"
