"""A story that cannot be read as a consistent model."""

from __future__ import annotations

from causalqa.errors import StoryError


class StoryRefusal(StoryError):
    """The story cannot be read as a consistent model; `sentence` is the one at fault."""

    def __init__(self, reason: str, sentence: str = "") -> None:
        super().__init__(f"{reason}: “{sentence}”" if sentence else reason)
        self.reason = reason
        self.sentence = sentence
