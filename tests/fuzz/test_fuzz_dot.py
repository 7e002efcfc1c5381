"""DOT graphs: generated (quoted odd names, chains, attributes, comments, subgraphs,
cycles, self-loops, '--') and mutated files load as exactly the graph written, or fail
with one `ModelDataError` naming the file; at the CLI, ``ask --graph`` exits 0 or 1."""

from __future__ import annotations

import networkx as nx
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.common import (
    FILE,
    FUZZ,
    FUZZ_CLI,
    load_or_refused,
    mutated,
    names,
    run_with_file,
)

from causalqa.causal_model import load_graph


def quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


@st.composite
def dots(draw):
    """(DOT text, expected graph or None when the file must be refused)."""
    ids = draw(st.lists(names, min_size=1, max_size=6, unique=True))
    pairs = draw(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=8))
    op = draw(st.sampled_from(["->", "->", "->", "--"]))
    head = draw(st.sampled_from(["digraph", "digraph G", "strict digraph", "graph"]))
    lines = [f"// {draw(st.sampled_from(['a comment', 'x -> y', 'é']))}", head + " {"]
    lines.append(draw(st.sampled_from(["", "rankdir=LR;", "node [shape=box];"])))
    for n in ids:
        lines.append(f"  {quote(n)};")
    expected = nx.DiGraph()
    expected.add_nodes_from(ids)
    ok = head != "graph" and (op == "->" or not pairs)
    for a, b in pairs:
        a, b = a % len(ids), b % len(ids)
        style = draw(st.sampled_from(["", " [color=red]", " /* c */"]))
        lines.append(f"  {quote(ids[a])} {op} {quote(ids[b])}{style};")
        if a == b:
            ok = False
        expected.add_edge(ids[a], ids[b])
    lines.append("}")
    ok = ok and nx.is_directed_acyclic_graph(expected)
    return "\n".join(lines) + "\n", (expected if ok else None)


def load_or_error(content: str | bytes):
    return load_or_refused(load_graph, "g.dot", content)


@FUZZ
@given(dots())
def test_generated_dot_loads_exactly_or_is_refused(case):
    text, expected = case
    g = load_or_error(text)
    if expected is None:
        assert g is None, "a malformed graph was accepted"
        return
    # pydot's grammar reads identifiers of the Basic Multilingual Plane; a name outside
    # it (an emoji) is a clear refusal, never a wrong graph.
    if g is None:
        assert any(ord(c) > 0xFFFF for c in text), text
        return
    assert set(g.nodes) == set(expected.nodes) and set(g.edges) == set(expected.edges)


VALID = """strict digraph "partners" {
  rankdir=LR; node [shape=box];
  "Tech Support" -> Engagement -> Revenue [color=red];
  Discount -> "Revenue"
  "say \\"hi\\"" [label="Label wins"];
  subgraph cluster_x { inner1 -> inner2 }
}
"""


@FUZZ
@given(mutated(VALID))
def test_mutated_dot_is_a_dag_or_one_clear_error(text):
    g = load_or_error(text)
    if g is not None:
        assert nx.is_directed_acyclic_graph(g) and all(isinstance(n, str) for n in g)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_as_dot(data):
    load_or_error(data)


@FUZZ_CLI
@given(mutated(VALID))
def test_ask_with_a_mutated_dot_graph_exits_cleanly(text):
    run_with_file("g.dot", text, "ask", "Does Discount affect Revenue?", "--graph", FILE)
