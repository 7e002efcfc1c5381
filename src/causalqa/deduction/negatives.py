"""LLM-written False statements (paper 002, Prompt 2), mined resumably into a store.

For each report the LLM lists causes the investigation discussed that are not its
probable cause. Every call is appended to a JSONL store as soon as it returns (raw
reply, seconds, tokens, what was kept and what dropped, and why), so an interrupted run
resumes where it stopped and a report is never asked twice. Items that restate a true
cause (Levenshtein ratio ≥ 0.9, or MiniLM cosine ≥ `paraphrase`) are dropped: they would
be False statements that are true.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.deduction.dataset import Example, Report, _finish, parse_list_items
from causalqa.deduction.event_graph import context_sha
from causalqa.errors import DatasetError, LLMError, LLMUnavailableError
from causalqa.jsonl import append_jsonl, read_jsonl

MAX_TOKENS = 400
"""Prompt 2's budget: ten short statements fit in ~250 tokens; longer replies are loops."""
PARAPHRASE = 0.8
NEAR_DUPLICATE = 0.9


@dataclass
class NegativesRecord:
    """One Prompt 2 call for one report."""

    report_id: str
    context_sha: str
    causes: list[str]
    raw: str = ""
    kept: list[str] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    model: str = ""
    max_tokens: int = MAX_TOKENS
    error: str | None = None
    at: float = field(default_factory=time.time)


def load_store(path: str | Path) -> dict[str, NegativesRecord]:
    """The successful records of a store by report id (last one wins); {} if absent."""
    p = Path(path)
    if not p.exists():
        return {}
    out: dict[str, NegativesRecord] = {}
    for n, row in read_jsonl(p, error=DatasetError, torn_tail=True):
        try:
            rec = NegativesRecord(**row)
        except TypeError as e:
            raise DatasetError(f"{p}:{n}: not a negatives record ({e})", path=str(p), line=n) from e
        if rec.error is None:
            out[rec.report_id] = rec
    return out


def filter_items(
    items: Sequence[str],
    causes: Sequence[str],
    embedder=None,
    *,
    near_duplicate: float = NEAR_DUPLICATE,
    paraphrase: float = PARAPHRASE,
) -> tuple[list[str], list[dict[str, Any]]]:
    """(kept, dropped-with-reason) of a reply's items: too short, a repeat, a near copy
    of a true cause (Levenshtein) or a paraphrase of one (embedding cosine)."""
    from rapidfuzz import fuzz

    kept: list[str] = []
    dropped: list[dict[str, Any]] = []
    cands = []
    for item in items:
        t = _finish(item)
        if len(t.split()) < 3:
            dropped.append({"text": t, "why": "fewer than 3 words"})
        elif any(t.casefold() == k.casefold() for k in cands):
            dropped.append({"text": t, "why": "repeat"})
        elif any(fuzz.ratio(t.casefold(), c.casefold()) / 100 >= near_duplicate for c in causes):
            dropped.append({"text": t, "why": f"Levenshtein ratio ≥ {near_duplicate} to a cause"})
        else:
            cands.append(t)
    if cands and causes and paraphrase < 1:
        if embedder is None:
            from causalqa.embed import Embedder

            embedder = Embedder()
        v = np.asarray(embedder.encode(list(cands) + list(causes)), dtype=np.float32)
        sims = v[: len(cands)] @ v[len(cands) :].T
        for t, row in zip(cands, sims):
            if float(row.max()) >= paraphrase:
                dropped.append(
                    {"text": t, "why": f"cosine {row.max():.2f} ≥ {paraphrase} to a cause"}
                )
            else:
                kept.append(t)
    else:
        kept = cands
    return kept[:10], dropped


def mine_negatives(
    reports: Iterable[tuple[Report, Sequence[str]]],
    llm,
    store: str | Path,
    *,
    embedder=None,
    max_tokens: int = MAX_TOKENS,
    seed: int = 0,
    progress: bool = False,
    concurrency: int = 1,
) -> dict[str, Any]:
    """Ask Prompt 2 for every (report, true causes) not yet in `store`; append each call's
    record at once. Returns counts and the mean seconds and tokens per report asked.

    `concurrency` > 1 keeps that many calls in flight (a server with several slots); the
    records are appended in the order of `reports` all the same. A 429, 5xx or refused
    connection is retried with backoff, and stops the run if it lasts."""
    from causalqa.deduction.prompts import negatives_messages

    store = Path(store)
    done = load_store(store)
    todo = [
        (r, list(c))
        for r, c in reports
        if c
        and not (r.report_id in done and done[r.report_id].context_sha == context_sha(r.context))
    ]
    asked: list[NegativesRecord] = []
    from causalqa.llm.concurrent import is_busy, run_batch

    def call(item):
        r, causes = item
        start = time.perf_counter()
        try:
            resp = llm.complete(
                negatives_messages(r.context, causes),
                max_tokens=max_tokens,
                temperature=0.0,
                seed=seed,
            )
        except LLMError as e:
            if isinstance(e, LLMUnavailableError) or is_busy(e):
                raise  # retried with backoff by run_batch, then it stops the run
            return e, time.perf_counter() - start
        return resp, time.perf_counter() - start

    def keep(item, outcome) -> None:
        r, causes = item
        resp, seconds = outcome
        start = time.perf_counter()
        rec = NegativesRecord(r.report_id, context_sha(r.context), causes, max_tokens=max_tokens)
        if isinstance(resp, LLMError):
            rec.error = resp.message
        else:
            items = parse_list_items(resp.text)
            rec.kept, rec.dropped = filter_items(items, causes, embedder)
            rec.raw = resp.text
            rec.prompt_tokens = resp.usage.prompt_tokens
            rec.completion_tokens = resp.usage.completion_tokens
            rec.finish_reason = resp.finish_reason
            rec.model = f"{resp.backend}:{resp.model}"
        rec.seconds = round(seconds + time.perf_counter() - start, 3)
        store.parent.mkdir(parents=True, exist_ok=True)
        append_jsonl(store, [asdict(rec)])
        asked.append(rec)

    with _Track(len(todo), progress) as advance:
        run_batch(
            call,
            todo,
            concurrency=concurrency,
            on_result=lambda i, item, outcome: (keep(item, outcome), advance(item)),
        )
    ok = [r for r in asked if r.error is None]
    return {
        "asked": len(asked),
        "already": len(done),
        "failed": len(asked) - len(ok),
        "seconds_per_report": round(float(np.mean([r.seconds for r in ok])), 2) if ok else None,
        "completion_tokens_per_report": round(float(np.mean([r.completion_tokens for r in ok])), 1)
        if ok
        else None,
        "kept_per_report": round(float(np.mean([len(r.kept) for r in ok])), 2) if ok else None,
    }


def with_llm_negatives(examples: Sequence[Example], store: str | Path) -> list[Example]:
    """`examples` with each report's stored Prompt 2 statements added as ``false-llm``
    (after its other statements); reports without a record are unchanged."""
    records = load_store(store)
    out: list[Example] = []
    by_report: dict[str, list[Example]] = {}
    for e in examples:
        by_report.setdefault(e.report_id, []).append(e)
    for rid, group in by_report.items():
        out += [e for e in group if e.source != "false-llm"]
        rec = records.get(rid)
        if rec is None or rec.context_sha != context_sha(group[0].context):
            continue
        have = {e.statement.casefold() for e in group}
        out += [
            Example(
                report_id=rid,
                context=group[0].context,
                statement=s,
                label=False,
                source="false-llm",
            )
            for s in rec.kept
            if s.casefold() not in have
        ]
    return out


class _Track:
    """A progress bar over `total` reports (none when not `show`); entering it gives
    ``advance(item)``."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.show, self._progress = total, show and total > 0, None

    def __enter__(self):
        if not self.show:
            return lambda item: None
        from rich.progress import Progress, TimeElapsedColumn, TimeRemainingColumn

        p = Progress(
            *Progress.get_default_columns(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            transient=True,
        )
        self._progress = p.__enter__()
        task = p.add_task("LLM negatives (Prompt 2)", total=self.total)

        def advance(item) -> None:
            p.update(task, description=f"Prompt 2: {item[0].report_id}")
            p.advance(task)

        return advance

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
