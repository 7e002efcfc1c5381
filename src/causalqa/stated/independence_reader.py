"""Reading stated (in)dependences and causal claims: text → typed `Premise` and `Claim`.

A premise names a closed system of variables and lists which pairs correlate and which
are independent, marginally or given sets of other variables (the Corr2Cause form,
Jin et al., ICLR 2024):

    Suppose there is a closed system of 3 variables, A, B and C. All the statistical
    relations among these 3 variables are as follows: A correlates with B. B correlates
    with C. However, A is independent of C given B.

The reader does not match whole sentences. It

1. finds the variable list: after "N variables" / "the variables" in the header, cut
   where the list turns into a clause ("…, and D, with no other variables involved");
   failing that, the names the statements use;
2. reads each sentence by its tokens (`independence_lexicon`): the mentions of the
   variables, one relation word (dependence: correlates / associated / dependent /
   related …; independence: independent / uncorrelated / unrelated / ⫫ …; each negation
   flips it), and a conditioning marker ("given", "conditional on", "conditioning on …
   makes", "controlling for", "once … is known", "when … are held fixed", "holding …
   fixed", "|") whose list of names is the conditioning set; the other two names are the
   pair, in whatever order the parts come;
3. skips sentences that name no variable and state no relation (prose, or the
   statement that the system is closed — both are noted), and reads a name-less sentence
   that does state one only if it says the unlisted pairs are dependent ("No other
   independences hold."). A sentence that names variables but has a word outside the
   lexicon, or cannot be put together, is refused, naming it: never dropped, never
   guessed.

A claim is read the same way: its two variables, and the relation from a lexicon of
cues — common effect / collider, common cause / confounder, direct (directly, parent,
edge, child) or indirect (indirectly, through something else, ancestor, descendant, "but
not a direct one"), the voice (active "causes", "is a cause of", "has an effect on" vs
reverse "is caused by", "is an effect of", "is a descendant of") and, for "A causes
something which causes B" chains, the two verbs around the third variable — possibly
negated ("A does not directly cause B") or asked ("Is A a direct cause of B?").
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from causalqa.errors import StoryError
from causalqa.stated.independence_graph import Relation
from causalqa.stated.independence_lexicon import (
    CLAIM,
    PREMISE,
    Token,
    tokenize,
    unknown_words,
)

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
    name); `notes` says which sentences were skipped and why."""

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
            "skipped": list(self.notes),
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


@dataclass(frozen=True)
class _Clause:
    """What one clause said, and its subjects (the names before the relation word), which
    a next clause without one shares: "A and B are correlated and independent of C"."""

    statements: list[Statement]
    subjects: tuple[str, ...]


class _Unreadable(Exception):
    """One clause cannot be put together; the reason says why (caught to try another
    split of the sentence, or turned into a `StoryError` naming the sentence)."""


# -- text helpers ----------------------------------------------------------------------------
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "\u00a0": " "})


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text.translate(_QUOTES)).strip()


def _key(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip().casefold()


# -- the header: which variables ---------------------------------------------------------------
_COUNT = r"(?P<n>\d+|" + "|".join(NUMBER_WORDS) + r")"
_HEADER_CUE = re.compile(
    rf"\b{_COUNT}\s+(?:(?:random|observed|measured|binary|named|distinct|different|causal)\s+)?"
    r"variables?\b|\bvariables?\b",
    re.IGNORECASE,
)
_LIST_INTRO = re.compile(
    r"(?:\s+(?:in|forming|that form|which form|making up|that make up|within|of)\s+"
    r"(?:a|the|one|this|our)\s+closed system)?"
    r"(?:\s+(?:in total|in all|overall|altogether))?"
    r"\s*(?:[:,(—–-]\s*)?"
    r"(?:(?:namely|called|named|labell?ed|i\.e\.,?|that is,?|which are|they are|these are|"
    r"are|were)\s*:?\s*)?",
    re.IGNORECASE,
)
_LIST_END = re.compile(r"\.(?=\s|$)|[;:)\n—–]|\s-\s|$")
# Where a list item turns into a clause ("D, with no other variables involved", "C, which
# form a closed system"): the item ends before the first of these words.
_ITEM_STOP = re.compile(
    r"\b(?:with|without|that|which|who|where|whose|forming|form|forms|making|are|is|were|was|"
    r"be|being|but|so|as|only|all|none|no|not|other|others|variables?|involved|closed|system|"
    r"among|there|we|these|those|this|they|them|each|every|any|here|total|nothing|else|"
    r"follows?|following|in a|in the|in our|make|makes|made|constitutes?|comprises?|belongs?|"
    r"composes?|together|altogether)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Header:
    names: list[str] | None  # None: the text lists none
    count: int | None
    count_text: str | None
    body: str  # the text without the declaration


def _read_header(text: str) -> _Header:
    """The declared variables, the stated count, and the text without the declaration."""
    count: int | None = None
    count_text: str | None = None
    for cue in _HEADER_CUE.finditer(text):
        stated = cue.group("n")
        if stated is not None and count is None:
            # Kept even when no list follows ("There are 3 variables."): the names the
            # statements use must then number as many.
            count_text, count = stated, _number(stated)
        intro = _LIST_INTRO.match(text, cue.end())
        start = intro.end()  # type: ignore[union-attr]
        end = _LIST_END.search(text, start).start()  # type: ignore[union-attr]
        names, list_end = _list_items(text, start, end)
        if len(names) < 2:
            continue
        if stated is not None:
            count_text, count = stated, _number(stated)
            if len(names) != count:
                raise StoryError(
                    f"the premise says {count_text} variables but lists {len(names)} "
                    f"({', '.join(names)}) in {text[cue.start() : end].strip()!r}"
                )
        if len({_key(n) for n in names}) != len(names):
            raise StoryError(f"a variable is listed twice in {text[cue.start() : end].strip()!r}")
        # The declaration's sentence goes up to the end of the list; what follows it in the
        # same sentence ("…, with no other variables involved.") is read like any sentence.
        sentence_start = max(text.rfind(".", 0, cue.start()), text.rfind(":", 0, cue.start()))
        body = text[: sentence_start + 1] + " " + text[list_end:]
        return _Header(names, count, count_text, body)
    return _Header(None, count, count_text, text)


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBER_WORDS[word.lower()]


def _list_items(text: str, start: int, end: int) -> tuple[list[str], int]:
    """The names of a list ("A, B, and C", "{A, B, C}", "rainfall, soil moisture and crop
    yield") between `start` and `end`, up to the first item that is a clause ("…, with no
    other variables involved", "… make up a closed system"); and where the list ends."""
    names: list[str] = []
    list_end = start
    cursor = start
    separators = [*re.finditer(r"\s*(?:[,;&]|\band\b)\s*", text[start:end], re.I)]
    bounds = []
    for m in separators:
        bounds.append((cursor, start + m.start()))
        cursor = start + m.end()
    bounds.append((cursor, end))
    for left, right in bounds:
        raw = text[left:right]
        if not raw.strip():
            continue
        stop = _ITEM_STOP.search(raw)
        name = (raw[: stop.start()] if stop else raw).strip(" {}[]()\"'`*")
        name = re.sub(r"^(?:the|variable|node)\s+", "", name, flags=re.IGNORECASE)
        if not name or not re.fullmatch(r"[\w'’-]+(?: [\w'’-]+){0,5}", name) or name.isdigit():
            break
        names.append(name)
        list_end = left + raw.find(name) + len(name)
        if stop:
            # The rest of the sentence after this name is a clause.
            break
    return names, list_end


# -- sentences ------------------------------------------------------------------------------
def _sentences(body: str) -> list[str]:
    parts = re.split(r"(?<=[.;!?])\s+|\n+|(?<=\.)(?=[A-Z][a-z])|(?<=:)\s+", body)
    out = []
    for part in parts:
        part = part.strip()
        if part and re.search(r"\w|⫫|⊥", part):
            out.append(part)
    return out


def _join_colons(parts: list[str], names: tuple[str, ...]) -> list[str]:
    """Rejoin a colon's two sides unless the first only introduces what follows
    ("These are all their relations: …"): "Independent: A and C, given B." is one."""
    out: list[str] = []
    for part in parts:
        if out and out[-1].endswith(":"):
            lead = {t.kind for t in tokenize(out[-1], names, PREMISE)}
            rest = {t.kind for t in tokenize(part, names, PREMISE)}
            if "name" in lead or (lead & {"dep", "indep"} and not rest & {"dep", "indep"}):
                out[-1] = f"{out[-1]} {part}"
                continue
        out.append(part)
    return out


def _sentence_text(part: str) -> str:
    return part.strip().rstrip(".;!?:").strip().lstrip(",;:)] ").strip()


_NOT_CLOSED = re.compile(r"\b(?:not a closed system|open system)\b", re.IGNORECASE)
_HIDDEN = re.compile(
    r"\b(?:unobserved|hidden|latent|unmeasured|unobservable|unknown confounders?)\b", re.I
)
_DENIED = re.compile(r"\b(?:no|not|without|none|never|nothing)\b", re.IGNORECASE)


def _check_closed(sentences: list[str]) -> None:
    """Refuse a premise that allows variables outside the list ("there may be hidden
    common causes"); one that denies them ("no unobserved variables") is a closed one."""
    for sentence in sentences:
        hidden = _HIDDEN.search(sentence)
        if _NOT_CLOSED.search(sentence) or (
            hidden and not _DENIED.search(sentence, 0, hidden.start())
        ):
            raise StoryError(
                "the premise allows unobserved variables; only closed systems (every common "
                f"cause among the named variables) are answered here: {_sentence_text(sentence)!r}"
            )


# -- sentences that name no variable -------------------------------------------------------------
_CLOSED_PROSE = re.compile(
    r"closed system|no other variables?|nothing else|every (?:statistical )?relation|"
    r"all (?:the |of (?:the |their )?|their )?(?:statistical )?relations|complete|exhaustive|"
    r"as follows|the following|no other|only variables",
    re.IGNORECASE,
)
# "other", "not listed", "otherwise": about the pairs and sets the list leaves out.
_ABOUT_THE_REST = re.compile(
    r"\b(?:apart from|aside from|except for|beyond|besides) (?:these|this|those|them|the above)\b|"
    r"\b(?:other|others|otherwise|remaining|rest|further|additional|else|unstated|unlisted|"
    r"unmentioned|not (?:explicitly )?(?:said|stated|listed|mentioned|given|shown|declared|"
    r"claimed|reported|named))\b",
    re.IGNORECASE,
)
_NOT_LISTED_AS = re.compile(
    r"\b(?:not|never) (?:explicitly )?(?:said|stated|listed|mentioned|given|shown|declared|"
    r"claimed|reported|named)(?: (?:here|above|below|so far|in the list))?(?: (?:to be|as))?"
    r"(?: \w+ly)? (?:\w+ )?(?:independent|dependent|correlated|uncorrelated|associated|related)",
    re.IGNORECASE,
)


def _read_nameless(sentence: str, tokens: list[Token], notes: list[str]) -> None:
    """A sentence naming no variable: prose is skipped (and noted); one saying the pairs
    not listed are dependent states the closed-world reading and is noted; one saying
    anything else about relations is refused."""
    text = _sentence_text(sentence)
    if sentence.rstrip().endswith(":") or not any(t.kind in ("dep", "indep") for t in tokens):
        # A heading ("The independences:") introduces statements, it makes none.
        kind = "closed-system statement" if _CLOSED_PROSE.search(text) else "prose"
        notes.append(f"skipped ({kind}, no variable named): {text!r}")
        return
    if not _ABOUT_THE_REST.search(text):
        raise StoryError(
            f"the sentence {text!r} states a relation but names none of the variables",
            hint="name the two variables, e.g. 'A correlates with B.'",
        )
    core = _NOT_LISTED_AS.sub(" ", re.sub(r"\([^)]*\)", " ", text))
    core_tokens = tokenize(core, (), PREMISE)
    cues = [t for t in core_tokens if t.kind in ("dep", "indep")]
    negations = sum(t.kind == "neg" for t in core_tokens)
    if len(cues) == 1:
        independent = (cues[0].kind == "indep") != (negations % 2 == 1)
        if not independent:
            notes.append(
                f"closed-world statement (the pairs and sets not listed are dependent, as "
                f"assumed): {text!r}"
            )
            return
        raise StoryError(
            f"the sentence {text!r} says the pairs not listed are independent; only the "
            f"closed-world reading is answered (a pair and set not stated independent is "
            f"dependent): list the independences instead"
        )
    raise StoryError(f"cannot read the sentence {text!r} about the pairs not listed")


# -- sentences that name variables -----------------------------------------------------------------
_CUES = ("dep", "indep")
_PRE = ("given",)
_POST = ("known", "fixed")
_TERMINATORS = ("fixed", "makes", "known")


def _read_sentence(
    sentence: str,
    names: tuple[str, ...],
    order: dict[str, int],
    previous: _Clause | None,
    notes: list[str],
) -> list[_Clause]:
    text = _sentence_text(sentence)
    tokens = tokenize(text, names, PREMISE, article_before_unknown=True)
    if not any(t.kind in ("name", "pronoun") for t in tokens):
        _read_nameless(sentence, tokens, notes)
        return []
    unknown = unknown_words(tokens)
    if unknown:
        raise _refusal(
            text, names, f"{unknown[0]!r} is neither one of the variables nor a relation word"
        )
    if not any(t.kind in _CUES for t in tokens):
        raise _refusal(text, names, "it has no word for correlation or independence")
    for a, b in itertools.pairwise([i for i, t in enumerate(tokens) if t.kind == "name"]):
        if all(t.kind == "filler" for t in tokens[a + 1 : b]):
            raise _refusal(
                text, names, f"{tokens[a].text!r} and {tokens[b].text!r} are not separated"
            )
    try:
        readings = _read_clauses(tokens, text, order, previous)
    except _Unreadable as error:
        raise _refusal(text, names, str(error)) from None
    distinct = {
        tuple(sorted((s.x, s.y, s.given, s.independent) for c in r for s in c.statements)): r
        for r in readings
    }
    if len(distinct) > 1:
        raise StoryError(
            f"the sentence {text!r} can be read in more than one way: "
            + "; ".join(
                ", ".join(s.describe() for c in r for s in c.statements) for r in distinct.values()
            )
        )
    return next(iter(distinct.values()))


def _refusal(text: str, names: tuple[str, ...], why: str) -> StoryError:
    return StoryError(
        f"cannot read the sentence {text!r} as a correlation or independence between named "
        f"variables: {why}" + (f" (the variables are {', '.join(names)})" if names else ""),
        hint="write e.g. 'A correlates with B.', 'A is independent of C given B.'",
    )


def _read_clauses(
    tokens: list[Token], text: str, order: dict[str, int], previous: _Clause | None
) -> list[list[_Clause]]:
    """Every reading of `tokens` as clauses with one relation word each. With several
    relation words the sentence is split between each two, at the strongest connective
    (", and" / ", but" / ";" before "but" before "," before "and"); a split is kept only
    if both sides read."""
    cues = [i for i, t in enumerate(tokens) if t.kind in _CUES]
    if len(cues) <= 1:
        return [[_read_clause(tokens, text, order, previous)]]
    gap = range(cues[0] + 1, cues[1])
    ranked: dict[int, list[tuple[int, int]]] = {}
    for i in gap:
        t, after = tokens[i], tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            t.text == ","
            and after is not None
            and (after.kind == "conj" or after.text.lower() == "and")
        ):
            ranked.setdefault(0, []).append((i, i + 2))
        elif t.kind == "conj" and tokens[i - 1].text != ",":
            ranked.setdefault(1, []).append((i, i + 1))
        elif t.text == "," and (
            after is None or after.kind != "conj" and after.text.lower() != "and"
        ):
            ranked.setdefault(2, []).append((i, i + 1))
        elif t.kind == "sep" and t.text.lower() == "and" and tokens[i - 1].text != ",":
            ranked.setdefault(3, []).append((i, i + 1))
    last_error: _Unreadable | None = None
    for rank in sorted(ranked):
        readings: list[list[_Clause]] = []
        for cut, resume in ranked[rank]:
            try:
                left = _read_clause(tokens[:cut], text, order, previous)
                rights = _read_clauses(tokens[resume:], text, order, left)
            except _Unreadable as error:
                last_error = error
                continue
            readings.extend([left, *right] for right in rights)
        if readings:
            return readings
    raise last_error or _Unreadable("cannot tell where one statement ends and the next begins")


def _read_clause(
    tokens: list[Token], text: str, order: dict[str, int], previous: _Clause | None
) -> _Clause:
    """The statements of one clause: one relation word, the pair (or a subject and a list
    of objects), at most one conditioning set."""
    toks: list[Token] = []
    for t in tokens:
        if t.kind == "filler" or (t.kind == "conj" and not toks):
            continue
        if t.kind == "conj":
            raise _Unreadable(f"{t.text!r} inside one statement")
        if t.kind == "pronoun":
            if not previous:
                raise _Unreadable(f"{t.text!r} refers to no pair named before")
            x, y = previous.statements[-1].x, previous.statements[-1].y
            toks += [Token("name", x, t.start, t.end, x), Token("sep", "and", t.start, t.end)]
            toks.append(Token("name", y, t.start, t.end, y))
            continue
        toks.append(t)
    used: set[int] = set()
    given: list[str] = []
    empty_set = False
    markers = 0
    for i, t in enumerate(toks):
        if t.kind not in _PRE:
            continue
        markers += 1
        j, listed, commas = i + 1, [], []
        while j < len(toks):
            kind = toks[j].kind
            if kind == "name":
                listed.append(j)
            elif kind == "sep":
                if toks[j].text == ",":
                    commas.append(j)
            elif kind == "empty" and not listed:
                empty_set = True
                j += 1
                break
            else:
                break
            j += 1
        stop = j
        # "Conditioning on B does not make …": the negation stays with the relation.
        after = next((k for k in range(stop, len(toks)) if toks[k].kind != "neg"), len(toks))
        terminated = after < len(toks) and toks[after].kind in _TERMINATORS
        if not empty_set and not terminated and not any(toks[k].kind == "name" for k in range(i)):
            # "Given B, C and D, A and E are independent": a leading set ends at its last
            # comma; what follows is the pair.
            if not commas:
                raise _Unreadable(f"cannot tell where the set after {t.text!r} ends")
            listed = [k for k in listed if k < commas[-1]]
            stop = commas[-1] + 1
        if not listed and not empty_set:
            raise _Unreadable(f"{t.text!r} is followed by no variable")
        used.update(range(i, stop))
        if terminated:
            used.add(after)
        given.extend(toks[k].name for k in listed)  # type: ignore[misc]
    for i, t in enumerate(toks):
        if t.kind not in _POST or i in used:
            continue
        markers += 1
        j, listed = i - 1, []
        while j >= 0 and j not in used and toks[j].kind in ("name", "sep"):
            if toks[j].kind == "name":
                listed.append(j)
            j -= 1
        if not listed:
            raise _Unreadable(f"{t.text!r} follows no variable")
        used.update(range(min(listed), i + 1))
        given.extend(toks[k].name for k in sorted(listed))  # type: ignore[misc]
    if markers > 1:
        raise _Unreadable("more than one conditioning set")
    rest = [(i, t) for i, t in enumerate(toks) if i not in used]
    cues = [(i, t) for i, t in rest if t.kind in _CUES]
    if len(cues) != 1:
        raise _Unreadable("no word for correlation or independence")
    cue_at, cue = cues[0]
    stray = [t.text for _, t in rest if t.kind in ("makes", "known", "fixed", "empty", "given")]
    if stray:
        raise _Unreadable(f"{stray[0]!r} does not fit")
    negations = [i for i, t in rest if t.kind == "neg"]
    if any(i > cue_at for i in negations):
        raise _Unreadable("a negation after the relation word")
    independent = (cue.kind == "indep") != (len(negations) % 2 == 1)
    mentions = [(i, t.name) for i, t in rest if t.kind == "name"]
    pairs: list[tuple[str, str]]
    if len(mentions) == 2:
        pairs = [(mentions[0][1], mentions[1][1])]  # type: ignore[list-item]
    elif len(mentions) == 1 and previous and previous.subjects and mentions[0][0] > cue_at:
        # "A is correlated with B and independent of C": the subject is the one before.
        pairs = [(x, mentions[0][1]) for x in previous.subjects]  # type: ignore[misc]
    elif len(mentions) > 2:
        before = [n for i, n in mentions if i < cue_at]
        after = [n for i, n in mentions if i > cue_at]
        kinds_present = {t.kind for _, t in rest}
        if before and after and (len(before) == 1 or len(after) == 1):
            pairs = [(x, y) for x in before for y in after]  # type: ignore[misc]
        elif (not before or not after) and "pairwise" in kinds_present:
            pairs = list(itertools.combinations([n for _, n in mentions], 2))  # type: ignore[arg-type]
        elif "mutual" in kinds_present:
            raise _Unreadable(
                "mutual independence of more than two variables is more than a list of pairs; "
                "state each independence"
            )
        else:
            raise _Unreadable("more than two variables and no way to pair them")
    else:
        raise _Unreadable("it names fewer than two variables")
    statements = []
    ranked_given = tuple(sorted(given, key=lambda n: (order.get(n, 0), n)))
    if len(set(given)) != len(given):
        raise _Unreadable("a variable is listed twice in the conditioning set")
    for x, y in pairs:
        if x == y or x in given or y in given:
            raise _Unreadable(f"{x if x in given or x == y else y} is both in the pair and given")
        statements.append(Statement(x, y, ranked_given, independent, text))
    subjects = tuple(dict.fromkeys(n for i, n in mentions if i < cue_at))  # type: ignore[misc]
    if len(mentions) == 1:
        subjects = previous.subjects  # type: ignore[union-attr]
    return _Clause(statements, subjects)


def _discover_names(sentences: list[str]) -> list[str]:
    """The variables of a premise that lists none: the runs of words its statements use
    outside the lexicon, in order of appearance."""
    found: dict[str, str] = {}
    for sentence in sentences:
        tokens = tokenize(_sentence_text(sentence), (), PREMISE, article_before_unknown=True)
        if not any(t.kind in _CUES for t in tokens):
            continue
        run: list[Token] = []
        for token in [*tokens, Token("end", "", 0, 0)]:
            if token.kind in ("word", "letter"):
                run.append(token)
                continue
            if run:
                name = " ".join(t.text for t in run)
                if len(run) <= 5 and not _DISCOVERY_STOP.search(name):
                    found.setdefault(_key(name), name)
                run = []
    return list(found.values())


_DISCOVERY_STOP = re.compile(
    r"\b(?:pairs?|variables?|others?|said|stated|listed|mentioned|sets?|under|any|every|all|"
    r"rest|remaining|relations?|statements?|list|system|closed|hidden|unobserved|apart|aside|"
    r"except|beyond|besides|these|those|them|their|above|below|here|otherwise|unless)\b",
    re.IGNORECASE,
)


def read_premise(text: str) -> Premise:
    """The variables and (in)dependence statements of a premise.

    Raises `StoryError` naming the sentence that cannot be read, a name that is not one
    of the declared variables, or the two sentences that contradict each other.

    >>> p = read_premise("We study 3 variables, A, B, and C, with no other variables "
    ...     "involved. A and B are correlated. B correlates with C. However, conditioning "
    ...     "on B makes A and C independent.")
    >>> p.variables, [s.describe() for s in p.statements][-1]
    (('A', 'B', 'C'), 'A and C are independent given B')
    """
    text = _clean(re.sub(r"^\s*premise\s*:\s*", "", text, flags=re.IGNORECASE))
    if not text:
        raise StoryError(
            "the premise is empty: list which variables correlate and which are independent"
        )
    _check_closed(_sentences(text))
    header = _read_header(text)
    sentences = _sentences(header.body)
    if header.names is not None:
        variables = header.names
    else:
        variables = _discover_names(_join_colons(sentences, ()))
        if header.count is not None and variables and len(variables) != header.count:
            raise StoryError(
                f"the premise says {header.count_text} variables but its statements name "
                f"{len(variables)} ({', '.join(variables)})"
            )
    names = tuple(variables)
    sentences = _join_colons(sentences, names)
    order = {name: i for i, name in enumerate(names)}
    statements: list[Statement] = []
    notes: list[str] = []
    previous: _Clause | None = None
    for sentence in sentences:
        clauses = _read_sentence(sentence, names, order, previous, notes)
        if clauses:
            statements.extend(s for c in clauses for s in c.statements)
            previous = clauses[-1]
    if not statements:
        raise StoryError("the premise states no correlation or independence between variables")
    if len(variables) < 2:
        raise StoryError("the premise names fewer than two variables")
    _check_contradictions(statements)
    mentioned = {n for s in statements for n in (s.x, s.y, *s.given)}
    for name in names:
        if name not in mentioned:
            notes.append(
                f"{name!r} is listed but no statement mentions it: in a closed system it is "
                f"then dependent on every other variable given every set"
            )
    return Premise(names, tuple(statements), header.names is not None, tuple(notes))


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
_VOICE = {
    "active": ("active", None),
    "passive": ("passive", None),
    "active_direct": ("active", "direct"),
    "passive_direct": ("passive", "direct"),
    "active_indirect": ("active", "indirect"),
    "passive_indirect": ("passive", "indirect"),
    # "B has A as a parent": a role named after both variables, read as if between them.
    "as_passive": ("passive", None),
    "as_passive_direct": ("passive", "direct"),
    "as_passive_indirect": ("passive", "indirect"),
    "as_active": ("active", None),
    "as_active_direct": ("active", "direct"),
    "as_active_indirect": ("active", "indirect"),
}


def read_claim(text: str, variables: tuple[str, ...] | list[str]) -> Claim:
    """The relation a claim (or a yes/no question) asserts between two of `variables`.

    Raises `StoryError` when the claim cannot be read, names a variable the premise does
    not have, or reads two ways.

    >>> read_claim("B is directly caused by A.", ["A", "B", "C"]).describe()
    'Is-Child(B, A)'
    >>> read_claim("Some other variable directly causes both A and C.", "ABC").describe()
    'Has-Confounder(A, C)'
    """
    original = _clean(text)
    if not original:
        raise StoryError("the claim is empty")
    names = tuple(variables)
    tokens = tokenize(original, names, CLAIM)
    mentioned = [t.name for t in tokens if t.kind == "name"]
    distinct = list(dict.fromkeys(mentioned))
    unknown = unknown_words(tokens)
    if len(distinct) < 2:
        if len(mentioned) >= 2:
            raise StoryError(f"the claim {original!r} relates {distinct[0]} to itself")
        short = [u for u in unknown if len(u.split()) <= 4]
        if short:
            raise StoryError(
                f"the claim {original!r} names {short[0]!r}, which is not one of the premise's "
                f"variables ({', '.join(names)})"
            )
        raise _claim_refusal(original, "it names fewer than two of the premise's variables")
    if len(distinct) > 2:
        raise _claim_refusal(
            original, f"it names {len(distinct)} variables; a claim relates two of them"
        )
    if unknown:
        raise _claim_refusal(original, f"{unknown[0]!r} is not a word of a causal relation")
    if sum(t.kind == "neg" for t in tokens) > 1:
        raise StoryError(f"cannot read the claim {original!r}: more than one negation")
    relation, a, b = _claim_relation(tokens, original)
    if a == b:
        raise StoryError(f"the claim {original!r} relates {a} to itself")
    negated = any(t.kind == "neg" for t in tokens)
    return Claim(relation, a, b, negated, original)


def _claim_refusal(original: str, why: str) -> StoryError:
    return StoryError(
        f"cannot read the claim {original!r} as a causal relation between two variables: {why}",
        hint="e.g. 'A directly causes B.', 'A causes something else which causes B.', "
        "'There exists at least one confounder (i.e., common cause) of A and B.'",
    )


def _claim_relation(tokens: list[Token], original: str) -> tuple[Relation, str, str]:
    kinds = {t.kind for t in tokens}
    positions = [i for i, t in enumerate(tokens) if t.kind == "name"]
    first, last = positions[0], positions[-1]
    a = tokens[first].name
    b = next(t.name for t in tokens if t.kind == "name" and t.name != a)
    second = next(i for i in positions if tokens[i].name == b)
    if "collider" in kinds and "confounder" in kinds:
        raise _claim_refusal(original, "it speaks of a common effect and of a common cause")
    verbs = [(i, *_VOICE[t.kind]) for i, t in enumerate(tokens) if t.kind in _VOICE]
    if any(tokens[i].kind.startswith("as_") and i > second for i, _, _ in verbs):
        if len(verbs) != 1:
            raise _claim_refusal(original, "too many causal words")
        verbs = [(second - 0.5, verbs[0][1], verbs[0][2])]  # type: ignore[list-item]
    # "a link from A to B": "to" is the arrow.
    if any(t.kind == "from" for t in tokens[:first]):
        verbs += [(i, "active", None) for i in range(first, second) if tokens[i].kind == "to"]
    if "collider" in kinds or "confounder" in kinds:
        if any(first < i < second for i, _, _ in verbs):
            raise _claim_refusal(original, "a causal verb between the two variables")
        return (Relation.COLLIDER if "collider" in kinds else Relation.CONFOUNDER), a, b  # type: ignore[return-value]
    if not verbs:
        raise _claim_refusal(original, "no causal word")
    said_indirect = "indirect" in kinds or any(s == "indirect" for _, _, s in verbs)
    indirect = said_indirect or "inneg" in kinds
    direct = "direct" in kinds or any(s == "direct" for _, _, s in verbs)
    between = [(i, voice) for i, voice, _ in verbs if first < i < second]
    voices = {voice for _, voice, _ in verbs}
    if not between:
        # Both variables on one side of the verb, a third variable on the other: "Some
        # other variable causes both A and B", "A and B are both caused by some variable".
        if "third" not in kinds:
            raise _claim_refusal(original, "no relation between the two variables")
        if indirect or len(voices) != 1:
            raise _claim_refusal(original, "the roles of the third variable are unclear")
        voice = voices.pop()
        if all(i < first for i, _, _ in verbs):
            relation = Relation.CONFOUNDER if voice == "active" else Relation.COLLIDER
        elif all(i > last for i, _, _ in verbs):
            relation = Relation.COLLIDER if voice == "active" else Relation.CONFOUNDER
        else:
            raise _claim_refusal(original, "the roles of the third variable are unclear")
        return relation, a, b  # type: ignore[return-value]
    if len(between) != len(verbs):
        raise _claim_refusal(original, "causal verbs on both sides of a variable")
    if len(between) == 2:
        # "A causes something else which causes B": a chain through a third variable.
        (i1, v1), (i2, v2) = between
        if not any(tokens[k].kind == "third" for k in range(i1 + 1, i2)):
            raise _claim_refusal(original, "two causal verbs and no third variable between them")
        chain = {
            ("active", "active"): Relation.ANCESTOR,
            ("passive", "passive"): Relation.DESCENDANT,
            ("passive", "active"): Relation.CONFOUNDER,
            ("active", "passive"): Relation.COLLIDER,
        }
        return chain[(v1, v2)], a, b  # type: ignore[return-value]
    if len(between) > 2:
        raise _claim_refusal(original, "too many causal verbs")
    voice = between[0][1]
    if indirect and direct:
        raise _claim_refusal(original, "it says both direct and indirect")
    if voice == "active":
        if indirect and not said_indirect:
            # The paper's Is-Descendant template: "B is a cause for A, but not a direct one."
            return Relation.DESCENDANT, b, a  # type: ignore[return-value]
        if indirect:
            return Relation.ANCESTOR, a, b  # type: ignore[return-value]
        return (Relation.PARENT if direct else Relation.CAUSE), a, b  # type: ignore[return-value]
    if indirect:
        return Relation.DESCENDANT, a, b  # type: ignore[return-value]
    if direct:
        return Relation.CHILD, a, b  # type: ignore[return-value]
    return Relation.CAUSE, b, a  # type: ignore[return-value]
