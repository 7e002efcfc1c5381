"""The CLI starts without the heavy libraries, and the engines' packages still export
every name they list."""

import importlib
import subprocess
import sys

import pytest


def test_cli_import_leaves_heavy_libraries_unloaded():
    code = (
        "import sys, causalqa.cli; "
        "print(','.join(m for m in ('pandas', 'torch', 'ladybug', 'llama_cpp', "
        "'sentence_transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("package", ["causalqa.kg", "causalqa.deduction"])
def test_lazy_packages_export_every_listed_name(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018
