"""Causal models — a DAG over named variables plus a table of individual treatment
effects — loaded from files (`formats`), built from objects, or fitted from data (`fit`)."""

from causalqa._compat import moved_names
from causalqa.causal_model.fit import estimate_ites, fit_causal_model, learn_graph
from causalqa.causal_model.formats import EFFECTS_FORMATS, GRAPH_FORMATS, load_effects, load_graph
from causalqa.causal_model.model import CausalModel
from causalqa.errors import ModelDataError

__all__ = [
    "EFFECTS_FORMATS",
    "GRAPH_FORMATS",
    "CausalModel",
    "ModelDataError",
    "learn_graph",
    "estimate_ites",
    "fit_causal_model",
    "load_effects",
    "load_graph",
]


__getattr__ = moved_names(__name__)  # old names, for one release
