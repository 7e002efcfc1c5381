"""Many calls at once (causalqa.llm.concurrent): bounded, ordered, retried, resumable."""

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from tests.llm.fake_openai import FakeServer, reply_to

from causalqa.errors import (
    ConfigError,
    DataFileError,
    LLMOutputError,
    LLMRateLimitError,
    LLMServerError,
)
from causalqa.llm import get_llm
from causalqa.llm.concurrent import (
    Failed,
    Journal,
    Retry,
    default_concurrency,
    is_transient,
    run_ordered,
)

NO_WAIT = Retry(attempts=4, base=0.0)


def test_results_and_callbacks_come_in_input_order_with_bounded_calls_in_flight():
    lock = threading.Lock()
    state = {"now": 0, "max": 0}
    rng = random.Random(1)
    delays = [rng.uniform(0, 0.03) for _ in range(40)]

    def slow_square(x):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(delays[x])  # later items often finish first
        with lock:
            state["now"] -= 1
        return x * x

    seen = []
    out = run_ordered(
        slow_square, range(40), concurrency=4, on_result=lambda i, item, r: seen.append((i, r))
    )
    assert out == [x * x for x in range(40)]
    assert seen == list(enumerate(out))
    assert 2 <= state["max"] <= 4


def test_transient_failures_are_retried_with_growing_backoff():
    calls, waits = [], []

    def flaky(x):
        calls.append(x)
        if len(calls) <= 2:
            raise LLMServerError("HTTP 503", status=503)
        return x + 1

    retries = []
    out = run_ordered(
        flaky,
        [1],
        retry=Retry(attempts=5, base=1.0),
        sleep=waits.append,
        on_retry=lambda i, attempt, e, delay: retries.append((i, attempt, delay)),
    )
    assert out == [2] and len(calls) == 3
    assert [r[1] for r in retries] == [1, 2]
    assert 0.5 <= waits[0] <= 1.5 and 1.0 <= waits[1] <= 3.0  # base·2^(n-1), ± half


def test_lasting_and_permanent_failures():
    def broken(x):
        raise LLMOutputError("no JSON")

    with pytest.raises(LLMOutputError):  # not transient: no retry
        run_ordered(broken, [1, 2], retry=NO_WAIT, sleep=lambda s: None)
    out = run_ordered(broken, [1], errors="keep", retry=NO_WAIT)
    assert isinstance(out[0], Failed) and out[0].kind == "LLMOutputError"

    attempts = []

    def always_503(x):
        attempts.append(x)
        raise LLMServerError("HTTP 503", status=503)

    with pytest.raises(LLMServerError):
        run_ordered(always_503, [1], retry=NO_WAIT, sleep=lambda s: None)
    assert len(attempts) == 4  # Retry.attempts in all
    assert not is_transient(LLMServerError("bad request", status=400))
    assert is_transient(LLMRateLimitError("slow down"))


def test_bad_settings_and_duplicate_keys_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="at least 1"):
        run_ordered(str, [1], concurrency=0)
    with pytest.raises(ConfigError, match="same key"):
        run_ordered(str, [1, 2], key=lambda x: "k")
    assert default_concurrency("local") == 1
    assert default_concurrency("openai:http://h:1/v1#m") == 4
    assert default_concurrency("local", 3) == 3


def test_default_concurrency_from_the_environment(monkeypatch):
    monkeypatch.setenv("CAUSALQA_CONCURRENCY", "6")
    assert default_concurrency("local") == 6
    monkeypatch.setenv("CAUSALQA_CONCURRENCY", "lots")
    with pytest.raises(ConfigError, match="CAUSALQA_CONCURRENCY"):
        default_concurrency("local")


def test_a_journal_resumes_where_a_failed_run_stopped(tmp_path):
    path = tmp_path / "job.journal"
    calls = []

    def fail_at_7(x):
        calls.append(x)
        if x == 7:
            raise LLMOutputError("boom")
        return {"x": x, "double": 2 * x}

    with pytest.raises(LLMOutputError):
        run_ordered(fail_at_7, range(10), concurrency=1, journal=Journal(path, {"job": 1}))
    assert sorted(calls) == list(range(8))  # in order, one at a time: 0..7, 7 failed
    calls.clear()
    again = run_ordered(
        lambda x: calls.append(x) or {"x": x, "double": 2 * x},
        range(10),
        journal=Journal(path, {"job": 1}),
    )
    assert sorted(calls) == [7, 8, 9]  # the finished ones are read back, not asked again
    assert again == [{"x": x, "double": 2 * x} for x in range(10)]
    with pytest.raises(ConfigError, match="another job"):
        Journal(path, {"job": 2})


def test_a_torn_last_journal_line_is_dropped_and_appends_stay_clean(tmp_path):
    path = tmp_path / "job.journal"
    run_ordered(lambda x: x, [1, 2], journal=Journal(path, "j"))
    with path.open("a") as f:
        f.write('{"key": "abc", "res')  # what a kill mid-write leaves
    journal = Journal(path, "j")
    assert len(journal.done()) == 2
    journal.record("k3", 3)
    lines = path.read_text().splitlines()
    assert all(json.loads(line) for line in lines) and len(lines) == 4
    (tmp_path / "other").write_text('{"a": 1}\n')
    with pytest.raises(DataFileError, match="not a causalqa journal"):
        Journal(tmp_path / "other", "j")


def test_429_with_retry_after_pauses_and_is_retried_against_a_real_http_server():
    with FakeServer(failures=[(429, {"Retry-After": "1"}), (429, {"Retry-After": "1"})]) as srv:
        llm = get_llm(f"openai:{srv.url}#fake", cache=False, max_retries=0, timeout=10)
        start = time.monotonic()
        out = run_ordered(
            lambda p: llm.complete(p).text, ["hello there", "second one"], concurrency=2
        )
        elapsed = time.monotonic() - start
    assert out == [reply_to("hello there"), reply_to("second one")]
    assert sum(srv.requests.values()) == 4  # two 429s, then one answer each
    assert elapsed >= 1.0  # Retry-After was honoured (both 429s came at once: one pause)
    # No request went out during the pause the server asked for.
    first_ok = sorted(srv.times)[2]
    assert first_ok - srv.times[0] >= 0.95


def test_a_server_error_status_becomes_a_retriable_error():
    with FakeServer(failures=[(503, {})]) as srv:
        llm = get_llm(f"openai:{srv.url}#fake", cache=False, max_retries=0, timeout=10)
        with pytest.raises(LLMServerError) as e:
            llm.complete("hi")
        assert e.value.status == 503 and is_transient(e.value)
        assert run_ordered(lambda p: llm.complete(p).text, ["abc"], retry=NO_WAIT) == ["cba"]


def _batch(tmp_path: Path, url: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "causalqa.cli",
            "--llm",
            f"openai:{url}#fake",
            "batch",
            str(tmp_path / "in.jsonl"),
            "--out",
            str(tmp_path / "out.jsonl"),
            "--json",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def test_batch_resumes_after_sigkill_without_asking_finished_requests_again(tmp_path):
    prompts = [f"request number {i:02d}" for i in range(24)]
    (tmp_path / "in.jsonl").write_text(
        "".join(json.dumps({"id": f"r{i}", "prompt": p}) + "\n" for i, p in enumerate(prompts))
    )
    journal = tmp_path / "out.jsonl.journal"
    with FakeServer(delay=0.25) as srv:
        proc = _batch(tmp_path, srv.url, "--concurrency", "2")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait until some, not all, are journaled
            if journal.exists() and len(journal.read_text().splitlines()) > 6:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        # Let the server finish the calls it received before the kill (a loaded machine
        # may start their handlers late), so `first` counts every request sent.
        settle = time.monotonic() + 10
        time.sleep(0.5)
        while srv.in_flight and time.monotonic() < settle:
            time.sleep(0.05)
        first = dict(srv.requests)
        done_before = journal.read_text().count("\n") - 1  # whole lines: a torn one is dropped
        assert 0 < done_before < len(prompts)
        assert not (tmp_path / "out.jsonl").exists()

        proc = _batch(tmp_path, srv.url, "--concurrency", "3")
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
        assert srv.max_in_flight <= 3
    summary = json.loads(stdout)
    assert summary["resumed"] >= done_before
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [f"r{i}" for i in range(len(prompts))]
    assert [r["text"] for r in rows] == [reply_to(p) for p in prompts]
    # Every request was answered; those journaled before the kill were not asked again
    # (only the calls in flight at the kill were sent twice).
    asked_twice = [p for p in prompts if srv.requests[p] > 1]
    assert len(asked_twice) <= 2 and all(first.get(p) == 1 for p in asked_twice)
    assert not journal.exists()  # done: the output holds everything


def test_batch_refuses_to_overwrite_and_names_bad_lines(tmp_path, capsys):
    from causalqa.llm.batch import read_requests

    (tmp_path / "in.jsonl").write_text('{"prompt": "a"}\n{"prompt": "b", "colour": 1}\n')
    with pytest.raises(DataFileError, match=r"in.jsonl:2: unknown field\(s\) colour"):
        read_requests(tmp_path / "in.jsonl")
    (tmp_path / "in.jsonl").write_text('{"prompt": "a"}\n{"messages": []}\n')
    with pytest.raises(DataFileError, match="in.jsonl:2: messages must be"):
        read_requests(tmp_path / "in.jsonl")
    (tmp_path / "in.jsonl").write_text('{"id": 1, "prompt": "a"}\n{"id": 1, "prompt": "b"}\n')
    with pytest.raises(DataFileError, match="already used on line 1"):
        read_requests(tmp_path / "in.jsonl")
    (tmp_path / "in.jsonl").write_text('{"prompt": "abc"}\n')
    (tmp_path / "out.jsonl").write_text("mine\n")
    with FakeServer() as srv:
        proc = _batch(tmp_path, srv.url)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "already exists" in stderr
    assert (tmp_path / "out.jsonl").read_text() == "mine\n"


def test_per_thread_objects_are_never_shared_by_calls_in_flight():
    from causalqa.llm.concurrent import PerThread

    made = []
    lock = threading.Lock()

    def make(key):
        obj = {"key": key, "busy": False}
        with lock:
            made.append(obj)
        return obj

    per = PerThread(make)

    def use(item):
        key, _ = item
        obj = per.get(key)
        assert obj["key"] == key and not obj["busy"]  # nobody else is using it
        obj["busy"] = True
        time.sleep(0.002)
        obj["busy"] = False
        return key

    items = [(k, i) for k in range(3) for i in range(10)]
    assert run_ordered(use, items, concurrency=4) == [k for k, _ in items]
    assert 3 <= len(made) <= 12  # at most one per thread and key


def test_a_busy_server_error_gets_out_of_code_that_swallows_llm_errors():
    from causalqa.errors import LLMError, LLMTimeoutError
    from causalqa.llm.concurrent import BUSY, is_busy, surfacing_busy
    from causalqa.llm.testing import ScriptedLLM

    def lenient(llm, prompt):  # grades any LLM error as "no answer", as context mode does
        try:
            return llm.complete(prompt).text
        except LLMError:
            return None

    class Flaky(ScriptedLLM):
        def __init__(self, error):
            super().__init__(lambda m: "fine")
            self.error = error

        def _generate(self, messages, **kw):
            if self.error is not None:
                error, self.error = self.error, None
                raise error
            return super()._generate(messages, **kw)

    busy = Flaky(LLMRateLimitError("429", retry_after=0.0))
    assert run_ordered(lambda p: surfacing_busy(lenient, busy, p), ["q"], retry=BUSY) == ["fine"]
    slow = Flaky(LLMTimeoutError("too slow"))  # not a busy server: graded, not retried
    assert run_ordered(lambda p: surfacing_busy(lenient, slow, p), ["q"], retry=BUSY) == [None]
    assert is_busy(LLMServerError("x", status=503)) and not is_busy(LLMTimeoutError("x"))
