"""The evidence method of `discover pair`: the verdict "does A cause B?" made by a trained,
calibrated model over named evidence (knowledge-graph paths, the sentence, the LLM's
log-odds) instead of by the LLM alone.

- `PairEvidence`: what is known about one pair (features by name, the mention, the paths).
- `EvidenceJudge`: the trained artefacts — the text relation classifier and one
  `causalqa.evidence.EvidenceModel` per set of available evidence ("variant": with or
  without a sentence, a KG, the LLM) — loaded once, asked many times.
- `EvidenceVerdict`: three-way answer (A→B, B→A, none) with calibrated probabilities, the
  features that moved it, the strongest paths and the sentence's cue — or ``unknown``
  (`Abstention`) when nothing decisive was at hand.

What counts as evidence: a sentence that names both (read by the text classifier), a path
between the two linked nodes of the knowledge graph, or the LLM's log-odds actually
computed — each only when the combiner that decides reads it. Node kinds, degrees and
linking scores are context for those, never evidence by themselves: a pair with no
sentence, no path and no LLM feature is ``unknown`` (no probability, no direction), with
what it lacks and what would decide it, spelled for the surface that asked (`Spelling`).

P(causal) comes from the variant's calibrated combiner, which reads only order-free
features; the direction splits it: the text classifier's P(A→B) : P(B→A) when there is a
sentence, else the share of directed KG evidence (DWPC along paths whose every edge points
from A to B, direct edges) pointing each way.
"""

from __future__ import annotations

import json
import math
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from causalqa import config
from causalqa.discovery.features import DIRECTIONAL, KGEvidence, cue_phrase, vectorize
from causalqa.discovery.relation import (
    Mention,
    RelationClassifier,
    RelationEnsemble,
    read_manifest,
)
from causalqa.errors import EvidenceArtefactError, PairDiscoveryError

__all__ = [
    "DIRECTIONS",
    "PYTHON",
    "UNKNOWN",
    "Abstention",
    "EvidenceJudge",
    "EvidenceVerdict",
    "PairEvidence",
    "Spelling",
    "default_artefacts",
    "text_features",
    "variant_of",
]

DIRECTIONS = ("A→B", "B→A", "none")
UNKNOWN = "unknown"
"""The verdict of a pair with no evidence either way (direction, causal and probabilities
are then None)."""
GROUPS = ("text", "kg", "llm")
VARIANTS = ("text+kg+llm", "text+kg", "text+llm", "text", "kg+llm", "kg")


def variant_of(has_text: bool, has_kg: bool, has_llm: bool) -> str:
    """The name of the evidence set: e.g. ``text+kg`` (a sentence and a KG, no LLM)."""
    parts = [g for g, on in zip(GROUPS, (has_text, has_kg, has_llm)) if on]
    return "+".join(parts)


def has_kg_evidence(features: Mapping[str, float]) -> bool:
    """Whether the graph gave evidence about the pair: both names placed and at least one
    path between them. Node kinds, degrees and linking scores alone are not evidence."""
    return "shortest" in features and float(features.get("log_paths") or 0.0) > 0.0


def text_family(features: Mapping[str, float]) -> str | None:
    """The family of text a sentence reads like (`lexical.FAMILIES`: the most probable
    ``text_domain_<family>``), or None without a sentence or lexical readers."""
    domain = {k[len("text_domain_") :]: v for k, v in features.items()
              if k.startswith("text_domain_") and v is not None}  # fmt: skip
    return max(domain, key=lambda k: (domain[k], k)) if domain else None


def group_of(name: str) -> str:
    """Which evidence a feature belongs to: ``text`` (classifier and cues), ``llm`` or ``kg``."""
    if name.startswith(("text_", "cue_", "words_between")):
        return "text"
    if name.startswith("llm_"):
        return "llm"
    return "kg"


def text_features(probs: Sequence[float]) -> dict[str, float]:
    """The text classifier's output as features: the log-odds of "causal (either way)"
    against "none", and the share of the causal probability on A→B (``text_fwd``)."""
    p_none, p_ab, p_ba = (max(float(x), 1e-6) for x in probs)
    return {
        "text_causal": math.log((p_ab + p_ba) / p_none),
        "text_fwd": p_ab / (p_ab + p_ba),
    }


def llm_features(log_odds: float, with_path: bool) -> dict[str, float]:
    return {"llm_log_odds": float(log_odds), "llm_path": float(with_path)}


@dataclass
class PairEvidence:
    """Everything gathered about one pair; `features` by name (see `causalqa.discovery
    .features`), `mention` when a sentence was given, `kg` when both names were placed in
    the graph, `text_probs` (none, A→B, B→A) from the relation classifier."""

    a: str
    b: str
    features: dict[str, float] = field(default_factory=dict)
    mention: Mention | None = None
    kg: KGEvidence | None = None
    text_probs: np.ndarray | None = None
    linked: dict[str, Any] = field(default_factory=dict)
    llm: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    hops: int | None = None
    """The longest path looked for, when the graph was searched."""

    @property
    def has_text(self) -> bool:
        return self.text_probs is not None

    @property
    def has_kg(self) -> bool:
        return self.kg is not None

    @property
    def has_llm(self) -> bool:
        return self.llm is not None

    def variant(self) -> str:
        return variant_of(self.has_text, self.has_kg, self.has_llm)


@dataclass(frozen=True)
class Spelling:
    """How one surface names the inputs that would decide an unknown pair: a phrase per
    remedy, or None where the surface has no way to give it (MCP's tool cannot choose node
    kinds). `kind` is formatted with ``which`` (a or b), ``kind`` and ``kind_sh`` (the kind
    quoted for a shell)."""

    sentence: str | None
    kg: str | None
    llm: str | None
    llm_model: str | None
    kind: str | None = None


PYTHON = Spelling(
    sentence="context=TEXT",
    kg="kg=KnowledgeGraph.open(DIR)",
    llm="pass llm= and leave no_llm off",
    llm_model="causalqa discover train --with-llm, then judge=EvidenceJudge.load(DIR)",
    kind="kinds_{which}=[{kind!r}]",
)
"""The Python API's names (`judge_pair`, `discover_pairs`): the default spelling."""

LACKS = ("sentence", "path", "llm")
"""The evidence an unknown pair lacks, in the order they are told."""
REMEDIES = ("kind", "sentence", "kg", "llm", "llm_model")
"""What would decide an unknown pair: pick the other node a name may mean (``kind``),
a sentence naming both, a knowledge graph with a path between them, the LLM's judgement
(left out), an evidence model that has the LLM feature (this one has none)."""


@dataclass
class Abstention:
    """Why a pair is unknown: `lacking` (each of `LACKS` → why it is missing) and the
    `remedies` that would decide it (dicts with ``remedy``, one of `REMEDIES`; ``kind``
    remedies also name ``which`` end, its ``name`` and the ``kind`` to pick)."""

    lacking: dict[str, str]
    remedies: list[dict[str, str]]
    summary: str = "no evidence either way (node kinds and degrees alone do not decide)"
    """What the unknown answer is, in a line."""

    @property
    def reason(self) -> str:
        return "; ".join(self.lacking.values())

    def hint(self, spelling: Spelling = PYTHON) -> str:
        """What would decide the pair, in `spelling`'s words: "give a sentence that names
        both (--context TEXT), … or …"."""
        said = []
        for r in self.remedies:
            how = getattr(spelling, r["remedy"])
            if how is None:
                continue
            if r["remedy"] == "kind":
                how = how.format(which=r["which"], kind=r["kind"], kind_sh=shlex.quote(r["kind"]))
                said.append(f"take the {r['kind']} node for {r['name']!r} ({how})")
            else:
                said.append(REMEDY_WORDS[r["remedy"]].format(how))
        if len(said) > 1:
            return ", ".join(said[:-1]) + " or " + said[-1]
        return said[0] if said else ""

    def to_dict(self, spelling: Spelling = PYTHON) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "lacking": list(self.lacking),
            "reason": self.reason,
            "remedies": self.remedies,
            "hint": self.hint(spelling),
        }


REMEDY_WORDS = {
    "sentence": "give a sentence that names both ({})",
    "kg": "use a knowledge graph in which a path joins the two ({})",
    "llm": "let the LLM judge ({})",
    "llm_model": "use an evidence model with the LLM feature ({})",
}


def negation_between(ev: PairEvidence) -> str | None:
    """The negation between the sentence's two mentions, if there is one
    (`causalqa.discovery.features.negation_phrase`)."""
    if ev.mention is None:
        return None
    from causalqa.discovery.features import negation_phrase

    return negation_phrase(ev.mention.text, ev.mention.a, ev.mention.b)


@dataclass
class EvidenceVerdict:
    """A three-way answer with calibrated probabilities and why — or, with `abstention`,
    ``unknown``: `direction`, `probability`, `probabilities` and `threshold` are then None
    and `variant` is ``none`` (nothing decided). `spelling` names the inputs in the
    unknown answer's hint (the surface's options; the Python API's by default)."""

    a: str
    b: str
    direction: str | None
    probability: float | None
    probabilities: dict[str, float] | None
    threshold: float | None
    variant: str
    contributions: list[dict[str, Any]]
    paths: list[dict[str, Any]] = field(default_factory=list)
    cue: str | None = None
    terms: dict[str, Any] | None = None
    text_model: str | None = None
    linked: dict[str, Any] = field(default_factory=dict)
    llm: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    context: str | None = None
    abstention: Abstention | None = None
    spelling: Spelling = PYTHON

    @classmethod
    def of_unknown(
        cls,
        a: str,
        b: str,
        abstention: Abstention,
        *,
        notes: list[str],
        started: float | None = None,
        linked: dict[str, Any] | None = None,
        llm: dict[str, Any] | None = None,
        context: str | None = None,
        paths: list[dict[str, Any]] = (),
    ) -> EvidenceVerdict:
        """An ``unknown`` verdict: no direction, probabilities or threshold; why in
        `abstention`."""
        return cls(
            a=a, b=b, direction=None, probability=None, probabilities=None, threshold=None,
            variant="none", contributions=[], paths=list(paths), linked=linked or {}, llm=llm,
            notes=notes, seconds=time.perf_counter() - started if started else 0.0,
            context=context, abstention=abstention,
        )  # fmt: skip

    @property
    def unknown(self) -> bool:
        return self.abstention is not None

    @property
    def causal(self) -> bool | None:
        """True (A→B or B→A), False (none), None when unknown — never read None as False."""
        return None if self.unknown else self.direction != "none"

    @property
    def verdict(self) -> str:
        if self.unknown:
            return UNKNOWN
        return "causal" if self.causal else "non-causal"

    def to_dict(self) -> dict[str, Any]:
        def rounded(x):
            return None if x is None else round(x, 4)

        probabilities = self.probabilities
        return {
            "a": self.a,
            "b": self.b,
            "method": "evidence",
            "verdict": self.verdict,
            "causal": self.causal,
            "direction": self.direction,
            "probability": rounded(self.probability),
            "probabilities": None
            if probabilities is None
            else {k: round(v, 4) for k, v in probabilities.items()},
            "threshold": rounded(self.threshold),
            "abstention": None
            if self.abstention is None
            else self.abstention.to_dict(self.spelling),
            "evidence": {
                "used": self.variant,
                "contributions": self.contributions,
                "paths": self.paths,
                "cue": self.cue,
                "terms": self.terms,
                "text_model": self.text_model,
                "llm": self.llm,
            },
            "context": self.context,
            "linked": self.linked,
            "notes": self.notes,
            "seconds": round(self.seconds, 3),
        }

    def to_text(self) -> list[str]:
        """The verdict for a person, a line each: the direction and its probabilities,
        the evidence used, why (the largest contributions to the log-odds), the sentence's
        cue and words, the paths, the LLM's log-odds and the notes."""
        from causalqa.discovery.lexical import FAMILY_NAMES

        if self.abstention is not None:
            hint = self.abstention.hint(self.spelling)
            return [
                f"{UNKNOWN} {self.a} ? {self.b}  {self.abstention.summary}",
                f"  lacks: {self.abstention.reason}",
                *([f"  to decide it: {hint}"] if hint else []),
                f"  evidence: none; {self.seconds:.2f} s",
                *(f"  note: {n}" for n in self.notes),
            ]
        arrow = {"A→B": f"{self.a} → {self.b}", "B→A": f"{self.b} → {self.a}",
                 "none": f"{self.a} ⊥ {self.b}"}  # fmt: skip
        probs = "  ".join(f"P({k}) = {p:.3f}" for k, p in self.probabilities.items())
        text = f"; text model: {self.text_model}" if self.text_model else ""
        lines = [
            f"{self.direction} {arrow[self.direction]}  {probs}",
            f"  evidence: {self.variant.replace('+', ' + ')}; causal when P(causal) ≥ "
            f"{self.threshold:.2f}{text}; {self.seconds:.2f} s",
        ]
        if self.contributions:
            lines.append("  why (log-odds): " + ", ".join(
                f"{c['feature']} = {c['value']:.3g} ({c['contribution']:+.2f})"
                for c in self.contributions
            ))  # fmt: skip
        if self.cue:
            lines.append(f"  sentence cue: “{self.cue}”")
        if self.terms and self.terms.get("terms"):
            family = FAMILY_NAMES.get(self.terms["family"], self.terms["family"])
            words = ", ".join(
                f"“{t['term']}” {t['contribution']:+.2f}" for t in self.terms["terms"]
            )
            lines.append(
                f"  words (reads as {family} text, P = {self.terms['p_family']:.2f}): {words}"
            )
        lines += [f"  path: {p['path']}" for p in self.paths]
        if self.llm:
            lines.append(f"  LLM log-odds of causal: {self.llm['log_odds']:+.2f}")
        return lines + [f"  note: {n}" for n in self.notes]


DIRECTION_FEATURES = ("text_fwd_logit", "cue_fwd", "cue_bwd")


def direction_inputs(features: Mapping[str, float]) -> list[float]:
    """What the direction reader reads of a sentence: the text classifier's log-odds of
    A→B against B→A, and the causal phrase between the mentions read as A→B or B→A."""
    share = min(max(float(features.get("text_fwd", 0.5)), 1e-4), 1 - 1e-4)
    return [
        math.log(share / (1 - share)),
        float(features.get("cue_fwd", 0.0)),
        float(features.get("cue_bwd", 0.0)),
    ]


def direction_share(ev: PairEvidence, reader: Mapping[str, Any] | None = None) -> tuple[float, str]:
    """P(A→B | causal) and where it came from: with a sentence, the direction reader
    (`reader`: a logistic regression over `direction_inputs` fitted on the training
    corpus's directed causal sentences, in the model's manifest) or, without one, the text
    classifier's share; else the share of directed KG evidence."""
    f = ev.features
    if ev.has_text:
        if reader:
            z = float(reader["intercept"]) + sum(
                float(w) * x for w, x in zip(reader["coef"], direction_inputs(f))
            )
            return 1.0 / (1.0 + math.exp(-z)), "text+cue"
        return float(f.get("text_fwd", 0.5)), "text"
    fwd = f.get("dwpc_chain_fwd", 0.0) + f.get("direct_fwd", 0.0)
    bwd = f.get("dwpc_chain_bwd", 0.0) + f.get("direct_bwd", 0.0)
    if fwd + bwd <= 0:
        return 0.5, "none"
    return 0.5 + 0.4 * (fwd - bwd) / (fwd + bwd), "kg"


def default_artefacts() -> Path:
    """The evidence model shipped with the package (combiners and the frozen text head)."""
    return Path(str(resources.files("causalqa.discovery").joinpath("evidence_model")))


def trained_artefacts() -> Path:
    """Where ``causalqa discover train`` writes a rebuilt evidence model."""
    return config.home_dir() / "discovery" / "evidence"


class EvidenceJudge:
    """The trained evidence model: `text` (a `RelationClassifier`), `lexical` (the
    cross-fitted fold models of `lexical.LexicalEvidence`, read as their mean; none in
    models trained before it existed), `combiners` (variant → fitted `EvidenceModel`),
    `thresholds` (variant → the P(causal) above which the answer is causal, chosen on
    out-of-fold predictions of the training rows) and the manifest."""

    def __init__(
        self,
        text: RelationClassifier | None,
        combiners: Mapping[str, Any],
        thresholds: Mapping[str, float],
        manifest: Mapping[str, Any] | None = None,
        *,
        lexical: Sequence[Any] = (),
    ) -> None:
        self.text = text
        self.lexical = list(lexical)
        self.combiners = dict(combiners)
        self.thresholds = dict(thresholds)
        self.manifest = dict(manifest or {})

    @property
    def text_model(self) -> str:
        if self.text is None:
            return "none"
        return self.manifest.get("text_model") or f"all-MiniLM-L6-v2 ({self.text.mode})"

    @property
    def kinds(self) -> set[str]:
        """The node kinds the KG features were trained with."""
        return set(self.manifest.get("kinds", []))

    def available(self, variant: str) -> bool:
        return variant in self.combiners

    def threshold(self, variant: str, features: Mapping[str, float]) -> float:
        """The decision threshold of `variant` for these features: the one chosen for the
        sentence's family of text (``<variant>@<family>``) when training chose one, else
        the variant's."""
        family = text_family(features)
        general = self.thresholds.get(variant, 0.5)
        return self.thresholds.get(f"{variant}@{family}", general) if family else general

    def judge(
        self, ev: PairEvidence, *, top: int = 5, started: float | None = None
    ) -> EvidenceVerdict:
        """The verdict on one pair's evidence."""
        variant = ev.variant()
        notes = list(ev.notes)
        if ev.has_kg and ev.has_text and not has_kg_evidence(ev.features):
            # No path between the two: the graph says nothing about this pair, so the
            # sentence decides without it, as the model was trained to (`has_variant`).
            variant = variant_of(ev.has_text, False, ev.has_llm)
            said = next((i for i, n in enumerate(notes) if n.startswith("no path")), None)
            if said is None:
                notes.append("no path between them in the graph: decided on the sentence")
            else:  # one note, not two that both say there is no path
                notes[said] += ": decided on the sentence"
        if variant not in self.combiners:
            fallback = next(
                (
                    v
                    for v in VARIANTS
                    if v in self.combiners and set(v.split("+")) <= set(variant.split("+"))
                ),
                None,
            )
            if not fallback:
                raise PairDiscoveryError(
                    f"no evidence model for the evidence at hand ({variant or 'nothing'})",
                    hint="give a sentence (--context) or load a knowledge graph (causalqa kg load)",
                )
            dropped = set(variant.split("+")) - set(fallback.split("+"))
            notes.append(
                f"no model was trained for {variant}; decided on {fallback} "
                f"(not used: {', '.join(sorted(dropped))})"
            )
            variant = fallback
        context = ev.mention.text if ev.mention else None
        abstention = self.abstention(ev, variant)
        if abstention is not None:
            return EvidenceVerdict.of_unknown(
                ev.a, ev.b, abstention, notes=notes, started=started, linked=ev.linked,
                llm=ev.llm, context=context,
            )  # fmt: skip
        model = self.combiners[variant]
        x = vectorize([ev.features], model.feature_names_)
        p_causal = float(model.predict_proba(x)[0, 1])
        share, source = direction_share(ev, self.manifest.get("direction"))
        if source == "none":
            notes.append("no evidence says which way: the direction is a coin flip (0.5)")
        probabilities = {
            "A→B": p_causal * share,
            "B→A": p_causal * (1 - share),
            "none": 1 - p_causal,
        }
        threshold = self.threshold(variant, ev.features)
        if p_causal >= threshold:
            direction = "A→B" if share >= 0.5 else "B→A"
        else:
            direction = "none"
        denied = negation_between(ev) if direction != "none" else None
        if denied is not None:
            # The sentence says "A does not cause B" (or the like) and the model still reads
            # a cause: a negated claim is no evidence for one, whatever the model learned
            # from the negated rewrites (a model trained before them never saw one).
            notes.append(
                f"the model alone would have said {direction} (P(causal) = {p_causal:.2f})"
            )
            denial = Abstention(
                {"sentence": f"the sentence negates what joins the two (“{denied}”), yet "
                 "the evidence model reads it as causal: a denied cause is no evidence of one"},
                [],  # with this sentence nothing else decides: the guard reads it first
                summary="the sentence denies what the model alone would read as causal",
            )  # fmt: skip
            return EvidenceVerdict.of_unknown(
                ev.a, ev.b, denial, notes=notes, started=started, linked=ev.linked,
                llm=ev.llm, context=context,
            )  # fmt: skip
        contributions = [
            {**c.to_dict(), "group": group_of(c.feature)} for c in model.explain(x[0], top=top)
        ]
        paths = []
        if ev.kg is not None:
            for path, weight in ev.kg.strongest(3):
                paths.append(
                    {"path": path.verbalise(types=True, relations=True), "pdp": round(weight, 6)}
                )
        cue = cue_phrase(ev.mention.text, ev.mention.a, ev.mention.b) if ev.mention else None
        terms = None
        if ev.mention is not None and self.lexical:
            from causalqa.discovery.lexical import explain_terms

            terms = explain_terms(self.lexical, ev.mention)
        return EvidenceVerdict(
            a=ev.a,
            b=ev.b,
            direction=direction,
            probability=p_causal,
            probabilities=probabilities,
            threshold=threshold,
            variant=variant,
            contributions=contributions,
            paths=paths,
            cue=cue,
            terms=terms,
            text_model=self.text_model if ev.has_text else None,
            linked=ev.linked,
            llm=ev.llm,
            notes=notes,
            seconds=time.perf_counter() - started if started else 0.0,
            context=context,
        )

    def abstention(self, ev: PairEvidence, variant: str) -> Abstention | None:
        """None when the evidence `variant` decides with holds something decisive — the
        sentence, a KG path between the linked nodes, or the LLM's log-odds; else what
        the pair lacks and what would decide it. KG features without a path (linking
        scores, node kinds, degrees) say what kind of pair it is, not whether it is causal,
        so they never decide alone."""
        used = set(variant.split("+")) if variant else set()
        has_path = ev.kg is not None and bool(ev.kg.paths)
        if "text" in used or "llm" in used or ("kg" in used and has_path):
            return None
        lacking = {}
        if ev.has_text:
            lacking["sentence"] = f"the sentence was not used (no evidence model for {variant})"
        else:
            lacking["sentence"] = "no sentence names both"
        if ev.kg is not None and "kg" in used:
            ends = [_node_words(ev.linked.get(k), n) for k, n in (("a", ev.a), ("b", ev.b))]
            within = f" within {ev.hops} hops" if ev.hops else ""
            lacking["path"] = (
                f"no path joins {ends[0]} and {ends[1]}{within} of the knowledge graph"
            )
        elif ev.kg is not None:
            lacking["path"] = f"the knowledge graph's paths were not used (no model for {variant})"
        else:
            lacking["path"] = "no knowledge graph places both names"
        has_llm_model = any("llm" in v.split("+") for v in self.combiners)
        if ev.has_llm:
            lacking["llm"] = f"the LLM's judgement was not used (no model for {variant})"
        elif not has_llm_model:
            lacking["llm"] = "no LLM judgement (this evidence model has no LLM feature)"
        else:
            lacking["llm"] = "no LLM judgement (the LLM was left out)"
        remedies: list[dict[str, str]] = []
        for which, name in (("a", ev.a), ("b", ev.b)):
            info = ev.linked.get(which) or {}
            chosen = (info.get("node") or {}).get("kind")
            if not info.get("ambiguous"):
                continue
            for alt in info.get("alternatives") or []:
                if alt.get("kind") and alt["kind"] != chosen:
                    remedies.append({"remedy": "kind", "which": which, "name": name,
                                     "kind": alt["kind"]})  # fmt: skip
                    break
        remedies += [{"remedy": "sentence"}, {"remedy": "kg"}]
        if has_llm_model and not ev.has_llm:
            remedies.append({"remedy": "llm"})
        elif not has_llm_model:
            remedies.append({"remedy": "llm_model"})
        return Abstention(lacking, remedies)

    # -- files -----------------------------------------------------------------------------
    def save(self, folder: str | Path, *, info: Mapping[str, Any] | None = None) -> Path:
        """Write the combiners (``<variant>.npz`` with their manifests), the text head
        (``text/``, unless it is a fine-tuned model kept elsewhere) and ``judge.json``."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        for variant, model in self.combiners.items():
            model.save(out / f"{variant}.npz", info={"variant": variant, **dict(info or {})})
            _drop(out / f"{variant}.pkl")  # an earlier causalqa's pickle would only mislead
        manifest = {
            **self.manifest,
            "thresholds": self.thresholds,
            "variants": list(self.combiners),
        }
        if info:
            manifest["info"] = dict(info)
        if self.lexical:
            for i, reader in enumerate(self.lexical):
                reader.save(out / "lexical" / f"fold{i}.npz", info=dict(info or {}))
            manifest["lexical"] = len(self.lexical)
            # fold files of an earlier model (more folds, or pickles) would only mislead
            for old in (out / "lexical").glob("fold*"):
                index = old.name[4:].split(".")[0]
                if old.name.endswith((".pkl", ".pkl.json")) or (
                    index.isdigit() and int(index) >= len(self.lexical)
                ):
                    old.unlink()
        if self.text is not None and self.text.mode == "frozen":
            self.text.save(out / "text", info=dict(info or {}))
            manifest["text"] = "text"
        elif self.text is not None:
            manifest["text"] = "text"  # a fine-tuned ensemble, written beside by the trainer
        tmp = out / ".judge.json.tmp"
        tmp.write_text(json.dumps(manifest, indent=2, default=str), encoding="utf-8")
        tmp.replace(out / "judge.json")
        return out

    @classmethod
    def load(
        cls, folder: str | Path | None = None, *, text_folder: str | Path | None = None
    ) -> EvidenceJudge:
        """The evidence model in `folder` (default: a rebuilt one under the cache when
        ``causalqa discover train`` made one, else the one shipped with the package). The
        text classifier comes from ``folder/text`` or `text_folder` (a fine-tuned one)."""
        from causalqa.errors import DataFileError
        from causalqa.evidence import EvidenceModel

        if folder is None:
            rebuilt = trained_artefacts()
            folder = rebuilt if (rebuilt / "judge.json").is_file() else default_artefacts()
        path = Path(folder)
        manifest = read_manifest(path / "judge.json", "evidence model")
        combiners = {}
        for variant in manifest.get("variants", []):
            try:
                combiners[variant] = EvidenceModel.load(_stored(path / variant))
            except DataFileError as e:
                raise EvidenceArtefactError(e.message) from None
        text = None
        where = text_folder or (path / manifest["text"] if manifest.get("text") else None)
        if where is not None:
            text = RelationEnsemble.load(where)
        lexical = []
        if manifest.get("lexical"):
            from causalqa.discovery.lexical import LexicalEvidence

            n = manifest["lexical"]
            if not isinstance(n, int) or n < 1:
                raise EvidenceArtefactError(
                    f"{path / 'judge.json'}: 'lexical' must be a count of fold models, not {n!r}",
                    hint="rebuild the evidence model: causalqa discover train",
                )
            lexical = [
                LexicalEvidence.load(_stored(path / "lexical" / f"fold{i}")) for i in range(n)
            ]
        judge = cls(text, combiners, manifest.get("thresholds", {}), manifest, lexical=lexical)
        judge.folder = path
        return judge


def _node_words(info: Mapping[str, Any] | None, name: str) -> str:
    """A linked node as words: "Metformin (Compound)"; the name asked when unlinked."""
    node = (info or {}).get("node") or {}
    return f"{node['name']} ({node['kind']})" if node.get("name") and node.get("kind") else name


def _stored(stem: Path) -> Path:
    """``<stem>.npz``, or the pickle an earlier causalqa wrote (``<stem>.pkl``) when only
    that is there (a model rebuilt before; read after its sha256 is checked)."""
    npz = stem.with_name(stem.name + ".npz")
    pkl = stem.with_name(stem.name + ".pkl")
    return pkl if pkl.is_file() and not npz.is_file() else npz


def _drop(path: Path) -> None:
    for p in (path, path.with_name(path.name + ".json")):
        p.unlink(missing_ok=True)


def order_free(names: Sequence[str]) -> list[str]:
    """The features the causal-or-not combiner may read: all but the directional ones."""
    return [n for n in names if not n.endswith(DIRECTIONAL) and n != "text_fwd"]
