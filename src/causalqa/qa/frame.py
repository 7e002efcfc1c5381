"""Read what an open question asks to compute — a statistic, a count or a share of subjects
meeting conditions, a difference of two treatments, a value for each subject, or a causal
property of the graph — and turn it into candidate plans over the query tools.

The question is read with its names replaced by slots (``⟦1⟧``, ``⟦2⟧`` …, in the order
they appear), so the wording around the names decides: "the median effect of ⟦1⟧",
"partners who gain more from ⟦1⟧ than from ⟦2⟧", "are ⟦1⟧ and ⟦2⟧ independent given ⟦3⟧".
A question none of whose words ask for an open operation gives no frame, and the paper's
single tools answer it as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from causalqa.causal_model import CausalModel
from causalqa.qa.cues import answer_type
from causalqa.qa.grounding import Grounding
from causalqa.qa.lexicon import (
    ADJUST,
    BLANKET,
    BLOCKS_EVERY_PATH,
    CAUSES_OF_BOTH,
    COMMON_EFFECT,
    DEPENDENCE_WORDS,
    EFFECT_KIND,
    EFFECT_NOUNS,
    HIGH_WORDS,
    HOW_BIG,
    HOW_MUCH_GAIN,
    LESS_WORDS,
    LOW_WORDS,
    MEDIAN,
    MEDIATOR_WORDS,
    MORE_WORDS,
    NUMBER,
    ON_PATH,
    OUTDO_VERBS,
    PLAIN_SUBJECT_NOUNS,
    QUANTILE,
    STD,
    SUBJECT_NOUNS,
    SUBJECT_PRONOUNS,
    SUM,
    SUPERLATIVE,
    THROUGH,
    VARIANCE,
    alternation,
    any_of,
    normalize,
    number_value,
    plurals,
    spell_out,
    words_of,
)

# -- the question with its names as slots ------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One name the question mentions: its slot number, where, and what it can be."""

    index: int
    start: int
    end: int
    variable: str | None
    treatment: str | None
    subject: str | None


def slotted(question: str, grounding: Grounding) -> tuple[str, list[Slot]]:
    """The normalised question with each variable or treatment mention replaced by ``⟦n⟧``
    (one slot per span: a name that is both a variable and a treatment fills one slot) and
    each subject id by the word ``someone``; and the slots, with their offsets in it."""
    q = normalize(question)
    spans: dict[tuple[int, int], dict[str, str]] = {}
    for m in grounding.mentions:
        spans.setdefault((m.start, m.end), {})[m.kind] = m.name
    spans.update(_ordinal_spans(q, grounding))
    parts: list[str] = []
    slots: list[Slot] = []
    at = 0
    for (start, end), kinds in sorted(spans.items()):
        if start < at:  # overlapping mentions: the first one wins
            continue
        parts.append(q[at:start])
        offset = sum(len(x) for x in parts)
        if set(kinds) == {"subject"}:
            parts.append("someone")
        else:
            token = f"⟦{len(slots) + 1}⟧"
            slots.append(
                Slot(
                    len(slots) + 1,
                    offset,
                    offset + len(token),
                    kinds.get("variable"),
                    kinds.get("treatment"),
                    kinds.get("subject"),
                )
            )
            parts.append(token)
        at = end
    parts.append(q[at:])
    text = spell_out("".join(parts))
    # Written-out abbreviations move the slots ("indep" → "independent"): find them again.
    moved = []
    for sl in slots:
        start = text.find(f"⟦{sl.index}⟧")
        moved.append(replace(sl, start=start, end=start + sl.end - sl.start))
    return text, moved


_ORDINAL = re.compile(r"\bthe\s+(first|second|former|latter)(?:\s+one)?\b")


def _ordinal_spans(q: str, grounding: Grounding) -> dict[tuple[int, int], dict[str, str]]:
    """ "⟦1⟧ vs ⟦2⟧ … the first one's effect exceeds the second's": with exactly two
    treatments named, "the first"/"the former" and "the second"/"the latter" after both
    stand for them."""
    treatments = [m for m in grounding.mentions if m.kind == "treatment"]
    names = list(dict.fromkeys(m.name for m in treatments))
    if len(names) != 2:
        return {}
    after = max(m.end for m in treatments)
    spans = {}
    for m in _ORDINAL.finditer(q, after):
        name = names[0] if m.group(1) in ("first", "former") else names[1]
        spans[m.span()] = {"treatment": name}
    return spans


_SLOT_NUMBERS = re.compile(r"⟦(\d+)⟧")
"""The slot numbers in a stretch of the question ("⟦2⟧ and ⟦3⟧")."""

# -- numbers -----------------------------------------------------------------------------

_NUM = NUMBER
_WHOLE_NUMBER = re.compile(_NUM)
_number = number_value


@dataclass(frozen=True)
class Number:
    """A number the question states, and where."""

    value: float
    start: int
    end: int


def numbers(text: str) -> list[Number]:
    """Every number written in `text` (digits or a small number word), outside slots."""
    found = []
    for m in re.finditer(rf"(?<![\w⟦.]){_NUM}(?![\w⟧])", text):
        found.append(Number(_number(m.group(1)), m.start(1), m.end(1)))
    return found


# -- what the question asks --------------------------------------------------------------

_SUBJ = alternation(SUBJECT_NOUNS + SUBJECT_PRONOUNS, plural=True)
_EFFECT = alternation(EFFECT_NOUNS, plural=True)

_STAT_WORDS: list[tuple[str, re.Pattern[str]]] = [
    ("median", MEDIAN),
    ("std", STD),
    ("var", VARIANCE),
    ("quantile", QUANTILE),
    (
        "sum",
        re.compile(
            rf"{SUM.pattern}|\btotal\s+(?:\w+\s+)?{_EFFECT}\s+(?:of\s+⟦\d+⟧\s+)?(?:across|over|summed)\b"
            r"|\btotal\b(?=.*\b(?:across|over)\s+(?:all\s+)?(?:the\s+)?\w+)"
        ),
    ),  # fmt: skip
    (
        "min",
        re.compile(rf"\b{alternation(LOW_WORDS + ('argmin',))}\b(?<!at\sleast)"),
    ),
    (
        "max",
        re.compile(
            rf"\b{alternation(HIGH_WORDS + ('best', 'argmax', 'max', 'furthest', 'farthest'))}\b"
            # "the top individual effect"; not "the top 3", "top quartile", "top partners"
            r"|\btop\b(?!\s*-?\s*(?:\d|one|two|three|four|five|ten|few|k\b|n\b|quartile|decile|half))"
            rf"(?!\s+(?:[\w-]+\s+){{0,2}}?(?:treatments?|{alternation(PLAIN_SUBJECT_NOUNS, plural=True)})\b)"
            r"|\b(?:which|what)\s+(?:one\s+)?(?:is|comes|ranks|places|lands)\s+first\b"
            # "for the partner who responds most", "the single most responsive partner"
            r"|\bmost\s+responsive\b|\bresponds?\s+(?:the\s+)?most\b"
            # "rank the treatments … and tell me the top one"
            r"|\bthe\s+top\s+one\s*(?:[.?!]|$)"
            # "what moves ⟦1⟧ the most on average"
            r"|\b(?:what|which)\s+(?:\w+\s+)?(?:moves|raises|lifts|boosts|increases|improves|grows|pushes)\s+⟦\d+⟧"
            r"\s+(?:the\s+)?most\b"
        ),
    ),
    ("mean", re.compile(r"\b(?:average|mean|on\s+average|typical|ates?)\b")),
]
_QUARTILES = re.compile(
    r"\b(?:(?P<upper>upper|third|top)|(?P<lower>lower|first|bottom)|(?P<second>second))\s+quartile\b"
)
"""A quartile in words; when a question names several, the upper one reads first, then the
lower, then the second (`read_quantile`)."""
_QUANTILES = [
    # (the wordings of a quantile written as a number, the scale of that number: a
    # percentile or a fraction (None), or a decile (10))
    (
        any_of(
            [
                r"\b(\d{1,2})-?(?:st|nd|rd|th)\s+percentile\b",
                r"\bpercentile\s+(\d{1,2})\b",
            ]
        ),
        None,
    ),
    (re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s*(?:%|percent)\s*(?:quantile|percentile)\b"), None),
    (any_of([r"\bquantile\s+(?:of\s+)?(0?\.\d+)\b", r"\b(0?\.\d+)\s+quantile\b"]), None),
    (re.compile(r"\b(\d)(?:st|nd|rd|th)\s+decile\b"), 10),
    (re.compile(r"\bpercentile\b[^.?!]{0,100}?\b(\d{1,2})(?:st|nd|rd|th)\b"), None),
    (
        any_of(
            [
                r"\b(?:below|under)\s+(?:what|which)\s+(?:\S+\s+){0,8}?(\d{1,2})\s*(?:%|percent)\s+of\s+(?:the\s+)?"
                r"(?:\S+\s+){0,5}?(?:fall|lie|sit|are|come\s+in|land)\b",
                r"\b(\d{1,2})\s*(?:%|percent)\s+of\s+(?:the\s+)?(?:\S+\s+){0,6}?"
                r"(?:fall|lie|sit|are|is|come\s+in)\s+(?:below|under)\b",
            ]
        ),
        None,
    ),
]  # fmt: skip

_COUNT = re.compile(
    rf"\bhow\s+many\s+(?:[\w-]+\s+){{0,2}}?{_SUBJ}\b|\b(?:the\s+)?(?:number|count)\s+of\s+"
    rf"(?:[\w-]+\s+){{0,2}}?{_SUBJ}\b|\bcount\s+(?:up\s+)?(?:the\s+|all\s+)?(?:\w+\s+){{0,2}}?{_SUBJ}\b"
    rf"|\bhow\s+many\b(?=.*\b(?:benefit|gain|profit|respond|are\s+hurt|lose|have|see|get|favou?r|prefer)\b)"
    rf"|\btally\s+(?:up\s+)?(?:the\s+|all\s+)?(?:\w+\s+){{0,2}}?(?:{_SUBJ}|rows?)\b"
)
_SHARE = re.compile(
    r"\b(?:what|which)\s+(?:\w+\s+)?(?:fraction|share|proportion|percentage|percent|part|portion"
    r"|ratio)\b|\bwhat\s+%|\bhow\s+many\s+percent\b|\b(?:the\s+)?(?:fraction|share|proportion"
    rf"|percentage|portion)\s+of\s+(?:(?:all|the)\s+)?(?:\w+\s+){{0,2}}?{_SUBJ}\b"
    r"|\bpercentage\b|\bfraction\b|\bproportion\b|\bpercent\s+of\b|%\s*of\b"
    r"|\bas\s+a\s+(?:share|fraction|proportion|percentage|ratio)\b"
    # "share benefiting from ⟦1⟧, across all partners"
    r"|^\s*(?:the\s+)?(?:share|fraction|proportion|percentage)\s+(?:benefit\w*|gain\w*|profit\w*|hurt|harmed"
    r"|helped|with|who|that|where|whose|above|below|over|under|at\s+least)\b"
)
_ALL_OF = r"(?<!\bover\s)(?<!\bacross\s)(?<!\bamong\s)(?<!\btaking\s)(?<!\bconsidering\s)(?<!\bof\s)(?<!\band\s)"
_EACH = re.compile(
    rf"\b(?:for|on|to|with|by)\s+(?:each|every|every\s+single|each\s+individual)\s+(?:\w+\s+)?{_SUBJ}\b(?!\s+into\s+account)"
    rf"|\bper[\s-]+{_SUBJ}\b|\b{_SUBJ}\s+by\s+{_SUBJ}\b|{_ALL_OF}\beach\s+{_SUBJ}(?:'s)?\b(?!\s+into\s+account)"
    rf"|{_ALL_OF}\bevery\s+{_SUBJ}'s\b"
    rf"|\bby\s+{_SUBJ}\s*(?:[?.!,;]|$)|\b{_SUBJ}[\s-]+by[\s-]+{_SUBJ}\b"
    rf"|\b(?:all|the)\s+individual\s+{_EFFECT}\b(?!.*\b(?:smallest|largest|lowest|highest|minimum|maximum)\b)"
    rf"|\blist\s+(?:the\s+)?{_EFFECT}\b"
    rf"|\b(?:all|every|each)\s+(?:the\s+)?{_SUBJ}\s+individually\b"
    r"|\bone\s+by\s+one\b|\bone\s+(?:row|line|value|entry|number)\s+(?:each|per\s+\w+)\b"
    # "show ⟦1⟧ effect for all partners": a listing verb asks for the values themselves
    rf"|^\s*(?:please\s+)?(?:show|list|display|print|enumerate)\b[^?.!;]*\bfor\s+all\s+(?:the\s+|our\s+)?{_SUBJ}\b"
)

# Comparisons between two treatments: "gain more from ⟦1⟧ than from ⟦2⟧".
_MORE = alternation(MORE_WORDS)
_LESS = alternation(LESS_WORDS)
_MORE_OR_LESS = rf"(?:{_MORE}|(?P<less>{_LESS}))"
"""A comparative of either direction; the `less` group says which (`_says_less`), so one
rule reads "gains more from ⟦1⟧ than …" and "gains less from ⟦1⟧ than …"."""
_BETWEEN = [
    (
        re.compile(
            rf"\b{_MORE_OR_LESS}\s+(?:\w+\s+){{0,3}}?(?:from|with|to|by|under|of)?\s*⟦(?P<a>\d+)⟧(?:'s)?"
            rf"\s+(?:\w+\s+){{0,2}}?than\s+(?:\w+\s+){{0,3}}?⟦(?P<b>\d+)⟧"
        ),
        ">",
    ),  # fmt: skip
    (
        re.compile(
            rf"⟦(?P<a>\d+)⟧(?:'s)?\s+(?:\w+\s+){{0,3}}?(?:beat(?:s|ing)?|outperform(?:s|ing)?|exceed(?:s|ing)?|tops|surpass\w*"
            rf"|(?:is|was|are)\s+{_MORE}\s+than|works?\s+better\s+than|does\s+better\s+than"
            rf"|{_MORE}\s+than|>=?|(?P<less>(?:is|was|are)\s+{_LESS}\s+than|works?\s+worse\s+than"
            rf"|{_LESS}\s+than|trails?|lags?\s+behind|<=?))\s+(?:(?:that|those|the\s+\w+)\s+(?:of|from|for)\s+"
            rf"|(?:their|its|the)\s+(?:\w+\s+){{0,2}}?(?:of|from|for|with)\s+|(?:their|its|the)\s+"
            rf"|(?:c?ates?|ites?|{_EFFECT})\s+(?:of|from|for|under)\s+)?⟦(?P<b>\d+)⟧"
        ),
        ">",
    ),  # fmt: skip
    (re.compile(r"\b(?:prefer\w*|favou?r\w*)\s+⟦(\d+)⟧\s+(?:over|to)\s+⟦(\d+)⟧"), ">"),
    # "effect(⟦1⟧) > effect(⟦2⟧)", "effect(⟦1⟧) <= effect(⟦2⟧)"
    (
        re.compile(
            r"\b(?:c?ates?|ites?|effects?|uplifts?)\s*\(\s*⟦(?P<a>\d+)⟧\s*\)\s*(?:>=?|(?P<less><=?))\s*"
            r"(?:c?ates?|ites?|effects?|uplifts?)\s*\(\s*⟦(?P<b>\d+)⟧\s*\)"
        ),
        ">",
    ),
    (
        re.compile(
            rf"\b{_MORE_OR_LESS}\s+(?:\w+\s+){{0,3}}?(?:of|from|for|with)\s+⟦(?P<a>\d+)⟧\s+(?:compared\s+(?:with|to)|relative\s+to|versus|vs\.?|over|than\s+(?:of|from|for|with)?)\s*⟦(?P<b>\d+)⟧"
        ),
        ">",
    ),
]
# A comparison with a number: "an effect of ⟦1⟧ above 10", "gain at least 5 from ⟦1⟧".
_OPS = [
    (r"at\s+least|no\s+(?:less|smaller|lower|fewer)\s+than|not\s+(?:less|smaller|lower|fewer)\s+than"
     r"|not\s+(?:below|under)|greater\s+than\s+or\s+equal\s+to|>=|≥|or\s+more"
     r"|reach(?:es|ing)?|hits?|meets?(?:\s+or\s+(?:beats?|exceeds?|surpass\w*))?", ">="),
    (r"at\s+most|no\s+(?:more|greater|larger|higher|bigger)\s+than"
     r"|not\s+(?:more|greater|larger|higher|bigger)\s+than|not\s+(?:above|over|exceeding)|up\s+to|less\s+than\s+or\s+equal\s+to|<=|≤|or\s+less", "<="),
    (r"more\s+than|greater\s+than|higher\s+than|larger\s+than|bigger\s+than|above|over|exceed\w*"
     rf"|beyond|in\s+excess\s+of|{OUTDO_VERBS}|>", ">"),
    (r"less\s+than|lower\s+than|smaller\s+than|fewer\s+than|below|under|beneath|<", "<"),
    (r"exactly|equal\s+to|equals|=", "=="),
]  # fmt: skip
_OP_RE = "|".join(f"(?P<o{i}>{p})" for i, (p, _) in enumerate(_OPS))
_BEFORE_NUMBER = r"(?:(?:an?|the)\s+(?:(?:\w+\s+){0,2}?of\s+)?)?"
"""Words between a comparison and its number: "clear the 20 mark", "beat an uplift of 20"."""
_THRESHOLD = [
    # "⟦1⟧ … above 10", "⟦1⟧'s effect is at least 5"
    re.compile(rf"⟦(?P<slot>\d+)⟧(?:'s)?\s+(?:\w+\s+){{0,4}}?(?:{_OP_RE})\s*{_NUM}(?P<trail>\s+or\s+(?:more|less|higher|lower|greater|above|below))?"),
    # "above 10 from ⟦1⟧", "at least 5 points of uplift from ⟦1⟧"
    re.compile(rf"(?:{_OP_RE})\s*{_BEFORE_NUMBER}{_NUM}\s+(?:\w+\s+){{0,4}}?(?:from|with|of|by|under|for|to|on)\s+⟦(?P<slot>\d+)⟧"),
    # "an uplift of 20 or more from ⟦1⟧"
    re.compile(rf"(?P<ormore>){_NUM}\s+or\s+(?:more|higher|greater|above|better)\s+(?:\w+\s+){{0,4}}?(?:from|with|of|by|under|for|to)\s+⟦(?P<slot>\d+)⟧"),
]  # fmt: skip
# A comparison that names no treatment ("# of partners with effect > 20"), for a question
# about one treatment only.
_LOOSE_THRESHOLD = re.compile(
    rf"(?:{_OP_RE})\s*{_BEFORE_NUMBER}{_NUM}(?P<trail>\s+or\s+(?:more|less|higher|lower|greater|above|below))?(?P<inclusive>\s*\(?inclusive\)?)?"
)
_LOOSE_OR_MORE = re.compile(
    rf"{_NUM}(?:\s+(?:\(inclusive\)|or\s+(?:more|higher|greater|above|better))|\+(?!\s*[\d⟦]))"
)
_LOOSE_SIGN = re.compile(
    rf"\b(?:positive|negative)\s+(?:\w+\s+)?{_EFFECT}\b(?!\s+(?:of|from|for)\s+⟦)"
    rf"|\b(?:benefit|gain|profit)s?\b(?!\s+(?:\w+\s+){{0,2}}?(?:from|by|with|of)\s+⟦)(?=[^⟦]*$)"
)
# A determiner, possessive or superlative right before "gain"/"benefit" makes it a noun.
_NOUN_BEFORE = re.compile(
    r"(?:\b(?:the|a|an|its|their|our|your|biggest|largest|highest|greatest|maximum|max"
    r"|smallest|lowest|minimum|min|average|mean|median|typical|total|expected)"
    r"|\b(?!(?:who|what|that|it|let|there|here|he|she)'s)\w+'s)\s+$"
)
_EXPERIENCE_A = re.compile(
    r"\b(?:see|sees|saw|seeing|get|gets|got|have|has|had|experience[sd]?|enjoy[sed]*|make|makes"
    r"|made|record[sed]*|register[sed]*|show[sed]*)\s+(?:a|an|any|some)\s+$"
)
""""Partners who see a gain from ⟦1⟧": a sign condition, though "a gain" is a noun."""
# The sign of one treatment's effect: "benefit from ⟦1⟧", "are hurt by ⟦1⟧".
_POSITIVE = re.compile(
    rf"\b(?:benefit\w*|gain\w*|profit\w*|helped|better\s+off|respond\w*\s+(?:positively|well)"
    rf"|(?:comes?|coming|came)\s+out\s+(?:ahead|on\s+top)"
    rf"|improv\w*|positive(?:\s+{_EFFECT})?|positively|upside)\s+"
    rf"(?!(?:the\s+)?(?:most|more|least|less|best|worst)\b)(?:\w+\s+){{0,2}}?(?:from|by|with|to|under|of)?\s*⟦(\d+)⟧"
    rf"|⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+){{0,2}}?(?:is|are|was|were|be)\s+positive\b"
    rf"|⟦(\d+)⟧\s+(?:helps?|benefits?|pays\s+off)\b"
    rf"|⟦(\d+)⟧\s+(?:has|have|had|shows?|gives?|yields?|produces?)\s+(?:a\s+)?positive\b"
)
_NEGATIVE = re.compile(
    rf"\b(?:hurt|harmed|damaged|worse\s+off|los\w+|suffer\w*|negative(?:\s+{_EFFECT})?|negatively"
    rf"|downside|backfire\w*)\s+(?:\w+\s+){{0,2}}?(?:from|by|with|to|under|of)?\s*⟦(\d+)⟧"
    rf"|⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+){{0,2}}?(?:is|are|was|were|be)\s+negative\b"
    rf"|⟦(\d+)⟧\s+(?:hurts?|harms?|backfires?)\b"
    rf"|⟦(\d+)⟧\s+(?:has|have|had|shows?|gives?|yields?|produces?)\s+(?:a\s+)?negative\b"
)
_NOT = re.compile(r"\b(?:not|never|n't|no|fail\s+to|fails\s+to|without)\s+(?:\w+\s+)?$")

# A difference of two treatments as the value asked for.
_DIFFERENCE = [
    # "how much less …" asks the difference the other way round (`_says_less`)
    (
        re.compile(
            rf"\bhow\s+much\s+{_MORE_OR_LESS}\s+(?:[\w']+\s+){{0,5}}?(?:from|with|by|under|of)?\s*⟦(?P<a>\d+)⟧"
            rf"(?:'s)?\s+(?:\w+\s+){{0,3}}?than\s+(?:\w+\s+){{0,3}}?⟦(?P<b>\d+)⟧"
        ),
        False,
    ),
    (
        any_of(
            [
                r"\b(?:difference|gap)\s+(?:in\s+\w+\s+)?between\s+(?:the\s+)?(?:\w+\s+){0,3}?"
                r"⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+){0,2}?and\s+(?:the\s+)?(?:\w+\s+){0,3}?⟦(\d+)⟧",
                r"⟦(\d+)⟧(?:'s)?\s+(?:(?:individual|partner-level|subject-level)\s+)?(?:effects?\s+)?"
                r"(?:minus|less(?!\s+than))\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:of\s+)?⟦(\d+)⟧",
                # "the ⟦1⟧-minus-⟦2⟧ gap", "⟦1⟧-effect-minus-⟦2⟧-effect", "(⟦1⟧ effect − ⟦2⟧ effect)"
                r"⟦(\d+)⟧\s*-\s*(?:(?:effects?|uplifts?|impacts?)\s*-\s*)?minus\s*-\s*⟦(\d+)⟧",
                # "⟦1⟧ over ⟦2⟧: which partner has the biggest advantage?"
                r"^\s*⟦(\d+)⟧\s+over\s+⟦(\d+)⟧\s*[:;,–—-]+[^?.!]*\b(?:advantage|edge|lead|margin|gap)\b",
                r"⟦(\d+)⟧(?:'s)?\s+(?:effects?|uplifts?|lifts?|impacts?)\s+[-−–]\s+(?:the\s+)?⟦(\d+)⟧",
                r"\bby\s+how\s+much\s+(?:(?:does|do|did|would|will)\s+)?(?:(?:the|its|their|a)\s+(?:\w+\s+){0,2}?(?:from|of|for|under)\s+)?⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+)?(?:exceed|beat|outperform|top|surpass)s?\s+(?:that\s+of\s+|(?:the|its|their)\s+(?:\w+\s+){0,2}?(?:from|of|for|under)\s+)?⟦(\d+)⟧",
                r"⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+)?(?:exceeds?|beats?|outperforms?|tops|surpass\w*)\s+(?:that\s+of\s+)?⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+)?by\b",
                r"\bby\s+which\s+⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+){0,2}?(?:exceeds?|beats?|outperforms?|tops"
                r"|surpass\w*)\s+(?:that\s+of\s+|those\s+of\s+)?⟦(\d+)⟧",
                r"^(?=.*\bdifference\b).*?⟦(\d+)⟧\s+[-−]\s+⟦(\d+)⟧",
            ]
        ),
        False,
    ),
    (
        any_of(
            [
                r"\bmoving\s+(?:\w+\s+){0,2}?from\s+⟦(\d+)⟧\s+to\s+⟦(\d+)⟧",
                # "subtract the effect of ⟦2⟧ from that of ⟦1⟧"
                r"\bsubtract\w*\s+(?:the\s+)?(?:(?:\w+\s+){1,2}?(?:of|from|for)\s+)?⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+)?"
                r"from\s+(?:that\s+of\s+|those\s+of\s+|the\s+(?:\w+\s+){1,2}?(?:of|from|for)\s+)?⟦(\d+)⟧",
            ]
        ),
        True,
    ),
    (
        any_of(
            [
                r"⟦(\d+)⟧\s+(?:vs\.?|versus)\s+⟦(\d+)⟧.*\b(?:difference|gap|first\s+minus\s+second)\b",
                r"\b(?:advantage|edge|lead|margin|gap|excess|surplus|uplift|lift|gain|effect|impact|benefit)s?\s+"
                rf"(?:of|for|from)\s+⟦(\d+)⟧(?:'s)?\s+(?:{_EFFECT}\s+)?over\s+⟦(\d+)⟧",
                # "partner with max (⟦1⟧ - ⟦2⟧) effect gap"
                r"\(\s*⟦(\d+)⟧\s*[-−–]\s*⟦(\d+)⟧\s*\)",
                # "where does ⟦1⟧ have its biggest edge over ⟦2⟧"
                r"⟦(\d+)⟧\s+(?:have|has|had|hold|holds|get|gets|enjoy|enjoys)\s+(?:its|the|a|their|an)\s+"
                r"(?:\w+\s+)?(?:advantage|edge|lead|margin)\s+over\s+⟦(\d+)⟧",
                # "how does ⟦1⟧ stack up against ⟦2⟧ … the mean gap", "how does the uplift from ⟦1⟧
                # compare with that from ⟦2⟧? Give me the difference."
                r"⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+){0,2}?(?:stacks?\s+up|compares?|fares?|measures?\s+up)\s+"
                r"(?:against|to|with|versus|vs\.?)\s+(?:that\s+|those\s+|the\s+one\s+)?(?:\w+\s+){0,2}?⟦(\d+)⟧"
                r"(?=.*\b(?:difference|gap|minus)\b)",
                # "the ITE of 29 under ⟦1⟧ less its ITE under ⟦2⟧"
                r"\b(?:under|with|from|of)\s+⟦(\d+)⟧\s+(?:minus|less)\s+(?:its|the|their)\s+"
                r"(?:\w+\s+){0,2}?(?:under|with|from|of)\s+⟦(\d+)⟧",
            ]
        ),
        False,
    ),
    # "compare ⟦1⟧ against ⟦2⟧ …, what's the extra effect from ⟦1⟧?" (a third group: the
    # treatment named again, which must be the first)
    (
        re.compile(
            r"\bcompar\w*\s+⟦(\d+)⟧\s+(?:against|to|with|versus|vs\.?)\s+⟦(\d+)⟧[^?]*?"
            r"\b(?:extra|additional|incremental)\s+(?:\w+\s+){0,2}?(?:from|of|with|by)\s+⟦(?P<again>\d+)⟧"
        ),
        False,
    ),
    (
        any_of(
            [
                # "CATE(⟦1⟧) - CATE(⟦2⟧)", "ATE(⟦1⟧) − ATE(⟦2⟧)": the difference in function notation
                r"\b(?:c?ates?|ites?|effects?|uplifts?)\s*\(\s*⟦(\d+)⟧\s*\)\s*[-−–]\s*"
                r"(?:c?ates?|ites?|effects?|uplifts?)\s*\(\s*⟦(\d+)⟧\s*\)",
                rf"\b(?:c?ates?|ites?|{_EFFECT})\s+(?:of|from|for|under)\s+⟦(\d+)⟧\s*[-−–]\s*"
                rf"(?:the\s+)?(?:c?ates?|ites?|{_EFFECT})\s+(?:of|from|for|under)\s+⟦(\d+)⟧",
                # "how much more uplift does ⟦1⟧ deliver compared with ⟦2⟧"
                rf"\bhow\s+much\s+(?:{_MORE}|extra|additional|incremental)\s+(?:\w+\s+){{0,5}}?⟦(\d+)⟧\s+(?:\w+\s+){{0,2}}?"
                r"(?:compared\s+(?:with|to)|relative\s+to|versus|vs\.?)\s+(?:\w+\s+){0,2}?⟦(\d+)⟧",
                # "choosing ⟦1⟧ over ⟦2⟧", "the effect of ⟦1⟧ net of the effect of ⟦2⟧"
                r"\b(?:choos\w*|chose\w*|pick\w*|select\w*|getting|using|taking|giving)\s+⟦(\d+)⟧\s+"
                r"(?:over|rather\s+than)\s+⟦(\d+)⟧",
                r"⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+){0,2}?net\s+of\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:of\s+)?⟦(\d+)⟧",
                # "compare ⟦1⟧ with ⟦2⟧: what is the mean per-partner difference …"
                r"\bcompar\w*\s+⟦(\d+)⟧\s+(?:with|to|against|and|versus|vs\.?)\s+⟦(\d+)⟧\s*[:;,.-][^?]*"
                r"\b(?:difference|gap)\b",
                # "the uplift from ⟦1⟧ furthest above the uplift from ⟦2⟧", "⟦1⟧ outperforms ⟦2⟧ the most"
                r"⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+)?(?:furthest|farthest|most)\s+(?:above|ahead\s+of)\s+"
                r"(?:that\s+of\s+|the\s+\w+\s+(?:from|of|for)\s+)?⟦(\d+)⟧",
                r"⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+)?(?:outperforms?|beats?|exceeds?|outdoes|surpass\w*)\s+"
                r"(?:that\s+of\s+|the\s+\w+\s+(?:of|from|for)\s+)?⟦(\d+)⟧(?:'s)?\s+(?:\w+\s+)?(?:the\s+)?(?:most|least)\b",
                # "the mean difference in individual effects, ⟦1⟧ versus ⟦2⟧"
                r"\b(?:difference|gap)\b[^?.!;⟦]{0,40}?⟦(\d+)⟧\s+(?:versus|vs\.?|minus|against)\s+⟦(\d+)⟧",
            ]
        ),
        False,
    ),
    # "switching from ⟦1⟧ to ⟦2⟧" gains ⟦2⟧ − ⟦1⟧
    (re.compile(r"\bswitch\w*\s+(?:\w+\s+){0,2}?from\s+⟦(\d+)⟧\s+to\s+⟦(\d+)⟧"), True),
    (
        any_of(
            [
                r"⟦(\d+)⟧\s+instead\s+of\s+⟦(\d+)⟧",
                r"\bfrom\s+⟦(\d+)⟧\s+(?:relative\s+to|compared\s+(?:to|with)|over|versus|vs\.?)\s+"
                r"(?:from\s+|that\s+of\s+)?⟦(\d+)⟧",
            ]
        ),
        False,
    ),
]

_CONFOUND = re.compile(
    r"\bconfound\w*|\bcommon\s+causes?\b|\bshared\s+(?:causes?|parents?|ancestors?)\b"
    r"|\bcommon\s+(?:parents?|ancestors?)\b|\b(?:causes?|influences?|drives?|affects?)\s+both\b"
    rf"|\bback-?door\s+paths?\b|{CAUSES_OF_BOTH}"
)
_SEPARATES = re.compile(
    r"\b(?:does|do|can|would|will|whether|if)\s+((?:⟦\d+⟧(?:\s*,\s*|\s+and\s+)?)+?)\s*"
    rf"(?:d-?separat\w*|{BLOCKS_EVERY_PATH}\s+between)\s+⟦(\d+)⟧\s+(?:and|from)\s+⟦(\d+)⟧"
)
_GIVEN = re.compile(
    r"\b(?:given|conditional\s+on|conditioning\s+on|conditioned\s+on|condition\s+on|once\s+(?:we|you|i)\s+"
    r"(?:condition\s+on|control\s+for|know|observe|fix|hold)|after\s+(?:conditioning\s+on|"
    r"controlling\s+for)|controlling\s+for|if\s+(?:we|you|i)\s+(?:condition\s+on|control\s+for"
    r"|know|observe|fix|hold)|holding|when\s+(?:we|you)\s+(?:condition\s+on|control\s+for|know"
    r"|observe|fix|hold))\b"
    r"|(?<=⟧)\s*\|(?=\s*⟦)"
    r"|\b(?:separated|blocked|screened\s+off)\s+(?:from\s+⟦\d+⟧\s+)?by\b"
    r"|^\s*(?:does|do|would|will|can)\s+(?:knowing|observing|conditioning\s+on|controlling\s+for"
    r"|fixing|holding)\b|^\s*(?:knowing|observing)\b|\b(?:after|when|once)\s+adjusting\s+for\b"
)
_GIVEN_FIRST = re.compile(
    r"^\s*(?:once|if|when|after|with)\s+((?:⟦\d+⟧(?:\s*,\s*|\s*,?\s+and\s+)?)+)\s+"
    r"(?:is|are|gets?|has\s+been|have\s+been)\s+(?:held\s+(?:fixed|constant)|fixed|known|observed"
    r"|controlled\s+for|conditioned\s+on|given|measured)\b"
)
"""A conditioning set stated first: "once ⟦z⟧ is held fixed, …"."""
_SUPERLATIVE = SUPERLATIVE

_WHICH_SUBJECTS = re.compile(
    r"\b(?:which|what|list|show|name|identify|find|give|want|need|enumerate|display)\s+(?:me\s+)?(?:the\s+|all\s+)?(?:\w+\s+){0,3}?"
    rf"{alternation(plurals(SUBJECT_NOUNS) + ('ones',))}\b|\bwho\s+(?:are|would|will|does|do|benefits?|gains?|is)\b"
    r"|\b(?:list|show|name|identify|enumerate|display)\s+(?:me\s+)?(?:every|each)\s+(?:single\s+)?"
    rf"{alternation(SUBJECT_NOUNS)}\s+(?:whose|who|that|with|where|for\s+which)\b"
)


@dataclass
class Frame:
    """What an open question asks: see the module docstring. `kind` names the operation;
    the other fields carry its arguments as read from the wording."""

    kind: str
    stat: str | None = None
    q: float | None = None
    value: dict[str, Any] | None = None
    conditions: list[dict[str, Any]] = field(default_factory=list)
    subject: str | None = None
    variables: list[str] = field(default_factory=list)
    given: list[str] = field(default_factory=list)
    lowest: bool = False
    k: int = 1
    used_numbers: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def graph(self) -> bool:
        """Whether it is a question about the graph (not the effects table)."""
        return self.kind not in _TABLE_KINDS


def _slot(slots: list[Slot], index: str) -> Slot:
    return slots[int(index) - 1]


def _treatment_of(slots: list[Slot], index: str) -> str | None:
    return _slot(slots, index).treatment


def read_quantile(text: str) -> float | None:
    """The percentile (as a fraction) the wording names, or None."""
    quartiles = {m.lastgroup for m in _QUARTILES.finditer(text)}
    for name, q in (("upper", 0.75), ("lower", 0.25), ("second", 0.5)):
        if name in quartiles:
            return q
    for pattern, scale in _QUANTILES:
        m = pattern.search(text)
        if not m:
            continue
        raw = float(next(g for g in m.groups() if g is not None))
        if scale == 10:
            return raw / 10
        return raw if raw < 1 else raw / 100
    return None


def _stats(text: str) -> list[str]:
    return [name for name, pattern in _STAT_WORDS if pattern.search(text)]


def _two_slots(match: re.Match[str]) -> tuple[str, str]:
    """The two slot numbers a rule read: its groups `a` and `b`, or the first two groups of
    the wording that matched (a family of wordings is one pattern, `any_of`)."""
    if "a" in match.re.groupindex:
        return match.group("a"), match.group("b")
    first, second = [g for g in match.groups() if g is not None][:2]
    return first, second


def _says_less(match: re.Match[str]) -> bool:
    """Whether a rule of either direction (`_MORE_OR_LESS`) read the "less" one."""
    return "less" in match.re.groupindex and match.group("less") is not None


def _number_text(match: re.Match[str]) -> str:
    """The number a comparison states: its one unnamed group that reads as a number."""
    named = {match.start(g) for g in match.groupdict() if match.group(g) is not None}
    for i in range(1, (match.re.groups or 0) + 1):
        text = match.group(i)
        if (
            text
            and match.start(i) not in named
            or text
            and _WHOLE_NUMBER.fullmatch(text)
            and i not in _named_indexes(match)
        ):
            if _WHOLE_NUMBER.fullmatch(text):
                return text
    raise AssertionError("a comparison pattern matched without a number")


def _named_indexes(match: re.Match[str]) -> set[int]:
    return set(match.re.groupindex.values())


def _op_of(match: re.Match[str]) -> str:
    groups = match.groupdict()
    if "ormore" in groups:
        return ">="
    for i, (_, op) in enumerate(_OPS):
        if groups.get(f"o{i}"):
            return op
    raise AssertionError("an operator group matched")


def comparisons(text: str, slots: list[Slot]) -> tuple[list[dict[str, Any]], list[float]]:
    """The conditions the wording puts on subjects, and the numbers they use."""
    found: list[dict[str, Any]] = []
    used: list[float] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return all(m.end() <= s or m.start() >= e for s, e in taken)

    for pattern, more in _BETWEEN:
        for m in pattern.finditer(text):
            i, j = _two_slots(m)
            a, b = _treatment_of(slots, i), _treatment_of(slots, j)
            if a and b and a != b and free(m):
                op = "<" if _says_less(m) else more
                if _NOT.search(text[: m.start()]):
                    op = {">": "<=", "<": ">="}[op]
                found.append({"value": {"treatment": a}, "op": op, "than": {"treatment": b}})
                taken.append(m.span())
    for pattern in _THRESHOLD:
        for m in pattern.finditer(text):
            t = _treatment_of(slots, m.group("slot"))
            if not t or not free(m):
                continue
            op = _op_of(m)
            number_text = _number_text(m)
            trail = m.groupdict().get("trail") or ""
            if "or more" in trail:
                op = ">="
            elif "or less" in trail:
                op = "<="
            value = _number(number_text)
            found.append({"value": {"treatment": t}, "op": op, "than": value})
            used.append(value)
            taken.append(m.span())
    for pattern, op in ((_POSITIVE, ">"), (_NEGATIVE, "<")):
        for m in pattern.finditer(text):
            index = next(g for g in m.groups() if g)
            t = _treatment_of(slots, index)
            if not t or not free(m):
                continue
            if any(c["value"] == {"treatment": t} for c in found):
                continue  # "gain more from T than from U" already says how T compares
            if m.group(0).startswith(("gain", "benefit", "profit")) and (
                (
                    _NOUN_BEFORE.search(text[: m.start()])
                    and not _EXPERIENCE_A.search(text[: m.start()])
                )
                or any(h.start() < m.start() < h.end() for h in HOW_MUCH_GAIN.finditer(text))
            ):
                continue  # "the biggest gain produced by T", "how much each partner gains
                # from T": a quantity, not a condition
            negated = bool(_NOT.search(text[: m.start()]))
            real = {">": "<=", "<": ">="}[op] if negated else op
            found.append({"value": {"treatment": t}, "op": real, "than": 0})
            taken.append(m.span())
    return found, used


_NAMED_THRESHOLD = re.compile(
    rf"\b(?:cutoff|cut-off|threshold|bar|benchmark|mark|line)\s+(?:of\s+|at\s+)?{_NUM}(?![\w.])"
    rf"|\b(?:taking|using|with|take|use|set|setting)\s+{_NUM}\s+as\s+(?:the|a|our|your)\s+"
    r"(?:bar|cutoff|cut-off|threshold|benchmark|mark|line)\b"
)
"""A threshold named first ("with a cutoff of 20, …", "taking 100 as the bar, …")."""
_BACK_TO_THRESHOLD = re.compile(
    rf"(?:{_OP_RE})\s*(?:than\s+)?(?:that|it|this|the\s+(?:bar|cutoff|cut-off|threshold|benchmark|mark|line))\b"
)
"""The comparison with it, said later: "higher than that", "meet or exceed it"."""


def _loose_conditions(text: str, treatment: str) -> tuple[list[dict[str, Any]], list[float]]:
    """Conditions a question about one treatment states without naming it again ("⟦1⟧:
    number of partners with a positive effect", "… effect > 20", "100 (inclusive)", "with
    a cutoff of 20, … higher than that")."""
    value = {"treatment": treatment}
    named = _NAMED_THRESHOLD.search(text)
    back = _BACK_TO_THRESHOLD.search(text, named.end()) if named else None
    if named and back:
        number = _number(next(g for g in named.groups() if g is not None))
        return [{"value": value, "op": _op_of(back), "than": number}], [number]
    m = _LOOSE_THRESHOLD.search(text)
    if m and not re.match(r"\s*(?:th|st|nd|rd)\b|-?th\b", text[m.end() :]):
        number_text = _number_text(m)
        op = _op_of(m)
        if m.group("trail") and "more" in m.group("trail") or m.group("inclusive"):
            op = ">="
        number = _number(number_text)
        return [{"value": value, "op": op, "than": number}], [number]
    m = _LOOSE_OR_MORE.search(text)
    if m:
        number = _number(m.group(1))
        return [{"value": value, "op": ">=", "than": number}], [number]
    m = _LOOSE_SIGN.search(text)
    if m and not _NOT.search(text[: m.start()]):
        negative = m.group(0).startswith("negative")
        return [{"value": value, "op": "<" if negative else ">", "than": 0}], []
    return [], []


def read_conditions(text: str, slots: list[Slot]) -> tuple[list[dict[str, Any]], list[float]]:
    """The conditions the wording puts on subjects (`comparisons`) and their numbers; when
    it compares nothing and names one treatment, the conditions it states without naming
    it again (`_loose_conditions`)."""
    conditions, used = comparisons(text, slots)
    treatments = {s.treatment for s in slots if s.treatment}
    if not conditions and len(treatments) == 1:
        return _loose_conditions(text, treatments.pop())
    return conditions, used


def read_difference(text: str, slots: list[Slot]) -> list[str] | None:
    """The two treatments of a difference the wording states ("⟦1⟧ minus ⟦2⟧", "how much
    more ⟦1⟧ gives than ⟦2⟧"), first minus second; None when it states none."""
    for pattern, swap in _DIFFERENCE:
        for m in pattern.finditer(text):
            i, j = _two_slots(m)
            a, b = _treatment_of(slots, i), _treatment_of(slots, j)
            again = m.groupdict().get("again")
            if again is not None and _treatment_of(slots, again) != a:
                continue
            if a and b and a != b:
                return [b, a] if swap or _says_less(m) else [a, b]
    return None


def _graph_variables(text: str, slots: list[Slot]) -> list[str]:
    """The variables named, each once ("… into ⟦b⟧, … or no effect on ⟦b⟧ at all")."""
    return list(dict.fromkeys(s.variable for s in slots if s.variable is not None))


def _asks_dependence(text: str) -> bool:
    """Whether a d-separation question asks about dependence ("are they still dependent",
    "any remaining dependence") rather than independence ("is there no dependence")."""
    m = re.search(
        r"\b(?<!in)dependen(?:t|ce)\b|\bd-?connect\w*|\bcorrelated\b|\btells?\s+(?:\w+\s+)?anything\b",
        text,
    )
    return bool(m) and not re.search(
        r"\b(?:no|not|n't|never|without)\s+(?:\w+\s+)?$", text[: m.start()]
    )


def _given_clause(text: str, slots: list[Slot], given_at: re.Match[str]) -> list[str]:
    """The conditioning set: the names right after "given" (up to the next clause)."""
    rest = text[given_at.end() :]
    stop = re.search(
        r"[;?|]|,(?!\s*(?:and\s+)?⟦)|\b(?:are|is|do|does|will|would|can|then|so|make|makes"
        r"|render|renders|leave|leaves|d-?separat\w*|separat\w*|block\w*|screens?|screening)\b",
        rest,
    )
    clause_end = given_at.end() + (stop.start() if stop else len(rest))
    return [s.variable for s in slots if s.variable and given_at.end() <= s.start < clause_end]


def conditioned_on(text: str, slots: list[Slot]) -> list[str | None] | None:
    """The variables the wording conditions on ("given ⟦z⟧", "once ⟦z⟧ is held fixed", "does
    ⟦z⟧ d-separate …"), None when it states no conditioning set (shared with the check)."""
    m = _SEPARATES.search(text) or _GIVEN_FIRST.search(text)
    if m:
        return [_slot(slots, i).variable for i in _SLOT_NUMBERS.findall(m.group(1))]
    given_at = _GIVEN.search(text)
    return _given_clause(text, slots, given_at) if given_at else None


def _graph_frame(text: str, slots: list[Slot], asked: str | None) -> Frame | None:
    names = _graph_variables(text, slots)
    if BLANKET.search(text) and len(names) == 1:
        return Frame("markov_blanket", variables=names)
    if EFFECT_KIND.search(text) and len(names) == 2:
        return Frame("effect_kind", variables=_cause_effect(text, slots, names))
    dsep = DEPENDENCE_WORDS.search(text)
    m = _SEPARATES.search(text)
    if m and len(names) >= 3:
        # "does ⟦z⟧ d-separate ⟦a⟧ and ⟦b⟧?": the conditioning set is the subject
        given = [_slot(slots, i).variable for i in _SLOT_NUMBERS.findall(m.group(1))]
        pair = [_slot(slots, m.group(2)).variable, _slot(slots, m.group(3)).variable]
        if None not in given + pair and len(set(given + pair)) == len(given) + 2:
            return Frame("d_separated", variables=pair, given=given)
    first = _GIVEN_FIRST.search(text) if dsep else None
    if first:
        # "once ⟦z⟧ is held fixed, do ⟦a⟧ and ⟦b⟧ become independent?"
        given = [_slot(slots, i).variable for i in _SLOT_NUMBERS.findall(first.group(1))]
        pair = [n for n in names if n not in given]
        if None not in given and len(pair) == 2:
            dependent = _asks_dependence(text)
            return Frame("d_connected" if dependent else "d_separated", variables=pair, given=given)
    if dsep and len(names) >= 2:
        given_at = _GIVEN.search(text)
        if given_at:
            after = _given_clause(text, slots, given_at)
            before = [s.variable for s in slots if s.variable and s.variable not in after]
        else:
            before = [s.variable for s in slots if s.variable]
            after = []
        if len(before) == 2 and (given_at or not after):
            dependent = _asks_dependence(text)
            return Frame(
                "d_connected" if dependent else "d_separated", variables=before, given=after
            )
        return None
    if ADJUST.search(text) and len(names) == 2:
        return Frame("adjustment_set", variables=_cause_effect(text, slots, names))
    if asked == "bool":
        # Yes/no questions about two variables are the paper's (is_cause, is_parent); the
        # three-variable ones below (on a path?) stay.
        names3 = len(names) == 3 and (ON_PATH.search(text) or MEDIATOR_WORDS.search(text))
        if not names3:
            return None
    if _CONFOUND.search(text) and len(names) == 2:
        return Frame("common_causes", variables=names)
    if COMMON_EFFECT.search(text) and len(names) == 2:
        return Frame("common_effects", variables=names)
    if len(names) == 3 and (ON_PATH.search(text) or MEDIATOR_WORDS.search(text)):
        # "Does ⟦1⟧ lie on a path from ⟦2⟧ to ⟦3⟧?", "Is ⟦1⟧ a mediator between ⟦2⟧ and ⟦3⟧?"
        pair = stated_direction(text, slots)
        if pair is None:
            m = re.search(r"\bbetween\s+⟦(\d+)⟧\s+and\s+⟦(\d+)⟧", text)
            pair = (
                (_slot(slots, m.group(1)).variable, _slot(slots, m.group(2)).variable)
                if m
                else None
            )
        if pair is None or None in pair or pair[0] == pair[1]:
            return None  # which is the middle one is not said: no guess
        middle = next((n for n in names if n not in pair), None)
        return Frame("on_path", variables=[middle, *pair]) if middle else None
    if MEDIATOR_WORDS.search(text) and len(names) == 2 and not re.search(r"\bhow\s+many\b", text):
        return Frame("mediators", variables=_cause_effect(text, slots, names))
    return None


_DIRECTION = [
    r"\bfrom\s+⟦(\d+)⟧\s+(?:\w+\s+){0,3}?(?:to|into|onto|on)\s+⟦(\d+)⟧",
    r"\b(?:effect|influence|impact)s?\s+(?:that\s+)?(?:of\s+)?⟦(\d+)⟧\s+(?:\w+\s+){0,2}?(?:on|upon|onto|to)\s+⟦(\d+)⟧",
    r"⟦(\d+)⟧\s*(?:→|->|=>)\s*⟦(\d+)⟧",
    r"\bregress\w*\s+(?:of\s+)?⟦(?P<b>\d+)⟧\s+on\s+⟦(?P<a>\d+)⟧",
    r"⟦(\d+)⟧(?:'s)?\s+(?:causal\s+)?(?:effects?|influences?|impacts?)\s+(?:on|through\s+to)\s+⟦(\d+)⟧",
    *THROUGH[:2],
    # "⟦m⟧ lies on a route by which ⟦a⟧ influences ⟦b⟧"
    r"\b(?:route|path|way|chain|channel|pathway|variable|node|factor|step|link|mechanism|process)s?\s+(?:by|through|via)\s+which\s+⟦(\d+)⟧\s+(?:\w+\s+)?"
    r"(?:influences?|affects?|reaches|drives?|impacts?|causes?|changes?|moves?|shapes?)\s+⟦(\d+)⟧",
    THROUGH[2],
    # "⟦a⟧ on ⟦b⟧: direct or indirect?"
    r"(?:^|[:;,]\s*)⟦(\d+)⟧\s+(?:on|upon)\s+⟦(\d+)⟧\s*(?:[:;,?-]|$)",
    r"\bhow\s+(?:much\s+)?⟦(\d+)⟧\s+(?:impacts?|affects?|influences?|changes?|drives?|moves?)\s+⟦(\d+)⟧",
    # "does ⟦a⟧ act on ⟦b⟧ by way of ⟦m⟧?"
    r"(?:^|[,:;]\s*)(?:does|do|did|can|could|would|will)\s+⟦(\d+)⟧\s+(?:\w+\s+)?(?:act\s+on|affect|influence"
    r"|impact|drive|cause|change|reach|feed\s+into|lead\s+to|flow\s+into)\s+⟦(\d+)⟧",
    r"\b(?:whether|if)\s+⟦(\d+)⟧\s+(?:acts\s+on|affects|influences|impacts|drives|causes|changes"
    r"|reaches|feeds\s+into|leads\s+to|flows\s+into)\s+⟦(\d+)⟧",
    r"\bfor\s+⟦(\d+)⟧\s+on\s+⟦(\d+)⟧\s*(?:[:;,?.-]|$)",
    # "is ⟦m⟧ a mediator of ⟦a⟧ on ⟦b⟧?", "does ⟦m⟧ mediate ⟦a⟧'s effect on ⟦b⟧?"
    r"\bmediat\w*\s+(?:of\s+|for\s+)?(?:the\s+)?(?:(?:effect|influence|impact)s?\s+of\s+)?⟦(\d+)⟧(?:'s)?"
    r"\s+(?:(?:effect|influence|impact)s?\s+)?(?:on|upon|to)\s+⟦(\d+)⟧",
]


def stated_direction(text: str, slots: list[Slot]) -> tuple[str, str] | None:
    """The (cause, effect) variables a question states in so many words — "from ⟦a⟧ to
    ⟦b⟧", "the effect of ⟦a⟧ on ⟦b⟧", "⟦a⟧ → ⟦b⟧" — or None when it states none."""
    for pattern in _DIRECTION:
        m = re.search(pattern, text)
        if m:
            i, j = (m.group("a"), m.group("b")) if "a" in m.groupdict() else m.group(1, 2)
            a, b = _slot(slots, i).variable, _slot(slots, j).variable
            if a and b and a != b:
                return a, b
    return None


def marked_cause_effect(text: str, slots: list[Slot]) -> tuple[str, str] | None:
    """Two variables in cause → effect order as the wording marks it: `stated_direction`,
    or "⟦b⟧ … affected by ⟦a⟧" (passive); None when it marks no order."""
    pair = stated_direction(text, slots)
    if pair is not None:
        return pair
    m = re.search(
        r"⟦(\d+)⟧\s+(?:\w+\s+){0,4}?(?:(?:affected|influenced|caused|driven)\s+by|reached\s+(?:from|by))"
        r"\s+⟦(\d+)⟧",
        text,
    )
    if m:
        a, b = _slot(slots, m.group(2)).variable, _slot(slots, m.group(1)).variable
        if a and b and a != b:
            return a, b
    return None


def _cause_effect(text: str, slots: list[Slot], names: list[str]) -> list[str]:
    """Two variables in cause → effect order: as `marked_cause_effect` reads them; else as
    written."""
    pair = marked_cause_effect(text, slots)
    return list(pair) if pair is not None else names


def read_frame(question: str, grounding: Grounding, model: CausalModel) -> Frame | None:
    """The open operation `question` asks for, or None when it asks none of them (the
    paper's kinds: parents, paths, an average effect, a best treatment …)."""
    text, slots = slotted(question, grounding)
    asked = answer_type(spell_out(grounding.masked(question).casefold()))  # "best treatmnet"
    graph = _graph_frame(text, slots, asked)
    if graph is not None:
        return graph
    if model.effects is None:
        return None
    treatments = [s.treatment for s in slots if s.treatment]
    subjects = grounding.names("subject")
    conditions, used = read_conditions(text, slots)
    difference = read_difference(text, slots)
    stats = _stats(text)
    q = read_quantile(text)
    if asked == "variables" and (stats or q is not None) and not any(s.variable for s in slots):
        asked = None  # "what sits at the 10th percentile of ⟦1⟧'s effects": no variable named
    # "how big does ⟦1⟧'s effect get for the partner who responds most": a size asked,
    # whatever the relative clause names
    sized = bool(HOW_BIG.search(text))
    if sized or (asked == "bool" and re.match(r"\s*(?:by\s+)?how\s+much\b", text)):
        asked = "number"  # "by how much, typically, does … deviate …?": a size, not yes/no
    if (
        not sized
        and asked in (None, "number", "treatment")
        and re.search(
            rf"\b(?:which|who|whcih)\s+(?:\w+\s+)?{_SUBJ}\b|^\s*(?:[\w-]+\s+){{0,3}}?{_SUBJ}\s+(?:with|whose|that|who|where|for\s+which)\b"
            rf"|\b(?:max|maximum|top|best|highest|largest|biggest|min|minimum|lowest|smallest|worst)[-\s]+(?:\w+[-\s]+)?{_SUBJ}(?=\s*(?:[,.?;:!]|$))",
            text,
        )
    ):
        asked = "subject"  # "which partner gains the most …" ("partner gains" reads as a noun)
    if asked is None and re.search(
        r"^\s*(?:the\s+)?(?:treatment|intervention|option)\s+(?:with|that|which|whose)\b"
        r"|\brank\s+(?:the\s+|all\s+)?(?:treatments|interventions|options)\b"
        r"|^\s*of\s+(?:everything|all\s+(?:the\s+)?(?:things|options|levers))\s+(?:that\s+)?(?:we|you|i)\s+(?:could|can|might)"
        r"\s+(?:do|try|use|pull)\b"
        r"|^\s*(?:so\s+)?(?:what|which)\s+(?:one\s+|option\s+|treatment\s+)?works\s+(?:the\s+)?best\b",
        text,
    ):
        asked = "treatment"  # "treatment with the highest mean effect?", "rank the treatments …"
    share = bool(_SHARE.search(text)) and q is None  # "the value 10 percent of … fall below"
    count = bool(_COUNT.search(text))
    each = bool(_EACH.search(text))
    conditioned = {c["value"]["treatment"] for c in conditions} | {
        c["than"]["treatment"] for c in conditions if isinstance(c["than"], dict)
    }
    free = [
        t for t in dict.fromkeys(treatments) if t not in conditioned and t not in (difference or [])
    ]
    value: dict[str, Any] | None = None
    if difference:
        value = {"difference": difference}
        # The compared pair is the value asked for, not a condition on subjects.
        conditions = [
            c for c in conditions
            if not (isinstance(c["than"], dict) and {c["value"]["treatment"], c["than"]["treatment"]} == set(difference))
        ]  # fmt: skip
    elif len(free) == 1:
        value = {"treatment": free[0]}
    elif (
        not free
        and len(set(treatments)) == 1
        and (stats or q is not None)
        and re.search(rf"\b{_SUBJ}\s+(?:who|that|which|with|whose|where)\b", text)
    ):
        # "the average effect of ⟦1⟧ among partners who benefit from it"
        value = {"treatment": treatments[0]}
    where_frame = dict(conditions=conditions, used_numbers=used)
    if share:
        return Frame("share_subjects", **where_frame) if conditions else None
    if count and conditions:
        return Frame("count_subjects", **where_frame)
    if difference and len(subjects) == 1:
        return Frame("subject_value", value=value, subject=subjects[0], **where_frame)
    extreme = ("min" in stats) != ("max" in stats) and asked in ("number", None)
    named_stat = q is not None or bool(stats)
    if each and value is not None and not subjects and not extreme and not named_stat:
        return Frame("subject_values", value=value, **where_frame)
    lowest = "min" in stats and "max" not in stats
    if asked == "treatment" and stats:
        # The average is the paper's best_treatment; other statistics rank here.
        named = [s for s in stats if s not in ("min", "max", "mean")]
        if named and not difference and not treatments:
            return Frame("rank_treatments", stat=named[0], lowest=lowest, **where_frame)
        if (
            stats == [s for s in stats if s in ("min", "max", "mean")]
            and "mean" in stats
            and ("min" in stats) != ("max" in stats)
            and not difference
            and not treatments
            and not conditions
        ):
            # "the treatment with the highest mean effect": the paper's best treatment
            return Frame("best_treatment", lowest=lowest, **where_frame)
        return None
    if (
        asked == "subject"
        and "mean" in stats
        and not {"min", "max"} & set(stats)
        and not words_of(text) & {"which", "who", "whom", "whose"}
    ):
        asked = None  # "the mean per-partner difference": a number, not a subject
    if asked == "subject" and difference:
        return Frame("rank_subjects", value=value, lowest=lowest, **where_frame)
    superlative = bool(_SUPERLATIVE.search(text))
    if asked == "subject" and conditions and not subjects and not stats and not superlative:
        if _WHICH_SUBJECTS.search(text):
            return Frame("list_subjects", **where_frame)
    if asked in ("number", None) and value is not None and not subjects:
        named = [s for s in stats if s not in ("min", "max", "mean")]
        if q is not None:
            named = ["quantile"]
        if named:
            return Frame("summarize", stat=named[0], q=q, value=value, **where_frame)
        if ("min" in stats) != ("max" in stats) and "mean" not in stats:
            if sized or not re.search(
                r"\b(?:which|who|whom|whose)\b(?!\s+(?:value|number|figure|amount|effect)\b)", text
            ):
                # the extreme of one treatment's effect is over the subjects
                return Frame(
                    "summarize", stat="min" if lowest else "max", value=value, **where_frame
                )
            return None
        if "min" in stats or "max" in stats:
            return None
        if difference or conditions:
            return Frame("summarize", stat="mean", value=value, **where_frame)
    if conditions and not subjects and asked is None and _WHICH_SUBJECTS.search(text):
        return Frame("list_subjects", **where_frame)
    return None


def plan_of(frame: Frame, grounding: Grounding) -> dict[str, Any] | None:
    """The plan (one step of a query tool) that computes `frame`, with the question's
    filter as its `where`; None when the frame lacks an argument its tool needs."""
    where = (
        {"filter": grounding.where.filter, "value": grounding.where.value}
        if grounding.where is not None
        else None
    )
    v = frame.variables
    args: dict[str, Any]
    match frame.kind:
        case "markov_blanket":
            args = {"variable": v[0]}
        case "effect_kind":
            args = {"cause": v[0], "effect": v[1]}
        case "d_separated" | "d_connected":
            args = {"a": v[0], "b": v[1], "given": list(frame.given)}
        case "adjustment_set":
            args = {"treatment": v[0], "outcome": v[1]}
        case "common_causes" | "common_effects":
            args = {"a": v[0], "b": v[1]}
        case "on_path":
            args = {"variable": v[0], "source": v[1], "target": v[2]}
        case "mediators":
            args = {"source": v[0], "target": v[1]}
        case "count_subjects" | "share_subjects" | "list_subjects":
            args = {"conditions": frame.conditions}
        case "subject_value":
            if frame.value is None or frame.subject is None:
                return None
            args = {"value": frame.value, "subject": frame.subject}
        case "subject_values":
            if frame.value is None:
                return None
            args = {"value": frame.value, "conditions": frame.conditions}
        case "best_treatment":
            args = {"lowest": frame.lowest}
        case "rank_treatments":
            args = {
                "stat": frame.stat,
                "k": frame.k,
                "lowest": frame.lowest,
                "conditions": frame.conditions,
            }
        case "rank_subjects":
            if frame.value is None:
                return None
            args = {
                "value": frame.value,
                "k": frame.k,
                "lowest": frame.lowest,
                "conditions": frame.conditions,
            }
        case "summarize":
            if frame.value is None or frame.stat is None:
                return None
            args = {"value": frame.value, "stat": frame.stat, "conditions": frame.conditions}
            if frame.stat == "quantile":
                if frame.q is None:
                    return None
                args["q"] = frame.q
        case _:
            return None
    if where is not None and frame.kind in _TABLE_KINDS and frame.kind != "subject_value":
        args["where"] = where
    if not args.get("conditions", True):
        del args["conditions"]
    return {"steps": [{"tool": frame.kind, "args": args}]}


_TABLE_KINDS = {
    "count_subjects", "share_subjects", "list_subjects", "subject_value", "subject_values",
    "rank_treatments", "rank_subjects", "summarize", "best_treatment",
}  # fmt: skip


def _two_treatments() -> list[Slot]:
    """Slots ⟦1⟧ = treatment T and ⟦2⟧ = treatment U (for the doctests below)."""
    return [Slot(1, 0, 0, None, "T", None), Slot(2, 0, 0, None, "U", None)]


def _three_variables(text: str = "") -> list[Slot]:
    """Slots ⟦1⟧, ⟦2⟧, ⟦3⟧ = variables A, B, Z where `text` has them (for the doctests
    below)."""
    slots = []
    for i, name in enumerate("ABZ", 1):
        at = text.find(f"⟦{i}⟧")
        slots.append(Slot(i, at, at + 3, name, None, None))
    return slots


__test__ = {
    "statistics": """
    >>> _stats("the median effect of ⟦1⟧"), _stats("the smallest uplift"), _stats("on average")
    (['median'], ['min'], ['mean'])
    >>> _stats("the top individual effect"), _stats("the top 3 partners")
    (['max'], [])
    >>> read_quantile("the 90th percentile"), read_quantile("the lower quartile")
    (0.9, 0.25)
    >>> read_quantile("below what effect do 10 percent of partners fall")
    0.1
    >>> [read_quantile(t) for t in ("the top quartile", "the first quartile", "the second quartile")]
    [0.75, 0.25, 0.5]
    >>> [read_quantile(t) for t in ("percentile 90", "the 0.9 quantile", "the quantile of 0.9")]
    [0.9, 0.9, 0.9]
    >>> read_quantile("the value that 10% of partners fall below")
    0.1
    """,
    "count, share, each": """
    >>> [bool(_COUNT.search(t)) for t in ("how many partners gain", "the number of clients")]
    [True, True]
    >>> [bool(_SHARE.search(t)) for t in ("what share of partners", "as a percentage", "how")]
    [True, True, False]
    >>> [bool(_EACH.search(t)) for t in ("for each partner", "per partner", "one by one", "all")]
    [True, True, True, False]
    """,
    "comparisons": """
    >>> comparisons("partners who gain more from ⟦1⟧ than from ⟦2⟧", _two_treatments())[0]
    [{'value': {'treatment': 'T'}, 'op': '>', 'than': {'treatment': 'U'}}]
    >>> comparisons("an effect of ⟦1⟧ of at least 5", _two_treatments())
    ([{'value': {'treatment': 'T'}, 'op': '>=', 'than': 5.0}], [5.0])
    >>> comparisons("partners who are hurt by ⟦1⟧", _two_treatments())[0]
    [{'value': {'treatment': 'T'}, 'op': '<', 'than': 0}]
    >>> comparisons("partners who do not benefit from ⟦1⟧", _two_treatments())[0]
    [{'value': {'treatment': 'T'}, 'op': '<=', 'than': 0}]
    >>> read_conditions("⟦1⟧: number of partners with effect > 20", _two_treatments()[:1])[0]
    [{'value': {'treatment': 'T'}, 'op': '>', 'than': 20.0}]
    """,
    "differences": """
    >>> read_difference("how much more do partners gain from ⟦1⟧ than from ⟦2⟧", _two_treatments())
    ['T', 'U']
    >>> read_difference("⟦1⟧ minus ⟦2⟧", _two_treatments())
    ['T', 'U']
    >>> read_difference("switching from ⟦1⟧ to ⟦2⟧", _two_treatments())
    ['U', 'T']
    >>> read_difference("the effect of ⟦1⟧", _two_treatments()) is None
    True

    Each wording of a family (one pattern, `any_of`), first minus second:

    >>> firsts = (
    ...     "the difference between ⟦1⟧ and ⟦2⟧", "the ⟦1⟧-minus-⟦2⟧ gap",
    ...     "⟦1⟧ over ⟦2⟧: which partner has the biggest advantage", "⟦1⟧'s effect − ⟦2⟧",
    ...     "by how much does ⟦1⟧ exceed ⟦2⟧", "⟦1⟧ beats ⟦2⟧ by how much",
    ...     "the amount by which ⟦1⟧ exceeds ⟦2⟧", "the difference, ⟦1⟧ - ⟦2⟧",
    ...     "⟦1⟧ vs ⟦2⟧, the mean gap", "the advantage of ⟦1⟧ over ⟦2⟧",
    ...     "the partner with max (⟦1⟧ - ⟦2⟧)", "where does ⟦1⟧ have its biggest edge over ⟦2⟧",
    ...     "how does ⟦1⟧ stack up against ⟦2⟧ on average, as a difference",
    ...     "the effect under ⟦1⟧ minus its effect under ⟦2⟧", "cate(⟦1⟧) - cate(⟦2⟧)",
    ...     "the effect of ⟦1⟧ − the effect of ⟦2⟧",
    ...     "how much more uplift does ⟦1⟧ deliver compared with ⟦2⟧", "choosing ⟦1⟧ over ⟦2⟧",
    ...     "the effect of ⟦1⟧ net of the effect of ⟦2⟧",
    ...     "compare ⟦1⟧ with ⟦2⟧: what is the mean difference",
    ...     "the uplift from ⟦1⟧ furthest above the uplift from ⟦2⟧", "⟦1⟧ outperforms ⟦2⟧ the most",
    ...     "the mean difference in individual effects, ⟦1⟧ versus ⟦2⟧", "⟦1⟧ instead of ⟦2⟧",
    ...     "the gain from ⟦1⟧ relative to ⟦2⟧",
    ... )
    >>> [t for t in firsts if read_difference(t, _two_treatments()) != ['T', 'U']]
    []
    >>> seconds = ("moving partners from ⟦1⟧ to ⟦2⟧", "subtract the effect of ⟦1⟧ from that of ⟦2⟧")
    >>> [read_difference(t, _two_treatments()) for t in seconds]
    [['U', 'T'], ['U', 'T']]
    """,
    "graph": """
    >>> text = "are ⟦1⟧ and ⟦2⟧ independent given ⟦3⟧"
    >>> conditioned_on(text, _three_variables(text))
    ['Z']
    >>> conditioned_on("once ⟦3⟧ is held fixed, are ⟦1⟧ and ⟦2⟧ independent", _three_variables())
    ['Z']
    >>> stated_direction("the effect of ⟦2⟧ on ⟦1⟧", _three_variables())
    ('B', 'A')
    >>> stated_direction("⟦1⟧ -> ⟦2⟧", _three_variables()), stated_direction("⟦1⟧ and ⟦2⟧", [])
    (('A', 'B'), None)
    >>> [bool(_CONFOUND.search(t)) for t in ("what confounds ⟦1⟧", "shared parents", "the parents")]
    [True, True, False]
    """,
}
