"""One entry for every causal model stated in words: `ask_story` sends a premise of stated
(in)dependences (Corr2Cause) to `answer_independence_claim` and any other story — a graph
with probabilities, or with mechanisms (CLadder) — to `answer_story`. Every surface (CLI,
batch, HTTP, MCP, web page) calls it, so they all answer alike.

The premise's wording decides (`is_independence_story`: a closed system, correlations or
independences, no percentages). A few stories of the other kind match those words too —
a CLadder question about which method to use says "how X correlates with Y" — so when
the independence reader cannot read such a story as a premise, the story reader gets it.

    >>> a = ask_story(
    ...     "Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
    ...     "relations among these 3 variables are as follows: A correlates with C. B "
    ...     "correlates with C. However, A is independent of B.", "Does A directly cause C?")
    >>> a.answer, a.route[0], a.model["cpdag"]["directed"]
    ('yes', 'stated independences', [['A', 'C'], ['B', 'C']])
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from causalqa.errors import StoryError
from causalqa.stated.result import StatedAnswer

__all__ = ["INDEPENDENCES", "STATED_MODEL", "ask_batch", "ask_story"]

INDEPENDENCES = "stated independences"
"""The first step of `StatedAnswer.route` when the premise-of-(in)dependences reader answered."""
STATED_MODEL = "stated model"
"""The first step of `StatedAnswer.route` when the graph-and-numbers reader answered."""


def ask_story(story: str, question: str, *, llm: Any = None) -> StatedAnswer:
    """Answer a question (or check a claim) about a causal model stated in words, or refuse.

    `story` is the text itself (surfaces read files); `question` a yes/no question, or a
    claim such as "A directly causes B." (yes when it follows from the story). A premise
    of stated (in)dependences is answered over its Markov equivalence class, and its
    ``model`` then also holds the class's CPDAG (``cpdag``: ``directed`` and
    ``undirected`` edges) for drawing; any other story by reading its graph, numbers or
    mechanisms and computing the query exactly. `llm` (a `causalqa.llm.LLM`) is asked
    only when the words of a graph-and-numbers story leave two readings tied.

    Returns a `StatedAnswer` whose ``route`` starts with the reader that answered
    (`INDEPENDENCES` or `STATED_MODEL`). Bad text is a refusal (answer None, the reason
    naming the sentence), never an exception; `StoryError` only when `story` or
    `question` is not text.
    """
    for name, value in (("story", story), ("question", question)):
        if not isinstance(value, str):
            raise StoryError(f"a {name} must be text, got {type(value).__name__}")
    from causalqa.stated.answer import answer_story
    from causalqa.stated.independence import answer_independence_claim, is_independence_story

    if not is_independence_story(story):
        return _routed(answer_story(story, question, llm=llm), STATED_MODEL)
    premise = answer_independence_claim(story, question)
    if premise.model:  # read as a premise: its answer or refusal is the one that counts
        return _with_cpdag(_routed(premise, INDEPENDENCES))
    other = answer_story(story, question, llm=llm)
    if other.answer is not None or other.model:
        return _routed(other, STATED_MODEL)
    return StatedAnswer(
        answer=None,
        reason=f"read as stated (in)dependences: {premise.reason}; read as a graph with "
        f"numbers: {other.reason}",
        route=[INDEPENDENCES, STATED_MODEL],
        seconds=(premise.seconds or 0.0) + (other.seconds or 0.0),
    )


def ask_batch(lines: Iterable[str], *, llm: Any = None) -> Iterator[dict[str, Any]]:
    """Answer JSON Lines items ``{"id", "story", "question"}``: one result per non-blank
    line, in input order, each as soon as it is answered.

    A result is ``{"id", "line", "malformed", **StatedAnswer}`` (``line`` counts from 1,
    blank lines included). A line that is not a JSON object with text fields ``story``
    and ``question`` gives a result with ``malformed`` true, answer None and the reason
    naming the line; the other lines are answered all the same. Other fields of an item
    (an expected answer, a kind) are left out.
    """
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as e:
            yield _malformed(None, number, f"not JSON ({e.msg} at column {e.colno})")
            continue
        if not isinstance(item, dict):
            yield _malformed(None, number, "not a JSON object")
            continue
        missing = [
            field
            for field in ("story", "question")
            if not isinstance(item.get(field), str) or not item[field].strip()
        ]
        if missing:
            fields = " and ".join(missing)
            yield _malformed(item.get("id"), number, f"no text in {fields}")
            continue
        try:
            answer = ask_story(item["story"], item["question"], llm=llm)
        except StoryError as e:  # text beyond the readers' limits: this item only
            yield _malformed(item.get("id"), number, e.message)
            continue
        yield {"id": item.get("id"), "line": number, "malformed": False, **answer.model_dump()}


def _malformed(item_id: Any, number: int, problem: str) -> dict[str, Any]:
    refusal = StatedAnswer(answer=None, reason=f"line {number}: {problem}")
    return {"id": item_id, "line": number, "malformed": True, **refusal.model_dump()}


def _routed(answer: StatedAnswer, reader: str) -> StatedAnswer:
    return answer.model_copy(update={"route": [reader, *answer.route]})


def _with_cpdag(answer: StatedAnswer) -> StatedAnswer:
    """The answer with its premise's CPDAG in ``model["cpdag"]`` — what the page draws —
    when the premise fits some DAG (a refused premise has none to show)."""
    from causalqa.stated.independence import Premise, Statement, equivalence_class

    model = answer.model
    try:
        premise = Premise(
            variables=tuple(model["variables"]),
            statements=tuple(
                Statement(s["x"], s["y"], tuple(s["given"]), s["independent"], s["sentence"])
                for s in model["statements"]
            ),
            declared=model.get("variables_declared", True),
        )
        pattern = equivalence_class(premise).pattern
    except (StoryError, KeyError, TypeError):
        return answer
    names = premise.variables
    cpdag = {
        "directed": sorted([names[a], names[b]] for a, b in pattern.directed),
        "undirected": sorted(sorted(names[i] for i in edge) for edge in pattern.undirected),
    }
    return answer.model_copy(update={"model": {**model, "cpdag": cpdag}})
