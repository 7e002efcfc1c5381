"""Reading stated (in)dependences and causal claims: text → typed `Premise` and `Claim`.

A premise names a closed system of variables and lists which pairs correlate and which
are independent, marginally or given sets of other variables (the Corr2Cause form,
Jin et al., ICLR 2024):

    Suppose there is a closed system of 3 variables, A, B and C. All the statistical
    relations among these 3 variables are as follows: A correlates with B. B correlates
    with C. However, A is independent of C given B.

Other wordings are read too: "A and B are correlated", "A is associated with B", "A and
C are (conditionally) independent given B", "A is uncorrelated with C", "A ⫫ C | B",
"there is no correlation between A and C once B is known", object lists ("A correlates
with B and C": one statement per pair). Every sentence must be read; one that is not is a
`StoryError` naming it, never silently dropped.

A claim is one of the relations of `Relation` between two of the premise's variables, in
the paper's wording ("A directly causes B.", "A causes something else which causes B.",
"A is a cause for B, but not a direct one.", "There exists at least one collider (i.e.,
common effect) of A and B.", "There exists at least one confounder (i.e., common cause)
of A and B.") or another ("B is directly caused by A", "A and B have a common cause",
"A affects B only through other variables", "Is A an ancestor of B?"), possibly negated
("A does not directly cause B").

Both readers work by fixed connective phrases with the variable names in between, and
resolve each name against the declared variables, so names may be words with spaces
("air pollution"). A sentence that several templates read differently is refused as
ambiguous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from causalqa.errors import StoryError
from causalqa.stated.independence_graph import Relation

NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip


@dataclass(frozen=True)
class Statement:
    """One stated relation: x and y are independent (or dependent) given `given`."""

    x: str
    y: str
    given: tuple[str, ...]
    independent: bool
    sentence: str

    def describe(self) -> str:
        verb = "independent" if self.independent else "dependent"
        cond = f" given {', '.join(self.given)}" if self.given else ""
        return f"{self.x} and {self.y} are {verb}{cond}"


@dataclass(frozen=True)
class Premise:
    """The variables of a closed system and the statements made about them. `declared`
    says whether the text listed the variables (else they are the ones the statements
    name)."""

    variables: tuple[str, ...]
    statements: tuple[Statement, ...]
    declared: bool = True
    notes: tuple[str, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict:
        return {
            "kind": "stated independences",
            "variables": list(self.variables),
            "variables_declared": self.declared,
            "closed_system": True,
            "statements": [
                {
                    "x": s.x,
                    "y": s.y,
                    "given": list(s.given),
                    "independent": s.independent,
                    "sentence": s.sentence,
                }
                for s in self.statements
            ],
        }


@dataclass(frozen=True)
class Claim:
    """A claim that `relation` holds between a and b (or, `negated`, that it does not)."""

    relation: Relation
    a: str
    b: str
    negated: bool
    text: str

    def describe(self) -> str:
        core = f"{self.relation.value}({self.a}, {self.b})"
        return f"not {core}" if self.negated else core

    def as_dict(self) -> dict:
        return {
            "relation": self.relation.value,
            "a": self.a,
            "b": self.b,
            "negated": self.negated,
            "text": self.text,
        }


# -- text helpers ----------------------------------------------------------------------------
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "\u00a0": " "})


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text.translate(_QUOTES)).strip()


@lru_cache(maxsize=4096)
def _key(name: str) -> str:
    """A name as compared: case, surrounding quotes and a leading article do not count."""
    name = _clean(name).strip(" \"'`*").casefold()
    return re.sub(r"^(?:the|variable|node)\s+", "", name)


_LEADS = re.compile(
    r"^(?:however|but|also|moreover|furthermore|in addition|additionally|besides|further|"
    r"finally|lastly|and|yet|still|meanwhile|similarly|likewise|then|next|on the other hand|"
    r"in contrast|by contrast|note that|we (?:also )?know that|it is (?:also )?known that|"
    r"we (?:also )?observe that|it (?:also )?holds that|we find that|(?:the )?data show that|"
    r"(?:-|\*|•|\d+[.)]))\s*,?\s*",
    re.IGNORECASE,
)


def _strip_leads(sentence: str) -> str:
    previous = None
    while previous != sentence:
        previous = sentence
        sentence = _LEADS.sub("", sentence, count=1).strip()
    return sentence


def _split_list(text: str) -> list[str]:
    """ "A, B, and C" / "A, B and C" / "A and B" / "{A, B}" → names (no declared names)."""
    text = _clean(text).strip("{}[]() ")
    text = re.sub(r"^(?:both|the set|the variables|variables)\s+", "", text, flags=re.I)
    text = text.strip("{}[]() ")
    if not text:
        return []
    pieces = [p.strip() for p in re.split(r"\s*[,;]\s*", text) if p.strip()]
    last = re.sub(r"^(?:and|&)\s+", "", pieces[-1], flags=re.I)
    tail = re.split(r"\s+(?:and|&)\s+", last)
    names = [re.sub(r"^(?:and|&)\s+", "", p, flags=re.I) for p in pieces[:-1]] + tail
    return [n.strip() for n in names if n.strip()]


class _Names:
    """Resolves name phrases against the declared variables (or, when none are declared,
    accepts plain names and collects them)."""

    _PLAIN = re.compile(r"^[A-Za-z][\w'\-]*(?: [\w'\-]+){0,5}$")
    _NOT_A_NAME = re.compile(
        r"\b(?:is|are|not|with|of|given|and|correlat\w*|independent|dependent|cause[sd]?|"
        r"effect|causes|something|which|that|there|no)\b",
        re.IGNORECASE,
    )

    def __init__(self, declared: list[str] | None) -> None:
        self.declared = declared
        self.by_key = {_key(n): n for n in declared} if declared else {}
        self.seen: list[str] = []
        self.seen_by_key: dict[str, str] = {}
        self._keys = sorted(self.by_key, key=len, reverse=True)

    def one(self, phrase: str) -> str | None:
        key = _key(phrase)
        if self.declared is not None:
            return self.by_key.get(key)
        name = _clean(phrase).strip(" \"'`*")
        if not self._PLAIN.match(name) or self._NOT_A_NAME.search(name):
            return None
        return self.seen_by_key.get(key, name)

    def many(self, phrase: str) -> list[str] | None:
        """A list of names ("B and C", "B, C, and D", "{B, C}"), or None."""
        text = _clean(phrase).strip(" {}[]()")
        text = re.sub(r"^(?:both|the set|the variables|variables)\s+", "", text, flags=re.I)
        text = text.strip(" {}[]()")
        if self.declared is None:
            names = [self.one(p) for p in _split_list(text)]
            return names if names and all(n is not None for n in names) else None  # type: ignore[return-value]
        # Declared names are matched longest first at each position, so a name with spaces
        # ("air pollution") is never split into shorter ones.
        key, pos, found = text.casefold(), 0, []
        while True:
            pos += re.match(r"(?:the\s+|variables?\s+|nodes?\s+)?", key[pos:]).end()
            name = next(
                (
                    k
                    for k in self._keys
                    if key.startswith(k, pos)
                    and (pos + len(k) == len(key) or not key[pos + len(k)].isalnum())
                ),
                None,
            )
            if name is None:
                return None
            found.append(self.by_key[name])
            pos += len(name)
            if pos == len(key):
                return found
            sep = re.match(r"\s*,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*|\s+", key[pos:])
            if sep is None or not sep.group(0):
                return None
            pos += sep.end()

    def remember(self, names: list[str]) -> None:
        for name in names:
            if _key(name) not in self.seen_by_key:
                self.seen_by_key[_key(name)] = name
                self.seen.append(name)


# -- premise templates -----------------------------------------------------------------------
_ADV = r"(?:(?:statistically|conditionally|marginally|unconditionally|probabilistically)\s+)?"
_SIGN = r"(?:(?:positively|negatively|strongly|weakly)\s+)?"
_GIVEN_WORDS = (
    r"given(?: that we know)?(?: the values? of)?|conditional(?:ly)? (?:on|upon)|"
    r"conditioned on|conditioning on|(?:when|if|once|after) (?:we )?condition(?:ing|ed)? on|"
    r"(?:when |after |once )?(?:we )?(?:control(?:ling)?|adjust(?:ing)?) for|"
    r"(?:when |after |once )?(?:we )?(?:know|observe) the values? of|"
    r"(?:when |after |once )?(?:we )?(?:know|observe)|holding"
)
_GIVEN = (
    r"(?:,?\s+(?:"
    rf"(?:{_GIVEN_WORDS})\s+(?P<z>.+?)(?:\s+(?:fixed|constant))?"
    r"|(?:once|when|if)\s+(?P<z2>.+?)\s+(?:is|are)\s+(?:known|observed|given|fixed|held fixed|"
    r"held constant|conditioned on)"
    r"|(?P<marginal>marginally|unconditionally|without conditioning(?: on anything)?)"
    r"))?"
)
_END = r"\s*$"
_X, _Y, _PAIR = r"(?P<x>.+?)", r"(?P<y>.+?)", r"(?P<pair>.+?)"
_EACH_OTHER = r"(?:\s+(?:of|from|with) (?:each other|one another))?"
_NOUN_DEP = r"(?:correlation|association|dependence|dependency|statistical dependence|link)"

# (regex, independent?) — each names x and y, or a pair, and an optional conditioning set.
_STATEMENT_TEMPLATES: list[tuple[str, bool]] = [
    # independence
    (rf"^{_X} (?:is|becomes|remains) {_ADV}independent (?:of|from) {_Y}{_GIVEN}{_END}", True),
    (
        rf"^{_PAIR} (?:are|become|remain) {_ADV}(?:mutually )?independent{_EACH_OTHER}"
        rf"{_GIVEN}{_END}",
        True,
    ),
    (rf"^{_PAIR} are d-separated(?: by| given) (?P<z>.+?){_END}", True),
    (rf"^{_PAIR} are d-separated{_END}", True),
    (
        rf"^{_X} is {_ADV}(?:uncorrelated|unassociated|unrelated) (?:with|to) {_Y}{_GIVEN}{_END}",
        True,
    ),
    (
        rf"^{_PAIR} are {_ADV}(?:uncorrelated|unassociated|unrelated){_EACH_OTHER}{_GIVEN}{_END}",
        True,
    ),
    (
        rf"^{_X} is not {_ADV}(?:correlated|associated|related|linked|dependent) "
        r"(?:with|to|on|upon) "
        rf"{_Y}{_GIVEN}{_END}",
        True,
    ),
    (
        rf"^{_PAIR} are not {_ADV}(?:correlated|associated|related|linked|dependent)"
        rf"{_EACH_OTHER}{_GIVEN}{_END}",
        True,
    ),
    (rf"^{_X} (?:does not|doesn't) (?:correlate|covary|co-vary) with {_Y}{_GIVEN}{_END}", True),
    (rf"^{_PAIR} (?:do not|don't) (?:correlate|covary|co-vary){_EACH_OTHER}{_GIVEN}{_END}", True),
    (rf"^there is no {_ADV}{_NOUN_DEP} between {_PAIR}{_GIVEN}{_END}", True),
    (rf"^no {_ADV}{_NOUN_DEP} (?:exists|is found|holds) between {_PAIR}{_GIVEN}{_END}", True),
    (rf"^{_X} (?:has|shows) no {_NOUN_DEP} with {_Y}{_GIVEN}{_END}", True),
    # dependence
    (rf"^{_X} (?:is )?{_ADV}{_SIGN}correlate[sd]? (?:with|to) {_Y}{_GIVEN}{_END}", False),
    (rf"^{_PAIR} (?:are )?{_ADV}{_SIGN}correlated?{_EACH_OTHER}{_GIVEN}{_END}", False),
    (
        rf"^{_X} (?:becomes|remains) {_ADV}(?:correlated|dependent) (?:with|on) {_Y}{_GIVEN}{_END}",
        False,
    ),
    (rf"^{_PAIR} (?:become|remain) {_ADV}(?:correlated|dependent){_GIVEN}{_END}", False),
    (rf"^{_X} (?:covaries|co-varies) with {_Y}{_GIVEN}{_END}", False),
    (
        rf"^{_X} is {_ADV}{_SIGN}(?:associated|related|linked) (?:with|to) {_Y}{_GIVEN}{_END}",
        False,
    ),
    (rf"^{_X} is {_ADV}dependent (?:on|upon|with) {_Y}{_GIVEN}{_END}", False),
    (
        rf"^{_PAIR} are {_ADV}{_SIGN}(?:associated|related|linked|dependent){_EACH_OTHER}"
        rf"{_GIVEN}{_END}",
        False,
    ),
    (rf"^{_X} is not {_ADV}independent (?:of|from) {_Y}{_GIVEN}{_END}", False),
    (rf"^{_PAIR} are not {_ADV}independent{_EACH_OTHER}{_GIVEN}{_END}", False),
    (rf"^there is (?:a |an )?{_SIGN}{_ADV}{_NOUN_DEP} between {_PAIR}{_GIVEN}{_END}", False),
]
_STATEMENT_PATTERNS = [(re.compile(p, re.IGNORECASE), ind) for p, ind in _STATEMENT_TEMPLATES]

_INDEP_SIGN = r"(?:⫫|⊥⊥|⊥|_\|\|_|\\perp|\\indep)"
_DEP_SIGN = r"(?:⫫̸|⊥̸|not\s*⫫|not\s*⊥|/⫫|/⊥|\\not\\perp|\\nindep)"
_SYMBOLIC = [
    (re.compile(rf"^{_X}\s*{_DEP_SIGN}\s*{_Y}(?:\s*\|\s*(?P<z>.+?))?{_END}"), False),
    (re.compile(rf"^{_X}\s*{_INDEP_SIGN}\s*{_Y}(?:\s*\|\s*(?P<z>.+?))?{_END}"), True),
]

_HEADER = re.compile(
    r"(?:(?P<n>\d+|" + "|".join(NUMBER_WORDS) + r")\s+(?:random\s+)?variables?"
    r"(?:\s+(?:in|forming|that form|which form|making up) (?:a |the |one )?closed system)?"
    r"(?:\s*(?:,|:|-|—)\s*|\s+)(?!(?:are|is|among|that|which|in|of)\b)"
    r"(?:(?:namely|called|named)\s*:?\s*)?"
    r"|\bthe variables are\s*:?\s*"
    r"|\bthe following (?:\d+ |\w+ )?variables\s*:\s*"
    r"|\bclosed system (?:of|with|containing|over) (?:the )?variables\s*:?\s*"
    r"|\bconsists? of (?:the )?variables\s*:?\s*)"
    r"(?P<names>[^.:;]+?)\s*(?:\.|;|:|$)",
    re.IGNORECASE,
)
# An introduction to the statements ("All the statistical relations … are as follows:",
# "We know all their statistical relations:") is no statement itself.
_FOLLOWS = re.compile(
    r"[^.:]*\b(?:as follows|following|relations|relationships|statements|facts|we know|known)"
    r"[^.:]*:",
    re.IGNORECASE,
)
_NOT_CLOSED = re.compile(
    r"\b(?:not a closed system|open system|unobserved|hidden|latent|unmeasured)\b", re.IGNORECASE
)


def read_premise(text: str) -> Premise:
    """The variables and (in)dependence statements of a premise.

    Raises `StoryError` naming the sentence that cannot be read, a name that is not one
    of the declared variables, or the two sentences that contradict each other.

    >>> p = read_premise("Suppose there is a closed system of 3 variables, A, B and C. "
    ...     "A correlates with B. B correlates with C. However, A is independent of C.")
    >>> p.variables, [s.describe() for s in p.statements][-1]
    (('A', 'B', 'C'), 'A and C are independent')
    """
    text = _clean(re.sub(r"^\s*premise\s*:\s*", "", text, flags=re.IGNORECASE))
    if not text:
        raise StoryError(
            "the premise is empty: list which variables correlate and which are independent"
        )
    if _NOT_CLOSED.search(text):
        raise StoryError(
            "the premise allows unobserved variables; only closed systems (every common cause "
            "among the named variables) are answered here"
        )
    declared, body = _read_header(text)
    body = _FOLLOWS.sub(". ", body)
    names = _Names(declared)
    statements: list[Statement] = []
    for sentence in _sentences(body):
        statements.extend(_read_sentence(sentence, names))
    if not statements:
        raise StoryError("the premise states no correlation or independence between variables")
    variables = declared if declared is not None else names.seen
    if len(variables) < 2:
        raise StoryError("the premise names fewer than two variables")
    _check_contradictions(statements)
    return Premise(tuple(variables), tuple(statements), declared is not None)


def _read_header(text: str) -> tuple[list[str] | None, str]:
    """The declared variables (or None when the text lists none) and the text without the
    declaration."""
    match = _HEADER.search(text)
    if match is None:
        return None, text
    names = _split_list(match.group("names"))
    count = match.group("n")
    if count is not None:
        expected = int(count) if count.isdigit() else NUMBER_WORDS[count.lower()]
        if len(names) != expected:
            raise StoryError(
                f"the premise says {count} variables but lists {len(names)} "
                f"({', '.join(names)}) in {match.group(0).strip()!r}"
            )
    if len({_key(n) for n in names}) != len(names):
        raise StoryError(f"a variable is listed twice in {match.group(0).strip()!r}")
    # The declaration's sentence goes whole ("Suppose there is a closed system of …").
    sentence_start = max(text.rfind(".", 0, match.start()), text.rfind(":", 0, match.start()))
    return names, text[: sentence_start + 1] + " " + text[match.end() :]


def _sentences(body: str) -> list[str]:
    parts = re.split(r"(?<=[.;!?])\s+|\n+|(?<=\.)(?=[A-Z])", body)
    out = []
    for part in parts:
        part = part.strip().rstrip(".;!?").strip()
        if part and re.search(r"\w", part):
            out.append(part)
    return out


_PRONOUN_PAIR = re.compile(
    r"^(?:they|the two(?: variables)?|these two(?: variables)?|both)\b", re.I
)


def _read_sentence(sentence: str, names: _Names) -> list[Statement]:
    """The statements of one sentence; a sentence that joins several ("A correlates with
    B, and B correlates with C") is split where every part reads."""
    core = _strip_leads(sentence)
    found = _read_clause(core, sentence, names)
    if found is not None:
        return found
    # Split at ", and " / ";" / ", " / " and " — only where every part reads as a statement.
    for splitter in (r"\s*,\s*(?:and|but|while|whereas)\s+", r"\s*,\s*", r"\s+(?:and|but)\s+"):
        parts = [p for p in re.split(splitter, core) if p.strip()]
        if len(parts) < 2:
            continue
        read: list[Statement] = []
        for part in parts:
            part = _strip_leads(part)
            if read:
                # "A and B are correlated, but they are independent given C": "they" is
                # the pair just named.
                pair = f"{read[-1].x} and {read[-1].y}"
                part = _PRONOUN_PAIR.sub(pair, part, count=1)
            found = _read_clause(part, sentence, names)
            if found is None:
                break
            read.extend(found)
        else:
            return read
    raise StoryError(
        f"cannot read the sentence {sentence!r} as a correlation or independence between "
        f"named variables"
        + (f" (the variables are {', '.join(names.declared)})" if names.declared else ""),
        hint="write e.g. 'A correlates with B.', 'A is independent of C given B.'",
    )


_GIVEN_FIRST = re.compile(rf"^(?:{_GIVEN_WORDS}|once|when|if)\s+", re.IGNORECASE)
_KNOWN_SUFFIX = re.compile(
    r"\s+(?:is|are)\s+(?:known|observed|given|fixed|held fixed|held constant|conditioned on)$",
    re.IGNORECASE,
)


def _read_clause(clause: str, sentence: str, names: _Names) -> list[Statement] | None:
    """The statements of one clause, or None when it reads as none."""
    found = _read_plain_clause(clause, sentence, names)
    if found is not None:
        return found
    # The conditioning set first: "Given B, A and C are independent." The set may hold
    # commas itself ("Given A, B and E, C and D are …"): every comma is tried.
    prefix = _GIVEN_FIRST.match(clause)
    if prefix is None:
        return None
    body = clause[prefix.end() :]
    readings = []
    for comma in (i for i, ch in enumerate(body) if ch == ","):
        given = names.many(_KNOWN_SUFFIX.sub("", body[:comma].strip()))
        if given is None:
            continue
        try:
            found = _read_plain_clause(body[comma + 1 :].strip(), sentence, names)
        except StoryError:
            continue
        if found is None or any(s.given or s.x in given or s.y in given for s in found):
            continue
        order = _order(names)
        readings.append(
            [
                Statement(s.x, s.y, tuple(sorted(given, key=order)), s.independent, s.sentence)
                for s in found
            ]
        )
    if len(readings) > 1:
        raise StoryError(
            f"the sentence {sentence!r} can be read in more than one way: "
            + "; ".join(", ".join(s.describe() for s in r) for r in readings)
        )
    return readings[0] if readings else None


def _read_plain_clause(clause: str, sentence: str, names: _Names) -> list[Statement] | None:
    readings: dict[tuple, list[Statement]] = {}
    for pattern, independent in _STATEMENT_PATTERNS + _SYMBOLIC:
        match = pattern.match(clause)
        if match is None:
            continue
        statements = _statements_from(match, independent, sentence, names)
        if statements:
            key = tuple(sorted((s.x, s.y, s.given, s.independent) for s in statements))
            readings.setdefault(key, statements)
    if not readings:
        return None
    if len(readings) > 1:
        raise StoryError(
            f"the sentence {sentence!r} can be read in more than one way: "
            + "; ".join(", ".join(s.describe() for s in r) for r in readings.values())
        )
    statements = next(iter(readings.values()))
    names.remember([n for s in statements for n in (s.x, s.y, *s.given)])
    return statements


def _statements_from(match: re.Match, independent: bool, sentence: str, names: _Names):
    groups = match.groupdict()
    if groups.get("pair") is not None:
        pair = names.many(groups["pair"])
        if pair is None or len(pair) != 2:
            return None
        subjects, objects = [pair[0]], [pair[1]]
    else:
        subject = names.one(groups["x"])
        objects = names.many(groups["y"])
        if subject is None or objects is None:
            return None
        subjects = [subject]
    given_text = groups.get("z") or groups.get("z2")
    if given_text is None or re.fullmatch(
        r"\s*(?:nothing|no other variables?|the empty set|∅|\{\s*\})\s*", given_text, re.I
    ):
        given: list[str] = []
    else:
        parsed = names.many(given_text)
        if parsed is None:
            return None
        given = parsed
    statements = []
    for x in subjects:
        for y in objects:
            if x == y or x in given or y in given or len(set(given)) != len(given):
                return None
            statements.append(
                Statement(x, y, tuple(sorted(given, key=_order(names))), independent, sentence)
            )
    return statements


def _order(names: _Names):
    if names.declared is not None:
        index = {n: i for i, n in enumerate(names.declared)}
        return lambda n: (index[n], n)
    return lambda n: (0, n)


def _check_contradictions(statements: list[Statement]) -> None:
    first: dict[tuple, Statement] = {}
    for s in statements:
        key = (frozenset((s.x, s.y)), frozenset(s.given))
        earlier = first.setdefault(key, s)
        if earlier.independent != s.independent:
            raise StoryError(
                f"contradictory statements: {earlier.sentence!r} and {s.sentence!r} "
                f"({earlier.describe()} vs {s.describe()})"
            )


# -- claims ----------------------------------------------------------------------------------
_CAUSE_VERB = r"(?:causes?|affects?|influences?)"
_MEDIATED = (
    r"(?:only )?(?:through|via) (?:some |one or more |an |a )?(?:other|intermediate|mediating|"
    r"third|further) (?:variables?|nodes?|factors?)|(?:only )?(?:through|via) (?:something "
    r"else|a mediator|mediators|an intermediary|an intermediate variable|other variables)"
)
_SOME = r"(?:at least one|some|a|an|one)"
_COLLIDER_NOUN = r"(?:collider|common effect|common child|joint effect|shared effect)s?"
_CONFOUNDER_NOUN = r"(?:confounder|common cause|common parent|shared cause|confounding variable)s?"
_IE = r"(?:\s*\((?:i\.?\s?e\.?|that is|a|an)?,?\s*(?:a |an )?[^)]*\))?"

# (regex, relation, which group is a, which is b)
_CLAIM_TEMPLATES: list[tuple[str, Relation, str, str]] = [
    # Is-Parent(x, y): x → y
    (rf"^{_X} directly {_CAUSE_VERB} {_Y}", Relation.PARENT, "x", "y"),
    (rf"^{_X} {_CAUSE_VERB} {_Y} directly", Relation.PARENT, "x", "y"),
    (
        rf"^{_X} is (?:a|the|one of the) direct (?:causes?|parents?|influences?) "
        rf"(?:of|for|on) {_Y}",
        Relation.PARENT,
        "x",
        "y",
    ),
    (rf"^{_X} is (?:a|the) (?:causal )?parent of {_Y}", Relation.PARENT, "x", "y"),
    (
        rf"^{_X} has (?:a )?direct (?:causal )?(?:effects?|influence|impact) on {_Y}",
        Relation.PARENT,
        "x",
        "y",
    ),
    (
        rf"^there (?:is|exists) (?:a |an )?(?:direct )?(?:edge|arrow|arc|link) from {_X} "
        rf"(?:to|into) {_Y}",
        Relation.PARENT,
        "x",
        "y",
    ),
    (rf"^{_X}\s*(?:->|→|⟶)\s*{_Y}", Relation.PARENT, "x", "y"),
    # Is-Child(x, y): y → x
    (
        rf"^{_X} is (?:directly (?:caused|affected|influenced)|(?:caused|affected|influenced) "
        rf"directly) by {_Y}",
        Relation.CHILD,
        "x",
        "y",
    ),
    (
        rf"^{_X} is (?:a|the) (?:child|direct effect|direct consequence|direct result) of {_Y}",
        Relation.CHILD,
        "x",
        "y",
    ),
    (rf"^{_X}\s*(?:<-|←|⟵)\s*{_Y}", Relation.CHILD, "x", "y"),
    # Is-Ancestor(x, y): x → … → y, no edge x → y
    (
        rf"^{_X} {_CAUSE_VERB} (?:something else|some other variable|another variable|a third "
        rf"variable),? (?:which|that) (?:in turn )?{_CAUSE_VERB} {_Y}",
        Relation.ANCESTOR,
        "x",
        "y",
    ),
    (rf"^{_X} {_CAUSE_VERB} {_Y},? (?:but )?(?:only )?indirectly", Relation.ANCESTOR, "x", "y"),
    (rf"^{_X} (?:only )?indirectly {_CAUSE_VERB} {_Y}", Relation.ANCESTOR, "x", "y"),
    (rf"^{_X} is an indirect (?:cause|influence) (?:of|on|for) {_Y}", Relation.ANCESTOR, "x", "y"),
    (rf"^{_X} is an? (?:causal )?ancestor of {_Y}", Relation.ANCESTOR, "x", "y"),
    (rf"^{_X} {_CAUSE_VERB} {_Y},? (?:{_MEDIATED})", Relation.ANCESTOR, "x", "y"),
    # Is-Descendant(x, y): y → … → x, no edge y → x
    (
        rf"^{_Y} is a cause (?:for|of) {_X},? but not a direct one",
        Relation.DESCENDANT,
        "x",
        "y",
    ),
    (
        rf"^{_X} is an indirect (?:effect|consequence|result) of {_Y}",
        Relation.DESCENDANT,
        "x",
        "y",
    ),
    (
        rf"^{_X} is (?:only )?indirectly (?:caused|affected|influenced) by {_Y}",
        Relation.DESCENDANT,
        "x",
        "y",
    ),
    (
        rf"^{_X} is (?:caused|affected|influenced) by {_Y},? (?:but )?(?:only )?indirectly",
        Relation.DESCENDANT,
        "x",
        "y",
    ),
    (
        rf"^{_X} is (?:caused|affected|influenced) by {_Y},? (?:{_MEDIATED})",
        Relation.DESCENDANT,
        "x",
        "y",
    ),
    (rf"^{_X} is an? (?:causal )?descendant of {_Y}", Relation.DESCENDANT, "x", "y"),
    (
        rf"^{_X} is (?:caused|affected|influenced) by something(?: else)?,? (?:which|that) is "
        rf"(?:in turn )?(?:caused|affected|influenced) by {_Y}",
        Relation.DESCENDANT,
        "x",
        "y",
    ),
    # Has-Collider(a, b)
    (
        rf"^there (?:exists?|is|are) {_SOME}? ?{_COLLIDER_NOUN}{_IE} (?:of|between|for|shared by) "
        rf"{_PAIR}",
        Relation.COLLIDER,
        "pair",
        "pair",
    ),
    (
        rf"^{_PAIR} (?:have|has|share) {_SOME}? ?(?:other |third )?{_COLLIDER_NOUN}{_IE}"
        r"(?: in common)?",
        Relation.COLLIDER,
        "pair",
        "pair",
    ),
    (
        rf"^{_PAIR} (?:both )?(?:cause|affect|influence) {_SOME} (?:common |same |shared )?"
        rf"(?:other |third )?(?:variable|node)(?: in common)?",
        Relation.COLLIDER,
        "pair",
        "pair",
    ),
    (
        rf"^{_SOME} (?:other |third )?(?:variable|node) is (?:caused|affected|influenced) by "
        rf"both {_PAIR}",
        Relation.COLLIDER,
        "pair",
        "pair",
    ),
    (
        rf"^there (?:is|exists) (?:a|some|at least one) (?:other |third )?(?:variable|node) "
        rf"(?:that|which) is (?:a )?{_COLLIDER_NOUN} of {_PAIR}",
        Relation.COLLIDER,
        "pair",
        "pair",
    ),
    (
        rf"^{_PAIR} are both (?:direct )?causes of (?:some|a|another|at least one) "
        rf"(?:common |same )?(?:other |third )?(?:variable|node)",
        Relation.COLLIDER,
        "pair",
        "pair",
    ),
    # Has-Confounder(a, b)
    (
        rf"^there (?:exists?|is|are) {_SOME}? ?{_CONFOUNDER_NOUN}{_IE} "
        r"(?:of|between|for|shared by) "
        rf"{_PAIR}",
        Relation.CONFOUNDER,
        "pair",
        "pair",
    ),
    (
        rf"^{_PAIR} (?:have|has|share) {_SOME}? ?(?:other |third )?{_CONFOUNDER_NOUN}{_IE}"
        r"(?: in common)?",
        Relation.CONFOUNDER,
        "pair",
        "pair",
    ),
    (rf"^{_PAIR} are confounded", Relation.CONFOUNDER, "pair", "pair"),
    (
        rf"^there (?:is|exists) (?:a|some|at least one) (?:other |third )?(?:variable|node) "
        rf"(?:that|which) is (?:a )?{_CONFOUNDER_NOUN} of {_PAIR}",
        Relation.CONFOUNDER,
        "pair",
        "pair",
    ),
    (
        rf"^{_SOME} (?:other |third )?(?:variable|node) (?:causes|affects|influences) both {_PAIR}",
        Relation.CONFOUNDER,
        "pair",
        "pair",
    ),
    (
        rf"^{_PAIR} are (?:both )?(?:caused|affected|influenced) by {_SOME} "
        r"(?:common |same |shared )?"
        rf"(?:other |third )?(?:variable|node)",
        Relation.CONFOUNDER,
        "pair",
        "pair",
    ),
    # Is-Cause(x, y): a directed path of any length (the plain "x causes y")
    (rf"^{_X} {_CAUSE_VERB} {_Y}", Relation.CAUSE, "x", "y"),
    (
        rf"^{_X} is (?:a|the|one of the) (?:causes?|causal factors?) (?:of|for) {_Y}",
        Relation.CAUSE,
        "x",
        "y",
    ),
    (
        rf"^{_X} has (?:a|an) (?:causal )?(?:effect|influence|impact) on {_Y}",
        Relation.CAUSE,
        "x",
        "y",
    ),
    (rf"^{_X} is (?:caused|affected|influenced) by {_Y}", Relation.CAUSE, "y", "x"),
    (rf"^{_X} is (?:an|the|a) (?:effect|consequence|result) of {_Y}", Relation.CAUSE, "y", "x"),
]
_CLAIM_PATTERNS = [
    (re.compile(p + _END, re.IGNORECASE), rel, a, b) for p, rel, a, b in _CLAIM_TEMPLATES
]

# Questions turned into claims, applied in order.
_QUESTION_REWRITES: list[tuple[str, str]] = [
    (r"^(?:hypothesis|claim|question|statement)\s*:\s*", ""),
    (
        r"^(?:is it (?:true|the case|correct|valid) that|does it follow that|it follows that|"
        r"can (?:we|one) (?:conclude|infer|deduce) that|(?:does|do) (?:the premise|the data|this|"
        r"it|these statements) (?:imply|entail|show|mean) that|true or false\s*:?|"
        r"is the following (?:claim|statement|hypothesis) (?:true|valid|correct)\s*:?|"
        r"(?:decide|check|tell me) whether|whether)\s+",
        "",
    ),
    (r"^(?:does|do) there exist\b", "there exists"),
    (r"^is there\b", "there is"),
    (r"^are there\b", "there are"),
    (
        r"^does (.+?) ((?:directly |indirectly |only indirectly )?)(cause|affect|influence)\b",
        r"\1 \2\3s",
    ),
    (r"^does (.+?) have\b", r"\1 has"),
    (r"^do (.+?) (have|share|both cause|both affect|cause|affect)\b", r"\1 \2"),
    (
        r"^is (.+?) (a|an|the|one of|directly|indirectly|caused|affected|influenced|only)\b",
        r"\1 is \2",
    ),
    (r"^are (.+?) (confounded|both caused|caused|affected)\b", r"\1 are \2"),
]
_NEGATIONS: list[tuple[str, str]] = [
    (
        r"\b(?:does not|doesn't|do not|don't) ((?:directly |indirectly |only indirectly )?)"
        r"(cause|affect|influence)\b",
        r"\1\2s",
    ),
    (r"\b(?:does not|doesn't) have\b", "has"),
    (r"\b(?:do not|don't) (have|share|both cause|both affect)\b", r"\1"),
    (r"\b(?:is not|isn't)\b", "is"),
    (r"\b(?:are not|aren't)\b", "are"),
    (r"\bthere (?:is|exists|are) no\b", "there is a"),
    (r"\bthere (?:does not|doesn't) exist (?:any|a|an)\b", "there exists a"),
    (r"\bthere (?:is not|isn't) any\b", "there is a"),
    (r"\b(have|has) no\b", r"\1 a"),
    (r"\bno (other |third )?(variable|node)\b", r"some \1\2"),
]


def read_claim(text: str, variables: tuple[str, ...] | list[str]) -> Claim:
    """The relation a claim (or a yes/no question) asserts between two of `variables`.

    Raises `StoryError` when the claim cannot be read, names a variable the premise does
    not have, or reads two ways.

    >>> read_claim("B is directly caused by A.", ["A", "B", "C"]).describe()
    'Is-Child(B, A)'
    """
    original = _clean(text)
    claim = _clean(original).rstrip(" .?!")
    for pattern, replacement in _QUESTION_REWRITES:
        claim = re.sub(pattern, replacement, claim, count=1, flags=re.IGNORECASE).strip()
    claim = claim.rstrip(" .?!")
    negations = 0
    for pattern, replacement in _NEGATIONS:
        claim, count = re.subn(pattern, replacement, claim, flags=re.IGNORECASE)
        negations += count
    if not original:
        raise StoryError("the claim is empty")
    if negations > 1:
        raise StoryError(f"cannot read the claim {original!r}: more than one negation")
    names = _Names(list(variables))
    readings: dict[tuple, Claim] = {}
    unknown: list[str] = []
    for pattern, relation, a_group, b_group in _CLAIM_PATTERNS:
        match = pattern.match(claim)
        if match is None:
            continue
        if a_group == "pair":
            pair = names.many(match.group("pair"))
            if pair is None or len(pair) != 2:
                pieces = _split_list(match.group("pair"))
                unknown.extend(p for p in pieces if names.one(p) is None)
                continue
            a, b = pair
        else:
            a, b = names.one(match.group(a_group)), names.one(match.group(b_group))
            if a is None or b is None:
                unknown.extend(match.group(g) for g, v in ((a_group, a), (b_group, b)) if v is None)
                continue
        if a == b:
            raise StoryError(f"the claim {original!r} relates {a} to itself")
        parsed = Claim(relation, a, b, negations == 1, original)
        readings.setdefault((relation, a, b), parsed)
    if len(readings) > 1:
        # "A causes B" also fits the generic Is-Cause template when a specific one applies.
        specific = {k: v for k, v in readings.items() if k[0] is not Relation.CAUSE}
        if len(specific) == 1:
            readings = specific
    if len(readings) == 1:
        return next(iter(readings.values()))
    if len(readings) > 1:
        raise StoryError(
            f"the claim {original!r} can be read in more than one way: "
            + ", ".join(c.describe() for c in readings.values())
        )
    short = [u for u in unknown if len(u.split()) <= 4]
    if short:
        raise StoryError(
            f"the claim {original!r} names {short[0]!r}, which is not one of the premise's "
            f"variables ({', '.join(variables)})"
        )
    raise StoryError(
        f"cannot read the claim {original!r} as a causal relation between two variables",
        hint="e.g. 'A directly causes B.', 'A causes something else which causes B.', "
        "'There exists at least one confounder (i.e., common cause) of A and B.'",
    )
