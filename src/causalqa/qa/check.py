"""Check that a plan computes what its question asks, before anything is answered.

The check reads the question on its own — a lexicon of the words that ask for a quantity
("median", "how many", "what share", "at least 10", "independent", "confound", "through")
— and requires each to be honoured by the plan's operators; every number and every name
the question states must be used by the plan; and an operator that changes the meaning
(a median, a share, a threshold) must be asked for. A plan that fails is not run: the
answer says what was asked that the plan does not do and what can be asked instead. The
planner's own shortcuts go through this check like the LLM's plans do. Beside the
lexicon, a learned check (`intent.py`) reads the whole wording and refuses a plan of a
kind the question is unlikely to ask, catching wordings the lexicon has never seen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from causalqa.causal_model import CausalModel
from causalqa.qa.cues import answer_type
from causalqa.qa.frame import (
    conditioned_on,
    marked_cause_effect,
    numbers,
    read_conditions,
    slotted,
    stated_direction,
)
from causalqa.qa.grounding import Grounding
from causalqa.qa.intent import answers, default_model, intent_text, masked_question, says
from causalqa.qa.lexicon import (
    ADJUST,
    BLANKET,
    BLOCKS_EVERY_PATH,
    CAUSES_OF_BOTH,
    COMMON_EFFECT,
    DEPENDENCE_WORDS,
    EFFECT_KIND,
    EFFECTS_OF_BOTH,
    HIGH_WORDS,
    HOW_BIG,
    HOW_MUCH_GAIN,
    INDEPENDENCE_SYMBOL,
    LESS_WORDS,
    LOW_WORDS,
    MEDIAN,
    MEDIATOR_WORDS,
    MORE_WORDS,
    NUMBER_WORDS,
    ON_PATH,
    OUTDO_VERBS,
    PLAIN_SUBJECT_NOUNS,
    QUANTILE,
    STD,
    SUBJECT_NOUNS,
    SUM,
    SUPERLATIVE,
    VARIANCE,
    alternation,
    plurals,
    words_of,
)

Plan = dict[str, Any]


@dataclass(frozen=True)
class Demand:
    """A word (or phrase) of the question and what the plan must do to honour it."""

    name: str
    pattern: re.Pattern[str]
    satisfied: Callable[[Plan], bool]
    says: str
    """What the question asks, in words, for the refusal: "the median"."""


def _steps(plan: Plan) -> list[dict[str, Any]]:
    return plan.get("steps", []) if isinstance(plan, dict) else []


def _last(plan: Plan) -> dict[str, Any]:
    steps = _steps(plan)
    return steps[-1] if steps else {"tool": None, "args": {}}


def _tool(plan: Plan) -> str | None:
    return _last(plan)["tool"]


def _args(plan: Plan) -> dict[str, Any]:
    return _last(plan).get("args", {})


def _uses(*tools: str) -> Callable[[Plan], bool]:
    return lambda plan: _tool(plan) in tools


def _stat(*stats: str) -> Callable[[Plan], bool]:
    return lambda plan: (
        _tool(plan) in ("summarize", "rank_treatments") and _args(plan).get("stat") in stats
    )


def _conditions(plan: Plan) -> list[dict[str, Any]]:
    return list(_args(plan).get("conditions") or [])


def _either(*tests: Callable[[Plan], bool]) -> Callable[[Plan], bool]:
    return lambda plan: any(t(plan) for t in tests)


_LISTS = (
    "variables", "treatments", "subjects", "filters", "parents", "children", "ancestors",
    "descendants", "paths_between", "mediators", "common_causes", "common_effects",
    "markov_blanket", "adjustment_set", "list_subjects", "top_k_subjects", "top_k_treatments",
)  # fmt: skip
_ONE_WAY = (
    "paths_between",
    "is_cause",
    "is_parent",
    "parents",
    "children",
    "ancestors",
    "descendants",
)
_AVERAGES = ("ate", "best_treatment", "top_k_treatments", "compare_treatments")


def _is_mean(plan: Plan) -> bool:
    tool, args = _tool(plan), _args(plan)
    if tool in ("summarize", "rank_treatments"):
        return args.get("stat") == "mean"
    if tool in _AVERAGES:
        return not args.get("subject")
    return False


def _is_low(plan: Plan) -> bool:
    args = _args(plan)
    return (
        bool(args.get("lowest")) or args.get("stat") == "min" or _tool(plan) == "compare_treatments"
    )


def _is_high(plan: Plan) -> bool:
    tool, args = _tool(plan), _args(plan)
    ranked = tool in (
        "best_treatment", "best_subject", "top_k_subjects", "top_k_treatments",
        "rank_subjects", "rank_treatments",
    )  # fmt: skip
    return (
        (ranked and not args.get("lowest"))
        or args.get("stat") == "max"
        or tool == "compare_treatments"
    )


def _named_statistic(plan: Plan) -> bool:
    return _tool(plan) in ("summarize", "rank_treatments") and _args(plan).get("stat") != "mean"


def _compares_two(plan: Plan) -> bool:
    tool, args = _tool(plan), _args(plan)
    if tool == "compare_treatments":
        return True
    if "difference" in (args.get("value") or {}):
        return True
    return any(isinstance(c.get("than"), dict) for c in _conditions(plan))


def _has_threshold(plan: Plan) -> bool:
    return any(not isinstance(c.get("than"), dict) for c in _conditions(plan))


_SUBJ = alternation(SUBJECT_NOUNS, plural=True)
_SUBJECTS = alternation(plurals(SUBJECT_NOUNS))
_NUMBER_AFTER = r"\s+(?!(?:what|which)\b)(?:\w+\s+)?-?\d"  # not "below which 10% fall"
_MEAN_WORDS = re.compile(r"\b(?:average|mean|on\s+average|ates?)\b")
_LOW = alternation(LOW_WORDS + ("bottom", "most negative", "argmin"))
"""Words for the low end (the "low" demand; `_LOW_WORDS` adds looser ones)."""

DEMANDS: list[Demand] = [
    Demand("median", MEDIAN, _stat("median"), "the median"),
    Demand(
        "quantile",
        QUANTILE,
        _stat("quantile"),
        "a quantile",
    ),  # fmt: skip
    Demand(
        "std",
        STD,
        _stat("std"),
        "the standard deviation",
    ),  # fmt: skip
    Demand("var", VARIANCE, _stat("var"), "the variance"),
    Demand("sum", SUM, _stat("sum"), "a total over subjects"),
    Demand(
        "mean",
        # not the mean a deviation is measured from ("how far do they deviate from their
        # mean"), nor the verb ("I mean the median")
        re.compile(
            r"(?<!\bfrom\s)(?<!\bfrom\sthe\s)(?<!\bfrom\stheir\s)(?<!\bfrom\sits\s)(?<!\baround\s)"
            r"(?<!\baround\sthe\s)(?<!\baround\stheir\s)(?<!\bi\s)(?<!\bwe\s)(?<!\byou\s)"
            + _MEAN_WORDS.pattern
        ),
        _is_mean,
        "an average",
    ),  # fmt: skip
    Demand(
        "share",
        re.compile(
            r"\b(?:fraction|proportion|percentage|percent|portion)\b|%"
            r"|\bshare\b(?!\s+(?:it|this|that|them|these|those|with)\b)|\bwhat\s+part\b"
        ),
        # "the value 10 percent of the effects fall below" is a quantile
        _either(_uses("share_subjects"), _stat("quantile")),
        "a share of subjects",
    ),  # fmt: skip
    Demand(
        "count",
        re.compile(
            # not "how many percent", "how many partners, as a share of the total"
            rf"\bhow\s+many\b(?!\s+percent)(?![^?.!]*\bas\s+a\s+(?:share|fraction|percentage|proportion)\b)"
            rf"|\bnumber\s+of\b|^\s*count\b|\bcount\s+(?:the\s+)?{_SUBJ}"
            rf"|(?:^|[\s(])#\s*(?:of\s+)?{_SUBJ}"
        ),
        _either(_uses("count_subjects"), _uses(*_LISTS)),
        "a count",
    ),  # fmt: skip
    Demand(
        "each",
        re.compile(
            rf"\b(?:(?:for|on|to|with|by)\s+|list\s+(?:\w+\s+){{0,4}}?)(?:each|every)\s+(?:single\s+)?"
            rf"{_SUBJ}\b(?!\s+into\s+account)|(?<!\baverage\s)(?<!\bmean\s)\bper\s+{_SUBJ}\b|\b{_SUBJ}\s+by\s+{_SUBJ}\b"
            rf"|\bby\s+{_SUBJ}\s*(?:[?.!,;]|$)"
            rf"|\b(?:each|every)\s+(?:single\s+)?{_SUBJ}'s\b|\beach\s+of\s+the\s+{_SUBJ}\b"
            r"|\bindividually\b"
        ),
        # "the 10th percentile of T's effect per partner" is a statistic of per-subject
        # values: a summarize whose statistic the question names honours it too
        _either(_uses("subject_values", "list_subjects"), _named_statistic),
        "a value for each subject",
    ),  # fmt: skip
    Demand(
        "threshold",
        re.compile(
            r"\b(?:at\s+least|at\s+most|more\s+than|less\s+than|fewer\s+than"
            r"|greater\s+than|higher\s+than|lower\s+than|above|below|over"
            r"|under|exceed\w*|beyond|no\s+more\s+than|no\s+less\s+than"
            rf"|{OUTDO_VERBS})" + _NUMBER_AFTER
        ),
        _has_threshold,
        "a comparison with a number",
    ),  # fmt: skip
    Demand(
        "than",
        re.compile(
            rf"\b{alternation(MORE_WORDS + LESS_WORDS)}\b[^?.!]*?\bthan\s+(?!-?\d)(?!zero\b)"
            r"(?!what\b(?!\s+⟦))"
        ),
        _either(_compares_two, _has_threshold),
        "a comparison of two treatments",
    ),  # fmt: skip
    Demand(
        "low",
        re.compile(rf"\b{_LOW}\b(?<!at\sleast)"),
        # "the minimal set that shields ⟦1⟧ from the rest" is the Markov blanket
        _either(_is_low, _uses("markov_blanket")),
        "the lowest",
    ),  # fmt: skip
    Demand(
        "high",
        re.compile(
            rf"\b{alternation(HIGH_WORDS + ('best', 'top', 'most', 'argmax'))}\b(?!\s+negative)"
        ),
        _either(
            _is_high,
            _uses(
                "is_cause", "is_parent", "descendants", "ancestors", "paths_between", "effect_kind"
            ),
        ),
        "the highest",
    ),  # fmt: skip
    Demand(
        "independent",
        re.compile(
            r"\bindependen\w*|\bd-?separat\w*|\bd-?connect\w*"
            r"|\b(?<!in)dependen(?:t|ce)\b|\bcorrelat\w*|\bunrelated\b"
        ),
        # a Markov blanket is defined by what it renders independent
        _uses("d_separated", "d_connected", "markov_blanket"),
        "(in)dependence",
    ),  # fmt: skip
    Demand(
        "confound",
        re.compile(rf"\bconfound\w*|\bcommon\s+causes?\b|\bshared\s+causes?\b|{CAUSES_OF_BOTH}"),
        _uses("common_causes", "adjustment_set"),
        "the common causes",
    ),  # fmt: skip
    Demand(
        "common effect",
        re.compile(
            r"\bcommon\s+(?:effects?|consequences|descendants)\b"
            rf"|\bcollider\w*|{EFFECTS_OF_BOTH}"
        ),
        _uses("common_effects"),
        "the common effects",
    ),  # fmt: skip
    Demand(
        "mediate",
        re.compile(r"\bmediat\w*|\bintermediar\w*"),
        # "directly or through intermediaries" only widens an is-there-an-effect question
        _uses(
            "mediators",
            "paths_between",
            "on_path",
            "is_cause",
            "ancestors",
            "descendants",
            "effect_kind",
        ),
        "the mediators",
    ),  # fmt: skip
    Demand(
        "any route",
        re.compile(
            r"\bdirect(?:ly)?\s+(?:\w+\s+)?or\s+(?:\w+\s+)?(?:chains?|indirect\w*|intermediar\w*)\b"
            r"|\b(?:even|also)\s+indirectly\b"
        ),
        # "direct or indirect" widens a question to any route: a direct edge alone does
        # not answer it (the effect kind, a path or an effect over subjects may)
        lambda plan: _tool(plan) not in ("is_parent", "parents", "children"),
        "a link by any route, direct or not",
    ),  # fmt: skip
    Demand(
        "adjust",
        # not "after adjusting for ⟦z⟧, are ⟦a⟧ and ⟦b⟧ d-separated": a conditioning set
        re.compile(
            r"(?<!\bafter\s)(?<!\bwhen\s)(?<!\bonce\s)\badjust\w*\s+for\b|\badjustment\s+sets?\b"
            r"|\bback-?door\b|\bdeconfound\w*"
        ),
        _uses("adjustment_set"),
        "an adjustment set",
    ),  # fmt: skip
    Demand(
        "via",
        re.compile(
            r"\b(?:via|through|by\s+way\s+of|passing\s+through)\s+⟦\d+⟧"
            r"|⟦\d+⟧\s+(?:\w+\s+){0,3}?(?:on|along|in)\s+(?:a|the|any|some)?\s*(?:\w+\s+)?(?:path|route|chain)s?\b"
            r"|⟦\d+⟧\s+(?:\w+\s+){0,2}?(?:between)\s+⟦\d+⟧\s+and\s+⟦\d+⟧"
        ),
        _uses("on_path", "mediators"),
        "a route through a named variable",
    ),  # fmt: skip
    Demand(
        "both cause",
        re.compile(
            r"⟦\d+⟧\s*(?:,\s*|\s+)(?:and|&)\s+⟦\d+⟧\s+(?:both|each|all|jointly|together)\s+(?:\w+\s+)?"
            r"(?:cause|affect|influence|lead|drive|impact|feed|point)"
            r"|\b(?:cause|affect|influence|drive|impact)s?\s+both\s+⟦\d+⟧\s+and\s+⟦\d+⟧"
            r"|\bshared\s+(?:by|between)\s+⟦\d+⟧\s+and\s+⟦\d+⟧"
        ),
        _uses("common_effects", "common_causes", "adjustment_set", "d_separated", "d_connected"),
        "something the two variables share",
    ),  # fmt: skip
    Demand(
        "as well as",
        re.compile(r"⟦\d+⟧\s+as\s+well\s+as\s+(?:by\s+|from\s+|on\s+)?⟦\d+⟧"),
        lambda plan: _tool(plan) not in _ONE_WAY,
        "something true of both",
    ),  # fmt: skip
    Demand(
        "blanket",
        re.compile(rf"{BLANKET.pattern}|\bco-?parents\b|\bspouses\b"),
        _uses("markov_blanket"),
        "the Markov blanket",
    ),  # fmt: skip
    Demand(
        "kind",
        re.compile(
            r"\bindirect(?:ly)?\s*,?\s*or\s+both\b|\bor\s+both\b"
            r"|\bboth\s*,?\s*or\s+(?:neither|none|not\s+at\s+all)\b"
            r"|\bor\s+(?:a\s+)?(?:mix|mixture|combination)\b|\bdirect\s+one\b[^?.!]*\bindirect\s+one\b"
            rf"|{EFFECT_KIND.pattern}"
        ),
        _uses("effect_kind"),
        "whether the effect is direct, indirect or both",
    ),  # fmt: skip
]
"""Every demand word and what honours it, in the order they are checked."""

_NO_OPERATOR: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bmode\b|\bmost\s+common\s+value\b"), "the most common value (mode)"),
    (
        # not the verb: "so outliers don't skew the picture"
        re.compile(r"(?<!n't\s)(?<!not\s)(?<!to\s)(?<!\bwill\s)\bskew\w*|\bkurtosis\b"),
        "the shape of the distribution",
    ),
    (
        re.compile(
            r"\binter-?quartile\b|\biqr\b"
            # the range described: "the distance between the first and third quartile",
            # "the upper quartile minus the lower quartile", "q3 minus q1"
            r"|\b(?:first|lower|1st|25th)\s+(?:quartile\s+|percentile\s+)?(?:and|to)\s+(?:the\s+)?"
            r"(?:third|upper|3rd|75th)\s+(?:quartile|percentile)"
            r"|\b(?:third|upper|3rd|75th)\s+(?:quartile|percentile)s?\s+(?:minus|less)\s+(?:the\s+)?"
            r"(?:first|lower|1st|25th)\b|\bquartile\s+3\s+(?:minus|-|less)\s+quartile\s+1\b"
        ),
        "the interquartile range",
    ),
    (re.compile(r"\bgeometric\s+mean\b|\bharmonic\s+mean\b"), "that kind of mean"),
    (
        re.compile(
            r"\bcorrelation\s+(?:coefficient|between|of)\b|\bhow\s+(?:strongly\s+)?correlated\b"
            r"|\bcorr\s*\(|\bpearson\b|\bspearman\b|\br\s+(?:between|for)\b|\br\s*\(\s*⟦"
        ),
        "a correlation coefficient",
    ),  # fmt: skip
    (
        re.compile(
            r"\bprobabilit\w*|\blikelihood\b|\blikely\b|\bodds\b|\bchances?\b"
            r"|\bp\s*\((?!\s*\d)|\bpr\s*\("
        ),
        "a probability",
    ),
    (
        re.compile(r"\bconfidence\s+interval\b|\bp-?value\b|\bsignifican\w*"),
        "statistical uncertainty",
    ),  # fmt: skip
    (
        re.compile(
            r"\bif\s+(?:we|i|you|they)\s+(?:doubl\w*|halv\w*|tripl\w*|rais\w*|lower\w*|increas\w*"
            r"|decreas\w*|cut|set|fix\w*|chang\w*\s+\S+\s+to)\b|\bwould\s+(?:\w+\s+|⟦\d+⟧\s+)(?:be|become"
            r"|reach|have\s+been)\s+(?:if|after|when|under)\b|\bwhat\s+(?:would|will)\s+⟦\d+⟧\s+(?:be|become|reach)\b"
        ),
        "the level of a variable under an intervention",
    ),  # fmt: skip
    (
        re.compile(
            r"\b(?:doubl|halv|tripl|quadrupl)(?:e|ed|es|ing)\b|\b(?:set|fixed|held|pinned)\s+(?:\w+\s+){0,2}(?:to|at)\s+-?\d"
            r"|\b(?:after|when|once)\s+(?:we\s+|you\s+)?(?:rais|cut|lower|increas|decreas|boost|reduc|sett)\w*\s+⟦\d+⟧\s+(?:to|by)\b"
            r"|⟦\d+⟧\s+(?:is|are|gets|were|was)\s+(?:raised|cut|lowered|increased|decreased|boosted|reduced|set)\s+(?:to|by)\b"
        ),
        "the level of a variable under an intervention",
    ),  # fmt: skip
]
"""Questions no operator can answer, and what they ask for, in words."""


_NEGATED = re.compile(r"\b(?:not|no|without|rather\s+than|instead\s+of|never)\s+(?:\w+\s+)?$")
_LOW_END = alternation(LOW_WORDS + ("bottom", "min"))
_HIGH_END = alternation(HIGH_WORDS + ("most", "best", "top", "max"))
_ORDERING = re.compile(
    rf"\bfrom\s+(?:the\s+)?{_LOW_END}\s+to\s+(?:the\s+)?{_HIGH_END}\b"
    rf"|\bfrom\s+(?:the\s+)?{_HIGH_END}\s+to\s+(?:the\s+)?{_LOW_END}\b"
)
"""An order to line values up in ("from smallest to largest"): it asks for neither end."""


def _says_word(text: str, prefixes: tuple[str, ...], whole: set[str]) -> bool:
    """Whether a word of `text` starts with one of `prefixes` or is one of `whole`: what
    ``\\b(?:gain\\w*|best)\\b`` finds, as a word test."""
    return any(w.startswith(prefixes) or w in whole for w in words_of(text))


def _plan_names(plan: Plan) -> set[str]:
    found: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            found.add(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for step in _steps(plan):
        walk(step.get("args", {}))
    return found


def _plan_numbers(plan: Plan) -> set[float]:
    args = _args(plan)
    found = {float(c["than"]) for c in _conditions(plan) if not isinstance(c.get("than"), dict)}
    if isinstance(args.get("k"), int):
        found.add(float(args["k"]))
    if isinstance(args.get("q"), int | float):
        found |= {float(args["q"]), round(100 * float(args["q"]), 6), 10 * float(args["q"])}
        if args["q"] in (0.25, 0.5, 0.75):  # quartiles: "first", "second", "third"
            found |= {1.0, 2.0, 3.0}
    return found


def unanswerable(question: str, grounding: Grounding) -> list[str]:
    """What `question` asks that no operator computes (a mode, a correlation coefficient,
    a probability …), in words; empty when nothing."""
    text, _ = slotted(question, grounding)
    return [
        f"the question asks for {what}, which no operator computes"
        for pattern, what in _NO_OPERATOR
        if pattern.search(text)
    ]


@dataclass
class CheckReport:
    """The check of one plan against its question: each rule that read it, in the order
    they run, with what it found wrong (nothing: the rule passed). A demand rule
    (``demand:median`` …) runs only when the question says its words."""

    rules: list[tuple[str, list[str]]]

    @property
    def problems(self) -> list[str]:
        """Every problem found, each once, in rule order."""
        return list(dict.fromkeys(p for _, found in self.rules for p in found))

    @property
    def passed(self) -> list[str]:
        return [name for name, found in self.rules if not found]

    @property
    def failed(self) -> dict[str, list[str]]:
        return {name: found for name, found in self.rules if found}


def problems(
    question: str,
    plan: Plan,
    grounding: Grounding,
    model: CausalModel,
    *,
    kind_of: tuple[str, Grounding] | None = None,
) -> list[str]:
    """What `plan` fails to do that `question` asks (empty when it answers it), in words.
    `kind_of`: the question whose wording says what kind of question this is, when that is
    another one (a follow-up such as "and for Discount?" asks what the previous one did)."""
    return check_plan(question, plan, grounding, model, kind_of=kind_of).problems


def check_plan(
    question: str,
    plan: Plan,
    grounding: Grounding,
    model: CausalModel,
    *,
    kind_of: tuple[str, Grounding] | None = None,
) -> CheckReport:
    """Every rule of the check on `plan` for `question` (see `problems`)."""
    text, slots = slotted(question, grounding)
    rules: list[tuple[str, list[str]]] = [("no operator", unanswerable(question, grounding))]
    rules += _demand_rules(text, slots, plan)
    asked = answer_type(grounding.masked(question))
    typed = []
    if asked in ("number", "subject", "treatment", "variables") and _tool(plan) in _BOOL_TOOLS:
        typed.append(f"the question asks for {_ASKED[asked]}, but the plan answers yes or no")
    rules += [
        ("answer type", typed),
        ("shape", _shape_problems(text, plan)),
        ("polarity", _polarity_problems(text, plan)),
        ("opposite sign", _opposite_sign_problems(text, plan)),
        ("comparison direction", _direction_problems(text, slots, plan)),
        ("sign filter", _sign_filter_problems(text, slots, plan)),
        ("unasked lowest", _unasked_lowest_problems(text, plan)),
        ("unsigned question", _unsigned_question_problems(text, slots, plan)),
        ("conditioning set", _conditioning_problems(text, slots, plan)),
        ("unasked test", _unasked_test_problems(text, plan)),
        (
            "learned check",
            intent_problems(
                masked_question(*kind_of) if kind_of is not None else intent_text(text, slots),
                plan,
                words=text if kind_of is None else None,
            ),
        ),
        ("names used", _unused_name_problems(grounding, plan, model)),
        ("cause and effect", _cause_effect_problems(text, slots, plan)),
    ]
    written = numbers(text)
    rules += [
        ("numbers used", _unused_number_problems(text, written, plan)),
        ("invented threshold", _invented_threshold_problems(written, plan)),
        ("unasked share", _unasked_share_problems(text, plan)),
        ("unnamed middle", _unnamed_middle_problems(grounding, plan)),
    ]
    return CheckReport(rules)


def _demand_rules(text: str, slots: list, plan: Plan) -> list[tuple[str, list[str]]]:
    """One rule per demand whose words the question says: the plan must honour it."""
    named = len({sl.variable or sl.treatment or sl.subject for sl in slots})
    rules = []
    mean_asked = False
    for demand in DEMANDS:
        if demand.name == "via" and named < 3:
            continue  # a route through a third variable needs three names
        hits = [m for m in demand.pattern.finditer(text) if not _NEGATED.search(text[: m.start()])]
        if demand.name in ("low", "high"):
            order = [o.span() for o in _ORDERING.finditer(text)]
            hits = [m for m in hits if not any(a <= m.start() < b for a, b in order)]
        if demand.name == "mean":
            mean_asked = bool(hits)
        elif demand.name == "each" and mean_asked and _is_mean(plan):
            # "on average, how much more uplift per partner …", "the mean over partners of
            # each partner's …": a rate or an average of per-subject values, not a listing
            # (the "mean" demand, read just before, says whether an average is asked)
            # "for each partner take T's effect minus U's, then average it": the mean of a
            # difference is an average of per-subject values however it is said
            difference = (_args(plan).get("value") or {}).get("difference")
            hits = [m for m in hits if not difference and m.group(0).split()[0] != "per"]
        if hits:
            failed = not demand.satisfied(plan)
            rules.append(
                (
                    f"demand:{demand.name}",
                    [f"the question asks for {demand.says}, which the plan does not compute"]
                    if failed
                    else [],
                )
            )
    return rules


def _unused_name_problems(grounding: Grounding, plan: Plan, model: CausalModel) -> list[str]:
    """Every name the question says must be used by the plan (but the effects table's
    outcome and the filter column named as nodes)."""
    found = []
    used = _plan_names(plan)
    outcome = model.outcome
    for m in grounding.mentions:
        if m.name in used:
            continue
        if m.kind == "variable" and m.name in (
            outcome,
            grounding.where.filter if grounding.where else None,
        ):
            continue  # the effects table's outcome, or the filter column named as a node
        if m.kind == "variable" and _tool(plan) in _TABLE_TOOLS and m.name in model.treatments:
            continue
        if any(o.name in used and (o.start, o.end) == (m.start, m.end) for o in grounding.mentions):
            continue  # the same words named as another kind, and that one is used
        found.append(f"the plan does not use {m.name!r}, which the question names")
    return found


def _cause_effect_problems(text: str, slots: list, plan: Plan) -> list[str]:
    """A plan about two variables the other way round from the order the wording marks
    ("⟦b⟧ is reached from ⟦a⟧" too)."""
    direction = marked_cause_effect(text, slots)
    if direction is None:
        return []
    roles = ROLES.get(_tool(plan))
    args = _args(plan)
    if roles and (args.get(roles[0]), args.get(roles[1])) == (direction[1], direction[0]):
        return [
            f"the question asks about {direction[0]!r} → {direction[1]!r}, the plan about "
            f"{direction[1]!r} → {direction[0]!r}"
        ]
    return []


def _unused_number_problems(text: str, written: list[Any], plan: Plan) -> list[str]:
    """Every number the question writes in digits must be used by the plan."""
    stated = {n.value for n in written if text[n.start : n.end] not in NUMBER_WORDS}
    missing = [n for n in stated if n not in _plan_numbers(plan)]
    if not missing:
        return []
    shown = ", ".join(f"{n:g}" for n in sorted(missing))
    return [f"the plan does not use the number(s) {shown} the question states"]


def _unnamed_middle_problems(grounding: Grounding, plan: Plan) -> list[str]:
    """An on-path plan about a variable the question does not name ("is there something
    in between ⟦a⟧ and ⟦b⟧?" run as "does Demand lie between them"): its yes or no is
    about a variable the planner picked, not the one asked about."""
    if _tool(plan) != "on_path":
        return []
    middle = _args(plan).get("variable")
    if middle is None or middle in grounding.names("variable"):
        return []
    return [f"the plan asks about {middle!r}, which the question does not name"]


def _invented_threshold_problems(written: list[Any], plan: Plan) -> list[str]:
    """A threshold the plan compares effects with that the question never states ("the
    uplift for all partners individually" run over the partners above 0.01): zero is
    implied by "benefit", "hurt", "positive"; any other number has to be written
    (`written`: the question's `numbers`)."""
    said = {n.value for n in written}
    said |= {v / 100 for v in said} | {-v for v in said}
    invented = sorted(
        {
            float(c["than"])
            for c in _conditions(plan)
            if isinstance(c.get("than"), int | float)
            and not isinstance(c.get("than"), bool)
            and c["than"] != 0
            and not any(abs(float(c["than"]) - v) < 1e-9 for v in said)
        }
    )
    if not invented:
        return []
    shown = ", ".join(f"{v:g}" for v in invented)
    return [f"the plan compares effects with {shown}, a number the question does not state"]


_SHARE_WORDS = re.compile(
    r"\b(?:fraction|proportion|percentage|percent|portion|share|ratio|rate|part)\b|%"
    r"|\bout\s+of\s+(?:all|every|the|\d)|\bhow\s+often\b"
)


def _unasked_share_problems(text: str, plan: Plan) -> list[str]:
    """A share of subjects where the question asks for no share ("tally of partners …" run
    as the percentage of them)."""
    if _tool(plan) != "share_subjects" or _SHARE_WORDS.search(text):
        return []
    return ["the plan computes a share of subjects, which the question does not ask for"]


LIKELIEST_FLOOR = 0.2
"""A plan below the learned check's threshold still passes when it answers the kind the
classifier finds likeliest, if that kind has at least this probability (the paper's
"the mean effect of T across all partners. What is it?" read as the average at 0.28)."""


_STATISTIC_WORDS = {
    "median": MEDIAN,
    "best_by_median": MEDIAN,
    "std": STD,
    "percentile": QUANTILE,
}
"""The words without which a question asks for no such statistic."""


def _demand_pattern(name: str) -> re.Pattern[str]:
    return next(d.pattern for d in DEMANDS if d.name == name)


_LISTED = re.compile(
    rf"\b(?:ids?|identifiers|numbers|list)\s+of\s+(?:all\s+|every\s+|the\s+)?(?:\w+\s+)?{_SUBJECTS}\b"
    rf"|\b(?:list|enumerate)\s+(?:out\s+)?(?:all\s+|the\s+)?(?:\w+\s+)?{_SUBJECTS}\s+"
    r"(?:whose|who|that|with|where|for\s+which)\b"
    r"|\b(?:list|enumerate)\s+(?:out\s+)?(?:every|each)\s+(?:single\s+)?"
    rf"{alternation(SUBJECT_NOUNS)}\s+(?:whose|who|that|with|where|for\s+which)\b"
)
"""A list of subjects asked in so many words ("the IDs of all partners whose …", "enumerate
all partners whose …")."""
_COUNTED = re.compile(
    r"\b(?:how\s+many|number\s+of|count|tally)\s+(?:up\s+)?(?:\w+\s+){0,3}?"
    rf"{alternation(plurals(SUBJECT_NOUNS) + ('rows',))}\b"
)
"""A count of subjects asked in so many words ("tally the rows where …")."""

_D_SEPARATION_NAMED = re.compile(
    rf"\bd-?separat\w*|\bconditionally\s+independent\b|{INDEPENDENCE_SYMBOL}"
    rf"|{BLOCKS_EVERY_PATH}\s+between\b"
)
"""d-separation asked in so many words ("does conditioning on ⟦z⟧ block every path between
⟦a⟧ and ⟦b⟧")."""

_NAMED_BY_WORDS: dict[str, re.Pattern[str]] = {
    "common_causes": _demand_pattern("confound"),
    "common_effects": COMMON_EFFECT,
    "count_subjects": _COUNTED,
    "markov_blanket": BLANKET,
    "effect_kind": EFFECT_KIND,
    "adjustment_set": ADJUST,
    "on_path": ON_PATH,
    "median": MEDIAN,
    "std": STD,
    "list_subjects": _LISTED,
    "d_separated": _D_SEPARATION_NAMED,
    "d_connected": _D_SEPARATION_NAMED,
    "max": HOW_BIG,
    "min": HOW_BIG,
}
"""A tool (or a summary statistic) and the lexicon's words that name exactly it (not a
quantile: "the first and third quartile" name two, and the learned check knows the
interquartile range)."""


NAMED_OVERRULED_AT = 0.8
"""The learned check overrules a plan the question names in the lexicon's words only when
it finds another kind at least this likely ("any causal link? direct or indirect both
count" names an effect kind, and is a yes/no question at 0.89)."""


def _named_by_words(words: str, plan: Plan) -> bool:
    """Whether the question names, in the lexicon's words, exactly what the plan computes
    ("the common causes", "the Markov blanket", "sigma"): then the learned check, which
    reads the wording as a whole and has seen fewer wordings than the lexicon, overrules it
    only when confident (`NAMED_OVERRULED_AT`). Every demand is still checked."""
    key = _tool(plan)
    if key in ("summarize", "rank_treatments"):
        key = _args(plan).get("stat")
    pattern = _NAMED_BY_WORDS.get(key or "")
    return pattern is not None and bool(pattern.search(words))


def intent_problems(text: str, plan: Plan, *, words: str | None = None) -> list[str]:
    """The learned check (`intent.py`): the plan must answer a kind the classifier finds
    likely for the masked question `text` (as `intent.intent_text` writes it). `words`:
    the question as the rules read it (`slotted`); a plan computing the average a question
    names is not refused for a statistic it does not name ("the top treatment judged by
    mean ITE" read as the best median)."""
    model = default_model()
    judged = model.support(text, plan)
    if judged is None:
        return _unjudged_problems(model, text, plan)
    if judged[0] >= model.threshold:
        return []
    support, kind, p = judged
    if words is not None and p < NAMED_OVERRULED_AT and _named_by_words(words, plan):
        return []
    if p >= LIKELIEST_FLOOR and answers(kind, plan):
        return []  # the plan answers the likeliest reading, itself not a long shot
    if (
        kind == "intervention_level"
        and words is not None
        and _tool(plan) == "is_cause"
        and answer_type(text) == "bool"
        and not _LEVEL_WORDS.search(words)
    ):
        return []  # "would ⟦b⟧ react to an intervention on ⟦a⟧?": whether, not to what level
    if support >= LIKELIEST_FLOOR and support > p:
        return []  # the kinds the plan answers, together, outweigh every other reading
    if (
        words is not None
        and kind in _STATISTIC_WORDS
        and not _STATISTIC_WORDS[kind].search(words)
        and _is_mean(plan)
        and _MEAN_WORDS.search(words)
    ):
        return []
    return [
        f"the question reads as asking for {says(kind)} (probability {p:.2f}; the plan's "
        f"kind {support:.2f}), which the plan does not compute"
    ]


_LEVEL_WORDS = re.compile(
    r"(?<!⟦)\d|\b(?:doubl\w*|tripl\w*|halv\w*|half|twice|percent|much|level|value|amount|reach|be"
    r"|become|ris\w*|rose|fall\w*|fell|increas\w*|decreas\w*|up|down|grow\w*|drop\w*|higher|lower"
    r"|more|less|improv\w*|worsen\w*|by)\b"
)
"""Words of a level, an amount or a direction: a yes/no question with none of them asks
whether a variable responds to an intervention ("would ⟦b⟧ react to an intervention on
⟦a⟧?"), not the level it would reach."""


UNJUDGED_CONFIDENCE = 0.9
"""A plan of a tool no benchmark kind covers (`ancestors`, `is_parent` …: known from the
planner's worked examples only) is not judged by support; it is refused only when the
classifier is this sure the question is one of the open benchmark's kinds, which that
tool does not answer ("classify the effect of A on B as direct, indirect …" run as "is A
a parent of B"). The paper's kinds are left out: "which variables does A eventually
influence" reads as the paper's children at 0.82, and descendants answer it."""


def _unjudged_problems(model, text: str, plan: Plan) -> list[str]:
    p = model.predict_proba([text])[0]
    top = int(p.argmax())
    kind = str(model.classes_[top])
    if p[top] < UNJUDGED_CONFIDENCE or ":" in kind or answers(kind, plan):
        return []
    return [
        f"the question reads as asking for {says(kind)} (probability {p[top]:.2f}), which "
        "the plan does not compute"
    ]


_ONE_SUBJECT = {"best_subject", "rank_subjects"}
"""The tools whose result is one subject picked by its effect."""
_ASKS_SUBJECTS = re.compile(
    rf"\b(?:list|show|name|give|see|find|which|what|identify|return)\b[^?.!]*?\b{_SUBJECTS}\b"
    rf"|\b(?:every|each|all|any)\s+(?:the\s+)?{_SUBJ}\s+(?:that|who|whom|which|for\s+whom|where|with)\b"
)
_ONE_SUBJ = alternation(PLAIN_SUBJECT_NOUNS, plural=True)
_ASKS_ONE_SUBJECT = re.compile(
    r"\b(?:which|who|whom|whose)\b|\bargmax\b|\bargmin\b"
    r"|(?<!\bacross\s)(?<!\bover\s)(?<!\bamong\s)(?<!\ball\s)(?<!\bper\s)(?<!\bany\s)"
    rf"\b{_ONE_SUBJ}\b(?!\s+table)"
)


_ROUTE_WORDS = frozenset(
    {"path", "paths", "route", "routes", "chain", "chains", "pathway", "mechanism", "step"}
    | {"steps", "upstream", "downstream"}
)
_SEPARATION_WORDS = re.compile(r"\bd-?sep\w*|\bseparat\w*|\bblock\w*|\bscreen\w*\s+off\b")
_ASKS_SEPARATION = (DEPENDENCE_WORDS, _demand_pattern("independent"), _SEPARATION_WORDS)
_ASKS_TEST: dict[str, tuple[re.Pattern[str] | frozenset[str], ...]] = {
    "on_path": (ON_PATH, MEDIATOR_WORDS, _demand_pattern("via"), _ROUTE_WORDS),
    "d_separated": _ASKS_SEPARATION,
    "d_connected": _ASKS_SEPARATION,
}
"""The graph's yes/no tests beyond the paper's, and the words without which a question
does not ask for them (patterns, or a set of words any of which will do)."""


_EVERY_PATH = re.compile(
    r"\b(?:on|along)\s+(?:every|each|all)\s+(?:(?:of\s+)?the\s+)?(?:(?:causal|directed)\s+){0,2}"
    r"(?:paths?|routes?|chains?|pathways?)\b"
    r"|\b(?:every|each|all)\s+(?:(?:of\s+)?the\s+)?(?:(?:causal|directed)\s+){0,2}(?:paths?|routes?|chains?)"
    r"\s+(?:from|between)\b[^?.!]*\b(?:go|goes|pass|passes|run|runs|lead|leads)\s+(?:through|via)\b"
)
"""A variable on *every* path (a cut between two variables), which no tool computes:
`on_path` answers whether it lies on some directed path."""


def _unasked_test_problems(text: str, plan: Plan) -> list[str]:
    """A path or d-separation test the question does not ask for in words: the wrong
    answers on new writers' sets were such plans, by the LLM, for a wording no frame reads
    ("any remaining dependence" run as an on-path test), and a yes/no that reads like an
    answer is the worst kind of wrong."""
    patterns = _ASKS_TEST.get(_tool(plan) or "")
    if _tool(plan) == "on_path" and _EVERY_PATH.search(text):
        return [
            "the question asks whether the variable lies on every path, the plan whether it "
            "lies on some path"
        ]
    if (
        _tool(plan) == "on_path"
        and DEPENDENCE_WORDS.search(text)
        and not (ON_PATH.search(text) or MEDIATOR_WORDS.search(text))
    ):
        # "does conditioning on ⟦z⟧ block every path between ⟦a⟧ and ⟦b⟧": a path named,
        # but what is asked is d-separation
        return ["the question asks about (in)dependence given a set, which the plan does not test"]
    if patterns is None or any(
        words_of(text) & p if isinstance(p, frozenset) else p.search(text) for p in patterns
    ):
        return []
    tested = (
        "whether a variable lies on a causal path"
        if _tool(plan) == "on_path"
        else "(in)dependence given a set"
    )
    return [f"the plan tests {tested}, which the question does not ask about"]


def _conditioning_problems(text: str, slots: list, plan: Plan) -> list[str]:
    """A d-separation plan that conditions on other variables than the wording states
    ("once ⟦z⟧ is held fixed, are ⟦a⟧ and ⟦b⟧ independent?" run as ⟦a⟧ and ⟦z⟧ given ⟦b⟧)."""
    if _tool(plan) not in ("d_separated", "d_connected"):
        return []
    stated = conditioned_on(text, slots)
    if stated is None:
        return []
    args = _args(plan)
    given = set(args.get("given") or [])
    if None in stated or set(stated) != given or {args.get("a"), args.get("b")} & given:
        said = ", ".join(repr(v) for v in stated if v) or "nothing the model names"
        return [f"the plan conditions on other variables than the question does ({said})"]
    return []


def _shape_problems(text: str, plan: Plan) -> list[str]:
    """A plan whose result has another shape than the one asked: one subject for "list the
    partners that …", a subject for "what is the smallest effect …"."""
    if _tool(plan) not in _ONE_SUBJECT:
        return []
    superlative = SUPERLATIVE.search(text)
    if _ASKS_SUBJECTS.search(text) and not superlative:
        return ["the question asks for the subjects that match, but the plan picks one"]
    if not _ASKS_ONE_SUBJECT.search(text) or HOW_BIG.search(text):
        # "how big does it get for the partner who responds most": a size, not who
        return ["the question asks for a number, but the plan answers which subject"]
    return []


_LOSS = re.compile(
    r"\b(?:lose|loses|losing|lost|hurt\w*|harm\w*|worse\s+off|backfir\w*|suffer\w*"
    r"|penali[sz]\w*|damag\w*|negative(?:ly)?)\b"
)
_GAIN_OR_LEAST = (
    ("gain", "benefit", "help", "positive", "profit"),
    {"best", "least", "fewest", "smallest"},
)
"""Words of a gain or the low end: any word starting with one of the first, or one of the
second (a word test, `_says_word`)."""


_GAIN_SIGN = re.compile(
    r"\b(?:positive(?:ly)?|benefit\w*|gain\w*|above\s+(?:zero|0)|(?:greater|more|higher)\s+than\s+(?:zero|0)"
    r"|better\s+off)\b|>\s*=?\s*0\b"
)
_LOSS_SIGN = re.compile(
    rf"{_LOSS.pattern}|\b(?:below\s+(?:zero|0)|(?:less|lower|smaller)\s+than\s+(?:zero|0)"
    r"|drops?|declines?)\b|<\s*=?\s*0\b"
)
_SIGN_NEGATED = re.compile(
    r"\b(?:not|no|non|never|without|neither|nor|rather\s+than|instead\s+of|as\s+opposed\s+to)\b"
    r"|n't\b|\bnon-"
)
"""Wording that negates or contrasts a sign ("a drop rather than a gain"): the sign check
stays out."""


def _sign_conditions(plan: Plan) -> list[dict[str, Any]]:
    """The plan's conditions on the sign of a treatment's effect (> 0, ≥ 0, < 0, ≤ 0; "≠ 0"
    drops no subject that has an effect)."""
    return [
        c
        for c in _conditions(plan)
        if c.get("than") == 0
        and c.get("op") in (">", ">=", "<", "<=")
        and isinstance(c.get("value"), dict)
        and "treatment" in c["value"]
    ]


def _opposite_sign_problems(text: str, plan: Plan) -> list[str]:
    """A condition on the sign of an effect opposite to the one the wording states ("the
    share of partners whose effect of ⟦1⟧ is strictly positive" run with effect < 0). Only
    where the wording names one sign and negates or contrasts nothing."""
    if _SIGN_NEGATED.search(text):
        return []
    gain, loss = bool(_GAIN_SIGN.search(text)), bool(_LOSS_SIGN.search(text))
    if gain == loss:
        return []
    for c in _sign_conditions(plan):
        kept = "gain" if c["op"] in (">", ">=") else "loss"
        if (kept == "gain") != gain:
            side = "lose (effect below zero)" if kept == "loss" else "gain (effect above zero)"
            return [
                f"the plan keeps the subjects who {side}, the opposite of what the question says"
            ]
    return []


def _polarity_problems(text: str, plan: Plan) -> list[str]:
    """A plan that picks the highest effect for a question about who loses ("Who loses out
    under ⟦1⟧?" run as the partner that gains most)."""
    if not _is_high(plan) or _tool(plan) == "compare_treatments" or _args(plan).get("stat"):
        return []
    if _LOSS.search(text) and not _says_word(text, *_GAIN_OR_LEAST):
        return ["the question asks about those who lose, but the plan picks the highest effect"]
    return []


_LOW_WORDS = re.compile(
    rf"\b(?:{_LOW}|poorest|fewest|last|min|low|how\s+far\s+down|floor)\b(?<!at\sleast)"
)


def _unasked_lowest_problems(text: str, plan: Plan) -> list[str]:
    """A plan that picks the lowest where the question asks for no low end and about no
    loss ("which one wins on median impact?" run as the lowest median)."""
    args = _args(plan)
    low = bool(args.get("lowest")) or args.get("stat") == "min"
    if not low or _LOW_WORDS.search(text) or _LOSS.search(text):
        return []
    return ["the plan picks the lowest, which the question does not ask for"]


_SIGN_WORDS = re.compile(
    r"\b(?:benefi\w*|good|drop\w*|declin\w*|fall\w*|outperform\w*|beat\w*|exceed\w*|surpass\w*"
    r"|gain\w*|profit\w*|help\w*|positive\w*|negative\w*|hurt\w*|harm\w*"
    r"|los[et]\w*|losing|loss\w*|better\s+off|worse\s+off|ahead|behind|above\s+zero|below\s+zero"
    r"|upside|downside|pays?\s+off|backfir\w*|respond\w*|improv\w*|suffer\w*|penali[sz]\w*"
    r"|damag\w*|win\w*|worse|better|zero|boost\w*)\b|[<>]=?\s*0\b"
    r"|\b(?:than|above|below|over|under|exceeds?)\s+0(?![.,]?\d)"
    r"|\b(?:see|sees|get|gets|have|has|experience|enjoy|record|show)\s+(?:a|an|any|some)\s+"
    r"(?:\w+\s+)?(?:lift|uplift|increase|rise|bump|improvement)\b"
)


def _unsigned_question_problems(text: str, slots: list[Any], plan: Plan) -> list[str]:
    """A plan keeping subjects by the sign of an effect when the question says nothing of
    signs ("the largest excess uplift of ⟦1⟧ over ⟦2⟧" run over those ⟦2⟧ helps), or by
    the sign of one treatment of the difference it ranks unless the wording states that
    sign ("where ⟦1⟧ outperforms ⟦2⟧ the most" speaks of the difference, not of ⟦2⟧)."""
    signed = [
        c
        for c in _conditions(plan)
        if c.get("than") == 0
        and not isinstance(c.get("than"), bool)
        and isinstance(c.get("value"), dict)
    ]
    if not signed:
        return []
    difference = (_args(plan).get("value") or {}).get("difference") or []
    members = [c for c in signed if c["value"].get("treatment") in difference]
    if _SIGN_WORDS.search(text):
        stated = [r["value"] for r in read_conditions(text, slots)[0] if r.get("than") == 0]
        if all(c["value"] in stated for c in members):
            return []
    return [
        "the plan keeps only the subjects by the sign of an effect, which the question does not ask"
    ]


def _greater(condition: dict[str, Any]) -> tuple[Any, ...] | None:
    """(the side said to be greater, the other side) of a comparison condition."""
    value, op, than = condition.get("value"), condition.get("op"), condition.get("than")
    if not isinstance(value, dict) or op not in (">", ">=", "<", "<="):
        return None
    a = value.get("treatment")
    b = than.get("treatment") if isinstance(than, dict) else ("zero" if than == 0 else None)
    if a is None or b is None:
        return None
    return (a, b) if op in (">", ">=") else (b, a)


_ROUTE = re.compile(
    r"\bfrom\s+⟦(\d+)⟧\s+(?:\w+\s+){0,2}?(?:to|into|towards?)\s+⟦(\d+)⟧"
    r"|\bbetween\s+⟦(\d+)⟧\s+and\s+⟦(\d+)⟧"
    r"|⟦(\d+)⟧(?:'s|’s)\s+(?:\w+\s+){0,2}?(?:effects?|impacts?|influences?)\s+on\s+⟦(\d+)⟧"
    r"|⟦(\d+)⟧\s*(?:->|→|=>)\s*⟦(\d+)⟧"
)


def _route_problems(text: str, slots: list[Any], plan: Plan) -> list[str]:
    """An on_path plan whose route is not the one the question names ("does M sit between
    A and B": the route is A → B, M the variable on it)."""
    if _tool(plan) != "on_path":
        return []
    m = _ROUTE.search(text)
    if m is not None:
        a, b = (g for g in m.groups() if g)
        names = [slots[int(i) - 1].variable for i in (a, b)]
    else:
        stated = stated_direction(text, slots)  # "downstream of ⟦a⟧ and upstream of ⟦b⟧"
        if stated is None:
            return []
        names = list(stated)
    args = _args(plan)
    if None in names or (args.get("source"), args.get("target")) == tuple(names):
        return []
    return [f"the question asks about the route {names[0]!r} → {names[1]!r}, the plan another"]


def _direction_problems(text: str, slots: list[Any], plan: Plan) -> list[str]:
    """A plan comparing the same two things as the question, the other way round ("T's
    effect above U's" run as U's above T's; "positive" run as below zero)."""
    from causalqa.qa.frame import comparisons

    found = _route_problems(text, slots, plan)
    read, _ = comparisons(text, slots)
    said = {frozenset(g): g for g in map(_greater, read) if g is not None}
    for c in _conditions(plan):
        g = _greater(c)
        if g is not None and frozenset(g) in said and said[frozenset(g)] != g:
            hi, lo = said[frozenset(g)]
            found.append(f"the question compares {hi!r} above {lo!r}, the plan the other way round")
        elif (
            g is not None
            and "zero" not in g
            and frozenset(g) not in said
            and not _says_word(text, *_THAN)
        ):
            # two treatments compared where the question compares none ("a table of how
            # much each partner gains from ⟦2⟧" kept to those gaining more from ⟦1⟧)
            found.append(f"the plan compares {g[0]!r} with {g[1]!r}, which the question does not")
    return found


_THAN = (
    ("outperform", "exceed"),
    {"than", "versus", "vs", "compared", "comparison", "relative", "over", "beat", "beats"}
    | {"rather", "instead", "minus", "difference", "gap"},
)
"""Words of a comparison: any word starting with one of the first, or one of the second
(a word test, `_says_word`)."""


def _sign_filter_problems(text: str, slots: list[Any], plan: Plan) -> list[str]:
    """A plan keeping only the subjects a treatment helps (or hurts) when the wording puts no
    sign on the effect and asks how much they gain ("how much each partner gains from ⟦1⟧"
    run over the gainers) or every subject's value (`subject_values`). Only there: users
    say "benefit" in more ways than a rule reads ("see a lift", "come out ahead"), and in a
    count or a list of subjects a sign is meant."""
    if not HOW_MUCH_GAIN.search(text) and _tool(plan) != "subject_values":
        return []
    signed = _sign_conditions(plan)
    if not signed:
        return []
    stated = [r["value"] for r in read_conditions(text, slots)[0] if r.get("than") == 0]
    return [
        f"the plan keeps only the subjects by the sign of the effect of "
        f"{c['value']['treatment']!r}, which the question does not ask"
        for c in signed
        if c["value"] not in stated
    ][:1]


ROLES = {
    "is_cause": ("cause", "effect"),
    "is_parent": ("parent", "child"),
    "paths_between": ("source", "target"),
    "mediators": ("source", "target"),
    "on_path": ("source", "target"),
    "adjustment_set": ("treatment", "outcome"),
    "effect_kind": ("cause", "effect"),
}
"""The (cause, effect) roles of the directional graph tools (the web page's highlight reads
the routes between them too)."""

_BOOL_TOOLS = {"is_cause", "is_parent", "on_path", "d_separated", "d_connected"}
_ASKED = {
    "number": "a number",
    "subject": "a subject",
    "treatment": "a treatment",
    "variables": "variables",
}

_TABLE_TOOLS = {
    "ate", "ite", "best_treatment", "best_subject", "top_k_subjects", "top_k_treatments",
    "compare_treatments", "summarize", "count_subjects", "share_subjects", "list_subjects",
    "subject_values", "subject_value", "rank_subjects", "rank_treatments", "subjects",
    "treatments", "filters",
}  # fmt: skip


def what_can_be_asked(model: CausalModel) -> list[str]:
    """Examples of questions this model can answer, with its own names."""
    v = model.variables
    a, b = (v[0], v[-1]) if len(v) > 1 else (v[0], v[0]) if v else ("X", "Y")
    asks = [
        f"what causes {b!r} (directly or indirectly)",
        f"whether {a!r} affects {b!r}, and through which variables",
        f"what confounds the effect of {a!r} on {b!r}, and what to adjust for",
        f"whether {a!r} and {b!r} are independent given other variables",
    ]
    if model.effects is not None and model.treatments:
        t = model.treatments[0]
        noun = (model.subject_column or "subject").lower()
        asks += [
            f"the average, median, minimum, maximum or a percentile of {t!r}'s effect",
            f"how many or what share of {noun}s benefit from {t!r} (or gain more than a number)",
            f"which {noun} or treatment gains most, for everyone or a filtered group",
        ]
    return asks


def refusal(question_problems: Iterable[str], model: CausalModel) -> str:
    """An honest answer to a question the plan cannot compute: why, and what to ask."""
    why = "; ".join(question_problems)
    return (
        f"I cannot answer that exactly from this model: {why}. I can answer, for example: "
        + "; ".join(what_can_be_asked(model))
        + "."
    )


def describe(plan: Plan) -> str:
    """The plan as compact text, for logs and refusals."""
    return json.dumps(plan, ensure_ascii=False, separators=(",", ":"))


def _demanded(text: str) -> list[str]:
    """The demands whose words `text` (a slotted question) says (for the doctests below)."""
    return [d.name for d in DEMANDS if d.pattern.search(text)]


def _no_operator(text: str) -> list[str]:
    """What `text` asks that no operator computes (for the doctests below)."""
    return [what for pattern, what in _NO_OPERATOR if pattern.search(text)]


__test__ = {
    "word tests": """
    >>> [_says_word(t, *_THAN) for t in ("more than ⟦2⟧", "⟦1⟧ vs. ⟦2⟧", "it outperforms", "overall")]
    [True, True, True, False]
    >>> [_says_word(t, *_GAIN_OR_LEAST) for t in ("who gains", "the least", "helpful", "who loses")]
    [True, True, True, False]
    """,
    "demands": """
    >>> _demanded("what is the median effect of ⟦1⟧")
    ['median']
    >>> _demanded("the 10th percentile of ⟦1⟧"), _demanded("the standard deviation of ⟦1⟧")
    (['quantile'], ['std'])
    >>> _demanded("the variance of ⟦1⟧"), _demanded("the total effect of ⟦1⟧ summed up")
    (['var'], ['sum'])
    >>> _demanded("the average effect of ⟦1⟧"), _demanded("how far do they deviate from their mean")
    (['mean'], [])
    >>> _demanded("what share of partners benefit from ⟦1⟧")
    ['share']
    >>> _demanded("how many partners benefit from ⟦1⟧"), _demanded("⟦1⟧ for each partner")
    (['count'], ['each'])
    >>> _demanded("partners with an effect of ⟦1⟧ above 10")
    ['threshold']
    >>> _demanded("partners who gain more from ⟦1⟧ than from ⟦2⟧")
    ['than']
    >>> _demanded("the lowest effect of ⟦1⟧"), _demanded("the biggest effect of ⟦1⟧")
    (['low'], ['high'])
    >>> _demanded("are ⟦1⟧ and ⟦2⟧ independent given ⟦3⟧")
    ['independent']
    >>> _demanded("what confounds ⟦1⟧ and ⟦2⟧"), _demanded("the common effects of ⟦1⟧ and ⟦2⟧")
    (['confound'], ['common effect'])
    >>> _demanded("which variables mediate ⟦1⟧'s effect on ⟦2⟧")
    ['mediate']
    >>> _demanded("does ⟦1⟧ affect ⟦2⟧ directly or indirectly")
    ['any route']
    >>> _demanded("the adjustment set for ⟦1⟧ on ⟦2⟧")
    ['adjust']
    >>> _demanded("does ⟦1⟧ affect ⟦2⟧ via ⟦3⟧")
    ['via']
    >>> _demanded("what causes both ⟦1⟧ and ⟦2⟧")
    ['confound', 'both cause']
    >>> _demanded("affected by ⟦1⟧ as well as ⟦2⟧")
    ['as well as']
    >>> _demanded("the markov blanket of ⟦1⟧"), _demanded("is it direct, indirect, or both")
    (['blanket'], ['kind'])
    """,
    "no operator": """
    >>> _no_operator("the mode of ⟦1⟧"), _no_operator("how skewed are the effects")
    (['the most common value (mode)'], ['the shape of the distribution'])
    >>> _no_operator("the iqr of ⟦1⟧"), _no_operator("the probability that ⟦1⟧ helps")
    (['the interquartile range'], ['a probability'])
    >>> _no_operator("the correlation between ⟦1⟧ and ⟦2⟧")
    ['a correlation coefficient']
    >>> _no_operator("is the effect significant"), _no_operator("the median of ⟦1⟧")
    (['statistical uncertainty'], [])
    """,
}
