"""`causalqa bench qa`: the paper's benchmark (§4), tool mode against context mode.

For each size — graph questions over Erdős–Rényi DAGs with n_n nodes; effect questions over
ITE tables of n_t treatments × n_s subjects — and each seed, generate a model and its
questions with exact answers (`qa_data`), ask them in each mode, and grade them exactly
(and, with ``--judge``, with the paper's LLM judge, reporting the agreement). Reported in
the shape of the paper's Tables 1–4 — the proportion of unparseable responses and the
correctness of the parseable ones, mean ± std over seeds — beside the paper's GPT-3.5
numbers, plus end-to-end accuracy, prompt tokens and seconds per question.
"""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causalqa.bench import qa_data
from causalqa.bench.report import environment, table_markdown, write_report
from causalqa.causal_model import CausalModel
from causalqa.errors import ConfigError, LLMError
from causalqa.llm import LLM, get_llm
from causalqa.llm.concurrent import BUSY, Failed, PerThread, is_busy, run_ordered, surfacing_busy
from causalqa.qa.assistant import Assistant
from causalqa.qa.context import answer_in_context
from causalqa.qa.planner import SURE

PAPER_GRAPH_SIZES = (5, 10, 20, 40)
PAPER_EFFECT_SIZES = tuple((t, s) for t in (5, 10, 20, 40) for s in (10, 30, 100))
LARGE_GRAPH_SIZES = (200, 1000)
LARGE_EFFECT_SIZES = ((40, 1000), (40, 10000))


@dataclass
class Outcome:
    family: str
    size: str
    seed: int
    mode: str
    template: str
    question: str
    expected: Any
    result: Any
    answer: str
    parsed: bool
    correct: bool
    judge: bool | None
    prompt_tokens: int
    seconds: float
    cached: bool = False


def result_from_text(text: str, item: qa_data.QAItem, model: CausalModel) -> Any:
    """Read a machine-readable result out of a free-text answer (context mode has no
    structured result), in the expected answer's shape."""
    low = text.casefold()
    expected = item.expected
    if isinstance(expected, bool):
        words = re.findall(r"[a-z]+", low)
        for w in words:
            if w in ("yes", "true"):
                return True
            if w in ("no", "false", "not"):
                return False
        return None
    if isinstance(expected, list):
        return [v for v in model.variables if v.casefold() in low]
    numbers = re.findall(r"-?\d+(?:\.\d+)?", text.replace(",", ""))
    if isinstance(expected, (int, float)):
        return float(numbers[0]) if numbers else None
    if isinstance(expected, dict):
        names = model.treatments + model.subjects
        hits = [n for n in names if re.search(rf"(?<![\w.]){re.escape(n.casefold())}(?![\w])", low)]
        arg = hits[0] if hits else None
        value = None
        for n in numbers:
            if n != arg:
                value = float(n)
                break
        return {"arg": arg, "value": value}
    return None


def _configs(
    quick: bool, large: bool, graph_sizes=None, effect_sizes=None
) -> list[tuple[str, dict[str, int]]]:
    if quick:
        default_graph, default_effect = (5,), ((5, 10),)
    elif large:
        default_graph, default_effect = LARGE_GRAPH_SIZES, LARGE_EFFECT_SIZES
    else:
        default_graph, default_effect = PAPER_GRAPH_SIZES, PAPER_EFFECT_SIZES
    graph_sizes = default_graph if graph_sizes is None else graph_sizes
    effect_sizes = default_effect if effect_sizes is None else effect_sizes
    configs = [("graph", {"n_nodes": n, "n_treatments": 5, "n_subjects": 10}) for n in graph_sizes]
    configs += [
        ("effect", {"n_nodes": 10, "n_treatments": t, "n_subjects": s}) for t, s in effect_sizes
    ]
    return configs


def _size_label(family: str, cfg: dict[str, int]) -> str:
    if family == "graph":
        return f"n_n={cfg['n_nodes']}"
    return f"n_t={cfg['n_treatments']},n_s={cfg['n_subjects']}"


def _judge(llm: LLM, item: qa_data.QAItem, answer: str) -> bool | None:
    """The paper's LLM judge (Listing 5); None when it gives no verdict (or fails)."""
    try:
        r = llm.complete(qa_data.judge_prompt(item.question, answer, item.ideal), max_tokens=400)
    except LLMError as e:  # a timeout on one answer must not end the whole run
        if is_busy(e):
            raise  # a full server: `run_ordered` waits and asks again
        return None
    return qa_data.parse_judge(r.text)


def run_qa_bench(
    llm_spec: str | None,
    *,
    quick: bool = False,
    large: bool = False,
    graph_sizes: tuple[int, ...] | None = None,
    effect_sizes: tuple[tuple[int, int], ...] | None = None,
    seeds: int = 5,
    per_template: int = 2,
    modes: tuple[str, ...] = ("tool", "context"),
    paraphrased: bool | str = False,
    judge: bool = False,
    judge_sample: int | None = None,
    judge_llm: str | None = None,
    cache: bool = True,
    planner: dict[str, Any] | None = None,
    out_dir: Path = Path("bench/results"),
    console=None,
    concurrency: int = 1,
) -> dict[str, Any]:
    """Run the benchmark and write its report; `planner` holds `Assistant` keyword
    arguments (cues, examples, strategy, repair, verbaliser) for ablations.

    With `judge`, the paper's LLM judge (Listing 5, by `judge_llm` or the same LLM)
    grades the parseable answers after all questions are asked — a seeded sample of
    `judge_sample` of them when given (the judge writes its reasoning first, so each
    verdict costs hundreds of generated tokens) — and the report gives its agreement
    with the exact grader.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    llm = get_llm(llm_spec, cache=cache)
    configs = _configs(quick, large, graph_sizes, effect_sizes)
    seed_list = list(range(1 if quick else seeds))
    plans = []
    for family, cfg in configs:
        templates = qa_data.GRAPH_TEMPLATES if family == "graph" else qa_data.EFFECT_TEMPLATES
        for seed in seed_list:
            model = qa_data.generate_model(
                cfg["n_nodes"], cfg["n_treatments"], cfg["n_subjects"], seed=seed
            )
            items = qa_data.generate_questions(
                model,
                n_per_template=1 if quick else per_template,
                seed=seed,
                paraphrased=paraphrased,
                templates=templates,
            )
            plans.append((family, _size_label(family, cfg), seed, model, items))
    # One job per question and mode, in the order a one-at-a-time run asks them.
    jobs = [(p, mode, item) for p, plan in enumerate(plans) for mode in modes for item in plan[4]]
    assistants = PerThread(lambda p: Assistant(plans[p][3], llm, mode="tool", **(planner or {})))

    def answer(job: tuple[int, str, qa_data.QAItem]) -> Outcome:
        p, mode, item = job
        family, size, seed, model, _ = plans[p]
        start = time.perf_counter()
        if mode == "tool":
            assistant = assistants.get(p)
            assistant.reset()
            a = assistant.ask(item.question)
            parsed, text, tokens = a.answered, a.answer, a.usage.get("prompt_tokens", 0)
            cached = a.cached
            result = qa_data.normalize_result(a.result) if parsed else None
        else:
            c = surfacing_busy(answer_in_context, llm, model, item.question)
            cached = c.cached
            parsed, text, tokens = c.answer is not None, c.answer or "", c.usage.prompt_tokens
            result = result_from_text(text, item, model) if parsed else None
        seconds = time.perf_counter() - start
        correct = parsed and qa_data.grade_exact(item.expected, result)
        return Outcome(
            family, size, seed, mode, item.template, item.question, item.expected, result,
            text, parsed, correct, None, tokens, seconds, cached,
        )  # fmt: skip

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("bench qa", total=len(jobs))

        def done(_i: int, job, o: Outcome) -> None:
            progress.update(
                task, advance=1, description=f"{o.mode} {o.family} {o.size} seed {o.seed}"
            )

        outcomes: list[Outcome] = run_ordered(
            answer, jobs, concurrency=concurrency, retry=BUSY, on_result=done
        )
        if judge:
            judge_model = llm if judge_llm is None else get_llm(judge_llm, cache=cache)
            chosen = judge_selection(outcomes, judge_sample)
            jtask = progress.add_task("judge", total=len(chosen))
            verdicts = run_ordered(
                lambda i: _judge(judge_model, jobs[i][2], outcomes[i].answer),
                chosen,
                concurrency=concurrency,
                retry=BUSY,
                errors="keep",  # a judge that keeps failing gives no verdict, as a bad reply
                on_result=lambda *_: progress.advance(jtask),
            )
            for i, verdict in zip(chosen, verdicts):
                outcomes[i].judge = None if isinstance(verdict, Failed) else verdict
    rows = summarize(outcomes)
    report = {
        "benchmark": "qa",
        "quick": quick,
        "llm": f"{llm.backend}:{llm.model}",
        "paraphrased": paraphrased,
        "cache": cache,
        "judge": (f"{judge_llm or 'same LLM'}, sample {judge_sample or 'all'}" if judge else None),
        "planner": planner or {},
        "concurrency": concurrency,
        "seeds": seed_list,
        "environment": environment(),
        "rows": rows,
        "totals": totals(outcomes),
        "judge_agreement": judge_agreement(outcomes) if judge else None,
        "paper": qa_data.paper_tables(),
        "outcomes": [o.__dict__ for o in outcomes],
    }
    columns = [
        ("spec", "family / size"),
        ("mode", "mode"),
        ("n", "n"),
        ("unparseable", "unparseable"),
        ("correct_parseable", "correct (parseable)"),
        ("end_to_end", "end-to-end"),
        ("paper_unparseable", "paper GPT-3.5 unparseable"),
        ("paper_correct", "paper GPT-3.5 correct"),
        ("prompt_tokens", "prompt tokens"),
        ("median_seconds", "median s"),
        ("llm_share", "LLM consulted"),
        ("cached", "plans from cache"),
        ("judge_agreement", "judge agrees"),
    ]
    markdown = table_markdown("qa", report, columns, extra=_totals_md(report))
    write_report(out_dir, "qa", report, markdown)
    report["markdown"] = markdown
    _plot(rows, out_dir)
    return report


def judge_selection(outcomes: list[Outcome], sample: int | None, seed: int = 0) -> list[int]:
    """Indices of the parseable outcomes the judge grades: all, or a seeded sample."""
    import random

    parsed = [i for i, o in enumerate(outcomes) if o.parsed]
    if sample is None or sample >= len(parsed):
        return parsed
    return sorted(random.Random(seed).sample(parsed, sample))


def judge_agreement(outcomes: list[Outcome]) -> dict[str, Any] | None:
    """How the judge's verdicts compare with the exact grader's: agreement, Cohen's kappa
    and the confusion counts, over the outcomes the judge gave a verdict on."""
    judged = [o for o in outcomes if o.judge is not None]
    if not judged:
        return {"n": 0}
    n = len(judged)
    both = {
        (e, j): sum(o.correct == e and o.judge == j for o in judged)
        for e in (True, False)
        for j in (True, False)
    }
    from sklearn.metrics import cohen_kappa_score

    agree = (both[True, True] + both[False, False]) / n
    exact, judge = [bool(o.correct) for o in judged], [bool(o.judge) for o in judged]
    # Undefined when both raters give one and the same verdict throughout (chance = 1).
    kappa = None if len(set(exact) | set(judge)) < 2 else cohen_kappa_score(exact, judge)
    return {
        "n": n,
        "agreement": round(agree, 3),
        "kappa": None if kappa is None else round(float(kappa), 3),
        "exact_yes_judge_yes": both[True, True],
        "exact_yes_judge_no": both[True, False],
        "exact_no_judge_yes": both[False, True],
        "exact_no_judge_no": both[False, False],
    }


def totals(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """Per mode and question family (and all together): questions, unparseable, correct,
    median and p90 seconds of uncached answers, prompt-token range."""
    rows = []
    for mode in sorted({o.mode for o in outcomes}):
        for family in ("graph", "effect", "all"):
            g = [o for o in outcomes if o.mode == mode and family in ("all", o.family)]
            if not g:
                continue
            timed = sorted(o.seconds for o in g if not o.cached)
            tokens = [o.prompt_tokens for o in g if o.prompt_tokens]
            rows.append(
                {
                    "mode": mode,
                    "family": family,
                    "n": len(g),
                    "unparseable": sum(not o.parsed for o in g),
                    "correct": sum(o.correct for o in g),
                    "accuracy": round(sum(o.correct for o in g) / len(g), 4),
                    "median_seconds": round(statistics.median(timed), 2) if timed else None,
                    "p90_seconds": round(timed[int(0.9 * (len(timed) - 1))], 2) if timed else None,
                    "prompt_tokens": f"{min(tokens)}–{max(tokens)}" if tokens else "0",
                }
            )
    return rows


def _totals_md(report: dict[str, Any]) -> str:
    from causalqa.bench.report import markdown_table

    lines = [
        "Totals (correct = end-to-end; seconds of answers not served from the cache):",
        "",
        markdown_table(
            report["totals"],
            [
                ("mode", "mode"),
                ("family", "questions"),
                ("n", "n"),
                ("unparseable", "unparseable"),
                ("correct", "correct"),
                ("accuracy", "accuracy"),
                ("median_seconds", "median s"),
                ("p90_seconds", "p90 s"),
                ("prompt_tokens", "prompt tokens"),
            ],
        ),
    ]
    ja = report.get("judge_agreement")
    if ja:
        if ja.get("n"):
            lines += [
                "",
                f"LLM judge (Listing 5; {report['judge']}): verdicts on {ja['n']} answers, "
                f"agreement with the exact grader {ja['agreement']:.2f}, Cohen's kappa "
                f"{ja['kappa']}; exact right & judge Y {ja['exact_yes_judge_yes']}, exact right "
                f"& judge N {ja['exact_yes_judge_no']}, exact wrong & judge Y "
                f"{ja['exact_no_judge_yes']}, exact wrong & judge N {ja['exact_no_judge_no']}.",
            ]
        else:
            lines += ["", "LLM judge: no verdict could be read from any of its replies."]
    return "\n".join(lines)


def _mean_std(xs: list[float]) -> str:
    if not xs:
        return "-"
    sd = statistics.pstdev(xs) if len(xs) > 1 else 0.0
    return f"{statistics.fmean(xs):.2f} ± {sd:.2f}"


def _paper(family: str, size: str, mode: str, metric: str) -> str:
    try:
        tables = qa_data.paper_tables()[family][metric]["gpt-3.5-turbo"][mode]
        if family == "graph":
            cell = tables[int(size.split("=")[1])]
        else:
            t, s = (int(x.split("=")[1]) for x in size.split(","))
            cell = tables[t][s]
    except (KeyError, ValueError, TypeError):
        return ""
    return "-" if cell is None else f"{cell['mean']:.2f} ± {cell['std']:.2f}"


def summarize(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    rows = []

    def order(key: tuple[str, str, str]) -> tuple:
        family, size, mode = key
        return (family != "graph", [int(n) for n in re.findall(r"\d+", size)], mode)

    keys = sorted({(o.family, o.size, o.mode) for o in outcomes}, key=order)
    for family, size, mode in keys:
        group = [o for o in outcomes if (o.family, o.size, o.mode) == (family, size, mode)]
        per_seed_unparse, per_seed_correct, per_seed_e2e = [], [], []
        for seed in sorted({o.seed for o in group}):
            g = [o for o in group if o.seed == seed]
            parsed = [o for o in g if o.parsed]
            per_seed_unparse.append(1 - len(parsed) / len(g))
            if parsed:
                per_seed_correct.append(sum(o.correct for o in parsed) / len(parsed))
            per_seed_e2e.append(sum(o.correct for o in g) / len(g))
        judged = [o for o in group if o.judge is not None]
        timed = [o for o in group if not o.cached]
        rows.append(
            {
                "spec": f"{family} {size}",
                "family": family,
                "size": size,
                "mode": mode,
                "n": len(group),
                "unparseable": _mean_std(per_seed_unparse),
                "correct_parseable": _mean_std(per_seed_correct),
                "end_to_end": _mean_std(per_seed_e2e),
                "end_to_end_mean": statistics.fmean(per_seed_e2e),
                "paper_unparseable": _paper(family, size, mode, "unparseable"),
                "paper_correct": _paper(family, size, mode, "correct"),
                "prompt_tokens": round(statistics.fmean(o.prompt_tokens for o in group)),
                # Seconds of answers whose plan came from the response cache are not the model's.
                "median_seconds": (
                    round(statistics.median(o.seconds for o in timed), 2) if timed else None
                ),
                "cached": sum(o.cached for o in group),
                # Tool mode asks the LLM only when the question's names and wording leave
                # more than one tool; the rest are planned by grounding and cues alone.
                "llm_share": f"{sum(o.prompt_tokens > 0 for o in group) / len(group):.2f}",
                "judge_agreement": (
                    f"{sum(o.judge == o.correct for o in judged) / len(judged):.2f}"
                    if judged
                    else None
                ),
            }
        )
    return rows


def _plot(rows: list[dict[str, Any]], out_dir: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for mode in sorted({r["mode"] for r in rows}):
        sel = [r for r in rows if r["mode"] == mode]
        labels = [r["spec"] for r in sel]
        axes[0].plot(labels, [r["end_to_end_mean"] for r in sel], marker="o", label=mode)
        axes[1].plot(labels, [r["prompt_tokens"] for r in sel], marker="o", label=mode)
    axes[0].set_title("end-to-end accuracy")
    axes[0].set_ylim(0, 1.05)
    axes[1].set_title("prompt tokens per question")
    tokens = [r["prompt_tokens"] for r in rows if r["prompt_tokens"]]
    if tokens and max(tokens) > 20 * min(tokens):
        axes[1].set_yscale("log")  # context prompts dwarf tool prompts
    else:
        axes[1].set_ylim(0, max(tokens, default=1) * 1.2)
    for ax in axes:
        ax.tick_params(axis="x", rotation=60, labelsize=7)
        ax.legend()
    fig.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_dir / "qa-latest.png", dpi=120)
    plt.close(fig)


PLANNER_CHOICES = {
    "cues": {"on": True, "off": False},
    "repair": {"on": True, "off": False},
    "examples": {v: v for v in ("all", "retrieve", "none")},
    "strategy": {v: v for v in ("intent", "plan")},
    "verbaliser": {v: v for v in ("template", "llm")},
    "intent_choice": {v: v for v in ("generate", "logprob")},
    "sure": {"on": SURE, "off": None},
}


def planner_options(text: str | None) -> dict[str, Any]:
    """ "cues=off,examples=none" → {"cues": False, "examples": "none"}."""
    options: dict[str, Any] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, _, value = (x.strip() for x in part.partition("="))
        if key not in PLANNER_CHOICES or value not in PLANNER_CHOICES[key]:
            choices = "; ".join(f"{k}={'|'.join(v)}" for k, v in PLANNER_CHOICES.items())
            raise ConfigError(f"unknown planner option {part.strip()!r}", hint=f"use {choices}")
        options[key] = PLANNER_CHOICES[key][value]
    return options
