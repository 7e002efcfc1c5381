"""Mining into a causal KG: extracted, inferred and similar edges; persistence; resuming."""

from __future__ import annotations

import json

import pytest

from causalqa.deduction.chains import EXTRACTED, INFERRED, SIMILAR, Chain
from causalqa.deduction.dataset import Report
from causalqa.deduction.event_graph import CausalKG, MiningRecord, context_id
from causalqa.deduction.mining import extract_chains, infer_chains, mine
from causalqa.errors import EventGraphError, LLMError, LLMUnavailableError
from causalqa.llm.testing import ScriptedLLM

EXTRACT_REPLY = {
    "A": "1. Frost on the wings --> Reduced lift --> Aerodynamic stall\n"
    "2. Aerodynamic stall -> Impact with runway",
    "B": "- Carburetor ice --> Loss of engine power --> Forced landing",
}


def scripted(replies=EXTRACT_REPLY):
    """Replies to Prompt 3 by report, and to Prompt 4 by statement."""

    def reply(messages):
        content = messages[-1]["content"]
        if content.startswith("Extract all the causal events"):
            return replies["A"] if "frost" in content else replies["B"]
        statement = content.split("<STATEMENT>\n")[1].split("\n</STATEMENT>")[0]
        return f"- {statement} --> Pilot error --> Aerodynamic stall (Accident)"

    return ScriptedLLM(reply)


def test_extract_and_infer_one_report():
    llm = scripted()
    r = extract_chains("A frost report.", llm, report_id="A")
    assert [c.nodes for c in r.chains] == [
        ("Frost on the wings", "Reduced lift", "Aerodynamic stall"),
        ("Aerodynamic stall", "Impact with runway"),
    ]
    assert r.record.task == "extract" and r.record.n_chains == 2 and r.record.raw
    i = infer_chains("A frost report.", "Haste", llm)
    assert i.chains[0].kind == INFERRED and i.chains[0].statement == "Haste"
    assert i.record.report_id == context_id("A frost report.")


def test_kg_nodes_edges_and_stats(embedder):
    kg = CausalKG()
    kg.add_chains(
        [
            Chain(("Frost on the wings", "Reduced lift", "Stall"), report_id="A"),
            Chain(("frost on the wings.", "Stall"), report_id="B"),  # same node, new edge
            Chain(("Haste", "Frost on the wings", "Stall (Accident)"), INFERRED, "A", "Haste"),
        ]
    )
    assert [n.text for n in kg.nodes] == ["Frost on the wings", "Reduced lift", "Stall", "Haste"]
    assert kg.nodes[0].kinds == {EXTRACTED, INFERRED} and kg.nodes[0].report_ids == {"A", "B"}
    s = kg.stats()
    assert s["nodes"] == 4
    assert s["edges_by_type"] == {EXTRACTED: 3, INFERRED: 2, SIMILAR: 0}
    assert s["pairs_by_kind"] == {EXTRACTED: 3, INFERRED: 2}
    # A repeated chain of the same report is not added twice.
    assert kg.add_chains([Chain(("Frost on the wings", "Stall"), report_id="B")]) == 0


def test_similar_edges_both_directions_weighted(make_embedder):
    import numpy as np

    fixed = {
        "a": np.array([1.0, 0.0, 0.0]),
        "b": np.array([0.8, 0.6, 0.0]),  # cos(a, b) = 0.8
        "c": np.array([0.0, 0.0, 1.0]),
    }
    kg = CausalKG()
    kg.add_chains([Chain(("a", "c"), report_id="r"), Chain(("b", "c"), report_id="s")])
    assert not kg.similar_current
    assert kg.link_similar(make_embedder(fixed=fixed)) == 2
    sim = {(e.source, e.target): e.weight for e in kg.edges_of_type(SIMILAR)}
    a, b = kg.find("a"), kg.find("b")
    assert sim == pytest.approx({(a, b): 0.8, (b, a): 0.8})
    assert kg.similar_current
    # Recomputing replaces, it does not accumulate; a higher threshold drops the pair.
    assert kg.link_similar(make_embedder(fixed=fixed), threshold=0.9) == 0


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_save_and_reload(tmp_path, embedder, fmt):
    llm = scripted()
    reports = [
        Report(report_id="A", context="A frost report."),
        Report(report_id="B", context="A carburetor report."),
    ]
    kg = CausalKG.open(tmp_path / "kg", fmt=fmt)
    mine(reports, llm, kg, statements={"A": ["Haste"]})
    n = len(kg.nodes)
    assert kg.link_similar(embedder, threshold=-1.0) == n * (n - 1)  # every ordered pair
    kg.save()
    assert (tmp_path / "kg" / f"nodes.{fmt}").exists()
    assert (tmp_path / "kg" / f"edges.{fmt}").exists()
    back = CausalKG.load(tmp_path / "kg")
    assert [n.text for n in back.nodes] == [n.text for n in kg.nodes]
    assert back.stats()["edges_by_type"] == kg.stats()["edges_by_type"]
    assert back.stats()["edges_by_type"][SIMILAR] == n * (n - 1)
    assert back.similar_current
    assert back.chains == kg.chains
    assert [r.unit for r in back.records] == [r.unit for r in kg.records]
    meta = json.loads((tmp_path / "kg" / "meta.json").read_text())
    assert meta["format"] == fmt and meta["stats"]["nodes"] == len(kg.nodes)
    g = back.to_networkx()
    assert g.number_of_nodes() == len(back.nodes)
    assert g.number_of_edges() == sum(back.stats()["edges_by_type"].values())


def test_mining_is_resumable_and_incremental(tmp_path):
    llm = scripted()
    a = Report(report_id="A", context="A frost report.")
    b = Report(report_id="B", context="A carburetor report.")
    kg = CausalKG.open(tmp_path / "kg")
    first = mine([a], llm, kg, statements={"A": ["Haste"]})
    assert (first.calls, first.skipped) == (2, 0)
    n_calls = len(llm.calls)
    # A fresh process: reopen the directory; only the new report is mined.
    kg2 = CausalKG.open(tmp_path / "kg")
    second = mine([a, b], llm, kg2, statements={"A": ["Haste"]})
    assert (second.calls, second.skipped) == (1, 2)
    assert len(llm.calls) == n_calls + 1
    assert kg2.is_mined("B") and kg2.is_mined("A", "infer", "Haste")
    # Times per report are recorded.
    secs = kg2.stats()["seconds_per_report"]
    assert secs["n"] == 2 and secs["total"] >= 0


def test_failed_calls_are_recorded_and_retried(tmp_path):
    class Flaky(ScriptedLLM):
        fail = True

        def _generate(self, messages, **kw):
            if self.fail:
                raise LLMError("the prompt has 9000 tokens; that exceeds the context window")
            return super()._generate(messages, **kw)

    llm = Flaky(lambda m: "- X --> Y")
    kg = CausalKG.open(tmp_path / "kg")
    s = mine([Report(report_id="A", context="Ctx.")], llm, kg)
    assert s.failed == 1 and "context window" in s.errors[0]
    assert kg.stats()["failed_calls"] == 1 and not kg.is_mined("A")
    llm.fail = False
    s = mine([Report(report_id="A", context="Ctx.")], llm, CausalKG.open(tmp_path / "kg"))
    assert s.calls == 1


def test_a_reports_calls_run_back_to_back_with_per_prompt_budgets():
    llm = scripted()
    a = Report(report_id="A", context="A frost report.")
    b = Report(report_id="B", context="A carburetor report.")
    kg = CausalKG()
    mine([a, b], llm, kg, statements={"A": ["Haste", "Fatigue"], "B": ["Ice"]})
    order = [(r.report_id, r.task, r.statement) for r in kg.records]
    assert order == [
        ("A", "infer", "Haste"),
        ("A", "infer", "Fatigue"),
        ("A", "extract", None),
        ("B", "infer", "Ice"),
        ("B", "extract", None),
    ]
    assert [c["max_tokens"] for c in llm.calls] == [256, 256, 512, 256, 512]
    assert [r.prompt for r in kg.records][:3] == ["P4-context-first"] * 2 + ["P3"]
    assert all(r.max_tokens == c["max_tokens"] for r, c in zip(kg.records, llm.calls))
    # Prompt 4 with the context first: consecutive calls share the prompt up to the
    # statement, the part a KV cache keeps.
    first, second = (c["messages"][-1]["content"] for c in llm.calls[:2])
    assert first.split("<STATEMENT>")[0] == second.split("<STATEMENT>")[0]
    assert "A frost report." in first.split("<STATEMENT>")[0]
    # The paper's block order, and one budget for both prompts, on request.
    llm2 = scripted()
    kg2 = CausalKG()
    mine([a], llm2, kg2, statements={"A": ["Haste"]}, context_first=False, max_tokens=100)
    assert [c["max_tokens"] for c in llm2.calls] == [100, 100]
    assert kg2.records[0].prompt == "P4"
    paper = llm2.calls[0]["messages"][-1]["content"]
    assert paper.index("<STATEMENT>") < paper.index("<CONTEXT>")


def test_a_reply_cut_off_by_the_budget_keeps_its_complete_chains():
    llm = ScriptedLLM(
        ["1. Ice --> Stall --> Stall --> Stall --> Impact\n2. Fatigue --> Late fl"],
        finish_reason="length",
    )
    r = extract_chains("A report.", llm, report_id="A")
    # The loop collapses; the second chain lost its cut event and, with one event left,
    # is no chain.
    assert [c.nodes for c in r.chains] == [("Ice", "Stall", "Impact")]
    assert r.record.finish_reason == "length" and r.record.n_chains == 1
    assert "Late fl" in r.record.raw  # the raw reply is kept whole


def test_a_failed_call_records_the_time_it_took(tmp_path):
    class Slow(ScriptedLLM):
        def _generate(self, messages, **kw):
            raise LLMError("local model did not finish within 300 s")

    kg = CausalKG()
    mine([Report(report_id="A", context="Ctx.")], Slow(), kg, statements={"A": ["S"]})
    assert [(r.task, r.prompt, r.error is not None) for r in kg.records] == [
        ("infer", "P4-context-first", True),
        ("extract", "P3", True),
    ]
    assert all(r.seconds >= 0 for r in kg.records)


def test_reparse_rebuilds_chains_from_recorded_replies_without_the_llm(tmp_path, embedder):
    echo = (
        "1. Lack of positive train control system --> Train B not stopped before red signal\n"
        "2. Icing --> Stall --> Stall --> Impact"
    )
    kg = CausalKG.open(tmp_path / "kg")
    # As an older parser left it: the edited example kept, the loop not collapsed.
    kg.add_chains(
        [
            Chain(("Lack of positive train control system", "Train B not stopped"), report_id="A"),
            Chain(("Icing", "Stall", "Stall", "Impact"), report_id="A"),
            Chain(("Fatigue", "Hard landing"), report_id="B"),  # added by hand: no record
        ]
    )
    kg.add_record(MiningRecord(report_id="A", task="extract", raw=echo, n_chains=2))
    kg.add_record(MiningRecord(report_id="C", task="extract", raw="- X --> Y", error="timeout"))
    assert kg.reparse() == 2
    assert [c.nodes for c in kg.chains] == [
        ("Fatigue", "Hard landing"),
        ("Icing", "Stall", "Impact"),
    ]
    assert kg.records[0].n_chains == 1 and not kg.similar_current
    kg.link_similar(embedder)
    kg.save()
    back = CausalKG.load(tmp_path / "kg")
    assert [c.nodes for c in back.chains] == [c.nodes for c in kg.chains]
    assert back.records[0].n_chains == 1 and back.similar_current
    assert back.find("Train B not stopped") is None


def test_unavailable_model_stops_mining(tmp_path):
    class Down(ScriptedLLM):
        def _generate(self, messages, **kw):
            raise LLMUnavailableError("no model")

    with pytest.raises(LLMUnavailableError):
        mine([Report(report_id="A", context="Ctx.")], Down(), CausalKG())


def test_torn_last_line_is_ignored_but_corruption_is_not(tmp_path):
    kg = CausalKG.open(tmp_path / "kg")
    kg.add_chains([Chain(("A", "B"), report_id="r")])
    kg.add_record(MiningRecord(report_id="r", task="extract", n_chains=1))
    with (tmp_path / "kg" / "chains.jsonl").open("a") as f:
        f.write('{"nodes": ["C", "D"], "ki')  # killed mid-write
    assert len(CausalKG.load(tmp_path / "kg").chains) == 1
    (tmp_path / "kg" / "chains.jsonl").write_text('garbage\n{"nodes": ["A", "B"]}\n')
    with pytest.raises(EventGraphError, match="chains.jsonl:1"):
        CausalKG.load(tmp_path / "kg")


def test_load_errors(tmp_path):
    with pytest.raises(EventGraphError, match="no KG directory"):
        CausalKG.load(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(EventGraphError, match="holds no causal KG"):
        CausalKG.load(tmp_path / "empty")
    (tmp_path / "file").write_text("x")
    with pytest.raises(EventGraphError, match="is a file"):
        CausalKG.open(tmp_path / "file")


class _Parallel(ScriptedLLM):
    """`scripted()` answers after a short wait, counting the calls in flight; the first
    `busy` calls get a 429 (as a server with full slots answers)."""

    def __init__(self, busy: int = 0):
        import threading

        super().__init__(scripted()._replies)
        self.busy = busy
        self.in_flight = 0
        self.most = 0
        self._count = threading.Lock()

    def _generate(self, messages, **kw):
        import time

        from causalqa.errors import LLMRateLimitError

        with self._count:
            if self.busy:
                self.busy -= 1
                raise LLMRateLimitError("429 from the server", retry_after=0.01)
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
        try:
            time.sleep(0.05)
            return super()._generate(messages, **kw)
        finally:
            with self._count:
                self.in_flight -= 1


def test_mining_with_calls_in_flight_gives_the_same_kg_in_the_same_order():
    reports = [
        Report(report_id=f"R{i}", context=("A frost report." if i % 2 else "A carb report."))
        for i in range(6)
    ]
    statements = {f"R{i}": ["Haste", f"Cause {i}"] for i in range(6)}
    one, four = CausalKG(), CausalKG()
    s1 = mine(reports, _Parallel(), one, statements=statements)
    llm = _Parallel(busy=2)
    s4 = mine(reports, llm, four, statements=statements, concurrency=4)
    assert llm.most > 1  # calls did overlap
    assert (s4.calls, s4.failed) == (s1.calls, 0) == (18, 0)  # the 429s were retried
    assert one.chains and [c.nodes for c in four.chains] == [c.nodes for c in one.chains]
    assert [r.unit for r in four.records] == [r.unit for r in one.records]
    fast1, fast4 = CausalKG(), CausalKG()
    mine(reports, scripted_fast(), fast1, statements=statements, mode="fast")
    mine(reports, scripted_fast(), fast4, statements=statements, mode="fast", concurrency=3)
    assert fast1.chains and not any(r.error for r in fast1.records)
    assert [c.nodes for c in fast4.chains] == [c.nodes for c in fast1.chains]
    assert [r.unit for r in fast4.records] == [r.unit for r in fast1.records]


def scripted_fast():
    def reply(messages):
        content = messages[-1]["content"]
        cause = "Frost" if "frost" in content else "Carburetor ice"
        return json.dumps(
            {
                "extracted": [[cause, "Stall", "Impact"]],
                "inferred": [{"effect": "Stall"}, {"effect": "Impact"}],
            }
        )

    return ScriptedLLM(reply)
