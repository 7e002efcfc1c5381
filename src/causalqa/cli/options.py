"""What every command shares: the global options given before the command (``--llm``,
``--json``, ``--verbose``), each command's own ``--llm``/``--json``, the one place that
reads them, the options more than one command takes (declared here once, so ``--kg`` or
``--cache`` reads the same everywhere), retired names, and how results reach the
terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from causalqa import config, jsonl
from causalqa.errors import ConfigError

out = Console()
err = Console(stderr=True)

state: dict[str, Any] = {"llm": None, "json": False, "verbose": False}
"""The global options, set by the main callback before any command runs."""

LLMOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        help="Backend: local, local:small, local:/path.gguf, openai:MODEL, "
        "openai:http://HOST:PORT/v1#MODEL (else $CAUSALQA_LLM, config file, 'local').",
    ),
]
JSONOption = Annotated[bool, typer.Option("--json", help="Print one JSON document on one line.")]
ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        min=1,
        help="LLM calls in flight (default: 1 for local models, 4 for openai: servers, "
        "or $CAUSALQA_CONCURRENCY).",
    ),
]

SeedOption = Annotated[int, typer.Option("--seed")]
SimilarityOption = Annotated[
    float, typer.Option("--similarity", help="Cosine above which nodes are linked.")
]
CacheOption = Annotated[
    bool | None,
    typer.Option(
        "--cache/--no-cache",
        help="The on-disk LLM response cache (default: $CAUSALQA_CACHE, else the config "
        "file; benchmarks: on).",
    ),
]
KGStoreOption = Annotated[
    Path | None,
    typer.Option("--kg", help="Knowledge graph store folder (default: $CAUSALQA_HOME/kg/default)."),
]
CausalKGOption = Annotated[
    Path | None,
    typer.Option("--kg", help="A mined causal KG directory (causalqa kg mine)."),
]
ResultsOption = Annotated[
    Path, typer.Option("--out", "-o", help="Where to write the JSON and Markdown report.")
]
SharedDataOption = Annotated[
    Path | None,
    typer.Option("--data", help="The shared data folder (default: ../shared/data)."),
]
DeductionDataOption = Annotated[
    Path,
    typer.Option("--data", "-d", help="Deduction data set JSONL (causalqa deduction dataset)."),
]
EvidenceModelOption = Annotated[
    Path | None,
    typer.Option(
        "--evidence-model",
        help="Folder of an evidence model (default: the one causalqa discover train made, "
        "else the one shipped with causalqa).",
    ),
]
NoLLMOption = Annotated[
    bool,
    typer.Option("--no-llm", help="Leave the LLM feature out and never load the LLM (faster)."),
]


def llm_spec(local: str | None) -> str | None:
    """The command's ``--llm``, else the global one (None: resolved from env/config)."""
    return local if local is not None else state["llm"]


def resolved_spec(local: str | None) -> tuple[str, str]:
    """The backend spec to use and where it came from (flag, env var, config, default)."""
    return config.resolve_llm_spec(llm_spec(local))


def concurrency(value: int | None, llm: str | None) -> int:
    """How many LLM calls a command keeps in flight (`--concurrency`, env, or the
    backend's default: see `causalqa.llm.concurrent.default_concurrency`)."""
    from causalqa.llm.concurrent import default_concurrency

    return default_concurrency(resolved_spec(llm)[0], value)


def as_json(local: bool) -> bool:
    """Whether to print JSON: the command's ``--json`` or the global one."""
    return local or state["json"]


def open_llm(local: str | None, **options: Any):
    """The LLM the options name (`causalqa.llm.get_llm`, looked up at call time)."""
    import causalqa.llm

    spec, _ = resolved_spec(local)
    return causalqa.llm.get_llm(spec, **options)


def emit_json(obj: Any) -> None:
    """Print `obj` as ONE JSON document on one line (standard JSON: NaN becomes null), so
    ``causalqa --json …`` output can be read line by line, e.g. by ``jq`` or a script."""
    sys.stdout.write(jsonl.dumps(obj, strict=True) + "\n")
    sys.stdout.flush()


def emit_json_if(json_: bool, obj: Any) -> bool:
    """With ``--json`` (the command's or the global one), print `obj` as one JSON line and
    return True: ``if emit_json_if(json_, result): return`` goes before the text output."""
    if as_json(json_):
        emit_json(obj)
        return True
    return False


def emit(report: dict[str, Any], markdown: str, json_: bool) -> None:
    """A benchmark's or a command's result: its JSON, or its Markdown as it is."""
    if not emit_json_if(json_, report):
        out.print(markdown, markup=False, highlight=False, soft_wrap=True)


def emit_report(
    report: dict[str, Any], json_: bool, *, drop: Sequence[str] = ("markdown",), raw: bool = False
) -> None:
    """A benchmark's report: its JSON without the `drop` keys, or ``report["markdown"]``
    (`raw`: written as it is, unwrapped, for a pipe)."""
    if raw and not as_json(json_):
        sys.stdout.write(report["markdown"] + "\n")
        return
    emit({k: v for k, v in report.items() if k not in drop}, report["markdown"], json_)


def choices(value: str, allowed: Sequence[str], what: str) -> list[str]:
    """A comma-separated option as a list of names, each one of `allowed`."""
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if not items or bad:
        raise ConfigError(
            f"unknown {what}: {', '.join(bad) or repr(value)}", hint=f"use {', '.join(allowed)}"
        )
    return items


def deprecated(command: Callable[..., Any], new: str) -> Callable[..., Any]:
    """`command` under an older name: it still runs, after one line on stderr naming the
    command to use instead (register it with ``hidden=True``)."""
    import functools

    @functools.wraps(command)  # typer reads the options from the wrapped signature
    def run(*args: Any, **kwargs: Any) -> Any:
        warn_deprecated(f"causalqa {new}")
        return command(*args, **kwargs)

    return run


def warn_deprecated(instead: str) -> None:
    """The one line an older spelling prints on stderr: what to write instead."""
    err.print(f"[yellow]deprecated:[/] use {instead} instead", highlight=False, soft_wrap=True)


def with_status(results: Iterator[Any], labels: Sequence[str]) -> Iterator[Any]:
    """The items of `results`, each computed under a spinner on stderr showing its label
    (the spinner stops before the caller prints the result)."""
    for label in labels:
        with err.status(label):
            result = next(results)
        yield result


def progress(*, transient: bool = False):
    """A progress display on stderr: description, bar, done/total, elapsed time; a
    `transient` one is erased when done (or when the work fails: the error stands alone),
    and not shown at all where stderr is not a terminal (rich would leave a blank line)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    return Progress(
        *columns, console=err, transient=transient, disable=transient and not err.is_terminal
    )


@contextmanager
def steps(name: str, total: int | None) -> Iterator[Callable[[str, int], None]]:
    """A progress bar fed by an engine's ``on_step(description, advance)`` callback."""
    with progress() as bar:
        task = bar.add_task(name, total=total)
        yield lambda what, n: bar.update(task, advance=n, description=what)


def open_kg(path: Path | str | None):
    """The knowledge graph at `path`: a store folder (default ``$CAUSALQA_HOME/kg/default``),
    a Neo4j server, ``bolt://host:7687`` (credentials from ``$NEO4J_USER`` and
    ``$NEO4J_PASSWORD``), or a SPARQL endpoint, ``sparql:URL`` or ``wikidata``."""
    from causalqa.kg.store import KnowledgeGraph

    return KnowledgeGraph.connect(path)


def open_stores(path: Path | str | None) -> list:
    """The graphs `discover pair` consults (`causalqa.kg.store.open_stores`)."""
    from causalqa.kg.store import open_stores as consulted

    return consulted(path)


def consulted(stores: list | None) -> tuple[Any, list]:
    """The opened `stores` as `discover pair` consults them (`general.split_stores`): the
    typed graph the evidence model reads (or None) and the general stores. Any other typed
    store is said not to be consulted and closed at once, so a report never names it."""
    from causalqa.discovery.general import split_stores

    kg, general, unused = split_stores(stores or [])
    for other in unused:
        err.print(f"[dim]not consulted (the evidence model reads one graph): {other.path}[/]")
        other.close()
    return kg, general


def opened(kg: Any, general: list) -> list:
    """The stores `consulted` kept, as one list (to close them, or to name them in a
    report): the typed graph, if any, then the general stores."""
    return [s for s in (kg, *general) if s is not None]


def write_and_emit(out_dir: Path, name: str, report: dict, body: str, json_: bool) -> None:
    """Write a discovery benchmark's report (JSON + Markdown under a header naming the
    run's environment), then print its JSON or its Markdown body."""
    from causalqa.bench.report import document, write_report

    path = write_report(
        out_dir, name, report, document(f"causalqa bench discovery {name}", report, body)
    )
    err.print(f"[dim]wrote {path}[/dim]")
    emit(report, body, json_)
