"""What every stated-model question returns: the yes/no answer (or a refusal with its
reason), the value computed, the estimand, the typed model read from the story and the
steps of the derivation, so a reader can check each one."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_serializer


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
    `note` is a caveat an answer carries: a close call, whose sign the stated numbers
    decide only when taken as exact (within their rounding it could flip).
    """

    answer: Literal["yes", "no"] | None
    reason: str | None = None
    value: float | None = None
    estimand: str | None = None
    query: dict[str, Any] = Field(default_factory=dict)
    model: dict[str, Any] = Field(default_factory=dict)
    derivation: list[str] = Field(default_factory=list)
    route: list[str] = Field(default_factory=list)
    note: str | None = None
    seconds: float | None = None

    @field_serializer("value")
    def _without_float_noise(self, value: float | None) -> float | None:
        # 0.6 * 0.3 is 0.17999999999999994 in binary: twelve digits say every stated number
        return None if value is None else round(value, 12)

    @property
    def refused(self) -> bool:
        return self.answer is None
