"""What a server is started with: one frozen record, filled by the command line (which
also reads the environment), so nothing below it looks anything up by itself."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from causalqa.errors import ConfigError

TOKEN_ENV = "CAUSALQA_TOKEN"
"""The environment variable ``causalqa serve`` and ``causalqa mcp`` read the token from."""


@dataclass(frozen=True)
class ServerSettings:
    """The service's settings. Sizes are in bytes, times in seconds.

    `data_dir` holds the uploaded causal models (``<data_dir>/models/<id>/``); `load`
    maps ids to model directories the operator names on the command line (read-only, never
    copied or deleted); `kg` is the knowledge-graph store for discovery (None: the default
    store) and `deduction_kg` a mined causal KG for deduction's retrievers.
    """

    data_dir: Path
    llm: str = "local"
    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    load: Mapping[str, Path] = field(default_factory=dict)
    kg: Path | None = None
    deduction_kg: Path | None = None
    max_body: int = 1_000_000
    max_upload: int = 20_000_000
    timeout: float = 300.0
    queue: int = 8
    session_ttl: float = 1800.0
    max_sessions: int = 64
    max_jobs: int = 64
    job_ttl: float = 3600.0
    job_timeout: float = 3600.0
    max_graph_variables: int = 12
    cors_origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("max_body", "max_upload", "queue", "max_sessions", "max_jobs"):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} must be at least 1")
        for name in ("timeout", "session_ttl", "job_ttl", "job_timeout"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"--{name.replace('_', '-')} must be positive")
        if self.max_graph_variables < 2:
            raise ConfigError("--max-graph-variables must be at least 2")
        if self.token is not None and len(self.token) < 8:
            raise ConfigError(
                "the token is shorter than 8 characters", hint="use a long random token"
            )

    def check_exposure(self) -> None:
        """Refuse to listen beyond this machine without a token (`ConfigError`)."""
        if not is_loopback(self.host) and not self.token:
            raise ConfigError(
                f"refusing to listen on {self.host} without a token: anyone who reaches it "
                "could use the model and upload files",
                hint=f"pass --token TOKEN (or set ${TOKEN_ENV}), or listen on 127.0.0.1",
            )


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine only (localhost, 127.0.0.0/8, ::1)."""
    h = host.strip().strip("[]").lower()
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False
