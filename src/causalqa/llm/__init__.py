"""Model access: one small interface over every backend.

>>> from causalqa.llm import get_llm                          # doctest: +SKIP
>>> llm = get_llm("local:small")                              # doctest: +SKIP
>>> llm.complete("Is the sky blue?", schema={"type": "boolean"}).data   # doctest: +SKIP
True

A backend is chosen by one string (see `parse_spec`); `get_llm()` with no argument takes
it from ``$CAUSALQA_LLM``, then the config file, then the default ``local``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from causalqa import config, registry
from causalqa.errors import UnknownBackendError
from causalqa.llm.base import LLM, LabelScores, Message, Response, Usage
from causalqa.llm.cache import ResponseCache
from causalqa.llm.models import EMBEDDED, EmbeddedModel

__all__ = [
    "LLM",
    "LabelScores",
    "Message",
    "Response",
    "ResponseCache",
    "Usage",
    "BackendSpec",
    "parse_spec",
    "get_llm",
    "EMBEDDED",
]


@dataclass(frozen=True)
class BackendSpec:
    """A parsed backend string."""

    backend: str  # "local" or "openai"
    model: str  # embedded model key, GGUF path, or remote model name
    base_url: str | None = None
    embedded: EmbeddedModel | None = None

    @property
    def path(self) -> Path | None:
        if self.backend != "local":
            return None
        return self.embedded.path if self.embedded else Path(self.model).expanduser()


def parse_spec(spec: str) -> BackendSpec:
    """Parse a backend string.

    - ``local`` / ``local:small``: the embedded models (Qwen2.5-Coder 1.5B / 0.5B);
    - ``local:/path/model.gguf``: any GGUF file;
    - ``openai:MODEL``: OpenAI (or ``$OPENAI_BASE_URL``) with that model;
    - ``openai:http://HOST:PORT/v1#MODEL``: any OpenAI-compatible server.
    """
    spec = spec.strip()
    backend, _, rest = spec.partition(":")
    if backend == "local":
        if rest in ("", "small"):
            key = "local:small" if rest else "local"
            return BackendSpec("local", key, embedded=EMBEDDED[key])
        if rest.endswith(".gguf") or "/" in rest or rest.startswith("~"):
            return BackendSpec("local", rest)
        raise UnknownBackendError(
            f"unknown local model {rest!r}: use local, local:small or local:/path/model.gguf"
        )
    if backend == "openai":
        if not rest:
            raise UnknownBackendError("openai: needs a model, e.g. openai:gpt-4o-mini")
        if rest.startswith(("http://", "https://")):
            url, sep, model = rest.partition("#")
            if not sep or not model:
                raise UnknownBackendError(
                    f"{spec!r} names a server but no model: add #MODEL, "
                    "e.g. openai:http://127.0.0.1:8000/v1#qwen"
                )
            return BackendSpec("openai", model, base_url=url.rstrip("/"))
        return BackendSpec("openai", rest)
    if backend and backend in registry.names("llm"):  # a plugin's backend: name:model
        return BackendSpec(backend, rest)
    raise UnknownBackendError(f"unknown LLM backend {spec!r}")


def get_llm(
    spec: str | None = None,
    *,
    cache: bool | ResponseCache | None = None,
    timeout: float | None = None,
    max_retries: int = 2,
    quiet: bool = False,
) -> LLM:
    """The LLM a spec string names (see `parse_spec`); `spec=None` resolves it from the
    environment and config file. `cache=True` uses the default on-disk response cache."""
    resolved, _source = config.resolve_llm_spec(spec)
    parsed = parse_spec(resolved)
    if isinstance(cache, ResponseCache):
        response_cache: ResponseCache | None = cache
    else:
        response_cache = ResponseCache() if config.resolve_cache(cache, default=False) else None
    common = dict(
        cache=response_cache, timeout=config.resolve_timeout(timeout), max_retries=max_retries
    )
    backend = registry.get("llm", parsed.backend)
    return backend.from_spec(parsed, quiet=quiet, **common)
