"""One exception hierarchy for causalqa.

Every error a user can cause or meet carries a one-line message and, where there is one,
a hint saying what to do. The CLI (and later the server) catches `CausalQAError` once and
shows exactly that; a traceback only appears with `--verbose`.
"""

from __future__ import annotations


class CausalQAError(Exception):
    """Base class of every error causalqa raises on purpose."""

    hint: str | None = None

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.__class__.__name__


class DataFileError(CausalQAError):
    """A file a user gives is missing, empty or malformed.

    The message names the file and, where the problem sits on one line, that line;
    `path` and `line` carry the same facts for programs (a server, a test).
    """

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        path: str | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.path = path
        self.line = line


class ConfigError(CausalQAError):
    """A setting, a backend spec or a config file is wrong."""


class UnknownBackendError(ConfigError):
    """A backend spec string names no known backend."""

    hint = (
        "use one of: local, local:small, local:/path/model.gguf, openai:MODEL, "
        "openai:http://HOST:PORT/v1#MODEL"
    )


class SchemaError(CausalQAError):
    """A JSON schema given for constrained output is missing, malformed or unsupported."""


class LLMError(CausalQAError):
    """Something went wrong while talking to a language model."""


class LLMUnavailableError(LLMError):
    """The model cannot be reached or loaded (server down, missing package, bad GGUF)."""


class LLMTimeoutError(LLMError):
    """A call took longer than its timeout."""

    hint = "raise the timeout (--timeout or CAUSALQA_TIMEOUT) or use a faster model"


class LLMOutputError(LLMError):
    """The model's output could not be used: unparseable, invalid under the schema, cut off."""


class ModelFileError(LLMUnavailableError):
    """An embedded GGUF model cannot be assembled or is corrupted."""


class EmbeddingError(CausalQAError):
    """The sentence-embedding model cannot be loaded or used."""
