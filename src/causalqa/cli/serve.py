"""``causalqa serve``: the HTTP API, its OpenAPI docs and the web page, in one process."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from causalqa.cli.options import KGStoreOption, LLMOption, err, resolved_spec
from causalqa.errors import ConfigError

TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar="CAUSALQA_TOKEN",
        show_envvar=True,
        help="Bearer token every API request must carry (required to listen beyond 127.0.0.1).",
    ),
]
LoadOption = Annotated[
    list[str],
    typer.Option(
        "--load",
        help="A model directory to serve read-only, as NAME=DIR or DIR (repeat); e.g. "
        "partners=examples/partners/model.",
    ),
]
DeductionKGOption = Annotated[
    Path | None,
    typer.Option("--deduction-kg", help="A mined causal KG for deduction's retrievers."),
]

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)b?\s*$", re.IGNORECASE)


def parse_size(text: str, what: str) -> int:
    """'1M', '512k', '2000000' → bytes."""
    m = _SIZE.match(text)
    if not m:
        raise ConfigError(f"{what} {text!r} is not a size", hint="write e.g. 1M, 512k or 20000")
    scale = {"": 1, "k": 1_000, "m": 1_000_000, "g": 1_000_000_000}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


def parse_loads(values: list[str]) -> dict[str, Path]:
    """``NAME=DIR`` or ``DIR`` (named after DIR, or its parent when DIR is 'model')."""
    from causalqa.server.store import check_id_for_new, slug

    loads: dict[str, Path] = {}
    for value in values:
        name, sep, directory = value.partition("=")
        if not sep:
            directory = value
            p = Path(value).expanduser().resolve()
            name = p.parent.name if p.name in ("model", "models") else p.name
        model_id = check_id_for_new(slug(name))
        if model_id in loads:
            raise ConfigError(f"--load names the model {model_id!r} twice")
        loads[model_id] = Path(directory).expanduser()
    return loads


def settings_from_options(host, port, token, load, kg, deduction_kg, data_dir, llm, **more):
    """`ServerSettings` from the options ``serve`` and ``causalqa mcp`` share, and `more`
    of the command's own."""
    from causalqa import config
    from causalqa.server.settings import ServerSettings

    return ServerSettings(
        host=host,
        port=port,
        token=token or None,
        load=parse_loads(load),
        kg=kg,
        deduction_kg=deduction_kg,
        data_dir=data_dir or config.home_dir() / "server",
        llm=resolved_spec(llm)[0],
        **more,
    )


def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535)] = 8000,
    token: TokenOption = None,
    load: LoadOption = [],  # noqa: B006
    kg: KGStoreOption = None,
    deduction_kg: DeductionKGOption = None,
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", help="Where uploaded models are kept ($CAUSALQA_HOME/server)."),
    ] = None,
    max_body: Annotated[str, typer.Option("--max-body", help="Largest JSON body.")] = "1M",
    max_upload: Annotated[str, typer.Option("--max-upload", help="Largest upload.")] = "20M",
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds a request may take (504 after).")
    ] = 300.0,
    queue: Annotated[
        int,
        typer.Option("--queue", min=1, help="Requests that may wait for the model (429 after)."),
    ] = 8,
    session_ttl: Annotated[
        float, typer.Option("--session-ttl", help="Seconds an idle chat session is kept.")
    ] = 1800.0,
    max_graph_variables: Annotated[
        int, typer.Option("--max-graph-variables", min=2, help="Largest discover-graph request.")
    ] = 12,
    cors_origin: Annotated[
        list[str], typer.Option("--cors-origin", help="An origin allowed by CORS (repeat).")
    ] = [],  # noqa: B006
    log_level: Annotated[str, typer.Option("--log-level")] = "info",
    llm: LLMOption = None,
) -> None:
    """Serve the HTTP API (/v1, docs at /docs) and the web page (/) on one port."""
    import uvicorn

    from causalqa.server import create_app

    settings = settings_from_options(
        host,
        port,
        token,
        load,
        kg,
        deduction_kg,
        data_dir,
        llm,
        max_body=parse_size(max_body, "--max-body"),
        max_upload=parse_size(max_upload, "--max-upload"),
        timeout=timeout,
        queue=queue,
        session_ttl=session_ttl,
        max_graph_variables=max_graph_variables,
        cors_origins=tuple(cors_origin),
    )
    settings.check_exposure()
    app = create_app(settings)
    shown = f"[{host}]" if ":" in host else host
    err.print(
        f"causalqa serve: http://{shown}:{port}/  (API /v1, docs /docs; model {settings.llm} "
        f"loading; {len(settings.load)} model(s) loaded; Ctrl-C stops)",
        highlight=False,
    )
    uvicorn.run(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5)
