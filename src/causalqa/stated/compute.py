"""Identification and exact computation from the stated numbers.

`Calculator.p(event, given)` derives a probability from the stated ones by rules that
are exact: lookup, complement, dropping or adding a condition the graph makes
independent (d-separation), the chain rule, a conditional from a joint and a marginal,
and the law of total probability. Each step is written to the derivation.

Estimands are identified from the graph: back-door adjustment over a valid set (found by
d-separation, trying small sets first and keeping one whose numbers are stated),
front-door adjustment, the instrumental-variable ratio (under effect homogeneity, said in
the estimand), the mediation formula when nothing confounds the mediator, linear-
programming bounds when a stated-but-unobserved variable confounds it, and the sign of an
effect on the treated when the stated numbers fix it but not its size. When the numbers
do not identify the query, `NotIdentified` says which quantity is missing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import networkx as nx

from causalqa.stated.model import Assignment, Query, StatedModel

EPS = 1e-12


class NotIdentified(Exception):
    """The stated numbers do not determine the quantity asked for."""


@dataclass
class Result:
    value: float
    estimand: str
    derivation: list[str] = field(default_factory=list)
    sign_only: bool = False  # the value's sign is exact, its size is a bound or a proxy
    # the number whose sign decides the answer, when it is not `value` itself: for a
    # sign known from a range, the end of the range nearest to zero
    margin: float | None = None

    def deciding(self) -> float:
        return self.value if self.margin is None else self.margin


def _fmt(values: Assignment) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def _pstr(event: Assignment, given: Assignment) -> str:
    return f"P({_fmt(event)} | {_fmt(given)})" if given else f"P({_fmt(event)})"


class Calculator:
    """Probabilities derived exactly from the stated ones, with the graph's
    independences."""

    def __init__(self, model: StatedModel) -> None:
        self.model = model
        self.graph = nx.DiGraph()
        self.graph.add_nodes_from(model.variables)
        self.graph.add_edges_from(model.edges)
        self.stated: dict[tuple, float] = {}
        self.sentence: dict[tuple, str] = {}
        for p in model.probabilities:
            key = (frozenset(p.event.items()), frozenset(p.given.items()))
            self.stated[key] = p.value
            self.sentence[key] = p.sentence
        self.steps: list[str] = []
        self._memo: dict[tuple, float | None] = {}
        self._busy: set[tuple] = set()
        self.used: set[tuple] = set()

    # -- independence ---------------------------------------------------------------------
    def independent(self, a: set[str], b: set[str], given: set[str]) -> bool:
        if not a or not b:
            return True
        if (a | b | given) - set(self.graph.nodes):
            return False
        return nx.is_d_separator(self.graph, a, b, given)

    # -- probabilities --------------------------------------------------------------------
    def p(self, event: Assignment, given: Assignment | None = None, depth: int = 0) -> float | None:
        given = dict(given or {})
        for k, v in event.items():
            if k in given:
                return 1.0 if given[k] == v else 0.0
        key = (frozenset(event.items()), frozenset(given.items()))
        if key in self._memo:
            return self._memo[key]
        if key in self._busy or depth > 4:
            return None
        self._busy.add(key)
        try:
            value = self._derive(event, given, depth)
        finally:
            self._busy.discard(key)
        self._memo[key] = value
        return value

    def _lookup(self, event: Assignment, given: Assignment) -> float | None:
        key = (frozenset(event.items()), frozenset(given.items()))
        if key in self.stated:
            self.used.add(key)
            return self.stated[key]
        return None

    def _derive(self, event: Assignment, given: Assignment, depth: int) -> float | None:
        v = self._lookup(event, given)
        if v is not None:
            return v
        if len(event) == 1:
            ((var, val),) = event.items()
            v = self._lookup({var: 1 - val}, given)
            if v is not None:
                self.steps.append(f"{_pstr(event, given)} = 1 - {v:.4g} = {1 - v:.4g}")
                return 1.0 - v
        evars = set(event)
        # a stated probability whose conditions differ by variables independent of the event
        for (ev, gv), val in list(self.stated.items()):
            e, g = dict(ev), dict(gv)
            if set(e) != evars:
                continue
            same_event = e == event
            if not same_event and not (len(event) == 1 and all(e[k] != event[k] for k in event)):
                continue
            if any(g.get(k, v2) != v2 for k, v2 in given.items() if k in g):
                continue
            extra_stated = {k: x for k, x in g.items() if k not in given}
            extra_asked = {k: x for k, x in given.items() if k not in g}
            common = {k: x for k, x in given.items() if k in g}
            if not extra_stated and not extra_asked:
                continue
            if self.independent(evars, set(extra_stated) | set(extra_asked), set(common)) and (
                not extra_stated or self.independent(evars, set(extra_stated), set(given))
            ):
                self.used.add((ev, gv))
                out = val if same_event else 1.0 - val
                self.steps.append(
                    f"{_pstr(event, given)} = {out:.4g} (stated as {_pstr(e, g)}; the graph makes "
                    f"{', '.join(evars)} independent of {', '.join(sorted(set(extra_stated) | set(extra_asked)))} here)"  # noqa: E501
                )
                return out
        if len(event) > 1:
            # chain rule, in each order
            for var in event:
                rest = {k: x for k, x in event.items() if k != var}
                a = self.p({var: event[var]}, {**given, **rest}, depth + 1)
                if a is None:
                    continue
                b = self.p(rest, given, depth + 1)
                if b is None:
                    continue
                self.steps.append(f"{_pstr(event, given)} = {a:.4g} * {b:.4g} = {a * b:.4g}")
                return a * b
            # P(A=a, B) = P(B) - P(A=not a, B)
            for var in event:
                rest = {k: x for k, x in event.items() if k != var}
                other = self._lookup({**rest, var: 1 - event[var]}, given)
                if other is None:
                    continue
                b = self.p(rest, given, depth + 1)
                if b is not None:
                    self.steps.append(
                        f"{_pstr(event, given)} = {b:.4g} - {other:.4g} = {b - other:.4g}"
                    )
                    return b - other
        if given:
            # a conditional from a joint and a marginal
            joint = self.p({**event, **given}, {}, depth + 1)
            if joint is not None:
                marg = self.p(given, {}, depth + 1)
                if marg is not None and marg > EPS:
                    self.steps.append(
                        f"{_pstr(event, given)} = {joint:.4g} / {marg:.4g} = {joint / marg:.4g}"
                    )
                    return joint / marg
        # the law of total probability over a variable the stated numbers condition on
        candidates = []
        for _, gv in self.stated:
            for k, _ in gv:
                if k not in event and k not in given and k not in candidates:
                    candidates.append(k)
        for w in candidates:
            parts = []
            for wv in (0, 1):
                a = self.p(event, {**given, w: wv}, depth + 1)
                if a is None:
                    break
                b = self.p({w: wv}, given, depth + 1)
                if b is None:
                    break
                parts.append((wv, a, b))
            if len(parts) == 2:
                total = sum(a * b for _, a, b in parts)
                self.steps.append(
                    f"{_pstr(event, given)} = "
                    + " + ".join(f"{a:.4g} * {b:.4g}" for _, a, b in parts)
                    + f" = {total:.4g} (summing over {w})"
                )
                return total
        return None

    def need(self, event: Assignment, given: Assignment | None = None) -> float:
        v = self.p(event, given)
        if v is None:
            raise NotIdentified(f"the story does not state (nor imply) {_pstr(event, given or {})}")
        return v

    # -- graph questions -------------------------------------------------------------------
    def descendants(self, x: str) -> set[str]:
        return nx.descendants(self.graph, x)

    def is_backdoor(self, x: str, y: str, z: set[str]) -> bool:
        if z & (self.descendants(x) | {x, y}):
            return False
        g = self.graph.copy()
        g.remove_edges_from(list(g.out_edges(x)))
        return nx.is_d_separator(g, {x}, {y}, z)

    def backdoor_sets(self, x: str, y: str) -> list[set[str]]:
        others = [v for v in self.graph.nodes if v not in (x, y) and v not in self.descendants(x)]
        out = []
        for k in range(len(others) + 1):
            for z in itertools.combinations(sorted(others), k):
                if self.is_backdoor(x, y, set(z)):
                    out.append(set(z))
        return out


def _values(vars_: list[str]):
    for combo in itertools.product((0, 1), repeat=len(vars_)):
        yield dict(zip(vars_, combo))


# -- interventional quantities -----------------------------------------------------------------


def do_probability(calc: Calculator, y: str, yv: int, x: str, xv: int) -> tuple[float, str]:
    """P(Y=yv | do(X=xv)), identified by back-door, front-door or (for a difference) IV."""
    errors = []
    for z in calc.backdoor_sets(x, y):
        try:
            total = 0.0
            zs = sorted(z)
            for zv in _values(zs):
                total += calc.need({y: yv}, {x: xv, **zv}) * (calc.need(zv) if zs else 1.0)
            how = (
                f"back-door adjustment over {{{', '.join(zs)}}}"
                if zs
                else "no back-door path: P(Y | do(X)) = P(Y | X)"
            )
            return total, how
        except NotIdentified as e:
            errors.append(str(e))
    fd = _frontdoor(calc, y, yv, x, xv)
    if fd is not None:
        return fd
    raise NotIdentified(errors[0] if errors else "no valid adjustment set has its numbers stated")


def _frontdoor(calc: Calculator, y: str, yv: int, x: str, xv: int):
    g = calc.graph
    cands = [v for v in g.nodes if v not in (x, y) and v in calc.descendants(x)]
    for k in range(1, len(cands) + 1):
        for m in itertools.combinations(sorted(cands), k):
            ms = set(m)
            h = g.copy()
            h.remove_nodes_from(ms)
            if nx.has_path(h, x, y):
                continue  # M must intercept every directed path
            if not all(calc.is_backdoor(x, mi, set()) for mi in ms):
                continue
            if not all(calc.is_backdoor(mi, y, {x}) for mi in ms):
                continue
            try:
                total = 0.0
                for mv in _values(sorted(ms)):
                    inner = sum(
                        calc.need({y: yv}, {x: xp, **mv}) * calc.need({x: xp}) for xp in (0, 1)
                    )
                    total += calc.need(mv, {x: xv}) * inner
                return total, f"front-door adjustment through {{{', '.join(sorted(ms))}}}"
            except NotIdentified:
                continue
    return None


def _instrumental(calc: Calculator, y: str, yv: int, x: str, xv: int) -> Result | None:
    g = calc.graph
    for z in sorted(g.nodes):
        if z in (x, y) or not g.has_edge(z, x):
            continue
        h = g.copy()
        h.remove_edges_from(list(h.out_edges(x)))
        if not nx.is_d_separator(h, {z}, {y}, set()):
            continue
        try:
            dy = calc.need({y: yv}, {z: 1}) - calc.need({y: yv}, {z: 0})
            dx = calc.need({x: xv}, {z: 1}) - calc.need({x: xv}, {z: 0})
        except NotIdentified:
            continue
        if abs(dx) < EPS:
            continue
        value = dy / dx
        return Result(
            value,
            f"[P({y}={yv} | {z}=1) - P({y}={yv} | {z}=0)] / [P({x}={xv} | {z}=1) - P({x}={xv} | {z}=0)] "  # noqa: E501
            f"(instrumental variable {z}; assumes the effect is the same for every unit)",
            [f"IV ratio = {dy:.4g} / {dx:.4g} = {value:.4g}"],
        )
    return None


def total_effect(calc: Calculator, x: str, xv: int, y: str, yv: int) -> Result:
    try:
        a, how = do_probability(calc, y, yv, x, xv)
        b, _ = do_probability(calc, y, yv, x, 1 - xv)
        return Result(
            a - b,
            f"P({y}={yv} | do({x}={xv})) - P({y}={yv} | do({x}={1 - xv})) by {how}",
            [f"P({y}={yv} | do({x}={xv})) = {a:.4g}", f"P({y}={yv} | do({x}={1 - xv})) = {b:.4g}"],
        )
    except NotIdentified as first:
        iv = _instrumental(calc, y, yv, x, xv)
        if iv is not None:
            return iv
        raise first


def effect_on_treated(calc: Calculator, x: str, xv: int, y: str, yv: int) -> Result:
    """E[Y_{x'} | X=x] - P(Y | X=x) with x' the other value: > 0 when the outcome would
    have been more likely had the group been the other value."""
    xc = 1 - xv
    errors = []
    for z in calc.backdoor_sets(x, y):
        zs = sorted(z)
        try:
            if not zs:
                factual = calc.need({y: yv}, {x: xv})
                cf = calc.need({y: yv}, {x: xc})
                return Result(
                    cf - factual,
                    f"E[{y}_{{{x}={xc}}} | {x}={xv}] - P({y}={yv} | {x}={xv}) = P({y} | {x}={xc}) - P({y} | {x}={xv}) (no back-door path)",  # noqa: E501
                    [
                        f"P({y}={yv} | {x}={xc}) = {cf:.4g}",
                        f"P({y}={yv} | {x}={xv}) = {factual:.4g}",
                    ],
                )
            deltas = []
            for zv in _values(zs):
                d = calc.need({y: yv}, {x: xc, **zv}) - calc.need({y: yv}, {x: xv, **zv})
                deltas.append((zv, d))
            weights = [calc.p(zv, {x: xv}) for zv, _ in deltas]
            if all(w is not None for w in weights):
                value = sum(w * d for w, (_, d) in zip(weights, deltas))
                return Result(
                    value,
                    f"sum over {', '.join(zs)} of P(z | {x}={xv}) * [P({y}={yv} | {x}={xc}, z) - P({y}={yv} | {x}={xv}, z)] (back-door)",  # noqa: E501
                    [
                        f"weights P(z | {x}={xv}) = {[round(w, 4) for w in weights]}",
                        f"differences = {[round(d, 4) for _, d in deltas]}",
                    ],
                )
            lo, hi = min(d for _, d in deltas), max(d for _, d in deltas)
            if lo > 0 or hi < 0:
                return Result(
                    (lo + hi) / 2,
                    f"sign of sum over {', '.join(zs)} of P(z | {x}={xv}) * [P({y} | {x}={xc}, z) - P({y} | {x}={xv}, z)]: "  # noqa: E501
                    f"P(z | {x}={xv}) is not stated, but every difference has the same sign (between {lo:.4g} and {hi:.4g})",  # noqa: E501
                    [f"differences = {[round(d, 4) for _, d in deltas]}"],
                    sign_only=True,
                    margin=lo if lo > 0 else hi,
                )
            raise NotIdentified(
                f"the effect on the treated needs P({', '.join(zs)} | {x}={xv}), which the story does not state, "  # noqa: E501
                f"and the differences {lo:.3g} and {hi:.3g} have opposite signs"
            )
        except NotIdentified as e:
            errors.append(str(e))
    # front-door: E[Y_{x'} | x] = sum_m P(m | x') P(y | x, m)
    g = calc.graph
    for m in sorted(v for v in g.nodes if v in calc.descendants(x) and v != y):
        h = g.copy()
        h.remove_node(m)
        if (
            nx.has_path(h, x, y)
            or not calc.is_backdoor(x, m, set())
            or not calc.is_backdoor(m, y, {x})
        ):
            continue
        try:
            cf = sum(
                calc.need({m: mv}, {x: xc}) * calc.need({y: yv}, {x: xv, m: mv}) for mv in (0, 1)
            )
            factual = calc.need({y: yv}, {x: xv})
            return Result(
                cf - factual,
                f"E[{y}_{{{x}={xc}}} | {x}={xv}] = sum over {m} of P({m} | {x}={xc}) P({y} | {x}={xv}, {m}) (front-door), minus P({y} | {x}={xv})",  # noqa: E501
                [
                    f"E[{y}_{{{x}={xc}}} | {x}={xv}] = {cf:.4g}",
                    f"P({y}={yv} | {x}={xv}) = {factual:.4g}",
                ],
            )
        except NotIdentified as e:
            errors.append(str(e))
    raise NotIdentified(
        errors[0] if errors else "no adjustment identifies the effect on the treated"
    )


def natural_effect(
    calc: Calculator, kind: str, x: str, xv: int, y: str, yv: int, mediators: list[str]
) -> Result:
    """NDE (kind 'nde') or NIE ('nie') of X=xv against the other value, with the baseline
    at the other value, through `mediators`."""
    g = calc.graph
    x0 = 1 - xv
    ms = set(mediators)
    h = g.copy()
    h.remove_nodes_from(ms)
    direct_path = nx.has_path(h, x, y)
    if not direct_path:
        if kind == "nde":
            return Result(
                0.0,
                f"every path from {x} to {y} goes through {', '.join(mediators)}: the direct effect is 0",  # noqa: E501
            )
        r = total_effect(calc, x, xv, y, yv)
        r.estimand = (
            f"every path from {x} to {y} goes through {', '.join(mediators)}: NIE = total effect, "
            + r.estimand
        )
        return r
    if len(ms) != 1:
        raise NotIdentified(
            "a natural effect through several mediators with a direct path is not handled"
        )
    (m,) = ms
    confounders = _mediator_confounders(calc, x, m, y)
    if not confounders:
        if not calc.is_backdoor(x, y, set()) or not calc.is_backdoor(x, m, set()):
            raise NotIdentified(
                f"something confounds {x} with {y} or {m}; the mediation formula does not apply"
            )
        pm = {mv: calc.need({m: mv}, {x: x0}) for mv in (0, 1)}
        pm1 = {mv: calc.need({m: mv}, {x: xv}) for mv in (0, 1)}
        py = {(a, mv): calc.need({y: yv}, {x: a, m: mv}) for a in (0, 1) for mv in (0, 1)}
        if kind == "nde":
            value = sum(pm[mv] * (py[(xv, mv)] - py[(x0, mv)]) for mv in (0, 1))
            est = f"sum over {m} of P({m} | {x}={x0}) * [P({y} | {x}={xv}, {m}) - P({y} | {x}={x0}, {m})] (mediation formula)"  # noqa: E501
        else:
            value = sum(py[(x0, mv)] * (pm1[mv] - pm[mv]) for mv in (0, 1))
            est = f"sum over {m} of P({y} | {x}={x0}, {m}) * [P({m} | {x}={xv}) - P({m} | {x}={x0})] (mediation formula)"  # noqa: E501
        return Result(value, est, [f"{kind.upper()} = {value:.4g}"])
    return _mediation_bounds(calc, kind, x, xv, y, yv, m, confounders)


def _mediator_confounders(calc: Calculator, x: str, m: str, y: str) -> list[str]:
    g = calc.graph
    anc_m, anc_y = nx.ancestors(g, m), nx.ancestors(g, y)
    return sorted(w for w in (anc_m & anc_y) - {x, m, y} if w not in nx.descendants(g, x))


def _mediation_bounds(calc, kind, x, xv, y, yv, m, confounders) -> Result:
    """NDE/NIE when a variable W confounds the mediator and the outcome and the story
    states P(W) and P(M | X, W) but only P(Y | X, M): the effect is linear in the unknown
    P(Y | X, M, W), which the stated P(Y | X, M) constrains; linear programming gives its
    range. The answer stands when the range has one sign."""
    from scipy.optimize import linprog

    if len(confounders) != 1:
        raise NotIdentified(
            f"{', '.join(confounders)} confound {m} and {y}; their joint effect is not stated"
        )
    (w,) = confounders
    x0 = 1 - xv
    try:
        direct = [
            [[calc._lookup({y: yv}, {x: a, m: mv, w: wv}) for wv in (0, 1)] for mv in (0, 1)]
            for a in (0, 1)
        ]
        if all(v is not None for a in direct for mv in a for v in mv):
            pw = {wv: calc.need({w: wv}) for wv in (0, 1)}
            pm = {
                (a, wv, mv): calc.need({m: mv}, {x: a, w: wv})
                for a in (0, 1)
                for wv in (0, 1)
                for mv in (0, 1)
            }
            if kind == "nde":
                value = sum(
                    pw[wv] * pm[(x0, wv, mv)] * (direct[xv][mv][wv] - direct[x0][mv][wv])
                    for wv in (0, 1)
                    for mv in (0, 1)
                )
            else:
                value = sum(
                    pw[wv] * direct[x0][mv][wv] * (pm[(xv, wv, mv)] - pm[(x0, wv, mv)])
                    for wv in (0, 1)
                    for mv in (0, 1)
                )
            return Result(
                value, f"mediation formula adjusted for {w}", [f"{kind.upper()} = {value:.4g}"]
            )
        pw = {wv: calc.need({w: wv}) for wv in (0, 1)}
        pm = {
            (a, wv, mv): calc.need({m: mv}, {x: a, w: wv})
            for a in (0, 1)
            for wv in (0, 1)
            for mv in (0, 1)
        }
        py = {(a, mv): calc.need({y: yv}, {x: a, m: mv}) for a in (0, 1) for mv in (0, 1)}
    except NotIdentified:
        raise

    # unknowns u[a, mv, wv] = P(y | x=a, m=mv, w=wv), index a*4 + mv*2 + wv
    def idx(a, mv, wv):
        return a * 4 + mv * 2 + wv

    a_eq, b_eq = [], []
    for a in (0, 1):
        for mv in (0, 1):
            den = sum(pw[wv] * pm[(a, wv, mv)] for wv in (0, 1))
            if den <= EPS:
                continue
            row = [0.0] * 8
            for wv in (0, 1):
                row[idx(a, mv, wv)] = pw[wv] * pm[(a, wv, mv)] / den
            a_eq.append(row)
            b_eq.append(py[(a, mv)])
    c = [0.0] * 8
    for wv in (0, 1):
        for mv in (0, 1):
            if kind == "nde":
                c[idx(xv, mv, wv)] += pw[wv] * pm[(x0, wv, mv)]
                c[idx(x0, mv, wv)] -= pw[wv] * pm[(x0, wv, mv)]
            else:
                c[idx(x0, mv, wv)] += pw[wv] * (pm[(xv, wv, mv)] - pm[(x0, wv, mv)])
    lo = linprog(c, A_eq=a_eq, b_eq=b_eq, bounds=[(0, 1)] * 8)
    hi = linprog([-v for v in c], A_eq=a_eq, b_eq=b_eq, bounds=[(0, 1)] * 8)
    if not (lo.success and hi.success):
        raise NotIdentified(f"the stated numbers about {w}, {m} and {y} do not fit together")
    low, high = lo.fun, -hi.fun
    est = (
        f"{kind.upper()} with {w} confounding {m} and {y}: P({y} | {x}, {m}, {w}) is not stated; every "  # noqa: E501
        f"model that fits the stated numbers gives a value in [{low:.4g}, {high:.4g}]"
    )
    if low > 1e-9 or high < -1e-9:
        return Result(
            (low + high) / 2,
            est,
            [f"bounds by linear programming: [{low:.4g}, {high:.4g}]"],
            sign_only=True,
            margin=low if low > 1e-9 else high,
        )
    raise NotIdentified(
        f"the stated numbers do not identify the {kind.upper()}: {w} confounds {m} and {y}, and models that fit "  # noqa: E501
        f"every stated number give values from {low:.3g} to {high:.3g} (both signs)"
    )


# -- deterministic counterfactuals ---------------------------------------------------------------


def counterfactual(model: StatedModel, query: Query) -> Result:
    """Abduction (worlds consistent with the observations), action (set the treatment),
    prediction (run the mechanisms). The answer stands when every consistent world agrees."""
    mech = {m.effect: m for m in model.mechanisms}
    order = list(nx.topological_sort(nx.DiGraph(model.edges))) if model.edges else []
    for v in model.variables:
        if v not in order:
            order.append(v)
    exogenous = [v for v in order if v not in mech]
    obs = {o.variable: o.value for o in model.observations}

    def run(world: dict[str, int], do: dict[str, int]) -> dict[str, int]:
        vals = dict(world)
        for v in order:
            if v in do:
                vals[v] = do[v]
            elif v in mech:
                m = mech[v]
                lits = [vals.get(i) == iv for i, iv in m.inputs]
                if any(vals.get(i) is None for i, _ in m.inputs + m.requires):
                    raise NotIdentified(f"{v} depends on a variable with no value")
                truth = (not m.inputs or (all(lits) if m.op == "and" else any(lits))) and all(
                    vals.get(i) == iv for i, iv in m.requires
                )
                vals[v] = m.effect_value if truth else 1 - m.effect_value
        return vals

    x, xv, y, yv = query.treatment, query.treatment_value, query.outcome, query.outcome_value
    if y not in mech and y not in obs:
        raise NotIdentified(f"no mechanism states how {y} comes about")
    worlds = []
    for combo in itertools.product((0, 1), repeat=len(exogenous)):
        world = dict(zip(exogenous, combo))
        factual = run(world, {})
        if all(factual.get(k) == v for k, v in obs.items()):
            worlds.append(world)
    if not worlds:
        raise NotIdentified("no setting of the unexplained variables agrees with the observations")
    outcomes = {run(w, {x: xv})[y] for w in worlds}
    derivation = [
        f"{len(worlds)} world(s) agree with the observations {obs}",
        f"do({x}={xv}) gives {y} in {sorted(outcomes)}",
    ]
    if len(outcomes) > 1 and query.given:
        # the factual premise ("instead of ...") narrows the worlds when it can
        narrowed = [
            w for w in worlds if all(run(w, {}).get(k) == v for k, v in query.given.items())
        ]
        if narrowed:
            outcomes = {run(w, {x: xv})[y] for w in narrowed}
            derivation.append(f"with the factual {query.given}: {y} in {sorted(outcomes)}")
    if len(outcomes) > 1:
        raise NotIdentified(f"the observations do not fix {y} under do({x}={xv}): worlds disagree")
    (out,) = outcomes
    return Result(1.0 if out == yv else 0.0, f"{y}_{{{x}={xv}}} = {yv} | {_fmt(obs)}", derivation)
