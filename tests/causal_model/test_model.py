"""CausalModel: loading every graph and effects format, and a clear error for every bad file."""

import doctest
import json

import networkx as nx
import pandas as pd
import pytest

import causalqa.causal_model.formats as causal_model_module
from causalqa.causal_model import CausalModel, ModelDataError, load_effects, load_graph
from causalqa.errors import CausalQAError

ODD_NAMES = ["Tech Support", "Größe (m²)", 'say "hi", ok?', "a/b & <c>", "开销"]


def write(tmp_path, name, text, encoding="utf-8"):
    p = tmp_path / name
    p.write_text(text, encoding=encoding)
    return p


def fails(path, *needles, line=None):
    """Loading `path` raises ModelDataError naming the file and every needle."""
    with pytest.raises(ModelDataError) as info:
        if "effects" in path.name:
            load_effects(path)
        else:
            load_graph(path)
    err = info.value
    assert str(path) in err.message
    for needle in needles:
        assert needle in err.message, (needle, err.message)
    assert err.hint
    if line is not None:
        assert err.line == line, err.message
        assert f"line {line}" in err.message
    return err


def edges(g):
    return sorted(g.edges())


# -- GraphML -----------------------------------------------------------------------------

GRAPHML = """<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="{attr}" attr.type="string"/>
  <graph edgedefault="{default}">
{body}
  </graph>
</graphml>
"""


def graphml(body, default="directed", attr="name"):
    return GRAPHML.format(body=body, default=default, attr=attr)


def test_graphml_written_by_networkx_loads_with_names_as_ids(tmp_path):
    g = nx.DiGraph()
    g.add_edges_from([(ODD_NAMES[0], ODD_NAMES[1]), (ODD_NAMES[1], ODD_NAMES[2])])
    g.add_node(ODD_NAMES[3])
    g.add_edge(ODD_NAMES[4], ODD_NAMES[2])
    p = tmp_path / "g.graphml"
    nx.write_graphml(g, p)
    loaded = load_graph(p)
    assert list(loaded.nodes) == list(g.nodes)
    assert edges(loaded) == edges(g)


@pytest.mark.parametrize("attr", ["name", "label"])
def test_graphml_name_or_label_attribute_is_the_variable_name(tmp_path, attr):
    body = """    <node id="n0"><data key="d0">Price (€)</data></node>
    <node id="n1"><data key="d0">Größe</data></node>
    <node id="n2"/>
    <edge source="n0" target="n1"/>
    <edge source="n1" target="n2"/>"""
    g = load_graph(write(tmp_path, "g.graphml", graphml(body, attr=attr)))
    assert list(g.nodes) == ["Price (€)", "Größe", "n2"]
    assert edges(g) == sorted([("Price (€)", "Größe"), ("Größe", "n2")])


def test_graphml_not_well_formed_names_line_and_column(tmp_path):
    text = graphml('    <node id="a">\n    <edge source="a" target="b"/>')
    err = fails(write(tmp_path, "bad.graphml", text), "not well-formed XML")
    assert err.line is not None and err.column is not None


def test_graphml_cycle_is_named_with_a_line(tmp_path):
    body = """    <node id="a"/>
    <node id="b"/>
    <node id="c"/>
    <edge source="a" target="b"/>
    <edge source="b" target="c"/>
    <edge source="c" target="a"/>"""
    err = fails(write(tmp_path, "cyc.graphml", graphml(body)), "cycle", "'a'", "'b'", "'c'")
    assert err.line is not None
    assert "acyclic" in err.hint


def test_graphml_self_loop_names_variable_and_line(tmp_path):
    body = '    <node id="a"/>\n    <edge source="a" target="a"/>'
    fails(write(tmp_path, "loop.graphml", graphml(body)), "'a'", "self-loop", line=6)


def test_graphml_node_declared_twice(tmp_path):
    body = '    <node id="a"/>\n    <node id="a"/>'
    fails(write(tmp_path, "dup.graphml", graphml(body)), "'a'", "declared twice", line=6)


def test_graphml_two_nodes_with_the_same_name(tmp_path):
    body = """    <node id="n0"><data key="d0">Price</data></node>
    <node id="n1"><data key="d0">Price</data></node>"""
    err = fails(write(tmp_path, "names.graphml", graphml(body)), "'Price'", "'n0'", "'n1'")
    assert "unique" in err.hint


def test_graphml_edge_to_undeclared_node(tmp_path):
    body = '    <node id="a"/>\n    <edge source="a" target="zz"/>'
    fails(write(tmp_path, "undeclared.graphml", graphml(body)), "'zz'", "not declared", line=6)


def test_graphml_undirected_is_refused(tmp_path):
    body = '    <node id="a"/>\n    <node id="b"/>\n    <edge source="a" target="b"/>'
    err = fails(
        write(tmp_path, "undirected.graphml", graphml(body, default="undirected")), "undirected"
    )
    assert "directed" in err.hint


def test_graphml_with_bad_typed_data_is_reported_not_crashing(tmp_path):
    text = """<?xml version="1.0"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="w" for="node" attr.name="weight" attr.type="int"/>
  <graph edgedefault="directed"><node id="a"><data key="w">not a number</data></node></graph>
</graphml>"""
    fails(write(tmp_path, "typed.graphml", text), "not valid GraphML")


def test_graphml_without_graph_or_nodes(tmp_path):
    fails(write(tmp_path, "nograph.graphml", "<graphml/>"), "no <graph>")
    fails(write(tmp_path, "empty.graphml", graphml("")), "no variables")


# -- DOT ---------------------------------------------------------------------------------

DOT = r"""// the partner scenario
/* a block
   comment */
strict digraph "partners" {
  rankdir=LR; node [shape=box];
  "Tech Support" -> Engagement -> Revenue [color=red];
  Discount -> "Revenue"
  Größe -> "say \"hi\", ok?";
  "a/b & <c>" [label="Label wins"];
  lonely;
  subgraph cluster_x { inner1 -> inner2 }
  # a preprocessor-style line
  "multi
line" -> inner1
  "-1.5" -> lonely
  {first second} -> lonely
  <html> -> "con" + "cat" [label=x];
}
"""


def test_dot_subset_with_quotes_chains_attributes_comments_and_subgraphs(tmp_path):
    g = load_graph(write(tmp_path, "g.dot", DOT))
    assert "Label wins" in g and "a/b & <c>" not in g
    assert set(g.nodes) == {
        "Tech Support",
        "Engagement",
        "Revenue",
        "Discount",
        "Größe",
        'say "hi", ok?',
        "Label wins",
        "lonely",
        "inner1",
        "inner2",
        "multi\nline",
        "-1.5",
        "first",
        "second",
        "<html>",
        "concat",
    }
    assert edges(g) == sorted(
        [
            ("Tech Support", "Engagement"),
            ("Engagement", "Revenue"),
            ("Discount", "Revenue"),
            ("Größe", 'say "hi", ok?'),
            ("inner1", "inner2"),
            ("multi\nline", "inner1"),
            ("-1.5", "lonely"),
            ("first", "lonely"),
            ("second", "lonely"),
            ("<html>", "concat"),
        ]
    )


def test_dot_gv_suffix_and_label_on_node_used_in_an_edge(tmp_path):
    g = load_graph(write(tmp_path, "g.gv", 'digraph { a -> b; a [label="Alpha"]; }'))
    assert edges(g) == [("Alpha", "b")]


def test_dot_undirected_graph_is_refused(tmp_path):
    fails(write(tmp_path, "u.dot", "graph { a -- b }"), "undirected", line=1)


def test_dot_undirected_edge_in_digraph_names_line_and_column(tmp_path):
    err = fails(write(tmp_path, "u2.dot", "digraph {\n  a -> b;\n  b -- c;\n}"), "'--'", line=3)
    assert err.column == 5


def test_dot_cycle_and_self_loop(tmp_path):
    err = fails(write(tmp_path, "c.dot", "digraph {\n a -> b\n b -> c\n c -> a\n}"), "cycle")
    assert err.line in (2, 3, 4)
    fails(write(tmp_path, "s.dot", "digraph {\n a -> b\n b -> b\n}"), "'b'", "self-loop", line=3)


def test_dot_duplicate_labels(tmp_path):
    text = 'digraph {\n a [label="X"]\n b [label="X"]\n}'
    fails(write(tmp_path, "dl.dot", text), "two variables are named 'X'", line=3)


@pytest.mark.parametrize(
    "text, needle, line",
    [
        ("digraph {\n a -> b;\n", "expected '}', found the end of the file", 3),
        ('digraph {\n a -> "b\n}', "not valid DOT", 2),
        ("digraph {\n a -> b @ c\n}", "found '@'", 2),
        ("digraph {\n a - b\n}", "found '-'", 2),
        ("digraph { a -> b } digraph { c }", "holds 2 graphs", None),
        ("tree { a -> b }", "found 'tree'", 1),
        ("digraph { ] }", "expected '}', found ']'", 1),
        ("/* open comment\ndigraph { a }", "not valid DOT", 1),
        ("", "found the end of the file", 1),
        ("digraph {" * 400, "nested too deeply", None),
    ],
)
def test_dot_syntax_errors_name_the_place(tmp_path, text, needle, line):
    fails(write(tmp_path, "bad.dot", text), needle, line=line)


def test_dot_with_no_nodes(tmp_path):
    fails(write(tmp_path, "empty.dot", "digraph { rankdir=LR }"), "no variables")


# -- edge-list CSV -----------------------------------------------------------------------


@pytest.mark.parametrize("header", ["source,target", "Cause , Effect", "from,to"])
def test_edge_csv_headers(tmp_path, header):
    text = (
        f'{header},weight\n"Tech Support","Größe (m²)",1\n'
        '"say ""hi"", ok?",Tech Support,2\nalone,,\n'
    )
    g = load_graph(write(tmp_path, "e.csv", text))
    assert list(g.nodes) == ["Tech Support", "Größe (m²)", 'say "hi", ok?', "alone"]
    assert edges(g) == sorted([("Tech Support", "Größe (m²)"), ('say "hi", ok?', "Tech Support")])


def test_edge_csv_target_first_and_tsv(tmp_path):
    g = load_graph(write(tmp_path, "e.tsv", "effect\tcause\nb\ta\n"))
    assert edges(g) == [("a", "b")]


def test_edge_csv_errors(tmp_path):
    fails(write(tmp_path, "noheader.csv", "a,b\nb,c\n"), "header", line=1)
    fails(write(tmp_path, "empty.csv", ""), "empty")
    fails(write(tmp_path, "short.csv", "source,target\na,b\nc\n"), "1 field", line=3)
    fails(write(tmp_path, "loop.csv", "source,target\na,b\nb,b\n"), "'b'", "self-loop", line=3)
    err = fails(write(tmp_path, "cyc.csv", "source,target\nx,y\ny,x\n"), "cycle", "'x'", "'y'")
    assert err.line in (2, 3)
    fails(write(tmp_path, "nosrc.csv", "source,target\n,b\n"), "source is empty", line=2)
    fails(write(tmp_path, "hdr.csv", "source,target\n"), "no variables")


def test_edge_csv_unterminated_quote_is_reported(tmp_path):
    # The csv module only raises in strict mode; a runaway quote swallows the rest of
    # the file into one field, which must then not pass silently as one odd edge.
    p = write(tmp_path, "q.csv", 'source,target\n"a,b\nc,d\n')
    with pytest.raises(ModelDataError):
        load_graph(p)


# -- JSON --------------------------------------------------------------------------------


def test_json_nodes_and_edge_pairs(tmp_path):
    data = {
        "nodes": ODD_NAMES,
        "edges": [[ODD_NAMES[0], ODD_NAMES[1]], [ODD_NAMES[2], ODD_NAMES[1]]],
    }
    g = load_graph(write(tmp_path, "g.json", json.dumps(data, ensure_ascii=False)))
    assert list(g.nodes) == ODD_NAMES
    assert edges(g) == sorted([(ODD_NAMES[0], ODD_NAMES[1]), (ODD_NAMES[2], ODD_NAMES[1])])


def test_json_edges_only_and_cause_effect_objects(tmp_path):
    data = {"edges": [{"cause": "a", "effect": "b"}, ["b", "c"]]}
    g = load_graph(write(tmp_path, "g.json", json.dumps(data)))
    assert edges(g) == [("a", "b"), ("b", "c")]


def test_json_networkx_node_link_format(tmp_path):
    g = nx.DiGraph([(0, 1), (1, 2)])
    g.nodes[0]["name"] = "Tech Support"
    data = nx.node_link_data(g, edges="links")
    loaded = load_graph(write(tmp_path, "nl.json", json.dumps(data)))
    assert edges(loaded) == sorted([("Tech Support", "1"), ("1", "2")])
    data = nx.node_link_data(nx.DiGraph([("x", "y")]), edges="edges")
    assert edges(load_graph(write(tmp_path, "nl2.json", json.dumps(data)))) == [("x", "y")]


def test_json_errors(tmp_path):
    fails(write(tmp_path, "bad.json", '{"nodes": ["a",\n  "b" "c"]}'), "not valid JSON", line=2)
    fails(write(tmp_path, "list.json", "[1, 2]"), "not an object")
    fails(write(tmp_path, "nothing.json", "{}"), "neither")
    fails(write(tmp_path, "und.json", '{"directed": false, "nodes": ["a"]}'), "undirected")
    err = fails(
        write(tmp_path, "unk.json", '{"nodes": ["a"], "edges": [["a", "b"]]}'),
        "'b'",
        "not declared",
    )
    assert "edges[0]" in err.message
    fails(write(tmp_path, "dup.json", '{"nodes": ["a", "a"]}'), "declared twice", "nodes[1]")
    fails(write(tmp_path, "shape.json", '{"edges": [["a"]]}'), "edges[0]", "an edge must be")
    fails(write(tmp_path, "id.json", '{"nodes": [{"name": "x"}]}'), 'no "id"', "nodes[0]")
    fails(write(tmp_path, "idtype.json", '{"nodes": [[1]]}'), "string or an integer")
    fails(write(tmp_path, "cyc.json", '{"edges": [["a", "b"], ["b", "a"]]}'), "cycle")
    fails(write(tmp_path, "loop.json", '{"edges": [["a", "a"]]}'), "self-loop", "edges[0]")
    fails(write(tmp_path, "empty.json", '{"nodes": [], "edges": []}'), "no variables")


# -- files in general --------------------------------------------------------------------


def test_missing_file_directory_unknown_suffix_and_bad_encoding(tmp_path):
    fails(tmp_path / "nope.graphml", "not found")
    d = tmp_path / "dir.dot"
    d.mkdir()
    fails(d, "directory")
    fails(write(tmp_path, "g.txt", "a"), "suffix")
    p = tmp_path / "latin.dot"
    p.write_bytes("digraph {\n ä -> b }".encode("latin-1"))
    fails(p, "not UTF-8", line=2)


def test_errors_belong_to_the_hierarchy():
    assert issubclass(ModelDataError, CausalQAError)


# -- effects tables ----------------------------------------------------------------------

EFFECTS = """Partner ID,Tech Support,Größe (m²),Already Engaged,Churned
007,1.5,-2,True,no
8,-30.25,1e2,false,YES
x y,0,3,1,0
"""


def test_effects_csv_types_ids_and_bool_spellings(tmp_path):
    df = load_effects(write(tmp_path, "effects.csv", EFFECTS))
    assert list(df.index) == ["007", "8", "x y"]  # ids stay strings: "007" is not 7
    assert df.index.name == "Partner ID"
    assert list(df.columns) == ["Tech Support", "Größe (m²)", "Already Engaged", "Churned"]
    assert df["Tech Support"].tolist() == [1.5, -30.25, 0.0]
    assert df["Größe (m²)"].tolist() == [-2.0, 100.0, 3.0]
    assert df["Already Engaged"].tolist() == [True, False, True]
    assert df["Churned"].tolist() == [False, True, False]
    assert df["Already Engaged"].dtype == bool and df["Tech Support"].dtype == float


def test_effects_tsv_and_bom(tmp_path):
    p = tmp_path / "effects.tsv"
    p.write_bytes("\ufeffid\tT\n1\t2.5\n".encode())
    df = load_effects(p)
    assert df.index.name == "id" and df["T"].tolist() == [2.5]


def test_effects_filters_argument_decides_0_1_columns(tmp_path):
    p = write(tmp_path, "effects.csv", "id,T,flag\n1,0,1\n2,1,0\n")
    err = fails(p, "no treatment columns")  # 0/1 alone reads as a filter ...
    assert "filters=" in err.hint  # ... and the hint says how to say otherwise
    df = load_effects(p, filters=["flag"])
    assert df["T"].dtype == float and df["flag"].dtype == bool
    with pytest.raises(ModelDataError, match="not columns"):
        load_effects(p, filters=["nope"])
    q = write(tmp_path, "effects2.csv", "id,T,flag\n1,0.5,maybe\n")
    with pytest.raises(ModelDataError, match="'flag'"):
        load_effects(q, filters=["flag"])


def test_effects_columns_neither_numeric_nor_boolean_are_all_named(tmp_path):
    text = "id,T,Notes,Region\n1,1.0,fine,EU\n2,2.0,good,US\n"
    err = fails(
        write(tmp_path, "effects.csv", text), "'Notes'", "'Region'", "neither numeric", line=2
    )
    assert err.column == 3


def test_effects_one_bad_cell_in_a_numeric_column(tmp_path):
    err = fails(write(tmp_path, "effects.csv", "id,T\n1,1.0\n2,1,5\n"), "field")
    assert err.line == 3
    err = fails(write(tmp_path, "effects2.csv", "id,T\n1,1.0\n2,abc\n"), "'T'", "'abc'", line=3)
    assert err.column == 2


@pytest.mark.parametrize("cell", ["", "NaN", "NA", "null"])
def test_effects_missing_values_name_subject_column_and_line(tmp_path, cell):
    text = f"id,Tech Support,Already Engaged\n1,1.0,true\n2,{cell},false\n"
    err = fails(
        write(tmp_path, "effects.csv", text), "missing value", "'Tech Support'", "'2'", line=3
    )
    assert err.column == 2


def test_effects_missing_filter_value(tmp_path):
    text = "id,T,Already Engaged\n1,1.0,true\n2,2.0,\n"
    fails(
        write(tmp_path, "effects.csv", text),
        "missing value",
        "filter column 'Already Engaged'",
        line=3,
    )


def test_effects_infinite_value(tmp_path):
    fails(write(tmp_path, "effects.csv", "id,T\n1,inf\n"), "not a finite number", line=2)


def test_effects_duplicate_subjects_and_columns(tmp_path):
    err = fails(
        write(tmp_path, "effects.csv", "id,T\n1,1\n2,2\n1,3\n"), "'1'", "twice", "line 2", line=4
    )
    assert "unique" in err.hint
    fails(write(tmp_path, "effects2.csv", "id,T,T\n1,1,2\n"), "'T'", "twice", line=1)
    fails(write(tmp_path, "effects3.csv", "id,,T\n1,1,2\n"), "column 2 has no name", line=1)
    fails(write(tmp_path, "effects4.csv", "id,T\n,1\n"), "subject id", "empty", line=2)


def test_effects_empty_tables(tmp_path):
    fails(write(tmp_path, "effects.csv", ""), "empty")
    fails(write(tmp_path, "effects2.csv", "id,T\n"), "no rows")
    fails(write(tmp_path, "effects3.csv", "id\n1\n"), "1 column(s)")
    fails(write(tmp_path, "effects4.csv", "id;T;U\n1;2;3\n"), "';'")
    fails(write(tmp_path, "effects5.csv", "id,flag\n1,true\n"), "no treatment columns")


def test_effects_unknown_suffix(tmp_path):
    fails(write(tmp_path, "effects.xlsx", "x"), "suffix")


def test_effects_parquet_without_pyarrow_is_a_clear_error(tmp_path, monkeypatch):
    p = tmp_path / "effects.parquet"
    p.write_bytes(b"PAR1")
    real = causal_model_module.importlib.util.find_spec
    monkeypatch.setattr(
        causal_model_module.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pyarrow" else real(name, *a),
    )
    err = fails(p, "pyarrow")
    assert "CSV" in err.hint


def test_effects_parquet_roundtrip(tmp_path):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {"Partner ID": [1, 2], "Tech Support": [1.5, -2.0], "Already Engaged": [True, False]}
    )
    p = tmp_path / "effects.parquet"
    frame.to_parquet(p, index=False)
    df = load_effects(p)
    assert list(df.index) == ["1", "2"] and df["Already Engaged"].tolist() == [True, False]
    q = tmp_path / "bad_effects.parquet"
    q.write_bytes(b"not parquet at all")
    fails(q, "Parquet")


# -- CausalModel -------------------------------------------------------------------------


def frame():
    return pd.DataFrame(
        {
            "Partner ID": [1, 2, 3],
            "Tech Support": [10.0, 40.0, 70.0],
            "Discount": [20, 95, 80],
            "Already Engaged": ["yes", "no", "yes"],
        }
    )


def test_from_graph_with_frame_and_properties():
    g = nx.DiGraph([("Price", "Demand"), ("Demand", "Revenue")])
    m = CausalModel.from_graph(g, frame())
    assert m.variables == ["Price", "Demand", "Revenue"]
    assert m.treatments == ["Tech Support", "Discount"]
    assert m.filters == ["Already Engaged"]
    assert m.subjects == ["1", "2", "3"]
    assert m.subject_column == "Partner ID"
    assert m.graph_source == "<graph>" and m.effects_source == "<effects>"
    assert repr(m) == (
        "CausalModel(variables=3, edges=2, treatments=2, subjects=3, filters=['Already Engaged'])"
    )
    assert m.graph is not g  # the caller's graph is not aliased


def test_from_graph_stringifies_nodes_and_refuses_collisions():
    m = CausalModel.from_graph(nx.DiGraph([(0, 1), (1, 2)]))
    assert m.variables == ["0", "1", "2"] and m.effects is None
    assert m.treatments == m.filters == m.subjects == [] and m.subject_column is None
    with pytest.raises(ModelDataError, match="both become"):
        CausalModel.from_graph(nx.DiGraph([(1, "1")]))


def test_from_graph_validates():
    with pytest.raises(ModelDataError, match="undirected"):
        CausalModel.from_graph(nx.Graph([("a", "b")]))
    with pytest.raises(ModelDataError, match="expected a networkx DiGraph"):
        CausalModel.from_graph([("a", "b")])
    with pytest.raises(ModelDataError, match="cycle"):
        CausalModel.from_graph(nx.DiGraph([("a", "b"), ("b", "a")]))
    with pytest.raises(ModelDataError, match="self-loop"):
        CausalModel.from_graph(nx.DiGraph([("a", "a")]))
    with pytest.raises(ModelDataError, match="no variables"):
        CausalModel.from_graph(nx.DiGraph())
    m = CausalModel.from_graph(nx.MultiDiGraph([("a", "b"), ("a", "b")]))
    assert m.graph.number_of_edges() == 1


def test_from_graph_effects_frame_errors_name_row_and_column():
    bad = frame()
    bad.loc[1, "Tech Support"] = float("nan")
    with pytest.raises(ModelDataError) as info:
        CausalModel.from_graph(nx.DiGraph([("a", "b")]), bad)
    assert "<effects>" in info.value.message and "row 2, column 2" in info.value.message
    assert "'Tech Support'" in info.value.message
    with pytest.raises(ModelDataError, match="expected a DataFrame"):
        CausalModel.from_graph(nx.DiGraph([("a", "b")]), effects=42)
    dup = pd.DataFrame([[1, 2.0, 3.0]], columns=["id", "T", "T"])
    with pytest.raises(ModelDataError, match="twice"):
        CausalModel.from_graph(nx.DiGraph([("a", "b")]), dup)


def test_from_graph_accepts_an_effects_path(tmp_path):
    p = write(tmp_path, "effects.csv", EFFECTS)
    m = CausalModel.from_graph(nx.DiGraph([("a", "b")]), p)
    assert m.effects_source == str(p) and m.subjects == ["007", "8", "x y"]


@pytest.mark.parametrize("suffix", [".graphml", ".dot", ".csv", ".json"])
def test_load_dispatches_on_suffix(tmp_path, suffix):
    texts = {
        ".graphml": graphml('<node id="a"/><node id="b"/><edge source="a" target="b"/>'),
        ".dot": "digraph { a -> b }",
        ".csv": "source,target\na,b\n",
        ".json": '{"edges": [["a", "b"]]}',
    }
    g = write(tmp_path, "graph" + suffix, texts[suffix])
    e = write(tmp_path, "effects.csv", EFFECTS)
    m = CausalModel.load(g, e)
    assert edges(m.graph) == [("a", "b")]
    assert m.graph_source == str(g) and m.effects_source == str(e)
    assert m.filters == ["Already Engaged", "Churned"]
    assert CausalModel.load(g).effects is None


def test_save_and_load_roundtrip_with_odd_names(tmp_path):
    g = nx.DiGraph([(ODD_NAMES[0], ODD_NAMES[1]), (ODD_NAMES[2], ODD_NAMES[3])])
    g.add_node(ODD_NAMES[4])
    table = pd.DataFrame(
        {"Partner": ["007", "ü 1"], ODD_NAMES[0]: [0.1 + 0.2, -1e-9], ODD_NAMES[2]: [True, False]}
    )
    m = CausalModel.from_graph(g, table)
    written = m.save(tmp_path / "out")
    assert [p.name for p in written] == ["graph.graphml", "effects.csv"]
    back = CausalModel.load(*written)
    assert back.variables == m.variables and edges(back.graph) == edges(m.graph)
    pd.testing.assert_frame_equal(back.effects, m.effects)
    assert back.effects.loc["007", ODD_NAMES[0]] == 0.1 + 0.2  # floats survive exactly


def test_save_keeps_existing_files_unless_overwrite(tmp_path):
    m = CausalModel.from_graph(nx.DiGraph([("a", "b")]), frame())
    m.save(tmp_path)
    (tmp_path / "effects.csv").write_text("mine", encoding="utf-8")
    (tmp_path / "graph.graphml").unlink()
    with pytest.raises(ModelDataError) as info:
        m.save(tmp_path)
    assert "already exists" in info.value.message and "overwrite=True" in info.value.hint
    assert (tmp_path / "effects.csv").read_text(encoding="utf-8") == "mine"
    assert not (tmp_path / "graph.graphml").exists()  # nothing written at all
    m.save(tmp_path, overwrite=True)
    assert load_effects(tmp_path / "effects.csv").shape == (3, 3)
    f = write(tmp_path, "file", "x")
    with pytest.raises(ModelDataError, match="not a directory"):
        m.save(f)


def test_prompt_texts():
    m = CausalModel.from_graph(nx.DiGraph([("Tech Support", "Größe")]), frame())
    assert m.effects_csv().splitlines() == [
        "Partner ID,Tech Support,Discount,Already Engaged",
        "1,10.0,20.0,True",
        "2,40.0,95.0,False",
        "3,70.0,80.0,True",
    ]
    text = m.to_graphml()
    assert '<node id="Größe"' in text and 'edgedefault="directed"' in text
    assert edges(nx.parse_graphml(text)) == [("Tech Support", "Größe")]
    with pytest.raises(ModelDataError, match="no effects table"):
        CausalModel.from_graph(nx.DiGraph([("a", "b")])).effects_csv()


def test_module_doctests():
    assert doctest.testmod(causal_model_module).failed == 0


def test_outcome_is_checked_and_kept_through_graphml(tmp_path):
    g = nx.DiGraph([("Discount", "Revenue"), ("Price", "Revenue")])
    table = pd.DataFrame({"id": [1, 2], "Discount": [1.0, 2.0]})
    assert CausalModel.from_graph(g, table).outcome is None
    m = CausalModel.from_graph(g, table, outcome="Revenue")
    m.save(tmp_path / "m")
    back = CausalModel.load(tmp_path / "m" / "graph.graphml", tmp_path / "m" / "effects.csv")
    assert back.outcome == "Revenue"
    with pytest.raises(ModelDataError, match="outcome 'Sales' is not a variable"):
        CausalModel.from_graph(g, table, outcome="Sales")
    with pytest.raises(ModelDataError, match="not a variable"):
        CausalModel.load(tmp_path / "m" / "graph.graphml", outcome="Churn")
