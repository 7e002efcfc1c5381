"""``causalqa mcp``: the MCP server for AI agents (stdio, or streamable HTTP)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from causalqa.cli.options import KGStoreOption, LLMOption, err
from causalqa.cli.serve import DeductionKGOption, LoadOption, TokenOption
from causalqa.errors import ConfigError


def mcp_command(
    transport: Annotated[
        str, typer.Option("--transport", help="stdio (for a client that starts it) or http.")
    ] = "stdio",
    host: Annotated[str, typer.Option("--host", help="Address for --transport http.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option("--port", min=0, max=65535)] = 8001,
    token: TokenOption = None,
    load: LoadOption = [],  # noqa: B006
    kg: KGStoreOption = None,
    deduction_kg: DeductionKGOption = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Where the server's models are kept.")
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout")] = 300.0,
    queue: Annotated[int, typer.Option("--queue", min=1)] = 8,
    llm: LLMOption = None,
) -> None:
    """Serve causalqa's tools (ask, list_models, show_model, discover_pair, deduce) over
    the Model Context Protocol."""
    import anyio

    from causalqa.cli.serve import settings_from_options
    from causalqa.server.mcp_server import BearerGuard, build_mcp
    from causalqa.server.service import Service

    if transport not in ("stdio", "http"):
        raise ConfigError(f"unknown --transport {transport!r}", hint="use stdio or http")
    settings = settings_from_options(
        host, port, token, load, kg, deduction_kg, data_dir, llm, timeout=timeout, queue=queue
    )
    if transport == "http":
        settings.check_exposure()
    service = Service(settings).start()
    server = build_mcp(service)
    try:
        if transport == "stdio":
            anyio.run(server.run_stdio_async)
            return
        import uvicorn

        app = server.streamable_http_app(host=host)
        if settings.token:
            app = BearerGuard(app, settings.token)
        err.print(f"causalqa mcp: http://{host}:{port}/mcp (model {settings.llm})")
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        service.stop()
