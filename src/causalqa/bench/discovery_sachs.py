"""The SACHS protein-signalling benchmark (paper 001, Table 3).

Data (``<data dir>/sachs``): ``cyto_full_data.csv`` — 7,466 rows × 11 proteins (all
experimental conditions pooled, as distributed with the Causal Discovery Toolbox);
reference graphs:

- ``cdt`` (default): ``cyto_full_target.csv``, the CDT consensus graph, (Cause, Effect)
  rows over the data's column names — 18 edges in the shared copy;
- ``bnlearn``: ``bnlearn_sachs.graph.txt``, bnlearn's 17-arc DAG over X1..X11. Its
  X-numbering is bnlearn's *alphabetical* node order (Akt, Erk, Jnk, Mek, P38, PIP2, PIP3,
  PKA, PKC, Plcg, Raf), not the CSV's column order: PKA (X8) and PKC (X9) are the hubs
  with 6 and 5 children, Mek → Erk is X4 → X2, Plcg → PIP3 → PIP2 is X10 → X7 → X6.
  `BNLEARN_ORDER` maps it onto the CSV's columns.

The paper's reference graph had 19 edges (its LLM rows' recalls are 3/19, 6/19, 8/19,
12/19), so its numbers are beside ours for orientation only. `PAPER_TABLE3` holds them;
they are the paper's, never recomputed here (some of its statistical rows are quoted from
Takayama et al. 2024).
"""

from __future__ import annotations

import csv
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causalqa import config
from causalqa.bench.published import published
from causalqa.discovery.graph import GraphDiscovery, discover_graph
from causalqa.discovery.statistical import BASELINES, LABELS, StatisticalResult, run_baseline
from causalqa.errors import CausalQAError, ConfigError, SachsDataError
from causalqa.metrics import graph_metrics

__all__ = [
    "BNLEARN_ORDER",
    "PAPER_TABLE3",
    "SachsBenchmark",
    "SachsData",
    "SachsDataError",
    "benchmark_sachs",
    "load_sachs",
    "read_bnlearn_graph",
    "read_edge_csv",
]

SACHS_COLUMNS = (
    "praf", "pmek", "plcg", "PIP2", "PIP3", "p44/42", "pakts473", "PKA", "PKC", "P38", "pjnk",
)  # fmt: skip
# bnlearn's X1..X11 (alphabetical node names) → the CSV's columns.
BNLEARN_ORDER = (
    "pakts473", "p44/42", "pjnk", "pmek", "P38", "PIP2", "PIP3", "PKA", "PKC", "plcg", "praf",
)  # fmt: skip

# Paper 001, Table 3: the paper's numbers, for side-by-side display only.
PAPER_TABLE3: list[dict[str, Any]] = published("001")["sachs"]["rows"]
_PAPER_BY_METHOD = {"pc": 0, "exact_search": 1, "direct_lingam": 2}

TRUTHS = ("cdt", "bnlearn")


@dataclass
class SachsData:
    """Observations and a reference graph over the same columns."""

    data: pd.DataFrame
    truth: np.ndarray
    names: list[str]
    truth_name: str
    source: str = ""

    def truth_edges(self) -> list[tuple[str, str]]:
        return [(self.names[i], self.names[j]) for i, j in zip(*np.nonzero(self.truth))]


def _adjacency(edges: Sequence[tuple[str, str]], names: Sequence[str]) -> np.ndarray:
    index = {n: i for i, n in enumerate(names)}
    adj = np.zeros((len(names), len(names)), dtype=int)
    for cause, effect in edges:
        adj[index[cause], index[effect]] = 1
    return adj


def read_edge_csv(path: str | os.PathLike[str], names: Sequence[str]) -> list[tuple[str, str]]:
    """Read a (Cause, Effect) CSV whose entries name columns in `names`."""
    p = Path(path)
    if not p.is_file():
        raise SachsDataError(f"{p}: no such file")
    edges: list[tuple[str, str]] = []
    with p.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise SachsDataError(f"{p}: the file is empty")
    header = [h.strip().lower() for h in rows[0]]
    if header[:2] != ["cause", "effect"]:
        raise SachsDataError(f"{p}: line 1: expected the header Cause,Effect, got {rows[0]}")
    known = set(names)
    for n, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) != 2:
            raise SachsDataError(f"{p}: line {n}: expected 2 fields, got {len(row)}")
        cause, effect = row[0].strip(), row[1].strip()
        for v in (cause, effect):
            if v not in known:
                raise SachsDataError(
                    f"{p}: line {n}: {v!r} is not a column of the data",
                    hint="columns are: " + ", ".join(names),
                )
        edges.append((cause, effect))
    if not edges:
        raise SachsDataError(f"{p}: no edge in the file")
    return edges


_ARC = re.compile(r"^\s*\d+\.\s*(\S+)\s*-->\s*(\S+)\s*$")


def read_bnlearn_graph(
    path: str | os.PathLike[str], names: Sequence[str] = BNLEARN_ORDER
) -> list[tuple[str, str]]:
    """Read a causal-learn/Tetrad graph text ("Graph Nodes:" / "Graph Edges:" / "1. A --> B")
    and rename its nodes, in their listed order, to `names`."""
    p = Path(path)
    if not p.is_file():
        raise SachsDataError(f"{p}: no such file")
    lines = p.read_text(encoding="utf-8").splitlines()
    try:
        at = next(i for i, line in enumerate(lines) if line.strip() == "Graph Nodes:")
    except StopIteration:
        raise SachsDataError(f"{p}: no 'Graph Nodes:' line") from None
    listed = lines[at + 1] if at + 1 < len(lines) else ""
    nodes = [x.strip() for x in listed.split(";") if x.strip()]
    if len(nodes) != len(names):
        raise SachsDataError(f"{p}: {len(nodes)} nodes, expected {len(names)}")
    rename = dict(zip(nodes, names))
    edges: list[tuple[str, str]] = []
    in_edges = False
    for n, line in enumerate(lines, start=1):
        if line.strip() == "Graph Edges:":
            in_edges = True
            continue
        if not in_edges or not line.strip():
            continue
        m = _ARC.match(line)
        if not m or m.group(1) not in rename or m.group(2) not in rename:
            raise SachsDataError(f"{p}: line {n}: expected 'k. A --> B' over listed nodes")
        edges.append((rename[m.group(1)], rename[m.group(2)]))
    if not edges:
        raise SachsDataError(f"{p}: no edge in the file")
    return edges


def load_sachs(root: str | os.PathLike[str] | None = None, *, truth: str = "cdt") -> SachsData:
    """Load the SACHS observations and a reference graph (``cdt`` or ``bnlearn``).

    `root` is the ``sachs`` folder (default ``<data dir>/sachs``). Raises `SachsDataError`
    naming the file when one is missing or malformed.
    """
    if truth not in TRUTHS:
        raise SachsDataError(f"unknown reference graph {truth!r}", hint="use cdt or bnlearn")
    folder = Path(root) if root is not None else config.data_dir() / "sachs"
    data_path = folder / "cyto_full_data.csv"
    if not data_path.is_file():
        raise SachsDataError(
            f"{data_path}: no such file",
            hint="pass the sachs folder (root=...) or set CAUSALQA_DATA_DIR",
        )
    try:
        df = pd.read_csv(data_path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise SachsDataError(f"{data_path}: not a readable CSV: {e}") from None
    if df.empty:
        raise SachsDataError(f"{data_path}: no rows")
    missing = [c for c in SACHS_COLUMNS if c not in df.columns]
    if missing:
        raise SachsDataError(f"{data_path}: missing columns {', '.join(missing)}")
    df = df[list(SACHS_COLUMNS)]
    bad = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])]
    if bad:
        raise SachsDataError(f"{data_path}: non-numeric columns {', '.join(bad)}")
    names = list(SACHS_COLUMNS)
    if truth == "cdt":
        edges = read_edge_csv(folder / "cyto_full_target.csv", names)
    else:
        edges = read_bnlearn_graph(folder / "bnlearn_sachs.graph.txt")
    return SachsData(df, _adjacency(edges, names), names, truth, str(folder))


@dataclass
class SachsBenchmark:
    """Measured rows (one per method) plus the paper's Table 3 for comparison."""

    rows: list[dict[str, Any]]
    truth: str
    n_rows: int
    truth_edges: int
    results: dict[str, StatisticalResult] = field(default_factory=dict)
    paper: list[dict[str, Any]] = field(default_factory=lambda: [dict(r) for r in PAPER_TABLE3])

    def to_dict(self) -> dict[str, Any]:
        return {
            "truth": self.truth,
            "rows_of_data": self.n_rows,
            "truth_edges": self.truth_edges,
            "rows": self.rows,
            "graphs": {k: v.to_dict() for k, v in self.results.items()},
            "paper_table3": self.paper,
        }

    def to_markdown(self) -> str:
        head = (
            "| method | P | R | F1 | SHD | HD | NHD | edges | seconds "
            "| paper P | paper R | paper F1 | paper HD | paper NHD |"
        )
        lines = [head, "|" + "---|" * 14]
        for r in self.rows:
            if "error" in r:
                lines.append(f"| {r['method']} | error: {r['error']} |" + " |" * 12)
                continue
            p = r.get("paper") or {}
            cells = [
                r["method"], r["precision"], r["recall"], r["f1"], r["shd"], r["hd"], r["nhd"],
                r["edges_predicted"], r["seconds"], p.get("precision", ""), p.get("recall", ""),
                p.get("f1", ""), p.get("hd", ""), p.get("nhd", ""),
            ]  # fmt: skip
            lines.append("| " + " | ".join(str(c) for c in cells) + " |")
        lines += [
            "",
            f"Reference graph: {self.truth} ({self.truth_edges} edges); {self.n_rows} rows. "
            "P/R/F1 in %, over directed edges; SHD counts a reversal once, HD twice; "
            "NHD = HD / n².",
            "",
            "Paper 001, Table 3 (the paper's numbers; reference graph of 19 edges):",
            "",
            "| method | kind | P | R | F1 | HD | NHD |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in self.paper:
            lines.append(
                f"| {r['method']} | {r['kind']} | {r['precision']:.2f} | {r['recall']:.2f} "
                f"| {r['f1']:.2f} | {r['hd']} | {r['nhd']:.3f} |"
            )
        return "\n".join(lines)


def benchmark_sachs(
    root: str | os.PathLike[str] | None = None,
    *,
    truth: str = "cdt",
    methods: Sequence[str] = tuple(BASELINES),
    seed: int = 0,
    on_progress: Callable[[str], None] | None = None,
) -> SachsBenchmark:
    """Run the statistical baselines on SACHS in one run and score each against the
    reference graph: precision, recall, F1 (%), SHD, HD, NHD, and seconds per method.

    A method that fails is reported as a row with ``error`` (the others still run).
    """
    unknown = [m for m in methods if m not in BASELINES]
    if unknown:
        raise SachsDataError(
            f"unknown methods {unknown}", hint=f"use any of: {', '.join(BASELINES)}"
        )
    sachs = load_sachs(root, truth=truth)
    rows: list[dict[str, Any]] = []
    results: dict[str, StatisticalResult] = {}
    for m in methods:
        if on_progress:
            on_progress(m)
        kwargs: dict[str, Any] = {"seed": seed} if m == "direct_lingam" else {}
        start = time.perf_counter()
        try:
            res = run_baseline(m, sachs.data, **kwargs)
        except CausalQAError as e:
            rows.append({"method": LABELS[m], "key": m, "error": e.message})
            continue
        seconds = time.perf_counter() - start
        results[m] = res
        paper = PAPER_TABLE3[_PAPER_BY_METHOD[m]]
        rows.append(
            {
                "method": LABELS[m],
                "key": m,
                **graph_metrics(res.adjacency, sachs.truth),
                "undirected_pairs": len(res.undirected),
                "seconds": round(seconds, 2),
                "paper": {k: paper[k] for k in ("precision", "recall", "f1", "hd", "nhd")},
            }
        )
    return SachsBenchmark(rows, truth, len(sachs.data), int(sachs.truth.sum()), results)


# -- ours: knowledge-based discovery on the same variables -----------------------------

# SACHS' CSV columns → the protein names of Sachs et al. 2005 (what the LLM reads).
SACHS_LABELS: dict[str, str] = {
    "praf": "Raf", "pmek": "Mek", "plcg": "PLCg", "PIP2": "PIP2", "PIP3": "PIP3",
    "p44/42": "Erk", "pakts473": "Akt", "PKA": "PKA", "PKC": "PKC", "P38": "P38",
    "pjnk": "Jnk",
}  # fmt: skip
# Protein → Hetionet gene symbols, tried in order (Erk = p44/42 = MAPK3/MAPK1; PKC and PKA
# are families: the classic catalytic isoforms PRKCA and PRKACA). PIP2/PIP3 are lipids.
SACHS_KG_NAMES: dict[str, tuple[str, ...]] = {
    "Raf": ("RAF1",), "Mek": ("MAP2K1", "MAP2K2"), "PLCg": ("PLCG1",), "PIP2": (),
    "PIP3": (), "Erk": ("MAPK3", "MAPK1"), "Akt": ("AKT1",), "PKA": ("PRKACA",),
    "PKC": ("PRKCA",), "P38": ("MAPK14",), "Jnk": ("MAPK8",),
}  # fmt: skip
SACHS_CONTEXT = (
    "Protein signalling in human primary CD4+ T cells: single-cell measurements of "
    "phosphorylated proteins and phospholipids (Sachs et al., 2005)."
)
"""Ours: the paper does not print the textual context it gave for SACHS."""


_PAPER_ROWS = {
    "none": "no-subgraph (LLM)",
    "xgboost": "Subgraph Ranker (XGBoost)",
    **{loss: f"Subgraph Ranker ({loss}-cross encoder)" for loss in ("rmse", "ranknet", "listnet")},
}


def benchmark_sachs_kg(
    *,
    kg,
    llm,
    rankers: Sequence[Any] = ("none", "similarity"),
    top_k: int = 1,
    context: str | None = SACHS_CONTEXT,
    truth: str = "cdt",
    methods: Sequence[str] | None = None,
    root=None,
    seed: int = 0,
    on_progress: Callable[[str], None] | None = None,
    calibrate: bool = True,
    decisions: Sequence[str] | None = None,
):
    """Table 3 in one run: the statistical baselines of `benchmark_sachs` plus one
    "ours" row per ranker — a name of `rankers.RANKERS` ("none" is the paper's no-subgraph
    LLM baseline) or a fitted `Ranker`. Returns the `SachsBenchmark` with the extra rows,
    and the discovered graphs by ranker name (a cross-encoder's by its loss). With
    `decisions` (names of `DECISIONS`), each ranker's answers give one row per rule
    (``content-free`` needs `calibrate`); by default one row, by `calibrate`."""
    bench = benchmark_sachs(
        root,
        truth=truth,
        methods=tuple(methods if methods is not None else BASELINES),
        seed=seed,
        on_progress=on_progress,
    )
    sachs = load_sachs(root, truth=truth)
    labels = [SACHS_LABELS[c] for c in sachs.names]
    paper = {r["method"]: r for r in PAPER_TABLE3}
    graphs: dict[str, GraphDiscovery] = {}
    for ranker in rankers:
        name = ranker if isinstance(ranker, str) else ranker.name.split("-")[0]

        def progress(done, total, what, name=name):
            if on_progress:
                on_progress(f"ours ({name}) {done}/{total}: {what}")

        g = discover_graph(
            labels,
            kg=kg,
            llm=llm,
            ranker=ranker,
            top_k=top_k,
            context=context,
            kg_names=SACHS_KG_NAMES,
            seed=seed,
            on_progress=progress,
            calibrate=calibrate,
        )
        g.ranker = name
        graphs[name] = g
        ref = paper.get(_PAPER_ROWS.get(name, ""))
        with_paths = sum(1 for v in g.verdicts if v.paths)
        label = (
            "ours: no-subgraph (LLM)"
            if name == "none"
            else f"ours: {name} ranker (LLM+KG, a path in {with_paths}/{len(g.verdicts)})"
            if with_paths
            else f"ours: {name} ranker (LLM only: no KG path for any pair)"
        )
        for decision in decisions or [None]:
            graph = g if decision is None else g.decided(decision)
            bench.rows.append(
                {
                    "method": label if decision is None else f"{label}, {decision} verdicts",
                    "key": f"ours-{name}" if decision is None else f"ours-{name}-{decision}",
                    **graph_metrics(graph.adjacency, sachs.truth),
                    "seconds": round(g.seconds, 2),
                    "model": getattr(llm, "model", ""),
                    "decision": decision or ("content-free" if calibrate else "argmax"),
                    "questions_with_paths": with_paths,
                    "questions": len(g.verdicts),
                    "paper": {k: ref[k] for k in ("precision", "recall", "f1", "hd", "nhd")}
                    if ref
                    else None,
                }
            )
    return bench, graphs


def sachs_report(
    bench: SachsBenchmark,
    graphs: dict[str, GraphDiscovery],
    *,
    name: str,
    note: str | None = None,
    **fields: Any,
) -> tuple[dict[str, Any], str]:
    """A SACHS run as a report (`fields` first, then the table's rows and our graphs) and
    its Markdown body titled ``causalqa bench discovery <name>``."""
    report = {**fields, **bench.to_dict()}
    md = bench.to_markdown()
    if graphs:
        report["ours"] = {k: g.to_dict() for k, g in graphs.items()}
    if note:
        md += "\n\n" + note
    for ranker, g in graphs.items():
        md += f"\n\n## ours ({ranker})\n\n" + g.to_markdown()
    return report, md


def run_sachs(
    *,
    root=None,
    truth: str = "cdt",
    methods: Sequence[str] = BASELINES,
    seed: int = 0,
    ours: Sequence[Any] = (),
    kg=None,
    llm=None,
    top_k: int = 1,
    context: str | None = SACHS_CONTEXT,
    calibrate: bool = True,
    decisions: Sequence[str] | None = None,
    on_progress: Callable[[str], None] | None = None,
) -> tuple[SachsBenchmark, dict[str, GraphDiscovery]]:
    """The statistical baselines on SACHS and, with `ours` (ranker names or fitted
    rankers, ``"none"`` for the LLM alone), our knowledge-based graphs in the same run."""
    if truth not in TRUTHS:
        raise ConfigError(f"unknown reference graph {truth!r}", hint="use cdt or bnlearn")
    if not ours:
        bench = benchmark_sachs(
            root, truth=truth, methods=tuple(methods), seed=seed, on_progress=on_progress
        )
        return bench, {}
    return benchmark_sachs_kg(
        kg=kg,
        llm=llm,
        rankers=ours,
        top_k=top_k,
        context=context,
        truth=truth,
        methods=methods,
        root=root,
        seed=seed,
        on_progress=on_progress,
        calibrate=calibrate,
        decisions=decisions,
    )


# -- ours, issue 16: knowledge-guided PC with the evidence model ---------------------------


def benchmark_sachs_evidence(
    *,
    judge,
    kg,
    llm=None,
    truth: str = "cdt",
    root=None,
    methods: Sequence[str] = tuple(BASELINES),
    seed: int = 0,
    alpha: float = 0.05,
    require: float = 0.9,
    forbid: float = 0.05,
    margin: float = 0.05,
    on_progress: Callable[[str], None] | None = None,
):
    """The statistical baselines and, in the same run, knowledge-guided PC: every pair of
    proteins judged by the evidence model (`discovery.graph.pair_verdicts`, names looked up
    by `SACHS_KG_NAMES`, no sentence), confident verdicts as PC's background knowledge,
    what PC leaves undirected oriented by the evidence (`discovery.graph.guided_pc`). The
    thresholds are fixed in advance (never fitted on SACHS). Returns the `SachsBenchmark`
    with our rows and the `GuidedGraph`."""
    from causalqa.discovery.graph import guided_pc, pair_verdicts

    bench = benchmark_sachs(
        root, truth=truth, methods=tuple(methods), seed=seed, on_progress=on_progress
    )
    sachs = load_sachs(root, truth=truth)
    names = {c: SACHS_KG_NAMES[SACHS_LABELS[c]] for c in sachs.names}
    start = time.perf_counter()
    verdicts = pair_verdicts(
        sachs.names,
        judge=judge,
        kg=kg,
        llm=llm,
        kg_names=names,
        kinds=["Gene"],
        on_progress=(lambda d, t, w: on_progress(f"evidence {d}/{t}: {w}"))
        if on_progress
        else None,
    )
    graph = guided_pc(
        sachs.data,
        sachs.names,
        verdicts,
        alpha=alpha,
        require=require,
        forbid=forbid,
        margin=margin,
    )
    seconds = round(time.perf_counter() - start, 2)
    with_evidence = sum(1 for v in verdicts.values() if v and "p_causal" in v)
    common = {
        "seconds": seconds,
        "pairs_with_evidence": with_evidence,
        "pairs": len(verdicts),
        "required": len(graph.required),
        "forbidden": len(graph.forbidden),
        "paper": None,
    }
    evidence_only = np.zeros_like(sachs.truth)
    index = {n: i for i, n in enumerate(sachs.names)}
    for (a, b), v in verdicts.items():
        if v and v.get("direction") in ("A→B", "B→A"):
            x, y = (a, b) if v["direction"] == "A→B" else (b, a)
            evidence_only[index[x], index[y]] = 1
    for label, key, adj in (
        ("ours: evidence verdicts alone (no data)", "ours-evidence", evidence_only),
        ("ours: PC + background knowledge from confident verdicts", "ours-guided-pc",
         graph.guided.adjacency),
        ("ours: knowledge-guided PC + evidence-ranked orientation", "ours-guided-pc-oriented",
         graph.adjacency),
    ):  # fmt: skip
        bench.rows.append(
            {"method": label, "key": key, **graph_metrics(adj, sachs.truth), **common}
        )
    return bench, graph
