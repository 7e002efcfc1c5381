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

Classifications (labels True/False; every F1, AUC, bootstrap and paired test of causalqa
lives here, scikit-learn and scipy underneath where they already do the work):

- `f1_from_counts`: F1 from confusion counts, vectorised (every F1 below is this one).
- `binary_scores`, `macro_f1`, `micro_f1`, `roc_auc`, `expected_calibration_error`,
  `reliability_curve`: point values.
- `bootstrap_interval` (any metric, items or whole groups resampled), `paired_bootstrap`,
  `f1_difference`: percentile bootstrap intervals, all by `scipy.stats.bootstrap`.
- `paired_test` (t-test or Wilcoxon over folds), `mcnemar_exact` (per-item correctness).

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
  Bootstraps are `scipy.stats.bootstrap` (paired, percentile intervals); its resampled
  statistics also give the one-sided p-values reported beside the intervals.
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
    "bootstrap_interval",
    "expected_calibration_error",
    "expected_random_ndcg",
    "f1",
    "f1_difference",
    "f1_from_counts",
    "graph_metrics",
    "hamming_distance",
    "macro_f1",
    "mcnemar_exact",
    "micro_f1",
    "ndcg_at_k",
    "normalized_hamming_distance",
    "paired_bootstrap",
    "paired_test",
    "precision",
    "precision_recall_f1",
    "recall",
    "recall_at_k",
    "relevance_labels",
    "reliability_curve",
    "roc_auc",
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


def f1_from_counts(tp, fp, fn) -> np.ndarray:
    """F1 = 2·tp / (2·tp + fp + fn) from confusion counts (scalars or arrays of equal
    shape, element by element); 0 where the class is absent and never predicted (the
    ratio is undefined: scikit-learn's ``zero_division=0``).

    >>> f1_from_counts(2, 1, 1).item(), f1_from_counts([0, 1], [0, 0], [0, 1]).tolist()
    (0.6666666666666666, [0.0, 0.6666666666666666])
    """
    tp, fp, fn = (np.asarray(x, dtype=float) for x in (tp, fp, fn))
    den = 2 * tp + fp + fn
    return np.divide(2 * tp, den, out=np.zeros(np.broadcast(tp, den).shape), where=den > 0)


def _prf(pred: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and F1 of the positive class over the last axis of two boolean
    arrays, each in [0, 1]; an undefined ratio (nothing predicted, nothing true) is 0."""
    tp = (pred & gold).sum(axis=-1)
    n_pred, n_true = pred.sum(axis=-1), gold.sum(axis=-1)
    prec = np.where(n_pred > 0, tp / np.maximum(n_pred, 1), 0.0)
    rec = np.where(n_true > 0, tp / np.maximum(n_true, 1), 0.0)
    return prec, rec, f1_from_counts(tp, n_pred - tp, n_true - tp)


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


def roc_auc(
    scores: Sequence[float], gold: Sequence[int], *, digits: int | None = 4
) -> float | None:
    """Area under the ROC curve of `scores` for the positive class (scikit-learn; ties
    count half), rounded to `digits` decimals (None: unrounded); None when `gold` has one
    class only.

    >>> roc_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    0.75
    """
    from sklearn.metrics import roc_auc_score

    g = np.asarray(gold, dtype=bool)
    if g.all() or not g.any():
        return None
    auc = float(roc_auc_score(g, np.asarray(scores, dtype=float)))
    return auc if digits is None else round(auc, digits)


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


def _bootstrap(
    data: tuple[np.ndarray, ...],
    statistic,
    *,
    draws: int,
    level: float,
    seed: int,
    vectorized: bool = True,
) -> np.ndarray:
    """The bootstrap distribution of `statistic` over paired items (all arrays resampled
    together), by `scipy.stats.bootstrap` with percentile intervals. NaN marks a resample
    where the statistic is undefined (scipy's own interval is then not used)."""
    import warnings

    from scipy.stats import bootstrap

    if not 0.0 < level < 1.0:
        raise MetricInputError(f"the confidence level must be in (0, 1), got {level}")
    if data[0].size < 2:
        raise MetricInputError(
            f"a bootstrap needs at least two paired items, got {data[0].size}",
            hint="one item has no spread to resample",
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NaN resamples in scipy's interval
        result = bootstrap(
            data,
            statistic,
            paired=True,
            vectorized=vectorized,
            n_resamples=draws,
            confidence_level=level,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    return np.asarray(result.bootstrap_distribution, dtype=float)


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    draws: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, float]:
    """The mean of ``a - b`` over paired items (queries) with a percentile bootstrap
    interval at `level` (`scipy.stats.bootstrap`), and the share of resamples whose mean
    is at or below 0 (a one-sided bootstrap p-value for "a beats b").

    >>> r = paired_bootstrap([0.6, 0.7, 0.8], [0.5, 0.5, 0.5])
    >>> round(r["mean"], 3), r["low"] > 0
    (0.2, True)
    """
    x = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise MetricInputError("paired scores must be two equal-length, non-empty sequences")
    means = _bootstrap(
        (x,), lambda v, axis=-1: v.mean(axis=axis), draws=draws, level=level, seed=seed
    )
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
    """F1(pred) − F1(base) in points over the same items, with a 95% percentile bootstrap
    interval (items resampled together, `scipy.stats.bootstrap`) and ``p_below``, the
    share of resamples in which `pred`'s F1 is below `base`'s.

    >>> d = f1_difference([1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0], draws=200)
    >>> d["diff"], d["low"] <= d["diff"] <= d["high"]
    (33.33, True)
    """
    p, b, g = (np.asarray(x, dtype=bool) for x in (pred, base, gold))
    if not p.shape == b.shape == g.shape or g.ndim != 1:
        raise MetricInputError("predictions, baseline and gold must be equal-length lists")

    def diff(p: np.ndarray, b: np.ndarray, g: np.ndarray, axis: int = -1) -> np.ndarray:
        return 100 * (_prf(p, g)[2] - _prf(b, g)[2])

    diffs = _bootstrap((p, b, g), diff, draws=draws, level=0.95, seed=seed)
    return {
        "diff": round(float(diff(p, b, g)), 2),
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


def macro_f1(pred: Sequence[int], gold: Sequence[int], *, digits: int | None = 2) -> float:
    """The mean of the F1 of the positive and of the negative class, in %, rounded to
    `digits` decimals (None: unrounded). Equal to scikit-learn's
    ``100 * f1_score(gold, pred, average="macro", labels=[True, False], zero_division=0)``
    to the last bit.

    >>> macro_f1([1, 1, 0, 0], [1, 0, 0, 0])
    73.33
    """
    p, g = np.asarray(pred, dtype=bool), np.asarray(gold, dtype=bool)
    if p.shape != g.shape:
        raise MetricInputError(f"{p.shape[0]} predictions for {g.shape[0]} gold labels")
    pos = _prf(p, g)[2]
    neg = _prf(~p, ~g)[2]
    value = float(100 * (pos + neg) / 2)
    return value if digits is None else round(value, digits)


def micro_f1(pred: Sequence[int], gold: Sequence[int], *, digits: int | None = 2) -> float:
    """Micro-averaged F1 over the labels True and False, in %, rounded to `digits`
    decimals (None: unrounded): with both labels counted every wrong item is one false
    positive and one false negative, so it is the share of items right.

    >>> micro_f1([1, 1, 0, 0], [1, 0, 0, 0])
    75.0
    """
    p, g = np.asarray(pred, dtype=bool), np.asarray(gold, dtype=bool)
    if p.shape != g.shape or p.size == 0:
        raise MetricInputError("predictions and gold labels must be equal, non-empty lists")
    right = int((p == g).sum())
    value = float(100 * f1_from_counts(right, p.size - right, p.size - right))
    return value if digits is None else round(value, digits)


def bootstrap_interval(
    metric,
    *columns: Sequence,
    groups: Sequence | None = None,
    draws: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, float | None]:
    """`metric(*columns)` on the items and a percentile bootstrap interval at `level`
    (`scipy.stats.bootstrap` over the items, or over whole `groups` when given: rows that
    share a group are not independent); resamples where the metric is undefined (None,
    e.g. ROC AUC of one class) are skipped. ``p_not_above_0`` is the share of resamples
    whose metric is at or below 0: for a difference of two methods, a one-sided
    bootstrap p-value for "the first is better".

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
        members = [np.array([i]) for i in range(n)]
    else:
        labels = np.asarray([str(g) for g in groups])
        if labels.shape[0] != n:
            raise MetricInputError("groups must have one entry per item")
        names, inverse = np.unique(labels, return_inverse=True)
        members = [np.flatnonzero(inverse == k) for k in range(len(names))]

    def statistic(units: np.ndarray) -> float:
        v = metric(*(c[np.concatenate([members[k] for k in units])] for c in cols))
        return np.nan if v is None else float(v)

    if len(members) == 1:  # one unit: every resample is the whole sample
        stats = [] if value is None else [float(value)] * draws
    else:
        dist = _bootstrap(
            (np.arange(len(members)),),
            statistic,
            draws=draws,
            level=level,
            seed=seed,
            vectorized=False,
        )
        stats = dist[~np.isnan(dist)].tolist()
    if value is None or not stats:
        return {
            "value": value, "low": None, "high": None, "draws": len(stats), "p_not_above_0": None
        }  # fmt: skip
    tail = (1.0 - level) / 2.0
    return {
        "value": float(value),
        "low": float(np.quantile(stats, tail)),
        "high": float(np.quantile(stats, 1.0 - tail)),
        "draws": len(stats),
        "p_not_above_0": float(np.mean(np.asarray(stats) <= 0)),
    }


def paired_test(
    a: Sequence[float | None], b: Sequence[float | None], method: str = "ttest"
) -> float | None:
    """Two-sided p-value of a paired test of two methods' scores over the same folds
    (``ttest``: `scipy.stats.ttest_rel`; ``wilcoxon``: `scipy.stats.wilcoxon`). Pairs with
    a missing score are left out; None with fewer than 2 pairs; 1.0 when the two series
    are identical, 0.0 (t-test) when they differ by a constant.

    >>> paired_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    1.0
    """
    import math

    from scipy import stats

    if method not in ("ttest", "wilcoxon"):
        raise MetricInputError(f"unknown paired test {method!r}", hint="use ttest or wilcoxon")
    pairs = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    if len(pairs) < 2:
        return None
    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs], dtype=float)
    d = x - y
    if np.allclose(d, 0):
        return 1.0
    if method == "ttest":
        if np.allclose(d, d[0]):  # constant non-zero difference: t is infinite
            return 0.0
        p = stats.ttest_rel(x, y).pvalue
    else:
        p = stats.wilcoxon(x, y).pvalue
    return None if p is None or math.isnan(p) else float(p)


def mcnemar_exact(better: int, worse: int) -> float:
    """Two-sided p-value of an exact McNemar test: of the items two methods disagree on,
    `better` are right only under the first and `worse` only under the second (a
    binomial test of `better` of ``better + worse`` at 1/2, `scipy.stats.binomtest`); 1.0
    when they never disagree.

    >>> round(mcnemar_exact(9, 1), 4)
    0.0215
    """
    from scipy.stats import binomtest

    if better < 0 or worse < 0:
        raise MetricInputError(f"counts must be non-negative, got {better} and {worse}")
    if better + worse == 0:
        return 1.0
    return float(binomtest(int(better), int(better + worse)).pvalue)
