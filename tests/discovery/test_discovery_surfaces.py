"""The discovery functions every surface calls: `pair.discover_pairs` (a batch of pairs by
either method, a failing pair reported and the rest judged) and `graph.find_graph` (a graph
by either method, rendered as the CLI's JSON and Markdown, written as GraphML)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from tests.discovery.test_discovery_pair import PromptLLM, tiny_graph

from causalqa.discovery.graph import GraphFinding, check_graph_out, find_graph
from causalqa.discovery.pair import (
    PairFailure,
    PairItem,
    discover_pairs,
    judge_pair,
    needs_kg,
    needs_llm,
    pair_kg,
    read_pairs,
)
from causalqa.errors import (
    ConfigError,
    DataFileError,
    GraphDiscoveryError,
    KGStoreError,
    MentionError,
    PairDiscoveryError,
)
from causalqa.kg import KnowledgeGraph


@pytest.fixture
def store(tmp_path):
    KnowledgeGraph.build(tiny_graph(), tmp_path / "store").close()
    with KnowledgeGraph.open(tmp_path / "store") as kg:
        yield kg


def first_causes_second(first: str, second: str, p_yes: float = 0.9, p_no: float = 0.2):
    """An LLM whose P(causal) is `p_yes` when the prompt's pair is (first, second), else
    `p_no`: the graph it implies has the one edge first → second."""
    return PromptLLM(lambda text: p_yes if f"[Pair]: {first} and {second}" in text else p_no)


# -- pairs -------------------------------------------------------------------------------------
def test_a_batch_keeps_its_order_and_reports_the_pair_that_failed(evidence_model):
    judge = evidence_model[0]
    items = [
        PairItem("GENEX", "cancerX", "GENEX causes cancerX in patients .", line=1),
        PairItem("GENEY", "melanoma", "GENEY sits near cancerY .", line=2),  # no melanoma
        PairItem("GENEZ", "cancerZ", "GENEZ was measured beside cancerZ .", line=3),
    ]
    results = list(discover_pairs(items, judge=judge, capture_errors=True))
    assert [r.a for r in results] == ["GENEX", "GENEY", "GENEZ"]
    assert isinstance(results[1], PairFailure) and results[1].line == 2
    assert "'melanoma' does not occur" in results[1].to_dict()["error"]
    # each verdict is the one judge_pair gives the pair on its own, plus the note saying
    # why the LLM was left out (this model has no LLM feature)
    first = results[0].to_dict()
    alone = judge_pair("GENEX", "cancerX", judge=judge, context=items[0].context).to_dict()
    alone["notes"].append("this evidence model has no LLM feature")
    first.pop("seconds"), alone.pop("seconds")
    assert first == alone
    # without capture_errors the failing pair ends the run with its own error
    with pytest.raises(MentionError, match="does not occur"):
        list(discover_pairs(items, judge=judge))


def test_the_paper_method_asks_the_llm_with_the_ranked_paths(store):
    llm = PromptLLM(lambda text: 0.8 if "[Relation Paths]" in text else 0.3)
    items = [PairItem("Raloxifene", "breast cancer"), PairItem("Raloxifene", "lonely")]
    with_path, without = discover_pairs(
        items, method="llm", kg=store, llm=llm, ranker="random", decision="argmax"
    )
    assert with_path.verdict == "causal" and with_path.probability == pytest.approx(0.8)
    assert len(with_path.paths) == 1 and with_path.ranker == "random"
    assert without.verdict == "non-causal" and without.probability == pytest.approx(0.3)
    assert without.paths == [] and without.to_text()[0].startswith("non-causal Raloxifene")


def test_an_unknown_method_is_refused():
    with pytest.raises(PairDiscoveryError, match="unknown method"):
        list(discover_pairs([PairItem("a", "b")], method="oracle"))


def test_what_a_surface_must_open_before_judging(evidence_model):
    text_only = evidence_model[0]  # trained without the LLM feature
    with_sentence, without = PairItem("a", "b", "a causes b ."), PairItem("a", "b")
    assert not needs_kg("evidence", [with_sentence]) and needs_kg("evidence", [without])
    assert needs_kg("llm", [with_sentence])
    assert needs_llm("llm") and not needs_llm("evidence", text_only)

    def missing():
        raise KGStoreError("no knowledge graph store")

    assert pair_kg(missing, need=False) is None
    with pytest.raises(KGStoreError):
        pair_kg(missing, need=True)


def test_a_batch_file_is_checked_line_by_line(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text('{"a": "x", "b": "y"}\n\n{"a": "u", "b": "v", "context": "u makes v ."}\n')
    assert read_pairs(good) == [PairItem("x", "y", None, 1), PairItem("u", "v", "u makes v .", 3)]
    for text, where in (
        ('{"a": "x", "b": "y"}\n{"a": "x"}\n', ":2:"),
        ('{"a": "x", "b": "y", "context": 3}\n', ":1:"),
        ("[1, 2]\n", ":1:"),
    ):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text)
        with pytest.raises(DataFileError, match=where):
            read_pairs(bad)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(DataFileError, match="no pair"):
        read_pairs(empty)


# -- graphs ------------------------------------------------------------------------------------
def test_the_llm_graph_by_the_papers_rule(tmp_path):
    llm = first_causes_second("Smoking", "Cancer")
    found = find_graph(["Smoking", "Cancer"], llm=llm, ranker="none", decision="argmax")
    assert isinstance(found, GraphFinding) and found.discovery.edges() == [("Smoking", "Cancer")]
    d = found.to_dict()
    assert list(d)[:2] == ["model", "variables"] and d["model"] == "scripted"
    assert d["decision"] == "argmax" and d["probability"] == [[0.0, 0.9], [0.2, 0.0]]
    assert "| Smoking | Cancer | 0.900 | 0.200 | (none) |" in found.to_markdown()
    written = found.write_graphml(tmp_path / "g.graphml")
    assert written["edges"] == [["Smoking", "Cancer"]] and written["dropped_for_acyclicity"] == []
    assert list(found.to_dict())[-1] == "written"
    assert found.to_markdown().endswith("Wrote " + str(tmp_path / "g.graphml") + " (1 edges).")


def test_the_surfaces_default_rule_is_batch_calibration():
    # Every question scores the same, so each log-odds equals the batch mean: no edge, and
    # P = logistic(0) = 0.5 off the diagonal; two variables ask 2 < 20 questions (a note).
    llm = PromptLLM(lambda text: 0.7)
    found = find_graph(["a", "b"], llm=llm, ranker="none")
    d = found.to_dict()
    assert d["decision"] == "batch" and d["edges"] == []
    assert d["probability"] == [[0.0, 0.5], [0.5, 0.0]]
    assert any("only 2 questions" in n for n in d["notes"])


def test_statistical_baselines_run_on_observations():
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    data = pd.DataFrame({"Smoking": x, "Cancer": 2 * x + rng.normal(size=300)})
    found = find_graph(["Smoking", "Cancer"], llm=first_causes_second("Smoking", "Cancer"),
                       ranker="none", observations=data)  # fmt: skip
    methods = [r["method"] for r in found.to_dict()["statistical"]]
    assert methods == ["PC Algorithm", "Exact Search (A*)", "DirectLiNGAM"]
    assert "Statistical baselines on the data:" in found.to_markdown()


def test_the_evidence_graph_with_observations(evidence_model, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=400)
    data = pd.DataFrame({"GENEK": x, "cancerK": x + rng.normal(size=400)})
    found = find_graph(["GENEK", "cancerK"], method="evidence", judge=evidence_model[0],
                       context="GENEK causes cancerK in mice .", observations=data)  # fmt: skip
    d = found.to_dict()
    assert list(d) == ["method", "text_model", "pairs", "graph", "statistical"]
    assert d["pairs"][0]["a"] == "GENEK" and d["pairs"][0]["evidence"] == "text"
    # X and Y are correlated, so PC keeps an adjacency between them
    assert d["graph"]["pc_edges"] and "Knowledge-guided PC:" in found.to_markdown()
    found.write_graphml(tmp_path / "g.graphml")
    assert list(found.to_dict())[-1] == "written"
    json.dumps(found.to_dict())  # all plain JSON


def test_bad_graph_requests_are_refused(tmp_path):
    with pytest.raises(GraphDiscoveryError, match="unknown method"):
        find_graph(["a", "b"], method="vote")
    with pytest.raises(GraphDiscoveryError, match="require must be a probability"):
        find_graph(["a", "b"], method="evidence", require=2.0)
    with pytest.raises(ConfigError, match="GraphML"):
        check_graph_out(tmp_path / "g.txt")
    (tmp_path / "g.graphml").write_text("")
    with pytest.raises(ConfigError, match="exists"):
        check_graph_out(tmp_path / "g.graphml")
    check_graph_out(tmp_path / "g.graphml", force=True)
