"""Causal models stated in words: a story (graph, probabilities, mechanisms, or stated
(in)dependences) and a question or a claim, answered exactly by typed code.

Entry: `answer_story(story, question)` (see `causalqa.stated.answer`)."""

from causalqa._lazy import lazy_exports

# `ask_story`, the entry every surface calls, loads its readers on first use.
__getattr__ = lazy_exports(__name__, {"ask_story": "causalqa.stated.route"})
