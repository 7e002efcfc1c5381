"""A scripted LLM for unit tests of code that talks to an LLM. Never a default backend:
`get_llm` cannot return it; tests construct it directly."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from causalqa.llm.base import LLM, Generation, LabelScores, Message, Usage


class ScriptedLLM(LLM):
    """Replies from a script: a list of texts (served in order) or a function of the
    messages. `label_scores` maps label → log-probability for `label_logprobs`."""

    backend = "scripted"
    model = "scripted"

    def __init__(
        self,
        replies: Iterable[str] | Callable[[list[Message]], str] = (),
        *,
        label_scores: dict[str, float] | None = None,
        finish_reason: str = "stop",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._replies = replies if callable(replies) else list(replies)
        self.label_scores = label_scores or {}
        self.finish_reason = finish_reason
        self.calls: list[dict[str, Any]] = []

    def _generate(self, messages, *, schema, max_tokens, temperature, seed) -> Generation:
        self.calls.append({"messages": messages, "schema": schema, "max_tokens": max_tokens})
        if callable(self._replies):
            text = self._replies(messages)
        elif self._replies:
            text = self._replies.pop(0)
        else:
            raise AssertionError("ScriptedLLM ran out of replies")
        words = sum(len(m["content"].split()) for m in messages)
        return Generation(text, self.finish_reason, Usage(words, len(text.split())))

    def _score_labels(self, prompt, labels) -> LabelScores:
        self.calls.append({"prompt": prompt, "labels": labels})
        return LabelScores({lab: self.label_scores.get(lab, -10.0) for lab in labels})
