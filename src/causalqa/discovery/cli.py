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
    seed: Annotated[int, typer.Option("--seed")] = 0,
    out_dir: OutOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """PC, ExactSearch (A*) and DirectLiNGAM on SACHS in one run: P, R, F1, SHD, HD, NHD."""
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


@app.command("rankers")
def bench_rankers_command(
    datasets: Annotated[
        str, typer.Option("--datasets", help="Comma-separated: comagc,gene,ade,semeval.")
    ] = "comagc,gene,ade,semeval",
    data: Annotated[
        Path | None,
        typer.Option("--data", help="The path-to-causality folder (default: shared data)."),
    ] = None,
    llm_queries: Annotated[
        int,
        typer.Option(
            "--llm-queries", min=0, help="Also run the LLM permutation ranker on N queries."
        ),
    ] = 0,
    llm: Annotated[str | None, typer.Option("--llm", help="LLM backend for --llm-queries.")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    out_dir: OutOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """Subgraph rankers on the four path data sets: NDCG@5 and Recall@5 (Table D2)."""
    _bench_rankers(datasets, data, llm_queries, llm, seed, out_dir, json_)


def _bench_rankers(datasets, data, llm_queries, llm, seed, out_dir, json_) -> None:
    from causalqa.discovery.pathdata import DATASETS
    from causalqa.discovery.rankers import LLMPermutationRanker, evaluate_rankers

    names = _split(datasets, tuple(DATASETS), "data sets")
    llm_ranker = None
    if llm_queries:
        from causalqa.llm import get_llm

        llm_ranker = LLMPermutationRanker(get_llm(llm) if llm else get_llm())
    results = []
    with err.status("rankers …") as status:
        for name in names:
            results.append(
                evaluate_rankers(
                    name,
                    root=data,
                    seed=seed,
                    llm_ranker=llm_ranker,
                    llm_queries=llm_queries,
                    on_progress=lambda m: status.update(f"rankers: {m} …"),
                )
            )
    report = {
        "benchmark": "rankers",
        "seed": seed,
        "llm": getattr(llm_ranker.llm, "model", None) if llm_ranker else None,
        "datasets": [r.to_dict() for r in results],
    }
    md = "\n\n".join(f"## {r.dataset}\n\n{r.to_markdown()}" for r in results)
    if results:
        md += "\n\n" + "\n".join(f"- {n}" for n in results[0].notes[1:])
    path = write_results(out_dir, "rankers", report, md)
    err.print(f"[dim]wrote {path}[/dim]")
    _emit(report, md, json_)


@app.command("pairs")
def bench_pairs_command(
    datasets: Annotated[
        str, typer.Option("--datasets", help="Comma-separated: comagc,gene,ade,semeval.")
    ] = "comagc,gene,ade,semeval",
    methods: Annotated[
        str,
        typer.Option(
            "--methods",
            help="Comma-separated: none,random,similarity,gpt,xgboost,oracle (and llm).",
        ),
    ] = "none,random,similarity,gpt,xgboost,oracle",
    with_llm_ranker: Annotated[
        bool, typer.Option("--llm-ranker", help="Add the LLM permutation ranker (slow).")
    ] = False,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="A seeded sample of N pairs per set.")
    ] = None,
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="Paths in the prompt.")] = 1,
    data: Annotated[
        Path | None,
        typer.Option("--data", help="The path-to-causality folder (default: shared data)."),
    ] = None,
    llm: Annotated[str | None, typer.Option("--llm", help="LLM spec (default: configured).")] = (
        None
    ),
    seed: Annotated[int, typer.Option("--seed")] = 0,
    out_dir: OutOption = DEFAULT_OUT,
    json_: JSONOption = False,
) -> None:
    """Zero-shot pair classification with top-k paths: P/R/F1 (Tables 1–2)."""
    _bench_pairs(datasets, methods, with_llm_ranker, limit, top_k, data, llm, seed, out_dir, json_)


def _bench_pairs(datasets, methods, with_llm_ranker, limit, top_k, data, llm, seed, out_dir, json_):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from causalqa.discovery.bench_pairs import METHODS, benchmark_pairs, plot_pairs
    from causalqa.discovery.pathdata import DATASETS, load_path_dataset
    from causalqa.llm import get_llm

    names = _split(datasets, tuple(DATASETS), "data sets")
    chosen = _split(methods, METHODS, "methods")
    if with_llm_ranker and "llm" not in chosen:
        chosen.append("llm")
    total = 0
    for name in names:
        n = len(load_path_dataset(name, data, splits=("truth",)).truth)
        total += (min(n, limit) if limit else n) * len(chosen)
    model = get_llm(llm) if llm else get_llm()
    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=False) as progress:
        task = progress.add_task("pairs", total=total)
        bench = benchmark_pairs(
            model,
            datasets=names,
            methods=chosen,
            limit=limit,
            top_k=top_k,
            root=data,
            seed=seed,
            on_step=lambda what, n: progress.update(task, advance=n, description=what),
        )
    report = {"benchmark": "pairs", "seed": seed, **bench.to_dict()}
    png = plot_pairs(bench, out_dir / "pairs-latest.png")
    md = bench.to_markdown()
    if png:
        md += f"\n\n![F1 per data set and method]({png.name})"
        report["plot"] = str(png)
    path = write_results(out_dir, "pairs", report, md)
    err.print(f"[dim]wrote {path}[/dim]")
    _emit(report, md, json_)
