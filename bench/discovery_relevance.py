"""What the path-to-causality relevance labels are, and what a ranker can learn from them.

    .venv/bin/python bench/discovery_relevance.py [--no-xgboost] [--out FILE.md]

1. Eq. 1 makes a path's relevance the relevance LLM's (mistral-7b's) confidence in the
   *gold* label given that path. The data carries enough to check it: from ``prob_score``
   (log-probability of the LLM's verdict) and ``relevant`` (verdict right) we recover the
   LLM's P(causal | path), and the ``rel_score`` order is P(gold | path) order within a
   query — concordance of pairs of paths, printed per data set and split.
2. So on a causal pair the paths pushing towards "causal" are relevant, on a non-causal
   pair the same paths are irrelevant. A ranker that cannot tell the gold label gains on
   one label what it loses on the other; the test sets are label-balanced (COMAGC 17/34,
   GENEC 18/35, SEMEVAL 12/24 causal) while ``train_full`` is not (19%, 19%, 6% causal).
   With ``--xgboost`` (default) the XGBoost ranker is fitted on a by-query validation split
   of ``train_full`` (never the test pairs), with and without the sentence and with and
   without label-balanced weights, and its NDCG@5 gain over random's exact expectation is
   printed for causal and non-causal validation pairs apart.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from causalqa.discovery.pathdata import DATASETS, load_path_dataset, validation_split
from causalqa.metrics import expected_random_ndcg, ndcg_at_k, relevance_labels


def p_causal(label: int, path) -> float:
    """The relevance LLM's P(causal | path), from its verdict's log-prob and correctness."""
    p = math.exp(path.prob_score)
    verdict = label if path.relevant else 1 - label
    return p if verdict == 1 else 1 - p


def concordance(records) -> float:
    """Share of path pairs (within a query, both scores distinct) that ``rel_score`` and
    P(gold | path) order the same way."""
    agree = total = 0
    for r in records:
        rel = np.array([p.rel_score for p in r.paths])
        pc = np.array([p_causal(r.label, p) for p in r.paths])
        gold = pc if r.label == 1 else 1 - pc
        for i in range(len(rel)):
            for j in range(i + 1, len(rel)):
                if rel[i] != rel[j] and gold[i] != gold[j]:
                    total += 1
                    agree += (rel[i] > rel[j]) == (gold[i] > gold[j])
    return agree / total if total else float("nan")


def xgboost_by_label(name: str, seed: int = 0) -> list[str]:
    from causalqa.bench.discovery_rankers import shuffled
    from causalqa.discovery.rankers import XGBoostRanker
    from causalqa.embed import Embedder

    embedder = Embedder()
    val = validation_split(load_path_dataset(name, splits=("train",)), seed=seed)
    queries = [q for q in val.truth if len(q.paths) > 1]
    lines = []
    labels_seen = {q.label for q in val.train}
    for context in (False, True):
        for balance in (False, True):
            if balance and len(labels_seen) < 2:
                continue
            ranker = XGBoostRanker(embedder=embedder, context=context, balance=balance, seed=seed)
            ranker.fit(val.train)
            gain: dict[int, list[float]] = {0: [], 1: []}
            for q in queries:
                perm = shuffled(q, seed)
                order = perm[ranker.rank(q, [q.paths[i] for i in perm]).order]
                lab = relevance_labels([p.rel_score for p in q.paths])
                gain[q.label].append(100 * (ndcg_at_k(lab, order) - expected_random_ndcg(lab)))
            cells = [
                f"{np.mean(gain[y]):+.2f} ({len(gain[y])})" if gain[y] else "–" for y in (1, 0)
            ]
            means = [np.mean(gain[y]) for y in (1, 0) if gain[y]]
            lines.append(
                f"| {DATASETS[name][1]} | sentence {'on' if context else 'off'}, "
                f"balance {'on' if balance else 'off'} | {cells[0]} | {cells[1]} "
                f"| {np.mean(means):+.2f} |"
            )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-xgboost", action="store_true", help="Only the label facts.")
    ap.add_argument("--out", type=Path, help="Also write the Markdown here.")
    args = ap.parse_args()
    lines = [
        "| data set | split | pairs | causal | rel_score agrees with P(gold given the path) |",
        "|---|---|---|---|---|",
    ]
    for name in DATASETS:
        data = load_path_dataset(name, splits=("train", "truth"))
        for split, recs in (("train_full", data.train), ("test_truth", data.truth)):
            share = np.mean([r.label for r in recs])
            lines.append(
                f"| {DATASETS[name][1]} | {split} | {len(recs)} | {100 * share:.0f}% "
                f"| {concordance(recs):.3f} |"
            )
    if not args.no_xgboost:
        lines += [
            "",
            "XGBoost ranker, NDCG@5 gain over random on the validation split (points; pairs):",
            "",
            "| data set | features, weights | causal pairs | non-causal pairs | mean of the two |",
            "|---|---|---|---|---|",
        ]
        for name in DATASETS:
            lines += xgboost_by_label(name)
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
