"""Ground a question in a causal model: which variables, treatments, subjects and filters
does it mention? Deterministic (exact match, then rapidfuzz for typos and inflections),
so the planner's choices can be restricted to what the question is about, and a name the
model does not have is reported instead of being silently replaced by one it has.

>>> import networkx as nx, pandas as pd
>>> from causalqa.causal_model import CausalModel
>>> m = CausalModel.from_graph(nx.DiGraph([("Price", "Revenue"), ("Discount (%)", "Revenue")]),
...     pd.DataFrame({"Partner ID": [1, 2], "Tech Support": [1.0, 2.0],
...                   "Already Engaged": [True, False]}))
>>> g = ground("Which partner not yet engaged gains most from tech suport?", m)
>>> [(x.kind, x.name) for x in g.mentions], g.where
([('treatment', 'Tech Support')], Where(filter='Already Engaged', value=False))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from string import ascii_lowercase, ascii_uppercase
from typing import Literal

from rapidfuzz import fuzz, process

from causalqa.causal_model import CausalModel
from causalqa.qa.lexicon import (
    COMMON_WORDS,
    EXCLUSIONS,
    FILTER_NOUNS,
    FILTER_SYNONYMS,
    NEGATIONS,
    OUTDO_VERBS,
    ROW_NOUNS,
    STATE_WORDS,
    SUBJECT_NOUNS,
    alternation,
    normalize,
    word_spans,
)
from causalqa.qa.tools import Where

Kind = Literal["variable", "treatment", "subject"]

FUZZY_CUTOFF = 88.0
"""rapidfuzz ratio (0–100) above which a phrase counts as a (misspelt) name."""

_WORD = re.compile(r"[\w'’%&+-]+", re.UNICODE)
_I_FORMS = frozenset({"I"} | {f"I{a}{b}" for a in "'’" for b in ("d", "m", "ve", "ll")})
"""The word "I" and its contractions ("I'd", "I’m"): capitalised, but never a name."""
_norm = normalize


def _core(name: str) -> str:
    return _norm(re.sub(r"[^\w\s]", " ", re.sub(r"\(.*?\)", " ", name)))


@dataclass(frozen=True)
class Mention:
    """A name of the model found in the question."""

    kind: Kind
    name: str
    start: int
    end: int
    score: float  # 100 for an exact (case-insensitive) match


@dataclass
class Grounding:
    """Everything a question mentions, in the order it mentions it."""

    mentions: list[Mention] = field(default_factory=list)
    where: Where | None = None
    unresolved: list[str] = field(default_factory=list)
    """Phrases that look like names (quoted, or capitalised mid-sentence) but match none."""
    unknown_subjects: list[str] = field(default_factory=list)
    """Ids written after a subject noun ("partner 999") that the table does not have."""

    def names(self, kind: Kind) -> list[str]:
        seen: dict[str, None] = {}
        for m in self.mentions:
            if m.kind == kind:
                seen.setdefault(m.name, None)
        return list(seen)

    def masked(self, question: str) -> str:
        """`question`, normalised, with every mention replaced by "X": what is left is the
        wording around the names ("What does X deliver…" for a treatment named "New
        Engagement Strategy"), for cues that must not read the names' own words."""
        q = _norm(question)
        for m in sorted(self.mentions, key=lambda m: -m.start):
            q = q[: m.start] + "X" + q[m.end :]
        return q

    def to_dict(self) -> dict:
        return {
            "variables": self.names("variable"),
            "treatments": self.names("treatment"),
            "subjects": self.names("subject"),
            "where": None
            if self.where is None
            else {"filter": self.where.filter, "value": self.where.value},
            "unresolved": self.unresolved,
            "unknown_subjects": self.unknown_subjects,
        }


def _exact_spans(question_norm: str, name: str) -> list[tuple[int, int]]:
    pattern = r"(?<![\w])" + re.escape(_norm(name)) + r"(?![\w])"
    return [(m.start(), m.end()) for m in re.finditer(pattern, question_norm)]


def _free(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= s or start >= e for s, e in spans)


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]


def _find_names(
    q: str, names: list[str], kind: Kind, taken: list[tuple[int, int]]
) -> list[Mention]:
    found: list[Mention] = []
    # Longest names first, so "Price Index" wins over "Price".
    for name in sorted(names, key=lambda n: -len(n)):
        for s, e in _exact_spans(q, name):
            if _free(taken, s, e):
                found.append(Mention(kind, name, s, e, 100.0))
                taken.append((s, e))
    # Fuzzy: windows of words not yet explained, against names of a similar word count.
    words = _words(q)
    by_len: dict[int, dict[str, str]] = {}
    for name in names:
        # Also the name without bracketed parts and symbols: "discounts" ~ "Discount (%)".
        for form in {_norm(name), _core(name)} - {""}:
            by_len.setdefault(len(_words(form)) or 1, {}).setdefault(form, name)
    for n_words, choices in sorted(by_len.items(), reverse=True):
        for size in {n_words, n_words + 1} - {0}:
            for i in range(0, max(0, len(words) - size + 1)):
                s, e = words[i][1], words[i + size - 1][2]
                if not _free(taken, s, e):
                    continue
                phrase = q[s:e]
                if len(phrase) < 4 or phrase in COMMON_WORDS:
                    continue
                hit = process.extractOne(
                    phrase, list(choices), scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF
                )
                if hit is not None:
                    found.append(Mention(kind, choices[hit[0]], s, e, float(hit[1])))
                    taken.append((s, e))
    return found


def _after_word(before: str) -> bool:
    """Whether `before` ends with "the", "a", "its" or "their" and white space ("the p5")."""
    head = before.rstrip()
    last = word_spans(head)[-1:]
    return (
        head != before
        and bool(last)
        and last[0].end() == len(head)
        and (last[0].group() in ("the", "a", "its", "their"))
    )


def _before_word(after: str) -> bool:
    """Whether `after` starts with white space and "of", "effect", "value", "uplift" or
    "impact" ("p5 effect")."""
    rest = after.lstrip()
    first = word_spans(rest)[:1]
    return (
        rest != after
        and bool(first)
        and first[0].start() == 0
        and (first[0].group() in ("of", "effect", "value", "uplift", "impact"))
    )


def _number_key(sid: str) -> int | None:
    """The one number in an id ("P007" → 7), or None when it has none or several."""
    runs = re.findall(r"\d+", sid)
    return int(runs[0]) if len(runs) == 1 else None


def _find_subjects(
    q: str, subjects: list[str], taken: list[tuple[int, int]], unknown: list[str] | None = None
) -> list[Mention]:
    """Subject ids after a subject noun ("partner 3", "customer #P007"), and non-numeric
    ids anywhere. "partner 7" also finds "P007" when that is the only id numbered 7 (score
    95: not written as in the table). An id-like word after a noun that matches nothing
    is added to `unknown`."""
    found = []
    known = {_norm(s): s for s in subjects}
    by_number: dict[int, list[str]] = {}
    for sid in subjects:
        n = _number_key(sid)
        if n is not None:
            by_number.setdefault(n, []).append(sid)
    nouns = alternation(SUBJECT_NOUNS + ROW_NOUNS, plural=True)
    for m in re.finditer(rf"\b{nouns}\s*(?:no\.?|number|#)?\s*#?\s*([\w-]+)", q):
        sid = m.group(1)
        if not _free(taken, m.start(1), m.end(1)):
            continue
        if sid in known:
            found.append(Mention("subject", known[sid], m.start(1), m.end(1), 100.0))
            taken.append((m.start(1), m.end(1)))
        elif (digits := sid.lstrip(ascii_lowercase)).isdecimal():  # letters, then digits
            same = by_number.get(int(digits), []) if sid[-1:].isdigit() else []
            if len(same) == 1:
                found.append(Mention("subject", same[0], m.start(1), m.end(1), 95.0))
                taken.append((m.start(1), m.end(1)))
            elif unknown is not None:
                unknown.append(sid)
    # Non-numeric ids (e.g. "ACME-42", "P1") count anywhere; bare numbers only after a noun
    # above. A letter and a digit is an id when the table has it ("for P1, …"), except where
    # it reads as a percentile ("the p5 of …", "p5 effect").
    for key, sid in known.items():
        short = len(key) == 2 and key[0] in ascii_lowercase and key[1].isdecimal()
        if key.isdigit() or (len(key) < 3 and not short):
            continue
        for s, e in _exact_spans(q, sid):
            if short and (_after_word(q[max(0, s - 8) : s]) or _before_word(q[e : e + 10])):
                continue
            if _free(taken, s, e):
                found.append(Mention("subject", sid, s, e, 100.0))
                taken.append((s, e))
    return found


_COUNTING_BEFORE = re.compile(
    r"(?:\b(?:top|best|first|bottom|worst|last|lowest|highest|leading|k|n|number|no|over|under"
    r"|above|below|than|least|most|only|just|about|around|out\s+of|exceeds?|exceeding|beyond"
    rf"|reaches|reach|equals?|to|by|exce\w*|meets?|{OUTDO_VERBS}|is\s+(?:at\s+)?(?:least|most)?"
    r"|percentile|quantile|decile|pct|hits?|clears?)|[=#$€£<>~+*/.,≥≤-])\s*$"
)
_THRESHOLD_OF_BEFORE = re.compile(
    rf"\b(?:{OUTDO_VERBS}|above|over|exceed\w*|below|under|at\s+least|at\s+most|than|hits?|reach\w*)"
    r"\s+(?:an?\s+|the\s+)?(?:\w+\s+){0,2}?(?:of|at)\s*$"
    r"|\b(?:cutoff|cut-off|threshold|bar|benchmark|mark|line)\s+(?:of\s+|at\s+)?$"
)
"""A number after "beat an uplift of", "above an effect of": a threshold, not a subject."""
_COUNTED_AFTER = re.compile(
    r"^(?:\+|\s*(?:[%.,]\d|%|percent|per\s*cent|points?|pp\b|x\b|times|hops?|steps?|-?(?:th|st|nd|rd)\b"
    r"|mark\b|threshold\b|bar\b|cut-?off\b|as\s+(?:the|a|our|your)\s+(?:bar|cut-?off|threshold|benchmark|mark|line)\b"
    r"|or\s+(?:more|less|higher|lower|greater|above|below|better|worse)\b|\(?inclusive\b"
    r"|(?:best|top|most|worst|highest|lowest)\s+\w|\w*(?:partners?|subjects?|customers?|clients?|engagements?|treatments?|programs?"
    r"|variables?|nodes?|paths?|units?|items?|ones|others|more|less|of\b)))"
)


def _find_bare_subjects(q: str, subjects: list[str], taken: list[tuple[int, int]]) -> list[Mention]:
    """Numeric subject ids written with no noun before them ("the best engagement for 19",
    "how much would T help 30?"), where the number is not a count, a rank, a quantity or
    part of a name (score 90)."""
    known = {s for s in subjects if s.isdigit()}
    found = []
    for m in re.finditer(r"(?<![\w.])\d+(?![\w])", q):
        s, e = m.span()
        if m.group(0) not in known or not _free(taken, s, e):
            continue
        if _COUNTING_BEFORE.search(q[max(0, s - 12) : s]) or _COUNTED_AFTER.match(q[e : e + 16]):
            continue
        if _THRESHOLD_OF_BEFORE.search(q[max(0, s - 50) : s]):
            continue
        found.append(Mention("subject", m.group(0), s, e, 90.0))
        taken.append((s, e))
    return found


def _find_where(q: str, filters: list[str], taken: list[tuple[int, int]]) -> Where | None:
    for flt in filters:
        found = _find_filter(q, flt, taken)
        if found is not None:
            return found
    return None


_TRUE = r"(?:true|yes|1|y|t)"
_FALSE = r"(?:false|no|0|n|f)"
# Phrases before a group that put it outside the selection: "leaving out engaged partners".
_EXCLUDING = re.compile(
    r"\b(?:leav(?:e|ing)\s+out|left\s+out|other\s+than|apart\s+from|aside\s+from|not\s+counting"
    r"|filter(?:ing)?\s+out|set(?:ting)?\s+aside|rule\s+out|ruling\s+out|drop(?:ping)?|skip(?:ping)?"
    r"|remov(?:e|ing)|without\s+(?:the\s+)?(?:ones|those)|outside\s+(?:of\s+)?(?:the\s+)?)\b"
    r"(?:\s+(?:\w+\s+){0,3})?$"
)


# Both groups at once: no filter.
_EITHER_WAY = re.compile(
    r"\b(?:engaged|enrolled|treated|onboarded)\s+(?:or|and)\s+(?:not|un\w+|non-?\w+)\b"
    r"|\b(?:regardless|irrespective)\s+of\s+(?:\w+\s+){0,6}(?:engage\w*|program\w*|status)"
    r"|\bwhether\s+(?:or\s+not\s+)?(?:\w+\s+){0,3}(?:engaged|enrolled)\s+or\s+not\b"
    r"|\bwhether\s+or\s+not\s+(?:\w+\s+){0,3}(?:engaged|enrolled)\b"
)


def _explicit_filter(q: str, flt: str, taken: list[tuple[int, int]]) -> Where | None:
    """ "Already Engaged = false", "already engaged: no", "already engaged is true"."""
    m = re.search(
        rf"(?<![\w]){re.escape(_norm(flt))}(?![\w])\s*(?:==?|:|is|equals?|set\s+to)\s*"
        rf"(?:({_TRUE})|({_FALSE}))(?![\w])",
        q,
    )
    if m is None:
        return None
    taken.append((m.start(), m.end()))
    return Where(flt, m.group(1) is not None)


def _find_filter(q: str, flt: str, taken: list[tuple[int, int]]) -> Where | None:
    explicit = _explicit_filter(q, flt, taken)
    if explicit is not None:
        return explicit
    content = [
        w for w, _, _ in _words(_norm(flt)) if w not in {"already", "is", "has", "was", "currently"}
    ]
    if not content:
        return None
    key = content[-1]
    if _EITHER_WAY.search(q):
        return None  # "engaged or not", "regardless of engagement": everyone
    for form in FILTER_SYNONYMS.get(key, [key]):
        for m in re.finditer(rf"(?<![\w])(un|non-?)?{re.escape(form)}(?![\w])", q):
            if not _free(taken, m.start(), m.end()):
                continue
            # Hyphens split words here: "not-yet-engaged", "never-engaged".
            window = q[max(0, m.start() - 40) : m.start()]
            before = [w for w, _, _ in _words(window.replace("-", " "))][-4:]
            after = [w for w, _, _ in _words(q[m.end() : m.end() + 12].replace("-", " "))][:1]
            negated = bool(m.group(1)) or any(w in NEGATIONS for w in before) or after == ["yet"]
            if any(w in EXCLUSIONS for w in before) or _EXCLUDING.search(window):
                negated = not negated
            return Where(flt, not negated)
    for noun in FILTER_NOUNS.get(key, []):
        for m in re.finditer(rf"(?<![\w]){re.escape(noun)}(?![\w])", q):
            if not _free(taken, m.start(), m.end()):
                continue
            window = q[max(0, m.start() - 30) : m.start()]
            before = [w for w, _, _ in _words(window.replace("-", " "))][-3:]
            negated = any(w in NEGATIONS for w in before)
            if negated or any(w in STATE_WORDS for w in before):
                return Where(flt, not negated)
    return None


def _unresolved(question: str, taken_norm: list[tuple[int, int]], q_norm: str) -> list[str]:
    out = []
    quoted = r'"([^"]{2,60})"|“([^”]{2,60})”|(?<!\w)[\'‘]([^\'’]{2,60})[\'’](?!\w)'
    for m in re.finditer(quoted, question):
        phrase = next(g for g in m.groups() if g is not None).strip()
        start = q_norm.find(_norm(phrase))
        if start >= 0 and _free(taken_norm, start, start + len(_norm(phrase))):
            out.append(phrase)
    # Capitalised words that nothing explains, except where English capitalises anyway:
    # a sentence's first word ("…my notes. Just the number") and "I", "I'd", "I'm".
    words = _words(question)
    for w, s, _ in words:
        w = w.strip("'’")
        if not w[:1].isupper() or w.casefold() in COMMON_WORDS or w.isupper() and len(w) <= 3:
            continue
        if w[-1:] == "s" and 2 <= len(w) - 1 <= 4 and all(c in ascii_uppercase for c in w[:-1]):
            continue  # an acronym's plural: "the partner IDs", "ITEs", "KPIs"
        if re.fullmatch(r"(?:^|.*[.!?:;—–(\[\"“]|.*\s-)\s*", question[:s]) or w in _I_FORMS:
            continue
        start = q_norm.find(_norm(w), max(0, s - 5))
        if start >= 0 and _free(taken_norm, start, start + len(_norm(w))):
            if not any(w in phrase for phrase in out):
                out.append(w)
    return out


def ground(question: str, model: CausalModel) -> Grounding:
    """Find the model's names in `question`.

    Variables and treatments are matched exactly (ignoring case, quotes and spacing) and
    then fuzzily (rapidfuzz ratio ≥ `FUZZY_CUTOFF`); subjects by id after a noun such as
    "partner 3"; a boolean filter ("Already Engaged") with its polarity ("not yet
    engaged" → False). A name can be both a variable and a treatment.
    """
    q = _norm(question)
    taken: list[tuple[int, int]] = []
    unknown_subjects: list[str] = []
    subjects = (
        _find_subjects(q, model.subjects, taken, unknown_subjects)
        if model.effects is not None
        else []
    )
    where = _find_where(q, model.filters, taken) if model.effects is not None else None
    treat_taken = list(taken)
    treatments = (
        _find_names(q, model.treatments, "treatment", treat_taken)
        if model.effects is not None
        else []
    )
    variables = _find_names(q, model.variables, "variable", taken)
    if model.effects is not None and not subjects:
        subjects = _find_bare_subjects(q, model.subjects, taken + treat_taken)
    found = subjects + treatments + variables

    # A name inside a longer one ("Loyalty Points" in "Loyalty Points Boost", "Discount" in
    # "Discount (%)") is not mentioned on its own: the longest name wins across kinds —
    # unless the longer one is only a fuzzy match around an exact name ("Discount's" read
    # as "Discount (%)" around the treatment "Discount"): then the exact name wins.
    def inside(m: Mention, o: Mention) -> bool:
        return o.start <= m.start and m.end <= o.end and (o.end - o.start) > (m.end - m.start)

    def fuzzy_around_exact(o: Mention) -> bool:
        return o.score < 100 and any(m.score >= 100 and inside(m, o) for m in found)

    kept = [m for m in found if not fuzzy_around_exact(m)]
    mentions = sorted(
        (m for m in kept if not any(inside(m, o) for o in kept)),
        key=lambda m: (m.start, m.kind),
    )
    all_spans = taken + treat_taken
    if model.effects is not None:  # a filter's own name is known, whatever its polarity
        for flt in model.filters:
            all_spans += _exact_spans(q, flt)
    return Grounding(
        mentions=mentions,
        where=where,
        unresolved=_unresolved(question, all_spans, q),
        unknown_subjects=unknown_subjects,
    )
