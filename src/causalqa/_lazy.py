"""Package names that load on first use (PEP 562), so that importing the CLI does not pay
for pandas, torch or a graph database before a command needs them."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

from causalqa._compat import moved_names


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for `package`: each name of `exports` (name → module) is
    imported from its module when first asked for, then kept in the package; a name that
    moved elsewhere is forwarded with a deprecation warning (`causalqa._compat`)."""

    moved = moved_names(package)

    def __getattr__(name: str) -> Any:
        if name in exports:
            value = getattr(importlib.import_module(exports[name]), name)
            setattr(sys.modules[package], name, value)
            return value
        return moved(name)

    return __getattr__
