from __future__ import annotations

import gzip
import json

import pytest

from causalqa.kg import KGFormatError, read_hetionet, read_metaedges, read_triples

from .conftest import EDGES, METAEDGES, NODES, write_hetionet


def test_hetionet_good(hetionet_dir):
    data = read_hetionet(hetionet_dir)
    assert len(data.nodes) == 8
    assert len(data.edges) == 6
    row = data.edges.iloc[0].to_dict()
    assert row == {
        "source": "Compound::DB00481",
        "target": "Gene::2064",
        "relation": "binds",
        "abbrev": "CbG",
    }
    assert "regulates" in set(data.edges["relation"])
    # a quoted-looking comma inside a TSV name is just text
    assert "protein import into nucleus, docking" in set(data.nodes["name"])
    assert data.source["format"] == "hetionet"


def test_hetionet_given_edges_file_and_plain_sif(tmp_path):
    folder = write_hetionet(tmp_path / "h", gz=False)
    data = read_hetionet(folder / "edges-5k.sif")
    assert len(data.edges) == 6


def test_hetionet_metagraph_json_fallback(tmp_path):
    folder = write_hetionet(tmp_path / "h", metaedges=None)
    graph = {
        "metanode_kinds": ["Compound", "Disease", "Gene"],
        "metaedge_tuples": [
            ["Compound", "Gene", "binds", "both"],
            ["Disease", "Gene", "associates", "both"],
            ["Compound", "Disease", "treats", "both"],
            ["Gene", "Gene", "regulates", "forward"],
        ],
        "kind_to_abbrev": {
            "Compound": "C",
            "Disease": "D",
            "Gene": "G",
            "binds": "b",
            "associates": "a",
            "treats": "t",
            "regulates": "r",
        },
    }
    (folder / "hetionet-v1.0-metagraph.json").write_text(json.dumps(graph))
    assert read_metaedges(folder / "hetionet-v1.0-metagraph.json")["Gr>G"] == (
        "Gene",
        "regulates",
        "Gene",
    )
    data = read_hetionet(folder)
    assert set(data.edges["relation"]) == {"binds", "associates", "treats", "regulates"}


@pytest.mark.parametrize(
    ("edges", "line", "words"),
    [
        (EDGES + "Gene::2064\tCbG\n", 8, "'target' is missing"),
        (EDGES + "Gene::2064\tCbG\tGene::7296\textra\n", 8, "expected 3 fields, found"),
        (EDGES.replace("CtD", "XyZ"), 4, "unknown metaedge 'XyZ'"),
        (EDGES + "Compound::DB00481\tCbG\tGene::404\n", 8, "'Gene::404' is not a node"),
        (EDGES + "\tCbG\tGene::2064\n", 8, "'source' is missing or empty"),
    ],
)
def test_hetionet_malformed_edges(tmp_path, edges, line, words):
    folder = write_hetionet(tmp_path / "h", edges=edges)
    with pytest.raises(KGFormatError) as info:
        read_hetionet(folder)
    assert info.value.line == line
    assert "edges-5k.sif.gz" in info.value.message
    assert f"line {line}" in info.value.message
    assert words in info.value.message


def test_hetionet_blank_lines_are_skipped_but_counted(tmp_path):
    edges = EDGES.replace("\nDisease::DOID:1909", "\n\nDisease::DOID:1909") + "X\tCbG\tGene::2064\n"
    folder = write_hetionet(tmp_path / "h", edges=edges)
    with pytest.raises(KGFormatError) as info:
        read_hetionet(folder)
    assert info.value.line == 9


@pytest.mark.parametrize(
    ("nodes", "line", "words"),
    [
        ("", 1, "empty"),
        ("id\tname\tkind\n", 2, "no data rows"),
        ("ident\tname\tkind\nA\tB\tC\n", 1, "expected the header"),
        (NODES + "Gene::2064\tERBB2 again\tGene\n", 10, "appears twice"),
        (NODES + "Gene::1\t\tGene\n", 10, "'name' is missing or empty"),
    ],
)
def test_hetionet_malformed_nodes(tmp_path, nodes, line, words):
    folder = write_hetionet(tmp_path / "h", nodes=nodes)
    with pytest.raises(KGFormatError) as info:
        read_hetionet(folder)
    assert "hetionet-v1.0-nodes.tsv" in info.value.message
    assert info.value.line == line
    assert words in info.value.message


def test_hetionet_empty_gz_edges(tmp_path):
    folder = write_hetionet(tmp_path / "h")
    with gzip.open(folder / "edges-5k.sif.gz", "wt") as f:
        f.write("")
    with pytest.raises(KGFormatError, match=r"edges-5k.sif.gz, line 1: the file is empty"):
        read_hetionet(folder)


def test_hetionet_missing_folder(tmp_path):
    with pytest.raises(KGFormatError, match="no such file"):
        read_hetionet(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(KGFormatError, match="no edges"):
        read_hetionet(tmp_path / "empty")


def test_metaedges_malformed(tmp_path):
    path = tmp_path / "metaedges.tsv"
    path.write_text(METAEDGES + "Compound binds Gene\tCbX\t1\t1\t1\t0\n")
    with pytest.raises(KGFormatError) as info:
        read_metaedges(path)
    assert info.value.line == 6


def test_triples_tsv_with_header_and_types(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text(
        "head\trelation\ttail\thead_type\ttail_type\n"
        "aspirin\ttreats\theadache\tDrug\tSymptom\n"
        "aspirin\ttreats\theadache\tDrug\tSymptom\n"
        "Mercury\tis a\tplanet\tPlanet\tClass\n"
        "Mercury\tis a\tmetal\tElement\tClass\n"
    )
    data = read_triples(path)
    assert len(data.edges) == 3  # the duplicate is kept once
    assert set(data.nodes["id"]) == {
        "Drug::aspirin",
        "Symptom::headache",
        "Planet::Mercury",
        "Element::Mercury",
        "Class::planet",
        "Class::metal",
    }
    assert data.edges.iloc[0]["abbrev"] == ""


def test_triples_csv_without_header_quoted(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('smoking,causes,lung cancer\n"tar, nicotine",contained in,smoking\n')
    data = read_triples(path)
    assert set(data.nodes["kind"]) == {"Entity"}
    assert "tar, nicotine" in set(data.nodes["id"])


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", 1, "empty"),
        ("a,b\n", 1, "expected 3 fields"),
        ("a,r,b\nc,r\n", 2, "'tail' is missing"),
        ("head,relation,tail\na,r,b\nc,,d\n", 3, "'relation' is missing"),
        ("a,r,b\nc,r,d,e\n", 2, "expected 3 fields, found"),
    ],
)
def test_triples_malformed(tmp_path, text, line, words):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(KGFormatError) as info:
        read_triples(path)
    assert "bad.csv" in info.value.message
    assert info.value.line == line
    assert words in info.value.message
