"""The evidence method abstains: with no sentence, no path between the linked nodes and no
LLM feature the answer is ``unknown`` (no probability, no direction), saying what it lacks
and what would decide it — even when the combiner, reading node kinds and degrees alone,
would have said causal. A sentence alone, a path alone or the LLM's judgement still
decide; a name the graph places only by a loose guess of meaning is not in the graph."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.discovery.test_discovery_pair import PromptLLM, tiny_graph

from causalqa.discovery.evidence import (
    PYTHON,
    EvidenceJudge,
    Spelling,
    default_artefacts,
)
from causalqa.discovery.graph import find_graph, knowledge_from_verdicts
from causalqa.discovery.pair import (
    PairItem,
    discover_pairs,
    gather_evidence,
    judge_pair,
    places,
)
from causalqa.errors import EntityNotFoundError
from causalqa.kg import KnowledgeGraph

CLI_LIKE = Spelling(
    sentence="--context TEXT",
    kg="--kg DIR",
    llm="drop --no-llm",
    llm_model="train one",
    kind="--kind-{which} {kind_sh}",
)


class Constant:
    """A combiner that answers P(causal) = `p` whatever the features say: with it, any
    verdict on a pair without evidence would come from nothing."""

    def __init__(self, p: float) -> None:
        self.p = p
        self.feature_names_ = ["log_paths", "kinds=Compound|Gene", "log_degree_min"]

    def predict_proba(self, x):
        return np.array([[1 - self.p, self.p]] * len(x))

    def explain(self, row, top=5):
        return []


def stub_judge(**combiners) -> EvidenceJudge:
    """An evidence model with the given combiners (variant → `Constant`), threshold 0.5."""
    return EvidenceJudge(None, combiners, {v: 0.5 for v in combiners})


@pytest.fixture(scope="module")
def kg(tmp_path_factory):
    """Raloxifene, ERBB2, TXNRD1 (regulates ERBB2), melanoma (a Disease and a Side Effect),
    breast cancer — and "lonely", a gene with no edge: linked, but no path to anything."""
    graph = KnowledgeGraph.build(tiny_graph(), tmp_path_factory.mktemp("kg") / "store")
    yield graph
    graph.close()


@pytest.fixture(scope="module")
def shipped():
    return EvidenceJudge.load(default_artefacts())


def test_a_sentence_beside_a_pathless_pair_decides_and_says_so_once(kg):
    from causalqa.discovery.pair import gather_evidence

    judge = stub_judge(text=Constant(0.9), kg=Constant(0.1))
    ev = gather_evidence(
        "Raloxifene", "lonely", judge=judge, kg=kg, context="Raloxifene caused lonely cells.",
        text_probs=[0.1, 0.8, 0.1],
    )  # fmt: skip
    v = judge.judge(ev)
    assert v.verdict == "causal" and v.variant == "text"
    said = [n for n in v.notes if n.startswith("no path")]
    assert said == ["no path found within 4 hops: decided on the sentence"]


def test_linked_names_without_a_path_are_unknown_whatever_the_kinds_say(kg):
    judge = stub_judge(kg=Constant(0.9))  # from kinds and degrees it would say causal
    v = judge_pair("Raloxifene", "lonely", judge=judge, kg=kg)
    assert v.verdict == "unknown" and v.unknown
    assert v.causal is None and v.direction is None  # never read as False / "none"
    assert v.probability is None and v.probabilities is None and v.threshold is None
    assert v.variant == "none" and v.contributions == [] and v.paths == []
    assert list(v.abstention.lacking) == ["sentence", "path", "llm"]
    reason = v.abstention.reason
    assert "no sentence names both" in reason
    assert "no path joins Raloxifene (Compound) and lonely (Gene) within 4 hops" in reason
    assert "this evidence model has no LLM feature" in reason
    assert [r["remedy"] for r in v.abstention.remedies] == ["sentence", "kg", "llm_model"]
    d = v.to_dict()
    assert (d["verdict"], d["causal"], d["direction"], d["probability"]) == (
        "unknown", None, None, None,
    )  # fmt: skip
    assert d["probabilities"] is None and d["threshold"] is None
    assert d["evidence"]["used"] == "none" and d["evidence"]["contributions"] == []
    assert d["abstention"]["lacking"] == ["sentence", "path", "llm"]
    # the Python API's own names by default
    assert "give a sentence that names both (context=TEXT)" in d["abstention"]["hint"]
    assert "kg=KnowledgeGraph.open(DIR)" in d["abstention"]["hint"]
    assert json.loads(json.dumps(d)) == d
    text = v.to_text()
    assert text[0].startswith("unknown Raloxifene ? lonely  no evidence either way")
    assert text[1] == f"  lacks: {reason}" and text[2].startswith("  to decide it: give a")
    assert not any("coin flip" in n for n in v.notes)


def test_the_metformin_case_names_the_other_node_the_name_may_mean(kg, shipped):
    """As `discover pair Metformin "Type 2 diabetes mellitus"` on Hetionet: the name is a
    Side Effect and a Disease, the Side Effect node taken has no path to the other name,
    there is no sentence and no LLM feature — unknown, and taking the other kind is one
    way to decide it. Asked with the shipped evidence model."""
    v = judge_pair("lonely", "melanoma", judge=shipped, kg=kg)
    assert v.verdict == "unknown" and v.causal is None and v.probability is None
    assert v.linked["b"]["ambiguous"] and v.linked["b"]["node"]["kind"] == "Disease"
    assert "no path joins lonely (Gene) and melanoma (Disease) within 4 hops" in (
        v.abstention.reason
    )
    assert v.abstention.remedies[0] == {
        "remedy": "kind", "which": "b", "name": "melanoma", "kind": "Side Effect",
    }  # fmt: skip
    v.spelling = CLI_LIKE
    hint = v.to_dict()["abstention"]["hint"]
    assert hint.startswith("take the Side Effect node for 'melanoma' (--kind-b 'Side Effect')")
    assert "(--context TEXT)" in hint and hint.endswith("or use an evidence model with the "
                                                       "LLM feature (train one)")  # fmt: skip
    # the same shipped model decides a pair the graph joins by a path
    decided = judge_pair("TXNRD1", "ERBB2", judge=shipped, kg=kg)
    assert decided.verdict in ("causal", "non-causal") and decided.abstention is None
    assert decided.variant == "kg" and decided.paths and 0 <= decided.probability <= 1


def test_a_path_alone_decides(kg):
    v = judge_pair("TXNRD1", "ERBB2", judge=stub_judge(kg=Constant(0.9)), kg=kg)
    assert v.verdict == "causal" and v.causal is True and v.direction == "A→B"
    assert v.probability == pytest.approx(0.9) and v.to_dict()["abstention"] is None
    no = judge_pair("TXNRD1", "ERBB2", judge=stub_judge(kg=Constant(0.1)), kg=kg)
    assert no.verdict == "non-causal" and no.causal is False and no.direction == "none"


def test_a_sentence_alone_decides_where_the_graph_has_no_path(evidence_model, kg):
    judge = evidence_model[0]  # trained on sentences only
    v = judge_pair("Raloxifene", "lonely", judge=judge, kg=kg,
                   context="Raloxifene causes lonely in patients .")  # fmt: skip
    assert v.verdict in ("causal", "non-causal") and v.abstention is None
    assert v.variant == "text" and v.probability is not None
    alone = judge_pair("GENEQ9", "cancerQ9", judge=judge, context="GENEQ9 causes cancerQ9 .")
    assert alone.verdict in ("causal", "non-causal") and alone.variant == "text"


def test_the_llm_feature_decides_and_leaving_it_out_abstains(kg):
    judge = stub_judge(kg=Constant(0.9), **{"kg+llm": Constant(0.2)})
    llm = PromptLLM(lambda text: 0.3)
    v = judge_pair("Raloxifene", "lonely", judge=judge, kg=kg, llm=llm)
    assert v.verdict == "non-causal" and v.variant == "kg+llm" and v.llm
    assert llm.calls and "[Relation Paths]" not in llm.calls[0]["prompt"]
    # left out (--no-llm): unknown, and letting the LLM judge is what would decide it
    (left,) = discover_pairs([PairItem("Raloxifene", "lonely")], judge=judge, kg=kg,
                             llm=llm, no_llm=True, spelling=CLI_LIKE)  # fmt: skip
    assert left.verdict == "unknown"
    assert left.abstention.lacking["llm"] == "no LLM judgement (the LLM was left out)"
    assert [r["remedy"] for r in left.abstention.remedies] == ["sentence", "kg", "llm"]
    assert left.to_dict()["abstention"]["hint"].endswith("or let the LLM judge (drop --no-llm)")


def test_an_llm_feature_no_model_reads_is_not_evidence(kg):
    judge = stub_judge(kg=Constant(0.9))  # no kg+llm combiner: the feature is dropped
    ev = gather_evidence("Raloxifene", "lonely", judge=judge, kg=kg, llm_log_odds=3.0)
    assert ev.variant() == "kg+llm"
    v = judge.judge(ev)
    assert v.verdict == "unknown" and "not used" in v.abstention.lacking["llm"]
    assert any("not used: llm" in n for n in v.notes)


def test_a_name_only_guessed_by_meaning_is_not_in_the_graph(kg, monkeypatch, evidence_model):
    """An embedding match the linker did not accept is a guess: no node, so without a
    sentence an error naming the closest names; with one, the sentence decides alone."""
    from causalqa.kg.linking import Linker

    monkeypatch.setattr(
        Linker, "_embedding", lambda self, q, allowed, limit: [(0, 64.0), (1, 63.0)]
    )
    guess = kg.link("qqzzx")
    assert guess.method == "embedding" and guess.ambiguous and not places(guess)
    assert places(kg.link("Raloxifene")) and places(kg.link("melanoma"))  # ambiguous by name
    judge = stub_judge(kg=Constant(0.9))
    with pytest.raises(EntityNotFoundError) as e:
        judge_pair("Raloxifene", "qqzzx", judge=judge, kg=kg)
    assert "'qqzzx' matches no node of the knowledge graph" in e.value.message
    assert "is only a guess" in e.value.message and "(context=TEXT)" in e.value.hint
    (failed,) = discover_pairs([PairItem("Raloxifene", "qqzzx", line=1)], judge=judge, kg=kg,
                               capture_errors=True, spelling=CLI_LIKE)  # fmt: skip
    assert "(--context TEXT)" in failed.hint
    ev = gather_evidence("Raloxifene", "qqzzx", judge=evidence_model[0], kg=kg,
                         context="Raloxifene causes qqzzx in patients .")  # fmt: skip
    assert ev.kg is None and ev.linked["b"]["guess"]["score"] == 64.0
    assert any("only a guess: not used" in n for n in ev.notes)
    # an embedding match the linker accepts (high, clear of the next) places the name
    monkeypatch.setattr(Linker, "_embedding", lambda self, q, allowed, limit: [(0, 92.0)])
    assert places(kg.link("qqzzx"))


def test_graph_discovery_counts_unknown_pairs_apart(kg):
    """An unknown pair forbids and requires nothing (even where a verdict of P(causal)
    0.01 would forbid every edge) and is shown as unknown, not as non-causal."""
    judge = stub_judge(kg=Constant(0.01))
    found = find_graph(["Raloxifene", "lonely", "TXNRD1"], method="evidence", judge=judge, kg=kg)
    rows = {(r["a"], r["b"]): r for r in found.to_dict()["pairs"]}
    assert rows[("Raloxifene", "TXNRD1")]["p_causal"] == pytest.approx(0.01)
    for pair in (("Raloxifene", "lonely"), ("lonely", "TXNRD1")):
        assert rows[pair]["verdict"] == "unknown" and "p_causal" not in rows[pair]
        assert rows[pair]["lacking"] == ["sentence", "path", "llm"]
    required, forbidden = knowledge_from_verdicts(found.verdicts, require=0.9, forbid=0.05)
    assert required == [] and set(forbidden) == {("Raloxifene", "TXNRD1"), ("TXNRD1", "Raloxifene")}
    assert "| Raloxifene | lonely | – | – | – | unknown (lacks sentence, path, llm) |" in (
        found.to_markdown()
    )


def test_the_default_spelling_is_the_python_apis():
    assert PYTHON.sentence == "context=TEXT"
    assert PYTHON.kind.format(which="b", kind="Disease", kind_sh="Disease") == (
        "kinds_b=['Disease']"
    )


def test_a_sentence_that_negates_the_relation_is_not_read_as_causal():
    """'X does not cause Y' read as causal by the model is unknown, saying so (a denied
    cause is no evidence of one); a plain statement still decides, and a negated one the
    model reads as 'none' stays non-causal."""
    from causalqa.discovery.evidence import PairEvidence, negation_between
    from causalqa.discovery.features import cue_features
    from causalqa.discovery.relation import mentions_in

    def evidence(sentence: str) -> PairEvidence:
        m = mentions_in(sentence, "coffee", "cancer")
        features = {"text_fwd": 0.9, **cue_features(m.text, m.a, m.b)}
        return PairEvidence("coffee", "cancer", features, mention=m,
                            text_probs=np.array([0.1, 0.8, 0.1]))  # fmt: skip

    judge = stub_judge(text=Constant(0.9))
    negated = evidence("Coffee does not cause cancer.")
    assert negation_between(negated) == "does not"
    v = judge.judge(negated)
    assert (v.verdict, v.causal, v.direction, v.probability) == ("unknown", None, None, None)
    assert "negates what joins the two (“does not”)" in v.abstention.reason
    assert any("would have said A→B" in n for n in v.notes)
    # said as what it is, not as "no evidence": nothing else decides while this sentence
    # is given, so no remedy is offered
    assert v.to_text()[0] == (
        "unknown coffee ? cancer  the sentence denies what the model alone would read as causal"
    )
    assert not any(line.startswith("  to decide it") for line in v.to_text())
    assert v.to_dict()["abstention"]["remedies"] == [] and not v.to_dict()["abstention"]["hint"]
    for sentence in ("Coffee never causes cancer.", "Coffee is not a cause of cancer."):
        assert judge.judge(evidence(sentence)).verdict == "unknown", sentence
    plain = judge.judge(evidence("Coffee causes cancer."))
    assert negation_between(evidence("Coffee causes cancer.")) is None
    assert (plain.verdict, plain.direction) == ("causal", "A→B")
    # a negation outside the span between the two is not this one's
    assert judge.judge(evidence("Coffee causes cancer, not heartburn.")).verdict == "causal"
    assert stub_judge(text=Constant(0.1)).judge(negated).verdict == "non-causal"
