"""Development driver for the QA planner: every wording of a paraphrase set, on a few
generated models, with each failure shown in full (grounding, plan, expected plan).

    .venv/bin/python bench/qa_dev.py dev2 [--seeds 2] [--llm local] [--only TEMPLATE]

Only for development sets ("dev" … "dev5": their files' status): the held-out sets ("a",
"test", "test2", "test3") are refused here, since reading their failures would turn them into
development sets. Their scores come from `causalqa bench qa --paraphrased a|test|test2|test3`,
which prints no questions.
Uses the response cache, so a rerun with unchanged prompts is fast.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from causalqa.bench import qa_data
from causalqa.bench.qa import planner_options
from causalqa.bench.wordings import wording_sets
from causalqa.llm import get_llm
from causalqa.qa.assistant import Assistant


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("set", choices=wording_sets("paraphrase", status="development"))
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--llm", default=None)
    ap.add_argument("--planner", default=None, help="Assistant options, e.g. intent_choice=logprob")
    ap.add_argument("--only", default=None, help="comma-separated template ids")
    ap.add_argument("--no-cache", action="store_true")
    args = ap.parse_args()
    llm = get_llm(args.llm, cache=not args.no_cache)
    wordings = qa_data.paraphrase_set(args.set)
    only = set(args.only.split(",")) if args.only else None
    fails, total, per_template = [], 0, Counter()
    correct_t = Counter()
    start = time.perf_counter()
    for seed in range(args.seeds):
        for family, (nn, nt, ns) in (("graph", (20, 5, 10)), ("effect", (10, 10, 30))):
            model = qa_data.generate_model(nn, nt, ns, seed=seed)
            templates = qa_data.GRAPH_TEMPLATES if family == "graph" else qa_data.EFFECT_TEMPLATES
            items = qa_data.generate_questions(
                model, n_per_template=2, seed=seed, templates=templates
            )
            assistant = Assistant(model, llm, **planner_options(args.planner))
            unit = qa_data.unit_noun(model)
            for item in items:
                if only and item.template not in only:
                    continue
                for k, text in enumerate(wordings[item.template]):
                    # alternate the two slot fillings over the wordings
                    if int(item.id.rsplit("-", 1)[1]) != (k + seed) % 2 and item.template not in (
                        "best_treatment",
                        "best_treatment_not_engaged",
                    ):
                        continue
                    fill = {**item.slots, "unit": unit, "Unit": unit[:1].upper() + unit[1:]}
                    q = text.format(**fill)
                    assistant.reset()
                    a = assistant.ask(q)
                    got = qa_data.normalize_result(a.result) if a.answered else None
                    ok = a.answered and qa_data.grade_exact(item.expected, got)
                    total += 1
                    per_template[item.template] += 1
                    correct_t[item.template] += ok
                    if not ok:
                        fails.append(
                            {
                                "template": item.template,
                                "k": k,
                                "question": q,
                                "grounding": a.grounding,
                                "plan": a.plan["steps"] if a.plan else a.answer,
                                "expected_plan": item.plan,
                            }
                        )
    for f in fails:
        print(json.dumps(f, ensure_ascii=False))
    print()
    for t in qa_data.TEMPLATES:
        if per_template[t]:
            print(f"{t:28s} {correct_t[t]:3d}/{per_template[t]:3d}")
    n_ok = total - len(fails)
    print(
        f"{args.set}: {n_ok}/{total} = {n_ok / max(total, 1):.3f}  "
        f"({time.perf_counter() - start:.0f} s, {llm.backend}:{llm.model})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
