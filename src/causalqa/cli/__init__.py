"""The `causalqa` command line: one app, a module per concern, errors shown once.

Commands are thin — parse the options, call the engine, emit the result — and each
module imports its heavy libraries inside its commands, so ``causalqa --help`` is quick.
Every `CausalQAError` becomes one line plus a hint (exit 1); anything else is reported as
an internal error (exit 2); ``--verbose`` adds the traceback.
"""

from __future__ import annotations

import sys
import traceback
from typing import Annotated

import typer
from rich.markup import escape

from causalqa import __version__
from causalqa.cli import bench, deduce, discover, kg, llm, mcp, qa, serve
from causalqa.cli.options import JSONOption, LLMOption, err, out, state
from causalqa.errors import CausalQAError

app = typer.Typer(
    name="causalqa",
    help="Answer causal questions with a language model grounded in causal knowledge.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        out.print(f"causalqa {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    llm_: LLMOption = None,
    json_: JSONOption = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show tracebacks on errors.")
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    state.update(llm=llm_, json=json_, verbose=verbose)


app.command("llm")(llm.llm_command)
app.command("batch")(llm.batch_command)
app.command("models")(llm.models_command)
app.command("fit")(qa.fit_command)
app.command("ask")(qa.ask_command)
app.command("chat")(qa.chat_command)
app.command("deduce", help="Is a statement a probable cause of an accident? (paper 002)")(
    deduce.deduce_command
)
app.command("serve")(serve.serve_command)
app.command("mcp")(mcp.mcp_command)
app.add_typer(bench.app, name="bench")
app.add_typer(kg.app, name="kg")
app.add_typer(deduce.app, name="deduction")
app.add_typer(discover.app, name="discover")
# Older spellings under `causalqa deduction`, kept: `deduction mine` is `kg mine`,
# `deduction bench` is `bench deduction`.
deduce.app.command("mine")(kg.mine_command)
deduce.app.command("bench")(bench.bench_deduction_command)


def main() -> None:
    """Entry point: run the app, turning causalqa errors into one clear line."""
    try:
        app()
    except CausalQAError as e:
        if state.get("verbose"):
            traceback.print_exc()
        err.print(f"[bold red]error:[/] {escape(e.message)}", highlight=False, soft_wrap=True)
        if e.hint:
            err.print(f"[dim]hint:[/] {escape(e.hint)}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except KeyboardInterrupt:
        err.print("[red]interrupted[/]")
        sys.exit(130)
    except Exception as e:  # a bug: say so plainly, keep the traceback behind --verbose
        if state.get("verbose"):
            traceback.print_exc()
        err.print(
            f"[bold red]internal error:[/] {escape(type(e).__name__)}: {escape(str(e))}",
            highlight=False,
        )
        err.print(
            "[dim]hint:[/] rerun with --verbose for the traceback and report it", highlight=False
        )
        sys.exit(2)


__all__ = ["app", "main"]
