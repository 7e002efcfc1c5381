"""`causalqa bench deduction --mining`: what mining a causal KG costs, per report.

Mines a seeded sample of the data set's reports into a fresh temporary KG with the real
LLM (no response cache: every call is timed) and reports seconds per report, prompt and
completion tokens, chains per report (extracted, inferred), calls cut off by their
budget, and the machine's load while it ran (a shared machine slows generation).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from causalqa.bench.report import environment, header, write_report


def run_mining_bench(
    data: str | Path,
    *,
    llm=None,
    llm_spec: str | None = None,
    reports: int = 5,
    mode: str = "fast",
    seed: int = 0,
    out_dir: Path | None = Path("bench/results/deduction"),
    progress: bool = True,
) -> dict[str, Any]:
    from causalqa.deduction.dataset import Report, load_jsonl, sample_report_ids
    from causalqa.deduction.event_graph import CausalKG
    from causalqa.deduction.mining import mine

    examples = load_jsonl(data)
    ctx: dict[str, str] = {}
    stmts: dict[str, list[str]] = {}
    for e in examples:
        ctx.setdefault(e.report_id, e.context)
        if e.source in ("true", "false-rules", "false"):  # as `kg mine` is given them
            stmts.setdefault(e.report_id, []).append(e.statement)
    ids = sample_report_ids(ctx, reports, seed)
    items = [Report(report_id=i, context=ctx[i]) for i in ids]
    if llm is None:
        from causalqa.llm import get_llm

        llm = get_llm(llm_spec, cache=False, quiet=not progress)
    llm.load() if hasattr(llm, "load") else None
    load_before = os.getloadavg()[0]
    per_report: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        kg = CausalKG.open(Path(tmp) / "kg")
        start = time.perf_counter()
        for r in items:
            t0 = time.perf_counter()
            mine([r], llm, kg, statements=stmts, mode=mode, progress=False)
            recs = [x for x in kg.records if x.report_id == r.report_id]
            per_report[r.report_id] = {
                "seconds": round(time.perf_counter() - t0, 2),
                "calls": sum(1 for x in recs if x.prompt != "fast" or x.task == "extract"),
                "prompt_tokens": sum(x.prompt_tokens for x in recs),
                "completion_tokens": sum(x.completion_tokens for x in recs),
                "extracted": sum(
                    1 for c in kg.chains if c.report_id == r.report_id and c.kind == "extracted"
                ),
                "inferred": sum(
                    1 for c in kg.chains if c.report_id == r.report_id and c.kind == "inferred"
                ),
                "statements": len(dict.fromkeys(stmts.get(r.report_id, ()))),
                "cut_off": sum(1 for x in recs if x.finish_reason == "length"),
                "failed": sum(1 for x in recs if x.error),
            }
        wall = time.perf_counter() - start
    load_after = os.getloadavg()[0]
    secs = [v["seconds"] for v in per_report.values()]

    def mean(key: str) -> float:
        return round(statistics.fmean(v[key] for v in per_report.values()), 2)

    report = {
        "benchmark": "deduction-mining",
        "environment": environment(),
        "config": {
            "data": str(data),
            "reports": len(items),
            "mode": mode,
            "seed": seed,
            "llm": f"{getattr(llm, 'backend', '?')}:{getattr(llm, 'model', '?')}",
            "threads": os.environ.get("CAUSALQA_THREADS", "all cores"),
        },
        "load_average": {"before": round(load_before, 2), "after": round(load_after, 2)},
        "seconds_per_report": {
            "mean": round(statistics.fmean(secs), 2),
            "median": round(statistics.median(secs), 2),
            "max": round(max(secs), 2),
        },
        "prompt_tokens_per_report": mean("prompt_tokens"),
        "completion_tokens_per_report": mean("completion_tokens"),
        "chains_per_report": {"extracted": mean("extracted"), "inferred": mean("inferred")},
        "calls_per_report": mean("calls"),
        "wall_seconds": round(wall, 1),
        "per_report": per_report,
    }
    lines = header("causalqa bench deduction --mining", report["environment"])
    lines += [
        f"- LLM: {report['config']['llm']}, mode {mode}, threads "
        f"{report['config']['threads']}, no response cache; {len(items)} reports (seed {seed})",
        f"- load average (1 min) before / after: {report['load_average']['before']} / "
        f"{report['load_average']['after']} (2 cores; above 2 the machine was shared)",
        "",
        "| report | statements | s | calls | failed (e.g. timed out) | prompt tok | "
        "completion tok | extracted | inferred | cut off |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for rid, v in per_report.items():
        lines.append(
            f"| {rid} | {v['statements']} | {v['seconds']} | {v['calls']} | {v['failed']} | "
            f"{v['prompt_tokens']} | {v['completion_tokens']} | {v['extracted']} | "
            f"{v['inferred']} | {v['cut_off']} |"
        )
    s = report["seconds_per_report"]
    lines += [
        "",
        f"**{s['mean']} s per report** (median {s['median']}, max {s['max']}; target ≤ 15), "
        f"{report['completion_tokens_per_report']} completion and "
        f"{report['prompt_tokens_per_report']} prompt tokens, "
        f"{report['chains_per_report']['extracted']} extracted + "
        f"{report['chains_per_report']['inferred']} inferred chains per report.",
        "",
    ]
    report["markdown"] = "\n".join(lines)
    if out_dir is not None:
        write_report(Path(out_dir), f"mining-{mode}", report, report["markdown"])
    return report


def run_speed_bench(
    data: str | Path,
    *,
    verifier_path: str | Path | None = None,
    n: int = 20,
    seed: int = 0,
    out_dir: Path | None = Path("bench/results/deduction"),
) -> dict[str, Any]:
    """`deduce`'s cost with the verifier and no LLM: loading, the first (cold) call, warm
    single calls (mean, p90, max over `n` statements) and per item in one batch."""
    import numpy as np

    from causalqa.deduction.dataset import load_jsonl
    from causalqa.deduction.deduce import verify, verify_batch
    from causalqa.deduction.verifier import load_verifier

    examples = load_jsonl(data)
    rng = np.random.default_rng(seed)
    pick = [
        examples[i] for i in rng.choice(len(examples), size=min(n, len(examples)), replace=False)
    ]
    t0 = time.perf_counter()
    v = load_verifier(verifier_path)
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    verify(pick[0].context, pick[0].statement + " (first call)", v)  # loads MiniLM
    cold = time.perf_counter() - t0
    warm = []
    for e in pick:
        # A statement not seen before in this process: nothing of it is cached in memory.
        s = e.statement.rstrip(".") + " (again)."
        t0 = time.perf_counter()
        verify(e.context, s, v)
        warm.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    verify_batch([(e.context, e.statement + " ") for e in pick], v)
    batch = (time.perf_counter() - t0) / len(pick)
    report = {
        "benchmark": "deduction-speed",
        "environment": environment(),
        "config": {"data": str(data), "n": len(pick), "verifier": str(verifier_path or "default")},
        "load_average": round(os.getloadavg()[0], 2),
        "load_seconds": round(load, 3),
        "cold_seconds": round(cold, 3),
        "warm_seconds": {
            "mean": round(float(np.mean(warm)), 3),
            "p90": round(float(np.quantile(warm, 0.9)), 3),
            "max": round(float(np.max(warm)), 3),
        },
        "batch_seconds_per_item": round(batch, 3),
    }
    w = report["warm_seconds"]
    lines = header("causalqa bench deduction --speed", report["environment"])
    lines += [
        f"- verifier: {report['config']['verifier']} (no LLM feature), {len(pick)} statements "
        f"of {data}; load average {report['load_average']} on 2 cores",
        "",
        f"load {report['load_seconds']} s · first call {report['cold_seconds']} s (loads "
        f"MiniLM) · **warm {w['mean']} s per statement** (p90 {w['p90']}, max {w['max']}; "
        f"target ≤ 1) · batch {report['batch_seconds_per_item']} s per item",
        "",
    ]
    report["markdown"] = "\n".join(lines)
    if out_dir is not None:
        write_report(Path(out_dir), "speed", report, report["markdown"])
    return report
