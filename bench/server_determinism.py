"""Does a loopback llama-server answer the same at concurrency 4 as at concurrency 1?

Issue 20 asks for identical results in identical order at concurrency 4. Tool-mode answers
are (bench/qa_server.py), but free text is not: llama.cpp does not compute a sequence
bit-for-bit the same when other sequences share its batch (upstream ggml-org/llama.cpp
#6950, #7052, #7347). This driver measures that, and whether a server setting removes it:
each `--configs` entry starts llama-server with those flags (4 slots, one thread), sends
the same 8 greedy chat requests (a table of 40 rows and a question; 80 tokens) at
concurrency 1, then 4, then 1 again, and counts the answers that equal the first run's.
With ``cache_prompt`` on (the server's default) the repeat also reuses cached prompt
prefixes. Writes ``bench/results/server-determinism/server-determinism-latest.{json,md}``.

    .venv/bin/python bench/server_determinism.py [--cache-prompt] [--configs "-;--no-cont-batching"]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from causalqa.bench.report import document, environment, markdown_table, write_report
from causalqa.llm import parse_spec
from causalqa.llm.models import ensure_model
from causalqa.llm.serve import start_server

DEFAULT_CONFIGS = "-;--no-cont-batching;--no-kv-unified;--no-cont-batching --no-kv-unified"


def prompts(n: int = 8, rows: int = 40, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        table = "\n".join(
            f"partner {j}: effect of Discount {rng.uniform(-5, 20):.2f}, "
            f"effect of Tech Support {rng.uniform(-5, 20):.2f}"
            for j in range(rows)
        )
        out.append(
            f"Here is a table of effects.\n{table}\nQuestion {i}: which treatment helps "
            f"partner {i * 3} more, and by how much? Explain briefly."
        )
    return out


def ask(url: str, model: str, prompt: str, cache_prompt: bool) -> str:
    body = {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0,
        "max_tokens": 80,
        "seed": 0,
        "cache_prompt": cache_prompt,
    }
    request = urllib.request.Request(
        f"{url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=900) as response:
        return json.loads(response.read())["choices"][0]["message"]["content"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="local:small", help="An embedded model spec.")
    ap.add_argument("--configs", default=DEFAULT_CONFIGS, help='";"-separated flag sets; "-": none')
    ap.add_argument("--cache-prompt", action="store_true", help="Let the server reuse prefixes.")
    ap.add_argument("--out", type=Path, default=Path("bench/results/server-determinism"))
    args = ap.parse_args()
    model = ensure_model(parse_spec(args.model).embedded, quiet=True)
    texts = prompts()
    rows = []
    for config in args.configs.split(";"):
        flags = [] if config.strip() == "-" else config.split()
        with start_server(
            model, log=args.out / "server.log", slots=4, threads=1, kind="llama-server",
            name=args.model, extra_args=flags,
        ) as server:  # fmt: skip
            runs = []
            for concurrency in (1, 4, 1):
                start = time.perf_counter()
                with ThreadPoolExecutor(concurrency) as pool:
                    answers = list(
                        pool.map(
                            lambda p: ask(server.url, server.model, p, args.cache_prompt), texts
                        )
                    )
                runs.append((answers, time.perf_counter() - start))
        (first, s1), (fourth, s4), (again, _) = runs
        rows.append(
            {
                "flags": " ".join(flags) or "(defaults)",
                "requests": len(texts),
                "c1_s": round(s1, 1),
                "c4_s": round(s4, 1),
                "c4_same_as_c1": sum(a == b for a, b in zip(first, fourth)),
                "c1_again_same": sum(a == b for a, b in zip(first, again)),
                "load_average": round(os.getloadavg()[0], 2),
            }
        )
        print(rows[-1], flush=True)
    summary = {
        "benchmark": "server-determinism",
        "model": args.model,
        "server": "llama-server, 4 slots, 1 thread, greedy, 80 tokens",
        "cache_prompt": args.cache_prompt,
        "environment": environment(),
        "rows": rows,
    }
    body = markdown_table(
        rows,
        [
            ("flags", "llama-server flags"), ("requests", "requests"), ("c1_s", "c1 s"),
            ("c4_s", "c4 s"), ("c4_same_as_c1", "c4 answers = c1"),
            ("c1_again_same", "c1 repeated = c1"), ("load_average", "load avg"),
        ],
    )  # fmt: skip
    title = f"Same answers at concurrency 4? llama-server ({args.model})"
    print(write_report(args.out, "server-determinism", summary, document(title, summary, body)))


if __name__ == "__main__":
    main()
