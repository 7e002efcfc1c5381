"""Old import paths, kept working for one release with a `DeprecationWarning`.

The package was reorganised in 0.2 (one CLI package, one benchmark home, the causal model
under `causalqa.causal_model`). This module is the one place that knows the old names:
`RENAMED_MODULES` maps an old module path to its new one (an import finder serves it), and
`MOVED_NAMES` maps a name that left a module which still exists to where it went (the
module's ``__getattr__`` forwards it). Nothing in the package imports through either.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from collections.abc import Callable
from typing import Any

RENAMED_MODULES = {
    "causalqa.knowledge": "causalqa.causal_model",
    "causalqa.knowledge.causal_model": "causalqa.causal_model.model",
    "causalqa.knowledge.fit": "causalqa.causal_model.fit",
    "causalqa.knowledge.examples": "causalqa.causal_model.examples",
    "causalqa.knowledge.errors": "causalqa.errors",
    "causalqa.kg.errors": "causalqa.errors",
    "causalqa.kg.cli": "causalqa.cli.kg",
    "causalqa.deduction.errors": "causalqa.errors",
    "causalqa.deduction.ckg": "causalqa.deduction.event_graph",
    "causalqa.deduction.rotg": "causalqa.deduction.gnn_retriever",
    "causalqa.deduction.bench": "causalqa.bench.deduction",
    "causalqa.deduction.cli": "causalqa.cli.deduce",
    "causalqa.discovery.metrics": "causalqa.metrics",
    "causalqa.discovery.bench_pairs": "causalqa.bench.discovery_pairs",
    "causalqa.discovery.sachs": "causalqa.bench.discovery_sachs",
    "causalqa.discovery.cli": "causalqa.cli.bench",
    "causalqa.discovery.discover_cli": "causalqa.cli.discover",
}

# (old module, name) → (new module, new name)
MOVED_NAMES: dict[tuple[str, str], tuple[str, str]] = {
    ("causalqa.kg", "Path"): ("causalqa.kg.model", "KGPath"),
    ("causalqa.kg.model", "Path"): ("causalqa.kg.model", "KGPath"),
    ("causalqa.deduction", "KGError"): ("causalqa.errors", "EventGraphError"),
    ("causalqa.causal_model", "discover_graph"): ("causalqa.causal_model.fit", "learn_graph"),
    ("causalqa.causal_model.fit", "discover_graph"): ("causalqa.causal_model.fit", "learn_graph"),
    ("causalqa.discovery.reference", "ReferenceError"): (
        "causalqa.errors",
        "ReferenceThresholdsError",
    ),
    ("causalqa.discovery.reference", "measure_reference"): (
        "causalqa.bench.discovery_reference",
        "measure_reference",
    ),
    ("causalqa.discovery.reference", "evaluate_decisions"): (
        "causalqa.bench.discovery_reference",
        "evaluate_decisions",
    ),
    **{
        ("causalqa.discovery.pair", name): ("causalqa.discovery.rankers", name)
        for name in ("RANKERS", "TRAINED", "load_ranker", "ranker_file", "save_ranker")
    },
    **{
        ("causalqa.discovery.rankers", name): ("causalqa.bench.discovery_rankers", name)
        for name in (
            "PAPER_TABLE_D2",
            "RankerEvaluation",
            "default_rankers",
            "evaluate_ranking",
            "evaluate_rankers",
            "versus_random",
        )
    },
    ("causalqa.discovery.graph", "benchmark_sachs_kg"): (
        "causalqa.bench.discovery_sachs",
        "benchmark_sachs_kg",
    ),
    ("causalqa.discovery.graph", "SACHS_CONTEXT"): (
        "causalqa.bench.discovery_sachs",
        "SACHS_CONTEXT",
    ),
}


def _warn(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new}",
        DeprecationWarning,
        stacklevel=3,
    )


class _RenamedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves an old module path with the module that replaced it."""

    def find_spec(self, fullname: str, path: Any, target: Any = None):
        if fullname not in RENAMED_MODULES:
            return None
        is_package = fullname == "causalqa.knowledge"
        return importlib.util.spec_from_loader(fullname, self, is_package=is_package)

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        new = RENAMED_MODULES[module.__name__]
        _warn(module.__name__, new)
        # The import system returns whatever sys.modules holds once this returns.
        sys.modules[module.__name__] = importlib.import_module(new)


def install() -> None:
    """Put the finder of renamed modules on `sys.meta_path` (once)."""
    if not any(isinstance(f, _RenamedModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _RenamedModuleFinder())


def moved_names(module: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` that forwards the names `MOVED_NAMES` lists for `module`."""

    def __getattr__(name: str) -> Any:
        target = MOVED_NAMES.get((module, name))
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new_module, new_name = target
        _warn(f"{module}.{name}", f"{new_module}.{new_name}")
        return getattr(importlib.import_module(new_module), new_name)

    return __getattr__
