"""Mine causal chains with an LLM (paper 002, §4.1): extraction and inference.

- `extract_chains`: Prompt 3 — every causal chain a report states;
- `infer_chains`: Prompt 4 — chains linking a candidate cause to the report's accident;
- `mine_report_fast`: both in one schema-constrained call per report (short events,
  bounded counts: a reply cannot loop or echo the format example);
- `mine`: over many reports into a `CausalKG` (``mode="paper"``: Prompts 3 and 4;
  ``mode="fast"``: one call per report), incremental and resumable: a unit already mined
  is skipped, every call is recorded (raw reply, seconds, tokens) as soon as it returns.

Almost all of a call's time is generation, so budgets bound what the model writes;
measurements are in bench/README.md (``causalqa bench deduction --mining``).

>>> from causalqa.llm.testing import ScriptedLLM
>>> r = extract_chains("Frost on the wings ...", ScriptedLLM(["1. Frost --> Stall"]))
>>> r.chains[0].edges
[('Frost', 'Stall')]
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from causalqa.deduction.chains import EXTRACTED, INFERRED, Chain, parse_chains
from causalqa.deduction.dataset import Report
from causalqa.deduction.event_graph import CausalKG, MiningRecord, context_sha
from causalqa.deduction.prompts import extract_messages, infer_messages
from causalqa.errors import LLMError, LLMUnavailableError

EXTRACT_MAX_TOKENS = 512
"""Prompt 3's budget: the embedded 1.5B model's replies that ended by themselves were at
most 416 tokens (median 160; 40 replies on NTSB reports); longer ones were loops."""
INFER_MAX_TOKENS = 256
"""Prompt 4's budget: replies that ended by themselves were at most 247 tokens (median
34; 265 replies); longer ones were loops."""
DEFAULT_MAX_TOKENS = EXTRACT_MAX_TOKENS


@dataclass
class MiningResult:
    """One mining call: the chains parsed out of the reply, and the call's record."""

    chains: list[Chain]
    record: MiningRecord
    text: str = ""


def _run(
    llm,
    messages,
    *,
    task: str,
    prompt: str,
    report_id: str,
    context: str,
    statement: str | None,
    max_tokens: int,
    seed: int,
) -> MiningResult:
    start = time.perf_counter()
    response = llm.complete(messages, max_tokens=max_tokens, temperature=0.0, seed=seed)
    seconds = response.seconds if not response.cached else time.perf_counter() - start
    kind = EXTRACTED if task == "extract" else INFERRED
    chains = parse_chains(
        response.text,
        kind=kind,
        report_id=report_id,
        statement=statement,
        truncated=response.finish_reason == "length",
    )
    record = _record(
        response,
        seconds,
        chains,
        context,
        report_id=report_id,
        task=task,
        statement=statement,
        raw=response.text,
        prompt=prompt,
        max_tokens=max_tokens,
    )
    return MiningResult(chains, record, response.text)


def _record(response, seconds: float, chains, context: str, **fields: Any) -> MiningRecord:
    """The record of one mining call: `fields` (report, task, statement, raw reply,
    prompt, max_tokens) with the call's time, tokens, model, finish reason and chain count."""
    return MiningRecord(
        seconds=round(seconds, 3),
        prompt_tokens=response.usage.prompt_tokens,
        completion_tokens=response.usage.completion_tokens,
        n_chains=len(chains),
        model=f"{response.backend}:{response.model}",
        context_sha=context_sha(context),
        finish_reason=response.finish_reason,
        **fields,
    )


def extract_chains(
    context: str,
    llm,
    *,
    report_id: str | None = None,
    max_tokens: int = EXTRACT_MAX_TOKENS,
    seed: int = 0,
) -> MiningResult:
    """Prompt 3: the causal chains stated in `context`, as ``extracted`` chains."""
    from causalqa.deduction.event_graph import context_id

    rid = report_id or context_id(context)
    return _run(
        llm,
        extract_messages(context),
        task="extract",
        prompt="P3",
        report_id=rid,
        context=context,
        statement=None,
        max_tokens=max_tokens,
        seed=seed,
    )


def infer_chains(
    context: str,
    statement: str,
    llm,
    *,
    report_id: str | None = None,
    max_tokens: int = INFER_MAX_TOKENS,
    seed: int = 0,
    context_first: bool = True,
) -> MiningResult:
    """Prompt 4: chains linking the cause in `statement` to the accident in `context`, as
    ``inferred`` chains. `context_first` puts the context block before the statement
    block (the paper's words; a prefix shared by a report's statements); False sends the
    paper's block order."""
    from causalqa.deduction.event_graph import context_id

    rid = report_id or context_id(context)
    return _run(
        llm,
        infer_messages(context, statement, context_first=context_first),
        task="infer",
        prompt=_prompt_name("infer", context_first),
        report_id=rid,
        context=context,
        statement=statement,
        max_tokens=max_tokens,
        seed=seed,
    )


# Time follows the tokens written (~10 a second on 2 cores). One to two stated chains and,
# per cause, only the effect it led to (the 1.5B model otherwise spends a third of its
# tokens restating each cause, and with a bare one-event list it restates it instead of an
# effect) cut ~185 tokens to ~115 for a report of four causes (bench/README.md).
FAST_EVENT_CHARS = 48
FAST_EXTRACTED = 2
FAST_PROMPT = """Report:
{context}

Candidate causes:
{causes}

Write the report's causal chains as JSON, each event a short phrase:
- "extracted": up to {n_extracted} chains the report itself states, each 2-3 events, cause first;
- "inferred": for each candidate cause in order, the effect it led to in this accident."""  # noqa: E501


FAST_CONTEXT_WORDS = 400
"""The longest report the fast prompt shows whole (404 of the 429 NTSB analyses of the
data set are shorter; a 2,000-word one spends most of its call evaluating the prompt)."""
_CAUSAL_CUES = re.compile(
    r"\b(?:because|due\s+to|result(?:s|ed|ing)?|led\s+to|leads?\s+to|caus\w*|contribut\w*"
    r"|fail\w*|loss\s+of|lost|inadequate|improper\w*|insufficient|exceed\w*|decision|decided"
    r"|consistent\s+with|likely|would\s+have|did\s+not|could\s+not|therefore|fatigue\w*"
    r"|impair\w*|stall\w*|collid\w*|struck|damage\w*|fractur\w*|exhaust\w*|starvation)\b",
    re.IGNORECASE,
)


def fast_context(context: str, max_words: int = FAST_CONTEXT_WORDS) -> str:
    """The report as the fast prompt shows it: whole up to `max_words` words; a longer one
    as its first sentence and then the sentences with the most causal cues ("because",
    "resulted in", "failure" …), earliest first among equals, in report order, within
    `max_words` (a sentence longer than that is cut to its first `max_words` words, the
    first one to half of them). The choice reads no candidate cause, so it cannot favour
    the true one."""
    if len(context.split()) <= max_words:
        return context.strip()
    sentences = [
        " ".join(s.split()[:max_words]) for s in re.split(r"(?<=[.!?])\s+", context.strip()) if s
    ]
    sentences[0] = " ".join(sentences[0].split()[: max(1, max_words // 2)])
    cues = [len(_CAUSAL_CUES.findall(s)) for s in sentences]
    chosen = {0}
    used = len(sentences[0].split())
    for i in sorted(range(1, len(sentences)), key=lambda i: (-cues[i], i)):
        n = len(sentences[i].split())
        if used + n <= max_words:
            chosen.add(i)
            used += n
    return " ".join(sentences[i] for i in sorted(chosen))


def fast_budget(n_statements: int) -> int:
    """The completion-token budget of a fast mining call (a bound, rarely reached)."""
    return 100 + 30 * n_statements


def fast_schema(n_statements: int) -> dict:
    """The JSON schema of a fast mining reply for a report with `n_statements` causes."""
    event = {"type": "string", "minLength": 2, "maxLength": FAST_EVENT_CHARS}
    return {
        "type": "object",
        "properties": {
            "extracted": {
                "type": "array",
                "minItems": 1,
                "maxItems": FAST_EXTRACTED,
                "items": {"type": "array", "minItems": 2, "maxItems": 3, "items": event},
            },
            "inferred": {
                "type": "array",
                "minItems": n_statements,
                "maxItems": n_statements,
                "items": {
                    "type": "object",
                    "properties": {"effect": event},
                    "required": ["effect"],
                },
            },
        },
        "required": ["extracted", "inferred"],
    }


def mine_report_fast(
    context: str,
    statements: Sequence[str],
    llm,
    *,
    report_id: str | None = None,
    seed: int = 0,
) -> tuple[list[Chain], MiningRecord]:
    """Extracted and inferred chains of one report from one schema-constrained call.

    An inferred chain is the statement followed by the events the model gives for it;
    its record's task is ``extract+infer`` and holds the raw JSON (re-parsable)."""
    import json

    from causalqa.deduction.event_graph import context_id

    rid = report_id or context_id(context)
    statements = list(dict.fromkeys(statements))
    causes = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(statements)) or "(none)"
    prompt = (
        FAST_PROMPT.replace("{context}", fast_context(context))
        .replace("{causes}", causes)
        .replace("{n_extracted}", str(FAST_EXTRACTED))
    )
    start = time.perf_counter()
    response = llm.complete(
        [{"role": "user", "content": prompt}],
        schema=fast_schema(len(statements)),
        max_tokens=fast_budget(len(statements)),
        temperature=0.0,
        seed=seed,
    )
    seconds = response.seconds if not response.cached else time.perf_counter() - start
    chains = fast_chains(response.data, statements, rid)
    record = _record(
        response,
        seconds,
        chains,
        context,
        report_id=rid,
        task="extract",
        statement=None,
        raw=json.dumps(response.data, ensure_ascii=False),
        prompt="fast",
        max_tokens=fast_budget(len(statements)),
    )
    return chains, record


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def fast_chains(data, statements: Sequence[str], report_id: str) -> list[Chain]:
    """The chains of a fast mining reply (see `fast_schema`)."""
    from causalqa.deduction.chains import clean_node, echoes_example, node_key

    out: list[Chain] = []
    data = data if isinstance(data, dict) else {}

    def nodes_of(events) -> list[str]:
        nodes = [clean_node(str(e)) for e in events if isinstance(e, str) and clean_node(e)]
        return [n for i, n in enumerate(nodes) if not i or node_key(n) != node_key(nodes[i - 1])]

    for events in data.get("extracted") or []:
        nodes = nodes_of(events)
        if len(nodes) >= 2 and not echoes_example(nodes):
            out.append(Chain(tuple(nodes), EXTRACTED, report_id))
    for s, inferred in zip(statements, data.get("inferred") or []):
        nodes = nodes_of([s, inferred.get("effect") if isinstance(inferred, dict) else None])
        if len(nodes) == 2 and _words(nodes[1]) <= _words(s):
            continue  # the cause restated (a prefix of it), not an effect
        if len(nodes) >= 2:
            out.append(Chain(tuple(nodes), INFERRED, report_id, s))
    return out


@dataclass
class MiningSummary:
    """What one `mine` run did."""

    calls: int = 0
    skipped: int = 0
    failed: int = 0
    new_chains: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)


def mine(
    reports: Iterable[Report],
    llm,
    kg: CausalKG,
    *,
    statements: Mapping[str, Sequence[str]] | None = None,
    extract: bool = True,
    infer: bool = True,
    max_tokens: int | None = None,
    extract_max_tokens: int = EXTRACT_MAX_TOKENS,
    infer_max_tokens: int = INFER_MAX_TOKENS,
    context_first: bool = True,
    seed: int = 0,
    progress: bool = False,
    mode: str = "paper",
    concurrency: int = 1,
) -> MiningSummary:
    """Mine `reports` into `kg`: Prompt 3 on each report and, with `infer`, Prompt 4 for
    each of its candidate causes in `statements` (report id → statements).

    A report's calls run back to back, its Prompt 4 calls first (with `context_first`
    they share the prompt up to the end of the context, evaluated once). `max_tokens`,
    if given, is the budget of both prompts; otherwise `extract_max_tokens` and
    `infer_max_tokens`.

    Units already mined in `kg` are skipped, so calling `mine` again after an
    interruption, or with more reports, only does the missing work. A call the model
    cannot serve (e.g. a report longer than the context window) is recorded as failed
    and the run goes on; a model that cannot load stops it. Similar edges are not
    recomputed here: call `kg.link_similar()` (and `kg.save()`) when mining is done.

    `concurrency` > 1 keeps that many calls in flight (for a server with several slots:
    `causalqa.llm.concurrent.run_ordered`); the results are added to `kg` in the order of
    the units, as with one call at a time. At any concurrency a 429, 5xx or refused
    connection is retried with backoff, and stops the run if it lasts.
    """
    reports = list(reports)
    done = kg.mined_units()
    todo: list[tuple[Report, str, str | None]] = []
    summary = MiningSummary()
    if mode == "fast":
        return _mine_fast(reports, llm, kg, statements or {}, done, seed, progress, concurrency)
    if mode != "paper":
        from causalqa.errors import DeductionError

        raise DeductionError(f"unknown mining mode {mode!r}", hint="use fast or paper")
    ext_budget = max_tokens or extract_max_tokens
    inf_budget = max_tokens or infer_max_tokens
    for r in reports:
        units: list[tuple[str, str | None]] = []
        if infer and statements:
            units += [("infer", s) for s in dict.fromkeys(statements.get(r.report_id, ()))]
        if extract:
            units.append(("extract", None))
        for task, s in units:
            if (r.report_id, task, s or "") in done:
                summary.skipped += 1
            else:
                todo.append((r, task, s))
    start = time.perf_counter()

    def call(unit):
        r, task, s = unit
        if task == "extract":
            return extract_chains(
                r.context, llm, report_id=r.report_id, max_tokens=ext_budget, seed=seed
            )
        return infer_chains(
            r.context,
            s or "",
            llm,
            report_id=r.report_id,
            max_tokens=inf_budget,
            seed=seed,
            context_first=context_first,
        )

    def keep(unit, res) -> None:
        r, task, s = unit
        if isinstance(res, _CallFailed):
            kg.add_record(
                MiningRecord(
                    report_id=r.report_id,
                    task=task,  # type: ignore[arg-type]
                    statement=s,
                    seconds=res.seconds,
                    context_sha=context_sha(r.context),
                    error=res.message,
                    prompt=_prompt_name(task, context_first),
                )
            )
            summary.failed += 1
            summary.errors.append(f"{r.report_id} ({task}): {res.message}")
            return
        # Chains first, then the record: a run killed in between re-mines this unit
        # rather than believing it done without its chains.
        summary.new_chains += kg.add_chains(res.chains)
        kg.add_record(res.record)
        summary.calls += 1

    _run_units(todo, call, keep, concurrency, progress)
    summary.seconds = round(time.perf_counter() - start, 2)
    return summary


def _mine_fast(reports, llm, kg, statements, done, seed, progress, concurrency) -> MiningSummary:
    """`mine` in fast mode: one schema-constrained call per report not yet mined."""
    summary = MiningSummary()
    todo = []
    for r in reports:
        if (r.report_id, "extract", "") in done:
            summary.skipped += 1
        else:
            todo.append((r, "fast", None))
    start = time.perf_counter()

    def call(unit):
        r = unit[0]
        return mine_report_fast(
            r.context, statements.get(r.report_id, ()), llm, report_id=r.report_id, seed=seed
        )

    def keep(unit, res) -> None:
        r = unit[0]
        if isinstance(res, _CallFailed):
            kg.add_record(
                MiningRecord(
                    report_id=r.report_id,
                    task="extract",
                    seconds=res.seconds,
                    context_sha=context_sha(r.context),
                    error=res.message,
                    prompt="fast",
                )
            )
            summary.failed += 1
            summary.errors.append(f"{r.report_id} (fast): {res.message}")
            return
        chains, record = res
        summary.new_chains += kg.add_chains(chains)
        kg.add_record(record)
        # The statements' inferences came in the same call: mark them mined too.
        for s in dict.fromkeys(statements.get(r.report_id, ())):
            kg.add_record(
                MiningRecord(
                    report_id=r.report_id,
                    task="infer",
                    statement=s,
                    model=record.model,
                    context_sha=record.context_sha,
                    n_chains=sum(1 for c in chains if c.statement == s),
                    prompt="fast",
                )
            )
        summary.calls += 1

    _run_units(todo, call, keep, concurrency, progress)
    summary.seconds = round(time.perf_counter() - start, 2)
    return summary


def _prompt_name(task: str, context_first: bool) -> str:
    if task == "extract":
        return "P3"
    return "P4-context-first" if context_first else "P4"


@dataclass
class _CallFailed:
    """A unit whose call failed for good: recorded as failed, the run goes on."""

    message: str
    seconds: float


def _run_units(todo: list, call, keep, concurrency: int, show: bool) -> None:
    """``keep(unit, call(unit))`` for every unit, in order, with up to `concurrency` calls
    in flight; a call's lasting `LLMError` reaches `keep` as `_CallFailed`, a model that
    cannot be reached or loaded (`LLMUnavailableError`) stops the run."""
    from causalqa.llm.concurrent import is_busy, run_batch

    def timed(unit):
        t0 = time.perf_counter()
        try:
            return call(unit)
        except LLMError as e:
            if isinstance(e, LLMUnavailableError) or is_busy(e):
                raise  # retried with backoff by run_batch, then it stops the run
            return _CallFailed(e.message, round(time.perf_counter() - t0, 3))

    def run(advance) -> None:
        def on_result(i, unit, res) -> None:
            keep(unit, res)
            advance(unit)

        run_batch(timed, todo, concurrency=concurrency, on_result=on_result)

    if not show or not todo:
        run(lambda unit: None)
        return
    from rich.progress import Progress, TimeElapsedColumn

    with Progress(*Progress.get_default_columns(), TimeElapsedColumn(), transient=True) as p:
        task = p.add_task("mining", total=len(todo))

        def advance(unit) -> None:
            p.update(task, description=f"mining {unit[0].report_id} ({unit[1]})")
            p.advance(task)

        run(advance)
