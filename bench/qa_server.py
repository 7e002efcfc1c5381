"""`causalqa bench qa` against a loopback llama.cpp server at several concurrencies.

Starts llama.cpp's own ``llama-server`` (``bash scripts/build-llama-server.sh``) with
`--slots` slots over an embedded model on 127.0.0.1, runs the same ``bench qa --quick``
job (tool and context mode, a paraphrase set so that tool mode asks the LLM too, no
response cache) at each `--concurrencies` level, and compares: wall seconds, and how many
answers and grades are the same as at the first level. Writes
``bench/results/qa-server/qa-server-latest.{json,md}`` and each run's own report under
``c<N>/``.

    .venv/bin/python bench/qa_server.py [--model local:small] [--concurrencies 1,4]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from causalqa.bench.qa import run_qa_bench
from causalqa.bench.report import document, environment, markdown_table, write_report
from causalqa.llm import parse_spec
from causalqa.llm.models import ensure_model
from causalqa.llm.serve import start_server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="local:small", help="An embedded model spec.")
    ap.add_argument("--concurrencies", default="1,4")
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1, help="llama-server's threads.")
    ap.add_argument("--paraphrased", default="dev", help="Wording set (dev: development).")
    ap.add_argument("--out", type=Path, default=Path("bench/results/qa-server"))
    args = ap.parse_args()
    levels = [int(c) for c in args.concurrencies.split(",")]
    model = ensure_model(parse_spec(args.model).embedded, quiet=True)
    rows, runs = [], []
    with start_server(
        model, log=args.out / "server.log", slots=args.slots, threads=args.threads,
        kind="llama-server", name=args.model,
    ) as server:  # fmt: skip
        for c in levels:
            load = os.getloadavg()[0]
            start = time.perf_counter()
            report = run_qa_bench(
                server.spec, quick=True, modes=("tool", "context"), cache=False,
                paraphrased=args.paraphrased, out_dir=args.out / f"c{c}", concurrency=c,
            )  # fmt: skip
            wall = time.perf_counter() - start
            runs.append(report["outcomes"])
            first = runs[0]
            rows.append(
                {
                    "concurrency": c,
                    "questions": len(report["outcomes"]),
                    "llm_asked": sum(o["prompt_tokens"] > 0 for o in report["outcomes"]),
                    "correct": sum(o["correct"] for o in report["outcomes"]),
                    "wall_s": round(wall, 1),
                    "speed_up": round(rows[0]["wall_s"] / wall, 2) if rows else 1.0,
                    "same_answers": sum(
                        a["answer"] == b["answer"] for a, b in zip(report["outcomes"], first)
                    ),
                    "same_grades": sum(
                        a["correct"] == b["correct"] for a, b in zip(report["outcomes"], first)
                    ),
                    "load_average": round(load, 2),
                }
            )
            print(rows[-1], flush=True)
    summary = {
        "benchmark": "qa-server",
        "model": args.model,
        "server": f"llama-server, {args.slots} slots, {args.threads} thread(s)",
        "paraphrased": args.paraphrased,
        "environment": environment(),
        "rows": rows,
    }
    body = markdown_table(
        rows,
        [
            ("concurrency", "concurrency"), ("questions", "questions"),
            ("llm_asked", "LLM asked"), ("correct", "correct"), ("wall_s", "wall s"),
            ("speed_up", "speed-up"), ("same_answers", "answers as at the first level"),
            ("same_grades", "grades as at the first level"), ("load_average", "load avg"),
        ],
    )  # fmt: skip
    title = f"bench qa --quick against llama-server ({args.model}, {args.slots} slots)"
    print(write_report(args.out, "qa-server", summary, document(title, summary, body)))


if __name__ == "__main__":
    main()
