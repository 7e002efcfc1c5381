"""``causalqa llm`` (ask the model directly) and ``causalqa models`` (the backends)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from causalqa.cli.options import (
    JSONOption,
    LLMOption,
    as_json,
    emit_json,
    err,
    out,
    resolved_spec,
)


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
    if as_json(json_):
        emit_json(result)
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


def models_command(json_: JSONOption = False, llm: LLMOption = None) -> None:
    """List the backends: where each embedded GGUF lives, its size, whether it is ready."""
    from causalqa.llm import EMBEDDED

    spec, source = resolved_spec(llm)
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
    if as_json(json_):
        emit_json({"current": spec, "current_source": source, "backends": rows})
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
