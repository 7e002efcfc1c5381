"""``causalqa llm`` (ask the model directly), ``causalqa batch`` (many prompts, several in
flight, resumable) and ``causalqa models`` (the backends)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from causalqa.cli.options import (
    CacheOption,
    ConcurrencyOption,
    JSONOption,
    LLMOption,
    SeedOption,
    as_json,
    concurrency,
    emit_json_if,
    err,
    open_llm,
    out,
    progress,
    resolved_spec,
)

TimeoutOption = Annotated[float | None, typer.Option("--timeout", help="Seconds per call.")]


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
    seed: SeedOption = 0,
    timeout: TimeoutOption = None,
    cache: CacheOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Ask the model PROMPT and print its reply, with tokens and seconds."""
    from causalqa.llm import get_llm
    from causalqa.llm.schema import load_schema

    if prompt == "-":
        prompt = sys.stdin.read()
    schema_obj = load_schema(schema) if schema is not None else None
    spec, source = resolved_spec(llm)
    model = get_llm(spec, cache=cache, timeout=timeout, quiet=as_json(json_))
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
    if emit_json_if(json_, result):
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


def batch_command(
    requests: Annotated[
        Path,
        typer.Argument(
            help='JSON Lines, one request a line: {"prompt": "..."} or {"messages": [...]}, '
            "optionally id, schema, max_tokens, temperature, seed."
        ),
    ],
    out_path: Annotated[
        Path, typer.Option("--out", "-o", help="Answers as JSON Lines, in input order.")
    ],
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=1, help="Default token budget per request.")
    ] = 512,
    concurrency_: ConcurrencyOption = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing --out file.")
    ] = False,
    cache: CacheOption = None,
    timeout: TimeoutOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Answer every request of REQUESTS, several at once against a server; a stopped run
    continues where it stopped (journal: OUT.journal)."""
    from causalqa.llm.batch import journal_path, read_requests, run_batch

    total = len(read_requests(requests, max_tokens=max_tokens))
    n = concurrency(concurrency_, llm)
    model = open_llm(llm, cache=cache, timeout=timeout, quiet=as_json(json_))
    resuming = journal_path(out_path).exists()
    start = time.perf_counter()
    with progress() as bar:
        task = bar.add_task(f"batch ({n} in flight)", total=total)
        run = run_batch(
            model,
            requests,
            out_path,
            concurrency=n,
            max_tokens=max_tokens,
            overwrite=overwrite,
            on_result=lambda *_: bar.advance(task),
            on_retry=lambda i, attempt, e, delay: err.print(
                f"[yellow]retry[/] request {i + 1} in {delay:.1f} s "
                f"(attempt {attempt}: {type(e).__name__})",
                highlight=False,
            ),
        )
    seconds = time.perf_counter() - start
    summary = {
        "out": str(run.out),
        "requests": total,
        "resumed": run.resumed,
        "failed": run.failed,
        "concurrency": n,
        "seconds": round(seconds, 2),
        "completion_tokens": sum(r.get("usage", {}).get("completion_tokens", 0) for r in run.rows),
    }
    if not emit_json_if(json_, summary):
        err.print(
            f"[dim]{total} requests ({run.resumed} resumed{' from the journal' if resuming else ''}"
            f", {run.failed} failed) → {run.out} in {seconds:.1f} s with {n} in flight[/]",
            soft_wrap=True,
        )
    if run.failed:
        err.print(
            f"[yellow]{run.failed} request(s) failed[/]: their lines hold the error; run the "
            "same command again to retry only them",
            highlight=False,
        )
        raise typer.Exit(1)


def models_command(
    json_: JSONOption = False,
    llm: LLMOption = None,
    warm: Annotated[
        bool,
        typer.Option(
            "--warm",
            help="Also make the current model ready for a quick first answer: assemble it "
            "if needed and save the state of the prompts every question starts with.",
        ),
    ] = False,
) -> None:
    """List the backends: where each embedded GGUF lives, its size, whether it is ready;
    with --warm, prepare the current one."""
    from causalqa.llm import EMBEDDED

    spec, source = resolved_spec(llm)
    warmed = _warm(spec) if warm else None
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
    summary = {"current": spec, "current_source": source, "backends": rows}
    if warmed is not None:
        summary["warm"] = warmed
    if emit_json_if(json_, summary):
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


def _warm(spec: str) -> dict:
    """Assemble the model `spec` names if needed, load it, and save the state of each
    prompt prefix the QA planner starts from (`Planner.prefixes`)."""
    from causalqa.llm import get_llm
    from causalqa.qa.planner import Planner

    start = time.perf_counter()
    model = get_llm(spec, cache=False)  # assembles an embedded model, with its progress
    prefixes = Planner(model).prefixes()
    events: list[str] = []
    with progress() as bar:
        task = bar.add_task(f"warming {model.model}: the planner's prompts", total=len(prefixes))
        for prefix in prefixes:
            events.append(model.warm_prefix(prefix))
            bar.advance(task)
    model.close()
    seconds = round(time.perf_counter() - start, 2)
    counts = {e: events.count(e) for e in dict.fromkeys(events)}
    said = ", ".join(f"{n} {e}" for e, n in counts.items())
    why = ""
    if set(events) == {"not kept"}:
        why = (
            " — saved states are turned off (CAUSALQA_KV_CACHE=0)"
            if getattr(model, "prefix_state_dir", False) is None
            else f" — the {model.backend} backend keeps no state across processes"
        )
    err.print(
        f"[green]warm[/]: {model.model} ready; {len(events)} planner prompt states ({said}) "
        f"in {seconds:.1f} s{why}",
        highlight=False,
    )
    return {"model": model.model, "prefix_states": events, "seconds": seconds}
