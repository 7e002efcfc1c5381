"""Plan: turn a grounded question into a tool call, by constrained decoding.

The plan schema is `tools.plan_schema` narrowed to the question: names become enums of
what grounding found (a variable the question does not mention cannot be chosen), tools
whose required arguments the question does not supply are dropped, and a filter the
question states ("not yet engaged") becomes a required constant. Decoded under that
schema, the plan always parses and always names things the model has. The prompt is a
fixed prefix (tool descriptions and, by default, every worked example) that the local
backend keeps in its KV cache, then the question: prompt tokens do not grow with the
size of the graph or the table.
"""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from causalqa.causal_model import CausalModel
from causalqa.llm import LLM, Usage
from causalqa.qa.cues import (
    FOLLOW_UP,
    TOOLS_BY_TYPE,
    answer_type,
    count_target,
    requested_count,
    rescope,
    wants_lowest,
)
from causalqa.qa.direction import cause_and_effect, orient
from causalqa.qa.examples import EXAMPLES, OPEN_EXAMPLES, Example, mentioned_text
from causalqa.qa.grounding import Grounding
from causalqa.qa.intent import choose_tool, masked_question
from causalqa.qa.intent import default_model as default_intent_model
from causalqa.qa.tools import (
    PAPER_TOOLS,
    TOOLS,
    PlanError,
    available_tools,
    plan_schema,
    tools_for,
)

ExampleMode = Literal["all", "retrieve", "none"]
Strategy = Literal["intent", "plan"]
IntentChoice = Literal["generate", "logprob"]

_PASSIVE = re.compile(
    r"\b(?:affected|influenced|caused|impacted|driven|changed|determined|explained)\s+by\b"
    r"|\bdepend(?:s|ent)?\s+(?:up)?on\b|\bresult\s+of\b|\bdue\s+to\b|\bdownstream\s+of\b",
    re.IGNORECASE,
)

SYSTEM = """You answer questions about a causal model by choosing one tool call that computes the answer.
The model has a causal graph over variables and a table of treatment effects per subject (partner).

Tools:
{tools}

How to choose:
- "does X affect / lead to / cause / influence Y", "is X an ancestor of Y" -> is_cause(cause=X, effect=Y)
- "is X a direct cause / parent of Y" -> is_parent
- "through which variables", "via what", "paths from X to Y" -> paths_between(source=X, target=Y)
- "what directly influences X", "direct causes of X" -> parents; "what does X directly affect" -> children
- "average effect of treatment T" -> ate; "effect of T on partner S" -> ite
- "best / highest / most effective treatment" -> best_treatment (with subject=S for one partner)
- "which partner benefits most from T" -> best_subject(treatment=T)
- a filter such as "not yet engaged" goes into "where".
Use only the names listed after "Mentioned". Reply with JSON only."""


def _tool_lines() -> str:
    return "\n".join(f"- {TOOLS[t].signature}: {TOOLS[t].description}" for t in PAPER_TOOLS)


def _user_turn(question: str, mentioned: dict[str, Any]) -> str:
    return f"Question: {question}\nMentioned: {mentioned_text(mentioned)}"


def _plan_text(plan: dict[str, Any]) -> str:
    return json.dumps(plan, ensure_ascii=False, separators=(",", ":"))


def grounded_schema(
    model: CausalModel,
    grounding: Grounding,
    *,
    max_steps: int = 1,
    tools: Sequence[str] = PAPER_TOOLS,
) -> dict[str, Any]:
    """`plan_schema(model)` over `tools` narrowed to what the question mentions (see
    module doc).

    Raises `PlanError` when no tool can be called with what the question supplies.
    """
    usable = [t.name for t in available_tools(model) if t.name in set(tools)]
    schema = copy.deepcopy(plan_schema(model, max_steps=max_steps, tools=usable))
    defs = schema["$defs"]
    supplied = {
        "variable": grounding.names("variable"),
        "treatment": grounding.names("treatment"),
        "subject": grounding.names("subject"),
    }
    for kind, names in supplied.items():
        if kind in defs and names:
            defs[kind] = {"enum": names}
    keep = []
    for ref in schema["properties"]["steps"]["items"]["anyOf"]:
        name = ref["$ref"].rsplit("/", 1)[-1]
        tool_def = defs[name]
        args = tool_def["properties"]["args"]
        props, required = args["properties"], set(args.get("required", []))
        ok = True
        for pname in list(props):
            kind = _param_kind(name.removeprefix("tool_"), pname)
            if kind in supplied and not supplied[kind]:
                if pname in required:
                    ok = False
                else:
                    del props[pname]
            elif kind == "where":
                if grounding.where is None:
                    del props[pname]
                else:
                    w = {"filter": grounding.where.filter, "value": grounding.where.value}
                    props[pname] = {"const": w}
                    required.add(pname)
        if ok:
            ok = _fits_question(name.removeprefix("tool_"), list(props), supplied)
        if ok:
            args["required"] = [p for p in props if p in required]
            if not args["required"]:
                del args["required"]
            keep.append(ref)
        else:
            del defs[name]
    if not keep:
        raise PlanError("the question names nothing the model's tools can be called with")
    schema["properties"]["steps"]["items"]["anyOf"] = keep
    used = json.dumps(schema)
    for kind in ("variable", "treatment", "subject", "filter", "where"):
        if kind in defs and f"#/$defs/{kind}" not in used:
            del defs[kind]
    return schema


def _fits_question(tool: str, params: list[str], supplied: dict[str, list[str]]) -> bool:
    """Whether `tool` (with `params` left after narrowing) can answer a question that
    names `supplied` variables, treatments and subjects — without ignoring any of them."""
    # a value or conditions name treatments; a list of variables names variables
    as_kind = {"value": "treatment", "conditions": "treatment", "variables": "variable"}
    kinds = [as_kind.get(k, k) for k in (_param_kind(tool, p) for p in params)]
    variables, treatments = supplied["variable"], supplied["treatment"]
    needs_effects = TOOLS[tool].needs_effects
    if kinds.count("variable") == 2 and len(variables) < 2:
        return False  # two-name tools need two different names
    if tool == "compare_treatments" and len(treatments) < 2:
        return False
    if not {"variable", "treatment", "subject"} & set(kinds) and any(supplied.values()):
        return False  # a question that names things is not asking to list them all
    if len(variables) == 2:
        # Two variables named: the question is about how they relate (a one-variable tool
        # would drop one); when one is not a treatment, it is about the graph.
        if kinds.count("variable") == 1:
            return False
        if needs_effects and any(v not in treatments for v in variables):
            return False
    # A question that names a subject is about that subject: a tool that cannot take it
    # (an average over everyone, say) would silently answer a different question.
    if supplied["subject"] and "subject" not in kinds:
        return False
    # Likewise a treatment it names (other than as a graph variable).
    if needs_effects and set(treatments) - set(variables) and "treatment" not in kinds:
        return False
    return True


def _param_kind(tool: str, param: str) -> str:
    for p in TOOLS[tool].params:
        if p.name == param:
            return p.kind
    raise KeyError(param)


SURE = 0.8
"""The probability at which the learned question check's tool is taken without the LLM."""


@dataclass
class PlanResult:
    plan: dict[str, Any]
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    messages: list[dict[str, str]] = field(default_factory=list)
    cached: bool = False
    """Whether an LLM reply came from the response cache (its seconds are then not the
    model's)."""


class Planner:
    """Writes plans with an LLM under the grounded schema.

    `examples`: "all" puts every worked example in the cached prefix (default: flat cost
    per question); "retrieve" puts the `k` nearest (MiniLM embeddings) after the prefix;
    "none" gives no examples. `cues`: read the answer type, direction, scope and count
    from the question's wording (`cues.py`, `direction.py`) to narrow and correct the
    LLM's choice; off, the LLM alone chooses among the tools the names allow.
    `intent_choice`: how the LLM picks the tool in the "intent" strategy — "generate"
    (greedy decoding under an enum schema) or "logprob" (every candidate reply scored by
    its whole log-probability, the most probable taken). `sure`: when the learned
    question check (`intent.py`) gives one of the allowed tools at least this
    probability, that tool is taken without asking the LLM (None: always ask).
    """

    def __init__(
        self,
        llm: LLM,
        *,
        examples: ExampleMode = "all",
        strategy: Strategy = "intent",
        k: int = 4,
        max_steps: int = 1,
        cues: bool = True,
        intent_choice: IntentChoice = "generate",
        sure: float | None = SURE,
    ):
        self.llm = llm
        self.sure = sure
        self.cues = cues
        self.intent_choice = intent_choice
        self.examples = examples
        self.strategy = strategy
        self.k = k
        self.max_steps = max_steps
        self._embedder = None
        self._example_vectors = None

    def _shots(self, question: str) -> list[Example]:
        if self.examples == "none":
            return []
        if self.examples == "all":
            return EXAMPLES
        from causalqa.embed import Embedder

        if self._embedder is None:
            self._embedder = Embedder()
            self._example_vectors = self._embedder.encode([e.question for e in EXAMPLES])
        q = self._embedder.encode([question])[0]
        order = (self._example_vectors @ q).argsort()[::-1][: self.k]
        return [EXAMPLES[i] for i in sorted(order)]

    def _sure_tool(self, question: str, grounding: Grounding, tools: list[str]) -> str | None:
        if self.sure is None or len(tools) < 2:
            return None
        tool, p = choose_tool(default_intent_model(), masked_question(question, grounding), tools)
        return tool if p >= self.sure else None

    def messages(
        self,
        question: str,
        grounding: Grounding,
        history: list[tuple[str, dict, dict]] = (),
        *,
        intent: bool = False,
    ) -> list[dict[str, str]]:
        """The planner's conversation; with `intent`, replies name only the tool."""
        show = _intent_text if intent else _plan_text
        msgs = self._prefix(question, intent)
        for past_q, past_mentioned, past_plan in history:
            msgs.append({"role": "user", "content": _user_turn(past_q, past_mentioned)})
            msgs.append({"role": "assistant", "content": show(past_plan)})
        msgs.append({"role": "user", "content": _user_turn(question, grounding.to_dict())})
        return msgs

    def prefixes(self) -> list[list[dict[str, str]]]:
        """The conversations every question's prompt starts with (all but its own turns):
        a saved KV state for each makes a first question quick (`causalqa models --warm`).
        With retrieved examples the prompt depends on the question: none."""
        if self.examples == "retrieve":
            return []
        plans = [self._prefix("", intent) for intent in (True, False)]
        return plans + [_open_prefix(has_effects) for has_effects in (True, False)]

    def _prefix(self, question: str, intent: bool) -> list[dict[str, str]]:
        show = _intent_text if intent else _plan_text
        msgs = [{"role": "system", "content": SYSTEM.format(tools=_tool_lines())}]
        for ex in self._shots(question):
            msgs.append({"role": "user", "content": _user_turn(ex.question, ex.mentioned)})
            msgs.append({"role": "assistant", "content": show(ex.plan)})
        return msgs

    def plan(
        self,
        question: str,
        model: CausalModel,
        grounding: Grounding,
        *,
        history: list[tuple[str, dict, dict]] = (),
        error: str | None = None,
        previous: dict[str, Any] | None = None,
    ) -> PlanResult:
        """One plan for `question`; with `error` and `previous`, a repaired plan.

        Strategy "intent" (default): the LLM chooses only the tool, among those the
        question's names allow (a few tokens); its arguments come from grounding — the
        names in the order the question mentions them, reversed for passive phrasing
        ("is Y affected by X") — and, where that is ambiguous (say three variables for a
        two-variable tool), from a second constrained call with the tool fixed. Strategy
        "plan": the LLM writes the whole plan under the grounded schema.
        """
        start = time.perf_counter()
        schema = grounded_schema(model, grounding, max_steps=self.max_steps)
        usage, cached = Usage(), False
        if self.strategy == "intent" and error is None:
            grounded_tools = _schema_tools(schema)
            tools = grounded_tools
            asked = answer_type(grounding.masked(question))
            if asked is not None and self.cues:
                typed = [t for t in tools if t in TOOLS_BY_TYPE[asked]]
                tools = typed or tools
            counted = count_target(question) if self.cues else None
            if counted is not None:
                tools = _counting_tools(counted, grounded_tools)
                if not tools:
                    raise PlanError(
                        "its tools list variables, treatments and subjects (optionally "
                        "filtered), but cannot count subjects or treatments by their effects"
                    )
            msgs = self.messages(question, grounding, list(history), intent=True)
            follow_up = bool(history) and FOLLOW_UP.match(question) is not None
            chosen = None if follow_up else self._sure_tool(question, grounding, tools)
            if chosen is not None:
                tool = chosen
            elif len(tools) == 1:
                tool = tools[0]
            elif self.intent_choice == "logprob":
                replies = {_intent_text({"steps": [{"tool": t}]}): t for t in tools}
                scored = self.llm.label_logprobs(msgs, list(replies))
                tool, usage, cached = replies[scored.best], scored.usage, scored.cached
            else:
                r = self.llm.complete(
                    msgs,
                    schema={
                        "type": "object",
                        "properties": {"tool": {"enum": tools}},
                        "required": ["tool"],
                        "additionalProperties": False,
                    },
                    max_tokens=24,
                )
                tool, usage, cached = r.data["tool"], r.usage, r.cached
            if self.cues:
                tool = _adjust(tool, question, grounding, grounded_tools)
            args = fill_args(tool, grounding, question, cues=self.cues)
            if args is not None:
                plan = {"steps": [{"tool": tool, "args": args}]}
                return PlanResult(plan, usage, time.perf_counter() - start, msgs, cached)
            schema = _only_tool(schema, tool)  # ambiguous arguments: let the LLM place them
        msgs = self.messages(question, grounding, list(history))
        if error is not None and previous is not None:
            msgs.append({"role": "assistant", "content": _plan_text(previous)})
            msgs.append(
                {"role": "user", "content": f"That plan failed: {error}\nWrite a corrected plan."}
            )
        response = self.llm.complete(msgs, schema=schema, max_tokens=160)
        return PlanResult(
            response.data,
            usage + response.usage,
            time.perf_counter() - start,
            msgs,
            cached or response.cached,
        )

    def plan_open(self, question: str, model: CausalModel, grounding: Grounding) -> PlanResult:
        """A whole plan over every query tool (statistics, counts, shares, differences,
        rankings by any statistic, mediators, common causes, d-separation, adjustment
        sets …), written by the LLM under the grounded schema — for a question the
        wording did not map to one and the paper's tools do not answer. Its plan is
        checked against the question like any other."""
        start = time.perf_counter()
        schema = grounded_schema(model, grounding, max_steps=1, tools=list(TOOLS))
        msgs = _open_prefix(model.effects is not None)
        msgs.append({"role": "user", "content": _user_turn(question, grounding.to_dict())})
        response = self.llm.complete(msgs, schema=schema, max_tokens=200)
        return PlanResult(
            response.data, response.usage, time.perf_counter() - start, msgs, response.cached
        )


def _open_prefix(has_effects: bool) -> list[dict[str, str]]:
    """`Planner.plan_open`'s prompt before the question: the same for every question about
    a model with (or without) an effects table (the grammar narrows the tools), so its KV
    state is computed once and reused."""
    tools = tools_for(has_effects=has_effects)
    lines = "\n".join(f"- {t.signature}: {t.description}" for t in tools)
    msgs = [{"role": "system", "content": OPEN_SYSTEM.format(tools=lines)}]
    names = {t.name for t in tools}
    for ex in OPEN_EXAMPLES:
        if ex.plan["steps"][0]["tool"] in names:
            msgs.append({"role": "user", "content": _user_turn(ex.question, ex.mentioned)})
            msgs.append({"role": "assistant", "content": _plan_text(ex.plan)})
    return msgs


OPEN_SYSTEM = """You answer questions about a causal model by writing one tool call that computes the answer.
The model has a causal graph over variables and a table of treatment effects per subject (partner).
A value is {{"treatment": T}} or {{"difference": [T1, T2]}} (T1's effect minus T2's, per subject).
A condition is {{"value": ..., "op": ">", "than": a number or another value}}; "where" is a yes/no filter.

Tools:
{tools}

Use only the names listed after "Mentioned". Reply with JSON only."""


def _intent_text(plan: dict[str, Any]) -> str:
    return json.dumps({"tool": plan["steps"][0]["tool"]}, separators=(",", ":"))


def _schema_tools(schema: dict[str, Any]) -> list[str]:
    return [r["$ref"].split("tool_", 1)[1] for r in schema["properties"]["steps"]["items"]["anyOf"]]


def _only_tool(schema: dict[str, Any], tool: str) -> dict[str, Any]:
    narrowed = copy.deepcopy(schema)
    narrowed["properties"]["steps"]["items"]["anyOf"] = [{"$ref": f"#/$defs/tool_{tool}"}]
    return narrowed


_COUNTING = {
    "subject": ("subjects",),
    "treatment": ("treatments",),
    "variable": ("variables", "parents", "children", "ancestors", "descendants", "paths_between"),
}


def _counting_tools(target: str, allowed: list[str]) -> list[str]:
    """The tools whose list answers "how many <target>s": only those the question's names
    allow (so "how many partners gain from T" — T unused by `subjects` — has none)."""
    return [t for t in allowed if t in _COUNTING[target]]


_SINGLE = {"top_k_subjects": "best_subject", "top_k_treatments": "best_treatment"}
_SEVERAL = {v: k for k, v in _SINGLE.items()}


def _adjust(tool: str, question: str, grounding: Grounding, allowed: list[str]) -> str:
    """The LLM's tool, corrected where the wording clearly says otherwise: the direction
    of a one-variable question (parents ↔ children), its scope (direct ↔ any link) and
    how many results a best-of question wants (one ↔ several); each only to a tool the
    question's names allow."""
    for fix in (
        lambda t: orient(t, question, grounding),
        lambda t: rescope(t, question),
    ):
        changed = fix(tool)
        if changed in allowed:
            tool = changed
    count = requested_count(question)
    if count is None and tool in _SINGLE and _SINGLE[tool] in allowed:
        tool = _SINGLE[tool]
    elif count is not None and count > 1 and tool in _SEVERAL and _SEVERAL[tool] in allowed:
        tool = _SEVERAL[tool]
    return tool


def _top_k(question: str) -> int:
    return requested_count(question) or 3


def fill_args(
    tool: str, grounding: Grounding, question: str, *, cues: bool = True
) -> dict[str, Any] | None:
    """The tool's arguments from what the question mentions; None when that is ambiguous."""
    names = {
        "variable": grounding.names("variable"),
        "treatment": grounding.names("treatment"),
        "subject": grounding.names("subject"),
    }
    params = TOOLS[tool].params
    args: dict[str, Any] = {}
    for kind in ("variable", "treatment"):
        slots = [p for p in params if p.kind == kind]
        if not slots:
            continue
        found = names[kind]
        if len(slots) == 2:
            if len(found) != 2:
                return None
            first, second = found
            marked = cause_and_effect(question, grounding) if cues and kind == "variable" else None
            if marked is not None:
                first, second = marked
            elif _PASSIVE.search(question):
                first, second = second, first
            args[slots[0].name], args[slots[1].name] = first, second
        elif len(found) == 1:
            args[slots[0].name] = found[0]
        elif found or slots[0].required:
            return None
    for p in params:
        if p.kind == "subject":
            if len(names["subject"]) == 1:
                args[p.name] = names["subject"][0]
            elif names["subject"] or p.required:
                return None
        elif p.kind == "where" and grounding.where is not None:
            args[p.name] = {"filter": grounding.where.filter, "value": grounding.where.value}
        elif p.kind == "int":
            args[p.name] = _top_k(question)
        elif p.name == "lowest" and cues and wants_lowest(question):
            args[p.name] = True
    return args
