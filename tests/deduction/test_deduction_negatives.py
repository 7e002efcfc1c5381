"""Prompt 2 negatives (resumable store) and fast, schema-constrained mining."""

from __future__ import annotations

import json

from causalqa.deduction.dataset import Example, Report
from causalqa.deduction.event_graph import CausalKG
from causalqa.deduction.mining import fast_chains, fast_context, fast_schema, mine
from causalqa.deduction.negatives import (
    filter_items,
    load_store,
    mine_negatives,
    with_llm_negatives,
)
from causalqa.llm.testing import ScriptedLLM

CTX = (
    "The pilot did not remove frost from the wings before takeoff. The airplane stalled "
    "during rotation. The weather was clear and the pilot was rested."
)
CAUSES = ["The pilot's failure to remove frost from the wings before takeoff."]
REPLY = """1. The pilot's failure to remove frost from the wings before takeoff.
2. Pilot fatigue after a long duty day.
3. Pilot fatigue after a long duty day.
4. Wind.
5. Inadequate weather briefing before the flight."""


def test_filter_drops_copies_repeats_and_stubs(embedder):
    from causalqa.deduction.dataset import parse_list_items

    kept, dropped = filter_items(parse_list_items(REPLY), CAUSES, embedder)
    assert kept == [
        "Pilot fatigue after a long duty day.",
        "Inadequate weather briefing before the flight.",
    ]
    reasons = {d["why"].split()[0] for d in dropped}
    assert reasons == {"Levenshtein", "fewer"}  # parse_list_items already drops repeats


def test_mine_negatives_is_resumable(embedder, tmp_path):
    store = tmp_path / "neg.jsonl"
    llm = ScriptedLLM([REPLY])
    report = Report(report_id="A", context=CTX)
    s = mine_negatives([(report, CAUSES)], llm, store, embedder=embedder)
    assert s["asked"] == 1 and s["failed"] == 0 and s["kept_per_report"] >= 1
    rec = load_store(store)["A"]
    assert rec.raw == REPLY and rec.dropped and rec.completion_tokens > 0
    # Asked again: nothing to do (the scripted LLM has no reply left to give).
    assert mine_negatives([(report, CAUSES)], llm, store, embedder=embedder)["asked"] == 0
    ex = [Example(report_id="A", context=CTX, statement=CAUSES[0], label=True)]
    merged = with_llm_negatives(ex, store)
    assert merged[0] == ex[0]
    assert {e.source for e in merged[1:]} == {"false-llm"} and not any(e.label for e in merged[1:])
    # A store line torn by a killed run is lost alone.
    with store.open("a") as f:
        f.write('{"report_id": "B", "context_')
    assert set(load_store(store)) == {"A"}


def test_mine_negatives_in_flight_keeps_the_report_order_and_retries_429(embedder, tmp_path):
    from tests.llm.busy_llm import BusyLLM

    reports = [(Report(report_id=f"R{i}", context=f"{CTX} Flight {i}."), CAUSES) for i in range(6)]
    llm = BusyLLM(lambda messages: REPLY, busy=1, delay=lambda text: 0.05)  # a 429 first
    s = mine_negatives(reports, llm, tmp_path / "neg.jsonl", embedder=embedder, concurrency=3)
    assert s["asked"] == 6 and s["failed"] == 0 and llm.most > 1
    ids = [json.loads(line)["report_id"] for line in (tmp_path / "neg.jsonl").open()]
    assert ids == [f"R{i}" for i in range(6)]


def test_fast_mining_one_call_per_report(tmp_path):
    data = {
        "extracted": [["Frost on the wings", "Reduced lift", "Stall"]],
        "inferred": [{"effect": "Reduced lift"}, {"effect": "Pilot fatigue"}],
    }
    llm = ScriptedLLM([json.dumps(data)])
    kg = CausalKG.open(tmp_path / "kg")
    statements = {"A": ["Frost on the wings.", "Pilot fatigue."]}
    s = mine([Report(report_id="A", context=CTX)], llm, kg, statements=statements, mode="fast")
    assert s.calls == 1 and len(llm.calls) == 1
    assert llm.calls[0]["schema"] == fast_schema(2)
    kinds = sorted(c.kind for c in kg.chains)
    assert kinds == ["extracted", "inferred"]  # "Pilot fatigue" restates its cause: dropped
    inferred = [c for c in kg.chains if c.kind == "inferred"]
    assert (
        inferred[0].nodes[0] == "Frost on the wings"
        and inferred[0].statement == "Frost on the wings."
    )
    # Every unit counts as mined: a second run asks nothing; reparse keeps the chains.
    assert kg.is_mined("A", "infer", "Pilot fatigue.")
    assert (
        mine(
            [Report(report_id="A", context=CTX)], llm, kg, statements=statements, mode="fast"
        ).calls
        == 0
    )
    n = len(kg.chains)
    assert kg.reparse() == n
    assert fast_chains({"extracted": "junk"}, [], "A") == []


def test_a_long_report_is_shown_as_its_opening_and_causal_sentences():
    assert fast_context("  " + CTX + "\n") == CTX  # short: whole
    filler = [f"The airport had runway number {i} open that morning." for i in range(60)]
    causal = "The engine lost power because of fuel exhaustion."
    report = " ".join([CTX.split(". ")[0] + "."] + filler[:10] + [causal] + filler[10:])
    shown = fast_context(report, max_words=300)
    assert len(shown.split()) <= 300
    assert shown.startswith("The pilot did not remove frost") and causal in shown
    kept = [s for s in filler if s in shown]
    assert filler[0] in kept and filler[-1] not in kept  # earliest first, within the budget
    where = [shown.index(s) for s in kept]
    assert where == sorted(where)  # in report order
    before = [s for s in kept if filler.index(s) < 10]
    after = [s for s in kept if filler.index(s) >= 10]
    assert before and after
    assert all(shown.index(s) < shown.index(causal) for s in before)
    assert all(shown.index(s) > shown.index(causal) for s in after)


def test_a_long_report_without_sentence_ends_is_cut_to_the_budget():
    words = " ".join(f"word{i}" for i in range(900))
    assert fast_context(words, max_words=100).split() == words.split()[:50]
    opening = " ".join(f"w{i}" for i in range(500)) + "."
    shown = fast_context(opening + " The engine failed because of icing.", max_words=100)
    assert len(shown.split()) <= 100 and shown.startswith("w0 w1")
    assert shown.endswith("The engine failed because of icing.")
