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

from causalqa.stated.text import PLACEHOLDER, StatedNumber, split_sentences, with_placeholder

N = re.escape(PLACEHOLDER)

# -- the graph -----------------------------------------------------------------------------

_EFFECT_NOUN = r"(?:a\s+|an\s+)?(?:direct\s+|causal\s+|direct\s+causal\s+)?(?:effect|effects|influence|impact)"
_FORWARD = [
    rf"(?P<s>.+?)\s+(?:has|have)\s+{_EFFECT_NOUN}\s+(?:on|upon)\s+(?P<o>.+)",
    r"(?P<s>.+?)\s+(?:directly\s+)?(?:affects?|influences?|impacts?|determines?|drives?|causes?|"
    r"leads?\s+to|contributes?\s+to|is\s+(?:a|the)\s+(?:direct\s+)?cause\s+of|"
    r"are\s+(?:the\s+)?(?:direct\s+)?causes\s+of|is\s+one\s+of\s+the\s+(?:direct\s+)?causes\s+of|"
    r"are\s+among\s+the\s+(?:direct\s+)?causes\s+of|is\s+a\s+parent\s+of|are\s+parents\s+of)"
    r"\s+(?P<o>.+)",
]
_BACKWARD = [
    r"(?P<o>.+?)\s+(?:directly\s+)?(?:depends?|relies|rely)\s+(?:directly\s+)?on\s+(?P<s>.+)",
    r"(?P<o>.+?)\s+(?:is|are)\s+(?:directly\s+)?(?:affected|influenced|caused|determined|driven|"
    r"impacted)\s+(?:directly\s+)?by\s+(?P<s>.+)",
    r"(?P<o>.+?)\s+(?:is|are)\s+(?:a|an|the)?\s*(?:direct\s+)?(?:effect|effects|consequence|"
    r"consequences|result|child|children)\s+of\s+(?P<s>.+)",
]
_NO_EFFECT = re.compile(
    r"(?:has|have)\s+no\s+(?:direct\s+)?(?:effect|influence)|does\s+not\s+(?:directly\s+)?"
    r"(?:affect|influence|cause)|doesn't\s+(?:affect|influence|cause)",
    re.IGNORECASE,
)
_UNOBSERVED = [
    r"(?P<s>.+?)\s+(?:is|are)\s+(?:unobserved|not\s+observed|unmeasured|not\s+measured|latent|"
    r"hidden|never\s+observed)",
    r"(?:we\s+)?(?:do\s+not|don't|cannot|can't|never)\s+(?:observe|measure|see)\s+(?P<s>.+)",
]
_ARROW = re.compile(r"\s*(?:->|→|-->|=>|⟶)\s*")
_PREAMBLE = re.compile(
    r"^(?:imagine|suppose|consider|assume|in\s+a\s+(?:self-contained|hypothetical))\b[^:]*:\s*",
    re.IGNORECASE,
)


def split_list(text: str) -> list[str]:
    """'A, B and C' -> [A, B, C] (also 'as well as', 'both A and B')."""
    text = re.sub(r"^\s*both\s+", "", text.strip(), flags=re.IGNORECASE)
    parts = re.split(r"\s*,\s*(?:and\s+|as\s+well\s+as\s+)?|\s+and\s+|\s+as\s+well\s+as\s+", text)
    return [clean_name(p) for p in parts if clean_name(p)]


def clean_name(text: str) -> str:
    t = text.strip().strip(".,;:!?\"'“”()").strip()
    t = re.sub(r"^(?:the\s+variable\s+|variable\s+)", "", t, flags=re.IGNORECASE)
    t = re.sub(r"\s+(?:directly|too|as\s+well|both)$", "", t, flags=re.IGNORECASE)
    return t.strip()


@dataclass
class GraphSentence:
    sentence: str
    edges: list[tuple[str, str]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    unobserved: list[str] = field(default_factory=list)


def read_graph_sentence(sentence: str) -> GraphSentence | None:
    """The edges (or unobserved variables, or declared non-effects) one sentence
    states, or None when it states none."""
    s = _PREAMBLE.sub("", sentence.strip()).rstrip(".!;")
    s = re.sub(r"^(?:and|also|moreover|furthermore|in addition|finally|then),?\s+", "", s, flags=re.I)
    if _ARROW.search(s) and PLACEHOLDER not in s:
        out = GraphSentence(sentence)
        for chunk in re.split(r"\s*[;,]\s*|\s+and\s+", s):
            nodes = [clean_name(n) for n in _ARROW.split(chunk)]
            if len(nodes) < 2 or not all(nodes):
                continue
            for a, b in zip(nodes, nodes[1:]):
                out.edges.append((a, b))
        return out if out.edges else None
    for pat in _UNOBSERVED:
        m = re.fullmatch(pat, s, flags=re.IGNORECASE)
        if m:
            names = split_list(m.group("s"))
            return GraphSentence(sentence, names=names, unobserved=names)
    if _NO_EFFECT.search(s):
        m = re.fullmatch(
            r"(?P<s>.+?)\s+(?:has|have|does|do)\s+(?:no|not|n't)?.*?\s+(?:on|affect|influence|cause)\s+(?P<o>.+)",
            s,
            flags=re.IGNORECASE,
        )
        if m:
            return GraphSentence(sentence, names=split_list(m.group("s")) + split_list(m.group("o")))
    for pats, forward in ((_FORWARD, True), (_BACKWARD, False)):
        for pat in pats:
            m = re.fullmatch(pat, s, flags=re.IGNORECASE)
            if not m:
                continue
            subjects, objects = split_list(m.group("s")), split_list(m.group("o"))
            if not subjects or not objects:
                continue
            out = GraphSentence(sentence)
            for a in subjects:
                for b in objects:
                    out.edges.append((a, b))
            return out
    return None


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
class RawMethod:
    label: str
    treatment: str
    outcome: str
    adjust: list[str]
    sentence: str


_PROBABILITY_FORMS = [
    # For C, the probability of E is N.  /  Among C, the chance of E is N.
    rf"{_FOR}\s+(?P<given>.+?),?\s+(?:the\s+)?(?:overall\s+)?{_PROB}\s+(?:of|that|for)\s+(?P<event>.+?)\s+{_IS}\s+(?:about\s+|around\s+|roughly\s+)?{N}",
    # The probability of E for/given C is N.
    rf"(?:the\s+)?{_PROB}\s+(?:of|that)\s+(?P<event>.+?)\s+{_COND_MARK}\s+(?P<given>.+?)\s+{_IS}\s+{N}",
    # The (overall) probability of E is N.
    rf"(?:the\s+)?(?P<overall>overall\s+|marginal\s+|unconditional\s+|total\s+)?{_PROB}\s+(?:of|that)\s+(?P<event>.+?)\s+{_IS}\s+(?:about\s+|around\s+)?{N}",
    # If/When C, E happens with probability N / has a probability of N.
    rf"(?:if|when|given\s+that|given)\s+(?P<given>.+?),\s+(?P<event>.+?)\s+(?:with|has|have)\s+(?:a\s+)?{_PROB}\s+(?:of\s+)?{N}",
    # If/When C, the probability of E is N (covered above by _FOR? 'if' is not in _FOR).
    rf"(?:if|when|given\s+that|given)\s+(?P<given>.+?),\s+(?:the\s+)?{_PROB}\s+(?:of|that)\s+(?P<event>.+?)\s+{_IS}\s+{N}",
    # N of C are/have E.  ("26% of smokers get cancer")
    rf"{N}\s+of\s+(?:all\s+)?(?P<given>.+?)\s+(?:are|is|have|has|get|gets|show|shows|experience|experiences|see|end\s+up\s+with|develop|develops)\s+(?P<event>.+)",
    # N of cases/people are E.  (marginal)
    rf"{N}\s+of\s+(?:all\s+)?(?:cases|people|individuals|units|the\s+population|everyone|subjects)\s+(?:are|have|show|get|experience)\s+(?P<event>.+)",
    # E has a probability of N (given C)
    rf"(?P<event>.+?)\s+(?:has|have|occurs\s+with|happens\s+with)\s+(?:a\s+)?{_PROB}\s+(?:of\s+)?{N}(?:\s+{_COND_MARK}\s+(?P<given>.+))?",
    # P(E | C) = N written with the phrases
    rf"p\s*\(\s*(?P<event>[^|()]+?)\s*(?:\|\s*(?P<given>[^()]+?))?\s*\)\s*(?:=|is)\s*{N}",
]
_CORRELATION_FORMS = [
    rf"(?:{_FOR}\s+(?P<given>.+?),\s+)?(?:the\s+)?correlation\s+between\s+(?P<ab>.+?)\s+{_IS}\s+{N}",
    rf"(?:the\s+)?correlation\s+between\s+(?P<ab>.+?)\s+(?:{_COND_MARK})\s+(?P<given>.+?)\s+{_IS}\s+{N}",
    rf"(?:{_FOR}\s+(?P<given>.+?),\s+)?(?P<ab>.+?)\s+(?:are|is)\s+correlated\s+(?:with\s+a\s+coefficient\s+of|at)\s+{N}",
]


def _split_pair(ab: str) -> tuple[str, str] | None:
    m = re.fullmatch(r"(.+?)\s+(?:and|with)\s+(.+)", ab.strip(), flags=re.IGNORECASE)
    return (m.group(1), m.group(2)) if m else None


def read_number_sentence(sentence: str) -> tuple[list[object], str | None]:
    """Raw statements of one sentence holding numbers, or ([], why) when its form is
    not one the rules know. A sentence may hold several statements ('... is 26%, and
    ... is 40%')."""
    text, numbers = with_placeholder(sentence.strip())
    text = text.strip().rstrip(".!;")
    clauses = [text]
    if len(numbers) > 1:
        clauses = [
            c for c in re.split(rf"(?<={N})\s*(?:,|;)?\s*(?:and|while|whereas|but)?\s+(?=\S)", text) if c
        ]
        if sum(c.count(PLACEHOLDER) for c in clauses) != len(numbers) or any(
            c.count(PLACEHOLDER) != 1 for c in clauses
        ):
            return [], "it states several numbers in a form the rules cannot split"
    out: list[object] = []
    it = iter(numbers)
    for clause in clauses:
        number = next(it)
        clause = re.sub(r"^(?:and|also|moreover|however|meanwhile|finally),?\s+", "", clause, flags=re.I)
        got = _read_clause(clause, number, sentence)
        if got is None:
            return [], "its wording is not a form the rules know"
        out.append(got)
    return out, None


def _read_clause(clause: str, number: StatedNumber, sentence: str) -> object | None:
    for pat in _CORRELATION_FORMS:
        m = re.fullmatch(pat, clause, flags=re.IGNORECASE)
        if m:
            pair = _split_pair(m.group("ab"))
            if pair:
                return RawCorrelation(pair[0], pair[1], m.group("given") or "", number, sentence)
    for pat in _PROBABILITY_FORMS:
        m = re.fullmatch(pat, clause, flags=re.IGNORECASE)
        if m:
            d = m.groupdict()
            event = (d.get("event") or "").strip()
            given = (d.get("given") or "").strip()
            if not event:
                continue
            return RawProbability(event, given, number, sentence, overall=bool(d.get("overall")))
    return None


# -- mechanisms, observations, methods ------------------------------------------------------

_KNOW = re.compile(r"^(?:we\s+know\s+(?:that\s+)?|it\s+is\s+known\s+that\s+|suppose\s+that\s+)", re.I)
_CAUSES = re.compile(r"\s+(?:causes|cause|leads\s+to|results\s+in|makes|brings\s+about)\s+", re.I)


def read_mechanism_sentence(sentence: str) -> list[RawMechanism]:
    """'We know that A causes B.' 'A or B causes C.' 'A and B causes C.' 'A causes B and
    C.' '..., and we know that C causes D.'"""
    s = sentence.strip().rstrip(".!")
    out = []
    for part in re.split(r",?\s+and\s+we\s+know\s+that\s+|;\s*", s, flags=re.I):
        part = _KNOW.sub("", part.strip())
        m = re.fullmatch(rf"(?P<a>.+?){_CAUSES.pattern}(?P<b>.+)", part, flags=re.I)
        if not m:
            m2 = re.fullmatch(r"if\s+(?P<a>.+?),?\s+then\s+(?P<b>.+)", part, flags=re.I)
            if not m2:
                return []
            m = m2
        left, right = m.group("a"), m.group("b")
        # "college degree or higher" is one phrase, not a disjunction
        left = re.sub(r"\s+or\s+(higher|lower|more|less|above|below|better|worse|older|younger|greater|fewer)\b", r" or_\1", left, flags=re.I)
        right = re.sub(r"\s+or\s+(higher|lower|more|less|above|below|better|worse|older|younger|greater|fewer)\b", r" or_\1", right, flags=re.I)
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
    r"^(?:we\s+(?:have\s+)?(?:observed|observe|see|saw|know\s+for\s+this\s+case)|it\s+is\s+observed|"
    r"(?:in\s+this\s+case|here|suppose|assume),?)\s+(?:that\s+)?(?P<o>.+)$",
    re.I,
)


def read_observation_sentence(sentence: str) -> RawObservation | None:
    m = _OBSERVE.match(sentence.strip().rstrip(".!"))
    if not m:
        return None
    phrases = [p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", m.group("o")) if p.strip()]
    return RawObservation(phrases, sentence) if phrases else None


_METHOD = re.compile(r"method\s+(?P<label>\d+|one|two|[ab])\s*[:.)-]\s*(?P<body>.+?)(?=\s*method\s+(?:\d+|one|two|[ab])\s*[:.)-]|$)", re.I)


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
            r"(?:case\s+by\s+case\s+according\s+to|within\s+each\s+(?:level|value|group)\s+of|"
            r"separately\s+for\s+each\s+(?:level|value)\s+of|stratified\s+by|after\s+(?:controlling|adjusting)\s+for|"
            r"controlling\s+for|adjusting\s+for|conditioning\s+on|for\s+each\s+(?:level|value)\s+of)\s+(?P<z>.+)$",
            body,
            flags=re.I,
        )
        if strat:
            adjust = split_list(strat.group("z"))
        out.append(RawMethod(m.group("label"), last_pair[0], last_pair[1], adjust, m.group(0).strip()))
    return out


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
    unread: list[tuple[str, str]] = field(default_factory=list)  # (sentence, why)
    ignored: list[str] = field(default_factory=list)


def read_raw_story(story: str) -> RawStory:
    raw = RawStory()
    text = story.strip()
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
    raw.sentences = sentences
    in_mechanisms = False
    for s in sentences:
        _, numbers = with_placeholder(s)
        if numbers:
            in_mechanisms = False
            stmts, why = read_number_sentence(s)
            if why:
                raw.unread.append((s, why))
            for st in stmts:
                if isinstance(st, RawCorrelation):
                    raw.correlations.append(st)
                else:
                    raw.probabilities.append(st)
            continue
        if _KNOW.match(s) or (in_mechanisms and _CAUSES.search(s)) or (
            _CAUSES.search(s) and re.search(r"\s+or\s+", s, flags=re.I)
        ):
            mech = read_mechanism_sentence(s)
            if mech:
                raw.mechanisms.extend(mech)
                in_mechanisms = True
                continue
        obs = read_observation_sentence(s)
        if obs is not None and not _CAUSES.search(s):
            raw.observations.append(obs)
            continue
        g = read_graph_sentence(s)
        if g is not None:
            raw.graph.append(g)
            continue
        raw.ignored.append(s)
    return raw
