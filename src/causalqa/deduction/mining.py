"""Mine causal chains with an LLM (paper 002, §4.1): extraction and inference.

- `extract_chains`: Prompt 3 — every causal chain a report states;
- `infer_chains`: Prompt 4 — chains linking a candidate cause to the report's accident;
- `mine`: both over many reports into a `CausalKG`, incremental and resumable: a
  (report, prompt, statement) already mined in the graph is skipped, every call is
  recorded (raw reply, seconds, tokens) as soon as it returns.

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
from causalqa.deduction.ckg import CausalKG, MiningRecord, context_sha
from causalqa.deduction.dataset import Report
from causalqa.deduction.prompts import extract_messages, infer_messages
from causalqa.errors import LLMError, LLMUnavailableError

DEFAULT_MAX_TOKENS = 768


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
    chains = parse_chains(response.text, kind=kind, report_id=report_id, statement=statement)
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
    )
    return MiningResult(chains, record, response.text)


def extract_chains(
    context: str,
    llm,
    *,
    report_id: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    seed: int = 0,
) -> MiningResult:
    """Prompt 3: the causal chains stated in `context`, as ``extracted`` chains."""
    from causalqa.deduction.ckg import context_id

    rid = report_id or context_id(context)
    return _run(
        llm,
        extract_messages(context),
        task="extract",
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
    max_tokens: int = DEFAULT_MAX_TOKENS,
    seed: int = 0,
) -> MiningResult:
    """Prompt 4: chains linking the cause in `statement` to the accident in `context`, as
    ``inferred`` chains."""
    from causalqa.deduction.ckg import context_id

    rid = report_id or context_id(context)
    return _run(
        llm,
        infer_messages(context, statement),
        task="infer",
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
    max_tokens: int = DEFAULT_MAX_TOKENS,
    seed: int = 0,
    progress: bool = False,
) -> MiningSummary:
    """Mine `reports` into `kg`: Prompt 3 on each report and, with `infer`, Prompt 4 for
    each of its candidate causes in `statements` (report id → statements).

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
    for r in reports:
        units: list[tuple[str, str | None]] = []
        if extract:
            units.append(("extract", None))
        if infer and statements:
            units += [("infer", s) for s in dict.fromkeys(statements.get(r.report_id, ()))]
        for task, s in units:
            if (r.report_id, task, s or "") in done:
                summary.skipped += 1
            else:
                todo.append((r, task, s))
    start = time.perf_counter()
    for r, task, s in _track(todo, progress):
        try:
            if task == "extract":
                res = extract_chains(
                    r.context, llm, report_id=r.report_id, max_tokens=max_tokens, seed=seed
                )
            else:
                res = infer_chains(
                    r.context,
                    s or "",
                    llm,
                    report_id=r.report_id,
                    max_tokens=max_tokens,
                    seed=seed,
                )
        except LLMUnavailableError:
            raise
        except LLMError as e:
            kg.add_record(
                MiningRecord(
                    report_id=r.report_id,
                    task=task,  # type: ignore[arg-type]
                    statement=s,
                    context_sha=context_sha(r.context),
                    error=e.message,
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
