"""The thread count llama.cpp runs with: the cores idle now, not the load average."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from causalqa.llm import threads
from causalqa.llm.threads import ThreadChoice, busy_cores, choose_threads, usable_cores


def _fake_counters(monkeypatch, ticks: list[tuple[int, int]], own: list[float]) -> None:
    """`/proc/stat` totals and this process's CPU seconds, one pair per reading."""
    monkeypatch.setattr(threads, "_cpu_ticks", lambda cpus: ticks.pop(0))
    monkeypatch.setattr(threads, "_own_cpu_seconds", lambda: own.pop(0))
    monkeypatch.setattr(threads, "usable_cores", lambda: [0, 1])
    clock = iter([0.0, 0.1])
    monkeypatch.setattr(threads.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(threads.time, "sleep", lambda s: None)


def test_other_work_counts_and_our_own_does_not(monkeypatch):
    # 20 ticks over two cores in 0.1 s, 10 of them busy: one core's worth.
    _fake_counters(monkeypatch, [(100, 1000), (110, 1020)], [5.0, 5.0])
    assert busy_cores() == pytest.approx(1.0)
    # The same busy ticks, all of them ours (0.1 s of our CPU in 0.1 s): nobody else's.
    _fake_counters(monkeypatch, [(100, 1000), (110, 1020)], [5.0, 5.1])
    assert busy_cores() == pytest.approx(0.0)


def test_the_choice_leaves_busy_cores_alone(monkeypatch):
    monkeypatch.delenv("CAUSALQA_THREADS", raising=False)
    monkeypatch.setattr(threads, "usable_cores", lambda: [0, 1])
    for busy, expected in [(0.0, 2), (0.3, 2), (0.9, 1), (1.6, 1), (2.0, 1)]:
        monkeypatch.setattr(threads, "busy_cores", lambda window=0.1, b=busy: b)
        choice = choose_threads()
        assert (choice.threads, choice.source) == (expected, "idle cores"), busy
        assert f"{choice.threads} of 2 cores" in choice.describe()


def test_a_high_load_average_alone_does_not_halve_the_threads(monkeypatch):
    # The 1-minute load average stays high after work has ended; the counters do not.
    monkeypatch.delenv("CAUSALQA_THREADS", raising=False)
    monkeypatch.setattr(threads, "usable_cores", lambda: [0, 1])
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (2.0, 2.0, 2.0))
    monkeypatch.setattr(threads, "busy_cores", lambda window=0.1: 0.0)
    assert choose_threads().threads == 2


def test_without_the_kernel_counters_the_load_average_stands_in(monkeypatch):
    monkeypatch.delenv("CAUSALQA_THREADS", raising=False)
    monkeypatch.setattr(threads, "usable_cores", lambda: [0, 1])
    monkeypatch.setattr(threads, "busy_cores", lambda window=0.1: None)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (1.2, 1.0, 1.0))
    assert choose_threads() == ThreadChoice(1, 2, 1.2, "load average")


def test_the_environment_overrides(monkeypatch):
    monkeypatch.setenv("CAUSALQA_THREADS", "3")
    choice = choose_threads()
    assert (choice.threads, choice.source) == (3, "CAUSALQA_THREADS")
    assert "set by CAUSALQA_THREADS" in choice.describe()
    monkeypatch.setenv("CAUSALQA_THREADS", "many")  # not a number: measured
    assert choose_threads().source in ("idle cores", "load average")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/stat")
def test_a_process_spinning_on_a_core_is_seen():
    spinner = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.time() + 20\nwhile time.time() < end: pass"]
    )
    try:
        time.sleep(0.3)  # let it start spinning
        readings = [busy_cores(0.2) for _ in range(3)]
    finally:
        spinner.kill()
        spinner.wait()
    assert max(readings) >= 0.7, readings  # one core, give or take a tick
    assert all(0.0 <= r <= len(usable_cores()) for r in readings)
