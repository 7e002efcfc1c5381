"""Errors of the causal deduction engine (paper 002)."""

from __future__ import annotations

from causalqa.errors import CausalQAError, DataFileError


class DeductionError(CausalQAError):
    """Base class of the deduction engine's errors."""


class DatasetError(DeductionError, DataFileError):
    """A deduction data set (JSONL or the NTSB source files) is missing or malformed.

    `path` and `line` locate the problem for programs; the message names them for people.
    """


class ContextError(DeductionError):
    """The accident context or the statement cannot be reasoned over (empty, garbled)."""


class KGError(DeductionError):
    """A causal knowledge graph directory is missing, malformed or inconsistent."""


class UnknownFormatError(DeductionError):
    """A prompt format name is not one of V1–V9."""

    hint = "use one of V1 … V9 (Prompts 5–13 of paper 002); V6 is the paper's best with retrieval"
