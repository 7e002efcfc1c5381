"""Deterministic stories told in everyday English: "The pump runs if and only if the float
is up and the power is on. Last night the pump ran. Had the power been off, would the
pump have run?"

The CLadder reader (`parse`, `reader`) knows the generator's mechanism sentences ("A or
B causes C"); people state a mechanism with a connective instead — "if and only if",
"exactly when", "whenever", "only if", "unless", "requires", "is triggered by" — join its
conditions with "and", "or", "while", "but not", "neither … nor", tell what happened as
a narrative ("Yesterday the soil was dry, the tank had water and it did not rain") and ask
a counterfactual conditional ("If she had not finished the level, would she still have
earned the badge?"). This module reads those three by their grammar, not by a story's
words:

- a *clause* ("the float switch is raised") is a literal: its content words and its
  polarity (negation words, "fails to", an antonym of another clause's word);
- clauses are linked into variables by the content words they share (one clause's
  words inside another's, two words shared, or one and an antonym; a fact or the
  question may also take the variable holding half its words; ties are refused);
- a clause's value is read against the variable's clauses already read: the same words
  with the other polarity, or a common antonym, is the other value; one clause's words
  inside the other's is the same value; words that differ otherwise are not sure.

A mechanism is read as the whole story of its effect, as a word problem means it ("the
pump runs if the float is up" – and not otherwise). A mechanism or the question whose
clause is not sure is refused. A narrative fact that is not sure is left out and said so,
and the answer must then hold under every reading of it (each variable it shares words
with, at either value): a reading that changes the answer, or contradicts the story, makes
it a refusal.

`solve.answer` asks this reader when the rules cannot read a story, and shows its reading
and the answer it gives without giving it (`answer` None): on the stories of writers it
was not widened on its answers were not all right (bench/README.md).
"""

from __future__ import annotations

import copy
import itertools
import math
import re
import time
from dataclasses import dataclass, field

import networkx as nx

from causalqa.stated.compute import NotIdentified, counterfactual
from causalqa.stated.model import Mechanism, Observation, Query, StatedModel, Variable
from causalqa.stated.refusal import StoryRefusal
from causalqa.stated.resolve import polar_content
from causalqa.stated.result import StatedAnswer
from causalqa.stated.text import (
    PhraseWords,
    find_numbers,
    opposite_words,
    phrase_words,
    split_sentences,
    stem,
    stems_match,
)

__all__ = [
    "PLAIN_ROUTE",
    "Linker",
    "PlainStory",
    "answer_plain",
    "build_model",
    "counterfactual_query",
    "looks_deterministic",
    "read_counterfactual",
    "read_plain_story",
]

PLAIN_ROUTE = "plain mechanisms"
"""The route step of an answer read by this module."""


# -- clauses -------------------------------------------------------------------------------

# words that say when or how sure, not what: a clause keeps its variable without them
_FILLER = re.compile(
    r"\b(?:(?:last|this|that|next|each|every|on|one|in|during|at|by)\s+(?:the\s+)?(?:night|morning|"
    r"afternoon|evening|day|week|weekend|month|year|session|shift|time|game|trial|run|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|"
    r"august|september|october|november|december)|yesterday(?:'s)?|today(?:'s)?|tonight|"
    r"tomorrow|overnight|all\s+(?:day|night|morning|afternoon|evening|week)|(?:at\s+|around\s+|by\s+)?\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\d{1,2}:\d{2}|"
    r"still|also|actually|really|indeed|then|ever|already|just|even|anyway|"
    r"stay|stays|stayed|staying|remain|remains|remained|keep|keeps|kept|become|becomes|became|"
    r"happen|happens|happened|occur|occurs|occurred|would|will|have|has|had|been|being|be|"
    r"is|are|was|were|am|do|does|did|get|gets|got|gotten)\b",
    re.I,
)
# who did it is not what happened: "Priya finished the level" is "the player finishes
# the level"
_PERSON = re.compile(
    r"\b(?:he|she|they|we|i|you|it|him|her|them|us|someone|somebody|anyone|everyone|"
    r"the\s+(?:player|user|driver|operator|worker|owner|customer|pilot|person|man|woman|"
    r"child|kid|team|staff|employee|student|patient|applicant|guest|visitor|buyer|seller|"
    r"tenant|landlord|client|member|teacher|nurse|doctor|agent|defendant|plaintiff))\b(?:'s)?",
    re.I,
)
# "case" is a word of what happened here ("the display case"), not a population's
_KEEP = frozenset({stem("case")})
_FAIL_TO = re.compile(r"\b(?:fail(?:s|ed)?|refuse(?:s|d)?|neglect(?:s|ed)?)\s+to\b", re.I)


@dataclass(frozen=True)
class Clause:
    """What a clause says of one variable: its content words and whether it negates."""

    text: str
    content: frozenset[str]
    negated: bool
    written: tuple[tuple[str, str], ...]


def _letters(text: str) -> str:
    """'signal A', 'switch B': a one-letter name is a word of its own, not an article."""
    return re.sub(
        r"(?<=[a-z] )(?<!\bnot )(?<!\bif )(?<!\bwhen )(?<!\band )(?<!\bor )(?<!\bthat )(?<!\bbut )"
        r"([A-Z])\b(?!')",
        lambda m: f"letter{m.group(1).lower()}",
        text,
    )


def clause(text: str, sentence: str = "") -> Clause:
    """The clause `text` as a literal. Proper names inside `sentence` (capitalised words
    not opening it) name who, not what, and are left out."""
    t = _FAIL_TO.sub(" not ", _letters(text))
    t = re.sub(r"\b(?:been\s+)?(?:spared|escaped|avoided)(?:\s+from)?\b", " not ", t, flags=re.I)
    t = _PERSON.sub(" ", t)
    t = _FILLER.sub(" ", t)
    # short verbs keep their letters in `stem` ("runs" is not "run"): their -s goes here
    t = re.sub(r"\b([A-Za-z]{2,3}?)(?<![su])s\b", _short_plural, t)
    names = {w.lower() for w in re.findall(r"\b[A-Z][a-z]+\b", sentence or text)[1:]}
    names -= {w.lower() for w in re.findall(r"\b[a-z]+\b", sentence or text)}
    pw = phrase_words(t, keep=_KEEP)
    written = tuple((s, w) for s, w in pw.written if w not in names)
    content = frozenset(s for s, _ in written)
    return Clause(text.strip(), content, pw.negated, written)


def _short_plural(m: re.Match) -> str:
    word = m.group(0)
    irregular = stem(word) != word.lower()  # "goes" is "go" already
    return word if irregular or word.lower() in ("this", "has", "was", "is", "its") else m.group(1)


def _negate(text: str) -> str:
    return f"not {text}"


# -- mechanism sentences -------------------------------------------------------------------

# Connectives and what they say of the effect E and the condition C
_IFF = r"if\s+and\s+only\s+if|iff|exactly\s+when|precisely\s+when|just\s+when|exactly\s+if"
_ONLY = r"only\s+if|only\s+when|only\s+as\s+long\s+as"
_SUFF = (
    r"whenever|as\s+soon\s+as|as\s+long\s+as|so\s+long\s+as|provided\s+(?:that\s+)?|once|if|"
    r"when|while"
)
_UNLESS = r"unless|except\s+when|except\s+if"
_EFFECT_FIRST = re.compile(
    rf"^(?P<e>.+?)\s*,?\s+(?P<c>{_IFF}|{_ONLY}|{_UNLESS}|{_SUFF})\s+(?P<x>.+)$", re.I
)
_CONDITION_FIRST = re.compile(
    rf"^(?P<c>{_ONLY}|{_UNLESS}|{_SUFF})\s+(?P<x>.+?)\s*,\s*(?:then\s+)?(?P<e>.+)$", re.I
)
_REQUIRES = re.compile(
    r"^(?P<e>.+?)\s+(?:requires|require|needs|need|depends\s+on)\s+(?P<x>.+)$", re.I
)
_TRIGGERED = re.compile(
    r"^(?P<e>.+?)\s+(?:is|are|gets|get)\s+(?:only\s+)?(?:triggered|set\s+off|caused|activated|"
    r"switched\s+on|turned\s+on|started|brought\s+about)\s+(?:only\s+)?by\s+(?P<x>.+)$",
    re.I,
)
_TRIGGERS = re.compile(
    # the verb's third person only: "the trigger was pressed" names a trigger
    r"^(?P<x>.+?)(?<!\bthe)(?<!\ba)\s+(?:triggers|sets\s+off|activates|brings\s+about|leads\s+to|"
    r"results\s+in)\s+(?P<e>.+)$",
    re.I,
)
_WITHOUT = re.compile(r"^(?:without|no)\s+(?P<x>.+?)\s*,\s*(?:there\s+is\s+)?no\s+(?P<e>.+)$", re.I)
# what says a mechanism is the whole story of its effect
_CLOSURE = re.compile(
    r"\bnothing\s+else\b|\bno\s+other\b|\bonly\s+then\b|\botherwise\b|\bin\s+(?:every|all|any)\s+"
    r"other\s+cases?\b|\bnever\s+otherwise\b|\bor\s+else\b|^(?:and\s+)?only\s+(?:by|then|that)\b|"
    r"^(?:and\s+)?(?:nothing|no\s+one|none)\s+else\b|\bat\s+no\s+other\s+time\b",
    re.I,
)
# "if either is missing, nothing goes up", "with neither, it doesn't start": the other
# value, which the mechanism already says
_COMPLEMENT = re.compile(
    r"^(?:and\s+)?(?:if|when|with|without)\s+(?:either|any|one|neither|none|both)\b(?:\s+\w+){0,4}?"
    r"\s*(?:is\s+)?(?:missing|fails?|absent|lacking|off|not\b.*)?\s*,"
    r"|^(?:and\s+)?(?:if|when|whenever)\s+(?:not|(?:it|they|that|this|he|she)\s+(?:doesn't|don't|isn't|"
    r"aren't|does\s+not|is\s+not|won't|hasn't|didn't|can't))\s*,",
    re.I,
)
# remarks on a mechanism ("either one is enough", "both are needed"): not clauses
_REMARK = re.compile(
    r"^(?:and\s+|but\s+)?(?:either(?:\s+one)?|any(?:\s+one)?|one|both(?:\s+conditions)?|"
    r"each|all|neither|nothing\s+else|no\s+other|only\s+then|otherwise|the\s+two|they|it)\b"
    r".*\b(?:enough|suffices?|sufficient|needed|necessary|required|independent|will\s+do|"
    r"(?:needs?|takes?)\s+(?:both|all|them|it|either|each))\b",
    re.I,
)
# "and then it always runs", "with both it flowers", "together they always bring it on":
# the condition is also enough, which the mechanism already says
_ALSO_ENOUGH = re.compile(
    r"^(?:and\s+)?(?:then\b.*\balways\b|(?:with|if|when|once)\s+(?:both|all|either|they|those|"
    r"these|them|the\s+\w+\s+up)\b|together\b|(?:it|they)\s+always\b)",
    re.I,
)
# "when both hold it lifts", "with both it flowers": a condition that only points back
_ANAPHORIC_CONDITION = re.compile(
    r"^(?:and\s+)?(?:with|if|when|once)\s+(?:both|all|either|they|those|these|them)\b", re.I
)
# "… and falls silent the moment it doesn't": the other value, which the mechanism says
_OTHER_VALUE = re.compile(
    r"\b(?:it|they|that|this|one)\s+(?:doesn't|don't|isn't|aren't|does\s+not|do\s+not|is\s+not|"
    r"are\s+not|won't|can't|hasn't|haven't)$",
    re.I,
)
_FRAMING = re.compile(
    r"^(?:.*\bso\s+that\s+|we\s+know\s+that\s+|note\s+that\s+|the\s+rule\s+is\s+(?:that\s+)?|"
    r"by\s+design,?\s+|in\s+short,?\s+|here\s+is\s+how\s+it\s+works\s*:?\s*)",
    re.I,
)


@dataclass
class Rule:
    """One mechanism sentence: the effect clause, what the connective says ("iff", "if":
    the condition is enough, "only if": the condition is needed), the condition as
    clauses joined by `op`, and clauses that must hold besides ("… unless L")."""

    effect: str
    says: str
    op: str
    inputs: list[str]
    requires: list[str]
    sentence: str


@dataclass
class PlainStory:
    rules: list[Rule] = field(default_factory=list)
    facts: list[tuple[str, str]] = field(default_factory=list)  # (clause, sentence)
    # what is neither a mechanism nor told as what happened ("the fan is off now")
    unread: list[tuple[str, str]] = field(default_factory=list)


def _strip_parentheses(s: str) -> tuple[str, list[str]]:
    inner = re.findall(r"\(([^()]*)\)", s)
    return re.sub(r"\s*\([^()]*\)", "", s), inner


_ANAPHORA = re.compile(
    r"^(?:neither|none|either)\s+(?:has|have|does|do|is|are|did|was|were)$|"
    r"^(?:(?:both|all|each|either|any|one|none|neither)\s+(?:of\s+)?)?(?:those|these|them|they|it|"
    r"the\s+two|both)\s*(?:conditions?\s+)?(?:holds?|do|does|are\s+met|is\s+met|apply|applies)?$",
    re.I,
)
_AUX = (
    r"(?:is|are|was|were|be|been|has|have|had|does|do|did|can|will|would|isn't|aren't|wasn't|"
    r"weren't)"
)
_GROUP = re.compile(
    r"\b(?:at\s+least\s+one\s+of|any\s+one\s+of|any\s+of|either\s+of|one\s+of)\s+(?P<g>.+?)"
    rf"(?P<tail>\s+{_AUX}\s+.+?)?(?=\s*,|\s+and\s+(?!\S+\s+{_AUX}\b)|$)",
    re.I,
)


def _condition(text: str, sentence: str) -> tuple[str, list[str], list[str]]:
    """'A and B', 'either A or B', 'A while B', 'A but not B', 'neither A nor B', 'A, unless
    L', 'A and at least one of B and C is closed' -> (op, inputs, requires): the effect
    holds when the inputs combine under `op` and every one of `requires` holds."""
    t = text.strip().rstrip(".!")
    requires: list[str] = []
    m = re.search(r"\s*,?\s+(?:unless|except\s+when|except\s+if)\s+(.+)$", t, flags=re.I)
    if m:
        # "A, unless L or M": A and not L and not M; "unless L and M" does not split so
        if re.search(r"\band\b", m.group(1), flags=re.I):
            raise StoryRefusal("a condition says 'unless' of two things at once", sentence)
        requires = [_negate(p) for p in _split(m.group(1), "or", sentence)]
        t = t[: m.start()]
    m = re.search(
        r"\s*,?\s+(?:provided|providing|as\s+long\s+as|so\s+long\s+as)\s+(?:that\s+)?(.+)$",
        t,
        flags=re.I,
    )
    if m:
        # "A, provided L": A, and L must hold
        if re.search(r"\bor\b", m.group(1), flags=re.I):
            raise StoryRefusal("a condition says 'provided' of two things at once", sentence)
        requires += _split(m.group(1), "and", sentence)
        t = t[: m.start()]
    g = _GROUP.search(t)
    if g:
        # "S1 is closed and at least one of S2 and S3 is closed": the group is the 'or'
        tail = g.group("tail") or ""
        inner = [
            p + (tail if not re.search(rf"\b{_AUX}\b", p, re.I) else "")
            for p in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", g.group("g"))
            if p.strip()
        ]
        rest = (t[: g.start()] + " " + t[g.end() :]).strip()
        rest = re.sub(r"^(?:and|,)\s*|\s*(?:and|,)$", "", rest.strip(), flags=re.I).strip()
        if rest:
            if re.search(r"\bor\b", rest, flags=re.I):
                raise StoryRefusal(
                    "a condition joins clauses with both 'and' and 'or', which the words do not "
                    "group",
                    sentence,
                )
            requires += _split(rest, "and", sentence)
        return "or", inner, requires
    m = re.fullmatch(r"neither\s+(.+?)\s+nor\s+(.+)", t, flags=re.I)
    if m:
        return "and", [_negate(m.group(1)), _negate(m.group(2))], requires
    t = re.sub(r"^(?:either|both)\s+", "", t, flags=re.I)
    t = re.sub(r"\s+but\s+not\s+", " and not ", t, flags=re.I)
    t = re.sub(r"\s+(?:while|whilst|but)\s+", " and ", t, flags=re.I)
    has_or = re.search(r"\bor\b", t, flags=re.I)
    has_and = re.search(r"\band\b", t, flags=re.I)
    if has_or and has_and:
        raise StoryRefusal(
            "a condition joins clauses with both 'and' and 'or', which the words do not group",
            sentence,
        )
    op = "or" if has_or else "and"
    return op, _split(t, op, sentence), requires


def _restates(piece: str) -> bool:
    """Whether a piece of a rule's sentence only says again what its mechanism says:
    the other value ("… and stay cold when it doesn't", "if either is missing, …"), that
    nothing else does it, that the condition is enough or needed, or it points back."""
    p = piece.strip()
    return bool(
        _OTHER_VALUE.search(p)
        or _COMPLEMENT.match(p)
        or _REMARK.match(p)
        or _CLOSURE.search(p)
        or _ANAPHORA.match(p)
        or _ALSO_ENOUGH.match(p)
    )


def _split(text: str, op: str, sentence: str) -> list[str]:
    """The clauses of a list; a remark in it ("and at no other time") is left out, a
    clause that leaves out its verb borrows it ("the NaOH was added and the acid was
    not"; "S2 and S3 are closed")."""
    parts = re.split(rf"\s*,\s*(?:{op}\s+)?|\s+{op}\s+", text, flags=re.I)
    parts = [p.strip() for p in parts if p and p.strip()]
    parts = [p for p in parts if not _restates(p)]
    if not parts:
        raise StoryRefusal("a condition names nothing", sentence)
    # "when the detector trips or when the fuse melts": the connective said again
    parts = [
        re.sub(r"^(?:when|whenever|if)\s+", "", p, flags=re.I) if i else p
        for i, p in enumerate(parts)
    ]
    for p in parts:
        if re.search(r"\b(?:if|when|whenever|unless|only)\b", p, re.I):
            raise StoryRefusal("a sentence joins mechanisms the reader cannot tell apart", sentence)
    first = re.match(rf"^(?P<subj>.+?)\s+(?P<aux>{_AUX})\s+(?P<pred>.+)$", parts[0], re.I)
    last = re.match(r"^(?P<subj>.+?)\s+(?P<aux>are|were)\s+(?P<pred>.+)$", parts[-1], re.I)
    out = []
    for p in parts:
        short = re.fullmatch(rf"(?P<subj>.+?)\s+(?P<aux>{_AUX})(?:\s+not|n't)?", p, re.I)
        if short and first and p is not parts[0]:
            # "the acid was not": the first clause's predicate, negated as written
            neg = " not" if re.search(r"\bnot$|n't$", p, re.I) else ""
            p = f"{short.group('subj')} {short.group('aux')}{neg} {first.group('pred')}"
        elif (
            last
            and p is not parts[-1]
            and not re.search(rf"\b{_AUX}\b", p, re.I)
            and len(p.split()) <= 3
        ):
            p = f"{p} {last.group('aux')} {last.group('pred')}"
        out.append(p)
    return out


def _unless(effect: str, text: str, sentence: str) -> list[Rule]:
    """'E unless C': the other value of E exactly when C."""
    op, inputs, requires = _condition(text, sentence)
    return [Rule(_negate(effect), "iff", op, inputs, requires, sentence)]


_WITHOUT_FIRST = re.compile(r"^without\s+(?P<x>.+?)\s*,\s*(?P<e>.+)$", re.I)


def _rules(part: str, sentence: str) -> list[Rule]:
    part = _FRAMING.sub("", part.strip()).strip()
    # "Under the rule the judge applied, evidence is admitted unless …": a setting first
    part = re.sub(
        r"^(?:in|under|at|on|for|during|by|after|before)\s+[^,]{1,60},\s*", "", part, flags=re.I
    )
    if _ANAPHORA.match(part) or _ANAPHORIC_CONDITION.match(part):
        return []
    for pat, says in ((_REQUIRES, "only if"), (_TRIGGERED, "iff"), (_WITHOUT, "only if")):
        m = pat.match(part)
        if m:
            op, inputs, requires = _condition(m.group("x"), sentence)
            return [Rule(m.group("e").strip(), says, op, inputs, requires, sentence)]
    m = _WITHOUT_FIRST.match(part)
    if m:
        # "without the cold, FLC stays on": the effect's value whenever the thing is absent
        return [Rule(m.group("e").strip(), "if", "and", [_negate(m.group("x"))], [], sentence)]
    m = _CONDITION_FIRST.match(part) or _EFFECT_FIRST.match(part)
    if m:
        conn = re.sub(r"\s+", " ", m.group("c").lower())
        effect = m.group("e").strip()
        if not effect or _ANAPHORA.match(m.group("x").strip()):
            return []
        if re.search(r"\b(?:if|when|whenever|unless)\b", effect, re.I):
            # "when the grid is down, it runs only if the battery charged": one condition
            # inside another
            raise StoryRefusal("a sentence puts one condition inside another", sentence)
        if re.match(_UNLESS, conn):
            return _unless(effect, m.group("x"), sentence)
        op, inputs, requires = _condition(m.group("x"), sentence)
        says = "iff" if re.fullmatch(_IFF, conn) else "only if" if conn.startswith("only") else "if"
        if says == "if" and re.search(r"\bonly\b", effect, re.I):
            # "it only ships when CI is green": only when
            says, effect = "only if", re.sub(r"\s*\bonly\b", "", effect, flags=re.I)
        return [Rule(effect, says, op, inputs, requires, sentence)]
    m = _TRIGGERS.match(part)
    if m:
        op, inputs, requires = _condition(m.group("x"), sentence)
        return [Rule(m.group("e").strip(), "iff", op, inputs, requires, sentence)]
    return []


_PRONOUN_EFFECT = re.compile(r"(?:(?:it|they|this|that)(?:\s+(?:also|then|too))?|also|too)", re.I)


def _rules_of(part: str, sentence: str) -> list[Rule] | None:
    """The rules of one part of a sentence; two rules joined by ", and" ("… only if the
    marble rolls into it, and it always falls when the marble rolls") are read apart when
    each half is a rule or a remark on one."""
    pieces = re.split(r",\s+and\s+|\s+and\s+(?=(?:it|they|this|also)\s+)", part)
    if len(pieces) > 1:
        read = []
        for piece in pieces:
            if _restates(piece):
                continue
            rules = _rules(piece, sentence)
            if not rules:
                break
            for r in rules:
                if read and _PRONOUN_EFFECT.fullmatch(r.effect):
                    # "… only if it reaches 118 C, and it also requires warm cream"
                    r.effect = read[0].effect
            read.extend(rules)
        else:
            if read:
                return read
    rules = _rules(part, sentence)
    return rules or None


_PAST = re.compile(
    r"\b(?:was|were|did|didn't|had|hadn't|wasn't|weren't|got)\b|(?<!\bis\s)(?<!\bare\s)(?<!\bbe\s)"
    r"(?<!\bam\s)(?<!\bgets\s)\b\w{3,}ed\b|\b(?:ran|rang|fell|went|came|drew|drove|won|lost|left|"
    r"kept|made|took|gave|sold|bought|found|saw|broke|froze|flew|grew|held|lit|blew|"
    r"bit|struck|sat|stood|threw|began|rose|sank|spun)\b|^\d{1,2}:\d{2}\b",
    re.I,
)
# "bent coins are always rejected" is a rule, not what happened ("the fan never ran" is)
_GENERAL = re.compile(r"\b(?:always|every|any|whenever)\b", re.I)


def _symbols(sentence: str) -> str:
    """A log line's notation in words: '&&', '||', '!x', 'x=0', 'snake_case'."""
    s = re.sub(r"\[[^\]]*\]\s*", "", sentence)
    s = re.sub(r"\s*&&\s*", " and ", s)
    s = re.sub(r"\s*\|\|\s*", " or ", s)
    s = re.sub(r"(?<![\w!])!(?=\w)", "not ", s)
    s = re.sub(r"\b([A-Za-z][\w]*)\s*=\s*0\b", r"not \1", s)
    s = re.sub(r"\b([A-Za-z][\w]*)\s*=\s*1\b", r"\1", s)
    return re.sub(r"(?<=[A-Za-z])_(?=[A-Za-z])", " ", s)


def read_plain_story(story: str) -> PlainStory:
    """The mechanisms and the facts of a deterministic story. Raises `StoryRefusal` when a
    sentence states a mechanism whose parts cannot be grouped. A sentence that is neither
    a mechanism nor told in the past tense (what happened) is left out."""
    out = PlainStory()
    for sentence in split_sentences(story):
        s, _ = _strip_parentheses(_symbols(sentence))
        # a remark after a dash ("- either one is enough") is not part of the condition
        s = re.split(r"\s+[-–—]+\s+", s)[0]
        s = s.strip().rstrip(".!")
        if not s or s.endswith("?"):
            continue
        # "Design doc: …", "the pump is wired to the panel: it runs only when …": a
        # heading or a setting, then what it says
        # "needs both things: a paid ticket and a car on the plate": the list is the object
        s = re.sub(
            r"\s+(?:both|all|two|three|these|the\s+following)(?:\s+(?:things|conditions|of\s+these))?\s*:\s+",
            " ",
            s,
            flags=re.I,
        )
        heading, colon, _ = s.partition(": ")
        parts = [p for p in re.split(r"\s*;\s*|:\s+", s) if p]
        for n, part in enumerate(parts):
            p = part.strip()
            if n == 0 and colon and len(heading.split()) <= 6 and not _PAST.search(heading):
                continue  # "Lab 3 interlock:", "[ops] compressor C2:": a heading
            rules = _rules_of(part, sentence)
            if rules:
                out.rules.extend(rules)
                continue
            if _CLOSURE.search(p) or _COMPLEMENT.match(p):
                continue
            if _REMARK.match(p) or re.match(
                r"^(?:and\s+)?(?:otherwise|else|only\s+then|(?:nothing|nobody|no\s+one|none)\s+else|"
                r"no\s+other)\b",
                p,
                re.I,
            ):
                continue
            if rules is not None:
                continue  # read as a rule that restates another ("when both hold, it lifts")
            if _PAST.search(p) and not _GENERAL.search(p):
                out.facts.extend(
                    (f.strip(), sentence)
                    for f in re.split(
                        r"\s*,\s*(?:and\s+|but\s+)?|\s+(?:and|but|because|since|so|though|although)\s+",
                        p,
                    )
                    if f.strip()
                )
            else:
                out.unread.append((p, sentence))
    return out


# -- the question --------------------------------------------------------------------------

_COUNTERFACTUAL = (
    re.compile(
        r"^(?:had|if|suppose|supposing|imagine|say)\s+(?P<a>.+?)\s*(?:[,;:—–-]+|\.)\s*(?:then\s+)?"
        r"(?P<w>would|will)\s+(?P<c>.+)$",
        re.I,
    ),
    re.compile(r"^(?P<w>would|will)\s+(?P<c>.+?)\s+(?:if|had|in\s+case)\s+(?P<a>.+)$", re.I),
    re.compile(r"^(?P<w>would|will)\s+(?P<c>.+?)\s+(?P<wo>without)\s+(?P<a>.+)$", re.I),
)


def read_counterfactual(question: str) -> tuple[list[str], str] | None:
    """'Had A, would C?', 'If A had not …, would C still …?', 'Would C if A had …?',
    'Would C without A?', 'Suppose A — would C?' -> (antecedent clauses, consequent)."""
    q = question.strip().rstrip("?").strip()
    q = re.sub(r"^(?:and|so|then|now|ok|okay),?\s+", "", q, flags=re.I)
    for pat in _COUNTERFACTUAL:
        m = pat.match(q)
        if not m:
            continue
        a = m.group("a").strip()
        if "wo" in m.groupdict() and m.group("wo"):
            a = _negate(a)
        a = re.sub(r"^(?:instead\s+)?(?:that\s+)?", "", a, flags=re.I)
        a = re.sub(r"\s+instead$", "", a, flags=re.I)
        try:
            parts = _split(a, "and", question)
        except StoryRefusal:
            return None  # "if it had not been night-time": no clause left to change
        return parts, m.group("c").strip()
    return None


# -- variables -----------------------------------------------------------------------------


class NotSure(Exception):
    """The words do not tell which variable or which value a clause names."""


@dataclass
class _Var:
    key: str
    clauses: list[tuple[Clause, int]] = field(default_factory=list)

    @property
    def words(self) -> frozenset[str]:
        return frozenset(w for c, _ in self.clauses for w in c.content)


def _shared(a: frozenset[str], b: frozenset[str]) -> int:
    return sum(1 for x in a if any(stems_match(x, y) for y in b))


@dataclass(frozen=True)
class _Difference:
    """Two clauses read against each other: the words only each says, and whether each
    negates ("unbroken" read against "broken" is "broken", negated)."""

    only_a: frozenset[str]
    only_b: frozenset[str]
    shared: int
    negated_a: bool
    negated_b: bool


def _difference(c: Clause, other: Clause) -> _Difference:
    ca, na = polar_content(_as_words(c), other.content)
    cb, nb = polar_content(_as_words(other), c.content)
    only_a = frozenset(x for x in ca if not any(stems_match(x, y) for y in cb))
    only_b = frozenset(y for y in cb if not any(stems_match(y, x) for x in ca))
    return _Difference(only_a, only_b, len(ca) - len(only_a), na, nb)


def _strongly_related(c: Clause, other: Clause) -> bool:
    """Whether two clauses speak of one variable: one's words inside the other's, two
    words shared, or one shared and an antonym between the rest."""
    d = _difference(c, other)
    if not d.shared:
        return False
    if not d.only_a or not d.only_b or d.shared >= 2:
        return True
    return opposite_words(d.only_a, d.only_b)


def _without_place(text: str) -> str:
    """A clause without its last 'in/at/on/for …' phrase ("FLC stayed on in plant 22")."""
    return re.sub(
        r"\s+(?:in|at|on|for|during|inside|outside)\s+[^,]+$", "", text.strip(), flags=re.I
    )


def _no_more_than(c: Clause, other: Clause) -> bool:
    """Whether `c` says nothing `other` does not, but for a negation or an antonym ("the
    pump ran" of "the sump pump runs"; "the case stayed shut" of "the case is opened")."""
    d = _difference(c, other)
    return not d.only_a or (len(d.only_a) == 1 and opposite_words(d.only_a, d.only_b))


def _value_against(c: Clause, other: Clause, other_value: int) -> int | None:
    """The value `c` names, read against a clause of known value; None when not sure."""
    d = _difference(c, other)
    only_a, only_b, na, nb = d.only_a, d.only_b, d.negated_a, d.negated_b
    if opposite_words(only_a, only_b):
        return other_value if na != nb else 1 - other_value
    if only_a and only_b:
        return None
    if (only_a | only_b) & _OPPOSED_TO_GENERIC:
        # "lands in the box" / "lands outside the box": a word with an opposite on one
        # side only may be the whole difference
        return None
    return other_value if na == nb else 1 - other_value


# words whose opposite is a word every clause drops ("in", "on"): "lands outside the box"
# and "lands in the box" differ by one word on one side only
_OPPOSED_TO_GENERIC = frozenset(
    stem(w) for w in "outside out under below above over after before inside behind beneath".split()
)


def _as_words(c: Clause) -> PhraseWords:
    return PhraseWords(c.text, c.content, c.negated, (), c.written)


class Linker:
    """Clauses into variables: each clause to the variable it shares most words with."""

    def __init__(self) -> None:
        self.vars: list[_Var] = []
        self.unsure: list[tuple[str, str, list[str]]] = []
        self.loose: list[Observation] = []

    def sharing(self, text: str, sentence: str) -> list[str]:
        """The variables `text` shares a word with."""
        c = clause(text, sentence)
        return [v.key for v in self.vars if _shared(c.content, v.words)]

    def link(self, text: str, sentence: str, *, create: bool) -> tuple[str, int]:
        """The variable and value `text` names (see `_link`)."""
        key, value, _ = self._link(text, sentence, create=create)
        return key, value

    def link_fact(self, text: str, sentence: str) -> tuple[str, int, bool]:
        """The variable and value a fact names, and whether it says more than any clause
        of its variable ("the back door was opened" / "the door is opened"): it may then
        speak of something else, and the answer must hold without it too."""
        return self._link(text, sentence, create=False, one_variable=True)

    def _link(
        self, text: str, sentence: str, *, create: bool, one_variable: bool = False
    ) -> tuple[str, int, bool]:
        """The variable and value `text` names. A clause of a mechanism (`create`) names
        a variable already read when it says what one of its clauses says, with words
        added or an antonym ("the pump runs" / "it runs"; "the drawbridge is raised" /
        "the drawbridge stays down") or shares two words with it; else it is a new one.
        A fact or the question may also name the variable that holds half its words
        ("the pump ran in the storm"), and names nothing new; with `one_variable` (a
        fact), a clause with words of a second variable is not sure."""
        c = clause(text, sentence)
        if not c.content:
            raise NotSure(f"'{text}' names nothing the reader can link")
        scored = []
        for v in self.vars:
            strong = any(_strongly_related(c, o) for o, _ in v.clauses)
            shared = _shared(c.content, v.words)
            if strong or (not create and shared and 2 * shared >= len(c.content)):
                union = len(c.content) + len(v.words) - shared
                scored.append((strong, shared, shared / union, v))
        if (
            not scored
            and not create
            and (read := self._without_place(text, sentence, one_variable))
        ):
            return read
        if not scored:
            if not create:
                raise NotSure(f"'{text}' speaks of nothing the mechanisms name")
            return self._new_variable(c)
        scored.sort(key=lambda t: t[:3], reverse=True)
        if len(scored) > 1 and scored[1][:3] == scored[0][:3]:
            raise NotSure(f"'{text}' could name {scored[0][3].key} or {scored[1][3].key}")
        var = scored[0][3]
        says_more = one_variable and not any(_no_more_than(c, o) for o, _ in var.clauses)
        if one_variable:
            rest = frozenset(
                w
                for w in c.content
                if not any(stems_match(w, x) for x in var.words)
                and not opposite_words(frozenset({w}), var.words)  # a value word of its own
            )
            other = next((v for v in self.vars if v is not var and _shared(rest, v.words)), None)
            if other is not None:
                # "the vent stayed shut though the lock was off": words of two variables
                raise NotSure(f"'{text}' speaks of {var.key} and of {other.key}")
        values = {_value_against(c, o, ov) for o, ov in var.clauses}
        if (
            not create
            and len(values - {None}) != 1
            and (read := self._without_place(text, sentence, one_variable))
        ):
            return read
        if not create:
            # a clause said in other words than one of the variable's (None) does not
            # count against the clauses it can be read against
            values -= {None} if len(values - {None}) == 1 else set()
        if (None in values or len(values) != 1) and create and len(scored) == 1:
            # "the last domino falls" beside "the first domino falls": words on both
            # sides that are not opposites name another variable
            return self._new_variable(c)
        if None in values or len(values) != 1:
            raise NotSure(f"the words do not tell which value of {var.key} '{text}' names")
        (value,) = values
        var.clauses.append((c, value))
        return var.key, value, says_more

    def _new_variable(self, c: Clause) -> tuple[str, int, bool]:
        var = _Var(self._key(c))
        var.clauses.append((c, 0 if c.negated else 1))
        self.vars.append(var)
        return var.key, 0 if c.negated else 1, False

    def _without_place(
        self, text: str, sentence: str, one_variable: bool
    ) -> tuple[str, int, bool] | None:
        """The reading of `text` without its last 'in/at/on …' phrase, if that one reads."""
        cut = _without_place(text)
        if cut == text:
            return None
        try:
            return self._link(cut, sentence, create=False, one_variable=one_variable)
        except NotSure:
            return None

    def _key(self, c: Clause) -> str:
        words = [w for _, w in c.written if w.lower() not in ("not", "no")]
        key = " ".join(words) or c.text
        while key in {v.key for v in self.vars}:
            key += "'"
        return key


# -- the model -----------------------------------------------------------------------------


def build_model(story: str, plain: PlainStory) -> tuple[StatedModel, Linker]:
    """Variables, mechanisms and observations of a story read by `read_plain_story`; the
    facts left out, with the variables each shares words with, are in `linker.unsure`."""
    if not plain.rules:
        raise StoryRefusal("the story states no mechanism")
    linker = Linker()
    model = StatedModel(route=[PLAIN_ROUTE])
    model.story = story

    def link(text: str, sentence: str) -> tuple[str, int]:
        try:
            return linker.link(text, sentence, create=True)
        except NotSure as e:
            raise StoryRefusal(str(e), sentence) from None

    by_effect: dict[tuple[str, int], list[tuple[Rule, list, list]]] = {}
    order: list[tuple[str, int]] = []
    for r in plain.rules:
        effect = link(r.effect, r.sentence)
        inputs = [link(i, r.sentence) for i in r.inputs]
        requires = [link(i, r.sentence) for i in r.requires]
        if effect not in by_effect:
            order.append(effect)
        by_effect.setdefault(effect, []).append((r, inputs, requires))
    kept: dict[str, Mechanism] = {}
    for var, value in order:
        m = _mechanism(var, value, by_effect[(var, value)])
        if var in kept:
            # "without the cold, FLC stays on" after "FLC is off exactly when it was cold":
            # the same mechanism told from its other value, or two that disagree
            if not _complement(kept[var], m):
                raise StoryRefusal(
                    f"two mechanisms are stated for {var} that do not say the same",
                    m.sentence,
                )
            continue
        kept[var] = m
        model.mechanisms.append(m)
    for key in (v.key for v in linker.vars):
        model.variables[key] = Variable(name=key)
    for m in model.mechanisms:
        for i, _ in m.inputs + m.requires:
            if (i, m.effect) not in model.edges:
                model.edges.append((i, m.effect))
    graph = nx.DiGraph(model.edges)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = nx.find_cycle(graph)
        sentence = next(m.sentence for m in model.mechanisms if m.effect == cycle[-1][1])
        raise StoryRefusal(
            f"the mechanisms go round in a cycle ({' -> '.join(a for a, _ in cycle)} -> …)",
            sentence,
        )
    unsure: list[tuple[str, str, list[str]]] = []
    loose: list[Observation] = []
    for fact, sentence in plain.facts:
        try:
            var, value, says_more = linker.link_fact(fact, sentence)
        except NotSure as e:
            model.notes.append(f"a fact left out ({e}): “{sentence}”")
            unsure.append((fact, sentence, linker.sharing(fact, sentence)))
            continue
        model.observations.append(Observation(var, value, sentence))
        if says_more:
            model.notes.append(f"a fact read that says more than its variable: “{fact}”")
            loose.append(model.observations[-1])
    for v in linker.vars:  # the phrases of each value, the facts' too
        for c, val in v.clauses:
            if c.text not in model.variables[v.key].phrases[val]:
                model.variables[v.key].phrases[val].append(c.text)
    seen: dict[str, Observation] = {}
    for o in model.observations:
        if o.variable in seen and seen[o.variable].value != o.value:
            raise StoryRefusal(f"the facts give {o.variable} both values", o.sentence)
        seen[o.variable] = o
    for text, sentence in plain.unread:
        # a sentence not read may still say something of a variable (and contradict the
        # story): the answer must hold under every reading of it
        if sharing := linker.sharing(text, sentence):
            model.notes.append(f"a sentence not read: “{sentence}”")
            unsure.append((text, sentence, sharing))
    linker.unsure = unsure
    linker.loose = loose
    return model, linker


def _complement(a: Mechanism, b: Mechanism) -> bool:
    """Whether `b` says `a` from the other value: the other effect value exactly when
    `a`'s condition fails (one input, or "and" against "or" of the opposites)."""
    if a.effect_value == b.effect_value or a.requires or b.requires:
        return False
    flipped = sorted((v, 1 - x) for v, x in a.inputs)
    if sorted(b.inputs) != flipped:
        return False
    return len(a.inputs) == 1 or a.op != b.op


def _check_lonely_roots(model: StatedModel, linker: Linker) -> None:
    """A variable said once in the story (the question not counted) — a root, or an
    effect nothing uses — in words it shares with another variable ("the light curtain
    is unbroken" beside "the curtain is broken") is most likely that variable in other
    words; read as a variable of its own, the facts would fix it by abduction and answer
    for the wrong reason, so the story is refused."""
    explained = {m.effect: m for m in model.mechanisms}
    used = {i for m in model.mechanisms for i, _ in m.inputs + m.requires}
    for v in linker.vars:
        # said once: a root, or an effect nothing uses ("the backup job is started"
        # beside "the backup job is running", which would hide a cycle)
        if len(v.clauses) > 1 or (v.key in explained and v.key in used):
            continue
        root = v.key not in explained
        for other in linker.vars:
            if other is v:
                continue
            # a root that shares a word; an effect nothing uses that says what a root says
            # (two words shared, or inside it): two mechanisms for one variable would not
            # be written, so an explained one is another variable ("the back alarm sounds")
            alike = (
                _shared(v.words, other.words)
                if root
                else other.key not in explained
                and any(_strongly_related(c, o) for c, _ in v.clauses for o, _ in other.clauses)
            )
            if alike:
                raise StoryRefusal(
                    f"'{v.clauses[0][0].text}' is said once and shares words with "
                    f"'{other.clauses[0][0].text}': one variable in other words, or two?",
                    explained[v.key].sentence
                    if v.key in explained
                    else next(
                        m.sentence
                        for m in model.mechanisms
                        if v.key in {i for i, _ in m.inputs + m.requires}
                    ),
                )


def _mechanism(var: str, value: int, stated: list) -> Mechanism:
    """One variable's mechanism from its sentences: an "iff" sentence is the whole of
    it; sentences saying what is enough are joined by "or", what is needed by "and"."""
    iff = [s for s in stated if s[0].says == "iff"]
    enough = [s for s in stated if s[0].says == "if"]
    needed = [s for s in stated if s[0].says == "only if"]
    sentence = stated[0][0].sentence
    if iff:
        # "… exactly when the key is turned; without the key, no start": said again
        same = [s for s in stated if (s[0].op, s[1], s[2]) == (iff[0][0].op, iff[0][1], iff[0][2])]
        if len(same) == len(stated):
            iff, enough, needed = iff[:1], [], []
    if len(iff) > 1 or (iff and (enough or needed)):
        raise StoryRefusal(f"two mechanisms are stated for {var}", stated[1][0].sentence)
    if iff:
        r, inputs, requires = iff[0]
        return Mechanism(var, value, r.op, inputs, r.sentence, requires=requires)
    if (
        len(enough) == len(needed) == 1
        and enough[0][1:] == needed[0][1:]
        and enough[0][0].op == needed[0][0].op
    ):
        # "falls only if the marble rolls, and always falls when it rolls": exactly when
        r, inputs, requires = enough[0]
        return Mechanism(var, value, r.op, inputs, r.sentence, requires=requires)
    if enough and needed:
        raise StoryRefusal(
            f"what is enough and what is needed for {var} are stated apart, and the words do "
            "not say they are the same",
            needed[0][0].sentence,
        )
    if len(enough) > 1:
        if any(r.op != "and" or len(i) != 1 or q for r, i, q in enough):
            raise StoryRefusal(
                f"several conditions are each enough for {var}", enough[1][0].sentence
            )
        return Mechanism(var, value, "or", [i[0] for _, i, _ in enough], sentence)
    if len(needed) > 1:
        if any(r.op != "and" for r, _, _ in needed):
            raise StoryRefusal(
                f"several conditions are each needed for {var}", needed[1][0].sentence
            )
        return Mechanism(var, value, "and", [x for _, i, q in needed for x in i + q], sentence)
    r, inputs, requires = (enough or needed)[0]
    return Mechanism(var, value, r.op, inputs, r.sentence, requires=requires)


def counterfactual_query(question: str, linker: Linker) -> Query:
    read = read_counterfactual(question)
    if read is None:
        raise StoryRefusal("the question is not a counterfactual conditional ('Had A, would B?')")
    antecedents, consequent = read
    if len(antecedents) != 1:
        raise StoryRefusal("the question changes more than one thing at once", question)
    try:
        x, xv = linker.link(antecedents[0], question, create=False)
        y, yv = linker.link(consequent, question, create=False)
    except NotSure as e:
        raise StoryRefusal(f"in the question, {e}", question) from None
    if x == y:
        raise StoryRefusal("the question's 'if' and 'would' parts name one variable", question)
    return Query(
        kind="counterfactual",
        treatment=x,
        treatment_value=xv,
        outcome=y,
        outcome_value=yv,
        question=question,
    )


def looks_deterministic(story: str) -> bool:
    """No stated probability: no percentage, no 'probability'/'chance'/'likely', no
    number below 1."""
    if re.search(r"%|\bpercent\b|\bprobabilit|\bchance|\blikel|\bodds\b|\bhalf\b", story, re.I):
        return False
    return not any(0 < n.value < 1 for _, _, n in find_numbers(story))


def answer_plain(story: str, question: str) -> StatedAnswer | None:
    """The answer to a counterfactual question about a deterministic story told in
    everyday English, or a refusal naming the sentence; None when the story states a
    probability or no mechanism this reader knows (it is not this reader's kind)."""
    start = time.perf_counter()
    if not looks_deterministic(story) or read_counterfactual(question) is None:
        return None
    try:
        plain = read_plain_story(story)
    except StoryRefusal as e:
        return _refused(str(e), start)
    if not plain.rules:
        return None
    model = None
    try:
        model, linker = build_model(story, plain)
        _check_lonely_roots(model, linker)
        q = counterfactual_query(question, linker)
        r = counterfactual(model, q)
        _check_left_out_facts(model, linker, q, r.value)
    except (StoryRefusal, NotIdentified) as e:
        return _refused(str(e), start, model)
    return StatedAnswer(
        answer="yes" if r.value == 1.0 else "no",
        value=r.value,
        estimand=r.estimand,
        query=q.to_dict(),
        model=model.to_dict(),
        derivation=r.derivation + model.notes,
        route=[PLAIN_ROUTE],
        seconds=time.perf_counter() - start,
    )


def _check_left_out_facts(model: StatedModel, linker: Linker, q: Query, value: float) -> None:
    """The answer must not hang on a fact that was left out: read as any variable it
    shares words with, at either value, it must leave the story consistent and the
    answer the same."""
    # a fact read that says more than its variable: the answer must hold without it,
    # all such left out together and each on its own
    if linker.loose:
        for dropped in [linker.loose] + (
            [[o] for o in linker.loose] if len(linker.loose) > 1 else []
        ):
            kept = [o for o in model.observations if o not in dropped]
            if _value_with(model, kept, q) != value:
                raise StoryRefusal(
                    f"the answer hangs on the fact '{dropped[0].sentence}', which says more than "
                    f"the mechanisms' words for {dropped[0].variable}",
                    dropped[0].sentence,
                )
    # every reading of every fact left out at once: two of them may contradict the story
    # only together ("battery changed 3 months ago" and "detector chirping")
    readings = [
        [(var, val) for var in variables for val in (0, 1)]
        for _, _, variables in linker.unsure
        if variables
    ]
    unsure = [u for u in linker.unsure if u[2]]
    if math.prod(len(r) for r in readings) > 4096:
        raise StoryRefusal("too many sentences whose words do not tell what they say")
    for combo in itertools.product(*readings):
        read = [Observation(var, val, u[1]) for (var, val), u in zip(combo, unsure)]
        if _value_with(model, [*model.observations, *read], q) != value:
            fact, sentence = unsure[0][0], unsure[0][1]
            if len(unsure) == 1:
                why = f"the answer hangs on the fact '{fact}', whose words do not tell what it says"
            else:
                why = (
                    f"the answer hangs on {len(unsure)} sentences whose words do not tell what "
                    f"they say ('{fact}', …)"
                )
            raise StoryRefusal(why, sentence)


def _value_with(model: StatedModel, observations: list[Observation], q: Query) -> float | None:
    """The counterfactual's value had the story told these facts; None when they fix no
    answer (contradiction, or worlds that disagree)."""
    trial = copy.copy(model)
    trial.observations = observations
    try:
        return counterfactual(trial, q).value
    except NotIdentified:
        return None


def _refused(why: str, start: float, model: StatedModel | None = None) -> StatedAnswer:
    return StatedAnswer(
        answer=None,
        reason=why,
        model=model.to_dict() if model is not None else {},
        route=[PLAIN_ROUTE],
        seconds=time.perf_counter() - start,
    )
