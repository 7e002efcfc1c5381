"""General knowledge in `discover pair`: CauseNet's claims (a fixture store written here) as
directed evidence — a direct claim decides by the documented rule when there is no
sentence, chains are weaker and do not decide, no path is no evidence (never
"non-causal") — beside the trained model's verdict on its own graph."""

from __future__ import annotations

import json

import pytest
from tests.discovery.test_discovery_pair import tiny_graph
from tests.kg.test_kg_causenet import write_causenet
from typer.testing import CliRunner

from causalqa.cli.discover import app
from causalqa.discovery.evidence import EvidenceVerdict
from causalqa.discovery.general import (
    combine,
    evidence_in,
    general_evidence,
    is_general,
    load_rules,
    rule_probability,
    rule_verdict,
    split_stores,
)
from causalqa.discovery.pair import PairItem, discover_pairs, judge_pair
from causalqa.errors import PairDiscoveryError
from causalqa.kg import KnowledgeGraph
from causalqa.kg.store import load_causenet


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def causenet(home, tmp_path):
    """The fixture CauseNet, loaded where `kg load causenet` puts it by default."""
    kg = load_causenet(write_causenet(tmp_path / "core"))
    yield kg
    kg.close()


class StubJudge:
    """A trained model stand-in: its verdict on the pair is `direction` with P(causal) `p`,
    the KG evidence it gathered kept as the real one keeps it."""

    kinds: set = set()
    combiners: dict = {}
    text = None
    text_model = "none"
    lexical: list = []

    def __init__(self, direction="none", p=0.2):
        self.direction, self.p = direction, p

    def judge(self, ev, *, started=None):
        return EvidenceVerdict(
            a=ev.a, b=ev.b, direction=self.direction, probability=self.p,
            probabilities={"A→B": self.p, "B→A": 0.0, "none": 1 - self.p},
            threshold=0.5, variant="kg", contributions=[], linked=ev.linked,
            notes=list(ev.notes),
        )  # fmt: skip


def test_a_direct_claim_gives_the_direction_of_the_larger_support(causenet):
    ev = evidence_in(causenet, "alcohol", "suicide")
    assert ev.placed and ev.decisive and ev.support == (9, 0)
    v = rule_verdict(ev)
    assert v.direction == "A→B" and v.variant == "general knowledge (CauseNet rule)"
    assert v.paths[0]["path"] == "alcohol → suicide (CauseNet, support 9)"
    assert v.paths[0]["direction"] == "A→B" and v.paths[0]["support"] == [9]
    # the chain through depression is weaker evidence, listed after the direct claim
    assert v.paths[1]["path"] == "alcohol → depression → suicide (CauseNet, supports 82, 837)"
    p, band = rule_probability(9, load_rules())
    assert v.probability == p and band["min_support"] <= 9
    assert v.probabilities["A→B"] == pytest.approx(p * 10 / 11)  # (9 + 1) / (9 + 0 + 2)
    assert "general-knowledge rule" in v.notes[0] and f"n = {band['n']}" in v.notes[0]

    back = rule_verdict(evidence_in(causenet, "suicide", "alcohol"))
    assert back.direction == "B→A"
    assert back.probabilities["B→A"] == pytest.approx(v.probabilities["A→B"])
    assert back.paths[0]["path"] == v.paths[0]["path"] and back.paths[0]["direction"] == "B→A"
    # claims both ways: the larger support wins, the split says how sure that is
    both = rule_verdict(evidence_in(causenet, "insomnia", "stress"))
    assert both.direction == "B→A" and [p["support"] for p in both.paths[:2]] == [[12], [3]]
    assert both.probabilities["B→A"] / both.probability == pytest.approx(13 / 17)


def test_names_link_by_lemma_surface_form_and_case(causenet):
    ev = evidence_in(causenet, "Smoking", "lung cancers")
    assert ev.linked["b"]["node"]["id"] == "lung_cancer" and ev.linked["b"]["method"] == "alias"
    assert ev.decisive and ev.forward.names == ("smoking", "lung cancer")
    assert any("surface form" in n for n in ev.notes)


def test_chains_and_no_path_are_no_verdict(causenet):
    chain = evidence_in(causenet, "smoking", "death")  # smoking → lung cancer → death
    assert chain.placed and not chain.decisive and chain.chain_counts == {"A→B": 1, "B→A": 0}
    assert chain.chains[0].text() == "smoking → lung cancer → death (CauseNet, supports 300, 120)"
    assert "only 1 two-hop chain" in chain.summary() and "do not decide" in chain.summary()
    with pytest.raises(PairDiscoveryError):
        rule_verdict(chain)
    none = evidence_in(causenet, "music", "rain")
    assert none.placed and not none.decisive and not none.chains
    assert "no path of at most 2 hops" in none.summary()
    unknown = evidence_in(causenet, "alcohol", "qqqzzz")
    assert not unknown.placed and "no concept for 'qqqzzz'" in unknown.summary()
    # with CauseNet alone and no sentence: unknown when it places both names (never
    # "non-causal"), saying what it lacks; one clear error when it cannot place a name
    for a, b, said in [("music", "rain", "no path"), ("smoking", "death", "two-hop chain")]:
        v = judge_pair(a, b, judge=StubJudge(), general=[causenet])
        assert (v.verdict, v.causal, v.direction, v.probability) == ("unknown", None, None, None)
        assert said in v.abstention.lacking["path"], v.abstention.lacking
        assert v.to_dict()["abstention"]["hint"].startswith("give a sentence that names both")
    with pytest.raises(PairDiscoveryError, match="no evidence decides") as caught:
        judge_pair("alcohol", "qqqzzz", judge=StubJudge(), general=[causenet])
    assert "no concept" in caught.value.message


def test_the_trained_model_and_the_rule_together(causenet, tmp_path):
    hetionet = KnowledgeGraph.build(tiny_graph(), tmp_path / "hetionet")
    try:
        # a pair of the trained model's graph that CauseNet lacks: its verdict, as before
        v = judge_pair("Raloxifene", "breast cancer", judge=StubJudge("A→B", 0.9), kg=hetionet,
                       general=[causenet])  # fmt: skip
        assert v.variant == "kg" and v.direction == "A→B"
        assert "no concept" in v.notes[-1] and v.linked["general"]["decisive"] is False
        # the trained model cannot place the names (an error), CauseNet has a claim: the rule
        v = judge_pair("suicide", "alcohol", judge=StubJudge(), kg=hetionet, general=[causenet])
        assert v.variant.startswith("general") and v.direction == "B→A"
        assert any("could not judge" in n for n in v.notes)
    finally:
        hetionet.close()
    ev = general_evidence("alcohol", "suicide", [causenet])
    confident = {k: {"node": {"id": k}, "method": "exact"} for k in ("a", "b")}
    loose = {**confident, "a": {"node": {"id": "x"}, "method": "fuzzy"}}

    def trained(direction, linked):
        return StubJudge(direction, 0.9 if direction != "none" else 0.2).judge(
            type("Ev", (), {"a": "alcohol", "b": "suicide", "linked": linked, "notes": []})()
        )

    # the trained model says none: the direct claim decides, and the note says what it said
    v = combine(trained("none", confident), ev)
    assert v.direction == "A→B" and any("said none" in n for n in v.notes)
    # it says causal with both names placed by name: its verdict stands, the claim beside it
    v = combine(trained("A→B", confident), ev)
    assert v.variant == "kg" and "CauseNet agrees" in v.notes[-1]
    assert v.paths[0]["path"] == "alcohol → suicide (CauseNet, support 9)"
    v = combine(trained("B→A", confident), ev)
    assert v.direction == "B→A" and "points the other way" in v.notes[-1]
    # ... but not when a name matched only loosely: then the claim decides
    v = combine(trained("B→A", loose), ev)
    assert v.direction == "A→B" and "loosely" in v.notes[-1]
    # it says unknown (both names placed, no path, no sentence): the claim decides, and the
    # note says why the model could not (it has no probability to quote)
    from causalqa.discovery.evidence import Abstention

    unknown = EvidenceVerdict.of_unknown(
        "alcohol", "suicide", Abstention({"kg": "no path joins them"}, []), notes=[],
        linked=confident,
    )  # fmt: skip
    v = combine(unknown, ev)
    assert v.direction == "A→B" and v.probability is not None
    assert any(n.startswith("the trained evidence model said unknown") for n in v.notes)
    assert any("no path joins them" in n for n in v.notes)


def test_with_a_sentence_the_trained_model_decides(causenet, evidence_model):
    judge = evidence_model[0]
    context = "Heavy alcohol use was measured beside suicide in the survey ."
    v = judge_pair("alcohol", "suicide", judge=judge, context=context, general=[causenet])
    assert v.variant == "text" and v.context == context
    assert any(n.startswith("CauseNet (not used: the sentence decides)") for n in v.notes)
    assert "no graph the trained model reads is loaded: text evidence only" in v.notes


def test_the_paper_method_reads_causenet_paths_without_another_graph(causenet):
    from tests.discovery.test_discovery_pair import PromptLLM

    llm = PromptLLM(lambda text: 0.8 if "alcohol - suicide" in text else 0.3)
    (v,) = discover_pairs([PairItem("alcohol", "suicide")], method="llm", llm=llm,
                          general=[causenet], ranker="random", decision="argmax")  # fmt: skip
    assert v.verdict == "causal" and v.paths == ["alcohol - suicide"]


def test_stores_split_by_format(causenet, tmp_path):
    hetionet = KnowledgeGraph.build(tiny_graph(), tmp_path / "h")
    try:
        assert is_general(causenet) and not is_general(hetionet)
        assert split_stores([hetionet, causenet]) == (hetionet, [causenet], [])
        assert split_stores([causenet]) == (None, [causenet], [])
    finally:
        hetionet.close()


def test_discover_pair_consults_every_loaded_store(causenet, monkeypatch):
    monkeypatch.setattr(
        "causalqa.discovery.evidence.EvidenceJudge.load", lambda *a, **k: StubJudge()
    )
    causenet.close()  # the CLI opens the loaded stores itself
    runner = CliRunner()
    result = runner.invoke(app, ["pair", "alcohol", "suicide", "--no-llm", "--json"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["direction"] == "A→B" and d["evidence"]["used"].startswith("general knowledge")
    assert d["evidence"]["paths"][0]["path"] == "alcohol → suicide (CauseNet, support 9)"
    result = runner.invoke(app, ["pair", "suicide", "alcohol", "--no-llm"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("B→A alcohol → suicide")
    assert "path: alcohol → suicide (CauseNet, support 9)" in result.stdout
    assert "general-knowledge rule" in " ".join(result.stdout.split())
    result = runner.invoke(app, ["pair", "music", "rain", "--no-llm"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("unknown music ? rain"), result.stdout
    assert "no path" in " ".join(result.stdout.split())
    # --store picks one store: the same answer from the CauseNet store named
    store = str(causenet.path)
    result = runner.invoke(app, ["pair", "alcohol", "suicide", "--store", store, "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["direction"] == "A→B"


def test_the_shipped_rule_figures_are_well_formed():
    rules = load_rules()
    bands = rules["bands"]
    assert [b["min_support"] for b in bands] == sorted({b["min_support"] for b in bands},
                                                       reverse=True)  # fmt: skip
    assert bands[-1]["min_support"] == 1
    for band in bands:
        assert 0 < band["p_causal"] < 1 and band["n"] > 0 and 0 <= band["k"] <= band["n"]
        assert band["p_causal"] == pytest.approx((band["k"] + 1) / (band["n"] + 2), abs=1e-4)
    assert 0 < rules["threshold"] < 1
    assert "TRAIN_FILE" in rules["measured"]["data"] and rules["measured"]["command"]


def test_bench_causenet_counts_coverage_and_the_rule_table(causenet, tmp_path, monkeypatch):
    from causalqa.cli.bench import discovery_app

    monkeypatch.setattr(
        "causalqa.discovery.evidence.EvidenceJudge.load", lambda *a, **k: StubJudge()
    )
    sem = tmp_path / "data" / "semeval2010-task8"
    sem.mkdir(parents=True)
    sentences = [
        ("The <e1>alcohol</e1> caused the <e2>suicide</e2>.", "Cause-Effect(e1,e2)"),
        ("The <e1>insomnia</e1> came from <e2>stress</e2>.", "Cause-Effect(e2,e1)"),
        ("The <e1>music</e1> and the <e2>rain</e2>.", "Other"),
        ("The <e1>smoking</e1> near the <e2>death</e2>.", "Other"),
        ("The <e1>qqqzzz</e1> in the <e2>alcohol</e2>.", "Content-Container(e1,e2)"),
    ]
    blocks = [f'{i}\t"{s}"\n{rel}\nComment:\n' for i, (s, rel) in enumerate(sentences, 1)]
    (sem / "TRAIN_FILE.TXT").write_text("\n".join(blocks))
    causenet.close()
    out = tmp_path / "out"
    result = CliRunner().invoke(
        discovery_app,
        ["causenet", "--data", str(tmp_path / "data"), "--latency-pairs", "9", "--out",
         str(out), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    ce, other = report["coverage"]["cause-effect"], report["coverage"]["other"]
    assert (ce["pairs"], ce["both linked"], ce["direct claim"]) == (2, 2, 2)
    assert (other["pairs"], other["a or b linked"], other["both linked"]) == (3, 3, 2)
    assert (other["chains only"], other.get("direct claim", 0)) == (1, 0)
    table = {r["evidence"]: (r["k"], r["n"]) for r in report["rule_table"]}
    # alcohol → suicide (9) and stress → insomnia (12, against 3): both in the 5–19 band
    assert table["direct, support ≥ 5"] == (2, 2)
    assert table["direct, support ≥ 20"] == table["direct, support ≥ 1"] == (0, 0)
    assert table["chains only (2 hops)"] == (0, 1) and table["no path (≤ 2 hops)"] == (0, 1)
    assert report["direction"]["right"] == 2 and report["rules"]["bands"][1]["n"] == 2
    assert report["tuebingen"] is None
    latency = report["latency"]
    assert latency["pairs"] == 4 and latency["unknown"] == 2  # music–rain, smoking–death
    assert (out / "causenet-latest.md").is_file()


def test_graph_discovery_consults_causenet_as_pair_discovery_does(causenet):
    from causalqa.discovery.graph import find_graph, knowledge_from_verdicts

    found = find_graph(["alcohol", "suicide", "music", "qqqzzz"], method="evidence",
                       judge=StubJudge(), general=[causenet])  # fmt: skip
    v = found.verdicts
    # a direct claim decides, with its direction, as `discover pair alcohol suicide` does
    assert v[("alcohol", "suicide")]["direction"] == "A→B"
    assert v[("alcohol", "suicide")]["evidence"].startswith("general")
    # both placed, no claim: unknown (forbids nothing); a name nothing places: no evidence
    assert v[("alcohol", "music")]["verdict"] == "unknown"
    assert v[("alcohol", "qqqzzz")] is None
    required, forbidden = knowledge_from_verdicts(v, require=0.5)
    assert ("alcohol", "music") not in forbidden and ("music", "alcohol") not in forbidden
    # without the general store (and no graph, no sentence) the pair says why it has none
    alone = find_graph(["alcohol", "suicide"], method="evidence", judge=StubJudge())
    assert "no knowledge graph and no sentence" in alone.verdicts[("alcohol", "suicide")]["error"]


def test_graph_discovery_asks_causenet_once_a_pair(causenet, monkeypatch):
    from causalqa.discovery import general as general_module
    from causalqa.discovery.graph import pair_verdicts

    asked = []
    real = general_module.general_evidence

    def counting(a, b, stores):
        asked.append((a, b))
        return real(a, b, stores)

    monkeypatch.setattr(general_module, "general_evidence", counting)
    v = pair_verdicts(["alcohol", "suicide", "music"], judge=StubJudge(), general=[causenet])
    assert v[("alcohol", "suicide")]["direction"] == "A→B"
    assert sorted(asked) == sorted(set(asked)) and len(asked) == 3
