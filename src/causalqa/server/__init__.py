"""The service surfaces: a versioned HTTP API (``causalqa serve``), the web page it serves at
``/``, and an MCP server for agents (``causalqa mcp``) — all over the same `Service`, which
runs every model call on one worker thread with a bounded queue.

    >>> from causalqa.server import ServerSettings, create_app   # doctest: +SKIP
    >>> app = create_app(ServerSettings(data_dir=Path("srv"), llm="local:small"))
"""

from causalqa.server.app import create_app
from causalqa.server.service import Service
from causalqa.server.settings import ServerSettings

__all__ = ["ServerSettings", "Service", "create_app"]
