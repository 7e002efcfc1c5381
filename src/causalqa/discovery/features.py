"""Evidence features for a pair (A, B), each cheap and each explainable by its name:

- knowledge graph (`kg_features`): how confidently A and B were linked, their node kinds and
  degrees, direct edges each way, path counts by length, degree-weighted path counts (DWPC,
  damping 0.4, as Hetionet's Rephetio work) in total, per metapath and along paths whose
  every edge points from A towards B (or back: Hetionet's edges have a direction, e.g.
  Compound-causes-Side Effect, Gene-regulates-Gene), the shortest path length;
- sentence cues (`cue_features`): causal phrases between or around the two mentions and
  which way they point ("caused by", "-induced", "leads to"), negation, hedging, distance;
- text classifier and LLM: probabilities and log-odds added by the caller
  (`causalqa.discovery.relation`, `pair.classify_pair`).

Features are a dict name → float; a model reads the names it was trained on (`vectorize`),
missing ones as NaN.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "DAMPING",
    "DIRECTIONAL",
    "KGEvidence",
    "cue_features",
    "kg_features",
    "metapath_key",
    "vectorize",
]

DAMPING = 0.4
"""DWPC's damping exponent w: a path counts Π (deg(u) · deg(v))^-w over its edges, with
the degrees taken in that edge's metaedge (Himmelstein et al., 2017)."""
MAX_HOPS = 4
PATH_LIMIT = 1000


def metapath_key(path) -> str:
    """A `KGPath`'s metapath as its metaedges in walking order, a ``'`` marking a step
    walked against the edge's direction: ``CuG.DaG'`` is Compound-upregulates-Gene then
    Gene-(associated with)-Disease walked from the gene."""
    parts = []
    for step in path.steps:
        name = step.abbrev or step.relation.replace(" ", "_")
        parts.append(name if step.forward else name + "'")
    return ".".join(parts)


@dataclass
class KGEvidence:
    """The KG side of a pair: features, and the paths behind them with their weights."""

    features: dict[str, float]
    paths: list[Any] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)

    def strongest(self, n: int = 3) -> list[tuple[Any, float]]:
        """The `n` paths with the highest degree-weighted contribution (PDP)."""
        order = np.argsort(-np.asarray(self.weights), kind="stable")[:n]
        return [(self.paths[i], self.weights[i]) for i in order]


class _Degrees:
    """Per-node, per-metaedge degrees read from a `PathIndex` (computed on demand)."""

    def __init__(self, index) -> None:
        self.index = index
        self._cache: dict[int, Counter] = {}

    def of(self, node: int) -> Counter:
        got = self._cache.get(node)
        if got is None:
            lo, hi = int(self.index.indptr[node]), int(self.index.indptr[node + 1])
            got = Counter(self.index.rel[lo:hi].tolist())
            self._cache[node] = got
        return got

    def total(self, node: int) -> int:
        return int(self.index.indptr[node + 1] - self.index.indptr[node])


def _degrees(kg) -> _Degrees:
    cached = getattr(kg, "_evidence_degrees", None)
    index = kg.path_index()
    if cached is None or cached.index is not index:
        cached = _Degrees(index)
        kg._evidence_degrees = cached
    return cached


def _reverse_key(key: str) -> str:
    steps = key.split(".")
    return ".".join(s[:-1] if s.endswith("'") else s + "'" for s in reversed(steps))


def canonical_metapath(key: str) -> str:
    """The same metapath whichever end it is walked from: the smaller of `key` and its
    reverse (``CuG.DaG'`` and ``DaG.CuG'`` are one metapath between a compound and a
    disease)."""
    return min(key, _reverse_key(key))


def kg_features(
    kg,
    a,
    b,
    *,
    link_a: Mapping[str, Any] | None = None,
    link_b: Mapping[str, Any] | None = None,
    k: int = MAX_HOPS,
    limit: int = PATH_LIMIT,
    damping: float = DAMPING,
) -> KGEvidence:
    """Features of the pair of nodes `a`, `b` (`causalqa.kg.Node`s) in `kg`; `link_a`/`link_b`
    say how each was linked (``score`` 0–100, ``ambiguous``).

    The features do not depend on which of the two is asked first (the verdict "causal or
    not" does not): linking and degrees as min/max, the kinds as a sorted pair, metapaths
    in one canonical direction. The direction of the evidence is kept apart, under names
    ending in ``_fwd`` (from A towards B) and ``_bwd``: DWPC along paths whose every edge
    points from A to B, and direct edges each way. Paths are the first `limit` simple
    paths of at most `k` hops, shortest first (``truncated`` is 1 when the cap was hit:
    longer paths are then undercounted)."""
    index = kg.path_index()
    deg = _degrees(kg)
    ia, ib = index.index_of(a.id), index.index_of(b.id)
    links = [float((link or {}).get("score", 100.0)) / 100.0 for link in (link_a, link_b)]
    degrees = [math.log1p(deg.total(i)) for i in (ia, ib)]
    f: dict[str, float] = {
        "link_min": min(links),
        "link_max": max(links),
        "ambiguous": float(any(bool((x or {}).get("ambiguous")) for x in (link_a, link_b))),
        "log_degree_min": min(degrees),
        "log_degree_max": max(degrees),
        "kinds=" + "|".join(sorted((a.kind, b.kind))): 1.0,
    }
    paths = kg.paths(a, b, k=k, limit=limit)
    f["truncated"] = float(len(paths) >= limit)
    f["shortest"] = float(min((p.length for p in paths), default=k + 1))
    by_length: Counter = Counter()
    dwpc_length: Counter = Counter()
    by_metapath: Counter = Counter()
    chain = {"fwd": 0.0, "bwd": 0.0}
    direct: Counter = Counter()
    weights: list[float] = []
    for p in paths:
        nodes = [index.index_of(n.id) for n in p.nodes]
        pdp = 1.0
        for step, u, v in zip(p.steps, nodes, nodes[1:]):
            code = _code(index, step)
            du = deg.of(u).get(code, 1)
            dv = deg.of(v).get(code, 1)
            pdp *= (du * dv) ** (-damping)
        weights.append(pdp)
        by_length[p.length] += 1
        dwpc_length[p.length] += pdp
        by_metapath[canonical_metapath(metapath_key(p))] += pdp
        if all(s.forward for s in p.steps):
            chain["fwd"] += pdp
        if not any(s.forward for s in p.steps):
            chain["bwd"] += pdp
        if p.length == 1:
            s = p.steps[0]
            direct[(s.abbrev or s.relation, s.forward)] += 1
    for n in range(1, k + 1):
        f[f"paths_{n}"] = math.log1p(by_length[n])
        f[f"dwpc_{n}"] = dwpc_length[n]
    f["dwpc"] = float(sum(weights))
    f["log_paths"] = math.log1p(len(paths))
    f["dwpc_chain"] = chain["fwd"] + chain["bwd"]
    f["dwpc_chain_fwd"] = chain["fwd"]
    f["dwpc_chain_bwd"] = chain["bwd"]
    f["direct"] = float(sum(direct.values()))
    f["direct_fwd"] = float(sum(c for (_, fw), c in direct.items() if fw))
    f["direct_bwd"] = float(sum(c for (_, fw), c in direct.items() if not fw))
    for (rel, _), c in direct.items():
        f[f"edge={rel}"] = f.get(f"edge={rel}", 0.0) + float(c)
    for key, value in by_metapath.items():
        f[f"mp={key}"] = value
    return KGEvidence(f, paths, weights)


def _code(index, step) -> int:
    table = getattr(index, "_evidence_codes", None)
    if table is None:
        table = {rel: i for i, rel in enumerate(index.relations)}
        index._evidence_codes = table
    return table.get((step.relation, step.abbrev), -1)


def missing_kg(link_a: Mapping[str, Any] | None, link_b: Mapping[str, Any] | None) -> dict:
    """The KG features of a pair that could not be placed in the graph: only the linking
    scores (0 for a name that matched nothing); every other KG feature is missing."""
    links = [float((x or {}).get("score", 0.0)) / 100.0 for x in (link_a, link_b)]
    return {
        "link_min": min(links),
        "link_max": max(links),
        "ambiguous": float(any(bool((x or {}).get("ambiguous")) for x in (link_a, link_b))),
    }


# -- sentence cues -------------------------------------------------------------------------

# Phrases that say the thing before them causes the thing after them ("X causes Y"), and
# those that say the reverse ("Y caused by X", "Y due to X", "X-induced Y" is handled apart).
FORWARD = (
    r"caus(?:e|es|ed|ing)(?! by)", r"lead(?:s|ing)? to", r"led to", r"result(?:s|ed|ing)? in",
    r"induc(?:e|es|ed|ing)(?! by)", r"trigger(?:s|ed|ing)?(?! by)", r"produc(?:e|es|ed|ing)(?! by)",
    r"generat(?:e|es|ed|ing)(?! by)", r"give(?:s)? rise to", r"gave rise to", r"provok(?:e|es|ed)",
    r"elicit(?:s|ed)?", r"contribut(?:e|es|ed|ing) to", r"promot(?:e|es|ed|ing)",
    r"increas(?:e|es|ed|ing)", r"decreas(?:e|es|ed|ing)", r"inhibit(?:s|ed|ing)?",
    r"activat(?:e|es|ed|ing)", r"suppress(?:es|ed|ing)?", r"regulat(?:e|es|ed|ing)",
    r"emit(?:s|ted)?", r"radiat(?:e|es|ed)", r"bring(?:s)? about", r"develop(?:ed)? after",
)  # fmt: skip
BACKWARD = (
    r"caused by", r"due to", r"because of", r"result(?:s|ed|ing)? from", r"as a result of",
    r"induced by", r"triggered by", r"produced by", r"generated by", r"owing to",
    r"secondary to", r"attributed to", r"attributable to", r"from", r"after", r"following",
    r"associated with", r"related to", r"by",
)  # fmt: skip
NEGATION = (
    r"\b(?:not|no|never|without|neither|nor|unrelated|failed to|did not|does not|\w+n['’]t)\b"
)
HEDGE = r"\b(?:may|might|could|possibl[ey]|suggest(?:s|ed)?|probabl[ey]|potential(?:ly)?)\b"
_FWD = re.compile(r"\b(?:" + "|".join(FORWARD) + r")\b", re.IGNORECASE)
_BWD = re.compile(r"\b(?:" + "|".join(BACKWARD) + r")\b", re.IGNORECASE)
_NEG = re.compile(NEGATION, re.IGNORECASE)
_HEDGE = re.compile(HEDGE, re.IGNORECASE)
_INDUCED = re.compile(r"-?\s*(?:induced|associated|related|mediated|triggered)\b", re.IGNORECASE)


def cue_features(text: str, a: tuple[int, int], b: tuple[int, int]) -> dict[str, float]:
    """Lexical cues of a sentence with the spans of A and B.

    ``cue_fwd`` is 1 when the words between the two mentions read "A causes B" ("causes",
    "leads to", "A-induced B", or with B first "B caused by A", "B due to A"), ``cue_bwd``
    the reverse, ``cue_causal`` either; ``cue_any`` any causal phrase near them; negation
    between them and hedging in the sentence; their distance in words. All 0/1 except the
    distance."""
    first, second = (a, b) if a[0] <= b[0] else (b, a)
    a_first = a[0] <= b[0]
    between = text[first[1] : second[0]]
    after = text[second[1] : second[1] + 40]
    fwd = bool(_FWD.search(between))
    bwd = bool(_BWD.search(between))
    # "first causes second" says first → second; "first caused by second" says second → first.
    first_to_second = fwd and not bwd
    second_to_first = bwd
    induced_first = bool(_INDUCED.match(text[first[1] : first[1] + 12])) and len(between) < 20
    induced_second = bool(_INDUCED.match(after[:12]))
    a_to_b = (first_to_second if a_first else second_to_first) or (
        induced_first if a_first else False
    )
    b_to_a = (second_to_first if a_first else first_to_second) or (
        induced_first if not a_first else False
    )
    words = len(between.split())
    return {
        "cue_causal": float(a_to_b or b_to_a),
        "cue_any": float(fwd or bwd or induced_first or induced_second),
        "cue_negation": float(negation_phrase(text, a, b) is not None),
        "cue_hedge": float(bool(_HEDGE.search(text))),
        "words_between": float(words),
        "cue_fwd": float(a_to_b),
        "cue_bwd": float(b_to_a),
    }


DIRECTIONAL = ("_fwd", "_bwd")
"""Name endings of features that say which way the evidence points (A→B or B→A); the
causal-or-not model does not read them (its verdict must not depend on the order asked)."""


def negation_phrase(text: str, a: tuple[int, int], b: tuple[int, int]) -> str | None:
    """The negation between the two mentions ("does not", "never", "no" …), if any."""
    first, second = (a, b) if a[0] <= b[0] else (b, a)
    found = _NEG.search(text[first[1] : second[0]])
    return found.group(0) if found else None


def cue_phrase(text: str, a: tuple[int, int], b: tuple[int, int]) -> str | None:
    """The causal phrase between the mentions that `cue_features` read, if any."""
    first, second = (a, b) if a[0] <= b[0] else (b, a)
    between = text[first[1] : second[0]]
    for pattern in (_BWD, _FWD):
        m = pattern.search(between)
        if m:
            return m.group(0)
    m = _INDUCED.match(text[first[1] : first[1] + 12])
    return m.group(0).strip(" -") if m else None


SPARSE = ("kinds=", "edge=", "mp=")
"""Families of KG features named by a value: absent means 0 when the pair was placed in the
graph (``shortest`` present), missing otherwise."""


def vectorize(rows: Sequence[Mapping[str, float]], names: Sequence[str]) -> np.ndarray:
    """Rows of named features as a matrix over `names`: absent names are NaN (missing),
    except the `SPARSE` KG families of a row that has KG features, which are 0."""
    out = np.full((len(rows), len(names)), np.nan, dtype=float)
    col = {n: j for j, n in enumerate(names)}
    sparse = np.array([n.startswith(SPARSE) for n in names], dtype=bool)
    for i, row in enumerate(rows):
        if "shortest" in row:
            out[i, sparse] = 0.0
        for name, value in row.items():
            j = col.get(name)
            if j is not None and value is not None:
                out[i, j] = float(value)
    return out
