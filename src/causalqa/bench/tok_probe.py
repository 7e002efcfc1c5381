"""Tokens per second of one llama.cpp build's CPU kernels, in a fresh process.

Runs in any Python that has ``llama_cpp`` and ``numpy`` — no other causalqa dependency —
so builds can be compared in small side environments::

    PYTHONPATH=src python -m causalqa.bench.tok_probe MODEL.gguf --threads 1

It loads the kernels the way causalqa does (`causalqa.llm.kernels`; ``CAUSALQA_GGML_CPU``
picks a variant or a ``.so`` file), then times prompt evaluation (`--prompt` tokens from
an empty cache) and greedy generation (`--gen` tokens), each as tokens per wall second
and per CPU second of this process (CPU time is what a shared machine cannot steal), and
prints one JSON line. `causalqa bench llm --kernels …` runs it for each build.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path


def _kernels_module():
    """`causalqa.llm.kernels` without importing `causalqa.llm` (which needs more
    packages than this probe may have)."""
    path = Path(__file__).resolve().parents[1] / "llm" / "kernels.py"
    spec = importlib.util.spec_from_file_location("_causalqa_kernels", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _quiet():
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def probe(model: str, *, threads: int, n_prompt: int, n_gen: int) -> dict:
    import llama_cpp

    info = _kernels_module().ensure_cpu_backend(llama_cpp)
    with _quiet():
        llm = llama_cpp.Llama(
            model_path=model,
            n_ctx=max(1024, n_prompt + n_gen + 64),
            n_threads=threads,
            n_threads_batch=threads,
            n_batch=512,
            verbose=False,
        )
    words = " ".join(f"token{i}" for i in range(n_prompt))
    tokens = llm.tokenize(words.encode(), add_bos=False)[:n_prompt]
    llm.eval(tokens[:8])  # warm-up: first-touch of the weights is not kernel speed
    llm.reset()
    load = os.getloadavg()[0]
    w, c = time.perf_counter(), time.process_time()
    llm.eval(tokens)
    prompt_wall, prompt_cpu = time.perf_counter() - w, time.process_time() - c
    llm.reset()
    start = llm.tokenize(b"Write a long story about a cat.", add_bos=True)
    stamps, cpus = [], []
    for i, _tok in enumerate(llm.generate(start, temp=0.0, reset=True)):
        stamps.append(time.perf_counter())
        cpus.append(time.process_time())
        if i + 1 >= n_gen:
            break
    gen = len(stamps) - 1  # timed from the first generated token
    return {
        "variant": info.variant or info.build,
        "chosen_by": info.chosen_by,
        "system_info": info.system_info,
        "llama_cpp_python": getattr(llama_cpp, "__version__", "?"),
        "python": sys.executable,
        "threads": threads,
        "load": round(load, 2),
        "prompt_tokens": len(tokens),
        "prompt_tok_per_s": round(len(tokens) / prompt_wall, 1),
        "prompt_tok_per_cpu_s": round(len(tokens) / prompt_cpu, 1),
        "gen_tokens": gen,
        "gen_tok_per_s": round(gen / (stamps[-1] - stamps[0]), 2),
        "gen_tok_per_cpu_s": round(gen / (cpus[-1] - cpus[0]), 2),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--prompt", type=int, default=256)
    parser.add_argument("--gen", type=int, default=64)
    args = parser.parse_args(argv)
    result = probe(args.model, threads=args.threads, n_prompt=args.prompt, n_gen=args.gen)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
