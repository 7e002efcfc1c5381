"""``causalqa fit`` (a causal model from data), ``ask`` and ``chat`` (questions about it)."""

from __future__ import annotations

import contextlib
import sys
import time
import warnings
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from causalqa.cli.options import (
    JSONOption,
    LLMOption,
    SeedOption,
    as_json,
    emit_json,
    emit_json_if,
    err,
    open_llm,
    out,
)
from causalqa.cli.stated import BatchOption, StoryOption, ask_stated
from causalqa.errors import ConfigError


def fit_command(
    data: Annotated[Path, typer.Argument(help="CSV of observations: one row per subject.")],
    treatment: Annotated[
        list[str], typer.Option("--treatment", "-t", help="A binary treatment column (repeat).")
    ],
    outcome: Annotated[str, typer.Option("--outcome", "-y", help="The outcome column.")],
    graph: Annotated[
        Path | None, typer.Option("--graph", help="A known causal graph (skips discovery).")
    ] = None,
    subject_column: Annotated[
        str | None, typer.Option("--subject-column", help="Column of subject ids.")
    ] = None,
    filters: Annotated[
        list[str], typer.Option("--filter", help="A yes/no column to keep as a filter (repeat).")
    ] = [],  # noqa: B006
    method: Annotated[str, typer.Option("--method", help="Discovery: pc or ges.")] = "pc",
    learner: Annotated[str, typer.Option("--learner", help="Meta-learner: t or x.")] = "t",
    seed: SeedOption = 0,
    out_dir: Annotated[
        Path, typer.Option("--out", help="Directory for graph.graphml and effects.csv.")
    ] = Path("model"),
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace files already in --out.")
    ] = False,
    json_: JSONOption = False,
) -> None:
    """Fit a causal model from DATA: discover the graph, estimate each row's treatment effects."""
    from causalqa.causal_model import fit_causal_model

    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = fit_causal_model(
            data,
            treatments=treatment,
            outcome=outcome,
            graph=graph,
            method=method,
            learner=learner,
            subject_column=subject_column,
            filters=filters,
            seed=seed,
        )
    for w in caught:
        if "causalqa" not in w.filename:  # our own findings, not libraries' deprecations
            continue
        err.print(f"[yellow]warning:[/] {escape(str(w.message))}", highlight=False, soft_wrap=True)
    written = model.save(out_dir, overwrite=overwrite)
    summary = {
        "variables": len(model.variables),
        "edges": model.graph.number_of_edges(),
        "treatments": model.treatments,
        "subjects": len(model.subjects),
        "ate": {t: round(float(model.effects[t].mean()), 4) for t in model.treatments},
        "files": [str(p) for p in written],
        "seconds": round(time.perf_counter() - start, 2),
    }
    if emit_json_if(json_, summary):
        return
    out.print(
        f"fitted {summary['variables']} variables, {summary['edges']} edges, "
        f"{summary['subjects']} subjects in {summary['seconds']} s"
    )
    for t, v in summary["ate"].items():
        out.print(f"  ATE of {t!r} on {outcome!r}: {v}", highlight=False)
    for f in summary["files"]:
        out.print(f"  wrote {f}", highlight=False)


GraphOption = Annotated[
    Path, typer.Option("--graph", help="Causal graph: GraphML, DOT, edge-list CSV or JSON.")
]
EffectsOption = Annotated[
    Path | None, typer.Option("--effects", help="Effects table: CSV or Parquet (subject id first).")
]
ModeOption = Annotated[
    str, typer.Option("--mode", help="tool (typed API) or context (the paper's baseline).")
]
OutcomeOption = Annotated[
    str | None,
    typer.Option(
        "--outcome",
        help="The graph variable the effects are on (causalqa fit records it in the GraphML).",
    ),
]


def _assistant(
    graph: Path,
    effects: Path | None,
    llm: str | None,
    mode: str,
    examples: str,
    verbaliser: str,
    outcome: str | None = None,
    *,
    preload: bool = True,
):
    if mode not in ("tool", "context"):
        raise ConfigError(f"unknown mode {mode!r}", hint="use --mode tool or --mode context")
    model_llm = open_llm(llm)
    # The model loads in a thread while the engine is imported and the causal model read;
    # without `preload` it loads on first use, and a question the typed frames answer (most
    # of one-off `ask`s in tool mode) never pays for reading the weights.
    loading = model_llm.load_in_background() if preload else None
    from causalqa.causal_model import CausalModel
    from causalqa.qa.assistant import Assistant

    try:
        model = CausalModel.load(graph, effects, outcome=outcome)
    except BaseException:
        if loading is not None:
            with contextlib.suppress(Exception):
                loading.result()  # let llama.cpp finish before the error ends the process
        raise
    if loading is not None:
        loading.result()
    return Assistant(model, model_llm, mode=mode, examples=examples, verbaliser=verbaliser)


ExplainOption = Annotated[
    bool,
    typer.Option(
        "--explain",
        help="Also print the route: each plan source asked, its plan, and the check rules it "
        "passed and failed (--json always includes it as `route`).",
    ),
]


def _show_answer(answer, as_json: bool, explain: bool = False) -> None:
    if as_json:
        emit_json(answer.model_dump())
        return
    out.print(answer.answer, highlight=False, markup=False)
    if explain:
        from causalqa.qa.assistant import explain_route

        out.print("route:", highlight=False, markup=False)
        out.print(explain_route(answer), highlight=False, markup=False, soft_wrap=True)
    if answer.computed:
        err.print(f"[dim]computed: {escape(answer.computed)}[/]", highlight=False, soft_wrap=True)
    u = answer.usage
    err.print(
        f"[dim]{answer.mode} · {answer.model} · {u.get('prompt_tokens', 0)} prompt + "
        f"{u.get('completion_tokens', 0)} completion tokens · {answer.seconds:.2f} s[/]",
        soft_wrap=True,
    )


def ask_command(
    question: Annotated[
        str | None, typer.Argument(help="A question about the model (or a claim to check).")
    ] = None,
    graph: Annotated[
        Path | None,
        typer.Option("--graph", help="Causal graph: GraphML, DOT, edge-list CSV or JSON."),
    ] = None,
    story: StoryOption = None,
    batch: BatchOption = None,
    effects: EffectsOption = None,
    mode: ModeOption = "tool",
    examples: Annotated[
        str, typer.Option("--examples", help="Planner examples: all, retrieve or none.")
    ] = "all",
    verbaliser: Annotated[
        str, typer.Option("--verbaliser", help="template (exact) or llm.")
    ] = "template",
    outcome: OutcomeOption = None,
    explain: ExplainOption = False,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Answer QUESTION about a causal model (graph + effects table) or one stated in words."""
    graph_only = {"--effects": effects, "--outcome": outcome, "--explain": explain or None}
    if ask_stated(question, graph, story, batch, llm, json_, **graph_only):
        return
    assistant = _assistant(
        graph,
        effects,
        llm,
        mode,
        examples,
        verbaliser,
        outcome,
        preload=mode == "context" or verbaliser == "llm",
    )
    _show_answer(assistant.ask(question), as_json(json_), explain)


def chat_command(
    graph: GraphOption,
    effects: EffectsOption = None,
    mode: ModeOption = "tool",
    outcome: OutcomeOption = None,
    explain: ExplainOption = False,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Ask questions one per line, with follow-ups ("and for partner 3?"); EOF ends."""
    assistant = _assistant(graph, effects, llm, mode, "all", "template", outcome)
    interactive = sys.stdin.isatty()
    while True:
        try:
            line = input("you> ") if interactive else sys.stdin.readline()
        except EOFError:
            break
        if not line or line.strip().lower() in {"exit", "quit"}:
            break
        question = line.strip()
        if not question:
            if interactive:
                break
            continue
        if not interactive and not as_json(json_):
            out.print(f"[bold]? {escape(question)}[/]")
        _show_answer(assistant.ask(question), as_json(json_), explain)
