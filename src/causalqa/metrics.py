"""Metrics for discovered graphs and for path rankings, as plain functions.

Graphs are square 0/1 adjacency matrices over the same variables in the same order, with
``A[i, j] = 1`` meaning the edge i → j (an undirected edge, where a method leaves one, is
both ``A[i, j]`` and ``A[j, i]``). The diagonal is ignored.

- `precision`, `recall`, `f1`: over directed edges, an edge counts only with its direction.
- `hamming_distance` (the paper's HD, Table 3): the number of mismatched entries of the two
  adjacency matrices, so a reversed edge counts 2. `normalized_hamming_distance` (NHD) is HD
  divided by n² — Table 3's NHD column is exactly its HD over 11² (24/121 = 0.198,
  31/121 = 0.256, 7/121 = 0.058, ...).
- `shd`: structural Hamming distance, the number of variable pairs whose edge status
  (none, i → j, j → i, both/undirected) differs — a reversal counts 1.

Rankings (Table D2): a query has candidates with relevance labels; a ranker gives an order
(candidate indices, best first).

- `relevance_labels`: Table D2's graded labels from the LLM relevance scores: the candidate
  ranked r-th of k by ``rel_score`` (r = 0 best) gets label k − r; ties share a label.
- `ndcg_at_k`: DCG with allRank's gain 2^label − 1 and discount 1/log2(position + 1),
  divided by the DCG of the ideal order.
- `expected_random_ndcg`: the exact mean NDCG@k of a uniformly random order, the baseline a
  ranker must beat (each position's expected gain is the mean gain).
- `paired_bootstrap`: mean per-query difference between two rankings' scores with a
  bootstrap confidence interval — with 24–38 test queries a few NDCG points are noise.
- `recall_at_k`: the share of relevant candidates in the top k. Relevant = label > 0 by
  default, which with Table D2's labels (all ≥ 1) counts every candidate relevant: the
  paper's Recall@5 is min(5, k)/k averaged over queries (71.43 = 5/7 on COMAGC, 100 on
  SEMEVAL's ≤ 5 paths), the same for every ranker. Pass `relevant` (e.g. the LLM-right
  flags) for a recall that does depend on the ranker.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from causalqa.errors import MetricInputError

__all__ = [
    "MetricInputError",
    "binary_scores",
    "bootstrap_indices",
    "bootstrap_interval",
    "macro_f1",
    "expected_calibration_error",
    "reliability_curve",
    "f1_difference",
    "roc_auc",
    "expected_random_ndcg",
    "f1",
    "graph_metrics",
    "hamming_distance",
    "ndcg_at_k",
    "normalized_hamming_distance",
    "paired_bootstrap",
    "precision",
    "precision_recall_f1",
    "recall",
    "recall_at_k",
    "relevance_labels",
    "shd",
]


def _pair(pred, true) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(pred)
    t = np.asarray(true)
    for name, a in (("predicted", p), ("true", t)):
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise MetricInputError(f"the {name} adjacency must be a square matrix, got {a.shape}")
        if not np.isin(a, (0, 1)).all():
            raise MetricInputError(f"the {name} adjacency must hold only 0 and 1")
    if p.shape != t.shape:
        raise MetricInputError(
            f"adjacency shapes differ: predicted {p.shape}, true {t.shape}",
            hint="both matrices must be over the same variables in the same order",
        )
    off = ~np.eye(p.shape[0], dtype=bool)
    return (p.astype(bool) & off), (t.astype(bool) & off)


def _prf(pred: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and F1 of the positive class over the last axis of two boolean
    arrays, each in [0, 1]; an undefined ratio (nothing predicted, nothing true) is 0."""
    tp = (pred & gold).sum(axis=-1)
    n_pred, n_true = pred.sum(axis=-1), gold.sum(axis=-1)
    prec = np.where(n_pred > 0, tp / np.maximum(n_pred, 1), 0.0)
    rec = np.where(n_true > 0, tp / np.maximum(n_true, 1), 0.0)
    f = np.where(n_pred + n_true > 0, 2 * tp / np.maximum(n_pred + n_true, 1), 0.0)
    return prec, rec, f


def precision_recall_f1(pred, true) -> tuple[float, float, float]:
    """Precision, recall and F1 over directed edges, each in [0, 1].

    A predicted edge is a true positive only when the true graph has it with the same
    direction. With no predicted (or no true) edge the undefined ratio is 0.

    >>> precision_recall_f1([[0, 1], [0, 0]], [[0, 1], [0, 0]])
    (1.0, 1.0, 1.0)
    """
    p, t = _pair(pred, true)
    prec, rec, f = _prf(p.ravel(), t.ravel())
    return float(prec), float(rec), float(f)


def binary_scores(pred: Sequence[int], gold: Sequence[int]) -> dict[str, float]:
    """Precision, recall and F1 of the positive class and accuracy, in % (2 decimals); an
    undefined ratio is 0.

    >>> binary_scores([1, 1, 0, 0], [1, 0, 0, 0])
    {'precision': 50.0, 'recall': 100.0, 'f1': 66.67, 'accuracy': 75.0}
    """
    p, g = np.asarray(pred, dtype=bool), np.asarray(gold, dtype=bool)
    prec, rec, f = (float(x) for x in _prf(p, g))
    return {
        "precision": round(100 * prec, 2),
        "recall": round(100 * rec, 2),
        "f1": round(100 * f, 2),
        "accuracy": round(100 * float((p == g).mean()), 2) if len(p) else 0.0,
    }


def roc_auc(scores: Sequence[float], gold: Sequence[int]) -> float | None:
    """Area under the ROC curve of `scores` for the positive class (scikit-learn; ties
    count half), 4 decimals; None when `gold` has one class only.

    >>> roc_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    0.75
    """
    from sklearn.metrics import roc_auc_score

    g = np.asarray(gold, dtype=bool)
    if g.all() or not g.any():
        return None
    return round(float(roc_auc_score(g, np.asarray(scores, dtype=float))), 4)


def precision(pred, true) -> float:
    """Share of predicted directed edges that are true edges."""
    return precision_recall_f1(pred, true)[0]


def recall(pred, true) -> float:
    """Share of true directed edges that were predicted."""
    return precision_recall_f1(pred, true)[1]


def f1(pred, true) -> float:
    """Harmonic mean of `precision` and `recall`."""
    return precision_recall_f1(pred, true)[2]


def hamming_distance(pred, true) -> int:
    """Number of off-diagonal entries where the adjacency matrices differ (reversal = 2).

    >>> hamming_distance([[0, 1], [0, 0]], [[0, 0], [1, 0]])
    2
    """
    p, t = _pair(pred, true)
    return int((p ^ t).sum())


def normalized_hamming_distance(pred, true) -> float:
    """`hamming_distance` divided by n², as Table 3 of paper 001 reports NHD."""
    p, _ = _pair(pred, true)
    n = p.shape[0]
    return hamming_distance(pred, true) / (n * n) if n else 0.0


def shd(pred, true) -> int:
    """Structural Hamming distance: variable pairs {i, j} whose edge status differs.

    A missing, extra or reversed edge counts 1; an undirected (two-way) edge against a
    directed one counts 1.

    >>> shd([[0, 1], [0, 0]], [[0, 0], [1, 0]])
    1
    """
    p, t = _pair(pred, true)
    diff = p ^ t
    return int(np.triu(diff | diff.T, k=1).sum())


def graph_metrics(pred, true) -> dict[str, float]:
    """All graph metrics at once: precision, recall, f1 (in %), shd, hd, nhd, and edge
    counts."""
    prec, rec, f = precision_recall_f1(pred, true)
    p, t = _pair(pred, true)
    return {
        "precision": round(100 * prec, 2),
        "recall": round(100 * rec, 2),
        "f1": round(100 * f, 2),
        "shd": shd(pred, true),
        "hd": hamming_distance(pred, true),
        "nhd": round(normalized_hamming_distance(pred, true), 3),
        "edges_predicted": int(p.sum()),
        "edges_true": int(t.sum()),
        "edges_correct": int((p & t).sum()),
    }


# -- rankings ---------------------------------------------------------------------------


def relevance_labels(scores: Sequence[float]) -> np.ndarray:
    """Table D2's graded labels: 1 + the number of candidates with a lower score.

    >>> relevance_labels([3.2, -1.5, 0.7]).tolist()
    [3, 1, 2]
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1:
        raise MetricInputError("scores must be one-dimensional")
    if np.isnan(s).any():
        raise MetricInputError("relevance scores contain NaN")
    return 1 + (s[None, :] < s[:, None]).sum(axis=1)


def _check_order(order: Sequence[int], n: int) -> np.ndarray:
    o = np.asarray(order, dtype=int)
    if o.ndim != 1 or sorted(o.tolist()) != list(range(n)):
        raise MetricInputError(f"the order must be a permutation of 0..{n - 1}, got {list(o)}")
    return o


def _dcg(gains: np.ndarray, k: int) -> float:
    g = gains[:k]
    return float((g / np.log2(np.arange(2, g.size + 2))).sum())


def ndcg_at_k(labels: Sequence[float], order: Sequence[int], k: int = 5) -> float:
    """NDCG@k of `order` (candidate indices, best first) under graded `labels`.

    Gain 2^label − 1 (allRank's default), discount 1/log2(rank + 1) for rank 1..k. A query
    whose ideal DCG is 0 (no label above 0) scores 0.

    >>> round(ndcg_at_k([3, 2, 1], [2, 1, 0], k=5), 4)
    0.6806
    """
    lab = np.asarray(labels, dtype=float)
    o = _check_order(order, lab.size)
    if k < 1:
        raise MetricInputError(f"k must be at least 1, got {k}")
    gains = np.power(2.0, lab) - 1.0
    ideal = _dcg(np.sort(gains)[::-1], k)
    return _dcg(gains[o], k) / ideal if ideal > 0 else 0.0


def recall_at_k(
    labels: Sequence[float],
    order: Sequence[int],
    k: int = 5,
    *,
    relevant: Sequence[bool] | None = None,
) -> float | None:
    """Share of relevant candidates that `order` puts in its top k.

    Relevant: `relevant` when given, else label > 0. Returns None when a query has no
    relevant candidate (callers average over the others).

    >>> recall_at_k([7, 6, 5, 4, 3, 2, 1], range(7), k=5)  # Table D2: 5/7
    0.7142857142857143
    """
    lab = np.asarray(labels, dtype=float)
    o = _check_order(order, lab.size)
    rel = lab > 0 if relevant is None else np.asarray(relevant, dtype=bool)
    if rel.size != lab.size:
        raise MetricInputError("relevant flags and labels differ in length")
    total = int(rel.sum())
    if total == 0:
        return None
    return float(rel[o[:k]].sum()) / total


def expected_random_ndcg(labels: Sequence[float], k: int = 5) -> float:
    """The mean NDCG@k of a uniformly random order of candidates with graded `labels`.

    Under a random permutation every position's expected gain is the mean gain, so the
    expectation is exact (no draws): mean gain × the discounts of the first k positions,
    over the ideal DCG.

    >>> round(expected_random_ndcg([2, 1]), 4)
    0.8984
    """
    lab = np.asarray(labels, dtype=float)
    if lab.ndim != 1 or lab.size == 0:
        raise MetricInputError("labels must be a non-empty one-dimensional sequence")
    if k < 1:
        raise MetricInputError(f"k must be at least 1, got {k}")
    gains = np.power(2.0, lab) - 1.0
    ideal = _dcg(np.sort(gains)[::-1], k)
    if ideal <= 0:
        return 0.0
    m = min(k, lab.size)
    return float(gains.mean() * (1.0 / np.log2(np.arange(2, m + 2))).sum() / ideal)


def bootstrap_indices(n: int, *, draws: int, seed: int = 0) -> np.ndarray:
    """``draws`` × `n` indices: the resamples (with replacement) of `n` paired items that
    every bootstrap interval here is computed over."""
    return np.random.default_rng(seed).integers(0, n, size=(draws, n))


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    draws: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, float]:
    """The mean of ``a - b`` over paired items (queries) with a percentile bootstrap
    interval at `level`, and the share of resamples whose mean is at or below 0 (a
    one-sided bootstrap p-value for "a beats b").

    >>> r = paired_bootstrap([0.6, 0.7, 0.8], [0.5, 0.5, 0.5])
    >>> round(r["mean"], 3), r["low"] > 0
    (0.2, True)
    """
    x = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise MetricInputError("paired scores must be two equal-length, non-empty sequences")
    if not 0.0 < level < 1.0:
        raise MetricInputError(f"the confidence level must be in (0, 1), got {level}")
    means = x[bootstrap_indices(x.size, draws=draws, seed=seed)].mean(axis=1)
    tail = (1.0 - level) / 2.0
    return {
        "mean": float(x.mean()),
        "low": float(np.quantile(means, tail)),
        "high": float(np.quantile(means, 1.0 - tail)),
        "p_not_better": float((means <= 0).mean()),
        "n": int(x.size),
    }


def f1_difference(
    pred: Sequence[int],
    base: Sequence[int],
    gold: Sequence[int],
    *,
    draws: int = 4000,
    seed: int = 0,
) -> dict[str, float]:
    """F1(pred) − F1(base) in points over the same items, with a 95% bootstrap interval
    (items resampled together) and ``p_below``, the share of resamples in which `pred`'s F1
    is below `base`'s.

    >>> d = f1_difference([1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0], draws=200)
    >>> d["diff"], d["low"] <= d["diff"] <= d["high"]
    (33.33, True)
    """
    p, b, g = (np.asarray(x, dtype=bool) for x in (pred, base, gold))

    def f1(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return _prf(x, y)[2]

    idx = bootstrap_indices(g.size, draws=draws, seed=seed)
    diffs = 100 * (f1(p[idx], g[idx]) - f1(b[idx], g[idx]))
    return {
        "diff": round(float(100 * (f1(p, g) - f1(b, g))), 2),
        "low": round(float(np.quantile(diffs, 0.025)), 2),
        "high": round(float(np.quantile(diffs, 0.975)), 2),
        "p_below": round(float((diffs < 0).mean()), 4),
    }


def reliability_curve(
    y_true: Sequence[int], p: Sequence[float], *, bins: int = 10
) -> list[dict[str, float]]:
    """Equal-width bins of predicted probability: per non-empty bin its mean prediction,
    the observed frequency of the positive class and the number of items."""
    y, q = np.asarray(y_true, dtype=float), np.asarray(p, dtype=float)
    if y.shape != q.shape or y.ndim != 1 or y.size == 0:
        raise MetricInputError("labels and probabilities must be two equal, non-empty lists")
    if bins < 1:
        raise MetricInputError(f"bins must be at least 1, got {bins}")
    which = np.minimum((q * bins).astype(int), bins - 1)
    return [
        {"mean_predicted": float(q[which == b].mean()), "observed": float(y[which == b].mean()),
         "count": int((which == b).sum())}
        for b in range(bins)
        if (which == b).any()
    ]  # fmt: skip


def expected_calibration_error(
    y_true: Sequence[int], p: Sequence[float], *, bins: int = 10
) -> float:
    """ECE: the count-weighted mean gap between predicted probability and observed
    frequency over equal-width bins (0 = perfectly calibrated).

    >>> expected_calibration_error([0, 1, 1, 0], [0.1, 0.9, 0.9, 0.1])
    0.1
    """
    curve = reliability_curve(y_true, p, bins=bins)
    n = sum(c["count"] for c in curve)
    return round(sum(c["count"] * abs(c["mean_predicted"] - c["observed"]) for c in curve) / n, 6)


def macro_f1(pred: Sequence[int], gold: Sequence[int]) -> float:
    """The mean of the F1 of the positive and of the negative class, in % (2 decimals).

    >>> macro_f1([1, 1, 0, 0], [1, 0, 0, 0])
    73.33
    """
    p, g = np.asarray(pred, dtype=bool), np.asarray(gold, dtype=bool)
    pos = _prf(p, g)[2]
    neg = _prf(~p, ~g)[2]
    return round(float(100 * (pos + neg) / 2), 2)


def bootstrap_interval(
    metric,
    *columns: Sequence,
    groups: Sequence | None = None,
    draws: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, float | None]:
    """`metric(*columns)` on the items and a percentile bootstrap interval at `level`:
    items are resampled with replacement — whole `groups` together when given (rows that
    share a group are not independent) — and resamples where the metric is undefined
    (None, e.g. ROC AUC of one class) are skipped.

    >>> accuracy = lambda p, g: float(np.mean(np.equal(p, g)))
    >>> r = bootstrap_interval(accuracy, [1, 0, 1, 1], [1, 0, 0, 1])
    >>> r["value"], r["low"] <= r["value"] <= r["high"]
    (0.75, True)
    """
    cols = [np.asarray(c) for c in columns]
    if not cols or any(c.shape[0] != cols[0].shape[0] for c in cols) or cols[0].shape[0] == 0:
        raise MetricInputError("bootstrap columns must be equal-length and non-empty")
    if not 0.0 < level < 1.0:
        raise MetricInputError(f"the confidence level must be in (0, 1), got {level}")
    value = metric(*cols)
    n = cols[0].shape[0]
    if groups is None:
        picks = bootstrap_indices(n, draws=draws, seed=seed)
    else:
        labels = np.asarray([str(g) for g in groups])
        if labels.shape[0] != n:
            raise MetricInputError("groups must have one entry per item")
        names, inverse = np.unique(labels, return_inverse=True)
        members = [np.flatnonzero(inverse == k) for k in range(len(names))]
        chosen = bootstrap_indices(len(names), draws=draws, seed=seed)
        picks = [np.concatenate([members[k] for k in row]) for row in chosen]
    stats = []
    for idx in picks:
        v = metric(*(c[idx] for c in cols))
        if v is not None:
            stats.append(float(v))
    if value is None or not stats:
        return {"value": value, "low": None, "high": None, "draws": len(stats)}
    tail = (1.0 - level) / 2.0
    return {
        "value": float(value),
        "low": float(np.quantile(stats, tail)),
        "high": float(np.quantile(stats, 1.0 - tail)),
        "draws": len(stats),
    }
