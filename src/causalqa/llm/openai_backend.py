"""The `openai` backend: any OpenAI-compatible server (OpenAI, Azure OpenAI, vLLM, Ollama,
llama.cpp server, LM Studio).

Constrained output uses ``response_format={"type": "json_schema", …}``. Servers that reject
it (llama-cpp-python's server, older vLLM/Ollama) get ``{"type": "json_object"}`` with the
schema attached and spelled out in the prompt; the base class validates and retries once.

`label_logprobs` is exact where the server can echo prompt log-probabilities on the
completions endpoint (vLLM, llama.cpp servers); otherwise it falls back to the chat
endpoint's top log-probabilities of the first reply token, marked ``exact=False``.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

from causalqa.errors import (
    ConfigError,
    LLMConnectionError,
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from causalqa.llm.base import LLM, Generation, LabelScores, Message, Usage

_TOP_LOGPROBS = 20


def _import_openai():
    try:
        import openai
    except ImportError as e:  # pragma: no cover - openai is a core dependency
        raise LLMUnavailableError(
            "the openai package is not installed", hint="pip install openai"
        ) from e
    return openai


def _strict_compatible(schema: Any) -> bool:
    """OpenAI's strict mode needs every object closed and every property required."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if schema.get("additionalProperties", True) is not False:
                return False
            if set(schema.get("required", [])) != set(props):
                return False
        return all(_strict_compatible(v) for v in schema.values())
    if isinstance(schema, list):
        return all(_strict_compatible(v) for v in schema)
    return True


class OpenAILLM(LLM):
    """A model behind an OpenAI-compatible HTTP API."""

    backend = "openai"

    @classmethod
    def from_spec(cls, spec, *, quiet: bool = False, **options: Any) -> OpenAILLM:
        """The model a parsed ``openai:…`` spec names."""
        return cls(spec.model, base_url=spec.base_url, **options)

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not model:
            raise ConfigError(
                "the openai backend needs a model name: openai:MODEL or openai:URL#MODEL"
            )
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if "api.openai.com" in self.base_url:
                raise ConfigError(
                    "the openai backend needs an API key for api.openai.com",
                    hint="set OPENAI_API_KEY, or point at your own server: openai:http://HOST:PORT/v1#MODEL",
                )
            key = "no-key"  # local servers ignore it, the client insists on one
        openai = _import_openai()
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=self.max_retries
        )
        self._json_schema_ok: bool | None = None
        self._echo_ok: bool | None = None

    def cache_identity(self) -> str:
        return f"{self.base_url}#{self.model}"

    def close(self) -> None:
        self._client.close()

    # -- error translation -------------------------------------------------------------
    def _call(self, fn, **kwargs):
        openai = _import_openai()
        try:
            return fn(**kwargs)
        except openai.APITimeoutError as e:
            raise LLMTimeoutError(
                f"{self.base_url} did not answer within {self.timeout:g} s (after "
                f"{self.max_retries} retries)"
            ) from e
        except openai.APIConnectionError as e:
            raise LLMConnectionError(
                f"cannot reach the OpenAI-compatible server at {self.base_url}: {e.__cause__ or e}",
                hint="is the server running and the URL right? e.g. openai:http://127.0.0.1:8000/v1#MODEL",
            ) from e
        except openai.AuthenticationError as e:
            raise ConfigError(
                f"{self.base_url} refused the API key: {_detail(e)}", hint="check OPENAI_API_KEY"
            ) from e
        except openai.NotFoundError as e:
            raise ConfigError(
                f"{self.base_url} does not know model {self.model!r} or the endpoint: {_detail(e)}",
                hint="list the server's models (GET /v1/models) and use openai:URL#MODEL",
            ) from e
        except openai.RateLimitError as e:
            raise LLMRateLimitError(
                f"{self.base_url} is rate-limiting: {_detail(e)}",
                retry_after=_retry_after(e),
            ) from e
        except openai.APIStatusError as e:
            raise _StatusError(e.status_code, _detail(e)) from e

    # -- the two primitives ------------------------------------------------------------
    def _generate(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
        seed: int,
    ) -> Generation:
        kwargs: dict[str, Any] = dict(
            model=self.model,
            messages=messages,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
        )
        try:
            if schema is None:
                return self._chat(kwargs)
            if self._json_schema_ok is not False:
                try:
                    gen = self._chat(
                        {
                            **kwargs,
                            "response_format": {
                                "type": "json_schema",
                                "json_schema": {
                                    "name": "output",
                                    "schema": schema,
                                    "strict": _strict_compatible(schema),
                                },
                            },
                        }
                    )
                except _StatusError as e:
                    # Servers without json_schema say so as 400/422, some (llama-cpp-python's)
                    # as a 500 that names the field.
                    rejected = e.status in (400, 422) or "json_schema" in e.detail
                    if not rejected or self._json_schema_ok:
                        raise
                    self._json_schema_ok = False  # the server lacks json_schema: fall back
                else:
                    self._json_schema_ok = True
                    return gen
            instruction = {
                "role": "system",
                "content": "Reply with only a JSON value that satisfies this JSON schema:\n"
                + json.dumps(schema, ensure_ascii=False),
            }
            return self._chat(
                {
                    **kwargs,
                    "messages": [instruction, *messages],
                    "response_format": {"type": "json_object", "schema": schema},
                }
            )
        except _StatusError as e:
            raise e.as_llm_error(self.base_url) from None

    def _chat(self, kwargs: dict[str, Any]) -> Generation:
        out = self._call(self._client.chat.completions.create, **kwargs)
        if not out.choices:
            raise LLMOutputError(f"{self.base_url} returned no choices")
        choice = out.choices[0]
        usage = Usage(
            getattr(out.usage, "prompt_tokens", 0) or 0,
            getattr(out.usage, "completion_tokens", 0) or 0,
        )
        return Generation(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason or "stop",
            usage=usage,
        )

    def _score_labels(self, prompt: str | list[Message], labels: list[str]) -> LabelScores:
        if isinstance(prompt, str) and self._echo_ok is not False:
            try:
                scores = self._score_by_echo(prompt, labels)
                self._echo_ok = True
                return scores
            except _StatusError as e:
                if self._echo_ok:
                    raise e.as_llm_error(self.base_url) from None
                self._echo_ok = False
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        try:
            return self._score_by_first_token(messages, labels)
        except _StatusError as e:
            raise e.as_llm_error(self.base_url) from None

    def _score_by_echo(self, prompt: str, labels: list[str]) -> LabelScores:
        logprobs: dict[str, float] = {}
        usage = Usage()
        for label in labels:
            out = self._call(
                self._client.completions.create,
                model=self.model,
                prompt=prompt + label,
                max_tokens=1,
                echo=True,
                logprobs=1,
                temperature=0.0,
            )
            lp = out.choices[0].logprobs
            if lp is None or lp.token_logprobs is None or lp.text_offset is None:
                raise _StatusError(400, "server returned no prompt logprobs for echo")
            if lp.token_logprobs and lp.token_logprobs[0] is not None:
                # OpenAI's convention: the first prompt token has no logprob. A server that
                # gives one pairs tokens with the wrong position (llama-cpp-python's does).
                raise _StatusError(400, "echoed logprobs are not aligned with their tokens")
            total, found = 0.0, False
            # Sum over the echoed tokens that start inside the label, not the generated one.
            n_echo = len(lp.tokens) - 1
            for offset, value in zip(lp.text_offset[:n_echo], lp.token_logprobs[:n_echo]):
                if offset >= len(prompt):
                    if value is None:
                        raise _StatusError(400, "server returned a null logprob for a label token")
                    total += value
                    found = True
            if not found:
                raise _StatusError(400, "could not align label tokens in the echoed prompt")
            logprobs[label] = total
            if out.usage:
                usage = usage + Usage(out.usage.prompt_tokens or 0, 0)
        return LabelScores(logprobs=logprobs, usage=usage, exact=True)

    def _score_by_first_token(self, messages: list[Message], labels: list[str]) -> LabelScores:
        out = self._call(
            self._client.chat.completions.create,
            model=self.model,
            messages=messages,
            max_tokens=1,
            temperature=0.0,
            logprobs=True,
            top_logprobs=_TOP_LOGPROBS,
        )
        content = out.choices[0].logprobs.content if out.choices[0].logprobs else None
        if not content:
            raise LLMError(
                f"{self.base_url} returned no log-probabilities for model {self.model!r}",
                hint="use a server that supports logprobs (vLLM, llama.cpp, OpenAI)",
            )
        top = {t.token: t.logprob for t in content[0].top_logprobs}
        floor = min(top.values()) if top else -math.inf
        logprobs = {}
        for label in labels:
            matches = [
                lp for tok, lp in top.items() if tok and label.startswith(tok.strip() or "\0")
            ]
            # Not among the top tokens: at most as likely as the least likely one shown.
            logprobs[label] = max(matches) if matches else floor - math.log(2)
        usage = Usage(getattr(out.usage, "prompt_tokens", 0) or 0, 1)
        return LabelScores(logprobs=logprobs, usage=usage, exact=False)


class _StatusError(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail

    def as_llm_error(self, base_url: str) -> LLMError:
        return LLMServerError(
            f"{base_url} answered HTTP {self.status}: {self.detail}", status=self.status
        )


def _retry_after(e: Exception) -> float | None:
    """Seconds a 429 answer asks to wait (``Retry-After`` in seconds), if it says."""
    response = getattr(e, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: rare from LLM servers; back off on our own schedule


def _detail(e: Exception) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or err)[:300]
        return str(err)[:300]
    return str(getattr(e, "message", e))[:300]
