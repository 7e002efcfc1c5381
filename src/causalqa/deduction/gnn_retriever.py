"""RoTG: the paper's graph neural retriever over the causal KG (§4.2, Appendix A, C.1).

Node selection is trained through an auxiliary task (is the statement True or False?):
a statement-attended node encoding, TransformerConv layers over the typed edges, top-K
gating and the paper's classification head; at inference the head is dropped and the
top-E nodes by learned weight — among the report's own neighbourhood of the KG, not the
whole graph's hubs — point at the chains shown to the LLM. MiniLM (384-d) stands in for
RoBERTa; sizes are scaled to 2 CPU cores (see `RoTGRetriever`'s parameters).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.deduction.chains import (
    EXTRACTED,
    INFERRED,
    SIMILAR,
    Chain,
    node_key,
)
from causalqa.deduction.event_graph import CausalKG, context_sha
from causalqa.deduction.retrieve import chains_of_top_nodes
from causalqa.errors import EventGraphError
from causalqa.evidence.finetune import train_epochs

EDGE_TYPE_INDEX = {EXTRACTED: 0, INFERRED: 1, SIMILAR: 2}
EDGE_DIM = len(EDGE_TYPE_INDEX) + 1


def _torch():
    try:
        import torch
        import torch_geometric  # noqa: F401
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise EventGraphError(
            "RoTG needs torch and torch_geometric",
            hint="pip install torch_geometric (pure Python; keep the installed torch)",
        ) from e
    return torch


def _build_module(dim: int, hidden: int, layers: int, heads: int, dropout: float):
    torch = _torch()
    from torch import nn
    from torch_geometric.nn import TransformerConv

    class StatementCrossAttention(nn.Module):
        """Q = Attention(Q', r, r), per-head sigmoid weights (one key: see module doc)."""

        def __init__(self) -> None:
            super().__init__()
            self.heads = heads
            self.q = nn.Linear(dim + 2, hidden)
            self.k = nn.Linear(dim, hidden)
            self.v = nn.Linear(dim, hidden)
            self.skip = nn.Linear(dim + 2, hidden)
            self.norm = nn.LayerNorm(hidden)

        def forward(self, qp, r):
            n = qp.shape[0]
            d = hidden // heads
            q = self.q(qp).view(n, heads, d)
            k = self.k(r).view(-1, heads, d)
            v = self.v(r).view(-1, heads, d)
            w = torch.sigmoid((q * k).sum(-1, keepdim=True) / math.sqrt(d))
            return self.norm(self.skip(qp) + (w * v).reshape(n, hidden))

    def gnn(in_dim: int, out_last: int) -> nn.ModuleList:
        mods = nn.ModuleList()
        for i in range(layers):
            last = i == layers - 1
            mods.append(
                TransformerConv(
                    in_dim if i == 0 else hidden,
                    (out_last if last else hidden // heads),
                    heads=1 if last else heads,
                    edge_dim=EDGE_DIM,
                    dropout=dropout,
                    root_weight=True,
                )
            )
        return mods

    class RoTGModule(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = StatementCrossAttention()
            self.local = gnn(hidden, 1)
            self.global_in = nn.Linear(dim, hidden)
            self.glob = gnn(hidden, hidden)
            self.drop = nn.Dropout(dropout)
            self.norm = nn.LayerNorm(dim + hidden)
            self.head = nn.Sequential(
                nn.Linear(dim + hidden, 128),
                nn.LeakyReLU(),
                nn.Linear(128, 64),
                nn.LeakyReLU(),
                nn.Linear(64, 2),
            )
            self.act = nn.LeakyReLU()

        @staticmethod
        def _run(mods, x, edge_index, edge_attr, act):
            for i, conv in enumerate(mods):
                x = conv(x, edge_index, edge_attr)
                if i < len(mods) - 1:
                    x = act(x)
            return x

        def node_weights(self, R, flags, r, edge_index, edge_attr):
            """ow: one score per node (before gating)."""
            q = self.attn(torch.cat([R, flags], dim=1), r)  # r: (1, d) or (n, d)
            return self._run(self.local, q, edge_index, edge_attr, self.act).squeeze(-1)

        def forward(self, R, flags, r, edge_index, edge_attr, top_k, batch=None):
            """Logits (B, 2) and ow. `r` is (B, d); `batch` maps nodes to graphs (all 0
            when None); `top_k` is an int or one int per graph."""
            if batch is None:
                batch = torch.zeros(R.shape[0], dtype=torch.long)
            n_graphs = r.shape[0]
            ow = self.node_weights(R, flags, r[batch], edge_index, edge_attr)
            ks = [top_k] * n_graphs if isinstance(top_k, int) else list(top_k)
            gate = torch.zeros_like(ow)
            for g in range(n_graphs):
                rows = (batch == g).nonzero().squeeze(1)
                k = max(1, min(int(ks[g]), rows.numel()))
                idx = rows[torch.topk(ow[rows], k).indices]
                gate[idx] = torch.sigmoid(ow[idx])
            q2 = self.global_in(gate.unsqueeze(1) * R)
            nw = self._run(self.glob, q2, edge_index, edge_attr, self.act)
            pooled = torch.zeros(n_graphs, nw.shape[1]).index_add_(0, batch, gate[:, None] * nw)
            mass = torch.zeros(n_graphs).index_add_(0, batch, gate).clamp_min(1e-6)
            o = self.norm(self.drop(torch.cat([r, pooled / mass[:, None]], dim=1)))
            return self.head(o), ow

    return RoTGModule()


class RoTGRetriever:
    """The paper's RoTG as a `Retriever`: ``fit(kg, examples)`` trains on the examples'
    True/False labels (the auxiliary task); ``retrieve(context, statement, k)`` returns
    the cleaned chains through the top-k nodes by learned weight (the paper's top-E).

    ``fit(kg)`` without examples loads a model saved in the KG's directory
    (``rotg.pt``, written by `save`); see the module docstring for the parameters.
    Learned: `module_`, `history_` (loss per epoch), `train_seconds_`, `n_train_`.
    """

    name = "rotg"

    def __init__(
        self,
        embedder=None,
        *,
        hidden: int = 64,
        layers: int = 2,
        heads: int = 2,
        dropout: float = 0.1,
        top_k: float = 0.25,
        epochs: int = 4,
        max_train: int = 2000,
        batch_size: int = 8,
        lr: float = 1e-3,
        true_ratio: float = 0.5,
        full_graph_nodes: int = 1000,
        hops: int = 2,
        seed_nodes: int = 64,
        max_subgraph_nodes: int = 3000,
        dedupe: float | None = 0.8,
        per_kind: int | None = 10,
        edge_types: Sequence[str] = (EXTRACTED, INFERRED, SIMILAR),
        neighbourhood: int | None = 2,
        seed: int = 0,
        threads: int | None = 1,
        progress: bool = False,
    ) -> None:
        self.embedder = embedder
        self.hidden = hidden
        self.layers = layers
        self.heads = heads
        self.dropout = dropout
        self.top_k = top_k
        self.epochs = epochs
        self.max_train = max_train
        self.batch_size = batch_size
        self.lr = lr
        self.true_ratio = true_ratio
        self.full_graph_nodes = full_graph_nodes
        self.hops = hops
        self.seed_nodes = seed_nodes
        self.max_subgraph_nodes = max_subgraph_nodes
        self.dedupe = dedupe
        self.per_kind = per_kind
        self.edge_types = tuple(edge_types)
        self.neighbourhood = neighbourhood
        self.seed = seed
        self.threads = threads
        self.progress = progress

    # -- graph and inputs ----------------------------------------------------------------
    def _embedder(self):
        if self.embedder is None:
            from causalqa.embed import Embedder

            self.embedder = Embedder()
        return self.embedder

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        v = np.asarray(self._embedder().encode(list(texts)), dtype=np.float32)
        if v.ndim != 2 or len(v) != len(texts):
            raise EventGraphError("the embedder returned vectors of the wrong shape")
        return v

    def _prepare_graph(self, kg: CausalKG, reports: Iterable[str] | None) -> None:
        torch = _torch()
        if not kg.nodes:
            raise EventGraphError("the causal KG is empty", hint="mine one with `causalqa kg mine`")
        self.kg_ = kg
        self.__dict__.pop("adjacency_", None)
        self.R_np_ = self._encode([n.text for n in kg.nodes])
        self.R_ = torch.from_numpy(self.R_np_)
        src, dst, attr = [], [], []
        for e in kg.edges.values():
            if e.source == e.target or e.type not in self.edge_types:
                continue
            src.append(e.source)
            dst.append(e.target)
            row = [0.0] * EDGE_DIM
            row[EDGE_TYPE_INDEX[e.type]] = 1.0
            row[-1] = float(e.weight)
            attr.append(row)
        self.edge_index_ = torch.tensor([src, dst], dtype=torch.long).reshape(2, -1)
        self.edge_attr_ = torch.tensor(attr, dtype=torch.float32).reshape(-1, EDGE_DIM)
        # Flags: nodes on a report's extracted chains / a (report, statement)'s inferred ones.
        self.extracted_nodes_: dict[str, set[int]] = {}
        self.inferred_nodes_: dict[tuple[str, str], set[int]] = {}
        for c in kg.chains:
            ids = {i for i in (kg.find(n) for n in c.nodes) if i is not None}
            rid = c.report_id or ""
            if c.kind == EXTRACTED:
                self.extracted_nodes_.setdefault(rid, set()).update(ids)
            elif c.kind == INFERRED:
                key = (rid, node_key(c.statement or ""))
                self.inferred_nodes_.setdefault(key, set()).update(ids)
        self.report_sha_ = {r.report_id: r.context_sha for r in kg.records if r.context_sha}
        # The chains retrieval may show (of the given reports only, e.g. training folds).
        keep = set(reports) if reports is not None else None
        self.chains_ = [
            c
            for c in kg.chains
            if c.kind in (EXTRACTED, INFERRED) and (keep is None or c.report_id in keep)
        ]
        by_node: dict[int, list[int]] = {}
        for i, c in enumerate(self.chains_):
            for nid in dict.fromkeys(kg.find(n) for n in c.nodes):
                if nid is not None:
                    by_node.setdefault(nid, []).append(i)
        self.chains_by_node_ = by_node

    def _report_ids_for(self, report_id: str | None, context: str) -> list[str]:
        if report_id:
            return [report_id]
        sha = context_sha(context) if context.strip() else None
        return [rid for rid, s in self.report_sha_.items() if s == sha] if sha else []

    def _inputs(self, report_ids: Sequence[str], statement: str, r_vec: np.ndarray):
        """(node ids or None for all, R, flags, r, edge_index, edge_attr) of one example."""
        torch = _torch()
        n = len(self.kg_.nodes)
        ext: set[int] = set()
        inf: set[int] = set()
        skey = node_key(statement)
        for rid in report_ids:
            ext |= self.extracted_nodes_.get(rid, set())
            inf |= self.inferred_nodes_.get((rid, skey), set())
        r = torch.from_numpy(np.asarray(r_vec, dtype=np.float32)).unsqueeze(0)
        if n <= self.full_graph_nodes:
            flags = torch.zeros(n, 2)
            if ext:
                flags[list(ext), 0] = 1.0
            if inf:
                flags[list(inf), 1] = 1.0
            return None, self.R_, flags, r, self.edge_index_, self.edge_attr_
        from torch_geometric.utils import k_hop_subgraph, subgraph

        sims = self.R_np_ @ np.asarray(r_vec, dtype=np.float32)
        near = np.argsort(-sims, kind="stable")[: self.seed_nodes].tolist()
        seeds = sorted(set(near) | ext | inf)
        subset, _, _, _ = k_hop_subgraph(
            torch.tensor(seeds, dtype=torch.long), self.hops, self.edge_index_, num_nodes=n
        )
        if len(subset) > self.max_subgraph_nodes:
            rest = [i for i in subset.tolist() if i not in set(seeds)]
            rest.sort(key=lambda i: -sims[i])
            keep = seeds + rest[: max(0, self.max_subgraph_nodes - len(seeds))]
            subset = torch.tensor(sorted(keep), dtype=torch.long)
        ei, ea = subgraph(
            subset, self.edge_index_, self.edge_attr_, relabel_nodes=True, num_nodes=n
        )
        pos = {int(g): i for i, g in enumerate(subset.tolist())}
        flags = torch.zeros(len(subset), 2)
        for g in ext:
            if g in pos:
                flags[pos[g], 0] = 1.0
        for g in inf:
            if g in pos:
                flags[pos[g], 1] = 1.0
        return subset, self.R_[subset], flags, r, ei, ea

    def _top_k(self, n_nodes: int) -> int:
        k = self.top_k
        return max(1, int(round(k * n_nodes)) if isinstance(k, float) and k <= 1 else int(k))

    # -- training ------------------------------------------------------------------------
    def fit(
        self,
        kg: CausalKG,
        examples: Sequence[Any] | None = None,
        *,
        reports: Iterable[str] | None = None,
    ) -> RoTGRetriever:
        """Train on `examples` (anything with report_id, statement, label) over `kg`;
        retrieval then shows chains of `reports` only (all when None). Without examples,
        load ``rotg.pt`` from the KG's directory."""
        torch = _torch()
        if self.threads:
            torch.set_num_threads(self.threads)
        self._prepare_graph(kg, reports)
        if not examples:
            path = Path(kg.path or ".") / "rotg.pt"
            if kg.path is None or not path.exists():
                raise EventGraphError(
                    "RoTG needs labelled examples to train on",
                    hint="fit(kg, examples) — e.g. via `causalqa bench deduction` — or save "
                    "a trained model with .save() into the KG directory",
                )
            return self._load_state(path)
        torch.manual_seed(self.seed)
        rng = random.Random(self.seed)
        self.dim_ = self.R_np_.shape[1]
        self.module_ = _build_module(self.dim_, self.hidden, self.layers, self.heads, self.dropout)
        stmts = list(dict.fromkeys(e.statement for e in examples))
        vecs = dict(zip(stmts, self._encode(stmts)))
        pos = [e for e in examples if e.label]
        neg = [e for e in examples if not e.label]
        # Oversample True to `true_ratio` of the False count (1:2), capped per epoch.
        want_pos = max(len(pos), int(round(self.true_ratio * len(neg)))) if pos else 0
        n_pos, n_neg = want_pos, len(neg)
        total = n_pos + n_neg
        weights = torch.tensor(
            [total / (2.0 * max(n_neg, 1)), total / (2.0 * max(n_pos, 1))], dtype=torch.float32
        )  # index 0 = False, 1 = True
        loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
        opt = torch.optim.Adam(self.module_.parameters(), lr=self.lr)
        self.class_weights_ = {"False": float(weights[0]), "True": float(weights[1])}
        start = time.perf_counter()
        self.module_.train()

        def epoch_batches(_epoch):
            extra = rng.choices(pos, k=n_pos - len(pos)) if pos else []
            epoch = list(neg) + list(pos) + extra
            rng.shuffle(epoch)
            epoch = epoch[: self.max_train]
            return (epoch[b : b + self.batch_size] for b in range(0, len(epoch), self.batch_size))

        def batch_loss(chunk):
            target = torch.tensor([1 if e.label else 0 for e in chunk])
            return loss_fn(self._logits(chunk, vecs), target)

        run = train_epochs(epoch_batches, batch_loss, opt, epochs=self.epochs)
        self.history_: list[float] = run.epoch_losses
        self.module_.eval()
        self.n_train_ = len(examples)
        self.n_epoch_examples_ = min(self.max_train, total)
        self.train_seconds_ = round(time.perf_counter() - start, 2)
        return self

    def _logits(self, chunk: Sequence[Any], vecs: dict[str, np.ndarray]):
        """Logits (B, 2) of a batch of examples: their graphs stacked disjointly."""
        torch = _torch()
        parts = [self._inputs([e.report_id], e.statement, vecs[e.statement]) for e in chunk]
        offset = 0
        eis, batch, ks = [], [], []
        for g, (_, R, _, _, ei, _) in enumerate(parts):
            eis.append(ei + offset)
            batch.append(torch.full((R.shape[0],), g, dtype=torch.long))
            ks.append(self._top_k(R.shape[0]))
            offset += R.shape[0]
        logits, _ = self.module_(
            torch.cat([p[1] for p in parts]),
            torch.cat([p[2] for p in parts]),
            torch.cat([p[3] for p in parts]),
            torch.cat(eis, dim=1),
            torch.cat([p[5] for p in parts]),
            ks,
            torch.cat(batch),
        )
        return logits

    def _check_fitted(self) -> None:
        if not hasattr(self, "module_"):
            raise EventGraphError(
                "the retriever is not fitted", hint="call .fit(kg, examples) first"
            )

    # -- inference -----------------------------------------------------------------------
    def node_scores(
        self, context: str, statement: str, *, report_id: str | None = None
    ) -> list[tuple[int, float]]:
        """(KG node id, ow) for every node considered, highest first."""
        self._check_fitted()
        torch = _torch()
        r_vec = self._encode([statement])[0]
        subset, R, flags, r, ei, ea = self._inputs(
            self._report_ids_for(report_id, context), statement, r_vec
        )
        with torch.no_grad():
            ow = self.module_.node_weights(R, flags, r, ei, ea).numpy()
        ids = np.arange(len(ow)) if subset is None else subset.numpy()
        order = np.argsort(-ow, kind="stable")
        scored = [(int(ids[i]), float(ow[i])) for i in order]
        if getattr(self, "neighbourhood", None) is None:
            return scored
        near = self.neighbourhood_of(
            self._report_ids_for(report_id, context), statement, r_vec, self.neighbourhood
        )
        return [(n, w) for n, w in scored if n in near]

    def neighbourhood_of(
        self, report_ids: Sequence[str], statement: str, r_vec, hops: int
    ) -> set[int]:
        """The KG nodes within `hops` edges (any type, either direction) of the report's
        own nodes — those on its extracted chains and on the chains inferred for this
        statement — or, for a report never mined, of the `seed_nodes` nodes nearest the
        statement. RoTG ranks only these, so a statement gets chains near its report
        rather than the graph's hubs."""
        seeds: set[int] = set()
        skey = node_key(statement)
        for rid in report_ids:
            seeds |= self.extracted_nodes_.get(rid, set())
            seeds |= self.inferred_nodes_.get((rid, skey), set())
        if not seeds:
            sims = self.R_np_ @ np.asarray(r_vec, dtype=np.float32)
            seeds = set(np.argsort(-sims, kind="stable")[: self.seed_nodes].tolist())
        if not hasattr(self, "adjacency_"):
            adj: dict[int, set[int]] = {}
            ei = self.edge_index_.numpy()
            for a, b in zip(ei[0].tolist(), ei[1].tolist()):
                adj.setdefault(a, set()).add(b)
                adj.setdefault(b, set()).add(a)
            self.adjacency_ = adj
        seen, frontier = set(seeds), set(seeds)
        for _ in range(hops):
            frontier = {m for n in frontier for m in self.adjacency_.get(n, ())} - seen
            seen |= frontier
        return seen

    def predict_proba(self, examples: Sequence[Any]) -> np.ndarray:
        """P(True) of the auxiliary classifier for each example."""
        self._check_fitted()
        torch = _torch()
        stmts = list(dict.fromkeys(e.statement for e in examples))
        vecs = dict(zip(stmts, self._encode(stmts))) if stmts else {}
        out: list[float] = []
        with torch.no_grad():
            for b in range(0, len(examples), self.batch_size):
                logits = self._logits(examples[b : b + self.batch_size], vecs)
                out += torch.softmax(logits, -1)[:, 1].tolist()
        return np.asarray(out, dtype=np.float64)

    def retrieve(
        self,
        context: str,
        statement: str,
        k: int = 3,
        *,
        report_id: str | None = None,
        exclude_reports: Iterable[str] | None = None,
    ) -> list[Chain]:
        """The cleaned chains through the top-`k` nodes by ow that carry any (top-E),
        highest first; each chain's `score` is its node's ow. As in the semantic
        retriever, chains of the context's own report and of `exclude_reports` are
        never shown."""
        self._check_fitted()
        excluded = set(exclude_reports or ())
        excluded |= set(self._report_ids_for(None, context))
        if report_id:
            excluded.add(report_id)
        scored = self.node_scores(context, statement, report_id=report_id)
        return chains_of_top_nodes(self, scored, excluded, k)

    # -- persistence ---------------------------------------------------------------------
    def save(self, path: str | Path | None = None) -> Path:
        """Write the trained weights and parameters (``rotg.pt`` in the KG directory)."""
        self._check_fitted()
        torch = _torch()
        target = Path(path) if path is not None else Path(self.kg_.path or ".") / "rotg.pt"
        params = {k: v for k, v in vars(self).items() if not k.endswith("_") and k != "embedder"}
        torch.save({"params": params, "dim": self.dim_, "state": self.module_.state_dict()}, target)
        return target

    def _load_state(self, path: Path) -> RoTGRetriever:
        torch = _torch()
        blob = torch.load(path, weights_only=True)
        for k, v in blob["params"].items():
            setattr(self, k, v)
        self.dim_ = blob["dim"]
        self.module_ = _build_module(self.dim_, self.hidden, self.layers, self.heads, self.dropout)
        self.module_.load_state_dict(blob["state"])
        self.module_.eval()
        return self
