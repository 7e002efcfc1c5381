"""Sentence forms of a story: the graph, stated numbers, mechanisms, observations, the
methods of a back-door question. Each sentence becomes a raw statement whose slots are
phrases still to be mapped to variables and values (`causalqa.stated.resolve`).

The forms are general: a graph stated with arrows or in prose ("A has a direct effect on
B", "B depends on A", "A is one of the causes of B", "A -> B"), a probability stated
before or after its condition, as "26%", "0.26" or "26 in 100".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from causalqa.stated.text import (
    PLACEHOLDER,
    StatedNumber,
    phrase_words,
    split_sentences,
    with_placeholder,
)

N = re.escape(PLACEHOLDER)

# -- the graph -----------------------------------------------------------------------------

_EFFECT_NOUN = (
    r"(?:a\s+|an\s+)?(?:direct\s+|causal\s+|direct\s+causal\s+)?(?:effect|effects|influence|impact)"
)
_FORWARD = [
    rf"(?P<s>.+?)\s+(?:has|have)\s+{_EFFECT_NOUN}\s+(?:on|upon)\s+(?P<o>.+)",
    r"(?P<s>.+?)\s+(?:directly\s+|causally\s+)?(?:leads?\s+to\s+changes\s+in|affects?|influences?|impacts?|determines?|drives?|causes?|"
    r"leads?\s+to|contributes?\s+to|is\s+(?:a|the)\s+(?:direct\s+)?cause\s+of|"
    r"are\s+(?:the\s+)?(?:direct\s+)?causes\s+of|is\s+one\s+of\s+the\s+(?:direct\s+)?causes\s+of|"
    r"are\s+among\s+the\s+(?:direct\s+)?causes\s+of|is\s+a\s+parent\s+of|are\s+parents\s+of|"
    r"leads?\s+to\s+changes\s+in|(?:has|have)\s+an?\s+(?:causal\s+|direct\s+)?(?:effect|influence)\s+on|"
    r"causally\s+(?:affects?|influences?|determines?)|(?:is|are)\s+(?:a|an|the|one\s+of\s+the)\s+(?:direct\s+)?causes?\s+of|are\s+(?:direct\s+)?causes\s+of)"
    r"\s+(?P<o>.+)",
]
_CAUSE_LIST = [
    r"the\s+(?:direct\s+)?causes\s+of\s+(?P<o>.+?)\s+are\s+(?P<s>.+)",
    r"(?P<o>.+?)\s+has\s+(?:\w+\s+)?(?:direct\s+)?causes?\s*:\s*(?P<s>.+)",
    r"(?P<o>.+?)'s\s+(?:direct\s+)?causes\s+are\s+(?P<s>.+)",
]
_BACKWARD = [
    r"(?P<o>.+?)\s+(?:directly\s+)?(?:depends?|relies|rely)\s+(?:directly\s+)?on\s+(?P<s>.+)",
    r"(?P<o>.+?)\s+(?:is|are)\s+(?:directly\s+)?(?:affected|influenced|caused|determined|driven|"
    r"impacted)\s+(?:directly\s+)?by\s+(?P<s>.+)",
    r"(?P<o>.+?)\s+(?:depends?|relies|rely)\s+directly\s+on\s+(?P<s>.+)",
    r"(?P<o>.+?)\s+(?:is|are)\s+(?:a|an|the)?\s*(?:direct\s+)?(?:effect|effects|consequence|"
    r"consequences|result|child|children)\s+of\s+(?P<s>.+)",
]
_NO_EFFECT = re.compile(
    r"(?:has|have)\s+no\s+(?:direct\s+)?(?:effect|influence)|(?:does|do)\s+not\s+(?:directly\s+)?"
    r"(?:affect|influence|cause)|(?:doesn't|don't|never)\s+(?:directly\s+)?(?:affects?|influences?|causes?)",
    re.IGNORECASE,
)
_UNOBSERVED = [
    r"(?:note\s+that\s+)?(?P<s>.+?)\s+(?:is|are)\s+(?:unobserved|not\s+observed|unmeasured|not\s+measured|latent|"
    r"hidden|never\s+observed)(?:\s*\(.*\))?",
    r"(?P<s>.+?)\s+(?:is|are)\s+an?\s+(?:latent|hidden|unobserved|unmeasured)\s+(?:variable|factor|confounder)s?\b.*",
    r"(?:we\s+)?(?:do\s+not|don't|cannot|can't|never)\s+(?:observe|measure|see)\s+(?P<s>.+)",
]
_ARROW = re.compile(r"\s*(?:->|→|-->|=>|⟶)\s*")
_CLOSED_WORLD = (
    r"(?:imagin\w*|hypothetical|fictional|made-up|fictitious|self-contained|closed\s+(?:system|world)|"
    r"no\s+(?:other|hidden|unmentioned|further|additional)\s+(?:causes|factors|variables|causal)|"
    r"nothing\s+(?:else\s+)?matters|only\s+(?:the\s+)?causal\s+relationships|no\s+unmentioned|"
    r"beyond\s+those\s+(?:named|mentioned|stated)|apart\s+from\s+what\s+is\s+stated)"
)
_PREAMBLE = re.compile(rf"^[^:]*\b{_CLOSED_WORLD}[^:]*:\s*", re.IGNORECASE)
_CLOSED_WORLD_RE = re.compile(_CLOSED_WORLD, re.IGNORECASE)


def split_list(text: str) -> list[str]:
    """'A, B and C' -> [A, B, C] (also 'as well as', 'both A and B')."""
    text = re.sub(r"^\s*both\s+", "", text.strip(), flags=re.IGNORECASE)
    parts = re.split(r"\s*,\s*(?:and\s+|as\s+well\s+as\s+)?|\s+and\s+|\s+as\s+well\s+as\s+", text)
    return [clean_name(p) for p in parts if clean_name(p)]


def clean_name(text: str) -> str:
    t = re.sub(r"\s*\((?:unobserved|hidden|latent)\)\s*$", "", text.strip(), flags=re.I)
    t = t.strip().strip(".,;:!?\"'“”()").strip()
    t = re.sub(r"^(?:the\s+variable\s+|variable\s+)", "", t, flags=re.IGNORECASE)
    # a parenthesis inside a name gives its values or a note, not the name; so does a
    # dash after it ("stress - a feedback loop"), and a header before a colon does not
    # belong to it ("Sleep clinic notes: stress")
    t = re.sub(r"\s*\([^()]*\)?\s*$|\s*\([^()]*\)", " ", t).strip()
    t = re.sub(r"\s+[-–—]\s+.*$", "", t)
    t = re.sub(r"^[^:]*:\s*", "", t)
    t = re.sub(r"\s+in\s+turn$", "", t, flags=re.IGNORECASE)
    t = re.sub(r"\s+(?:directly|too|as\s+well|both|also|all|each)$", "", t, flags=re.IGNORECASE)
    t = re.sub(r"^also\s+", "", t, flags=re.IGNORECASE)
    # "depends on two things: A and B"
    t = re.sub(
        r"^(?:two|three|four|several|these|the\s+following)\s+(?:things|factors|variables|causes)\s*:\s*",
        "",
        t,
        flags=re.IGNORECASE,
    )
    t = re.sub(
        r"^(?:also\s+)?(?:(?:on|upon|of|about)\s+)?(?:whether|if)\s+(?=\S)",
        "",
        t,
        flags=re.IGNORECASE,
    )
    # "the heating is on" names the heating (and says its value)
    # ("a room is vented" names the venting: a participle is the event, not a value)
    state = re.fullmatch(
        r"(?P<n>.+?)\s+(?:is|are)\s+(?!a\b|an\b|the\b)(?!\w+ed\b)\w+", t.strip(), flags=re.I
    )
    if state:
        t = state.group("n")
    return t.strip()


@dataclass
class GraphSentence:
    sentence: str
    edges: list[tuple[str, str]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    unobserved: list[str] = field(default_factory=list)
    absent: list[tuple[str, str]] = field(default_factory=list)  # "A does not affect B"


def read_graph_sentence(sentence: str) -> GraphSentence | None:
    """The edges (or unobserved variables, or declared non-effects) one sentence
    states, or None when it states none."""
    s = _PREAMBLE.sub("", sentence.strip()).rstrip(".!;")
    s = re.sub(
        r"^(?:the\s+causal\s+(?:structure|diagram|graph|relationships?)\s+(?:is|are|has\s+these\s+arrows|has\s+these\s+edges)|"
        r"causal\s+(?:structure|diagram|graph)|edges|arrows)\s*:?\s*",
        "",
        s,
        flags=re.I,
    )
    s = re.sub(r"^[^():]*(?:\([^()]*\))?[^():]*:\s*(?=\()", "", s)
    tup = re.fullmatch(r"\(\s*([^(),]+?)\s*,\s*([^(),]+?)\s*\)", s)
    if tup:
        return GraphSentence(sentence, edges=[(clean_name(tup.group(1)), clean_name(tup.group(2)))])
    s = re.sub(
        r"^(?:and|also|moreover|furthermore|in addition|finally|then),?\s+", "", s, flags=re.I
    )
    if _ARROW.search(s) and PLACEHOLDER not in s:
        # "Causal links (cause -> effect): A -> B, ...": the header is no edge
        head = re.match(r"^(?P<head>[^:]*):\s*(?P<body>.+)$", s)
        if head and _ARROW.search(head.group("body")):
            if not _ARROW.search(re.sub(r"\([^()]*\)", "", head.group("head"))):
                s = head.group("body")
        out = GraphSentence(sentence)
        for chunk in re.split(r"\s*[;,]\s*(?:and\s+)?|\s+and\s+", s):
            nodes = [clean_name(n) for n in _ARROW.split(chunk)]
            if len(nodes) < 2 or not all(nodes):
                continue
            if any(_CAUSAL_VERB.search(n) for n in nodes):
                continue  # prose around the arrows: not names
            for a, b in zip(nodes, nodes[1:]):
                out.edges.append((a, b))
        return out if out.edges else None
    for pat in _UNOBSERVED:
        m = re.fullmatch(pat, s, flags=re.IGNORECASE)
        if m:
            names = split_list(m.group("s"))
            return GraphSentence(sentence, names=names, unobserved=names)
    if _NO_EFFECT.search(s):
        mutual = re.fullmatch(
            r"(?P<s>.+?)\s+(?:do\s+not|don't|never)\s+(?:directly\s+)?(?:affect|influence|cause)\s+"
            r"(?:each\s+other|one\s+another)",
            s,
            flags=re.IGNORECASE,
        )
        if mutual:
            names = split_list(mutual.group("s"))
            return GraphSentence(
                sentence, names=names, absent=[(a, b) for a in names for b in names if a != b]
            )
        m = re.fullmatch(
            r"(?P<s>.+?)\s+(?:has|have|does|do|doesn't|don't|never)\s*(?:no|not|n't)?.*?\s*(?:on|affects?|influences?|causes?)\s+(?P<o>.+)",
            s,
            flags=re.IGNORECASE,
        )
        if m:
            subjects, objects = split_list(m.group("s")), split_list(m.group("o"))
            return GraphSentence(
                sentence,
                names=subjects + objects,
                absent=[(a, b) for a in subjects for b in objects],
            )
    # "In our office building, winter affects ...": a setting before the subject
    setting = re.match(
        r"^(?:in|at|on|for|during|within|across|around)\s+[^,]{1,60},\s+(?P<rest>.+)$",
        s,
        flags=re.I,
    )
    if setting and _CAUSAL_VERB.search(setting.group("rest")):
        inner = read_graph_sentence(setting.group("rest"))
        if inner is not None:
            inner.sentence = sentence
            return inner
    compound = _read_compound_graph(s, sentence)
    if compound is not None:
        return compound
    for pat in _CAUSE_LIST:
        m = re.fullmatch(pat, s, flags=re.IGNORECASE)
        if m:
            subjects, objects = split_list(m.group("s")), split_list(m.group("o"))
            if subjects and objects:
                return GraphSentence(sentence, edges=[(a, b) for a in subjects for b in objects])
    for pats in (_FORWARD, _BACKWARD):
        for pat in pats:
            m = re.fullmatch(pat, s, flags=re.IGNORECASE)
            if not m:
                continue
            subjects, objects = split_list(m.group("s")), split_list(m.group("o"))
            if not subjects or not objects:
                continue
            if pats is _FORWARD:
                # "A is one of the causes of B and also one of the causes of C"
                objects = [_RELATION_AGAIN.sub("", o) for o in objects]
            if any(_CAUSAL_VERB.search(n) or _CLAUSE_IN_NAME.search(n) for n in subjects + objects):
                # a name holding a verb of causing, or a clause of its own ("the campaign
                # may also move the target", "downloads help us hit the target"): two
                # statements read as one
                return None
            out = GraphSentence(sentence)
            for a in subjects:
                for b in objects:
                    out.edges.append((a, b))
            return out
    return None


_CLAUSE_IN_NAME = re.compile(r"\b(?:may|might|can|could|will|would|should|must|us|we)\b", re.I)
_RELATION_AGAIN = re.compile(
    r"^(?:(?:it\s+)?(?:also\s+)?(?:is\s+)?(?:(?:one\s+of\s+)?the\s+(?:direct\s+)?causes?\s+of|a\s+(?:direct\s+)?cause\s+of|"
    r"(?:directly\s+)?(?:affects?|influences?|causes?|drives?|impacts?|determines?)|leads?\s+to|contributes?\s+to|"
    r"(?:has|have)\s+an?\s+(?:direct\s+|causal\s+)?(?:effect|influence|impact)\s+on))\s+(?=\S)",
    re.I,
)
_CAUSAL_VERB = re.compile(
    r"\b(?:affects?|influences?|causes?|depends?|leads?\s+to|determines?|drives?|impacts?)\b",
    re.I,
)
_CLAUSE_BREAK = re.compile(
    r"\s*(?:;|,\s*(?:and|while|whereas|but)\b|\s(?:and|while|whereas|but)\s+(?:also\s+)?"
    r"(?=it\b|they\b|both\b|(?:affects?|influences?|causes?|leads?\s+to|determines?|drives?|impacts?)\b))\s*",
    re.I,
)


def _read_compound_graph(s: str, sentence: str) -> GraphSentence | None:
    """'A affects B, and both A and B affect C' -> each clause read on its own; 'it' and
    'they' stand for the subject before them. None unless every clause states edges."""
    if len(_CAUSAL_VERB.findall(s)) < 2:
        return None
    clauses = [c for c in _CLAUSE_BREAK.split(s) if c and c.strip()]
    if len(clauses) < 2:
        return None
    out = GraphSentence(sentence)
    subject = ""
    for clause in clauses:
        clause = re.sub(r"^(?:and|also|then)\s+", "", clause.strip(), flags=re.I)
        clause = re.sub(r"\s+also\b", "", clause, flags=re.I)
        if subject:
            clause = re.sub(r"^(?:it|they)\b(?:\s+also)?", subject, clause, flags=re.I)
            if _CAUSAL_VERB.match(clause):
                clause = f"{subject} {clause}"
        g = read_graph_sentence(clause)
        if g is None or not (g.edges or g.unobserved or g.names):
            return None
        out.edges.extend(g.edges)
        out.names.extend(g.names)
        out.unobserved.extend(g.unobserved)
        if g.edges:
            subject = g.edges[0][0]
    return out if out.edges else None


# -- stated numbers ------------------------------------------------------------------------

_PROB = r"(?:probability|chance|chances|likelihood|odds|proportion|share|percentage|rate|fraction)"
_IS = r"(?:is|was|are|equals|=|:|of|stands\s+at|comes\s+to|amounts\s+to|is\s+about|is\s+exactly)"
_FOR = r"(?:for|among|in|within|amongst|of|if\s+we\s+look\s+at|looking\s+at|when\s+we\s+look\s+at)"
_COND_MARK = r"(?:given(?:\s+that)?|conditional\s+on|among|for|if|when|in|within|amongst)"


@dataclass
class RawProbability:
    """'P(event | given) = number' with the phrases as written. `given` is empty for a
    marginal or joint statement; `event` may hold several phrases (a joint)."""

    event: str
    given: str
    number: StatedNumber
    sentence: str
    overall: bool = False
    # the event came from another statement, whose subject may hold its own group
    inherited: bool = False
    # that statement, when this one's group is said relative to its group ("otherwise",
    # "those without it", "neither"): the reader completes it once the group is known
    source: RawProbability | None = None


@dataclass
class RawCorrelation:
    a: str
    b: str
    given: str
    number: StatedNumber
    sentence: str


@dataclass
class RawMechanism:
    inputs: list[str]
    op: str
    effects: list[str]
    sentence: str


@dataclass
class RawObservation:
    phrases: list[str]
    sentence: str


@dataclass
class RawValues:
    """'X takes two values: a / b' — the variable and its two value phrases."""

    name: str
    values: list[str]
    sentence: str


_VALUES = [
    r"(?P<n>.+?)\s+(?:takes|has|can\s+take)\s+(?:two|2)\s+(?:possible\s+)?values\s*:\s*(?P<a>.+?)\s*(?:/|\bor\b|,)\s*(?P<b>.+)",
    r"(?P<n>.+?)\s+can\s+(?:be|take\s+the\s+values?)\s+(?P<a>.+?)\s+or\s+(?P<b>.+)",
    r"(?P<n>.+?)\s+is\s+either\s+(?P<a>.+?)\s+or\s+(?P<b>.+)",
    r"(?:the\s+)?(?:possible\s+)?values\s+of\s+(?P<n>.+?)\s*(?:are|:)\s*(?P<a>.+?)\s*(?:/|,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+)(?P<b>.+)",
]


def read_values_sentence(sentence: str) -> RawValues | None:
    s = sentence.strip().rstrip(".!;")
    if PLACEHOLDER in s or re.search(r"\d", s) and not re.search(r"[a-z]", s, flags=re.I):
        return None
    for pat in _VALUES:
        m = re.fullmatch(pat, s, flags=re.I)
        if m:
            a, b = (clean_name(m.group(x)) for x in ("a", "b"))
            name = clean_name(m.group("n"))
            if a and b and name and a.lower() != b.lower():
                return RawValues(name, [a, b], sentence)
    return None


# "P(late | heavy traffic) = 0.6", "P(not rain) = 0.7": the formal notation as the
# sentence the rules read ("The probability of late given heavy traffic is 0.6")
_FORMAL = re.compile(
    r"\b(?:P|Pr|Prob)\s*\(\s*(?P<e>[^|()=]+?)\s*(?:\|\s*(?P<g>[^()=]+?)\s*)?\)\s*(?:=|is\b|equals\b)\s*",
)


def _negation_sign(phrase: str) -> str:
    """'¬rain', '~rain', '!rain' -> 'not rain'; a comma list becomes 'A and B'."""
    parts = [re.sub(r"^\s*(?:¬|~|!)\s*", "not ", p).strip() for p in phrase.split(",")]
    return " and ".join(p for p in parts if p)


def rewrite_formal(text: str) -> str:
    def sentence(m: re.Match) -> str:
        event = _negation_sign(m.group("e"))
        if m.group("g"):
            return f"The probability of {event} given {_negation_sign(m.group('g'))} is "
        return f"The overall probability of {event} is "

    return _FORMAL.sub(sentence, text)


def preprocess_lines(text: str) -> str:
    """Lists and tables into sentences: a header 'Chance of E, by group:' (or 'E rates:',
    'Probability of E:') over lines '- C: N' gives 'The chance of E is N for C.'; other
    bullet lines ('- A directly affects B') become sentences; '(A, B);' edge lines stay."""
    lines = rewrite_formal(text).replace("\r", "").split("\n")
    out: list[str] = []
    event: str | None = None
    for line in lines:
        t = line.strip()
        if not t:
            event = None
            continue
        if t.endswith(":") and not t.startswith(("-", "*", "•")) and not _CLOSED_WORLD_RE.search(t):
            head = t[:-1].strip()
            m = re.fullmatch(
                r"(?:the\s+)?(?:chance|probability|likelihood|rate|risk|share)\s+of\s+(?P<e>.+?)(?:,?\s+by\s+\w+)?|(?P<e2>.+?)\s+(?:rates?|probabilities|chances)(?:,?\s+by\s+\w+)?",
                head,
                flags=re.I,
            )
            if m:
                event = (m.group("e") or m.group("e2")).strip()
                continue
            event = None
            continue  # a header over a list ("What causes what:")
        bullet = re.match(r"^[-*•]\s*(.+)$", t)
        if bullet:
            body = bullet.group(1).strip()
            row = re.fullmatch(r"(?P<c>.+?)\s*:\s*(?P<n>.+?)\.?", body)
            if event and row:
                cond = row.group("c").strip()
                if re.fullmatch(r"(?:overall|all|everyone|total|in\s+general)", cond, flags=re.I):
                    out.append(f"The overall probability of {event} is {row.group('n')}.")
                else:
                    out.append(f"The probability of {event} is {row.group('n')} for {cond}.")
            else:
                out.append(body.rstrip(".;") + ".")
            continue
        event = None
        out.append(t)
    return " ".join(out)


@dataclass
class RawMethod:
    label: str
    treatment: str
    outcome: str
    adjust: list[str]
    sentence: str


_CORRELATION_FORMS = [
    rf"(?:{_FOR}\s+(?P<given>.+?),\s+)?(?:the\s+)?correlation\s+between\s+(?P<ab>.+?)\s+{_IS}\s+{N}",
    rf"(?:the\s+)?correlation\s+between\s+(?P<ab>.+?)\s+(?:{_COND_MARK})\s+(?P<given>.+?)\s+{_IS}\s+{N}",
    rf"(?:{_FOR}\s+(?P<given>.+?),\s+)?(?P<ab>.+?)\s+(?:are|is)\s+correlated\s+(?:with\s+(?:a\s+)?coefficient(?:\s+of)?|at)\s+{N}",
    rf"(?:(?:within\s+the\s+subgroup\s+of|within\s+the\s+group\s+of|{_FOR})\s+(?P<given>.+?),\s+)?(?P<ab>.+?)\s+(?:are\s+correlated\s+with\s+(?:a\s+)?coefficient(?:\s+of)?|have\s+a\s+correlation\s+(?:coefficient\s+)?of)\s+{N}",
    rf"(?:(?:within\s+the\s+subgroup\s+of|looking\s+only\s+at|restricting\s+attention\s+to|{_FOR})\s+(?P<given>.+?),\s+)?(?:the\s+)?correlation\s+of\s+(?P<ab>.+?\s+with\s+.+?)\s+{_IS}\s+{N}",
]


def _distribute(text: str) -> list[str] | None:
    """'The chance of E is ⟨N⟩ for C1, ⟨N⟩ for C2, and ⟨N⟩ for C3' -> one clause per
    number, each with the shared event."""
    first = text.find(PLACEHOLDER)
    prefix, rest = text[:first], text[first:]
    parts = re.split(rf"\s*(?:,\s*(?:and\s+)?|\s+and\s+|;\s*)(?={N})", rest)
    if len(parts) < 2 or any(
        p.count(PLACEHOLDER) != 1 or not p.startswith(PLACEHOLDER) for p in parts
    ):
        return None
    if not all(
        re.match(rf"{N}\s+(?:for|among|in|when|if|given|within)\b", p, flags=re.I) for p in parts
    ):
        return None
    return [f"{prefix}{p}" for p in parts]


def _split_pair(ab: str) -> tuple[str, str] | None:
    m = re.fullmatch(r"(.+?)\s+(?:and|with)\s+(.+)", ab.strip(), flags=re.IGNORECASE)
    return (m.group(1), m.group(2)) if m else None


def read_number_sentence(
    sentence: str, previous: RawProbability | None = None, *, segment: bool = False
) -> tuple[list[object], str | None]:
    """Raw statements of one sentence holding numbers, or ([], why) when its form is
    not one the rules know. A sentence may hold several statements ('... is 26%, and
    ... is 40%'). `previous`, the statement read just before, completes an elliptical
    clause ('otherwise 0.2', 'without it, 10 in 100')."""
    text, numbers = with_placeholder(sentence.strip())
    text = text.strip().rstrip(".!;")
    # "30% of the time" says no more than "30%", and would split a list at the wrong place
    text = re.sub(rf"(?<={N})\s+of\s+the\s+time\b", "", text, flags=re.I)
    listed = _read_list(text, numbers, sentence)
    if listed is not None:
        return listed, None
    clauses = [text]
    distributive = _distribute(text) if len(numbers) > 1 else None
    if distributive:
        clauses = distributive
    elif len(numbers) > 1:
        clauses = [
            c
            for c in re.split(rf"(?<={N})\s*(?:,|;)?\s*(?:and|while|whereas|but)?\s+(?=\S)", text)
            if c
        ]
        if sum(c.count(PLACEHOLDER) for c in clauses) != len(numbers) or any(
            c.count(PLACEHOLDER) != 1 for c in clauses
        ):
            clauses = _split_at_conjunctions(text)
            if clauses is None:
                return [], "it states several numbers in a form the rules cannot split"
            return _read_pieces(clauses, numbers, sentence, previous, segment=segment)
    out: list[object] = []
    it = iter(numbers)
    for clause in clauses:
        number = next(it)
        clause = re.sub(
            r"^(?:and|also|moreover|however|meanwhile|finally),?\s+", "", clause, flags=re.I
        )
        last = next((o for o in reversed(out) if isinstance(o, RawProbability)), previous)
        got = _read_elliptical(clause, number, sentence, last)
        if (
            got is None
            and not out
            and last is not None
            and THE_OTHERS.fullmatch(_group_text(clause.strip().rstrip(".;")))
        ):
            # "...; those without, 20%": the other group of the statement before
            got = _read_parallel(clause, number, sentence, last, segment=segment)
        if got is None and out and isinstance(out[-1], RawProbability):
            # "..., severe untreated 40%": a later clause with no verb of its own names
            # only the group; the event is the one the sentence is about
            got = _read_parallel(clause, number, sentence, out[-1], segment=segment)
        if got is None and _ELSE.fullmatch(clause.strip().rstrip(".;")):
            if segment and last is not None and not last.given:
                # the condition is still inside the event phrase: completed once cut
                got = RawProbability(
                    last.event, "otherwise", number, sentence, inherited=True, source=last
                )
            else:
                return [], "its 'otherwise' follows no conditional statement to complete"
        if got is None:
            got = _read_clause(clause, number, sentence, segment=segment)
        if got is None:
            return [], "its wording is not a form the rules know"
        out.append(got)
    return out, None


# -- lists: one event, one number per group -------------------------------------------------

# "Job rates: trained and confident 80%; trained, not confident 60%; ..."
_LIST_HEADER = re.compile(
    r"(?:(?:the\s+)?(?:probabilities|probability|chances?|rates?|risks?|odds)\s+of\s+(?P<e1>[^:]+?)"
    r"|(?P<e2>[^:]+?)\s+(?:rates?|probabilities|probability|chances?|risks?|odds|frequencies)"
    r"|(?P<e3>(?:\w[\w-]*\s+){0,2}\w[\w-]*))"
    r"\s*(?:are|were|is)?\s*(?:as\s+follows)?\s*:\s*(?P<body>.+)",
    re.I,
)
# words that make a clause a statement of its own rather than a group in a list
_CLAUSE_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|get|gets|got|becomes?|became|happens?|"
    r"occurs?|probability|chance|likelihood|rate|risk)\b",
    re.I,
)
_NUMBER_WORDS_AROUND = re.compile(
    rf"(?:\b(?:only|just|about|around|roughly|versus|vs\.?|compared\s+(?:with|to)|against)\s+)*"
    rf"(?:with\s+(?:a\s+)?(?:probability|chance)\s+(?:of\s+)?)?{N}"
    rf"(?:\s+of\s+(?:the\s+)?(?:time|cases))?(?:\s+(?:do|does|did)\b)?(?:\s+of\b)?",
    re.I,
)
# "others", "the rest", "the other ones": the group that is not the one before
THE_OTHERS = re.compile(
    r"(?:the\s+)?(?:others|rest|remainder|remaining\s+\w+|other\s+\w+|other\s+ones)"
    r"|without|if\s+not|when\s+not|not"
    r"|(?:those|people|ones|the\s+ones|[\w-]+)\s+(?:without|who\s+(?:do|did|does)\s*(?:not|n't)|"
    r"who\s+(?:are|were)\s*(?:not|n't)|not)(?:\s+(?:it|one|them|so))?",
    re.I,
)


def _group_text(clause: str) -> str:
    """The group a list clause names: the clause without its number and the words that
    go with it ("only 10% of mild ones" -> "mild ones")."""
    g = _NUMBER_WORDS_AROUND.sub(" ", clause)
    g = re.sub(r"^\s*(?:and|but|while|whereas|or|for|among|in)\s+", "", g.strip(" ,;:"), flags=re.I)
    return " ".join(g.split()).strip(" ,;:")


_NEITHER = re.compile(
    r"(?:with\s+)?(?:neither|none(?:\s+of\s+(?:them|these))?|without\s+either)", re.I
)


def _other_group(group: str, before: RawProbability) -> str:
    """A group said relative to the one before: 'others' (its complement), 'neither'
    (none of its conditions), 'those without it' ('it' is its group)."""
    if THE_OTHERS.fullmatch(group) and before.given and "," not in before.given:
        return f"not {before.given}"
    if _NEITHER.fullmatch(group) and before.given:
        return ", ".join(
            f"not {g.strip()}" for g in re.split(r",|\band\b|\bbut\b", before.given) if g.strip()
        )
    if _PRONOUN.search(group) and before.given and "," not in before.given:
        return _PRONOUN.sub(bare_group(before.given), group)
    return group


def bare_group(given: str) -> str:
    """'Employees with the skill' -> 'the skill': what 'it' can stand for."""
    m = re.search(r"\b(?:with|without|who\s+have|that\s+have|on)\s+(?P<g>.+)$", given, flags=re.I)
    return m.group("g") if m else given


def _read_parallel(
    clause: str, number: StatedNumber, sentence: str, before: RawProbability, segment: bool = False
) -> RawProbability | None:
    c = clause.strip().rstrip(".;")
    group = _group_text(c)
    if not group or _CLAUSE_VERB.search(group) or not (before.given or segment):
        return None
    return RawProbability(
        before.event, _other_group(group, before), number, sentence, inherited=True, source=before
    )


_PIECE_SEPARATOR = re.compile(
    r"\s*[,;]\s*(?:and\s+|but\s+|while\s+|whereas\s+|versus\s+|vs\.?\s+|against\s+)?"
    r"|\s+(?:and|but|while|whereas|versus|vs\.?|against|compared\s+(?:with|to))\s+",
    re.I,
)


def _split_at_conjunctions(text: str) -> list[str] | None:
    """'70% of trainees become confident, versus 30% of non-trainees' -> one piece per
    number, cut at commas and conjunctions; a piece without a number (a parenthesis, a
    conjunction inside a group) stays with the piece before it."""
    pieces: list[str] = []
    pos = 0
    for m in _PIECE_SEPARATOR.finditer(text):
        pieces.append(text[pos : m.start()])
        pos = m.end()
    pieces.append(text[pos:])
    out: list[str] = []
    for p in pieces:
        if out and (PLACEHOLDER not in p or PLACEHOLDER not in out[-1]):
            joiner = " and " if PLACEHOLDER not in out[-1] else ", "
            out[-1] = f"{out[-1]}{joiner}{p}"
        else:
            out.append(p)
    if any(p.count(PLACEHOLDER) != 1 for p in out):
        return None
    return out


def _read_pieces(
    pieces: list[str], numbers: list[StatedNumber], sentence: str, previous, segment: bool = False
) -> tuple[list[object], str | None]:
    """Pieces with a verb of their own are statements; a piece that only names a group
    ('30% of non-trainees', 'others 40% of the time') takes the event of the nearest
    statement of the sentence, before it or else after it."""
    read: list[object | None] = []
    for piece, number in zip(pieces, numbers):
        c = piece.strip().rstrip(".;")
        group = _group_text(c)
        if group and not _CLAUSE_VERB.search(group) and not _has_verb_after_group(c):
            read.append(None)
            continue
        got = _read_clause(c, number, sentence, segment=segment)
        if not isinstance(got, RawProbability):
            return [], "its wording is not a form the rules know"
        read.append(got)
    if all(r is None for r in read):
        # "80% of stressed people drink late coffee versus 40% of non-stressed": the
        # first piece is the statement, whatever its verb
        first = _read_clause(pieces[0].strip().rstrip(".;"), numbers[0], sentence, segment=segment)
        if isinstance(first, RawProbability):
            read[0] = first
    full = [r for r in read if r is not None]
    if not full:
        return [], "no part of it names what the numbers are the probability of"
    out: list[object] = []
    for i, (piece, number) in enumerate(zip(pieces, numbers)):
        if read[i] is not None:
            out.append(read[i])
            continue
        before = next((r for r in reversed(read[:i]) if r is not None), None)
        model = before or next(r for r in read[i + 1 :] if r is not None)
        if not model.given and not segment:
            return [], "its wording is not a form the rules know"
        group = _other_group(_group_text(piece.strip().rstrip(".;")), model)
        out.append(
            RawProbability(model.event, group, number, sentence, inherited=True, source=model)
        )
    return out, None


def _has_verb_after_group(clause: str) -> bool:
    """'⟨N⟩ of severe patients get the drug': a quantity-first piece whose group is
    followed by a verb phrase is a statement of its own."""
    m = re.fullmatch(rf"{N}\s+of\s+(?P<rest>.+)", clause.strip(), flags=re.I)
    return bool(m) and _GROUP_VERB.search(" " + m.group("rest") + " ") is not None


_COND_START = re.compile(r"(?:with|without|for|among|in|on|if|when|under|given)\b", re.I)


def _join_lists(sentences: list[str]) -> list[str]:
    """A list cut at its semicolons ('Job rates: trained 80%; untrained 30%.') is one
    statement again: the header names the event of every item."""
    out: list[str] = []
    joining = False
    for s in sentences:
        if joining:
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
        text = with_placeholder(out[-1])[0].rstrip(" ;.")
        joining = (
            s.endswith(";") and PLACEHOLDER in text and _LIST_HEADER.fullmatch(text) is not None
        )
    return out


def _read_list(text: str, numbers: list[StatedNumber], sentence: str) -> list[object] | None:
    """A header naming the event, then one group and one number per item."""
    m = _LIST_HEADER.fullmatch(text)
    header = m.group("e1") or m.group("e2") or m.group("e3") if m else None
    if not m or len(numbers) < 2 or not header or PLACEHOLDER in header:
        return None
    if m.group("e3") and (_CLAUSE_VERB.search(header) or _COND_START.match(header)):
        return None  # "With pests: ..." is a condition, not the event
    event = header.strip()
    event = re.sub(r"^(?:the|a|an)\s+", "", event, flags=re.I)
    pieces, pending = [], ""
    for part in re.split(r"\s*[;,]\s*", m.group("body")):
        pending = f"{pending}, {part}" if pending else part
        if PLACEHOLDER in pending:
            pieces.append(pending)
            pending = ""
    if pending or len(pieces) != len(numbers) or any(p.count(PLACEHOLDER) != 1 for p in pieces):
        return None
    out: list[object] = []
    for piece, number in zip(pieces, numbers):
        group = _group_text(piece)
        if not group or _CLAUSE_VERB.search(group):
            return None
        out.append(RawProbability(event, group, number, sentence))
    return out


_COND_MARKERS = (
    r"conditional\s+on|conditioned\s+on|given\s+that|given|"
    r"among(?:st)?\s+(?:the\s+group\s+with|those\s+with|cases\s+with|those\s+who\s+have)|among(?:st)?|"
    r"for\s+(?:the\s+group\s+with|those\s+with|cases\s+with)|for|"
    r"in\s+(?:the\s+group\s+with|cases\s+with|the\s+subgroup\s+of|the\s+subgroup\s+with)|"
    r"within\s+(?:the\s+subgroup\s+of|the\s+group\s+of|the\s+group\s+with)|within|"
    r"if|when|whenever|where"
)
_EVENT_MARKERS = (
    r"(?:the\s+)?(?:overall\s+|joint\s+|marginal\s+|conditional\s+)?(?:probability|chance|likelihood|"
    r"rate|risk|proportion|share|frequency|odds|base\s+rate)\s+(?:of|that|for)"
)
_OVERALL = re.compile(
    r"^(?:overall|in\s+general|in\s+the\s+population\s+as\s+a\s+whole|in\s+the\s+whole\s+population|without\s+conditioning\s+on\s+anything|unconditionally|"
    r"across\s+the\s+population|in\s+total|altogether)\s*,?\s*|\s*,?\s*(?:overall|in\s+general|in\s+the\s+whole\s+population)$",
    re.I,
)


_ELSE = re.compile(
    rf"(?:otherwise|else|if\s+not|when\s+not|and\s+otherwise)\s*,?\s*(?:it\s+is\s+|the\s+(?:probability|chance)\s+is\s+|with\s+(?:a\s+)?(?:probability|chance)\s+(?:of\s+)?)?{N}(?:\s+of\s+(?:the\s+)?(?:time|cases))?",
    re.I,
)
_ELLIPTICAL_COND = re.compile(
    rf"(?P<m>{_COND_MARKERS}|with|without)\s+(?P<c>[^,]+?)\s*,\s*(?:it\s+is\s+|the\s+(?:probability|chance)\s+is\s+)?{N}(?:\s+of\s+(?:the\s+)?(?:time|cases))?",
    re.I,
)
_PRONOUN = re.compile(r"\b(?:it|them|this|that|so)\b", re.I)


def _read_elliptical(
    clause: str, number: StatedNumber, sentence: str, previous: RawProbability | None
) -> RawProbability | None:
    """'If it rains, traffic is heavy with probability 0.8, otherwise 0.2': 'otherwise
    0.2' states the same event under the other value of the condition; 'With heavy
    traffic, 60 in 100 are late; without it, 10 in 100' the same event under the new
    condition, where 'it' stands for the one before."""
    c = clause.strip().rstrip(".;")
    if previous is None or not previous.given or "," in previous.given:
        return None
    if _ELSE.fullmatch(c):
        return RawProbability(previous.event, f"not {previous.given}", number, sentence)
    m = _ELLIPTICAL_COND.fullmatch(c)
    if not m:
        return None
    cond = _PRONOUN.sub(previous.given, m.group("c"))
    marker = m.group("m").lower()
    if marker == "without":
        cond = f"without {cond}"
    elif marker == "with":
        cond = f"with {cond}"
    return RawProbability(previous.event, cond, number, sentence)


# Quantity first: "40% of people smoke", "3 in 10 drivers speed", "30% of smokers get
# cancer", "Among smokers, 30 in 100 get cancer". A population named by a general noun is
# everyone; any other population before the verb is a condition.
_POPULATION = (
    r"(?:people|persons|individuals|adults|children|kids|men|women|students|patients|"
    r"drivers|workers|employees|customers|users|households|families|cases|days|times|"
    r"subjects|participants|respondents|residents|citizens|voters|members|units|those|them|"
    r"the\s+population|the\s+time|all|everyone|everybody|each)"
)
_LEAD_VERB = (
    r"(?:are|is|were|was|have|has|had|get|gets|got|develop|develops|developed|do|does|did|"
    r"don't|doesn't|will|would|can|become|becomes|became|end\s+up|go|goes|went)"
)
_QUANTITY_FIRST = re.compile(
    rf"(?:(?P<m>{_COND_MARKERS}|with|without|of|on|under)\s+(?P<g>[^,]+?)\s*,\s*)?{N}\s+(?:of\s+)?(?:all\s+)?(?:the\s+)?(?P<rest>.+)",
    re.I,
)
_NOT_QUANTITY_FIRST = re.compile(
    rf"(?:{_COND_MARKERS}|chance|chances|probability|likelihood|odds|and|or)\b", re.I
)


def _read_quantity_first(
    c: str, number: StatedNumber, sentence: str, segment: bool = False
) -> RawProbability | None:
    m = _QUANTITY_FIRST.fullmatch(c)
    if not m or _NOT_QUANTITY_FIRST.match(m.group("rest")) or PLACEHOLDER in m.group("rest"):
        return None
    rest = m.group("rest").strip()
    given = []
    if m.group("g"):
        marker = m.group("m").lower()
        given.append(f"{marker} {m.group('g')}" if marker in ("with", "without") else m.group("g"))
    pop = re.match(rf"{_POPULATION}\b\s*", rest, flags=re.I)
    if pop:
        rest = rest[pop.end() :]
        relative = re.match(r"(?:who|that|which)\s+(?P<r>.+)", rest, flags=re.I)
        if relative:
            # "people who smoke get cancer": the relative clause is a condition
            body = relative.group("r")
            verb = re.search(rf"\s{_LEAD_VERB}\b", body, flags=re.I)
            if not verb and segment:
                # "those who exercise lose weight": a verb the rules do not know; the
                # reading that cuts the phrase at the variables' names parts the two
                return RawProbability(body, "", number, sentence)
            if not verb:
                return None
            given.append(body[: verb.start()])
            rest = body[verb.start() :]
    elif not given:
        verb = re.search(rf"\s{_LEAD_VERB}\b", rest, flags=re.I)
        if verb:
            given.append(rest[: verb.start()])
            rest = rest[verb.start() :]
    event = re.sub(
        r"^\s*(?:are|is|were|was|get|gets|got|have|has|had|become|becomes|became|"
        r"develop|develops|developed|end\s+up)\s+(?=\S)",
        "",
        rest,
        flags=re.I,
    ).strip(" ,")
    if not event:
        return None
    given_text = ", ".join(g.strip(" ,") for g in given if g.strip(" ,"))
    return RawProbability(event, given_text, number, sentence, overall=not given_text)


def _read_clause(
    clause: str, number: StatedNumber, sentence: str, segment: bool = False
) -> object | None:
    """One stated number: which event it is the probability of, under which conditions.
    The clause is cut at its marker words ('given', 'for', 'among', 'if', 'the chance
    of', 'has probability', 'occurs in N of cases', ...); a phrase after a condition
    marker is a condition, after an event marker the event."""
    c = clause.strip().rstrip(".;")
    for pat in _CORRELATION_FORMS:
        m = re.fullmatch(pat, c, flags=re.IGNORECASE)
        if m:
            pair = _split_pair(m.group("ab"))
            if pair:
                return RawCorrelation(pair[0], pair[1], m.group("given") or "", number, sentence)
    if re.search(r"correlat", c, flags=re.I):
        return None
    first = _read_quantity_first(c, number, sentence, segment=segment)
    if first is not None:
        return first
    share = _SHARE_OF_GROUP.fullmatch(c)
    if share and phrase_words(share.group("e")).content:
        # "A download surge happened in ⟨N⟩ of campaign months", "Fresh yeast: ⟨N⟩ of bakes"
        group = share.group("g").strip()
        if not phrase_words(group).content:  # "in ⟨N⟩ of cases overall": everyone
            return RawProbability(share.group("e").strip(" ,"), "", number, sentence, overall=True)
        return RawProbability(share.group("e").strip(" ,"), group, number, sentence)
    overall = False
    while True:
        c2 = _OVERALL.sub("", c, count=1).strip()
        if c2 == c:
            break
        overall, c = True, c2
    if re.fullmatch(
        r"(?:the\s+)?(?:overall\s+)?(?:base\s+rate|prevalence)\s+of\s+.+", c, flags=re.I
    ):
        overall = True
    # joint statements: "both A and B", "A and B occur together", "A together with B"
    joint = re.fullmatch(
        rf"in\s+{N}\s+of\s+(?:all\s+)?(?:cases|people|units|individuals)\s*,?\s*(?:we\s+see|we\s+observe|there\s+is|there\s+are)?\s*(?:both\s+)?(?P<e>.+)",
        c,
        flags=re.I,
    ) or re.fullmatch(
        rf"(?P<e>.+?)\s+(?:occur|happen|appear)\s+together\s+(?:with\s+probability|in)\s+{N}(?:\s+of\s+(?:all\s+)?cases)?",
        c,
        flags=re.I,
    )
    if joint:
        return RawProbability(_joint_text(joint.group("e")), "", number, sentence, overall=True)
    c = re.sub(rf"\b(probability|chance|likelihood)\s+of\s+(?={N})", r"\1 ", c, flags=re.I)
    pieces = re.split(rf"\b({_COND_MARKERS})\b|({_EVENT_MARKERS})", c, flags=re.I)
    # re.split with two groups: text, cond, event, text, ...
    event, given = "", []
    role = "lead"
    lead = ""
    i = 0
    segments: list[tuple[str, str]] = []
    while i < len(pieces):
        text = pieces[i] or ""
        if i == 0:
            segments.append(("lead", text))
        else:
            segments.append((role, text))
        if i + 2 < len(pieces):
            role = "cond" if pieces[i + 1] else "event"
        i += 3
    # "for days when Alice wakes up": two markers, one condition
    merged: list[tuple[str, str]] = []
    for role, text in segments:
        if (
            merged
            and role == "cond"
            and merged[-1][0] == "cond"
            and merged[-1][1].strip()
            and not merged[-1][1].rstrip().endswith((",", ";"))
        ):
            merged[-1] = ("cond", merged[-1][1].rstrip() + " " + text.strip())
        else:
            merged.append((role, text))
    segments = merged
    for role, text in segments:
        text = text.strip(" ,;:")
        if not text:
            continue
        if role == "lead":
            lead = text
            continue
        if role == "event":
            event_text, rest = _cut_number(text)
            event = event or event_text
            if rest:
                given.append(rest)
            continue
        # a condition, possibly followed by the event ("Given C, E has probability N")
        cond_text, subject = _split_condition_subject(text, have_event=bool(event))
        if cond_text:
            given.append(cond_text)
        if subject:
            event = event or subject
    if lead:
        trailing = _TRAILING_CONDITION.fullmatch(lead)
        if trailing:
            # "Old cars break down ⟨N⟩ with maintenance": the condition after the number
            lead = trailing.group("a")
            given.append(trailing.group("c"))
        subj = _subject_event(lead)
        if subj is None:
            return None
        if subj and not event and not given:
            # "Smokers get cancer ⟨N⟩ of the time": the group before the verb is a condition
            subj, group = _group_and_event(subj)
            given.extend(group)
            if not group and not segment and _GROUP_INSIDE.search(subj):
                # "Patients with the disease run a fever ⟨N⟩": a group inside the subject,
                # with a verb the rules do not know; only the reading that cuts the phrase
                # at the variables' names may take it
                return None
            if not group and _BARE_PAIR.fullmatch(subj.strip(" ,")):
                # "trained and confident ⟨N⟩": a list item whose header was lost, or a joint
                # probability said without 'both'; either way not safe to read alone
                return None
        event = event or subj
    if not event:
        return None
    event = re.sub(r"^(?:both\s+)", "", event.strip(" ,"), flags=re.I)
    given_text = ", ".join(g.strip(" ,") for g in given if g.strip(" ,"))
    event = re.sub(
        r"^(?:observing|seeing|having)\s+(?=.+\s+(?:together|along)\s+with\b)",
        "",
        event,
        flags=re.I,
    )
    if re.search(r"\b(?:together|along)\s+with\b", event, flags=re.I):
        event = _joint_text(event)
    return RawProbability(event, given_text, number, sentence, overall=overall or not given_text)


# "EVENT (happened) in|on N of GROUP": the share of the group the event happens in
_SHARE_OF_GROUP = re.compile(
    rf"(?P<e>[^:,]+?)(?:\s+(?:happens?|happened|occurs?|occurred|is\s+done|was\s+done|"
    rf"takes?\s+place|took\s+place|is\s+seen|was\s+seen))?(?:\s+(?:in|on|during|for)|\s*:)\s+"
    rf"(?:about\s+|roughly\s+|around\s+|nearly\s+)?{N}\s+of\s+(?!the\s+time\b)(?P<g>.+)",
    re.I,
)


def _joint_text(text: str) -> str:
    text = re.sub(r"^\s*both\s+", "", text.strip(" ,."), flags=re.I)
    return re.sub(
        r"\s+(?:together\s+with|along\s+with|as\s+well\s+as)\s+", " and ", text, flags=re.I
    )


_QUANTITY = re.compile(
    rf"\s*(?:,\s*)?(?:(?:is|was|are|equals|=|:|of|stands\s+at|comes\s+to|amounts\s+to)\s+)?(?:about\s+|around\s+|roughly\s+|exactly\s+)?{N}.*$"
    rf"|\s+(?:has|have|occurs?\s+with|happens?\s+with|with)\s+(?:a\s+)?(?:probability|chance|likelihood)\s+(?:of\s+)?{N}.*$"
    rf"|\s+(?:occurs?|happens?|is\s+seen|is\s+observed|appears?)\s+in\s+{N}.*$"
    rf"|\s+(?:has|have)\s+an?\s+{N}\s+(?:chance|probability).*$",
    re.I,
)


def _cut_number(text: str) -> tuple[str, str]:
    """'lirg is ⟨N⟩' -> ('lirg', ''); 'lirg is ⟨N⟩ for those ...' is cut before (the
    condition is its own segment)."""
    m = _QUANTITY.search(text)
    if m:
        return text[: m.start()].strip(" ,"), ""
    return text.strip(" ,"), ""


def _split_condition_subject(text: str, have_event: bool = False) -> tuple[str, str]:
    """'C1, C2, E has probability ⟨N⟩' -> ('C1, C2', 'E'); 'C, the ...' handled by the
    event marker; 'C' -> ('C', '')."""
    m = _QUANTITY.search(text)
    if not m:
        return text.strip(" ,"), ""
    before = text[: m.start()].strip(" ,")
    if not before:
        return "", ""
    if have_event:
        return before, ""
    if re.search(r"\bthen\b", before, flags=re.I):
        cond, _, subj = re.split(r"(,?\s*\bthen\b\s*)", before, maxsplit=1, flags=re.I)
        return cond.strip(" ,"), subj.strip(" ,")
    if PLACEHOLDER in text[: m.start()]:
        return before, ""
    # the event is the last comma-separated phrase before the quantity
    if "," in before:
        cond, subj = before.rsplit(",", 1)
        return cond.strip(" ,"), subj.strip(" ,")
    # "⟨N⟩ for C" leaves the number in front: the text is a plain condition
    if m.start() == 0:
        return "", ""
    return "", before


# Verbs of getting or having between a group and what happens to it; a copula ("the room
# is dark") names a variable's state instead, and is left whole.
_GROUP_VERB = re.compile(
    r"\s(?:get|gets|got|develop|develops|developed|catch|catches|caught|contract|contracts|"
    r"contracted|have|has|had|become|becomes|became|end\s+up|suffer\s+from|suffers\s+from|"
    r"suffered\s+from)\s+(?=\S)",
    re.I,
)


_GROUP_INSIDE = re.compile(r"\s(?:with|without|who|that|which)\s", re.I)

# two bare phrases joined by "and", with no verb, marker or "both"
_BARE_PAIR = re.compile(
    r"(?!.*\b(?:both|together|is|are|was|were|has|have|occur|occurs|happen|happens)\b)"
    r"[^,]+?(?:,\s*|\s+and\s+)[^,]+",
    re.I,
)


def _group_and_event(subject: str) -> tuple[str, list[str]]:
    """'Smokers get cancer' -> ('cancer', ['Smokers']); 'People who smoke get cancer' ->
    ('cancer', ['smoke']); 'Patients get better' -> ('better', []) (a general noun is
    everyone); a subject without such a verb is returned whole."""
    verb = _GROUP_VERB.search(subject)
    if not verb:
        return subject, []
    group, event = subject[: verb.start()].strip(" ,"), subject[verb.end() :].strip(" ,")
    bare = re.sub(r"^(?:the|a|an|each|every|any)\s+", "", group, flags=re.I)
    relative = re.fullmatch(
        rf"(?:{_POPULATION}|\w+)\s+(?:who|that|which)\s+(?P<r>.+)", bare, flags=re.I
    )
    if relative:
        return event, [relative.group("r")]
    if re.fullmatch(_POPULATION, bare, flags=re.I) or re.fullmatch(
        _POPULATION, bare + "s", flags=re.I
    ):
        return event, []
    return event, [group]


def _subject_event(lead: str) -> str | None:
    """The event named before the quantity: 'Smoking occurs in ⟨N⟩ of cases', 'E has
    probability ⟨N⟩', 'There is a ⟨N⟩ chance of' (event follows, handled elsewhere)."""
    if re.fullmatch(rf"(?:there\s+is\s+)?an?\s+{N}(?:\s+chance|\s+probability)?", lead, flags=re.I):
        return ""
    if re.fullmatch(rf"(?:the\s+)?(?:probability|chance|likelihood)\s+is\s+{N}", lead, flags=re.I):
        return ""
    m = _QUANTITY.search(lead)
    if m and m.start() > 0:
        tail = lead[lead.index(PLACEHOLDER, m.start()) + len(PLACEHOLDER) :]
        if not _EMPTY_TAIL.fullmatch(tail):
            # "On roads with the lower limit, ⟨N⟩ of cars drive fast": words after the
            # number would be lost, and the number read as the probability of the rest
            return None
        return lead[: m.start()].strip(" ,")
    if PLACEHOLDER not in lead:
        return ""
    return None


_TRAILING_CONDITION = re.compile(
    rf"(?P<a>.+?{N}(?:\s+of\s+(?:the\s+)?(?:time|cases))?)\s+"
    rf"(?P<c>(?:with|without|on|under|during|in)\s+(?!{N}).+)",
    re.I,
)

# what may follow a number that ends its clause: nothing, or whom it counts
_EMPTY_TAIL = re.compile(
    rf"\s*(?:of\s+(?:all\s+)?(?:the\s+)?(?:time|cases|{_POPULATION})\s*|(?:chance|probability)\s*)?[.,;]?\s*",
    re.I,
)


# -- mechanisms, observations, methods ------------------------------------------------------

_KNOW = re.compile(
    r"^(?:we\s+know\s+(?:that\s*:?\s*|the\s+following\s+mechanisms\s*:?\s*)?|it\s+is\s+known\s+that\s+(?!this\s+case)|suppose\s+that\s+|"
    r"the\s+mechanisms\s+are\s+(?:deterministic|as\s+follows)\s*:\s*|mechanisms\s*:\s*)",
    re.I,
)
_MECHANISM_CUES = re.compile(
    r"\bhappens\s+exactly\s+when\b|\btogether\s+cause\b|\brequires\b|\bis\s+enough\s+to\s+bring\s+about\b|"
    r"^if\s+.+?,\s*then\s+|\bif\s+and\s+only\s+if\b|\bexactly\s+when\b",
    re.I,
)
# "if any of these is missing, the result is C'": the other value of a stated mechanism
_COMPLEMENT = re.compile(
    r"^(?:if|when)\s+(?:any\s+of\s+(?:these|them)\s+is\s+missing|none\s+of\s+(?:these|them)\s+holds?|"
    r"not\s+all\s+of\s+(?:these|them)\s+hold|otherwise)\b.*|^otherwise\b.*",
    re.I,
)
_CAUSES = re.compile(
    r"(?<!\bthe)(?<!\ba)(?<!\bdirect)(?<!\bmain)(?<!\bone\sof\sthe)\s+(?:causes|cause)\s+(?!of\b)(?!changes\s+in\b)"
    r"|\s+(?:leads\s+to|results\s+in|brings\s+about)\s+(?!changes\s+in\b)",
    re.I,
)


def read_mechanism_sentence(sentence: str) -> list[RawMechanism]:
    """'We know that A causes B.' 'A or B causes C.' 'A and B causes C.' 'A causes B and
    C.' '..., and we know that C causes D.'"""
    s = sentence.strip().rstrip(".!")
    out = []
    for part in re.split(r",?\s+and\s+we\s+know\s+that\s+|;\s*", s, flags=re.I):
        part = _KNOW.sub("", part.strip()).strip()
        if not part:
            continue
        forced_op = None
        m = re.fullmatch(
            r"(?P<b>.+?)\s+(?:happens|holds|occurs|is\s+the\s+case|results)\s+(?:exactly\s+when|if\s+and\s+only\s+if|whenever|exactly\s+if)\s+(?P<a>.+?)",
            part,
            flags=re.I,
        )
        if not m:
            m = re.fullmatch(r"(?P<b>.+?)\s+requires\s+(?P<a>.+)", part, flags=re.I)
            forced_op = "and" if m else None
        if not m:
            m = re.fullmatch(
                r"any\s+one\s+of\s+(?P<a>.+?)\s+is\s+enough\s+to\s+(?:bring\s+about|cause|produce)\s+(?P<b>.+)",
                part,
                flags=re.I,
            )
            forced_op = "or" if m else None
        if not m:
            m = re.fullmatch(
                rf"(?P<a>.+?)(?:\s+together|\s+jointly|\s+both)?(?:{_CAUSES.pattern})(?P<b>.+)",
                part,
                flags=re.I,
            )
        if not m:
            m = re.fullmatch(r"if\s+(?P<a>.+?),?\s+then\s+(?P<b>.+)", part, flags=re.I)
        if not m:
            return []
        left, right = m.group("a"), m.group("b")
        left = re.sub(
            r"\s+(?:all\s+|both\s+)?(?:hold|holds|happen|happens|occur|occurs|are\s+the\s+case|is\s+the\s+case)$",
            "",
            left.strip(),
            flags=re.I,
        )
        if re.match(
            r"(?:at\s+least\s+one\s+of|any\s+one\s+of|any\s+of|either)\s+", left, flags=re.I
        ):
            left = re.sub(
                r"^(?:at\s+least\s+one\s+of|any\s+one\s+of|any\s+of|either)\s+",
                "",
                left,
                flags=re.I,
            )
            forced_op = "or"
        left = re.sub(r"^(?:both|all\s+of)\s+", "", left, flags=re.I)
        if forced_op == "or":
            left = re.sub(r"\s+and\s+", " or ", left)
        # "college degree or higher" is one phrase, not a disjunction
        left = re.sub(
            r"\s+or\s+(higher|lower|more|less|above|below|better|worse|older|younger|greater|fewer)\b",
            r" or_\1",
            left,
            flags=re.I,
        )
        right = re.sub(
            r"\s+or\s+(higher|lower|more|less|above|below|better|worse|older|younger|greater|fewer)\b",
            r" or_\1",
            right,
            flags=re.I,
        )
        if re.search(r"\s+or\s+", left, flags=re.I):
            op, inputs = "or", re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+", left, flags=re.I)
        else:
            op, inputs = "and", re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", left, flags=re.I)
        effects = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", right, flags=re.I)
        out.append(
            RawMechanism(
                [i.strip().replace(" or_", " or ") for i in inputs if i.strip()],
                op,
                [e.strip().replace(" or_", " or ") for e in effects if e.strip()],
                sentence,
            )
        )
    return out


_OBSERVE = re.compile(
    r"^(?:we\s+(?:have\s+)?(?:observed|observe|see|saw|know\s+for\s+this\s+case)|it\s+is\s+observed|observed\s*:|"
    r"it\s+is\s+known\s+that\s+this\s+(?:case|person|unit|individual)\s+(?:has|is|shows)|this\s+(?:case|person|unit)\s+(?:has|is|shows)|"
    r"(?:in\s+this\s+(?:particular\s+)?case|here|suppose|assume),?(?:\s+we\s+know)?)\s+(?:that\s+)?(?:there\s+(?:is|are)\s+)?(?P<o>.+)$",
    re.I,
)


def read_observation_sentence(sentence: str) -> RawObservation | None:
    m = _OBSERVE.match(sentence.strip().rstrip(".!"))
    if not m:
        return None
    phrases = [
        p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", m.group("o")) if p.strip()
    ]
    return RawObservation(phrases, sentence) if phrases else None


_METHOD = re.compile(
    r"(?:method|approach|strategy)\s+(?P<label>\d+|one|two|[ab])\s*[:.)-]\s*(?P<body>[^\n]+?)"
    r"(?:(?<!\bi\.e)(?<!\be\.g)\.(?=\s|$)|(?=\s*(?:method|approach|strategy)\s+(?:\d+|one|two|[ab])\s*[:.)-])|(?=\n)|$)",
    re.I,
)


def read_method_sentences(text: str) -> list[RawMethod]:
    """'Method 1: We look directly at how X correlates with Y in general. Method 2: We
    look at this correlation case by case according to Z.'"""
    out = []
    last_pair: tuple[str, str] = ("", "")
    for m in _METHOD.finditer(text):
        body = m.group("body").strip().rstrip(".")
        pair = re.search(
            r"how\s+(?P<x>.+?)\s+(?:correlates|is\s+correlated|is\s+associated|associates)\s+with\s+(?P<y>.+?)(?:\s+case\s+by\s+case|\s+in\s+general|\s+overall|\s+within|\s+separately|\s+for\s+each|\s+stratified|\s+after|\s+controlling|\s+adjusting|$)",
            body,
            flags=re.I,
        )
        if pair:
            last_pair = (pair.group("x"), pair.group("y"))
        adjust: list[str] = []
        strat = re.search(
            r"(?:case\s+by\s+case\s+according\s+to|within\s+each\s+(?:level|value|group)\s+of|stratify\s+by|stratified\s+by|"
            r"separately\s+for\s+each\s+(?:level|value)\s+of|separately\s+within\s+each\s+(?:group|level|stratum)\s+of|after\s+(?:controlling|adjusting)\s+for|"
            r"controlling\s+for|adjusting\s+for|conditioning\s+on|for\s+each\s+(?:level|value)\s+of)\s+(?P<z>.+)$",
            body,
            flags=re.I,
        )
        if strat:
            z = re.split(
                r"\s+and\s+(?:study|compare|look|then)\b|,\s*then\b|\s+then\s+combine",
                strat.group("z"),
                flags=re.I,
            )[0]
            adjust = split_list(z)
        out.append(
            RawMethod(m.group("label"), last_pair[0], last_pair[1], adjust, m.group(0).strip())
        )
    return out


def _unambiguous_graph(sentence: str) -> GraphSentence | None:
    """A graph sentence whose verb is never a mechanism's ('has a direct effect on',
    'depends on', '->', ...): not a bare 'causes'."""
    if _CAUSES.search(sentence) or _KNOW.match(sentence) or _MECHANISM_CUES.search(sentence):
        return None
    if with_placeholder(sentence)[1]:
        return None
    return read_graph_sentence(sentence)


def _is_name_edge(sentence: str, known: set[str]) -> bool:
    g = read_graph_sentence(sentence)
    if g is None or not g.edges:
        return False
    return all(a.lower() in known and b.lower() in known for a, b in g.edges)


# -- the whole story -----------------------------------------------------------------------


@dataclass
class RawStory:
    sentences: list[str] = field(default_factory=list)
    graph: list[GraphSentence] = field(default_factory=list)
    probabilities: list[RawProbability] = field(default_factory=list)
    correlations: list[RawCorrelation] = field(default_factory=list)
    mechanisms: list[RawMechanism] = field(default_factory=list)
    observations: list[RawObservation] = field(default_factory=list)
    methods: list[RawMethod] = field(default_factory=list)
    values: list[RawValues] = field(default_factory=list)
    unread: list[tuple[str, str]] = field(default_factory=list)  # (sentence, why)
    ignored: list[str] = field(default_factory=list)
    # the story says its graph is complete ("no other causal relationships")
    closed_world: bool = False


_VALUE_PAIR = re.compile(
    r"\((?P<a>[^(),/]{1,30}?)\s*(?:\bor\b|/|\bvs\.?|\bversus\b)\s*(?P<b>[^(),/]{1,30}?)\)", re.I
)
_NOT_VALUES = re.compile(r"^(?:yes|no|true|false|1|0|on|off)$", re.I)


def _parenthesised_values(g: GraphSentence) -> list[RawValues]:
    """'how sick a patient is (severe or mild) affects ...': the name's two values."""
    out = []
    names = {n for e in g.edges for n in e} | set(g.names)
    for m in _VALUE_PAIR.finditer(g.sentence):
        a, b = m.group("a").strip(), m.group("b").strip()
        if _NOT_VALUES.match(a) or _NOT_VALUES.match(b):
            continue
        before = g.sentence[: m.start()].rstrip().lower()
        name = next((n for n in names if n and before.endswith(n.lower())), None)
        if name is not None:
            out.append(RawValues(name, [a, b], g.sentence))
    return out


def read_raw_story(story: str, *, segment: bool = False) -> RawStory:
    """The story's sentences read into raw statements. With `segment`, a list clause may
    take its event from a statement whose subject still holds a group (the reader then
    cuts the subject at the variables' names)."""
    raw = RawStory()
    raw.closed_world = _CLOSED_WORLD_RE.search(story) is not None
    text = preprocess_lines(story.strip())
    methods = read_method_sentences(text)
    if methods:
        raw.methods = methods
        for m in methods:
            text = text.replace(m.sentence, " ")
    sentences = []
    for s in split_sentences(text):
        s = _PREAMBLE.sub("", s).strip()
        if s:
            sentences.append(s)
    sentences = _join_lists(sentences)
    raw.sentences = sentences
    # a plain "A causes B" is a graph edge when A and B are names the graph uses
    # elsewhere, and a mechanism (between values) when the story has a graph already
    plain_graph = [g for s in sentences if (g := _unambiguous_graph(s)) is not None]
    known = {n.lower() for g in plain_graph for e in g.edges for n in e} | {
        n.lower() for g in plain_graph for n in g.names
    }
    has_numbers = any(with_placeholder(s)[1] for s in sentences) or bool(raw.methods)
    in_mechanisms = False
    for s in sentences:
        if _CLOSED_WORLD_RE.search(s) and not with_placeholder(s)[1] and "->" not in s:
            raw.ignored.append(s)  # "in a closed world with no other causes": nothing to read
            continue
        _, numbers = with_placeholder(s)
        if numbers:
            in_mechanisms = False
            previous = raw.probabilities[-1] if raw.probabilities else None
            stmts, why = read_number_sentence(s, previous, segment=segment)
            if why:
                raw.unread.append((s, why))
            for st in stmts:
                if isinstance(st, RawCorrelation):
                    raw.correlations.append(st)
                else:
                    raw.probabilities.append(st)
            continue
        if _COMPLEMENT.match(s):
            raw.ignored.append(s)
            continue
        if re.fullmatch(
            r"(?:we\s+know\s+the\s+following\s+mechanisms|the\s+mechanisms\s+are\s+(?:deterministic|as\s+follows))\s*[.:]?",
            s.strip(),
            flags=re.I,
        ):
            in_mechanisms = True
            raw.ignored.append(s)
            continue
        # stated numbers mean a probabilistic story: there "A causes B" is an edge
        plain_causes = (
            bool(_CAUSES.search(s))
            and plain_graph
            and not has_numbers
            and not _is_name_edge(s, known)
        )
        if (
            _KNOW.match(s)
            or (in_mechanisms and _CAUSES.search(s))
            or _MECHANISM_CUES.search(s)
            or plain_causes
            or (_CAUSES.search(s) and re.search(r"\s+or\s+", s, flags=re.I))
        ):
            mech = read_mechanism_sentence(s)
            if mech:
                raw.mechanisms.extend(mech)
                in_mechanisms = True
                continue
        vals = read_values_sentence(s)
        if vals is not None:
            raw.values.append(vals)
            continue
        obs = read_observation_sentence(s)
        if obs is not None and not _CAUSES.search(s):
            raw.observations.append(obs)
            continue
        g = read_graph_sentence(s)
        if g is not None:
            raw.graph.append(g)
            raw.values.extend(_parenthesised_values(g))
            continue
        raw.ignored.append(s)
    return raw
