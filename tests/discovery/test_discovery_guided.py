"""Knowledge-guided PC: background knowledge from confident verdicts, evidence-ranked
orientation of what PC leaves undirected, pair verdicts from the evidence model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalqa.discovery.graph import (
    guided_pc,
    knowledge_from_verdicts,
    orient_by_evidence,
    pair_verdicts,
)
from causalqa.discovery.statistical import StatisticalResult, pc
from causalqa.errors import BaselineError


def verdict(p, share):
    return {"p_causal": p, "p_ab": p * share, "p_ba": p * (1 - share)}


def test_knowledge_from_confident_verdicts_only():
    verdicts = {
        ("a", "b"): verdict(0.95, 0.99),  # a→b required, b→a forbidden
        ("a", "c"): verdict(0.02, 0.5),  # no edge either way
        ("b", "c"): verdict(0.5, 0.9),  # not confident: nothing
        ("c", "d"): None,  # no evidence
    }
    required, forbidden = knowledge_from_verdicts(verdicts, require=0.9, forbid=0.05)
    assert required == [("a", "b")]
    assert set(forbidden) == {("b", "a"), ("a", "c"), ("c", "a")}


def test_orientation_by_evidence_only_touches_undirected_pairs():
    adj = np.array([[0, 1, 1], [1, 0, 0], [0, 0, 0]])  # a–b undirected, a→c directed
    result = StatisticalResult("pc", adj, ["a", "b", "c"], undirected=[("a", "b")])
    out, oriented = orient_by_evidence(result, {("a", "b"): verdict(0.8, 0.2)})
    assert oriented == [("b", "a")] and out[1, 0] == 1 and out[0, 1] == 0 and out[0, 2] == 1
    same, none = orient_by_evidence(result, {("a", "b"): verdict(0.8, 0.51)}, margin=0.05)
    assert none == [] and (same == adj).all()


@pytest.fixture(scope="module")
def chain():
    rng = np.random.default_rng(0)
    x = rng.normal(size=3000)
    y = x + rng.normal(size=3000)
    z = y + rng.normal(size=3000)
    return pd.DataFrame({"x": x, "y": y, "z": z})


def test_background_knowledge_reaches_pc(chain):
    plain = pc(chain)
    assert set(plain.undirected) == {("x", "y"), ("y", "z")}  # a chain: no v-structure
    guided = pc(chain, required=[("x", "y")], forbidden=[("y", "x"), ("y", "z"), ("z", "y")])
    assert guided.edges() == [("x", "y")]
    with pytest.raises(BaselineError, match="unknown variable"):
        pc(chain, required=[("x", "w")])


def test_guided_pc_orients_with_evidence(chain):
    verdicts = {
        ("x", "y"): verdict(0.6, 0.9),
        ("x", "z"): verdict(0.3, 0.5),
        ("y", "z"): verdict(0.6, 0.8),
    }
    g = guided_pc(chain, ["x", "y", "z"], verdicts)
    assert set(g.edges()) == {("x", "y"), ("y", "z")} and set(g.oriented) == {
        ("x", "y"),
        ("y", "z"),
    }
    assert g.required == [] and g.forbidden == []
    assert "2 of 2 undirected pairs oriented" in g.notes[0]
    d = g.to_dict()
    assert d["pc_edges"] and d["verdicts"][0]["a"] == "x"


def test_pair_verdicts_from_the_evidence_model(evidence_model):
    judge = evidence_model[0]
    verdicts = pair_verdicts(
        ["GENEK", "cancerK", "thing"], judge=judge, context="GENEK causes cancerK in thing ."
    )
    assert set(verdicts) == {("GENEK", "cancerK"), ("GENEK", "thing"), ("cancerK", "thing")}
    v = verdicts[("GENEK", "cancerK")]
    assert 0 <= v["p_causal"] <= 1 and v["p_ab"] + v["p_ba"] == pytest.approx(
        v["p_causal"], abs=1e-3
    )
    assert v["evidence"] == "text"
    # without a sentence nor a graph there is no evidence: the pair says why
    empty = pair_verdicts(["a", "b"], judge=judge, kg=None)
    assert "no knowledge graph and no sentence" in empty[("a", "b")]["error"]


def test_as_dag_drops_the_weakest_edge_of_each_cycle():
    from causalqa.discovery.graph import as_dag

    names = ["a", "b", "c"]
    adj = np.array([[0, 1, 0], [1, 0, 1], [1, 0, 0]])  # a⇄b, b→c→a
    weight = np.array([[0, 0.9, 0], [0.6, 0, 0.8], [0.3, 0, 0]])
    g, dropped = as_dag(names, adj, weight)
    assert set(dropped) == {("b", "a"), ("c", "a")} and set(g.edges) == {("a", "b"), ("b", "c")}
    g, dropped = as_dag(names, np.zeros((3, 3), dtype=int))
    assert list(g.nodes) == names and not dropped
