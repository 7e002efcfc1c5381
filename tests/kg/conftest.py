"""Small generated graphs, written as Hetionet-shaped or triples files in tmp folders."""

from __future__ import annotations

import gzip
import random

import pandas as pd
import pytest

from causalqa.kg import GraphData, KnowledgeGraph

KINDS = ["Compound", "Gene", "Disease"]
RELATIONS = [("binds", "CbG"), ("associates", "DaG"), ("interacts", "GiG"), ("treats", "CtD")]


def random_graph(seed: int = 7, n: int = 36, m: int = 110) -> GraphData:
    """A typed multigraph with parallel edges, opposite-direction twins, a self-loop and
    two isolated nodes: everything path extraction must get right."""
    rng = random.Random(seed)
    nodes = pd.DataFrame(
        {
            "id": [f"N{i:02d}" for i in range(n)],
            "name": [f"node {i}" for i in range(n)],
            "kind": [KINDS[i % 3] for i in range(n)],
        }
    )
    edges = set()
    while len(edges) < m:
        s, t = rng.randrange(n - 2), rng.randrange(n - 2)
        relation, abbrev = rng.choice(RELATIONS)
        edges.add((f"N{s:02d}", f"N{t:02d}", relation, abbrev))
    edges.add(("N00", "N01", "binds", "CbG"))
    edges.add(("N00", "N01", "treats", "CtD"))  # parallel edge, other relation
    edges.add(("N01", "N00", "binds", "CbG"))  # same relation, other direction
    edges.add(("N03", "N03", "interacts", "GiG"))  # self-loop
    frame = pd.DataFrame(sorted(edges), columns=["source", "target", "relation", "abbrev"])
    return GraphData(nodes, frame, source={"format": "generated", "seed": seed})


@pytest.fixture(scope="module")
def small_data() -> GraphData:
    return random_graph()


@pytest.fixture(scope="module")
def small_kg(tmp_path_factory, small_data):
    kg = KnowledgeGraph.build(small_data, tmp_path_factory.mktemp("kg") / "store")
    yield kg
    kg.close()


METAEDGES = (
    "metaedge\tabbreviation\tedges\tsource_nodes\ttarget_nodes\tunbiased\n"
    "Compound - binds - Gene\tCbG\t1\t1\t1\t0\n"
    "Disease - associates - Gene\tDaG\t1\t1\t1\t0\n"
    "Compound - treats - Disease\tCtD\t1\t1\t1\t0\n"
    "Gene > regulates > Gene\tGr>G\t1\t1\t1\t0\n"
)
NODES = (
    "id\tname\tkind\n"
    "Compound::DB00481\tRaloxifene\tCompound\n"
    "Gene::2064\tERBB2\tGene\n"
    "Gene::7296\tTXNRD1\tGene\n"
    "Disease::DOID:1909\tmelanoma\tDisease\n"
    "Side Effect::C0025202\tMelanoma\tSide Effect\n"
    "Disease::DOID:1612\tbreast cancer\tDisease\n"
    "Disease::DOID:4159\tskin cancer\tDisease\n"
    "Biological Process::GO:0000059\tprotein import into nucleus, docking\tBiological Process\n"
)
EDGES = (
    "source\tmetaedge\ttarget\n"
    "Compound::DB00481\tCbG\tGene::2064\n"
    "Disease::DOID:1909\tDaG\tGene::2064\n"
    "Compound::DB00481\tCtD\tDisease::DOID:1612\n"
    "Disease::DOID:1612\tDaG\tGene::2064\n"
    "Gene::7296\tGr>G\tGene::2064\n"
    "Compound::DB00481\tCbG\tGene::7296\n"
)


def write_hetionet(folder, nodes=NODES, edges=EDGES, metaedges=METAEDGES, gz=True):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hetionet-v1.0-nodes.tsv").write_text(nodes, encoding="utf-8")
    if metaedges is not None:
        (folder / "metaedges.tsv").write_text(metaedges, encoding="utf-8")
    if gz:
        with gzip.open(folder / "edges-5k.sif.gz", "wt", encoding="utf-8") as f:
            f.write(edges)
    else:
        (folder / "edges-5k.sif").write_text(edges, encoding="utf-8")
    return folder


@pytest.fixture
def hetionet_dir(tmp_path):
    return write_hetionet(tmp_path / "hetionet")
