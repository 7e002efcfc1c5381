"""What every stated-model question returns: the yes/no answer (or a refusal with its
reason), the value computed, the estimand, the typed model read from the story and the
steps of the derivation, so a reader can check each one."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class StatedAnswer(BaseModel):
    """One answer to a question (or a claim) about a model stated in words.

    `answer` is "yes" / "no", or None when the question is refused; `reason` then says
    why (naming the sentence or the quantity that could not be read or identified).
    `value` is the number the answer was decided from (an effect, a probability, a
    correlation), when one was computed; `estimand` the formal quantity, e.g.
    "E[Y | do(X=1)] - E[Y | do(X=0)]" and how it was identified. `model` is the typed
    model read from the story (variables with value phrases, edges, stated numbers,
    mechanisms or stated independences), `query` the typed question, `derivation` the
    steps from the stated numbers to the value, `route` which readers ran (rules, LLM).
    """

    answer: Literal["yes", "no"] | None
    reason: str | None = None
    value: float | None = None
    estimand: str | None = None
    query: dict[str, Any] = Field(default_factory=dict)
    model: dict[str, Any] = Field(default_factory=dict)
    derivation: list[str] = Field(default_factory=list)
    route: list[str] = Field(default_factory=list)
    seconds: float | None = None

    @property
    def refused(self) -> bool:
        return self.answer is None


# -- the entry point ----------------------------------------------------------------------------


def answer_story(story: str, question: str, *, llm=None) -> StatedAnswer:
    """Answer a yes/no question about a causal model stated in words, exactly, or refuse.

    Steps (each one typed and shown in the answer): read the story and the question's
    phrases into a model (variables with value phrases, edges, stated numbers) and a
    query; identify the query from the graph; compute it from exactly the stated numbers;
    answer yes/no from its sign. A story that cannot be read consistently, a question of
    an unknown form, or a quantity the numbers do not identify gives `answer=None` with
    the reason (naming the sentence or the quantity) — never a guess.

    `llm` (a `causalqa.llm.LLM`) is asked only when the words leave two readings of a
    phrase tied; its choice is checked like any other reading. Without it such a story is
    refused. `StoryError` is raised only for arguments that are not text.
    """
    from causalqa.stated.solve import answer

    return answer(story, question, llm=llm)


def read_story(story: str, *, llm=None):
    """The typed model a story states (`StatedModel`); raises `StoryRefusal` (with the
    sentence at fault) when it cannot be read consistently."""
    from causalqa.stated.reader import read_story as _read

    return _read(story, llm=llm)


def read_query(question: str, model):
    """The typed query (`Query`) a question asks about a model read by `read_story`."""
    from causalqa.stated.solve import read_query as _rq

    return _rq(question, model)
