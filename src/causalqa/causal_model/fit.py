"""Fit a `CausalModel` from raw data: the "causal expert system" paper 000 assumes.

A user who has only a table of observations (one row per subject) gets the two things the
question-answering engines reason over — a causal DAG and a table of individual treatment
effects (ITE) — in named steps, the way DoWhy spells a causal workflow:

1. `learn_graph`: learn the graph with causal-learn (PC with Fisher-z tests by
   default, or GES with the BIC score) and turn the equivalence class it returns into
   one DAG by a fixed, documented rule (`orient_cpdag`).
2. `adjustment_set`: read off the graph which columns to adjust for.
3. `estimate_ites`: estimate every row's effect of each binary treatment with a
   scikit-learn meta-learner (T-learner or X-learner; each arm a linear model plus
   gradient-boosted trees on its residuals).
4. `fit_causal_model`: all of the above from a CSV file or a DataFrame, returning a
   validated `CausalModel` (save it with `CausalModel.save`).

Every step is deterministic given `seed`. Every problem with the data raises
`ModelDataError` naming the file (or ``<data>``) and the column; a bad argument (an
unknown method or learner) raises `ConfigError`.

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> age = rng.normal(size=500)
    >>> promo = (age + rng.normal(size=500) > 0).astype(int)
    >>> sales = 2.0 * promo + 1.5 * age + rng.normal(size=500)
    >>> df = pd.DataFrame({"Age": age, "Promo": promo, "Sales": sales})
    >>> model = fit_causal_model(df, treatments=["Promo"], outcome="Sales")
    >>> model.treatments, sorted(model.graph.edges())
    (['Promo'], [('Age', 'Promo'), ('Age', 'Sales'), ('Promo', 'Sales')])
    >>> bool(abs(model.effects["Promo"].mean() - 2.0) < 0.3)  # the true effect is 2
    True
"""

from __future__ import annotations

import csv
import os
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from causalqa._compat import moved_names
from causalqa.causal_model.formats import load_graph
from causalqa.causal_model.model import CausalModel
from causalqa.errors import CausalQAError, ConfigError, ModelDataError

__all__ = [
    "LEARNERS",
    "METHODS",
    "MIN_ROWS",
    "MIN_ROWS_PER_ARM",
    "adjustment_set",
    "learn_graph",
    "estimate_ites",
    "fit_causal_model",
    "orient_cpdag",
    "read_data",
]

METHODS = ("pc", "ges")
"""Graph discovery methods: PC (constraint-based, Fisher-z tests), GES (score-based, BIC)."""

LEARNERS = ("t", "x")
"""Meta-learners for individual effects: T-learner, X-learner (Künzel et al. 2019)."""

MIN_ROWS = 20
"""Fewest rows discovery or estimation accepts: below this every test and fit is noise."""

MIN_ROWS_PER_ARM = 10
"""Fewest treated and fewest control rows a treatment needs for its effect to be estimated."""

DEFAULT_SUBJECT_COLUMN = "subject"
"""Header of the subject-id column when the data has none (ids are then row numbers)."""

DATA_HINT = (
    "the data needs one row per subject and one numeric column per variable "
    "(treatments 0/1 or true/false), without missing values"
)

# -- errors ------------------------------------------------------------------------------


def _fail(source: str, problem: str, *, hint: str | None = None, column: int | None = None):
    return ModelDataError(f"{source}: {problem}", hint=hint, path=source, column=column)


def _col_no(data: pd.DataFrame, name: str) -> int | None:
    # 1-based, like a spreadsheet column; ModelDataError.column carries it for programs.
    try:
        return int(data.columns.get_loc(name)) + 1
    except (KeyError, TypeError):
        return None


def _columns_list(names: Iterable[str]) -> str:
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:12])
    return shown + (f" … ({len(names)} in all)" if len(names) > 12 else "")


# -- reading and checking data -----------------------------------------------------------


def read_data(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a data table (CSV; TSV for ``.tsv``; Parquet for ``.parquet``/``.pq``).

    Input: the path. Output: a DataFrame with string column names, one row per subject,
    in file order. Cells stay as pandas parses them: checks for numbers and missing values
    happen in the step that needs them, so the message can say why the column matters.

    Raises `ModelDataError` naming the file for: a missing file or a directory, a file
    that is not UTF-8, is empty, has only a header, has a ragged row (with its line) or
    repeats a column name.
    """
    p = Path(path)
    source = str(p)
    if not p.exists():
        raise _fail(source, "file not found", hint="check the path")
    if p.is_dir():
        raise _fail(source, "is a directory, not a file", hint="give the path of the data file")
    suffix = p.suffix.lower()
    if suffix in (".parquet", ".pq"):
        try:
            df = pd.read_parquet(p)
        except ImportError:
            raise _fail(
                source,
                "reading Parquet needs the pyarrow package, which is not installed",
                hint="pip install pyarrow, or save the data as CSV",
            ) from None
        except (OSError, ValueError) as e:
            raise _fail(source, f"is not a readable Parquet file: {e}", hint=DATA_HINT) from None
        return _check_frame(df, source)

    sep = "\t" if suffix == ".tsv" else ","
    try:
        # pandas renames a repeated header ("x", "x.1") silently; the csv module shows
        # the header as written, so a duplicate can be named instead of misread.
        with p.open(encoding="utf-8-sig", newline="") as f:
            header = next(csv.reader(f, delimiter=sep), None)
        if header is None or not any(h.strip() for h in header):
            raise _fail(source, "the file is empty", hint=DATA_HINT)
        df = pd.read_csv(p, sep=sep, encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise _fail(
            source, f"is not UTF-8 text (byte {e.start})", hint="save the file as UTF-8"
        ) from None
    except pd.errors.EmptyDataError:
        raise _fail(source, "the file is empty", hint=DATA_HINT) from None
    except pd.errors.ParserError as e:
        raise _fail(
            source,
            f"is not valid CSV: {str(e).strip()}",
            hint="every row needs one value per column (quote values that contain commas)",
        ) from None
    except (csv.Error, OSError) as e:
        raise _fail(source, f"cannot be read: {e}", hint=DATA_HINT) from None
    names = [h.strip() for h in header]
    dup = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if dup is not None:
        raise _fail(
            source,
            f"the column name {dup!r} appears twice",
            hint="column names must be unique: rename one",
        )
    if len(names) == 1 and ";" in names[0]:
        raise _fail(
            source,
            "the file has a single column; it seems to use ';' as separator",
            hint="save it with ',' as separator",
        )
    df.columns = names
    return _check_frame(df, source)


def _check_frame(data: Any, source: str) -> pd.DataFrame:
    """A copy of `data` with string column names; rejects non-frames, duplicates, no rows."""
    if not isinstance(data, pd.DataFrame):
        raise _fail(
            source,
            f"expected a pandas DataFrame or a file path, got {type(data).__name__}",
            hint=DATA_HINT,
        )
    df = data.copy()
    # Variables are named by strings everywhere downstream (plans are JSON).
    df.columns = [str(c).strip() for c in df.columns]
    seen: set[str] = set()
    for name in df.columns:
        if not name:
            raise _fail(source, "a column has no name", hint="name every column")
        if name in seen:
            raise _fail(
                source,
                f"the column name {name!r} appears twice",
                hint="column names must be unique: rename one",
            )
        seen.add(name)
    if len(df) == 0:
        raise _fail(source, "the data has no rows", hint="add one row per subject")
    return df


def _numeric(data: pd.DataFrame, columns: Sequence[str], source: str, role: str) -> np.ndarray:
    """The named columns as a float matrix; every problem names its column.

    Checks, in the order a user would fix them: columns that are not numbers (all
    named), missing values (column, count, first row), infinities.
    """
    bad = [
        c
        for c in columns
        if not (pd.api.types.is_numeric_dtype(data[c]) or pd.api.types.is_bool_dtype(data[c]))
    ]
    if bad:
        first = bad[0]
        example = next((v for v in data[first] if not pd.isna(v)), None)
        are = f"column {bad[0]!r} is" if len(bad) == 1 else f"columns {_columns_list(bad)} are"
        raise _fail(
            source,
            f"{are} not numeric (e.g. {example!r} in {first!r}); {role} must be numbers",
            hint="encode categories as 0/1 columns, or drop the column",
            column=_col_no(data, first),
        )
    for c in columns:
        missing = data[c].isna().to_numpy()
        if missing.any():
            n, row = int(missing.sum()), int(np.argmax(missing)) + 1
            raise _fail(
                source,
                f"column {c!r} has {n} missing value(s) (NaN), the first in row {row}",
                hint="fill in or drop the rows with missing values before fitting",
                column=_col_no(data, c),
            )
    x = data[list(columns)].astype(float).to_numpy()
    if not np.isfinite(x).all():
        j = int(np.argmax(~np.isfinite(x).all(axis=0)))
        c = columns[j]
        n = int((~np.isfinite(x[:, j])).sum())
        raise _fail(
            source,
            f"column {c!r} has {n} infinite value(s)",
            hint="replace or drop the infinite values",
            column=_col_no(data, c),
        )
    return x


def _require_columns(data: pd.DataFrame, names: Sequence[str], what: str, source: str) -> None:
    missing = [n for n in names if n not in data.columns]
    if missing:
        one = len(missing) == 1
        raise _fail(
            source,
            f"{what} {_columns_list(missing)} {'is not a column' if one else 'are not columns'} "
            "of the data",
            hint="columns are: " + _columns_list(data.columns),
        )


def _check_rows(n: int, source: str) -> None:
    if n < MIN_ROWS:
        raise _fail(
            source,
            f"the data has {n} row(s); fitting needs at least {MIN_ROWS}",
            hint="collect more rows: discovery and effect estimation need data to learn from",
        )


def _as_list(names: str | Iterable[str], what: str) -> list[str]:
    # A lone string would otherwise be iterated letter by letter.
    out = [names] if isinstance(names, str) else [str(n) for n in names]
    dup = next((n for i, n in enumerate(out) if n in out[:i]), None)
    if dup is not None:
        raise ConfigError(f"{what} {dup!r} is given twice", hint=f"name each {what} once")
    return out


# -- step 1: discover the graph ----------------------------------------------------------


def _tier_of(names: Sequence[str], background: Sequence[Sequence[str]] | None, source: str):
    tier: dict[str, int] = {}
    if background is None:
        return tier
    if isinstance(background, str) or not all(
        isinstance(t, Sequence) and not isinstance(t, str) for t in background
    ):
        raise ConfigError(
            "background must be a list of tiers, each a list of variable names",
            hint='e.g. [["Age", "Size"], ["Discount"], ["Revenue"]]',
        )
    known = set(names)
    for i, names_in_tier in enumerate(background):
        for v in names_in_tier:
            v = str(v)
            if v not in known:
                raise _fail(
                    source,
                    f"background tier {i + 1} names {v!r}, which is not a column of the data",
                    hint="columns are: " + _columns_list(names),
                )
            if v in tier:
                raise ConfigError(
                    f"background puts {v!r} in tiers {tier[v] + 1} and {i + 1}",
                    hint="each variable belongs to at most one tier",
                )
            tier[v] = i
    return tier


def orient_cpdag(
    adjacency: np.ndarray,
    names: Sequence[str],
    *,
    tiers: Sequence[Sequence[str]] | None = None,
) -> nx.DiGraph:
    """Turn a learned CPDAG into one DAG, deterministically. Never returns a cycle.

    Inputs: `adjacency` in causal-learn's encoding (``a[j, i] == 1 and a[i, j] == -1``
    means i → j; both -1 an undirected edge i — j; both 1 a bidirected edge i ↔ j, PC's
    sign of conflicting orientations); `names` of the variables in column order;
    optional `tiers` (earlier tiers may cause later ones, never the reverse).
    Output: a networkx DiGraph over all `names` with one directed edge per adjacency.

    The rule, in order:

    1. Every variable gets a *preference rank*: (its tier — 0 when it is in no tier —,
       its column position). Earlier rank means "more likely a cause".
    2. An edge between two tiered variables of different tiers points to the later tier
       (GES knows no tiers; PC already obeys them).
    3. The remaining directed edges are kept in order of preference rank of
       (source, target); one that would close a directed cycle — possible only when
       finite-sample tests contradict each other — is treated as undirected instead.
       Bidirected edges are treated as undirected.
    4. The undirected edges are oriented by Dor & Tarsi's (1992) extension: repeatedly
       take a variable that has no outgoing directed edge and whose undirected
       neighbours are adjacent to all its other neighbours, point its undirected edges
       into it, and set it aside. When several qualify, the one latest in preference
       rank goes first, so undirected edges point from earlier to later variables
       wherever the equivalence class allows. For a valid CPDAG the result is a member
       of its Markov equivalence class (no new v-structures); when none qualifies
       (an inconsistent sample CPDAG) any variable without outgoing directed edges is
       taken, so the result is still acyclic.

    >>> a = np.array([[0, -1, 0], [-1, 0, -1], [0, -1, 0]])  # X — Y — Z
    >>> sorted(orient_cpdag(a, ["X", "Y", "Z"]).edges())
    [('X', 'Y'), ('Y', 'Z')]
    """
    names = [str(n) for n in names]
    a = np.asarray(adjacency)
    n = len(names)
    if a.shape != (n, n):
        raise ValueError(f"adjacency is {a.shape}, expected {(n, n)} for {n} names")
    tier = _tier_of(names, tiers, "<graph>")
    rank = {v: (tier.get(v, 0), i) for i, v in enumerate(names)}

    directed: list[tuple[str, str]] = []
    undirected: set[frozenset[str]] = set()
    for i in range(n):
        for j in range(i + 1, n):
            if a[i, j] == 0 and a[j, i] == 0:
                continue
            u, v = names[i], names[j]
            if a[i, j] == -1 and a[j, i] == 1:
                directed.append((u, v))
            elif a[i, j] == 1 and a[j, i] == -1:
                directed.append((v, u))
            else:
                undirected.add(frozenset((u, v)))

    g = nx.DiGraph()
    g.add_nodes_from(names)

    # Step 2: all tier edges point forward in tier order, so they cannot form a cycle
    # among themselves and step 3 never has to drop one.
    def crosses_tiers(u: str, v: str) -> bool:
        return u in tier and v in tier and tier[u] != tier[v]

    for u, v in [*directed, *(tuple(e) for e in undirected)]:
        if crosses_tiers(u, v):
            g.add_edge(*((u, v) if tier[u] < tier[v] else (v, u)))
    undirected = {e for e in undirected if not crosses_tiers(*tuple(e))}
    rest = [(u, v) for u, v in directed if not crosses_tiers(u, v)]
    # Step 3.
    for u, v in sorted(rest, key=lambda e: (rank[e[0]], rank[e[1]])):
        if nx.has_path(g, v, u):
            undirected.add(frozenset((u, v)))
        else:
            g.add_edge(u, v)
    # Step 4.
    und = {v: set() for v in names}
    for e in undirected:
        x, y = tuple(e)
        und[x].add(y)
        und[y].add(x)
    remaining = set(names)

    def adjacent(x: str, y: str) -> bool:
        return g.has_edge(x, y) or g.has_edge(y, x) or y in und[x]

    while remaining:
        sinks = [x for x in remaining if not any(s in remaining for s in g.successors(x))]
        good = []
        for x in sinks:
            nbrs = {y for y in remaining if y != x and adjacent(x, y)}
            if all(adjacent(y, z) for y in und[x] & remaining for z in nbrs - {y}):
                good.append(x)
        x = max(good or sinks, key=rank.__getitem__)
        for y in sorted(und[x] & remaining, key=rank.__getitem__):
            g.add_edge(y, x)
            und[y].discard(x)
        und[x] = set()
        remaining.discard(x)
    # Rebuilt in a canonical edge order: sets above iterate in hash order, which differs
    # between runs, and a saved model should be byte-for-byte reproducible.
    dag = nx.DiGraph()
    dag.add_nodes_from(names)
    dag.add_edges_from(sorted(g.edges(), key=lambda e: (rank[e[0]], rank[e[1]])))
    assert nx.is_directed_acyclic_graph(dag)  # by construction: edges follow removal order
    return dag


def _import_causallearn():
    try:
        from causallearn.search.ConstraintBased.PC import pc
        from causallearn.search.ScoreBased.GES import ges
        from causallearn.utils.cit import fisherz
        from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge
    except ImportError:
        raise CausalQAError(
            "discovering a causal graph needs the causal-learn package, which is not installed",
            hint="pip install causal-learn, or give a known graph with --graph",
        ) from None
    return pc, ges, fisherz, BackgroundKnowledge


def _check_collinear(x: np.ndarray, names: Sequence[str], df: pd.DataFrame, source: str):
    """Reject columns that are exact linear functions of others, naming them.

    Fisher-z inverts correlation matrices of column subsets and fails on a singular one
    only when PC happens to test that subset; checking the whole matrix once gives the
    same answer every time, with the columns involved.
    """
    corr = np.corrcoef(x, rowvar=False)
    values, vectors = np.linalg.eigh(corr)
    if values[0] > 1e-9:
        return
    weights = np.abs(vectors[:, 0])
    involved = [names[j] for j in np.argsort(-weights) if weights[j] > 1e-3]
    raise _fail(
        source,
        f"columns {_columns_list(sorted(involved, key=names.index))} are perfectly collinear "
        "(one is a linear function of the others), so independence tests cannot run",
        hint="drop duplicated or derived columns (e.g. a total next to its parts)",
        column=_col_no(df, involved[0]),
    )


def learn_graph(
    data: pd.DataFrame,
    *,
    method: str = "pc",
    alpha: float = 0.05,
    seed: int = 0,
    background: Sequence[Sequence[str]] | None = None,
    source: str = "<data>",
) -> nx.DiGraph:
    """Learn a causal DAG over all columns of `data` with causal-learn.

    Inputs: `data`, every column numeric (booleans count as 0/1), no missing values;
    `method` "pc" (constraint-based, Fisher-z conditional-independence tests at level
    `alpha`, stable skeleton) or "ges" (greedy equivalence search, BIC score);
    `background` tiers — a list of lists of column names, where a variable may cause
    variables in its own or later tiers but never earlier ones (PC enforces them during
    the search; for GES they orient edges afterwards); `seed` is accepted for a uniform
    interface, both methods being deterministic; `source` names the data in messages.

    Output: a networkx DiGraph whose nodes are the column names in column order. Both
    methods find a Markov equivalence class, not one DAG; `orient_cpdag` documents how
    the undirected edges are oriented (from earlier to later column, tiers first).

    Fisher-z assumes roughly linear relations; strongly non-linear data may lose edges.

    Raises `ModelDataError` (naming the column) for non-numeric columns, missing or
    infinite values, constant or perfectly collinear columns, fewer than `MIN_ROWS` rows
    or fewer than two columns; `ConfigError` for an unknown method or an alpha outside
    (0, 1).

    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=300); y = x + rng.normal(size=300)
    >>> list(learn_graph(pd.DataFrame({"x": x, "y": y})).edges())
    [('x', 'y')]
    """
    del seed  # PC and GES are deterministic; see the docstring
    if method not in METHODS:
        raise ConfigError(
            f"unknown discovery method {method!r}", hint="use one of: " + ", ".join(METHODS)
        )
    if not 0.0 < float(alpha) < 1.0:
        raise ConfigError(f"alpha must lie strictly between 0 and 1, got {alpha}", hint="e.g. 0.05")
    df = _check_frame(data, source)
    names = list(df.columns)
    if len(names) < 2:
        raise _fail(
            source,
            f"the data has {len(names)} variable column(s); discovery needs at least two",
            hint=DATA_HINT,
        )
    _check_rows(len(df), source)
    x = _numeric(df, names, source, "variables for discovery")
    const = [c for j, c in enumerate(names) if np.ptp(x[:, j]) == 0]
    if const:
        value = x[0, names.index(const[0])]
        raise _fail(
            source,
            f"column {_columns_list(const)} is constant (every row holds {value:g})",
            hint="a constant column carries no causal information: drop it",
            column=_col_no(df, const[0]),
        )
    _check_collinear(x, names, df, source)
    tier = _tier_of(names, background, source)
    pc, ges, fisherz, BackgroundKnowledge = _import_causallearn()

    # causal-learn sees neutral names X1…Xn: user names may hold any character, and
    # its background knowledge matches nodes by name.
    internal = [f"X{i + 1}" for i in range(len(names))]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its chatter is about sample size we checked
            if method == "pc":
                bk = None
                if tier:
                    from causallearn.graph.GraphNode import GraphNode

                    bk = BackgroundKnowledge()
                    for v, t in tier.items():
                        bk.add_node_to_tier(GraphNode(internal[names.index(v)]), t)
                cg = pc(
                    x,
                    alpha=float(alpha),
                    indep_test=fisherz,
                    stable=True,
                    background_knowledge=bk,
                    show_progress=False,
                    node_names=internal,
                )
                adjacency = np.asarray(cg.G.graph)
            else:
                record = ges(x, score_func="local_score_BIC", node_names=internal)
                adjacency = np.asarray(record["G"].graph)
    except (ValueError, np.linalg.LinAlgError) as e:
        # Near-collinear columns can still make a subset's matrix numerically singular.
        if "singular" in str(e).lower() or isinstance(e, np.linalg.LinAlgError):
            raise _fail(
                source,
                "some columns are (nearly) collinear, so the independence tests cannot run",
                hint="drop duplicated or derived columns (e.g. a total next to its parts)",
            ) from None
        raise
    return orient_cpdag(adjacency, names, tiers=background)


# -- step 2: what to adjust for ----------------------------------------------------------


def adjustment_set(graph: nx.DiGraph, treatment: str, outcome: str) -> list[str]:
    """The variables to adjust for when estimating `treatment`'s effect on `outcome`.

    Inputs: a DAG and two of its nodes. Output: node names in graph order, the union of

    - the *back-door set*: the parents of `treatment` — they block every back-door path
      (each such path leaves the treatment through an edge into it, at a parent that is
      not a collider there);
    - the *effect modifiers*: the other parents of `outcome` that are not descendants of
      `treatment`. A non-descendant of the treatment never opens a path the parents
      already block, and never blocks the effect itself (mediators are descendants), so
      adding these keeps the estimate unbiased while letting individual effects vary
      with them — without them a T-learner would miss most heterogeneity.

    The outcome and its descendants are never included.

    Raises `ModelDataError` when treatment or outcome is not in the graph.

    >>> g = nx.DiGraph([("Age", "T"), ("Age", "Y"), ("T", "M"), ("M", "Y"), ("Size", "Y")])
    >>> adjustment_set(g, "T", "Y")
    ['Age', 'Size']
    """
    for role, v in (("treatment", treatment), ("outcome", outcome)):
        if v not in graph:
            raise _fail(
                "<graph>",
                f"the {role} {v!r} is not a variable of the graph",
                hint="variables are: " + _columns_list(graph.nodes),
            )
    banned = {treatment, outcome} | nx.descendants(graph, outcome)
    after_t = nx.descendants(graph, treatment)
    chosen = set(graph.predecessors(treatment)) - banned
    chosen |= set(graph.predecessors(outcome)) - banned - after_t
    return [v for v in graph.nodes if v in chosen]


# -- step 3: individual effects ----------------------------------------------------------


class _LinearPlusTrees:
    """A linear regression, then gradient-boosted trees on its residuals.

    Trees alone predict a constant beyond the range they were fitted on. A T-learner
    fits each arm on its own rows and predicts on the other arm's, which under
    confounding lie exactly there — flat extrapolation then biases the effect (by +10%
    to +25% with one linear confounder in our trials). The linear part extrapolates; the trees add
    what is non-linear (thresholds, interactions) inside the data.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def fit(self, x: np.ndarray, y: np.ndarray) -> _LinearPlusTrees:
        from sklearn.ensemble import GradientBoostingRegressor
        from sklearn.linear_model import LinearRegression

        self.linear_ = LinearRegression().fit(x, y)
        # Few shallow, slow-learning trees with large leaves: the T-learner subtracts two
        # fits, so variance in either shows up as spurious heterogeneity. (On the test
        # SCM this cuts the spurious spread of a constant effect by a third against 150
        # trees with leaves of 20, at no cost in bias, and runs twice as fast.)
        self.trees_ = GradientBoostingRegressor(
            n_estimators=100,
            learning_rate=0.05,
            max_depth=3,
            min_samples_leaf=50,
            subsample=0.8,
            random_state=self.seed,
        ).fit(x, y - self.linear_.predict(x))
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.linear_.predict(x) + self.trees_.predict(x)


def _fit_predict(x_fit: np.ndarray, y_fit: np.ndarray, x_all: np.ndarray, seed: int):
    if x_fit.shape[1] == 0:  # nothing to adjust for: the arm's mean is the best guess
        return np.full(len(x_all), float(np.mean(y_fit)))
    return _LinearPlusTrees(seed).fit(x_fit, y_fit).predict(x_all)


def _t_learner(x: np.ndarray, t: np.ndarray, y: np.ndarray, seed: int) -> np.ndarray:
    mu1 = _fit_predict(x[t], y[t], x, seed)
    mu0 = _fit_predict(x[~t], y[~t], x, seed + 1)
    return mu1 - mu0


def _x_learner(x: np.ndarray, t: np.ndarray, y: np.ndarray, seed: int) -> np.ndarray:
    if x.shape[1] == 0:
        return _t_learner(x, t, y, seed)
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    mu1 = _fit_predict(x[t], y[t], x, seed)
    mu0 = _fit_predict(x[~t], y[~t], x, seed + 1)
    # Imputed effects: what the treated gained over their predicted control outcome,
    # and what the controls would have gained.
    tau1 = _fit_predict(x[t], y[t] - mu0[t], x, seed + 2)
    tau0 = _fit_predict(x[~t], mu1[~t] - y[~t], x, seed + 3)
    prop = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    e = np.clip(prop.fit(x, t).predict_proba(x)[:, 1], 0.01, 0.99)
    # Weight each arm's effect model by how well the *other* arm covers the row.
    return e * tau0 + (1.0 - e) * tau1


_LEARNER_FUNCS = {"t": _t_learner, "x": _x_learner}


def estimate_ites(
    data: pd.DataFrame,
    treatments: str | Sequence[str],
    outcome: str,
    graph: nx.DiGraph,
    *,
    learner: str = "t",
    seed: int = 0,
    source: str = "<data>",
) -> pd.DataFrame:
    """Estimate each row's individual effect of every binary treatment on `outcome`.

    Inputs: `data` (rows = subjects); `treatments`, columns holding 0/1 or true/false;
    `outcome`, a numeric column; `graph`, a DAG over (at least) these columns, whose
    `adjustment_set` picks the covariates each treatment's model uses; `learner` "t"
    (T-learner: one model per arm, ITE = difference of predictions)
    or "x" (X-learner: imputed effects per arm blended by a logistic propensity score);
    `seed` for the learners; `source` names the data in messages.

    Output: a DataFrame with `data`'s index and one float column per treatment, named
    exactly as the treatment. When the graph has no directed path from a treatment to
    the outcome, the graph rules out an effect and its column is all zeros (DoWhy does
    the same), with a `UserWarning`.

    Raises `ModelDataError` naming the column for: a treatment or outcome not in the data
    or the graph; a treatment that is not binary; fewer than `MIN_ROWS_PER_ARM` treated or
    control rows; non-numeric columns, missing (with the count) or infinite values among
    the columns used; a parent of a treatment in the graph that is not in the data (an
    unobserved confounder: no adjustment possible). `ConfigError` for an unknown
    learner, a treatment given twice or also named as the outcome.
    """
    if learner not in LEARNERS:
        raise ConfigError(
            f"unknown meta-learner {learner!r}", hint="use one of: " + ", ".join(LEARNERS)
        )
    treatments = _as_list(treatments, "treatment")
    if not treatments:
        raise ConfigError("no treatment given", hint="name at least one treatment column")
    if outcome in treatments:
        raise ConfigError(
            f"{outcome!r} is named both as a treatment and as the outcome",
            hint="the outcome is the variable the treatments act on",
        )
    df = _check_frame(data, source)
    _require_columns(df, treatments, "treatment", source)
    _require_columns(df, [outcome], "outcome", source)
    _check_rows(len(df), source)
    for v in [*treatments, outcome]:
        if v not in graph:
            raise _fail(
                source,
                f"{v!r} is a column of the data but not a variable of the graph",
                hint="the graph must contain every treatment and the outcome",
            )
    y = _numeric(df, [outcome], source, "the outcome")[:, 0]

    out: dict[str, np.ndarray] = {}
    for i, treat in enumerate(treatments):
        t = _binary(df, treat, source)
        if not nx.has_path(graph, treat, outcome):
            warnings.warn(
                f"the graph has no directed path from {treat!r} to {outcome!r}: "
                "its individual effects are set to 0",
                UserWarning,
                stacklevel=2,
            )
            out[treat] = np.zeros(len(df))
            continue
        adjust = adjustment_set(graph, treat, outcome)
        unobserved = [v for v in graph.predecessors(treat) if v in adjust and v not in df]
        if unobserved:
            raise _fail(
                source,
                f"the graph says {_columns_list(unobserved)} cause(s) treatment {treat!r}, "
                "but the data has no such column, so its confounding cannot be adjusted for",
                hint="add the column to the data, or remove the edge from the graph if wrong",
            )
        # Effect modifiers that were not measured are simply left out: they are optional.
        features = [v for v in df.columns if v in adjust]
        x = (
            _numeric(df, features, source, "adjustment variables")
            if features
            else np.empty((len(df), 0))
        )
        # Seeds differ per treatment so two treatments never share bootstrap draws.
        out[treat] = _LEARNER_FUNCS[learner](x, t, y, seed + 10 * i)
    return pd.DataFrame(out, index=df.index, columns=treatments)


def _binary(df: pd.DataFrame, treat: str, source: str) -> np.ndarray:
    """Treatment column → bool array; rejects anything but two levels 0/1 or true/false."""
    col = df[treat]
    missing = int(col.isna().sum())
    if missing:
        row = int(np.argmax(col.isna().to_numpy())) + 1
        raise _fail(
            source,
            f"treatment column {treat!r} has {missing} missing value(s) (NaN), "
            f"the first in row {row}",
            hint="fill in or drop the rows with missing values before fitting",
            column=_col_no(df, treat),
        )
    levels = sorted({_level(v) for v in col}, key=str)
    if not set(levels) <= {0.0, 1.0}:
        # Text levels quoted (repr): a cell holding a newline or a control character
        # stays on the message's one line, visibly.
        shown = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in levels[:6])
        shown += " …" if len(levels) > 6 else ""
        raise _fail(
            source,
            f"treatment {treat!r} is not binary: it holds {shown}",
            hint="a treatment column must hold 0/1 or true/false (treated or not); "
            "dichotomise it, e.g. 'dose > 0'",
            column=_col_no(df, treat),
        )
    t = col.map(_level).to_numpy(dtype=float) == 1.0
    n1, n0 = int(t.sum()), int((~t).sum())
    if min(n1, n0) < MIN_ROWS_PER_ARM:
        arm = "treated" if n1 < n0 else "control (untreated)"
        raise _fail(
            source,
            f"treatment {treat!r} has only {min(n1, n0)} {arm} row(s) "
            f"({n1} treated, {n0} control); at least {MIN_ROWS_PER_ARM} of each are needed",
            hint="an effect can only be estimated by comparing treated and untreated rows",
            column=_col_no(df, treat),
        )
    return t


def _level(v: Any) -> Any:
    # true/false arrive as bool (pandas) or as text (a column with gaps was read as str).
    if isinstance(v, bool | np.bool_):
        return float(v)
    if isinstance(v, str):
        s = v.strip().lower()
        return {"true": 1.0, "false": 0.0, "yes": 1.0, "no": 0.0}.get(s, v)
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


# -- step 4: the whole expert system -----------------------------------------------------


def _filter_column(df: pd.DataFrame, name: str, source: str) -> np.ndarray:
    col = df[name]
    missing = int(col.isna().sum())
    if missing:
        row = int(np.argmax(col.isna().to_numpy())) + 1
        raise _fail(
            source,
            f"filter column {name!r} has {missing} missing value(s), the first in row {row}",
            hint="every subject needs true or false in a filter column",
            column=_col_no(df, name),
        )
    levels = {_level(v) for v in col}
    if not levels <= {0.0, 1.0}:
        bad = next(v for v in col if _level(v) not in (0.0, 1.0))
        raise _fail(
            source,
            f"filter column {name!r} is not boolean (e.g. {bad!r})",
            hint="a filter column holds true/false (or yes/no, 0/1)",
            column=_col_no(df, name),
        )
    return col.map(_level).to_numpy(dtype=float) == 1.0


def _subject_ids(df: pd.DataFrame, subject_column: str | None, source: str) -> list[str]:
    if subject_column is None:
        return [str(i) for i in range(1, len(df) + 1)]
    _require_columns(df, [subject_column], "subject column", source)
    ids: list[str] = []
    first: dict[str, int] = {}
    for row, v in enumerate(df[subject_column], start=1):
        if pd.isna(v) or not str(v).strip():
            raise _fail(
                source,
                f"the subject id ({subject_column!r}) is empty in row {row}",
                hint="give every row a subject id",
                column=_col_no(df, subject_column),
            )
        if isinstance(v, float) and v.is_integer():
            v = int(v)  # an integer id column with a gap was read as float
        sid = str(v).strip()
        if sid in first:
            raise _fail(
                source,
                f"the subject id {sid!r} appears twice (rows {first[sid]} and {row})",
                hint="subject ids must be unique: merge or rename the rows",
                column=_col_no(df, subject_column),
            )
        first[sid] = row
        ids.append(sid)
    return ids


def fit_causal_model(
    data_or_path: pd.DataFrame | str | os.PathLike[str],
    *,
    treatments: str | Sequence[str],
    outcome: str,
    graph: nx.DiGraph | str | os.PathLike[str] | None = None,
    method: str = "pc",
    learner: str = "t",
    subject_column: str | None = None,
    filters: Sequence[str] = (),
    seed: int = 0,
    alpha: float = 0.05,
) -> CausalModel:
    """Fit a `CausalModel` from observations: discover (or load) the graph, estimate ITEs.

    Inputs:
        data_or_path: a DataFrame, or a data file (CSV; see `read_data`); one row per
            subject.
        treatments: the binary treatment column(s); outcome: the numeric outcome column.
        graph: a known causal graph (a DiGraph or a file `load_graph` reads) — then no
            discovery runs and columns outside the graph are ignored; None to discover
            one over every column but the subject ids with `method` ("pc" or "ges") at
            level `alpha`. Discovery assumes the outcome is measured last: it is put in
            a final background tier, so it can cause no other column.
        learner: "t" or "x", see `estimate_ites`.
        subject_column: the column of subject ids (kept as strings; must be unique);
            None numbers the rows from 1 in a column named "subject".
        filters: boolean columns (0/1, true/false, yes/no) copied into the effects
            table for questions to filter on, e.g. "Already Engaged".
        seed: makes the whole fit reproducible.

    Output: a validated `CausalModel` whose effects table has the subject id first, one
    float column per treatment (named exactly as the treatment) holding its estimated
    ITE, then the filter columns as booleans.

    Raises `ModelDataError` naming the file or column for unreadable or malformed data
    (see `read_data`, `learn_graph`, `estimate_ites`), unknown columns, duplicate or
    empty subject ids, non-boolean filters, and a known graph that is invalid or lacks a
    treatment or the outcome; `ConfigError` for inconsistent arguments.
    """
    if isinstance(data_or_path, str | os.PathLike):
        source = str(data_or_path)
        df = read_data(data_or_path)
    else:
        source = "<data>"
        df = _check_frame(data_or_path, source)
    treatments = _as_list(treatments, "treatment")
    filters = _as_list(filters, "filter")
    if not treatments:
        raise ConfigError("no treatment given", hint="name at least one treatment column")
    if method not in METHODS:
        raise ConfigError(
            f"unknown discovery method {method!r}", hint="use one of: " + ", ".join(METHODS)
        )
    if learner not in LEARNERS:
        raise ConfigError(
            f"unknown meta-learner {learner!r}", hint="use one of: " + ", ".join(LEARNERS)
        )
    roles = [("treatment", t) for t in treatments] + [("outcome", outcome)]
    roles += [("filter", f) for f in filters]
    if subject_column is not None:
        roles.append(("subject column", subject_column))
    seen: dict[str, str] = {}
    for role, name in roles:
        if name in seen:
            raise ConfigError(
                f"{name!r} is named both as {seen[name]} and as {role}",
                hint="each column plays one role",
            )
        seen[name] = role
    _require_columns(df, treatments, "treatment", source)
    _require_columns(df, [outcome], "outcome", source)
    _require_columns(df, filters, "filter", source)
    ids = _subject_ids(df, subject_column, source)
    flags = {f: _filter_column(df, f, source) for f in filters}
    variables = df.drop(columns=[subject_column]) if subject_column is not None else df.copy()
    # Treatments and filters may be spelled true/false or yes/no; discovery needs numbers.
    # Checking the treatments here also fails fast, before a long discovery.
    for t in treatments:
        variables[t] = _binary(variables, t, source).astype(float)
    for f in filters:
        variables[f] = flags[f].astype(float)

    if graph is None:
        others = [c for c in variables.columns if c != outcome]
        g = learn_graph(
            variables,
            method=method,
            alpha=alpha,
            seed=seed,
            background=[others, [outcome]],
            source=source,
        )
    else:
        g = load_graph(graph) if isinstance(graph, str | os.PathLike) else graph
        g = CausalModel.from_graph(g).graph  # validated: acyclic, unique str names

    ites = estimate_ites(
        variables, treatments, outcome, g, learner=learner, seed=seed, source=source
    )

    id_name = DEFAULT_SUBJECT_COLUMN if subject_column is None else subject_column
    k = 1
    while id_name in treatments or id_name in filters:  # never shadow an effects column
        k += 1
        id_name = f"{DEFAULT_SUBJECT_COLUMN}_{k}"
    table: dict[str, Any] = {id_name: ids}
    table.update({t: ites[t].to_numpy(dtype=float) for t in treatments})
    table.update(flags)
    effects = pd.DataFrame(table)
    # filters= is explicit so a treatment whose effects happen to be all 0/1 (e.g. zero
    # everywhere) stays a treatment instead of being taken for a filter.
    return CausalModel.from_graph(g, effects, filters=filters, outcome=outcome)


__getattr__ = moved_names(__name__)  # old names, for one release
