"""``causalqa bench``: measure speed and accuracy of the LLM layer and of the three
engines; results go to ``bench/results/`` as JSON + Markdown (and plots where results are
compared)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from causalqa import config
from causalqa.cli.options import (
    CacheOption,
    CausalKGOption,
    ConcurrencyOption,
    DeductionDataOption,
    EvidenceModelOption,
    JSONOption,
    KGStoreOption,
    LLMOption,
    ResultsOption,
    SeedOption,
    SharedDataOption,
    as_json,
    choices,
    concurrency,
    emit_json_if,
    emit_report,
    err,
    llm_spec,
    open_kg,
    open_llm,
    out,
    progress,
    resolved_spec,
    steps,
    warn_deprecated,
    write_and_emit,
)
from causalqa.errors import ConfigError

app = typer.Typer(
    help="Measure speed and accuracy; results go to bench/results/.", no_args_is_help=True
)
discovery_app = typer.Typer(
    help="Paper 001 benchmarks: SACHS statistical baselines and the subgraph rankers.",
    no_args_is_help=True,
)
app.add_typer(discovery_app, name="discovery")


# -- causalqa bench llm | qa ------------------------------------------------------------
@app.command("llm")
def bench_llm_command(
    models: Annotated[
        str | None,
        typer.Option(
            "--models",
            help="Comma-separated specs to measure (default: the global --llm, else "
            "local:small,local).",
        ),
    ] = None,
    quick: Annotated[
        bool, typer.Option("--quick", help="Short prompts and outputs (CI smoke test).")
    ] = False,
    out_dir: ResultsOption = Path("bench/results"),
    kernels: Annotated[
        str | None,
        typer.Option(
            "--kernels",
            help="Instead: compare CPU-kernel builds on the first model, e.g. "
            "auto,native=/path/libggml-cpu.so,haswell (LABEL=VALUE sets CAUSALQA_GGML_CPU; "
            "auto is the automatic choice).",
        ),
    ] = None,
    reference: Annotated[
        str, typer.Option("--reference", help="With --kernels: the build the others are ÷ by.")
    ] = "native",
    python: Annotated[
        str | None,
        typer.Option("--python", help="With --kernels: the Python (venv) whose llama_cpp runs."),
    ] = None,
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="With --kernels: runs each.")] = 3,
    threads: Annotated[int, typer.Option("--threads", min=1, help="With --kernels.")] = 1,
    json_: JSONOption = False,
) -> None:
    """Load time, prompt and generation tokens/s, prefix-cache reuse and peak RSS per model,
    and which llama.cpp CPU kernels ran; with --kernels, tokens/s of kernel builds."""
    from causalqa.bench.llm import compare_kernels, run_llm_bench

    if models is None:
        models = llm_spec(None) or "local:small,local"
    specs = [s.strip() for s in models.split(",") if s.strip()]
    if kernels is not None:
        from causalqa.llm import parse_spec
        from causalqa.llm.models import ensure_model

        builds = []
        for item in (k.strip() for k in kernels.split(",") if k.strip()):
            label, _, value = item.partition("=")
            builds.append((label, None if label == "auto" and not value else (value or label)))
        parsed = parse_spec(specs[0])
        model = ensure_model(parsed.embedded, quiet=True) if parsed.embedded else parsed.path
        report = compare_kernels(
            builds,
            model=model,
            python=python or sys.executable,
            threads=threads,
            repeat=repeat,
            quick=quick,
            reference=reference,
            out_dir=out_dir,
            console=err,
        )
    else:
        report = run_llm_bench(specs, quick=quick, out_dir=out_dir, console=err)
    emit_report(report, json_, drop=())


@app.command("scale")
def bench_scale_command(
    quick: Annotated[
        bool, typer.Option("--quick", help="Fewer runs and a shorter job (CI smoke test).")
    ] = False,
    runs: Annotated[
        int | None, typer.Option("--runs", min=1, help="Cold processes per measure (5).")
    ] = None,
    concurrencies: Annotated[
        str, typer.Option("--concurrencies", help="Throughput at these, comma-separated.")
    ] = "1,2,4,8",
    slots: Annotated[int, typer.Option("--slots", min=1, help="The server's slots.")] = 4,
    server: Annotated[
        str,
        typer.Option(
            "--server",
            help="auto (llama.cpp's llama-server when built, else llama_cpp.server), "
            "llama-server or llama_cpp.server.",
        ),
    ] = "auto",
    server_model: Annotated[
        str, typer.Option("--server-model", help="The GGUF the server runs (a local spec).")
    ] = "local:small",
    parts: Annotated[
        str, typer.Option("--parts", help="Comma-separated: chat,warm,cold,throughput.")
    ] = "chat,warm,cold,throughput",
    out_dir: ResultsOption = Path("bench/results"),
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Cold and warm answer times (wall and CPU seconds, load average) and throughput at
    several concurrencies against a loopback server, with a plot."""
    from causalqa.bench.scale import run_scale_bench

    try:
        levels = [int(c) for c in concurrencies.split(",") if c.strip()]
    except ValueError:
        raise ConfigError("--concurrencies must look like 1,2,4,8") from None
    if not levels or min(levels) < 1:
        raise ConfigError("--concurrencies must look like 1,2,4,8")
    if server not in ("auto", "llama-server", "llama_cpp.server"):
        raise ConfigError(
            f"unknown server {server!r}", hint="use auto, llama-server or llama_cpp.server"
        )
    if not server_model.startswith("local"):
        raise ConfigError("--server-model must be a local spec (local:small, local:PATH.gguf)")
    report = run_scale_bench(
        llm_spec=resolved_spec(llm)[0],
        server_spec=server_model,
        quick=quick,
        runs=runs or (2 if quick else 5),
        concurrencies=levels,
        slots=slots,
        server_kind=server,
        out_dir=out_dir,
        parts=tuple(choices(parts, ("chat", "warm", "cold", "throughput"), "parts")),
        console=err,
    )
    emit_report(report, json_)


QuickOption = Annotated[
    bool, typer.Option("--quick", help="One small size, one seed (CI smoke test).")
]
SeedsOption = Annotated[int, typer.Option("--seeds", min=1, help="Models per size.")]


@app.command("qa")
def bench_qa_command(
    quick: QuickOption = False,
    large: Annotated[
        bool, typer.Option("--sizes-large", help="200/1,000 nodes; 1,000/10,000 subjects.")
    ] = False,
    graph_sizes: Annotated[
        str | None,
        typer.Option("--graph-sizes", help="Node counts, e.g. 5,10,20,40 ('' for none)."),
    ] = None,
    effect_sizes: Annotated[
        str | None, typer.Option("--effect-sizes", help="Treatments x subjects, e.g. 5x10,40x100.")
    ] = None,
    seeds: SeedsOption = 5,
    per_template: Annotated[int, typer.Option("--per-template", min=1)] = 2,
    modes: Annotated[
        str,
        typer.Option(
            "--modes",
            help="Comma-separated: tool, context (the paper's baseline: the whole graph or "
            "table in the prompt, 30–140 s per answer on the 1.5B — hours at every size).",
        ),
    ] = "tool",
    paraphrased: Annotated[
        str | None,
        typer.Option(
            "--paraphrased",
            help="Word questions by a paraphrase set instead of the templates: "
            "test, test2 or test3 (held out), dev … dev5 (for development) or a (the first set).",
        ),
    ] = None,
    planner: Annotated[
        str | None,
        typer.Option(
            "--planner",
            help="Ablations, e.g. cues=off,examples=none,strategy=plan,repair=off,verbaliser=llm,"
            "intent_choice=logprob,sure=off.",
        ),
    ] = None,
    judge: Annotated[
        bool, typer.Option("--judge", help="Also grade with the paper's LLM judge.")
    ] = False,
    judge_sample: Annotated[
        int | None,
        typer.Option(
            "--judge-sample", min=1, help="Judge a seeded sample of N answers (default: all)."
        ),
    ] = None,
    judge_llm: Annotated[
        str | None,
        typer.Option("--judge-llm", help="Backend of the judge (default: the answering LLM)."),
    ] = None,
    cache: CacheOption = None,
    open_: Annotated[bool, typer.Option("--open", hidden=True)] = False,
    wordings: Annotated[str, typer.Option("--wordings", hidden=True)] = "dev",
    open_sizes: Annotated[str, typer.Option("--open-sizes", hidden=True)] = "small,medium,large",
    cold: Annotated[int, typer.Option("--cold", min=0, hidden=True)] = 0,
    replay: Annotated[Path | None, typer.Option("--replay", hidden=True)] = None,
    out_dir: ResultsOption = Path("bench/results"),
    concurrency_: ConcurrencyOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """The paper's QA benchmark (templates, or a paraphrase set): tool vs context mode,
    Tables 1–4 shape, plots."""
    from causalqa.bench.qa import planner_options, run_qa_bench

    # Older spellings of the two other QA benchmarks, which have commands of their own.
    if replay is not None:
        warn_deprecated("causalqa bench qa-replay RUN")
        return bench_qa_replay_command(replay, out_dir, json_)
    if open_:
        warn_deprecated("causalqa bench qa-open")
        return bench_qa_open_command(
            quick, seeds, wordings, open_sizes, cold, cache, out_dir, concurrency_, llm, json_
        )
    mode_list = tuple(m.strip() for m in modes.split(",") if m.strip())
    if not mode_list or set(mode_list) - {"tool", "context"}:
        raise ConfigError(f"unknown modes {modes!r}", hint="use --modes tool,context")
    try:
        g_sizes = (
            None if graph_sizes is None else tuple(int(x) for x in graph_sizes.split(",") if x)
        )
        e_sizes = (
            None
            if effect_sizes is None
            else tuple(
                tuple(int(v) for v in x.lower().split("x")) for x in effect_sizes.split(",") if x
            )
        )
    except ValueError:
        raise ConfigError(
            "sizes must look like --graph-sizes 5,10 --effect-sizes 5x10,40x100"
        ) from None
    report = run_qa_bench(
        llm_spec(llm),
        planner=planner_options(planner),
        graph_sizes=g_sizes,
        effect_sizes=e_sizes,
        quick=quick,
        large=large,
        seeds=seeds,
        per_template=per_template,
        modes=mode_list,
        paraphrased=paraphrased or False,
        judge=judge,
        judge_sample=judge_sample,
        judge_llm=judge_llm,
        cache=config.resolve_cache(cache, default=True),
        out_dir=out_dir,
        console=err,
        concurrency=concurrency(concurrency_, llm),
    )
    emit_report(report, json_, drop=("outcomes",))


@app.command("qa-open")
def bench_qa_open_command(
    quick: QuickOption = False,
    seeds: SeedsOption = 5,
    wordings: Annotated[
        str,
        typer.Option(
            "--wordings", help="The wording set: dev, dev2, test, test2 … test14 (bench/README)."
        ),
    ] = "dev",
    sizes: Annotated[
        str, typer.Option("--sizes", "--open-sizes", help="Comma-separated: small,medium,large.")
    ] = "small,medium,large",
    cold: Annotated[
        int, typer.Option("--cold", min=0, help="Also time N questions in fresh processes.")
    ] = 0,
    cache: CacheOption = None,
    out_dir: ResultsOption = Path("bench/results"),
    concurrency_: ConcurrencyOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """The open-question benchmark: medians, counts and shares over thresholds,
    differences, confounders, d-separation, adjustment sets, and kinds that must be
    refused; graded right / refused / wrong."""
    from causalqa.bench.qa_open import SIZES, run_open_bench

    report = run_open_bench(
        llm_spec(llm),
        sizes=tuple(choices(sizes, tuple(SIZES), "sizes")),
        seeds=seeds,
        wording=wordings,
        cache=config.resolve_cache(cache, default=True),
        out_dir=out_dir,
        quick=quick,
        cold_samples=cold,
        console=err,
        concurrency=concurrency(concurrency_, llm),
    )
    emit_report(report, json_, drop=("outcomes", "markdown"))


@app.command("qa-replay")
def bench_qa_replay_command(
    run: Annotated[Path, typer.Argument(help="A stored run of bench qa-open: its qa-open-*.json.")],
    out_dir: ResultsOption = Path("bench/results"),
    json_: JSONOption = False,
) -> None:
    """Ask a stored open-question run's questions again through this engine, giving the
    LLM the plans that run recorded (no LLM; seconds). Replaying a held-out set's run
    measures it."""
    from causalqa.bench.qa_open import replay_open_bench

    report = replay_open_bench(run, out_dir=out_dir, console=err)
    emit_report(report, json_, drop=("outcomes", "markdown"))


# -- causalqa bench stated --------------------------------------------------------------
QUICK_CLADDER_ITEMS = 600
"""CLadder generator items a --quick run answers: a seeded sample, every query type in it."""


@app.command("stated")
def bench_stated_command(
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help=f"A seeded sample of {QUICK_CLADDER_ITEMS} CLadder items, 2 cold processes, "
            "and 20 premises per larger size with 4 pairs each (a few minutes).",
        ),
    ] = False,
    data: SharedDataOption = None,
    seed: SeedOption = 0,
    out_dir: ResultsOption = Path("bench/results/stated"),
    llm: Annotated[
        str | None,
        typer.Option(
            "--llm",
            help="A backend that reads the stories and questions the rules cannot, on every "
            "set (default: none, rules only).",
        ),
    ] = None,
    llm_reading: Annotated[
        str | None,
        typer.Option(
            "--llm-reading",
            help="A backend (e.g. local) that also answers the plain-wording sets reading the "
            "sentences and questions the rules cannot (slow: tens of seconds a story).",
        ),
    ] = None,
    precision: Annotated[
        str,
        typer.Option(
            "--precision",
            help="as-stated (the stated numbers are exact; a close call is answered with a "
            "note) or interval (each number is its rounding interval; a close call is refused).",
        ),
    ] = "as-stated",
    json_: JSONOption = False,
) -> None:
    """Causal models stated in words: the CLadder generator outputs (accuracy per query
    type, rung and story kind, refusals, seconds) and the Corr2Cause-style generator
    (accuracy and F1 per claim kind), beside the published anchors."""
    from causalqa.bench.corr2cause import run_corr2cause_bench
    from causalqa.bench.stated import run_stated_bench

    cladder = (data or config.data_dir()) / "cladder"
    rewordings = _stated_rewordings()
    spec = llm_spec(llm)
    model_llm = open_llm(spec) if spec else None
    with err.status("CLadder generator outputs…"):
        stated = run_stated_bench(
            cladder,
            out_dir,
            rewordings=rewordings,
            limit=QUICK_CLADDER_ITEMS if quick else None,
            seed=seed,
            llm=model_llm,
            cold=2 if quick else 5,
            precision=precision,
            reading_llm=open_llm(llm_spec(llm_reading)) if llm_reading else None,
        )
    err.print(f"[dim]wrote {out_dir / 'stated-latest.md'}[/dim]")
    with err.status("Corr2Cause-style generator…"):
        corr2cause = run_corr2cause_bench(out_dir, seed=seed, quick=quick)
    err.print(f"[dim]wrote {out_dir / 'corr2cause-latest.md'}[/dim]")
    summary = {
        "quick": quick,
        "llm": spec,
        "precision": precision,
        "cladder": {
            key: stated.get(key)
            for key in (
                "items",
                "overall",
                "by_query_type",
                "by_rung",
                "by_story_kind",
                "answers_from_misread_numbers",
                "seconds_per_question",
                "cold_process_seconds",
                "anchors",
            )
        },  # fmt: skip
        "rewordings": {
            Path(name).name: {k: v[k] for k in ("items", "right", "wrong", "refused", "accuracy")}
            for name, v in stated["rewordings"].items()
        },
        "corr2cause": {
            "items": corr2cause["overall"]["items"],
            "premises": corr2cause["premises"],
            "overall": corr2cause["overall"],
            "by_kind": corr2cause["by_kind"],
            "seconds_per_item": corr2cause["seconds_per_item"],
            "published_anchors": corr2cause["published_anchors"],
        },
        "reports": [str(out_dir / "stated-latest.md"), str(out_dir / "corr2cause-latest.md")],
    }
    if emit_json_if(json_, summary):
        return
    _print_stated_summary(summary)


def _stated_rewordings() -> list[Path]:
    """The reworded development stories (bench/data/stated/dev-*.jsonl), where the
    repository's benchmark data is; none from an installed wheel."""
    from causalqa.bench.wordings import bench_data_dir
    from causalqa.errors import DataFileError

    try:
        folder = bench_data_dir() / "stated"
    except DataFileError:
        err.print("[yellow]note:[/] no bench/data folder here; the reworded stories are left out")
        return []
    # the independent writers' development parts; the check parts are held out (see
    # bench/data/stated/independent/README.md) and not run by default
    independent = [
        folder / "independent" / name
        for name in (
            "cladder-dev.jsonl",
            "plain-dev.jsonl",
            "plain-check.jsonl",
            "plain5-dev.jsonl",
            "det6-dev.jsonl",
            "det8-dev.jsonl",
            "det10-dev.jsonl",
            "det13-dev.jsonl",
        )
    ]
    return sorted(folder.glob("dev-*.jsonl")) + [p for p in independent if p.is_file()]


def _print_stated_summary(summary: dict[str, Any]) -> None:
    c = summary["cladder"]
    o = c["overall"]
    seconds = c["seconds_per_question"]
    cold = (c.get("cold_process_seconds") or {}).get("median")
    out.print(
        f"[bold]CLadder generator outputs[/] ({c['items']} questions): {o['accuracy']}% right, "
        f"{o['wrong']} wrong, {o['refused']} refused; answers from a misread number: "
        f"{c['answers_from_misread_numbers']}; median {seconds['median']} s per question"
        + (f", cold process {cold} s" if cold is not None else ""),
        highlight=False,
        soft_wrap=True,
    )
    for title, table in (
        ("query type", c["by_query_type"]),
        ("rung", c["by_rung"]),
        ("story kind", c["by_story_kind"]),
    ):
        cells = ", ".join(f"{k} {v['accuracy']}% (n={v['n']})" for k, v in table.items())
        out.print(f"  by {title}: {cells}", highlight=False, soft_wrap=True)
    for name, r in summary["rewordings"].items():
        out.print(
            f"  reworded stories {name}: {r['accuracy']}% right of {r['items']} "
            f"({r['wrong']} wrong, {r['refused']} refused)",
            highlight=False,
            soft_wrap=True,
        )
    anchors = ", ".join(f"{a['name']} {a['accuracy']}%" for a in c["anchors"])
    out.print(
        f"  [dim]published, on CLadder's official release: {anchors}[/]",
        highlight=False,
        soft_wrap=True,
    )
    k = summary["corr2cause"]
    ko = k["overall"]
    out.print(
        f"[bold]Corr2Cause-style generator[/] ({k['items']} claims over {k['premises']} "
        f"premises): accuracy {ko['accuracy']}%, F1 (yes) {ko['f1']}%, {ko['refused']} refused; "
        f"median {k['seconds_per_item']['median']} s per claim",
        highlight=False,
        soft_wrap=True,
    )
    anchors = ", ".join(f"{n} F1 {a['f1']}%" for n, a in k["published_anchors"].items())
    out.print(
        f"  [dim]published, on the official Corr2Cause test set: {anchors}[/]",
        highlight=False,
        soft_wrap=True,
    )


# -- causalqa bench deduction --------------------------------------------------------------
def _fold_line(row: dict[str, Any]) -> None:
    """One line per fold and condition on stderr, so a long run shows where it is."""
    cells = " · ".join(
        f"{k} {row[k]:.1f}" for k in ("macro_f1", "micro_f1", "acc_true") if row.get(k) is not None
    )
    err.print(f"[dim]fold {row['fold'] + 1} {row['condition']}: {cells} (n={row['n']})[/]")


@app.command("deduction", help="Paper 002's cross-validated deduction benchmark.")
def bench_deduction_command(
    data: DeductionDataOption,
    kg: CausalKGOption = None,
    conditions: Annotated[
        str,
        typer.Option(
            "--conditions",
            help="Comma-separated FORMAT:RETRIEVER[+variant], e.g. V1:none,V6:semantic,V6:rotg "
            "(variants: notrunc, noclean; RoTG also similar, causal), and the evidence "
            "verifier and its controls: verifier, verifier+noce, verifier+kg, tfidf, "
            "statement-only.",
        ),
    ] = "verifier+noce,tfidf,statement-only,V1:none,V6:semantic,V6:rotg",
    folds: Annotated[int, typer.Option("--folds", min=2, help="Folds grouped by report.")] = 10,
    limit_reports: Annotated[
        int | None, typer.Option("--limit-reports", min=2, help="Use this many reports.")
    ] = None,
    kg_reports_only: Annotated[
        bool,
        typer.Option(
            "--kg-reports-only", help="Evaluate only the reports mined into --kg (e.g. a sample)."
        ),
    ] = False,
    method: Annotated[
        str, typer.Option("--method", help="logprobs (fast), text (the paper's), or both.")
    ] = "logprobs",
    k: Annotated[int, typer.Option("-k", min=1, help="Top-E nodes whose chains are shown.")] = 3,
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="RoTG epochs (cap).")] = 4,
    max_train: Annotated[
        int, typer.Option("--max-train", min=8, help="RoTG examples per epoch (cap).")
    ] = 2000,
    rotg_aux: Annotated[
        str,
        typer.Option(
            "--rotg-aux",
            help="Also train RoTG on all edge types or on these alone and score only its "
            "classifier (Table 2; no LLM calls): all, similar, causal.",
        ),
    ] = "",
    verifier_pool: Annotated[
        Path | None,
        typer.Option(
            "--verifier-pool",
            help="Train the verifier on this data set's reports outside the test fold "
            "(default: --data's).",
        ),
    ] = None,
    stored: Annotated[
        Path | None,
        typer.Option(
            "--stored-predictions",
            help="Predictions JSONL of an earlier run (e.g. the LLM prompts) to compare the "
            "verifier with, statement by statement.",
        ),
    ] = None,
    hard_negatives: Annotated[
        int | None,
        typer.Option(
            "--hard-negatives",
            min=1,
            help="Score also against the causes of each report's K most similar other "
            "reports (false-hard; added when the data set has none).",
        ),
    ] = None,
    time_split_: Annotated[
        bool,
        typer.Option(
            "--time-split",
            help="Also train the verifier conditions on the earlier reports and test them on "
            "the latest year's, with hard negatives (K, or 3).",
        ),
    ] = False,
    mining: Annotated[bool, typer.Option("--mining", hidden=True)] = False,
    speed: Annotated[bool, typer.Option("--speed", hidden=True)] = False,
    mining_mode: Annotated[str, typer.Option("--mining-mode", hidden=True)] = "fast",
    seed: SeedOption = 0,
    out_dir: ResultsOption = Path("bench/results/deduction"),
    concurrency_: ConcurrencyOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Cross-validate the evidence verifier beside no / semantic / RoTG retrieval; tables
    beside the paper's (§5), retrieval conditions only where --kg gives a mined KG."""
    from causalqa.bench.deduction import run_deduction_bench
    from causalqa.deduction.deduce import load_event_graph

    # Older spellings of the two cost benchmarks, which have commands of their own.
    if speed:
        warn_deprecated("causalqa bench deduction-speed")
        return bench_deduction_speed_command(data, seed, out_dir, json_)
    if mining:
        warn_deprecated("causalqa bench deduction-mining")
        reports = limit_reports or 5
        return bench_deduction_mining_command(data, reports, mining_mode, seed, out_dir, llm, json_)
    report = run_deduction_bench(
        data,
        kg=load_event_graph(kg) if kg is not None else None,
        llm_spec=resolved_spec(llm)[0],
        conditions=[c for c in conditions.split(",") if c.strip()],
        folds=folds,
        limit=limit_reports,
        kg_reports_only=kg_reports_only,
        method=method,
        k=k,
        seed=seed,
        rotg_params={"epochs": epochs, "max_train": max_train, "seed": seed},
        rotg_aux_variants=[v.strip() for v in rotg_aux.split(",") if v.strip()],
        verifier_pool=verifier_pool,
        stored_predictions=stored,
        hard_negatives=hard_negatives,
        time_split=time_split_,
        out_dir=out_dir,
        progress=not as_json(json_),
        console=err,
        on_result=_fold_line,
        concurrency=concurrency(concurrency_, llm),
    )
    emit_report(report, json_, drop=("markdown", "predictions"), raw=True)
    if not as_json(json_):
        err.print(f"[dim]written to {out_dir}/deduction-latest.{{json,md}}[/]")


@app.command("deduction-mining")
def bench_deduction_mining_command(
    data: DeductionDataOption,
    reports: Annotated[int, typer.Option("--reports", min=1, help="Reports to mine.")] = 5,
    mode: Annotated[
        str, typer.Option("--mode", help="fast (one schema call) or paper (P3 + P4s).")
    ] = "fast",
    seed: SeedOption = 0,
    out_dir: ResultsOption = Path("bench/results/deduction"),
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """The cost of mining a causal KG (paper 002): seconds and tokens per report, chains
    per report, on a seeded sample of the data set's reports."""
    from causalqa.bench.deduction_mining import run_mining_bench

    report = run_mining_bench(
        data,
        llm_spec=resolved_spec(llm)[0],
        reports=reports,
        mode=mode,
        seed=seed,
        out_dir=out_dir,
        progress=not as_json(json_),
    )
    emit_report(report, json_, raw=True)


@app.command("deduction-speed")
def bench_deduction_speed_command(
    data: DeductionDataOption,
    seed: SeedOption = 0,
    out_dir: ResultsOption = Path("bench/results/deduction"),
    json_: JSONOption = False,
) -> None:
    """The cost of ``causalqa deduce`` with the verifier and no LLM: loading, the first
    call, warm calls and per item in one batch."""
    from causalqa.bench.deduction_mining import run_speed_bench

    report = run_speed_bench(data, seed=seed, out_dir=out_dir)
    emit_report(report, json_, raw=True)


# -- causalqa bench discovery ------------------------------------------------------------
DEFAULT_OUT = Path("bench/results/discovery")
DatasetsOption = Annotated[
    str, typer.Option("--datasets", help="Comma-separated: comagc,gene,ade,semeval.")
]
PathDataOption = Annotated[
    Path | None,
    typer.Option("--data", help="The path-to-causality folder (default: shared data)."),
]


@discovery_app.command("sachs")
def bench_sachs_command(
    data: Annotated[
        Path | None, typer.Option("--data", help="The sachs folder (default: shared data).")
    ] = None,
    truth: Annotated[
        str, typer.Option("--truth", help="Reference graph: cdt (18 edges) or bnlearn (17).")
    ] = "cdt",
    methods: Annotated[
        str, typer.Option("--methods", help="Comma-separated: pc,exact_search,direct_lingam.")
    ] = "pc,exact_search,direct_lingam",
    ours: Annotated[
        str | None,
        typer.Option(
            "--ours",
            help="Also our LLM(+KG) discovery in the same run, one row per ranker, "
            "comma-separated: none (LLM only), random, similarity, xgboost, rmse, ranknet, "
            "listnet (trained ones as saved by bench discovery rankers).",
        ),
    ] = None,
    ranker_data: Annotated[
        str,
        typer.Option(
            "--ranker-data", help="Which data set's trained rankers --ours uses (default gene)."
        ),
    ] = "gene",
    kg_path: KGStoreOption = None,
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="Paths in each prompt.")] = 1,
    calibrate: Annotated[
        bool,
        typer.Option("--calibrate/--no-calibrate", help="Contextual calibration of verdicts."),
    ] = True,
    evidence: Annotated[
        bool,
        typer.Option(
            "--evidence",
            help="Ours (issue 16): knowledge-guided PC — the evidence model's confident pair "
            "verdicts as PC's background knowledge, evidence-ranked orientation.",
        ),
    ] = False,
    with_llm: Annotated[
        bool, typer.Option("--with-llm", help="--evidence: with the LLM feature (slower).")
    ] = False,
    evidence_model: EvidenceModelOption = None,
    llm: LLMOption = None,
    seed: SeedOption = 0,
    out_dir: ResultsOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """PC, ExactSearch (A*) and DirectLiNGAM on SACHS in one run (and, with --ours, our
    LLM+KG discovery; with --evidence, knowledge-guided PC): P, R, F1, SHD, HD, NHD."""
    if evidence:
        return _sachs_evidence(
            data, truth, methods, kg_path, with_llm, evidence_model, llm, seed, out_dir, json_
        )
    from causalqa.bench.discovery_rankers import saved_rankers_dir
    from causalqa.bench.discovery_sachs import SACHS_CONTEXT, run_sachs, sachs_report
    from causalqa.discovery.graph import DECISIONS
    from causalqa.discovery.pathdata import DATASETS
    from causalqa.discovery.rankers import RANKERS, TRAINED, load_ranker
    from causalqa.discovery.statistical import BASELINES

    chosen = choices(methods, tuple(BASELINES), "methods")
    names = choices(ours, tuple(r for r in RANKERS if r != "llm"), "rankers") if ours else []
    if ranker_data not in DATASETS:
        raise ConfigError(f"unknown data set {ranker_data!r}", hint=f"use {', '.join(DATASETS)}")
    rankers = [
        load_ranker(n, saved_rankers_dir() / "full" / ranker_data) if n in TRAINED else n
        for n in names
    ]
    kg = open_kg(kg_path) if any(n != "none" for n in names) else None
    model = open_llm(llm, cache=config.resolve_cache(None, default=True)) if names else None
    try:
        with err.status("SACHS …") as status:
            bench, graphs = run_sachs(
                root=data,
                truth=truth,
                methods=chosen,
                seed=seed,
                ours=rankers,
                kg=kg,
                llm=model,
                top_k=top_k,
                calibrate=calibrate,
                decisions=DECISIONS if calibrate else ("argmax", "batch"),
                on_progress=lambda m: status.update(
                    f"SACHS: {m}" if names else f"SACHS: running {m} …"
                ),
            )
    finally:
        if kg is not None:
            kg.close()
    fields: dict[str, Any] = {"benchmark": "sachs", "seed": seed}
    note = None
    if names:
        fields.update(
            model=getattr(model, "model", ""),
            context=SACHS_CONTEXT,
            top_k=top_k,
            calibrated=calibrate,
            trained_rankers_from=ranker_data,
        )
        note = (
            f"Ours: {getattr(model, 'model', '')}, every ordered pair of the 11 proteins "
            f"asked (110 questions per row), top-{top_k} path(s) from the knowledge graph, "
            "each ranker's answers turned into a graph by three verdict rules (content-free "
            "calibration, the paper's argmax, batch calibration: log-odds minus their mean "
            "over the run's questions with the same number of paths — label-free); trained "
            f"rankers fitted on {DATASETS[ranker_data][1]}'s train_full (gene–gene pairs)."
        )
    report, md = sachs_report(bench, graphs, name=f"sachs-{truth}", note=note, **fields)
    write_and_emit(out_dir, f"sachs-{truth}", report, md, json_)


def sachs_kg(kg_path, ranker, top_k, context, truth, llm, out_dir, json_, decision) -> None:
    """The SACHS run of ours alone (no-subgraph and `ranker`) beside the statistical
    baselines, one verdict rule: what the retired ``discover graph --sachs`` ran, kept until
    it goes (``bench discovery sachs --ours`` measures the same and every rule)."""
    from causalqa.bench.discovery_sachs import SACHS_CONTEXT, run_sachs, sachs_report
    from causalqa.discovery.graph import DEFAULT_DECISION

    decision = decision or DEFAULT_DECISION
    rankers = ["none"] + ([ranker] if ranker != "none" else [])
    kg = open_kg(kg_path) if ranker != "none" else None
    try:
        model = open_llm(llm)
        with err.status("SACHS …") as status:
            bench, graphs = run_sachs(
                ours=rankers,
                kg=kg,
                llm=model,
                top_k=top_k,
                context=context or SACHS_CONTEXT,
                truth=truth,
                on_progress=status.update,
                calibrate=decision == "content-free",
                decisions=[decision],
            )
    finally:
        if kg is not None:
            kg.close()
    name = f"sachs-kg-{truth}"
    report, md = sachs_report(
        bench,
        graphs,
        name=name,
        benchmark="sachs-kg",
        model=getattr(model, "model", ""),
        context=context or SACHS_CONTEXT,
    )
    write_and_emit(out_dir, name, report, md, json_)


def _sachs_evidence(
    data, truth, methods, kg_path, with_llm, evidence_model, llm, seed, out_dir, json_
):
    from causalqa.bench.discovery_sachs import benchmark_sachs_evidence
    from causalqa.discovery.evidence import EvidenceJudge
    from causalqa.discovery.statistical import BASELINES

    chosen = choices(methods, tuple(BASELINES), "methods")
    judge = EvidenceJudge.load(evidence_model)
    kg = open_kg(kg_path)
    try:
        model = open_llm(llm, cache=config.resolve_cache(None, default=True)) if with_llm else None
        with err.status("SACHS …") as status:
            bench, graph = benchmark_sachs_evidence(
                judge=judge, kg=kg, llm=model, truth=truth, root=data, methods=chosen,
                seed=seed, on_progress=lambda m: status.update(f"SACHS: {m}"),
            )  # fmt: skip
    finally:
        kg.close()
    report = {
        "benchmark": "sachs --evidence",
        "seed": seed,
        "text_model": judge.text_model,
        "llm": getattr(model, "model", None) if with_llm else None,
        **bench.to_dict(),
        "guided": graph.to_dict(),
    }
    md = bench.to_markdown() + "\n\n" + "\n".join(f"- {n}" for n in graph.notes)
    md += (
        "\n- Ours: every pair of the 11 proteins judged by the evidence model without a "
        "sentence (KG features" + (" + the LLM's log-odds" if with_llm else "") + "); PIP2 "
        "and PIP3 have no node in Hetionet, so their pairs have no evidence. Background "
        f"knowledge: required when P(a→b) ≥ {graph.settings['require']}, forbidden both ways "
        f"when P(causal) ≤ {graph.settings['forbid']} — fixed in advance, not fitted on SACHS."
    )
    write_and_emit(out_dir, f"sachs-evidence-{truth}", report, md, json_)


@discovery_app.command("rankers")
def bench_rankers_command(
    datasets: DatasetsOption = "comagc,gene,ade,semeval",
    rankers: Annotated[
        str,
        typer.Option("--rankers", help="Comma-separated: similarity,rmse,ranknet,listnet,xgboost."),
    ] = "similarity,rmse,ranknet,listnet,xgboost",
    validation: Annotated[
        bool,
        typer.Option(
            "--validation",
            help="Evaluate on a by-query validation split of train_full (20%), fitting on "
            "the rest: for choosing settings without the test set.",
        ),
    ] = False,
    save_rankers: Annotated[
        bool,
        typer.Option(
            "--save-rankers/--no-save-rankers",
            help="Keep the fitted rankers for bench discovery pairs (under "
            "$CAUSALQA_HOME/discovery/rankers/bench).",
        ),
    ] = True,
    reuse: Annotated[
        bool,
        typer.Option(
            "--reuse-rankers",
            help="Score the rankers saved by an earlier run (same parameters) instead of "
            "fitting them again.",
        ),
    ] = False,
    data: PathDataOption = None,
    llm_queries: Annotated[
        int,
        typer.Option(
            "--llm-queries", min=0, help="Also run the LLM permutation ranker on N queries."
        ),
    ] = 0,
    concurrency_: ConcurrencyOption = None,
    llm: LLMOption = None,
    seed: SeedOption = 0,
    out_dir: ResultsOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """Subgraph rankers on the four path data sets: NDCG@5 and Recall@5 (Table D2)."""
    from causalqa.bench.discovery_rankers import RANKER_NAMES, run_rankers_bench
    from causalqa.discovery.pathdata import DATASETS
    from causalqa.discovery.rankers import LLMPermutationRanker

    names = choices(datasets, tuple(DATASETS), "data sets")
    chosen = choices(rankers, RANKER_NAMES, "rankers")
    llm_ranker = LLMPermutationRanker(open_llm(llm)) if llm_queries else None
    with progress() as bar:
        task = bar.add_task("rankers", total=None)
        report, md, name = run_rankers_bench(
            names,
            chosen,
            validation=validation,
            save=save_rankers,
            reuse=reuse,
            root=data,
            llm_ranker=llm_ranker,
            llm_queries=llm_queries,
            seed=seed,
            on_progress=lambda m: bar.update(
                task, description=f"rankers: {m}", completed=0, total=None
            ),
            on_fit_step=lambda done, total: bar.update(task, completed=done, total=total),
            concurrency=concurrency(concurrency_, llm),
        )
    write_and_emit(out_dir, name, report, md, json_)


@discovery_app.command("pairs")
def bench_pairs_command(
    datasets: DatasetsOption = "comagc,gene,ade,semeval",
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="llm (the paper's zero-shot prompt with each ranker's paths) or evidence "
            "(the trained evidence model: grouped CV and test split, from the record "
            "causalqa discover train left).",
        ),
    ] = "llm",
    text_model: Annotated[
        str,
        typer.Option(
            "--text-model", help="--method evidence: finetune or frozen (which training run)."
        ),
    ] = "finetune",
    work: Annotated[
        Path | None,
        typer.Option("--work", help="--method evidence: the training run's work folder."),
    ] = None,
    variants: Annotated[
        str,
        typer.Option("--variants", help="--method evidence: evidence sets to measure."),
    ] = "text+kg+llm,text+kg,text,kg",
    methods: Annotated[
        str,
        typer.Option(
            "--methods",
            help="Comma-separated: none,random,similarity,gpt,xgboost,rmse,ranknet,listnet,"
            "oracle (and llm).",
        ),
    ] = "none,random,similarity,gpt,xgboost,rmse,ranknet,listnet,oracle",
    with_llm_ranker: Annotated[
        bool, typer.Option("--llm-ranker", help="Add the LLM permutation ranker (slow).")
    ] = False,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="A seeded sample of N pairs per set.")
    ] = None,
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="Paths in the prompt.")] = 1,
    path_format: Annotated[
        str,
        typer.Option(
            "--path-format",
            help="Paths in the prompt: plain (App. C), types, relations, full (Eq. 7) or "
            "sentences (one clause per hop).",
        ),
    ] = "plain",
    validation: Annotated[
        bool,
        typer.Option(
            "--validation",
            help="Classify a by-query validation split of train_full instead of the test "
            "pairs (rankers fitted on the rest): for choosing settings.",
        ),
    ] = False,
    thresholds_from: Annotated[
        Path | None,
        typer.Option(
            "--thresholds-from",
            help="A --validation run's JSON: adds batch-calibrated verdicts (thresholds = "
            "its mean log-odds per data set and number of paths).",
        ),
    ] = None,
    data: PathDataOption = None,
    concurrency_: ConcurrencyOption = None,
    llm: LLMOption = None,
    cache: CacheOption = None,
    seed: SeedOption = 0,
    out_dir: ResultsOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """Zero-shot pair classification with top-k paths: P/R/F1 (Tables 1–2); or, with
    --method evidence, the trained evidence model."""
    if method not in ("llm", "evidence"):
        raise ConfigError(f"unknown --method {method!r}", hint="use llm or evidence")
    if method == "evidence":
        return _bench_evidence(datasets, text_model, work, variants, seed, out_dir, json_)
    from causalqa.bench.discovery_pairs import (
        METHODS,
        PATH_FORMATS,
        benchmark_pairs,
        count_pairs,
        pairs_report,
        read_thresholds,
    )
    from causalqa.bench.discovery_rankers import saved_rankers_dir
    from causalqa.discovery.pathdata import DATASETS

    names = choices(datasets, tuple(DATASETS), "data sets")
    chosen = choices(methods, METHODS, "methods")
    if path_format not in PATH_FORMATS:
        raise ConfigError(
            f"unknown path format {path_format!r}", hint=f"use {', '.join(PATH_FORMATS)}"
        )
    if with_llm_ranker and "llm" not in chosen:
        chosen.append("llm")
    thresholds = read_thresholds(thresholds_from) if thresholds_from else None
    total = len(chosen) * count_pairs(
        names, validation=validation, limit=limit, root=data, seed=seed
    )
    model = open_llm(llm, cache=config.resolve_cache(cache, default=True))
    with steps("pairs", total) as on_step:
        bench = benchmark_pairs(
            model,
            datasets=names,
            methods=chosen,
            limit=limit,
            top_k=top_k,
            path_format=path_format,
            split="validation" if validation else "test",
            root=data,
            seed=seed,
            ranker_dir=saved_rankers_dir(),
            thresholds=thresholds,
            on_step=on_step,
            concurrency=concurrency(concurrency_, llm),
        )
    report, md, name = pairs_report(bench, out_dir, seed=seed, validation=validation)
    write_and_emit(out_dir, name, report, md, json_)


def _bench_evidence(datasets, text_model, work, variants, seed, out_dir, json_) -> None:
    from causalqa.bench.discovery_evidence import benchmark_evidence, evidence_report
    from causalqa.discovery.evidence import VARIANTS
    from causalqa.discovery.pathdata import DATASETS
    from causalqa.discovery.training import load_record

    names = choices(datasets, tuple(DATASETS), "data sets")
    chosen = choices(variants, VARIANTS, "variants")
    if text_model not in ("finetune", "frozen"):
        raise ConfigError(f"unknown --text-model {text_model!r}", hint="use finetune or frozen")
    record = load_record(work, text_model)
    with err.status("evidence benchmark …") as status:
        bench = benchmark_evidence(
            record, datasets=names, variants=chosen, seed=seed, on_step=status.update
        )
    name = f"pairs-evidence-{text_model}"
    report, md, name = evidence_report(bench, out_dir, name=name)
    report["seed"] = seed
    write_and_emit(out_dir, name, report, md, json_)


@discovery_app.command("latency")
def bench_latency_command(
    pairs: Annotated[
        int, typer.Option("--pairs", min=2, help="Test pairs to answer (with their sentence).")
    ] = 12,
    kg_path: KGStoreOption = None,
    evidence_model: EvidenceModelOption = None,
    with_llm: Annotated[
        bool, typer.Option("--with-llm/--no-llm", help="Also with the LLM.")
    ] = True,
    data: PathDataOption = None,
    llm: LLMOption = None,
    seed: SeedOption = 0,
    out_dir: ResultsOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """Seconds per discover pair answer (evidence method) in one process: cold and warm,
    without and with the LLM feature, on the test pairs of the four data sets."""
    import os

    import numpy as np

    from causalqa.bench.discovery_evidence import measure_latency
    from causalqa.discovery.corpora import untag
    from causalqa.discovery.evidence import EvidenceJudge
    from causalqa.discovery.pathdata import DATASETS, load_path_dataset

    rng = np.random.default_rng(seed)
    pool = []
    for name in DATASETS:
        for r in load_path_dataset(name, data, splits=("truth",)).truth:
            pool.append({"a": r.e1, "b": r.e2, "context": untag(r.sentence)[0]})
    chosen = [pool[i] for i in rng.choice(len(pool), size=min(pairs, len(pool)), replace=False)]
    from causalqa.cli.options import consulted, open_stores, opened

    judge = EvidenceJudge.load(evidence_model)
    kg, general = consulted(open_stores(kg_path))  # as discover pair consults them
    stores = opened(kg, general)
    try:
        model = open_llm(llm, cache=False) if with_llm else None
        with err.status("latency …") as status:
            result = measure_latency(chosen, judge=judge, kg=kg, llm=model, general=general,
                                     on_step=status.update)  # fmt: skip
    finally:
        for store in stores:
            store.close()
    report = {
        "benchmark": "discovery latency",
        "stores": [str(s.path) for s in stores],
        "seed": seed,
        "text_model": judge.text_model,
        "model": getattr(model, "model", None),
        "threads": os.environ.get("CAUSALQA_THREADS"),
        **result,
    }
    lines = [
        f"{result['pairs']} test pairs with their sentence, one process; text model: "
        f"{judge.text_model}.",
        "",
        "| | first (cold) | warm median | warm p90 | warm max |",
        "|---|---|---|---|---|",
    ]
    for label in ("without LLM", "with LLM"):
        if label in result:
            r = result[label]
            lines.append(
                f"| {label} | {r['first']} s | {r['warm_median']} s | {r['warm_p90']} s "
                f"| {r['warm_max']} s |"
            )
    write_and_emit(out_dir, "latency", report, "\n".join(lines), json_)


@discovery_app.command("causenet")
def bench_causenet_command(
    kg_path: Annotated[
        Path | None,
        typer.Option(
            "--store",
            "--kg",
            help="A store (folder) to measure with (default: every loaded store: the CauseNet "
            "one for coverage, all of them for latency).",
        ),
    ] = None,
    data: SharedDataOption = None,
    latency_pairs: Annotated[
        int, typer.Option("--latency-pairs", min=0, help="Pairs timed (0: no latency).")
    ] = 40,
    evidence_model: EvidenceModelOption = None,
    seed: SeedOption = 0,
    out_dir: ResultsOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """CauseNet's coverage of SemEval-2010 train pairs, the general-knowledge rule's
    measured table, and discover pair's latency with every loaded store (no LLM)."""
    from causalqa.bench.general import (
        SEMEVAL_TRAIN,
        measure_coverage,
        measure_latency,
        rules_from,
        sample_placed,
        semeval_pairs,
        tuebingen_files,
    )
    from causalqa.cli.options import consulted, open_stores, opened
    from causalqa.discovery.evidence import EvidenceJudge
    from causalqa.errors import KGStoreError

    root = data or config.data_dir()
    pairs = semeval_pairs(root / SEMEVAL_TRAIN)
    kg, general = consulted(open_stores(kg_path))
    stores = opened(kg, general)
    try:
        if not general:
            raise KGStoreError(
                "no CauseNet store among the stores consulted",
                hint="load it: causalqa kg load causenet ../shared/data/causenet-core",
            )
        with err.status("coverage …"):
            coverage = measure_coverage(general[0], pairs)
        latency = None
        if latency_pairs:
            judge = EvidenceJudge.load(evidence_model)
            chosen = sample_placed(general[0], pairs, latency_pairs, seed)
            with err.status("latency …") as status:
                latency = measure_latency(
                    chosen, judge=judge, kg=kg, general=general, on_step=status.update
                )
        names = [str(s.path) for s in stores]
    finally:
        for s in stores:
            s.close()
    command = "causalqa " + " ".join(sys.argv[1:])
    report = {
        "benchmark": "discovery causenet",
        "data": str(SEMEVAL_TRAIN),
        "stores": names,
        "seed": seed,
        **coverage,
        "rules": rules_from(coverage, data=f"SemEval-2010 Task 8 {SEMEVAL_TRAIN.name}",
                            command=command),
        "tuebingen": tuebingen_files(Path(root)) or None,
        "latency": latency,
    }  # fmt: skip
    ce, other = coverage["coverage"]["cause-effect"], coverage["coverage"]["other"]
    keys = ["pairs", "a or b linked", "both linked", "direct claim",
            "path (≤ 2 hops, directed)", "chains only"]  # fmt: skip
    lines = [
        f"SemEval-2010 Task 8 `{SEMEVAL_TRAIN.name}` (train only), stores: "
        + ", ".join(f"`{n}`" for n in names) + ".",
        "",
        "| pairs | " + " | ".join(keys[1:]) + " |",
        "|---|" + "---|" * (len(keys) - 1),
        *(f"| {label} ({c.get('pairs', 0)}) | " + " | ".join(str(c.get(k, 0)) for k in keys[1:])
          + " |" for label, c in (("Cause-Effect", ce), ("other relations", other))),
        "",
        "Pairs placed in CauseNet, by evidence: how many are Cause-Effect "
        f"(base rate {coverage['base_rate_placed']['share']}).",
        "",
        "| evidence | Cause-Effect | pairs | share | (k+1)/(n+2) |",
        "|---|---|---|---|---|",
        *(f"| {r['evidence']} | {r['k']} | {r['n']} | {r['share']} | {r['p_smoothed']} |"
          for r in coverage["rule_table"]),
        "",
        f"Direction of Cause-Effect pairs with a direct claim, by the larger support: "
        f"{coverage['direction'].get('right', 0)} right, "
        f"{coverage['direction'].get('wrong', 0)} wrong, "
        f"{coverage['direction'].get('tie', 0)} ties.",
        "",
        "Tübingen pairs: " + (", ".join(report["tuebingen"]) if report["tuebingen"]
                              else f"no such file in {root}") + ".",
    ]  # fmt: skip
    if latency:
        lines += [
            "",
            f"Latency, `judge_pair` without a sentence or the LLM, {latency['pairs']} pairs "
            f"CauseNet places (seed {seed}), one process: first {latency['first']} s, warm "
            f"median {latency['warm_median']} s, p90 {latency['warm_p90']} s, max "
            f"{latency['warm_max']} s; {latency['refused']} refused (no evidence decides); "
            f"decided by: {latency['decided_by']}.",
        ]
    write_and_emit(out_dir, "causenet", report, "\n".join(lines), json_)


@discovery_app.command("reference")
def bench_reference_command(
    datasets: DatasetsOption = "comagc,gene,ade,semeval",
    per_dataset: Annotated[
        int, typer.Option("--per-dataset", min=1, help="Validation pairs asked per data set.")
    ] = 60,
    evaluate: Annotated[
        bool,
        typer.Option(
            "--evaluate/--no-evaluate",
            help="Also score the verdict rules (reference, content-free, argmax) on the "
            "test pairs, with and without the top path.",
        ),
    ] = True,
    reuse: Annotated[
        bool,
        typer.Option("--reuse", help="Use the thresholds already saved for this model."),
    ] = False,
    data: PathDataOption = None,
    concurrency_: ConcurrencyOption = None,
    llm: LLMOption = None,
    cache: CacheOption = None,
    seed: SeedOption = 0,
    out_dir: ResultsOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """Reference thresholds for `discover pair`: the model's mean log-odds of "causal" on
    validation pairs, per prompt shape (with/without context, 0–3 paths). Saved where
    `discover pair --decision reference` finds them for this model."""
    from causalqa.bench.discovery_reference import count_reference_pairs, run_reference_bench
    from causalqa.discovery.pathdata import DATASETS

    names = choices(datasets, tuple(DATASETS), "data sets")
    model = open_llm(llm, cache=config.resolve_cache(cache, default=True))
    total = count_reference_pairs(
        names, per_dataset=per_dataset, measure=not reuse, evaluate=evaluate, root=data, seed=seed
    )
    with steps("reference", total) as on_step:
        report, md = run_reference_bench(
            model,
            names,
            per_dataset=per_dataset,
            evaluate=evaluate,
            reuse=reuse,
            root=data,
            seed=seed,
            on_step=on_step,
            concurrency=concurrency(concurrency_, llm),
        )
    write_and_emit(out_dir, "reference", report, md, json_)


@discovery_app.command("statements")
def bench_statements_command(
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Statement files (JSON Lines: a, b, context, label 1/0, "
            "optional direction A->B/B->A and kind)."
        ),  # fmt: skip
    ] = None,
    heldout: Annotated[
        bool,
        typer.Option(
            "--heldout/--no-heldout", help="Also our SemEval-style held-out split of TRAIN_FILE."
        ),  # fmt: skip
    ] = True,
    kg_path: Annotated[
        Path | None,
        typer.Option(
            "--store", "--kg", help="A store to judge with (default: every loaded store)."
        ),  # fmt: skip
    ] = None,
    no_kg: Annotated[
        bool, typer.Option("--no-kg", help="Judge from the sentence alone (no store).")
    ] = False,
    data: SharedDataOption = None,
    evidence_model: EvidenceModelOption = None,
    seed: SeedOption = 0,
    out_dir: ResultsOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """discover pair with a sentence, as a user asks it (no LLM), on sentences no training
    step saw: the SemEval-style held-out split and statement files: accuracy, macro F1,
    ROC AUC with intervals, per kind."""
    from causalqa.bench.statements import (
        HELDOUT,
        heldout_items,
        judge_items,
        read_statements,
        summarize,
        write_predictions,
    )
    from causalqa.cli.options import consulted, open_stores, opened
    from causalqa.discovery.evidence import EvidenceJudge

    sets = {}
    if heldout:
        sets[HELDOUT] = heldout_items(data or config.data_dir())
    for f in files or []:
        sets[f.stem] = read_statements(f)
    if not sets:
        raise ConfigError("nothing to measure", hint="give statement files or leave --heldout on")
    judge = EvidenceJudge.load(evidence_model)
    kg, general = consulted(None if no_kg else open_stores(kg_path))
    stores = opened(kg, general)
    try:
        results, predictions = [], []
        with progress(transient=True) as bar:
            for name, items in sets.items():
                task = bar.add_task(name, total=len(items))
                rows = judge_items(
                    items,
                    judge=judge,
                    kg=kg,
                    general=general,
                    on_step=lambda d, t, task=task: bar.update(task, completed=d),
                )
                results.append(summarize(name, rows, seed=seed))
                predictions += [{"set": name, **r} for r in rows]
        names = [str(s.path) for s in stores]
    finally:
        for s in stores:
            s.close()
    report = {
        "benchmark": "discovery statements",
        "evidence_model": str(getattr(judge, "folder", None) or evidence_model or "shipped"),
        "text_model": judge.text_model,
        "stores": names,
        "seed": seed,
        "results": results,
    }

    def ci(r, k):
        lo, hi = r[f"{k}_ci"]
        return f"{r[k]:.3f} [{lo:.3f}, {hi:.3f}]" if r[k] is not None else "—"

    lines = [
        "`discover pair` with each sentence, no LLM; stores: "
        + (", ".join(f"`{n}`" for n in names) or "none") + f"; model {report['evidence_model']}.",
        "",
        "| set | items (causal) | accuracy | macro F1 | ROC AUC | direction | unknown | errors |",
        "|---|---|---|---|---|---|---|---|",
        *(f"| {r['set']} | {r['items']} ({r['causal']}) | {ci(r, 'accuracy')} | "
          f"{ci(r, 'macro_f1')} | {ci(r, 'roc_auc')} | {r['direction_right']}/"
          f"{r['direction_of']} | {r['unknown']} | {r['errors']} |" for r in results),
    ]  # fmt: skip
    for r in results:
        if "balanced" in r:
            b = r["balanced"]
            lines += ["", f"{r['set']} on balanced draws ({b['draws']}): macro F1 "
                      f"{b['macro_f1']} (range {b['macro_f1_range'][0]}–{b['macro_f1_range'][1]}),"
                      f" accuracy {b['accuracy']}."]  # fmt: skip
        if len(r["kinds"]) > 1:
            lines += ["", f"{r['set']} by kind: " + "; ".join(
                f"{k} {v['right']}/{v['of']}" for k, v in r["kinds"].items())]  # fmt: skip
    out_dir.mkdir(parents=True, exist_ok=True)
    write_predictions(predictions, out_dir / "statements-latest.predictions.jsonl")
    write_and_emit(out_dir, "statements", report, "\n".join(lines), json_)
