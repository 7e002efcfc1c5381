"""``sachs`` and ``rankers``: a typer sub-app the main CLI mounts (e.g. under
``causalqa bench discovery``). Results go to ``bench/results/discovery/`` as JSON + Markdown.
Commands raise `CausalQAError` for the main CLI (`causalqa.cli.main`) to show as one line
plus a hint.

>>> from typer.testing import CliRunner                              # doctest: +SKIP
>>> CliRunner().invoke(app, ["sachs", "--methods", "pc"])      # doctest: +SKIP
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from causalqa.errors import ConfigError

app = typer.Typer(
    help="Paper 001 benchmarks: SACHS statistical baselines and the subgraph rankers.",
    no_args_is_help=True,
)
err = Console(stderr=True)
out = Console()

DEFAULT_OUT = Path("bench/results/discovery")
OutOption = Annotated[Path, typer.Option("--out", help="Where to write JSON and Markdown.")]
JSONOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
DatasetsOption = Annotated[
    str, typer.Option("--datasets", help="Comma-separated: comagc,gene,ade,semeval.")
]
PathDataOption = Annotated[
    Path | None,
    typer.Option("--data", help="The path-to-causality folder (default: shared data)."),
]
LLMSpecOption = Annotated[str | None, typer.Option("--llm", help="LLM spec (default: configured).")]
CacheOption = Annotated[
    bool | None, typer.Option("--cache/--no-cache", help="LLM response cache (default: on).")
]
SeedOption = Annotated[int, typer.Option("--seed")]


def _split(value: str, allowed: list[str] | tuple[str, ...], what: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if not items or bad:
        raise ConfigError(
            f"unknown {what}: {', '.join(bad) or repr(value)}", hint=f"use {', '.join(allowed)}"
        )
    return items


def write_results(out_dir: Path, name: str, report: dict[str, Any], markdown: str) -> Path:
    """Write ``<name>-<stamp>.json/.md`` and ``<name>-latest.*``; return the latest .md."""
    from causalqa.bench.report import environment

    env = report.setdefault("environment", environment())
    stamp = env["date"].replace(":", "").replace("-", "")[:15]
    header = [
        f"# causalqa bench discovery {name}",
        "",
        f"- date: {env['date']}",
        f"- hardware: {env['cpu']}, {env['cores']} cores, {env['memory_gb']} GB RAM",
        f"- software: Python {env['python']}, causalqa {env['causalqa']}",
        "",
    ]
    text = "\n".join(header) + "\n" + markdown + "\n"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for stem in (f"{name}-{stamp}", f"{name}-latest"):
            (out_dir / f"{stem}.json").write_text(
                json.dumps(report, indent=2, ensure_ascii=False, default=str)
            )
            (out_dir / f"{stem}.md").write_text(text)
    except OSError as e:
        raise ConfigError(f"cannot write results to {out_dir}: {e.strerror}") from None
    return out_dir / f"{name}-latest.md"


def _emit(report: dict[str, Any], markdown: str, json_: bool) -> None:
    if json_:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        out.print(markdown, markup=False, highlight=False, soft_wrap=True)


@app.command("sachs")
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
    kg_path: Annotated[
        Path | None,
        typer.Option("--kg", help="Knowledge graph store (default: $CAUSALQA_HOME/kg/default)."),
    ] = None,
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="Paths in each prompt.")] = 1,
    calibrate: Annotated[
        bool,
        typer.Option("--calibrate/--no-calibrate", help="Contextual calibration of verdicts."),
    ] = True,
    llm: LLMSpecOption = None,
    seed: SeedOption = 0,
    out_dir: OutOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """PC, ExactSearch (A*) and DirectLiNGAM on SACHS in one run (and, with --ours, our
    LLM+KG discovery): P, R, F1, SHD, HD, NHD."""
    if ours:
        return _bench_sachs_ours(
            data, truth, methods, ours, ranker_data, kg_path, top_k, calibrate, llm, seed,
            out_dir, json_,
        )  # fmt: skip
    _bench_sachs(data, truth, methods, seed, out_dir, json_)


def _bench_sachs(data, truth, methods, seed, out_dir, json_) -> None:
    from causalqa.discovery.sachs import TRUTHS, benchmark_sachs
    from causalqa.discovery.statistical import BASELINES

    if truth not in TRUTHS:
        raise ConfigError(f"unknown reference graph {truth!r}", hint="use cdt or bnlearn")
    chosen = _split(methods, tuple(BASELINES), "methods")
    with err.status("SACHS …") as status:
        bench = benchmark_sachs(
            data,
            truth=truth,
            methods=chosen,
            seed=seed,
            on_progress=lambda m: status.update(f"SACHS: running {m} …"),
        )
    report = {"benchmark": "sachs", "seed": seed, **bench.to_dict()}
    md = bench.to_markdown()
    path = write_results(out_dir, f"sachs-{truth}", report, md)
    err.print(f"[dim]wrote {path}[/dim]")
    _emit(report, md, json_)


def _bench_sachs_ours(
    data, truth, methods, ours, ranker_data, kg_path, top_k, calibrate, llm, seed, out_dir,
    json_,
) -> None:  # fmt: skip
    from causalqa import config
    from causalqa.discovery.graph import DECISIONS, SACHS_CONTEXT, benchmark_sachs_kg
    from causalqa.discovery.pair import RANKERS, TRAINED, load_ranker
    from causalqa.discovery.pathdata import DATASETS
    from causalqa.discovery.sachs import TRUTHS
    from causalqa.discovery.statistical import BASELINES
    from causalqa.llm import get_llm

    if truth not in TRUTHS:
        raise ConfigError(f"unknown reference graph {truth!r}", hint="use cdt or bnlearn")
    chosen = _split(methods, tuple(BASELINES), "methods")
    names = _split(ours, tuple(r for r in RANKERS if r != "llm"), "rankers")
    if ranker_data not in DATASETS:
        raise ConfigError(f"unknown data set {ranker_data!r}", hint=f"use {', '.join(DATASETS)}")
    rankers: list[Any] = [
        load_ranker(n, bench_ranker_dir() / "full" / ranker_data) if n in TRAINED else n
        for n in names
    ]
    kg = None
    if any(n != "none" for n in names):
        from causalqa.discovery.discover_cli import open_kg

        kg = open_kg(kg_path)
    use_cache = config.resolve_cache(None, default=True)
    model = get_llm(llm, cache=use_cache) if llm else get_llm(cache=use_cache)
    try:
        with err.status("SACHS …") as status:
            bench, graphs = benchmark_sachs_kg(
                kg=kg,
                llm=model,
                rankers=rankers,
                top_k=top_k,
                truth=truth,
                methods=chosen,
                root=data,
                seed=seed,
                on_progress=lambda m: status.update(f"SACHS: {m}"),
                calibrate=calibrate,
                decisions=DECISIONS if calibrate else ("argmax", "batch"),
            )
    finally:
        if kg is not None:
            kg.close()
    report = {
        "benchmark": "sachs",
        "seed": seed,
        "model": getattr(model, "model", ""),
        "context": SACHS_CONTEXT,
        "top_k": top_k,
        "calibrated": calibrate,
        "trained_rankers_from": ranker_data,
        **bench.to_dict(),
        "ours": {k: g.to_dict() for k, g in graphs.items()},
    }
    md = bench.to_markdown()
    md += (
        f"\n\nOurs: {getattr(model, 'model', '')}, every ordered pair of the 11 proteins "
        f"asked (110 questions per row), top-{top_k} path(s) from the knowledge graph, "
        "each ranker's answers turned into a graph by three verdict rules (content-free "
        "calibration, the paper's argmax, batch calibration: log-odds minus their mean over "
        "the run's questions with the same number of paths — label-free); trained rankers "
        f"fitted on {DATASETS[ranker_data][1]}'s train_full (gene–gene pairs)."
    )
    for name, g in graphs.items():
        md += f"\n\n## ours ({name})\n\n" + g.to_markdown()
    path = write_results(out_dir, f"sachs-{truth}", report, md)
    err.print(f"[dim]wrote {path}[/dim]")
    _emit(report, md, json_)


def bench_ranker_dir() -> Path:
    """Where the benchmarks keep fitted trained rankers:
    ``$CAUSALQA_HOME/discovery/rankers/bench/<full|validation>/<data set>/<name>.pkl``."""
    from causalqa import config

    return config.home_dir() / "discovery" / "rankers" / "bench"


def _progress():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    return Progress(*columns, console=err, transient=False)


@app.command("rankers")
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
    llm: Annotated[str | None, typer.Option("--llm", help="LLM backend for --llm-queries.")] = None,
    seed: SeedOption = 0,
    out_dir: OutOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """Subgraph rankers on the four path data sets: NDCG@5 and Recall@5 (Table D2)."""
    _bench_rankers(
        datasets, rankers, validation, save_rankers, reuse, data, llm_queries, llm, seed,
        out_dir, json_,
    )  # fmt: skip


RANKER_NAMES = ("similarity", "rmse", "ranknet", "listnet", "xgboost")


def _make_rankers(names: list[str], seed: int, saved: Path | None = None):
    """Fresh rankers by name; with `saved`, a trained one saved there with the same
    parameters (``<name>.pkl``) is loaded instead."""
    from causalqa.discovery.bench_pairs import saved_like, unfitted_ranker
    from causalqa.discovery.rankers import SimilarityRanker
    from causalqa.embed import Embedder

    embedder = Embedder()
    made = []
    for name in names:
        if name == "similarity":
            made.append(SimilarityRanker(embedder))
            continue
        fresh = unfitted_ranker(name, seed=seed, embedder=embedder)
        old = saved_like(fresh, name, saved, embedder=embedder) if saved is not None else None
        made.append(old if old is not None else fresh)
    return made


def _bench_rankers(
    datasets, rankers, validation, save_rankers, reuse, data, llm_queries, llm, seed, out_dir,
    json_,
) -> None:  # fmt: skip
    from causalqa.discovery.pathdata import DATASETS, load_path_dataset, validation_split
    from causalqa.discovery.rankers import LLMPermutationRanker, evaluate_rankers

    names = _split(datasets, tuple(DATASETS), "data sets")
    chosen = _split(rankers, RANKER_NAMES, "rankers")
    llm_ranker = None
    if llm_queries:
        from causalqa.llm import get_llm

        llm_ranker = LLMPermutationRanker(get_llm(llm) if llm else get_llm())
    split = "validation" if validation else "full"
    results = []
    with _progress() as progress:
        task = progress.add_task("rankers", total=None)

        def fit_step(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        for name in names:
            dataset: Any = name
            if validation:
                dataset = validation_split(
                    load_path_dataset(name, data, splits=("train",)), seed=seed
                )
            saved = bench_ranker_dir() / split / name
            results.append(
                evaluate_rankers(
                    dataset,
                    rankers=_make_rankers(chosen, seed, saved if reuse else None),
                    refit=not reuse,
                    root=data,
                    seed=seed,
                    llm_ranker=llm_ranker,
                    llm_queries=llm_queries,
                    on_progress=lambda m: progress.update(
                        task, description=f"rankers: {m}", completed=0, total=None
                    ),
                    on_fit_step=fit_step,
                    save_dir=saved if save_rankers else None,
                )
            )
    report = {
        "benchmark": "rankers",
        "split": "validation (20% of train_full's queries)" if validation else "test_truth",
        "seed": seed,
        "llm": getattr(llm_ranker.llm, "model", None) if llm_ranker else None,
        "datasets": [r.to_dict() for r in results],
    }
    md = "\n\n".join(f"## {r.dataset}\n\n{r.to_markdown()}" for r in results)
    if results:
        md += "\n\n" + "\n".join(f"- {n}" for n in results[0].notes[1:])
    if validation:
        md = (
            "Validation split: 20% of each train_full's queries (seeded, by query), the "
            "rankers fitted on the other 80%; test_truth is not read.\n\n" + md
        )
    path = write_results(out_dir, "rankers-validation" if validation else "rankers", report, md)
    err.print(f"[dim]wrote {path}[/dim]")
    _emit(report, md, json_)


@app.command("pairs")
def bench_pairs_command(
    datasets: DatasetsOption = "comagc,gene,ade,semeval",
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
    llm: LLMSpecOption = None,
    cache: CacheOption = None,
    seed: SeedOption = 0,
    out_dir: OutOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """Zero-shot pair classification with top-k paths: P/R/F1 (Tables 1–2)."""
    _bench_pairs(
        datasets, methods, with_llm_ranker, limit, top_k, path_format, validation,
        thresholds_from, data, llm, cache, seed, out_dir, json_,
    )  # fmt: skip


def _bench_pairs(
    datasets, methods, with_llm_ranker, limit, top_k, path_format, validation, thresholds_from,
    data, llm, cache, seed, out_dir, json_,
):  # fmt: skip
    from causalqa import config
    from causalqa.discovery.bench_pairs import (
        METHODS,
        PATH_FORMATS,
        benchmark_pairs,
        plot_pairs,
        read_thresholds,
    )
    from causalqa.discovery.pathdata import DATASETS, load_path_dataset, validation_split
    from causalqa.llm import get_llm

    names = _split(datasets, tuple(DATASETS), "data sets")
    chosen = _split(methods, METHODS, "methods")
    if path_format not in PATH_FORMATS:
        raise ConfigError(
            f"unknown path format {path_format!r}", hint=f"use {', '.join(PATH_FORMATS)}"
        )
    if with_llm_ranker and "llm" not in chosen:
        chosen.append("llm")
    thresholds = read_thresholds(thresholds_from) if thresholds_from else None
    total = 0
    for name in names:
        loaded = load_path_dataset(name, data, splits=("train",) if validation else ("truth",))
        n = len(validation_split(loaded, seed=seed).truth if validation else loaded.truth)
        total += (min(n, limit) if limit else n) * len(chosen)
    use_cache = config.resolve_cache(cache, default=True)
    model = get_llm(llm, cache=use_cache) if llm else get_llm(cache=use_cache)
    with _progress() as progress:
        task = progress.add_task("pairs", total=total)
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
            ranker_dir=bench_ranker_dir(),
            thresholds=thresholds,
            on_step=lambda what, n: progress.update(task, advance=n, description=what),
        )
    report = {"benchmark": "pairs", "seed": seed, **bench.to_dict()}
    stem = "pairs-validation" if validation else "pairs"
    png = plot_pairs(bench, out_dir / f"{stem}-latest.png")
    md = bench.to_markdown()
    if png:
        md += f"\n\n![F1 per data set and method]({png.name})"
        report["plot"] = str(png)
    path = write_results(out_dir, stem, report, md)
    err.print(f"[dim]wrote {path}[/dim]")
    _emit(report, md, json_)


@app.command("reference")
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
    llm: LLMSpecOption = None,
    cache: CacheOption = None,
    seed: SeedOption = 0,
    out_dir: OutOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """Reference thresholds for `discover pair`: the model's mean log-odds of "causal" on
    validation pairs, per prompt shape (with/without context, 0–3 paths). Saved where
    `discover pair --decision reference` finds them for this model."""
    _bench_reference(datasets, per_dataset, evaluate, reuse, data, llm, cache, seed, out_dir, json_)


def _bench_reference(
    datasets, per_dataset, evaluate, reuse, data, llm, cache, seed, out_dir, json_
) -> None:
    from causalqa import config
    from causalqa.discovery.pathdata import DATASETS, load_path_dataset, validation_split
    from causalqa.discovery.reference import (
        evaluate_decisions,
        measure_reference,
        reference_for,
        save_reference,
        user_file,
    )
    from causalqa.llm import get_llm

    names = _split(datasets, tuple(DATASETS), "data sets")
    use_cache = config.resolve_cache(cache, default=True)
    model = get_llm(llm, cache=use_cache) if llm else get_llm(cache=use_cache)
    ref = reference_for(model.model) if reuse else None
    if reuse and ref is None:
        raise ConfigError(
            f"no reference thresholds saved for {model.model}",
            hint="run without --reuse to measure them",
        )
    total = 0
    if ref is None:
        for name in names:
            loaded = load_path_dataset(name, data, splits=("train",))
            total += min(len(validation_split(loaded, seed=seed).truth), per_dataset)
    if evaluate:
        total += sum(len(load_path_dataset(n, data, splits=("truth",)).truth) for n in names)
    rows = []
    with _progress() as progress:
        task = progress.add_task("reference", total=total)

        def step(what, n):
            progress.update(task, advance=n, description=what)

        if ref is None:
            ref = measure_reference(
                model, datasets=names, per_dataset=per_dataset, root=data, seed=seed,
                on_step=step,
            )  # fmt: skip
            saved = save_reference(ref)
        else:
            saved = user_file(ref.model) if user_file(ref.model).is_file() else None
        if evaluate:
            rows = evaluate_decisions(model, ref, datasets=names, root=data, on_step=step)
    report = {"benchmark": "reference", **ref.to_dict(), "test": rows}
    report["saved"] = str(saved) if saved else None
    lines = [
        f"Model: {ref.model}; {ref.info.get('pairs', '?')} validation pairs "
        f"({ref.info.get('per_dataset', '?')} per data set at most: "
        f"{', '.join(ref.info.get('datasets', names))}); paths by the similarity ranker, "
        "plain form, discover pair's default instruction.",
        "",
        "| prompt | paths | mean log-odds of causal (the threshold) | answers |",
        "|---|---|---|---|",
    ]
    for shape, table in ref.means.items():
        for n, mean in table.items():
            lines.append(
                f"| {shape} | {n} | {mean:.4f} | {ref.prompts.get(shape, {}).get(n, '')} |"
            )
    if saved:
        lines += ["", f"Saved to {saved} (used by `causalqa discover pair --decision reference`)."]
    if rows:
        lines += [
            "",
            "Verdict rules on the test pairs (`test_truth`), context = the pair's sentence, "
            "discover pair's prompt; thresholds from the validation pairs above, never fitted "
            "on these:",
            "",
            "| data set | paths | rule | P | R | F1 | acc | pairs (causal) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {DATASETS[r['dataset']][1]} | {r['paths']} | {r['rule']} | {r['precision']} "
                f"| {r['recall']} | {r['f1']} | {r['accuracy']} | {r['pairs']} ({r['causal']}) |"
            )
    md = "\n".join(lines)
    path = write_results(out_dir, "reference", report, md)
    err.print(f"[dim]wrote {path}[/dim]")
    _emit(report, md, json_)
