"""One exception hierarchy for causalqa, in one place.

Every error a user can cause or meet carries a one-line message and, where there is one,
a hint saying what to do. The CLI and the server catch `CausalQAError` once and show
exactly that; a traceback only appears with `--verbose`.
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


class StoryError(CausalQAError):
    """A causal model stated in words cannot be read as a consistent model (a cycle, a
    probability above 1, a number that refers to no variable, contradictory statements),
    or its question cannot be read. The message names the sentence."""


# -- settings ------------------------------------------------------------------------------
class ConfigError(CausalQAError):
    """A setting, a backend spec or a config file is wrong."""


class UnknownBackendError(ConfigError):
    """A backend spec string names no known backend."""

    hint = (
        "use one of: local, local:small, local:/path/model.gguf, openai:MODEL, "
        "openai:http://HOST:PORT/v1#MODEL"
    )


class MetricInputError(CausalQAError):
    """Inputs to a metric do not fit together (shapes, values, orders)."""


# -- models: the LLM and the embedder --------------------------------------------------------
class SchemaError(CausalQAError):
    """A JSON schema given for constrained output is missing, malformed or unsupported."""


class LLMError(CausalQAError):
    """Something went wrong while talking to a language model."""


class LLMUnavailableError(LLMError):
    """The model cannot be reached or loaded (server down, missing package, bad GGUF)."""


class LLMConnectionError(LLMUnavailableError):
    """A server could not be reached (refused, reset, DNS): often brief, worth a retry."""


class LLMTimeoutError(LLMError):
    """A call took longer than its timeout."""

    hint = "raise the timeout (--timeout or CAUSALQA_TIMEOUT) or use a faster model"


class LLMRateLimitError(LLMError):
    """A server answered 429 (too many requests); `retry_after` is its advice in seconds."""

    hint = "lower --concurrency, or retry later"

    def __init__(
        self, message: str, *, hint: str | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after


class LLMServerError(LLMError):
    """A server answered with an HTTP error status (`status`); 5xx ones are worth a retry."""

    def __init__(self, message: str, *, hint: str | None = None, status: int = 0) -> None:
        super().__init__(message, hint=hint)
        self.status = status


class LLMOutputError(LLMError):
    """The model's output could not be used: unparseable, invalid under the schema, cut off."""


class ModelFileError(LLMUnavailableError):
    """An embedded GGUF model cannot be assembled or is corrupted."""


class EmbeddingError(CausalQAError):
    """The sentence-embedding model cannot be loaded or used."""


# -- causal models (graph + effects table) ---------------------------------------------------
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


# -- knowledge graphs -----------------------------------------------------------------------
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


# -- evidence models (shared by the engines) ------------------------------------------------
class EvidenceModelError(CausalQAError):
    """An evidence model is misused (not fitted, features that do not match) or cannot be
    trained on the data given."""


# -- the QA engine (paper 000) ---------------------------------------------------------------
class QuestionError(CausalQAError):
    """A question the QA engine does not take: empty, or longer than any question."""

    hint = "ask one question about the model, in a sentence or two"


class PlanError(CausalQAError):
    """A plan cannot be run: malformed, an unknown tool or argument, or a call that fails.

    The message says which step and what is wrong in words an LLM can repair from.
    """

    hint = "fix the plan and run it again"


class ToolError(PlanError):
    """A tool was called with an argument the model does not have, or one that makes no
    sense (an empty subset, k < 1, no effects table)."""

    hint = "call the tool with names and values the model has"


# -- knowledge-based discovery (paper 001) ---------------------------------------------------
class DiscoveryError(CausalQAError):
    """Base class of the discovery engine's errors."""


class PairDiscoveryError(DiscoveryError):
    """A pair cannot be classified as asked (bad ranker name, missing trained ranker, ...)."""


class GraphDiscoveryError(DiscoveryError):
    """A graph cannot be discovered as asked (too few variables, duplicates, ...)."""


class RankerError(DiscoveryError):
    """A ranker is misused (not fitted, bad parameters) or cannot produce a ranking."""


class ReferenceThresholdsError(DiscoveryError):
    """Reference thresholds cannot be measured, read or written."""


class BaselineError(DiscoveryError):
    """A statistical baseline cannot run on the given data."""


class PathDataError(DiscoveryError, DataFileError):
    """A path data file is missing, unreadable or has a malformed line."""

    hint = "each line is one JSON record as in susantiyuni/path-to-causality (see pathdata's doc)"


class SachsDataError(DiscoveryError, DataFileError):
    """The SACHS files are missing or malformed."""

    hint = "the folder holds cyto_full_data.csv, cyto_full_target.csv, bnlearn_sachs.graph.txt"


class CorpusError(DiscoveryError, DataFileError):
    """A training corpus of the text relation classifier (SemEval-2010 Task 8, the ADE
    corpus) is missing, malformed, or a reserved file was asked for."""


class MentionError(PairDiscoveryError):
    """A sentence given as context cannot be read for the pair: it is empty, or A or B does
    not occur in it."""

    hint = "give a sentence that names both variables, or leave --context out"


class EvidenceArtefactError(DiscoveryError):
    """The trained evidence model (combiner or text classifier) is missing, damaged or was
    made for other features; rebuild it with: causalqa discover train."""

    hint = "rebuild it: causalqa discover train"


# -- causal deduction (paper 002) ------------------------------------------------------------
class DeductionError(CausalQAError):
    """Base class of the deduction engine's errors."""


class DatasetError(DeductionError, DataFileError):
    """A deduction data set (JSONL or the NTSB source files) is missing or malformed.

    `path` and `line` locate the problem for programs; the message names them for people.
    """


class ContextError(DeductionError):
    """The accident context or the statement cannot be reasoned over (empty, garbled)."""


class EventGraphError(DeductionError, DataFileError):
    """A causal knowledge graph directory (mined from reports) is missing, malformed or
    inconsistent."""


class UnknownFormatError(DeductionError):
    """A prompt format name is not one of V1–V9."""

    hint = "use one of V1 … V9 (Prompts 5–13 of paper 002); V6 is the paper's best with retrieval"


# -- the service (HTTP API, web page, MCP server) ---------------------------------------------
class ServiceError(CausalQAError):
    """A request to the service (``causalqa serve`` / ``causalqa mcp``) cannot be served as
    sent. The server answers each subclass with its own HTTP status."""


class NotFoundError(ServiceError):
    """A causal model, chat session or job of that id does not exist (or has expired)."""


class ConflictError(ServiceError):
    """The request would overwrite or remove something it may not (a model of that name
    exists already; a model loaded by the operator cannot be deleted)."""


class AuthError(ServiceError):
    """A request without the bearer token the server was started with."""

    hint = "send the header 'Authorization: Bearer <token>' with the server's --token"


class PayloadTooLargeError(ServiceError):
    """A request body or upload is larger than the server accepts."""


class QueueFullError(ServiceError):
    """The model worker's queue is full: the request was not queued."""

    hint = "retry after a few seconds, or start the server with a longer --queue"


class NotReadyError(ServiceError):
    """The model (or the knowledge graph a request needs) is not loaded yet, or failed
    to load."""


class RequestTimeoutError(ServiceError):
    """A request took longer than the server's per-request time limit."""

    hint = "retry with a shorter input, or start the server with a longer --timeout"
