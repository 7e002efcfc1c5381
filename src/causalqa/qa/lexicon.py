"""The words the question reader knows, in one place: the normaliser every reader's
offsets refer to, negations, number words, the nouns that name subjects, treatments,
variables and effects, the words that compare and rank, and the quantity words the typo
corrector knows. Grounding, the frame, the check and the cues build their patterns from
these lists (`alternation`), so a word added here is read everywhere at once.

Nothing here knows about causal models or plans; the number words and negations are
general English, for any engine that reads text (`causalqa.stated` may reuse them).

>>> normalize("  What’s the “median”   effect? ")
'what s the median effect?'
>>> number_value("twenty"), number_value("1,000")
(20.0, 1000.0)
>>> import re
>>> bool(re.fullmatch(alternation(SUBJECT_NOUNS, plural=True), "companies"))
True
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import partial

# -- the normaliser ------------------------------------------------------------------------


def normalize(text: str) -> str:
    """The text form every reader's offsets refer to: NFKC, case-folded, quotes dropped,
    runs of white space folded to one."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[\"“”‘’`]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def alternation(words: Iterable[str], *, plural: bool = False) -> str:
    """A non-capturing regex alternation of `words` (a space inside a word matches any
    white space); with `plural`, each word also in its plural form ("partner" → "partners?",
    "company" → "compan(?:y|ies)", "person" → "person|persons|people")."""
    forms = []
    for word in words:
        escaped = r"\s+".join(re.escape(w) for w in word.split())
        if plural and word in IRREGULAR_PLURALS:
            forms.append(f"{escaped}|{IRREGULAR_PLURALS[word]}")
        elif plural and word.endswith("y") and word[-2:-1] not in "aeiou":
            forms.append(f"{escaped[:-1]}(?:y|ies)")
        elif plural and not word.endswith("s"):
            forms.append(f"{escaped}s?")
        else:
            forms.append(escaped)
    return "(?:" + "|".join(forms) + ")"


def any_of(patterns: Iterable[str]) -> re.Pattern[str]:
    """One pattern that finds what any of `patterns` finds (a family of wordings, one
    alternative each)."""
    return re.compile("|".join(f"(?:{p})" for p in patterns))


IRREGULAR_PLURALS = {"person": "persons|people", "child": "children"}


def forms(words: Iterable[str], *, plural: bool = False) -> frozenset[str]:
    """The single words `alternation(words, plural=plural)` matches, as a set: a word test
    without a pattern ("partners" in forms(SUBJECT_NOUNS, plural=True))."""
    return frozenset(words) | (frozenset(plurals(words)) if plural else frozenset())


_WORD_RUN = re.compile(r"\w+")


def word_spans(text: str) -> list[re.Match[str]]:
    """The words of `text` (its maximal runs of word characters) with their offsets: a word
    is in `text` as ``\\bword\\b`` finds it exactly when it is one of these."""
    return list(_WORD_RUN.finditer(text))


def words_of(text: str) -> set[str]:
    """The words of `text` (`word_spans`), as a set."""
    return {m.group() for m in word_spans(text)}


def plurals(words: Iterable[str]) -> tuple[str, ...]:
    """The plural forms of `words` ("company" → "companies", "person" → "persons",
    "people")."""
    out: list[str] = []
    for word in words:
        if word in IRREGULAR_PLURALS:
            out += IRREGULAR_PLURALS[word].split("|")
        elif word.endswith("s"):
            out.append(word)
        elif word.endswith("y") and word[-2:-1] not in "aeiou":
            out.append(word[:-1] + "ies")
        else:
            out.append(word + "s")
    return tuple(out)


# -- general English -----------------------------------------------------------------------

NEGATIONS = frozenset(
    {
        "not", "no", "never", "without", "non", "haven't", "hasn't", "havent", "hasnt",
        "aren't", "isn't", "arent", "isnt", "weren't", "wasn't", "don't", "doesn't",
        "didn't", "yet",
    }
)  # fmt: skip
"""Words that negate what follows them ("partners not yet engaged")."""

NUMBER_WORDS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "twenty": 20, "fifty": 50, "hundred": 100,
}  # fmt: skip
"""Numbers people write as words in a question ("one" is left out: "the one in the
middle", "which one" are not numbers)."""


def number_value(text: str) -> float:
    """The value of a number as written: digits (with thousands commas) or a number word."""
    t = text.replace(",", "")
    return float(NUMBER_WORDS[t]) if t in NUMBER_WORDS else float(t)


NUMBER = r"(-?\d+(?:[.,]\d+)*(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")"
"""A written number, as one capturing group."""

# -- what a question talks about -----------------------------------------------------------

SUBJECT_NOUNS = (
    "partner", "subject", "customer", "client", "patient", "account", "user", "company",
    "member", "firm", "unit", "individual", "person",
)  # fmt: skip
"""Nouns for the rows of an effects table (plural forms by `alternation`)."""
PLAIN_SUBJECT_NOUNS = tuple(w for w in SUBJECT_NOUNS if w != "individual")
"""The subject nouns that are never adjectives ("the top individual effect")."""
ROW_NOUNS = ("row", "id")
"""Nouns for a subject's row or its id ("partner ID 7", "the rows where …")."""
SUBJECT_PRONOUNS = ("ones", "of them", "of those")
"""What stands for subjects named before ("how many of them …")."""

TREATMENT_NOUNS = (
    "engagement", "treatment", "program", "programme", "intervention", "action", "offer",
    "option", "initiative", "campaign", "strategy", "lever", "service", "incentive",
)  # fmt: skip
"""Nouns for the treatments of an effects table."""

VARIABLE_NOUNS = (
    "variable", "node", "factor", "feature", "mediator", "intermediary", "parent", "child",
    "ancestor", "descendant", "predecessor", "successor", "driver", "outcome", "channel",
    "mechanism", "pathway", "path", "route", "chain", "consequences", "determinants",
)  # fmt: skip
"""Nouns for the graph's variables and the roles they play."""

EFFECT_NOUNS = (
    "effect", "impact", "uplift", "lift", "gain", "benefit", "return", "response", "payoff",
)  # fmt: skip
"""Nouns for a treatment's effect on a subject."""

# -- comparing and ranking ----------------------------------------------------------------

MORE_WORDS = ("more", "better", "higher", "larger", "bigger", "greater", "stronger", "further")
LESS_WORDS = ("less", "worse", "lower", "smaller", "weaker")
"""Comparatives: one side above the other ("gains more from T than from U")."""

HIGH_WORDS = ("largest", "maximum", "maximal", "highest", "biggest", "greatest", "strongest")
LOW_WORDS = ("smallest", "minimum", "minimal", "lowest", "least", "weakest", "worst")
"""Superlatives of either end (each reader adds the looser words it accepts: "best",
"top", "bottom", "argmax" …)."""

OUTDO_VERBS = r"beat(?:s|ing)?|surpass\w*|outperform\w*|clear(?:s|ing)?"
"""Verbs that compare with a number ("beats 20", "clearing 20"): the frame's ">", the
check's threshold demand, and not a subject id after them."""

# -- the typo corrector's vocabulary ------------------------------------------------------

QUANTITY_WORDS = (
    "median", "minimum", "maximum", "average", "percentile", "quantile", "quartile", "decile",
    "deviation", "variance", "standard", "fraction", "proportion", "percentage", "confound",
    "confounds", "confounder", "confounders", "confounding", "mediator", "mediators",
    "mediate", "mediates", "independent", "independence", "dependent", "adjust", "adjustment",
    "control", "correlation", "correlated", "probability", "likelihood", "interquartile",
    "markov", "blanket", "common", "effects", "smallest", "largest", "highest", "lowest",
    "which", "partners", "partner", "treatment", "treatments", "individual", "separated",
    "exceed", "exceeds", "exceeding", "greater", "higher", "positive", "negative", "benefit",
    "difference", "relative", "compared", "covariates", "threshold", "spread",
)  # fmt: skip
"""Words that ask for a quantity or an operation: a mistyped word close to one of them
is corrected to it before the question is read ("minimun" → "minimum")."""

# -- grounding: words that are never names, and the words of a filter ---------------------

COMMON_WORDS = frozenset(
    {
        # function words and question words
        "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "by", "from",
        "at", "is", "are", "was", "were", "be", "does", "do", "did", "can", "could", "would",
        "should", "will", "which", "what", "who", "whom", "whose", "how", "why", "when",
        "where", "if", "i", "we", "you", "our", "my", "me", "us", "it", "its", "that", "this",
        "these", "those", "list", "show", "tell", "give", "name", "find", "yes", "no", "ok",
        "please",
        # the nouns of the domain
        "partner", "partners", "subject", "subjects", "customer", "customers", "patient",
        "patients", "client", "clients", "variable", "variables", "treatment", "treatments",
        "engagement", "engagements", "intervention", "interventions", "program", "programs",
        "average", "effect", "effects",
        # the causal-inference shorthand analysts write in capitals: "the median CATE of T"
        "ate", "ite", "ates", "ites", "cate", "cates", "dag", "dags", "scm", "markov",
        "blanket", "bayes", "bayesian", "pearl",
    }
)  # fmt: skip
"""Words that start questions or are common in them: never taken for an unknown name."""

FILTER_SYNONYMS = {
    "engaged": [
        "engaged", "engage", "worked with", "treated", "enrolled", "onboarded", "contacted",
        "signed up", "in a program", "in the program", "in any program",
    ],
}  # fmt: skip
"""Ways of saying a yes/no column's state, by the column's last word."""
FILTER_NOUNS = {
    "engaged": ["engagement", "engagements", "program", "programs", "programme", "enrollment"],
}
"""Nouns a yes/no column's state is talked about with ("partners with no program so far"):
alone they name treatments, so they count as the filter only with a negation or a
`STATE_WORDS` word."""
STATE_WORDS = frozenset({"existing", "current", "prior", "previous", "ongoing", "active"})
EXCLUSIONS = frozenset(
    {
        "excluding", "exclude", "excludes", "excl", "except", "besides", "minus", "ignoring",
        "ignore", "omit",
    }
)  # fmt: skip
"""Words that put a group outside the filter: "excluding already-engaged partners"."""

# -- spelling: abbreviations written out, typos corrected ----------------------------------

ABBREVIATED_WORDS = {
    "avg.": "average", "pctl.": "percentile", "pctls.": "percentile", "pctile": "percentile",
    "pctiles": "percentile", "ptile": "percentile", "standard-deviation": "standard deviation",
    "inter-quartile": "interquartile", "peak": "maximum", "corr.": "correlation",
    "correl": "correlation", "prob.": "probability", "probab.": "probability",
    "diff.": "difference", "diffs.": "difference", "modal": "mode", "min.": "minimum",
    "max.": "maximum", "w/o": "without",
}  # fmt: skip
"""Words written short, and the word they stand for; a trailing "." marks one that may be
written with a period ("avg."), which goes with it."""
_ABBREVIATED = re.compile(
    r"\b("
    + "|".join(re.escape(w.rstrip(".")) for w in sorted(ABBREVIATED_WORDS, key=len, reverse=True))
    + r")\b(\.?)"
)


def _write_out(m: re.Match[str]) -> str:
    word, period = m.group(1), m.group(2)
    if word + "." in ABBREVIATED_WORDS:
        return ABBREVIATED_WORDS[word + "."]
    return ABBREVIATED_WORDS[word] + period


def rewrites(rules: Iterable[tuple[str, str]]) -> Callable[[str], str]:
    """One pass of text rewrites from a table of (pattern, replacement) rules: the rules
    are alternatives of one pattern, each match replaced by its rule's replacement (a
    template: ``\\g<name>`` for a named group of that rule). One pass equals the rules
    applied one after another when no rule's output is found by another rule and their
    matches do not overlap (each table below is such a family)."""
    table = list(rules)
    pattern = re.compile("|".join(f"(?P<_{i}>{p})" for i, (p, _) in enumerate(table)))

    def rewrite(text: str) -> str:
        return pattern.sub(lambda m: m.expand(table[int(m.lastgroup[1:])][1]), text)

    return rewrite


_ABBREVIATIONS: list[Callable[[str], str]] = [
    # abbreviations read in context, in order (after `ABBREVIATED_WORDS`)
    rewrites(
        [
            (r"\bmed\b\.?(?=\s+(?:effect|uplift|impact|of))", "median"),
            (r"\bstd\.?\s*dev\w*\b|\bstdev\b|\bsd\b", "standard deviation"),
            (r"\bvar\b\.?(?=\s+(?:of|in)\b)", "variance"),
            (r"\b(?P<nth>\d{1,2}(?:st|nd|rd|th))\s+pct\b\.?", r"\g<nth> percentile"),
            (r"\bpct\b\.?|\bper\s*cent\b", "percent"),
            (r"\b(?P<nth_>\d{1,2}(?:st|nd|rd|th))-(?=percentile|quantile)", r"\g<nth_> "),
        ]
    ),
    # the extremes described: "how high does it get, at most?", "how far down does it go
    # at its very bottom?", "where is the floor"
    partial(
        re.compile(
            r"(\bhow\s+(?:(?P<high>high|large|big|far\s+up)|low|small|far\s+down)\b[^?.!]*?),?\s+at\s+"
            r"(?:the\s+)?(?:very\s+)?(?(high)most|least)(?=\s*[?.!]?\s*$)"
        ).sub,
        lambda m: m.group(1) + (" maximum" if m.group("high") else " minimum"),
    ),
    rewrites(
        [
            (r"\b(?:at\s+)?its\s+(?:very\s+)?(?:bottom|lowest\s+point)\b", "minimum"),
            (r"\b(?:the|its)\s+floor\b", "the minimum"),
            (r"\b(?:the|its)\s+ceiling\b", "the maximum"),
            (r"\bp(?P<p>\d{1,2})\b", r"\g<p>th percentile"),
            (r"\bq(?P<q>[1-3])\b", r"quartile \g<q>"),
            (r"\bconf\.?(?=\s)", "confounders"),
            (r"\bindep\.?(?=\s|$)", "independent"),
            (r"\bp\(\s*(?=\w)", "probability of ("),
            (r"\bhow\s+likely\b|\bwhat\s+(?:are\s+the\s+)?(?:odds|chances?)\b", "what probability"),
            (r"\bw/(?=\s)", "with"),
            (r"\bno\.\s+of\b|#\s*of\b", "number of"),
            (
                r"\btally\s+(?:up\s+)?(?:of\s+)?(?=(?:\w+\s+){0,2}?(?:partners|subjects|customers|clients))",
                "number of ",
            ),
        ]
    ),
    # ways of naming a statistic without its name
    rewrites(
        [
            (r"\bindividual\s+treatment\s+effects?\b", "individual effect"),
            (
                r"\bmiddle\s+(?:half|50\s*(?:%|percent))\b|\bcentral\s+half\b",
                "interquartile range",
            ),
            (
                r"\b(?:middle|midpoint|central)\s+(?:value|point|effect|number)\b|\b50th\s+percentile\b",
                "median",
            ),
            (
                r"\b(?:occurs?|appears?|shows?\s+up|comes?\s+up|happens?|recurs?)\s+(?:the\s+)?most"
                r"\s+(?:often|frequently)\b|\bmost\s+(?:frequent|often\s+seen|repeated)\b",
                "mode",
            ),
            (r"\bhow\s+probable\b|\bprobable\b", "what probability"),
        ]
    ),
]  # fmt: skip
"""The rewrites of `spell_out`, pass by pass: within a pass the rules neither overlap nor
find each other's output ("p50" becomes "50th percentile" in the second pass, and the
third reads that as the median)."""


def spell_out(text: str) -> str:
    """`text` with abbreviations written out ("avg" → "average", "p90" → "90th
    percentile", "std dev" → "standard deviation") and mistyped quantity words corrected
    ("minimun" → "minimum", "confunds" → "confounds"): so a typo cannot hide what a
    question asks from the frame or from the check."""
    from rapidfuzz import fuzz, process

    text = _ABBREVIATED.sub(_write_out, text)
    for rewrite in _ABBREVIATIONS:
        text = rewrite(text)

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if len(word) < 5 or word in QUANTITY_WORDS:
            return word
        if any(word.startswith(w) for w in QUANTITY_WORDS if len(w) >= 5):
            return word  # a derived word ("individually"), not a typo of its stem
        if any(w.startswith(word) for w in QUANTITY_WORDS):
            return word  # a word of its own that a listed one extends ("effect", "compare")
        same_start = [w for w in QUANTITY_WORDS if w[0] == word[0]]
        hit = process.extractOne(word, same_start, scorer=fuzz.ratio, score_cutoff=85)
        return hit[0] if hit else word

    return re.sub(r"(?<![⟦\w])[a-z]+(?![\w⟧])", fix, text)


# -- phrases that name what a question asks (read on the question with its names as
# slots, ``⟦1⟧``; shared by the frame, which reads them, and the check, which demands them)

STD = re.compile(
    r"\bstandard\s+deviation\b|\bstd\b|\bspread\b|\bvariability\b|\bsigma\b|σ(?![\w(])"
)
"""Words for a standard deviation (shared with the check's demand)."""
MEDIAN = re.compile(
    r"\bmedians?\b|\bmiddle\s+value\b|\bvalue\s+(?:that\s+(?:sits|lies|falls)\s+)?(?:right\s+|exactly\s+)?in\s+the\s+middle\b"
    r"|\bwhat\s+(?:value|number|figure|amount|effects?|uplift|impact|gain|lift)\s+(?:\w+\s+){0,2}?(?:sits?|lies|falls?|is|lands?)"
    r"\s+(?:right\s+|exactly\s+)?in\s+the\s+middle\b"
    r"|\bhalf\b[^?.!;]*\b(?:more|above|higher)\s+than\s+what\b"
    # "if you lined up every partner by …, what would the one in the middle get?"
    r"|\b(?:line[sd]?\s+up|lined\s+up|lining\s+up|sort\w*|rank\w*|order\w*)\b[^?!;]*\b(?:one|partner|subject|person|value)"
    r"\s+(?:right\s+|exactly\s+)?in\s+the\s+middle\b"
)
"""Words for a median, said or described ("what value sits in the middle", "half get more
than what"; not a variable "in the middle" of a path). Shared with the check's demand."""
VARIANCE = re.compile(r"\bvariance\b")
SUM = re.compile(r"\bsum\b|\bsummed\b|\bin\s+total\b|\baltogether\b|\bcombined\b")
"""Words for a total over subjects (the frame adds "the total … across")."""
SUPERLATIVE = re.compile(
    rf"\b{alternation(('most', 'best', 'top', 'bottom') + HIGH_WORDS + LOW_WORDS)}\b(?<!at\sleast)"
)
"""Either end of a ranking, in words ("at least" is not one)."""
QUANTILE = re.compile(r"\b(?:percentile|quantile|quartile|decile)s?\b")
HOW_MUCH_GAIN = re.compile(r"\bhow\s+much\s+(?:\w+\s+){0,3}?(?:gain|benefit|profit)\w*\b")
""""How much … gains": the size of a gain asked, not a condition on its sign."""


CAUSES_OF_BOTH = (
    r"\bupstream\s+of\s+both\b|\b(?:ancestors?|causes?)\s+of\s+both\s+⟦"
    r"|\b(?:jointly|together)\s+(?:cause|affect|influence|drive|impact|determine)s?\s+⟦\d+⟧\s+and\s+⟦\d+⟧"
    r"|\b(?:which|what)\s+(?:\w+\s+){0,2}?(?:causes?|affects?|influences?|drives?|impacts?|shapes?)\s+both"
    r"\s+⟦\d+⟧\s+and\s+⟦\d+⟧"
)
"""Wordings of the causes two variables share ("what jointly drives ⟦1⟧ and ⟦2⟧")."""
EFFECTS_OF_BOTH = r"\b(?:descendants?|consequences?|children)\s+of\s+both\s+⟦"
""""The descendants of both ⟦1⟧ and ⟦2⟧" (shared with the check)."""


COMMON_EFFECT = re.compile(
    r"\bcommon\s+(?:effects?|consequences?|descendants?|children|outcomes?)\b|\bcollider\w*"
    r"|\bshared\s+(?:downstream\s+)?(?:effects?|consequences?|descendants?|children|outcomes?)\b"
    r"|\b(?:affected|influenced|caused|driven|impacted|moved|changed|shaped|pushed|touched)\s+by\s+both\b"
    rf"|{EFFECTS_OF_BOTH}"
    r"|\bboth\s+⟦\d+⟧\s+and\s+⟦\d+⟧\s+(?:\w+\s+)?(?:affect|influence|cause|lead\s+to|drive|change"
    r"|impact|feed\s+into|point\s+to)\b|\bdownstream\s+of\s+both\b"
    r"|\bhave\s+both\s+⟦\d+⟧\s+and\s+⟦\d+⟧\s+as\s+(?:causes|parents|ancestors|inputs|drivers)\b"
    r"|\b(?:affected|influenced|caused|driven|impacted)\s+by\s+⟦\d+⟧\s+(?:as\s+well\s+as|and(?:\s+also)?)\s+(?:by\s+)?⟦\d+⟧"
)
"""Words for the common effects of two variables (shared with the check)."""
THROUGH = (
    # "is ⟦m⟧ downstream of ⟦a⟧ and upstream of ⟦b⟧", either way round
    r"\bdownstream\s+(?:of|from)\s+⟦(?P<a>\d+)⟧\s+(?:\w+\s+){0,3}?upstream\s+(?:of|from)\s+⟦(?P<b>\d+)⟧",
    r"\bupstream\s+(?:of|from)\s+⟦(?P<b>\d+)⟧\s+(?:\w+\s+){0,3}?downstream\s+(?:of|from)\s+⟦(?P<a>\d+)⟧",
    # "⟦a⟧ -> ... -> ⟦m⟧ -> ... -> ⟦b⟧"
    r"⟦(?P<a>\d+)⟧\s*(?:->|→)\s*(?:\.\.\.|…)\s*(?:->|→)\s*⟦\d+⟧\s*(?:->|→)\s*(?:\.\.\.|…)\s*(?:->|→)\s*⟦(?P<b>\d+)⟧",
)
"""Wordings of a route from ⟦a⟧ to ⟦b⟧ through a third variable: they make a question an
on-path one (`ON_PATH`, groups dropped) and state its direction (`_DIRECTION`)."""
ON_PATH = re.compile(
    r"\b(?:lie|lies|sit|sits|located|fall|falls|be|is|are|it)\s+(?:on|along)\s+(?:a|the|any|some|every)\s+"
    r"(?:(?:causal|directed)\s+){0,2}(?:path|route|chain|pathway)\b"
    r"|^\s*(?:is|does|do)\s+⟦\d+⟧\s+(?:\w+\s+)?on\s+(?:a|the|any|some|every)\s+(?:(?:causal|directed)\s+){0,2}(?:path|route|chain|pathway)\b"
    # "⟦m⟧ on a causal path ⟦a⟧ -> ⟦b⟧? y/n"
    r"|^\s*⟦\d+⟧\s+(?:on|along)\s+(?:a|the|any|some)\s+(?:(?:causal|directed)\s+){0,2}(?:path|route|chain|pathway)\b"
    r"|\bon\s+the\s+(?:causal\s+)?"
    r"(?:path|route|way|chain|pathway)\b|\b(?:a|the)\s+mediator\b|\bmediat\w+\s+(?:between|of|in)\b"
    r"|\bin\s+between\b|\bintermediate\s+(?:step|variable|node)\s+(?:between|from|on)\b"
    r"|\b(?:sit|sits|sitting|lie|lies|lying|located|placed|positioned)\s+between\s+⟦\d+⟧\s+and\s+⟦\d+⟧"
    r"|\b(?:via|through|by\s+way\s+of|passing\s+through)\s+⟦\d+⟧"
    r"|\b(?:variables|nodes|factors|steps|links|mechanism|process|chain|channel)\s+(?:through|via|by)\s+which\s+⟦\d+⟧"
    r"|^\s*(?:is|are)\s+⟦\d+⟧\s+(?:\w+\s+)?between\s+⟦\d+⟧\s+and\s+⟦\d+⟧"
    + "".join("|" + re.sub(r"\(\?P<\w+>", "(?:", r) for r in THROUGH)
)
"""Words for a third variable on a route between two others (shared with the check)."""
MEDIATOR_WORDS = re.compile(
    r"\bmediat\w*|\bintermediar\w*|\bintermediate\s+(?:variables|nodes|factors|steps)\b"
    r"|\b(?:go|goes|going|went|pass\w*|run|runs|route[sd]?|lead|leads)\s+(?:through|via)\b"
    r"|\bby\s+way\s+of\b"
    r"|\btransmit\w*\b|\bchannel\w*\b"
    r"|\bthrough\s+which\s+(?:\w+\s+)?(?:variables|nodes|factors)\s+(?:does|do|did|can|could|would|will)\b"
    r"|\b(?:lie|lies|sit|sits|are|fall)\s+(?:on|along)\s+(?:the|any|a|every)\s+(?:(?:causal|directed)\s+){0,2}"
    r"(?:paths|routes|chains|pathways)\b|\b(?:sit|sits|lie|lies|are|is)\s+in\s+between\b"
    r"|\bcarr(?:y|ies)\s+(?:the\s+|its\s+|⟦\d+⟧(?:'s)?\s+)?(?:effect|influence|impact)\b"
    r"|\b(?:variables|nodes|factors)\s+(?:that\s+(?:lie|sit|are)\s+)?(?:on|along)\s+(?:the\s+|any\s+|all\s+)?"
    r"(?:(?:causal|directed)\s+){0,2}(?:paths|routes|chains|pathways)\b"
    r"|\b(?:via|through)\s+which\s+(?:variables|nodes|factors|intermediaries|steps)\b"
    # "through what does ⟦a⟧ affect ⟦b⟧?", "what sits between ⟦a⟧ and ⟦b⟧ on the causal
    # paths?", "name the variables in between"
    r"|^\s*(?:through|via|by\s+way\s+of)\s+(?:what|which)\b"
    r"|\b(?:what|which\s+\w+)\s+(?:sits?|lies?|stands?)\s+between\s+⟦\d+⟧\s+and\s+⟦\d+⟧"
    r"|\b(?:variables|nodes|factors|steps|links)\s+(?:that\s+(?:are|sit|lie)\s+)?in\s+between\b"
)
BLOCKS_EVERY_PATH = r"\bblock\w*\s+(?:every|all|each|any)\s+(?:of\s+the\s+|the\s+)?paths?"
""""Conditioning on ⟦z⟧ blocks every path …": d-separation in words (shared with the check)."""
INDEPENDENCE_SYMBOL = r"⟧\s*(?:⊥|⫫|_\|\|_)\s*⟦"
"""⟦a⟧ ⊥ ⟦b⟧ (shared with the check)."""
DEPENDENCE_WORDS = re.compile(
    r"\b(?:conditionally\s+)?independen\w*|\bd-?separat\w*|\bd-?connect\w*|\bblocked\b"
    r"|\b(?:statistically\s+)?(?:un)?related\b|\b(?:in)?dependen(?:t|ce)\b|\bcorrelated\b"
    rf"|{INDEPENDENCE_SYMBOL}"
    r"|\btells?\s+(?:us\s+|you\s+|me\s+)?(?:nothing|anything)\s+(?:more\s+|new\s+|extra\s+|else\s+)?about\b"
    rf"|{BLOCKS_EVERY_PATH}\b"
)
"""Words of (in)dependence or d-separation: a graph question with them may be a
d-separation question (shared with the check)."""


ADJUST = re.compile(
    r"\badjust\w*\s+for\b|\badjustment\s+sets?\b|\bcontrol\w*\s+for\b|\bback-?door\b"
    r"|\bdeconfound\w*|\bcondition\s+on\b|\bcovariates?\b|\bunbiased\s+estimate\b"
    r"|\bblock\w*\s+(?:the\s+|all\s+)?(?:confounding|back-?door|spurious)"
    r"|\bregress\w*\s+(?:of\s+)?⟦\d+⟧\s+on\s+⟦\d+⟧[^?]*\b(?:include|add|put|control|condition|adjust)\w*"
    # "controls" the noun: "which controls do I need to include", "what to add as controls"
    r"|\b(?:which|what)\s+(?:\w+\s+)?controls\s+(?:do|does|should|must|would|shall|will|are|to)\b"
    r"|\bcontrols\s+(?:\w+\s+){0,4}?(?:include|add|put\s+in|use)\b"
    r"|\b(?:include|add|use)\s+(?:\w+\s+){0,2}?as\s+controls\b"
    r"|\bcontrols\s+(?:are\s+|would\s+be\s+)?(?:needed|required|necessary)\b"
)
"""Words for an adjustment set (shared with the check)."""
BLANKET = re.compile(
    r"\bmarkov\s+blanket\b|\bscreens?\s+off\s+⟦\d+⟧"
    r"|\bmb\s+(?:of|for)\s+⟦\d+⟧|⟦\d+⟧\s*(?:'s|’s)?\s+mb\b"
    r"|\bshield(?:s|ing)?\s+⟦\d+⟧\s+from\s+(?:the\s+rest|everything|all\s+(?:the\s+)?other)"
    r"|\b(?:renders?|makes?|leaves?)\s+⟦\d+⟧\s+(?:conditionally\s+)?independent\s+of\s+(?:all|every|everything"
    r"|the\s+rest)"
    # its definition spelled out: "the parents, children and the children's other parents"
    r"|\bparents\s*,\s*(?:its\s+|the\s+)?children\s*,?\s*(?:and\s+)?(?:the\s+|its\s+)?"
    r"(?:children'?s|childrens|children\s*’s)\s+(?:other\s+|co-?)?(?:parents|causes)\b"
)
EFFECT_KIND = re.compile(
    # not "direct or indirect both count": either kind of link will do, a yes/no question
    r"\bdirect(?:ly)?\s*,?\s*(?:or\s+)?(?:only\s+)?indirect(?:ly)?\s*,?\s*(?:or\s+)?both\b"
    r"(?!\s+(?:count|counts|qualify|work|are\s+fine|are\s+ok|do))"
    r"|\bdirect(?:ly)?\s*,?\s*or\s+only\s+(?:indirect(?:ly)?|via|through|by\s+way\s+of)\b"
    r"|\b(?:what|which)\s+(?:kind|type|sort)\s+of\s+(?:\w+\s+)?(?:effects?|influences?|links?|relation\w*"
    r"|connections?|dependence)\b|\bonly\s+(?:directly|indirectly)\b.*\bor\b.*\bboth\b"
    r"|\bdirect(?:ly)?\s*/\s*indirect(?:ly)?\b|\bclassify\s+the\s+(?:causal\s+)?(?:effects?|links?|influences?|relationships?)\b"
    r"(?=[^.?!]*\b(?:direct|indirect))"
    r"|\bdirect(?:ly)?\s*,\s*indirect(?:ly)?\s*,"
    r"|\bdirect(?:ly)?\s*,\s*(?:indirect(?:ly)?|mediated)\s*,?\s*or\s+(?:\w+\s+){0,2}?(?:both|mix|combination|blend)\b"
    r"|^[^?]*?⟦\d+⟧\s*(?:→|->|=>|to|on)\s*⟦\d+⟧\s*:\s*(?:an?\s+)?direct\s+or\s+(?:an?\s+)?indirect\b"
    r"|\bdirect(?:ly)?\s*,\s*(?:only\s+)?(?:via|through)\s+other\s+\w+\s*,?\s*or\s+not\s+at\s+all\b"
    r"|\bdirect(?:ly)?(?:\s+(?:edge|link|arrow|path|route|effect|connection))?\s*,\s*(?:only\s+)?(?:via|through)\s+(?:\w+\s+)?(?:intermediar\w+|mediators?|other\s+\w+)\s*,\s*(?:or\s+)?both\b"
    # "a direct one, does it run through other variables, or is it both", "straight arrow,
    # through mediators, or both", "directly, indirectly or through both channels"
    r"|\b(?:direct(?:ly)?|straight\s+(?:arrow|line|edge|link))\b[^?.!;]{0,60}?\b(?:indirect(?:ly)?|through|via)\b"
    r"[^?.!;]{0,60}?\bor\s+(?:\w+\s+){0,3}?both\b"
    # "does ⟦a⟧ affect ⟦b⟧ directly or indirectly?" asks which (with a comma, "…, directly
    # or indirectly?" is "in any way", a yes/no question)
    r"|^\s*(?:does|do|is|will)\s+⟦\d+⟧\s+(?:\w+\s+){1,2}?⟦\d+⟧\s+direct(?:ly)?\s+or\s+indirect(?:ly)?\s*\?\s*$"
    # "a direct arrow into ⟦b⟧, an indirect route, both, or no causal effect at all"
    r"|\bdirect\w*\b[^?.!;]{0,60}?\bindirect\w*\b[^?.!;]{0,60}?\bboth\b"
    r"(?!\s+(?:count|counts|qualify|work|are\s+fine|are\s+ok|do))"
    # "via a direct link, only through intermediate variables, through both routes, or is
    # there no effect?"
    r"|\bdirect\w*\b[^?.!;]{0,60}?\b(?:through|via)\b[^?.!;]{0,60}?\bboth\b[^?.!;]{0,30}?,?\s*"
    r"or\s+(?:is\s+there\s+|there\s+is\s+)?(?:no|none|neither|not\s+at\s+all)\b"
)


HOW_BIG = re.compile(
    r"\bhow\s+(?:big|high|large|low|small|far|strong|weak)\s+(?:does|do|can|could|will|would)\b"
)
"""A size asked ("how high does it get"): a value, not who has it (shared with the check)."""


def _reads(pattern: re.Pattern[str] | str, *texts: str) -> list[bool]:
    """Which of `texts` `pattern` finds its words in (for the doctests below)."""
    return [bool(re.search(pattern, t)) for t in texts]


__test__ = {
    "spelling": """
    Each rewrite of `spell_out`, pass by pass (the wording, then what it becomes):

    >>> def shows(*pairs):
    ...     return [(t, spell_out(t)) for t, want in pairs if spell_out(t) != want]
    >>> shows(("med effect", "median effect"), ("std dev", "standard deviation"),
    ...       ("sd", "standard deviation"), ("var of ⟦1⟧", "variance of ⟦1⟧"),
    ...       ("the 10th pct", "the 10th percentile"), ("pct", "percent"),
    ...       ("per cent", "percent"), ("the 10th-percentile", "the 10th percentile"))
    []
    >>> spell_out("how high does it get, at most?")
    'how high does it get maximum?'
    >>> shows(("at its very bottom", "minimum"), ("the floor", "the minimum"),
    ...       ("its ceiling", "the maximum"), ("p90", "90th percentile"), ("q3", "quartile 3"),
    ...       ("conf. of ⟦1⟧", "confounders of ⟦1⟧"), ("indep.", "independent"),
    ...       ("p(x)", "probability of (x)"), ("how likely", "what probability"),
    ...       ("what are the odds", "what probability"), ("w/ ⟦1⟧", "with ⟦1⟧"),
    ...       ("no. of partners", "number of partners"), ("#of partners", "number of partners"),
    ...       ("tally up the partners", "number of the partners"))
    []
    >>> shows(("individual treatment effects", "individual effect"),
    ...       ("the middle half", "the interquartile range"),
    ...       ("middle 50 percent", "interquartile range"), ("central half", "interquartile range"),
    ...       ("the middle value", "the median"), ("p50", "median"), ("occurs most often", "mode"),
    ...       ("most frequent", "mode"), ("how probable", "what probability"))
    []
    """,
    "statistics": """
    >>> _reads(MEDIAN, "the median effect of ⟦1⟧", "what value sits in the middle",
    ...        "half get more than what", "is ⟦1⟧ in the middle of the path")
    [True, True, True, False]
    >>> _reads(STD, "the standard deviation of ⟦1⟧", "sigma of ⟦1⟧'s effects", "the std")
    [True, True, True]
    >>> _reads(QUANTILE, "the 90th percentile", "upper quartile", "the top partner")
    [True, True, False]
    >>> _reads(SUM, "the total in total", "summed over partners", "the average")
    [True, True, False]
    >>> _reads(HOW_MUCH_GAIN, "how much each partner gains from ⟦1⟧", "do they gain")
    [True, False]
    >>> _reads(HOW_BIG, "how high does it get", "how many partners")
    [True, False]
    >>> _reads(SUPERLATIVE, "the biggest effect", "at least 10", "the weakest")
    [True, False, True]
    """,
    "graph kinds": """
    >>> _reads(CAUSES_OF_BOTH, "what jointly drives ⟦1⟧ and ⟦2⟧",
    ...        "the ancestors of both ⟦1⟧ and ⟦2⟧", "what ⟦1⟧ drives")
    [True, True, False]
    >>> _reads(COMMON_EFFECT, "the common effects of ⟦1⟧ and ⟦2⟧", "affected by both",
    ...        "a collider of ⟦1⟧ and ⟦2⟧", "the common causes")
    [True, True, True, False]
    >>> _reads(ON_PATH, "does ⟦1⟧ lie on a causal path from ⟦2⟧ to ⟦3⟧",
    ...        "is ⟦1⟧ a mediator", "is ⟦1⟧ sitting between ⟦2⟧ and ⟦3⟧", "is ⟦1⟧ a cause")
    [True, True, True, False]
    >>> _reads(MEDIATOR_WORDS, "through which variables does ⟦1⟧ affect ⟦2⟧",
    ...        "what sits between ⟦1⟧ and ⟦2⟧", "which variables cause ⟦1⟧")
    [True, True, False]
    >>> _reads(DEPENDENCE_WORDS, "are ⟦1⟧ and ⟦2⟧ independent given ⟦3⟧", "⟦1⟧ ⊥ ⟦2⟧",
    ...        "does ⟦3⟧ d-separate them", "does ⟦1⟧ cause ⟦2⟧")
    [True, True, True, False]
    >>> _reads(ADJUST, "what should I adjust for", "which controls do I need to include",
    ...        "the adjustment set", "how does ⟦1⟧ control ⟦2⟧")
    [True, True, True, False]
    >>> _reads(BLANKET, "the markov blanket of ⟦1⟧", "what screens off ⟦1⟧",
    ...        "the parents, children and children's other parents", "the parents of ⟦1⟧")
    [True, True, True, False]
    >>> _reads(EFFECT_KIND, "does ⟦1⟧ affect ⟦2⟧ directly, indirectly or both",
    ...        "what kind of effect", "direct or indirect both count")
    [True, True, False]
    """,
}
