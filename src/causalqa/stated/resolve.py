"""Which variable, and which of its two values, each phrase of a story names.

The graph sentences name the variables ("Husband has a direct effect on wife and alarm
clock"); the numbers speak of values in other words ("For husbands that don't set the
alarm", "ringing alarm", "alarm set by wife"). No list of a benchmark's phrases is used:
the mapping comes from general evidence, combined in one small search.

1. **Mentions.** Each slot of a stated number (event, condition, the two sides of a
   correlation), of a mechanism or an observation is split into atomic phrases.
2. **Links between mentions** that say "same variable" with a known relation of values:
   the same words (same value); the same words but one negated — "don't", "not",
   "without", "lack of", or a negating prefix against the other phrase, "unattractive" /
   "attractive" — (other value); and *contrast*: two sentences of one form that differ in
   exactly one condition phrase state the two values of one variable ("For husbands that
   don't set the alarm, ... 26%" / "For husbands that set the alarm, ... 85%"; the same
   for the two joint probabilities "of A and Y" / "of A' and Y").
3. **Assignment** of the linked groups to the graph's variables, by exhaustive search:
   the phrases' word stems against the variable names (a stem found in fewer names
   weighs more), a small bonus for two groups sharing a word no name has, under hard
   constraints: the phrases of one sentence are different variables (a probability is
   never of a variable given itself). Two best assignments that tie are an ambiguity:
   the story is refused when the readings answer differently.
4. **Values.** Within a variable, the links and the words fix which phrases name the
   same value; which value is 1 — the one a question's "increase", "positively affect"
   or a bare variable name refers to — is the un-negated one; else the one whose
   probability the story states; else the one that shares the variable name's words;
   else the one named second in a contrast (stories list the baseline first).
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from dataclasses import dataclass, field

from causalqa.stated.text import (
    DIMENSION_STEMS,
    GENERIC_NOUNS,
    NEGATING_VERB_STEMS,
    PhraseWords,
    negated_bases,
    normalize_phrase,
    opposite_stems,
    opposite_words,
    phrase_words,
    stem,
    stems_match,
    strip_negation_prefix,
    value_of_kind,
    words,
)


def name_key(name: str) -> str:
    """The identity of a variable name: lowercase words without a leading article."""
    t = normalize_phrase(name)
    return re.sub(r"^(?:the|a|an)\s+", "", t)


def segment_phrase(text: str, names: dict[str, str]) -> list[str]:
    """The phrase cut where its words turn from one variable's name to another's:
    'severe treated patients die' -> ['severe', 'treated patients', 'die'] when severity,
    treatment and death are the variables. A word naming no variable (or several) stays
    with the words before it; a phrase about one variable comes back whole."""
    name_words = _name_words(names)
    toks = text.split()
    runs: list[tuple[str | None, list[str]]] = []
    # "not", "without", "with": they belong to the words after them
    pending: list[str] = []
    for tok in toks:
        pw = phrase_words(tok)
        if not pw.content and (pw.negated or tok.lower() in _LEADING_WORDS):
            pending.append(tok)
            continue
        hits = _named(pw, name_words)
        var = next(iter(hits)) if len(hits) == 1 else None
        if runs and (var is None or var == runs[-1][0] or runs[-1][0] is None):
            runs[-1][1].extend([*pending, tok])
            if runs[-1][0] is None and var is not None:
                runs[-1] = (var, runs[-1][1])
        else:
            runs.append((var, [*pending, tok]))
        pending = []
    if pending:
        if not runs:
            return [text]
        runs[-1][1].extend(pending)
    if len([v for v, _ in runs if v is not None]) < 2:
        return [text]
    return [" ".join(ws) for _, ws in runs]


_LEADING_WORDS = frozenset(
    {"with", "on", "in", "for", "among", "under", "given", "if", "when", "at"}
)


def _name_words(names: dict[str, str]) -> dict[str, frozenset[str]]:
    return {k: phrase_words(v).content or frozenset([k]) for k, v in names.items()}


def _named(pw: PhraseWords, name_words: dict[str, frozenset[str]]) -> set[str]:
    content = pw.content | frozenset(b for t in pw.content if (b := strip_negation_prefix(t)))
    return {
        v
        for v, nw in name_words.items()
        for t in content
        if any(stems_match(t, x) or opposite_stems(t, x) or value_of_kind(t, x) for x in nw)
    }


def named_variables(text: str, names: dict[str, str]) -> set[str]:
    """The variables whose names a phrase's words speak of (by stem, opposite or kind)."""
    return _named(phrase_words(text), _name_words(names))


def split_atoms(slot: str) -> list[str]:
    """A slot's phrases: 'husbands that don't set the alarm and wives that set the
    alarm' -> two. A piece with no word of its own is glued to the one before."""
    slot = slot.strip().strip(",.;")
    if not slot:
        return []
    pieces = [
        p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*[&+]\s*", slot) if p.strip()
    ]
    out: list[str] = []
    for p in pieces:
        if out and not phrase_words(p).content and not phrase_words(p).negated:
            out[-1] = f"{out[-1]} and {p}"
        else:
            out.append(p)
    return out


@dataclass
class Mention:
    id: int
    text: str
    words: PhraseWords
    statement: int
    role: str  # event, given, corr, mech_in, mech_out, obs
    sentence: str
    order: int  # position of the sentence in the story
    question: bool = False  # a phrase of the question, not of the story


@dataclass
class Resolution:
    var_of: dict[int, str] = field(default_factory=dict)  # mention id -> variable key
    value_of: dict[int, int] = field(default_factory=dict)  # mention id -> 0/1
    positive_reason: dict[str, str] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (sentence, why)
    ambiguous: list[list[int]] = field(default_factory=list)  # groups of mention ids
    notes: list[str] = field(default_factory=list)
    score: float = 0.0
    open_phrases: list[str] = field(default_factory=list)


# -- relations between two phrases ----------------------------------------------------------


def polar_content(pw: PhraseWords, other: frozenset[str]) -> tuple[frozenset[str], bool]:
    """Content and negation of a phrase, with a negating prefix read against `other`:
    'unattractive' reads as 'attractive', negated, when the other phrase says
    'attractive'."""
    content = set()
    negated = pw.negated
    written = dict(pw.written)
    for t in pw.content:
        if any(stems_match(t, o) for o in other):
            content.add(t)
            continue
        word = written.get(t, t)
        bases = [b for b in negated_bases(word) + [strip_negation_prefix(t)] if b]
        hit = next((b for b in bases if any(stems_match(b, o) for o in other)), None)
        if hit:
            content.add(next(o for o in other if stems_match(hit, o)))
            negated = not negated
        else:
            content.add(t)
    return frozenset(content), negated


def _minus(content: frozenset[str], drop: frozenset[str]) -> frozenset[str]:
    return frozenset(t for t in content if not any(stems_match(t, d) for d in drop))


def _overlap(a: frozenset[str], b: frozenset[str]) -> int:
    return sum(1 for t in a if any(stems_match(t, u) for u in b))


def value_relation(a: PhraseWords, b: PhraseWords, name: frozenset[str]) -> tuple[str, float]:
    """Whether two phrases of one variable name the same value or the other one, and how
    sure the words make it (1 strong, 0.5 weak, 0 no evidence). The variable's own name
    words are left out: 'alarm set by husband' and 'husbands that set the alarm' are the
    same value of 'husband'."""
    ca, na = polar_content(a, b.content)
    cb, nb = polar_content(b, a.content)
    if opposite_words(ca, cb):
        return ("opposite" if na == nb else "same"), 1.0
    ca, cb = _minus(ca, name), _minus(cb, name)
    same_polarity = na == nb
    ov = _overlap(ca, cb)
    a_in_b = ov == len(ca)
    b_in_a = _overlap(cb, ca) == len(cb)
    if not same_polarity and _overlap(a.content, name) and _overlap(b.content, name):
        # "no vaccine reaction" / "severe vaccination reaction", "no traffic on the
        # road" / "heavy traffic": the negation is of the variable itself
        return "opposite", (1.0 if (a_in_b or b_in_a) else 0.75)
    if a_in_b or b_in_a:
        if bool(ca) != bool(cb):
            # one phrase is only the variable's name, the other adds words that may
            # change its meaning ("recovers from scurvy" / "scurvy"): not sure
            return ("same" if same_polarity else "opposite"), 0.6
        return ("same" if same_polarity else "opposite"), 1.0
    if ov:
        return ("opposite", 0.75) if not same_polarity else ("opposite", 0.5)
    if same_polarity:
        return "opposite", 0.5
    return "unknown", 0.0


# -- the resolver ---------------------------------------------------------------------------


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


@dataclass
class Statement:
    """The mentions of one raw statement, by slot."""

    id: int
    kind: str  # prob, joint, corr, mech, obs
    slots: dict[str, list[int]]
    sentence: str


class Resolver:
    """Maps every mention to (variable, value). Build with the variables' names, add
    statements with `add`, then `solve`."""

    def __init__(self, names: dict[str, str], *, name_nouns: bool = False) -> None:
        # key -> display name
        self.names = names
        # with `name_nouns`, a generic noun a variable is named by ("group" of "group
        # study") is a content word of every phrase of the story
        self.keep = (
            frozenset(stem(t) for n in names.values() for t in words(n))
            & (GENERIC_NOUNS | NEGATING_VERB_STEMS)
            if name_nouns
            else frozenset()
        )
        self.name_words = {
            k: phrase_words(v, self.keep).content or frozenset([k]) for k, v in names.items()
        }
        self.mentions: list[Mention] = []
        self.statements: list[Statement] = []
        self.same_value: list[tuple[int, int]] = []
        self.opposite_value: list[tuple[int, int]] = []
        self.stated_event: set[int] = set()  # mentions that are the sole event of a probability
        self.contrast_order: dict[int, int] = {}  # mention -> 0 (listed first) / 1
        self.extra_opposite: list[tuple[int, int]] = []
        self.pinned: dict[int, str] = {}  # mention -> variable the story declares it a value of
        self.declared_first: set[int] = set()

    # -- building -----------------------------------------------------------------------
    def add(self, kind: str, slots: dict[str, list[str]], sentence: str, order: int) -> Statement:
        sid = len(self.statements)
        ids: dict[str, list[int]] = {}
        for slot, phrases in slots.items():
            ids[slot] = []
            for p in phrases:
                m = Mention(
                    len(self.mentions),
                    p,
                    phrase_words(p, self.keep),
                    sid,
                    slot,
                    sentence,
                    order,
                    kind == "question",
                )
                self.mentions.append(m)
                ids[slot].append(m.id)
        st = Statement(sid, kind, ids, sentence)
        self.statements.append(st)
        if kind == "prob" and len(ids.get("event", [])) == 1:
            self.stated_event.add(ids["event"][0])
        return st

    def link_opposite(self, a: int, b: int) -> None:
        """Two mentions the text sets against each other ("if A instead of B")."""
        self.extra_opposite.append((a, b))

    # -- links --------------------------------------------------------------------------
    def _identity_key(self, m: Mention) -> tuple:
        return (
            (m.words.content, m.words.negated)
            if m.words.content
            else ("text", normalize_phrase(m.text))
        )

    def _links(self, uf: _UnionFind) -> None:
        by_key: dict[tuple, list[int]] = defaultdict(list)
        for m in self.mentions:
            uf.find(m.id)
            by_key[self._identity_key(m)].append(m.id)
        self.identity = by_key
        for ids in by_key.values():
            for a, b in zip(ids, ids[1:]):
                uf.union(a, b)
                self.same_value.append((a, b))
        # negation pairs: the same words, one of them negated
        keys = list(by_key)
        for i, ka in enumerate(keys):
            for kb in keys[i + 1 :]:
                a, b = self.mentions[by_key[ka][0]], self.mentions[by_key[kb][0]]
                if self._negation_pair(a.words, b.words):
                    uf.union(a.id, b.id)
                    self.opposite_value.append((a.id, b.id))
        for a, b in self.extra_opposite:
            uf.union(a, b)
            self.opposite_value.append((a, b))
        # contrast: statements of one form that differ only in one phrase, when that
        # place holds exactly two phrases across them (the two values of one variable; four
        # conditions in the same place are not two values)
        ident = {m.id: self._identity_key(m) for m in self.mentions}
        frames: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
        for st in self.statements:
            if st.kind in ("mech", "obs", "values", "question"):
                continue
            shape = tuple((k, len(v)) for k, v in sorted(st.slots.items()))
            for k, ids in st.slots.items():
                if k == "event" and len(ids) < 2:
                    continue  # "P(Y | x)" and "P(Z | x)" are two outcomes, not two values
                for i in range(len(ids)):
                    rest = tuple(
                        (kk, j, ident[st.slots[kk][j]])
                        for kk in sorted(st.slots)
                        for j in range(len(st.slots[kk]))
                        if (kk, j) != (k, i)
                    )
                    frames[(st.kind, shape, k, i, rest)].append((st.id, ids[i]))
        for members in frames.values():
            keys = {ident[m] for _, m in members}
            if len(keys) != 2:
                continue
            a_key = ident[members[0][1]]
            firsts = [m for _, m in members if ident[m] == a_key]
            seconds = [m for _, m in members if ident[m] != a_key]
            a, b = firsts[0], seconds[0]
            uf.union(a, b)
            self.opposite_value.append((a, b))
            self.contrast_order.setdefault(a, 0)
            self.contrast_order.setdefault(b, 1)

    @staticmethod
    def _negation_pair(a: PhraseWords, b: PhraseWords) -> bool:
        ca, na = polar_content(a, b.content)
        cb, nb = polar_content(b, a.content)
        return bool(ca) and na != nb and ca == cb

    # -- affinity to names --------------------------------------------------------------
    def _affinity(self, m: Mention) -> dict[str, float]:
        out = {}
        content = m.words.content | frozenset(
            b for t in m.words.content if (b := strip_negation_prefix(t))
        )
        key = name_key(m.text)
        for var, nw in self.name_words.items():
            score = 0.0
            for t in content:
                hits = [
                    v
                    for v, w in self.name_words.items()
                    if any(
                        stems_match(t, x) or opposite_stems(t, x) or value_of_kind(t, x) for x in w
                    )
                ]
                if var in hits:
                    score += 1.0 / len(hits)
            if score and _overlap(nw, content) == len(nw):
                score += 0.5  # the whole name is in the phrase
            elif score and all(
                x in DIMENSION_STEMS for x in nw if not any(stems_match(x, t) for t in content)
            ):
                # all but a word like "status" or "level": "vaccinated" names "vaccination
                # status" more than "vaccination reaction"
                score += 0.4
            if key == var:
                score += 2.0
            out[var] = score
        return out

    # -- solving ------------------------------------------------------------------------
    def solve(
        self, edges: list[tuple[str, str]] | None = None, max_readings: int = 12
    ) -> list[Resolution]:
        """The best readings (more than one when they tie), each a full mapping."""
        uf = _UnionFind()
        self._links(uf)
        groups: dict[int, list[int]] = defaultdict(list)
        for m in self.mentions:
            groups[uf.find(m.id)].append(m.id)
        group_ids = list(groups)
        gindex = {g: i for i, g in enumerate(group_ids)}
        of_mention = {m: gindex[uf.find(m)] for m in range(len(self.mentions))}
        variables = list(self.names)
        if not variables:
            res = Resolution()
            res.problems.append(("", "the story names no variables (no graph sentence)"))
            return [res]
        aff = []
        for g in group_ids:
            per_var: dict[str, float] = defaultdict(float)
            total: dict[str, float] = defaultdict(float)
            for mid in groups[g]:
                a = self._affinity(self.mentions[mid])
                for v, sc in a.items():
                    per_var[v] = max(per_var[v], sc)
                    total[v] += sc
            scores = {v: per_var[v] + 0.01 * total[v] for v in variables}
            pins = {self.pinned[mid] for mid in groups[g] if mid in self.pinned}
            if len(pins) > 1:
                res = Resolution()
                res.problems.append(
                    (
                        self.mentions[groups[g][0]].sentence,
                        f"a phrase is declared a value of both {' and '.join(sorted(pins))}",
                    )
                )
                return [res]
            if pins:
                (pin,) = pins
                scores = {v: (scores[v] + 5.0 if v == pin else float("-inf")) for v in variables}
            aff.append(scores)
        problems: list[tuple[str, str]] = []
        differ: set[tuple[int, int]] = set()
        for st in self.statements:
            if st.kind == "mech":
                ins = [of_mention[m] for m in st.slots.get("mech_in", [])]
                outs = [of_mention[m] for m in st.slots.get("mech_out", [])]
                pairs = [(a, b) for a in ins for b in outs] + list(itertools.combinations(ins, 2))
            elif st.kind == "values":
                pairs = []
            elif st.kind == "question":
                gs = [
                    of_mention[m]
                    for k, ids in st.slots.items()
                    if k != "counterfactual"
                    for m in ids
                ]
                pairs = list(itertools.combinations(gs, 2))
            else:
                gs = [of_mention[m] for ids in st.slots.values() for m in ids]
                pairs = list(itertools.combinations(gs, 2))
            for a, b in pairs:
                if a == b:
                    problems.append((st.sentence, "it speaks of one variable twice"))
                differ.add((min(a, b), max(a, b)))
        if problems:
            res = Resolution()
            res.problems.extend(problems)
            return [res]
        # a shared word no variable name has hints that two groups are one variable
        share: dict[tuple[int, int], float] = {}
        gwords = []
        for g in group_ids:
            ws: set[str] = set()
            for mid in groups[g]:
                for t in self.mentions[mid].words.content:
                    ws.add(strip_negation_prefix(t) or t)
            gwords.append(frozenset(ws))
        all_names = frozenset().union(*self.name_words.values())
        for i, j in itertools.combinations(range(len(group_ids)), 2):
            common = [t for t in gwords[i] if any(stems_match(t, u) for u in gwords[j])]
            common = [t for t in common if not any(stems_match(t, n) for n in all_names)]
            if common:
                share[(i, j)] = 0.3 * len(common)
        # conditionals usually condition on causes, not on effects
        descendants = _descendants(edges or [])
        cond = []
        mechs = []
        observed: list[int] = []
        for st in self.statements:
            if st.kind == "prob" and st.slots.get("given"):
                cond.append(
                    (of_mention[st.slots["event"][0]], [of_mention[m] for m in st.slots["given"]])
                )
            if st.kind == "mech":
                for o in st.slots.get("mech_out", []):
                    mechs.append(
                        (of_mention[o], [of_mention[m] for m in st.slots.get("mech_in", [])])
                    )
            if st.kind == "obs":
                observed.extend(of_mention[m] for m in st.slots.get("obs", []))
        parents: dict[str, set[str]] = defaultdict(set)
        for a, b in edges or []:
            parents[b].add(a)

        def structure(assign: tuple[str, ...]) -> float:
            bonus = 0.0
            for ev, gs in cond:
                if all(assign[g] not in descendants.get(assign[ev], set()) for g in gs):
                    bonus += 0.2
            for eff, ins in mechs:
                # a mechanism's inputs are the causes the graph gives its effect
                got = {assign[i] for i in ins}
                if got <= parents.get(assign[eff], set()):
                    bonus += 0.5 + (0.2 if got == parents.get(assign[eff]) else 0.0)
            effects = {assign[e] for e, _ in mechs}
            for o in observed:
                # what is observed is what the mechanisms leave open
                if assign[o] not in effects:
                    bonus += 0.3
            return bonus

        max_structure = 0.2 * len(cond) + 0.7 * len(mechs) + 0.3 * len(observed)
        readings = self._search(
            len(group_ids), variables, aff, differ, share, structure, max_structure, max_readings
        )
        if not readings:
            res = Resolution()
            res.problems.append(("", "no reading maps the phrases to distinct variables"))
            return [res]
        out = []
        for score, assign in readings:
            res = Resolution()
            for i, g in enumerate(group_ids):
                for mid in groups[g]:
                    res.var_of[mid] = assign[i]
            res.score = score
            self._values(res)
            out.extend(self._value_variants(res))
        return out[: max_readings * 2]

    def _value_variants(self, res: Resolution) -> list[Resolution]:
        """A reading whose words leave the value of some phrases open becomes one reading
        per choice (at most two open groups); the caller answers only when they agree."""
        if not res.ambiguous:
            return [res]
        open_groups = res.ambiguous[:2]
        variants = []
        for flips in itertools.product((False, True), repeat=len(open_groups)):
            v = Resolution(
                var_of=dict(res.var_of),
                value_of=dict(res.value_of),
                positive_reason=dict(res.positive_reason),
                problems=list(res.problems),
                notes=list(res.notes),
                score=res.score,
            )
            for flip, comp in zip(flips, open_groups):
                if flip:
                    for m in comp:
                        v.value_of[m] = 1 - v.value_of[m]
            texts = ", ".join(f"'{self.mentions[c[0]].text}'" for c in open_groups)
            v.notes.append(
                f"the words do not fix which value {texts} names; this reading takes one choice"
            )
            v.open_phrases = [self.mentions[c[0]].text for c in open_groups]
            variants.append(v)
        if len(res.ambiguous) > 2:
            for v in variants:
                v.problems.append(
                    (
                        self.mentions[res.ambiguous[2][0]].sentence,
                        "too many phrases leave their value open",
                    )
                )
        return variants

    def _search(self, n, variables, aff, differ, share, structure, max_structure, keep):
        """All assignments of groups to variables that tie for the best score (at most
        `keep`), by depth-first search with a bound."""
        order = sorted(range(n), key=lambda i: -max(aff[i].values()))
        neighbours: dict[int, set[int]] = defaultdict(set)
        for a, b in differ:
            neighbours[a].add(b)
            neighbours[b].add(a)
        best: list[tuple[float, tuple[str, ...]]] = []
        max_rest = [0.0] * (n + 1)
        for k in range(n - 1, -1, -1):
            max_rest[k] = (
                max_rest[k + 1]
                + max(v for v in aff[order[k]].values() if v != float("-inf"))
                + sum(s for (i, j), s in share.items() if order[k] in (i, j))
            )
        assign: dict[int, str] = {}
        eps = 1e-6

        def rec(k: int, score: float) -> None:
            if best and score + max_rest[k] + max_structure < best[0][0] - eps:
                return
            if k == n:
                tup = tuple(assign[i] for i in range(n))
                total = score + structure(tup)
                if not best or total > best[0][0] + eps:
                    best.clear()
                    best.append((total, tup))
                elif abs(total - best[0][0]) <= eps and len(best) < keep:
                    best.append((total, tup))
                return
            g = order[k]
            for v in sorted(variables, key=lambda v: -aff[g][v]):
                if aff[g][v] == float("-inf") or any(assign.get(o) == v for o in neighbours[g]):
                    continue
                bonus = sum(
                    s
                    for (i, j), s in share.items()
                    if (i == g and assign.get(j) == v) or (j == g and assign.get(i) == v)
                )
                assign[g] = v
                rec(k + 1, score + aff[g][v] + bonus)
                del assign[g]

        rec(0, 0.0)
        return best

    # -- values -------------------------------------------------------------------------
    def _values(self, res: Resolution) -> None:
        by_var: dict[str, list[int]] = defaultdict(list)
        for mid, v in res.var_of.items():
            by_var[v].append(mid)
        links = defaultdict(list)  # mention -> [(other, relation)]
        for a, b in self.same_value:
            links[a].append((b, "same"))
            links[b].append((a, "same"))
        for a, b in self.opposite_value:
            if res.var_of.get(a) == res.var_of.get(b):
                links[a].append((b, "opposite"))
                links[b].append((a, "opposite"))
        for var, mids in by_var.items():
            name = self.name_words[var]
            colour: dict[int, int] = {}
            comps: list[list[int]] = []
            for start in sorted(
                mids, key=lambda m: (self.mentions[m].question, self.mentions[m].order, m)
            ):
                if start in colour:
                    continue
                if (
                    self.mentions[start].question
                    and name_key(self.mentions[start].text) == var
                    and not any(start in pair for pair in self.extra_opposite)
                ):
                    colour[start] = 1
                    continue
                colour[start] = 1
                comp, stack = [start], [start]
                while stack:
                    x = stack.pop()
                    for y, rel in links[x]:
                        if res.var_of.get(y) != var:
                            continue
                        want = colour[x] if rel == "same" else 1 - colour[x]
                        if y in colour:
                            if colour[y] != want:
                                res.problems.append(
                                    (
                                        self.mentions[y].sentence,
                                        f"its phrase '{self.mentions[y].text}' contradicts another phrase of {self.names[var]}",  # noqa: E501
                                    )
                                )
                            continue
                        colour[y] = want
                        comp.append(y)
                        stack.append(y)
                comps.append(comp)
            # the story's most linked component first; the question's phrases last
            comps.sort(
                key=lambda c: (
                    all(self.mentions[m].question for m in c),
                    len({colour[m] for m in c}) < 2,  # a component naming both values first
                    -len(c),
                )
            )
            placed = list(comps[0]) if comps else []
            for comp in comps[1:]:
                vote = self._orientation(comp, placed, colour, name)
                if vote < 0:
                    for x in comp:
                        colour[x] = 1 - colour[x]
                elif vote == 0:
                    res.ambiguous.append(comp)
                placed.extend(comp)
            value_one, why = self._positive(mids, colour, name)
            res.positive_reason[var] = why
            for m in mids:
                res.value_of[m] = 1 if colour[m] == value_one else 0
                if self.mentions[m].question is False:
                    continue
                if name_key(self.mentions[m].text) == var and not any(
                    m in pair for pair in self.extra_opposite
                ):
                    # a question that names the variable itself speaks of its value 1
                    res.value_of[m] = 1

    def _orientation(
        self, comp: list[int], placed: list[int], colour: dict[int, int], name
    ) -> float:
        """> 0: `comp` keeps its colours; < 0: it flips; 0: the words cannot tell.
        With both values already named, a phrase joins the value it shares more
        distinguishing words with, and its polarity (negated or not) breaks a tie; with one
        value named, `value_relation` says same or other."""
        classes = {c: [m for m in placed if colour[m] == c] for c in (0, 1)}
        if classes[0] and classes[1]:
            total = 0.0
            for x in comp:
                sc = {}
                for c in (0, 1):
                    best = -9.0
                    for y in classes[c]:
                        best = max(best, self._similarity(x, y, name))
                    sc[c] = best
                # keep = x's colour class is the more similar one
                diff = sc[colour[x]] - sc[1 - colour[x]]
                total += diff
            return total
        vote = 0.0
        for x in comp:
            for y in placed:
                rel, w = value_relation(self.mentions[x].words, self.mentions[y].words, name)
                if rel == "unknown" or w < 0.75:
                    continue
                agree = (colour[x] == colour[y]) == (rel == "same")
                vote += w if agree else -w
        return vote

    def _similarity(self, x: int, y: int, name) -> float:
        a, b = self.mentions[x].words, self.mentions[y].words
        ca, na = polar_content(a, b.content)
        cb, nb = polar_content(b, a.content)
        if opposite_words(ca, cb):
            return -1.0
        # words of the name say nothing about the value ('smoking' / 'non-smoking') unless
        # nothing else does: a value word that is a synonym of the name ('hot days' for
        # heat) still tells 'hot days' from 'other days', by a tie-break weight
        tie_break = 0.01 * _overlap(ca, cb)
        ca, cb = _minus(ca, name), _minus(cb, name)
        return _overlap(ca, cb) + (0.5 if na == nb else -0.5) + tie_break

    def _positive(
        self, mids: list[int], colour: dict[int, int], name: frozenset[str]
    ) -> tuple[int, str]:
        story = [m for m in mids if self.mentions[m].question is False] or mids
        if not story:
            return 1, "only the question names it"
        classes = {c: [m for m in story if colour[m] == c] for c in (0, 1)}
        if not classes[0] or not classes[1]:
            only = 1 if classes[1] else 0
            neg = [self.mentions[m].words.negated for m in classes[only]]
            if neg and all(neg):
                return 1 - only, "the story names only the negated value"
            return only, "the story names only this value"

        def negation(c: int) -> float:
            other = frozenset().union(*[self.mentions[m].words.content for m in classes[1 - c]])
            flags = [polar_content(self.mentions[m].words, other)[1] for m in classes[c]]
            return sum(flags) / len(flags)

        n1, n0 = negation(1), negation(0)
        if n1 != n0 and (n1 == 0 or n0 == 0):
            return (1 if n1 < n0 else 0), "the other value is the negated one"
        stated = {c: any(m in self.stated_event for m in classes[c]) for c in (0, 1)}
        if stated[0] != stated[1]:
            return (1 if stated[1] else 0), "the story states the probability of this value"
        declared = {c: any(m in self.declared_first for m in classes[c]) for c in (0, 1)}
        if declared[0] != declared[1]:
            return (1 if declared[1] else 0), "the story lists this value first"

        def name_share(c: int) -> float:
            return max(_overlap(self.mentions[m].words.content, name) for m in classes[c])

        s1, s0 = name_share(1), name_share(0)
        if s1 != s0:
            return (1 if s1 > s0 else 0), "this value shares the variable's name"
        order = {
            c: [self.contrast_order[m] for m in classes[c] if m in self.contrast_order]
            for c in (0, 1)
        }
        if order[1] and order[0]:
            first = 0 if min(order[0]) < min(order[1]) else 1
            return 1 - first, "the story lists the other value first (as the baseline)"
        return 1, "no cue tells the values apart; the first phrase read is taken as value 1"


def _descendants(edges: list[tuple[str, str]]) -> dict[str, set[str]]:
    children: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        children[a].add(b)
    out: dict[str, set[str]] = {}
    for v in list(children):
        seen: set[str] = set()
        stack = [v]
        while stack:
            for c in children.get(stack.pop(), ()):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        out[v] = seen
    return out
