"""causalqa: answer causal questions with a language model grounded in causal knowledge."""

from causalqa import _compat

__version__ = "0.1.0"

_compat.install()
