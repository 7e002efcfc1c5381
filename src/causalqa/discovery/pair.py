"""Zero-shot knowledge-based causal discovery for one variable pair (paper 001, §4.4, App. E).

The prompt is the paper's (App. C shows it; §4.4 Eq. 8 and App. E describe it): an
instruction, the pair, its textual context and the top-k verbalised relation paths, ending
in ``[Relation]:``::

    Given the following information, classify the relation between the drug and side
    effect. If there is a cause-effect relationship, state causal; otherwise, state
    non-causal.
    [Pair]: dihydrotachysterol and hypercalcemia [Textual context]: Severe hypercalcemia
    in a patient treated ... [Relation Paths]: FGF6 - tendon - SDRDL - FGFR2 - prostate
    cancer [Relation]:

The decision is by label log-probabilities over the paper's two label words, ``causal``
and ``non-causal`` (§4.2, Eq. 1): the verdict is the more probable label, the probability
is P(causal) renormalised over the two labels. Blocks with nothing in them (no context, no
path: the paper's "no-subgraph" baseline) are left out of the prompt.

A small model's label prior moves with the prompt's shape (the 1.5B model: about −1 on
the log-odds of "causal" once a path is in the prompt), so the plain argmax says
"non-causal" to nearly every prompt with a path. Two other rules: contextual calibration
(each label's log-probability lowered by its log-probability on a content-free prompt of
the same shape; with the 1.5B it says "causal" to nearly everything) and — the default of
`discover_pair` — reference thresholds (`causalqa.discovery.reference`): "causal" when the
log-odds exceed the model's mean over a reference batch of validation questions asked in
the same shape.

- `classify_pair(a, b, llm, paths=[...], context=None)` → `PairVerdict`;
- `discover_pair(a, b, kg=..., llm=...)`: link both names in a `KnowledgeGraph`, extract
  the paths between them, rank them (random, similarity, llm, or a saved trained ranker),
  and classify with the top-k. An unknown or ambiguous name, or no path within k hops,
  gives the LLM's verdict from the pair alone with a note saying so — never an exception
  (the LLM's judgement is this method's evidence);
- `discover_pairs(items, method=...)`: what every surface calls (``causalqa discover
  pair``, the API's and MCP's ``discover_pair``): many pairs in input order, by the
  evidence model (`judge_pair`, the default; ``unknown`` when there is no sentence, no
  path between the linked nodes and no LLM feature) or the paper's prompt
  (`discover_pair`), a failing pair of a batch reported as a `PairFailure` instead of
  ending the run.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from causalqa._compat import moved_names
from causalqa.discovery.pathdata import PathCandidate, PathRecord
from causalqa.discovery.rankers import get_ranker
from causalqa.errors import CausalQAError, PairDiscoveryError

__all__ = [
    "CAUSAL",
    "DECISIONS",
    "DIRECTED_INSTRUCTION",
    "INSTRUCTION",
    "LABELS",
    "NON_CAUSAL",
    "PairDiscoveryError",
    "PairFailure",
    "PairItem",
    "PairVerdict",
    "candidate_from_path",
    "classify_pair",
    "content_free_logprobs",
    "discover_pair",
    "discover_pairs",
    "gather_evidence",
    "judge_pair",
    "needs_kg",
    "needs_llm",
    "pair_kg",
    "pair_prompt",
    "path_sentences",
    "read_pairs",
    "readable_relation",
    "verbalise_path",
]

CAUSAL = "causal"
NON_CAUSAL = "non-causal"
LABELS = (CAUSAL, NON_CAUSAL)
"""The paper's label words (§4.2, App. C): "state causal; otherwise, state non-causal"."""

INSTRUCTION = (
    "Given the following information, classify the relation between the {subject}. "
    "If there is a cause-effect relationship, state causal; otherwise, state non-causal."
)
"""App. C's instruction; ``{subject}`` is "drug and side effect" in the paper's example."""

DIRECTED_INSTRUCTION = (
    "Given the following information, classify the relation from the first to the second "
    "variable of the pair. If the first directly or indirectly causes the second, state "
    "causal; otherwise, state non-causal."
)
"""Ours, not the paper's: the ordered question full-graph discovery asks of (a, b) and of
(b, a) (the paper does not give its SACHS prompt)."""

DEFAULT_SUBJECT = "pair of variables"
SUBJECTS = {
    "ade": "drug and side effect",
    "comagc": "gene and disease",
    "gene": "two genes",
    "semeval": "two entities",
}
"""The instruction's subject per path-to-causality data set (App. C gives ADE's)."""

NO_ENTITY = "entity not found; decided from the pair alone"
NO_PATH = "no path found; decided from the pair alone"
NO_REFERENCE = (
    "no reference thresholds for this model and prompt (make them with: causalqa bench "
    "discovery reference); decided by content-free calibration"
)
DECISIONS = ("reference", "content-free", "argmax")
"""Verdict rules for one pair: see `discover_pair`."""


# -- prompt -------------------------------------------------------------------------------


_METAEDGE = re.compile(r"([A-Z]+(?:_[A-Z]+)*)_([A-Za-z<>]*[a-z][A-Za-z<>]*)")


def readable_relation(relation: str) -> str:
    """A relation label as words: Hetionet's metaedge names lose their abbreviation
    ("UPREGULATES_CuG" → "upregulates", "ASSOCIATES_DaG" → "associates"); other labels
    (Wikidata's "subclass of") are kept.

    >>> readable_relation("INTERACTS_GiG"), readable_relation("subclass of")
    ('interacts', 'subclass of')
    """
    m = _METAEDGE.fullmatch(relation.strip())
    return m.group(1).replace("_", " ").lower() if m else relation.strip()


# Hetionet's node kinds by their abbreviation in metaedges ("CcSE": Compound causes Side Effect).
_KIND_OF_ABBREV = {
    "A": "Anatomy", "BP": "BiologicalProcess", "CC": "CellularComponent", "C": "Compound",
    "D": "Disease", "G": "Gene", "MF": "MolecularFunction", "PW": "Pathway",
    "PC": "PharmacologicClass", "SE": "SideEffect", "S": "Symptom",
}  # fmt: skip
_ABBREV_PARTS = re.compile(r"([A-Z]+)[a-z]+>?([A-Z]+)")
# Relation names that read better with a preposition in a clause ("X is associated with Y").
_VERB = {
    "associates": "is associated with",
    "interacts": "interacts with",
    "localizes": "localizes to",
    "participates": "participates in",
    "covaries": "covaries with",
}


def _kind_key(kind: str) -> str:
    return kind.replace(" ", "").lower()


def _clause(u: str, relation: str, v: str, kind_u: str = "", kind_v: str = "") -> str:
    """One hop as a clause, subject first. A Hetionet metaedge ("CAUSES_CcSE") says which
    kind is the subject: "Dasatinib causes Conjunctivitis" whichever way the path walks it."""
    m = _METAEDGE.fullmatch(relation.strip())
    if not m:
        return f"{u} {relation.strip()} {v}"
    verb = m.group(1).replace("_", " ").lower()
    verb = _VERB.get(verb, verb)
    parts = _ABBREV_PARTS.fullmatch(m.group(2))
    if parts and kind_u and kind_v:
        source, target = (_kind_key(_KIND_OF_ABBREV.get(x, x)) for x in parts.groups())
        if (_kind_key(kind_u), _kind_key(kind_v)) == (target, source) != (source, target):
            u, v = v, u
    return f"{u} {verb} {v}"


def path_sentences(path: Any, *, types: bool = False) -> str:
    """A path as clauses, one per hop, each with its relation as the verb and the edge's
    own subject first (ours, not the paper's Eq. 7): ``Carbamazepine causes Conjunctivitis,
    Dasatinib causes Conjunctivitis, Dasatinib causes Lupus``. A `causalqa.kg.KGPath` knows
    each step's direction; a `PathCandidate` gets it from Hetionet's metaedge abbreviation
    and the node types; other relations (Wikidata's) are written in walking order.

    >>> c = PathCandidate(0, ("Raloxifene", "ERBB2", "melanoma"),
    ...     ("UPREGULATES_CuG", "ASSOCIATES_DaG"), ("Compound", "Gene", "Disease"))
    >>> path_sentences(c)
    'Raloxifene upregulates ERBB2, melanoma is associated with ERBB2'
    """
    if isinstance(path, PathCandidate):
        kinds = path.node_types if len(path.node_types) == len(path.stops) else ()
        names = [
            f"{k} {s}" if types and kinds else s
            for s, k in zip(path.stops, kinds or ("",) * len(path.stops))
        ]
        if len(path.relations) != len(names) - 1:
            return path.text(types=types)
        return ", ".join(
            _clause(names[i], r, names[i + 1], *(kinds[i : i + 2] if kinds else ()))
            for i, r in enumerate(path.relations)
        )
    if hasattr(path, "nodes") and hasattr(path, "steps"):
        names = [f"{n.kind} {n.name}" if types else n.name for n in path.nodes]
        clauses = []
        for i, step in enumerate(path.steps):
            u, v = (names[i], names[i + 1]) if step.forward else (names[i + 1], names[i])
            verb = _VERB.get(step.relation.lower(), step.relation)
            clauses.append(f"{u} {verb} {v}")
        return ", ".join(clauses)
    raise PairDiscoveryError(f"cannot put a {type(path).__name__} into words as a path")


def verbalise_path(
    path: Any, *, types: bool = False, relations: bool = False, sentences: bool = False
) -> str:
    """A path as prompt text: a string as is, a `causalqa.kg.KGPath` or a `PathCandidate`
    in the simplest form of Eq. 7 by default ("FGF6 - tendon - SDRDL", App. C); with
    `types` each node has its type, with `relations` each hop its relation in words
    ("Gene FGF6 -[expresses]-> Anatomy tendon ...", Eq. 7); with `sentences` one clause per
    hop (`path_sentences`)."""
    if isinstance(path, str):
        return path.strip()
    if sentences:
        return path_sentences(path, types=types)
    if isinstance(path, PathCandidate):
        if relations and path.relations:
            path = dataclasses.replace(
                path, relations=tuple(readable_relation(r) for r in path.relations)
            )
        return path.text(types=types, relations=relations)
    if hasattr(path, "verbalise"):
        return path.verbalise(types=types, relations=relations)
    raise PairDiscoveryError(f"cannot put a {type(path).__name__} into words as a path")


def pair_prompt(
    a: str,
    b: str,
    *,
    paths: Sequence[Any] = (),
    context: str | None = None,
    subject: str = DEFAULT_SUBJECT,
    instruction: str | None = None,
    types: bool = False,
    relations: bool = False,
    sentences: bool = False,
) -> str:
    """The zero-shot prompt of App. C / Eq. 8. Several paths are joined by "; "; `types`,
    `relations` and `sentences` choose their form (`verbalise_path`)."""
    head = (instruction or INSTRUCTION).format(subject=subject)
    parts = [f"[Pair]: {a.strip()} and {b.strip()}"]
    if context and context.strip():
        parts.append(f"[Textual context]: {' '.join(context.split())}")
    form = {"types": types, "relations": relations, "sentences": sentences}
    texts = [t for t in (verbalise_path(p, **form) for p in paths) if t]
    if texts:
        parts.append(f"[Relation Paths]: {'; '.join(texts)}")
    parts.append("[Relation]:")
    return head + "\n" + " ".join(parts)


# -- verdicts -----------------------------------------------------------------------------


@dataclass
class PairVerdict:
    """The answer for one pair: `verdict` ("causal"/"non-causal"), `probability` (of
    causal, over the two labels), the `paths` put in the prompt, and how they were found."""

    a: str
    b: str
    verdict: str
    probability: float
    paths: list[str]
    logprobs: dict[str, float]
    exact: bool = True
    prompt: str = ""
    model: str = ""
    context: str | None = None
    ranker: str | None = None
    notes: list[str] = field(default_factory=list)
    linked: dict[str, Any] = field(default_factory=dict)
    candidates: int = 0
    seconds: float = 0.0
    content_free: dict[str, float] | None = None
    """The labels' log-probs on the content-free prompt, when the verdict was calibrated."""
    threshold: float | None = None
    """The reference mean log-odds the verdict was decided against, when it was."""
    decision: str = "argmax"
    """How the log-probs became the verdict: reference, content-free or argmax."""

    @property
    def raw_probability(self) -> float:
        """P(causal) before calibration (equal to `probability` without it)."""
        return _probability(self.logprobs)

    @property
    def log_odds(self) -> float:
        """The log-odds of "causal" against "non-causal", before any calibration."""
        return self.logprobs[CAUSAL] - self.logprobs[NON_CAUSAL]

    @property
    def causal(self) -> bool:
        return self.verdict == CAUSAL

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "method": "llm",
            "verdict": self.verdict,
            "causal": self.causal,
            "probability": round(self.probability, 4),
            "paths": self.paths,
            "paths_found": self.candidates,
            "ranker": self.ranker,
            "context": self.context,
            "notes": self.notes,
            "linked": self.linked,
            "logprobs": {k: round(v, 4) for k, v in self.logprobs.items()},
            "calibrated": self.content_free is not None,
            "decision": self.decision,
            "threshold": None if self.threshold is None else round(self.threshold, 4),
            "raw_probability": round(self.raw_probability, 4),
            "exact_scores": self.exact,
            "model": self.model,
            "seconds": round(self.seconds, 3),
            "prompt": self.prompt,
        }

    def to_text(self) -> list[str]:
        """The verdict for a person, a line each: the verdict, P(causal) and how it was
        reached, then the paths in the prompt and the notes."""
        return [
            f"{self.verdict} {self.a} – {self.b}  P(causal) = {self.probability:.3f}  "
            f"({self.model}, ranker {self.ranker}, {self.candidates} paths found, "
            f"{self.decision} verdict)",
            *(f"  path: {p}" for p in self.paths),
            *(f"  note: {n}" for n in self.notes),
        ]


CONTENT_FREE = "N/A"


def content_free_logprobs(
    llm,
    *,
    n_paths: int,
    has_context: bool,
    subject: str = DEFAULT_SUBJECT,
    instruction: str | None = None,
    chat: bool = True,
) -> dict[str, float]:
    """The labels' log-probabilities for a prompt of the same shape with no content
    ("N/A" for the pair, the context and each path): the model's prior for the prompt
    format, which contextual calibration divides out (Zhao et al., 2021)."""
    prompt = pair_prompt(
        CONTENT_FREE,
        CONTENT_FREE,
        paths=[CONTENT_FREE] * n_paths,
        context=CONTENT_FREE if has_context else None,
        subject=subject,
        instruction=instruction,
    )
    request: Any = [{"role": "user", "content": prompt}] if chat else prompt + " "
    return dict(llm.label_logprobs(request, list(LABELS)).logprobs)


def _probability(logprobs: Mapping[str, float]) -> float:
    """P(causal) renormalised over the two labels (0.5 when undefined)."""
    c, n = logprobs[CAUSAL], logprobs[NON_CAUSAL]
    if math.isnan(c) or math.isnan(n):
        return 0.5
    return 1.0 / (1.0 + math.exp(max(-700.0, min(700.0, n - c))))


def classify_pair(
    a: str,
    b: str,
    llm,
    *,
    paths: Sequence[Any] = (),
    context: str | None = None,
    subject: str = DEFAULT_SUBJECT,
    instruction: str | None = None,
    chat: bool = True,
    calibrate: bool | Mapping[str, float] = False,
    threshold: float | None = None,
    types: bool = False,
    relations: bool = False,
    sentences: bool = False,
) -> PairVerdict:
    """Classify (a, b) zero-shot from the prompt of `pair_prompt`.

    `llm` is any causalqa LLM; the labels are scored with ``label_logprobs`` — as the start
    of the assistant's reply when `chat` (the prompt is the user turn), else as the raw
    continuation of the prompt text. The verdict is the more probable label (the paper's
    rule). With `calibrate` (True, or the content-free log-probs already computed), each
    label's log-probability is first lowered by its log-probability on a content-free
    prompt of the same shape (`content_free_logprobs`): a small model's prior for one
    label — which shifts when paths enter the prompt — no longer decides. No labels are
    needed for this. With `threshold` (a reference mean log-odds, see
    `causalqa.discovery.reference`) the verdict is "causal" when the log-odds of "causal"
    exceed it, and the probability is the logistic of their difference. `types`/`relations`/
    `sentences`: the paths' form (`verbalise_path`).
    """
    if threshold is not None and calibrate is not False:
        raise PairDiscoveryError("give either a reference threshold or calibrate, not both")
    form = {"types": types, "relations": relations, "sentences": sentences}
    prompt = pair_prompt(
        a,
        b,
        paths=paths,
        context=context,
        subject=subject,
        instruction=instruction,
        **form,
    )
    request: Any = [{"role": "user", "content": prompt}] if chat else prompt + " "
    scores = llm.label_logprobs(request, list(LABELS))
    raw = dict(scores.logprobs)
    texts = [t for t in (verbalise_path(x, **form) for x in paths) if t]
    prior = None
    if calibrate is True:
        prior = content_free_logprobs(
            llm,
            n_paths=len(texts),
            has_context=bool(context and context.strip()),
            subject=subject,
            instruction=instruction,
            chat=chat,
        )
    elif isinstance(calibrate, Mapping):
        prior = dict(calibrate)
    used = raw if prior is None else {k: raw[k] - prior[k] for k in LABELS}
    if threshold is not None:
        used = {CAUSAL: raw[CAUSAL] - threshold, NON_CAUSAL: raw[NON_CAUSAL]}
    p = _probability(used)
    verdict = CAUSAL if used[CAUSAL] > used[NON_CAUSAL] else NON_CAUSAL
    return PairVerdict(
        a=a,
        b=b,
        verdict=verdict,
        probability=p,
        paths=texts,
        logprobs=raw,
        content_free=prior,
        threshold=threshold,
        decision="reference" if threshold is not None else "content-free" if prior else "argmax",
        exact=scores.exact,
        prompt=prompt,
        model=getattr(scores, "model", "") or getattr(llm, "model", ""),
        context=context,
        seconds=float(getattr(scores, "seconds", 0.0) or 0.0),
    )


def candidate_from_path(path, path_id: int = 0) -> PathCandidate:
    """A `causalqa.kg.KGPath` as the rankers' `PathCandidate` (stops, relations, node types)."""
    return PathCandidate(
        path_id=path_id,
        stops=tuple(n.name for n in path.nodes),
        relations=tuple(s.rel_type for s in path.steps),
        node_types=tuple(n.kind.replace(" ", "") for n in path.nodes),
    )


def _reference_threshold(llm, context, n_paths, subject, instruction) -> float | None:
    """The model's reference mean log-odds for this prompt shape; None when there is none
    (other model, or an instruction or subject other than the measured default)."""
    from causalqa.discovery.reference import reference_for

    if (instruction or INSTRUCTION) != INSTRUCTION or subject != DEFAULT_SUBJECT:
        return None
    ref = reference_for(getattr(llm, "model", "") or "")
    if ref is None:
        return None
    return ref.threshold(context=bool(context and context.strip()), n_paths=n_paths)


def rank_paths(ranker, query: PathRecord, candidates: Sequence[PathCandidate], top_k: int):
    """The `top_k` candidates by `ranker` (a `Ranker`, or None for none)."""
    if ranker is None or top_k <= 0 or not candidates:
        return []
    ranking = ranker.rank(query, list(candidates))
    return [candidates[i] for i in ranking.top(top_k)]


# -- the pipeline ---------------------------------------------------------------------------


def _link(kg, name: str, options: Mapping[str, Any]) -> tuple[Any, dict[str, Any], str | None]:
    """(node or None, what linking said, a note when no node was chosen)."""
    try:
        linking = kg.link(name, **options)
    except CausalQAError as e:
        return None, {"query": name, "error": e.message}, f"{name!r}: {e.message}"
    info = linking.to_dict()
    if linking.best is not None:
        return linking.best.node, info, None
    if linking.candidates:
        listed = "; ".join(
            f"{c.node.name} ({c.node.kind}, {c.node.id})" for c in linking.candidates[:5]
        )
        return None, info, f"{name!r} is ambiguous in the graph: {listed}"
    return None, info, f"{name!r} matches no node of the graph"


def check_names(a: Any, b: Any) -> None:
    """Refuse an empty (or blank, or non-text) variable name with a `MentionError`."""
    from causalqa.errors import MentionError

    for which, name in (("A", a), ("B", b)):
        if not isinstance(name, str) or not name.strip():
            raise MentionError(
                f"variable {which} is empty: {name!r}", hint="give two non-empty names"
            )


def discover_pair(
    a: str,
    b: str,
    *,
    kg,
    llm,
    ranker: Any = "similarity",
    top_k: int = 1,
    context: str | None = None,
    k: int = 4,
    limit: int = 100,
    types: Sequence[str | None] | None = None,
    kinds_a: Sequence[str] | None = None,
    kinds_b: Sequence[str] | None = None,
    link_options: Mapping[str, Any] | None = None,
    max_llm_candidates: int = 10,
    subject: str = DEFAULT_SUBJECT,
    instruction: str | None = None,
    seed: int = 0,
    decision: str = "reference",
    calibrate: bool | None = None,
) -> PairVerdict:
    """Link a and b in `kg`, extract paths of at most `k` hops (at most `limit`, shortest
    first), rank them with `ranker` (a name of `RANKERS` or a `Ranker`), put the top
    `top_k` in the prompt and classify.

    `kinds_a`/`kinds_b` restrict linking to node kinds (e.g. ["Disease"]) to settle an
    ambiguous name. The LLM ranker sees the `max_llm_candidates` shortest paths only (the
    paper ranks up to 10 per pair). The result's `notes` say when a name was not linked or
    no path was found, and the verdict then comes from the pair (and context) alone.

    `decision` (one of `DECISIONS`): ``reference`` (default) compares the log-odds of
    "causal" with the model's reference mean for the prompt's shape
    (`causalqa.discovery.reference`; a model without reference thresholds falls back to
    ``content-free``, with a note), ``content-free`` is contextual calibration and
    ``argmax`` the paper's rule. `calibrate` (older spelling): True means content-free,
    False argmax.
    """
    check_names(a, b)
    if calibrate is not None:
        decision = "content-free" if calibrate else "argmax"
    if decision not in DECISIONS:
        raise PairDiscoveryError(
            f"unknown decision rule {decision!r}", hint=f"use {', '.join(DECISIONS)}"
        )
    import time

    start = time.perf_counter()
    options = dict(link_options or {})
    notes: list[str] = []
    linked: dict[str, Any] = {}
    nodes = []
    for name, kinds, key in ((a, kinds_a, "a"), (b, kinds_b, "b")):
        opts = {**options, **({"kinds": list(kinds)} if kinds else {})}
        node, info, problem = _link(kg, name, opts)
        linked[key] = info
        nodes.append(node)
        if problem:
            notes.append(problem)

    rk = get_ranker(ranker, llm=llm, seed=seed) if isinstance(ranker, str) else ranker
    rk_name = ranker if isinstance(ranker, str) else getattr(ranker, "name", "custom")
    candidates: list[PathCandidate] = []
    if None in nodes:
        notes.append(NO_ENTITY)
    elif rk is not None and top_k > 0:
        try:
            found = kg.paths(nodes[0], nodes[1], k=k, types=types, limit=limit)
        except CausalQAError as e:
            found = []
            notes.append(f"path extraction failed: {e.message}")
        candidates = [candidate_from_path(p, i) for i, p in enumerate(found)]
        if not candidates:
            notes.append(f"{NO_PATH} (within {k} hops)")
    if rk_name == "llm" and len(candidates) > max_llm_candidates:
        candidates = candidates[:max_llm_candidates]
        notes.append(f"the LLM ranker saw the {max_llm_candidates} shortest paths")
    query = PathRecord(
        qid=f"{a}\x1f{b}",
        sentence=context or "",
        e1=nodes[0].name if nodes[0] else a,
        e2=nodes[1].name if nodes[1] else b,
        label=0,
        paths=tuple(candidates),
    )
    chosen = rank_paths(rk, query, candidates, top_k)
    threshold = None
    if decision == "reference":
        threshold = _reference_threshold(llm, context, len(chosen), subject, instruction)
        if threshold is None:
            notes.append(NO_REFERENCE)
            decision = "content-free"
    verdict = classify_pair(
        a,
        b,
        llm,
        paths=chosen,
        context=context,
        subject=subject,
        instruction=instruction,
        calibrate=decision == "content-free",
        threshold=threshold,
    )
    verdict.ranker = rk_name
    verdict.notes = notes
    verdict.linked = linked
    verdict.candidates = len(candidates)
    verdict.seconds = time.perf_counter() - start
    return verdict


# -- the evidence method ---------------------------------------------------------------------

METHODS = ("evidence", "llm")
"""How `discover pair` decides: ``evidence`` (a trained, calibrated model over KG, text and
LLM evidence; `causalqa.discovery.evidence`) or ``llm`` (the paper's zero-shot prompt)."""

DEFAULT_METHOD = METHODS[0]
"""The method `discover pair` (CLI, API, MCP) uses when none is named."""


def evidence_llm(judge, llm, *, no_llm: bool = False):
    """(the LLM to give `judge_pair`, or None; the note that says why it is left out, or
    None): an LLM only when the evidence model has an LLM feature and `no_llm` is off."""
    if no_llm:
        return None, "LLM feature left out (--no-llm)"
    if not any("llm" in v for v in judge.combiners):
        return None, "this evidence model has no LLM feature"
    return llm, None


def link_for_evidence(kg, name: str, kinds: Sequence[str] | None = None, *, guesses: bool = True):
    """(node or None, what linking said, a note or None). An ambiguous name takes its
    best-scoring candidate, marked ``ambiguous`` (the features carry the doubt). Without
    `guesses` (how `discover pair` links), a name that only an unaccepted embedding match
    reaches is not placed (`places`); training links as the shipped model was trained."""
    options = {"kinds": list(kinds)} if kinds else {}
    try:
        linking = kg.link(name, **options)
    except CausalQAError as e:
        return None, {"query": name, "error": e.message, "score": 0.0}, f"{name!r}: {e.message}"
    if not linking.candidates:
        return None, {"query": name, "score": 0.0, "method": "none"}, None
    best = linking.candidates[0]
    if guesses is False and not places(linking):
        info = {"query": name, "score": 0.0, "method": "none", "guess": best.to_dict()}
        note = (
            f"{name!r} matches no node by name; the nearest in meaning, {best.node.name} "
            f"({best.node.kind}, {best.score:.0f}/100), is only a guess: not used"
        )
        return None, info, note
    info = {
        "query": name,
        "node": best.node.to_dict(),
        "score": round(best.score, 2),
        "method": best.method,
        "ambiguous": bool(linking.ambiguous),
    }
    note = None
    if linking.ambiguous and len(linking.candidates) > 1:
        others = "; ".join(f"{c.node.name} ({c.node.kind})" for c in linking.candidates[1:4])
        info["alternatives"] = [c.to_dict() for c in linking.candidates[1:4]]
        note = (
            f"{name!r} is ambiguous in the graph: took {best.node.name} ({best.node.kind}); "
            f"also close: {others}"
        )
    return best.node, info, note


def places(linking) -> bool:
    """Whether a `causalqa.kg.Linking` places the name in the graph for the evidence
    method: some candidate was found by name (exact, alias, normalised, fuzzy — an
    ambiguous one is taken, the features carry the doubt), or the embedding match the
    linker itself accepted. Candidates that are only near in meaning and that the linker
    did not accept ("qqzzx" ≈ the gene AQP3 at 64/100) are a guess, not a link: the name
    is then not in the graph."""
    if not linking.candidates:
        return False
    return not (linking.method == "embedding" and linking.ambiguous)


def closest_names(kg, name: str, kinds: Sequence[str] | None = None, n: int = 5) -> list[str]:
    """The graph's node names closest to `name` (for a "did you mean" message)."""
    options = {"kinds": list(kinds)} if kinds else {}
    try:
        loose = kg.link(name, fuzzy_cutoff=40.0, embeddings=False, limit=n, **options)
    except CausalQAError:
        return []
    return [f"{c.node.name} ({c.node.kind})" for c in loose.candidates[:n]]


def gather_evidence(
    a: str,
    b: str,
    *,
    judge,
    kg=None,
    llm=None,
    context: str | None = None,
    kinds_a: Sequence[str] | None = None,
    kinds_b: Sequence[str] | None = None,
    text_probs: Sequence[float] | None = None,
    llm_log_odds: float | None = None,
    k: int = 4,
    spelling=None,
):
    """Collect a pair's evidence (`causalqa.discovery.evidence.PairEvidence`): the sentence
    read by the text classifier and the lexical readers, and its cues (when `context`), the
    KG features (when `kg` places both names), the LLM's log-odds under the paper's prompt
    with the strongest path (when `llm`). `text_probs` / `llm_log_odds` given are used
    instead of computing them (training reuses cross-fitted ones). Errors: empty names, an
    empty sentence or one without A or B (`MentionError`); without a sentence, a name the
    graph does not place (`EntityNotFoundError`, with the closest names; see `places`) or a
    graph with none of the node kinds the model was trained on. `spelling`
    (`causalqa.discovery.evidence.Spelling`) names the options in those hints."""
    from causalqa.discovery.evidence import PYTHON, PairEvidence, llm_features, text_features
    from causalqa.discovery.features import cue_features, kg_features, missing_kg
    from causalqa.discovery.relation import mentions_in
    from causalqa.errors import EntityNotFoundError

    check_names(a, b)
    spelling = spelling or PYTHON
    ev = PairEvidence(a.strip(), b.strip())
    if context is not None:
        ev.mention = mentions_in(context, a, b)
        if text_probs is None:
            if judge.text is None:
                raise PairDiscoveryError("the evidence model has no text classifier")
            text_probs = judge.text.predict_proba([ev.mention])[0]
        ev.text_probs = np.asarray(text_probs, dtype=float)
        ev.features.update(text_features(ev.text_probs))
        ev.features.update(cue_features(ev.mention.text, ev.mention.a, ev.mention.b))
        if getattr(judge, "lexical", None):
            from causalqa.discovery.lexical import mean_features

            ev.features.update(mean_features(judge.lexical, [ev.mention])[0])
    if kg is not None:
        if judge.kinds and not judge.kinds & set(kg.nodes()["kind"].unique()):
            raise PairDiscoveryError(
                "the knowledge graph has none of the node kinds the evidence model was "
                f"trained on ({', '.join(sorted(judge.kinds))})",
                hint="load Hetionet (causalqa kg load hetionet DIR) or give only --context",
            )
        nodes = []
        for name, kinds, key in ((a, kinds_a, "a"), (b, kinds_b, "b")):
            if kinds:
                known = set(kg.nodes()["kind"].unique())
                bad = [x for x in kinds if x not in known]
                if bad:
                    raise PairDiscoveryError(
                        f"the knowledge graph has no node kind {', '.join(bad)}",
                        hint="kinds in this graph: " + ", ".join(sorted(known)),
                    )
            node, info, note = link_for_evidence(kg, name, kinds, guesses=False)
            ev.linked[key] = info
            nodes.append(node)
            if note and not (node is None and context is None):
                ev.notes.append(note)
            if node is None and context is None:
                close = closest_names(kg, name, kinds)
                sentence = f" ({spelling.sentence})" if spelling.sentence else ""
                guess = info.get("guess")
                raise EntityNotFoundError(
                    f"{name!r} matches no node of the knowledge graph"
                    + (
                        f" (the nearest in meaning, {guess['name']} ({guess['kind']}), is "
                        "only a guess)"
                        if guess
                        else ""
                    ),
                    hint=("closest names: " + "; ".join(close) + "; or give a sentence "
                          f"that names both{sentence}")
                    if close
                    else f"check the spelling, or give a sentence that names both{sentence}",
                )  # fmt: skip
        if None in nodes:
            missing = [n for n, node in zip((a, b), nodes) if node is None]
            ev.notes.append(f"not in the graph: {', '.join(map(repr, missing))}; no KG evidence")
            ev.features.update(missing_kg(ev.linked.get("a"), ev.linked.get("b")))
        else:
            ev.hops = k
            ev.kg = kg_features(
                kg, nodes[0], nodes[1], link_a=ev.linked["a"], link_b=ev.linked["b"], k=k
            )
            ev.features.update(ev.kg.features)
            if not ev.kg.paths:
                ev.notes.append(f"{NO_PATH.split(';')[0]} within {k} hops")
    elif context is None:
        raise PairDiscoveryError(
            "no evidence to judge by: no knowledge graph and no sentence",
            hint=f"give a knowledge graph ({spelling.kg}) or a sentence that names both "
            f"({spelling.sentence})",
        )
    if llm is not None or llm_log_odds is not None:
        path = []
        if ev.kg is not None and ev.kg.paths:
            path = [ev.kg.strongest(1)[0][0]]
        if llm_log_odds is None:
            v = classify_pair(
                a, b, llm, paths=path, context=ev.mention.text if ev.mention else None
            )
            llm_log_odds = v.log_odds
            ev.llm = {
                "log_odds": round(v.log_odds, 4),
                "model": v.model,
                "paths": v.paths,
                "seconds": round(v.seconds, 3),
            }
        else:
            ev.llm = {"log_odds": round(float(llm_log_odds), 4)}
        ev.features.update(llm_features(llm_log_odds, bool(path)))
    return ev


def judge_pair(
    a: str,
    b: str,
    *,
    judge=None,
    kg=None,
    llm=None,
    context: str | None = None,
    kinds_a: Sequence[str] | None = None,
    kinds_b: Sequence[str] | None = None,
    k: int = 4,
    spelling=None,
    general: Sequence[Any] = (),
    general_claims=None,
):
    """`discover pair`'s default: gather the evidence (`gather_evidence`) and let the
    trained evidence model (`judge`, default `EvidenceJudge.load()`) decide A→B, B→A or
    none, with calibrated probabilities and the evidence that moved the verdict — or
    ``unknown`` when there is no sentence, no path between the linked nodes and no LLM
    feature (`EvidenceJudge.abstention`). `llm` is optional (None: the LLM feature is left
    out). `spelling` (`causalqa.discovery.evidence.Spelling`, default the Python API's)
    names the options in hints: what would decide an unknown pair, how to fix an error.
    `general`: stores of general causal claims (CauseNet), consulted beside `kg`
    (`causalqa.discovery.general.with_general`); `general_claims`: what
    `general.general_evidence(a, b, general)` gave a caller that already asked (None:
    ask)."""
    import time

    from causalqa.discovery.evidence import EvidenceJudge

    started = time.perf_counter()
    judge = judge or EvidenceJudge.load()

    def trained():
        ev = gather_evidence(
            a, b, judge=judge, kg=kg, llm=llm, context=context, kinds_a=kinds_a,
            kinds_b=kinds_b, k=k, spelling=spelling,
        )  # fmt: skip
        if context is not None and kg is None:
            ev.notes.append("no knowledge graph loaded: text evidence only" if not general
                            else "no graph the trained model reads is loaded: text evidence "
                            "only")  # fmt: skip
        return judge.judge(ev, started=started)

    if general:
        from causalqa.discovery.general import with_general

        verdict = with_general(a, b, general, trained, context=context, has_kg=kg is not None,
                               started=started, claims=general_claims)  # fmt: skip
    else:
        verdict = trained()
    if spelling is not None and hasattr(verdict, "spelling"):
        verdict.spelling = spelling
    return verdict


# -- many pairs, as every surface asks them ----------------------------------------------------


@dataclass(frozen=True)
class PairItem:
    """One pair to judge: the two names, an optional sentence naming both, and the line of
    the batch file it came from (None when it did not come from a file)."""

    a: str
    b: str
    context: str | None = None
    line: int | None = None


@dataclass
class PairFailure:
    """A pair of a batch that could not be judged: which one, and the error's message and
    hint (`discover_pairs` with ``capture_errors``)."""

    a: str
    b: str
    line: int | None
    error: str
    hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "line": self.line, "error": self.error,
                "hint": self.hint}  # fmt: skip


def read_pairs(path) -> list[PairItem]:
    """The pairs of a JSON Lines file, one object a line with the fields ``a``, ``b`` and
    optionally ``context``; all checked before any is judged, so a bad line is a
    `DataFileError` naming the file and line, not a failure halfway through a long run."""
    from causalqa.errors import DataFileError
    from causalqa.jsonl import read_jsonl

    items = []
    for line, obj in read_jsonl(path):
        if not isinstance(obj, dict):
            raise DataFileError(
                f"{path}:{line}: expected a JSON object with a and b", path=str(path), line=line
            )
        for key in ("a", "b"):
            if not isinstance(obj.get(key), str) or not obj[key].strip():
                raise DataFileError(
                    f"{path}:{line}: field {key!r} must be a non-empty string",
                    hint='each line: {"a": "...", "b": "...", "context": "..." (optional)}',
                    path=str(path),
                    line=line,
                )
        ctx = obj.get("context")
        if ctx is not None and not isinstance(ctx, str):
            raise DataFileError(
                f"{path}:{line}: field 'context' must be a string", path=str(path), line=line
            )
        items.append(PairItem(obj["a"], obj["b"], ctx, line))
    if not items:
        raise DataFileError(f"{path}: no pair in the file", path=str(path))
    return items


def needs_kg(method: str, items: Sequence[PairItem]) -> bool:
    """Whether the pairs cannot be judged without a knowledge graph: the paper's prompt
    always ranks paths; the evidence method reads a sentence alone when every pair has one."""
    return method == "llm" or any(item.context is None for item in items)


def pair_kg(open_kg, *, need: bool):
    """The knowledge graph `open_kg()` opens; None instead of its `KGStoreError` when the
    graph is not `need`-ed (every pair has a sentence to judge by)."""
    from causalqa.errors import KGStoreError

    try:
        return open_kg()
    except KGStoreError:
        if need:
            raise
        return None


def needs_llm(method: str, judge=None, *, no_llm: bool = False) -> bool:
    """Whether `discover_pairs` will ask the LLM, so a surface opens (and loads) the model
    only then: always for the paper's prompt; for the evidence method when the model has
    an LLM feature and `no_llm` is off (`judge`: the evidence model, default the one
    `discover_pairs` would load)."""
    if method == "llm":
        return True
    if no_llm:
        return False
    from causalqa.discovery.evidence import EvidenceJudge

    return evidence_llm(judge or EvidenceJudge.load(), True)[0] is not None


def discover_pairs(
    items: Sequence[PairItem],
    *,
    method: str = DEFAULT_METHOD,
    kg=None,
    llm=None,
    judge=None,
    no_llm: bool = False,
    ranker: Any = "similarity",
    top_k: int = 1,
    hops: int = 4,
    kinds_a: Sequence[str] | None = None,
    kinds_b: Sequence[str] | None = None,
    decision: str = "reference",
    capture_errors: bool = False,
    spelling=None,
    general: Sequence[Any] = (),
) -> Iterator[Any]:
    """Judge every pair of `items`, yielding one result per item in input order (as each
    is judged, so a long batch can be written as it goes): an
    `EvidenceVerdict` (``method="evidence"``, `judge_pair` with `judge`, default the
    shipped or trained evidence model) or a `PairVerdict` (``method="llm"``,
    `discover_pair`: the paper's prompt with the `top_k` paths `ranker` ranks first).
    This is ``causalqa discover pair`` and the API's and MCP's ``discover_pair``.

    `ranker`, `top_k` and `decision` choose the paper's prompt and are not read by the
    evidence method. `llm` is left out of the evidence (with a note saying why) when
    `no_llm` or when the evidence model has no LLM feature. `hops`: the longest path.
    With `capture_errors` a pair that raises a `CausalQAError` yields a `PairFailure`
    naming it and the rest go on (a batch); without, the error propagates.

    An evidence verdict is ``unknown`` (``causal`` None, never to be read as False) when
    the pair has no sentence, no path between its linked nodes and no LLM feature; its
    hint says what would decide it in `spelling`'s words (each surface passes its own
    option names; default the Python API's). A name the graph does not place, with no
    sentence, is an `EntityNotFoundError` naming the closest nodes (a `PairFailure` in a
    batch).
    `general`: stores of general causal claims (CauseNet) the evidence method consults
    beside `kg`; the paper's prompt takes its paths from the first of them when there is no
    `kg`.
    """
    if method not in METHODS:
        raise PairDiscoveryError(f"unknown method {method!r}", hint=f"use {', '.join(METHODS)}")
    kinds = {"kinds_a": list(kinds_a) if kinds_a else None,
             "kinds_b": list(kinds_b) if kinds_b else None}  # fmt: skip
    note = None
    if method == "evidence":
        from causalqa.discovery.evidence import EvidenceJudge

        judge = judge or EvidenceJudge.load()
        llm, note = evidence_llm(judge, llm, no_llm=no_llm)
    for item in items:
        try:
            if method == "evidence":
                verdict = judge_pair(item.a, item.b, judge=judge, kg=kg, llm=llm,
                                     context=item.context, k=hops, spelling=spelling,
                                     general=general,
                                     **kinds)  # fmt: skip
                if note:
                    verdict.notes.append(note)
            else:
                paths_kg = kg if kg is not None else next(iter(general), None)
                verdict = discover_pair(item.a, item.b, kg=paths_kg, llm=llm, ranker=ranker,
                                        top_k=top_k, context=item.context, k=hops,
                                        decision=decision, **kinds)  # fmt: skip
        except CausalQAError as e:
            if not capture_errors:
                raise
            yield PairFailure(item.a, item.b, item.line, e.message, e.hint)
            continue
        yield verdict


__getattr__ = moved_names(__name__)  # old names, for one release
