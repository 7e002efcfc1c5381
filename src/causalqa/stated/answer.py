"""The entry point of stated models: `answer_story` (read -> query -> identify -> compute
-> answer), `read_story` and `read_query` as named steps, and `StatedAnswer`, what every
question returns."""

from __future__ import annotations

from causalqa.stated.result import StatedAnswer

__all__ = ["StatedAnswer", "answer_story", "read_query", "read_story"]


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
