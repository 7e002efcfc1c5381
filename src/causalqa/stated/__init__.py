"""Causal models stated in words: a story (graph, probabilities, mechanisms, or stated
(in)dependences) and a question or a claim, answered exactly by typed code.

Entry: `answer_story(story, question)` (see `causalqa.stated.answer`)."""
