"""Errors about knowledge graphs: their files, their stores and the names users give."""

from __future__ import annotations

from causalqa.errors import CausalQAError, DataFileError


class KGError(CausalQAError):
    """Base class of every knowledge-graph error."""


class KGFormatError(KGError, DataFileError):
    """A graph file is missing, empty or malformed.

    The message names the file and, where the problem sits on one line, that line (1-based,
    counting the header); `path` and `line` carry the same facts for programs.
    """


class KGStoreError(KGError):
    """A graph store cannot be created, opened or replaced as asked."""


class KGBackendError(KGError):
    """A graph database (the embedded store or a Neo4j server) failed or is unavailable."""


class EntityNotFoundError(KGError):
    """A name or id matches no node of the graph (or matches several, without a clear best)."""

    def __init__(self, message: str, *, hint: str | None = None, candidates=None) -> None:
        super().__init__(message, hint=hint)
        self.candidates = list(candidates or [])
