"""Causal models — a DAG over named variables plus a table of individual treatment
effects — loaded from files (`formats`), built from objects, or fitted from data (`fit`).
Names load on first use, so reading a model does not import the fitting machinery."""

from typing import TYPE_CHECKING

from causalqa._lazy import lazy_exports

if TYPE_CHECKING:
    from causalqa.causal_model.fit import estimate_ites, fit_causal_model, learn_graph
    from causalqa.causal_model.formats import (
        EFFECTS_FORMATS,
        GRAPH_FORMATS,
        load_effects,
        load_graph,
    )
    from causalqa.causal_model.model import CausalModel
    from causalqa.errors import ModelDataError

_EXPORTS = {
    **dict.fromkeys(
        ["estimate_ites", "fit_causal_model", "learn_graph"], "causalqa.causal_model.fit"
    ),
    **dict.fromkeys(
        ["EFFECTS_FORMATS", "GRAPH_FORMATS", "load_effects", "load_graph"],
        "causalqa.causal_model.formats",
    ),
    "CausalModel": "causalqa.causal_model.model",
    "ModelDataError": "causalqa.errors",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "EFFECTS_FORMATS",
    "GRAPH_FORMATS",
    "CausalModel",
    "ModelDataError",
    "estimate_ites",
    "fit_causal_model",
    "learn_graph",
    "load_effects",
    "load_graph",
]
