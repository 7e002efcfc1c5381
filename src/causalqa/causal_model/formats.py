"""Reading causal models from files: graphs (GraphML, DOT, edge-list CSV, JSON) and
effects tables (CSV, Parquet). Everything is validated on the way in — a silently mangled
name or a NaN would become a confidently wrong answer downstream — and every problem
raises `ModelDataError` naming the file, the line and column, and a hint with the fix."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math
import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree
from xml.parsers import expat

import networkx as nx
import numpy as np
import pandas as pd
import pydot
import pyparsing as pp

from causalqa.errors import ModelDataError

GRAPH_FORMATS = {
    ".graphml": "graphml",
    ".xml": "graphml",
    ".dot": "dot",
    ".gv": "dot",
    ".csv": "csv",
    ".tsv": "csv",
    ".json": "json",
}
"""Graph file suffix → format that `load_graph` reads it as."""

EFFECTS_FORMATS = {".csv": "csv", ".tsv": "csv", ".parquet": "parquet", ".pq": "parquet"}
"""Effects file suffix → format that `load_effects` reads it as."""

_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}
_MISSING = {"", "nan", "na", "n/a", "null", "none", "<na>"}
_EDGE_COLUMNS = (("source", "target"), ("cause", "effect"), ("from", "to"))

GRAPH_HINT = "a causal graph must be a directed acyclic graph over uniquely named variables"
EFFECTS_HINT = (
    "the first column holds subject ids, every other column either numbers (the individual "
    "effect of one treatment) or true/false (a filter such as 'Already Engaged')"
)


# -- locations and errors ---------------------------------------------------------------


@dataclass(frozen=True)
class _Loc:
    """Where in a source a problem sits: a line (and column), or a path like `edges[3]`."""

    line: int | None = None
    column: int | None = None
    where: str | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"line {self.line}" + (f", column {self.column}" if self.column else "")
        return self.where or ""


def invalid(source: str, problem: str, *, hint: str | None = None, loc: _Loc | None = None):
    where = str(loc) if loc is not None else ""
    return ModelDataError(
        f"{source}, {where}: {problem}" if where else f"{source}: {problem}",
        hint=hint,
        path=source,
        line=loc.line if loc is not None else None,
        column=loc.column if loc is not None else None,
    )


def _read_bytes(path: Path) -> bytes:
    if not path.exists():
        raise invalid(str(path), "file not found", hint="check the path")
    if path.is_dir():
        raise invalid(str(path), "is a directory, not a file", hint="give the path of the file")
    try:
        return path.read_bytes()
    except OSError as e:
        raise invalid(
            str(path), f"cannot be read ({e.strerror})", hint="check its permissions"
        ) from None


def _read_text(path: Path) -> str:
    data = _read_bytes(path)
    try:
        # utf-8-sig: spreadsheet programs like to put a BOM in front of the header.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise invalid(
            str(path),
            f"is not UTF-8 text (byte {e.start})",
            loc=_Loc(line=line),
            hint="save the file as UTF-8",
        ) from None


def _suffix_format(path: Path, formats: Mapping[str, str], what: str) -> str:
    fmt = formats.get(path.suffix.lower())
    if fmt is None:
        raise invalid(
            str(path),
            f"cannot tell the {what} format from the suffix {path.suffix or '(none)'!r}",
            hint="use one of: " + ", ".join(sorted(formats)),
        )
    return fmt


# -- graphs ------------------------------------------------------------------------------


@dataclass
class _RawGraph:
    """Nodes and edges as a file spells them, with where each was written.

    Edges refer to node *ids*; a node's variable name is its `name`/`label` when it has
    one, else its id. Keeping ids and locations until the end lets every check point
    at the line that causes it.
    """

    source: str
    implicit_nodes: bool  # may edges mention nodes that were never declared?
    redeclare_ok: bool = False  # DOT mentions the same node many times, legally
    nodes: dict[str, tuple[str | None, _Loc]] = field(default_factory=dict)
    edges: list[tuple[str, str, _Loc]] = field(default_factory=list)

    def node(self, node_id: str, loc: _Loc, name: str | None = None) -> None:
        if node_id in self.nodes:
            old_name, old_loc = self.nodes[node_id]
            if not self.redeclare_ok:
                raise invalid(
                    self.source,
                    f"node {node_id!r} is declared twice (first at {old_loc})",
                    loc=loc,
                    hint="give every node a unique id",
                )
            self.nodes[node_id] = (name if name is not None else old_name, old_loc)
        else:
            self.nodes[node_id] = (name, loc)

    def edge(self, a: str, b: str, loc: _Loc) -> None:
        if self.implicit_nodes:  # variables keep the order of their first mention
            for n in (a, b):
                if n not in self.nodes:
                    self.nodes[n] = (None, loc)
        self.edges.append((a, b, loc))

    def build(self) -> nx.DiGraph:
        if not self.nodes:
            raise invalid(self.source, "the graph has no variables", hint=GRAPH_HINT)

        name_of: dict[str, str] = {}
        first_id: dict[str, str] = {}
        for node_id, (name, loc) in self.nodes.items():
            var = name if name not in (None, "") else node_id
            if var in first_id:
                other = first_id[var]
                raise invalid(
                    self.source,
                    f"two variables are named {var!r} (node {other!r} at "
                    f"{self.nodes[other][1]} and node {node_id!r})",
                    loc=loc,
                    hint="variable names must be unique: rename one of them",
                )
            first_id[var] = node_id
            name_of[node_id] = var

        g = nx.DiGraph()
        g.add_nodes_from(name_of.values())
        where: dict[tuple[str, str], _Loc] = {}
        for a, b, loc in self.edges:
            for n in (a, b):
                if n not in name_of:
                    raise invalid(
                        self.source,
                        f"edge {a!r} -> {b!r} refers to node {n!r}, which is not declared",
                        loc=loc,
                        hint="declare the node or fix the edge's endpoint",
                    )
            u, v = name_of[a], name_of[b]
            if u == v:
                raise invalid(
                    self.source,
                    f"variable {u!r} has an edge to itself (a self-loop)",
                    loc=loc,
                    hint="a causal graph cannot have self-loops: remove the edge",
                )
            where.setdefault((u, v), loc)
            g.add_edge(u, v)
        _check_acyclic(g, self.source, where)
        return g


def _check_acyclic(g: nx.DiGraph, source: str, where: Mapping[tuple[str, str], _Loc]) -> None:
    # The linear-time test first: find_cycle is ~170x slower on a 100k-edge DAG.
    if nx.is_directed_acyclic_graph(g):
        return
    try:
        cycle = nx.find_cycle(g)
    except nx.NetworkXNoCycle:
        return
    names = [u for u, _ in cycle] + [cycle[0][0]]
    first = (cycle[0][0], cycle[0][1])
    raise invalid(
        source,
        "the graph has a cycle: " + " -> ".join(repr(n) for n in names),
        loc=where.get(first),
        hint="a causal graph must be acyclic (a DAG): remove or reverse one of these edges",
    )


def graph_from_networkx(graph: Any, source: str = "<graph>") -> nx.DiGraph:
    if not isinstance(graph, nx.Graph):
        raise invalid(
            source,
            f"expected a networkx DiGraph, got {type(graph).__name__}",
            hint="build one with networkx.DiGraph(edges) or load a file with load_graph",
        )
    if not graph.is_directed():
        raise invalid(
            source,
            "the graph is undirected",
            hint="causal edges point from cause to effect: use a networkx DiGraph",
        )
    # Nodes become str names: plans name variables as JSON strings.
    raw = _RawGraph(source, implicit_nodes=False)
    ids: dict[Any, str] = {}
    for i, n in enumerate(graph.nodes):
        node_id = str(n)
        if node_id in raw.nodes:
            other = next(k for k, v in ids.items() if v == node_id)
            raise invalid(
                source,
                f"nodes {other!r} and {n!r} both become the variable name {node_id!r}",
                loc=_Loc(where=f"node {i}"),
                hint="variable names must be unique strings",
            )
        ids[n] = node_id
        raw.node(node_id, _Loc(where=f"node {node_id!r}"))
    for u, v in graph.edges():
        raw.edge(ids[u], ids[v], _Loc(where=f"edge {ids[u]!r} -> {ids[v]!r}"))
    built = raw.build()
    if graph.graph.get("outcome") not in (None, ""):
        built.graph["outcome"] = str(graph.graph["outcome"])
    return built


def _read_graphml(path: Path) -> nx.DiGraph:
    source = str(path)
    data = _read_bytes(path)
    raw = _RawGraph(source, implicit_nodes=False)
    # networkx reads the GraphML (keys, typed data) but neither reports where things are
    # nor notices a node declared twice; one cheap expat pass over the same bytes does.
    parser = expat.ParserCreate()
    state = {"depth": 0, "top": 0, "edgedefault": None}

    def start(tag: str, attrs: dict[str, str]) -> None:
        tag = tag.rsplit(":", 1)[-1]
        loc = _Loc(parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        if tag == "graph":
            if state["depth"] == 0:
                state["top"] += 1
                if state["top"] == 1:
                    state["edgedefault"] = attrs.get("edgedefault")
            state["depth"] += 1
            return
        if state["depth"] == 0 or state["top"] != 1:
            return  # networkx reads only the first graph; so do we
        if tag == "node":
            if "id" not in attrs:
                raise invalid(source, "<node> without an id", loc=loc, hint='write <node id="…">')
            raw.node(attrs["id"], loc)
        elif tag == "edge":
            if "source" not in attrs or "target" not in attrs:
                raise invalid(
                    source,
                    "<edge> without a source or target",
                    loc=loc,
                    hint='write <edge source="cause" target="effect"/>',
                )
            raw.edge(attrs["source"], attrs["target"], loc)

    def end(tag: str) -> None:
        if tag.rsplit(":", 1)[-1] == "graph":
            state["depth"] -= 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as e:
        raise invalid(
            source,
            f"is not well-formed XML: {expat.ErrorString(e.code)}",
            loc=_Loc(e.lineno, e.offset + 1),
            hint="fix the XML at that position (an unclosed tag, a stray '&' or '<' …)",
        ) from None
    if state["top"] == 0:
        raise invalid(source, "contains no <graph> element", hint="is this a GraphML file?")
    if state["edgedefault"] == "undirected":
        raise invalid(
            source,
            'the graph is undirected (edgedefault="undirected")',
            hint='set edgedefault="directed" on <graph>: causal edges point from cause to effect',
        )
    try:
        g = nx.read_graphml(io.BytesIO(data))
    except (nx.NetworkXError, ValueError, KeyError, TypeError, ElementTree.ParseError) as e:
        raise invalid(
            source,
            f"is not valid GraphML: {e}",
            hint="check the <key> declarations and the <data> values against them",
        ) from None
    for node_id, (_, loc) in list(raw.nodes.items()):
        attrs = g.nodes[node_id] if node_id in g else {}
        name = attrs.get("name", attrs.get("label"))
        if name is not None:
            raw.nodes[node_id] = (str(name), loc)
    built = raw.build()
    if g.graph.get("outcome") not in (None, ""):
        built.graph["outcome"] = str(g.graph["outcome"])  # written by `causalqa fit`
    return built


# DOT is read by pydot's grammar (pyparsing): a syntax error comes back with its line and
# column. pydot keeps no positions, so the checks after parsing (a self-loop, a cycle, two
# nodes with one label) find where a node or edge was written by scanning the text once
# more with the same grammar's statements — only when there is an error to report.
DOT_HINT = "write a digraph: 'digraph { cause -> effect; }' (quote names with spaces)"
_DOT_KEYWORDS = {"node", "edge", "graph"}  # pydot's pseudo-nodes for default attributes
_PUNCT_NAMES = {"rbrace": "'}'", "lbrace": "'{'", "rbrack": "']'", "lbrack": "'['"}
# Every expression here keeps tabs: pyparsing expands them to spaces by default, which
# would turn a name with a tab into one with spaces (and shift columns).
_QUOTED = pp.QuotedString(
    '"', esc_char="\\", multiline=True, unquote_results=False
).parse_with_tabs()
_COMMENT = pp.Suppress(pp.cStyleComment | pp.dbl_slash_comment | ("#" + pp.rest_of_line))


def _dot_unquote(raw: str) -> str:
    """A DOT id as the variable name it spells: quotes and escapes (\\" and \\\\) removed."""
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return re.sub(r'\\(["\\])', r"\1", raw[1:-1])
    return raw


def _dot_node(raw: str) -> str:
    """The node an endpoint names: a port (``node:port:compass``) names the same node."""
    if raw.startswith('"'):
        quoted = _QUOTED.parse_string(raw)[0]
        return _dot_unquote(quoted)
    if raw.startswith("<"):  # an HTML-like id, kept as written
        return raw
    return raw.split(":", 1)[0]


def _dot_name(attrs: Mapping[str, Any]) -> str | None:
    value = attrs.get("name", attrs.get("label"))
    return None if value is None else _dot_unquote(str(value))


def _dot_members(obj: Mapping[str, Any]) -> list[str]:
    """The nodes of a subgraph used as an edge's endpoint (``{a b} -> c``), in order."""
    found: list[str] = []
    for name in obj.get("nodes", {}):
        if name not in _DOT_KEYWORDS:
            found.append(_dot_node(name))
    for (a, b), _ in obj.get("edges", {}).items():
        found += [_dot_node(a), _dot_node(b)]
    for subs in obj.get("subgraphs", {}).values():
        for sub in subs:
            found += _dot_members(sub)
    return list(dict.fromkeys(found))


def _dot_ends(point: Any) -> list[str]:
    return _dot_members(point) if isinstance(point, Mapping) else [_dot_node(str(point))]


class _DotPlaces:
    """Where each node and edge was first written, found lazily by scanning the text
    with pydot's statement grammar (comments and quoted strings skipped whole)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._nodes: dict[str, tuple[int, int]] | None = None
        self._edges: dict[tuple[str, str], tuple[int, int]] = {}

    def _scan(self) -> None:
        G = _dot_grammar()  # noqa: N806

        self._nodes = {}
        statements = (
            _COMMENT
            | pp.Suppress(pp.Optional(G.strict_) + G.graph_type + pp.Optional(G.ID))
            | pp.Suppress(G.subgraph_ + pp.Optional(G.ID))
            | G.edge_stmt
            | G.default_stmt
            | G.assignment
            | G.node_stmt
            | pp.Suppress(G.attr_list | G.ID)
        ).parse_with_tabs()
        for tokens, start, _ in statements.scan_string(self.text):
            place = (pp.lineno(start, self.text), pp.col(start, self.text))
            for tok in tokens:
                if isinstance(tok, pydot.Edge):
                    for a in _dot_ends(tok.get_source()):
                        self._nodes.setdefault(a, place)
                        for b in _dot_ends(tok.get_destination()):
                            self._nodes.setdefault(b, place)
                            self._edges.setdefault((a, b), place)
                elif isinstance(tok, pydot.Node) and tok.get_name() not in _DOT_KEYWORDS:
                    self._nodes.setdefault(_dot_node(tok.get_name()), place)

    def node(self, name: str) -> _DotLoc:
        return _DotLoc(self, "node", name)

    def edge(self, a: str, b: str) -> _DotLoc:
        return _DotLoc(self, "edge", (a, b))

    def find(self, kind: str, key: Any) -> tuple[int, int] | None:
        if self._nodes is None:
            self._scan()
        assert self._nodes is not None
        return self._nodes.get(key) if kind == "node" else self._edges.get(key)


class _DotLoc:
    """A `_Loc` whose line and column are looked up only when an error shows them."""

    def __init__(self, places: _DotPlaces, kind: str, key: Any) -> None:
        self._places, self._kind, self._key = places, kind, key

    @property
    def line(self) -> int | None:
        found = self._places.find(self._kind, self._key)
        return found[0] if found else None

    @property
    def column(self) -> int | None:
        found = self._places.find(self._kind, self._key)
        return found[1] if found else None

    def __str__(self) -> str:
        return str(_Loc(self.line, self.column)) if self.line else ""


def _dot_undirected_op(text: str) -> _Loc | None:
    """Where the first '--' edge operator is (outside comments and strings), if any."""
    if "--" not in text:
        return None
    ops = (_COMMENT | pp.Suppress(_QUOTED) | pp.Literal("--")).parse_with_tabs()
    for tokens, start, _ in ops.scan_string(text):
        if list(tokens) == ["--"]:
            return _Loc(pp.lineno(start, text), pp.col(start, text))
    return None


def _dot_grammar():
    """pydot's DOT grammar (imported on first use; it warns about pyparsing names that
    pyparsing 3.3 deprecated, which is pydot's to fix, not a user's concern)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from pydot.dot_parser import GraphParser
    return GraphParser


def _read_dot(path: Path) -> nx.DiGraph:
    GraphParser = _dot_grammar()  # noqa: N806

    source = str(path)
    text = _read_text(path)
    try:
        graphs = GraphParser.parser.parse_string(text, parse_all=True)
    except pp.ParseBaseException as e:
        expected = e.msg.removeprefix("Expected ")
        expected = _PUNCT_NAMES.get(expected, expected)
        found = e.found if e.loc < len(text) else "the end of the file"
        raise invalid(
            source,
            f"is not valid DOT: expected {expected}, found {found}",
            loc=_Loc(e.lineno, e.col),
            hint=DOT_HINT,
        ) from None
    except RecursionError:
        raise invalid(source, "is nested too deeply to read as DOT", hint=DOT_HINT) from None
    if len(graphs) != 1:
        raise invalid(
            source, f"holds {len(graphs)} graphs; a causal graph file holds one digraph",
            hint=DOT_HINT,
        )  # fmt: skip
    graph = graphs[0]
    if graph.get_type() != "digraph":
        raise invalid(
            source,
            "the graph is undirected ('graph'); a causal graph is a 'digraph'",
            loc=_Loc(*next(_where_keyword(text))),
            hint="write 'digraph { a -> b; }'",
        )
    op = _dot_undirected_op(text)
    if op is not None:
        raise invalid(
            source,
            "'--' is an undirected edge; a causal graph needs '->'",
            loc=op,
            hint="write cause -> effect",
        )
    places = _DotPlaces(text)
    raw = _RawGraph(source, implicit_nodes=True, redeclare_ok=True)
    _add_dot_elements(graph, raw, places)
    return raw.build()


def _where_keyword(text: str):
    """(line, column) of the statement that opens the graph."""
    G = _dot_grammar()  # noqa: N806

    head = pp.Optional(G.strict_) + G.graph_type
    for _, start, _ in (_COMMENT | head).parse_with_tabs().scan_string(text):
        if not text.startswith(("/", "#"), start):
            yield pp.lineno(start, text), pp.col(start, text)
    yield 1, 1


def _add_dot_elements(graph: Any, raw: _RawGraph, places: _DotPlaces) -> None:
    """Nodes and edges of a pydot graph and its subgraphs, in the order they were written
    (pydot numbers every statement), into `raw`."""
    elements: list[tuple[int, str, Any]] = []
    for node in graph.get_nodes():
        if node.get_name() not in _DOT_KEYWORDS:
            elements.append((node.get_sequence(), "node", node))
    for edge in graph.get_edges():
        elements.append((edge.get_sequence(), "edge", edge))
    for sub in graph.get_subgraphs():
        elements.append((sub.get_sequence(), "subgraph", sub))
    for _, kind, obj in sorted(elements, key=lambda e: e[0]):
        if kind == "subgraph":
            _add_dot_elements(obj, raw, places)
        elif kind == "node":
            name = _dot_node(obj.get_name())
            raw.node(name, places.node(name), _dot_name(obj.get_attributes()))
        else:
            for a in _dot_ends(obj.get_source()):
                for b in _dot_ends(obj.get_destination()):
                    raw.edge(a, b, places.edge(a, b))


def _csv_error(source: str, e: csv.Error, line: int) -> ModelDataError:
    return invalid(source, f"is not valid CSV: {e}", loc=_Loc(line=line), hint="check the quoting")


def _read_edge_csv(path: Path) -> nx.DiGraph:
    source = str(path)
    text = _read_text(path)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    raw = _RawGraph(source, implicit_nodes=True, redeclare_ok=True)
    try:
        header = next(reader, None)
        if header is None:
            raise invalid(
                source,
                "the file is empty",
                hint="write a header 'source,target' and one edge per line",
            )
        names = [h.strip().lower() for h in header]
        cols = next(
            (
                (names.index(a), names.index(b))
                for a, b in _EDGE_COLUMNS
                if a in names and b in names
            ),
            None,
        )
        if cols is None:
            raise invalid(
                source,
                f"the header {header!r} names no source,target (or cause,effect) columns",
                loc=_Loc(line=1),
                hint="start with a header such as 'source,target', then one edge per line",
            )
        need = max(cols) + 1
        for row in reader:
            loc = _Loc(line=reader.line_num)
            if not any(cell.strip() for cell in row):
                continue
            if len(row) < need:
                raise invalid(
                    source,
                    f"the row has {len(row)} field(s), the header needs {need}",
                    loc=loc,
                    hint="write 'cause,effect' on every line",
                )
            a, b = row[cols[0]].strip(), row[cols[1]].strip()
            if not a:
                raise invalid(
                    source,
                    "the source is empty",
                    loc=_Loc(reader.line_num, cols[0] + 1),
                    hint="write 'cause,effect' on every line",
                )
            if not b:  # a lone variable without edges
                raw.node(a, loc)
            else:
                raw.edge(a, b, loc)
    except csv.Error as e:
        raise _csv_error(source, e, reader.line_num) from None
    return raw.build()


def _read_graph_json(path: Path) -> nx.DiGraph:
    source = str(path)
    text = _read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise invalid(
            source,
            f"is not valid JSON: {e.msg}",
            loc=_Loc(e.lineno, e.colno),
            hint='expected {"nodes": [...], "edges": [[cause, effect], ...]}',
        ) from None
    hint = 'expected {"nodes": [...], "edges": [[cause, effect], ...]} or networkx node-link JSON'
    if not isinstance(data, dict):
        raise invalid(source, f"the top level is a {type(data).__name__}, not an object", hint=hint)
    if data.get("directed") is False:
        raise invalid(
            source,
            '"directed" is false: the graph is undirected',
            hint='causal edges point from cause to effect: set "directed": true',
        )
    edge_key = "edges" if "edges" in data else "links"
    nodes, edges = data.get("nodes"), data.get(edge_key, [])
    if nodes is None and edge_key not in data:
        raise invalid(source, 'has neither "nodes" nor "edges"', hint=hint)
    if not isinstance(edges, list) or (nodes is not None and not isinstance(nodes, list)):
        raise invalid(source, '"nodes" and "edges" must be lists', hint=hint)
    raw = _RawGraph(source, implicit_nodes=nodes is None)

    def as_id(value: Any, where: str) -> str:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise invalid(
                source,
                f"a node id must be a string or an integer, got {value!r}",
                loc=_Loc(where=where),
                hint=hint,
            )
        return str(value)

    for i, node in enumerate(nodes or []):
        where = f"nodes[{i}]"
        if isinstance(node, dict):
            if "id" not in node:
                raise invalid(source, 'a node object has no "id"', loc=_Loc(where=where), hint=hint)
            name = node.get("name", node.get("label"))
            raw.node(
                as_id(node["id"], where), _Loc(where=where), None if name is None else str(name)
            )
        else:
            raw.node(as_id(node, where), _Loc(where=where))
    for i, edge in enumerate(edges):
        where = f"{edge_key}[{i}]"
        if isinstance(edge, list) and len(edge) in (2, 3):
            a, b = edge[0], edge[1]
        elif isinstance(edge, dict) and {"source", "target"} <= edge.keys():
            a, b = edge["source"], edge["target"]
        elif isinstance(edge, dict) and {"cause", "effect"} <= edge.keys():
            a, b = edge["cause"], edge["effect"]
        else:
            raise invalid(
                source,
                f'an edge must be [cause, effect] or {{"source": …, "target": …}}, got {edge!r}',
                loc=_Loc(where=where),
                hint=hint,
            )
        raw.edge(as_id(a, where), as_id(b, where), _Loc(where=where))
    return raw.build()


_GRAPH_READERS: dict[str, Callable[[Path], nx.DiGraph]] = {
    "graphml": _read_graphml,
    "dot": _read_dot,
    "csv": _read_edge_csv,
    "json": _read_graph_json,
}


def load_graph(path: str | os.PathLike[str]) -> nx.DiGraph:
    """Read a causal graph file into a networkx DiGraph whose nodes are variable names.

    The format follows the suffix (see `GRAPH_FORMATS`): GraphML, DOT, an edge-list
    CSV with a ``source,target`` (or ``cause,effect``) header, or JSON
    (``{"nodes": [...], "edges": [[a, b], ...]}`` or networkx node-link). A node's
    ``name`` or ``label`` attribute, where it has one, is its variable name.

    Raises `ModelDataError` for a missing or malformed file, an undirected graph,
    duplicate names, self-loops, cycles (named) or an empty graph.
    """
    p = Path(path)
    return _GRAPH_READERS[_suffix_format(p, GRAPH_FORMATS, "graph")](p)


# -- effects tables ----------------------------------------------------------------------


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, str):
        return v.strip().lower() in _MISSING
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _as_bool(v: Any) -> bool | None:
    if isinstance(v, bool | np.bool_):
        return bool(v)
    if isinstance(v, int | np.integer) and v in (0, 1):
        return bool(v)
    if isinstance(v, str):
        s = v.strip().lower()
        if s in _TRUE:
            return True
        if s in _FALSE:
            return False
    return None


def _as_number(v: Any) -> float | None:
    if isinstance(v, bool | np.bool_):
        return None
    if isinstance(v, int | float | np.integer | np.floating):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            return None
    return None


def _subject_id(v: Any) -> str:
    if isinstance(v, float | np.floating) and math.isfinite(v) and float(v).is_integer():
        return str(int(v))  # an integer id column with a gap becomes float in pandas
    return str(v).strip()


def _effects_frame(
    source: str,
    header: Sequence[Any],
    columns: Sequence[Sequence[Any]],
    cell: Callable[[int, int], _Loc],
    *,
    filters: Iterable[str] | None,
) -> pd.DataFrame:
    """Check a table given column by column and turn it into the effects frame.

    `cell(i, j)` locates row i (0-based, data rows) of column j for messages.
    """
    names = [str(h).strip() for h in header]
    if len(names) < 2:
        extra = ""
        if len(names) == 1 and ";" in names[0]:
            extra = " (it seems to use ';' as separator: use ',')"
        raise invalid(
            source,
            f"the table has {len(names)} column(s){extra}; it needs a subject-id column and "
            "at least one treatment column",
            loc=cell(-1, 0),
            hint=EFFECTS_HINT,
        )
    seen: dict[str, int] = {}
    for j, name in enumerate(names):
        if not name:
            raise invalid(
                source,
                f"column {j + 1} has no name",
                loc=cell(-1, j),
                hint="name every column in the header",
            )
        if name in seen:
            raise invalid(
                source,
                f"the column name {name!r} appears twice (columns {seen[name] + 1} and {j + 1})",
                loc=cell(-1, j),
                hint="column names must be unique: rename one",
            )
        seen[name] = j
    n_rows = len(columns[0]) if columns else 0
    if n_rows == 0:
        raise invalid(source, "the effects table has no rows", hint="add one row per subject")

    subjects: list[str] = []
    first_row: dict[str, int] = {}
    for i, v in enumerate(columns[0]):
        sid = "" if _is_missing(v) and not isinstance(v, str) else _subject_id(v)
        if not sid:
            raise invalid(
                source,
                f"the subject id ({names[0]!r}) is empty",
                loc=cell(i, 0),
                hint="give every row a subject id",
            )
        if sid in first_row:
            raise invalid(
                source,
                f"the subject id {sid!r} appears twice (first at {cell(first_row[sid], 0)})",
                loc=cell(i, 0),
                hint="subject ids must be unique: merge or rename the rows",
            )
        first_row[sid] = i
        subjects.append(sid)

    declared = None if filters is None else {str(f) for f in filters}
    if declared is not None:
        unknown = sorted(declared - set(names[1:]))
        if unknown:
            raise invalid(
                source,
                f"filters {unknown} are not columns of the table",
                hint="columns are: " + ", ".join(repr(n) for n in names[1:]),
            )

    kinds: dict[str, str] = {}
    bad: list[tuple[str, int, int, Any]] = []  # name, row, column, value
    for j in range(1, len(names)):
        name, values = names[j], columns[j]
        present = [(i, v) for i, v in enumerate(values) if not _is_missing(v)]
        wants_bool = declared is not None and name in declared
        is_bool = all(_as_bool(v) is not None for _, v in present)
        is_num = all(_as_number(v) is not None for _, v in present)
        if declared is not None:
            ok = is_bool if wants_bool else is_num
            kind = "filter" if wants_bool else "treatment"
        else:
            # 0/1 columns count as filters; pass filters= to say otherwise.
            ok, kind = (True, "filter") if is_bool else (is_num, "treatment")
        if not ok:
            check = _as_bool if kind == "filter" else _as_number
            i, v = next((i, v) for i, v in present if check(v) is None)
            bad.append((name, i, j, v))
        kinds[name] = kind
    if bad:
        name, i, j, v = bad[0]
        listed = ", ".join(repr(b[0]) for b in bad)
        are = f"column {listed} is" if len(bad) == 1 else f"columns {listed} are"
        raise invalid(
            source,
            f"{are} neither numeric (treatment effects) nor boolean (filters): "
            f"e.g. {v!r} in {name!r}",
            loc=cell(i, j),
            hint=EFFECTS_HINT + "; fix or remove the column(s)",
        )

    data: dict[str, Any] = {}
    for j in range(1, len(names)):
        name, kind = names[j], kinds[names[j]]
        out: list[Any] = []
        for i, v in enumerate(columns[j]):
            if _is_missing(v):
                what = "filter" if kind == "filter" else "effect"
                raise invalid(
                    source,
                    f"missing value (NaN) in {what} column {name!r} for subject {subjects[i]!r}",
                    loc=cell(i, j),
                    hint="every subject needs a value in every column: fill it in or drop the row",
                )
            x = _as_bool(v) if kind == "filter" else _as_number(v)
            if kind == "treatment" and not math.isfinite(x):
                raise invalid(
                    source,
                    f"{v!r} in column {name!r} (subject {subjects[i]!r}) is not a finite number",
                    loc=cell(i, j),
                    hint="an individual effect must be a finite number",
                )
            out.append(x)
        data[name] = np.array(out, dtype=bool if kind == "filter" else float)
    if not any(k == "treatment" for k in kinds.values()):
        raise invalid(
            source,
            "the table has no treatment columns (every column besides the id is boolean)",
            hint=EFFECTS_HINT
            + "; if a 0/1 column holds effects, name the filters with filters=[…]",
        )
    return pd.DataFrame(data, index=pd.Index(subjects, name=names[0]))


def _read_effects_csv(path: Path, filters: Iterable[str] | None) -> pd.DataFrame:
    source = str(path)
    text = _read_text(path)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[list[str]] = []
    lines: list[int] = []
    try:
        header = next(reader, None)
        if header is None:
            raise invalid(source, "the file is empty", hint=EFFECTS_HINT)
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise invalid(
                    source,
                    f"the row has {len(row)} field(s), the header has {len(header)}",
                    loc=_Loc(line=reader.line_num),
                    hint="every row needs one value per column (quote values that contain commas)",
                )
            rows.append(row)
            lines.append(reader.line_num)
    except csv.Error as e:
        raise _csv_error(source, e, reader.line_num) from None

    def cell(i: int, j: int) -> _Loc:
        return _Loc(1 if i < 0 else lines[i], j + 1)

    columns = [[row[j] for row in rows] for j in range(len(header))]
    return _effects_frame(source, header, columns, cell, filters=filters)


def _frame_columns(df: pd.DataFrame) -> tuple[list[Any], list[list[Any]]]:
    # A frame whose index carries the ids (a named or non-range index, e.g. our own
    # `CausalModel.effects`) keeps them there; otherwise the first column holds them.
    if df.index.name is not None or not isinstance(df.index, pd.RangeIndex):
        header = [df.index.name if df.index.name is not None else "subject", *df.columns]
        columns = [list(df.index), *(df[c].tolist() for c in df.columns)]
    else:
        header = list(df.columns)
        columns = [df[c].tolist() for c in df.columns]
    return header, columns


def effects_from_frame(
    df: pd.DataFrame, source: str, filters: Iterable[str] | None
) -> pd.DataFrame:
    if df.columns.duplicated().any():
        dup = df.columns[df.columns.duplicated()][0]
        raise invalid(
            source, f"the column name {dup!r} appears twice", hint="column names must be unique"
        )
    header, columns = _frame_columns(df)

    def cell(i: int, j: int) -> _Loc:
        if i < 0:
            return _Loc(where=f"column {j + 1}")
        return _Loc(where=f"row {i + 1}, column {j + 1}")

    return _effects_frame(source, header, columns, cell, filters=filters)


def _read_effects_parquet(path: Path, filters: Iterable[str] | None) -> pd.DataFrame:
    source = str(path)
    _read_bytes(path)  # the same not-found/directory messages as for CSV
    if importlib.util.find_spec("pyarrow") is None:
        raise invalid(
            source,
            "reading Parquet needs the pyarrow package, which is not installed",
            hint="pip install pyarrow, or save the effects table as CSV",
        )
    try:
        df = pd.read_parquet(path)
    except (OSError, ValueError) as e:  # pyarrow's ArrowInvalid is a ValueError
        raise invalid(
            source, f"is not a readable Parquet file: {e}", hint="re-export the table"
        ) from None
    return effects_from_frame(df, source, filters)


def load_effects(
    path: str | os.PathLike[str], *, filters: Iterable[str] | None = None
) -> pd.DataFrame:
    """Read an effects table (CSV, TSV or Parquet) into a validated DataFrame.

    The first column holds subject ids (kept as strings, becoming the index); numeric
    columns are treatments (their individual effects), boolean columns (true/false,
    yes/no, 0/1, any case) are filters. A column of only 0 and 1 counts as a filter; pass
    ``filters=[...]`` to name the filter columns explicitly, all others then being effects.

    Raises `ModelDataError` naming file, line and column for: an empty table, duplicate or
    empty column names, duplicate or empty subject ids, columns neither numeric nor boolean
    (all named), missing/NaN or infinite values, a table without treatments; and when
    Parquet is asked for without pyarrow installed.
    """
    p = Path(path)
    fmt = _suffix_format(p, EFFECTS_FORMATS, "effects table")
    if fmt == "parquet":
        return _read_effects_parquet(p, filters)
    return _read_effects_csv(p, filters)
