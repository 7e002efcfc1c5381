"""Is there knowledge here that could lift PC on SACHS? (issue 16: "F1 above PC's")

PC's errors on SACHS (cdt reference, 18 edges) are mostly edges the truth does not have,
not orientations; background knowledge beats PC only if it tells those apart from the true
edges. This driver measures what the evidence available on this machine knows about each
pair of SACHS proteins, on three groups of pairs: the reference edges, PC's edges that are
not in the reference (its false positives), and the rest.

- KG: in the shipped Hetionet sample (`edges-5k.sif.gz`, up to 5,000 edges per
  metaedge), direct edges between the two proteins' genes and neighbours they share, per
  metaedge (pathways, biological processes, interacting genes, …).
- LLM: the embedded model's log-odds of "Yes" to "does A directly activate or
  phosphorylate B?", both directions; ROC AUC for the directed reference edges, for the
  skeleton (the larger of the two directions), and how often the reference direction
  scores higher. An AUC near 0.5 cannot forbid or require an edge.

    .venv/bin/python bench/sachs_knowledge.py [--llm local,local:small] [--data ../shared/data]

Writes ``bench/results/discovery/sachs-knowledge-latest.{json,md}``.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import itertools
import math
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from causalqa.bench.discovery_sachs import SACHS_KG_NAMES, SACHS_LABELS, load_sachs
from causalqa.bench.report import document, markdown_table, write_report
from causalqa.discovery.statistical import pc
from causalqa.llm import get_llm

PROMPT = "In T-cell signalling, does {a} directly activate or phosphorylate {b}? Answer Yes or No."


def pair_groups(root: Path) -> tuple[list[str], dict[frozenset, str], set[tuple[str, str]]]:
    """SACHS' columns, each unordered pair's group (reference / pc-false-positive / other)
    and the reference's directed edges."""
    sachs = load_sachs(root / "sachs")
    names = list(sachs.names)
    truth = set(map(tuple, sachs.truth_edges()))
    result = pc(sachs.data, names=names)
    adj = result.adjacency
    found = {
        frozenset((names[i], names[j]))
        for i in range(len(names))
        for j in range(len(names))
        if adj[i, j]
    }
    groups = {}
    for a, b in itertools.combinations(names, 2):
        pair = frozenset((a, b))
        if (a, b) in truth or (b, a) in truth:
            groups[pair] = "reference"
        elif pair in found:
            groups[pair] = "pc-false-positive"
        else:
            groups[pair] = "other"
    return names, groups, truth


def kg_neighbourhoods(
    root: Path, names: list[str]
) -> tuple[dict[str, dict[str, set[str]]], dict[str, str]]:
    """Each protein's Hetionet neighbours in the sample, per metaedge and side, and its
    gene's node id."""
    symbol_to_id = {}
    with open(root / "hetionet" / "hetionet-v1.0-nodes.tsv", encoding="utf-8") as f:
        next(f)
        for line in f:
            node, name, kind = line.rstrip("\n").split("\t")
            if kind == "Gene":
                symbol_to_id[name] = node
    gene = {}
    for column in names:
        symbols = SACHS_KG_NAMES[SACHS_LABELS[column]]
        if symbols and symbols[0] in symbol_to_id:
            gene[symbol_to_id[symbols[0]]] = column
    out: dict[str, dict[str, set[str]]] = {c: collections.defaultdict(set) for c in gene.values()}
    with gzip.open(root / "hetionet" / "edges-5k.sif.gz", "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            source, metaedge, target = line.rstrip("\n").split("\t")
            if source in gene:
                out[gene[source]][metaedge].add(target)
            if target in gene:
                out[gene[target]][metaedge + " (in)"].add(source)
    return out, {column: node for node, column in gene.items()}


def kg_rows(
    groups: dict[frozenset, str], hood: dict[str, dict[str, set[str]]], ids: dict[str, str]
) -> list[dict]:
    per_group: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for pair, group in groups.items():
        a, b = sorted(pair)
        if a not in hood or b not in hood:
            continue  # PIP2/PIP3 are lipids: no gene
        per_group[group]["pairs"] += 1
        direct = any(ids[b] in targets for targets in hood[a].values())
        shared = {m for m in set(hood[a]) & set(hood[b]) if hood[a][m] & hood[b][m]}
        per_group[group]["any shared neighbour"] += bool(shared)
        per_group[group]["direct edge"] += direct
        for m in shared:
            per_group[group][f"shares {m}"] += 1
    rows = []
    for group in ("reference", "pc-false-positive", "other"):
        c = per_group[group]
        row = {"group": group, "pairs (both in Hetionet)": c["pairs"]}
        for key in sorted(k for k in c if k != "pairs"):
            row[key] = f"{c[key]}/{c['pairs']}"
        rows.append(row)
    return rows


def llm_rows(spec: str, names: list[str], truth: set[tuple[str, str]]) -> dict:
    llm = get_llm(spec, cache=False)
    log_odds = {}
    started = time.perf_counter()
    for a, b in itertools.permutations(names, 2):
        question = PROMPT.format(a=SACHS_LABELS[a], b=SACHS_LABELS[b])
        p = llm.label_logprobs([{"role": "user", "content": question}], ["Yes", "No"])
        yes, no = p.probabilities["Yes"], p.probabilities["No"]
        log_odds[(a, b)] = math.log(yes + 1e-12) - math.log(no + 1e-12)
    seconds = time.perf_counter() - started
    directed = list(log_odds)
    skeleton = {frozenset(pair): max(log_odds[pair], log_odds[pair[::-1]]) for pair in directed}
    in_truth = lambda pair: any((a, b) in truth for a in pair for b in pair)  # noqa: E731
    return {
        "llm": spec,
        "prompts": len(directed),
        "seconds": round(seconds, 1),
        "directed ROC AUC": round(
            roc_auc_score([p in truth for p in directed], [log_odds[p] for p in directed]), 3
        ),
        "skeleton ROC AUC": round(
            roc_auc_score([in_truth(p) for p in skeleton], list(skeleton.values())), 3
        ),
        "reference direction scored higher": (
            f"{sum(log_odds[(a, b)] > log_odds[(b, a)] for a, b in truth)}/{len(truth)}"
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--llm", default="local,local:small", help="comma-separated specs")
    parser.add_argument("--out", type=Path, default=Path("bench/results/discovery"))
    args = parser.parse_args()
    names, groups, truth = pair_groups(args.data)
    kg = kg_rows(groups, *kg_neighbourhoods(args.data, names))
    llm = [llm_rows(spec, names, truth) for spec in args.llm.split(",") if spec]
    counts = collections.Counter(groups.values())
    report = {"pairs": dict(counts), "kg": kg, "llm": llm, "prompt": PROMPT}
    kg_columns = sorted({k for row in kg for k in row} - {"group"}, key=lambda k: (k[0] != "p", k))
    body = "\n".join(
        [
            f"Pairs of the 11 proteins: {dict(counts)} (PC at alpha 0.05, cdt reference).",
            "",
            "## Hetionet sample (edges-5k): what the pairs' genes share",
            "",
            markdown_table(kg, [("group", "group"), *((k, k) for k in kg_columns)]),
            "",
            "## The embedded LLM's yes/no judgement of a direct activation",
            "",
            f"Prompt: `{PROMPT}`",
            "",
            markdown_table(llm, [(k, k) for k in (llm[0] if llm else {})]),
        ]
    )
    title = "bench sachs-knowledge: what the evidence knows about SACHS pairs"
    print(write_report(args.out, "sachs-knowledge", report, document(title, report, body)))
    print(body)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
