"""Many prompts through one model: ``causalqa batch IN.jsonl --out OUT.jsonl``.

Each input line is one request — ``{"prompt": "…"}`` or ``{"messages": [...]}``, with an
optional ``id``, ``schema`` (a JSON Schema: the reply is JSON valid under it),
``max_tokens``, ``temperature`` and ``seed``. The output has one line per request, in
input order: ``id``, ``text``, ``data`` (with a schema), ``usage``, ``seconds``,
``finish_reason`` — or ``error`` and ``kind`` when the call failed for good.

Calls run through `causalqa.llm.concurrent.run_ordered`: several in flight against a
server, retried on 429/5xx, and journaled next to the output (``OUT.journal``), so a run
that is stopped — by Ctrl-C or a kill — continues where it stopped when started again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causalqa.errors import ConfigError, DataFileError
from causalqa.jsonl import read_jsonl, write_jsonl
from causalqa.llm.base import LLM
from causalqa.llm.concurrent import Failed, Journal, Retry, run_ordered
from causalqa.llm.schema import check_schema

_FIELDS = {"id", "prompt", "messages", "schema", "max_tokens", "temperature", "seed"}


@dataclass(frozen=True)
class Request:
    """One line of a batch file, checked."""

    id: str
    messages: Any
    schema: dict[str, Any] | None = None
    max_tokens: int = 512
    temperature: float = 0.0
    seed: int = 0

    def key(self) -> str:
        return self.id


def read_requests(path: str | Path, *, max_tokens: int = 512) -> list[Request]:
    """The requests of a batch file; a bad line is a `DataFileError` naming file and line."""
    path = Path(path)
    requests: list[Request] = []
    ids: dict[str, int] = {}
    for n, row in read_jsonl(path):

        def bad(what: str, line: int = n) -> DataFileError:
            return DataFileError(
                f"{path}:{line}: {what}",
                hint='each line is {"prompt": "..."} or {"messages": [...]}, optionally with '
                "id, schema, max_tokens, temperature, seed",
                path=str(path),
                line=line,
            )

        if not isinstance(row, dict):
            raise bad("a request must be a JSON object")
        unknown = set(row) - _FIELDS
        if unknown:
            raise bad(f"unknown field(s) {', '.join(sorted(unknown))}")
        if ("prompt" in row) == ("messages" in row):
            raise bad("give exactly one of prompt or messages")
        messages = row.get("prompt", row.get("messages"))
        if isinstance(messages, str):
            if not messages.strip():
                raise bad("the prompt is empty")
        elif not (isinstance(messages, list) and messages):
            raise bad("messages must be a non-empty list of {role, content}")
        rid = str(row.get("id", len(requests) + 1))
        if rid in ids:
            raise bad(f"id {rid!r} was already used on line {ids[rid]}")
        ids[rid] = n
        schema = row.get("schema")
        if schema is not None:
            try:
                check_schema(schema)
            except Exception as e:
                raise bad(f"schema: {getattr(e, 'message', e)}") from None
        try:
            tokens = int(row.get("max_tokens", max_tokens))
            temperature = float(row.get("temperature", 0.0))
            seed = int(row.get("seed", 0))
        except (TypeError, ValueError):
            raise bad("max_tokens and seed must be integers, temperature a number") from None
        if tokens < 1:
            raise bad("max_tokens must be at least 1")
        requests.append(Request(rid, messages, schema, tokens, temperature, seed))
    if not requests:
        raise DataFileError(
            f"{path}: no requests", hint="one JSON request per line", path=str(path)
        )
    return requests


def answer(llm: LLM, request: Request) -> dict[str, Any]:
    """One request's output row (JSON-able)."""
    r = llm.complete(
        request.messages,
        schema=request.schema,
        max_tokens=request.max_tokens,
        temperature=request.temperature,
        seed=request.seed,
    )
    row: dict[str, Any] = {"id": request.id, "text": r.text}
    if request.schema is not None:
        row["data"] = r.data
    usage = r.usage
    row.update(
        usage={"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens},
        seconds=round(r.seconds, 3),
        finish_reason=r.finish_reason,
        cached=r.cached,
    )
    return row


def journal_path(out: Path) -> Path:
    return out.with_name(out.name + ".journal")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


@dataclass
class BatchRun:
    """What a batch did: output rows in input order and how many were resumed/failed."""

    rows: list[dict[str, Any]]
    resumed: int
    failed: int
    out: Path


def run_batch(
    llm: LLM,
    source: str | Path,
    out: str | Path,
    *,
    concurrency: int = 1,
    max_tokens: int = 512,
    overwrite: bool = False,
    retry: Retry | None = None,
    on_result: Callable[[int, Any, Any], None] | None = None,
    on_retry: Callable[[int, int, BaseException, float], None] | None = None,
) -> BatchRun:
    """Answer every request of `source` into `out` (JSON Lines, input order); resumable
    through ``OUT.journal``. An existing `out` is an error unless `overwrite`."""
    source, out = Path(source), Path(out)
    requests = read_requests(source, max_tokens=max_tokens)
    jpath = journal_path(out)
    if out.exists() and not overwrite and not jpath.exists():
        raise ConfigError(f"{out} already exists", hint="choose another --out or pass --overwrite")
    job = {
        "input": _sha256(source),
        "model": f"{llm.backend}:{llm.cache_identity()}",
        "max_tokens": max_tokens,
    }
    journal = Journal(jpath, job)
    resumed = sum(1 for r in requests if r.id in journal.done())
    results = run_ordered(
        lambda r: answer(llm, r),
        requests,
        concurrency=concurrency,
        key=Request.key,
        journal=journal,
        retry=retry,
        errors="keep",
        on_result=on_result,
        on_retry=on_retry,
    )
    rows = [
        {"id": req.id, **res.to_dict()} if isinstance(res, Failed) else res
        for req, res in zip(requests, results)
    ]
    failed = sum(isinstance(r, Failed) for r in results)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(out, rows)
    if not failed:
        journal.remove()  # done: the output holds everything
    return BatchRun(rows=rows, resumed=resumed, failed=failed, out=out)
