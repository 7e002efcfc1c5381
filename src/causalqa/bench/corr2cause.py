"""A Corr2Cause-style generator and benchmark for stated (in)dependences → what follows.

No data set is given (Corr2Cause's released data is held out), so this module makes one,
the way the paper did (Jin et al., ICLR 2024, §3): DAGs over 2–6 variables, their
d-separation statements (networkx's `is_d_separator`) rendered as a premise about a
closed system, claims of every kind for every ordered pair of variables, each labelled
"yes" iff it holds in every DAG with exactly those independences.

- **DAGs.** All labelled DAGs for 2–4 variables (3, 25 and 543), grouped by their
  independence sets: every Markov equivalence class over 2–4 labelled variables is one
  premise (2, 11 and 185). For 5 and 6 variables a seeded sample (`samples_per_size` per
  size): a random variable order, each forward pair an edge with probability ½; samples
  with the same independence set are one premise.
- **Labels** come from brute force, not from the answering code (no PC, no CPDAG, no
  Meek rules, no bit masks): the DAGs whose d-separations (networkx) are exactly the
  premise's independences, and the relations checked on each (`label_relation`). Up to
  `FULL_ENUMERATION_MAX` variables every labelled DAG over the variables is tried. Beyond,
  only the acyclic orientations of the premise's skeleton — the pairs it never states
  independent — are tried: a DAG has exactly the stated independences only if it has that
  skeleton (adjacent variables are d-connected given any set; non-adjacent ones are
  d-separated by the parents of the later one). The tests check the two give the same
  classes wherever both run.
- **Wordings.** Premises and claims use the paper's sentences; a share of them
  (`reword_share`) use other wordings (`DEPENDENT_WORDINGS`, `CLAIM_WORDINGS`, …) and a
  share real variable names (`REAL_NAMES`) instead of letters. These wordings were written
  by the author of the reader, so they show breadth, not independence.

`run_corr2cause_bench` answers every item with `answer_independence_claim` from its text
alone and reports accuracy and positive-class F1 per claim kind, per number of
variables and per wording, seconds per item, and the class balance, beside the published
anchors (measured on the official Corr2Cause test set, not on this generator).

    >>> items = generate_items(sizes=(3,), samples_per_size=0, seed=0)
    >>> len(items), sorted({i.kind for i in items})[:2]
    (396, ['Has-Collider', 'Has-Confounder'])
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

import networkx as nx

from causalqa.bench.report import document, markdown_table, write_report
from causalqa.metrics import binary_scores

KINDS = (
    "Is-Parent",
    "Is-Child",
    "Is-Ancestor",
    "Is-Descendant",
    "Has-Collider",
    "Has-Confounder",
)
FULL_ENUMERATION_MAX = 4
DEFAULT_SIZES = (2, 3, 4, 5, 6)

# Corr2Cause's published anchors (Jin et al., ICLR 2024): F1 of the positive class on the
# official test set — not on this generator — as issue 36 cites them (two digits).
PUBLISHED_ANCHORS = {
    "GPT-4": {"f1": 29.0},
    "random (uniform)": {"f1": 20.0},
}

# The paper's wording (§3.3) …
PAPER_CLAIMS = {
    "Is-Parent": "{a} directly causes {b}.",
    "Is-Child": "{b} directly causes {a}.",
    "Is-Ancestor": "{a} causes something else which causes {b}.",
    "Is-Descendant": "{b} is a cause for {a}, but not a direct one.",
    "Has-Collider": "There exists at least one collider (i.e., common effect) of {a} and {b}.",
    "Has-Confounder": "There exists at least one confounder (i.e., common cause) of {a} and {b}.",
}
# … and others, each meaning exactly the same relation between a and b.
CLAIM_WORDINGS = {
    "Is-Parent": (
        "{a} is a direct cause of {b}.",
        "{b} is directly caused by {a}.",
        "Does {a} directly cause {b}?",
        "{a} has a direct causal effect on {b}.",
    ),
    "Is-Child": (
        "{a} is directly caused by {b}.",
        "Is {b} a direct cause of {a}?",
        "{a} is a child of {b}.",
        "{b} directly influences {a}.",
    ),
    "Is-Ancestor": (
        "{a} affects {b} only through other variables.",
        "{a} is an indirect cause of {b}.",
        "Does {a} cause {b} only indirectly?",
        "{a} causes {b} indirectly.",
    ),
    "Is-Descendant": (
        "{a} is an indirect effect of {b}.",
        "{a} is only indirectly caused by {b}.",
        "{b} influences {a} only through other variables.",
    ),
    "Has-Collider": (
        "{a} and {b} have a common effect.",
        "Is there a collider of {a} and {b}?",
        "{a} and {b} share at least one common effect.",
        "Some other variable is caused by both {a} and {b}.",
    ),
    "Has-Confounder": (
        "{a} and {b} have a common cause.",
        "Do {a} and {b} share a common cause?",
        "Some other variable causes both {a} and {b}.",
        "{a} and {b} are confounded.",
    ),
}
PAPER_HEADER = (
    "Suppose there is a closed system of {n} variables, {names}. All the statistical "
    "relations among these {n} variables are as follows:"
)
HEADER_WORDINGS = (
    "Consider a closed system with the variables {names}. The statistical relations among "
    "them are the following:",
    "There are {n} variables in a closed system: {names}. We know all their statistical relations:",
    "Suppose there is a closed system of {n} variables, {names}. All the statistical "
    "relations among these {n} variables are as follows:",
)
DEPENDENT_WORDINGS = (
    "{x} and {y} are correlated.",
    "{x} is associated with {y}.",
    "{x} is statistically dependent on {y}.",
    "There is a correlation between {x} and {y}.",
    "{x} and {y} are not independent.",
)
MARGINAL_INDEPENDENT_WORDINGS = (
    "{x} and {y} are independent.",
    "{x} is uncorrelated with {y}.",
    "There is no correlation between {x} and {y}.",
    "{x} ⫫ {y}.",
    "{x} and {y} are statistically independent of each other.",
)
CONDITIONAL_INDEPENDENT_WORDINGS = (
    "{x} is independent of {y} given {z}.",
    "{x} and {y} are conditionally independent given {z}.",
    "{x} ⫫ {y} | {zs}.",
    "Given {z}, {x} and {y} are independent.",
    "{x} and {y} are independent once {z} {be} known.",
    "{x} is uncorrelated with {y} when controlling for {z}.",
)
# Variable names with spaces and shared words, none a phrase the reader keys on.
REAL_NAMES = (
    "smoking", "tar deposits", "lung cancer", "air pollution", "asthma", "exercise",
    "blood pressure", "income", "education", "coffee intake", "sleep quality", "stress",
    "rainfall", "crop yield", "fertilizer use", "soil moisture", "ad spending", "sales",
    "temperature", "ice cream sales", "drowning incidents", "age", "salary", "job satisfaction",
)  # fmt: skip


@dataclass(frozen=True)
class Item:
    """One generated question: a premise, a claim of `kind` about (a, b), and its label."""

    id: str
    n: int
    premise: str
    claim: str
    kind: str
    a: str
    b: str
    label: bool
    reworded_premise: bool
    reworded_claim: bool
    real_names: bool
    class_size: int


# -- DAGs and their independences (networkx, independent of causalqa.stated) ------------------
def all_dags(n: int) -> list[nx.DiGraph]:
    """Every labelled DAG over the nodes 0 … n-1 (each pair: no edge, or one direction)."""
    pairs = list(itertools.combinations(range(n), 2))
    dags = []
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):
        graph = nx.DiGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from((i, j) if c == 1 else (j, i) for (i, j), c in zip(pairs, choice) if c)
        if nx.is_directed_acyclic_graph(graph):
            dags.append(graph)
    return dags


def independences(graph: nx.DiGraph) -> frozenset[tuple[int, int, frozenset[int]]]:
    """Every ``(x, y, Z)`` with x < y that `graph` d-separates."""
    nodes = sorted(graph)
    found = []
    for x, y in itertools.combinations(nodes, 2):
        rest = [v for v in nodes if v not in (x, y)]
        for size in range(len(rest) + 1):
            for given in itertools.combinations(rest, size):
                if nx.is_d_separator(graph, {x}, {y}, set(given)):
                    found.append((x, y, frozenset(given)))
    return frozenset(found)


@cache
def _classes_by_independences(n: int) -> dict[frozenset, tuple[nx.DiGraph, ...]]:
    grouped: dict[frozenset, list[nx.DiGraph]] = defaultdict(list)
    for graph in all_dags(n):
        grouped[independences(graph)].append(graph)
    return {k: tuple(v) for k, v in grouped.items()}


def brute_force_class_all(n: int, stated: frozenset) -> list[nx.DiGraph]:
    """Every labelled DAG over n nodes whose independences are exactly `stated`."""
    return list(_classes_by_independences(n).get(stated, ()))


def brute_force_class_skeleton(n: int, stated: frozenset) -> list[nx.DiGraph]:
    """The same class, trying only the acyclic orientations of the pairs `stated` never
    separates (a DAG with exactly `stated` has that skeleton: see the module doc)."""
    separated = {(x, y) for x, y, _ in stated}
    skeleton = [p for p in itertools.combinations(range(n), 2) if p not in separated]
    wanted = {(x, y): {z for a, b, z in stated if (a, b) == (x, y)} for x, y in separated}
    found = []
    for flips in itertools.product((False, True), repeat=len(skeleton)):
        graph = nx.DiGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from((j, i) if f else (i, j) for (i, j), f in zip(skeleton, flips))
        if not nx.is_directed_acyclic_graph(graph):
            continue
        if all(_separating_sets(graph, x, y, n) == sets for (x, y), sets in wanted.items()):
            found.append(graph)
    return found


def _separating_sets(graph: nx.DiGraph, x: int, y: int, n: int) -> set[frozenset[int]]:
    rest = [v for v in range(n) if v not in (x, y)]
    return {
        frozenset(given)
        for size in range(len(rest) + 1)
        for given in itertools.combinations(rest, size)
        if nx.is_d_separator(graph, {x}, {y}, set(given))
    }


def brute_force_class(n: int, stated: frozenset) -> list[nx.DiGraph]:
    if n <= FULL_ENUMERATION_MAX:
        return brute_force_class_all(n, stated)
    return brute_force_class_skeleton(n, stated)


def label_relation(graph: nx.DiGraph, kind: str, a: int, b: int) -> bool:
    """The Corr2Cause relations (§3 of the paper), in networkx terms, written apart from
    `causalqa.stated.independence_graph` so the labels check it."""
    others = [c for c in graph if c not in (a, b)]
    if kind == "Is-Parent":
        return graph.has_edge(a, b)
    if kind == "Is-Child":
        return graph.has_edge(b, a)
    if kind == "Is-Ancestor":
        return nx.has_path(graph, a, b) and not graph.has_edge(a, b)
    if kind == "Is-Descendant":
        return nx.has_path(graph, b, a) and not graph.has_edge(b, a)
    if kind == "Has-Collider":
        return any(graph.has_edge(a, c) and graph.has_edge(b, c) for c in others)
    if kind == "Has-Confounder":
        return any(graph.has_edge(c, a) and graph.has_edge(c, b) for c in others)
    raise ValueError(f"unknown claim kind {kind!r}")


def sample_dag(n: int, rng: random.Random, edge_probability: float = 0.5) -> nx.DiGraph:
    order = list(range(n))
    rng.shuffle(order)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    for i, j in itertools.combinations(range(n), 2):
        if rng.random() < edge_probability:
            graph.add_edge(order[i], order[j])
    return graph


# -- rendering ---------------------------------------------------------------------------------
def _name_list(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def render_premise(
    names: Sequence[str], stated: frozenset, rng: random.Random | None = None
) -> str:
    """The premise of a closed system with exactly the independences `stated`: the
    paper's wording, or (with `rng`) a header and each sentence in a random other one."""
    n = len(names)
    header = rng.choice(HEADER_WORDINGS) if rng else PAPER_HEADER
    sentences = [header.format(n=n, names=_name_list(names))]
    marginal = {(x, y) for x, y, z in stated if not z}
    for x, y in itertools.combinations(range(n), 2):
        if (x, y) not in marginal:
            wording = rng.choice(DEPENDENT_WORDINGS) if rng else "{x} correlates with {y}."
            sentences.append(wording.format(x=names[x], y=names[y]))
    ordered = sorted(stated, key=lambda s: (s[0], s[1], len(s[2]), sorted(s[2])))
    for k, (x, y, given) in enumerate(ordered):
        z_names = [names[i] for i in sorted(given)]
        if not given:
            wording = (
                rng.choice(MARGINAL_INDEPENDENT_WORDINGS) if rng else "{x} is independent of {y}."
            )
        else:
            wording = (
                rng.choice(CONDITIONAL_INDEPENDENT_WORDINGS)
                if rng
                else "{x} and {y} are independent given {z}."
            )
        text = wording.format(
            x=names[x],
            y=names[y],
            z=_name_list(z_names),
            zs=", ".join(z_names),
            be="is" if len(z_names) == 1 else "are",
        )
        if k == 0 and len(sentences) > 1:
            # The paper turns to the independences with "However,".
            if not any(text.startswith(name) for name in names):
                text = text[0].lower() + text[1:]
            text = "However, " + text
        sentences.append(text)
    return " ".join(t[0].upper() + t[1:] for t in sentences)


def render_claim(kind: str, a: str, b: str, rng: random.Random | None = None) -> str:
    wording = rng.choice(CLAIM_WORDINGS[kind]) if rng else PAPER_CLAIMS[kind]
    text = wording.format(a=a, b=b)
    return text[0].upper() + text[1:]


# -- the generator -----------------------------------------------------------------------------
def generate_premises(
    sizes: Iterable[int] = DEFAULT_SIZES, samples_per_size: int = 150, seed: int = 0
) -> list[tuple[int, frozenset, nx.DiGraph]]:
    """``(n, independences, one DAG with them)`` for every class over n ≤
    `FULL_ENUMERATION_MAX` labelled variables and up to `samples_per_size` distinct sampled
    classes for larger n."""
    rng = random.Random(seed)
    premises = []
    for n in sizes:
        if n <= FULL_ENUMERATION_MAX:
            for stated, graphs in sorted(
                _classes_by_independences(n).items(), key=lambda kv: sorted(kv[1][0].edges)
            ):
                premises.append((n, stated, graphs[0]))
            continue
        seen: set[frozenset] = set()
        attempts = 0
        while len(seen) < samples_per_size and attempts < 50 * max(samples_per_size, 1):
            attempts += 1
            graph = sample_dag(n, rng)
            stated = independences(graph)
            if stated not in seen:
                seen.add(stated)
                premises.append((n, stated, graph))
    return premises


def generate_items(
    sizes: Iterable[int] = DEFAULT_SIZES,
    samples_per_size: int = 150,
    *,
    seed: int = 0,
    reword_share: float = 0.25,
    real_name_share: float = 0.2,
    pairs_per_premise: int | None = None,
) -> list[Item]:
    """The benchmark's items: for each premise, every claim kind for every ordered pair
    (or `pairs_per_premise` sampled pairs), labelled by brute force."""
    rng = random.Random(seed)
    items: list[Item] = []
    for p_index, (n, stated, truth) in enumerate(generate_premises(sizes, samples_per_size, seed)):
        members = brute_force_class(n, stated)
        if not any(nx.utils.graphs_equal(truth, m) for m in members):
            raise AssertionError(f"brute force lost the generating DAG {sorted(truth.edges)}")
        real = rng.random() < real_name_share
        names = rng.sample(REAL_NAMES, n) if real else [chr(ord("A") + i) for i in range(n)]
        reword = rng.random() < reword_share
        premise = render_premise(names, stated, rng if reword else None)
        pairs = list(itertools.permutations(range(n), 2))
        if pairs_per_premise is not None and pairs_per_premise < len(pairs):
            pairs = rng.sample(pairs, pairs_per_premise)
        for a, b in pairs:
            for kind in KINDS:
                reword_claim = rng.random() < reword_share
                label = all(label_relation(m, kind, a, b) for m in members)
                items.append(
                    Item(
                        id=f"n{n}-p{p_index}-{names[a]}-{names[b]}-{kind}",
                        n=n,
                        premise=premise,
                        claim=render_claim(kind, names[a], names[b], rng if reword_claim else None),
                        kind=kind,
                        a=names[a],
                        b=names[b],
                        label=label,
                        reworded_premise=reword,
                        reworded_claim=reword_claim,
                        real_names=real,
                        class_size=len(members),
                    )
                )
    return items


def sample_for_batch(items: Sequence[Item], per_kind: int, seed: int = 0) -> list[dict[str, Any]]:
    """`per_kind` items of each claim kind, half with the answer "yes" where there are
    enough, as lines for ``causalqa ask --batch`` (``id``, ``story``, ``question``) with
    the expected answer beside them."""
    rng = random.Random(seed)
    chosen: list[Item] = []
    for kind in KINDS:
        for label, count in ((True, (per_kind + 1) // 2), (False, per_kind // 2)):
            pool = [i for i in items if i.kind == kind and i.label is label]
            chosen += rng.sample(pool, min(len(pool), count))
    rng.shuffle(chosen)
    return [
        {
            "id": i.id,
            "story": i.premise,
            "question": i.claim,
            "expected": "yes" if i.label else "no",
            "kind": i.kind,
            "n": i.n,
        }
        for i in chosen
    ]


# -- the benchmark ----------------------------------------------------------------------------
def _scores(rows: list[dict[str, Any]]) -> dict[str, Any]:
    gold = [r["label"] for r in rows]
    pred = [r["answer"] == "yes" for r in rows]
    scores = binary_scores(pred, gold)
    correct = sum((r["answer"] == "yes") == r["label"] and r["answer"] is not None for r in rows)
    undefined = not any(gold) and not any(pred)
    return {
        "items": len(rows),
        "positives": sum(gold),
        "positive_share": round(100 * sum(gold) / len(rows), 2) if rows else 0.0,
        "accuracy": round(100 * correct / len(rows), 2) if rows else 0.0,
        # No item is "yes" and none was answered "yes": F1, precision and recall are 0/0.
        "f1": None if undefined else scores["f1"],
        "precision": None if undefined else scores["precision"],
        "recall": None if undefined else scores["recall"],
        "refused": sum(r["answer"] is None for r in rows),
    }


def run_corr2cause_bench(
    out_dir: Path,
    *,
    sizes: Sequence[int] = DEFAULT_SIZES,
    samples_per_size: int = 150,
    pairs_per_premise: int | None = None,
    seed: int = 0,
    reword_share: float = 0.25,
    real_name_share: float = 0.2,
    quick: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Generate the items, answer each from its text with `answer_independence_claim`,
    and write ``corr2cause-<stamp>.{json,md}`` (+ ``-latest``) and, with matplotlib, a PNG
    of F1 per claim kind under `out_dir`. `quick`: 20 samples per size, 4 pairs each.
    Returns the report (with its Markdown under ``"markdown"``)."""
    from causalqa.stated.independence import (
        answer_independence_claim,
        equivalence_class,
        read_premise,
    )

    if quick:
        samples_per_size, pairs_per_premise = min(samples_per_size, 20), 4
    t0 = time.perf_counter()
    items = generate_items(
        sizes,
        samples_per_size,
        seed=seed,
        reword_share=reword_share,
        real_name_share=real_name_share,
        pairs_per_premise=pairs_per_premise,
    )
    generate_seconds = time.perf_counter() - t0

    # The class sizes the answering code finds against the brute-force ones, per premise.
    size_checks = {}
    premises_per_size: Counter[int] = Counter()
    for item in items:
        if item.premise not in size_checks:
            premises_per_size[item.n] += 1
            try:
                found = len(equivalence_class(read_premise(item.premise)).members)
            except Exception as error:  # noqa: BLE001 - recorded as a disagreement
                found = f"error: {error}"
            size_checks[item.premise] = (found, item.class_size)
    class_size_agreement = sum(f == b for f, b in size_checks.values())

    rows = []
    for k, item in enumerate(items):
        answer = answer_independence_claim(item.premise, item.claim)
        rows.append(
            {
                **asdict(item),
                "answer": answer.answer,
                "reason": answer.reason,
                "seconds": answer.seconds,
            }
        )
        if progress and k % 2000 == 0:
            print(f"{k}/{len(items)}", file=sys.stderr, flush=True)

    seconds = [r["seconds"] for r in rows]
    by_kind = [{"group": kind, **_scores([r for r in rows if r["kind"] == kind])} for kind in KINDS]
    by_n = [
        {"group": f"{n} variables", **_scores([r for r in rows if r["n"] == n])}
        for n in sorted({r["n"] for r in rows})
    ]
    by_wording = [
        {"group": name, **_scores([r for r in rows if keep(r)])}
        for name, keep in (
            ("paper's wording", lambda r: not r["reworded_premise"] and not r["reworded_claim"]),
            ("reworded premise", lambda r: r["reworded_premise"]),
            ("reworded claim", lambda r: r["reworded_claim"]),
            ("real variable names", lambda r: r["real_names"]),
        )
    ]
    wrong = [r for r in rows if r["answer"] is None or (r["answer"] == "yes") != r["label"]]
    report: dict[str, Any] = {
        "benchmark": "corr2cause (generated)",
        "seed": seed,
        "quick": quick,
        "settings": {
            "sizes": list(sizes),
            "samples_per_size": samples_per_size,
            "pairs_per_premise": pairs_per_premise,
            "reword_share": reword_share,
            "real_name_share": real_name_share,
            "full_enumeration_max": FULL_ENUMERATION_MAX,
        },
        "premises": len(size_checks),
        "premises_per_size": {str(n): c for n, c in sorted(premises_per_size.items())},
        "class_size_agreement": f"{class_size_agreement}/{len(size_checks)}",
        "overall": _scores(rows),
        "by_kind": by_kind,
        "by_variables": by_n,
        "by_wording": by_wording,
        "seconds_per_item": {
            "mean": round(statistics.fmean(seconds), 5),
            "median": round(statistics.median(seconds), 5),
            "max": round(max(seconds), 5),
        },
        "generate_seconds": round(generate_seconds, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "published_anchors": PUBLISHED_ANCHORS,
        "wrong": wrong[:50],
        "wrong_count": len(wrong),
    }
    body = _markdown(report)
    figure = _plot(report, out_dir / "corr2cause-f1.png")
    if figure is not None:
        body += f"\n\n![F1 per claim kind]({figure.name})\n"
    title = "causalqa bench stated: Corr2Cause-style generator" + (" (quick)" if quick else "")
    markdown = document(title, report, body)
    write_report(out_dir, "corr2cause", report, markdown)
    report["markdown"] = markdown
    return report


_COLUMNS = [
    ("group", ""),
    ("items", "items"),
    ("positive_share", "positives %"),
    ("accuracy", "accuracy %"),
    ("f1", "F1 (yes) %"),
    ("precision", "precision %"),
    ("recall", "recall %"),
    ("refused", "refused"),
]


def _markdown(report: dict[str, Any]) -> str:
    overall = report["overall"]
    s = report["settings"]
    sec = report["seconds_per_item"]
    lines = [
        f"- seed {report['seed']}; sizes {s['sizes']}; all labelled classes up to "
        f"{s['full_enumeration_max']} variables, {s['samples_per_size']} sampled per larger size; "
        f"pairs per premise: {s['pairs_per_premise'] or 'all'}; reworded share "
        f"{s['reword_share']}, real-name share {s['real_name_share']}",
        *(
            [f"- load average (1, 5, 15 min) at the end of the run: {report['load_average']}"]
            if "load_average" in report
            else []
        ),
        f"- {report['premises']} premises ({report['premises_per_size']} per number of "
        f"variables), {overall['items']} items; class sizes of the answering code equal the "
        f"brute-force ones on {report['class_size_agreement']} premises",
        "",
        "| | items | positives % | accuracy % | F1 (yes) % | refused "
        "| s / item (mean, median, max) |",
        "|---|---|---|---|---|---|---|",
        f"| this generator | {overall['items']} | {overall['positive_share']} | "
        f"{overall['accuracy']} | {overall['f1']} | {overall['refused']} | "
        f"{sec['mean']}, {sec['median']}, {sec['max']} |",
    ]
    for name, anchor in report["published_anchors"].items():
        lines.append(f"| {name} (official Corr2Cause test set) | | | | {anchor['f1']} | | |")
    lines += [
        "",
        "The published anchors were measured on the official Corr2Cause test set, not on this "
        "generator; they are beside ours for scale only. Labels here come from brute-force "
        "enumeration of DAGs (networkx d-separation), not from the answering code.",
        "",
        'F1, precision and recall are blank where a group has no "yes" item and no '
        '"yes" answer (0/0).',
        "",
        "## Per claim kind",
        "",
        markdown_table(report["by_kind"], _COLUMNS),
        "",
        "## Per number of variables",
        "",
        markdown_table(report["by_variables"], _COLUMNS),
        "",
        "## Per wording",
        "",
        markdown_table(report["by_wording"], _COLUMNS),
        "",
        f"Wrong or refused: {report['wrong_count']}",
    ]
    for r in report["wrong"][:10]:
        lines.append(
            f"- `{r['id']}`: gold {'yes' if r['label'] else 'no'}, answer "
            f"{r['answer']} {('— ' + r['reason']) if r['reason'] else ''}"
        )
    return "\n".join(lines)


def _plot(report: dict[str, Any], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    kinds = [r["group"] for r in report["by_kind"]]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    # An undefined F1 (a kind with no "yes" item in a small run) is drawn as no bar.
    ax.bar(
        kinds,
        [r["f1"] or 0.0 for r in report["by_kind"]],
        color="#4c72b0",
        label="causalqa (generator)",
    )
    for (name, anchor), style in zip(report["published_anchors"].items(), ("--", ":")):
        ax.axhline(anchor["f1"], linestyle=style, color="gray", label=f"{name} (official set)")
    ax.set_ylabel("F1 of 'yes' (%)")
    ax.set_ylim(0, 105)
    ax.legend(loc="lower right", fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m causalqa.bench.corr2cause",
        description="Corr2Cause-style generated benchmark for stated (in)dependences.",
    )
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    parser.add_argument("--samples-per-size", type=int, default=150)
    parser.add_argument("--pairs-per-premise", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--sample",
        type=Path,
        default=None,
        help="only write a JSONL sample for `causalqa ask --batch` (10 items per kind) here",
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.sample is not None:
        items = generate_items(sizes, args.samples_per_size, seed=args.seed)
        lines = sample_for_batch(items, per_kind=10, seed=args.seed)
        args.sample.parent.mkdir(parents=True, exist_ok=True)
        args.sample.write_text(
            "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
            encoding="utf-8",
        )
        print(f"wrote {len(lines)} items to {args.sample}")
        return 0
    report = run_corr2cause_bench(
        args.out,
        sizes=sizes,
        samples_per_size=args.samples_per_size,
        pairs_per_premise=args.pairs_per_premise,
        seed=args.seed,
        quick=args.quick,
        progress=not args.json,
    )
    markdown = report.pop("markdown")
    print(json.dumps(report, indent=2, default=str) if args.json else markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
