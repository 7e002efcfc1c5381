"""A story the rules cannot read, read sentence by sentence by the LLM under a JSON schema
— and then checked like any other reading.

The rules read the forms they know; a new writer's sentences ("Experienced students use a
thermometer 30% of the time, novices 60%") are often in none of them. For such a story the
LLM is asked, one sentence at a time with the whole story as context, two things a small
model does well because they only restructure the sentence's own words: which
cause-effect links the sentence states, and for each of its numbers (fixed by the schema,
in the sentence's order, so none is dropped, invented or swapped) the event it is the
probability of and the group it is about. Its answer is data: raw statements that go
through the same resolver and checks as the rules' (every number once, each phrase maps to
one variable, conditionals complete, complements consistent, acyclic), plus two checks of
its own — every word it writes is a word of the story, and a group's own words stand next
to its own number — so a misreading becomes a refusal naming the sentence. What a reading
that passes computes is shown (`solve.answer`), never given as the answer: misreadings
that pass every check remain (measured in bench/README.md).
"""

from __future__ import annotations

import json
import re
from typing import Any

from causalqa.llm.base import LLMError
from causalqa.stated.parse import (
    _CLOSED_WORLD_RE,
    _NO_EFFECT,
    GraphSentence,
    RawProbability,
    RawStory,
    clean_name,
    preprocess_lines,
    read_graph_sentence,
    read_number_sentence,
)
from causalqa.stated.refusal import StoryRefusal
from causalqa.stated.text import (
    find_numbers,
    phrase_words,
    split_sentences,
    stem,
    stems_match,
    with_placeholder,
    words,
)

ROUTE = "llm reading"
"""The `route` step of an answer read by the LLM."""

_SYSTEM = (
    "You read one sentence of a short story about causes and probabilities. Use only the "
    "story's own words. A cause-effect link is a sentence saying that one thing affects, "
    "causes, drives, raises, lowers or changes another; a sentence saying that something does "
    "NOT affect another, or that nothing else matters, states no link. Each number in the "
    "sentence is a probability: give the event it is the probability of (what happens) and "
    "the group it is about (the conditions, with their values as the story says them, such "
    "as 'smokers', 'without the drug', 'rainy days'), or an empty group when it is about "
    "everyone."
)

_NO_LINK = re.compile(
    r"\b(?:nothing\s+else|no\s+other|no\s+(?:hidden|unmeasured|unobserved|other)\s+(?:factor|cause|link|common)|"
    r"only\s+thing|independent(?:ly)?\s+of\s+each\s+other|not\s+linked)\b",
    re.I,
)


def _schema(numbers: list[str]) -> dict[str, Any]:
    props: dict[str, Any] = {
        "links": {
            "type": "array",
            "maxItems": 6,
            "items": {
                "type": "object",
                "properties": {"cause": {"type": "string"}, "effect": {"type": "string"}},
                "required": ["cause", "effect"],
                "additionalProperties": False,
            },
        }
    }
    for i, _ in enumerate(numbers, 1):
        props[f"number_{i}"] = {
            "type": "object",
            "properties": {"event": {"type": "string"}, "group": {"type": "string"}},
            "required": ["event", "group"],
            "additionalProperties": False,
        }
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def story_sentences(story: str) -> list[str]:
    """The story's sentences, a clause cut at a semicolon joined back to its sentence
    ('On rainy mornings 0.2 ride; on dry ones 0.75 do.' is one statement to read)."""
    out: list[str] = []
    for s in split_sentences(preprocess_lines(story.strip())):
        if out and out[-1].endswith(";"):
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
    return out


def read_story_with_llm(
    story: str, llm, *, rules_first: bool = False, asked: dict | None = None
) -> RawStory:
    """The raw statements of `story` as the LLM reads them, sentence by sentence; a
    `StoryRefusal` naming the sentence when its reading fails a check. With
    `rules_first`, a sentence of numbers the rules can read keeps the rules' reading
    (the LLM reads the links and the sentences the rules cannot). `asked` keeps the
    LLM's answer per sentence, so a second reading of the story asks no sentence twice."""
    asked = {} if asked is None else asked
    raw = RawStory()
    raw.closed_world = _CLOSED_WORLD_RE.search(story) is not None
    sentences = story_sentences(story)
    raw.sentences = sentences
    story_stems = _vocabulary(story)
    for sentence in sentences:
        # a count ("over 65", "since 1950") is no probability; a percentage or a ratio over
        # 1 is a bad one, refused
        numbers = []
        for found in find_numbers(sentence):
            number = found[2]
            if 0.0 <= number.value <= 1.0:
                numbers.append(found)
            elif number.percent or not re.fullmatch(r"[\d.]+", number.text.strip()):
                raise StoryRefusal(
                    f"{number.text} is not a probability (it is above 100%)", sentence
                )
        no_link = bool(_NO_EFFECT.search(sentence) or _NO_LINK.search(sentence))
        if not numbers:
            # the rules' reading of a sentence that states that two names are unlinked or
            # unobserved is kept; the LLM is asked only for links
            g = read_graph_sentence(sentence)
            if g is not None and (g.unobserved or g.absent):
                raw.graph.append(g)
                continue
            if no_link and len(_denying_clauses(sentence)) == len(_clauses(sentence)):
                raw.ignored.append(sentence)  # "Nothing else matters.": no link to read
                continue
        if numbers and rules_first:
            previous = raw.probabilities[-1] if raw.probabilities else None
            read, why = read_number_sentence(sentence, previous, segment=True)
            if why is None and read and all(isinstance(r, RawProbability) for r in read):
                raw.probabilities.extend(read)
                continue
        said = [n.text for _, _, n in numbers]
        key = (sentence, tuple(said))
        if key not in asked:
            asked[key] = _ask(llm, story, sentence, said)
        data = asked[key]
        denied = _denying_clauses(sentence) if no_link else []
        edges = []
        for link in data.get("links", []):
            cause, effect = clean_name(link["cause"]), clean_name(link["effect"])
            if not cause or not effect or cause.lower() == effect.lower():
                continue
            if any(_says(clause, cause) and _says(clause, effect) for clause in denied):
                continue  # "owning a dog has no effect on gardening": no link
            _check_grounded([cause, effect], story_stems, sentence)
            edges.append((cause, effect))
        if edges:
            raw.graph.append(GraphSentence(sentence, edges=edges))
        statements = []
        for i, (start, end, number) in enumerate(numbers, 1):
            item = data[f"number_{i}"]
            event, group = _without_numbers(item["event"]), _clean_group(item["group"])
            if not phrase_words(event).content:
                raise StoryRefusal(f"the LLM's reading names no event for {number.text}", sentence)
            _check_grounded([event, group], story_stems, sentence)
            statements.append((start, end, RawProbability(event, group, number, sentence)))
        _check_groups_stand_by_their_numbers(sentence, statements)
        raw.probabilities.extend(p for *_, p in statements)
        if not numbers and not edges:
            raw.ignored.append(sentence)
    return raw


# Worked examples (a story of our own, in no test set), as chat turns: a small model
# follows a shown answer far better than a described one.
_EXAMPLE_STORY = (
    "Frost damages the blossoms, and damaged blossoms mean a poor crop. Frost strikes in "
    "one spring out of five. After a frost, 70% of trees have damaged blossoms; in other "
    "springs only 10% do. A poor crop follows damage with probability 0.8, and without "
    "damage 0.1."
)
_EXAMPLES = [
    (
        "Frost damages the blossoms, and damaged blossoms mean a poor crop.",
        [],
        {
            "links": [
                {"cause": "frost", "effect": "damaged blossoms"},
                {"cause": "damaged blossoms", "effect": "poor crop"},
            ]
        },
    ),
    (
        "Frost strikes in one spring out of five.",
        ["one spring out of five"],
        {"links": [], "number_1": {"event": "frost", "group": ""}},
    ),
    (
        "After a frost, 70% of trees have damaged blossoms; in other springs only 10% do.",
        ["70%", "10%"],
        {
            "links": [],
            "number_1": {"event": "damaged blossoms", "group": "after a frost"},
            "number_2": {"event": "damaged blossoms", "group": "other springs"},
        },
    ),
    (
        "A poor crop follows damage with probability 0.8, and without damage 0.1.",
        ["0.8", "0.1"],
        {
            "links": [],
            "number_1": {"event": "poor crop", "group": "damage"},
            "number_2": {"event": "poor crop", "group": "without damage"},
        },
    ),
]


def _prompt(story: str, sentence: str, numbers: list[str]) -> str:
    listed = "; ".join(f"number_{i} = {n}" for i, n in enumerate(numbers, 1))
    prompt = f"Story:\n{story.strip()}\n\nSentence:\n{sentence}\n\n"
    return prompt + (
        f"Numbers in the sentence: {listed}." if numbers else "The sentence has no numbers."
    )


def _clauses(sentence: str) -> list[str]:
    return [c for c in re.split(r"\s*[;:,]\s*|\s+-\s+", sentence) if c.strip()]


def _denying_clauses(sentence: str) -> list[str]:
    """The clauses of a sentence that deny a link or say nothing else matters."""
    return [c for c in _clauses(sentence) if _NO_EFFECT.search(c) or _NO_LINK.search(c)]


def _says(clause: str, name: str) -> bool:
    said = phrase_words(clause).content
    return any(stems_match(w, x) for w in phrase_words(name).content for x in said)


def _ask(llm, story: str, sentence: str, numbers: list[str]) -> dict[str, Any]:
    messages = [{"role": "system", "content": _SYSTEM}]
    for example, example_numbers, answer in _EXAMPLES:
        messages.append(
            {"role": "user", "content": _prompt(_EXAMPLE_STORY, example, example_numbers)}
        )
        messages.append({"role": "assistant", "content": json.dumps(answer)})
    messages.append({"role": "user", "content": _prompt(story, sentence, numbers)})
    try:
        response = llm.complete(
            messages,
            schema=_schema(numbers),
            max_tokens=120 + 60 * len(numbers),
        )
    except LLMError as e:
        raise StoryRefusal(f"the LLM could not read the sentence ({e})", sentence) from None
    return response.data or {}


_EVERYONE = re.compile(r"^(?:everyone|everybody|all|none|n/?a|overall|general|-|)$", re.I)


def _without_numbers(phrase: str) -> str:
    text, _ = with_placeholder(phrase)
    return " ".join(text.replace("⟨N⟩", " ").split()).strip(" .;,:")


def _clean_group(group: str) -> str:
    g = _without_numbers(group)
    return "" if _EVERYONE.fullmatch(g) else g


def _vocabulary(text: str) -> set[str]:
    """The words of `text` as the grounding check compares them: as written, stemmed, and
    as phrase content (where 'gets' is 'acquire')."""
    return {stem(w) for w in words(text)} | set(phrase_words(text).content) | set(words(text))


def _check_grounded(
    phrases: list[str], story_stems: set[str], sentence: str, where: str = "story"
) -> None:
    """Every content word the LLM wrote is a word of the story (it may restructure the
    story's words, never bring its own): by stem, or as the start of a story word
    ('trial' for 'trialled')."""
    for phrase in phrases:
        for word, written in phrase_words(phrase).written:
            if any(stems_match(word, s) for s in story_stems):
                continue
            low = written.lower()
            head = low[:5]
            if len(head) >= 4 and any(
                s.startswith(head) or (len(s) >= 4 and low.startswith(s)) for s in story_stems
            ):
                continue  # 'trial' for 'trialled', 'burnt' for 'burn'
            raise StoryRefusal(
                f"the LLM's reading uses '{written}', a word the {where} does not use",
                sentence,
            )


def _check_groups_stand_by_their_numbers(
    sentence: str, statements: list[tuple[int, int, RawProbability]]
) -> None:
    """A group's own words (those the other groups of the sentence lack) that the sentence
    says must stand nearer its own number than any other: the LLM may not hand one
    number's group to another."""
    if len(statements) < 2:
        return
    lowered = sentence.lower()
    spans = [(s, e) for s, e, _ in statements]
    words = {i: set(phrase_words(p.given).content) for i, (*_, p) in enumerate(statements)}
    for i, (_, _, p) in enumerate(statements):
        others = set().union(*(w for j, w in words.items() if j != i))
        own = [w for w in words[i] if not any(stems_match(w, o) for o in others)]
        placed = [
            _nearest(m.start(), spans)
            for word in own
            for m in re.finditer(r"[a-z]+", lowered)
            if stems_match(stem(m.group(0)), word)
        ]
        # said in another sentence ('when it does'): nothing to place
        if placed and i not in placed:
            raise StoryRefusal(
                f"the LLM's reading gives '{p.given}' to {p.number.text}, but the "
                "sentence says it next to another number",
                sentence,
            )


def _nearest(pos: int, spans: list[tuple[int, int]]) -> int:
    return min(
        range(len(spans)),
        key=lambda i: (
            0
            if spans[i][0] <= pos < spans[i][1]
            else min(abs(pos - spans[i][0]), abs(pos - spans[i][1]))
        ),
    )


# -- the question ---------------------------------------------------------------------------

QUESTION_ROUTE = "llm question"
"""The `route` step of an answer whose question the LLM put into a form the rules read."""

# The kinds a question may ask, as the LLM is shown them, and the form the rules read
# that each is written back into ({d}: "more"/"less"; {v}: "increase"/"decrease").
_QUESTION_KINDS = {
    "how likely one thing is overall": "Is {outcome} {d} likely than not?",
    "compare how common something is in two groups": (
        "Is {outcome} {d} likely among {group} than among {other_group}?"
    ),
    "effect of doing something on an outcome": "Does {cause} {v} the chance of {outcome}?",
    "for those who did something, what if they had not": (
        "For {group}, would {outcome} have been {d} likely had they not done so?"
    ),
    "direct effect, not through a middle step": (
        "Does {cause} directly {v} the chance of {outcome}, not through {middle}?"
    ),
    "effect through a middle step": "Does {cause} {v} the chance of {outcome} through {middle}?",
    "within a selected group, compare two causes": (
        "If we look at {selected}, does the chance of {outcome} {v} when {cause}?"
    ),
}
_SLOTS = ("outcome", "cause", "group", "other_group", "middle", "selected")
_UP = re.compile(
    r"\b(?:more|increase[sd]?|raise[sd]?|higher|greater|boost(?:s|ed)?|most|majority)\b", re.I
)
_DOWN = re.compile(
    r"\b(?:less|fewer|decrease[sd]?|reduce[sd]?|lower(?:s|ed)?|cuts?|minority)\b", re.I
)

_THROUGH = re.compile(
    r"\b(?:through|via|by\s+way\s+of)\s+(?:its\s+effect\s+on\s+)?(?P<m>[^,?.;()]+)", re.I
)

_QUESTION_SYSTEM = (
    "You read a yes/no question about a short story of causes and probabilities and say "
    "what it asks: its kind, whether it asks about 'more' or 'less', and its parts in the "
    "question's own words: the outcome (what may happen), the cause (what is done or "
    "changed), the group and the other group being compared, the middle step (a mediator), "
    "or the selected group. Leave a part empty when the question has none."
)


def read_question_with_llm(question: str, story: str, llm) -> str:
    """The question written back into a form the rules read, from the LLM's reading of
    its kind, direction and parts; a `StoryRefusal` when the reading fails a check."""
    schema = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": list(_QUESTION_KINDS)},
            "direction": {"type": "string", "enum": ["more", "less"]},
            **{slot: {"type": "string"} for slot in _SLOTS},
        },
        "required": ["kind", "direction", *_SLOTS],
        "additionalProperties": False,
    }
    prompt = f"Story:\n{story.strip()}\n\nQuestion:\n{question.strip()}"
    try:
        response = llm.complete(
            [{"role": "system", "content": _QUESTION_SYSTEM}, {"role": "user", "content": prompt}],
            schema=schema,
            max_tokens=250,
        )
    except LLMError as e:
        raise StoryRefusal(f"the LLM could not read the question ({e})", question) from None
    data = response.data or {}
    template = _QUESTION_KINDS[data["kind"]]
    slots = {slot: _without_numbers(data.get(slot, "")) for slot in _SLOTS}
    needed = re.findall(r"\{(\w+)\}", template)
    if "middle" in needed and not slots["middle"]:
        # "not counting its effect through weight loss": the words after "through"
        said = _THROUGH.search(question)
        slots["middle"] = said.group("m").strip() if said else ""
    for slot in needed:
        if slot in _SLOTS and not slots[slot]:
            raise StoryRefusal(
                f"the LLM read the question as '{data['kind']}' but found no {slot}", question
            )
    # the parts are the question's own words (the story's would let it ask another question)
    _check_grounded(
        [slots[s] for s in needed if s in _SLOTS],
        _vocabulary(question),
        question,
        where="question",
    )
    said = [slots[s] for s in needed if s in _SLOTS]
    if len({phrase_words(p).content for p in said}) < len(said):
        raise StoryRefusal("the LLM's reading of the question names one part twice", question)
    # the direction is the question's own word when it has one kind only ("raise",
    # "fewer"); the LLM's reading of it only when its words say both or neither
    up, down = bool(_UP.search(question)), bool(_DOWN.search(question))
    more = up if up != down else data["direction"] == "more"
    canonical = template.format(
        d="more" if more else "less", v="increase" if more else "decrease", **slots
    )
    dropped = _negations(question) - _negations(canonical)
    if dropped:
        # "kept out of a hot oven" read as "a hot oven": the value would flip unseen
        raise StoryRefusal(
            f"the LLM's reading of the question drops its '{sorted(dropped)[0]}'", question
        )
    return canonical


_NEGATING = re.compile(
    r"\b(?:not|no|never|without|none|nobody|out|stop(?:ped|s)?|remov\w*|avoid\w*|instead|"
    r"rather|except|lack\w*|skip\w*|\w+n't)\b",
    re.I,
)


def _negations(text: str) -> set[str]:
    # "more likely than not" negates nothing
    text = re.sub(r"\bthan\s+not\b", " ", text, flags=re.I)
    return {m.group(0).lower() for m in _NEGATING.finditer(text)}
