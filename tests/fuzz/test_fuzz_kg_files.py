"""Knowledge-graph files: triples (TSV/CSV, with or without header and types) and
Hetionet's nodes TSV + edges SIF, generated and mutated, read as graphs whose edges join
known nodes, or fail with one `KGFormatError` naming the file; ``kg load`` exits 0 or 1
and a failed load leaves no store behind."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.common import (
    FUZZ,
    FUZZ_CLI,
    load_or_refused,
    mutated,
    names,
    texts,
    write,
)
from tests.hardening.support import assert_clean_exit, files_under, run_cli
from tests.kg.conftest import EDGES, METAEDGES, NODES

from causalqa.errors import CausalQAError
from causalqa.kg.loaders import GraphData, read_hetionet, read_triples


def check_graph(data: GraphData) -> None:
    assert len(data.nodes) > 0 and data.nodes["id"].is_unique
    ids = set(data.nodes["id"])
    assert set(data.edges["source"]) <= ids and set(data.edges["target"]) <= ids
    for frame in (data.nodes, data.edges):
        assert all(isinstance(v, str) for v in frame.to_numpy().ravel())


@st.composite
def triples(draw) -> tuple[str, str]:
    sep = draw(st.sampled_from(["\t", ","]))
    typed = draw(st.booleans())
    rows = []
    header = draw(st.sampled_from([None, "head relation tail", "subject predicate object"]))
    if header:
        rows.append(header.split() + (["head_type", "tail_type"] if typed else []))
    for _ in range(draw(st.integers(0, 6))):
        row = [draw(names), draw(st.sampled_from(["causes", "treats", "is a"])), draw(names)]
        if typed:
            row += [draw(st.sampled_from(["Gene", "Disease"])), draw(names)]
        if draw(st.integers(0, 9)) == 0:
            row = row[: draw(st.integers(0, len(row)))] + [draw(texts)]
        rows.append(row)
    buf = io.StringIO()
    if sep == ",":
        csv.writer(buf, lineterminator="\n").writerows(rows)
    else:
        buf.write("".join("\t".join(r) + "\n" for r in rows))
    return buf.getvalue(), (".tsv" if sep == "\t" else ".csv")


def read_or_error(text: str, suffix: str):
    return load_or_refused(read_triples, f"triples{suffix}", text)


@FUZZ
@given(triples())
def test_generated_triples(case):
    data = read_or_error(*case)
    if data is not None:
        check_graph(data)


VALID = "head\trelation\ttail\nsmoking\tcauses\tcancer\ntar\tin\tsmoking\nsmoking\tcauses\tcough\n"


@FUZZ
@given(mutated(VALID), st.sampled_from([".tsv", ".csv", ".txt"]))
def test_mutated_triples(text, suffix):
    data = read_or_error(text, suffix)
    if data is not None:
        check_graph(data)


@FUZZ
@given(mutated(NODES), mutated(EDGES), st.booleans())
def test_mutated_hetionet_folders(nodes, edges, with_metaedges):
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        write(folder / "hetionet-v1.0-nodes.tsv", nodes)
        write(folder / "edges-5k.sif", edges)
        if with_metaedges:
            write(folder / "metaedges.tsv", METAEDGES)
        try:
            check_graph(read_hetionet(folder))
        except CausalQAError as e:
            assert isinstance(e, CausalQAError)
            assert d in e.message, e.message  # names the file of the folder at fault
            assert "\n" not in e.message


@FUZZ_CLI
@given(triples())
def test_kg_load_leaves_no_store_when_it_fails(case):
    text, suffix = case
    with tempfile.TemporaryDirectory() as d:
        path, store = Path(d) / f"t{suffix}", Path(d) / "stores" / "kg"
        write(path, text)
        run = run_cli("--json", "kg", "load", "triples", str(path), "--store", str(store))
        assert_clean_exit(run)
        if run.code == 0:
            assert (store / "kg.json").exists()
        else:
            left = files_under(Path(d) / "stores")
            assert not left, left
