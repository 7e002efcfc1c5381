"""The small core every backend shares: messages in, a `Response` out.

A backend implements two primitives — `_generate` (one decoding pass) and
`_score_labels` (log-probabilities of candidate continuations) — and this module adds
what is the same for all of them: message normalisation, JSON-schema checking, parsing
and validation, one bounded retry for cut-off or invalid output, timing, token usage and
the response cache.
"""

from __future__ import annotations

import json
import math
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from typing import Any

from causalqa.errors import LLMError, LLMOutputError
from causalqa.llm.cache import ResponseCache
from causalqa.llm.schema import check_schema, parse_json_output

Message = dict[str, str]
Messages = str | Sequence[Message]

_ROLES = {"system", "user", "assistant"}


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass
class Generation:
    """What a backend's single decoding pass returns."""

    text: str
    finish_reason: str
    usage: Usage


@dataclass
class Response:
    """The result of `LLM.complete`."""

    text: str
    data: Any = None
    """The parsed JSON when a schema was given (already validated against it)."""
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    model: str = ""
    backend: str = ""
    finish_reason: str = "stop"
    attempts: int = 1
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["usage"]["total_tokens"] = self.usage.total_tokens
        return d


@dataclass
class LabelScores:
    """Log-probability of each candidate label as the continuation of a prompt."""

    logprobs: dict[str, float]
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    model: str = ""
    backend: str = ""
    exact: bool = True
    """False when the backend could only score each label's first token."""
    cached: bool = False

    @property
    def probabilities(self) -> dict[str, float]:
        """exp(logprob): the model's own probability of each label (they sum to ≤ 1 when no
        label is a prefix of another)."""
        return {k: math.exp(v) for k, v in self.logprobs.items()}

    @property
    def normalized(self) -> dict[str, float]:
        """Probabilities renormalised over the candidate labels only (sum to 1)."""
        top = max(self.logprobs.values())
        if top == -math.inf:
            return {k: 1.0 / len(self.logprobs) for k in self.logprobs}
        exps = {k: math.exp(v - top) for k, v in self.logprobs.items()}
        z = sum(exps.values())
        return {k: v / z for k, v in exps.items()}

    @property
    def best(self) -> str:
        return max(self.logprobs, key=lambda k: self.logprobs[k])

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["probabilities"] = self.probabilities
        d["normalized"] = self.normalized
        d["best"] = self.best
        return d


def normalize_messages(messages: Messages) -> list[Message]:
    """Accept a plain prompt string or a list of {"role", "content"} dicts."""
    if isinstance(messages, str):
        if not messages.strip():
            raise LLMError("the prompt is empty", hint="give the model something to answer")
        return [{"role": "user", "content": messages}]
    out: list[Message] = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise LLMError(f"message {i} must be a dict with 'role' and 'content', got {m!r}")
        if m["role"] not in _ROLES:
            raise LLMError(
                f"message {i} has unknown role {m['role']!r}; use one of {sorted(_ROLES)}"
            )
        if not isinstance(m["content"], str):
            raise LLMError(f"message {i} content must be a string")
        out.append({"role": m["role"], "content": m["content"]})
    if not out:
        raise LLMError("no messages given", hint="give the model something to answer")
    return out


def _check_labels(labels: Sequence[str]) -> list[str]:
    labels = list(labels)
    if not labels:
        raise LLMError("label_logprobs needs at least one candidate label")
    if any(not isinstance(x, str) or not x for x in labels):
        raise LLMError("every candidate label must be a non-empty string")
    if len(set(labels)) != len(labels):
        raise LLMError(f"candidate labels must be distinct, got {labels}")
    return labels


class LLM(ABC):
    """A language model behind one of causalqa's backends.

    Subclasses set `backend` and `model` and implement `_generate` and `_score_labels`.
    """

    backend: str = "?"
    model: str = "?"

    def __init__(
        self,
        *,
        cache: ResponseCache | None = None,
        timeout: float = 300.0,
        max_retries: int = 2,
    ) -> None:
        self.cache = cache
        self.timeout = timeout
        self.max_retries = max_retries

    # -- what a backend provides -------------------------------------------------------
    @abstractmethod
    def _generate(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
        seed: int,
    ) -> Generation:
        """One decoding pass; with a schema, decoding is constrained to it where the
        backend can, and the text is expected to be JSON."""

    @abstractmethod
    def _score_labels(self, prompt: str | list[Message], labels: list[str]) -> LabelScores:
        """Log-probabilities of each label continuing `prompt`."""

    def cache_identity(self) -> str:
        """What identifies this model's outputs in the cache (overridden to add e.g. a
        checksum of the weights)."""
        return self.model

    def load(self) -> None:
        """Load the model now rather than on first use (a no-op for remote backends)."""

    def load_in_background(self) -> Future:
        """Start `load` in a thread and return at once, so the caller can import and read
        its data meanwhile (llama.cpp reads the weights without holding the GIL).
        ``.result()`` waits for it and raises what loading raised."""
        future: Future = Future()

        def run() -> None:
            try:
                self.load()
            except BaseException as e:  # handed to whoever waits on the future
                future.set_exception(e)
            else:
                future.set_result(self)

        threading.Thread(target=run, name="causalqa-load", daemon=True).start()
        return future

    def close(self) -> None:
        """Release the model (memory, connections)."""

    def warm_prefix(self, prefix: list[Message]) -> str:
        """Prepare the state a prompt that starts with the conversation `prefix` needs, so
        that the first such prompt in any later process is quick. Returns what happened:
        "saved", "loaded" (it was saved already) or "not kept" (the backend keeps no state
        across processes, or the prefix is too short to be worth it)."""
        return "not kept"

    # -- the public interface ----------------------------------------------------------
    def complete(
        self,
        messages: Messages,
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int = 0,
    ) -> Response:
        """Generate a reply to `messages` (a prompt string or chat messages).

        With `schema` (a JSON Schema dict) the reply is JSON that validates against it,
        returned parsed in `Response.data`. Output cut off by `max_tokens` or invalid
        under the schema is retried once (with twice the tokens, or with the validation
        error shown to the model); if it still fails, `LLMOutputError` is raised — never
        half a JSON document.
        """
        msgs = normalize_messages(messages)
        if max_tokens < 1:
            raise LLMError(f"max_tokens must be at least 1, got {max_tokens}")
        if schema is not None:
            check_schema(schema)
        request = {
            "kind": "complete",
            "messages": msgs,
            "schema": schema,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": seed,
        }
        key = self._cache_key(request)
        hit = self._from_cache(key, Response)
        if hit is not None:
            return hit

        start = time.perf_counter()
        if schema is None:
            gen = self._generate(
                msgs, schema=None, max_tokens=max_tokens, temperature=temperature, seed=seed
            )
            response = Response(
                text=gen.text,
                usage=gen.usage,
                finish_reason=gen.finish_reason,
                model=self.model,
                backend=self.backend,
            )
        else:
            response = self._complete_json(msgs, schema, max_tokens, temperature, seed)
        response.seconds = time.perf_counter() - start

        self._to_cache(key, response)
        return response

    def label_logprobs(self, prompt: Messages, labels: Sequence[str]) -> LabelScores:
        """Exact log-probability of each candidate label as the model's continuation of
        `prompt`, summed over the label's tokens.

        `prompt` is either chat messages (rendered with the model's chat template and an
        open assistant turn, so labels are scored as the start of the reply) or a raw
        string used exactly as given.
        """
        labels = _check_labels(labels)
        if isinstance(prompt, str):
            if not prompt:
                raise LLMError("the prompt is empty")
            norm: str | list[Message] = prompt
        else:
            norm = normalize_messages(prompt)
        request = {"kind": "label_logprobs", "prompt": norm, "labels": labels}
        key = self._cache_key(request)
        hit = self._from_cache(key, LabelScores)
        if hit is not None:
            return hit
        start = time.perf_counter()
        scores = self._score_labels(norm, labels)
        scores.seconds = time.perf_counter() - start
        scores.model, scores.backend = self.model, self.backend
        self._to_cache(key, scores)
        return scores

    # -- shared machinery --------------------------------------------------------------
    def _cache_key(self, request: dict[str, Any]) -> str | None:
        if self.cache is None:
            return None
        return self.cache.key(self.backend, self.cache_identity(), request)

    def _from_cache(self, key: str | None, cls):
        """The cached `Response`/`LabelScores` for `key`, marked cached, or None."""
        if key is None:
            return None
        hit = self.cache.get(key)  # type: ignore[union-attr]
        if hit is None:
            return None
        hit["usage"] = Usage(**hit["usage"])
        return cls(**hit, cached=True)

    def _to_cache(self, key: str | None, result: Response | LabelScores) -> None:
        if key is None:
            return
        stored = asdict(result)
        stored.pop("cached")
        self.cache.put(key, stored)  # type: ignore[union-attr]

    def _complete_json(
        self,
        msgs: list[Message],
        schema: dict[str, Any],
        max_tokens: int,
        temperature: float,
        seed: int,
    ) -> Response:
        usage = Usage()
        attempt_msgs = msgs
        tokens = max_tokens
        problem = ""
        for attempt in (1, 2):
            gen = self._generate(
                attempt_msgs, schema=schema, max_tokens=tokens, temperature=temperature, seed=seed
            )
            usage = usage + gen.usage
            if gen.finish_reason == "length":
                problem = (
                    f"the output was cut off at max_tokens={tokens} before the JSON was complete"
                )
                tokens *= 2
                continue
            try:
                data = parse_json_output(gen.text, schema)
            except LLMOutputError as e:
                problem = e.message
                # Show the model its own output and what was wrong with it, once.
                attempt_msgs = [
                    *msgs,
                    {"role": "assistant", "content": gen.text},
                    {
                        "role": "user",
                        "content": (
                            f"That output is not valid: {problem}. Reply again with only a "
                            "JSON value that satisfies this JSON schema:\n"
                            + json.dumps(schema, ensure_ascii=False)
                        ),
                    },
                ]
                continue
            return Response(
                text=gen.text,
                data=data,
                usage=usage,
                finish_reason=gen.finish_reason,
                model=self.model,
                backend=self.backend,
                attempts=attempt,
            )
        raise LLMOutputError(
            f"{self.backend}:{self.model} gave no valid JSON after 2 attempts: {problem}",
            hint="raise --max-tokens, simplify the schema, or use a larger model",
        )
