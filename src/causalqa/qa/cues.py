"""What kind of answer a question asks for, read from its syntax.

A question's answer type is marked by English itself: a clause that opens with an
auxiliary verb ("Does…", "Is there…", "…, would Y change?") or says "whether" asks yes or
no; "which partner" or "who" asks for a subject; "which engagement" or "what should we
offer" for a treatment; "how much" or "what is the average effect of T" for a number;
"which variables", "through which" for variables; an imperative ("identify the partner
with…", "give me the average lift…") by the noun it asks for. The planner lets the LLM choose
only among the tools that return that type, which removes the small model's commonest
slips (answering "is there any causal path from X to Y?" with the paths, or "which
partner gains most from T?" with T's average). Two more cues are read here: whether a
structural question is about *direct* links only ("immediate", "directly", "first-hand")
or about any link ("directly or indirectly", "in any way", "upstream"), and whether a
best-of question asks for several ("top 3", "the best engagements") or one.

Every cue returns None when the wording does not clearly mark it, and the planner then
leaves the choice to the model.

>>> answer_type("Is there any causal path from Price to Churn?")
'bool'
>>> answer_type("Which partner not yet engaged benefits most from Discount?")
'subject'
>>> scope("Which nodes are the immediate predecessors of Churn?")
'direct'
"""

from __future__ import annotations

import re
from typing import Literal

from causalqa.qa.lexicon import (
    EFFECT_NOUNS,
    NUMBER_WORDS,
    ROW_NOUNS,
    SUBJECT_NOUNS,
    TREATMENT_NOUNS,
    VARIABLE_NOUNS,
    alternation,
    any_of,
    forms,
    word_spans,
    words_of,
)

AnswerType = Literal["bool", "subject", "treatment", "number", "variables"]
Scope = Literal["direct", "any"]

_AUX = r"does|do|did|is|are|was|were|can|could|would|will|should|has|have|had|might|may|must"
_SUBJECT_NOUNS = alternation(SUBJECT_NOUNS + ROW_NOUNS, plural=True)
_TREATMENT_NOUNS = alternation(TREATMENT_NOUNS, plural=True)
_SUBJECT_FORMS = forms(SUBJECT_NOUNS + ROW_NOUNS, plural=True)
_TREATMENT_FORMS = forms(TREATMENT_NOUNS, plural=True)
"""The words `_SUBJECT_NOUNS` and `_TREATMENT_NOUNS` match, as sets (a word test)."""
_VARIABLE_NOUNS = alternation(VARIABLE_NOUNS + ("causes", "effects"), plural=True)
_NUMBER_NOUNS = alternation(
    EFFECT_NOUNS
    + ("pay-off", "ate", "ite", "result", "boost", "growth", "value", "change", "increase")
    + ("influence", "outcome")
)

# A noun used as a modifier is not what is asked for: "the average treatment effect".
_NOT_HEAD = (
    rf"(?![\s-]+(?:{alternation(EFFECT_NOUNS + ('outcome', 'result', 'cost'), plural=True)}"
    r"|ate|ite|base|population|level|value|size|score|data|table|column|strateg(?:y|ies))\b)"
)
# "the top partner", "leading engagement", "highest-impact program"
_BEST = (
    r"(?:top|best|optimal|leading|strongest|highest|biggest|greatest|largest|number[\s-]one"
    r"|most\s+\w+|highest[\s-]\w+|best[\s-]\w+|top[\s-]\w+)"
)
# Clause openings: start of text or after punctuation, optionally after a fronted phrase
# ("If we tweak X, does Y…", "Quick check: is X…").
_CLAUSE_START = r"(?:^|[,:;—–]\s*|\s-\s+|\?\s*)"
# "Could you tell me which…", "Can you list…": a polite request, not a yes/no question.
_REQUEST = (
    r"(?!\s+(?:you|u|we|i|someone)\s+(?:please\s+|kindly\s+)?(?:tell|list|show|give|name"
    r"|identify|find|let|help|explain|estimate|compute|calculate|work|figure|rank|report|provide"
    r"|pull|get|look|share|point|spell|enumerate|describe|return|print))"
)
_BOOL = any_of(
    [
        (rf"{_CLAUSE_START}(?:{_AUX})\b{_REQUEST}"),
        (r"\b(?:tell|know|say|check|determine|see|verify|confirm)\s+(?:me\s+|us\s+)?if\b"),
        (r"\bwhether\b|\byes\s*(?:or|/)\s*no\b|\btrue\s*(?:or|/)\s*false\b|\by/n\b"),
        (r"\bis\s+it\s+(?:true|the\s+case|so)\b|\bcheck\s+(?:if|that)\b"),
    ]
)
# A question word, or an imperative that asks for a thing ("identify the partner with…",
# "show me the engagement whose…"), before the noun that names what is asked for.
_ASK = (
    r"(?:which|what|^\s*(?:please\s+)?(?:identify|name|list|show|give|find|tell|pick|select"
    r"|return|get|report|state|determine|compute|calculate|estimate|fetch|provide)(?:\s+(?:me|us))?"
    r"(?:\s+(?:the|a|an|which|what))?)"
)
_ARG_EXTREME = r"\barg\s*(?:max|min)\s+(?:(?:over|across|among)\s+)?(?:the\s+|all\s+)?"
""""argmax over partners", "argmin treatments": which one is asked for."""
_WH_SUBJECT = any_of(
    [
        # not "partner 9": a subject named by its id is given, not asked for
        (
            rf"\b{_ASK}\s+(?:\w+[\s-]+){{0,3}}?(?:{_SUBJECT_NOUNS})\b{_NOT_HEAD}"
            rf"(?!\s*(?:no\.?|number|#)?\s*#?\s*(?:\d|x\b))"
        ),
        (
            rf"(?:(?:^|[,:;]\s*)who\b|\bwho(?:m|se)?\s+(?:is|has|gets|would|will|should|benefits"
            rf"|gains|responds|sees|profits|does|can|could)\b|\bfor\s+whom\b|\bwhose\b)"
            rf"(?!\s+(?:are|is|were)\s+(?:the\s+|its\s+)?(?:\w+\s+)?(?:{_VARIABLE_NOUNS})\b)"
        ),
        (rf"\b{_BEST}\s+(?:{_SUBJECT_NOUNS})\b{_NOT_HEAD}"),
        (rf"{_ARG_EXTREME}(?:{_SUBJECT_NOUNS})\b"),
    ]
)
_WH_TREATMENT = any_of(
    [
        (rf"\b{_ASK}\s+(?:\w+[\s-]+){{0,3}}?(?:{_TREATMENT_NOUNS})\b{_NOT_HEAD}"),
        (
            r"\bwhat\s+(?:should|could|would|can|do)\s+(?:we|i|you)\s+(?:offer|give|provide"
            r"|use|apply|run|do|try|choose|pick)\b"
        ),
        (rf"\b{_BEST}\s+(?:{_TREATMENT_NOUNS})\b{_NOT_HEAD}"),
        (rf"{_ARG_EXTREME}(?:{_TREATMENT_NOUNS})\b"),
    ]
)
_WH_NUMBER = any_of(
    [
        (r"\bhow\s+(?:much|big|large|strong(?:ly)?|effective|high|many\s+points)\b"),
        (r"\bby\s+how\s+much\b|\bto\s+what\s+extent\b|\bhow\s+does\s+.+\s+respond\b"),
        (
            rf"\bwhat(?:'s|\s+is|\s+are|\s+would\s+be|\s+will\s+be)?\s+(?:the\s+|its\s+|their\s+)?"
            rf"(?:\w+\s+){{0,3}}?(?:{_NUMBER_NOUNS})(?:\s+(?:of|from|for|on|does|would|that|to)\b"
            r"|\s*[?.!]?\s*$)"
        ),
        (rf"^\s*(?:the\s+)?(?:\w+\s+){{0,2}}?(?:{_NUMBER_NOUNS}|average|mean)\s+(?:of|from|for)\b"),
        (r"\bwhat\s+(?:\w+\s+){0,3}(?:would|will|does|do)\s+(?:we|i|it|they)\s+(?:get|see|gain)\b"),
        (r"\bestimate\b|\bquantify\b"),
        (rf"{_ASK}\s+(?:\w+[\s-]+){{0,2}}?(?:{_NUMBER_NOUNS})\b"),
        (
            r"\bwhat\s+(?:\w+\s+){0,2}?(?:does|do|would|will|can|could)\s+.+\s+(?:deliver|bring|yield"
            r"|produce|give|generate|add|contribute|return|achieve|do|earn|make)\b"
        ),
    ]
)
_WH_VARIABLES_WORDS = [
    (rf"\b(?:which|what|who)\s+(?:\w+[\s-]+){{0,3}}?(?:{_VARIABLE_NOUNS})\b"),
    (r"\b(?:through|via|by\s+way\s+of|along)\s+(?:which|what)\b"),
    # A fragment that opens with the plural noun it asks for: "Mediators X -> Y?"
    (
        r"^\s*(?:(?:the|all|any)\s+)?(?:direct\s+|immediate\s+|intermediate\s+)?(?:mediators"
        r"|intermediaries|intermediate\s+(?:variables|nodes|factors|steps)|parents|children"
        r"|ancestors|descendants|predecessors|successors)\b"
    ),
    (rf"{_ASK}\s+(?:\w+[\s-]+){{0,3}}?(?:{_VARIABLE_NOUNS})\b"),
    (
        r"\bwhat\s+(?:\w+\s+){0,2}?(?:mediates?|sits?|lies|lie|feeds?|drives?|determines?"
        r"|causes?|influences?|affects?|shapes?)\b"
    ),
]
_WH_VARIABLES = any_of(_WH_VARIABLES_WORDS[:3])
"""Words that ask for variables before a number phrase can ("which factors", "through
which")."""
_WH_VARIABLES_LATE = any_of(_WH_VARIABLES_WORDS[3:])
# "the best/highest …" questions that name a subject noun or a treatment noun first.
_SUPERLATIVE = frozenset(
    {"best", "highest", "largest", "biggest", "greatest", "most", "maximal", "maximum", "top"}
    | {"optimal", "strongest", "first"}
    | {f"maximi{z}e{end}" for z in "sz" for end in ("", "s", "d")}
)
"""Superlative words (a word test)."""

FOLLOW_UP = re.compile(r"^\s*(and|what about|how about|same for|and for|now for|for)\b", re.I)
"""A question that continues the previous one ("and for partner P042?")."""


_IF_SO_WHICH = re.compile(
    rf"\b(?:if\s+so|and\s+if\s+yes|if\s+yes)\s*[,:]?\s*(?:which|what)\s+(?:ones|are\s+they"
    rf"|(?:\w+\s+)?(?:{_VARIABLE_NOUNS}))\b"
)


def _norm(question: str) -> str:
    q = question.casefold().replace("’", "'")
    # "what's", "whats" → "what is"
    q = re.sub(r"\b(?:(what|who|how|where|which|that|it)'|(what))s\b", r"\1\2 is", q)
    # "everyone who is already engaged": a relative clause, not the question's "who"
    q = re.sub(
        r"\b(everyone|everybody|anyone|anybody|someone|somebody|those|people|all|ones|the\s+rest"
        rf"|{_SUBJECT_NOUNS})\s+who\b",
        r"\1 that",
        q,
    )
    return re.sub(r"\s+", " ", q).strip()


def answer_type(question: str) -> AnswerType | None:
    """The kind of answer `question` asks for, or None when its wording does not say.

    The order of the checks matters: a superlative over subjects or treatments ("which
    partner gains most…", "what is the engagement with the highest average effect")
    outranks a number phrase in the same question, and a yes/no opening outranks
    everything ("Is X's effect on Y positive?").
    """
    q = _norm(question)
    if _IF_SO_WHICH.search(q):
        # "Is X's effect on Y channelled through other variables? If so, which ones?"
        return "variables"
    if _BOOL.search(q):
        return "bool"
    subject = bool(_WH_SUBJECT.search(q))
    treatment = bool(_WH_TREATMENT.search(q))
    if subject and treatment:
        # "Which partner benefits most from the Discount engagement?": the question word
        # governs: whichever noun comes first after it.
        s = _WH_SUBJECT.search(q).start()
        t = _WH_TREATMENT.search(q).start()
        subject, treatment = s <= t, t < s
    if not subject and not treatment:
        # "Among those partners, which one…": the pronoun stands for the nearest noun before
        # it that names subjects or treatments.
        m = re.search(r"\bwhich\s+(?:one|ones|of\s+them|of\s+those)\b|\bwho\s+among\b", q)
        if m:
            before = word_spans(q[: m.start()])
            s = max((x.end() for x in before if x.group() in _SUBJECT_FORMS), default=-1)
            t = max((x.end() for x in before if x.group() in _TREATMENT_FORMS), default=-1)
            subject, treatment = s > t, t > s
    if subject:
        return "subject"
    if treatment:
        return "treatment"
    if _WH_VARIABLES.search(q):
        return "variables"
    if _WH_NUMBER.search(q) and not words_of(q) & _SUPERLATIVE:
        return "number"
    if _WH_VARIABLES_LATE.search(q):
        return "variables"
    return None


TOOLS_BY_TYPE: dict[AnswerType, frozenset[str]] = {
    "bool": frozenset({"is_cause", "is_parent", "compare_treatments"}),
    "subject": frozenset({"best_subject", "top_k_subjects", "subjects"}),
    "treatment": frozenset(
        {"best_treatment", "top_k_treatments", "compare_treatments", "treatments"}
    ),
    "number": frozenset({"ate", "ite"}),
    "variables": frozenset(
        {"parents", "children", "ancestors", "descendants", "paths_between", "variables"}
    ),
}
"""The tools whose result is an answer of each type."""


_ANY = re.compile(
    r"\bdirectly\s+or\s+(?:\w+\s+)?indirectly\b|\bindirect(?:ly)?\b|\bin\s+any\s+(?:way|form|manner)"
    r"\b|\bat\s+all\b|\beven\s+(?:\w+\s+)?(?:via|through|indirectly)\b|\bultimately\b|\beventually\b"
    r"|\bupstream\b|\bdownstream\b|\bancestors?\b|\bdescendants?\b|\bpropagat\w*\b"
    r"|\b(?:via|through)\s+(?:other|intermediate|any|some)\b|\bwhether\s+directly\s+or\b"
    r"|\bpossibly\s+via\b|\bany\s+(?:causal\s+)?(?:path|pathway|route|chain|connection)\b"
)
_EITHER = re.compile(
    r"\bdirect(?:ly)?\s*,?\s*(?:or|and|/)\s+\w|\b(?:either|whether)\s+direct(?:ly)?\b|\bindirect(?:ly)?\s+or\s+direct(?:ly)?\b"
    r"|\bnot\s+(?:only|just|necessarily)\s+direct(?:ly)?\b"
)
_DIRECT = re.compile(
    r"\bdirect(?:ly)?\b|\bimmediate(?:ly)?\b|\bfirst[\s-]hand\b|\bstraight\b"
    r"|\b(?:one|single|1)[\s-](?:step|hop|edge|link|arrow)\b|\bfirst[\s-](?:level|order)\b"
    r"|\bparents?\b|\bchild(?:ren)?\b|\bpredecessors?\b|\bsuccessors?\b|\badjacent\b"
    r"|\bwithout\s+(?:any\s+)?(?:going\s+through|intermediar\w*|intermediate|mediat\w*|an?\s+"
    r"intermediar\w*|other\s+variables)|\bwith\s+no\s+intermediar\w*|\bneighbou?rs?\b"
)


# "a direct parent or anywhere further upstream", "one step or several", "straight away or
# further down the line": a direct word offered with an alternative that is not direct.
_OR_FURTHER = re.compile(
    r"\bor\s+(?:\w+\s+){0,3}?(?:further|anywhere|indirect\w*|several|more(?:\s+steps)?|down\s+the"
    r"\s+line|via|through|eventually|ultimately|many)\b"
)


def scope(question: str) -> Scope | None:
    """ "direct" when the question is about direct links only, "any" when about any
    (direct or indirect) link, None when it does not say. "directly or indirectly" is
    "any"; "upstream of X" alone is "any" but "immediately upstream of X" is "direct"."""
    q = _norm(question)
    if _EITHER.search(q) or (_DIRECT.search(q) and _OR_FURTHER.search(q)):
        return "any"
    if _DIRECT.search(q):
        return "direct"
    return "any" if _ANY.search(q) else None


_DIRECT_TOOL = {"ancestors": "parents", "descendants": "children", "is_cause": "is_parent"}
_ANY_TOOL = {v: k for k, v in _DIRECT_TOOL.items()}


def rescope(tool: str, question: str) -> str:
    """`tool`, or its direct/any counterpart (ancestors ↔ parents, descendants ↔
    children, is_cause ↔ is_parent) when the question clearly asks the other scope."""
    s = scope(question)
    if s == "direct" and tool in _DIRECT_TOOL:
        return _DIRECT_TOOL[tool]
    if s == "any" and tool in _ANY_TOOL:
        return _ANY_TOOL[tool]
    return tool


_LOWEST = re.compile(
    r"(?<!\bat\s)\b(?:lowest|least|worst|smallest|minimum|minimal|weakest|poorest|bottom"
    r"|most\s+negative|lowest[\s-]\w+)\b(?!\s+(?:bit|of\s+all\s+reasons))"
)


def wants_lowest(question: str) -> bool:
    """Whether a best-of question asks for the other end: "the lowest effect", "benefits
    least", "the worst engagement", "bottom 3" ("at least" does not count)."""
    q = _norm(question)
    return bool(_LOWEST.search(q)) and not re.search(
        r"\b(?:highest|largest|biggest|greatest|best|top|most(?!\s+negative))\b", q
    )


_COUNT_NOUNS = rf"{_SUBJECT_NOUNS}|{_TREATMENT_NOUNS}|{_VARIABLE_NOUNS}|edges?|links?|arrows?"
_COUNT_QUESTION = re.compile(
    rf"\bhow\s+many\s+(?!percent\b)(?:\w+[\s-]+){{0,2}}?(?:{_COUNT_NOUNS})\b"  # not a share
    rf"|\b(?:the\s+)?(?:number|count|total)\s+of\s+(?:\w+[\s-]+){{0,2}}?(?:{_COUNT_NOUNS})\b"
    rf"|^\s*(?:count|tally)\s+(?:up\s+)?(?:the\s+)?(?:\w+[\s-]+){{0,2}}?(?:{_COUNT_NOUNS})\b"
)


CountTarget = Literal["subject", "treatment", "variable"]


def count_target(question: str) -> CountTarget | None:
    """What a "how many" question counts ("How many partners are there?" → "subject",
    "the number of direct causes of X" → "variable", paths too), or None when it asks
    no count."""
    m = _COUNT_QUESTION.search(_norm(question))
    if m is None:
        return None
    noun = m.group(0).split()[-1]
    if noun in _SUBJECT_FORMS:
        return "subject"
    if noun in _TREATMENT_FORMS:
        return "treatment"
    return "variable"


def asks_count(question: str) -> bool:
    """Whether the question asks how many things there are rather than which."""
    return count_target(question) is not None


_NUMBER_WORDS = {**NUMBER_WORDS, "couple": 2}
_NUMBER = r"(\d+|" + "|".join(_NUMBER_WORDS) + r")"
_TOP_N = [
    re.compile(rf"\b(?:top|best|first|leading|highest|bottom|worst|lowest|last)[\s-]{_NUMBER}\b"),
    re.compile(
        rf"\b{_NUMBER}\s+(?:best|top|most|leading|highest|\w+est\b"
        rf"|(?:\w+\s+)?(?:{_SUBJECT_NOUNS}|{_TREATMENT_NOUNS})\b)"
    ),
]
_PLURAL_BEST = re.compile(
    rf"\b(?:top|best|highest|leading|most\s+effective|worst|lowest|bottom)\s+(?:\w+\s+)?(?:{_SUBJECT_NOUNS}"
    rf"|{_TREATMENT_NOUNS})\b"
)


def requested_count(question: str) -> int | None:
    """How many results a best-of question asks for: an explicit number ("top 3", "the
    two best"), 3 for a plural with no number ("the best partners"), else None (one)."""
    q = _norm(question)
    # "partner 3", "#12": ids, not counts
    q = re.sub(rf"\b(?:{_SUBJECT_NOUNS})\s*(?:no\.?|number|#)?\s*#?\s*(?:\d[\w-]*|x\b)", " ", q)
    for pattern in _TOP_N:
        for m in pattern.finditer(q):
            word = m.group(1)
            n = int(word) if word.isdigit() else _NUMBER_WORDS[word]
            if n > 0:
                return n
    for m in _PLURAL_BEST.finditer(q):
        noun = m.group(0).split()[-1]
        if noun.endswith("s") and noun not in ("ids",) or noun in ("people", "strategies"):
            return 3
    return None
