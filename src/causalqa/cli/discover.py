"""``causalqa discover pair|graph|train``: knowledge-based causal discovery (paper 001).

The commands parse and print; the work is `causalqa.discovery.pair.discover_pairs` and
`causalqa.discovery.graph.find_graph`, which the HTTP API and the MCP server call too."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from causalqa.cli.options import (
    EvidenceModelOption,
    JSONOption,
    KGStoreOption,
    LLMOption,
    NoLLMOption,
    SeedOption,
    SharedDataOption,
    consulted,
    emit,
    emit_json_if,
    err,
    open_kg,
    open_llm,
    open_stores,
    opened,
    out,
    progress,
    warn_deprecated,
    with_status,
)
from causalqa.errors import ConfigError

app = typer.Typer(
    help="Knowledge-based causal discovery: one pair, or a graph among variables.",
    no_args_is_help=True,
)
RankerOption = Annotated[
    str,
    typer.Option(
        "--ranker",
        help="Path ranker: none, random, similarity, llm, or a saved trained one "
        "(xgboost, rmse, ranknet, listnet).",
    ),
]
TopKOption = Annotated[int, typer.Option("--top-k", min=0, help="Paths put in the prompt.")]
HopsOption = Annotated[int, typer.Option("--hops", min=1, max=6, help="Maximum path length.")]
CalibrateOption = Annotated[
    bool | None,
    typer.Option(
        "--calibrate/--no-calibrate",
        help="Older spelling of --decision content-free / --decision argmax.",
        hidden=True,
    ),
]
PairDecisionOption = Annotated[
    str | None,
    typer.Option(
        "--decision",
        help="How the answer becomes a verdict: reference (log-odds above the model's mean "
        "on reference validation questions of the same prompt shape; causalqa bench "
        "discovery reference makes them for other models), content-free (contextual "
        "calibration) or argmax (the paper's rule).",
    ),
]
DecisionOption = Annotated[
    str,
    typer.Option(
        "--decision",
        help="How answers become edges: batch (default: log-odds above their mean over the run's "
        "questions with as many paths — label-free; the rule the validation split chose), "
        "content-free (contextual calibration) or argmax (the paper's rule).",
    ),
]
MethodOption = Annotated[
    str | None,
    typer.Option(
        "--method",
        help="evidence (default: a trained, calibrated model over KG paths, the sentence and "
        "the LLM's log-odds; three-way answer with the reasons) or llm (the paper's "
        "zero-shot prompt alone).",
    ),
]
PairStoreOption = Annotated[
    Path | None,
    typer.Option(
        "--kg",
        "--store",
        help="The one store to consult: a folder or bolt://HOST:7687 (default: every store "
        "loaded under $CAUSALQA_HOME/kg, e.g. Hetionet's default and causenet).",
    ),
]
BatchOption = Annotated[
    Path | None,
    typer.Option(
        "--batch",
        help="JSON Lines of pairs (fields a, b, optional context): one JSON line out per "
        "pair, in input order, everything loaded once.",
    ),
]


def _spelling(batch: bool):
    """The command's option names, for the hint of an unknown pair and of errors."""
    from causalqa.discovery.evidence import Spelling

    return Spelling(
        sentence='a "context" field on the line' if batch else "--context TEXT",
        kg="--kg DIR",
        llm="drop --no-llm",
        llm_model="causalqa discover train --with-llm, then --evidence-model DIR",
        kind="--kind-{which} {kind_sh}",
    )


def _check_ranker(name: str) -> None:
    from causalqa.discovery.rankers import RANKERS

    if name not in RANKERS:
        raise ConfigError(f"unknown ranker {name!r}", hint=f"use {', '.join(RANKERS)}")


def _kinds(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _names(variables: str | None, *, distinct: bool) -> list[str]:
    if not variables:
        raise ConfigError("give --variables a,b,c" + ("" if distinct else " (or --sachs)"))
    names = [v.strip() for v in variables.split(",") if v.strip()]
    if distinct and (len(names) < 2 or len(set(names)) != len(names)):
        raise ConfigError("--variables needs at least two distinct names")
    if len(names) < 2:
        raise ConfigError("--variables needs at least two names")
    return names


@app.command("pair")
def pair_command(
    a: Annotated[str | None, typer.Argument(help="The first variable.")] = None,
    b: Annotated[str | None, typer.Argument(help="The second variable.")] = None,
    context: Annotated[
        str | None,
        typer.Option("--context", help="A sentence that names both variables."),
    ] = None,
    method: MethodOption = None,
    no_llm: NoLLMOption = False,
    evidence_model: EvidenceModelOption = None,
    batch: BatchOption = None,
    kg_path: PairStoreOption = None,
    ranker: RankerOption = "similarity",
    top_k: TopKOption = 1,
    hops: HopsOption = 4,
    kind_a: Annotated[
        str | None, typer.Option("--kind-a", help="Node kinds for A (e.g. Compound).")
    ] = None,
    kind_b: Annotated[
        str | None, typer.Option("--kind-b", help="Node kinds for B (e.g. Disease).")
    ] = None,
    decision: PairDecisionOption = "reference",
    calibrate: CalibrateOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Does A cause B? The evidence method answers A→B, B→A or none with calibrated
    probabilities and says why — or unknown, saying what would decide it, when there is no
    sentence, no path between the two in the graph and no LLM feature; --method llm is the
    paper's prompt alone. Every loaded store is consulted (--store picks one): Hetionet by
    the trained model, CauseNet's cause → effect claims by a documented rule when there is
    no sentence."""
    from causalqa.discovery import pair

    method = method or pair.DEFAULT_METHOD
    if method not in pair.METHODS:
        raise ConfigError(f"unknown --method {method!r}", hint=f"use {', '.join(pair.METHODS)}")
    if batch is None and (a is None or b is None):
        raise ConfigError("give two variables A B (or --batch FILE)")
    if batch is not None and (a is not None or b is not None or context is not None):
        raise ConfigError("--batch reads its pairs from the file: give no A, B or --context")
    if batch is None:
        pair.check_names(a, b)
    items = pair.read_pairs(batch) if batch is not None else [pair.PairItem(a, b, context)]
    _check_ranker(ranker)
    if calibrate is not None:
        warn_deprecated("--decision content-free (or --decision argmax)")
        decision = "content-free" if calibrate else "argmax"
    if method == "llm" and decision not in pair.DECISIONS:
        hint = f"use {', '.join(pair.DECISIONS)}"
        raise ConfigError(f"unknown --decision {decision!r}", hint=hint)
    judge = None
    if method == "evidence":
        from causalqa.discovery.evidence import EvidenceJudge

        judge = EvidenceJudge.load(evidence_model)
    stores = pair.pair_kg(lambda: open_stores(kg_path), need=pair.needs_kg(method, items))
    kg, general = consulted(stores)
    try:
        model = open_llm(llm) if pair.needs_llm(method, judge, no_llm=no_llm) else None
        results = pair.discover_pairs(
            items, method=method, kg=kg, llm=model, judge=judge, no_llm=no_llm, ranker=ranker,
            top_k=top_k, hops=hops, kinds_a=_kinds(kind_a), kinds_b=_kinds(kind_b),
            decision=decision, capture_errors=batch is not None,
            spelling=_spelling(batch is not None), general=general,
        )  # fmt: skip
        for result in with_status(results, [f"{x.a} – {x.b} …" for x in items]):
            if batch is not None:  # a JSON line per pair as soon as it is judged
                sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False, default=str))
                sys.stdout.write("\n")
                sys.stdout.flush()
            elif not emit_json_if(json_, result.to_dict()):
                _print_verdict(result)
    finally:
        for store in opened(kg, general):
            store.close()


def _print_verdict(v) -> None:
    """`to_text()` of either method's verdict, its first word in the verdict's colour
    (green causal, yellow not, magenta unknown)."""
    head, *rest = v.to_text()
    line = Text(head)
    colour = "magenta" if v.causal is None else "green" if v.causal else "yellow"
    line.stylize(f"bold {colour}", 0, head.index(" "))
    out.print(line, highlight=False)
    for text in rest:
        out.print(text, markup=False, highlight=False)


@app.command("train")
def train_command(
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="finetune (MiniLM trained end to end, ~90 MB per fold model, kept in the "
            "cache) or frozen (MiniLM as shipped and a small head).",
        ),
    ] = "finetune",
    kg_path: KGStoreOption = None,
    data: SharedDataOption = None,
    with_llm: Annotated[
        bool,
        typer.Option(
            "--with-llm/--no-llm",
            help="Also compute the LLM feature for the training pairs (slow: one prompt per "
            "pair; resumable).",
        ),
    ] = False,
    llm_cached: Annotated[
        bool,
        typer.Option(
            "--llm-cached",
            help="Use the LLM feature only where the work folder already has it (no LLM call).",
        ),
    ] = False,
    folds: Annotated[int, typer.Option("--folds", min=2, max=10, help="Cross-fitting folds.")] = 3,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Where the model goes (default: the cache, used by discover pair)."
        ),
    ] = None,
    work: Annotated[
        Path | None,
        typer.Option("--work", help="Where intermediate results are kept for reruns."),
    ] = None,
    threads: Annotated[int, typer.Option("--threads", min=1, help="torch threads.")] = 1,
    seed: SeedOption = 0,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Train the evidence model of discover pair (text classifier, KG and LLM features,
    calibrated combiners); every slow step is cached, so a rerun resumes."""
    from causalqa.discovery.training import train_evidence

    if mode not in ("finetune", "frozen"):
        raise ConfigError(f"unknown --mode {mode!r}", hint="use finetune or frozen")
    kg = open_kg(kg_path)
    try:
        model = open_llm(llm, cache=True) if with_llm or llm_cached else None
        with progress() as bar:
            tasks: dict[str, Any] = {}

            def step(what: str, done: int, total: int) -> None:
                if what not in tasks:
                    tasks[what] = bar.add_task(what, total=max(total, 1))
                bar.update(tasks[what], completed=done, total=max(total, 1))

            judge, record = train_evidence(
                data_dir=data,
                kg=kg,
                llm=model,
                mode=mode,
                work=work,
                out=out_dir,
                folds=folds,
                seed=seed,
                threads=threads,
                command="causalqa " + " ".join(sys.argv[1:]),
                llm_compute=not llm_cached,
                on_progress=step,
            )
    finally:
        kg.close()
    summary = {
        "out": str(getattr(judge, "folder", out_dir) or ""),
        "text_model": record.text_model,
        "variants": list(judge.combiners),
        "thresholds": {k: round(v, 4) for k, v in judge.thresholds.items()},
        "seconds": record.info.get("seconds"),
        "rows": record.info.get("rows"),
    }
    if emit_json_if(json_, summary):
        return
    out.print(
        f"trained the evidence model ({record.text_model}) in {summary['seconds']} s; "
        f"variants: {', '.join(summary['variants'])}",
        highlight=False,
    )


@app.command("graph")
def graph_command(
    variables: Annotated[
        str | None,
        typer.Option("--variables", help="Comma-separated variable names (graph node names)."),
    ] = None,
    kg_path: KGStoreOption = None,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="CSV of observations whose columns are the variables: also run PC, "
            "ExactSearch and DirectLiNGAM on it.",
        ),
    ] = None,
    sachs: Annotated[bool, typer.Option("--sachs", hidden=True)] = False,
    context: Annotated[
        str | None, typer.Option("--context", help="Textual context for every pair.")
    ] = None,
    ranker: RankerOption = "similarity",
    top_k: TopKOption = 1,
    hops: HopsOption = 4,
    truth: Annotated[str, typer.Option("--truth", hidden=True)] = "cdt",
    decision: DecisionOption = None,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="llm (every ordered pair asked with the paper's prompt) or evidence (every "
            "pair judged by the evidence model; with --data, knowledge-guided PC: confident "
            "verdicts as background knowledge, evidence-ranked orientation).",
        ),
    ] = "llm",
    no_llm: NoLLMOption = False,
    evidence_model: EvidenceModelOption = None,
    alpha: Annotated[float, typer.Option("--alpha", help="PC's test level.")] = 0.05,
    require: Annotated[
        float, typer.Option("--require", help="Evidence: required edge when P(a→b) ≥ this.")
    ] = 0.9,
    forbid: Annotated[
        float, typer.Option("--forbid", help="Evidence: forbidden pair when P(causal) ≤ this.")
    ] = 0.05,
    llm: LLMOption = None,
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write the discovered graph to this GraphML file (.graphml), which "
            "causalqa ask --graph reads.",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --out.")] = False,
    json_: JSONOption = False,
) -> None:
    """A directed graph among variables: every ordered pair asked (n(n-1) LLM calls), or
    with --method evidence the evidence model's verdicts and knowledge-guided PC."""
    from causalqa.discovery.graph import DECISIONS, GRAPH_METHODS, check_graph_out, find_graph
    from causalqa.discovery.pair import needs_llm, pair_kg

    if method not in GRAPH_METHODS:
        raise ConfigError(f"unknown --method {method!r}", hint="use llm or evidence")
    if out_path is not None and not sachs:
        check_graph_out(out_path, force)
    if method == "llm":
        _check_ranker(ranker)
        if decision is not None and decision not in DECISIONS:
            raise ConfigError(
                f"unknown --decision {decision!r}", hint=f"use {', '.join(DECISIONS)}"
            )
        if sachs:  # a benchmark, which lives under `causalqa bench`
            from causalqa.cli.bench import sachs_kg

            warn_deprecated(f"causalqa bench discovery sachs --ours none,{ranker}")
            out_dir = out_path or Path("bench/results/discovery")
            return sachs_kg(kg_path, ranker, top_k, context, truth, llm, out_dir, json_, decision)
    names = _names(variables, distinct=method == "evidence")
    frame = None
    if data is not None:
        from causalqa.discovery.statistical import read_observations

        frame = read_observations(data, names)
    judge = None
    if method == "evidence":
        from causalqa.discovery.evidence import EvidenceJudge

        judge = EvidenceJudge.load(evidence_model)
        kg, general = consulted(pair_kg(lambda: open_stores(kg_path), need=context is None))
    else:
        kg = open_kg(kg_path) if ranker != "none" else None
        general = []
    try:
        model = open_llm(llm) if needs_llm(method, judge, no_llm=no_llm) else None
        what = "graph" if method == "llm" else "pairs"
        with err.status(f"{what} …") as status:
            found = find_graph(
                names, method=method, kg=kg, llm=model, judge=judge, context=context,
                ranker=ranker, top_k=top_k, hops=hops, decision=decision, observations=frame,
                alpha=alpha, require=require, forbid=forbid, general=general,
                on_progress=lambda d, t, w: status.update(f"{what} {d}/{t}: {w}"),
            )  # fmt: skip
    finally:
        for store in opened(kg, general):
            store.close()
    if out_path is not None:
        found.write_graphml(out_path, force=force)
    emit(found.to_dict(), found.to_markdown(), json_)
