"""RoTG on a toy causal KG: shapes, a training step, retrieval of top nodes' chains."""

from __future__ import annotations

import pytest

pytest.importorskip("torch_geometric")

import torch  # noqa: E402

from causalqa.deduction.chains import INFERRED, Chain  # noqa: E402
from causalqa.deduction.dataset import Example  # noqa: E402
from causalqa.deduction.event_graph import CausalKG  # noqa: E402
from causalqa.deduction.gnn_retriever import EDGE_DIM, RoTGRetriever, _build_module  # noqa: E402
from causalqa.deduction.retrieve import Retriever, get_retriever  # noqa: E402
from causalqa.errors import EventGraphError  # noqa: E402

CTX = "The airplane stalled after takeoff with frost on its wings; the pilot was hurried."


@pytest.fixture
def kg(embedder):
    g = CausalKG()
    g.add_chains(
        [
            Chain(("Frost on the wings", "Reduced lift", "Aerodynamic stall"), report_id="r1"),
            Chain(("Carburetor ice", "Loss of engine power", "Forced landing"), report_id="r2"),
            Chain(("Fuel exhaustion", "Loss of engine power"), report_id="r3"),
            Chain(("Pilot fatigue", "Loss of engine power"), INFERRED, "r3", "Pilot fatigue"),
            Chain(("Ice on the wings", "Aerodynamic stall"), INFERRED, "r1", "Ice on the wings"),
            Chain(("Ice on the wings", "Increased drag"), report_id="r4"),
        ]
    )
    g.link_similar(embedder, threshold=0.3)
    return g


def _examples():
    rows = [
        ("r1", "Ice on the wings", True),
        ("r1", "Fuel exhaustion", False),
        ("r2", "Carburetor ice", True),
        ("r2", "Pilot fatigue", False),
        ("r3", "Fuel exhaustion", True),
        ("r3", "Pilot fatigue", False),
        ("r3", "Frost on the wings", False),
    ]
    return [
        Example(report_id=r, context=f"context of {r}", statement=s, label=lab)
        for r, s, lab in rows
    ]


def test_forward_shapes():
    m = _build_module(dim=16, hidden=8, layers=2, heads=2, dropout=0.0)
    n, b = 7, 2
    R, flags = torch.randn(n, 16), torch.zeros(n, 2)
    ei = torch.tensor([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6]])
    ea = torch.rand(6, EDGE_DIM)
    ow = m.node_weights(R, flags, torch.randn(1, 16), ei, ea)
    assert ow.shape == (n,)
    # Two graphs stacked: 4 + 3 nodes, one statement each.
    batch = torch.tensor([0, 0, 0, 0, 1, 1, 1])
    logits, ow = m(R, flags, torch.randn(b, 16), ei, ea, [2, 1], batch)
    assert logits.shape == (b, 2) and ow.shape == (n,)


def test_training_reduces_loss_and_predicts_probabilities(kg, embedder):
    r = RoTGRetriever(embedder, epochs=12, lr=3e-3, dropout=0.0).fit(kg, _examples())
    assert len(r.history_) == 12 and r.history_[-1] < r.history_[0]
    # 3 True, 4 False: oversampled to max(3, 2) True; weights from those counts.
    assert r.class_weights_ == pytest.approx({"False": 7 / 8, "True": 7 / 6})
    p = r.predict_proba(_examples())
    assert p.shape == (7,) and ((p >= 0) & (p <= 1)).all()


def test_seeded(kg, embedder):
    a = RoTGRetriever(embedder, epochs=2).fit(kg, _examples())
    b = RoTGRetriever(embedder, epochs=2).fit(kg, _examples())
    assert a.history_ == b.history_


def test_retrieve_returns_chains_of_top_nodes(kg, embedder):
    r = RoTGRetriever(embedder, epochs=2, neighbourhood=None).fit(kg, _examples())
    assert isinstance(r, Retriever)
    ranked = r.node_scores("", "Ice on the wings", report_id="r1")
    assert len(ranked) == len(kg.nodes)
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    chains = r.retrieve("", "Ice on the wings", k=1, report_id="r1")
    assert chains and all(c.report_id != "r1" for c in chains)
    # All chains pass through the first node (by ow) that has chains of other reports.
    top = next(
        nid
        for nid, _ in ranked
        if any(r.chains_[i].report_id != "r1" for i in r.chains_by_node_.get(nid, []))
    )
    assert all(kg.nodes[top].key in {kg.nodes[kg.find(n)].key for n in c.nodes} for c in chains)
    assert len(r.retrieve("", "Ice on the wings", k=3, report_id="r1")) >= len(chains)


def test_k_hop_subgraph_path(kg, embedder):
    r = RoTGRetriever(embedder, epochs=1, full_graph_nodes=2, seed_nodes=2, hops=1)
    r.fit(kg, _examples())
    ranked = r.node_scores("", "Fuel exhaustion", report_id="r3")
    assert 0 < len(ranked) <= len(kg.nodes)


def test_registry_errors_and_save_load(kg, embedder, tmp_path):
    assert isinstance(get_retriever("rotg"), RoTGRetriever)
    with pytest.raises(EventGraphError, match="not fitted"):
        RoTGRetriever(embedder).retrieve(CTX, "x")
    with pytest.raises(EventGraphError, match="labelled examples"):
        RoTGRetriever(embedder).fit(kg)
    with pytest.raises(EventGraphError, match="empty"):
        RoTGRetriever(embedder).fit(CausalKG(), _examples())
    kg.save(tmp_path / "kg")
    r = RoTGRetriever(embedder, epochs=1).fit(kg, _examples())
    r.save()
    loaded = RoTGRetriever(embedder).fit(CausalKG.load(tmp_path / "kg"))
    a, b = loaded.node_scores("", "Pilot fatigue"), r.node_scores("", "Pilot fatigue")
    assert [i for i, _ in a] == [i for i, _ in b]
    assert [s for _, s in a] == pytest.approx([s for _, s in b])


def test_rotg_ranks_only_the_reports_neighbourhood(kg, embedder):
    """Restricted to the report's neighbourhood, RoTG's candidates are the nodes within
    `neighbourhood` hops of the report's own nodes — not the whole graph's hubs."""
    whole = RoTGRetriever(embedder, epochs=1, neighbourhood=None, seed=0).fit(kg, _examples())
    near = RoTGRetriever(embedder, epochs=1, neighbourhood=1, seed=0).fit(kg, _examples())
    all_nodes = {n for n, _ in whole.node_scores("", "Carburetor ice", report_id="r2")}
    scored = {n for n, _ in near.node_scores("", "Carburetor ice", report_id="r2")}
    own = near.extracted_nodes_["r2"]
    allowed = own | {m for n in own for m in near.adjacency_.get(n, ())}
    assert own <= scored <= allowed
    assert scored < all_nodes
    # A report never mined starts from the nodes nearest the statement.
    assert near.node_scores("", "Carburetor ice", report_id="unknown")
