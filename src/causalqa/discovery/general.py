"""General knowledge for `discover pair`: CauseNet's cause → effect claims as directed
evidence beside the trained evidence model.

CauseNet (Heindorf et al., CIKM 2020; CC BY 4.0) is a graph of causal claims extracted from
the web: an edge ``alcohol -CAUSES-> suicide`` with ``support`` 9 says nine extractions
read "alcohol causes suicide". ``causalqa kg load causenet DIR`` puts its core into a store
of its own (`causalqa.kg.loaders.read_causenet`); this module reads such a store:

- `general_evidence`: link both names in each general store (exact, the lemma mapping's
  surface forms — "lung cancers" → ``lung_cancer`` —, case and punctuation, a clear fuzzy
  match; no embeddings) and collect the claims between them **with their direction**: the
  direct edges A → B and B → A with their support, and the two-hop chains A → X → B (and
  back) with the smaller support of their two edges. No link or no path is no evidence
  from this store — never "non-causal".
- `rule_verdict`: the documented rule the evidence model's verdict gives way to when it
  has no sentence (the trained model has no feature for these claims, and retraining is a
  separate step): a direct edge between A and B says causal, in the direction of the larger
  support; P(causal) is the rule's measured precision for that support (``general_rules
  .json``, measured on SemEval-2010 *train* pairs by ``causalqa bench discovery causenet``).
  Chains alone do not decide: they link most pairs, related or not (measured there too), so
  they are shown as weaker evidence only.
- `combine`: the trained model's verdict and CauseNet's, as the pair's one answer (see its
  docstring for the order), the explanation naming where the verdict came from.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from causalqa.errors import CausalQAError, KGStoreError, PairDiscoveryError

__all__ = [
    "GENERAL_FORMATS",
    "Claim",
    "GeneralEvidence",
    "combine",
    "general_evidence",
    "is_general",
    "load_rules",
    "rule_verdict",
    "split_stores",
]

GENERAL_FORMATS = ("causenet",)
"""Store formats read as general knowledge (claims with support), not by the trained model."""
CHAIN_HOPS = 2
"""The longest chain collected: longer ones link nearly every two concepts of CauseNet."""
MAX_CHAINS = 3
"""Chains shown per direction, strongest first."""
CONFIDENT_LINKS = ("exact", "alias", "normalized")
RULES_FILE = "general_rules.json"
VARIANT = "general knowledge (CauseNet rule)"


def is_general(kg: Any) -> bool:
    """Whether `kg` is a store of general causal claims (CauseNet), read by this module."""
    return getattr(kg, "format", None) in GENERAL_FORMATS


def split_stores(stores: Sequence[Any]) -> tuple[Any, list[Any], list[Any]]:
    """(the graph the trained evidence model reads — the first typed store —, the general
    stores, the other typed stores, which the evidence model cannot also read)."""
    typed = [s for s in stores if not is_general(s)]
    general = [s for s in stores if is_general(s)]
    return (typed[0] if typed else None), general, typed[1:]


@functools.lru_cache(maxsize=1)
def load_rules() -> dict[str, Any]:
    """The rule's measured figures (``general_rules.json`` beside this module; read once,
    not to be changed)."""
    text = resources.files("causalqa.discovery").joinpath(RULES_FILE).read_text("utf-8")
    return json.loads(text)


# -- claims -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A directed path of causal claims between the pair: ``names[0]`` causes ``names[1]``
    … causes ``names[-1]``; `supports` per edge; `direction` "A→B" or "B→A"."""

    names: tuple[str, ...]
    supports: tuple[int, ...]
    direction: str

    @property
    def hops(self) -> int:
        return len(self.supports)

    @property
    def strength(self) -> int:
        """The weakest edge's support: a chain is no better attested than its weakest link."""
        return min(self.supports)

    def text(self, store: str = "CauseNet") -> str:
        arrows = " → ".join(self.names)
        support = ", ".join(str(s) for s in self.supports)
        word = "support" if self.hops == 1 else "supports"
        return f"{arrows} ({store}, {word} {support})"

    def to_dict(self, store: str = "CauseNet") -> dict[str, Any]:
        return {
            "path": self.text(store),
            "source": store,
            "direction": self.direction,
            "hops": self.hops,
            "nodes": list(self.names),
            "support": list(self.supports),
        }


class SupportIndex:
    """A general store's edges in memory: ``out[u][v]`` and ``into[v][u]`` = the support of
    the edge u → v (self-loops left out). Read once per store, cached on it (CauseNet's
    50,092 edges: a fraction of a second)."""

    def __init__(self, kg: Any) -> None:
        frame = kg.backend.frame(
            "MATCH (a:Node)-[r:Rel]->(b:Node) RETURN a.id AS s, b.id AS t, r.support AS w"
        )
        names = kg.nodes()
        self.names = dict(zip(names["id"].astype(str), names["name"].astype(str)))
        self.out: dict[str, dict[str, int]] = {}
        self.into: dict[str, dict[str, int]] = {}
        if frame["w"].isna().any():
            raise KGStoreError(
                f"{getattr(kg, 'path', 'the store')}: CauseNet edges without their support",
                hint="load it again: causalqa kg load causenet DIR --replace",
            )
        for s, t, w in zip(frame["s"].astype(str), frame["t"].astype(str), frame["w"]):
            if s != t:
                self.out.setdefault(s, {})[t] = int(w)
                self.into.setdefault(t, {})[s] = int(w)

    @classmethod
    def of(cls, kg: Any) -> SupportIndex:
        index = getattr(kg, "_support_index", None)
        if index is None:
            index = cls(kg)
            kg._support_index = index
        return index

    def direct(self, a: str, b: str) -> int:
        return self.out.get(a, {}).get(b, 0)

    def chains(self, a: str, b: str, direction: str, limit: int = MAX_CHAINS) -> list[Claim]:
        """Two-hop chains a → x → b, strongest first (then by name), at most `limit`."""
        after_a, before_b = self.out.get(a, {}), self.into.get(b, {})
        small, large = (after_a, before_b) if len(after_a) <= len(before_b) else (before_b, after_a)
        found = [
            (min(after_a[x], before_b[x]), after_a[x], before_b[x], x)
            for x in small
            if x in large and x not in (a, b)
        ]
        found.sort(key=lambda t: (-t[0], -(t[1] + t[2]), self.names.get(t[3], t[3])))
        return [
            Claim((self.names[a], self.names[x], self.names[b]), (s1, s2), direction)
            for _, s1, s2, x in found[:limit]
        ]

    def count_chains(self, a: str, b: str) -> int:
        after_a, before_b = self.out.get(a, {}), self.into.get(b, {})
        return sum(1 for x in after_a if x in before_b and x not in (a, b))


# -- evidence ---------------------------------------------------------------------------------


@dataclass
class GeneralEvidence:
    """What one general store says about (A, B): how each name was linked, the direct
    claims each way with their support, and the strongest two-hop chains each way."""

    a: str
    b: str
    store: str
    linked: dict[str, Any] = field(default_factory=dict)
    forward: Claim | None = None
    backward: Claim | None = None
    chains: list[Claim] = field(default_factory=list)
    chain_counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def placed(self) -> bool:
        """Both names are concepts of the store."""
        return all(self.linked.get(k, {}).get("node") for k in ("a", "b"))

    @property
    def decisive(self) -> bool:
        """A direct claim between the two, either way: what the rule decides on."""
        return self.forward is not None or self.backward is not None

    @property
    def support(self) -> tuple[int, int]:
        """(support of A → B, support of B → A); 0 where there is no such edge."""
        return (
            self.forward.strength if self.forward else 0,
            self.backward.strength if self.backward else 0,
        )

    def paths(self) -> list[dict[str, Any]]:
        """The claims as the verdict lists them: direct edges first (the stronger first),
        then chains."""
        direct = [c for c in (self.forward, self.backward) if c is not None]
        direct.sort(key=lambda c: -c.strength)
        return [c.to_dict() for c in direct + self.chains]

    def summary(self) -> str:
        """One line on what the store says (for notes and errors)."""
        if not self.placed:
            missing = [repr(getattr(self, k)) for k in ("a", "b") if not self.linked[k].get("node")]
            return f"CauseNet has no concept for {' and '.join(missing)}"
        a, b = (self.linked[k]["node"]["name"] for k in ("a", "b"))
        if self.decisive:
            return "; ".join(c.text() for c in (self.forward, self.backward) if c is not None)
        n = sum(self.chain_counts.values())
        if n:
            return (
                f"CauseNet has no direct claim between {a} and {b}, only {n} two-hop "
                f"chain{'s' if n != 1 else ''} ({self.chain_counts.get('A→B', 0)} from "
                f"{a}, {self.chain_counts.get('B→A', 0)} from {b}), which do not decide"
            )
        return f"CauseNet has no path of at most {CHAIN_HOPS} hops between {a} and {b}"

    def to_dict(self) -> dict[str, Any]:
        fwd, bwd = self.support
        return {
            "store": self.store,
            "linked": self.linked,
            "support": {"A→B": fwd, "B→A": bwd},
            "chains": dict(self.chain_counts),
            "paths": self.paths(),
            "decisive": self.decisive,
            "summary": self.summary(),
        }


def _link(kg: Any, name: str) -> tuple[dict[str, Any], str | None]:
    """How `name` links in a general store: (info, note). Embeddings are not used (a near
    meaning is not the same concept); an ambiguous or loose match is no link."""
    try:
        linking = kg.link(name, embeddings=False)
    except CausalQAError as e:
        return {"query": name, "error": e.message}, None
    best = linking.best
    if best is None:
        if linking.candidates:
            close = "; ".join(c.node.name for c in linking.candidates[:3])
            return (
                {"query": name, "method": linking.method, "ambiguous": True},
                f"{name!r} is not clearly one CauseNet concept (close: {close}); not used",
            )
        return {"query": name, "method": "none"}, None
    info = {
        "query": name,
        "node": best.node.to_dict(),
        "score": round(best.score, 2),
        "method": best.method,
    }
    note = None
    if best.method not in CONFIDENT_LINKS:
        note = f"{name!r} read as the CauseNet concept {best.node.name!r} ({best.method} match)"
    elif best.method == "alias":
        note = f"{name!r} is a surface form of the CauseNet concept {best.node.name!r}"
    return info, note


def evidence_in(kg: Any, a: str, b: str) -> GeneralEvidence:
    """What the general store `kg` says about (a, b)."""
    ev = GeneralEvidence(a.strip(), b.strip(), str(getattr(kg, "path", "") or ""))
    for key, name in (("a", a), ("b", b)):
        info, note = _link(kg, name)
        ev.linked[key] = info
        if note:
            ev.notes.append(note)
    if not ev.placed:
        return ev
    ia, ib = (ev.linked[k]["node"]["id"] for k in ("a", "b"))
    if ia == ib:
        ev.notes.append(f"both names are the CauseNet concept {ev.linked['a']['node']['name']!r}")
        return ev
    index = SupportIndex.of(kg)
    name_a, name_b = index.names[ia], index.names[ib]
    if w := index.direct(ia, ib):
        ev.forward = Claim((name_a, name_b), (w,), "A→B")
    if w := index.direct(ib, ia):
        ev.backward = Claim((name_b, name_a), (w,), "B→A")
    ev.chain_counts = {"A→B": index.count_chains(ia, ib), "B→A": index.count_chains(ib, ia)}
    ev.chains = index.chains(ia, ib, "A→B") + index.chains(ib, ia, "B→A")
    ev.chains.sort(key=lambda c: -c.strength)
    ev.chains = ev.chains[:MAX_CHAINS]
    return ev


def general_evidence(a: str, b: str, stores: Sequence[Any]) -> GeneralEvidence | None:
    """The general stores' evidence on (a, b): the first store with a direct claim, else the
    first that places both names, else the first store's (None without stores)."""
    found = [evidence_in(kg, a, b) for kg in stores]
    for test in (lambda e: e.decisive, lambda e: e.placed, lambda e: True):
        for ev in found:
            if test(ev):
                return ev
    return None


# -- the rule ---------------------------------------------------------------------------------


def rule_probability(support: int, rules: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """P(causal) for a direct claim with this support: the measured precision of the rule
    in the highest support band the claim reaches (bands from ``general_rules.json``)."""
    bands = sorted(rules["bands"], key=lambda r: -r["min_support"])
    for band in bands:
        if support >= band["min_support"]:
            return float(band["p_causal"]), band
    return float(bands[-1]["p_causal"]), bands[-1]


def rule_verdict(ev: GeneralEvidence, *, rules: dict[str, Any] | None = None, started=None):
    """The general-knowledge rule's verdict on a pair with a direct CauseNet claim
    (`GeneralEvidence.decisive`): causal, in the direction of the larger support.

    P(causal) = the rule's measured precision for the larger support's band; the direction
    splits it by the supports, smoothed: P(A→B | causal) = (s_AB + 1) / (s_AB + s_BA + 2).
    """
    import time

    from causalqa.discovery.evidence import EvidenceVerdict

    if not ev.decisive:
        raise PairDiscoveryError(f"no direct CauseNet claim between {ev.a!r} and {ev.b!r}")
    rules = rules or load_rules()
    fwd, bwd = ev.support
    p_causal, band = rule_probability(max(fwd, bwd), rules)
    share = (fwd + 1) / (fwd + bwd + 2)
    threshold = float(rules.get("threshold", 0.5))
    notes = list(ev.notes)
    if p_causal >= threshold:
        direction = "A→B" if share >= 0.5 else "B→A"
        if fwd == bwd:
            notes.append("CauseNet claims both directions with equal support: the direction "
                         "is a coin flip (0.5)")  # fmt: skip
    else:
        direction = "none"
    win, lose = (ev.forward, ev.backward) if fwd >= bwd else (ev.backward, ev.forward)
    other = f"{' → '.join(lose.names)} support {lose.strength}" if lose else "none the other way"
    measured = rules.get("measured", {})
    notes.insert(
        0,
        "decided by the general-knowledge rule (the trained evidence model has no feature for "
        f"CauseNet claims): the direct claim {' → '.join(win.names)} (support "
        f"{win.strength}; {other}); P(causal) = {p_causal:.2f} is the rule's precision for "
        f"support ≥ {band['min_support']} on {measured.get('data', 'SemEval-2010 train')} "
        f"pairs (n = {band['n']})",
    )
    return EvidenceVerdict(
        a=ev.a,
        b=ev.b,
        direction=direction,
        probability=p_causal,
        probabilities={
            "A→B": p_causal * share,
            "B→A": p_causal * (1 - share),
            "none": 1 - p_causal,
        },
        threshold=threshold,
        variant=VARIANT,
        contributions=[],
        paths=ev.paths(),
        linked={"general": ev.to_dict()},
        notes=notes,
        seconds=time.perf_counter() - started if started else 0.0,
    )


def _confident(verdict: Any) -> bool:
    """Whether the trained model placed both names by name (not a loose match)."""
    linked = getattr(verdict, "linked", {}) or {}
    infos = [linked.get(k) or {} for k in ("a", "b")]
    return all(
        i.get("node") and i.get("method") in CONFIDENT_LINKS and not i.get("ambiguous")
        for i in infos
    )


def combine(trained: Any, general: GeneralEvidence | None, *, error=None, started=None):
    """The pair's one verdict, from the trained model's (`trained`, None when it could not
    judge: `error` says why) and the general stores' evidence (no sentence given):

    1. a direct CauseNet claim decides (`rule_verdict`) — unless the trained model placed
       both names by name in its graph and says causal: its verdict then stands, the claim
       listed beside it (and a disagreement on the direction said in a note);
    2. otherwise the trained model's verdict stands, with a note on what CauseNet has
       (chains, or nothing);
    3. with neither, ``unknown`` (what each source lacks) when the general store placed both
       names, else the trained model's error.
    """
    if general is not None and general.decisive:
        if trained is not None and trained.causal and _confident(trained):
            claim = general.forward if trained.direction == "A→B" else general.backward
            agree = "agrees" if claim is not None else "points the other way"
            trained.paths = list(trained.paths) + general.paths()[:2]
            trained.notes.append(
                f"CauseNet {agree}: {general.summary()} (the trained model's verdict stands: "
                "it placed both names in its graph)"
            )
            trained.linked = {**trained.linked, "general": general.to_dict()}
            return trained
        verdict = rule_verdict(general, started=started)
        if trained is not None and trained.unknown:
            verdict.notes.append(
                "the trained evidence model said unknown on its graph: "
                f"{trained.abstention.summary} ({trained.abstention.reason})"
            )
            verdict.linked = {**trained.linked, **verdict.linked}
        elif trained is not None:
            verdict.notes.append(
                f"the trained evidence model ({trained.variant}) said {trained.direction} "
                f"(P(causal) = {trained.probability:.2f}) on its graph"
                + ("" if _confident(trained) else ", where a name matched only loosely")
            )
            verdict.linked = {**trained.linked, **verdict.linked}
        elif error is not None:
            verdict.notes.append(f"the trained evidence model could not judge: {error.message}")
        return verdict
    if trained is not None:
        if general is not None:
            trained.notes.append(general.summary())
            trained.linked = {**trained.linked, "general": general.to_dict()}
        return trained
    if general is None:
        raise error or PairDiscoveryError("no evidence to judge by")
    if general.placed:
        return _unknown(general, error, started)
    reason = f"; {error.message}" if error is not None else ""
    raise PairDiscoveryError(
        f"no evidence decides {general.a!r} – {general.b!r}: {general.summary()}{reason}",
        hint="give a sentence that names both (--context), or load a graph that has them",
    )


def _unknown(general: GeneralEvidence, error, started):
    """Both names placed in a general store that holds no direct claim between them, and no
    verdict from the trained model: ``unknown``, as `EvidenceJudge.abstention` answers a
    pair without evidence (chains alone do not decide: see `general_rules.json`)."""
    from causalqa.discovery.evidence import Abstention, EvidenceVerdict

    lacking = {
        "sentence": "no sentence names both",
        "path": f"no direct claim between them: {general.summary()}",
        "llm": "no LLM judgement (no graph the trained model reads places both)",
    }
    notes = [f"the trained evidence model could not judge: {error.message}"] if error else []
    return EvidenceVerdict.of_unknown(
        general.a, general.b, Abstention(lacking, [{"remedy": "sentence"}, {"remedy": "kg"}]),
        notes=notes, started=started, linked={"general": general.to_dict()},
        paths=general.paths()[:3],
    )  # fmt: skip


def with_general(
    a: str,
    b: str,
    stores: Sequence[Any],
    trained,
    *,
    context: str | None = None,
    has_kg: bool = True,
    started: float | None = None,
    claims: GeneralEvidence | None = None,
):
    """`judge_pair` with general stores: `trained()` is the trained model's verdict (it may
    raise). With a sentence the trained model decides and CauseNet's claims are only noted;
    without, `combine` decides (the trained model is not asked when it has no graph).
    `claims`: what `general_evidence(a, b, stores)` gave a caller that already asked (None:
    ask)."""
    general = claims if claims is not None else general_evidence(a, b, stores)
    if context is not None:
        verdict = trained()
        if general is not None:
            verdict.notes.append(f"CauseNet (not used: the sentence decides): {general.summary()}")
        return verdict
    verdict = error = None
    if has_kg:
        try:
            verdict = trained()
        except CausalQAError as e:
            error = e
    return combine(verdict, general, error=error, started=started)
