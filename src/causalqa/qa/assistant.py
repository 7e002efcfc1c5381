"""The QA engine: `Assistant(model, llm=…).ask(question) -> Answer`.

Tool mode runs named steps — ground → plan → execute → verbalise — and keeps the
structured result with the answer. Context mode is the paper's baseline (`context.py`).
A follow-up question in a conversation ("and for partner 3?") is grounded together with
the previous question: what it names replaces what the previous one named of that kind.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, Field

from causalqa.causal_model import CausalModel
from causalqa.errors import LLMOutputError, QuestionError
from causalqa.llm import LLM, Usage, get_llm
from causalqa.qa.check import CheckReport, check_plan, refusal, unanswerable
from causalqa.qa.context import answer_in_context
from causalqa.qa.cues import FOLLOW_UP, answer_type, asks_count
from causalqa.qa.frame import read_frame
from causalqa.qa.grounding import Grounding, Mention, ground
from causalqa.qa.planner import SURE, ExampleMode, IntentChoice, Planner, PlanResult, Strategy
from causalqa.qa.sources import REPAIR, SOURCES, Offer, Reading
from causalqa.qa.tools import PlanError, execute, validate_plan
from causalqa.qa.verbalise import computation, count_answer, llm_sentence, template_sentence

Mode = Literal["tool", "context"]
Verbaliser = Literal["template", "llm"]

MAX_QUESTION_CHARS = 2_000
"""Longer text is not a question (and would not fit the planner's prompt)."""


class Answer(BaseModel):
    """An answer and everything it rests on."""

    question: str
    answer: str
    result: Any = None
    """A bool, a list of names, a number, or {"arg", "value"}; None when not answered."""
    plan: dict[str, Any] | None = None
    mode: str = "tool"
    grounding: dict[str, Any] | None = None
    answered: bool = True
    usage: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0
    step_seconds: dict[str, float] = Field(default_factory=dict)
    cached: bool = False
    """True when the plan came from the response cache (seconds then exclude the LLM)."""
    model: str = ""
    computed: str | None = None
    """What was computed, in words derived from the plan ("the median of 'Tech Support''s
    effect over 1,000 partners"); None when nothing was."""
    route: list[dict[str, Any]] = Field(default_factory=list)
    """How the answer came about, in order: each plan source asked (``source``), what it
    offered (``outcome``: ``plan``, ``nothing`` or ``refused``) and, for a plan, which
    rules of the check it passed and failed (`explain_route` prints it)."""


def _usage_dict(u: Usage) -> dict[str, int]:
    return {
        "prompt_tokens": u.prompt_tokens,
        "completion_tokens": u.completion_tokens,
        "total_tokens": u.total_tokens,
    }


class Assistant:
    """Answers questions about one causal model.

    Parameters: `llm` (an LLM or a backend spec string; default: resolved from flag/env/
    config), `mode` ("tool" or the paper's "context" baseline), `examples` (the planner's
    worked examples: "all", "retrieve" or "none"), `strategy` ("intent": the LLM picks the
    tool and grounding fills its arguments; "plan": the LLM writes the whole call),
    `verbaliser` ("template": exact and instant; "llm": the model's own sentence, kept only
    when it states the result), `repair` (re-plan once with the executor's error), `cues`
    (read answer type, direction, scope and count from the wording; see `qa/cues.py`),
    `intent_choice` (how the LLM picks a tool: "generate" or "logprob"; see `Planner`),
    `check` (refuse a plan that does not compute what the question asks; see `check.py`),
    `open_plans` (when neither the wording nor the paper's tools give a plan that passes
    the check, let the LLM write one over every query tool, checked in turn), `sure`
    (take the learned check's tool without the LLM at this probability; None: never).
    """

    def __init__(
        self,
        model: CausalModel,
        llm: LLM | str | None = None,
        *,
        mode: Mode = "tool",
        examples: ExampleMode = "all",
        strategy: Strategy = "intent",
        verbaliser: Verbaliser = "template",
        repair: bool = True,
        cues: bool = True,
        intent_choice: IntentChoice = "generate",
        check: bool = True,
        open_plans: bool = True,
        sure: float | None = SURE,
    ) -> None:
        self.model = model
        self.check = check
        self.open_plans = open_plans and cues
        self.llm = llm if isinstance(llm, LLM) else get_llm(llm)
        self.mode = mode
        self.verbaliser = verbaliser
        self.repair = repair
        self.planner = Planner(
            self.llm,
            examples=examples,
            strategy=strategy,
            cues=cues,
            intent_choice=intent_choice,
            sure=sure,
        )
        self.sources = SOURCES
        """The plan sources, asked in order (`causalqa.qa.sources`)."""
        self.history: list[tuple[str, dict, dict]] = []
        self._last: tuple[str, Grounding] | None = None
        self._kind_source: tuple[str, Grounding] | None = None
        """The last question that was not a follow-up, with its own grounding: its
        wording says what a follow-up asks."""

    def open_plan(self, question: str, g: Grounding) -> PlanResult | None:
        """The open planner's plan, or None when it cannot write a valid one."""
        if not self.check:
            return None  # an unchecked open plan could answer something else
        try:
            opened = self.planner.plan_open(question, self.model, g)
            validate_plan(opened.plan, self.model, max_steps=1)
        except (PlanError, LLMOutputError):
            return None
        return opened

    def reset(self) -> None:
        """Forget the conversation."""
        self.history.clear()
        self._last = None
        self._kind_source = None

    def ask(self, question: str) -> Answer:
        if not isinstance(question, str) or not question.strip():
            raise QuestionError("the question is empty", hint="ask something about the model")
        if len(question) > MAX_QUESTION_CHARS:
            raise QuestionError(
                f"the question is too long ({len(question):,} characters; at most "
                f"{MAX_QUESTION_CHARS:,})"
            )
        start = time.perf_counter()
        if self.mode == "context":
            answer = self._ask_in_context(question)
        else:
            answer = self._ask_with_tools(question)
        answer.seconds = round(time.perf_counter() - start, 3)
        answer.model = f"{self.llm.backend}:{self.llm.model}"
        return answer

    # -- context mode ------------------------------------------------------------------
    def _ask_in_context(self, question: str) -> Answer:
        ctx = answer_in_context(self.llm, self.model, question)
        return Answer(
            question=question,
            answer=ctx.answer if ctx.answer is not None else f"(no parseable answer: {ctx.error})",
            result=None,
            mode="context",
            answered=ctx.answer is not None,
            usage=_usage_dict(ctx.usage),
        )

    # -- tool mode ---------------------------------------------------------------------
    def _ground(self, question: str) -> Grounding:
        g = ground(question, self.model)
        if self._last is not None and FOLLOW_UP.match(question):
            prev_q, prev = self._last
            kinds = {m.kind for m in g.mentions}
            kept: list[Mention] = [m for m in prev.mentions if m.kind not in kinds]
            g = Grounding(
                mentions=kept + g.mentions,
                where=g.where if g.where is not None else prev.where,
                unresolved=g.unresolved,
                unknown_subjects=g.unknown_subjects,
            )
        return g

    def _read(self, question: str) -> tuple[Reading | None, Answer | None]:
        """Ground the question and read its frame; or the honest answer that ends it there
        (a name the model lacks, an unknown subject, something no operator computes, an
        effect the table does not hold)."""
        steps: dict[str, float] = {}
        t = time.perf_counter()
        # A follow-up ("and for partner P042?") asks what the previous question did.
        asked = self._kind_source if self._last is not None and FOLLOW_UP.match(question) else None
        g = self._ground(question)
        steps["ground"] = time.perf_counter() - t
        reading = Reading(question, g, asked, steps, list(self.history[-2:]))

        def stop(text: str) -> tuple[None, Answer]:
            reading.route.append({"source": "reading", "outcome": "refused", "why": text})
            return None, self._honest(reading, text)

        if g.unresolved:
            # A name the model lacks: whatever the plan, its answer would be about
            # something else.
            return stop(_unknown_names(g.unresolved, self.model))
        if g.unknown_subjects:
            return stop(_unknown_subjects(g.unknown_subjects, self.model))
        if self.check:
            asked_for = unanswerable(question, g)
            if asked_for:
                return stop(refusal(asked_for, self.model))
        # An open question's frame; graph questions are read before the effects table's
        # focus drops the outcome they may name.
        t = time.perf_counter()
        frame = read_frame(question, g, self.model) if self.planner.cues else None
        if frame is not None and not frame.graph:
            frame = None
        if self.planner.cues and frame is None:
            g, refusal_text = effects_focus(g, question, self.model)
            reading.grounding = g
            if refusal_text is not None:
                return stop(refusal_text)
            frame = read_frame(question, g, self.model)
        reading.frame = frame
        steps["plan"] = time.perf_counter() - t
        return reading, None

    def _honest(self, reading: Reading, text: str, plan: dict[str, Any] | None = None) -> Answer:
        """An answer that is not one: why the question is not answered, with the plan that
        would have been run when there was one."""
        return Answer(
            question=reading.question,
            mode="tool",
            grounding=reading.grounding.to_dict(),
            answer=text,
            plan=plan,
            answered=False,
            usage=_usage_dict(reading.usage),
            step_seconds=_rounded(reading.steps),
            route=reading.route,
        )

    def _check_report(self, reading: Reading, plan: dict[str, Any]) -> CheckReport:
        """The one check every plan passes before it runs (no rules when checking is off)."""
        if not self.check:
            return CheckReport([])
        return check_plan(
            reading.question, plan, reading.grounding, self.model, kind_of=reading.asked
        )

    def _ask_with_tools(self, question: str) -> Answer:
        """read (ground, frame) → plan: each source in `sources` in turn until one offers a
        plan that passes the check → execute (repaired once by the planner on an error) →
        verbalise; each step timed, the route kept with the answer."""
        reading, ended = self._read(question)
        if ended is not None:
            return ended
        steps = reading.steps
        accepted: Offer | None = None
        for source in self.sources:
            t = time.perf_counter()
            offer = source.propose(self, reading)
            steps["plan"] = steps.get("plan", 0.0) + time.perf_counter() - t
            if offer is None:
                reading.route.append({"source": source.name, "outcome": "nothing"})
                continue
            if isinstance(offer, str):
                reading.route.append({"source": source.name, "outcome": "refused", "why": offer})
                return self._honest(reading, offer)
            if offer.planned is not None:
                reading.usage = reading.usage + offer.planned.usage
            t = time.perf_counter()
            report = self._check_report(reading, offer.plan)
            steps["check"] = steps.get("check", 0.0) + time.perf_counter() - t
            reading.route.append(_route_entry(source.name, offer, report))
            if not report.problems:
                accepted = offer
                break
            if reading.failed is None:
                reading.failed, reading.issues = offer, report.problems
        if accepted is None:
            if reading.failed is None:
                return self._honest(reading, "I cannot answer that from this model.")
            return self._honest(reading, refusal(reading.issues, self.model), reading.failed.plan)
        plan, planned = accepted.plan, accepted.planned

        # -- execute
        t = time.perf_counter()
        try:
            executed = execute(plan, self.model, max_steps=self.planner.max_steps)
        except PlanError as e:
            if not self.repair or planned is None:
                return self._honest(reading, f"I could not compute that: {e.message}", plan)
            reading.route.append({"source": "execute", "outcome": "error", "why": e.message})
            try:
                repaired = REPAIR.propose(self, reading, error=e.message, previous=plan)
                reading.usage = reading.usage + repaired.usage
                plan = repaired.plan
                report = self._check_report(reading, plan)
                reading.route.append(_route_entry(REPAIR.name, Offer(plan, repaired), report))
                if report.problems:
                    steps["execute"] = time.perf_counter() - t
                    return self._honest(reading, refusal(report.problems, self.model), plan)
                executed = execute(plan, self.model, max_steps=self.planner.max_steps)
            except (PlanError, LLMOutputError) as e2:
                steps["execute"] = time.perf_counter() - t
                return self._honest(reading, f"I could not compute that: {e2.message}", plan)
        steps["execute"] = time.perf_counter() - t

        # -- verbalise
        t = time.perf_counter()
        last = executed.steps[-1]
        step = {"tool": last.tool, "args": last.args}
        result = executed.result
        # "how many partners, as a share of the total, …" is answered by the share
        if (
            self.planner.cues
            and asks_count(question)
            and last.tool not in ("count_subjects", "share_subjects")
        ):
            counted = count_answer(step, result, question)
            if counted is None:
                steps["verbalise"] = time.perf_counter() - t
                return self._honest(
                    reading,
                    "I cannot count that from this model: its tools list variables, "
                    "treatments and subjects, but do not count subjects by their effects.",
                    plan,
                )
            result, sentence = counted
        else:
            sentence = template_sentence(step, result)
            if self.verbaliser == "llm" and planned is not None:
                said, u = llm_sentence(self.llm, planned.messages, plan, result)
                reading.usage = reading.usage + u
                sentence = said or sentence
        computed = computation(plan, self.model)
        steps["verbalise"] = time.perf_counter() - t

        g = reading.grounding
        self.history.append((question, g.to_dict(), plan))
        self._last = (question, g)
        self._kind_source = reading.asked if reading.asked is not None else (question, g)
        return Answer(
            question=question,
            mode="tool",
            grounding=g.to_dict(),
            answer=sentence,
            result=result,
            plan=plan,
            computed=computed,
            usage=_usage_dict(reading.usage),
            step_seconds=_rounded(steps),
            cached=planned.cached if planned is not None else False,
            route=reading.route,
        )


def effects_focus(g: Grounding, question: str, model: CausalModel) -> tuple[Grounding, str | None]:
    """A question that asks for an effect, a subject or a treatment is about the effects
    table, so two names in it are not graph variables: the filter column it selects by
    ("among partners already engaged", when "Already Engaged" is also a node) and the
    outcome the effects are measured on ("the effect of Discount on Revenue"). Returns the
    grounding without those mentions, and a refusal for an effect on a variable the table
    does not measure ("the effect of Discount on Demand" when the outcome is Revenue)."""
    asked = answer_type(g.masked(question))
    if model.effects is None or asked not in ("number", "subject", "treatment"):
        return g, None
    treatments = g.names("treatment")
    drop = set()
    if g.where is not None:
        drop.add(g.where.filter)
    if model.outcome is not None and (treatments or asked in ("subject", "treatment")):
        # "which treatment raises Revenue the most": the outcome names what is measured
        drop.add(model.outcome)
    kept = [m for m in g.mentions if not (m.kind == "variable" and m.name in drop)]
    g = Grounding(kept, g.where, g.unresolved, g.unknown_subjects)
    treatment_spans = {(m.start, m.end) for m in g.mentions if m.kind == "treatment"}
    others = [
        m.name
        for m in g.mentions
        if m.kind == "variable"
        and m.name not in treatments
        and (m.start, m.end) not in treatment_spans
    ]
    if model.outcome is not None and treatments and others:
        from causalqa.qa.tools import is_cause

        t, v = treatments[0], others[0]
        said = (
            f"The effects table holds effects on '{model.outcome}', so it has no estimate of "
            f"the effect of '{t}' on '{v}'"
        )
        if t in model.graph:
            graph = "does" if is_cause(model, t, v) else "does not"
            said += f" (in the causal graph, '{t}' {graph} affect '{v}')"
        return g, said + "."
    return g, None


def _route_entry(source: str, offer: Offer, report: CheckReport) -> dict[str, Any]:
    entry: dict[str, Any] = {"source": source, "outcome": "plan", "plan": offer.plan}
    if offer.planned is not None:
        entry["llm_called"] = bool(offer.planned.usage.total_tokens) or offer.planned.cached
    entry["check"] = {"passed": report.passed, "failed": report.failed}
    return entry


def _call_text(step: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in (step.get("args") or {}).items())
    return f"{step.get('tool')}({args})"


def explain_route(answer: Answer) -> str:
    """The route of `answer` as lines of text: each source asked, what it offered, and the
    check's verdict on each plan."""
    lines = []
    for n, step in enumerate(answer.route, 1):
        source, outcome = step["source"], step["outcome"]
        if outcome == "plan":
            plan = step["plan"]
            calls = "; ".join(_call_text(s) for s in (plan or {}).get("steps", []))
            llm = {True: " (LLM)", False: " (no LLM call)"}.get(step.get("llm_called"), "")
            lines.append(f"{n}. {source}{llm}: {calls}")
            check = step.get("check") or {}
            failed = check.get("failed") or {}
            verdict = "passed" if not failed else "failed"
            lines.append(
                f"   check {verdict}: {len(check.get('passed', []))} rules passed"
                + (f" ({', '.join(check['passed'])})" if check.get("passed") else "")
            )
            for rule, found in failed.items():
                lines.append(f"   ✗ {rule}: {'; '.join(found)}")
        elif outcome == "nothing":
            lines.append(f"{n}. {source}: nothing to offer")
        else:
            lines.append(f"{n}. {source}: {outcome} — {step.get('why', '')}")
    return "\n".join(lines)


def _rounded(steps: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 3) for k, v in steps.items()}


def _unknown_subjects(ids: list[str], model: CausalModel) -> str:
    from rapidfuzz import process

    parts = []
    for sid in ids:
        close = [c for c, score, _ in process.extract(sid, model.subjects, limit=3) if score >= 60]
        hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
        parts.append(f"'{sid}'{hint}")
    noun = model.subject_column or "subject id"
    return f"The effects table has no {noun} {', '.join(parts)}, so I cannot answer that from it."


def _unknown_names(names: list[str], model: CausalModel) -> str:
    from rapidfuzz import process

    known = model.variables + (model.treatments if model.effects is not None else [])
    parts = []
    for name in names:
        close = [c for c, score, _ in process.extract(name, known, limit=3) if score >= 60]
        hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
        parts.append(f"'{name}'{hint}")
    return (
        f"The model has no variable or treatment named {', '.join(parts)}, so I cannot answer "
        "that from it."
    )
