"""Many model calls at once against a server: bounded, retried, in order, resumable.

`run_ordered(fn, items, concurrency=N)` calls ``fn(item)`` for every item with at most N
calls in flight (threads: the calls wait on the network or on llama.cpp, both of which
release the GIL) and returns the results in input order, whatever order they finish in.

- **Retries**: a call that fails with a transient error — HTTP 429 (`LLMRateLimitError`),
  a 5xx (`LLMServerError`), a timeout or a refused connection — is retried with
  exponential backoff and jitter, up to `Retry.attempts` times. A 429's ``Retry-After``
  pauses *every* worker, not only the one that got it: the server said it is full.
- **Order**: ``on_result(index, item, result)`` is called in input order as soon as every
  earlier item is done, so a caller can write its output file as it goes.
- **State**: `PerThread` gives each worker its own object where one keeps per-call
  state (an `Assistant`); `surfacing_busy` lets a busy server's error out of code that
  grades any `LLMError` as a failed answer, so it is retried (`BUSY`) instead.
- **Resume**: with a `Journal` (JSON Lines through `causalqa.jsonl`, one fsync'd line per
  finished item), a run killed at any point — even by SIGKILL — restarts where it stopped:
  finished items are read back, not asked again. A torn last line is dropped.

The local backend answers one call at a time (llama.cpp holds one context), so its
default concurrency is 1; an OpenAI-compatible server (vLLM, llama.cpp's ``llama-server
--parallel N``, Ollama with ``OLLAMA_NUM_PARALLEL``) serves several: `default_concurrency`.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causalqa.errors import (
    CausalQAError,
    ConfigError,
    DataFileError,
    LLMConnectionError,
    LLMError,
    LLMRateLimitError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from causalqa.jsonl import append_jsonl, dumps, read_jsonl

ENV_CONCURRENCY = "CAUSALQA_CONCURRENCY"
SERVER_CONCURRENCY = 4
"""Default in-flight calls for an ``openai:`` spec: what a small server's slots take
(llama-server --parallel 4); raise it for vLLM on a GPU."""

_MISSING = object()


def default_concurrency(spec: str | None, explicit: int | None = None) -> int:
    """In-flight calls for a backend spec: `explicit`, else ``$CAUSALQA_CONCURRENCY``, else
    1 for the in-process local model and `SERVER_CONCURRENCY` for a server."""
    if explicit is not None:
        value, source = explicit, "--concurrency"
    elif os.environ.get(ENV_CONCURRENCY, "").strip():
        value, source = os.environ[ENV_CONCURRENCY].strip(), f"${ENV_CONCURRENCY}"
    else:
        return SERVER_CONCURRENCY if (spec or "").startswith("openai:") else 1
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise ConfigError(f"{source} must be a whole number ≥ 1, got {value!r}")
    return n


def is_transient(error: BaseException) -> bool:
    """Whether a failed call is worth repeating: 429, 5xx, timeouts, refused connections."""
    if isinstance(error, LLMServerError):
        return error.status >= 500 or error.status in (408, 409)
    return isinstance(error, LLMRateLimitError | LLMTimeoutError | LLMConnectionError)


def is_busy(error: BaseException) -> bool:
    """A transient failure that says the server is busy (429, 5xx, refused), not that the
    call itself is slow: a timeout repeats at temperature 0, so retrying it only wastes time."""
    return is_transient(error) and not isinstance(error, LLMTimeoutError)


class PerThread:
    """One object per worker thread, made by ``make(key)`` when a thread first needs the
    object of `key`: for objects with per-call state (an `Assistant`) that calls in flight
    cannot share. A thread keeps only its latest key's object (jobs come in key order)."""

    def __init__(self, make: Callable[[Any], Any]) -> None:
        self._make = make
        self._local = threading.local()

    def get(self, key: Any) -> Any:
        slot = getattr(self._local, "slot", None)
        if slot is None or slot[0] != key:
            slot = self._local.slot = (key, self._make(key))
        return slot[1]


class _Busy(Exception):
    def __init__(self, error: LLMError) -> None:
        super().__init__(str(error))
        self.error = error


class _Surfacing:
    """An LLM whose busy-server errors pass through code that catches `LLMError`."""

    def __init__(self, llm: Any) -> None:
        self._llm = llm

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(self._llm, method)(*args, **kwargs)
        except LLMError as e:
            if is_busy(e):
                raise _Busy(e) from e
            raise

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("complete", *args, **kwargs)

    def label_logprobs(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("label_logprobs", *args, **kwargs)


def surfacing_busy(fn: Callable[..., Any], llm: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(llm, *args, **kwargs)`` for an `fn` that turns an `LLMError` into an answer
    ("unparseable"): a busy server's error (`is_busy`) is raised instead, so `run_ordered`
    waits and asks again rather than grading a 429."""
    try:
        return fn(_Surfacing(llm), *args, **kwargs)
    except _Busy as busy:
        raise busy.error from None


@dataclass(frozen=True)
class Retry:
    """How failed calls are repeated: `attempts` in all (1 = never again), waiting
    ``base * 2**(n-1)`` seconds (± half, at random; at most `cap`) before the n-th retry,
    or what a 429's ``Retry-After`` says."""

    attempts: int = 6
    base: float = 0.5
    cap: float = 30.0
    retriable: Callable[[BaseException], bool] = is_transient

    def delay(self, retry: int, error: BaseException, rng: random.Random) -> float:
        advised = getattr(error, "retry_after", None)
        if advised is not None:
            return min(self.cap, float(advised))
        return min(self.cap, self.base * 2 ** (retry - 1)) * (0.5 + rng.random())


@dataclass
class Failed:
    """The result slot of an item whose call failed for good (``errors="keep"``)."""

    error: str
    kind: str

    def to_dict(self) -> dict[str, str]:
        return {"error": self.error, "kind": self.kind}


BUSY = Retry(retriable=is_busy)
"""Retry a busy server (429, 5xx, refused), not a slow reply."""


def item_key(item: Any) -> str:
    """A stable key of a JSON-able item (sha256 of its canonical JSON)."""
    text = json.dumps(item, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class Journal:
    """What a job has finished, one JSON line per item, to resume after a crash.

    The first line names the job (`job`: any JSON-able description, e.g. the model and
    the input file's checksum); a journal of another job is refused rather than mixed in.
    """

    VERSION = 1

    def __init__(self, path: str | os.PathLike[str], job: Any) -> None:
        self.path = Path(path)
        self.job = json.loads(dumps(job))
        self._lock = threading.Lock()
        self._done: dict[str, Any] = {}
        if self.path.exists():
            self._read()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_jsonl(self.path, [{"causalqa_journal": self.VERSION, "job": self.job}])

    def _read(self) -> None:
        _drop_torn_tail(self.path)
        header_seen = False
        for n, row in read_jsonl(self.path, torn_tail=True):
            if not header_seen:
                if not isinstance(row, dict) or row.get("causalqa_journal") != self.VERSION:
                    raise DataFileError(
                        f"{self.path}:{n}: not a causalqa journal",
                        hint="give another output path, or move this file away",
                        path=str(self.path),
                        line=n,
                    )
                if row.get("job") != self.job:
                    raise ConfigError(
                        f"{self.path} is the journal of another job ({row.get('job')})",
                        hint="finish that job with the same settings, or delete the journal "
                        "to start this one afresh",
                    )
                header_seen = True
                continue
            if isinstance(row, dict) and "key" in row and "result" in row:
                self._done[str(row["key"])] = row["result"]
        if not header_seen:  # an empty file (killed before the header was written)
            append_jsonl(self.path, [{"causalqa_journal": self.VERSION, "job": self.job}])

    def done(self) -> dict[str, Any]:
        """Finished items: key → result."""
        return dict(self._done)

    def record(self, key: str, result: Any) -> None:
        with self._lock:
            append_jsonl(self.path, [{"key": key, "result": result}])
            self._done[key] = result

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line that a kill left without its newline, so appends start clean."""
    with path.open("rb+") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        block = 1 << 16
        pos = size
        while pos > 0:
            start = max(0, pos - block)
            f.seek(start)
            chunk = f.read(pos - start)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                f.truncate(start + nl + 1)
                return
            pos = start
        f.truncate(0)


class _Gate:
    """A pause every worker honours before its next call (set by a 429's Retry-After)."""

    def __init__(self, sleep: Callable[[float], None]) -> None:
        self._until = 0.0
        self._lock = threading.Lock()
        self._sleep = sleep

    def hold(self, seconds: float) -> None:
        with self._lock:
            self._until = max(self._until, time.monotonic() + seconds)

    def wait(self) -> None:
        while True:
            with self._lock:
                left = self._until - time.monotonic()
            if left <= 0:
                return
            self._sleep(left)


def run_ordered(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    concurrency: int = 1,
    key: Callable[[Any], str] | None = None,
    journal: Journal | None = None,
    retry: Retry | None = None,
    errors: str = "raise",
    on_result: Callable[[int, Any, Any], None] | None = None,
    on_retry: Callable[[int, int, BaseException, float], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    seed: int = 0,
) -> list[Any]:
    """``[fn(item) for item in items]`` with up to `concurrency` calls in flight.

    - `key(item)` names an item in the `journal` (default: `item_key`); keys must be
      unique. Items the journal holds are not called again; each new result is recorded
      as soon as it arrives (results must then be JSON-able).
    - `retry` (default `Retry()`) repeats transient failures; ``on_retry(index, attempt,
      error, delay)`` is told each time.
    - `errors`: "raise" stops at the first lasting failure (calls in flight finish and are
      journaled, nothing new starts) and raises it; "keep" puts a `Failed` in its slot
      (not journaled, so a resumed run tries it again).
    - ``on_result(index, item, result)`` runs in input order, in the calling thread.
    """
    if concurrency < 1:
        raise ConfigError(f"concurrency must be at least 1, got {concurrency}")
    if errors not in ("raise", "keep"):
        raise ConfigError(f"errors must be 'raise' or 'keep', got {errors!r}")
    items = list(items)
    retry = retry or Retry()
    keys = [(key or item_key)(it) for it in items] if journal is not None or key else []
    if keys and len(set(keys)) != len(keys):
        seen: dict[str, int] = {}
        for i, k in enumerate(keys):
            if k in seen:
                raise ConfigError(
                    f"items {seen[k]} and {i} have the same key {k!r}",
                    hint="give every item a distinct id",
                )
            seen[k] = i
    results: list[Any] = [_MISSING] * len(items)
    if journal is not None:
        done = journal.done()
        for i, k in enumerate(keys):
            if k in done:
                results[i] = done[k]
    rng = random.Random(seed)
    rng_lock = threading.Lock()
    gate = _Gate(sleep)
    emitted = 0

    def emit_ready() -> None:
        nonlocal emitted
        while emitted < len(items) and results[emitted] is not _MISSING:
            if on_result is not None:
                on_result(emitted, items[emitted], results[emitted])
            emitted += 1

    def call(i: int) -> Any:
        attempt = 1
        while True:
            gate.wait()
            try:
                return fn(items[i])
            except Exception as e:
                if attempt >= retry.attempts or not retry.retriable(e):
                    raise
                with rng_lock:
                    delay = retry.delay(attempt, e, rng)
                if isinstance(e, LLMRateLimitError):
                    gate.hold(delay)  # the server is full: everyone waits
                if on_retry is not None:
                    on_retry(i, attempt, e, delay)
                if not isinstance(e, LLMRateLimitError):
                    sleep(delay)
                attempt += 1

    emit_ready()
    pending = iter([i for i, r in enumerate(results) if r is _MISSING])
    failure: BaseException | None = None
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="causalqa-call") as pool:
        in_flight: dict[Future, int] = {}

        def fill() -> None:
            while failure is None and len(in_flight) < concurrency:
                i = next(pending, None)
                if i is None:
                    return
                in_flight[pool.submit(call, i)] = i

        fill()
        while in_flight:
            finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for fut in finished:
                i = in_flight.pop(fut)
                try:
                    value = fut.result()
                except Exception as e:
                    if errors == "raise":
                        failure = failure or e
                        continue
                    value = Failed(
                        error=e.message if isinstance(e, CausalQAError) else str(e),
                        kind=type(e).__name__,
                    )
                else:
                    if journal is not None:
                        journal.record(keys[i], value)
                results[i] = value
            if failure is None:
                emit_ready()
            fill()
    if failure is not None:
        raise failure
    emit_ready()
    return results


def run_batch(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    concurrency: int,
    on_result: Callable[[int, Any, Any], None],
) -> None:
    """`run_ordered` for a resumable batch of LLM calls whose results `on_result` stores:
    a busy server's failures (`is_busy`) are retried with backoff; one still failing after every
    retry stops the run as an `LLMUnavailableError` (as does a server that cannot be
    reached), so that the same command resumes it."""
    try:
        run_ordered(
            fn,
            items,
            concurrency=concurrency,
            retry=BUSY,
            on_result=on_result,
        )
    except LLMUnavailableError:
        raise
    except LLMError as e:  # still failing after every retry: the server is unwell
        raise LLMUnavailableError(
            f"the model kept failing: {e.message}",
            hint="check the server; rerun the same command to resume",
        ) from e
