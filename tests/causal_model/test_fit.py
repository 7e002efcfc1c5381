"""The causal expert system: discovery, adjustment, individual effects, and its errors.

Data come from structural causal models whose graph and individual effects are known, so
every claim is checked against the truth. Tolerances (stated once, below) leave room for
sampling noise at n = 2000; the values measured when this was written sit well inside
them: PC recall 8/8 with no extra edge at seed 0; ATE errors at most 0.07 on the linear
SCM and 0.18 (T-learner) / 0.02 (X-learner) on the non-linear one; correlation of
estimated and true ITE 0.98-0.99 (linear) and 0.78 / 0.93 (non-linear).
"""

from __future__ import annotations

import doctest
import sys
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import causalqa.causal_model.fit as fit_module
from causalqa.causal_model import CausalModel, ModelDataError
from causalqa.causal_model.fit import (
    MIN_ROWS,
    MIN_ROWS_PER_ARM,
    adjustment_set,
    estimate_ites,
    fit_causal_model,
    learn_graph,
    orient_cpdag,
    read_data,
)
from causalqa.errors import CausalQAError, ConfigError

pytest.importorskip("causallearn")

# Tolerances.
MIN_RECALL = 0.8  # share of the true skeleton's edges found
MAX_EXTRA = 1  # edges found that are not in the true skeleton
ATE_TOL = 0.3  # absolute; 10% of the 3.0 effect, 20% of the 1.5 one
MIN_ITE_CORR = 0.5  # correlation of estimated and true ITE where effects vary

N = 2000

# The linear SCM ("partners" flavoured): Age confounds Discount, Size confounds Support,
# Visits mediates part of Discount's effect, Support's effect grows with Size.
TRUE_EDGES = {
    ("Age", "Discount"),
    ("Age", "Revenue"),
    ("Size", "Support"),
    ("Size", "Revenue"),
    ("Discount", "Visits"),
    ("Discount", "Revenue"),
    ("Visits", "Revenue"),
    ("Support", "Revenue"),
}
TRUE_GRAPH = nx.DiGraph(sorted(TRUE_EDGES))


def simulate(
    n: int = N, seed: int = 0, *, continuous: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows from the SCM above and each row's true ITE of Discount and Support.
    `continuous`: the treatments are not thresholded and Support's effect is a constant
    1.5 (a linear-Gaussian SCM)."""
    rng = np.random.default_rng(seed)
    age = rng.normal(size=n)
    size = rng.normal(size=n)
    discount = 0.8 * age + rng.normal(size=n)
    support = 0.8 * size + rng.normal(size=n)
    if not continuous:
        discount, support = (discount > 0).astype(int), (support > 0).astype(int)
    visits = 1.0 * discount + rng.normal(size=n)
    ite_support = np.full(n, 1.5) if continuous else 1.5 + 1.0 * size
    revenue = age + size + 2.0 * discount + visits + support * ite_support + rng.normal(size=n)
    data = pd.DataFrame(
        {
            "Age": age,
            "Size": size,
            "Discount": discount,
            "Support": support,
            "Visits": visits,
            "Revenue": revenue,
        }
    )
    # Discount acts directly (2.0) and through Visits (1.0 × 1.0).
    truth = pd.DataFrame({"Discount": np.full(n, 3.0), "Support": ite_support})
    return data, truth


def simulate_nonlinear(n: int = N, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """A non-linear SCM: logistic treatment, sin/square outcome, step + square effect."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(-2, 2, size=n)
    size = rng.normal(size=n)
    discount = (rng.uniform(size=n) < 1 / (1 + np.exp(-1.5 * age))).astype(int)
    ite = 1.0 + 2.0 * (age > 0) + 0.5 * size**2
    revenue = np.sin(2 * age) + age**2 + 0.5 * size + discount * ite + rng.normal(scale=0.5, size=n)
    data = pd.DataFrame({"Age": age, "Size": size, "Discount": discount, "Revenue": revenue})
    return data, ite


def skeleton(edges) -> set[frozenset[str]]:
    return {frozenset(e) for e in edges}


def recall_and_extra(g: nx.DiGraph) -> tuple[float, int]:
    found, true = skeleton(g.edges()), skeleton(TRUE_EDGES)
    return len(found & true) / len(true), len(found - true)


@pytest.fixture(scope="module")
def scm():
    return simulate()


def fails(call, *needles, exc=ModelDataError):
    """`call()` raises `exc` whose message holds every needle and which has a hint."""
    with pytest.raises(exc) as info:
        call()
    err = info.value
    assert isinstance(err, CausalQAError)
    for needle in needles:
        assert needle in err.message, (needle, err.message)
    assert err.hint, err.message
    return err


# -- discovery ---------------------------------------------------------------------------


def test_pc_recovers_the_skeleton_and_orientation(scm):
    data, _ = scm
    g = learn_graph(data)
    recall, extra = recall_and_extra(g)
    assert recall >= MIN_RECALL and extra <= MAX_EXTRA, sorted(g.edges())
    assert list(g.nodes) == list(data.columns)
    # Every edge into Revenue is fixed by a v-structure; Visits by the Discount one.
    assert len(set(g.edges()) & TRUE_EDGES) >= 0.8 * len(TRUE_EDGES), sorted(g.edges())


def test_pc_is_good_over_several_seeds():
    results = [recall_and_extra(learn_graph(simulate(seed=s)[0])) for s in range(5)]
    assert np.mean([r for r, _ in results]) >= 0.9, results
    assert sum(e for _, e in results) <= 2, results
    assert sum(r >= MIN_RECALL and e <= MAX_EXTRA for r, e in results) >= 4, results


def test_ges_recovers_a_linear_gaussian_skeleton():
    # GES scores with a linear-Gaussian BIC: binary treatments break that assumption and
    # cost it extra edges, so it is checked on continuous data, where the BIC holds.
    data, _ = simulate(continuous=True)
    g = learn_graph(data, method="ges")
    recall, extra = recall_and_extra(g)
    assert recall >= MIN_RECALL and extra <= MAX_EXTRA, sorted(g.edges())
    assert nx.is_directed_acyclic_graph(g)


def test_background_tiers_orient_edges(scm):
    data, _ = scm
    # Put the outcome first: PC must then point every edge away from it.
    g = learn_graph(data, background=[["Revenue"], [c for c in data if c != "Revenue"]])
    assert g.in_degree("Revenue") == 0
    assert g.out_degree("Revenue") >= 4


def test_discovery_is_deterministic(scm):
    data, _ = scm
    assert list(learn_graph(data).edges()) == list(learn_graph(data, seed=7).edges())


# -- from CPDAG to DAG -------------------------------------------------------------------


def _cpdag(names, directed=(), undirected=(), bidirected=()):
    """causal-learn's encoding: a[j, i] = 1, a[i, j] = -1 for i -> j."""
    ix = {v: i for i, v in enumerate(names)}
    a = np.zeros((len(names), len(names)), dtype=int)
    for u, v in directed:
        a[ix[v], ix[u]], a[ix[u], ix[v]] = 1, -1
    for u, v in undirected:
        a[ix[u], ix[v]] = a[ix[v], ix[u]] = -1
    for u, v in bidirected:
        a[ix[u], ix[v]] = a[ix[v], ix[u]] = 1
    return a


def test_undirected_edges_follow_the_column_order():
    a = _cpdag("XYZ", undirected=[("X", "Y"), ("Y", "Z")])
    assert sorted(orient_cpdag(a, list("XYZ")).edges()) == [("X", "Y"), ("Y", "Z")]
    b = _cpdag("ZYX", undirected=[("X", "Y"), ("Y", "Z")])
    assert sorted(orient_cpdag(b, list("ZYX")).edges()) == [("Y", "X"), ("Z", "Y")]


def test_orientation_creates_no_new_v_structure():
    # Orienting naively from earlier to later column would give A -> B <- C, a
    # v-structure the CPDAG does not have; the extension must avoid it.
    a = _cpdag("ACB", undirected=[("A", "B"), ("B", "C")])
    g = orient_cpdag(a, list("ACB"))
    assert not (g.has_edge("A", "B") and g.has_edge("C", "B")), sorted(g.edges())
    assert g.number_of_edges() == 2


def test_directed_edges_are_kept_and_cycles_broken():
    a = _cpdag("ABC", directed=[("A", "B"), ("B", "C"), ("C", "A")])
    g = orient_cpdag(a, list("ABC"))
    assert nx.is_directed_acyclic_graph(g)
    assert sorted(g.edges()) == [("A", "B"), ("A", "C"), ("B", "C")]
    # A kept orientation against the column order stays as learned.
    g = orient_cpdag(_cpdag("AB", directed=[("B", "A")]), ["A", "B"])
    assert list(g.edges()) == [("B", "A")]


def test_tiers_and_bidirected_edges():
    names = ["Y", "X", "Z"]
    a = _cpdag(names, directed=[("Y", "Z")], undirected=[("X", "Y")], bidirected=[("X", "Z")])
    g = orient_cpdag(a, names, tiers=[["X", "Z"], ["Y"]])
    assert sorted(g.edges()) == [("X", "Y"), ("X", "Z"), ("Z", "Y")]


def test_random_cpdags_always_give_a_dag():
    rng = np.random.default_rng(0)
    names = [f"v{i}" for i in range(7)]
    for _ in range(300):
        a = np.zeros((7, 7), dtype=int)
        for i in range(7):
            for j in range(i + 1, 7):
                if rng.uniform() < 0.5:
                    a[i, j], a[j, i] = [(-1, 1), (1, -1), (-1, -1), (1, 1)][rng.integers(4)]
        g = orient_cpdag(a, names)
        assert nx.is_directed_acyclic_graph(g)
        assert skeleton(g.edges()) == {
            frozenset((names[i], names[j])) for i in range(7) for j in range(7) if a[i, j]
        }
        assert list(orient_cpdag(a, names).edges()) == list(g.edges())  # deterministic


# -- adjustment --------------------------------------------------------------------------


def test_adjustment_set():
    g = nx.DiGraph(
        [
            ("Age", "T"),
            ("Age", "Y"),
            ("T", "M"),
            ("M", "Y"),
            ("Size", "Y"),
            ("Y", "After"),
            ("T", "Side"),
            ("Side", "Y"),
        ]
    )
    # Age: confounder; Size: effect modifier; M, Side: mediators; After: a descendant.
    assert adjustment_set(g, "T", "Y") == ["Age", "Size"]
    assert adjustment_set(TRUE_GRAPH, "Discount", "Revenue") == ["Age", "Size", "Support"]
    fails(lambda: adjustment_set(g, "Nope", "Y"), "'Nope'", "not a variable of the graph")


# -- individual effects ------------------------------------------------------------------


@pytest.mark.parametrize("learner", ["t", "x"])
def test_ites_with_the_true_graph(scm, learner):
    data, truth = scm
    ites = estimate_ites(data, ["Discount", "Support"], "Revenue", TRUE_GRAPH, learner=learner)
    assert list(ites.columns) == ["Discount", "Support"]
    assert ites.index.equals(data.index)
    assert ites.dtypes.eq(float).all()
    for t in ("Discount", "Support"):
        assert abs(ites[t].mean() - truth[t].mean()) <= ATE_TOL, (t, ites[t].mean())
    assert np.corrcoef(ites["Support"], truth["Support"])[0, 1] > MIN_ITE_CORR
    # A naive difference of means misses by more than twice the tolerance: the test data
    # really are confounded, so passing needs the adjustment.
    naive = data.Revenue[data.Discount == 1].mean() - data.Revenue[data.Discount == 0].mean()
    assert abs(naive - 3.0) > 2 * ATE_TOL


@pytest.mark.parametrize("learner", ["t", "x"])
def test_ites_on_a_nonlinear_scm(learner):
    data, ite = simulate_nonlinear()
    g = learn_graph(data)
    assert skeleton(g.edges()) == skeleton(
        [("Age", "Discount"), ("Age", "Revenue"), ("Size", "Revenue"), ("Discount", "Revenue")]
    )
    est = estimate_ites(data, "Discount", "Revenue", g, learner=learner)["Discount"]
    assert abs(est.mean() - ite.mean()) <= ATE_TOL
    assert np.corrcoef(est, ite)[0, 1] > MIN_ITE_CORR


def test_no_directed_path_means_zero_effect(scm):
    data, _ = scm
    g = nx.DiGraph([("Revenue", "Discount"), ("Age", "Revenue")])
    with pytest.warns(UserWarning, match="no directed path from 'Discount' to 'Revenue'"):
        ites = estimate_ites(data, "Discount", "Revenue", g)
    assert (ites["Discount"] == 0).all()


def test_treatments_may_be_true_false(scm):
    data, _ = scm
    small = data.iloc[:300].copy()
    as_bool = small.assign(Discount=small.Discount.astype(bool))
    as_text = small.assign(Discount=small.Discount.map({1: "yes", 0: "no"}))
    a = estimate_ites(small, "Discount", "Revenue", TRUE_GRAPH)
    pd.testing.assert_frame_equal(a, estimate_ites(as_bool, "Discount", "Revenue", TRUE_GRAPH))
    pd.testing.assert_frame_equal(a, estimate_ites(as_text, "Discount", "Revenue", TRUE_GRAPH))


# -- the whole expert system -------------------------------------------------------------


@pytest.fixture(scope="module")
def partners_csv(tmp_path_factory, scm):
    data, truth = scm
    rng = np.random.default_rng(1)
    df = data.copy()
    df.insert(0, "Partner ID", [f"P{i:04d}" for i in range(len(df))])
    df["Already Engaged"] = np.where(rng.uniform(size=len(df)) < 0.3, "yes", "no")
    path = tmp_path_factory.mktemp("fit") / "partners.csv"
    df.to_csv(path, index=False)
    return path, df, truth


def test_fit_from_csv(partners_csv, tmp_path):
    path, df, truth = partners_csv
    model = fit_causal_model(
        path,
        treatments=["Discount", "Support"],
        outcome="Revenue",
        subject_column="Partner ID",
        filters=["Already Engaged"],
    )
    assert isinstance(model, CausalModel)
    assert model.treatments == ["Discount", "Support"]
    assert model.filters == ["Already Engaged"]
    assert model.subject_column == "Partner ID"
    assert model.subjects == list(df["Partner ID"])
    eff = model.effects
    assert eff["Already Engaged"].tolist() == (df["Already Engaged"] == "yes").tolist()
    assert eff["Discount"].dtype == float and eff["Already Engaged"].dtype == bool
    for t in ("Discount", "Support"):
        assert abs(eff[t].mean() - truth[t].mean()) <= ATE_TOL, (t, eff[t].mean())
    assert np.corrcoef(eff["Support"], truth["Support"])[0, 1] > MIN_ITE_CORR
    # The outcome is measured last: discovery never lets it cause anything.
    assert model.graph.out_degree("Revenue") == 0
    core = model.graph.subgraph(TRUE_GRAPH.nodes)
    recall, extra = recall_and_extra(core)
    assert recall >= MIN_RECALL and extra <= MAX_EXTRA
    # What the other commands load is what was fitted.
    model.save(tmp_path / "model")
    back = CausalModel.load(
        tmp_path / "model" / "graph.graphml", tmp_path / "model" / "effects.csv"
    )
    assert back.treatments == model.treatments and back.filters == model.filters
    assert sorted(back.graph.edges()) == sorted(model.graph.edges())
    np.testing.assert_allclose(back.effects["Support"], eff["Support"])
    assert model.outcome == back.outcome == "Revenue"  # recorded in the GraphML


def test_fit_numbers_rows_without_a_subject_column(scm):
    data, _ = scm
    model = fit_causal_model(data.iloc[:400], treatments="Discount", outcome="Revenue")
    assert model.subject_column == "subject"
    assert model.subjects[:3] == ["1", "2", "3"] and model.subjects[-1] == "400"
    assert model.treatments == ["Discount"]


def test_fit_is_deterministic(scm):
    data, _ = scm
    small = data.iloc[:500]
    kw = dict(treatments=["Discount", "Support"], outcome="Revenue", learner="x")
    a = fit_causal_model(small, seed=3, **kw)
    b = fit_causal_model(small, seed=3, **kw)
    pd.testing.assert_frame_equal(a.effects, b.effects)
    assert list(a.graph.edges()) == list(b.graph.edges())


def test_fit_with_a_known_graph(scm, tmp_path):
    data, truth = scm
    graph_file = tmp_path / "graph.csv"
    graph_file.write_text(
        "source,target\n" + "".join(f"{u},{v}\n" for u, v in sorted(TRUE_EDGES)),
        encoding="utf-8",
    )
    extra = data.assign(Noise="not numeric, but outside the graph")
    model = fit_causal_model(
        extra, treatments=["Discount", "Support"], outcome="Revenue", graph=graph_file
    )
    assert sorted(model.graph.edges()) == sorted(TRUE_EDGES)
    assert abs(model.effects["Discount"].mean() - 3.0) <= ATE_TOL
    # A DiGraph works as well, and must contain the treatments and the outcome.
    fit_causal_model(data.iloc[:300], treatments="Support", outcome="Revenue", graph=TRUE_GRAPH)
    fails(
        lambda: fit_causal_model(
            data, treatments="Support", outcome="Revenue", graph=nx.DiGraph([("Age", "Revenue")])
        ),
        "'Support'",
        "not a variable of the graph",
    )
    # A confounder in the graph that the data lack cannot be adjusted for.
    fails(
        lambda: fit_causal_model(
            data.drop(columns=["Age"]), treatments="Discount", outcome="Revenue", graph=TRUE_GRAPH
        ),
        "'Age'",
        "'Discount'",
        "no such column",
    )
    bad = tmp_path / "cyclic.csv"
    bad.write_text("source,target\nDiscount,Revenue\nRevenue,Discount\n", encoding="utf-8")
    fails(
        lambda: fit_causal_model(data, treatments="Discount", outcome="Revenue", graph=bad),
        str(bad),
        "cycle",
    )


def test_module_doctests():
    result = doctest.testmod(fit_module)
    assert result.failed == 0 and result.attempted >= 5


# -- errors: files -----------------------------------------------------------------------


def _fit_file(path):
    return lambda: fit_causal_model(path, treatments="T", outcome="Y")


def test_file_errors(tmp_path):
    missing = tmp_path / "missing.csv"
    fails(_fit_file(missing), str(missing), "not found")
    fails(_fit_file(tmp_path), str(tmp_path), "directory")
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    fails(_fit_file(empty), str(empty), "empty")
    blank = tmp_path / "blank.csv"
    blank.write_text("\n\n", encoding="utf-8")
    fails(_fit_file(blank), str(blank), "empty")
    header = tmp_path / "header.csv"
    header.write_text("T,Y\n", encoding="utf-8")
    fails(_fit_file(header), str(header), "no rows")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("T,Y\n1,2\n0,3,4\n", encoding="utf-8")
    err = fails(_fit_file(ragged), str(ragged), "not valid CSV", "line 3")
    assert err.path == str(ragged)
    dup = tmp_path / "dup.csv"
    dup.write_text("T,Y,T\n1,2,3\n", encoding="utf-8")
    fails(_fit_file(dup), str(dup), "'T'", "twice")
    latin = tmp_path / "latin.csv"
    latin.write_bytes("T,Größe\n1,2\n".encode("latin-1"))
    fails(_fit_file(latin), str(latin), "not UTF-8")
    semi = tmp_path / "semi.csv"
    semi.write_text("T;Y\n1;2\n", encoding="utf-8")
    fails(_fit_file(semi), str(semi), "';'")
    fails(lambda: fit_causal_model([[1, 2]], treatments="T", outcome="Y"), "DataFrame")


def test_read_data_keeps_names_and_rows(tmp_path):
    p = tmp_path / "d.tsv"
    p.write_text("Größe (m²)\tT\n1.5\t1\n2.5\t0\n", encoding="utf-8")
    df = read_data(p)
    assert list(df.columns) == ["Größe (m²)", "T"] and len(df) == 2


# -- errors: data ------------------------------------------------------------------------


@pytest.fixture
def small(scm):
    return scm[0].iloc[:200].reset_index(drop=True)


def _fit(data, **kw):
    kw.setdefault("treatments", ["Discount"])
    kw.setdefault("outcome", "Revenue")
    return lambda: fit_causal_model(data, **kw)


def test_missing_columns(small):
    fails(_fit(small, treatments=["Price"]), "treatment 'Price'", "not a column")
    fails(_fit(small, outcome="Profit"), "outcome 'Profit'", "not a column")
    fails(_fit(small, filters=["Engaged"]), "filter 'Engaged'", "not a column")
    fails(_fit(small, subject_column="ID"), "subject column 'ID'", "not a column")
    fails(lambda: estimate_ites(small, "Price", "Revenue", TRUE_GRAPH), "'Price'", "not a column")
    g = nx.DiGraph([("Age", "Revenue")])
    fails(lambda: estimate_ites(small, "Discount", "Revenue", g), "'Discount'", "not a variable")


def test_non_numeric_columns_are_named(small):
    bad = small.assign(Region=["north", "south"] * 100, City=["x"] * 200)
    err = fails(_fit(bad), "'Region'", "'City'", "not numeric", "'north'")
    assert err.column == list(bad.columns).index("Region") + 1
    fails(
        lambda: estimate_ites(small.assign(Revenue=["a"] * 200), "Discount", "Revenue", TRUE_GRAPH),
        "'Revenue'",
        "not numeric",
    )


def test_missing_and_infinite_values_are_counted(small):
    bad = small.copy()
    bad.loc[[4, 9, 11], "Age"] = np.nan
    err = fails(_fit(bad), "'Age'", "3 missing", "row 5")
    assert err.column == 1
    fails(lambda: estimate_ites(bad, "Discount", "Revenue", TRUE_GRAPH), "'Age'", "3 missing")
    bad = small.astype({"Discount": float})
    bad.loc[[0, 1], "Discount"] = np.nan
    fails(_fit(bad), "'Discount'", "2 missing", "row 1")
    bad = small.copy()
    bad.loc[7, "Visits"] = np.inf
    fails(_fit(bad), "'Visits'", "1 infinite")


def test_treatment_must_be_binary_with_both_arms(small):
    fails(_fit(small.assign(Discount=small.Discount * 2 + (small.Age > 0))), "'Discount'", "binary")
    few_treated = small.assign(Discount=[1] * (MIN_ROWS_PER_ARM - 1) + [0] * 191)
    fails(_fit(few_treated), "'Discount'", f"only {MIN_ROWS_PER_ARM - 1} treated")
    few_control = small.assign(Discount=[0] * 3 + [1] * 197)
    fails(_fit(few_control), "'Discount'", "only 3 control")
    fails(
        lambda: estimate_ites(small.assign(Discount=1), "Discount", "Revenue", TRUE_GRAPH),
        "only 0 control",
    )


def test_subjects_and_filters(small):
    ids = small.assign(ID=[f"s{i}" for i in range(199)] + ["s3"])
    fails(_fit(ids, subject_column="ID"), "'s3'", "twice", "rows 4 and 200")
    ids = small.assign(ID=[f"s{i}" for i in range(199)] + [None])
    fails(_fit(ids, subject_column="ID"), "'ID'", "empty", "row 200")
    flag = small.assign(Engaged=["maybe"] + ["yes"] * 199)
    fails(_fit(flag, filters=["Engaged"]), "'Engaged'", "not boolean", "'maybe'")
    flag = small.assign(Engaged=[None] + [True] * 199)
    fails(_fit(flag, filters=["Engaged"]), "'Engaged'", "1 missing")


def test_discovery_data_errors(small):
    fails(lambda: learn_graph(small.assign(Const=4.0)), "'Const'", "constant")
    fails(
        lambda: learn_graph(small.assign(Total=small.Age + small.Size)),
        "columns 'Age', 'Size', 'Total' are perfectly collinear",
    )
    fails(lambda: learn_graph(small.iloc[: MIN_ROWS - 1]), f"{MIN_ROWS - 1} row(s)")
    fails(lambda: learn_graph(small[["Age"]]), "at least two")
    fails(lambda: learn_graph(small.iloc[:0]), "no rows")
    fails(
        lambda: learn_graph(small, background=[["Age"], ["Price"]]),
        "tier 2",
        "'Price'",
    )
    fails(
        lambda: learn_graph(small, background=[["Age"], ["Age"]]),
        "'Age'",
        exc=ConfigError,
    )
    fails(lambda: learn_graph(small, background="Age"), "tiers", exc=ConfigError)


def test_argument_errors(small):
    fails(_fit(small, method="lingam"), "'lingam'", exc=ConfigError)
    fails(_fit(small, learner="s"), "'s'", exc=ConfigError)
    fails(lambda: learn_graph(small, alpha=1.5), "alpha", exc=ConfigError)
    fails(_fit(small, treatments=[]), "no treatment", exc=ConfigError)
    fails(_fit(small, treatments=["Discount", "Discount"]), "twice", exc=ConfigError)
    fails(_fit(small, treatments=["Revenue"]), "'Revenue'", "outcome", exc=ConfigError)
    fails(_fit(small, filters=["Discount"]), "'Discount'", "filter", exc=ConfigError)
    fails(
        lambda: estimate_ites(small, ["Revenue"], "Revenue", TRUE_GRAPH),
        "'Revenue'",
        exc=ConfigError,
    )


def test_missing_causal_learn_is_a_clear_error(small, monkeypatch):
    monkeypatch.setitem(sys.modules, "causallearn.search.ConstraintBased.PC", None)
    err = fails(lambda: learn_graph(small), "causal-learn", exc=CausalQAError)
    assert "pip install" in err.hint
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a known graph needs no causal-learn at all
        fit_causal_model(small, treatments="Discount", outcome="Revenue", graph=TRUE_GRAPH)
