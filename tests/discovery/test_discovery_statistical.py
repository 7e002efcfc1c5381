"""Statistical baselines on small simulated SCMs, and the SACHS loaders on fixtures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalqa.bench.discovery_sachs import (
    BNLEARN_ORDER,
    SACHS_COLUMNS,
    SachsDataError,
    benchmark_sachs,
    load_sachs,
    read_bnlearn_graph,
)
from causalqa.discovery.statistical import (
    BaselineError,
    direct_lingam,
    exact_search,
    pc,
    run_baseline,
)
from causalqa.metrics import precision_recall_f1, shd

NAMES = ["a", "b", "c", "d"]
# a → b → c, a → c, c → d
TRUE = np.array([[0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]])


def simulate(n: int, noise: str, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)

    def e():
        return rng.uniform(-1, 1, n) if noise == "uniform" else rng.normal(0, 1, n)

    a = e()
    b = 1.5 * a + e()
    c = -1.2 * b + 0.8 * a + e()
    d = 1.0 * c + e()
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d})


def test_direct_lingam_recovers_non_gaussian_scm():
    res = direct_lingam(simulate(1000, "uniform"))
    assert res.names == NAMES
    p, r, _ = precision_recall_f1(res.adjacency, TRUE)
    assert r == 1.0 and p >= 0.75
    assert res.adjacency.dtype.kind == "i"


def test_pc_recovers_the_skeleton_and_the_collider_free_parts():
    res = pc(simulate(1000, "gaussian"))
    skeleton = (res.adjacency | res.adjacency.T).astype(bool)
    assert (skeleton == (TRUE | TRUE.T).astype(bool)).all()
    # no v-structure: everything undirected, written both ways by default
    assert len(res.undirected) == 4
    dropped = pc(simulate(1000, "gaussian"), undirected="drop")
    assert dropped.adjacency.sum() == res.adjacency.sum() - 2 * len(res.undirected)


def test_pc_orients_a_collider():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=2000), rng.normal(size=2000)
    z = x + y + rng.normal(size=2000)
    res = pc(pd.DataFrame({"x": x, "y": y, "z": z}))
    assert sorted(res.edges()) == [("x", "z"), ("y", "z")]
    assert res.undirected == []


def test_exact_search_finds_a_dag_in_the_equivalence_class():
    res = exact_search(simulate(500, "gaussian"))
    skeleton = (res.adjacency | res.adjacency.T).astype(bool)
    assert shd(skeleton.astype(int), (TRUE | TRUE.T)) == 0
    import networkx as nx

    assert nx.is_directed_acyclic_graph(res.to_networkx())


def test_arrays_get_default_names_and_bad_data_raise():
    x = simulate(300, "uniform").to_numpy()
    assert run_baseline("direct_lingam", x).names == ["X1", "X2", "X3", "X4"]
    with pytest.raises(BaselineError, match="unknown"):
        run_baseline("ges", x)
    with pytest.raises(BaselineError, match="missing or infinite"):
        pc(np.where(np.eye(300, 4) > 0, np.nan, x))
    with pytest.raises(BaselineError, match="too few"):
        pc(x[:3])
    with pytest.raises(BaselineError, match="constant"):
        pc(np.c_[x, np.ones(300)])
    with pytest.raises(BaselineError, match="not numeric"):
        pc(pd.DataFrame({"a": ["x", "y"] * 10, "b": range(20)}))
    with pytest.raises(BaselineError, match="would not finish"):
        exact_search(x, max_variables=3)


# -- SACHS loading on a small fixture ----------------------------------------------------


def write_sachs(folder, *, target: str | None = None, rows: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    data = pd.DataFrame(rng.gamma(2.0, 10.0, size=(rows, 11)), columns=list(SACHS_COLUMNS))
    data["pmek"] = 0.8 * data["praf"] + rng.gamma(2.0, 2.0, rows)
    data.to_csv(folder / "cyto_full_data.csv", index=False)
    (folder / "cyto_full_target.csv").write_text(
        target if target is not None else '"Cause","Effect"\n"praf","pmek"\n"PKA","praf"\n'
    )
    (folder / "bnlearn_sachs.graph.txt").write_text(
        "Graph Nodes:\n" + ";".join(f"X{i}" for i in range(1, 12)) + "\n\nGraph Edges:\n"
        "1. X11 --> X4\n2. X8 --> X11\n3. X4 --> X2\n"
    )


def test_load_sachs_fixture_and_bnlearn_mapping(tmp_path):
    write_sachs(tmp_path)
    s = load_sachs(tmp_path)
    assert s.names == list(SACHS_COLUMNS) and s.truth.sum() == 2
    assert sorted(s.truth_edges()) == [("PKA", "praf"), ("praf", "pmek")]
    b = load_sachs(tmp_path, truth="bnlearn")
    # X11 = Raf, X4 = Mek, X8 = PKA, X2 = Erk in bnlearn's alphabetical order
    assert sorted(b.truth_edges()) == [("PKA", "praf"), ("pmek", "p44/42"), ("praf", "pmek")]
    assert BNLEARN_ORDER[10] == "praf"


def test_sachs_errors_name_the_file_and_line(tmp_path):
    with pytest.raises(SachsDataError, match="cyto_full_data.csv: no such file"):
        load_sachs(tmp_path)
    write_sachs(tmp_path, target='"Cause","Effect"\n"praf","Raf"\n')
    with pytest.raises(SachsDataError, match=r"cyto_full_target.csv: line 2: 'Raf'"):
        load_sachs(tmp_path)
    (tmp_path / "bad.txt").write_text("Graph Nodes:\nA;B\n\nGraph Edges:\n1. A -- B\n")
    with pytest.raises(SachsDataError, match="2 nodes"):
        read_bnlearn_graph(tmp_path / "bad.txt")
    with pytest.raises(SachsDataError, match="unknown reference graph"):
        load_sachs(tmp_path, truth="tetrad")


def test_benchmark_sachs_measures_rows(tmp_path):
    write_sachs(tmp_path)
    bench = benchmark_sachs(tmp_path, methods=["pc", "direct_lingam"])
    assert [r["key"] for r in bench.rows] == ["pc", "direct_lingam"]
    for row in bench.rows:
        assert {"precision", "recall", "f1", "shd", "hd", "nhd", "seconds"} <= row.keys()
        assert row["paper"]["hd"] in (24, 29)
    md = bench.to_markdown()
    assert "PC Algorithm" in md and "paper's numbers" in md
    assert bench.to_dict()["truth_edges"] == 2


@pytest.mark.skipif(
    not (
        __import__("causalqa.discovery.pathdata", fromlist=["x"]).default_data_dir() / "sachs"
    ).is_dir(),
    reason="shared SACHS data not present",
)
def test_real_sachs_reference_graphs_load():
    cdt, bn = load_sachs(), load_sachs(truth="bnlearn")
    assert cdt.data.shape == (7466, 11)
    assert (cdt.truth.sum(), bn.truth.sum()) == (18, 17)
    # the two consensus graphs share 13 directed edges once bnlearn's order is mapped
    assert int((cdt.truth & bn.truth).sum()) == 13
