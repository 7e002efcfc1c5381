"""``causalqa discover pair|graph``: knowledge-based causal discovery (paper 001)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from causalqa.cli.options import (
    JSONOption,
    LLMOption,
    as_json,
    emit_json,
    err,
    open_kg,
    open_llm,
    out,
    write_and_emit,
)
from causalqa.errors import CausalQAError, ConfigError, DiscoveryError

app = typer.Typer(
    help="Knowledge-based causal discovery: one pair, or a graph among variables.",
    no_args_is_help=True,
)
KGOption = Annotated[
    Path | None,
    typer.Option("--kg", help="Knowledge graph store folder (default: $CAUSALQA_HOME/kg/default)."),
]
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


def _check_ranker(name: str) -> None:
    from causalqa.discovery.rankers import RANKERS

    if name not in RANKERS:
        raise ConfigError(f"unknown ranker {name!r}", hint=f"use {', '.join(RANKERS)}")


def _kinds(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


CalibrateOption = Annotated[
    bool | None,
    typer.Option(
        "--calibrate/--no-calibrate",
        help="Older spelling of --decision content-free / --decision argmax.",
        hidden=True,
    ),
]
PairDecisionOption = Annotated[
    str,
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
        help="How answers become edges: batch (log-odds above their mean over the run's "
        "questions with as many paths — label-free; the rule the validation split chose), "
        "content-free (contextual calibration) or argmax (the paper's rule).",
    ),
]


@app.command("pair")
def pair_command(
    a: Annotated[str, typer.Argument(help="The first variable (a name in the graph).")],
    b: Annotated[str, typer.Argument(help="The second variable.")],
    context: Annotated[
        str | None, typer.Option("--context", help="Textual context for the pair.")
    ] = None,
    kg_path: KGOption = None,
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
    """Is there a causal relation between A and B? Verdict, probability, paths used."""
    from causalqa.discovery.pair import DECISIONS, discover_pair

    _check_ranker(ranker)
    if calibrate is not None:
        decision = "content-free" if calibrate else "argmax"
    if decision not in DECISIONS:
        raise ConfigError(f"unknown --decision {decision!r}", hint=f"use {', '.join(DECISIONS)}")
    kg = open_kg(kg_path)
    try:
        model = open_llm(llm)
        with err.status(f"{a} – {b} …"):
            verdict = discover_pair(
                a,
                b,
                kg=kg,
                llm=model,
                ranker=ranker,
                top_k=top_k,
                context=context,
                k=hops,
                kinds_a=_kinds(kind_a),
                kinds_b=_kinds(kind_b),
                decision=decision,
            )
    finally:
        kg.close()
    if as_json(json_):
        emit_json(verdict.to_dict())
        return
    colour = "green" if verdict.causal else "yellow"
    out.print(
        f"[bold {colour}]{verdict.verdict}[/] {escape(a)} – {escape(b)}  "
        f"P(causal) = {verdict.probability:.3f}  [dim]({escape(verdict.model)}, "
        f"ranker {verdict.ranker}, {verdict.candidates} paths found, "
        f"{verdict.decision} verdict)[/]"
    )
    for p in verdict.paths:
        out.print(f"  path: {escape(p)}", highlight=False)
    for n in verdict.notes:
        out.print(f"  [dim]note: {escape(n)}[/]", highlight=False)


@app.command("graph")
def graph_command(
    variables: Annotated[
        str | None,
        typer.Option("--variables", help="Comma-separated variable names (graph node names)."),
    ] = None,
    kg_path: KGOption = None,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="CSV of observations whose columns are the variables: also run PC, "
            "ExactSearch and DirectLiNGAM on it.",
        ),
    ] = None,
    sachs: Annotated[
        bool,
        typer.Option(
            "--sachs",
            help="The SACHS experiment (Table 3): ours (no-subgraph and --ranker) beside "
            "PC, ExactSearch and DirectLiNGAM, scored against the reference graph.",
        ),
    ] = False,
    context: Annotated[
        str | None, typer.Option("--context", help="Textual context for every pair.")
    ] = None,
    ranker: RankerOption = "similarity",
    top_k: TopKOption = 1,
    hops: HopsOption = 4,
    truth: Annotated[str, typer.Option("--truth", help="SACHS reference: cdt or bnlearn.")] = (
        "cdt"
    ),
    decision: DecisionOption = "batch",
    llm: LLMOption = None,
    out_dir: Annotated[
        Path, typer.Option("--out", help="Where --sachs writes JSON and Markdown.")
    ] = Path("bench/results/discovery"),
    json_: JSONOption = False,
) -> None:
    """A directed graph among variables: every ordered pair asked (n(n-1) LLM calls)."""
    _check_ranker(ranker)
    from causalqa.discovery.graph import DECISIONS

    if decision not in DECISIONS:
        raise ConfigError(f"unknown --decision {decision!r}", hint=f"use {', '.join(DECISIONS)}")
    calibrate = decision == "content-free"
    if sachs:
        return _sachs(kg_path, ranker, top_k, context, truth, llm, out_dir, json_, decision)
    if not variables:
        raise ConfigError("give --variables a,b,c (or --sachs)")
    names = [v.strip() for v in variables.split(",") if v.strip()]
    if len(names) < 2:
        raise ConfigError("--variables needs at least two names")
    frame = None
    if data is not None:
        frame = _read_data(data, names)
    kg = open_kg(kg_path) if ranker != "none" else None
    try:
        model = open_llm(llm)
        from causalqa.discovery.graph import discover_graph

        with err.status("graph …") as status:
            g = discover_graph(
                names,
                kg=kg,
                llm=model,
                ranker=ranker,
                top_k=top_k,
                context=context,
                k=hops,
                on_progress=lambda d, t, w: status.update(f"graph {d}/{t}: {w}"),
                calibrate=calibrate,
                decision=decision,
            )
    finally:
        if kg is not None:
            kg.close()
    report: dict[str, Any] = {"model": getattr(model, "model", ""), **g.to_dict()}
    md = g.to_markdown()
    if frame is not None:
        report["statistical"] = _baselines(frame)
        md += "\n\nStatistical baselines on the data:\n\n" + "\n".join(
            f"- {r['method']}: " + (r.get("error") or ", ".join(f"{a}→{b}" for a, b in r["edges"]))
            for r in report["statistical"]
        )
    if as_json(json_):
        emit_json(report)
    else:
        out.print(md, markup=False, highlight=False, soft_wrap=True)


def _read_data(path: Path, names: list[str]):
    import pandas as pd

    try:
        frame = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise DiscoveryError(f"{path}: not a readable CSV: {e}") from None
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise DiscoveryError(
            f"{path}: no column for {', '.join(missing)}",
            hint="columns are: " + ", ".join(map(str, frame.columns)),
        )
    frame = frame[names]
    if frame.empty or not all(pd.api.types.is_numeric_dtype(frame[c]) for c in names):
        raise DiscoveryError(f"{path}: the variables' columns must be numeric and non-empty")
    return frame


def _baselines(frame) -> list[dict[str, Any]]:
    from causalqa.discovery.statistical import BASELINES, LABELS, run_baseline

    rows = []
    for m in BASELINES:
        try:
            res = run_baseline(m, frame)
        except CausalQAError as e:
            rows.append({"method": LABELS[m], "error": e.message})
            continue
        edges = [(res.names[i], res.names[j]) for i, j in zip(*res.adjacency.nonzero())]
        rows.append({"method": LABELS[m], "edges": edges, "adjacency": res.adjacency.tolist()})
    return rows


def _sachs(kg_path, ranker, top_k, context, truth, llm, out_dir, json_, decision="batch") -> None:
    from causalqa.bench.discovery_sachs import SACHS_CONTEXT, run_sachs, sachs_report

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
