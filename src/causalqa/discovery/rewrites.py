"""Rewrites of causal training sentences that keep their words and change what they claim:
the same sentence denying the relation ("the spark did not cause the fire", "sparks won't
cause fires", "There is no evidence that the spark caused the fire"), hedging it ("the
spark may have caused the fire"), stating a mere association ("the spark was
associated with the fire") or a possible one ("the spark may have been linked to the fire"),
and one that keeps the claim in another causal verb ("the spark led to the fire").

Why: a reader of causal sentences learns "A caused B" from SemEval-2010's Cause-Effect
examples, but its training sentences hold no negated causal statement, few hedged ones
and no association worded like a cause, so "Coffee does not cause cancer" reads as causal.
Rewriting each causal training sentence's joining verb (the verb forms are data:
`rewrites.json`) gives the classifier pairs of sentences that differ only in what they
claim. Labels: a denial or an association is not causal, nor is a hedged association
("the spark may be linked to the fire": a possible correlation claims no cause); a hedged
claim keeps its label (SemEval calls "X may cause Y" Cause-Effect), and so does a reworded
one. SemEval joins its causal pairs mostly with "caused" (383 of its training sentences'
verbs between the two nominals, "led to" in none), so without the rewording the reader
learns the verb rather than the claim.

A rewrite stays in its source sentence's cross-fitting fold (`training.text_folds` joins
sentences that share a pair), and the held-out sentences are never rewritten (only
training examples reach `rewrite_examples`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from importlib import resources

from causalqa.discovery.corpora import NONE, RelationExample

__all__ = ["KINDS", "rewrite", "rewrite_examples"]

KINDS = ("negated", "denied", "hedged", "association", "hedged_association", "reworded")
"""The claims a rewrite can make; each names its rewrite's source suffix (`semeval-hedged`),
so a kind holds no hyphen (`lexical.family_of` splits the suffix off at the last one)."""


_AUXILIARY = re.compile(
    r"\b(?:has|have|had|will|would|can|could|may|might|must|should|shall|to|did|does|do|not|"
    r"never)\s+$",
    re.IGNORECASE,
)
"""A verb after one of these is already inside a verb phrase ("has caused", "to cause"):
rewriting it alone would not make a sentence, so such sentences are left out."""


@lru_cache(maxsize=1)
def _patterns() -> tuple[list[tuple[re.Pattern[str], str, dict[str, str]]], dict]:
    data = json.loads(resources.files("causalqa.discovery").joinpath("rewrites.json").read_text())
    be = "|".join(sorted((re.escape(b) for b in data["be"]), key=len, reverse=True))
    nouns = "|".join(re.escape(n) for n in data["nouns"])
    # "is the cause of", "was one of the main causes of": before the verbs, which would
    # read the noun "causes" as a verb
    out: list[tuple[re.Pattern[str], str, dict[str, str]]] = [
        (re.compile(rf"\b(?P<be>{be}) (?P<v>(?:\w+ ){{0,5}}?(?:{nouns}) of)\b", re.I), "noun", {})
    ]
    for v in data["verbs"]:
        forms = {k: re.escape(v[k]) for k in ("base", "s", "past", "participle")}
        # passive with its auxiliary: "is caused by", "has been triggered by"
        out.append((re.compile(rf"\b(?P<be>{be}) (?P<v>{forms['participle']}) by\b", re.I),
                    "passive", v))  # fmt: skip
        # reduced passive: "the damage caused by the storm"
        out.append((re.compile(rf"\b(?P<v>{forms['participle']}) by\b", re.I), "reduced", v))
        for form in ("s", "past", "base"):
            out.append((re.compile(rf"\b(?P<v>{forms[form]})\b(?! of\b)", re.I), form, v))
    return out, data


_BE_NUMBER = {"is": "present", "has": "present", "are": "plural", "have": "plural",
              "was": "past", "had": "past", "were": "past-plural"}  # fmt: skip
_ASSOCIATE = {"present": "is {}", "plural": "are {}", "past": "was {}", "past-plural": "were {}"}


def _pick(options: Sequence[str], sentence: str) -> str:
    """One of `options`, picked by the sentence rewritten: a rerun writes the same sentence,
    and one verb ("caused") is not always rewritten the same way."""
    return options[sum(map(ord, sentence)) % len(options)]


def _associate(tense: str, sentence: str, data) -> str:
    """An association phrase ("was linked to") in the tense and number of the verb it
    replaces."""
    return _ASSOCIATE[tense].format(_pick(data["associations"], sentence))


def _hedged_association(past: bool, sentence: str, data) -> str:
    """A possible association ("may be linked to", "might have been correlated with"): a
    modal takes every number, so only the tense is kept. A hedged cause draws its modal
    from the same list ("could lead to" stays causal), so the modal alone never tells the
    two apart: what is claimed is."""
    modal, phrase = _pick(data["modals"], sentence), _pick(data["associations"], sentence)
    return f"{modal} {'have been' if past else 'be'} {phrase}"


def _phrase(
    match: re.Match[str], kind: str, verb: dict[str, str], claim: str, sentence: str, data
) -> str | None:
    """The rewritten joining phrase for one match, or None when the claim cannot be
    written for it."""
    text = match.group(0)
    if kind in ("passive", "noun"):
        be = match.group("be")
        rest = text[len(be) :]
        first, _, more = be.partition(" ")
        tense = _BE_NUMBER.get(first.lower(), "present")
        past = tense.startswith("past") or (more and tense != "present")
        if claim == "negated":
            return f"{first} not{(' ' + more) if more else ''}{rest}"
        if claim == "hedged":
            modal = _pick(data["modals"], sentence)
            return f"{modal} have been{rest}" if past else f"{modal} be{rest}"
        if claim == "hedged_association":
            return _hedged_association(bool(past), sentence, data)
        if kind == "noun":
            return None  # "is associated with of" would not be a sentence
        return _associate(tense, sentence, data)
    if kind == "reduced":
        if claim == "hedged_association":
            return f"possibly {_pick(data['associations'], sentence)}"
        return {"negated": f"not {text}", "hedged": f"possibly {text}"}.get(
            claim, _pick(data["associations"], sentence)
        )
    if claim == "negated":  # "did not cause", "won't cause", "never caused"
        return _pick(data["negations"][kind], sentence).format(**verb)
    if claim == "hedged":
        modal = _pick(data["modals"], sentence)
        return f"{modal} have {verb['participle']}" if kind == "past" else f"{modal} {verb['base']}"
    if claim == "hedged_association":
        return _hedged_association(kind == "past", sentence, data)
    return _associate({"s": "present", "past": "past", "base": "plural"}[kind], sentence, data)


def _reworded(
    match: re.Match[str], kind: str, verb: dict[str, str], sentence: str, data
) -> str | None:
    """The joining phrase with its causal verb swapped for another that puts cause and
    effect in the same places ("caused" → "led to", "resulted from" → "stemmed from", "was
    caused by" → "was triggered by", "caused by" → "due to"); None for a noun ("is the
    cause of"). A verb that turned them ("caused" → "resulted from") would keep the
    sentence's grammar and make its claim absurd ("the asteroid resulted from the
    extinction")."""
    if kind == "noun":
        return None
    if kind in ("passive", "reduced"):  # each puts the effect first, as the verb it replaces
        own = f"{verb['participle']} by"
        phrase = _pick([p for p in data["passive_rewordings"] if p != own], sentence)
        return f"{match.group('be')} {phrase}" if kind == "passive" else phrase
    forms = {v["base"]: v for v in data["verbs"]}
    effect_first = set(data["effect_first"])
    same = [v for v in data["rewordings"] if v != verb["base"]
            and (v in effect_first) == (verb["base"] in effect_first)]  # fmt: skip
    return forms[_pick(same, sentence)][kind] if same else None


def rewrite(ex: RelationExample, claim: str) -> RelationExample | None:
    """`ex` (a causal example) with the verb that joins its two mentions rewritten to make
    `claim` (one of `KINDS`); None when no known causal verb joins them."""
    if claim not in KINDS:
        raise ValueError(f"unknown rewrite {claim!r}; one of {KINDS}")
    if ex.label == NONE:
        return None
    _, data = _patterns()
    found = _joining(ex)
    if found is None:
        return None
    m, kind, verb = found
    if claim == "denied":
        # a frame denies the sentence's main statement: only where a finite causal verb
        # joins the two ("the disease caused by the virus follows …" states something else)
        return _denied(ex, data) if kind in ("s", "past", "base", "passive") else None
    first, _ = sorted((ex.a, ex.b))
    label = ex.label if claim in ("hedged", "reworded") else NONE
    if claim == "reworded":
        new = _reworded(m, kind, verb, ex.text, data)
    else:
        new = _phrase(m, kind, verb, claim, ex.text, data)
    if new is None:
        return None
    if m.group(0)[:1].isupper():
        new = new[:1].upper() + new[1:]
    start, end = first[1] + m.start(), first[1] + m.end()
    text = ex.text[:start] + new + ex.text[end:]
    shift = len(new) - (end - start)

    def moved(span: tuple[int, int]) -> tuple[int, int]:
        return span if span[0] < start else (span[0] + shift, span[1] + shift)

    return replace(ex, text=text, a=moved(ex.a), b=moved(ex.b), label=label,
                   source=f"{ex.source}-{claim}", ref=ex.ref or ex.group)  # fmt: skip


def _joining(ex: RelationExample) -> tuple[re.Match[str], str, dict[str, str]] | None:
    """The first known causal verb between the two mentions (match, kind of form, verb),
    or None: none there, more than 12 words between them, or the verb already inside a
    verb phrase ("has caused", "to cause": rewriting it alone would not make a sentence)."""
    patterns, _ = _patterns()
    first, second = sorted((ex.a, ex.b))
    between = ex.text[first[1] : second[0]]
    if len(between.split()) > 12:
        return None
    for pattern, kind, verb in patterns:
        m = pattern.search(between)
        if m:
            return None if _AUXILIARY.search(between[: m.start()]) else (m, kind, verb)
    return None


def _denied(ex: RelationExample, data) -> RelationExample | None:
    """The whole sentence framed as denied ("There is no evidence that the spark caused the
    fire."), for a short sentence that is one statement (no semicolon, at most 20 words)."""
    text = ex.text.strip()
    if len(text.split()) > 20 or ";" in text or not text[:1].isalpha():
        return None
    frames = data["denials"]
    frame = _pick(frames, text)
    lead = text[:1].lower() if not text[1:2].isupper() else text[:1]  # keep "NASA", "I"
    new = f"{frame} {lead}{text[1:]}"
    shift = len(frame) + 1
    return replace(ex, text=new, a=(ex.a[0] + shift, ex.a[1] + shift),
                   b=(ex.b[0] + shift, ex.b[1] + shift), label=NONE,
                   source=f"{ex.source}-denied", ref=ex.ref or ex.group)  # fmt: skip


def rewrite_examples(
    examples: Iterable[RelationExample], claims: Sequence[str] = KINDS
) -> list[RelationExample]:
    """Every rewrite of every causal example of `examples` that applies (one per claim)."""
    out = []
    for ex in examples:
        for claim in claims:
            new = rewrite(ex, claim)
            if new is not None:
                out.append(new)
    return out
