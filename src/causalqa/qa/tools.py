"""The typed tool API over a `CausalModel`, the plan schema, and the executor (paper 000, §3.2).

The LLM never reasons over the graph or the table itself: it writes a *plan*, a short list
of calls such as ``{"tool": "ate", "args": {"treatment": "Discount"}}``, and this module
runs it. Each tool is a plain function over a model, in the manner of networkx's
algorithms; `TOOLS` describes them (name, one-line description, typed parameters) so a
prompt can list them and `plan_schema` can turn them into a JSON schema whose tool names
and argument values are enums built from the loaded model — decoded under that schema, a
plan cannot name a variable, treatment or subject that does not exist. `execute` checks a
plan against the same schema and runs it by looking tools up in `TOOLS`; nothing is ever
evaluated as code.

Results are machine-readable: a bool, a list of names, a number, or ``{"arg", "value"}``
for best-of questions. Names are listed in model order (graph file order, table order),
and ties go to the first in that order, so every answer is deterministic.

The examples in the docstrings run against this model (the scenario of Listing 4)::

    >>> import networkx as nx, pandas as pd
    >>> from causalqa.causal_model import CausalModel
    >>> graph = nx.DiGraph([("Price", "Demand"), ("Discount", "Demand"),
    ...     ("Demand", "Revenue"), ("Discount", "Revenue"),
    ...     ("Tech Support", "Satisfaction"), ("Satisfaction", "Revenue")])
    >>> table = pd.DataFrame({"Partner ID": [1, 2, 3],
    ...     "Tech Support": [10.0, 40.0, 70.0], "Discount": [20.0, 95.0, 80.0],
    ...     "New Engagement Strategy": [30.0, 60.0, 90.0],
    ...     "Already Engaged": [True, False, True]})
    >>> model = CausalModel.from_graph(graph, table)
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import jsonschema
import networkx as nx
import pandas as pd
from pydantic import BaseModel

from causalqa.causal_model import CausalModel
from causalqa.errors import PlanError, ToolError
from causalqa.qa import graph_ops

MAX_STEPS = 4
"""Default bound on the number of calls in a plan."""

MAX_PATHS = 20
"""Default bound on the paths `paths_between` lists (the variables on them are exact)."""


@dataclass(frozen=True)
class Where:
    """Keep only the subjects whose boolean `filter` column equals `value`.

    In a plan it is written ``{"filter": "Already Engaged", "value": false}``.
    """

    filter: str
    value: bool = True


WhereLike = Where | Mapping[str, Any] | None


# -- argument checks ---------------------------------------------------------------------


def _preview(names: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f", … ({len(names) - limit} more)" if len(names) > limit else "")


def _unknown(kind: str, value: Any, known: Sequence[str]) -> ToolError:
    # Compare case-insensitively: "tech support" should point at "Tech Support".
    lowered: dict[str, str] = {}
    for name in known:
        lowered.setdefault(name.lower(), name)
    close = [
        lowered[c]
        for c in difflib.get_close_matches(str(value).lower(), list(lowered), n=3, cutoff=0.6)
    ]
    if close:
        suggestion = "did you mean " + " or ".join(repr(c) for c in close) + "?"
    else:
        suggestion = f"the {kind}s are: {_preview(known)}"
    return ToolError(f"{value!r} is not a {kind} of the model; {suggestion}", hint=suggestion)


def _variable(model: CausalModel, name: Any) -> str:
    if not isinstance(name, str) or name not in model.graph:
        raise _unknown("variable", name, model.variables)
    return name


def _effects(model: CausalModel) -> pd.DataFrame:
    if model.effects is None:
        raise ToolError(
            "the model has no effects table, so effect questions cannot be answered",
            hint="load an effects table (CSV or Parquet) with the graph",
        )
    return model.effects


def _treatment(model: CausalModel, name: Any) -> str:
    _effects(model)
    if not isinstance(name, str) or name not in model.treatments:
        raise _unknown("treatment", name, model.treatments)
    return name


def _subject(model: CausalModel, subject: Any) -> str:
    eff = _effects(model)
    # Ids are strings; accept 3 for "3" from Python callers (plans are held to strings).
    sid = str(subject) if isinstance(subject, int) and not isinstance(subject, bool) else subject
    if not isinstance(sid, str) or sid not in eff.index:
        raise _unknown("subject", subject, model.subjects)
    return sid


def _where(model: CausalModel, where: WhereLike) -> Where | None:
    if where is None:
        return None
    if isinstance(where, Mapping):
        extra = set(where) - {"filter", "value"}
        if "filter" not in where or extra:
            raise ToolError(
                f'a where must be {{"filter": NAME, "value": true|false}}, got {dict(where)!r}'
            )
        where = Where(where["filter"], where.get("value", True))
    if not isinstance(where, Where):
        raise ToolError(f'a where must be {{"filter": NAME, "value": true|false}}, got {where!r}')
    _effects(model)
    if where.filter not in model.filters:
        if not model.filters:
            raise ToolError(
                f"{where.filter!r} is not a filter: the effects table has no filter columns"
            )
        raise _unknown("filter", where.filter, model.filters)
    if not isinstance(where.value, bool):
        raise ToolError(f"the value of a where must be true or false, got {where.value!r}")
    return where


def _rows(model: CausalModel, where: WhereLike) -> pd.DataFrame:
    eff = _effects(model)
    w = _where(model, where)
    if w is None:
        return eff
    rows = eff[eff[w.filter] == w.value]
    if rows.empty:
        raise ToolError(
            f"no subject has {w.filter!r} = {str(w.value).lower()}, so there is nothing to "
            "compute over",
            hint="drop the where, or use the other value",
        )
    return rows


def _k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ToolError(f"k must be a whole number of at least 1, got {k!r}")
    return k


def _ordered(model: CausalModel, names: Iterable[str]) -> list[str]:
    return sorted(names, key=model.order)


def _scores(model: CausalModel, subject: Any, where: WhereLike) -> pd.Series:
    """Per treatment: the subject's ITE, or the mean ITE over the (filtered) rows."""
    rows = _rows(model, where)
    treatments = model.treatments
    if subject is None:
        return rows[treatments].mean()
    sid = _subject(model, subject)
    if sid not in rows.index:
        w = _where(model, where)
        raise ToolError(
            f"subject {sid!r} does not have {w.filter!r} = {str(w.value).lower()}",
            hint="drop the where when asking about one subject",
        )
    return rows.loc[sid, treatments].astype(float)


def _ranked(series: pd.Series, lowest: bool = False) -> list[dict[str, Any]]:
    # Highest first (lowest first when asked); ties keep table order (the sort is stable).
    if not isinstance(lowest, bool):
        raise ToolError(f"lowest must be true or false, got {lowest!r}")
    sign = 1.0 if lowest else -1.0
    pairs = sorted(enumerate(series.items()), key=lambda t: (sign * float(t[1][1]), t[0]))
    return [{"arg": str(name), "value": float(value)} for _, (name, value) in pairs]


# -- graph tools -------------------------------------------------------------------------


def variables(model: CausalModel) -> list[str]:
    """All variables of the causal graph, in file order.

    Returns:
        list of variable names.

    >>> variables(model)
    ['Price', 'Demand', 'Discount', 'Revenue', 'Tech Support', 'Satisfaction']
    """
    return model.variables


def parents(model: CausalModel, variable: str) -> list[str]:
    """The direct causes of `variable` (its parents in the graph).

    Raises:
        ToolError: `variable` is not in the graph.

    >>> parents(model, "Demand")
    ['Price', 'Discount']
    """
    return _ordered(model, model.graph.predecessors(_variable(model, variable)))


def children(model: CausalModel, variable: str) -> list[str]:
    """The variables `variable` directly affects (its children in the graph).

    Raises:
        ToolError: `variable` is not in the graph.

    >>> children(model, "Discount")
    ['Demand', 'Revenue']
    """
    return _ordered(model, model.graph.successors(_variable(model, variable)))


def ancestors(model: CausalModel, variable: str) -> list[str]:
    """Every variable with a directed path to `variable` (its direct and indirect causes).

    Raises:
        ToolError: `variable` is not in the graph.

    >>> ancestors(model, "Satisfaction")
    ['Tech Support']
    """
    return _ordered(model, nx.ancestors(model.graph, _variable(model, variable)))


def descendants(model: CausalModel, variable: str) -> list[str]:
    """Every variable `variable` has a directed path to (everything it affects).

    Raises:
        ToolError: `variable` is not in the graph.

    >>> descendants(model, "Price")
    ['Demand', 'Revenue']
    """
    return _ordered(model, nx.descendants(model.graph, _variable(model, variable)))


def is_parent(model: CausalModel, parent: str, child: str) -> bool:
    """Whether there is an edge `parent` → `child` (a direct cause).

    Raises:
        ToolError: either name is not in the graph.

    >>> is_parent(model, "Price", "Revenue")
    False
    """
    return model.graph.has_edge(_variable(model, parent), _variable(model, child))


def is_cause(model: CausalModel, cause: str, effect: str) -> bool:
    """Whether a change in `cause` leads to a change in `effect`: a directed path exists.

    A variable is not its own cause (the graph is acyclic).

    Raises:
        ToolError: either name is not in the graph.

    >>> is_cause(model, "Price", "Revenue"), is_cause(model, "Revenue", "Price")
    (True, False)
    """
    c, e = _variable(model, cause), _variable(model, effect)
    return c != e and nx.has_path(model.graph, c, e)


def paths_between(
    model: CausalModel, source: str, target: str, *, max_paths: int = MAX_PATHS
) -> dict[str, Any]:
    """The directed paths from `source` to `target`, and the variables they pass through.

    Returns:
        ``{"variables": [...], "paths": [[source, ..., target], ...], "count": int,
        "truncated": bool}``. ``variables`` are all intermediate variables on any path
        (endpoints excluded, model order) and are exact; ``paths`` lists at most
        `max_paths` paths, shortest first, then in model order; ``count`` is the
        total number of paths.

    Raises:
        ToolError: either name is not in the graph.

    >>> paths_between(model, "Discount", "Revenue")["paths"]
    [['Discount', 'Revenue'], ['Discount', 'Demand', 'Revenue']]
    >>> paths_between(model, "Price", "Revenue")["variables"]
    ['Demand']
    """
    s, t = _variable(model, source), _variable(model, target)
    empty = {"variables": [], "paths": [], "count": 0, "truncated": False}
    if s == t or not nx.has_path(model.graph, s, t):
        return empty
    on_path = (nx.descendants(model.graph, s) & nx.ancestors(model.graph, t)) | {s, t}
    sub = model.graph.subgraph(on_path)
    # lengths[u]: bit L is set when some u→t path has L edges. Exploring only successors
    # that can still finish with the remaining length means the search never dead-ends,
    # so listing the first `max_paths` paths costs time proportional to their size even
    # on graphs with astronomically many paths.
    lengths: dict[str, int] = {t: 1}
    count: dict[str, int] = {t: 1}
    for u in reversed(list(nx.topological_sort(sub))):
        if u != t:
            succ = list(sub.successors(u))
            lengths[u] = 0
            for v in succ:
                lengths[u] |= lengths[v] << 1
            count[u] = sum(count[v] for v in succ)
    nexts = {u: _ordered(model, sub.successors(u)) for u in sub}
    paths: list[list[str]] = []
    for total in range(lengths[s].bit_length()):
        if not (lengths[s] >> total) & 1:
            continue
        stack: list[tuple[list[str], int]] = [([s], total)]
        while stack and len(paths) < max_paths:
            path, left = stack.pop()
            if left == 0:
                paths.append(path)
                continue
            for v in reversed(nexts[path[-1]]):  # reversed: the stack pops model order
                if (lengths[v] >> (left - 1)) & 1:
                    stack.append((path + [v], left - 1))
        if len(paths) >= max_paths:
            break
    return {
        "variables": _ordered(model, on_path - {s, t}),
        "paths": paths,
        "count": count[s],
        "truncated": count[s] > len(paths),
    }


# -- effect tools ------------------------------------------------------------------------


def treatments(model: CausalModel) -> list[str]:
    """The treatments (effect columns of the table), in table order.

    >>> treatments(model)
    ['Tech Support', 'Discount', 'New Engagement Strategy']
    """
    _effects(model)
    return model.treatments


def subjects(model: CausalModel, where: WhereLike = None) -> list[str]:
    """The subject ids (strings), in table order; with `where`, those that match it.

    Raises:
        ToolError: unknown filter.

    >>> subjects(model)
    ['1', '2', '3']
    >>> subjects(model, {"filter": "Already Engaged", "value": False})
    ['2']
    """
    eff = _effects(model)
    w = _where(model, where)
    if w is None:
        return model.subjects
    return [str(s) for s in eff.index[eff[w.filter] == w.value]]


def filters(model: CausalModel) -> list[str]:
    """The boolean filter columns (such as "Already Engaged"), in table order.

    >>> filters(model)
    ['Already Engaged']
    """
    _effects(model)
    return model.filters


def ate(model: CausalModel, treatment: str, where: WhereLike = None) -> float:
    """The average treatment effect: the mean ITE of `treatment` over all subjects, or
    over those matching `where`.

    Raises:
        ToolError: unknown treatment or filter; no subject matches `where`.

    >>> ate(model, "Tech Support")
    40.0
    >>> ate(model, "Tech Support", {"filter": "Already Engaged", "value": True})
    40.0
    """
    return float(_rows(model, where)[_treatment(model, treatment)].mean())


def ite(model: CausalModel, treatment: str, subject: str) -> float:
    """The individual effect of `treatment` on `subject`.

    Raises:
        ToolError: unknown treatment or subject.

    >>> ite(model, "Discount", "2")
    95.0
    """
    t, s = _treatment(model, treatment), _subject(model, subject)
    return float(model.effects.at[s, t])


def best_treatment(
    model: CausalModel, subject: str | None = None, where: WhereLike = None, lowest: bool = False
) -> dict[str, Any]:
    """The treatment with the highest effect (the lowest, with `lowest`): for one
    `subject` (its ITE), else on average over all subjects or those matching `where` (the
    ATE).

    Returns:
        ``{"arg": treatment, "value": effect}``.

    Raises:
        ToolError: unknown subject or filter; no subject matches `where`; `subject`
        does not match `where`.

    >>> best_treatment(model)
    {'arg': 'Discount', 'value': 65.0}
    >>> best_treatment(model, subject="1")
    {'arg': 'New Engagement Strategy', 'value': 30.0}
    """
    return _ranked(_scores(model, subject, where), lowest)[0]


def best_subject(
    model: CausalModel, treatment: str, where: WhereLike = None, lowest: bool = False
) -> dict[str, Any]:
    """The subject that benefits most from `treatment` (highest ITE; least, with
    `lowest`), optionally among those matching `where`.

    Returns:
        ``{"arg": subject id, "value": ITE}``.

    Raises:
        ToolError: unknown treatment or filter; no subject matches `where`.

    >>> best_subject(model, "Tech Support", {"filter": "Already Engaged", "value": False})
    {'arg': '2', 'value': 40.0}
    """
    t = _treatment(model, treatment)
    return _ranked(_rows(model, where)[t], lowest)[0]


def top_k_subjects(
    model: CausalModel, treatment: str, k: int, where: WhereLike = None, lowest: bool = False
) -> list[dict[str, Any]]:
    """The `k` subjects with the highest ITE of `treatment` (lowest, with `lowest`; fewer
    if the table has fewer), optionally among those matching `where`.

    Returns:
        ``[{"arg": subject id, "value": ITE}, ...]``, best first.

    Raises:
        ToolError: unknown treatment or filter; k < 1; no subject matches `where`.

    >>> top_k_subjects(model, "Discount", 2)
    [{'arg': '2', 'value': 95.0}, {'arg': '3', 'value': 80.0}]
    """
    t, n = _treatment(model, treatment), _k(k)
    return _ranked(_rows(model, where)[t], lowest)[:n]


def top_k_treatments(
    model: CausalModel,
    k: int,
    subject: str | None = None,
    where: WhereLike = None,
    lowest: bool = False,
) -> list[dict[str, Any]]:
    """The `k` treatments with the highest effect (lowest, with `lowest`), scored as in
    `best_treatment`.

    Returns:
        ``[{"arg": treatment, "value": effect}, ...]``, best first.

    Raises:
        ToolError: as `best_treatment`; k < 1.

    >>> top_k_treatments(model, 2, where={"filter": "Already Engaged", "value": True})
    [{'arg': 'New Engagement Strategy', 'value': 60.0}, {'arg': 'Discount', 'value': 50.0}]
    """
    n = _k(k)
    return _ranked(_scores(model, subject, where), lowest)[:n]


def compare_treatments(
    model: CausalModel, a: str, b: str, subject: str | None = None, where: WhereLike = None
) -> dict[str, Any]:
    """Which of two treatments has the higher effect, scored as in `best_treatment`.

    Returns:
        ``{"arg": the better one (None on a tie), "value": its effect,
        "values": {a: effect, b: effect}, "difference": effect(a) - effect(b)}``.

    Raises:
        ToolError: as `best_treatment`, or an unknown treatment.

    >>> compare_treatments(model, "Tech Support", "Discount", subject="3")["arg"]
    'Discount'
    """
    ta, tb = _treatment(model, a), _treatment(model, b)
    scores = _scores(model, subject, where)
    va, vb = float(scores[ta]), float(scores[tb])
    better = ta if va > vb else tb if vb > va else None
    return {"arg": better, "value": max(va, vb), "values": {ta: va, tb: vb}, "difference": va - vb}


# -- open questions over the table: a value per subject, a selection, a statistic --------
#
# A *value* is what each subject has: ``{"treatment": T}`` (T's individual effect) or
# ``{"difference": [A, B]}`` (A's effect minus B's). A *condition* keeps the subjects whose
# value compares with a number or with another value:
# ``{"value": V, "op": ">", "than": 0}`` or ``{"value": V, "op": ">", "than": {"treatment": B}}``.

STATS = ("mean", "median", "min", "max", "std", "var", "sum", "quantile")
OPS = (">", ">=", "<", "<=", "==", "!=")
ValueLike = Mapping[str, Any]
ConditionLike = Mapping[str, Any]


def _value_series(model: CausalModel, value: Any, rows: pd.DataFrame) -> pd.Series:
    if not isinstance(value, Mapping) or len(value) != 1:
        raise ToolError(
            f'a value is {{"treatment": NAME}} or {{"difference": [NAME, NAME]}}, got {value!r}'
        )
    ((kind, arg),) = value.items()
    if kind == "treatment":
        return rows[_treatment(model, arg)].astype(float)
    if kind == "difference":
        if not isinstance(arg, Sequence) or isinstance(arg, str) or len(arg) != 2:
            raise ToolError(f"a difference names two treatments, got {arg!r}")
        a, b = (_treatment(model, t) for t in arg)
        if a == b:
            raise ToolError(f"a difference needs two different treatments, got {a!r} twice")
        return rows[a].astype(float) - rows[b].astype(float)
    raise ToolError(f'a value is {{"treatment": …}} or {{"difference": […]}}, got {kind!r}')


def _compare(left: pd.Series, op: str, right: pd.Series | float) -> pd.Series:
    if op not in OPS:
        raise ToolError(f"a comparison is one of {', '.join(OPS)}, got {op!r}")
    return {
        ">": left > right, ">=": left >= right, "<": left < right,
        "<=": left <= right, "==": left == right, "!=": left != right,
    }[op]  # fmt: skip


def select_subjects(
    model: CausalModel, where: WhereLike, conditions: Sequence[ConditionLike] | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the subjects `where` keeps, those of them that meet every condition)."""
    base = _rows(model, where)
    keep = pd.Series(True, index=base.index)
    for c in conditions or ():
        if not isinstance(c, Mapping) or set(c) != {"value", "op", "than"}:
            raise ToolError(f'a condition is {{"value": …, "op": …, "than": …}}, got {c!r}')
        left = _value_series(model, c["value"], base)
        than = c["than"]
        if isinstance(than, bool) or not isinstance(than, int | float | Mapping):
            raise ToolError(f"a condition compares with a number or a value, got {than!r}")
        right = _value_series(model, than, base) if isinstance(than, Mapping) else float(than)
        keep &= _compare(left, c["op"], right)
    return base, base[keep]


_STATISTIC: dict[str, Callable[[pd.Series], float]] = {
    "mean": pd.Series.mean,
    "median": pd.Series.median,
    "min": pd.Series.min,
    "max": pd.Series.max,
    "std": pd.Series.std,
    "var": pd.Series.var,
    "sum": pd.Series.sum,
}


def _statistic(series: pd.Series, stat: str) -> float:
    return float(_STATISTIC[stat](series))


def _nonempty(rows: pd.DataFrame) -> pd.DataFrame:
    if rows.empty:
        raise ToolError(
            "no subject meets the conditions, so there is nothing to compute over",
            hint="loosen the conditions",
        )
    return rows


def _kept_values(
    model: CausalModel,
    value: ValueLike,
    where: WhereLike,
    conditions: Sequence[ConditionLike] | None,
) -> pd.Series:
    """`value` of each subject `where` and `conditions` keep; a `ToolError` for none."""
    _, rows = select_subjects(model, where, conditions)
    return _value_series(model, value, _nonempty(rows))


def summarize(
    model: CausalModel,
    value: ValueLike,
    stat: str,
    q: float | None = None,
    where: WhereLike = None,
    conditions: Sequence[ConditionLike] | None = None,
) -> float:
    """A statistic of a value over the subjects (those `where` and `conditions` keep):
    ``mean``, ``median``, ``min``, ``max``, ``std``/``var`` (sample standard deviation and
    variance), ``sum`` or
    ``quantile`` (`q` in [0, 1], linear interpolation).

    Raises:
        ToolError: unknown names, an unknown statistic, `q` missing or out of range, or no
        subject left to compute over.

    >>> summarize(model, {"treatment": "Discount"}, "median")
    80.0
    >>> summarize(model, {"difference": ["Discount", "Tech Support"]}, "min")
    10.0
    """
    series = _kept_values(model, value, where, conditions)
    if stat not in STATS:
        raise ToolError(f"a statistic is one of {', '.join(STATS)}, got {stat!r}")
    if stat == "quantile":
        if isinstance(q, bool) or not isinstance(q, int | float) or not 0 <= q <= 1:
            raise ToolError(f"a quantile needs q between 0 and 1, got {q!r}")
        return float(series.quantile(float(q)))
    if q is not None:
        raise ToolError(f"q goes with the quantile statistic, not with {stat!r}")
    if stat in ("std", "var") and len(series) < 2:
        raise ToolError("a standard deviation or variance needs at least two subjects")
    return _statistic(series, stat)


def count_subjects(
    model: CausalModel, where: WhereLike = None, conditions: Sequence[ConditionLike] | None = None
) -> int:
    """How many subjects `where` and `conditions` keep.

    >>> count_subjects(model, conditions=[{"value": {"treatment": "Discount"}, "op": ">",
    ...     "than": {"treatment": "Tech Support"}}])
    3
    """
    return int(len(select_subjects(model, where, conditions)[1]))


def share_subjects(
    model: CausalModel, where: WhereLike = None, conditions: Sequence[ConditionLike] | None = None
) -> float:
    """The fraction (0–1) of the subjects `where` keeps that meet the `conditions`.

    >>> share_subjects(model, conditions=[{"value": {"treatment": "Tech Support"}, "op": ">",
    ...     "than": 30}])
    0.6666666666666666
    """
    base, kept = select_subjects(model, where, conditions)
    return float(len(kept) / len(base))


def list_subjects(
    model: CausalModel, where: WhereLike = None, conditions: Sequence[ConditionLike] | None = None
) -> list[str]:
    """The ids of the subjects `where` and `conditions` keep, in table order.

    >>> list_subjects(model, conditions=[{"value": {"treatment": "Discount"}, "op": ">=",
    ...     "than": 80}])
    ['2', '3']
    """
    return [str(s) for s in select_subjects(model, where, conditions)[1].index]


def subject_values(
    model: CausalModel,
    value: ValueLike,
    where: WhereLike = None,
    conditions: Sequence[ConditionLike] | None = None,
) -> list[dict[str, Any]]:
    """Each kept subject's value, in table order: ``[{"arg": id, "value": v}, ...]``.

    >>> subject_values(model, {"treatment": "Tech Support"})[0]
    {'arg': '1', 'value': 10.0}
    """
    series = _kept_values(model, value, where, conditions)
    return [{"arg": str(i), "value": float(v)} for i, v in series.items()]


def subject_value(model: CausalModel, value: ValueLike, subject: str) -> float:
    """One subject's value: a treatment's effect on it, or the difference of two.

    >>> subject_value(model, {"difference": ["Discount", "Tech Support"]}, "2")
    55.0
    """
    sid = _subject(model, subject)
    return float(_value_series(model, value, _effects(model).loc[[sid]]).iloc[0])


def rank_subjects(
    model: CausalModel,
    value: ValueLike,
    k: int = 1,
    lowest: bool = False,
    where: WhereLike = None,
    conditions: Sequence[ConditionLike] | None = None,
) -> list[dict[str, Any]]:
    """The `k` kept subjects with the highest value (lowest, with `lowest`), best first.

    >>> rank_subjects(model, {"difference": ["Discount", "Tech Support"]})
    [{'arg': '2', 'value': 55.0}]
    """
    return _ranked(_kept_values(model, value, where, conditions), lowest)[: _k(k)]


def rank_treatments(
    model: CausalModel,
    stat: str,
    k: int = 1,
    lowest: bool = False,
    where: WhereLike = None,
    conditions: Sequence[ConditionLike] | None = None,
) -> list[dict[str, Any]]:
    """The `k` treatments with the highest statistic of their effect over the kept
    subjects (lowest, with `lowest`), best first; `stat` as in `summarize`, not quantile.

    >>> rank_treatments(model, "median", k=2)
    [{'arg': 'Discount', 'value': 80.0}, {'arg': 'New Engagement Strategy', 'value': 60.0}]
    """
    if stat not in STATS or stat == "quantile":
        raise ToolError(f"treatments are ranked by one of {', '.join(STATS[:-1])}, got {stat!r}")
    _, rows = select_subjects(model, where, conditions)
    rows = _nonempty(rows)
    scores = pd.Series({t: _statistic(rows[t].astype(float), stat) for t in model.treatments})
    return _ranked(scores, lowest)[: _k(k)]


# -- open questions over the graph (causalqa.qa.graph_ops) --------------------------------


def _variables(model: CausalModel, names: Any) -> list[str]:
    if not isinstance(names, Sequence) or isinstance(names, str):
        raise ToolError(f"expected a list of variables, got {names!r}")
    return [_variable(model, n) for n in names]


def mediators(model: CausalModel, source: str, target: str) -> list[str]:
    """The variables on the directed paths from `source` to `target` (endpoints excluded).

    >>> mediators(model, "Price", "Revenue")
    ['Demand']
    """
    s, t = _variable(model, source), _variable(model, target)
    return _ordered(model, graph_ops.mediators(model.graph, s, t))


def on_path(model: CausalModel, variable: str, source: str, target: str) -> bool:
    """Whether `variable` lies on a directed path from `source` to `target`.

    >>> on_path(model, "Demand", "Discount", "Revenue")
    True
    """
    v, s, t = (_variable(model, x) for x in (variable, source, target))
    return graph_ops.on_causal_path(model.graph, v, s, t)


def common_causes(model: CausalModel, a: str, b: str) -> list[str]:
    """The confounders of `a` and `b`: variables that cause both, by paths that avoid the
    other one.

    >>> common_causes(model, "Demand", "Revenue")  # Price reaches Revenue only via Demand
    ['Discount']
    """
    x, y = _variable(model, a), _variable(model, b)
    return _ordered(model, graph_ops.common_causes(model.graph, x, y))


def common_effects(model: CausalModel, a: str, b: str) -> list[str]:
    """Variables that both `a` and `b` lead to, by paths that avoid the other one.

    >>> common_effects(model, "Price", "Tech Support")
    ['Revenue']
    """
    x, y = _variable(model, a), _variable(model, b)
    return _ordered(model, graph_ops.common_effects(model.graph, x, y))


def markov_blanket(model: CausalModel, variable: str) -> list[str]:
    """Parents, children and the children's other parents of `variable`.

    >>> markov_blanket(model, "Price")
    ['Demand', 'Discount']
    """
    return _ordered(model, graph_ops.markov_blanket(model.graph, _variable(model, variable)))


def d_separated(model: CausalModel, a: str, b: str, given: Sequence[str] = ()) -> bool:
    """Whether the graph makes `a` and `b` independent once we condition on `given`
    (d-separation).

    >>> d_separated(model, "Price", "Satisfaction"), d_separated(model, "Price", "Revenue")
    (True, False)
    """
    x, y = _variable(model, a), _variable(model, b)
    return graph_ops.d_separated(model.graph, x, y, _variables(model, given))


def d_connected(model: CausalModel, a: str, b: str, given: Sequence[str] = ()) -> bool:
    """Whether `a` and `b` can still depend on each other once we condition on `given`:
    the negation of `d_separated`.

    >>> d_connected(model, "Price", "Revenue")
    True
    """
    return not d_separated(model, a, b, given)


def adjustment_set(model: CausalModel, treatment: str, outcome: str) -> list[str]:
    """A minimal set of variables to adjust for (the back-door criterion) to estimate the
    effect of `treatment` on `outcome`; empty when none is needed.

    >>> adjustment_set(model, "Demand", "Revenue")
    ['Discount']
    """
    x, y = _variable(model, treatment), _variable(model, outcome)
    found = graph_ops.backdoor_adjustment_set(model.graph, x, y)
    if found is None:
        raise ToolError(
            f"no set of the graph's variables satisfies the back-door criterion for {x!r} → {y!r}"
        )
    return _ordered(model, found)


def effect_kind(model: CausalModel, cause: str, effect: str) -> str:
    """Whether `cause` affects `effect` directly, indirectly, both or not at all.

    >>> effect_kind(model, "Discount", "Revenue"), effect_kind(model, "Price", "Revenue")
    ('both', 'indirect')
    """
    c, e = _variable(model, cause), _variable(model, effect)
    return graph_ops.effect_kind(model.graph, c, e)


# -- the registry ------------------------------------------------------------------------

ParamKind = Literal[
    "variable",
    "treatment",
    "subject",
    "filter",
    "where",
    "bool",
    "int",
    "number",
    "stat",
    "value",
    "conditions",
    "variables",
]


@dataclass(frozen=True)
class Param:
    """One argument of a tool. `kind` decides the value's schema: a variable/treatment/
    subject/filter name (an enum from the model), a `where` object, a bool or an int."""

    name: str
    kind: ParamKind
    required: bool = True


@dataclass(frozen=True)
class Tool:
    """A tool as the planner sees it."""

    name: str
    func: Callable[..., Any]
    description: str
    params: tuple[Param, ...] = ()
    returns: str = ""
    needs_effects: bool = False

    @property
    def signature(self) -> str:
        """E.g. ``ate(treatment, where?)``: optional arguments end with ``?``."""
        args = ", ".join(p.name + ("" if p.required else "?") for p in self.params)
        return f"{self.name}({args})"


def _tools(*tools: Tool) -> dict[str, Tool]:
    return {t.name: t for t in tools}


_V, _T, _S, _W = "variable", "treatment", "subject", "where"

TOOLS: dict[str, Tool] = _tools(
    Tool("variables", variables, "all variables of the causal graph", (), "list of variables"),
    Tool(
        "parents",
        parents,
        "direct causes of a variable",
        (Param("variable", _V),),
        "list of variables",
    ),
    Tool(
        "children",
        children,
        "variables a variable directly affects",
        (Param("variable", _V),),
        "list of variables",
    ),
    Tool(
        "ancestors",
        ancestors,
        "all direct and indirect causes of a variable",
        (Param("variable", _V),),
        "list of variables",
    ),
    Tool(
        "descendants",
        descendants,
        "all variables a variable affects, directly or not",
        (Param("variable", _V),),
        "list of variables",
    ),
    Tool(
        "is_parent",
        is_parent,
        "whether one variable directly causes another",
        (Param("parent", _V), Param("child", _V)),
        "bool",
    ),
    Tool(
        "is_cause",
        is_cause,
        "whether a change in one variable leads to a change in another (a directed path exists)",
        (Param("cause", _V), Param("effect", _V)),
        "bool",
    ),
    Tool(
        "paths_between",
        paths_between,
        "the directed paths from one variable to another and the variables they pass through",
        (Param("source", _V), Param("target", _V)),
        "{variables, paths, count, truncated}",
    ),
    Tool(
        "treatments",
        treatments,
        "all treatments (engagements) in the effects table",
        (),
        "list of treatments",
        True,
    ),
    Tool(
        "subjects",
        subjects,
        "the subject ids in the effects table, optionally those matching a filter",
        (Param("where", _W, False),),
        "list of subject ids",
        True,
    ),
    Tool(
        "filters",
        filters,
        "the yes/no columns subjects can be filtered on",
        (),
        "list of filters",
        True,
    ),
    Tool(
        "ate",
        ate,
        "average effect of a treatment, optionally over subjects matching a filter",
        (Param("treatment", _T), Param("where", _W, False)),
        "number",
        True,
    ),
    Tool(
        "ite",
        ite,
        "effect of a treatment on one subject",
        (Param("treatment", _T), Param("subject", _S)),
        "number",
        True,
    ),
    Tool(
        "best_treatment",
        best_treatment,
        "treatment with the highest effect, for one subject or on average (optionally filtered)",
        (Param("subject", _S, False), Param("where", _W, False), Param("lowest", "bool", False)),
        "{arg, value}",
        True,
    ),
    Tool(
        "best_subject",
        best_subject,
        "subject with the highest effect of a treatment, optionally among those matching a filter",
        (Param("treatment", _T), Param("where", _W, False), Param("lowest", "bool", False)),
        "{arg, value}",
        True,
    ),
    Tool(
        "top_k_subjects",
        top_k_subjects,
        "the k subjects with the highest effect of a treatment",
        (
            Param("treatment", _T),
            Param("k", "int"),
            Param("where", _W, False),
            Param("lowest", "bool", False),
        ),
        "list of {arg, value}",
        True,
    ),
    Tool(
        "top_k_treatments",
        top_k_treatments,
        "the k treatments with the highest effect, for one subject or on average",
        (
            Param("k", "int"),
            Param("subject", _S, False),
            Param("where", _W, False),
            Param("lowest", "bool", False),
        ),
        "list of {arg, value}",
        True,
    ),
    Tool(
        "summarize",
        summarize,
        "a statistic (mean, median, min, max, std, sum, quantile q) of a value over subjects",
        (
            Param("value", "value"),
            Param("stat", "stat"),
            Param("q", "number", False),
            Param("where", _W, False),
            Param("conditions", "conditions", False),
        ),
        "number",
        True,
    ),
    Tool(
        "count_subjects",
        count_subjects,
        "how many subjects meet conditions (optionally filtered)",
        (Param("where", _W, False), Param("conditions", "conditions", False)),
        "number",
        True,
    ),
    Tool(
        "share_subjects",
        share_subjects,
        "the fraction of subjects (optionally filtered) that meet conditions",
        (Param("where", _W, False), Param("conditions", "conditions", False)),
        "number",
        True,
    ),
    Tool(
        "list_subjects",
        list_subjects,
        "the subjects that meet conditions (optionally filtered)",
        (Param("where", _W, False), Param("conditions", "conditions", False)),
        "list of subject ids",
        True,
    ),
    Tool(
        "subject_values",
        subject_values,
        "each subject's value (a treatment's effect, or the difference of two)",
        (
            Param("value", "value"),
            Param("where", _W, False),
            Param("conditions", "conditions", False),
        ),
        "list of {arg, value}",
        True,
    ),
    Tool(
        "subject_value",
        subject_value,
        "one subject's value (a treatment's effect, or the difference of two)",
        (Param("value", "value"), Param("subject", _S)),
        "number",
        True,
    ),
    Tool(
        "rank_subjects",
        rank_subjects,
        "the k subjects with the highest (or lowest) value",
        (
            Param("value", "value"),
            Param("k", "int", False),
            Param("lowest", "bool", False),
            Param("where", _W, False),
            Param("conditions", "conditions", False),
        ),
        "list of {arg, value}",
        True,
    ),
    Tool(
        "rank_treatments",
        rank_treatments,
        "the k treatments with the highest (or lowest) statistic of their effect",
        (
            Param("stat", "stat"),
            Param("k", "int", False),
            Param("lowest", "bool", False),
            Param("where", _W, False),
            Param("conditions", "conditions", False),
        ),
        "list of {arg, value}",
        True,
    ),
    Tool(
        "mediators",
        mediators,
        "the variables on the directed paths from one variable to another",
        (Param("source", _V), Param("target", _V)),
        "list of variables",
    ),
    Tool(
        "on_path",
        on_path,
        "whether a variable lies on a directed path from one variable to another",
        (Param("variable", _V), Param("source", _V), Param("target", _V)),
        "bool",
    ),
    Tool(
        "common_causes",
        common_causes,
        "the confounders (common causes) of two variables",
        (Param("a", _V), Param("b", _V)),
        "list of variables",
    ),
    Tool(
        "common_effects",
        common_effects,
        "the variables two variables both lead to",
        (Param("a", _V), Param("b", _V)),
        "list of variables",
    ),
    Tool(
        "markov_blanket",
        markov_blanket,
        "the Markov blanket of a variable (parents, children, children's other parents)",
        (Param("variable", _V),),
        "list of variables",
    ),
    Tool(
        "d_separated",
        d_separated,
        "whether two variables are independent given a set of variables (d-separation)",
        (Param("a", _V), Param("b", _V), Param("given", "variables", False)),
        "bool",
    ),
    Tool(
        "d_connected",
        d_connected,
        "whether two variables can depend on each other given a set of variables",
        (Param("a", _V), Param("b", _V), Param("given", "variables", False)),
        "bool",
    ),
    Tool(
        "adjustment_set",
        adjustment_set,
        "a minimal set of variables to adjust for (back-door) to estimate an effect",
        (Param("treatment", _V), Param("outcome", _V)),
        "list of variables",
    ),
    Tool(
        "effect_kind",
        effect_kind,
        "whether one variable affects another directly, indirectly, both or not at all",
        (Param("cause", _V), Param("effect", _V)),
        "direct | indirect | both | none",
    ),
    Tool(
        "compare_treatments",
        compare_treatments,
        "which of two treatments has the higher effect, for one subject or on average",
        (Param("a", _T), Param("b", _T), Param("subject", _S, False), Param("where", _W, False)),
        "{arg, value, values, difference}",
        True,
    ),
)
"""Every tool by name. Graph tools need only the graph; the others need effects."""

PAPER_TOOLS = (
    "variables", "parents", "children", "ancestors", "descendants", "is_parent", "is_cause",
    "paths_between", "treatments", "subjects", "filters", "ate", "ite", "best_treatment",
    "best_subject", "top_k_subjects", "top_k_treatments", "compare_treatments",
)  # fmt: skip
"""The paper's tools: the ones the planner's LLM chooses among. The others answer open
questions and are reached through `causalqa.qa.frame`, which reads what they need."""


def available_tools(model: CausalModel, names: Iterable[str] | None = None) -> list[Tool]:
    """The tools usable with `model` (effect tools only with an effects table), optionally
    restricted to `names` (e.g. only graph tools once a question is classified)."""
    wanted = None if names is None else set(names)
    if wanted is not None and wanted - TOOLS.keys():
        unknown = sorted(wanted - TOOLS.keys())
        raise PlanError(f"unknown tools {unknown}; the tools are: {', '.join(TOOLS)}")
    usable = tools_for(has_effects=model.effects is not None)
    return [t for t in usable if wanted is None or t.name in wanted]


def tools_for(*, has_effects: bool) -> list[Tool]:
    """The tools usable with a model that has (or has not) an effects table."""
    return [t for t in TOOLS.values() if has_effects or not t.needs_effects]


# -- the plan schema ---------------------------------------------------------------------


def _param_schema(kind: str) -> dict[str, Any]:
    if kind == "bool":
        return {"type": "boolean"}
    if kind == "int":
        return {"type": "integer"}
    if kind == "number":
        return {"type": "number"}
    return {"$ref": f"#/$defs/{kind}"}


def _structured_defs() -> dict[str, Any]:
    """The schemas of the structured argument kinds (a value, conditions, a statistic, a
    list of variables), each referring to the model's name enums."""
    treatment = {"$ref": "#/$defs/treatment"}
    value = {
        "anyOf": [
            {
                "type": "object",
                "properties": {"treatment": treatment},
                "required": ["treatment"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "properties": {
                    "difference": {
                        "type": "array",
                        "items": treatment,
                        "minItems": 2,
                        "maxItems": 2,
                    }
                },
                "required": ["difference"],
                "additionalProperties": False,
            },
        ]
    }
    condition = {
        "type": "object",
        "properties": {
            "value": {"$ref": "#/$defs/value"},
            "op": {"enum": list(OPS)},
            "than": {"anyOf": [{"type": "number"}, {"$ref": "#/$defs/value"}]},
        },
        "required": ["value", "op", "than"],
        "additionalProperties": False,
    }
    return {
        "value": value,
        "condition": condition,
        "conditions": {"type": "array", "items": {"$ref": "#/$defs/condition"}, "maxItems": 3},
        "stat": {"enum": list(STATS)},
        "variables": {"type": "array", "items": {"$ref": "#/$defs/variable"}, "maxItems": 12},
    }


# Structured kinds and the name enums their schemas refer to.
_NEEDS = {
    "value": {"treatment"},
    "conditions": {"condition", "value", "treatment"},
    "variables": {"variable"},
    "stat": set(),
}


def plan_schema(
    model: CausalModel, *, max_steps: int = MAX_STEPS, tools: Iterable[str] | None = None
) -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of a plan over `model`.

    A plan is ``{"steps": [{"tool": NAME, "args": {...}}, ...]}`` with 1..`max_steps`
    steps. Each step is one of the available tools (``anyOf``, one branch per tool, the
    name a ``const``), its ``args`` exactly that tool's parameters, and every name-valued
    argument an ``enum`` of the model's variables, treatments, subjects or filters —
    defined once in ``$defs`` and referenced, so the schema stays small for large models.
    Only the keywords the grammar converter supports are used (``type``, ``properties``,
    ``required``, ``enum``, ``const``, ``items``, ``minItems``, ``maxItems``, ``anyOf``,
    ``$defs``/``$ref``, ``additionalProperties: false``).

    Raises:
        PlanError: `tools` names an unknown tool, or none of them is available.

    >>> s = plan_schema(model, tools=["parents"])
    >>> s["$defs"]["tool_parents"]["properties"]["args"]["properties"]
    {'variable': {'$ref': '#/$defs/variable'}}
    """
    usable = available_tools(model, tools)
    if not usable:
        raise PlanError(
            "none of the requested tools can be used with this model (effect tools need an "
            "effects table)"
        )
    has_filters = bool(model.filters)
    defs: dict[str, Any] = {}
    used: set[str] = set()
    for tool in usable:
        props: dict[str, Any] = {}
        required: list[str] = []
        for p in tool.params:
            if p.kind == "where" and not has_filters:
                continue  # nothing to filter on: no option rather than an empty enum
            props[p.name] = _param_schema(p.kind)
            used.add(p.kind)
            if p.required:
                required.append(p.name)
        args: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            args["required"] = required
        args["additionalProperties"] = False
        defs[f"tool_{tool.name}"] = {
            "type": "object",
            "properties": {"tool": {"const": tool.name}, "args": args},
            "required": ["tool", "args"],
            "additionalProperties": False,
        }
    enums = {
        "variable": model.variables,
        "treatment": model.treatments,
        "subject": model.subjects,
        "filter": model.filters,
    }
    structured = _structured_defs()
    for kind in list(used):
        if kind in _NEEDS:
            used |= _NEEDS[kind]
    for kind in ("value", "condition", "conditions", "stat", "variables"):
        if kind in used:
            defs[kind] = structured[kind]
    if "where" in used:
        used.add("filter")
        defs["where"] = {
            "type": "object",
            "properties": {"filter": {"$ref": "#/$defs/filter"}, "value": {"type": "boolean"}},
            "required": ["filter", "value"],
            "additionalProperties": False,
        }
    for kind, names in enums.items():
        if kind in used:
            defs[kind] = {"enum": list(names)}
    return {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": {"anyOf": [{"$ref": f"#/$defs/tool_{t.name}"} for t in usable]},
                "minItems": 1,
                "maxItems": max_steps,
            }
        },
        "required": ["steps"],
        "additionalProperties": False,
        "$defs": defs,
    }


# -- the executor ------------------------------------------------------------------------


class StepResult(BaseModel):
    """One executed call."""

    tool: str
    args: dict[str, Any]
    result: Any


class ExecutionResult(BaseModel):
    """What running a plan gave: every step's result and the final one (the last step's),
    a bool, a list of names, a number or ``{"arg", "value"}``."""

    steps: list[StepResult]
    result: Any


def _arg_problem(model: CausalModel, kind: str, value: Any) -> str | None:
    """Why `value` is not a valid argument of this kind, in words; None when it is."""
    if kind == "bool":
        return None if isinstance(value, bool) else f"must be true or false, got {value!r}"
    if kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else f"must be a whole number, got {value!r}"
    if kind == "number":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return None if ok else f"must be a number, got {value!r}"
    if kind == "stat":
        return None if value in STATS else f"must be one of {', '.join(STATS)}, got {value!r}"
    if kind == "variables":
        if not isinstance(value, list):
            return f"must be a list of variables, got {value!r}"
        return next((p for v in value if (p := _arg_problem(model, "variable", v))), None)
    if kind in ("value", "conditions"):
        return None  # structured: the schema's own message says what is wrong
    if kind == "where":
        if not isinstance(value, dict) or set(value) != {"filter", "value"}:
            return f'must be {{"filter": NAME, "value": true|false}}, got {value!r}'
        return _arg_problem(model, "filter", value["filter"]) or _arg_problem(
            model, "bool", value["value"]
        )
    known = {
        "variable": model.variables,
        "treatment": model.treatments,
        "subject": model.subjects,
        "filter": model.filters,
    }[kind]
    if isinstance(value, str) and value in known:
        return None
    return _unknown(kind, value, known).message


def _diagnose(plan: Any, model: CausalModel, usable: dict[str, Tool], max_steps: int) -> str | None:
    """The first thing wrong with a plan, said for an LLM to fix; None if nothing found."""
    shape = 'a plan is {"steps": [{"tool": NAME, "args": {...}}, ...]}'
    if not isinstance(plan, dict) or "steps" not in plan:
        return f"{shape}; got {json.dumps(plan, default=repr)[:200]}"
    if set(plan) != {"steps"}:
        return f"{shape}; unexpected keys {sorted(set(plan) - {'steps'})}"
    steps = plan["steps"]
    if not isinstance(steps, list) or not steps:
        return f"{shape}; steps must be a non-empty list"
    if len(steps) > max_steps:
        return f"the plan has {len(steps)} steps; at most {max_steps} are allowed"
    for i, step in enumerate(steps, 1):
        if not isinstance(step, dict) or set(step) != {"tool", "args"}:
            got = json.dumps(step, default=repr)[:200]
            return f'step {i} must be {{"tool": NAME, "args": {{...}}}}, got {got}'
        name, args = step["tool"], step["args"]
        if name not in usable:
            if name in TOOLS:
                return f"step {i}: tool {name!r} needs an effects table, and this model has none"
            close = difflib.get_close_matches(str(name), list(usable), n=2, cutoff=0.5)
            tip = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
            return f"step {i}: unknown tool {name!r}; {tip}the tools are: {', '.join(usable)}"
        tool = usable[name]
        if not isinstance(args, dict):
            return f"step {i} ({tool.signature}): args must be an object, got {args!r}"
        params = {p.name: p for p in tool.params}
        if not model.filters:
            params.pop("where", None)
        for key in args:
            if key not in params:
                return f"step {i} ({tool.signature}): unexpected argument {key!r}"
        for p in params.values():
            if p.name not in args:
                if p.required:
                    return f"step {i} ({tool.signature}): missing argument {p.name!r}"
                continue
            problem = _arg_problem(model, p.kind, args[p.name])
            if problem:
                return f"step {i} ({tool.signature}): argument {p.name!r}: {problem}"
    return None


def _parse(plan: Any) -> Any:
    if isinstance(plan, str | bytes):
        try:
            return json.loads(plan)
        except json.JSONDecodeError as e:
            raise PlanError(
                f"the plan is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}"
            ) from None
    return plan


def validate_plan(plan: Any, model: CausalModel, *, max_steps: int = MAX_STEPS) -> dict[str, Any]:
    """Check `plan` (a dict or JSON text) against `plan_schema(model)`; return it parsed.

    Raises:
        PlanError: naming the first wrong step and what is wrong with it.
    """
    data = _parse(plan)
    schema = plan_schema(model, max_steps=max_steps)
    validator = jsonschema.Draft202012Validator(schema)
    if validator.is_valid(data):
        return data
    usable = {t.name: t for t in available_tools(model)}
    problem = _diagnose(data, model, usable, max_steps)
    if problem is None:  # a case the diagnosis does not word: fall back to jsonschema's
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        problem = f"the plan does not match its schema at {where}: {error.message[:300]}"
    raise PlanError(problem)


def execute(plan: Any, model: CausalModel, *, max_steps: int = MAX_STEPS) -> ExecutionResult:
    """Validate `plan` against `plan_schema(model)` and run its steps in order.

    Each step is looked up in `TOOLS` by name and called with its named arguments — no
    code is evaluated. The final result is the last step's.

    Raises:
        PlanError: the plan is malformed, names an unknown tool or argument, or a step
        fails (e.g. no subject matches its filter); the message names the step.

    >>> execute({"steps": [{"tool": "is_cause", "args": {"cause": "Price", "effect": "Revenue"}}]},
    ...         model).result
    True
    """
    data = validate_plan(plan, model, max_steps=max_steps)
    done: list[StepResult] = []
    for i, step in enumerate(data["steps"], 1):
        tool = TOOLS[step["tool"]]
        try:
            value = tool.func(model, **step["args"])
        except ToolError as e:
            raise PlanError(f"step {i} ({tool.signature}): {e.message}", hint=e.hint) from None
        done.append(StepResult(tool=tool.name, args=step["args"], result=value))
    return ExecutionResult(steps=done, result=done[-1].result)
