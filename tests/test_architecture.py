"""The package's import graph, read from the source with `ast`, counting imports placed
inside functions: no module imports itself back through others, and no layer imports a
layer above it (the layers of ../shared/DESIGN.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# Lowest first. A module may import its own layer and those below, never above.
LAYERS: list[tuple[str, set[str]]] = [
    ("utilities", {"", "_compat", "_lazy", "config", "errors", "jsonl", "metrics", "registry"}),
    ("models", {"llm", "embed"}),
    ("knowledge", {"causal_model", "kg"}),
    ("evidence", {"evidence"}),
    ("engines", {"qa", "discovery", "deduction", "stated"}),
    ("evaluation", {"bench"}),
    ("surfaces", {"cli", "server"}),
]


def _layer(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    for i, (_, names) in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS")


def _modules() -> dict[str, Path]:
    found = {}
    for path in (SRC / "causalqa").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_graph() -> nx.DiGraph:
    """module → module it imports (at module level or inside a function)."""
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                candidates = [target] + [f"{target}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            for target in candidates:
                # `import causalqa.x.y` also imports causalqa.x: count the deepest module.
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph.add_edge(name, target)
    return graph


GRAPH = import_graph()


def test_the_graph_sees_the_package():
    assert GRAPH.number_of_nodes() > 50
    assert GRAPH.has_edge("causalqa.cli", "causalqa.cli.options")
    assert GRAPH.has_edge("causalqa.qa.assistant", "causalqa.qa.planner")
    assert GRAPH.has_edge("causalqa.cli.options", "causalqa.llm")  # inside a function


def test_no_import_cycles():
    cycles = list(nx.simple_cycles(GRAPH))
    assert not cycles, "import cycles:\n" + "\n".join(" → ".join(c + [c[0]]) for c in cycles)


@pytest.mark.parametrize("module", sorted(GRAPH.nodes))
def test_no_upward_imports(module):
    upward = [
        f"{module} ({LAYERS[_layer(module)][0]}) → {target} ({LAYERS[_layer(target)][0]})"
        for target in GRAPH.successors(module)
        if _layer(target) > _layer(module)
    ]
    assert not upward, "\n".join(upward)


def test_engine_entry_points_reach_the_llm_in_three_files():
    """Command → engine → LLM call: the engine's entry module is imported by its command
    module, and the LLM is called in the entry module or in a step it imports directly."""
    paths = {
        "causalqa.cli.qa": ("causalqa.qa.assistant", "causalqa.qa.planner"),
        "causalqa.cli.discover": ("causalqa.discovery.pair", "causalqa.discovery.pair"),
        "causalqa.cli.deduce": ("causalqa.deduction.deduce", "causalqa.deduction.deduce"),
    }
    modules = _modules()
    for command, (engine, caller) in paths.items():
        text = modules[command].read_text(encoding="utf-8")
        assert engine in text, f"{command} does not call {engine}"
        assert caller == engine or GRAPH.has_edge(engine, caller)
        source = modules[caller].read_text(encoding="utf-8")
        assert ".complete(" in source or ".label_logprobs(" in source, caller


def test_the_architecture_page_names_every_package():
    """docs/ARCHITECTURE.md is the living picture: each package under src/causalqa/ has its
    sentence there, so a new package cannot arrive unexplained."""
    page = (SRC.parent / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    packages = sorted(p.parent.name for p in (SRC / "causalqa").glob("*/__init__.py"))
    assert len(packages) >= 10
    missing = [name for name in packages if f"`{name}/`" not in page]
    assert not missing, f"docs/ARCHITECTURE.md does not name: {missing}"
