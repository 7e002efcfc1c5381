"""Statistical causal discovery baselines (paper 001, Table 3) as plain functions.

Each takes observations (a pandas DataFrame, whose columns name the variables, or a 2-D
numpy array) and returns a `StatisticalResult`: a directed 0/1 adjacency matrix
(``adjacency[i, j] = 1`` means i → j) with the variable names and the seconds it took.

- `pc`: PC (causal-learn, Fisher-z tests, stable skeleton). PC returns a CPDAG; its
  undirected edges i — j (and the rare bidirected i ↔ j from conflicting orientations) are
  handled by `undirected`: ``"both"`` (default) writes both i → j and j → i — the method
  claims an adjacency but no direction, so a directed truth edge is found and the opposite
  direction is a false positive; ``"drop"`` leaves them out. Either way they are listed in
  `StatisticalResult.undirected`.
- `exact_search`: score-based exact search with BIC (causal-learn's ``bic_exact_search``,
  ``search_method="astar"``, i.e. A* of Yuan & Malone 2013); returns a DAG. Exponential in
  the number of variables: refused above `max_variables` (default 20).
- `direct_lingam`: DirectLiNGAM (lingam 1.12.2); returns a DAG, an edge j → i wherever
  the pruned coefficient ``B[i, j]`` exceeds `threshold` in absolute value.

>>> import numpy as np, pandas as pd                                      # doctest: +SKIP
>>> rng = np.random.default_rng(0); x = rng.uniform(size=500)             # doctest: +SKIP
>>> df = pd.DataFrame({"x": x, "y": 2 * x + rng.uniform(size=500)})      # doctest: +SKIP
>>> direct_lingam(df).edges()                                              # doctest: +SKIP
[('x', 'y')]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from causalqa.errors import BaselineError

__all__ = [
    "BASELINES",
    "BaselineError",
    "StatisticalResult",
    "direct_lingam",
    "exact_search",
    "pc",
    "read_observations",
    "run_baseline",
    "run_baselines",
]

Undirected = Literal["both", "drop"]


@dataclass
class StatisticalResult:
    """A discovered graph: ``adjacency[i, j] = 1`` means ``names[i] → names[j]``."""

    method: str
    adjacency: np.ndarray
    names: list[str]
    seconds: float = 0.0
    undirected: list[tuple[str, str]] = field(default_factory=list)
    """Pairs the method left without a direction (CPDAG), whatever `undirected` did."""
    params: dict[str, Any] = field(default_factory=dict)

    def edges(self) -> list[tuple[str, str]]:
        """Directed edges (cause, effect) in row-major order."""
        return [(self.names[i], self.names[j]) for i, j in zip(*np.nonzero(self.adjacency))]

    def to_networkx(self):
        import networkx as nx

        g = nx.DiGraph()
        g.add_nodes_from(self.names)
        g.add_edges_from(self.edges())
        return g

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "names": self.names,
            "edges": [list(e) for e in self.edges()],
            "undirected": [list(e) for e in self.undirected],
            "seconds": round(self.seconds, 3),
            "params": self.params,
        }


def _prepare(data: Any, names: Sequence[str] | None) -> tuple[np.ndarray, list[str]]:
    if isinstance(data, pd.DataFrame):
        cols = [str(c) for c in data.columns]
        non_numeric = [c for c in data.columns if not pd.api.types.is_numeric_dtype(data[c])]
        if non_numeric:
            raise BaselineError(
                f"columns are not numeric: {', '.join(map(str, non_numeric[:5]))}",
                hint="the statistical baselines need numeric observations; encode or drop them",
            )
        x = data.to_numpy(dtype=float)
        names = list(names) if names is not None else cols
    else:
        try:
            x = np.asarray(data, dtype=float)
        except (TypeError, ValueError):
            raise BaselineError("the data must be numeric (a DataFrame or a 2-D array)") from None
    if x.ndim != 2:
        raise BaselineError(f"the data must be 2-D (rows × variables), got shape {x.shape}")
    n, d = x.shape
    names = list(names) if names is not None else [f"X{i + 1}" for i in range(d)]
    if len(names) != d:
        raise BaselineError(f"{len(names)} names given for {d} variables")
    if len(set(names)) != d:
        raise BaselineError("variable names must be distinct")
    if d < 2:
        raise BaselineError("discovery needs at least two variables")
    if n <= d:
        raise BaselineError(
            f"{n} rows for {d} variables: too few observations",
            hint="give more rows than variables (ideally hundreds)",
        )
    if not np.isfinite(x).all():
        raise BaselineError(
            "the data contain missing or infinite values",
            hint="drop or impute rows with NaN/inf first",
        )
    if np.any(x.std(axis=0) == 0):
        const = [names[i] for i in np.nonzero(x.std(axis=0) == 0)[0]]
        raise BaselineError(f"constant columns carry no information: {', '.join(const)}")
    return x, names


def _missing(what: str, package: str) -> BaselineError:
    return BaselineError(
        f"{what} needs the {package} package, which is not installed",
        hint=f"pip install {package}",
    )


def pc(
    data: Any,
    *,
    names: Sequence[str] | None = None,
    alpha: float = 0.05,
    undirected: Undirected = "both",
    required: Sequence[tuple[str, str]] = (),
    forbidden: Sequence[tuple[str, str]] = (),
) -> StatisticalResult:
    """PC with Fisher-z conditional-independence tests at level `alpha` (causal-learn).

    Inputs: observations (rows × variables). Output: a `StatisticalResult`; undirected CPDAG
    edges become two-way edges (``undirected="both"``) or are dropped (``"drop"``).
    `required` / `forbidden`: directed edges (cause, effect) given as background knowledge
    (causal-learn's ``BackgroundKnowledge``): a forbidden edge is never oriented that way (an
    edge forbidden both ways is removed), a required one is oriented so when the data keep
    the adjacency. Raises `BaselineError` on unusable data or an unknown name.
    """
    if undirected not in ("both", "drop"):
        raise BaselineError(f"undirected must be 'both' or 'drop', got {undirected!r}")
    x, names = _prepare(data, names)
    try:
        from causallearn.search.ConstraintBased.PC import pc as cl_pc
        from causallearn.utils.cit import fisherz
    except ImportError:
        raise _missing("PC", "causal-learn") from None
    knowledge = None
    if required or forbidden:
        from causallearn.graph.GraphNode import GraphNode
        from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge

        known = set(names)
        knowledge = BackgroundKnowledge()
        for edges, add in (
            (required, knowledge.add_required_by_node),
            (forbidden, knowledge.add_forbidden_by_node),
        ):
            for a, b in edges:
                if a not in known or b not in known:
                    raise BaselineError(
                        f"background knowledge names an unknown variable: {a} → {b}"
                    )
                add(GraphNode(a), GraphNode(b))
    start = time.perf_counter()
    cg = cl_pc(
        x,
        alpha,
        fisherz,
        stable=True,
        show_progress=False,
        node_names=list(names),
        background_knowledge=knowledge,
    )
    seconds = time.perf_counter() - start
    # causal-learn's endpoint matrix: G[j, i] = 1 and G[i, j] = -1 encode i → j;
    # -1/-1 is undirected, 1/1 bidirected.
    g = np.asarray(cg.G.graph)
    d = len(names)
    adj = np.zeros((d, d), dtype=int)
    loose: list[tuple[str, str]] = []
    for i in range(d):
        for j in range(i + 1, d):
            a, b = g[i, j], g[j, i]
            if a == -1 and b == 1:
                adj[i, j] = 1
            elif a == 1 and b == -1:
                adj[j, i] = 1
            elif a != 0 or b != 0:
                loose.append((names[i], names[j]))
                if undirected == "both":
                    adj[i, j] = adj[j, i] = 1
    params = {"alpha": alpha, "test": "fisherz", "undirected": undirected}
    if knowledge is not None:
        params["required"] = [list(e) for e in required]
        params["forbidden"] = [list(e) for e in forbidden]
    return StatisticalResult("pc", adj, names, seconds, loose, params)


def exact_search(
    data: Any,
    *,
    names: Sequence[str] | None = None,
    max_parents: int | None = None,
    max_variables: int = 20,
) -> StatisticalResult:
    """Exact BIC-score search by A* (causal-learn ``bic_exact_search``).

    Finds a DAG with the optimal BIC score over all DAGs (with at most `max_parents`
    parents per node when given). Raises `BaselineError` above `max_variables` variables:
    the search is exponential in them.
    """
    x, names = _prepare(data, names)
    if len(names) > max_variables:
        raise BaselineError(
            f"exact search over {len(names)} variables would not finish",
            hint=f"use at most {max_variables} variables, or raise max_variables knowingly",
        )
    try:
        from causallearn.search.ScoreBased.ExactSearch import bic_exact_search
    except ImportError:
        raise _missing("Exact search", "causal-learn") from None
    start = time.perf_counter()
    dag, _stats = bic_exact_search(x, search_method="astar", max_parents=max_parents)
    seconds = time.perf_counter() - start
    adj = (np.asarray(dag) != 0).astype(int)  # dag[parent, child] = 1
    np.fill_diagonal(adj, 0)
    return StatisticalResult(
        "exact_search", adj, names, seconds, [], {"score": "bic", "search": "astar"}
    )


def direct_lingam(
    data: Any,
    *,
    names: Sequence[str] | None = None,
    seed: int = 0,
    threshold: float = 0.0,
) -> StatisticalResult:
    """DirectLiNGAM (Shimizu et al. 2011; the lingam package).

    Assumes a linear model with non-Gaussian noise; returns the DAG of the pruned
    coefficient matrix (|B[i, j]| > `threshold` gives j → i).
    """
    x, names = _prepare(data, names)
    try:
        import lingam
    except ImportError:
        raise _missing("DirectLiNGAM", "lingam==1.12.2") from None
    start = time.perf_counter()
    model = lingam.DirectLiNGAM(random_state=seed)
    model.fit(x)
    seconds = time.perf_counter() - start
    b = np.asarray(model.adjacency_matrix_)  # x_i = sum_j B[i, j] x_j + e_i
    adj = (np.abs(b.T) > threshold).astype(int)
    np.fill_diagonal(adj, 0)
    return StatisticalResult(
        "direct_lingam", adj, names, seconds, [], {"seed": seed, "threshold": threshold}
    )


BASELINES: dict[str, Callable[..., StatisticalResult]] = {
    "pc": pc,
    "exact_search": exact_search,
    "direct_lingam": direct_lingam,
}
LABELS = {
    "pc": "PC Algorithm",
    "exact_search": "Exact Search (A*)",
    "direct_lingam": "DirectLiNGAM",
}


def run_baseline(method: str, data: Any, **kwargs: Any) -> StatisticalResult:
    """Run a baseline by name: ``pc``, ``exact_search`` or ``direct_lingam``."""
    if method not in BASELINES:
        raise BaselineError(
            f"unknown statistical baseline {method!r}", hint=f"use one of: {', '.join(BASELINES)}"
        )
    return BASELINES[method](data, **kwargs)


def run_baselines(data: pd.DataFrame) -> list[dict[str, Any]]:
    """Every baseline on `data` (columns: the variables), one row each: the method's label
    and its edges and adjacency, or the error that stopped it (one failing method does not
    stop the others)."""
    from causalqa.errors import CausalQAError

    rows: list[dict[str, Any]] = []
    for m in BASELINES:
        try:
            res = run_baseline(m, data)
        except CausalQAError as e:
            rows.append({"method": LABELS[m], "error": e.message})
            continue
        edges = [(res.names[i], res.names[j]) for i, j in zip(*res.adjacency.nonzero())]
        rows.append({"method": LABELS[m], "edges": edges, "adjacency": res.adjacency.tolist()})
    return rows


def read_observations(path: Any, names: Sequence[str]) -> pd.DataFrame:
    """The columns `names` of the CSV at `path`, in that order: a `DiscoveryError` when the
    file is not a readable CSV, lacks a column (naming the columns it has), or a column is
    not numeric."""
    from causalqa.errors import DiscoveryError

    try:
        frame = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise DiscoveryError(f"{path}: not a readable CSV: {e}") from None
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise DiscoveryError(
            f"{path}: no column for {', '.join(missing)}",
            hint="columns are: " + ", ".join(map(str, frame.columns)),
        )
    frame = frame[list(names)]
    if frame.empty or not all(pd.api.types.is_numeric_dtype(frame[c]) for c in names):
        raise DiscoveryError(f"{path}: the variables' columns must be numeric and non-empty")
    return frame
