"""Command-line surface of the deduction engine: a typer sub-app.

The main CLI mounts `deduce_command` as ``causalqa deduce`` and `mine_command` as
``causalqa kg mine`` (and may mount `app` whole). Errors are `CausalQAError`s, shown by
the main CLI as one line plus a hint.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from causalqa.deduction.errors import DatasetError

app = typer.Typer(
    help="Causal deduction (paper 002): verify probable causes, mine causal KGs.",
    no_args_is_help=True,
)
out = Console()
err = Console(stderr=True)

LLMOption = Annotated[
    str | None,
    typer.Option("--llm", help="LLM backend (local, local:small, openai:MODEL, …)."),
]
JSONOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _main_state() -> dict[str, Any]:
    # Global --llm/--json given before the sub-command live in the main CLI's state.
    mod = sys.modules.get("causalqa.cli")
    return getattr(mod, "_state", {}) if mod is not None else {}


def _spec(llm: str | None) -> str:
    from causalqa import config

    spec, _ = config.resolve_llm_spec(llm if llm is not None else _main_state().get("llm"))
    return spec


def _json(local: bool) -> bool:
    return local or bool(_main_state().get("json"))


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


# -- causalqa deduce -----------------------------------------------------------------------
@app.command("deduce")
def deduce_command(
    context: Annotated[
        str, typer.Option("--context", "-c", help="The accident report: a text file or text.")
    ],
    statement: Annotated[
        str, typer.Option("--statement", "-s", help="The candidate probable cause.")
    ],
    retriever: Annotated[
        str,
        typer.Option(
            "--retriever",
            "-r",
            help="none, semantic or rotg (need --kg; rotg a model trained into it).",
        ),
    ] = "none",
    kg: Annotated[
        Path | None, typer.Option("--kg", help="A causal KG directory (causalqa kg mine).")
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help="Prompt format V1–V9 (default V1, V6 if retrieving)."),
    ] = None,
    method: Annotated[
        str, typer.Option("--method", help="logprobs (fast), text (the paper's), or both.")
    ] = "logprobs",
    k: Annotated[int, typer.Option("-k", min=1, help="Nearest KG nodes to retrieve.")] = 3,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Is STATEMENT a probable cause of the accident in CONTEXT? Verdict, P(True), chains."""
    from causalqa.deduction.deduce import check_text, deduce, read_context
    from causalqa.deduction.retrieve import get_retriever
    from causalqa.llm import get_llm

    text = check_text(read_context(context), what="context")
    check_text(statement, what="statement", min_words=1)
    graph = _load_kg(kg) if kg is not None else None
    r = None
    if retriever.strip().lower() != "none":
        if graph is None:
            raise DatasetError(
                f"the {retriever} retriever needs a causal KG",
                hint="pass --kg DIR (mine one with `causalqa kg mine REPORTS --out DIR`)",
            )
        r = get_retriever(retriever).fit(graph)
    model = get_llm(_spec(llm), quiet=_json(json_))
    result = deduce(text, statement, model, r, fmt, method=method, k=k, kg=graph)  # type: ignore[arg-type]
    if _json(json_):
        _emit(result.model_dump())
        return
    prob = f" · P(True) = {result.probability:.2f}" if result.probability is not None else ""
    colour = "green" if result.verdict else "red"
    out.print(f"[bold {colour}]{result.label}[/]{prob}", highlight=False)
    if result.reply is not None:
        out.print(f"[dim]reply:[/] {escape(result.reply.strip())}", highlight=False)
    if result.chains:
        table = Table("score", "kind", "chain", "report", title="retrieved chains")
        for c in result.chains:
            table.add_row(
                f"{c.get('score', 0):.2f}", c["kind"], escape(c["text"]), str(c.get("report_id"))
            )
        out.print(table)
    for name, rows in (("extracted", result.extracted), ("inferred", result.inferred)):
        for row in rows:
            out.print(f"[dim]{name}:[/] {escape(row)}", highlight=False)
    err.print(
        f"[dim]{result.fmt} · {result.method} · retriever {result.retriever} · {result.model} · "
        f"{result.usage.get('prompt_tokens', 0)} prompt + "
        f"{result.usage.get('completion_tokens', 0)} completion tokens · "
        f"{result.seconds:.2f} s[/]",
        soft_wrap=True,
    )


def _load_kg(path: Path):
    from causalqa.deduction.ckg import CausalKG

    kg = CausalKG.load(path)
    if not kg.nodes:
        raise DatasetError(f"the causal KG at {path} is empty", hint="mine some reports first")
    return kg


# -- causalqa kg mine ----------------------------------------------------------------------
def read_reports(paths: list[Path]):
    """Reports and their candidate causes from files: ``.txt``/``.md`` (one report each,
    id = file name), JSONL (deduction examples, or ``{"report_id", "context"}`` records,
    optional ``"statement"``), or directories of those."""
    from causalqa.deduction.dataset import Report

    reports: dict[str, Report] = {}
    statements: dict[str, list[str]] = {}
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files += sorted(q for q in p.iterdir() if q.suffix.lower() in (".txt", ".md", ".jsonl"))
        elif p.exists():
            files.append(p)
        else:
            raise DatasetError(f"no such report file: {p}", path=str(p))
    if not files:
        raise DatasetError("no report files given", hint="pass .txt/.md reports or a JSONL")
    for f in files:
        if f.suffix.lower() == ".jsonl":
            for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                    rid, ctx = str(obj["report_id"]), str(obj["context"])
                except (ValueError, KeyError, TypeError) as e:
                    raise DatasetError(
                        f"{f}:{n}: expected a JSON object with report_id and context ({e})",
                        path=str(f),
                        line=n,
                    ) from e
                reports.setdefault(rid, Report(report_id=rid, context=ctx))
                if obj.get("statement"):
                    statements.setdefault(rid, []).append(str(obj["statement"]))
        else:
            try:
                text = f.read_text(encoding="utf-8")
            except UnicodeDecodeError as e:
                raise DatasetError(f"{f} is not UTF-8 text", path=str(f)) from e
            rid = f.stem
            if rid in reports:
                raise DatasetError(f"two reports are named {rid!r}", path=str(f))
            reports[rid] = Report(report_id=rid, context=text)
    return list(reports.values()), statements


@app.command("mine")
def mine_command(
    reports: Annotated[
        list[Path], typer.Argument(help="Report files (.txt/.md), JSONL data sets, or folders.")
    ],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="The KG directory to grow.")],
    infer: Annotated[
        bool,
        typer.Option("--infer/--no-infer", help="Also infer chains for statements (Prompt 4)."),
    ] = True,
    fmt: Annotated[str, typer.Option("--format", help="Nodes/edges as jsonl or parquet.")] = (
        "jsonl"
    ),
    threshold: Annotated[
        float, typer.Option("--similarity", help="Cosine above which nodes are linked.")
    ] = 0.7,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens", min=16, help="Token budget of every call (default 512 P3, 256 P4)."
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Mine at most this many reports.")
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option(
            "--sample",
            min=1,
            help="Mine this many reports drawn at random (seeded by --seed); a larger "
            "sample with the same seed extends a smaller one.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of --sample.")] = 0,
    paper_order: Annotated[
        bool,
        typer.Option(
            "--paper-order",
            help="Send Prompt 4 with the statement before the context, as printed in the "
            "paper (default: context first, so a report's calls share a cached prefix).",
        ),
    ] = False,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Grow a causal KG from REPORTS (Prompt 3 extraction, Prompt 4 inference); resumable."""
    from causalqa.deduction.ckg import CausalKG
    from causalqa.deduction.dataset import sample_report_ids
    from causalqa.deduction.deduce import check_text
    from causalqa.deduction.mining import mine
    from causalqa.llm import get_llm

    items, statements = read_reports(reports)
    for r in items:
        check_text(r.context, what=f"report {r.report_id}")
    if sample is not None:
        by_id = {r.report_id: r for r in items}
        items = [by_id[i] for i in sample_report_ids(by_id, sample, seed)]
    if limit is not None:
        items = items[:limit]
    kg = CausalKG.open(out_dir, fmt=fmt)
    model = get_llm(_spec(llm), quiet=_json(json_))
    summary = mine(
        items,
        model,
        kg,
        statements=statements,
        infer=infer,
        max_tokens=max_tokens,
        context_first=not paper_order,
        progress=not _json(json_),
    )
    if summary.calls or not kg.similar_current or not (out_dir / "meta.json").exists():
        kg.link_similar(threshold=threshold)
    kg.save(fmt=fmt)
    stats = kg.stats()
    if _json(json_):
        _emit({"out": str(out_dir), "run": summary.__dict__, "stats": stats})
        return
    _print_stats(stats, out_dir)
    err.print(
        f"[dim]{summary.calls} LLM calls, {summary.skipped} already mined, {summary.failed} "
        f"failed, {summary.new_chains} new chains, {summary.seconds:.1f} s[/]"
    )
    for e in summary.errors[:5]:
        err.print(f"[yellow]failed:[/] {escape(e)}", highlight=False)


def _print_stats(stats: dict[str, Any], path: Path) -> None:
    t = Table(title=f"causal KG {path}", show_header=False)
    t.add_row("reports", str(stats["reports"]))
    t.add_row("nodes", str(stats["nodes"]))
    for k, v in stats["edges_by_type"].items():
        t.add_row(f"{k} edges", str(v))
    for k, v in stats["pairs_by_kind"].items():
        t.add_row(f"{k} cause-effect pairs", str(v))
    s = stats["seconds_per_report"]
    t.add_row("mining s/report (mean, median)", f"{s['mean']:.1f}, {s['median']:.1f}")
    out.print(t)


@app.command("stats")
def stats_command(
    kg: Annotated[Path, typer.Argument(help="A causal KG directory.")],
    json_: JSONOption = False,
) -> None:
    """Statistics of a causal KG (§4.1): nodes, edges by type, mining time per report."""
    from causalqa.deduction.ckg import CausalKG

    stats = CausalKG.load(kg).stats()
    if _json(json_):
        _emit(stats)
    else:
        _print_stats(stats, kg)


@app.command("reparse")
def reparse_command(
    kg: Annotated[Path, typer.Argument(help="A causal KG directory.")],
    threshold: Annotated[
        float, typer.Option("--similarity", help="Cosine above which nodes are linked.")
    ] = 0.7,
    json_: JSONOption = False,
) -> None:
    """Re-read every recorded reply into chains with the current parser (no LLM call),
    relink similar edges and save: for a KG mined before a parser fix."""
    from causalqa.deduction.ckg import CausalKG

    graph = CausalKG.load(kg)
    before = graph.stats()
    graph.reparse()
    graph.link_similar(threshold=threshold)
    graph.save()
    stats = graph.stats()
    if _json(json_):
        _emit({"before": before, "after": stats})
        return
    _print_stats(stats, kg)
    err.print(
        f"[dim]chains {sum(before['chains_by_kind'].values())} → "
        f"{sum(stats['chains_by_kind'].values())}, nodes {before['nodes']} → {stats['nodes']}[/]"
    )


# -- causalqa deduction dataset ------------------------------------------------------------
@app.command("dataset")
def dataset_command(
    out_file: Annotated[Path, typer.Option("--out", "-o", help="JSONL file to write.")],
    data: Annotated[
        Path | None, typer.Option("--data", help="Folder holding ntsb/ (default ../shared/data).")
    ] = None,
    max_words: Annotated[int, typer.Option("--max-words", help="Longest context kept.")] = 2000,
    true_from: Annotated[
        str, typer.Option("--true-from", help="rules, or llm (Prompt 1).")
    ] = "rules",
    llm_negatives: Annotated[
        bool, typer.Option("--llm-negatives", help="Add Prompt 2 False statements (slow).")
    ] = False,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Build the deduction data set from the shared NTSB files (rules; LLM optional)."""
    from causalqa.deduction.dataset import build_dataset, load_ntsb, save_jsonl, summary

    if true_from not in ("rules", "llm"):
        raise DatasetError(f"unknown --true-from {true_from!r}", hint="use rules or llm")
    reports = load_ntsb(data, max_words=max_words)
    model = None
    if true_from == "llm" or llm_negatives:
        from causalqa.llm import get_llm

        model = get_llm(_spec(llm), quiet=_json(json_))
    examples = build_dataset(
        reports,
        llm=model,
        true_from=true_from,  # type: ignore[arg-type]
        with_llm_negatives=llm_negatives,
        seed=seed,
        progress=not _json(json_),
    )
    save_jsonl(examples, out_file)
    s = summary(examples)
    if _json(json_):
        _emit({"out": str(out_file), **s})
    else:
        out.print(
            f"{s['reports']} reports, {s['statements']} statements ({s['true']} True, "
            f"{s['false']} False, {s['true_pct']}% True; {s['by_source']}) → {out_file}"
        )


# -- causalqa bench deduction --------------------------------------------------------------
def _fold_line(row: dict[str, Any]) -> None:
    """One line per fold and condition on stderr, so a long run shows where it is."""
    cells = " · ".join(
        f"{k} {row[k]:.1f}" for k in ("macro_f1", "micro_f1", "acc_true") if row.get(k) is not None
    )
    err.print(f"[dim]fold {row['fold'] + 1} {row['condition']}: {cells} (n={row['n']})[/]")


@app.command("bench")
def bench_command(
    data: Annotated[
        Path, typer.Option("--data", "-d", help="Deduction data set JSONL (causalqa dataset).")
    ],
    kg: Annotated[
        Path | None,
        typer.Option("--kg", help="Causal KG directory (kg mine); without it only none runs."),
    ] = None,
    conditions: Annotated[
        str,
        typer.Option(
            "--conditions",
            help="Comma-separated FORMAT:RETRIEVER[+variant], e.g. V1:none,V6:semantic,V6:rotg "
            "(variants: notrunc, noclean; RoTG also similar, causal).",
        ),
    ] = "V1:none,V6:semantic,V6:rotg",
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
    seed: Annotated[int, typer.Option("--seed")] = 0,
    out_dir: Annotated[
        Path, typer.Option("--out", "-o", help="Where the JSON and Markdown go.")
    ] = Path("bench/results/deduction"),
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Cross-validate no / semantic / RoTG retrieval; tables beside the paper's (§5)."""
    from causalqa.deduction.bench import run_deduction_bench

    report = run_deduction_bench(
        data,
        kg=_load_kg(kg) if kg is not None else None,
        llm_spec=_spec(llm),
        conditions=[c for c in conditions.split(",") if c.strip()],
        folds=folds,
        limit=limit_reports,
        kg_reports_only=kg_reports_only,
        method=method,
        k=k,
        seed=seed,
        rotg_params={"epochs": epochs, "max_train": max_train, "seed": seed},
        rotg_aux_variants=[v.strip() for v in rotg_aux.split(",") if v.strip()],
        out_dir=out_dir,
        progress=not _json(json_),
        console=err,
        on_result=_fold_line,
    )
    if _json(json_):
        _emit({k_: v for k_, v in report.items() if k_ not in ("markdown", "predictions")})
    else:
        sys.stdout.write(report["markdown"] + "\n")  # unwrapped, pipeable Markdown
        err.print(f"[dim]written to {out_dir}/deduction-latest.{{json,md}}[/]")
