"""The words of a story: sentences, stated numbers, word stems, negation.

Everything here is general English, not the wording of one story: a reader that knows
the phrases of a benchmark's stories would not read a story told by another writer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# -- sentences -----------------------------------------------------------------------------

_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "etc.", "Dr.", "Mr.", "Mrs.", "Ms.")


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, each stripped, in order. A full stop inside a number
    ("0.26") or an abbreviation does not end a sentence; a line break does."""
    protected = text.replace("\r", "")
    for i, abbr in enumerate(_ABBREVIATIONS):
        protected = protected.replace(abbr, f"\x00{i}\x00")
    pieces: list[str] = []
    for line in protected.split("\n"):
        pieces.extend(re.split(r"(?<=[.!?;])\s+(?=\S)", line))
    out = []
    for piece in pieces:
        for i, abbr in enumerate(_ABBREVIATIONS):
            piece = piece.replace(f"\x00{i}\x00", abbr)
        piece = piece.strip()
        if piece and re.search(r"[A-Za-z0-9]", piece):
            out.append(piece)
    return out


# -- numbers -------------------------------------------------------------------------------

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "twenty": 20, "hundred": 100, "thousand": 1000,
}  # fmt: skip
_NUM = r"[-−–]?(?:\d+(?:\.\d+)?|\.\d+)"  # ".35" too
_WORDNUM = r"(?:" + "|".join(_NUMBER_WORDS) + r")"
NUMBER_RE = re.compile(
    rf"(?<![\w.])(?P<a>{_NUM}|{_WORDNUM})\s*(?:(?:in|out of)\s+(?:every\s+)?|of\s+every\s+|/\s*)"
    rf"(?P<b>{_NUM}|{_WORDNUM})\b"
    # "one summer day in four", "1 patient in 20": the counted thing between
    rf"|\b(?P<c>one|1)\s+(?:[a-z-]+\s+){{1,3}}(?:in|out\s+of)\s+(?:every\s+)?(?P<d>{_WORDNUM}|\d{{1,3}})\b(?!\s*%)"
    rf"|(?P<pct>{_NUM})\s*(?:%|\s*per\s*cent\b|\s*percent\b)"
    # "half of the seasons", "a third of them"; not "more than half" (a bound, not a number)
    r"|(?<!than\s)(?<!about\s)(?<!nearly\s)(?<!almost\s)(?<!under\s)(?<!over\s)"
    r"(?P<frac>\b(?:(?:a|one)\s+)?half\b|\b(?:a|one)\s+(?:third|quarter)\b|\btwo\s+thirds\b"
    r"|\bthree\s+quarters\b)(?![-\w])"
    rf"|(?P<plain>(?<![\w.]){_NUM}(?![\w%]))",
    re.IGNORECASE,
)
PLACEHOLDER = "⟨N⟩"
_FRACTIONS = {"half": 0.5, "third": 1 / 3, "thirds": 2 / 3, "quarter": 0.25, "quarters": 0.75}


@dataclass(frozen=True)
class StatedNumber:
    """A number as written in a sentence and the value it states (a probability as a
    fraction: "26%", "0.26" and "26 in 100" all state 0.26)."""

    text: str
    value: float
    percent: bool


def _to_float(token: str) -> float:
    token = token.replace("−", "-").replace("–", "-")
    if token.lower() in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[token.lower()])
    return float(token)


def find_numbers(sentence: str) -> list[tuple[int, int, StatedNumber]]:
    """Every stated number in the sentence with its span. Ratios ("26 in 100",
    "3 out of 4", "13/50") and percentages are one number each."""
    found = []
    for m in NUMBER_RE.finditer(sentence):
        if m.group("a") is not None or m.group("c") is not None:
            a = _to_float(m.group("a") or m.group("c"))
            b = _to_float(m.group("b") or m.group("d"))
            if b == 0:
                continue
            value, percent = a / b, False
        elif m.group("frac") is not None:
            value, percent = _FRACTIONS[m.group("frac").lower().split()[-1]], False
        elif m.group("pct") is not None:
            value, percent = _to_float(m.group("pct")) / 100.0, True
        else:
            value, percent = _to_float(m.group("plain")), False
        found.append((m.start(), m.end(), StatedNumber(m.group(0), value, percent)))
    return found


def with_placeholder(sentence: str) -> tuple[str, list[StatedNumber]]:
    """The sentence with each stated number replaced by ⟨N⟩, and the numbers in order."""
    numbers = find_numbers(sentence)
    out, last = [], 0
    for start, end, _ in numbers:
        out.append(sentence[last:start])
        out.append(PLACEHOLDER)
        last = end
    out.append(sentence[last:])
    return "".join(out), [n for _, _, n in numbers]


# -- words and stems -----------------------------------------------------------------------

# Irregular forms of common English words: a stemmer by suffixes cannot see that "wives"
# is "wife" or "lit" is "light".
_IRREGULAR = {
    "wives": "wife", "knives": "knife", "leaves": "leaf", "halves": "half",
    "loaves": "loaf", "wolves": "wolf", "shelves": "shelf", "calves": "calf",
    "thieves": "thief",
    "people": "person", "persons": "person", "children": "child", "men": "man",
    "women": "woman", "mice": "mouse", "teeth": "tooth", "feet": "foot", "geese": "goose",
    "lit": "light", "paid": "pay", "took": "take", "taken": "take", "went": "go",
    "gone": "go", "got": "get", "gotten": "get", "gave": "give", "given": "give",
    "made": "make", "ate": "eat", "eaten": "eat", "drank": "drink", "drunk": "drink",
    "ran": "run", "began": "begin", "begun": "begin", "chose": "choose", "chosen": "choose",
    "woke": "wake", "woken": "wake", "rose": "rise", "risen": "rise", "fell": "fall",
    "fallen": "fall", "held": "hold", "kept": "keep", "left": "leave", "lost": "lose",
    "met": "meet", "sold": "sell", "sent": "send", "spent": "spend", "stood": "stand",
    "taught": "teach", "thought": "think", "told": "tell", "won": "win", "wrote": "write",
    "written": "write", "bought": "buy", "brought": "bring", "caught": "catch",
    "did": "do", "done": "do", "does": "do", "has": "have", "had": "have", "having": "have",
    "goes": "go", "going": "go", "death": "die", "dead": "die",
    "alive": "live", "life": "live", "lives": "live",
    "born": "birth", "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be",  # noqa: E501
    "am": "be", "died": "die", "dies": "die", "dying": "die", "lying": "lie",
    "better": "good", "best": "good", "worse": "bad", "worst": "bad",
    "blew": "blow", "blown": "blow", "slept": "sleep", "smelt": "smell", "spoke": "speak",
    "spoken": "speak", "drove": "drive", "driven": "drive", "flew": "fly", "flown": "fly",
    "grew": "grow", "grown": "grow", "knew": "know", "known": "know", "saw": "see",
    "seen": "see", "shot": "shoot", "swam": "swim", "swum": "swim", "wore": "wear",
    "worn": "wear", "felt": "feel", "found": "find", "heard": "hear", "led": "lead",
    "read": "read", "said": "say", "sat": "sit", "set": "set", "hit": "hit", "put": "put",
    "drew": "draw", "drawn": "draw", "struck": "strike", "stricken": "strike", "rang": "ring",
    "rung": "ring", "bit": "bite", "bitten": "bite", "broke": "break", "broken": "break",
    "froze": "freeze", "frozen": "freeze", "hid": "hide", "hidden": "hide", "stuck": "stick",
    "threw": "throw", "thrown": "throw", "sang": "sing", "sung": "sing", "sank": "sink",
    "sunk": "sink", "shone": "shine", "stole": "steal", "stolen": "steal", "tore": "tear",
    "torn": "tear", "hung": "hang", "fed": "feed", "built": "build", "dug": "dig",
    "spun": "spin", "swung": "swing", "sprang": "spring", "sprung": "spring", "bound": "bind",
    "shown": "show", "proven": "prove", "sworn": "swear",
}  # fmt: skip

_DERIVATIONAL = (
    "ational", "ization", "fulness", "iveness", "ousness", "ement", "ment", "ness",
    "ance", "ence", "ation", "ition", "ity", "able", "ible", "ical", "ally", "ery",
    "ive", "ous", "ful", "al", "er", "ly",
)  # fmt: skip
# endings rewritten rather than cut: admission -> admit, contraction -> contract,
# deficiency -> deficient
_REWRITES = (
    ("ission", "it"),
    ("ision", "id"),
    ("ction", "ct"),
    ("ency", "ent"),
    ("ancy", "ant"),
)
_NEEDS_FOUR = ("al",)
_NEEDS_FIVE = ("ive",)


def _has_vowel(w: str) -> bool:
    return any(c in "aeiouy" for c in w)


@lru_cache(maxsize=50_000)
def stem(word: str) -> str:
    """A crude stem: lowercase, irregular forms mapped, a plural or verb ending and one
    derivational suffix removed, a final 'e' dropped and 'y' folded to 'i'. Words of
    four letters or less keep their letters, so made-up words ("kwox", "kwoz") never
    merge."""
    w = word.lower().strip("'’")
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    w = _IRREGULAR.get(w, w)
    if len(w) <= 4:
        return w[:-1] if len(w) == 4 and w.endswith("e") else w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ied", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and _has_vowel(w[: -len(suffix)]):
            w = w[: -len(suffix)] + ("y" if suffix == "ied" else "")
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # "admitted" -> "admitt" -> "admit"
            break
    for suffix, repl in _REWRITES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + repl
            break
    else:
        for suffix in _DERIVATIONAL:
            least = 5 if suffix in _NEEDS_FIVE else 4 if suffix in _NEEDS_FOUR else 3
            if w.endswith(suffix) and len(w) - len(suffix) >= least:
                w = w[: -len(suffix)]
                if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz" + "aeiou":
                    w = w[:-1]  # "saddness" -> "sadd" -> "sad"
                break
    if len(w) > 6 and w.endswith(("iz", "is")) and not w.endswith("sis"):
        w = w[:-2]  # hospitaliz(ed) / hospital(ization)
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"
    return w


@lru_cache(maxsize=200_000)
def stems_match(a: str, b: str) -> bool:
    """Two stems name the same word: equal, one a prefix of the other of at least 5
    letters ("recover"/"recoveri"), or synonyms in the lexicon ("burn"/"fire")."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) >= 5 and long_.startswith(short):
        return True
    return bool(_lexicon().groups.get(a, _NO_GROUPS) & _lexicon().groups.get(b, _NO_GROUPS))


WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*")


def words(text: str) -> list[str]:
    """Lowercase words; a hyphenated word gives its parts too ("non-male" -> non, male)."""
    out = []
    for w in WORD_RE.findall(text):
        w = w.lower()
        if "-" in w and not w.startswith("-"):
            parts = [p for p in w.split("-") if p]
            out.extend(parts)
            if (
                len(parts) == 2
                and parts[0] not in NEGATION_WORDS
                and parts[0] not in ("in", "out", "non")
            ):
                out.append("".join(parts))  # "hard-working" is also "hardworking"
        else:
            out.append(w)
    return out


# Words that carry no identity of a variable or a value: articles, auxiliaries, the
# population a sentence speaks of ("people who", "those that", "individuals").
GENERIC = frozenset(
    """a an the of for to in on at by with from as into about than this that these those
    who whom whose which what when where while whether it its they them their there
    he she his her him we us our you your i my me one ones someone somebody
    be is are was were been being am has have had having do does did done
    can could would will shall should may might must get gets got
    people person persons individual individuals subject subjects case cases
    patient patients student students resident residents participant participants
    applicant applicants candidate candidates customer customers client clients
    respondent respondents volunteer volunteers
    population group groups member members everyone anyone somebody someone subgroup
    subgroups stratum strata subpopulation
    who're consider considered considering choose chooses chose chosen
    also both either neither just only overall generally general
    and or but so if then else instead
    """.split()
)
GENERIC_STEMS = frozenset(stem(w) for w in GENERIC) | GENERIC
# Verbs read as negation ("avoid injury" is not injury) unless a variable is named by them
NEGATING_VERB_STEMS = frozenset({"avoid", "prevent", "escap"})
# The generic words that are nouns: a story may name a variable by one ("group study")
GENERIC_NOUNS = frozenset(
    stem(w)
    for w in """people person persons individual individuals subject subjects case cases
    patient patients student students resident residents participant participants
    applicant applicants candidate candidates customer customers client clients
    respondent respondents volunteer volunteers population group groups member members
    subgroup subgroups""".split()
)

# Words that name the dimension a variable varies along, not what it is: "vaccination
# status" is vaccination, "cholesterol level" is cholesterol.
DIMENSION_STEMS = frozenset(
    stem(w)
    for w in """status level levels size amount quantity rate quality condition state type kind
    frequency intensity severity extent number count volume measure grade""".split()
)

# Negation words. Prefixes (un-, non-, in-, dis-) are read relative to another phrase.
NEGATION_WORDS = frozenset(
    """not no non never without lack lacks lacking absence absent none nobody nothing
    don't doesn't didn't isn't aren't wasn't weren't cannot can't won't wouldn't
    hasn't haven't hadn't shouldn't couldn't nor off""".split()
)
NEGATION_PREFIXES = ("non-", "non", "un", "in", "im", "il", "ir", "dis", "anti-")


@dataclass(frozen=True)
class PhraseWords:
    """What a phrase says, for matching: its content stems (no generic words, no
    negation words), whether it is negated (an odd number of negation words), its words
    as written, and the written word of each content stem."""

    text: str
    content: frozenset[str]
    negated: bool
    tokens: tuple[str, ...]
    written: tuple[tuple[str, str], ...] = ()


_GET = frozenset({"get", "gets", "got", "gotten", "getting"})
_ACQUIRE = "acquir"  # the stem of "acquire", in the lexicon's group of "contract"
_PARTICIPLES = frozenset(k for k, v in _IRREGULAR.items() if k.endswith(("en", "n", "t", "d")))


def _participle(word: str) -> bool:
    """A past participle, as after "gets" in a passive ("gets admitted", "got taken")."""
    return word.endswith("ed") or word in _PARTICIPLES


@lru_cache(maxsize=50_000)
def phrase_words(text: str, keep: frozenset[str] = frozenset()) -> PhraseWords:
    """What `text` says (see `PhraseWords`). Words in `keep` count as content even
    where they are generic elsewhere ("group" in a story about group study)."""
    toks = words(text)
    neg = 0
    content = set()
    written: list[tuple[str, str]] = []
    skip = False
    skip_to = 0
    for i, t in enumerate(toks):
        if i < skip_to:
            continue
        if skip:
            skip = False
            continue
        joined = _multiword_at(toks, i)
        if joined is not None:
            key, n = joined
            content.add(key)
            written.append((key, " ".join(toks[i : i + n])))
            skip_to = i + n
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if (
            (t == "out" and nxt == "of")
            or (t == "free" and nxt in ("of", "from"))
            or (
                t in ("recover", "recovers", "recovered", "recovering", "cured")
                and nxt in ("from", "of")
            )
        ):
            # "out of wax", "free of pain", "recovers from scurvy": without
            neg += 1
            skip = True
            continue
        if t in (
            "avoid",
            "avoids",
            "avoided",
            "avoiding",
            "prevent",
            "prevents",
            "prevented",
            "escape",
            "escapes",
        ):
            if stem(t) in keep:  # the story names a variable by it ("injury avoidance")
                content.add(stem(t))
                written.append((stem(t), t))
                continue
            neg += 1
            continue
        if t in NEGATION_WORDS or t.endswith("n't"):
            # "lack of" / "absence of": the 'of' is generic anyway
            neg += 1
            continue
        if t == "do" and i + 1 < len(toks) and toks[i + 1] == "not":
            continue
        if t in _GET and nxt and not _participle(nxt) and nxt not in GENERIC:
            # "gets cholera" is "contracts cholera"; "gets admitted" is a passive
            content.add(_ACQUIRE)
            written.append((_ACQUIRE, t))
            continue
        s = stem(t)
        if (t in GENERIC or s in GENERIC_STEMS) and s not in keep:
            continue
        content.add(s)
        written.append((s, t))
    return PhraseWords(text, frozenset(content), neg % 2 == 1, tuple(toks), tuple(written))


def strip_negation_prefix(s: str) -> str | None:
    """The stem without a negating prefix ("unattract" -> "attract"), or None."""
    if "_" in s:
        return None  # a several-word lexicon entry ("in a relationship") has no prefix
    for p in NEGATION_PREFIXES:
        p = p.rstrip("-")
        if s.startswith(p) and len(s) - len(p) >= 3:
            return s[len(p) :].lstrip("-")
    return None


def negated_bases(word: str) -> list[str]:
    """Stems of the word without each negating prefix it may carry ("inactive" ->
    stem("active"))."""
    out: list[str] = []
    if " " in word:
        return out
    for p in NEGATION_PREFIXES:
        p = p.rstrip("-")
        if word.startswith(p) and len(word) - len(p) >= 3:
            out.append(stem(word[len(p) :].lstrip("-")))
    return out


def normalize_phrase(text: str) -> str:
    return " ".join(w.lower() for w in WORD_RE.findall(text))


# -- the lexicon: synonyms, opposites, values of a kind (general English, as data) ---------

_NO_GROUPS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Lexicon:
    """`groups`: stem -> ids of the synonym groups it is in; `opposites`: pairs of ids
    (a group's, or a lone stem's own) that name the two ends of one thing; `kinds`:
    stem of a value word -> stems of the kinds it is a value of; `multiword`: first
    stem -> the stem sequences of several-word entries that start with it (longest
    first), each read as the one key they join to."""

    groups: dict[str, frozenset[str]]
    opposites: frozenset[tuple[str, str]]
    kinds: dict[str, frozenset[str]]
    multiword: dict[str, tuple[tuple[tuple[str, ...], str], ...]]


def _entry_key(entry: str) -> tuple[tuple[str, ...], str]:
    parts = tuple(stem(w) for w in WORD_RE.findall(entry.lower()))
    return parts, "_".join(parts)


@lru_cache(maxsize=1)
def _lexicon() -> Lexicon:
    from importlib.resources import files

    text = files("causalqa.stated").joinpath("lexicon.txt").read_text(encoding="utf-8")
    section = ""
    groups: dict[str, set[str]] = {}
    pairs: list[tuple[list[str], list[str]]] = []
    kinds: dict[str, set[str]] = {}
    multi: dict[str, set[tuple[tuple[str, ...], str]]] = {}

    def key_of(entry: str) -> str:
        parts, key = _entry_key(entry)
        if len(parts) > 1:
            multi.setdefault(parts[0], set()).add((parts, key))
        return key

    for n, raw in enumerate(text.splitlines()):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if section == "synonyms":
            for entry in line.split(","):
                if entry.strip():
                    groups.setdefault(key_of(entry), set()).add(f"g{n}")
        elif section == "antonyms":
            left, _, right = line.partition("|")
            pairs.append(
                (
                    [key_of(e) for e in left.split(",") if e.strip()],
                    [key_of(e) for e in right.split(",") if e.strip()],
                )
            )
        elif section == "values":
            kind, _, values = line.partition(":")
            kind_key = key_of(kind)
            for entry in values.split(","):
                if entry.strip():
                    kinds.setdefault(key_of(entry), set()).add(kind_key)
    frozen = {k: frozenset(v) for k, v in groups.items()}

    def ids(key: str) -> frozenset[str]:
        return frozen.get(key, _NO_GROUPS) | {f"w:{key}"}

    opposites = set()
    for left, right in pairs:
        for a in left:
            for b in right:
                for ga in ids(a):
                    for gb in ids(b):
                        opposites.add((ga, gb))
                        opposites.add((gb, ga))
    return Lexicon(
        groups=frozen,
        opposites=frozenset(opposites),
        kinds={k: frozenset(v) for k, v in kinds.items()},
        multiword={k: tuple(sorted(v, key=lambda e: -len(e[0]))) for k, v in multi.items()},
    )


def _multiword_at(toks: list[str], i: int) -> tuple[str, int] | None:
    """The key of a several-word lexicon entry starting at token i ("on time", "gets
    up"), and how many tokens it spans."""
    entries = _lexicon().multiword.get(stem(toks[i]))
    if not entries:
        return None
    for parts, key in entries:
        n = len(parts)
        if i + n <= len(toks) and all(stem(toks[i + j]) == parts[j] for j in range(n)):
            return key, n
    return None


@lru_cache(maxsize=200_000)
def opposite_stems(a: str, b: str) -> bool:
    """Whether two stems name opposite ends of one thing ("dry"/"wet", "late"/"on time",
    "increased"/"reduced")."""
    lex = _lexicon()
    ids_a = lex.groups.get(a, _NO_GROUPS) | {f"w:{a}"}
    ids_b = lex.groups.get(b, _NO_GROUPS) | {f"w:{b}"}
    return any((x, y) in lex.opposites for x in ids_a for y in ids_b)


def value_of_kind(value: str, kind: str) -> bool:
    """Whether a stem names a value of the kind a name stem is ("male" of "gender")."""
    return any(stems_match(k, kind) for k in _lexicon().kinds.get(value, _NO_GROUPS))


def opposite_words(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether a stem of `a` and a stem of `b` are common opposites."""
    return any(opposite_stems(x, y) for x in a for y in b)
