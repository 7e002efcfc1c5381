"""One registry for the parts a user can swap: LLM backends, path rankers, chain retrievers.

A part is found by its kind and name. Built-in parts are listed here as
``"module:attribute"`` and imported only when first asked for; other packages add theirs
through the entry-point group ``causalqa.<kind>`` (e.g. ``causalqa.ranker``), and code can
add one at run time with `register`.

>>> from causalqa import registry
>>> registry.names("retriever")
['none', 'semantic', 'rotg']
>>> registry.get("ranker", "random").__name__
'RandomRanker'
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from causalqa.errors import ConfigError

KINDS = ("llm", "ranker", "retriever")

# name → ("module:attribute", keyword arguments the factory is always called with)
_BUILTIN: dict[str, dict[str, tuple[str, Mapping[str, Any]]]] = {
    "llm": {
        "local": ("causalqa.llm.local:LocalLLM", {}),
        "openai": ("causalqa.llm.openai_backend:OpenAILLM", {}),
    },
    "ranker": {
        "random": ("causalqa.discovery.rankers:RandomRanker", {}),
        "similarity": ("causalqa.discovery.rankers:SimilarityRanker", {}),
        "llm": ("causalqa.discovery.rankers:LLMPermutationRanker", {}),
        "xgboost": ("causalqa.discovery.rankers:XGBoostRanker", {}),
        "rmse": ("causalqa.discovery.rankers:CrossEncoderRanker", {"loss": "rmse"}),
        "ranknet": ("causalqa.discovery.rankers:CrossEncoderRanker", {"loss": "ranknet"}),
        "listnet": ("causalqa.discovery.rankers:CrossEncoderRanker", {"loss": "listnet"}),
    },
    "retriever": {
        "none": ("causalqa.deduction.retrieve:NoRetriever", {}),
        "semantic": ("causalqa.deduction.retrieve:SemanticRetriever", {}),
        "rotg": ("causalqa.deduction.gnn_retriever:RoTGRetriever", {}),
    },
}
_added: dict[str, dict[str, tuple[Any, Mapping[str, Any]]]] = {k: {} for k in KINDS}


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ConfigError(f"unknown kind of part {kind!r}", hint=f"use {', '.join(KINDS)}")


def _entry_points(kind: str) -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=f"causalqa.{kind}")}


def register(kind: str, name: str, factory: Any, **fixed: Any) -> None:
    """Make `factory` (a class or function) available as `name` of `kind`; `fixed`
    keyword arguments are passed on every `create`. Replaces a part of the same name."""
    _check_kind(kind)
    _added[kind][name.strip().lower()] = (factory, fixed)


def names(kind: str) -> list[str]:
    """Every name of `kind`: built-in first, then registered, then from entry points."""
    _check_kind(kind)
    seen = list(_BUILTIN[kind]) + [n for n in _added[kind] if n not in _BUILTIN[kind]]
    return seen + [n for n in _entry_points(kind) if n not in seen]


def _lookup(kind: str, name: str) -> tuple[Any, Mapping[str, Any]]:
    _check_kind(kind)
    key = name.strip().lower()
    if key in _added[kind]:
        return _added[kind][key]
    if key in _BUILTIN[kind]:
        target, fixed = _BUILTIN[kind][key]
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr), fixed
    points = _entry_points(kind)
    if key in points:
        return points[key].load(), {}
    raise ConfigError(f"unknown {kind} {name!r}", hint=f"use one of: {', '.join(names(kind))}")


def get(kind: str, name: str) -> Any:
    """The class or function registered as `name` of `kind`; `ConfigError` naming the
    choices when there is none."""
    return _lookup(kind, name)[0]


def create(kind: str, name: str, **params: Any) -> Any:
    """A new part: the factory of `name` called with its fixed arguments and those of
    `params` it takes (so one call can offer every part what any of them needs)."""
    factory, fixed = _lookup(kind, name)
    accepted = inspect.signature(factory).parameters.values()
    if not any(p.kind is p.VAR_KEYWORD for p in accepted):
        names_ = {p.name for p in accepted}
        params = {k: v for k, v in params.items() if k in names_}
    return factory(**{**fixed, **params})


def is_builtin(kind: str, name: str) -> bool:
    _check_kind(kind)
    return name.strip().lower() in _BUILTIN[kind]
