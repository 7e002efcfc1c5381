"""How a failure looks to a client: ``{"error": {"code", "message", "hint"}}`` with an
HTTP status, for every `CausalQAError` (by class, most specific first) and for anything
else (``internal``, 500, no traceback — that stays in the server's log)."""

from __future__ import annotations

import logging

from causalqa.errors import (
    AuthError,
    CausalQAError,
    ConfigError,
    ConflictError,
    ContextError,
    DataFileError,
    EmbeddingError,
    EntityNotFoundError,
    KGBackendError,
    KGStoreError,
    LLMError,
    LLMTimeoutError,
    LLMUnavailableError,
    NotFoundError,
    NotReadyError,
    PayloadTooLargeError,
    PlanError,
    QueueFullError,
    RequestTimeoutError,
)

log = logging.getLogger("causalqa.server")

STATUS: list[tuple[type[CausalQAError], int, str]] = [
    (AuthError, 401, "unauthorized"),
    (NotFoundError, 404, "not_found"),
    (ConflictError, 409, "conflict"),
    (PayloadTooLargeError, 413, "too_large"),
    (QueueFullError, 429, "queue_full"),
    (NotReadyError, 503, "not_ready"),
    (RequestTimeoutError, 504, "timeout"),
    (LLMTimeoutError, 504, "timeout"),
    (LLMUnavailableError, 503, "model_unavailable"),
    (LLMError, 502, "model_error"),
    (KGStoreError, 503, "kg_unavailable"),
    (KGBackendError, 503, "kg_unavailable"),
    (EmbeddingError, 503, "embeddings_unavailable"),
    (DataFileError, 422, "invalid_file"),
    (ContextError, 422, "invalid_text"),
    (EntityNotFoundError, 422, "unknown_entity"),
    (PlanError, 422, "cannot_answer"),
    (ConfigError, 400, "bad_option"),
    (CausalQAError, 400, "bad_request"),
]
"""Error class → (HTTP status, code); the first class the error is an instance of wins."""

HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "queue_full",
    503: "not_ready",
    504: "timeout",
}


def status_of(error: BaseException) -> tuple[int, str]:
    if isinstance(error, CausalQAError):
        for cls, status, code in STATUS:
            if isinstance(error, cls):
                return status, code
    return 500, "internal"


def error_body(error: BaseException) -> dict:
    """The ``error`` object for `error` (a `CausalQAError`, or a bug: logged here)."""
    status, code = status_of(error)
    if isinstance(error, CausalQAError):
        return {"code": code, "message": error.message, "hint": error.hint}
    log.error("internal error", exc_info=error)
    return {
        "code": "internal",
        "message": f"internal error: {type(error).__name__}",
        "hint": "this is a bug in causalqa; the server's log has the details",
    }


def body(code: str, message: str, hint: str | None = None) -> dict:
    return {"error": {"code": code, "message": message, "hint": hint}}
