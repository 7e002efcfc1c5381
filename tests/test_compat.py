"""Old import paths keep working for one release, each with a DeprecationWarning that
names the new place."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from causalqa import _compat


@pytest.mark.parametrize(("old", "new"), sorted(_compat.RENAMED_MODULES.items()))
def test_renamed_module_is_the_new_one_with_a_warning(old, new):
    # A fresh interpreter: the warning is given once, on the first import.
    code = (
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        "for w in caught:\n    print('warned:', w.message)\n"
        f"print(old is importlib.import_module({new!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert f"warned: {old} is deprecated" in out.stdout and new in out.stdout, out.stderr
    assert out.stdout.strip().endswith("True")


@pytest.mark.parametrize(("where", "target"), sorted(_compat.MOVED_NAMES.items()))
def test_moved_name_is_forwarded_with_a_warning(where, target):
    (old_module, name), (new_module, new_name) = where, target
    module = importlib.import_module(old_module)
    with pytest.warns(DeprecationWarning, match=f"use {new_module}.{new_name}"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new_module), new_name)


def test_unknown_names_still_fail():
    import causalqa.discovery.pair as pair

    with pytest.raises(AttributeError):
        pair.no_such_name  # noqa: B018
