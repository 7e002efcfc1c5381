"""causalqa: answer causal questions with a language model grounded in causal knowledge."""

__version__ = "0.1.0"
