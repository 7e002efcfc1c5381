"""The knowledge engines reason over: causal models (graph + individual effects)."""

from causalqa.knowledge.causal_model import (
    EFFECTS_FORMATS,
    GRAPH_FORMATS,
    CausalModel,
    load_effects,
    load_graph,
)
from causalqa.knowledge.errors import ModelDataError

__all__ = [
    "EFFECTS_FORMATS",
    "GRAPH_FORMATS",
    "CausalModel",
    "ModelDataError",
    "load_effects",
    "load_graph",
]
