"""A bounded load test of ``causalqa serve`` on loopback.

Starts the server as a user would (``causalqa --llm SPEC serve --load
partners=examples/partners/model`` on a free 127.0.0.1 port), waits until the model is
ready, then has `--clients` asyncio clients (httpx) ask `--questions` questions about the
partners model through ``POST /v1/ask``, one at a time each. It stops by itself: after the
last question, or at `--max-seconds`. Then an overload burst (``--burst`` requests at once
against a queue of ``--queue``) shows the designed refusals (429) arriving fast.

Measured: latency p50/p95/max, throughput, errors by kind (HTTP status and error code),
and the server's resident memory sampled every second (peak; growth from the second tenth
of the run, after warm-up, to the last).
Writes ``bench/results/server/serve-load-<llm>-latest.{json,md,png}``.

    .venv/bin/python bench/serve_load.py --llm local:small
    .venv/bin/python bench/serve_load.py --llm local --questions 200 --clients 8
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

try:  # the successor of httpx that the API's test client uses; httpx has the same API
    import httpx2 as httpx
except ModuleNotFoundError:  # pragma: no cover
    import httpx

from causalqa.bench.report import document, environment, markdown_table, write_report

ROOT = Path(__file__).resolve().parents[1]
PARTNERS = ROOT / "examples" / "partners" / "model"
RESULTS = ROOT / "bench" / "results" / "server"

VARIABLES = ["Company Size", "Market Growth", "Tech Support", "Discount", "Satisfaction",
             "Demand", "New Engagement Strategy", "Already Engaged"]  # fmt: skip
TREATMENTS = ["Tech Support", "Discount", "New Engagement Strategy"]
TEMPLATES = [
    "Does a change in {v} lead to a change in Revenue?",
    "Does {v} cause {w}?",
    "Which engagement works best for partner P{n:03d}?",
    "What is the average effect of {t}?",
    "Through which variables does {t} influence Revenue?",
    "Which variables directly influence {v}?",
    "Which partner that is not yet engaged benefits most from {t}?",
    "What is the effect of {t} on partner P{n:03d}?",
]


def questions(n: int, seed: int = 0) -> list[str]:
    """`n` questions about the partners model, drawn from `TEMPLATES` (seeded)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        v, w = rng.sample(VARIABLES, 2)
        out.append(
            TEMPLATES[i % len(TEMPLATES)].format(
                v=v, w=w, t=rng.choice(TREATMENTS), n=rng.randint(1, 1000)
            )
        )
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(proc: psutil.Process) -> float:
    total = proc.memory_info().rss
    for child in proc.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


async def sample_memory(proc: psutil.Process, samples: list, stop: asyncio.Event, t0: float):
    while not stop.is_set():
        try:
            samples.append((time.monotonic() - t0, rss_mb(proc)))
        except psutil.Error:
            return
        try:
            await asyncio.wait_for(stop.wait(), 1.0)
        except TimeoutError:
            pass


async def run_clients(url: str, qs: list[str], clients: int, deadline: float, timeout: float):
    """Each client asks the next question until none is left or the deadline passes."""
    todo: asyncio.Queue = asyncio.Queue()
    for q in qs:
        todo.put_nowait(q)
    records: list[dict] = []
    t0 = time.monotonic()

    async def client(i: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=timeout) as http:
            while not todo.empty() and time.monotonic() < deadline:
                q = todo.get_nowait()
                start = time.monotonic()
                kind, answered = "ok", None
                try:
                    r = await http.post("/v1/ask", json={"model": "partners", "question": q})
                    if r.status_code == 200:
                        answered = r.json()["answered"]
                    else:
                        kind = f"{r.status_code} {r.json().get('error', {}).get('code', '?')}"
                except httpx.HTTPError as e:
                    kind = f"client {type(e).__name__}"
                end = time.monotonic()
                records.append(
                    {
                        "client": i,
                        "start": start - t0,
                        "seconds": end - start,
                        "kind": kind,
                        "answered": answered,
                    }  # fmt: skip
                )

    await asyncio.gather(*(client(i) for i in range(clients)))
    return records


async def burst(url: str, n: int, timeout: float) -> collections.Counter:
    """`n` requests at once: with a queue shorter than `n`, the rest are refused (429)."""
    async with httpx.AsyncClient(base_url=url, timeout=timeout) as http:

        async def one(i: int) -> tuple[str, float]:
            start = time.monotonic()
            r = await http.post(
                "/v1/ask",
                json={"model": "partners", "question": f"Does Discount cause Demand? ({i})"},
            )
            code = r.json().get("error", {}).get("code", "ok") if r.status_code != 200 else "ok"
            return f"{r.status_code} {code}", time.monotonic() - start

        done = await asyncio.gather(*(one(i) for i in range(n)))
    kinds = collections.Counter(k for k, _ in done)
    refused = [s for k, s in done if k.startswith("429")]
    return kinds, (max(refused) if refused else None)


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def plot(records: list[dict], memory: list[tuple[float, float]], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, (a, b) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    ok = [r for r in records if r["kind"] == "ok"]
    a.scatter([r["start"] + r["seconds"] for r in ok], [r["seconds"] for r in ok], s=8)
    bad = [r for r in records if r["kind"] != "ok"]
    if bad:
        a.scatter([r["start"] + r["seconds"] for r in bad], [r["seconds"] for r in bad], s=12,
                  color="red", label="error")  # fmt: skip
        a.legend()
    a.set_ylabel("latency (s)")
    a.set_title("POST /v1/ask under load: each answer's latency, and the server's memory")
    b.plot([t for t, _ in memory], [m for _, m in memory])
    b.set_ylabel("server RSS (MB)")
    b.set_xlabel("seconds since the first question")
    b.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llm", default="local:small")
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--queue", type=int, default=8)
    ap.add_argument("--burst", type=int, default=24)
    ap.add_argument("--timeout", type=float, default=600.0, help="Per request (client and server).")
    ap.add_argument("--max-seconds", type=float, default=5400.0, help="Stop asking after this.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    data = Path(tempfile.mkdtemp(prefix="causalqa-load-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.setdefault("CAUSALQA_THREADS", "1")
    cmd = [
        sys.executable, "-m", "causalqa.cli", "--llm", args.llm, "serve", "--port", str(port),
        "--load", f"partners={PARTNERS}", "--data-dir", str(data), "--queue", str(args.queue),
        "--timeout", str(args.timeout), "--log-level", "warning",
    ]  # fmt: skip
    log = open(data / "serve.log", "w")
    server = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    proc = psutil.Process(server.pid)
    started = time.monotonic()
    try:
        while True:
            try:
                if httpx.get(f"{url}/v1/ready", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() - started > 900:
                print((data / "serve.log").read_text(), file=sys.stderr)
                return 1
            time.sleep(0.3)
        ready_s = time.monotonic() - started
        rss_ready = rss_mb(proc)
        print(f"server ready in {ready_s:.1f} s ({rss_ready:.0f} MB); asking {args.questions} "
              f"questions with {args.clients} clients …", file=sys.stderr)  # fmt: skip

        async def session():
            memory: list = []
            stop = asyncio.Event()
            t0 = time.monotonic()
            sampler = asyncio.create_task(sample_memory(proc, memory, stop, t0))
            qs = questions(args.questions, args.seed)
            records = await run_clients(url, qs, args.clients, t0 + args.max_seconds, args.timeout)
            wall = time.monotonic() - t0
            kinds, refused_s = await burst(url, args.burst, args.timeout)
            stop.set()
            await sampler
            return records, memory, wall, kinds, refused_s

        records, memory, wall, burst_kinds, refused_s = asyncio.run(session())
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()

    ok = [r for r in records if r["kind"] == "ok"]
    lat = [r["seconds"] for r in ok]
    errors = collections.Counter(r["kind"] for r in records if r["kind"] != "ok")
    designed = {k: v for k, v in errors.items() if k.startswith(("429", "503"))}
    # Memory after warm-up (the model's pages and KV cache fill during the first answers):
    # the second tenth of the run against the last tenth.
    end = memory[-1][0] if memory else 0.0
    first = [m for t, m in memory if 0.1 * end <= t < 0.2 * end] or [m for _, m in memory[:1]]
    last = [m for t, m in memory if t >= 0.9 * end] or [m for _, m in memory[-1:]]
    report = {
        "benchmark": "serve-load",
        "llm": args.llm,
        "settings": {"questions": args.questions, "clients": args.clients, "queue": args.queue,
                     "timeout": args.timeout, "max_seconds": args.max_seconds,
                     "llama_threads": env["CAUSALQA_THREADS"], "seed": args.seed},  # fmt: skip
        "server_ready_seconds": round(ready_s, 2),
        "asked": len(records),
        "answered_ok": len(ok),
        "answered_by_the_model": sum(1 for r in ok if r["answered"]),
        "wall_seconds": round(wall, 1),
        "throughput_per_second": round(len(ok) / wall, 3) if wall else None,
        "latency_seconds": {
            "p50": round(statistics.median(lat), 3) if lat else None,
            "p95": round(percentile(lat, 0.95), 3) if lat else None,
            "max": round(max(lat), 3) if lat else None,
            "first": round(min(records, key=lambda r: r["start"])["seconds"], 3),
        },
        "errors": dict(errors),
        "errors_not_designed": sum(v for k, v in errors.items() if k not in designed),
        "rss_mb": {
            "ready": round(rss_ready, 1),
            "peak": round(max(m for _, m in memory), 1) if memory else None,
            "second_tenth_mean": round(statistics.mean(first), 1) if memory else None,
            "last_tenth_mean": round(statistics.mean(last), 1) if memory else None,
        },
        "burst": {"requests": args.burst, "results": dict(burst_kinds),
                  "slowest_refusal_seconds": None if refused_s is None else round(refused_s, 3)},
        "environment": environment(),
    }  # fmt: skip
    rss = report["rss_mb"]
    growth = (
        None if rss["peak"] is None else round(rss["last_tenth_mean"] - rss["second_tenth_mean"], 1)
    )
    report["rss_mb"]["growth_second_to_last_tenth"] = growth
    rows = [
        {"what": "questions asked / answered 200", "value": f"{len(records)} / {len(ok)}"},
        {"what": "answered from the model (not refusals)",
         "value": report["answered_by_the_model"]},
        {"what": "latency p50 / p95 / max (s)", "value": " / ".join(
            str(report["latency_seconds"][k]) for k in ("p50", "p95", "max"))},
        {"what": "first question (s)", "value": report["latency_seconds"]["first"]},
        {"what": "throughput (answers/s)", "value": report["throughput_per_second"]},
        {"what": "wall time (s)", "value": report["wall_seconds"]},
        {"what": "errors by kind", "value": dict(errors) or "none"},
        {"what": "server RSS ready / peak (MB)", "value": f"{rss['ready']} / {rss['peak']}"},
        {"what": "RSS, mean of the 2nd → last tenth of the run (MB)",
         "value": f"{rss['second_tenth_mean']} → {rss['last_tenth_mean']} ({growth:+})"},
        {"what": f"burst of {args.burst} at once (queue {args.queue})",
         "value": dict(burst_kinds)},
        {"what": "slowest 429 in the burst (s)",
         "value": report["burst"]["slowest_refusal_seconds"]},
    ]  # fmt: skip
    body = "\n".join(
        [
            f"- model: {args.llm}; {args.clients} clients, {args.questions} questions, queue "
            f"{args.queue}, llama.cpp threads {env['CAUSALQA_THREADS']}; server ready in "
            f"{ready_s:.1f} s",
            "",
            markdown_table(rows, [("what", "measured"), ("value", "")]),
            "",
            "![latency and memory](serve-load-latest.png)",
        ]
    )
    md = document("causalqa serve: load test (bench/serve_load.py)", report, body)
    name = "serve-load-" + args.llm.replace(":", "-").replace("/", "-")
    md = md.replace("serve-load-latest.png", f"{name}-latest.png")
    path = write_report(args.out, name, report, md)
    plot(records, memory, args.out / f"{name}-latest.png")
    print(md)
    print(f"wrote {path}", file=sys.stderr)
    return 0 if report["errors_not_designed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
