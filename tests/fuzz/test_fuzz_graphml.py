"""GraphML graphs: generated (odd names, cycles, self-loops, duplicates, undirected) and
mutated files load as exactly the graph written, or fail with one `ModelDataError` naming
the file; at the CLI, ``ask --graph`` exits 0 or 1 without a traceback."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

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


@st.composite
def graphs(draw):
    """(GraphML text, expected edges or None when the file must be refused)."""
    ids = draw(st.lists(names, min_size=0, max_size=6))
    pairs = draw(
        st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=8)
    )  # indices may point past the nodes: undeclared endpoints
    default = draw(st.sampled_from(["directed", "directed", "undirected"]))
    labelled = draw(st.booleans())
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
        '  <key id="d0" for="node" attr.name="name" attr.type="string"/>',
        f'  <graph edgedefault="{default}">',
    ]
    for i, n in enumerate(ids):
        body = f'<data key="d0">{quoteattr(n)[1:-1]}</data>' if labelled else ""
        lines.append(f"    <node id={quoteattr(f'n{i}' if labelled else n)}>{body}</node>")
    node_id = [f"n{i}" if labelled else n for i, n in enumerate(ids)]
    edges = []
    for a, b in pairs:
        src = node_id[a] if a < len(ids) else f"ghost{a}"
        dst = node_id[b] if b < len(ids) else f"ghost{b}"
        lines.append(f"    <edge source={quoteattr(src)} target={quoteattr(dst)}/>")
        edges.append((a, b))
    lines += ["  </graph>", "</graphml>"]
    text = "\n".join(lines) + "\n"
    expected = nx.DiGraph()
    expected.add_nodes_from(ids)
    ok = default == "directed" and bool(ids) and len(set(ids)) == len(ids)
    for a, b in edges:
        if a >= len(ids) or b >= len(ids) or a == b:
            ok = False
            continue
        expected.add_edge(ids[a], ids[b])
    ok = ok and nx.is_directed_acyclic_graph(expected)
    # XML 1.0 cannot hold most control characters, even escaped.
    if any(ord(c) < 32 and c not in "\t\n\r" or c in "\ufffe\uffff" for c in text):
        ok = False
    return text, (expected if ok else None)


@FUZZ
@given(graphs())
def test_generated_graphml_loads_exactly_or_is_refused_by_name(case):
    text, expected = case

    def refused(e, _path):
        # XML normalises \r and tabs in attribute values: such names may be refused
        # or read back normalised; a refusal of a clean valid graph is a bug.
        assert expected is None or any(c in text for c in "\r\t"), e.message

    g = load_or_refused(load_graph, "g.graphml", text, on_error=refused)
    if g is None:
        return
    if expected is None:
        # Only whitespace normalisation (XML attribute rules) may make a bad file valid.
        assert any(c in text for c in "\r\t\n"), "a malformed graph was accepted"
        return
    assert nx.is_directed_acyclic_graph(g) and all(isinstance(n, str) for n in g)
    if not any(c in text for c in "\r\t"):
        assert set(g.nodes) == set(expected.nodes) and set(g.edges) == set(expected.edges)


VALID = (
    '<?xml version="1.0"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
    '<key id="d0" for="node" attr.name="name" attr.type="string"/>\n'
    '<graph edgedefault="directed">\n<node id="a"><data key="d0">Tech Support</data></node>\n'
    '<node id="b"/>\n<node id="c"/>\n<edge source="a" target="b"/>\n<edge source="b" target="c"/>\n'
    "</graph>\n</graphml>\n"
)


@FUZZ
@given(mutated(VALID))
def test_mutated_graphml_is_a_dag_or_one_clear_error(text):
    g = load_or_refused(load_graph, "g.graphml", text)
    if g is not None:
        assert nx.is_directed_acyclic_graph(g) and all(isinstance(n, str) for n in g)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_as_graphml(data):
    load_or_refused(load_graph, "g.graphml", data)


@FUZZ_CLI
@given(mutated(VALID))
def test_ask_with_a_mutated_graph_exits_cleanly(text):
    run, path = run_with_file("g.graphml", text, "ask", "Does Tech Support affect c?", "--graph",
                              FILE)  # fmt: skip
    if run.code == 1:
        assert str(path) in run.stderr
