"""Reproducible installs: every package the code imports is declared in pyproject.toml,
every requirement has an upper bound, constraints.txt pins each one at a version its
bounds allow, scripts/setup.sh installs through the pins, and the licence files exist."""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
sys.path.insert(0, str(ROOT / "scripts"))
import lock  # noqa: E402


def requirements() -> list[Requirement]:
    texts = list(PROJECT["dependencies"])
    for reqs in PROJECT["optional-dependencies"].values():
        texts += reqs
    return [Requirement(t) for t in texts if not t.startswith("causalqa")]


def imported_top_levels() -> dict[str, set[str]]:
    """Top-level module → the source files that import it (third-party only)."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / "src" / "causalqa").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "causalqa" and top not in sys.stdlib_module_names:
                    found.setdefault(top, set()).add(path.name)
    return found


def test_every_imported_package_is_declared():
    declared = {canonicalize_name(r.name) for r in requirements()}
    owners = metadata.packages_distributions()
    missing = {}
    for module, files in imported_top_levels().items():
        dists = {canonicalize_name(d) for d in owners.get(module, [])}
        assert dists, f"{module} (imported by {sorted(files)}) is not installed"
        if not dists & declared:
            missing[module] = sorted(files)
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"


def test_the_check_sees_the_imports_it_must():
    imported = imported_top_levels()
    assert {"scipy", "sklearn", "matplotlib", "pydot", "numpy", "typer"} <= set(imported)


@pytest.mark.parametrize("req", requirements(), ids=str)
def test_every_requirement_has_an_upper_bound_and_a_pin_inside_it(req):
    ops = {s.operator for s in req.specifier}
    assert "==" in ops or ops & {"<", "<=", "~="}, f"{req} has no upper bound"
    pins = lock.read(ROOT / "constraints.txt")
    name = canonicalize_name(req.name)
    assert name in pins, f"{req.name} is not pinned in constraints.txt: run scripts/lock.py"
    assert req.specifier.contains(pins[name], prereleases=True), (req, pins[name])


def test_setup_installs_through_the_pins_and_ci_checks_them():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    installs = [line for line in setup.splitlines() if " install " in line and "pip" in line]
    assert installs
    for line in installs:
        assert '"${lock[@]}"' in line or "--upgrade" in line, line
    assert "lock=(-c constraints.txt)" in setup and '"${pip[@]}" check' in setup
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip check" in ci and "scripts/lock.py --check" in ci
    # CI runs the test command the README gives (its two steps, in order)
    readme = (ROOT / "README.md").read_text()
    command = next(line for line in readme.splitlines() if "setup.sh --dev &&" in line)
    steps = [step.strip() for step in command.split("&&")]
    lines = [line.strip() for line in ci.splitlines()]
    assert all(step in lines for step in steps), (steps, lines)
    assert lines.index(steps[0]) < lines.index(steps[1])


def test_lock_reads_and_renders_pins(tmp_path):
    text = lock.render({"torch": "2.13.0+cpu", "numpy": "2.4.6"})
    path = tmp_path / "c.txt"
    path.write_text(text)
    assert lock.read(path) == {"numpy": "2.4.6", "torch": "2.13.0"}
    path.write_text("numpy>=2\n")
    with pytest.raises(SystemExit, match="not a name==version pin"):
        lock.read(path)


def test_licence_files():
    licence = (ROOT / "LICENSE").read_text()
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert len(licence.splitlines()) > 150  # the whole text, not a pointer to it
    notice = (ROOT / "NOTICE").read_text()
    for model in ("Qwen2.5-Coder-1.5B-Instruct", "Qwen2.5-Coder-0.5B-Instruct", "all-MiniLM-L6-v2"):
        assert model in notice
    # every third-party file bundled in the package is named, beside its licence file
    static = ROOT / "src" / "causalqa" / "server" / "static"
    for bundled, licence in (("cytoscape.js", "cytoscape.LICENSE"),
                             ("Swagger UI", "swagger/LICENSE")):  # fmt: skip
        assert bundled in notice and licence in notice and (static / licence).is_file()
    assert PROJECT["license"] == "Apache-2.0"
    assert set(PROJECT["license-files"]) == {"LICENSE", "NOTICE"}


def test_the_wheel_ships_the_package_only_and_no_pickle():
    """The wheel holds src/causalqa alone: the benchmark data (wording sets, held-out
    ones among them) stays in the repository, and every shipped model is arrays and
    JSON (a pickle would run code when loaded)."""
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    target = wheel["targets"]["wheel"]
    assert target["packages"] == ["src/causalqa"]
    assert not target.get("force-include") and not wheel.get("force-include")
    package = ROOT / "src" / "causalqa"
    assert not list(package.rglob("*.pkl"))
    assert not [p for p in package.rglob("*.json") if '"wordings"' in p.read_text("utf-8")[:4000]]
    pickled = [
        p
        for p in package.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pt") and p.read_bytes()[:1] == b"\x80"
    ]
    assert not pickled, pickled
    # the shipped models it does hold read without pickle
    for npz in package.rglob("*.npz"):
        with np.load(npz, allow_pickle=False) as f:
            assert f.files, npz
    assert (ROOT / "bench" / "data" / "wordings" / "open" / "test14.json").is_file()
