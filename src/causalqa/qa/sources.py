"""Where a plan comes from: the assistant asks each plan source in turn, and the first plan
that passes the check is run.

A source is a small object with one method, ``propose(assistant, reading)``, which returns
an `Offer` (a plan), a string (an honest answer that ends the question: nothing further is
tried), or None (nothing to offer; the next source is asked). `Reading` is what the
sources see: the question, its grounding and frame, the plan that failed the check first
and why, and the route so far. The order, in `SOURCES`:

1. `FrameReader` — the question's frame read by rule (`frame.py`), when there is one;
2. `LLMPlanner` — the planner (the learned check's sure tool, else the LLM), when no frame
   was read;
3. `OpenPlanner` — the LLM writing one whole plan over every query tool: when the
   planner could not plan at all, or its plan failed the check;
4. `KindGuided` — the plan of the kind the learned check is sure of, when the plans
   before failed the check (never against a graph frame read by rule).

After an execution error, `REPAIR` asks the planner for a corrected plan once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from causalqa.causal_model import CausalModel
from causalqa.errors import LLMOutputError
from causalqa.llm import Usage
from causalqa.qa.check import refusal
from causalqa.qa.frame import Frame, plan_of, slotted
from causalqa.qa.grounding import Grounding
from causalqa.qa.intent import default_model as default_intent_model
from causalqa.qa.intent import intent_text, plan_for
from causalqa.qa.planner import PlanResult
from causalqa.qa.tools import PlanError

Plan = dict[str, Any]


class Assistant(Protocol):
    """What a source uses of the assistant that asks it (`causalqa.qa.assistant`)."""

    model: CausalModel
    planner: Any
    """The planner: `Planner`, or a stand-in with the same `plan`/`plan_open` (a replay's
    recorded plans), looked up when a source is asked."""
    check: bool
    open_plans: bool

    def open_plan(self, question: str, grounding: Grounding) -> PlanResult | None: ...


GUIDE_CONFIDENCE = 0.6
"""How sure the learned check must be of a question's kind before a plan is written from
that kind alone (for a question whose plan failed the check)."""


@dataclass
class Offer:
    """A plan a source offers, with the planner's result when an LLM planned it."""

    plan: Plan
    planned: PlanResult | None = None


@dataclass
class Reading:
    """A question as the sources see it, and what happened to it so far."""

    question: str
    grounding: Grounding
    asked: tuple[str, Grounding] | None
    """The question whose wording says what kind of question this is (a follow-up's
    previous one), or None for the question itself."""
    steps: dict[str, float]
    history: list[tuple[str, dict, dict]]
    frame: Frame | None = None
    failed: Offer | None = None
    """The first offer that failed the check: the answer refuses with its problems when no
    later source offers a plan that passes."""
    issues: list[str] = field(default_factory=list)
    planner_error: str | None = None
    """Why the planner could not plan at all (its `PlanError`), if so."""
    usage: Usage = field(default_factory=Usage)
    route: list[dict[str, Any]] = field(default_factory=list)


class FrameReader:
    """The plan of the frame the wording states (read by rule in `Assistant._read`)."""

    name = "frame"

    def propose(self, assistant: Assistant, reading: Reading) -> Offer | str | None:
        frame = reading.frame
        if frame is None:
            return None
        plan = plan_of(frame, reading.grounding)
        if plan is None:
            return refusal(
                [f"it asks for {frame.kind}, but not all of its arguments are named"],
                assistant.model,
            )
        return Offer(plan)


class LLMPlanner:
    """The planner's plan (`Planner.plan`: the learned check's tool when it is sure, else
    the LLM's choice), for a question no frame was read for."""

    name = "planner"

    def propose(self, assistant: Assistant, reading: Reading) -> Offer | str | None:
        if reading.frame is not None:
            return None
        try:
            planned = assistant.planner.plan(
                reading.question, assistant.model, reading.grounding, history=reading.history
            )
        except PlanError as e:
            reading.planner_error = e.message
            return None
        except LLMOutputError as e:
            return f"The language model did not produce a usable plan: {e.message}"
        return Offer(planned.plan, planned)


class OpenPlanner:
    """One whole plan over every query tool, written by the LLM (`Planner.plan_open`): when
    the planner could not plan at all (then its failure is the answer if this cannot plan
    either), or when the planner's plan failed the check."""

    name = "open planner"

    def propose(self, assistant: Assistant, reading: Reading) -> Offer | str | None:
        if reading.planner_error is not None:
            opened = (
                assistant.open_plan(reading.question, reading.grounding)
                if assistant.open_plans
                else None
            )
            if opened is None:
                return f"I cannot answer that from this model: {reading.planner_error}."
            return Offer(opened.plan, opened)
        if reading.failed is None or reading.frame is not None or not assistant.open_plans:
            return None
        opened = assistant.open_plan(reading.question, reading.grounding)
        if opened is None or opened.plan == reading.failed.plan:
            return None
        return Offer(opened.plan, opened)


class KindGuided:
    """When the plans before failed the check and the learned check is sure what kind of
    question this is (and its arguments cannot be misread): the plan of that kind. Not for
    a follow-up, and not against a graph frame: that is the wording read by rule, and when
    the learned check reads another kind the answer is a refusal (it answered "what sits
    upstream of both" with common effects)."""

    name = "learned intent"

    def propose(self, assistant: Assistant, reading: Reading) -> Offer | str | None:
        if reading.failed is None or not assistant.check or reading.asked is not None:
            return None
        if reading.frame is not None and reading.frame.graph:
            return None
        g = reading.grounding
        text, slots = slotted(reading.question, g)
        intent = default_intent_model()
        p = intent.predict_proba([intent_text(text, slots)])[0]
        top = int(p.argmax())
        if p[top] < GUIDE_CONFIDENCE or g.names("subject"):
            return None
        guided = plan_for(str(intent.classes_[top]), slots, g, text)
        if guided is None or guided == reading.failed.plan:
            return None
        return Offer(guided)


class Repair:
    """After the accepted plan failed to execute: the planner's corrected plan, given the
    error and the plan that caused it (once; an LLM-planned plan only)."""

    name = "repair"

    def propose(
        self, assistant: Assistant, reading: Reading, *, error: str, previous: Plan
    ) -> PlanResult:
        return assistant.planner.plan(
            reading.question,
            assistant.model,
            reading.grounding,
            history=reading.history,
            error=error,
            previous=previous,
        )


SOURCES = (FrameReader(), LLMPlanner(), OpenPlanner(), KindGuided())
"""The plan sources in the order the assistant asks them."""
REPAIR = Repair()
