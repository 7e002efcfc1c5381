"""`causalqa discover pair|graph` and `bench discovery pairs` with scripted LLMs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.discovery.test_discovery_pair import PromptLLM, tiny_graph, write_path_data
from typer.testing import CliRunner

from causalqa.cli.bench import discovery_app
from causalqa.cli.discover import app
from causalqa.errors import CausalQAError, DiscoveryError, KGStoreError
from causalqa.kg import KnowledgeGraph


@pytest.fixture
def store(tmp_path):
    KnowledgeGraph.build(tiny_graph(), tmp_path / "store").close()
    return tmp_path / "store"


@pytest.fixture
def scripted(monkeypatch):
    llm = PromptLLM(lambda text: 0.8 if "[Relation Paths]" in text else 0.3)
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: llm)
    return llm


def test_missing_store_names_the_load_command(tmp_path, monkeypatch, evidence_model):
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    model = ["--evidence-model", str(evidence_model[2])]
    result = CliRunner().invoke(app, ["pair", "a", "b", *model])
    assert isinstance(result.exception, KGStoreError)
    assert "no knowledge graph store" in result.exception.message
    assert "causalqa kg load hetionet ../shared/data/hetionet" in result.exception.hint
    result = CliRunner().invoke(app, ["pair", "a", "b", "--kg", str(tmp_path / "nope"), *model])
    assert f"--store {tmp_path / 'nope'}" in result.exception.hint


def test_pair_json(store, scripted):
    args = ["pair", "Raloxifene", "breast cancer", "--kg", str(store), "--ranker", "random"]
    args += [
        "--method",
        "llm",
        "--no-calibrate",
    ]  # the scripted scores are the verdict as they stand
    result = CliRunner().invoke(app, [*args, "--context", "A trial.", "--json"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["verdict"] == "causal" and d["probability"] == pytest.approx(0.8)
    assert len(d["paths"]) == 1 and d["context"] == "A trial." and d["ranker"] == "random"
    text = CliRunner().invoke(app, args)
    assert text.exit_code == 0 and "causal" in text.stdout and "path:" in text.stdout


def test_pair_unknown_entity_is_an_answer_not_a_crash(store, scripted, monkeypatch):
    from causalqa.kg.linking import Linker

    monkeypatch.setattr(Linker, "_embedding", lambda self, q, allowed, limit: [])
    args = ["pair", "Raloxifene", "qqzz", "--kg", str(store), "--ranker", "random", "--json"]
    args[1:1] = ["--method", "llm"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["verdict"] == "non-causal" and d["paths"] == []
    assert "entity not found; decided from the pair alone" in d["notes"]


@pytest.mark.parametrize(
    "args",
    [
        ["pair", "a", "b", "--ranker", "bm25"],
        ["pair", "a", "b", "--method", "llm", "--decision", "vote"],
        ["pair", "a", "b", "--method", "oracle"],
        ["pair", "a"],
        ["pair", "a", "b", "--batch", "x.jsonl"],
        ["graph", "--variables", "a"],
        ["graph"],
        ["graph", "--variables", "a,b", "--ranker", "nope"],
        ["graph", "--variables", "a,b", "--decision", "vote"],
    ],
)
def test_bad_options_raise_causalqa_errors(args):
    result = CliRunner().invoke(app, args)
    assert isinstance(result.exception, CausalQAError), result.output


def test_graph_with_data(store, scripted, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    csv = tmp_path / "d.csv"
    csv.write_text(
        "Raloxifene,ERBB2\n"
        + "\n".join(f"{a},{2 * a + b}" for a, b in zip(x, rng.normal(size=300)))
    )
    args = ["graph", "--variables", "Raloxifene,ERBB2", "--kg", str(store), "--ranker", "random"]
    result = CliRunner().invoke(app, [*args, "--data", str(csv), "--json"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["variables"] == ["Raloxifene", "ERBB2"] and len(d["pairs"]) == 2
    assert {r["method"] for r in d["statistical"]} >= {"PC Algorithm"}
    bad = CliRunner().invoke(app, [*args, "--data", str(tmp_path / "missing.csv")])
    assert isinstance(bad.exception, DiscoveryError)


def test_bench_pairs_command(tmp_path, monkeypatch):
    root = write_path_data(tmp_path / "p2c")
    llm = PromptLLM(lambda text: 0.9 if "- good -" in text else 0.2)
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: llm)
    out = tmp_path / "out"
    args = ["pairs", "--datasets", "comagc", "--methods", "none,oracle", "--data", str(root)]
    result = CliRunner().invoke(discovery_app, [*args, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [r["method"] for r in report["rows"]] == ["none", "oracle"]
    assert report["environment"]["cores"] and report["model"] == "scripted"
    assert (out / "pairs-latest.md").exists() and (out / "pairs-latest.png").exists()
    bad = CliRunner().invoke(discovery_app, ["pairs", "--methods", "bm25"])
    assert isinstance(bad.exception, CausalQAError)


def test_pair_without_a_path_or_with_a_damaged_ranker(store, scripted, monkeypatch, tmp_path):
    args = ["pair", "Raloxifene", "lonely", "--kg", str(store), "--ranker", "random", "--json"]
    args[1:1] = ["--method", "llm"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["paths"] == [] and d["paths_found"] == 0
    assert any(n.startswith("no path found; decided from the pair alone") for n in d["notes"])
    result = CliRunner().invoke(app, [*args[:-1], "--hops", "1"])
    assert result.exit_code == 0 and "within 1 hops" in result.stdout
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    saved = tmp_path / "home" / "discovery" / "rankers"
    saved.mkdir(parents=True)
    (saved / "ranknet.pkl").write_bytes(b"not a pickle")
    args = ["pair", "--method", "llm", "Raloxifene", "ERBB2", "--kg", str(store)]
    args += ["--ranker", "ranknet"]
    result = CliRunner().invoke(app, args)
    assert isinstance(result.exception, CausalQAError) and "cannot load" in str(result.exception)
    result = CliRunner().invoke(app, [*args[:-1], "xgboost"])
    assert isinstance(result.exception, CausalQAError) and "no trained xgboost" in str(
        result.exception
    )


# -- the evidence method ---------------------------------------------------------------------


@pytest.fixture
def no_store(tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))


def test_evidence_pair_with_a_sentence_and_no_graph(evidence_model, no_store):
    model = ["--evidence-model", str(evidence_model[2])]
    args = ["pair", "GENEX", "cancerX", "--context", "GENEX causes cancerX in patients .", *model]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["method"] == "evidence" and isinstance(d["causal"], bool)
    assert d["direction"] in ("A→B", "B→A", "none") and 0 <= d["probability"] <= 1
    assert d["evidence"]["used"] == "text" and d["evidence"]["contributions"]
    assert "frozen" in d["evidence"]["text_model"]
    assert any("text evidence only" in n for n in d["notes"])
    text = CliRunner().invoke(app, args)
    assert text.exit_code == 0, text.output
    assert "why (log-odds)" in text.stdout and "text model: all-MiniLM-L6-v2" in text.stdout
    assert "sentence cue" in text.stdout
    # the lexical readers say which kind of text it read and which words moved it
    assert d["evidence"]["terms"]["family"] in ("gene", "drug", "general")
    assert "words (reads as" in text.stdout and "“" in text.stdout.split("words (reads as")[1]


def test_evidence_pair_errors(evidence_model, no_store):
    from causalqa.errors import MentionError

    model = ["--evidence-model", str(evidence_model[2])]
    bad = CliRunner().invoke(
        app, ["pair", "GENEX", "melanoma", "--context", "GENEX causes x .", *model]
    )
    assert (
        isinstance(bad.exception, MentionError)
        and "'melanoma' does not occur" in bad.exception.message
    )
    empty = CliRunner().invoke(app, ["pair", "GENEX", "x", "--context", " ", *model])
    assert isinstance(empty.exception, MentionError)


def test_batch_keeps_the_input_order_and_reports_bad_pairs(evidence_model, no_store, tmp_path):
    from causalqa.errors import DataFileError

    model = ["--evidence-model", str(evidence_model[2])]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {"a": "GENEX", "b": "cancerX", "context": "GENEX causes cancerX in patients ."},
                {"a": "GENEY", "b": "melanoma", "context": "GENEY sits near cancerY ."},
                {"a": "GENEZ", "b": "cancerZ", "context": "GENEZ was measured beside cancerZ ."},
            ]
        )
        + "\n"
    )
    result = CliRunner().invoke(app, ["pair", "--batch", str(pairs), *model])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [x["a"] for x in lines] == ["GENEX", "GENEY", "GENEZ"]
    assert "causal" in lines[0] and "direction" in lines[0] and "evidence" in lines[0]
    assert "does not occur" in lines[1]["error"] and lines[1]["line"] == 2
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"a": "x", "b": "y"}\n{"a": "x"}\n')
    result = CliRunner().invoke(app, ["pair", "--batch", str(broken), *model])
    assert isinstance(result.exception, DataFileError) and ":2:" in result.exception.message


def test_evidence_pair_with_a_graph(evidence_model, store, tmp_path, monkeypatch):
    """A text-only model asked with a graph but no sentence has nothing to decide with."""
    model = ["--evidence-model", str(evidence_model[2])]
    result = CliRunner().invoke(app, ["pair", "Raloxifene", "melanoma", "--kg", str(store), *model])
    assert isinstance(result.exception, CausalQAError)
    assert "no evidence model for the evidence at hand (kg)" in result.exception.message


def test_graph_with_the_evidence_method(evidence_model, no_store, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=400)
    y = x + rng.normal(size=400)
    csv = tmp_path / "d.csv"
    csv.write_text("GENEK,cancerK\n" + "\n".join(f"{a},{b}" for a, b in zip(x, y)))
    model = ["--evidence-model", str(evidence_model[2])]
    args = ["graph", "--method", "evidence", "--variables", "GENEK,cancerK", *model]
    args += ["--context", "GENEK causes cancerK in mice .", "--data", str(csv)]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["pairs"][0]["evidence"] == "text" and d["graph"]["pc_edges"]
    assert {r["method"] for r in d["statistical"]} >= {"PC Algorithm"}
    text = CliRunner().invoke(app, args)
    assert "Knowledge-guided PC:" in text.stdout and "PC alone:" in text.stdout
    bad = CliRunner().invoke(app, [*args[:-2], "--require", "2"])
    assert isinstance(bad.exception, CausalQAError)


def test_a_discovered_graph_is_written_as_graphml_that_ask_loads(scripted, tmp_path):
    from causalqa.causal_model import CausalModel

    out = tmp_path / "g.graphml"
    args = ["graph", "--variables", "Smoking,Tar,Cancer", "--ranker", "none", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    written = json.loads(result.stdout)["written"]
    graph = CausalModel.load(out).graph
    assert set(graph.nodes) == {"Smoking", "Tar", "Cancer"}
    assert sorted(map(list, graph.edges)) == sorted(written["edges"])
    again = CliRunner().invoke(app, args)
    assert isinstance(again.exception, CausalQAError) and "exists" in again.exception.message
    assert CliRunner().invoke(app, [*args, "--force"]).exit_code == 0
    bad = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "g.txt")])
    assert isinstance(bad.exception, CausalQAError) and not (tmp_path / "g.txt").exists()


def test_the_evidence_graph_is_written_too(evidence_model, no_store, tmp_path):
    from causalqa.causal_model import CausalModel

    out = tmp_path / "g.graphml"
    args = ["graph", "--method", "evidence", "--variables", "GENEK,cancerK"]
    args += ["--evidence-model", str(evidence_model[2]), "--context", "GENEK causes cancerK ."]
    result = CliRunner().invoke(app, [*args, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert set(CausalModel.load(out).graph.nodes) == {"GENEK", "cancerK"}
    direction = d["pairs"][0]["direction"]
    expected = {"A→B": [["GENEK", "cancerK"]], "B→A": [["cancerK", "GENEK"]], "none": []}
    assert d["written"]["edges"] == expected[direction]


@pytest.mark.parametrize("method", ["evidence", "llm"])
def test_empty_names_are_refused_before_any_work(store, scripted, method):
    for a, b in (("", ""), ("Raloxifene", "  ")):
        result = CliRunner().invoke(app, ["pair", a, b, "--kg", str(store), "--method", method])
        assert isinstance(result.exception, CausalQAError), result.output
        assert "empty" in result.exception.message and result.exception.hint
    assert not scripted.calls


# -- abstention: no sentence, no path, no LLM feature ------------------------------------------


def _shipped() -> list[str]:
    from causalqa.discovery.evidence import default_artefacts

    return ["--evidence-model", str(default_artefacts())]


def test_evidence_pair_without_evidence_is_unknown(store, no_store):
    """lonely (a gene with no edge) and melanoma (a Disease, also a Side Effect): linked,
    no path, no sentence, and the shipped model has no LLM feature."""
    args = ["pair", "lonely", "melanoma", "--kg", str(store), *_shipped()]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["verdict"] == "unknown" and d["causal"] is None and d["direction"] is None
    assert d["probability"] is None and d["probabilities"] is None
    assert d["evidence"]["used"] == "none" and d["abstention"]["lacking"] == [
        "sentence", "path", "llm",
    ]  # fmt: skip
    assert (
        "no path joins lonely (Gene) and melanoma (Disease) within 4 hops"
        in (d["abstention"]["reason"])
    )
    hint = d["abstention"]["hint"]  # this command's own options
    assert hint.startswith("take the Side Effect node for 'melanoma' (--kind-b 'Side Effect')")
    assert "give a sentence that names both (--context TEXT)" in hint
    assert "(--kg DIR)" in hint and "then --evidence-model DIR" in hint
    text = CliRunner().invoke(app, args)
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert lines[0].startswith("unknown lonely ? melanoma  no evidence either way")
    assert "non-causal" not in text.stdout and "P(" not in text.stdout
    assert "lacks: no sentence names both" in text.stdout and "--context TEXT" in text.stdout
    # taking the other node the name may mean is asked as the hint says; still no path
    again = CliRunner().invoke(app, [*args, "--kind-b", "Side Effect", "--json"])
    assert json.loads(again.stdout)["linked"]["b"]["node"]["kind"] == "Side Effect"


def test_evidence_pair_decides_on_a_path_or_a_sentence_alone(store, no_store, evidence_model):
    path = CliRunner().invoke(
        app, ["pair", "TXNRD1", "ERBB2", "--kg", str(store), *_shipped(), "--json"]
    )
    assert path.exit_code == 0, path.output
    d = json.loads(path.stdout)
    assert d["verdict"] in ("causal", "non-causal") and d["abstention"] is None
    assert d["evidence"]["used"] == "kg" and d["evidence"]["paths"]
    # a sentence with a text-only model, where the graph has no path between the two
    args = ["pair", "Raloxifene", "lonely", "--kg", str(store)]
    args += ["--context", "Raloxifene causes lonely in patients .", "--json"]
    sentence = CliRunner().invoke(app, [*args, "--evidence-model", str(evidence_model[2])])
    assert sentence.exit_code == 0, sentence.output
    d = json.loads(sentence.stdout)
    assert d["verdict"] in ("causal", "non-causal") and d["evidence"]["used"] == "text"


def test_a_batch_line_without_evidence_is_unknown_and_a_guessed_name_an_error(
    store, no_store, tmp_path, monkeypatch
):
    from causalqa.errors import EntityNotFoundError
    from causalqa.kg.linking import Linker

    # "qqzzx" reaches a node only by a loose guess of meaning: not in the graph
    monkeypatch.setattr(Linker, "_embedding", lambda self, q, allowed, limit: [(0, 64.0)])
    pairs = tmp_path / "pairs.jsonl"
    lines = [{"a": "lonely", "b": "melanoma"}, {"a": "Raloxifene", "b": "qqzzx"}]
    pairs.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    result = CliRunner().invoke(app, ["pair", "--batch", str(pairs), "--kg", str(store),
                                      *_shipped()])  # fmt: skip
    assert result.exit_code == 0, result.output
    unknown, failed = (json.loads(x) for x in result.stdout.splitlines())
    assert unknown["verdict"] == "unknown" and unknown["causal"] is None
    assert (
        'a sentence that names both (a "context" field on the line)'
        in (unknown["abstention"]["hint"])
    )
    assert failed["line"] == 2 and "'qqzzx' matches no node" in failed["error"]
    one = CliRunner().invoke(app, ["pair", "Raloxifene", "qqzzx", "--kg", str(store),
                                   *_shipped()])  # fmt: skip
    assert isinstance(one.exception, EntityNotFoundError)
    assert "only a guess" in one.exception.message and "--context TEXT" in one.exception.hint


def test_the_stores_consulted_are_the_ones_named_and_kept_open():
    """`consulted`: the first typed store and the general ones; a second typed store (the
    evidence model reads one graph) is said not consulted and closed, so no report names
    it as consulted."""
    from causalqa.cli.options import consulted

    class Store:
        def __init__(self, path, format):
            self.path, self.format, self.closed = path, format, False

        def close(self):
            self.closed = True

    hetionet, other = Store("h", "hetionet"), Store("o", "triples")
    causenet = Store("c", "causenet")
    kg, general = consulted([hetionet, other, causenet])
    assert kg is hetionet and general == [causenet]
    assert other.closed and not hetionet.closed and not causenet.closed
    assert consulted(None) == (None, [])
