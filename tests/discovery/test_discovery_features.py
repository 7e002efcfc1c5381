"""Evidence features on a tiny KG: path counts, DWPC by hand, direction kept apart from the
order-free features, metapaths; sentence cues; vectorising named features."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests.discovery.test_discovery_pair import tiny_graph

from causalqa.discovery.features import (
    DIRECTIONAL,
    canonical_metapath,
    cue_features,
    cue_phrase,
    kg_features,
    missing_kg,
    vectorize,
)
from causalqa.kg import KnowledgeGraph


@pytest.fixture(scope="module")
def kg(tmp_path_factory):
    graph = KnowledgeGraph.build(tiny_graph(), tmp_path_factory.mktemp("kg") / "store")
    yield graph
    graph.close()


def node(kg, node_id):
    return kg.node(node_id)


def test_paths_dwpc_and_shortest_by_hand(kg):
    ev = kg_features(kg, node(kg, "C1"), node(kg, "D1"))  # Raloxifene – melanoma
    f = ev.features
    # C1-binds->G1<-associates-D1; via TXNRD1 (binds, regulates) and via breast cancer
    assert len(ev.paths) == 3 and f["shortest"] == 2.0
    assert f["paths_2"] == pytest.approx(math.log1p(1)) and f["paths_3"] == pytest.approx(
        math.log1p(2)
    )
    # binds: Raloxifene binds 2 genes, ERBB2 is bound once; associates: ERBB2 has 2 diseases
    assert f["dwpc_2"] == pytest.approx((2 * 1) ** -0.4 * (2 * 1) ** -0.4)
    assert f["kinds=Compound|Disease"] == 1.0 and f["direct"] == 0.0
    assert f["dwpc_chain_fwd"] == 0.0 and f["dwpc_chain_bwd"] == 0.0
    assert f["truncated"] == 0.0
    assert "mp=" + canonical_metapath("CbG.DaG'") in f
    strongest, weight = ev.strongest(1)[0]
    assert strongest.length == 2 and weight == pytest.approx(f["dwpc_2"])


def test_direction_is_kept_apart_from_order_free_features(kg):
    fwd = kg_features(kg, node(kg, "G2"), node(kg, "G1")).features  # TXNRD1 regulates ERBB2
    bwd = kg_features(kg, node(kg, "G1"), node(kg, "G2")).features
    assert fwd["direct_fwd"] == 1.0 and fwd["direct_bwd"] == 0.0 and bwd["direct_bwd"] == 1.0
    assert fwd["dwpc_chain_fwd"] > 0 and bwd["dwpc_chain_bwd"] == pytest.approx(
        fwd["dwpc_chain_fwd"]
    )
    same = {k: v for k, v in fwd.items() if not k.endswith(DIRECTIONAL)}
    assert same == {k: v for k, v in bwd.items() if not k.endswith(DIRECTIONAL)}
    assert fwd["edge=Gr>G"] >= 1.0


def test_unplaced_pairs_and_vectorize(kg):
    f = missing_kg({"score": 90.0}, None)
    assert f == {"link_min": 0.0, "link_max": 0.9, "ambiguous": 0.0}
    placed = kg_features(kg, node(kg, "C1"), node(kg, "D2")).features
    x = vectorize([placed, f, {}], ["shortest", "mp=XyZ", "link_max", "text_causal"])
    assert x[0, 1] == 0.0  # a metapath the pair lacks: 0, since it was placed in the graph
    assert np.isnan(x[1, 0]) and np.isnan(x[1, 1]) and x[1, 2] == 0.9  # not placed: missing
    assert np.isnan(x[2]).all()


@pytest.mark.parametrize(
    ("sentence", "a", "b", "fwd", "bwd"),
    [
        ("Aspirin caused asthma in two patients.", "Aspirin", "asthma", 1, 0),
        ("Asthma caused by aspirin was seen.", "aspirin", "Asthma", 1, 0),
        ("Aspirin-induced asthma.", "Aspirin", "asthma", 1, 0),
        ("Asthma from aspirin.", "Asthma", "aspirin", 0, 1),
        ("Aspirin and asthma were listed.", "Aspirin", "asthma", 0, 0),
    ],
)
def test_sentence_cues_point_the_right_way(sentence, a, b, fwd, bwd):
    i, j = sentence.index(a), sentence.index(b)
    f = cue_features(sentence, (i, i + len(a)), (j, j + len(b)))
    assert (f["cue_fwd"], f["cue_bwd"]) == (fwd, bwd)
    assert f["cue_causal"] == float(fwd or bwd)
    if fwd or bwd:
        assert cue_phrase(sentence, (i, i + len(a)), (j, j + len(b)))


def test_negation_and_hedging():
    s = "Aspirin did not cause asthma but may cause rash."
    f = cue_features(s, (0, 7), (22, 28))
    assert f["cue_negation"] == 1.0 and f["cue_hedge"] == 1.0 and f["words_between"] == 3.0
