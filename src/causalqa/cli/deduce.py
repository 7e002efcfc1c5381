"""``causalqa deduce`` (is a statement a probable cause of an accident?) and the
``causalqa deduction`` group: build the data set, train the verifier, describe or re-parse
a mined causal KG. ``deduce`` parses and prints; the verdicts are
`causalqa.deduction.deduce.deduce_items`, which the HTTP API and the MCP server call too."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from causalqa.cli.options import (
    CausalKGOption,
    ConcurrencyOption,
    DeductionDataOption,
    JSONOption,
    LLMOption,
    NoLLMOption,
    SeedOption,
    SharedDataOption,
    SimilarityOption,
    as_json,
    concurrency,
    emit_json_if,
    err,
    open_llm,
    out,
)
from causalqa.errors import DatasetError

app = typer.Typer(
    help="Causal deduction (paper 002): verify probable causes, mine causal KGs.",
    no_args_is_help=True,
)


# -- causalqa deduce -----------------------------------------------------------------------
def deduce_command(
    context: Annotated[
        str | None,
        typer.Option("--context", "-c", help="The accident report: a text file or text."),
    ] = None,
    statement: Annotated[
        str | None, typer.Option("--statement", "-s", help="The candidate probable cause.")
    ] = None,
    batch: Annotated[
        Path | None,
        typer.Option(
            "--batch",
            help="JSONL of {context, statement} items: one JSON line per item, in order.",
        ),
    ] = None,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="verifier (trained on evidence; default), or the paper's prompt-only "
            "logprobs, text or both.",
        ),
    ] = "verifier",
    verifier_path: Annotated[
        Path | None,
        typer.Option("--verifier", help="A verifier file (causalqa deduction train)."),
    ] = None,
    no_llm: NoLLMOption = False,
    retriever: Annotated[
        str,
        typer.Option(
            "--retriever",
            "-r",
            help="none, semantic or rotg (need --kg; rotg a model trained into it).",
        ),
    ] = "none",
    kg: CausalKGOption = None,
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help="Prompt format V1–V9 (default V1, V6 if retrieving)."),
    ] = None,
    k: Annotated[int, typer.Option("-k", min=1, help="Nearest KG nodes to retrieve.")] = 3,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Is STATEMENT a probable cause of the accident in CONTEXT? Verdict, P(True), evidence."""
    from causalqa.deduction.deduce import (
        METHODS,
        check_pair,
        deduce_items,
        load_event_graph,
        read_batch,
        read_context,
    )

    if method not in METHODS:
        raise DatasetError(f"unknown --method {method!r}", hint=f"use {', '.join(METHODS)}")
    if batch is not None:
        if context is not None or statement is not None:
            raise DatasetError("give either --batch or --context/--statement, not both")
        items = read_batch(batch)
    else:
        if context is None or statement is None:
            raise DatasetError(
                "--context and --statement are needed (or --batch FILE)",
                hint="causalqa deduce -c report.txt -s 'The pilot's failure to ...'",
            )
        items = [check_pair(read_context(context), statement)]
    retrieving = retriever.strip().lower() != "none"
    if method == "verifier" and (retrieving or fmt is not None):
        raise DatasetError(
            "--retriever and --format choose the prompt of the paper's prompt-only methods; "
            "the verifier reads the KG's chains itself (give --kg)",
            hint="add --method logprobs (or text, both) to prompt with retrieved chains",
        )
    graph = load_event_graph(kg) if kg is not None else None
    verifier, found, model = None, None, None
    if method == "verifier":
        from causalqa.deduction.verifier import load_verifier

        verifier = load_verifier(verifier_path)
        if verifier.llm_features and not no_llm:
            model = open_llm(llm, quiet=as_json(json_))
    else:
        if retrieving:
            found = _retriever(retriever, graph)
        model = open_llm(llm, quiet=as_json(json_))
    results = deduce_items(
        items, method=method, verifier=verifier, llm=model, kg=graph, retriever=found,
        fmt=fmt, k=k,
    )  # fmt: skip
    if batch is not None:
        for r in results:
            sys.stdout.write(json.dumps(r.model_dump(), ensure_ascii=False, default=str) + "\n")
        return
    if not emit_json_if(json_, results[0].model_dump()):
        _print_human(results[0])


def _retriever(name: str, graph):
    from causalqa.deduction.retrieve import get_retriever

    if graph is None:
        raise DatasetError(
            f"the {name} retriever needs a causal KG",
            hint="pass --kg DIR (mine one with `causalqa kg mine REPORTS --out DIR`)",
        )
    return get_retriever(name).fit(graph)


def _print_human(result) -> None:
    prob = f" · P(True) = {result.probability:.2f}" if result.probability is not None else ""
    if result.threshold is not None:
        prob += f" (threshold {result.threshold:.2f})"
    colour = "green" if result.verdict else "red"
    out.print(f"[bold {colour}]{result.label}[/]{prob}", highlight=False)
    if result.reply is not None:
        out.print(f"[dim]reply:[/] {escape(result.reply.strip())}", highlight=False)
    if result.evidence:
        table = Table("cosine", "passage", title="closest passages of the report")
        for e in result.evidence:
            table.add_row(f"{e['cosine']:.2f}", escape(e["passage"]))
        out.print(table)
    if result.contributions:
        table = Table("feature", "value", "→ log-odds", "what it measures", title="evidence")
        for c in result.contributions:
            table.add_row(
                c["feature"], f"{c['value']:.3g}", f"{c['contribution']:+.2f}", c["description"]
            )
        out.print(table)
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
        f"[dim]{result.method} · {result.fmt} · retriever {result.retriever} · {result.model} · "
        f"{result.usage.get('prompt_tokens', 0)} prompt + "
        f"{result.usage.get('completion_tokens', 0)} completion tokens · "
        f"{result.seconds:.2f} s[/]",
        soft_wrap=True,
    )


# -- causalqa deduction stats | reparse ----------------------------------------------------
@app.command("stats")
def stats_command(
    kg: Annotated[Path, typer.Argument(help="A causal KG directory.")],
    json_: JSONOption = False,
) -> None:
    """Statistics of a causal KG (§4.1): nodes, edges by type, mining time per report."""
    from causalqa.deduction.event_graph import CausalKG

    stats = CausalKG.load(kg).stats()
    if not emit_json_if(json_, stats):
        print_stats(stats, kg)


@app.command("reparse")
def reparse_command(
    kg: Annotated[Path, typer.Argument(help="A causal KG directory.")],
    threshold: SimilarityOption = 0.7,
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
    if emit_json_if(json_, {"before": before, "after": stats}):
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
    data: SharedDataOption = None,
    max_words: Annotated[int, typer.Option("--max-words", help="Longest context kept.")] = 2000,
    true_from: Annotated[
        str, typer.Option("--true-from", help="rules, or llm (Prompt 1).")
    ] = "rules",
    llm_negatives: Annotated[
        bool,
        typer.Option(
            "--llm-negatives",
            help="Add Prompt 2 False statements (slow; resumable: every reply is kept in "
            "--negatives-store).",
        ),
    ] = False,
    store: Annotated[
        Path | None,
        typer.Option(
            "--negatives-store",
            help="Where Prompt 2 replies are kept (default: OUT with .negatives.jsonl).",
        ),
    ] = None,
    stored_only: Annotated[
        bool,
        typer.Option(
            "--stored-only",
            help="Use only the Prompt 2 replies already stored; never call the LLM.",
        ),
    ] = False,
    limit_reports: Annotated[
        int | None,
        typer.Option(
            "--limit-reports",
            min=1,
            help="Ask Prompt 2 for at most this many more reports (seeded order).",
        ),
    ] = None,
    hard: Annotated[
        int | None,
        typer.Option(
            "--hard-negatives",
            help="Add, for each report, the probable causes of its K most similar other "
            "reports (TF-IDF of the contexts) as False statements (source false-hard; no "
            "LLM call).",
        ),
    ] = None,
    views: Annotated[
        bool,
        typer.Option(
            "--narrative-views",
            help="Also read each narrative's statements against its analysis alone and its "
            "first four sentences (shorter tellings; same report id).",
        ),
    ] = False,
    seed: SeedOption = 0,
    concurrency_: ConcurrencyOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Build the deduction data set from the shared NTSB files (rules; LLM optional)."""
    from causalqa.deduction.dataset import (
        Report,
        build_dataset,
        load_ntsb,
        narrative_views,
        sample_report_ids,
        save_jsonl,
        summary,
    )
    from causalqa.deduction.hard_negatives import check_k, with_hard_negatives
    from causalqa.deduction.negatives import mine_negatives, with_llm_negatives

    if true_from not in ("rules", "llm"):
        raise DatasetError(f"unknown --true-from {true_from!r}", hint="use rules or llm")
    if hard is not None:
        check_k(hard)
    reports = load_ntsb(data, max_words=max_words)
    model = None
    if true_from == "llm" or (llm_negatives and not stored_only):
        model = open_llm(llm, quiet=as_json(json_))
    examples = build_dataset(
        reports,
        llm=model,
        true_from=true_from,  # type: ignore[arg-type]
        seed=seed,
        progress=not as_json(json_),
        concurrency=concurrency(concurrency_, llm),
    )
    run: dict[str, Any] = {}
    if llm_negatives:
        store = store or out_file.with_name(out_file.stem + ".negatives.jsonl")
        truths: dict[str, list[str]] = {}
        ctx: dict[str, str] = {}
        for e in examples:
            ctx.setdefault(e.report_id, e.context)
            if e.label:
                truths.setdefault(e.report_id, []).append(e.statement)
        if not stored_only:
            order = sample_report_ids(ctx, len(ctx) - 1, seed) if len(ctx) > 1 else list(ctx)
            order += [r for r in ctx if r not in set(order)]
            todo = [(Report(report_id=r, context=ctx[r]), truths.get(r, [])) for r in order]
            if limit_reports is not None:
                from causalqa.deduction.negatives import load_store

                done = load_store(store)
                todo = [t for t in todo if t[0].report_id not in done][:limit_reports]
            run = mine_negatives(
                todo,
                model,
                store,
                seed=seed,
                progress=not as_json(json_),
                concurrency=concurrency(concurrency_, llm),
            )
        examples = with_llm_negatives(examples, store)
    if hard is not None:
        examples = with_hard_negatives(examples, hard)
    if views:
        examples = narrative_views(examples)
    save_jsonl(examples, out_file)
    s = summary(examples)
    if not emit_json_if(json_, {"out": str(out_file), **s, **({"negatives": run} if run else {})}):
        out.print(
            f"{s['reports']} reports, {s['statements']} statements ({s['true']} True, "
            f"{s['false']} False, {s['true_pct']}% True; {s['by_source']}) → {out_file}"
        )
        if run:
            err.print(f"[dim]Prompt 2: {run}[/]")


# -- causalqa deduction train --------------------------------------------------------------
@app.command("train")
def train_command(
    data: DeductionDataOption,
    out_file: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Verifier file (default: the user's cache folder)."),
    ] = None,
    cross_encoder: Annotated[
        bool,
        typer.Option("--cross-encoder/--no-cross-encoder", help="Fine-tune the cross-encoder."),
    ] = True,
    kg: CausalKGOption = None,
    hard: Annotated[
        int,
        typer.Option(
            "--hard-negatives",
            min=0,
            help="Also train on the causes of each report's K most similar other reports "
            "as False statements (0: none).",
        ),
    ] = 0,
    hard_kinds: Annotated[
        str,
        typer.Option(
            "--hard-kinds",
            help="For which kinds of report the hard negatives are built: coded, narrative, "
            "or both (comma-separated).",
        ),
    ] = "coded,narrative",
    seed: SeedOption = 0,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    json_: JSONOption = False,
) -> None:
    """Train the evidence verifier on a data set and save it (with its manifest); with
    --kg, also on the chain features of that mined causal KG."""
    import hashlib

    from causalqa.deduction.dataset import load_jsonl, summary
    from causalqa.deduction.deduce import load_event_graph
    from causalqa.deduction.verifier import INPUT_KINDS, Verifier, user_verifier_path

    kinds = tuple(k.strip() for k in hard_kinds.split(",") if k.strip())
    if not kinds or set(kinds) - set(INPUT_KINDS):
        raise DatasetError(
            f"unknown --hard-kinds {hard_kinds!r}", hint="use coded, narrative or both"
        )
    target = out_file or user_verifier_path()
    if target.exists() and not force and out_file is not None:
        raise DatasetError(
            f"{target} exists", hint="pass --force to overwrite it, or another --out"
        )
    examples = load_jsonl(data)
    graph = load_event_graph(kg) if kg is not None else None
    with progress_status(not as_json(json_)) as say:
        v = Verifier(
            cross_encoder=cross_encoder, seed=seed, hard_negatives=hard, hard_kinds=kinds
        ).fit(examples, kg=graph, progress=say)
    info = {
        "command": "causalqa deduction train "
        + " ".join(sys.argv[3:] if len(sys.argv) > 3 else []),
        "data": str(data),
        "data_sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
        "summary": summary(examples),
        "kg": str(kg) if kg else None,
    }
    v.save(target, info=info)
    result = {
        "out": str(target),
        "bytes": target.stat().st_size,
        "threshold": v.threshold_,
        "features": v.feature_names_,
    }
    if not emit_json_if(json_, result):
        out.print(
            f"verifier → {target} ({result['bytes'] / 1e6:.1f} MB, {len(v.feature_names_)} "
            f"features, threshold {v.threshold_:.3f})"
        )


class progress_status:
    """A spinner on stderr naming the current step (or nothing)."""

    def __init__(self, show: bool) -> None:
        self.show = show

    def __enter__(self):
        if not self.show:
            return lambda _t: None
        self._status = err.status("training")
        self._status.__enter__()
        return lambda t: self._status.update(f"training: {t}")

    def __exit__(self, *exc):
        if self.show:
            self._status.__exit__(*exc)
        return False
