"""Chat sessions and background jobs: what the service keeps between requests.

A session is an `Assistant` over one causal model that remembers the conversation, so a
follow-up ("and for partner 3?") keeps its context; it expires `ttl` seconds after its
last question. A job is a long call (graph discovery, fitting a model) that answers
with an id at once and is polled (or streamed, as server-sent events) for its progress and
result; finished jobs are forgotten after their own `ttl`. Both stores are bounded.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from causalqa.errors import CausalQAError, NotFoundError, QueueFullError, ServiceError


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- sessions -------------------------------------------------------------------------------
@dataclass
class Session:
    id: str
    model: str
    assistant: Any
    created: str = field(default_factory=_now_iso)
    last_used: float = field(default_factory=time.monotonic)
    turns: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self, ttl: float) -> dict[str, Any]:
        return {
            "id": self.id,
            "model": self.model,
            "created": self.created,
            "expires_in": max(0, round(ttl - (time.monotonic() - self.last_used))),
            "turns": self.turns,
        }


class SessionStore:
    """At most `max_sessions` sessions; each expires `ttl` seconds after its last use.
    When full, the least recently used session makes room."""

    def __init__(self, ttl: float, max_sessions: int, clock: Callable[[], float] = time.monotonic):
        self.ttl = ttl
        self.max_sessions = max_sessions
        self._clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def sweep(self) -> None:
        now = self._clock()
        with self._lock:
            for sid in [s.id for s in self._sessions.values() if now - s.last_used > self.ttl]:
                del self._sessions[sid]

    def create(self, model: str, assistant: Any) -> Session:
        self.sweep()
        session = Session(secrets.token_urlsafe(16), model, assistant, last_used=self._clock())
        with self._lock:
            while len(self._sessions) >= self.max_sessions:
                oldest = min(self._sessions.values(), key=lambda s: s.last_used)
                del self._sessions[oldest.id]
            self._sessions[session.id] = session
        return session

    def get(self, sid: str) -> Session:
        self.sweep()
        with self._lock:
            session = self._sessions.get(sid)
            if session is None:
                raise NotFoundError(
                    "no such chat session (it may have expired)",
                    hint="start a new one with POST /v1/sessions",
                )
            session.last_used = self._clock()
            return session

    def delete(self, sid: str) -> None:
        with self._lock:
            if self._sessions.pop(sid, None) is None:
                raise NotFoundError("no such chat session (it may have expired)")

    def drop_model(self, model: str) -> None:
        """Forget the sessions over a model that was deleted."""
        with self._lock:
            for sid in [s.id for s in self._sessions.values() if s.model == model]:
                del self._sessions[sid]


# -- jobs -----------------------------------------------------------------------------------
class JobCancelled(ServiceError):
    """Raised inside a job's progress callback once the job was cancelled or ran too long."""


@dataclass
class Job:
    id: str
    kind: str
    status: str = "queued"
    """``queued``, ``running``, ``done``, ``failed`` or ``cancelled``."""
    created: str = field(default_factory=_now_iso)
    progress: dict[str, Any] = field(default_factory=lambda: {"done": 0, "total": None})
    result: Any = None
    error: dict[str, Any] | None = None
    started_at: float | None = None
    finished_at: float | None = None
    deadline: float | None = None
    version: int = 0
    """Bumped on every change, so a stream knows when to send an event."""
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _future: Future | None = field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed", "cancelled")

    def to_dict(self) -> dict[str, Any]:
        seconds = None
        if self.started_at is not None:
            seconds = round((self.finished_at or time.monotonic()) - self.started_at, 2)
        return {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "created": self.created,
            "seconds": seconds,
            "progress": dict(self.progress),
            "result": self.result,
            "error": self.error,
        }

    # called on the worker thread
    def report(self, done: int, total: int | None, message: str = "") -> None:
        """Progress from inside the job; raises `JobCancelled` once it should stop."""
        self.progress = {"done": done, "total": total, "message": message}
        self.version += 1
        if self._cancel.is_set() or (
            self.deadline is not None and time.monotonic() > self.deadline
        ):
            raise JobCancelled("the job was stopped")

    def cancel(self, reason: str = "cancelled") -> None:
        self._cancel.set()
        if self._future is not None and self._future.cancel():
            self._finish("cancelled", error={"code": "cancelled", "message": reason})

    def _finish(self, status: str, result: Any = None, error: dict | None = None) -> None:
        self.status = status
        self.result = result
        self.error = error
        self.finished_at = time.monotonic()
        self.version += 1


class JobStore:
    """At most `max_jobs` jobs; finished ones are forgotten `ttl` seconds after finishing
    (or sooner, oldest first, to make room). Every job has at most `timeout` seconds."""

    def __init__(self, max_jobs: int, ttl: float, timeout: float):
        self.max_jobs = max_jobs
        self.ttl = ttl
        self.timeout = timeout
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def sweep(self) -> None:
        now = time.monotonic()
        with self._lock:
            for job in list(self._jobs.values()):
                if job.finished and now - (job.finished_at or now) > self.ttl:
                    del self._jobs[job.id]

    def start(
        self,
        kind: str,
        submit: Callable[[Callable[[Any], Any]], Future],
        work: Callable[[Any, Job], Any],
        error_body: Callable[[BaseException], dict[str, Any]],
    ) -> Job:
        """A new job running ``work(llm, job)`` through `submit` (the model worker's).
        `error_body` turns a failure into the job's ``error``."""
        self.sweep()
        with self._lock:
            if len(self._jobs) >= self.max_jobs:
                done = sorted(
                    (j for j in self._jobs.values() if j.finished), key=lambda j: j.finished_at
                )
                if not done:
                    raise QueueFullError(
                        f"{self.max_jobs} jobs are already queued or running",
                        hint="wait for one to finish, or cancel one with DELETE /v1/jobs/{id}",
                    )
                del self._jobs[done[0].id]
            job = Job(secrets.token_urlsafe(12), kind)
            self._jobs[job.id] = job

        def run(llm: Any) -> Any:
            job.status = "running"
            job.started_at = time.monotonic()
            job.deadline = job.started_at + self.timeout
            job.version += 1
            return work(llm, job)

        def finished(future: Future) -> None:
            if future.cancelled():
                if not job.finished:
                    job._finish("cancelled", error={"code": "cancelled", "message": "cancelled"})
                return
            e = future.exception()
            if e is None:
                job._finish("done", result=future.result())
            elif isinstance(e, JobCancelled):
                reason = "cancelled" if job.started_at is None else "the job was stopped"
                if time.monotonic() - (job.started_at or time.monotonic()) > self.timeout:
                    reason = f"the job ran longer than {self.timeout:g} s and was stopped"
                job._finish("cancelled", error={"code": "cancelled", "message": reason})
            else:
                job._finish("failed", error=error_body(e))

        try:
            job._future = submit(run)
        except CausalQAError:
            with self._lock:
                del self._jobs[job.id]
            raise
        job._future.add_done_callback(finished)
        return job

    def get(self, job_id: str) -> Job:
        self.sweep()
        job = self._jobs.get(job_id)
        if job is None:
            raise NotFoundError(
                "no such job (finished jobs are kept for a while, then forgotten)",
                hint="start the job again",
            )
        return job

    def list(self) -> list[Job]:
        self.sweep()
        return list(self._jobs.values())
