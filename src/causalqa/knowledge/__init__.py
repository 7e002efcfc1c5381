"""The knowledge engines reason over: causal models (graph + individual effects)."""

from causalqa.knowledge.causal_model import (
    EFFECTS_FORMATS,
    GRAPH_FORMATS,
    CausalModel,
    load_effects,
    load_graph,
)
from causalqa.knowledge.errors import ModelDataError
from causalqa.knowledge.fit import discover_graph, estimate_ites, fit_causal_model

__all__ = [
    "EFFECTS_FORMATS",
    "GRAPH_FORMATS",
    "CausalModel",
    "ModelDataError",
    "discover_graph",
    "estimate_ites",
    "fit_causal_model",
    "load_effects",
    "load_graph",
]
