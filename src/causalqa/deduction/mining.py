"""Mine causal chains with an LLM (paper 002, §4.1): extraction and inference.

- `extract_chains`: Prompt 3 — every causal chain a report states;
- `infer_chains`: Prompt 4 — chains linking a candidate cause to the report's accident;
- `mine`: both over many reports into a `CausalKG`, incremental and resumable: a
  (report, prompt, statement) already mined in the graph is skipped, every call is
  recorded (raw reply, seconds, tokens) as soon as it returns.

Cost. Almost all of a call's time is generation, so the budgets (`EXTRACT_MAX_TOKENS`,
`INFER_MAX_TOKENS`) are sized to what the model writes when it ends by itself (measured
on NTSB reports: bench/results/deduction/mining-*.md). A reply cut off by the budget keeps
every chain it holds; only the event cut mid-word is dropped. Prompt 4 is sent with the
context before the statement by default (`context_first`, same words): a report's
statements then share the prompt up to the end of the context, which llama.cpp keeps in
its KV cache, and `mine` runs each report's calls back to back.

>>> from causalqa.llm.testing import ScriptedLLM
>>> r = extract_chains("Frost on the wings ...", ScriptedLLM(["1. Frost --> Stall"]))
>>> r.chains[0].edges
[('Frost', 'Stall')]
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

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
    record = MiningRecord(
        report_id=report_id,
        task=task,  # type: ignore[arg-type]
        statement=statement,
        seconds=round(seconds, 3),
        prompt_tokens=response.usage.prompt_tokens,
        completion_tokens=response.usage.completion_tokens,
        n_chains=len(chains),
        model=f"{response.backend}:{response.model}",
        context_sha=context_sha(context),
        raw=response.text,
        finish_reason=response.finish_reason,
        prompt=prompt,
        max_tokens=max_tokens,
    )
    return MiningResult(chains, record, response.text)


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
    """
    reports = list(reports)
    done = kg.mined_units()
    todo: list[tuple[Report, str, str | None]] = []
    summary = MiningSummary()
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
    for r, task, s in _track(todo, progress):
        t0 = time.perf_counter()
        try:
            if task == "extract":
                res = extract_chains(
                    r.context, llm, report_id=r.report_id, max_tokens=ext_budget, seed=seed
                )
            else:
                res = infer_chains(
                    r.context,
                    s or "",
                    llm,
                    report_id=r.report_id,
                    max_tokens=inf_budget,
                    seed=seed,
                    context_first=context_first,
                )
        except LLMUnavailableError:
            raise
        except LLMError as e:
            kg.add_record(
                MiningRecord(
                    report_id=r.report_id,
                    task=task,  # type: ignore[arg-type]
                    statement=s,
                    seconds=round(time.perf_counter() - t0, 3),
                    context_sha=context_sha(r.context),
                    error=e.message,
                    prompt=_prompt_name(task, context_first),
                )
            )
            summary.failed += 1
            summary.errors.append(f"{r.report_id} ({task}): {e.message}")
            continue
        # Chains first, then the record: a run killed in between re-mines this unit
        # rather than believing it done without its chains.
        summary.new_chains += kg.add_chains(res.chains)
        kg.add_record(res.record)
        summary.calls += 1
    summary.seconds = round(time.perf_counter() - start, 2)
    return summary


def _prompt_name(task: str, context_first: bool) -> str:
    if task == "extract":
        return "P3"
    return "P4-context-first" if context_first else "P4"


def _track(items: list, show: bool):
    if not show or not items:
        yield from items
        return
    from rich.progress import Progress, TimeElapsedColumn

    with Progress(*Progress.get_default_columns(), TimeElapsedColumn(), transient=True) as p:
        task = p.add_task("mining", total=len(items))
        for item in items:
            p.update(task, description=f"mining {item[0].report_id} ({item[1]})")
            yield item
            p.advance(task)
