"""The open-question benchmark: the next questions people ask about a causal model —
statistics other than the mean, counts and shares over thresholds, differences of two
treatments, per-subject values, confounders, mediators, d-separation, adjustment sets —
and questions no operator covers, which must be refused.

Written independently of the paper's templates. Models come from `qa_data.generate_model`
(multi-word names, three sizes); every answer's truth is computed here with pandas and a
d-separation of our own (moralised ancestral graph), never by the engine's tools; a
wording set is chosen by name (`causalqa.bench.wordings` reads it from
``bench/data/wordings/open/``: ``dev`` for development; held-out sets are never read
while developing). Each answer is graded right, refused or wrong.
"""

from __future__ import annotations

import itertools
import math
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from causalqa.bench import qa_data
from causalqa.bench.report import environment, table_markdown, write_report
from causalqa.bench.wordings import load_wordings
from causalqa.causal_model import CausalModel
from causalqa.errors import CausalQAError

SIZES: dict[str, tuple[int, int, int]] = {
    "small": (8, 4, 30),
    "medium": (20, 8, 200),
    "large": (50, 15, 1000),
}
"""Size name → (graph nodes, treatments, subjects)."""

EDGE_PROBABILITY = 0.2
UNIT = "partner"

Pick = dict[str, Any]


# -- truth, computed independently of the engine ------------------------------------------


def _ancestral_moral_separated(g: nx.DiGraph, a: str, b: str, given: set[str]) -> bool:
    """d-separation by the moralised ancestral graph (Lauritzen): keep the ancestors of
    {a, b} ∪ given, marry co-parents, drop directions, remove `given`; separated when no
    path is left between `a` and `b`."""
    keep = {a, b} | given
    for n in list(keep):
        keep |= nx.ancestors(g, n)
    sub = g.subgraph(keep)
    moral = nx.Graph(sub.to_undirected())
    for child in sub:
        parents = list(sub.predecessors(child))
        moral.add_edges_from(itertools.combinations(parents, 2))
    moral.remove_nodes_from(given)
    return not nx.has_path(moral, a, b)


def _common_causes(g: nx.DiGraph, a: str, b: str) -> set[str]:
    """Variables with a directed path to `a` that avoids `b` and one to `b` that avoids `a`."""
    out = set()
    without_b = g.subgraph(n for n in g if n != b)
    without_a = g.subgraph(n for n in g if n != a)
    for c in g:
        if c not in (a, b) and nx.has_path(without_b, c, a) and nx.has_path(without_a, c, b):
            out.add(c)
    return out


def _common_effects(g: nx.DiGraph, a: str, b: str) -> set[str]:
    """The common causes of `a` and `b` in the graph with every edge reversed."""
    return _common_causes(g.reverse(copy=False), a, b)


def is_backdoor_set(g: nx.DiGraph, x: str, y: str, z: set[str]) -> bool:
    """The back-door criterion, checked from its definition: no member of `z` descends
    from `x`, and `z` d-separates `x` and `y` once `x`'s outgoing edges are cut."""
    if z & (nx.descendants(g, x) | {x, y}):
        return False
    cut = g.copy()
    cut.remove_edges_from(list(g.out_edges(x)))
    return _ancestral_moral_separated(cut, x, y, z)


def _effect_kind(g: nx.DiGraph, a: str, b: str) -> str:
    direct = g.has_edge(a, b)
    longer = any(len(p) > 2 for p in itertools.islice(nx.all_simple_paths(g, a, b), 10_000))
    return "both" if direct and longer else "direct" if direct else "indirect" if longer else "none"


# -- the kinds ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenKind:
    """A kind of open question: how to pick its names and numbers from a model, its
    exact answer (None for a kind no operator covers: it must be refused), and how an
    answer's result is compared with it."""

    name: str
    family: str
    pick: Callable[[CausalModel, np.random.Generator], Pick | None]
    truth: Callable[[CausalModel, Pick], Any] | None
    compare: str = "number"


def _eff(m: CausalModel) -> pd.DataFrame:
    assert m.effects is not None
    return m.effects


def _two_treatments(m: CausalModel, rng: np.random.Generator) -> Pick | None:
    if len(m.treatments) < 2:
        return None
    t, u = rng.choice(len(m.treatments), size=2, replace=False)
    return {"T": m.treatments[t], "U": m.treatments[u]}


def _treatment(m: CausalModel, rng: np.random.Generator) -> Pick:
    return {"T": m.treatments[rng.integers(len(m.treatments))]}


def _threshold(m: CausalModel, rng: np.random.Generator) -> Pick:
    pick = _treatment(m, rng)
    pick["N"] = int(rng.choice([10, 20, 25, 50, 75, 100]))
    return pick


def _subject_pair(m: CausalModel, rng: np.random.Generator) -> Pick | None:
    pick = _two_treatments(m, rng)
    if pick is None:
        return None
    pick["S"] = m.subjects[rng.integers(len(m.subjects))]
    return pick


def _percentile(m: CausalModel, rng: np.random.Generator) -> Pick:
    pick = _treatment(m, rng)
    pick["P"] = int(rng.choice([10, 25, 75, 90]))
    return pick


def _causal_pair(m: CausalModel, rng: np.random.Generator, *, min_len: int = 1) -> Pick | None:
    g = m.graph
    anc = {n: nx.ancestors(g, n) for n in g}
    desc = {n: nx.descendants(g, n) for n in g}
    # sorted: a set's order changes with the hash seed, and the questions must not
    pairs = [(a, b) for a in g for b in sorted(desc[a]) if min_len <= 1 or desc[a] & anc[b]]
    if not pairs:
        return None
    a, b = pairs[rng.integers(len(pairs))]
    return {"A": a, "B": b}


def _mediators(g: nx.DiGraph, a: str, b: str) -> set[str]:
    return {c for c in g if c not in (a, b) and nx.has_path(g, a, c) and nx.has_path(g, c, b)}


def _confounded_pair(m: CausalModel, rng: np.random.Generator) -> Pick | None:
    g = m.graph
    pairs = [(a, b) for a in g for b in sorted(nx.descendants(g, a))]
    rng.shuffle(pairs)
    for a, b in pairs[:200]:
        if _common_causes(g, a, b):
            return {"A": a, "B": b}
    return _causal_pair(m, rng)


def _on_path(m: CausalModel, rng: np.random.Generator) -> Pick | None:
    g = m.graph
    anc = {n: nx.ancestors(g, n) for n in g}
    desc = {n: nx.descendants(g, n) for n in g}
    pairs = [(a, b) for a in g for b in sorted(desc[a]) if desc[a] & anc[b]]
    if not pairs:
        return None
    a, b = pairs[rng.integers(len(pairs))]
    inside = sorted(_mediators(g, a, b))
    outside = sorted(set(g) - set(inside) - {a, b})
    if outside and rng.random() < 0.5:
        return {"A": a, "B": b, "M": outside[rng.integers(len(outside))]}
    return {"A": a, "B": b, "M": inside[rng.integers(len(inside))]}


def _dsep(m: CausalModel, rng: np.random.Generator) -> Pick | None:
    g = m.graph
    nodes = sorted(g)
    if len(nodes) < 3:
        return None
    for _ in range(200):
        a, b = rng.choice(len(nodes), size=2, replace=False)
        a, b = nodes[a], nodes[b]
        if g.has_edge(a, b) or g.has_edge(b, a):
            continue
        others = [n for n in nodes if n not in (a, b)]
        z = sorted(
            rng.choice(others, size=min(len(others), int(rng.integers(1, 3))), replace=False)
        )
        return {"A": a, "B": b, "Z": list(z)}
    return None


def _blanket(m: CausalModel, rng: np.random.Generator) -> Pick:
    return {"A": sorted(m.graph)[rng.integers(len(m.graph))]}


def _kind_pair(m: CausalModel, rng: np.random.Generator) -> Pick | None:
    g = m.graph
    nodes = sorted(g)
    desc = {n: nx.descendants(g, n) for n in nodes}
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for a in nodes:
        for b in nodes:
            if a == b:
                continue
            direct = g.has_edge(a, b)
            longer = any(b in desc[c] for c in g.successors(a) if c != b)
            kind = (
                "both"
                if direct and longer
                else "direct"
                if direct
                else "indirect"
                if longer
                else "none"
            )
            by_kind.setdefault(kind, []).append((a, b))
    kinds = sorted(by_kind)
    kind = kinds[rng.integers(len(kinds))]
    a, b = by_kind[kind][rng.integers(len(by_kind[kind]))]
    return {"A": a, "B": b}


def _common_effect_pair(m: CausalModel, rng: np.random.Generator) -> Pick | None:
    g = m.graph
    nodes = sorted(g)
    desc = {n: nx.descendants(g, n) for n in nodes}
    pairs = [
        (a, b)
        for a, b in itertools.combinations(nodes, 2)
        if b not in desc[a] and a not in desc[b] and desc[a] & desc[b]
    ]
    if not pairs:
        return None
    a, b = pairs[rng.integers(len(pairs))]
    return {"A": a, "B": b}


def _with_outcome(m: CausalModel, rng: np.random.Generator) -> Pick | None:
    return {"Y": m.outcome} if m.outcome else None


def _ranked(series: pd.Series, lowest: bool = False) -> str:
    values = series.to_numpy(dtype=float)
    i = int(np.argmin(values)) if lowest else int(np.argmax(values))
    return str(series.index[i])


KINDS: list[OpenKind] = [
    OpenKind("median", "table", _treatment, lambda m, p: float(_eff(m)[p["T"]].median())),
    OpenKind("minimum", "table", _treatment, lambda m, p: float(_eff(m)[p["T"]].min())),
    OpenKind("maximum", "table", _treatment, lambda m, p: float(_eff(m)[p["T"]].max())),
    OpenKind("std", "table", _treatment, lambda m, p: float(_eff(m)[p["T"]].std())),
    OpenKind(
        "percentile",
        "table",
        _percentile,
        lambda m, p: float(_eff(m)[p["T"]].quantile(p["P"] / 100)),
    ),  # fmt: skip
    OpenKind("count_benefit", "table", _treatment, lambda m, p: int((_eff(m)[p["T"]] > 0).sum())),
    OpenKind(
        "count_threshold",
        "table",
        _threshold,
        lambda m, p: int((_eff(m)[p["T"]] > p["N"]).sum()),
    ),  # fmt: skip
    OpenKind(
        "count_more_engaged",
        "table",
        _two_treatments,
        lambda m, p: int(
            ((_eff(m)[p["T"]] > _eff(m)[p["U"]]) & _eff(m)[qa_data.ENGAGED].astype(bool)).sum()
        ),
    ),  # fmt: skip
    OpenKind(
        "share_benefit", "table", _treatment, lambda m, p: float((_eff(m)[p["T"]] > 0).mean())
    ),
    OpenKind(
        "share_at_least",
        "table",
        _threshold,
        lambda m, p: float((_eff(m)[p["T"]] >= p["N"]).mean()),
    ),  # fmt: skip
    OpenKind(
        "list_hurt",
        "table",
        _treatment,
        lambda m, p: {str(s) for s in _eff(m).index[_eff(m)[p["T"]] < 0]},
        "set",
    ),  # fmt: skip
    OpenKind(
        "subject_difference",
        "table",
        _subject_pair,
        lambda m, p: float(_eff(m).at[p["S"], p["T"]] - _eff(m).at[p["S"], p["U"]]),
    ),  # fmt: skip
    OpenKind(
        "mean_difference",
        "table",
        _two_treatments,
        lambda m, p: float((_eff(m)[p["T"]] - _eff(m)[p["U"]]).mean()),
    ),  # fmt: skip
    OpenKind(
        "best_by_median",
        "table",
        lambda m, rng: {},
        lambda m, p: _ranked(_eff(m)[m.treatments].median()),
        "arg",
    ),  # fmt: skip
    OpenKind(
        "best_subject_difference",
        "table",
        _two_treatments,
        lambda m, p: _ranked(_eff(m)[p["T"]] - _eff(m)[p["U"]]),
        "arg",
    ),  # fmt: skip
    OpenKind(
        "each",
        "table",
        _treatment,
        lambda m, p: {str(s): float(v) for s, v in _eff(m)[p["T"]].items()},
        "values",
    ),  # fmt: skip
    OpenKind(
        "best_on_average_outcome",
        "table",
        _with_outcome,
        lambda m, p: _ranked(_eff(m)[m.treatments].mean()),
        "arg",
    ),  # fmt: skip
    OpenKind(
        "confounders",
        "graph",
        _confounded_pair,
        lambda m, p: _common_causes(m.graph, p["A"], p["B"]),
        "set",
    ),  # fmt: skip
    OpenKind(
        "mediators",
        "graph",
        lambda m, rng: _causal_pair(m, rng, min_len=2),
        lambda m, p: _mediators(m.graph, p["A"], p["B"]),
        "set",
    ),  # fmt: skip
    OpenKind(
        "on_path",
        "graph",
        _on_path,
        lambda m, p: p["M"] in _mediators(m.graph, p["A"], p["B"]),
        "bool",
    ),  # fmt: skip
    OpenKind(
        "independence",
        "graph",
        _dsep,
        lambda m, p: _ancestral_moral_separated(m.graph, p["A"], p["B"], set(p["Z"])),
        "bool",
    ),  # fmt: skip
    OpenKind("adjustment", "graph", _causal_pair, lambda m, p: (p["A"], p["B"]), "adjustment"),
    OpenKind(
        "markov_blanket",
        "graph",
        _blanket,
        lambda m, p: (
            (
                set(m.graph.predecessors(p["A"]))
                | set(m.graph.successors(p["A"]))
                | {q for c in m.graph.successors(p["A"]) for q in m.graph.predecessors(c)}
            )
            - {p["A"]}
        ),
        "set",
    ),  # fmt: skip
    OpenKind(
        "effect_kind",
        "graph",
        _kind_pair,
        lambda m, p: _effect_kind(m.graph, p["A"], p["B"]),
        "equal",
    ),  # fmt: skip
    OpenKind(
        "common_effects",
        "graph",
        _common_effect_pair,
        lambda m, p: _common_effects(m.graph, p["A"], p["B"]),
        "set",
    ),  # fmt: skip
    OpenKind("mode", "unsupported", _treatment, None),
    OpenKind("correlation", "unsupported", _causal_pair, None),
    OpenKind("probability", "unsupported", _subject_pair, None),
    OpenKind("intervention_level", "unsupported", _causal_pair, None),
    OpenKind("iqr", "unsupported", _treatment, None),
]
"""Every kind, by family: table and graph kinds have an exact answer; the unsupported
kinds must be refused."""

KIND_NAMES = [k.name for k in KINDS]


# -- questions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenItem:
    kind: str
    family: str
    question: str
    pick: Pick
    expected: Any
    compare: str


def _names_text(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def open_model(size: str, seed: int) -> CausalModel:
    """A generated model of one of `SIZES`, with a sink of the graph as its outcome."""
    n_n, n_t, n_s = SIZES[size]
    m = qa_data.generate_model(n_n, n_t, n_s, p=EDGE_PROBABILITY, seed=seed)
    sinks = [v for v in m.variables if m.graph.out_degree(v) == 0 and m.graph.in_degree(v) > 0]
    outcome = sinks[0] if sinks else None
    return CausalModel(m.graph, m.effects.reset_index(), filters=m.filters, outcome=outcome)


def generate_open_questions(
    model: CausalModel, *, seed: int, wording: str = "dev", kinds: list[str] | None = None
) -> list[OpenItem]:
    """One pick per kind (seeded) and every wording of the set `wording` (a name of
    `causalqa.bench.wordings.wording_sets("open")`) for it."""
    rng = np.random.default_rng(seed)
    texts = load_wordings(wording, "open").wordings
    items = []
    for kind in KINDS:
        if kinds is not None and kind.name not in kinds:
            continue
        pick = kind.pick(model, rng)
        if pick is None:
            continue
        fill = {k: (_names_text(v) if isinstance(v, list) else v) for k, v in pick.items()}
        expected = kind.truth(model, pick) if kind.truth is not None else None
        for text in texts.get(kind.name, []):
            question = text.format(unit=UNIT, Unit=UNIT.capitalize(), **fill)
            items.append(OpenItem(kind.name, kind.family, question, pick, expected, kind.compare))
    return items


def grade_open(
    item: OpenItem, answered: bool, result: Any, model: CausalModel, tool: str | None = None
) -> str:
    """``right``, ``refused`` or ``wrong``: an unsupported kind is right only when refused;
    any other refusal is counted as refused, any other answer compared with the truth.
    `tool`: the answer's last tool; `d_connected` answers the independence question the
    other way round ("is there any remaining dependence …?": True means not independent)."""
    if item.family == "unsupported":
        return "right" if not answered else "wrong"
    if not answered:
        return "refused"
    if tool == "d_connected" and item.kind == "independence" and isinstance(result, bool):
        result = not result
    return "right" if _matches(item, result, model) else "wrong"


def _last_tool(plan: dict[str, Any] | None) -> str | None:
    steps = (plan or {}).get("steps") or []
    return steps[-1].get("tool") if steps else None


def _matches(item: OpenItem, result: Any, model: CausalModel) -> bool:
    exp = item.expected
    try:
        if item.compare == "number":
            if isinstance(result, dict) and {"T", "U"} <= item.pick.keys():
                # compare_treatments states both effects and which is higher; its T minus
                # U is the answer, whichever order it was asked in
                values = result["values"]
                value = float(values[item.pick["T"]]) - float(values[item.pick["U"]])
            else:
                value = float(result)
            return math.isclose(value, float(exp), rel_tol=1e-6, abs_tol=1e-6)
        if item.compare == "set":
            if isinstance(result, dict) and "variables" in result:  # paths_between's answer
                result = result["variables"]
            return isinstance(result, list) and {str(x) for x in result} == {str(x) for x in exp}
        if item.compare == "bool":
            return isinstance(result, bool) and result == exp
        if item.compare == "equal":
            return result == exp
        if item.compare == "arg":
            got = result[0] if isinstance(result, list) and len(result) == 1 else result
            return isinstance(got, dict) and str(got.get("arg")) == str(exp)
        if item.compare == "values":
            got = {str(r["arg"]): float(r["value"]) for r in result}
            return got.keys() == exp.keys() and all(
                math.isclose(got[k], exp[k], abs_tol=1e-6) for k in exp
            )
        if item.compare == "adjustment":
            x, y = exp
            return isinstance(result, list) and is_backdoor_set(model.graph, x, y, set(result))
    except (TypeError, ValueError, KeyError):
        return False
    return False


# -- the run -------------------------------------------------------------------------------


def run_open_bench(
    llm_spec: str | None,
    *,
    sizes: tuple[str, ...] = tuple(SIZES),
    seeds: int = 2,
    wording: str = "dev",
    cache: bool = True,
    out_dir: Path = Path("bench/results"),
    quick: bool = False,
    cold_samples: int = 0,
    console=None,
    concurrency: int = 1,
) -> dict[str, Any]:
    """Ask every open question of `wording` about models of `sizes` × `seeds`; grade each
    right, refused or wrong; report per kind and family, with plan validity and seconds,
    as JSON, Markdown and a plot (``qa-open-latest.*`` under `out_dir`). `concurrency` > 1
    keeps that many questions in flight, each thread with its own `Assistant`; outcomes
    keep the one-at-a-time order."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from causalqa.llm import get_llm
    from causalqa.llm.concurrent import BUSY, PerThread, run_ordered
    from causalqa.qa.assistant import Assistant

    if quick:
        sizes, seeds = ("small",), 1
    load_wordings(wording, "open")  # an unknown set is an error before the LLM loads
    llm = get_llm(llm_spec, cache=cache, quiet=True)
    llm.load()
    jobs = []
    for size in sizes:
        for seed in range(seeds):
            model = open_model(size, seed)
            jobs.append(
                (size, seed, model, generate_open_questions(model, seed=seed, wording=wording))
            )
    jobs_items = [(j, item) for j, job in enumerate(jobs) for item in job[3]]
    assistants = PerThread(lambda j: Assistant(jobs[j][2], llm))

    def ask(job_item: tuple[int, OpenItem]) -> dict[str, Any]:
        j, item = job_item
        size, seed, model, _ = jobs[j]
        assistant = assistants.get(j)
        assistant.reset()
        start = time.perf_counter()
        answer = assistant.ask(item.question)
        return _open_outcome(item, size, seed, model, answer, time.perf_counter() - start)

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("open questions", total=len(jobs_items))
        outcomes: list[dict[str, Any]] = run_ordered(
            ask,
            jobs_items,
            concurrency=concurrency,
            retry=BUSY,
            on_result=lambda *_: progress.advance(task),
        )
    cold = (
        _cold_process_seconds(jobs[0][2], jobs[0][3], llm_spec, cold_samples)
        if cold_samples
        else []
    )
    report = {
        "benchmark": "qa-open",
        "llm": f"{llm.backend}:{llm.model}",
        "wording": wording,
        "sizes": {s: SIZES[s] for s in sizes},
        "seeds": seeds,
        "cache": cache,
        "concurrency": concurrency,
        "quick": quick,
    }
    return _open_report(report, outcomes, cold, out_dir)


def _open_outcome(
    item: OpenItem, size: str, seed: int, model: CausalModel, answer: Any, seconds: float
) -> dict[str, Any]:
    from causalqa.qa.tools import validate_plan

    valid = None
    if answer.plan is not None:
        try:
            validate_plan(answer.plan, model, max_steps=4)
            valid = True
        except CausalQAError:
            valid = False
    return {
        "size": size, "seed": seed, "kind": item.kind, "family": item.family,
        "question": item.question,
        "grade": grade_open(item, answer.answered, answer.result, model, _last_tool(answer.plan)),
        "answer": answer.answer, "plan": answer.plan, "plan_valid": valid,
        "llm_called": bool(answer.usage.get("total_tokens")),
        "seconds": round(seconds, 3), "cached": answer.cached,
    }  # fmt: skip


def _open_report(
    report: dict[str, Any],
    outcomes: list[dict[str, Any]],
    cold: list[dict[str, float]],
    out_dir: Path,
) -> dict[str, Any]:
    """The rows per kind, the environment, JSON, Markdown and the plot of a run."""
    rows = _open_rows(outcomes)
    wording = report["wording"]
    report = {
        **report,
        "environment": environment(),
        "rows": rows,
        "cold_seconds": cold,
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "outcomes": outcomes,
    }
    columns_md = [
        ("kind", "kind"), ("family", "family"), ("questions", "questions"), ("right", "right"),
        ("refused", "refused"), ("wrong", "wrong"), ("right_rate", "right %"),
        ("plan_valid", "valid plans"), ("llm_rate", "LLM called %"), ("median_s", "median s"),
    ]  # fmt: skip
    total = rows[-1]
    extra = (
        f"Overall: {total['right']}/{total['questions']} right ({total['right_rate']}%), "
        f"{total['refused']} refused, {total['wrong']} wrong; plans valid {total['plan_valid']}; "
        f"median {total['median_s']} s per question. Wording set: {wording}. A refused question "
        "of an unsupported kind counts as right; any other refusal as refused."
    )
    if report.get("replay_of"):
        extra += (
            f" A replay of {report['replay_of']} (run {report['replayed_run_date']}): the same "
            "questions through this engine, each LLM plan that run recorded given again "
            "instead of asking the LLM (no LLM loaded; a question whose LLM call that run did "
            "not record cannot be planned and is refused)."
        )
    if cold:
        extra += (
            f" Cold process (`causalqa ask` started afresh, {len(cold)} questions of the first "
            f"model, one per kind): median {statistics.median([c['wall'] for c in cold]):.2f} s wall "
            f"(max {max(c['wall'] for c in cold):.2f} s), median {statistics.median([c['cpu'] for c in cold]):.2f} s "
            f"of CPU; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores."
        )
    png = _plot_open(rows[:-1], out_dir / "qa-open-latest.png")
    if png is not None:
        extra += f"\n\n![right/refused/wrong per kind]({png.name})"
    markdown = table_markdown("qa-open", report, columns_md, extra=extra)
    write_report(out_dir, "qa-open", report, markdown)
    report["markdown"] = markdown
    return report


class RecordedPlanner:
    """Stands in for the LLM planner in a replay: gives the plan a stored run recorded for
    the question being asked (`expect`), and fails as a planner that cannot plan when that
    run recorded none (the question was answered without the LLM then)."""

    cues = True
    max_steps = 1

    def __init__(self) -> None:
        self.recorded: dict[str, Any] | None = None
        self.given = False
        """Whether the recorded plan was asked for since `expect`."""

    def expect(self, plan: dict[str, Any] | None) -> None:
        self.recorded, self.given = plan, False

    def _give(self, *_args: Any, **_kwargs: Any):
        from causalqa.errors import PlanError
        from causalqa.qa.planner import PlanResult

        if self.recorded is None:
            raise PlanError("the replayed run recorded no LLM plan for this question")
        self.given = True
        return PlanResult(self.recorded)

    plan = _give
    plan_open = _give


def replay_open_bench(
    run_path: Path, *, out_dir: Path = Path("bench/results"), console=None
) -> dict[str, Any]:
    """Ask every question of a stored `bench qa-open` run again through this engine,
    giving each LLM plan that run recorded instead of asking an LLM: what a change to the
    frames, the check or the tools does to the same questions, in seconds and without the
    LLM's variance. Writes the usual report (``qa-open-latest.*`` under `out_dir`)."""
    import json

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from causalqa.llm.base import LLM
    from causalqa.qa.assistant import Assistant

    class NoLLM(LLM):
        """The LLM of a replay: the recorded plans stand in for every call, so any other
        call is a clear error, not a model loaded behind the user's back."""

        backend = "recorded"
        model = "plans"

        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            raise CausalQAError("a replay asks no LLM: the engine asked for a reply")

        def _score_labels(self, *args: Any, **kwargs: Any) -> Any:
            raise CausalQAError("a replay asks no LLM: the engine asked for label scores")

    try:
        run = json.loads(Path(run_path).read_text(encoding="utf-8"))
        stored = run["outcomes"]
        wording = run["wording"]
        if run.get("benchmark") != "qa-open" or not isinstance(stored, list):
            raise KeyError("benchmark")
    except FileNotFoundError:
        raise CausalQAError(f"no such run file: {run_path}") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise CausalQAError(
            f"{run_path} is not the JSON of a `bench qa-open` run",
            hint="give a qa-open-*.json written by causalqa bench qa-open",
        ) from None
    llm = NoLLM()
    engines: dict[tuple[str, int], tuple[CausalModel, dict[str, OpenItem], Any]] = {}
    outcomes, unmatched = [], 0
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("replaying", total=len(stored))
        for old in stored:
            key = (old["size"], int(old["seed"]))
            if key not in engines:
                model = open_model(*key)
                items = generate_open_questions(model, seed=key[1], wording=wording)
                assistant = Assistant(model, llm)
                assistant.planner = RecordedPlanner()
                engines[key] = (model, {i.question: i for i in items}, assistant)
            model, items, assistant = engines[key]
            item = items.get(old["question"])
            progress.advance(task)
            if item is None:
                unmatched += 1  # a wording set edited since the run
                continue
            assistant.planner.expect(old["plan"] if old.get("llm_called") else None)
            assistant.reset()
            start = time.perf_counter()
            answer = assistant.ask(item.question)
            outcome = _open_outcome(
                item, key[0], key[1], model, answer, time.perf_counter() - start
            )
            # an LLM plan was used (the recorded one): so a replay of this replay gives it again
            outcome["llm_called"] = assistant.planner.given
            outcomes.append(outcome)
    if not outcomes:
        raise CausalQAError(
            f"none of the {len(stored)} questions of {run_path} is in today's wording set "
            f"{wording!r}"
        )
    report = {
        "benchmark": "qa-open",
        "llm": f"{run.get('llm', '?')} (recorded plans)",
        "wording": wording,
        "sizes": run.get("sizes"),
        "seeds": run.get("seeds"),
        "replay_of": str(run_path),
        "replayed_run_date": (run.get("environment") or {}).get("date", "?"),
        "unmatched_questions": unmatched,
    }
    return _open_report(report, outcomes, [], out_dir)


def _cold_process_seconds(
    model: CausalModel, items: list[OpenItem], llm_spec: str | None, n: int
) -> list[float]:
    """Wall seconds of `causalqa ask` in a fresh process for the first question of up to `n`
    kinds: imports, loading the model files (and the LLM, when the question needs it); and
    the CPU seconds it used, which other work on a shared machine does not inflate."""
    import resource
    import subprocess
    import sys
    import tempfile

    seen: set[str] = set()
    chosen = [i for i in items if not (i.kind in seen or seen.add(i.kind))][:n]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        model.save(tmp)
        for item in chosen:
            cmd = [sys.executable, "-m", "causalqa.cli", "ask", item.question, "--graph",
                   f"{tmp}/graph.graphml", "--effects", f"{tmp}/effects.csv", "--json"]  # fmt: skip
            if llm_spec:
                cmd[3:3] = ["--llm", llm_spec]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            out.append({"wall": round(wall, 2), "cpu": round(cpu, 2)})
    return out


def _open_rows(outcomes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for o in outcomes:
        groups.setdefault((o["kind"], o["family"]), []).append(o)
    order = {k.name: i for i, k in enumerate(KINDS)}
    rows = [
        _row(kind, family, group)
        for (kind, family), group in sorted(groups.items(), key=lambda kv: order[kv[0][0]])
    ]
    rows.append(_row("all", "all", outcomes))
    return rows


def _row(kind: str, family: str, group: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(group)
    grades = [o["grade"] for o in group]
    plans = [o["plan_valid"] for o in group if o["plan_valid"] is not None]
    seconds = sorted(o["seconds"] for o in group)
    return {
        "kind": kind,
        "family": family,
        "questions": n,
        "right": grades.count("right"),
        "refused": grades.count("refused"),
        "wrong": grades.count("wrong"),
        "right_rate": round(100 * grades.count("right") / n, 1) if n else None,
        "plan_valid": f"{sum(plans)}/{len(plans)}",
        "llm_rate": round(100 * sum(o["llm_called"] for o in group) / n, 1) if n else None,
        "median_s": round(seconds[len(seconds) // 2], 2) if seconds else None,
    }


def _plot_open(rows: list[dict[str, Any]], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        return None
    kinds = [r["kind"] for r in rows]
    fig, ax = plt.subplots(figsize=(10, max(4, 0.3 * len(kinds))))
    left = np.zeros(len(kinds))
    for key, colour in (("right", "#2e7d32"), ("refused", "#f9a825"), ("wrong", "#c62828")):
        values = np.array([r[key] / max(r["questions"], 1) for r in rows])
        ax.barh(kinds, values, left=left, color=colour, label=key)
        left += values
    ax.invert_yaxis()
    ax.set_xlabel("share of questions")
    ax.set_title("Open questions: right / refused / wrong per kind")
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
