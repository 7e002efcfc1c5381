"""Link a variable name ("raloxifene", "Melanoma", "melanoma skin cancer") to graph nodes.

Cheapest method first, stopping at the first that finds anything:

1. ``exact``: the name equals a node's name (or id).
2. ``alias``: the graph's aliases (CauseNet's surface forms, given to the `Linker`) or the
   caller's alias table map it to a node.
3. ``normalized``: equal after case folding, accent stripping and punctuation removal.
4. ``fuzzy``: rapidfuzz's WRatio over normalised names.
5. ``embedding``: cosine similarity of MiniLM sentence embeddings — only if all the above
   found nothing; the embedder is loaded lazily and node-name vectors are cached.

A name that fits several nodes about equally (the same name for a side effect and a
disease; "melanoma skin cancer" against both "melanoma" and "skin cancer") is *ambiguous*:
`Linking.best` is then None and the ranked `candidates` say what to choose from. Nothing is
ever guessed silently; restrict `kinds` or give an alias to decide.

>>> linker = Linker(kg.nodes())                                    # doctest: +SKIP
>>> linker.link("raloxifene").best.node.id                         # doctest: +SKIP
'Compound::DB00481'
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process

from causalqa.kg.model import Node

FUZZY_CUTOFF = 80.0  # below this a fuzzy match is not even a candidate
FUZZY_ACCEPT = 90.0  # at or above this (and clear of the runner-up) it is the answer
EMBED_CUTOFF = 0.5
EMBED_ACCEPT = 0.8
MARGIN = 5.0  # points (of 100) the best must lead the runner-up by


def normalize(text: str) -> str:
    """Case-folded, accents stripped, punctuation as spaces, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[\W_]+", " ", text.casefold())
    return " ".join(text.split())


@dataclass(frozen=True)
class Candidate:
    """A node a name may refer to, with a score from 0 to 100 and the method that found it."""

    node: Node
    score: float
    method: str

    def to_dict(self) -> dict:
        return {**self.node.to_dict(), "score": round(self.score, 2), "method": self.method}


@dataclass
class Linking:
    """The outcome of linking one name: `best` (None when nothing fits or the name is
    ambiguous), ranked `candidates`, `ambiguous`, and the `method` that decided."""

    query: str
    method: str
    candidates: list[Candidate] = field(default_factory=list)
    ambiguous: bool = False

    @property
    def best(self) -> Candidate | None:
        if self.ambiguous or not self.candidates:
            return None
        return self.candidates[0]

    @property
    def found(self) -> bool:
        return bool(self.candidates)

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "method": self.method,
            "ambiguous": self.ambiguous,
            "best": self.best.to_dict() if self.best else None,
            "candidates": [c.to_dict() for c in self.candidates],
        }


class Linker:
    """Links names to the nodes of one graph (a frame of id, name, kind).

    `embedder`: anything with ``encode(list[str]) -> np.ndarray`` of normalised rows;
    default `causalqa.embed.Embedder`, created only when the embedding step runs.
    `cache_dir`: where node-name vectors are kept between runs (e.g. the store folder).
    `aliases`: the graph's own other names (alias → node id or name), always consulted.
    """

    def __init__(
        self,
        nodes: pd.DataFrame,
        *,
        embedder=None,
        cache_dir: str | Path | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        # sorted by id: a store returns its nodes in no fixed order, and the cached name
        # vectors are keyed by the names in this order (one 70 MB file per process else)
        self.nodes = nodes.sort_values("id", kind="stable").reset_index(drop=True)
        self._ids = self.nodes["id"].astype(str).tolist()
        self._names = self.nodes["name"].astype(str).tolist()
        self._kinds = self.nodes["kind"].astype(str).tolist()
        self._norm = [normalize(n) for n in self._names]
        self._by_name: dict[str, list[int]] = {}
        self._by_norm: dict[str, list[int]] = {}
        self._by_id = {node_id: i for i, node_id in enumerate(self._ids)}
        for i, (name, norm) in enumerate(zip(self._names, self._norm)):
            self._by_name.setdefault(name, []).append(i)
            self._by_norm.setdefault(norm, []).append(i)
        self._keys = list(self._by_norm)
        self._aliases = {normalize(k): v for k, v in (aliases or {}).items()}
        self._embedder = embedder
        self._cache_dir = Path(cache_dir) if cache_dir else None
        self._vectors: np.ndarray | None = None

    def _node(self, i: int) -> Node:
        return Node(self._ids[i], self._names[i], self._kinds[i])

    def _allowed(self, rows: list[int], kinds: set[str] | None) -> list[int]:
        return [i for i in rows if kinds is None or self._kinds[i] in kinds]

    def _decide(self, query: str, method: str, scored: list[tuple[int, float]], accept, margin):
        scored = sorted(scored, key=lambda t: (-t[1], self._ids[t[0]]))
        candidates = [Candidate(self._node(i), s, method) for i, s in scored]
        top = candidates[0].score
        runner_up = candidates[1].score if len(candidates) > 1 else None
        ambiguous = top < accept or (runner_up is not None and top - runner_up < margin)
        return Linking(query, method, candidates, ambiguous)

    def link(
        self,
        name: str,
        *,
        kinds: Sequence[str] | None = None,
        aliases: Mapping[str, str] | None = None,
        limit: int = 5,
        fuzzy_cutoff: float = FUZZY_CUTOFF,
        fuzzy_accept: float = FUZZY_ACCEPT,
        margin: float = MARGIN,
        embeddings: bool = True,
    ) -> Linking:
        """Link `name` to nodes (of the given `kinds` only, if any).

        `aliases` maps other names (compared normalised) to a node id or a node name.
        Returns a `Linking`; ``method == "none"`` and no candidates when nothing fits.
        """
        query = name.strip()
        allowed = set(kinds) if kinds else None
        if not query:
            return Linking(name, "none")

        norm = normalize(query)
        exact = self._allowed(self._by_name.get(query, []), allowed)
        if query in self._by_id:
            exact = self._allowed([self._by_id[query]], allowed) or exact
        if exact:
            # Case variants ("Melanoma" the side effect, "melanoma" the disease) stay in
            # the running: an exact-case hit alone does not settle which one was meant.
            variants = [i for i in self._allowed(self._by_norm.get(norm, []), allowed)]
            scored = [(i, 100.0) for i in exact]
            scored += [(i, 99.0) for i in variants if i not in exact]
            return self._cap(self._decide(name, "exact", scored, 99, 2), limit)

        table = self._aliases
        if aliases:
            table = {**table, **{normalize(k): v for k, v in aliases.items()}}
        if table:
            if norm in table:
                target = table[norm]
                rows = [self._by_id[target]] if target in self._by_id else []
                rows = (
                    rows
                    or self._by_name.get(target, [])
                    or self._by_norm.get(normalize(target), [])
                )
                rows = self._allowed(rows, allowed)
                if rows:
                    scored = [(i, 100.0) for i in rows]
                    return self._cap(self._decide(name, "alias", scored, 100, 1), limit)

        same = self._allowed(self._by_norm.get(norm, []), allowed)
        if same:
            scored = [(i, 99.0) for i in same]
            return self._cap(self._decide(name, "normalized", scored, 99, 1), limit)

        fuzzy = self._fuzzy(norm, allowed, limit, fuzzy_cutoff)
        if fuzzy:
            return self._cap(self._decide(name, "fuzzy", fuzzy, fuzzy_accept, margin), limit)

        if embeddings:
            close = self._embedding(query, allowed, limit)
            if close:
                decided = self._decide(name, "embedding", close, EMBED_ACCEPT * 100, margin)
                return self._cap(decided, limit)
        return Linking(name, "none")

    @staticmethod
    def _cap(linking: Linking, limit: int) -> Linking:
        linking.candidates = linking.candidates[: max(limit, 2)]
        return linking

    def _fuzzy(self, norm: str, allowed, limit: int, cutoff: float) -> list[tuple[int, float]]:
        if not norm:
            return []
        keys = self._keys
        # ratio and token_sort_ratio reward whole-name matches in any word order;
        # token_set_ratio (scaled down, as WRatio does) lets "melanoma skin cancer" reach
        # both "melanoma" and "skin cancer" — a tie that then reads as ambiguous. WRatio's
        # partial matching is avoided: it scores "asprin" 90 against the gene "SPR".
        pool: dict[str, float] = {}
        for scorer, weight in (
            (fuzz.ratio, 1.0),
            (fuzz.token_sort_ratio, 1.0),
            (fuzz.token_set_ratio, 0.9),
        ):
            found = process.extract(
                norm, keys, scorer=scorer, limit=max(limit, 2) * 4, score_cutoff=cutoff / weight
            )
            for key, score, _ in found:
                pool[key] = max(pool.get(key, 0.0), score * weight)
        matches = [(key, score, None) for key, score in pool.items()]
        scored = []
        for key, score, _ in matches:
            for i in self._allowed(self._by_norm[key], allowed):
                scored.append((i, float(score)))
        return scored

    def _embedder_or_default(self):
        if self._embedder is None:
            from causalqa.embed import Embedder

            self._embedder = Embedder()
        return self._embedder

    def _name_vectors(self) -> np.ndarray:
        if self._vectors is not None:
            return self._vectors
        embedder = self._embedder_or_default()
        digest = hashlib.sha256("\n".join(self._names).encode()).hexdigest()[:16]
        cache = self._cache_dir / f"name-vectors-{digest}.npy" if self._cache_dir else None
        if cache is not None and cache.is_file():
            self._vectors = np.load(cache)
            return self._vectors
        kwargs = {"show_progress": True} if len(self._names) > 1000 else {}
        try:
            vectors = np.asarray(embedder.encode(self._names, **kwargs), dtype=np.float32)
        except TypeError:
            vectors = np.asarray(embedder.encode(self._names), dtype=np.float32)
        if cache is not None:
            try:
                np.save(cache, vectors)
                # earlier caches of this store are stale (its nodes changed), or were
                # written under an order-dependent key: 70 MB each for Hetionet
                for stale in self._cache_dir.glob("name-vectors-*.npy"):
                    if stale != cache:
                        stale.unlink(missing_ok=True)
            except OSError:
                pass  # a read-only store still links, it just re-encodes next time
        self._vectors = vectors
        return vectors

    def _embedding(self, query: str, allowed, limit: int) -> list[tuple[int, float]]:
        vectors = self._name_vectors()
        q = np.asarray(self._embedder_or_default().encode([query]), dtype=np.float32)[0]
        sims = vectors @ q
        if allowed is not None:
            mask = np.array([k in allowed for k in self._kinds])
            sims = np.where(mask, sims, -1.0)
        top = np.argsort(-sims, kind="stable")[: max(limit, 2)]
        return [(int(i), float(sims[i]) * 100) for i in top if sims[i] >= EMBED_CUTOFF]
