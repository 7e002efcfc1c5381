"""Errors about the knowledge a user loads: causal graphs and effects tables."""

from __future__ import annotations

from causalqa.errors import DataFileError


class ModelDataError(DataFileError):
    """A causal-model file (graph or effects table) is missing, malformed or inconsistent.

    The message names the file (or ``<graph>``/``<effects>`` for in-memory data) and, where
    the problem sits at one place, the line and column; `path`, `line` and `column` carry
    the same facts for programs (a server pointing at the offending cell, a test).
    """

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message, hint=hint, path=path, line=line)
        self.column = column
