"""`causalqa bench llm`: speed and memory of each local model.

Each model is measured in its own subprocess so that its peak RSS is its own. Measured:
assembly (first use only), load, prompt evaluation tokens/s, generation tokens/s, a long
shared prefix answered cold and then warm (KV-cache reuse), a constrained JSON call,
`label_logprobs`, and a cold CLI call (a new process: load + answer).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from causalqa.bench.report import environment, table_markdown, write_report
from causalqa.llm.threads import usable_cores

_PREFIX = (
    "You are an assistant that answers questions about a causal graph over business "
    "variables. The graph has these directed edges: "
    + "; ".join(f"Variable {i} -> Variable {i + 1}" for i in range(60))
    + ". Answer in one short sentence."
)
_QUESTIONS = ["Does Variable 3 cause Variable 9?", "Is Variable 12 a parent of Variable 13?"]
_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "boolean"}, "reason": {"type": "string", "maxLength": 200}},
    "required": ["answer", "reason"],
}


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _generation_speed(llama, prompt: list[int], n_gen: int) -> tuple[int, float]:
    """(tokens, tokens/s) of greedy generation from an empty KV cache, timed from the
    first token."""
    llama.reset()
    stamps = []
    for i, _tok in enumerate(llama.generate(prompt, temp=0.0, reset=True)):
        stamps.append(time.perf_counter())
        if i + 1 >= n_gen:
            break
    return len(stamps), round((len(stamps) - 1) / (stamps[-1] - stamps[0]), 1)


def measure(spec: str, *, quick: bool) -> dict[str, Any]:
    """Measure one local model in this process (call it in a fresh process)."""
    from causalqa.llm import get_llm, parse_spec
    from causalqa.llm.models import ensure_model

    parsed = parse_spec(spec)
    result: dict[str, Any] = {"spec": spec}
    if parsed.embedded is not None:
        was_ready = parsed.embedded.is_assembled()
        _, secs = _timed(lambda: ensure_model(parsed.embedded, quiet=True))
        result["assemble_seconds"] = None if was_ready else round(secs, 2)
    llm = get_llm(spec, cache=False, quiet=True)
    result["model"] = llm.model
    llama, load = _timed(lambda: llm.llama)
    result["load_seconds"] = round(load, 2)
    from causalqa.llm.kernels import kernel_info

    kernels = kernel_info()
    result["threads"] = llm.n_threads
    result["threads_why"] = llm.thread_choice.describe()
    result["kernels"] = (kernels.variant or kernels.build) if kernels else None
    result["system_info"] = kernels.system_info if kernels else None

    # Prompt evaluation from an empty KV cache.
    n_prompt = 128 if quick else 512
    words = " ".join(f"token{i}" for i in range(n_prompt))
    tokens = llm.tokenize(words)[:n_prompt]
    llama.reset()
    _, secs = _timed(lambda: llama.eval(tokens))
    result["prompt_tokens"] = len(tokens)
    result["prompt_tok_per_s"] = round(len(tokens) / secs, 1)

    # Generation: a fixed number of tokens, timed from the first one; then the same with
    # every usable core, so that the automatic thread choice is judged in the same run.
    n_gen = 32 if quick else 128
    prompt = llm.tokenize(
        llm.render([{"role": "user", "content": "Write a long story about a cat."}])
    )
    n, result["gen_tok_per_s"] = _generation_speed(llama, prompt, n_gen)
    result["gen_tokens"] = n
    cores = len(usable_cores())
    result["all_cores"] = cores
    if cores != llm.n_threads:
        llama._ctx.set_n_threads(cores, cores)
        _, result["gen_tok_per_s_all_cores"] = _generation_speed(llama, prompt, n_gen)
        llama._ctx.set_n_threads(llm.n_threads, llm.n_threads)
    else:
        result["gen_tok_per_s_all_cores"] = result["gen_tok_per_s"]
    result["auto_vs_all_cores"] = round(
        result["gen_tok_per_s"] / result["gen_tok_per_s_all_cores"], 3
    )

    # A long shared prefix: the first question pays for it, the next reuses the KV cache.
    llama.reset()
    msgs = [
        [{"role": "system", "content": _PREFIX}, {"role": "user", "content": q}] for q in _QUESTIONS
    ]
    result["prefix_tokens"] = len(llm.tokenize(llm.render(msgs[0])))
    r_cold, cold = _timed(lambda: llm.complete(msgs[0], max_tokens=8))
    r_warm, warm = _timed(lambda: llm.complete(msgs[1], max_tokens=8))
    result["prefix_cold_seconds"] = round(cold, 2)
    result["prefix_warm_seconds"] = round(warm, 2)
    result["prefix_saving"] = round(1 - warm / cold, 3) if cold else None

    # A constrained JSON call and a label scoring, both after the warm prefix.
    resp, secs = _timed(
        lambda: llm.complete(
            [{"role": "user", "content": "Is smoking a cause of lung cancer? Answer in JSON."}],
            schema=_SCHEMA,
            max_tokens=96,
        )
    )
    result["json_call_seconds"] = round(secs, 2)
    result["json_completion_tokens"] = resp.usage.completion_tokens
    scores, secs = _timed(
        lambda: llm.label_logprobs(
            [{"role": "user", "content": "Does smoking cause lung cancer? Answer True or False."}],
            ["True", "False"],
        )
    )
    result["label_logprobs_seconds"] = round(secs, 2)
    result["label_logprobs_best"] = scores.best
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0)
    llm.close()
    return result


def _cold_cli_seconds(spec: str) -> float | None:
    """Wall seconds of a whole `causalqa llm` process (import + load + answer)."""
    cmd = [
        sys.executable,
        "-m",
        "causalqa.cli",
        "llm",
        "--llm",
        spec,
        "--max-tokens",
        "8",
        "--no-cache",
        "Say OK.",
    ]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    return round(time.perf_counter() - start, 2)


def run_llm_bench(specs: list[str], *, quick: bool, out_dir: Path, console=None) -> dict[str, Any]:
    from rich.progress import Progress

    rows = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("bench llm", total=len(specs) * 2)
        for spec in specs:
            progress.update(task, description=f"measuring {spec}")
            proc = subprocess.run(
                [sys.executable, "-m", "causalqa.bench.llm", spec] + (["--quick"] if quick else []),
                capture_output=True,
                text=True,
            )
            progress.advance(task)
            if proc.returncode != 0:
                last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
                rows.append({"spec": spec, "error": last})
                progress.advance(task)
                continue
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            progress.update(task, description=f"cold CLI call {spec}")
            row["cold_cli_seconds"] = _cold_cli_seconds(spec)
            progress.advance(task)
            rows.append(row)
    columns = [
        ("spec", "spec"),
        ("model", "model"),
        ("load_seconds", "load s"),
        ("prompt_tok_per_s", "prompt tok/s"),
        ("gen_tok_per_s", "gen tok/s"),
        ("prefix_tokens", "prefix tokens"),
        ("prefix_cold_seconds", "prefix cold s"),
        ("prefix_warm_seconds", "prefix warm s"),
        ("json_call_seconds", "JSON call s"),
        ("label_logprobs_seconds", "label_logprobs s"),
        ("cold_cli_seconds", "cold CLI s"),
        ("peak_rss_mb", "peak RSS MB"),
        ("kernels", "kernels"),
        ("threads", "threads"),
        ("gen_tok_per_s_all_cores", "gen tok/s, all cores"),
        ("auto_vs_all_cores", "auto ÷ all cores"),
    ]
    report = {
        "benchmark": "llm",
        "quick": quick,
        "environment": environment(),
        "rows": rows,
    }
    systems = sorted({r["system_info"] for r in rows if r.get("system_info")})
    extra = "".join(f"llama.cpp system info: `{x}`\n" for x in systems)
    extra += "".join(
        f"Threads for {r['spec']}: {r['threads_why']}.\n" for r in rows if r.get("threads_why")
    )
    markdown = table_markdown("llm", report, columns, extra=extra)
    write_report(out_dir, "llm", report, markdown)
    report["markdown"] = markdown
    return report


def compare_kernels(
    kernels: list[tuple[str, str | None]],
    *,
    model: Path,
    python: str,
    threads: int,
    repeat: int,
    quick: bool,
    reference: str,
    out_dir: Path,
    console=None,
) -> dict[str, Any]:
    """Tokens per second of the same model under several CPU-kernel builds, each run by
    `causalqa.bench.tok_probe` in a fresh `python` process, interleaved `repeat` times
    (A B C A B C …) so that a change in the machine's load hits all of them alike.

    `kernels`: (label, ``CAUSALQA_GGML_CPU`` value or None for the automatic choice).
    Each build's median is compared with the `reference` label's."""
    import os
    import statistics

    from rich.progress import Progress

    src = str(Path(__file__).resolve().parents[2])
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in kernels}
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("kernels", total=repeat * len(kernels))
        for _ in range(repeat):
            for label, value in kernels:
                progress.update(task, description=f"kernels: {label}")
                env = {k: v for k, v in os.environ.items() if k != "CAUSALQA_GGML_CPU"}
                env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
                if value:
                    env["CAUSALQA_GGML_CPU"] = value
                cmd = [python, "-m", "causalqa.bench.tok_probe", str(model), "--threads"]
                cmd += [str(threads), "--prompt", "128" if quick else "256"]
                cmd += ["--gen", "32" if quick else "96"]
                proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
                progress.advance(task)
                if proc.returncode != 0:
                    last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
                    runs[label].append({"error": f"exit {proc.returncode}: {last}"})
                    continue
                runs[label].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    keys = ("gen_tok_per_s", "gen_tok_per_cpu_s", "prompt_tok_per_s", "prompt_tok_per_cpu_s")
    rows = []
    for label, value in kernels:
        ok = [r for r in runs[label] if "error" not in r]
        row: dict[str, Any] = {"spec": label, "kernels_env": value or "(automatic)"}
        if not ok:
            row["error"] = runs[label][-1]["error"] if runs[label] else "not run"
        else:
            row.update(
                variant=ok[0]["variant"],
                system_info=ok[0]["system_info"],
                runs=len(ok),
                load=round(statistics.fmean(r["load"] for r in ok), 2),
                **{k: round(statistics.median(r[k] for r in ok), 2) for k in keys},
            )
        rows.append(row)
    ref = next((r for r in rows if r["spec"] == reference and "error" not in r), None)
    for r in rows:
        if ref and "error" not in r:
            for k in keys:
                r[f"{k}_vs_ref"] = round(r[k] / ref[k], 3)
    columns = [
        ("spec", "build"),
        ("variant", "kernels"),
        ("runs", "runs"),
        ("load", "load avg"),
        ("gen_tok_per_s", "gen tok/s"),
        ("gen_tok_per_s_vs_ref", f"÷ {reference}"),
        ("gen_tok_per_cpu_s", "gen tok/CPU s"),
        ("gen_tok_per_cpu_s_vs_ref", f"÷ {reference}"),
        ("prompt_tok_per_s", "prompt tok/s"),
        ("prompt_tok_per_s_vs_ref", f"÷ {reference}"),
        ("prompt_tok_per_cpu_s", "prompt tok/CPU s"),
        ("prompt_tok_per_cpu_s_vs_ref", f"÷ {reference}"),
    ]
    report = {
        "benchmark": "llm-kernels",
        "quick": quick,
        "llm": str(model),
        "threads": threads,
        "repeat": repeat,
        "reference": reference,
        "environment": environment(),
        "rows": rows,
        "runs": runs,
    }
    systems = "".join(
        f"- {r['spec']}: `{r['system_info']}`\n" for r in rows if r.get("system_info")
    )
    extra = (
        f"Each build ran {repeat} times, interleaved, {threads} thread(s), medians shown; "
        "tok/CPU s divides by this process's CPU time, which the machine's other load "
        f"does not inflate as much as wall time.\n\nllama.cpp system info:\n{systems}"
    )
    markdown = table_markdown("llm --kernels", report, columns, extra=extra)
    write_report(out_dir, "llm-kernels", report, markdown)
    report["markdown"] = markdown
    return report


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(measure(args[0], quick="--quick" in args)))
