"""Story text -> `StatedModel`: the graph, every stated number with the variables and
values it speaks of, mechanisms and observations; then the checks that make a misread
number a refusal instead of a wrong answer.

Checks (each failure names the sentence): every number in the story is read as exactly
one statement; the graph is acyclic; every phrase maps to a declared variable; no
probability above 1 (or below 0), no correlation outside [-1, 1]; a variable is never its
own condition; the same quantity is not stated twice with different numbers (nor a value
and its complement with numbers that do not add up to 1); a conditional stated for some
values of its conditions is stated for all of them; a variable has at most one
mechanism.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections import defaultdict

import networkx as nx

from causalqa.errors import StoryError
from causalqa.stated.model import (
    Correlation,
    Mechanism,
    Method,
    Observation,
    Probability,
    StatedModel,
    Variable,
)
from causalqa.stated.parse import THE_OTHERS, RawStory, bare_group, read_raw_story
from causalqa.stated.refusal import StoryRefusal
from causalqa.stated.resolve import (
    Resolver,
    name_key,
    named_variables,
    segment_phrase,
    split_atoms,
)
from causalqa.stated.text import phrase_words, stems_match

MAX_STORY_CHARS = 20_000
ROUNDING = 0.011  # numbers are stated to two decimals


def _check_text(story: object) -> str:
    if not isinstance(story, str):
        raise StoryError(f"a story must be text, got {type(story).__name__}")
    if len(story) > MAX_STORY_CHARS:
        raise StoryError(f"the story is longer than {MAX_STORY_CHARS} characters")
    return story


def read_story(story: str, *, llm=None) -> StatedModel:
    """Read a story into a typed model, or raise `StoryRefusal` naming the sentence that
    cannot be read (or `StoryError` when `story` is not text). With `llm`, a story the
    rules cannot read is read by it (see `read_readings`). When the words leave two
    readings of a phrase equally likely, the story is refused."""
    readings = read_readings(story, None, llm=llm)
    if len(readings) > 1:
        raise StoryRefusal(_tie_reason(readings))
    return readings[0][0]


def read_readings(story: str, question_form, *, max_readings: int = 12, llm=None):
    """Every reading of the story (with the question's phrases, when given) that ties
    for the best: a list of (model, question mentions -> (variable, value)). A reading
    whose checks fail is dropped; when all fail, the first failure is raised.

    A story the phrases as written cannot be read from is read once more with its
    phrases cut at the variables' names ('severe treated patients die': severity and
    treatment are the group, death the event); if that fails too, the first refusal
    stands.

    With `llm`, a story neither rule reading can read is read once more by the LLM,
    sentence by sentence under a schema (`llm_read`), and checked the same way."""
    text = _check_text(story)
    if not text.strip():
        raise StoryRefusal("the story is empty")
    try:
        return _readings(text, question_form, max_readings, segment=False)
    except StoryRefusal as first:
        try:
            return _readings(text, question_form, max_readings, segment=True)
        except StoryRefusal:
            if llm is None:
                raise first from None
        from causalqa.stated.llm_read import ROUTE, read_story_with_llm

        # the rules' reading of the number sentences they can read, the LLM's of the rest;
        # then the LLM's of every sentence (the rules may have misread one), asking it
        # again only the sentences the first reading took from the rules
        asked: dict = {}
        try:
            raw = read_story_with_llm(text, llm, rules_first=True, asked=asked)
            return _readings(text, question_form, max_readings, segment=True, raw=raw, route=ROUTE)
        except StoryRefusal:
            pass
        try:
            raw = read_story_with_llm(text, llm, asked=asked)
            return _readings(text, question_form, max_readings, segment=True, raw=raw, route=ROUTE)
        except StoryRefusal as again:
            # the rules' reason stands first (a cycle, a probability over 100% is said best
            # by them); the LLM's failure follows it
            raise StoryRefusal(
                f"{first.reason}: “{first.sentence}”; read by the LLM too: {again}"
                if first.sentence
                else f"{first.reason}; read by the LLM too: {again}"
            ) from None


def _readings(
    text: str,
    question_form,
    max_readings: int,
    *,
    segment: bool,
    raw: RawStory | None = None,
    route: str = "rules",
):
    raw = raw if raw is not None else read_raw_story(text, segment=segment)
    for sentence, why in raw.unread:
        raise StoryRefusal(f"a sentence states a number the reader cannot read ({why})", sentence)
    base = StatedModel(route=[route])
    base.story = text
    _read_graph(raw, base)
    if route != "rules":
        _orient_by_graph(raw, base)
    if segment:
        _segment_statements(raw, base)
    resolver, bind = _mentions(raw, base)
    qslots: dict[str, list[int]] = {}
    if question_form is not None:
        st = resolver.add("question", question_form.slots, "the question", 10_000)
        qslots = st.slots
        if question_form.kind == "counterfactual" and st.slots.get("counterfactual"):
            # "if A instead of B": two values of one variable
            resolver.link_opposite(st.slots["treatment"][0], st.slots["counterfactual"][0])
    results = resolver.solve(base.edges, max_readings=max_readings)
    out = []
    first_error: StoryRefusal | None = None
    for res in results:
        try:
            for sentence, why in res.problems:
                raise StoryRefusal(why, sentence)
            model = copy.deepcopy(base)
            model.open_phrases = list(res.open_phrases)
            _fill_model(raw, model, resolver, res, bind)
            _check(model)
        except StoryRefusal as e:
            first_error = first_error or e
            continue
        mentions = {
            slot: [(res.var_of[i], res.value_of[i], resolver.mentions[i].text) for i in ids]
            for slot, ids in qslots.items()
        }
        out.append((model, mentions))
    if not out:
        raise first_error or StoryRefusal("no reading of the story passes the checks")
    return out


def _tie_reason(readings) -> str:
    a, b = readings[0][0], readings[1][0]
    if a.open_phrases:
        return (
            f"the words do not tell which value the phrase '{a.open_phrases[0]}' names, "
            "so the story is refused rather than guessed"
        )
    for var in a.variables:
        pa, pb = a.variables[var].phrases, b.variables[var].phrases
        if pa != pb:
            diff = sorted(set(sum(pa.values(), [])) ^ set(sum(pb.values(), [])))
            if diff:
                return (
                    f"the words do not tell which variable the phrase '{diff[0]}' names "
                    f"({len(readings)} readings tie), so the story is refused rather than guessed"
                )
    return f"{len(readings)} readings of the story tie, so the story is refused rather than guessed"


# -- graph ----------------------------------------------------------------------------------


def _read_graph(raw: RawStory, model: StatedModel) -> None:
    if not raw.graph:
        raise StoryRefusal(
            "the story states no causal graph (no sentence such as 'A has a direct effect on "
            "B', 'B depends on A' or 'A -> B')"
        )
    alias = _short_names(raw)

    def key_of(name: str) -> str:
        key = name_key(name)
        return alias.get(key, key)

    for g in raw.graph:
        for name in [n for e in g.edges for n in e] + g.names:
            key = key_of(name)
            if not key:
                raise StoryRefusal("a graph sentence names an empty variable", g.sentence)
            if key not in model.variables:
                model.variables[key] = Variable(name=key)
        for a, b in g.edges:
            edge = (key_of(a), key_of(b))
            if edge[0] == edge[1]:
                raise StoryRefusal("a variable is stated to cause itself", g.sentence)
            if edge not in model.edges:
                model.edges.append(edge)
        for n in g.unobserved:
            model.variables[key_of(n)].observed = False
        model.no_effect.update((key_of(a), key_of(b)) for a, b in g.absent)
    model.closed_world = raw.closed_world
    graph = nx.DiGraph(model.edges)
    if not nx.is_directed_acyclic_graph(graph):
        cycle_edges = set(nx.find_cycle(graph))
        cycle = " -> ".join(a for a, _ in cycle_edges)
        # the sentence that closes the cycle: the last one stating one of its edges
        sentence = ""
        for g in raw.graph:
            if any((key_of(a), key_of(b)) in cycle_edges for a, b in g.edges):
                sentence = g.sentence
        raise StoryRefusal(f"the graph has a cycle ({cycle} -> …)", sentence)


def _segment_statements(raw: RawStory, model: StatedModel) -> None:
    """Each probability's phrases cut at the variables' names: an event phrase that
    names several variables keeps the last as the event and makes the others its
    conditions (unless the event was taken from another statement, whose group it was)."""
    names = {k: v.name for k, v in model.variables.items()}
    graph = nx.DiGraph(model.edges)
    for v in raw.values:
        # declared values name their variable too ("severe" for how sick a patient is)
        var = match_name(v.name, model)
        if var is not None:
            names[var] = " ".join([names[var], *v.values])
    for p in raw.probabilities:
        given = [seg for atom in split_atoms(p.given) for seg in segment_phrase(atom, names)]
        event = p.event
        if not re.search(r"\b(?:and|both|together)\b", event, flags=re.I):
            segs = _event_last(segment_phrase(event, names), names, graph)
            event = segs[-1]
            # a list item names a new group in place of the subject's ("..., severe
            # untreated 40%"); the other value of a stated condition keeps the subject's
            # group ("Old cars break down 20% with maintenance and 50% without")
            complement = (
                p.source is not None
                and bool(p.source.given)
                and p.given.strip().lower() == f"not {p.source.given.strip().lower()}"
            )
            if not p.inherited or complement:
                given = segs[:-1] + given
        if p.source is not None and p.source.given and re.search(r"\b(?:it|them)\b", p.given):
            # "people not on it": 'it' is the group of the statement before, once cut
            bare = bare_group(p.source.given)
            given = [
                seg
                for atom in split_atoms(re.sub(r"\b(?:it|them)\b", bare, p.given))
                for seg in segment_phrase(atom, names)
            ]
        if p.source is not None and (p.given == "otherwise" or THE_OTHERS.fullmatch(p.given)):
            # "otherwise", "those who don't": the other value of the group the statement
            # before names, now that its phrase is cut
            given = [f"not {g}" for g in split_atoms(p.source.given)] if p.source.given else []
            if len(given) != 1:
                raise StoryRefusal(f"'{p.given}' follows no single condition to negate", p.sentence)
        # "half of the seasons are wet": the seasons are who is counted, not a condition
        event_vars = named_variables(event, names)
        given = [
            g
            for g in given
            if not (
                len(event_vars) == 1
                and named_variables(g, names) in (event_vars, set())
                and _BARE_POPULATION.fullmatch(g.strip())
            )
        ]
        p.event, p.given = event, ", ".join(given)
    _complete_list_items(raw, names)


_BARE_POPULATION = re.compile(r"(?:the\s+|all\s+)?(?:[a-z-]+\s+)?[a-z-]+s", re.I)


def _event_last(segs: list[str], names: dict[str, str], graph: nx.DiGraph) -> list[str]:
    """The segments of an event phrase with the event last: the one whose variable the
    graph puts after all the others' ('vented in wet seasons': the season causes the
    venting, so venting is the event). Left as written when the graph does not tell."""
    if len(segs) < 2:
        return segs
    named = [named_variables(g, names) for g in segs]
    if any(len(v) != 1 for v in named):
        return segs
    vars_ = [next(iter(v)) for v in named]
    last = [
        i
        for i, v in enumerate(vars_)
        if v in graph and all(u == v or (u in graph and nx.has_path(graph, u, v)) for u in vars_)
    ]
    if len(last) != 1:
        return segs
    i = last[0]
    return segs[:i] + segs[i + 1 :] + [segs[i]]


_BARE_NEGATION = re.compile(r"^(?P<pre>.*?)\s*\b(?P<bare>without|not|no|with)\s*$", re.I)
_ONLY = re.compile(
    r"^(?:only\s+(?P<a>.+)|(?P<b>.+?)\s+(?:only|alone|but\s+not\s+the\s+other))$", re.I
)
_NONE_OF_THEM = re.compile(r"^(?:neither|none|neither\s+of\s+them|none\s+of\s+them)$", re.I)


def _complete_list_items(raw: RawStory, names: dict[str, str]) -> None:
    """A list item that names its conditions relative to an item before it in the same
    sentence ('stressed with coffee 50%, stressed without 45%'; 'old part and overloaded
    90%; old part only 50%; neither 10%'): the conditions it leaves out come from that
    item, negated. An item with nothing to complete from is left as written."""
    by_sentence: dict[str, list] = defaultdict(list)
    for p in raw.probabilities:
        by_sentence[p.sentence].append(p)
    for items in by_sentence.values():
        before: list[list[tuple[str, set[str]]]] = []
        for p in items:
            segs = [g.strip() for g in p.given.split(",") if g.strip()]
            named = [(g, named_variables(g, names)) for g in segs]
            if len(segs) == 1:
                completed = _complete_item(_with_only(segs[0], p.sentence), before, names)
                if completed is not None:
                    p.given = ", ".join(completed)
                    named = [(g, named_variables(g, names)) for g in completed]
            before.append(named)


def _with_only(given: str, sentence: str) -> str:
    """The item as the sentence says it: 'fertilizer' read from 'fertilizer only 50%'."""
    g = re.escape(given)
    if re.search(rf"\b{g}\s+(?:only|alone)\b|\bonly\s+{g}\b", sentence, flags=re.I):
        return f"{given} only"
    return given


def _complete_item(given: str, before, names: dict[str, str]) -> list[str] | None:
    def fuller(need: set[str], more_than: int):
        for item in reversed(before):
            vars_ = set().union(*(v for _, v in item)) if item else set()
            if need <= vars_ and len(vars_) > more_than and all(len(v) == 1 for _, v in item):
                return item
        return None

    def negated(seg: str) -> str:
        if phrase_words(seg).negated:
            return seg  # 'untutored without' after '..., without educated parents'
        rest = re.sub(r"^with\s+", "", seg, flags=re.I)
        return f"without {rest}" if rest != seg else f"not {seg}"

    m = _BARE_NEGATION.match(given)
    if m:
        pre = m.group("pre").strip()
        here = named_variables(pre, names) if pre else set()
        item = fuller(here, len(here))
        if item is None:
            return None
        missing = [seg for seg, v in item if not (v & here)]
        if len(missing) != 1:
            return None
        if m.group("bare").lower() == "with":
            # "novice with 0.70" after "experienced without 0.85": with the thing again
            kept = re.sub(r"^(?:without|not|no)\s+", "with ", missing[0], flags=re.I)
            return None if phrase_words(kept).negated else ([pre] if pre else []) + [kept]
        return ([pre] if pre else []) + [negated(missing[0])]
    m = _ONLY.match(given)
    if m:
        kept = (m.group("a") or m.group("b")).strip()
        here = named_variables(kept, names)
        item = fuller(here, len(here))
        if not here or item is None:
            return None
        return [kept] + [negated(seg) for seg, v in item if not (v & here)]
    if _NONE_OF_THEM.match(given):
        item = fuller(set(), 1)
        if item is None:
            return None
        return [negated(seg) for seg, _ in item]
    return None


def _orient_by_graph(raw: RawStory, model: StatedModel) -> None:
    """A stated number is the probability of an effect given its causes: a statement
    read with a cause as its event and its effect in the group ('event: experienced
    students, group: use a thermometer') is turned round by the graph. For readings the
    rules did not make (the LLM's), which may swap the two."""
    names = {k: v.name for k, v in model.variables.items()}
    graph = nx.DiGraph(model.edges)
    for p in raw.probabilities:
        if not p.given:
            continue
        segs = _event_last([*split_atoms(p.given), p.event], names, graph)
        if segs[-1] != p.event:
            p.event, p.given = segs[-1], ", ".join(segs[:-1])


def _short_names(raw: RawStory) -> dict[str, str]:
    """Graph names that speak of one variable, each mapped to one of them: a name that is
    the last words of exactly one longer name ('training' after 'job training'), or whose
    content words all name words of exactly one other name ('the treatment' after 'they
    get the new treatment', 'irrigation' after 'farmers irrigate', 'death' after 'they
    die'). Never two names an edge joins, nor a longer name whose other words name
    another variable."""
    keys = sorted(
        {name_key(n) for g in raw.graph for n in [x for e in g.edges for x in e] + g.names}
    )
    linked = {frozenset((name_key(a), name_key(b))) for g in raw.graph for a, b in g.edges}
    content = {k: phrase_words(k).content for k in keys}

    def covered(a: frozenset[str], b: frozenset[str]) -> bool:
        return bool(a) and all(any(stems_match(x, y) for y in b) for x in a)

    alias: dict[str, str] = {}
    for k in keys:
        longer = [other for other in keys if other != k and other.endswith(" " + k)]
        if not longer:
            longer = [
                other
                for other in keys
                if other != k
                and covered(content[k], content[other])
                # a name the other covers too is the same name said twice: one way round
                and not (covered(content[other], content[k]) and other > k)
                # the longer name's other words must not name a third variable
                and not any(
                    covered(content[third], content[other] - content[k])
                    for third in keys
                    if third not in (k, other)
                )
            ]
        # "the man in the room has a direct effect on room": two variables, not one
        if len(longer) == 1 and frozenset((k, longer[0])) not in linked:
            alias[k] = longer[0]
    # an alias of an alias: follow to the end (no cycles: each step goes one way)
    for k in list(alias):
        seen = {k}
        while alias[k] in alias and alias[k] not in seen:
            seen.add(alias[k])
            alias[k] = alias[alias[k]]
    return alias


# -- mentions -------------------------------------------------------------------------------


def _mentions(raw: RawStory, model: StatedModel):
    names = {k: v.name for k, v in model.variables.items()}
    resolver = Resolver(names, name_nouns=True)
    bind: list[tuple[str, object, object]] = []  # (kind, raw statement, resolver statement)
    order = {s: i for i, s in enumerate(raw.sentences)}
    for p in raw.probabilities:
        event = split_atoms(p.event)
        given = split_atoms(p.given)
        if not event:
            raise StoryRefusal("a probability is stated of nothing", p.sentence)
        slots = {"event": event, "given": given}
        st = resolver.add(
            "prob" if len(event) == 1 else "joint", slots, p.sentence, order.get(p.sentence, 0)
        )
        bind.append(("prob", p, st))
    for c in raw.correlations:
        st = resolver.add(
            "corr",
            {"a": [c.a], "b": [c.b], "given": split_atoms(c.given)},
            c.sentence,
            order.get(c.sentence, 0),
        )
        bind.append(("corr", c, st))
    for m in raw.mechanisms:
        st = resolver.add(
            "mech",
            {"mech_in": m.inputs, "mech_out": m.effects},
            m.sentence,
            order.get(m.sentence, 0),
        )
        bind.append(("mech", m, st))
    for v in raw.values:
        var = match_name(v.name, model)
        if var is None:
            raise StoryRefusal(
                f"the story gives values of '{v.name}', which the graph does not name", v.sentence
            )
        st = resolver.add("values", {"values": v.values}, v.sentence, order.get(v.sentence, 0))
        a, b = st.slots["values"]
        resolver.link_opposite(a, b)
        resolver.pinned[a] = var
        resolver.pinned[b] = var
        resolver.declared_first.add(a)
    for o in raw.observations:
        st = resolver.add("obs", {"obs": o.phrases}, o.sentence, order.get(o.sentence, 0))
        bind.append(("obs", o, st))
    return resolver, bind


def _fill_model(raw: RawStory, model: StatedModel, resolver: Resolver, res, bind) -> None:
    for var, why in res.positive_reason.items():
        model.variables[var].positive_reason = why
    for m in resolver.mentions:
        var, val = res.var_of[m.id], res.value_of[m.id]
        phrases = model.variables[var].phrases.setdefault(val, [])
        if m.text not in phrases:
            phrases.append(m.text)

    def assignment(ids: list[int], sentence: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for i in ids:
            var, val = res.var_of[i], res.value_of[i]
            if var in out:
                raise StoryRefusal(f"it speaks of {var} twice", sentence)
            out[var] = val
        return out

    for kind, rawst, st in bind:
        if kind == "prob":
            event = assignment(st.slots["event"], st.sentence)
            given = assignment(st.slots["given"], st.sentence)
            if set(event) & set(given):
                raise StoryRefusal("a probability is conditioned on its own variable", st.sentence)
            model.probabilities.append(
                Probability(event, given, rawst.number.value, st.sentence, rawst.number.text)
            )
        elif kind == "corr":
            a, b = res.var_of[st.slots["a"][0]], res.var_of[st.slots["b"][0]]
            given = assignment(st.slots["given"], st.sentence)
            if a == b or a in given or b in given:
                raise StoryRefusal(
                    "a correlation is stated between a variable and itself", st.sentence
                )
            model.correlations.append(
                Correlation(a, b, given, rawst.number.value, st.sentence, rawst.number.text)
            )
        elif kind == "mech":
            inputs = [(res.var_of[i], res.value_of[i]) for i in st.slots["mech_in"]]
            for o in st.slots["mech_out"]:
                model.mechanisms.append(
                    Mechanism(res.var_of[o], res.value_of[o], rawst.op, inputs, st.sentence)
                )
        elif kind == "obs":
            for i in st.slots["obs"]:
                model.observations.append(Observation(res.var_of[i], res.value_of[i], st.sentence))
    for m in raw.methods:
        adjust = []
        for name in m.adjust:
            var = match_name(name, model)
            if var is None:
                raise StoryRefusal(
                    f"the method names '{name}', which is not a variable of the graph", m.sentence
                )
            adjust.append(var)
        model.methods.append(Method(m.label, adjust, m.sentence))
    model.notes.extend(res.notes)


def match_name(name: str, model: StatedModel) -> str | None:
    """The variable a phrase names by its name (exactly, or by its words)."""
    key = name_key(name)
    if key in model.variables:
        return key
    words = phrase_words(name).content
    best, best_score = None, 0.0
    for var in model.variables:
        vw = phrase_words(var).content
        if not vw:
            continue
        hit = sum(1 for t in words if any(stems_match(t, u) for u in vw))
        score = hit / max(len(vw), len(words) or 1)
        if score > best_score:
            best, best_score = var, score
        elif score == best_score and score > 0:
            best = None
    return best if best_score >= 0.5 else None


# -- checks ---------------------------------------------------------------------------------


def _check(model: StatedModel) -> None:
    for p in model.probabilities:
        if not 0.0 <= p.value <= 1.0:
            raise StoryRefusal(
                f"a probability of {p.number} is not between 0% and 100%", p.sentence
            )
    for c in model.correlations:
        if not -1.0 <= c.value <= 1.0:
            raise StoryRefusal(f"a correlation of {c.number} is not between -1 and 1", c.sentence)
    seen: dict[tuple, object] = {}
    for p in model.probabilities:
        key = (tuple(sorted(p.event.items())), tuple(sorted(p.given.items())))
        if key in seen and abs(seen[key].value - p.value) > 1e-9:
            raise StoryRefusal(
                f"the same probability is stated twice with different numbers ({seen[key].number} and {p.number})",  # noqa: E501
                p.sentence,
            )
        seen[key] = p
        if len(p.event) == 1:
            ((var, val),) = p.event.items()
            comp = ((((var, 1 - val),)), key[1])
            if comp in seen and abs(seen[comp].value + p.value - 1.0) > ROUNDING:
                raise StoryRefusal(
                    f"a value and its complement are stated with numbers that do not add up to 100% ({seen[comp].number} and {p.number})",  # noqa: E501
                    p.sentence,
                )
    families: dict[tuple, list[Probability]] = defaultdict(list)
    for p in model.probabilities:
        if p.given and len(p.event) == 1:
            families[(next(iter(p.event)), tuple(sorted(p.given)))].append(p)
    for (var, gvars), ps in families.items():
        stated = {tuple(p.given[g] for g in gvars) for p in ps}
        missing = [c for c in itertools.product((0, 1), repeat=len(gvars)) if c not in stated]
        if missing:
            raise StoryRefusal(
                f"the probability of {var} is stated for some values of {', '.join(gvars)} but not for the others (a phrase may be misread)",  # noqa: E501
                ps[0].sentence,
            )
    # "If A, then B; if not A, then not B": the second clause restates the first
    kept: list[Mechanism] = []
    for m in model.mechanisms:
        twin = next(
            (
                k
                for k in kept
                if k.effect == m.effect
                and len(k.inputs) == len(m.inputs) == 1
                and k.inputs[0][0] == m.inputs[0][0]
                and k.inputs[0][1] != m.inputs[0][1]
                and k.effect_value != m.effect_value
            ),
            None,
        )
        if twin is None:
            kept.append(m)
    model.mechanisms = kept
    effects = defaultdict(list)
    for m in model.mechanisms:
        effects[m.effect].append(m)
        for v, _ in m.inputs:
            if v == m.effect:
                raise StoryRefusal("a mechanism makes a variable cause itself", m.sentence)
    for var, ms in effects.items():
        if len(ms) > 1:
            raise StoryRefusal(f"two mechanisms are stated for {var}", ms[1].sentence)
    obs: dict[str, Observation] = {}
    for o in model.observations:
        if o.variable in obs and obs[o.variable].value != o.value:
            raise StoryRefusal(f"{o.variable} is observed at both values", o.sentence)
        obs[o.variable] = o
