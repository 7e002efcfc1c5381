"""Retrievers: which causal chains of the KG to show the LLM beside a statement.

A retriever is an estimator over a `CausalKG`: ``fit(kg)`` learns whatever it needs and
returns itself; ``retrieve(context, statement, k)`` returns a list of `Chain` — the chains
of the KG's top-k nodes for that statement, cleaned as in §4.3 (drop a chain within
Levenshtein ratio 0.8 of an earlier one, keep the first 10 of each kind). Anything with
those two methods plugs into `deduce` (RoTG, the paper's GNN, is one more such class).

`SemanticRetriever` is the §5.2 baseline: the KG's node texts embedded with MiniLM
(the paper used all-mpnet-base-v2; only MiniLM ships offline here), a Faiss inner-product
index, the nodes nearest to the statement (optionally mixed with its context), and the
chains that pass through them — the mined chains, i.e. paths along extracted and
inferred edges, as the paper took "the nodes' original reports' extracted or inferred
causal chains … that contain the node span".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from causalqa import registry
from causalqa.deduction.chains import EXTRACTED, INFERRED, Chain, clean_chains
from causalqa.deduction.event_graph import CausalKG, context_sha
from causalqa.errors import ConfigError, DeductionError, EventGraphError


@runtime_checkable
class Retriever(Protocol):
    """What `deduce` needs of a retriever."""

    name: str

    def fit(self, kg: CausalKG, **kwargs) -> Retriever: ...

    def retrieve(self, context: str, statement: str, k: int = 3, **kwargs) -> list[Chain]: ...


class NoRetriever:
    """Retrieves nothing: the paper's *None* baseline."""

    name = "none"

    def fit(self, kg: CausalKG | None = None, **kwargs) -> NoRetriever:
        return self

    def retrieve(self, context: str, statement: str, k: int = 3, **kwargs) -> list[Chain]:
        return []


class SemanticRetriever:
    """Chains through the KG nodes nearest to a statement in embedding space.

    Parameters (held until `fit`, as in scikit-learn):

    - `embedder`: anything with ``encode(list[str]) -> (n, d) unit vectors``; default the
      offline MiniLM `Embedder`;
    - `context_weight`: the query is ``statement + context_weight · context`` (then
      renormalised); 0 searches with the statement alone;
    - `kinds`: which chains to return (extracted, inferred or both);
    - `dedupe`, `per_kind`: the §4.3 cleaning (Levenshtein ratio ≥ 0.8 dropped, first 10
      per kind kept); ``dedupe=None``/``per_kind=None`` turn either off;
    - `use_faiss`: a Faiss ``IndexFlatIP`` (exact inner product); False uses NumPy.

    Learned in `fit`: `node_ids_`, `index_`, `chains_by_node_`, `backend_`.
    """

    name = "semantic"

    def __init__(
        self,
        embedder=None,
        *,
        context_weight: float = 0.0,
        kinds: Sequence[str] = (EXTRACTED, INFERRED),
        dedupe: float | None = 0.8,
        per_kind: int | None = 10,
        use_faiss: bool = True,
    ) -> None:
        self.embedder = embedder
        self.context_weight = context_weight
        self.kinds = tuple(kinds)
        self.dedupe = dedupe
        self.per_kind = per_kind
        self.use_faiss = use_faiss

    def _embedder(self):
        if self.embedder is None:
            from causalqa.embed import Embedder

            self.embedder = Embedder()
        return self.embedder

    def fit(self, kg: CausalKG, *, reports: Iterable[str] | None = None) -> SemanticRetriever:
        """Index the nodes of `kg` that lie on chains of the wanted kinds — of the given
        `reports` only, if given (e.g. a cross-validation fold's training reports)."""
        keep = set(reports) if reports is not None else None
        chains = [
            c for c in kg.chains if c.kind in self.kinds and (keep is None or c.report_id in keep)
        ]
        by_node: dict[int, list[int]] = {}
        for i, c in enumerate(chains):
            for nid in dict.fromkeys(kg.find(n) for n in c.nodes):
                if nid is not None:
                    by_node.setdefault(nid, []).append(i)
        self.kg_ = kg
        self.chains_ = chains
        self.node_ids_ = np.array(sorted(by_node), dtype=np.int64)
        self.chains_by_node_ = by_node
        self.report_sha_ = {r.report_id: r.context_sha for r in kg.records if r.context_sha}
        texts = [kg.nodes[i].text for i in self.node_ids_]
        vectors = np.asarray(self._embedder().encode(texts), dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise EventGraphError("the embedder returned vectors of the wrong shape")
        self.vectors_ = vectors
        self.index_ = None
        self.backend_ = "numpy"
        if self.use_faiss and len(texts):
            try:
                import faiss
            except ImportError:
                faiss = None
            if faiss is not None:
                index = faiss.IndexFlatIP(vectors.shape[1])
                index.add(np.ascontiguousarray(vectors))
                self.index_ = index
                self.backend_ = "faiss"
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "node_ids_"):
            raise EventGraphError(
                "the retriever is not fitted", hint="call .fit(kg) before .retrieve(...)"
            )

    def _query(self, context: str, statement: str) -> np.ndarray:
        texts = [statement] + ([context] if self.context_weight and context.strip() else [])
        v = np.asarray(self._embedder().encode(texts), dtype=np.float32)
        q = v[0] + (self.context_weight * v[1] if len(v) > 1 else 0.0)
        n = float(np.linalg.norm(q))
        return (q / n if n else q).astype(np.float32)

    def nearest_nodes(self, context: str, statement: str, n: int) -> list[tuple[int, float]]:
        """The `n` indexed nodes nearest to the query: (KG node id, cosine) pairs."""
        self._check_fitted()
        if n <= 0 or not len(self.node_ids_):
            return []
        q = self._query(context, statement)
        n = min(n, len(self.node_ids_))
        if self.index_ is not None:
            scores, rows = self.index_.search(q[None, :], n)
            pairs = zip(rows[0].tolist(), scores[0].tolist())
        else:
            sims = self.vectors_ @ q
            top = np.argsort(-sims, kind="stable")[:n]
            pairs = ((int(i), float(sims[i])) for i in top)
        return [(int(self.node_ids_[r]), float(s)) for r, s in pairs if r >= 0]

    def retrieve(
        self,
        context: str,
        statement: str,
        k: int = 3,
        *,
        exclude_reports: Iterable[str] | None = None,
    ) -> list[Chain]:
        """The cleaned chains through the `k` nearest nodes that have any (the paper's
        top-E, E = 3), nearest node first; each chain's `score` is its node's cosine.

        Chains of the report the context belongs to (same text fingerprint) and of
        `exclude_reports` are never returned: showing a report its own mined chains, or
        the chains inferred from the very statement being judged, would leak.
        """
        self._check_fitted()
        excluded = set(exclude_reports or ())
        sha = context_sha(context) if context.strip() else None
        if sha:
            excluded |= {rid for rid, s in self.report_sha_.items() if s == sha}
        # Over-fetch: the nearest nodes may only carry chains of excluded reports.
        scored = self.nearest_nodes(context, statement, max(4 * k, k + 16))
        return chains_of_top_nodes(self, scored, excluded, k)


def register_retriever(name: str, cls: type) -> None:
    """Make `cls` available as ``get_retriever(name)`` and ``--retriever NAME``."""
    registry.register("retriever", name, cls)


def get_retriever(name: str, **kwargs):
    """A retriever by name (`registry.names("retriever")`: ``none``, ``semantic``, ``rotg``
    and any a plugin adds), made with `kwargs`."""
    try:
        registry.get("retriever", name)
    except ConfigError as e:
        raise DeductionError(f"unknown retriever {name!r}", hint=e.hint) from None
    return registry.create("retriever", name, **kwargs)


def chains_of_top_nodes(retriever, scored_nodes, excluded: set[str], k: int) -> list[Chain]:
    """The chains through the first `k` of `scored_nodes` (node id, score) that carry any
    chain outside the `excluded` reports, each scored by its node, cleaned as `retriever`
    says (its `chains_`, `chains_by_node_`, `dedupe` and `per_kind`)."""
    out: list[Chain] = []
    used = 0
    for nid, score in scored_nodes:
        picked = [
            retriever.chains_[i]
            for i in retriever.chains_by_node_.get(nid, [])
            if retriever.chains_[i].report_id not in excluded
        ]
        if not picked:
            continue
        out += [
            Chain(c.nodes, c.kind, c.report_id, c.statement, score=round(score, 4)) for c in picked
        ]
        used += 1
        if used >= k:
            break
    return clean_chains(
        out,
        threshold=retriever.dedupe if retriever.dedupe is not None else 2.0,
        limit=retriever.per_kind,
    )
