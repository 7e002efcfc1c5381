"""The `causalqa` command line.

Every command has `--json` for machine-readable output; human output uses rich. Errors
are caught once here and shown as one line plus a hint; `--verbose` adds the traceback.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from causalqa import __version__, config
from causalqa.errors import CausalQAError, ConfigError

app = typer.Typer(
    name="causalqa",
    help="Answer causal questions with a language model grounded in causal knowledge.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
bench_app = typer.Typer(
    help="Measure speed and accuracy; results go to bench/results/.", no_args_is_help=True
)
app.add_typer(bench_app, name="bench")

out = Console()
err = Console(stderr=True)

_state: dict[str, Any] = {"llm": None, "json": False, "verbose": False}

LLMOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        help="Backend: local, local:small, local:/path.gguf, openai:MODEL, "
        "openai:http://HOST:PORT/v1#MODEL (else $CAUSALQA_LLM, config file, 'local').",
    ),
]
JSONOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _version(value: bool) -> None:
    if value:
        out.print(f"causalqa {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    llm: LLMOption = None,
    json_: JSONOption = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show tracebacks on errors.")
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    _state.update(llm=llm, json=json_, verbose=verbose)


def _llm_spec(local: str | None) -> str | None:
    return local if local is not None else _state["llm"]


def _as_json(local: bool) -> bool:
    return local or _state["json"]


def _emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


# -- causalqa llm ---------------------------------------------------------------------
@app.command("llm")
def llm_command(
    prompt: Annotated[str, typer.Argument(help="The prompt; '-' reads it from standard input.")],
    schema: Annotated[
        Path | None,
        typer.Option("--schema", help="JSON Schema file: the reply is JSON valid under it."),
    ] = None,
    system: Annotated[str | None, typer.Option("--system", help="A system message.")] = None,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=1, help="Token budget for the reply.")
    ] = 512,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0)] = 0.0,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    timeout: Annotated[float | None, typer.Option("--timeout", help="Seconds per call.")] = None,
    cache: Annotated[
        bool | None, typer.Option("--cache/--no-cache", help="Use the on-disk response cache.")
    ] = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Ask the model PROMPT and print its reply, with tokens and seconds."""
    from causalqa.llm import get_llm
    from causalqa.llm.schema import load_schema

    if prompt == "-":
        prompt = sys.stdin.read()
    schema_obj = load_schema(schema) if schema is not None else None
    spec, source = config.resolve_llm_spec(_llm_spec(llm))
    model = get_llm(spec, cache=cache, timeout=timeout, quiet=_as_json(json_))
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": prompt}
    ]
    # Load a local model before the call, so loading (paid by every cold CLI call) and
    # answering are timed apart.
    start = time.perf_counter()
    model.load()
    load_seconds = time.perf_counter() - start
    response = model.complete(
        messages, schema=schema_obj, max_tokens=max_tokens, temperature=temperature, seed=seed
    )
    result = response.to_dict()
    result.update(spec=spec, spec_source=source, load_seconds=round(load_seconds, 3))
    if _as_json(json_):
        _emit_json(result)
        return
    if schema_obj is not None:
        out.print_json(data=response.data)
    else:
        out.print(response.text, markup=False, highlight=False)
    u = response.usage
    err.print(
        f"[dim]{response.backend}:{response.model} · {u.prompt_tokens} prompt + "
        f"{u.completion_tokens} completion tokens · load {load_seconds:.2f} s · answer "
        f"{response.seconds:.2f} s{' · cached' if response.cached else ''}[/]",
        soft_wrap=True,
    )


# -- causalqa models ------------------------------------------------------------------
@app.command("models")
def models_command(json_: JSONOption = False, llm: LLMOption = None) -> None:
    """List the backends: where each embedded GGUF lives, its size, whether it is ready."""
    from causalqa.llm import EMBEDDED

    spec, source = config.resolve_llm_spec(_llm_spec(llm))
    rows = []
    for key, m in EMBEDDED.items():
        missing = m.missing_parts()
        rows.append(
            {
                "spec": key,
                "model": m.name,
                "license": m.license,
                "path": str(m.path),
                "bytes": m.size,
                "packages_installed": not missing,
                "missing_packages": missing,
                "assembled": m.is_assembled(),
            }
        )
    rows.append(
        {
            "spec": "openai:MODEL | openai:http://HOST:PORT/v1#MODEL",
            "model": "any OpenAI-compatible server",
            "license": None,
            "path": None,
            "bytes": None,
            "packages_installed": True,
            "missing_packages": [],
            "assembled": None,
        }
    )
    if _as_json(json_):
        _emit_json({"current": spec, "current_source": source, "backends": rows})
        return
    table = Table(title=f"LLM backends (current: {spec}, from {source})")
    for col in ("spec", "model", "size", "state", "path"):
        table.add_column(col)
    for r in rows:
        if r["bytes"] is None:
            state, size = "remote", ""
        else:
            size = f"{r['bytes'] / 1e9:.2f} GB"
            if not r["packages_installed"]:
                state = f"[red]not installed[/] ({len(r['missing_packages'])} packages missing)"
            elif r["assembled"]:
                state = "[green]ready[/]"
            else:
                state = "[yellow]installed, assembled on first use[/]"
        table.add_row(r["spec"], r["model"], size, state, r["path"] or "")
    out.print(table)


# -- causalqa fit / ask / chat --------------------------------------------------------
@app.command("fit")
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
    seed: Annotated[int, typer.Option("--seed")] = 0,
    out_dir: Annotated[
        Path, typer.Option("--out", help="Directory for graph.graphml and effects.csv.")
    ] = Path("model"),
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace files already in --out.")
    ] = False,
    json_: JSONOption = False,
) -> None:
    """Fit a causal model from DATA: discover the graph, estimate each row's treatment effects."""
    from causalqa.knowledge import fit_causal_model

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
    if _as_json(json_):
        _emit_json(summary)
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
):
    from causalqa.knowledge import CausalModel
    from causalqa.qa.assistant import Assistant

    if mode not in ("tool", "context"):
        raise ConfigError(f"unknown mode {mode!r}", hint="use --mode tool or --mode context")
    model = CausalModel.load(graph, effects, outcome=outcome)
    spec, _ = config.resolve_llm_spec(_llm_spec(llm))
    return Assistant(model, spec, mode=mode, examples=examples, verbaliser=verbaliser)


def _show_answer(answer, as_json: bool) -> None:
    if as_json:
        _emit_json(answer.model_dump())
        return
    out.print(answer.answer, highlight=False, markup=False)
    u = answer.usage
    err.print(
        f"[dim]{answer.mode} · {answer.model} · {u.get('prompt_tokens', 0)} prompt + "
        f"{u.get('completion_tokens', 0)} completion tokens · {answer.seconds:.2f} s[/]",
        soft_wrap=True,
    )


@app.command("ask")
def ask_command(
    question: Annotated[str, typer.Argument(help="A question about the model.")],
    graph: GraphOption,
    effects: EffectsOption = None,
    mode: ModeOption = "tool",
    examples: Annotated[
        str, typer.Option("--examples", help="Planner examples: all, retrieve or none.")
    ] = "all",
    verbaliser: Annotated[
        str, typer.Option("--verbaliser", help="template (exact) or llm.")
    ] = "template",
    outcome: OutcomeOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Answer QUESTION about a causal model (graph + effects table)."""
    assistant = _assistant(graph, effects, llm, mode, examples, verbaliser, outcome)
    _show_answer(assistant.ask(question), _as_json(json_))


@app.command("chat")
def chat_command(
    graph: GraphOption,
    effects: EffectsOption = None,
    mode: ModeOption = "tool",
    outcome: OutcomeOption = None,
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
        if not interactive and not _as_json(json_):
            out.print(f"[bold]? {escape(question)}[/]")
        _show_answer(assistant.ask(question), _as_json(json_))


# -- causalqa bench llm ---------------------------------------------------------------
@bench_app.command("llm")
def bench_llm_command(
    models: Annotated[
        str, typer.Option("--models", help="Comma-separated specs to measure.")
    ] = "local:small,local",
    quick: Annotated[
        bool, typer.Option("--quick", help="Short prompts and outputs (CI smoke test).")
    ] = False,
    out_dir: Annotated[
        Path, typer.Option("--out", help="Where to write JSON and Markdown.")
    ] = Path("bench/results"),
    json_: JSONOption = False,
) -> None:
    """Load time, prompt and generation tokens/s, prefix-cache reuse and peak RSS per model."""
    from causalqa.bench.llm import run_llm_bench

    specs = [s.strip() for s in models.split(",") if s.strip()]
    report = run_llm_bench(specs, quick=quick, out_dir=out_dir, console=err)
    if _as_json(json_):
        _emit_json(report)
    else:
        out.print(report["markdown"], markup=False, highlight=False, soft_wrap=True)


_PLANNER_CHOICES = {
    "cues": {"on": True, "off": False},
    "repair": {"on": True, "off": False},
    "examples": {v: v for v in ("all", "retrieve", "none")},
    "strategy": {v: v for v in ("intent", "plan")},
    "verbaliser": {v: v for v in ("template", "llm")},
    "intent_choice": {v: v for v in ("generate", "logprob")},
}


def _planner_options(text: str | None) -> dict[str, Any]:
    """ "cues=off,examples=none" → {"cues": False, "examples": "none"}."""
    options: dict[str, Any] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, _, value = (x.strip() for x in part.partition("="))
        if key not in _PLANNER_CHOICES or value not in _PLANNER_CHOICES[key]:
            choices = "; ".join(f"{k}={'|'.join(v)}" for k, v in _PLANNER_CHOICES.items())
            raise ConfigError(f"unknown planner option {part.strip()!r}", hint=f"use {choices}")
        options[key] = _PLANNER_CHOICES[key][value]
    return options


@bench_app.command("qa")
def bench_qa_command(
    quick: Annotated[
        bool, typer.Option("--quick", help="One small size, one seed (CI smoke test).")
    ] = False,
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
    seeds: Annotated[int, typer.Option("--seeds", min=1)] = 5,
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
            "intent_choice=logprob.",
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
    cache: Annotated[
        bool,
        typer.Option("--cache/--no-cache", help="Reuse cached LLM replies (reruns are cheap)."),
    ] = True,
    out_dir: Annotated[Path, typer.Option("--out")] = Path("bench/results"),
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """The paper's QA benchmark: tool vs context mode, Tables 1–4 shape, plots."""
    from causalqa.bench.qa import run_qa_bench

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
        _llm_spec(llm),
        planner=_planner_options(planner),
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
        cache=cache,
        out_dir=out_dir,
        console=err,
    )
    if _as_json(json_):
        _emit_json({k: v for k, v in report.items() if k != "outcomes"})
    else:
        out.print(report["markdown"], markup=False, highlight=False, soft_wrap=True)


def main() -> None:
    """Entry point: run the app, turning causalqa errors into one clear line."""
    try:
        app()
    except CausalQAError as e:
        if _state.get("verbose"):
            traceback.print_exc()
        err.print(f"[bold red]error:[/] {escape(e.message)}", highlight=False, soft_wrap=True)
        if e.hint:
            err.print(f"[dim]hint:[/] {escape(e.hint)}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except KeyboardInterrupt:
        err.print("[red]interrupted[/]")
        sys.exit(130)
    except Exception as e:  # a bug: say so plainly, keep the traceback behind --verbose
        if _state.get("verbose"):
            traceback.print_exc()
        err.print(
            f"[bold red]internal error:[/] {escape(type(e).__name__)}: {escape(str(e))}",
            highlight=False,
        )
        err.print(
            "[dim]hint:[/] rerun with --verbose for the traceback and report it", highlight=False
        )
        sys.exit(2)


def _register_engines() -> None:
    """The engines' own sub-commands (each module imports its heavy libraries lazily)."""
    from causalqa.deduction import cli as deduction_cli
    from causalqa.discovery.cli import app as discovery_bench_app
    from causalqa.discovery.discover_cli import app as discover_app
    from causalqa.kg.cli import app as kg_app

    kg_app.command("mine", help="Grow a causal KG from reports with the LLM (paper 002).")(
        deduction_cli.mine_command
    )
    app.add_typer(kg_app, name="kg")
    app.command("deduce", help="Is a statement a probable cause of an accident? (paper 002)")(
        deduction_cli.deduce_command
    )
    app.add_typer(deduction_cli.app, name="deduction")
    bench_app.add_typer(discovery_bench_app, name="discovery")
    bench_app.command("deduction", help="Paper 002's cross-validated deduction benchmark.")(
        deduction_cli.bench_command
    )
    app.add_typer(discover_app, name="discover")


_register_engines()


if __name__ == "__main__":
    main()
