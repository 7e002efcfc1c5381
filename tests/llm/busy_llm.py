"""A scripted LLM that behaves like a server with several slots, for tests of calls in
flight: it answers after a delay that differs per prompt (so later calls often finish
first), can answer its first `busy` calls with a 429, and counts the calls in flight."""

from __future__ import annotations

import threading
import time
import zlib

from causalqa.errors import LLMRateLimitError
from causalqa.llm.testing import ScriptedLLM


def prompt_delay(text: str) -> float:
    """0–7 ms, fixed per prompt."""
    return (zlib.crc32(text.encode()) % 8) / 1000


class BusyLLM(ScriptedLLM):
    def __init__(self, replies=(), *, busy: int = 0, delay=prompt_delay, **kwargs) -> None:
        super().__init__(replies, **kwargs)
        self.busy, self.now, self.most = busy, 0, 0
        self.delay = delay
        self.gate = threading.Lock()

    def serve(self, text: str, answer):
        """``answer()`` after this prompt's delay, as one call in flight (or a 429)."""
        with self.gate:
            if self.busy:
                self.busy -= 1
                raise LLMRateLimitError("429", retry_after=0.01)
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            time.sleep(self.delay(text))
            return answer()
        finally:
            with self.gate:
                self.now -= 1

    def _generate(self, messages, **kw):
        parent = super()._generate
        return self.serve(messages[-1]["content"], lambda: parent(messages, **kw))

    def _score_labels(self, prompt, labels):
        text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
        parent = super()._score_labels
        return self.serve(text, lambda: parent(prompt, labels))
