"""``causalqa deduce`` (is a statement a probable cause of an accident?) and the
``causalqa deduction`` group: build the data set, describe or re-parse a mined causal KG."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from causalqa.cli.options import JSONOption, LLMOption, as_json, emit_json, err, open_llm, out
from causalqa.errors import DatasetError

app = typer.Typer(
    help="Causal deduction (paper 002): verify probable causes, mine causal KGs.",
    no_args_is_help=True,
)


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

    text = check_text(read_context(context), what="context")
    check_text(statement, what="statement", min_words=1)
    graph = load_event_graph(kg) if kg is not None else None
    r = None
    if retriever.strip().lower() != "none":
        if graph is None:
            raise DatasetError(
                f"the {retriever} retriever needs a causal KG",
                hint="pass --kg DIR (mine one with `causalqa kg mine REPORTS --out DIR`)",
            )
        r = get_retriever(retriever).fit(graph)
    model = open_llm(llm, quiet=as_json(json_))
    result = deduce(text, statement, model, r, fmt, method=method, k=k, kg=graph)  # type: ignore[arg-type]
    if as_json(json_):
        emit_json(result.model_dump())
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


def load_event_graph(path: Path):
    """A mined causal KG that has nodes (`DatasetError` otherwise)."""
    from causalqa.deduction.event_graph import CausalKG

    kg = CausalKG.load(path)
    if not kg.nodes:
        raise DatasetError(f"the causal KG at {path} is empty", hint="mine some reports first")
    return kg


# -- causalqa kg mine ----------------------------------------------------------------------
@app.command("stats")
def stats_command(
    kg: Annotated[Path, typer.Argument(help="A causal KG directory.")],
    json_: JSONOption = False,
) -> None:
    """Statistics of a causal KG (§4.1): nodes, edges by type, mining time per report."""
    from causalqa.deduction.event_graph import CausalKG

    stats = CausalKG.load(kg).stats()
    if as_json(json_):
        emit_json(stats)
    else:
        print_stats(stats, kg)


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
    from causalqa.deduction.event_graph import CausalKG

    graph = CausalKG.load(kg)
    before = graph.stats()
    graph.reparse()
    graph.link_similar(threshold=threshold)
    graph.save()
    stats = graph.stats()
    if as_json(json_):
        emit_json({"before": before, "after": stats})
        return
    print_stats(stats, kg)
    err.print(
        f"[dim]chains {sum(before['chains_by_kind'].values())} → "
        f"{sum(stats['chains_by_kind'].values())}, nodes {before['nodes']} → {stats['nodes']}[/]"
    )


def print_stats(stats: dict[str, Any], path: Path) -> None:
    """A mined causal KG's statistics as a table (§4.1)."""
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
        model = open_llm(llm, quiet=as_json(json_))
    examples = build_dataset(
        reports,
        llm=model,
        true_from=true_from,  # type: ignore[arg-type]
        with_llm_negatives=llm_negatives,
        seed=seed,
        progress=not as_json(json_),
    )
    save_jsonl(examples, out_file)
    s = summary(examples)
    if as_json(json_):
        emit_json({"out": str(out_file), **s})
    else:
        out.print(
            f"{s['reports']} reports, {s['statements']} statements ({s['true']} True, "
            f"{s['false']} False, {s['true_pct']}% True; {s['by_source']}) → {out_file}"
        )
