"""One thread that owns the language model and runs every model job in turn.

llama.cpp runs one evaluation at a time and a 2-core machine has no room for more, so the
service never calls the model concurrently: requests put a job on a bounded queue and
await its future. A full queue is refused at once (`QueueFullError`, HTTP 429) rather than
piling up, and so is a job sent before the model has loaded (`NotReadyError`, 503). A
job whose caller gave up (its time limit passed) before it started is skipped; one already
running finishes and its result is dropped — a model call cannot be interrupted.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from causalqa.errors import CausalQAError, NotReadyError, QueueFullError

T = TypeVar("T")
log = logging.getLogger("causalqa.server")

_STOP = object()


class ModelWorker:
    """Runs ``job(llm)`` callables one at a time on a thread that first opens the LLM with
    `open_llm`. At most `queue_size` jobs wait; the running one does not count."""

    def __init__(self, open_llm: Callable[[], Any], *, queue_size: int, name: str = "") -> None:
        self._open_llm = open_llm
        self.name = name
        self.queue_size = queue_size
        self._queue: queue.Queue = queue.Queue(maxsize=queue_size)
        self._thread = threading.Thread(target=self._run, name="causalqa-model", daemon=True)
        self._loaded = threading.Event()
        self.llm: Any = None
        self.error: CausalQAError | None = None
        self.load_seconds: float | None = None
        self.running = False
        self.done = 0

    # -- state
    @property
    def state(self) -> str:
        """``loading``, ``ready`` or ``failed``."""
        if not self._loaded.is_set():
            return "loading"
        return "failed" if self.error is not None else "ready"

    @property
    def started(self) -> bool:
        return self._thread.is_alive() or self._loaded.is_set()

    @property
    def waiting(self) -> int:
        return self._queue.qsize()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until the model has loaded (or failed to); True when it is ready."""
        self._loaded.wait(timeout)
        return self.state == "ready"

    def check_ready(self) -> None:
        if self.state == "loading":
            raise NotReadyError(
                f"the model {self.name} is still loading", hint="retry in a few seconds"
            )
        if self.error is not None:
            raise NotReadyError(
                f"the model {self.name} failed to load: {self.error.message}",
                hint=self.error.hint or "check the server's --llm and its log",
            )

    # -- lifecycle
    def start(self) -> ModelWorker:
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the running job; jobs still waiting are cancelled."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not _STOP:
                item[1].cancel()
        try:
            self._queue.put(_STOP, timeout=1.0)
        except queue.Full:  # pragma: no cover - only a racing submit fills it again
            pass
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        start = time.perf_counter()
        try:
            self.llm = self._open_llm()
        except CausalQAError as e:
            self.error = e
        except Exception as e:  # a broken install: report it as not ready, keep serving
            log.exception("the model failed to load")
            self.error = CausalQAError(f"{type(e).__name__}: {e}")
        self.load_seconds = time.perf_counter() - start
        self._loaded.set()
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            job, future = item
            if not future.set_running_or_notify_cancel():
                continue  # its caller gave up before it started
            self.running = True
            result, error = None, None
            try:
                result = job(self.llm)
            except BaseException as e:  # handed to the caller, who maps it to a reply
                error = e
            # The worker is free before anyone hears of the result.
            self.running = False
            self.done += 1
            _trim_diagnostics(self.llm)
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

    # -- jobs
    def submit(self, job: Callable[[Any], T]) -> Future[T]:
        """Queue ``job(llm)``; its future. `NotReadyError` before the model has loaded,
        `QueueFullError` when `queue_size` jobs already wait."""
        self.check_ready()
        future: Future[T] = Future()
        try:
            self._queue.put_nowait((job, future))
        except queue.Full:
            raise QueueFullError(
                f"the model is busy: {self.queue_size} requests are already waiting"
            ) from None
        return future

    async def run(self, job: Callable[[Any], T]) -> T:
        """Queue ``job(llm)`` and await its result. Cancelling the awaiting task (a time
        limit) cancels the job if it has not started yet."""
        return await asyncio.wrap_future(self.submit(job))


class QueuedLLM:
    """The worker's model for code that runs on another thread (a story read in the
    thread pool): each method call is a job that waits its turn on `worker`, so the model
    is still called one job at a time, and code that never calls it never waits for it.
    A call raises what `submit` raises (`NotReadyError`, `QueueFullError`) or the model."""

    def __init__(self, worker: ModelWorker) -> None:
        self._worker = worker

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            job = self._worker.submit(lambda llm: getattr(llm, name)(*args, **kwargs))
            return job.result()

        return call


def _trim_diagnostics(llm: Any) -> None:
    """The local backend appends one word per call to `prefix_state_events` (diagnostics
    for its tests); in a long-running server that list would only grow."""
    events = getattr(llm, "prefix_state_events", None)
    if isinstance(events, list) and len(events) > 100:
        del events[:-100]
