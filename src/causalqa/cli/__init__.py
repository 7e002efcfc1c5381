"""The `causalqa` command line: one app, a module per concern, errors shown once.

Commands are thin — parse the options, call the engine, emit the result — and each
module imports its heavy libraries inside its commands, so ``causalqa --help`` is quick.
Every `CausalQAError` becomes one line plus a hint; ``--verbose`` adds the traceback.

Exit codes (a script can tell a refusal from a failure of the model or of causalqa):

- 0: the command did what was asked;
- 1 (`EXIT_BAD_INPUT`): bad input — a file, an option, a question or a setting causalqa
  refuses (`CausalQAError`), or a command line it cannot parse;
- 2 (`EXIT_INTERNAL`): an internal error, a bug (anything that is not a `CausalQAError`);
- 3 (`EXIT_LLM`): the language model cannot be reached or did not answer in time
  (`LLMUnavailableError`, `LLMTimeoutError`) — worth a retry, unlike a model file that
  is not a model (`ModelFileError`: bad input, 1);
- 130: interrupted (Ctrl-C).
"""

from __future__ import annotations

import sys
import traceback
from typing import Annotated

import typer
from rich.markup import escape

from causalqa import __version__
from causalqa.cli import bench, deduce, discover, kg, llm, mcp, qa, serve
from causalqa.cli.options import JSONOption, LLMOption, deprecated, err, out, state
from causalqa.errors import (
    CausalQAError,
    LLMTimeoutError,
    LLMUnavailableError,
    ModelFileError,
)

EXIT_BAD_INPUT = 1
EXIT_INTERNAL = 2
EXIT_LLM = 3
EXIT_INTERRUPTED = 130

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
# Older names, retired: each still runs, after a line on stderr naming the command to use.
for old_name, command, new_name in (
    ("deduce", deduce.deduce_command, "deduce"),
    ("mine", kg.mine_command, "kg mine"),
    ("bench", bench.bench_deduction_command, "bench deduction"),
):
    deduce.app.command(old_name, hidden=True)(deprecated(command, new_name))


def exit_code(error: BaseException) -> int:
    """The documented exit code for an error that ended a command."""
    if isinstance(error, ModelFileError):
        return EXIT_BAD_INPUT
    if isinstance(error, LLMUnavailableError | LLMTimeoutError):
        return EXIT_LLM
    if isinstance(error, CausalQAError):
        return EXIT_BAD_INPUT
    return EXIT_INTERNAL


def main() -> None:
    """Entry point: run the app, turning causalqa errors into one clear line."""
    try:
        try:
            app()
        except SystemExit as e:
            # Inside app() only click exits with 2: a command line it cannot parse (a
            # missing argument, an unknown option). That is bad input, not a bug.
            if e.code == 2:
                sys.exit(EXIT_BAD_INPUT)
            raise
    except CausalQAError as e:
        if state.get("verbose"):
            traceback.print_exc()
        err.print(f"[bold red]error:[/] {escape(e.message)}", highlight=False, soft_wrap=True)
        if e.hint:
            err.print(f"[dim]hint:[/] {escape(e.hint)}", highlight=False, soft_wrap=True)
        sys.exit(exit_code(e))
    except KeyboardInterrupt:
        err.print("[red]interrupted[/]")
        sys.exit(EXIT_INTERRUPTED)
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
        sys.exit(EXIT_INTERNAL)


__all__ = ["EXIT_BAD_INPUT", "EXIT_INTERNAL", "EXIT_LLM", "app", "exit_code", "main"]
