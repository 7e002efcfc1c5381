"""Knowledge-graph load and path-extraction speed: the embedded store beside networkx.

Two graphs:

1. the shared Hetionet sample (all 47,031 nodes, up to 5k edges per metaedge) — the
   acceptance numbers: load < 60 s, <=4-hop paths < 50 ms median per pair;
2. a generated graph at Hetionet's full scale (47,031 nodes, 2,250,197 edges) with
   Hetionet's node-kind counts and metaedge counts (from the metagraph/metaedges files),
   endpoints drawn with heavy-tailed degrees so that hubs exist as in the real graph.

On each: store load time, index build time, then per pair (Compound–Disease pairs and
random pairs, seeded) the time of ``kg.paths(a, b, k=4, limit=100)`` with the index engine,
the Cypher engine (with a per-query timeout), networkx ``all_simple_edge_paths`` (cutoff 4,
every path enumerated then sorted and capped — networkx cannot yield shortest first; a
time budget per pair) and networkx ``all_shortest_paths`` (BFS). Where networkx finished,
its capped path list is compared with ours.

    .venv/bin/python bench/kg_paths.py                 # full scale
    .venv/bin/python bench/kg_paths.py --scale 0.25    # a quarter of the nodes and edges

Writes bench/results/kg/kg_paths.json and .md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from causalqa.kg import GraphData, KGPath, KnowledgeGraph, Node, Step, read_hetionet
from causalqa.kg.loaders import read_metaedges

HETIONET = Path("/work/shared/data/hetionet")
RESULTS = Path(__file__).resolve().parent / "results" / "kg"
# Hetionet v1.0 metaedge edge counts (metaedges.tsv), used when the file is absent.
FULL_COUNTS = {
    "AdG": 102240, "AeG": 526407, "AuG": 97848, "CbG": 11571, "CcSE": 138944, "CdG": 21102,
    "CpD": 390, "CrC": 6486, "CtD": 755, "CuG": 18756, "DaG": 12623, "DdG": 7623, "DlA": 3602,
    "DpS": 3357, "DrD": 543, "DuG": 7731, "GcG": 61690, "GiG": 147164, "GpBP": 559504,
    "GpCC": 73566, "GpMF": 97222, "GpPW": 84372, "Gr>G": 265672, "PCiC": 1029,
}  # fmt: skip
KIND_COUNTS = {
    "Anatomy": 402, "Biological Process": 11381, "Cellular Component": 1391, "Compound": 1552,
    "Disease": 137, "Gene": 20945, "Molecular Function": 2884, "Pathway": 1822,
    "Pharmacologic Class": 345, "Side Effect": 5734, "Symptom": 438,
}  # fmt: skip


def metaedge_table() -> dict[str, tuple[str, str, str, int]]:
    """abbrev -> (source kind, relation, target kind, edge count) of full Hetionet."""
    meta = read_metaedges(HETIONET / "metaedges.tsv") if HETIONET.exists() else None
    if meta is None:
        raise SystemExit("needs ../shared/data/hetionet/metaedges.tsv for the metaedge kinds")
    counts = dict(FULL_COUNTS)
    table = pd.read_csv(HETIONET / "metaedges.tsv", sep="\t")
    counts.update(dict(zip(table["abbreviation"], table["edges"])))
    return {abbr: (*meta[abbr], int(counts[abbr])) for abbr in meta}


def generate(scale: float, seed: int) -> GraphData:
    """Hetionet-shaped random multigraph: kind counts and per-metaedge edge counts times
    `scale`, endpoints drawn from Zipf-like weights (a few hubs, many leaves)."""
    rng = np.random.default_rng(seed)
    ids, names, kinds, by_kind = [], [], [], {}
    for kind, count in KIND_COUNTS.items():
        n = max(2, round(count * scale))
        members = [f"{kind}::{i}" for i in range(n)]
        by_kind[kind] = np.array(members, dtype=object)
        ids += members
        names += [f"{kind.lower()} {i}" for i in range(n)]
        kinds += [kind] * n
    nodes = pd.DataFrame({"id": ids, "name": names, "kind": kinds})

    def draw(kind: str, size: int) -> np.ndarray:
        pool = by_kind[kind]
        weights = 1.0 / np.arange(1, len(pool) + 1) ** 0.8
        weights = rng.permutation(weights / weights.sum())
        return pool[rng.choice(len(pool), size=size, p=weights)]

    parts = []
    for abbrev, (source, relation, target, count) in metaedge_table().items():
        m = max(1, round(count * scale))
        frame = pd.DataFrame({"source": [], "target": []}, dtype=object)
        for _ in range(50):  # skewed draws collide; top up until the count is reached
            need = m - len(frame)
            if need <= 0:
                break
            more = pd.DataFrame(
                {"source": draw(source, need * 2), "target": draw(target, need * 2)}
            )
            frame = pd.concat([frame, more]).drop_duplicates().iloc[:m]
        frame["relation"], frame["abbrev"] = relation, abbrev
        parts.append(frame)
    edges = pd.concat(parts, ignore_index=True)
    return GraphData(nodes, edges, source={"format": "generated", "scale": scale, "seed": seed})


def nx_graph(data: GraphData) -> nx.MultiGraph:
    graph = nx.MultiGraph()
    graph.add_nodes_from(data.nodes["id"])
    graph.add_edges_from(
        (s, t, (s, r, a))
        for s, t, r, a in zip(
            data.edges["source"], data.edges["target"], data.edges["relation"],
            data.edges["abbrev"],
        )
    )  # fmt: skip
    return graph


class _OverBudget(Exception):
    pass


def _alarm(signum, frame):
    raise _OverBudget


def nx_simple(graph, nodes, a, b, k, limit, budget):
    """All simple paths up to k by networkx, sorted and capped like ours; None when over the
    time budget (an interval timer interrupts the generator even between yields)."""
    found = []
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, budget)
    try:
        for edge_path in nx.all_simple_edge_paths(graph, a, b, cutoff=k):
            walk, steps = [a], []
            for u, v, (src, relation, abbrev) in edge_path:
                steps.append(Step(relation, abbrev, forward=src == u))
                walk.append(v)
            found.append(KGPath(tuple(nodes[n] for n in walk), tuple(steps)))
    except _OverBudget:
        return None, len(found)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return sorted(found, key=KGPath.sort_key)[:limit], len(found)


def pick_pairs(data: GraphData, n: int, seed: int) -> list[tuple[str, str]]:
    rng = np.random.default_rng(seed + 1)
    compounds = data.nodes.loc[data.nodes["kind"] == "Compound", "id"].to_numpy()
    diseases = data.nodes.loc[data.nodes["kind"] == "Disease", "id"].to_numpy()
    connected = pd.unique(pd.concat([data.edges["source"], data.edges["target"]]))
    pairs = [(str(rng.choice(compounds)), str(rng.choice(diseases))) for _ in range(n // 2)]
    pairs += [tuple(map(str, rng.choice(connected, 2, replace=False))) for _ in range(n - n // 2)]
    return pairs


def run_graph(label, data, pairs, *, k, limit, nx_budget, cypher_pairs, cypher_timeout_ms):
    print(f"[{label}] {len(data.nodes):,} nodes, {len(data.edges):,} edges", flush=True)
    workdir = Path(tempfile.mkdtemp(prefix="kgbench-"))
    result = {"graph": label, "nodes": len(data.nodes), "edges": len(data.edges), "k": k}
    try:
        started = time.perf_counter()
        kg = KnowledgeGraph.build(data, workdir / "store")
        result["load_seconds"] = round(time.perf_counter() - started, 2)
        started = time.perf_counter()
        kg.path_index()
        result["index_build_seconds"] = round(time.perf_counter() - started, 2)
        print(f"  load {result['load_seconds']} s, index {result['index_build_seconds']} s")

        ours, counts = [], []
        answers = {}
        for a, b in pairs:
            t = time.perf_counter()
            found = kg.paths(a, b, k=k, limit=limit)
            ours.append((time.perf_counter() - t) * 1000)
            counts.append(len(found))
            answers[(a, b)] = found
        result["index_ms"] = summary(ours)
        result["paths_per_pair"] = summary(counts)
        print(f"  index engine: median {result['index_ms']['median']:.1f} ms")

        kg.backend._conn.set_query_timeout(cypher_timeout_ms)
        cy, cy_timeouts, cy_same = [], 0, 0
        for a, b in pairs[:cypher_pairs]:
            t = time.perf_counter()
            try:
                found = kg.paths(a, b, k=k, limit=limit, engine="cypher")
            except Exception:
                cy_timeouts += 1
                continue
            cy.append((time.perf_counter() - t) * 1000)
            cy_same += found == answers[(a, b)]
        result["cypher_ms"] = summary(cy)
        result["cypher"] = {
            "pairs": min(cypher_pairs, len(pairs)),
            "timeouts": cy_timeouts,
            "timeout_ms": cypher_timeout_ms,
            "same_as_index": cy_same,
        }
        print(f"  cypher engine: {result['cypher']} median {result['cypher_ms'].get('median')}")
        kg.close()

        started = time.perf_counter()
        graph = nx_graph(data)
        result["networkx_build_seconds"] = round(time.perf_counter() - started, 2)
        nodes = {i: Node(i, n, kd) for i, n, kd in data.nodes.itertuples(index=False)}
        simple, shortest, timeouts, same, enumerated = [], [], 0, 0, []
        for a, b in pairs:
            t = time.perf_counter()
            found, total = nx_simple(graph, nodes, a, b, k, limit, nx_budget)
            elapsed = (time.perf_counter() - t) * 1000
            if found is None:
                timeouts += 1
            else:
                simple.append(elapsed)
                enumerated.append(total)
                same += found == answers[(a, b)]
            t = time.perf_counter()
            try:
                list(nx.all_shortest_paths(graph, a, b))
            except nx.NetworkXNoPath:
                pass
            shortest.append((time.perf_counter() - t) * 1000)
        result["networkx_simple_ms"] = summary(simple)
        result["networkx_simple"] = {
            "timeouts": timeouts,
            "budget_s": nx_budget,
            "same_as_index": same,
            "paths_enumerated": summary(enumerated),
        }
        result["networkx_shortest_ms"] = summary(shortest)
        print(f"  networkx simple: {result['networkx_simple']} {result['networkx_simple_ms']}")
        print(f"  networkx shortest: {result['networkx_shortest_ms']}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return result


def summary(values) -> dict:
    if not values:
        return {"n": 0}
    values = list(values)
    return {
        "n": len(values),
        "median": round(statistics.median(values), 2),
        "mean": round(statistics.fmean(values), 2),
        "p90": round(float(np.percentile(values, 90)), 2),
        "max": round(max(values), 2),
    }


def markdown(report: dict) -> str:
    lines = [
        "# Knowledge-graph load and path extraction",
        "",
        f"{report['date']} · {report['machine']} · ladybug {report['ladybug']} · "
        f"networkx {report['networkx']} · seed {report['seed']} · "
        f"k={report['k']}, limit={report['limit']} paths per pair",
        "",
        "| graph | nodes | edges | load s | index s | pairs | paths/pair (median) | "
        "index engine ms (median / p90) | Cypher engine ms (median; timeouts) | "
        "networkx simple paths ms (median; over budget) | networkx shortest ms (median) | "
        "same paths as networkx |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["graphs"]:
        nxs = r["networkx_simple"]
        ok = nxs["same_as_index"]
        done = r["networkx_simple_ms"].get("n", 0)
        lines.append(
            f"| {r['graph']} | {r['nodes']:,} | {r['edges']:,} | {r['load_seconds']} | "
            f"{r['index_build_seconds']} | {r['paths_per_pair']['n']} | "
            f"{r['paths_per_pair']['median']} | "
            f"{r['index_ms']['median']} / {r['index_ms']['p90']} | "
            f"{r['cypher_ms'].get('median', '—')} ({r['cypher']['pairs']} pairs; "
            f"{r['cypher']['timeouts']} over {r['cypher']['timeout_ms'] / 1000:.0f} s) | "
            f"{r['networkx_simple_ms'].get('median', '—')} ({nxs['timeouts']} over "
            f"{nxs['budget_s']} s) | {r['networkx_shortest_ms']['median']} | {ok}/{done} |"
        )
    lines += ["", report["note"], ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--nx-budget", type=float, default=3.0, help="seconds per pair")
    parser.add_argument("--cypher-pairs", type=int, default=5)
    parser.add_argument("--cypher-timeout", type=float, default=20.0, help="seconds per query")
    parser.add_argument("--skip-sample", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    import ladybug

    common = dict(
        k=args.k,
        limit=args.limit,
        nx_budget=args.nx_budget,
        cypher_pairs=args.cypher_pairs,
        cypher_timeout_ms=int(args.cypher_timeout * 1000),
    )
    graphs = []
    if not args.skip_sample and (HETIONET / "edges-5k.sif.gz").exists():
        data = read_hetionet(HETIONET)
        pairs = [("Compound::DB00481", "Disease::DOID:1909")] + pick_pairs(
            data, args.pairs - 1, args.seed
        )
        graphs.append(run_graph("Hetionet 5k-per-metaedge sample", data, pairs, **common))
    started = time.perf_counter()
    data = generate(args.scale, args.seed)
    print(f"generated in {time.perf_counter() - started:.1f} s", flush=True)
    label = f"generated, Hetionet mix, scale {args.scale:g}"
    graphs.append(run_graph(label, data, pick_pairs(data, args.pairs, args.seed), **common))

    report = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}",
        "ladybug": ladybug.__version__,
        "networkx": nx.__version__,
        "seed": args.seed,
        "k": args.k,
        "limit": args.limit,
        "scale": args.scale,
        "graphs": graphs,
        "note": (
            "Per-pair times are of `KnowledgeGraph.paths(a, b, k, limit)` (node checks "
            "included) on the embedded LadybugDB store. The index engine answers from an "
            "in-memory adjacency built once from the store; the Cypher engine runs one "
            "variable-length query per path length and enumerates every path the database "
            "finds. networkx simple paths enumerates every path up to k (it cannot yield "
            "shortest first), then sorts and caps; networkx shortest is all_shortest_paths "
            "(BFS, shortest length only: not the same query, a lower bound). Pairs: half "
            "random Compound–Disease, half random connected nodes."
        ),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kg_paths.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    (args.out / "kg_paths.md").write_text(markdown(report), encoding="utf-8")
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
