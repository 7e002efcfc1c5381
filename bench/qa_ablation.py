"""What each step of the QA planner buys: the same questions under planner ablations.

Each setting runs `causalqa bench qa` in tool mode on one paraphrase set (default: dev4,
a development set — ablations compare settings, they tune nothing) with `Assistant`
options changed one at a time from the defaults:

- ``cues=off``: the LLM alone chooses among the tools the question's names allow (no answer
  type, direction, scope or count read from the wording);
- ``examples=none`` / ``examples=retrieve``: no worked examples, or the 4 nearest (MiniLM)
  instead of all of them in the cached prefix;
- ``strategy=plan``: the LLM writes the whole call under the grounded schema instead of
  choosing the tool only;
- ``intent_choice=logprob``: the tool chosen by whole-reply log-probability;
- ``repair=off``: no second plan after an execution error.

    .venv/bin/python bench/qa_ablation.py [--set dev4] [--seeds 2] [--llm local]

Writes bench/results/ablation/qa-ablation.{json,md} (and each run's own report beside).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from causalqa.bench.qa import planner_options, run_qa_bench
from causalqa.bench.report import environment, markdown_table

SETTINGS = (
    "",
    "cues=off",
    "examples=none",
    "examples=retrieve",
    "strategy=plan",
    "intent_choice=logprob",
    "repair=off",
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", default="dev4")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--per-template", type=int, default=3)
    ap.add_argument("--llm", default=None)
    ap.add_argument("--settings", default=None, help="';'-separated subset of SETTINGS")
    ap.add_argument("--out", type=Path, default=Path("bench/results/ablation"))
    args = ap.parse_args()
    settings = SETTINGS if args.settings is None else tuple(args.settings.split(";"))
    rows = []
    for setting in settings:
        name = setting.replace("=", "-") or "default"
        report = run_qa_bench(
            args.llm,
            graph_sizes=(10, 40),
            effect_sizes=((10, 30), (40, 100)),
            seeds=args.seeds,
            per_template=args.per_template,
            modes=("tool",),
            paraphrased=args.set,
            planner=planner_options(setting),
            out_dir=args.out / name,
        )
        by_family = {t["family"]: t for t in report["totals"]}
        consulted = sum(float(r["llm_share"]) * r["n"] for r in report["rows"])
        rows.append(
            {
                "setting": setting or "(defaults)",
                "n": by_family["all"]["n"],
                "graph": by_family["graph"]["accuracy"],
                "effect": by_family["effect"]["accuracy"],
                "all": by_family["all"]["accuracy"],
                "unparseable": by_family["all"]["unparseable"],
                "llm": f"{consulted / by_family['all']['n']:.2f}",
                "median_s": by_family["all"]["median_seconds"],
                "llm_spec": report["llm"],
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    env = environment()
    md = "\n".join(
        [
            "# QA planner ablations",
            "",
            f"- date: {env['date']}",
            f"- hardware: {env['cpu']}, {env['cores']} cores",
            f"- model: {rows[0]['llm_spec']}; paraphrase set {args.set}; seeds {args.seeds}; "
            f"graph n_n 10, 40; effects 10x30, 40x100; tool mode",
            "",
            markdown_table(
                rows,
                [
                    ("setting", "setting"),
                    ("n", "questions"),
                    ("graph", "graph acc."),
                    ("effect", "effect acc."),
                    ("all", "all acc."),
                    ("unparseable", "unparseable"),
                    ("llm", "LLM consulted"),
                    ("median_s", "median s"),
                ],
            ),
            "",
        ]
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "qa-ablation.md").write_text(md)
    (args.out / "qa-ablation.json").write_text(json.dumps({"environment": env, "rows": rows}))
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
