"""How many threads llama.cpp should use: the cores that are idle now.

llama.cpp's worker threads spin at barriers, so one thread more than there are idle cores
makes every token wait for a descheduled thread (on 2 cores at load average 12, a first
answer took 58 s with 2 threads and 5 s with 1). The 1-minute load average is the wrong
witness: it stays high for a minute after work that has ended (often our own previous
command), and it counts tasks waiting on disk; on an idle VM it can sit near 1. What is
measured instead is the CPU time other processes take over a short window, from the
kernel's per-CPU counters (``/proc/stat``), less this process's own.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

ENV_THREADS = "CAUSALQA_THREADS"
WINDOW_SECONDS = 0.1
"""Long enough for the kernel's 10 ms ticks to tell an idle core from a busy one."""


@dataclass(frozen=True)
class ThreadChoice:
    """The thread count and why: `source` is "CAUSALQA_THREADS", "idle cores" or
    "load average" (where /proc/stat is not available)."""

    threads: int
    cores: int
    busy: float | None
    source: str

    def describe(self) -> str:
        if self.source == ENV_THREADS:
            return f"{self.threads} (set by {ENV_THREADS})"
        what = "cores busy with other work" if self.source == "idle cores" else "load average"
        return f"{self.threads} of {self.cores} cores ({self.busy:.2f} {what})"


def usable_cores() -> list[int]:
    """The CPUs this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return list(range(os.cpu_count() or 1))


def _cpu_ticks(cpus: list[int]) -> tuple[int, int] | None:
    """(busy, total) ticks summed over `cpus` since boot, or None without /proc/stat."""
    wanted = {f"cpu{i}" for i in cpus}
    busy = total = 0
    try:
        with open("/proc/stat", encoding="ascii") as f:
            for line in f:
                name, _, rest = line.partition(" ")
                if name not in wanted:
                    continue
                fields = [int(x) for x in rest.split()]
                # user nice system idle iowait irq softirq steal (guest is within user)
                idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
                all_ = sum(fields[:8])
                busy += all_ - idle
                total += all_
    except (OSError, ValueError):
        return None
    return (busy, total) if total else None


def _own_cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def busy_cores(window: float = WINDOW_SECONDS) -> float | None:
    """Cores kept busy by other processes over the next `window` seconds (0 … usable
    cores), or None where the kernel's counters cannot be read."""
    cpus = usable_cores()
    first = _cpu_ticks(cpus)
    if first is None:
        return None
    own_start, wall_start = _own_cpu_seconds(), time.perf_counter()
    time.sleep(window)
    second = _cpu_ticks(cpus)
    own, wall = _own_cpu_seconds() - own_start, time.perf_counter() - wall_start
    if second is None or second[1] <= first[1]:
        return None
    share = (second[0] - first[0]) / (second[1] - first[1])
    others = share * len(cpus) - own / max(wall, 1e-6)
    return min(float(len(cpus)), max(0.0, others))


def choose_threads(window: float = WINDOW_SECONDS) -> ThreadChoice:
    """``$CAUSALQA_THREADS``, else the usable cores not busy with other work now."""
    cores = len(usable_cores())
    env = os.environ.get(ENV_THREADS, "").strip()
    if env.isdigit() and int(env) > 0:
        return ThreadChoice(int(env), cores, None, ENV_THREADS)
    busy, source = busy_cores(window), "idle cores"
    if busy is None:
        try:
            busy, source = os.getloadavg()[0], "load average"
        except (AttributeError, OSError):
            busy, source = 0.0, "load average"
    return ThreadChoice(max(1, min(cores, round(cores - busy))), cores, busy, source)
