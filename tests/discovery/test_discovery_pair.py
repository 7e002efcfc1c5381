"""Zero-shot pair classification, discover_pair on a tiny graph, discover_graph's direction
rule and the pair benchmark — all with scripted LLMs."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from tests.conftest import requires_small_model

from causalqa.bench.discovery_pairs import PAPER_TABLES, benchmark_pairs, plot_pairs
from causalqa.bench.discovery_rankers import trained_ranker
from causalqa.discovery.graph import DIRECTION_RULE, decide_directions, discover_graph
from causalqa.discovery.pair import (
    LABELS,
    NO_ENTITY,
    NO_PATH,
    NO_REFERENCE,
    PairDiscoveryError,
    classify_pair,
    discover_pair,
    pair_prompt,
    path_sentences,
    readable_relation,
    verbalise_path,
)
from causalqa.discovery.pathdata import PathCandidate, clean_sentence
from causalqa.discovery.rankers import RandomRanker, get_ranker, load_ranker
from causalqa.errors import DataFileError, GraphDiscoveryError, ReferenceThresholdsError
from causalqa.kg import GraphData, KnowledgeGraph
from causalqa.llm.base import LabelScores
from causalqa.llm.testing import ScriptedLLM
from causalqa.metrics import binary_scores as prf

NO_EMBED = {"embeddings": False}


class PromptLLM(ScriptedLLM):
    """Label scores as a function of the prompt text (the user turn)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def _score_labels(self, prompt, labels):
        text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
        self.calls.append({"prompt": text, "labels": labels})
        p = self.fn(text)
        return LabelScores({"causal": np.log(p), "non-causal": np.log(1 - p)})


def tiny_graph() -> GraphData:
    nodes = pd.DataFrame(
        {
            "id": ["C1", "G1", "G2", "D1", "S1", "D2", "X1"],
            "name": ["Raloxifene", "ERBB2", "TXNRD1", "melanoma", "Melanoma", "breast cancer",
                     "lonely"],
            "kind": ["Compound", "Gene", "Gene", "Disease", "Side Effect", "Disease", "Gene"],
        }
    )  # fmt: skip
    edges = pd.DataFrame(
        [
            ("C1", "G1", "binds", "CbG"),
            ("D1", "G1", "associates", "DaG"),
            ("C1", "D2", "treats", "CtD"),
            ("D2", "G1", "associates", "DaG"),
            ("G2", "G1", "regulates", "Gr>G"),
            ("C1", "G2", "binds", "CbG"),
        ],
        columns=["source", "target", "relation", "abbrev"],
    )
    return GraphData(nodes, edges, source={"format": "test"})


@pytest.fixture(autouse=True)
def _own_home(tmp_path, monkeypatch):
    """Reference thresholds saved by any earlier run (for the scripted model) stay out."""
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))


@pytest.fixture(scope="module")
def kg(tmp_path_factory):
    graph = KnowledgeGraph.build(tiny_graph(), tmp_path_factory.mktemp("kg") / "store")
    yield graph
    graph.close()


# -- prompt and decision ---------------------------------------------------------------


def test_prompt_has_the_papers_blocks_in_order():
    text = pair_prompt(
        "dihydrotachysterol",
        "hypercalcemia",
        paths=["FGF6 - tendon - SDRDL - FGFR2 - prostate cancer"],
        context="Severe  hypercalcemia in a patient\ntreated with dihydrotachysterol.",
        subject="drug and side effect",
    )
    head, body = text.split("\n")
    assert head == (
        "Given the following information, classify the relation between the drug and side "
        "effect. If there is a cause-effect relationship, state causal; otherwise, state "
        "non-causal."
    )
    assert body == (
        "[Pair]: dihydrotachysterol and hypercalcemia [Textual context]: Severe hypercalcemia "
        "in a patient treated with dihydrotachysterol. [Relation Paths]: FGF6 - tendon - "
        "SDRDL - FGFR2 - prostate cancer [Relation]:"
    )


def test_prompt_without_context_or_paths_leaves_the_blocks_out():
    text = pair_prompt("a", "b")
    assert "[Textual context]" not in text and "[Relation Paths]" not in text
    assert text.endswith("[Pair]: a and b [Relation]:")
    two = pair_prompt("a", "b", paths=[PathCandidate(0, ("a", "x", "b")), "a - y - b"])
    assert "[Relation Paths]: a - x - b; a - y - b [Relation]:" in two


def test_label_decision_uses_log_probabilities():
    llm = ScriptedLLM(label_scores={"causal": -0.2, "non-causal": -1.9})
    v = classify_pair("a", "b", llm, paths=["a - x - b"], context="a causes b")
    assert v.verdict == "causal" and v.causal
    assert v.probability == pytest.approx(1 / (1 + np.exp(-1.7)))
    assert v.paths == ["a - x - b"]
    assert llm.calls[0]["labels"] == list(LABELS)
    assert llm.calls[0]["prompt"][0]["content"] == v.prompt  # the prompt is the user turn
    no = classify_pair("a", "b", ScriptedLLM(label_scores={"causal": -3, "non-causal": -0.1}))
    assert no.verdict == "non-causal" and no.probability < 0.5
    raw = ScriptedLLM(label_scores={"causal": -1})
    classify_pair("a", "b", raw, chat=False)
    assert isinstance(raw.calls[0]["prompt"], str)


class _PriorLLM(ScriptedLLM):
    """Prefers "causal" on any prompt, a little less on a real one than on "N/A"."""

    def _score_labels(self, prompt, labels):
        from causalqa.llm.base import LabelScores

        self.calls.append({"prompt": prompt, "labels": labels})
        text = prompt[0]["content"] if isinstance(prompt, list) else prompt
        content_free = "[Pair]: N/A and N/A" in text
        scores = (
            {"causal": -0.5, "non-causal": -1.0}
            if content_free
            else {"causal": -0.6, "non-causal": -0.9}
        )
        return LabelScores(scores)


def test_contextual_calibration_divides_out_the_label_prior():
    raw = classify_pair("a", "b", _PriorLLM(), paths=["a - x - b"], context="a and b")
    assert raw.causal and raw.content_free is None  # the paper's argmax: causal
    llm = _PriorLLM()
    cal = classify_pair("a", "b", llm, paths=["a - x - b"], context="a and b", calibrate=True)
    assert not cal.causal  # -0.6+0.5 < -0.9+1.0: the real prompt moved away from causal
    assert cal.probability < 0.5 < cal.raw_probability
    free = llm.calls[1]["prompt"][0]["content"]
    assert "[Textual context]: N/A" in free and "[Relation Paths]: N/A [Relation]:" in free
    # precomputed priors are used as given, with no extra call
    llm2 = _PriorLLM()
    again = classify_pair(
        "a", "b", llm2, paths=["a - x - b"], context="a and b", calibrate=cal.content_free
    )
    assert len(llm2.calls) == 1 and again.probability == pytest.approx(cal.probability)
    assert again.to_dict()["calibrated"] is True


# -- discover_pair ---------------------------------------------------------------------


def test_discover_pair_puts_the_top_path_in_the_prompt(kg):
    llm = ScriptedLLM(label_scores={"causal": -0.1, "non-causal": -2.5})
    v = discover_pair(
        "Raloxifene",
        "breast cancer",
        kg=kg,
        llm=llm,
        ranker="random",
        link_options=NO_EMBED,
        calibrate=False,
    )
    assert v.causal and v.ranker == "random" and v.notes == []
    assert len(v.paths) == 1 and v.candidates >= 2
    assert v.paths[0].startswith("Raloxifene - ") and v.paths[0].endswith(" - breast cancer")
    assert "[Relation Paths]: " + v.paths[0] in v.prompt
    assert v.linked["a"]["best"]["id"] == "C1"
    d = v.to_dict()
    assert d["verdict"] == "causal" and d["paths"] == v.paths and json.dumps(d)


def test_discover_pair_top_k_and_ranker_instance(kg):
    llm = ScriptedLLM(label_scores={"causal": -1.0})
    v = discover_pair(
        "Raloxifene", "ERBB2", kg=kg, llm=llm, ranker=RandomRanker(3), top_k=3,
        link_options=NO_EMBED,
    )  # fmt: skip
    assert len(v.paths) == 3 and len(set(v.paths)) == 3
    none = discover_pair("Raloxifene", "ERBB2", kg=kg, llm=llm, ranker="none")
    assert none.paths == [] and "[Relation Paths]" not in none.prompt


def test_unknown_or_ambiguous_entity_decides_from_the_pair_alone(kg):
    llm = ScriptedLLM(label_scores={"causal": -2.0, "non-causal": -0.5})
    v = discover_pair("Raloxifene", "zzqx unknown", kg=kg, llm=llm, link_options=NO_EMBED)
    assert v.verdict == "non-causal" and v.paths == []
    assert any("matches no node" in n for n in v.notes) and NO_ENTITY in v.notes
    amb = discover_pair("Raloxifene", "melanoma", kg=kg, llm=llm, link_options=NO_EMBED)
    assert any("ambiguous" in n and "Side Effect" in n for n in amb.notes)
    assert amb.paths == []
    fixed = discover_pair(
        "Raloxifene", "melanoma", kg=kg, llm=llm, kinds_b=["Disease"], ranker="random",
        link_options=NO_EMBED,
    )  # fmt: skip
    # (the scripted model has no reference thresholds: content-free, with a note)
    assert fixed.notes == [NO_REFERENCE] and fixed.decision == "content-free"
    assert fixed.paths and fixed.paths[0].endswith("melanoma")


def test_reference_thresholds_decide_one_pair(kg, tmp_path, monkeypatch):
    from causalqa.discovery.reference import ReferenceThresholds, reference_for, save_reference

    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    # log-odds of causal: -1.0 with or without a path
    llm = ScriptedLLM(label_scores={"causal": -1.3133, "non-causal": -0.3133})
    assert reference_for("scripted") is None
    ref = ReferenceThresholds(
        "scripted", {"no-context": {0: -0.2, 1: -1.4}, "context": {0: 0.5}},
        {"no-context": {0: 10, 1: 10}, "context": {0: 10}},
    )  # fmt: skip
    saved = save_reference(ref)
    assert saved.is_file() and reference_for("scripted").means == ref.means
    # one path: -1.0 is above the reference mean for one path (-1.4), so causal
    v = discover_pair("Raloxifene", "breast cancer", kg=kg, llm=llm, ranker="random",
                      link_options=NO_EMBED)  # fmt: skip
    assert v.decision == "reference" and v.threshold == -1.4 and v.causal
    assert v.probability == pytest.approx(1 / (1 + np.exp(-0.4)), abs=1e-3)
    assert v.to_dict()["threshold"] == -1.4 and NO_REFERENCE not in v.notes
    # no path: -1.0 is below the no-path mean (-0.2)
    none = discover_pair("Raloxifene", "breast cancer", kg=kg, llm=llm, ranker="none")
    assert none.threshold == -0.2 and not none.causal
    # three paths use the largest measured count; a context uses the context table
    three = discover_pair("Raloxifene", "breast cancer", kg=kg, llm=llm, ranker="random",
                          top_k=3, link_options=NO_EMBED)  # fmt: skip
    assert len(three.paths) == 3 and three.threshold == -1.4
    ctx = discover_pair("Raloxifene", "breast cancer", kg=kg, llm=llm, ranker="none",
                        context="Raloxifene is used in breast cancer.")  # fmt: skip
    assert ctx.threshold == 0.5
    # a shape that was not measured (context with a path) falls back, with a note
    gap = discover_pair(
        "Raloxifene",
        "breast cancer",
        kg=kg,
        llm=llm,
        ranker="random",
        context="Raloxifene is used in breast cancer.",
        link_options=NO_EMBED,
    )
    assert gap.decision == "content-free" and NO_REFERENCE in gap.notes
    # the other rules on request; unknown rule refused
    assert discover_pair("Raloxifene", "breast cancer", kg=kg, llm=llm, ranker="none",
                         decision="argmax").decision == "argmax"  # fmt: skip
    with pytest.raises(PairDiscoveryError, match="unknown decision"):
        discover_pair("Raloxifene", "breast cancer", kg=kg, llm=llm, decision="vote")
    with pytest.raises(PairDiscoveryError, match="not both"):
        classify_pair("a", "b", llm, threshold=0.0, calibrate=True)
    # a damaged file is a clear error, not a traceback
    saved.write_text("{not json")
    with pytest.raises(ReferenceThresholdsError, match="cannot be read as JSON"):
        reference_for("scripted")


def test_shipped_reference_thresholds_are_well_formed():
    from causalqa.discovery.reference import _read, shipped_file

    records = _read(shipped_file())
    assert records and all(r.means.get("context") and r.means.get("no-context") for r in records)
    for r in records:
        assert set(r.means["context"]) == set(range(4)), r.model
        assert r.info.get("pairs", 0) >= 100


def test_no_path_within_k_hops(kg):
    llm = ScriptedLLM(label_scores={"causal": -0.5})
    v = discover_pair(
        "Raloxifene", "lonely", kg=kg, llm=llm, ranker="random", link_options=NO_EMBED
    )
    assert v.paths == [] and v.candidates == 0
    assert any(n.startswith(NO_PATH) for n in v.notes)
    short = discover_pair(
        "TXNRD1", "melanoma", kg=kg, llm=llm, ranker="random", k=1, kinds_b=["Disease"],
        link_options=NO_EMBED,
    )  # fmt: skip
    assert short.paths == [] and "within 1 hops" in short.notes[-2]


def test_ranker_names(tmp_path):
    assert get_ranker("none") is None
    assert get_ranker("random").name == "random"
    with pytest.raises(PairDiscoveryError, match="unknown ranker"):
        get_ranker("bm25")
    with pytest.raises(PairDiscoveryError, match="no trained xgboost ranker") as e:
        load_ranker("xgboost", tmp_path)
    assert "similarity" in e.value.hint


# -- discover_graph --------------------------------------------------------------------


def test_direction_rule():
    prob = np.array(
        [[0, 0.9, 0.6, 0.2], [0.7, 0, 0.3, 0.8], [0.6, 0.1, 0, 0.1], [0.1, 0.1, 0.1, 0]]
    )
    causal = prob > 0.5
    adj = decide_directions(prob, causal)
    assert adj[0, 1] == 1 and adj[1, 0] == 0  # both causal: the more probable direction
    assert adj[0, 2] == 1 and adj[2, 0] == 1  # exact tie: both kept
    assert adj[1, 3] == 1 and adj[3, 1] == 0  # one direction only
    assert adj[0, 3] == adj[3, 0] == 0 and adj[2, 3] == 0
    assert "both" in DIRECTION_RULE


def test_discover_graph_asks_every_ordered_pair(kg):
    def score(text):
        pair = re.search(r"\[Pair\]: (.+?) and (.+?) \[", text).groups()
        table = {("Raloxifene", "ERBB2"): 0.9, ("ERBB2", "Raloxifene"): 0.7,
                 ("ERBB2", "TXNRD1"): 0.2, ("TXNRD1", "ERBB2"): 0.8}  # fmt: skip
        return table.get(pair, 0.1)

    llm = PromptLLM(score)
    seen = []
    g = discover_graph(
        ["Raloxifene", "ERBB2", "TXNRD1"],
        kg=kg,
        llm=llm,
        ranker="random",
        link_options=NO_EMBED,
        on_progress=lambda d, t, w: seen.append((d, t)),
        calibrate=False,
    )
    assert len(llm.calls) == 6 and seen[-1] == (6, 6)
    assert set(g.edges()) == {("Raloxifene", "ERBB2"), ("TXNRD1", "ERBB2")}
    assert all("first to the second" in c["prompt"] for c in llm.calls)
    assert all("[Relation Paths]" in c["prompt"] for c in llm.calls)
    d = g.to_dict()
    assert d["rule"] == DIRECTION_RULE and len(d["pairs"]) == 6
    assert "Raloxifene | ERBB2" in g.to_markdown()


def test_discover_graph_unmapped_variables_and_no_kg(kg):
    llm = PromptLLM(lambda text: 0.3)
    g = discover_graph(
        ["Raloxifene", "PIP2"], kg=kg, llm=llm, ranker="random",
        kg_names={"PIP2": ()}, link_options=NO_EMBED,
    )  # fmt: skip
    assert g.adjacency.sum() == 0 and any("PIP2: not in the graph" in n for n in g.notes)
    bare = discover_graph(["a", "b"], llm=llm)
    assert all(v.paths == [] for v in bare.verdicts)
    with pytest.raises(GraphDiscoveryError, match="at least two"):
        discover_graph(["a"], llm=llm)


def test_discover_graph_batch_decision_reads_the_runs_own_scale():
    def score(text):
        pair = re.search(r"\[Pair\]: (.+?) and (.+?) \[", text).groups()
        return {("a", "b"): 0.4, ("b", "c"): 0.35}.get(pair, 0.1)

    llm = PromptLLM(score)
    plain = discover_graph(["a", "b", "c"], llm=llm, calibrate=False)
    assert plain.adjacency.sum() == 0 and plain.decision == "argmax"  # all below 0.5
    batch = discover_graph(["a", "b", "c"], llm=llm, calibrate=False, decision="batch")
    assert set(batch.edges()) == {("a", "b"), ("b", "c")}
    assert batch.decision == "batch" and batch.to_dict()["decision"] == "batch"
    assert any("only 6 questions" in n for n in batch.notes)
    with pytest.raises(GraphDiscoveryError, match="needs calibrate"):
        discover_graph(["a", "b"], llm=llm, calibrate=False, decision="content-free")
    with pytest.raises(GraphDiscoveryError, match="unknown decision"):
        discover_graph(["a", "b"], llm=llm, decision="vote")


# -- the pair benchmark ----------------------------------------------------------------


def _record(qid, e1, e2, label, paths):
    return {
        "qid": qid, "sentence": f"{e1} and {e2} in a sentence.", "e1": e1, "e2": e2,
        "ground_truth": str(label), "llm_pred": str(label),
        "metapaths": [
            {"pathid": i, "rel_score": s, "prob_score": -0.5, "relevant": "1", "stops": t,
             "reltypes": "r - r", "nodelabels": "Gene - Gene - Disease"}
            for i, (t, s) in enumerate(paths)
        ],
    }  # fmt: skip


def write_path_data(root, recs=None):
    """A COMAGC folder of `recs` (default: three pairs) as train, test and gpt order."""
    folder = root / "comagc"
    folder.mkdir(parents=True)
    recs = recs or [
        _record("1", "g1", "d1", 1, [("g1 - good - d1", 2.0), ("g1 - bad - d1", -1.0)]),
        _record("2", "g2", "d2", 0, [("g2 - bad - d2", 1.5), ("g2 - good - d2", -2.0)]),
        _record("3", "g3", "d3", 1, [("g3 - good - d3", 1.2)]),
    ]
    text = "\n".join(json.dumps(r) for r in recs) + "\n"
    for name in ("train_full.jsonl", "test_truth.jsonl"):
        (folder / name).write_text(text)
    gpt = [dict(r, metapaths=list(reversed(r["metapaths"]))) for r in recs]
    (folder / "test_gpt_c.jsonl").write_text("\n".join(json.dumps(r) for r in gpt) + "\n")
    return root


def test_benchmark_pairs_rows_and_paper_numbers(tmp_path):
    root = write_path_data(tmp_path / "p2c")
    # "good" paths make the LLM say causal; no path or a "bad" one: non-causal.
    llm = PromptLLM(lambda text: 0.9 if "- good -" in text else 0.2)
    steps = []
    bench = benchmark_pairs(
        llm,
        datasets=["comagc"],
        methods=["none", "oracle", "gpt", "random"],
        root=root,
        on_step=lambda what, n: steps.append(n),
    )
    rows = {r["method"]: r for r in bench.rows}
    assert rows["none"]["f1"] == 0.0 and rows["none"]["with_paths"] == 0
    assert rows["oracle"]["precision"] == 100.0 and rows["oracle"]["recall"] == 100.0
    assert rows["gpt"]["with_paths"] == 3
    assert rows["none"]["paper"]["mistral-7b-instruct"]["f1"] == 55.17
    assert rows["oracle"]["paper"] is None
    assert sum(steps) == 12
    # threshold-free separation, and the gain over no path with its bootstrap interval
    assert rows["oracle"]["auc"] == 1.0 and rows["none"]["auc"] == 0.5
    gain = rows["oracle"]["f1_vs_none"]
    assert gain["diff"] == 100.0 and gain["low"] <= gain["diff"] <= gain["high"]
    assert "f1_vs_none" not in rows["none"]
    md = bench.to_markdown()
    assert "argmax F1 − no-subgraph (95% CI)" in md and "+100.0" in md
    assert "## COMAGC (3 test pairs, 2 causal)" in md and "55.17" in md
    assert json.dumps(bench.to_dict())
    png = plot_pairs(bench, tmp_path / "out" / "p.png")
    assert png.exists() and png.stat().st_size > 1000
    limited = benchmark_pairs(llm, datasets=["comagc"], methods=["none"], root=root, limit=2)
    assert limited.rows[0]["pairs"] == 2


def test_benchmark_pairs_path_forms_validation_split_and_clean_context(tmp_path):
    root = write_path_data(tmp_path / "p2c")
    llm = PromptLLM(lambda text: 0.9 if "-[r]->" in text else 0.2)
    bench = benchmark_pairs(
        llm, datasets=["comagc"], methods=["oracle"], root=root, path_format="full"
    )
    assert bench.rows[0]["recall"] == 100.0 and bench.path_format == "full"
    assert "Gene g1 -[r]-> Gene good -[r]-> Disease d1" in llm.calls[0]["prompt"]
    assert bench.predictions[0]["logprobs"]["causal"] == pytest.approx(np.log(0.9), abs=1e-3)
    with pytest.raises(PairDiscoveryError, match="path format"):
        benchmark_pairs(llm, datasets=["comagc"], methods=["none"], root=root, path_format="x")
    # the validation split classifies train_full's held-out queries, never test_truth's
    folder = root / "comagc"
    lines = folder.joinpath("train_full.jsonl").read_text().splitlines()
    many = [json.loads(lines[i % 3]) | {"qid": f"v{i}"} for i in range(10)]
    folder.joinpath("train_full.jsonl").write_text("\n".join(map(json.dumps, many)) + "\n")
    val = benchmark_pairs(llm, datasets=["comagc"], methods=["none", "gpt"], root=root,
                          split="validation")  # fmt: skip
    assert val.split == "validation" and val.rows[0]["pairs"] == 2
    assert {p["qid"] for p in val.predictions} <= {f"v{i}" for i in range(10)}
    assert "no gpt-3.5 order" in val.rows[1]["error"]
    assert clean_sentence("<e1> FGF6 </e1> drives <e2>cancer</e2>.") == "FGF6 drives cancer ."


def test_batch_calibration_from_a_validation_run(tmp_path):
    from causalqa.bench.discovery_pairs import batch_thresholds, read_thresholds

    root = write_path_data(tmp_path / "p2c")
    # every prompt with a path leans non-causal (as the small model does), "good" less so
    llm = PromptLLM(lambda t: 0.4 if "- good -" in t else 0.1 if "[Relation Paths]" in t else 0.6)
    raw = benchmark_pairs(llm, datasets=["comagc"], methods=["none", "oracle"], root=root)
    assert raw.rows[1]["recall"] == 0.0 and "batch" not in raw.rows[1]
    means = batch_thresholds(raw.predictions)
    assert set(means["comagc"]) == {0, 1}
    expect = np.mean([np.log(0.4 / 0.6)] * 2 + [np.log(0.1 / 0.9)])
    assert means["comagc"][1] == pytest.approx(expect, abs=1e-3)  # log-probs kept to 4 places
    report = tmp_path / "val.json"
    report.write_text(json.dumps(raw.to_dict()))
    assert read_thresholds(report)["comagc"][1] == pytest.approx(means["comagc"][1])
    cal = benchmark_pairs(
        llm, datasets=["comagc"], methods=["none", "oracle"], root=root, thresholds=means
    )
    oracle = cal.rows[1]
    assert oracle["batch"]["precision"] == 100.0 and oracle["batch"]["recall"] == 100.0
    assert "batch F1" in cal.to_markdown() and cal.thresholds == means
    assert "batch F1 − no-subgraph (95% CI)" in cal.to_markdown()
    assert (
        oracle["batch"]["f1_vs_none"]["diff"] == oracle["batch"]["f1"] - cal.rows[0]["batch"]["f1"]
    )
    assert {p["pred_batch"] for p in cal.predictions if p["method"] == "oracle"} == {0, 1}
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(DataFileError, match="not a pairs report"):
        read_thresholds(tmp_path / "bad.json")


def test_trained_ranker_is_saved_and_reused(tmp_path):
    from tests.discovery.test_discovery_rankers import HashEmbedder, synthetic

    from causalqa.discovery.pathdata import PathDataset

    data = PathDataset("comagc", synthetic(20, 0), synthetic(3, 1))
    emb = HashEmbedder()
    first, how, _ = trained_ranker("xgboost", data, embedder=emb, folder=tmp_path)
    assert how == "fitted" and (tmp_path / "full" / "comagc" / "xgboost.npz").is_file()
    again, how, _ = trained_ranker("xgboost", data, embedder=emb, folder=tmp_path)
    assert how == "loaded" and again.embedder is emb
    rec = data.truth[0]
    assert np.allclose(again.rank(rec).scores, first.rank(rec).scores)
    other, how, _ = trained_ranker("xgboost", data, seed=1, embedder=emb, folder=tmp_path)
    assert how == "fitted"  # other parameters: refitted, not a stale pickle


def test_readable_relations_in_paths():
    assert readable_relation("UPREGULATES_CuG") == "upregulates"
    assert readable_relation("REGULATES_Gr>G") == "regulates"
    assert readable_relation("subclass of") == "subclass of"
    p = PathCandidate(0, ("FGF6", "tendon", "SDRDL"), ("EXPRESSES_AeG", "EXPRESSES_AeG"),
                      ("Gene", "Anatomy", "Gene"))  # fmt: skip
    assert verbalise_path(p) == "FGF6 - tendon - SDRDL"
    assert verbalise_path(p, types=True, relations=True) == (
        "Gene FGF6 -[expresses]-> Anatomy tendon -[expresses]-> Gene SDRDL"
    )
    assert "[Relation Paths]: FGF6 -[expresses]->" in pair_prompt("a", "b", paths=[p],
                                                                  relations=True)  # fmt: skip


def test_path_sentences_put_each_edge_subject_first():
    # Walked Disease <- Gene, Gene <- Compound: the clauses still start at each edge's source.
    p = PathCandidate(
        0,
        ("melanoma", "ERBB2", "Raloxifene"),
        ("ASSOCIATES_DaG", "UPREGULATES_CuG"),
        ("Disease", "Gene", "Compound"),
    )
    assert path_sentences(p) == "melanoma is associated with ERBB2, Raloxifene upregulates ERBB2"
    ade = PathCandidate(
        0,
        ("Carbamazepine", "Conjunctivitis", "Dasatinib", "Lupus rash"),
        ("CAUSES_CcSE",) * 3,
        ("Compound", "SideEffect", "Compound", "SideEffect"),
    )
    assert verbalise_path(ade, sentences=True) == (
        "Carbamazepine causes Conjunctivitis, Dasatinib causes Conjunctivitis, "
        "Dasatinib causes Lupus rash"
    )
    assert path_sentences(ade, types=True).startswith(
        "Compound Carbamazepine causes SideEffect Conjunctivitis, Compound Dasatinib causes"
    )
    # Same kind at both ends (Gene regulates Gene): walking order; Wikidata labels as they are.
    gg = PathCandidate(0, ("BAX", "THAP11"), ("REGULATES_GrG",), ("Gene", "Gene"))
    assert path_sentences(gg) == "BAX regulates THAP11"
    wiki = PathCandidate(
        0, ("Exam", "English", "Anxiety"), ("language of work or name", "language of work or name")
    )
    assert path_sentences(wiki) == (
        "Exam language of work or name English, English language of work or name Anxiety"
    )
    # No relations: the plain form; a path with a relation per hop missing cannot be clauses.
    assert path_sentences(PathCandidate(0, ("a", "b"))) == "a - b"
    prompt = pair_prompt("Carbamazepine", "Lupus rash", paths=[ade], sentences=True)
    assert "[Relation Paths]: Carbamazepine causes Conjunctivitis," in prompt


def test_path_sentences_of_a_kg_path_follow_the_stored_edges(kg):
    texts = {path_sentences(p) for p in kg.paths("C1", "D1", k=2)}
    # Raloxifene binds ERBB2, melanoma associates ERBB2 (walked against the second edge).
    assert "Raloxifene binds ERBB2, melanoma is associated with ERBB2" in texts
    typed = {path_sentences(p, types=True) for p in kg.paths("C1", "D1", k=2)}
    assert (
        "Compound Raloxifene binds Gene ERBB2, Disease melanoma is associated with Gene ERBB2"
        in typed
    )
    with pytest.raises(PairDiscoveryError):
        path_sentences(42)


def test_prf_and_paper_tables():
    assert prf([1, 1, 0, 0], [1, 0, 1, 0]) == {
        "precision": 50.0, "recall": 50.0, "f1": 50.0, "accuracy": 50.0,
    }  # fmt: skip
    assert prf([0, 0], [1, 0])["f1"] == 0.0
    assert PAPER_TABLES["comagc"]["llama-3-8b-instruct"]["no-subgraph"]["f1"] == 33.33
    assert PAPER_TABLES["ade"]["gemma-7b-it"]["xgboost"]["f1"] == 84.85
    assert PAPER_TABLES["semeval"]["gemma-7b-it"]["xgboost"]["f1"] == 73.33
    assert PAPER_TABLES["gene"]["mistral-7b-instruct"]["gpt"]["f1"] == 26.09


@pytest.mark.model
@requires_small_model
def test_classify_one_pair_with_the_small_model():
    """A sentence that states the cause, decided as `discover pair` decides one pair: its
    log-odds against the 0.5B model's shipped reference mean for this prompt shape (with a
    context, one path). "causal" is the right label; the probability is the logistic of the
    log-odds above the reference, computed here from the label log-probabilities."""
    from causalqa.discovery.reference import reference_for
    from causalqa.llm import get_llm

    llm = get_llm("local:small", cache=False, quiet=True, timeout=300)
    ref = reference_for(llm.model)
    assert ref is not None, f"no reference thresholds shipped for {llm.model}"
    threshold = ref.threshold(context=True, n_paths=1)
    path = "smoking - tobacco smoke - carcinogen - lung cancer"
    v = classify_pair(
        "smoking",
        "lung cancer",
        llm,
        paths=[path],
        context="Smoking causes lung cancer.",
        threshold=threshold,
    )
    assert v.verdict == "causal" and v.decision == "reference" and v.exact
    assert set(v.logprobs) == set(LABELS) and all(x < 0 for x in v.logprobs.values())
    log_odds = v.logprobs["causal"] - v.logprobs["non-causal"]
    assert v.probability == pytest.approx(1 / (1 + math.exp(threshold - log_odds)))
    assert v.paths == [path] and "Smoking causes lung cancer." in v.prompt


def test_sachs_run_of_ours_beside_the_baselines(tmp_path):
    from tests.discovery.test_discovery_statistical import write_sachs

    from causalqa.bench.discovery_sachs import SACHS_KG_NAMES, SACHS_LABELS, benchmark_sachs_kg

    write_sachs(tmp_path)

    def score(text):  # Raf → Mek and PKA → Raf, asked in the paper's protein names
        pair = re.search(r"\[Pair\]: (.+?) and (.+?) \[", text).groups()
        return 0.9 if pair in {("Raf", "Mek"), ("PKA", "Raf")} else 0.1

    llm = PromptLLM(score)
    bench, graphs = benchmark_sachs_kg(
        kg=None, llm=llm, rankers=["none"], methods=["pc"], root=tmp_path, calibrate=False
    )
    assert len(llm.calls) == 110 and "[Textual context]" in llm.calls[0]["prompt"]
    ours = bench.rows[-1]
    assert ours["key"] == "ours-none" and ours["f1"] == 100.0 and ours["hd"] == 0
    assert ours["paper"]["f1"] == 27.27 and bench.rows[0]["key"] == "pc"
    assert "ours: no-subgraph (LLM)" in bench.to_markdown()
    assert set(graphs["none"].edges()) == {("Raf", "Mek"), ("PKA", "Raf")}
    assert SACHS_KG_NAMES["PIP2"] == () and set(SACHS_LABELS.values()) == set(SACHS_KG_NAMES)
