"""Graph and ranking metrics on hand-made cases with known values."""

from __future__ import annotations

import numpy as np
import pytest

from causalqa.metrics import (
    MetricInputError,
    expected_random_ndcg,
    f1,
    graph_metrics,
    hamming_distance,
    ndcg_at_k,
    normalized_hamming_distance,
    paired_bootstrap,
    precision,
    precision_recall_f1,
    recall,
    recall_at_k,
    relevance_labels,
    shd,
)


def adj(n: int, edges: list[tuple[int, int]]) -> np.ndarray:
    a = np.zeros((n, n), dtype=int)
    for i, j in edges:
        a[i, j] = 1
    return a


# truth: 0→1, 1→2, 2→3 over 4 variables
TRUE = adj(4, [(0, 1), (1, 2), (2, 3)])


def test_identical_graphs_are_perfect():
    assert precision_recall_f1(TRUE, TRUE) == (1.0, 1.0, 1.0)
    assert shd(TRUE, TRUE) == 0
    assert hamming_distance(TRUE, TRUE) == 0
    assert normalized_hamming_distance(TRUE, TRUE) == 0.0


def test_one_reversed_one_missing_one_extra():
    # 1→0 reversed, 1→2 kept, 2→3 missing, 0→3 extra
    pred = adj(4, [(1, 0), (1, 2), (0, 3)])
    assert precision(pred, TRUE) == pytest.approx(1 / 3)
    assert recall(pred, TRUE) == pytest.approx(1 / 3)
    assert f1(pred, TRUE) == pytest.approx(1 / 3)
    assert shd(pred, TRUE) == 3  # reversal 1 + missing 1 + extra 1
    assert hamming_distance(pred, TRUE) == 4  # reversal counts 2 entries
    assert normalized_hamming_distance(pred, TRUE) == pytest.approx(4 / 16)


def test_undirected_edge_counts_once_in_shd_and_one_false_positive():
    pred = adj(4, [(0, 1), (1, 0), (1, 2), (2, 3)])  # 0 — 1 left undirected
    p, r, _ = precision_recall_f1(pred, TRUE)
    assert (p, r) == (pytest.approx(3 / 4), 1.0)
    assert shd(pred, TRUE) == 1
    assert hamming_distance(pred, TRUE) == 1


def test_empty_prediction_has_zero_precision_not_nan():
    empty = np.zeros((4, 4), dtype=int)
    assert precision_recall_f1(empty, TRUE) == (0.0, 0.0, 0.0)
    assert shd(empty, TRUE) == 3
    assert hamming_distance(empty, TRUE) == 3


def test_diagonal_is_ignored():
    pred = TRUE.copy()
    pred[2, 2] = 1
    assert hamming_distance(pred, TRUE) == 0


def test_paper_nhd_is_hd_over_n_squared():
    # Table 3: HD 24 over 11 variables → NHD 0.198
    true = np.zeros((11, 11), dtype=int)
    pred = np.zeros((11, 11), dtype=int)
    flat = [(i, j) for i in range(11) for j in range(11) if i != j]
    for i, j in flat[:24]:
        pred[i, j] = 1
    assert hamming_distance(pred, true) == 24
    assert round(normalized_hamming_distance(pred, true), 3) == 0.198


def test_graph_metrics_bundle():
    pred = adj(4, [(1, 0), (1, 2), (0, 3)])
    m = graph_metrics(pred, TRUE)
    assert m["precision"] == 33.33 and m["shd"] == 3 and m["hd"] == 4 and m["nhd"] == 0.25
    assert (m["edges_predicted"], m["edges_true"], m["edges_correct"]) == (3, 3, 1)


def test_bad_inputs_raise():
    with pytest.raises(MetricInputError, match="shapes differ"):
        shd(np.zeros((3, 3)), np.zeros((4, 4)))
    with pytest.raises(MetricInputError, match="square"):
        shd(np.zeros((3, 4)), np.zeros((3, 4)))
    with pytest.raises(MetricInputError, match="only 0 and 1"):
        shd(np.full((2, 2), 2), np.zeros((2, 2)))


# -- ranking ------------------------------------------------------------------------------


def test_relevance_labels_grade_by_rank_with_ties():
    assert relevance_labels([3.2, -1.5, 0.7]).tolist() == [3, 1, 2]
    assert relevance_labels([1.0, 1.0, -2.0]).tolist() == [2, 2, 1]


def test_ndcg_exact_values():
    labels = [3, 2, 1]  # gains 7, 3, 1
    assert ndcg_at_k(labels, [0, 1, 2]) == pytest.approx(1.0)
    dcg = 1 + 3 / np.log2(3) + 7 / 2
    ideal = 7 + 3 / np.log2(3) + 1 / 2
    assert ndcg_at_k(labels, [2, 1, 0]) == pytest.approx(dcg / ideal)
    # k cuts the list: only the first position counts at k=1
    assert ndcg_at_k(labels, [1, 0, 2], k=1) == pytest.approx(3 / 7)
    assert ndcg_at_k([0, 0], [1, 0]) == 0.0


def test_recall_as_table_d2_and_with_relevant_flags():
    labels = [7, 6, 5, 4, 3, 2, 1]
    assert recall_at_k(labels, range(7), k=5) == pytest.approx(5 / 7)
    assert recall_at_k(labels, [6, 5, 4, 3, 2, 1, 0], k=5) == pytest.approx(5 / 7)
    right = [True, False, False, False, False, False, True]
    assert recall_at_k(labels, [1, 2, 3, 4, 5, 0, 6], k=5, relevant=right) == 0.0
    assert recall_at_k(labels, [0, 1, 2, 3, 4, 5, 6], k=5, relevant=right) == 0.5
    assert recall_at_k(labels, range(7), k=5, relevant=[False] * 7) is None


def test_order_must_be_a_permutation():
    with pytest.raises(MetricInputError, match="permutation"):
        ndcg_at_k([1, 2, 3], [0, 0, 1])


def test_expected_random_ndcg_is_the_mean_over_all_orders():
    import itertools

    for labels in ([3, 2, 1], [7, 6, 5, 4, 3, 2, 1][:5], [2, 2, 1, 1]):
        orders = list(itertools.permutations(range(len(labels))))
        brute = np.mean([ndcg_at_k(labels, o, k=2) for o in orders])
        assert expected_random_ndcg(labels, k=2) == pytest.approx(brute)
    assert expected_random_ndcg([1]) == 1.0  # one candidate: every order is ideal
    assert expected_random_ndcg([0, 0]) == 0.0
    with pytest.raises(MetricInputError):
        expected_random_ndcg([])


def test_paired_bootstrap_tells_a_real_gain_from_noise():
    rng = np.random.default_rng(1)
    base = rng.random(40)
    better = paired_bootstrap(base + 0.1, base)
    assert better["mean"] == pytest.approx(0.1)
    assert better["low"] == pytest.approx(0.1) and better["p_not_better"] == 0.0
    noise = paired_bootstrap(base + rng.normal(0, 0.2, 40), base, seed=3)
    assert noise["low"] < 0 < noise["high"] and noise["p_not_better"] > 0.05
    # The seed decides the resamples: the same seed repeats an interval, another moves
    # it (inputs with spread; identical pairs would give every seed the same answer).
    a, b = base + rng.normal(0, 0.2, 40), base
    assert paired_bootstrap(a, b, seed=0, draws=500) == paired_bootstrap(a, b, seed=0, draws=500)
    assert paired_bootstrap(a, b, seed=0, draws=500) != paired_bootstrap(a, b, seed=1, draws=500)
    with pytest.raises(MetricInputError):
        paired_bootstrap([], [])
    with pytest.raises(MetricInputError):
        paired_bootstrap([1.0, 2.0], [0.0, 1.0], level=1.5)
    with pytest.raises(MetricInputError, match="at least two"):
        paired_bootstrap([1.0], [0.0])


def test_bootstrap_intervals_are_scipys_percentile_intervals():
    from scipy.stats import bootstrap

    rng = np.random.default_rng(4)
    x = rng.normal(0.05, 0.2, 30)
    ours = paired_bootstrap(x, np.zeros(30), draws=2000, level=0.9, seed=7)
    ref = bootstrap((x,), np.mean, n_resamples=2000, confidence_level=0.9,
                    method="percentile", rng=np.random.default_rng(7))  # fmt: skip
    assert ours["low"] == pytest.approx(ref.confidence_interval.low)
    assert ours["high"] == pytest.approx(ref.confidence_interval.high)
    assert ours["p_not_better"] == pytest.approx((ref.bootstrap_distribution <= 0).mean())


def test_f1_difference_resamples_items_together():
    from causalqa.metrics import f1_difference

    gold = [1, 1, 1, 0, 0, 0, 1, 0] * 5
    same = f1_difference(gold, gold, gold, draws=300)
    assert same == {"diff": 0.0, "low": 0.0, "high": 0.0, "p_below": 0.0}
    better = f1_difference(gold, [1, 0, 0, 0, 0, 0, 1, 0] * 5, gold, draws=300, seed=2)
    assert better["diff"] == 33.33 and 0 < better["low"] <= 33.33 <= better["high"]
    assert better["p_below"] == 0.0
    with pytest.raises(MetricInputError):
        f1_difference([1, 0], [1], [1, 0])


def test_macro_f1_and_grouped_bootstrap_interval():
    from causalqa.metrics import bootstrap_interval, macro_f1, roc_auc

    assert macro_f1([1, 1, 0, 0], [1, 0, 0, 0]) == 73.33
    assert macro_f1([1, 0], [1, 0]) == 100.0
    gold = [1, 1, 0, 0, 1, 0]
    score = [0.9, 0.8, 0.1, 0.2, 0.7, 0.3]
    r = bootstrap_interval(roc_auc, score, gold, draws=300)
    assert r["value"] == 1.0 and r["low"] == 1.0 and r["draws"] <= 300
    # groups resample together: one group holding every item gives the same value each time
    same = bootstrap_interval(
        lambda s, g: float(np.mean(s)), score, gold, groups=["x"] * 6, draws=50
    )
    assert same["low"] == same["high"] == pytest.approx(np.mean(score))
    with pytest.raises(MetricInputError):
        bootstrap_interval(roc_auc, [0.1], [1, 0])


def test_bootstrap_interval_is_scipys_percentile_interval():
    from scipy.stats import bootstrap

    from causalqa.metrics import bootstrap_interval

    x = np.random.default_rng(3).normal(0.3, 1.0, 25)
    ours = bootstrap_interval(lambda v: float(np.mean(v)), x, draws=500, level=0.9, seed=5)
    ref = bootstrap((x,), np.mean, n_resamples=500, confidence_level=0.9,
                    method="percentile", rng=np.random.default_rng(5))  # fmt: skip
    assert ours["low"] == pytest.approx(ref.confidence_interval.low)
    assert ours["high"] == pytest.approx(ref.confidence_interval.high)
    assert ours["draws"] == 500


# -- one macro F1, one bootstrap: the copies that were written elsewhere give these numbers --


def _labels(seed: int, n: int, p_true: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    gold = rng.random(n) < p_true
    pred = np.where(rng.random(n) < 0.7, gold, ~gold)
    return pred, gold


@pytest.mark.parametrize("seed", range(30))
def test_macro_and_micro_f1_are_scikit_learns_to_the_last_bit(seed):
    from sklearn.metrics import f1_score

    from causalqa.metrics import macro_f1, micro_f1

    n = int(np.random.default_rng(100 + seed).integers(1, 60))
    pred, gold = _labels(seed, n, p_true=[0.0, 0.2, 0.5, 1.0][seed % 4])
    kw = {"labels": [True, False], "zero_division": 0}
    macro = 100 * float(f1_score(gold, pred, average="macro", **kw))
    micro = 100 * float(f1_score(gold, pred, average="micro", **kw))
    assert macro_f1(pred, gold, digits=None) == macro
    assert micro_f1(pred, gold, digits=None) == micro
    assert macro_f1(pred, gold, digits=4) == round(macro, 4)
    assert macro_f1(pred, gold) == round(macro, 2)


def test_f1_from_counts_by_hand():
    from causalqa.metrics import f1_from_counts

    # tp 3, fp 1, fn 2: precision 3/4, recall 3/5, F1 = 2·3 / (2·3 + 1 + 2) = 2/3
    assert f1_from_counts(3, 1, 2) == pytest.approx(2 / 3)
    assert f1_from_counts([0, 0], [0, 2], [0, 1]).tolist() == [0.0, 0.0]  # absent, all wrong


def test_micro_f1_is_the_share_right():
    from causalqa.metrics import micro_f1

    # 3 of 4 right
    assert micro_f1([1, 1, 0, 0], [1, 0, 0, 0]) == 75.0
    with pytest.raises(MetricInputError):
        micro_f1([], [])


def test_roc_auc_digits():
    from causalqa.metrics import roc_auc

    # positives 0.35, 0.8 against negatives 0.1, 0.4: 3 of the 4 pairs ordered right
    assert roc_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], digits=None) == 0.75
    # one negative (0.5) under two of three positives: 2/3
    assert roc_auc([0.5, 0.4, 0.6, 0.7], [0, 1, 1, 1], digits=None) == pytest.approx(2 / 3)
    assert roc_auc([0.5, 0.4, 0.6, 0.7], [0, 1, 1, 1]) == 0.6667
    assert roc_auc([0.5, 0.4, 0.6, 0.7], [0, 1, 1, 1], digits=2) == 0.67


def test_paired_test_by_hand():
    from scipy import stats

    from causalqa.metrics import paired_test

    a, b = [70.0, 72.0, 71.0, 69.0, 73.0], [60.0, 63.0, 60.5, 59.0, 64.0]
    assert paired_test(a, a) == 1.0
    assert paired_test(a, [x - 5 for x in a]) == 0.0  # constant shift: t is infinite
    assert paired_test([1.0, None, 3.0], [2.0, 5.0, None]) is None  # one complete pair
    # differences 10, 9, 10.5, 10, 9: t = mean / (sd / √5)
    d = np.array(a) - np.array(b)
    t = d.mean() / (d.std(ddof=1) / np.sqrt(5))
    assert paired_test(a, b) == pytest.approx(2 * stats.t.sf(t, df=4))
    # Wilcoxon, 5 positive differences: the exact two-sided p is 2/2⁵
    assert paired_test(a, b, "wilcoxon") == pytest.approx(2 / 32)
    with pytest.raises(MetricInputError, match="unknown paired test"):
        paired_test(a, b, "sign")


def test_mcnemar_exact_by_hand():
    from causalqa.metrics import mcnemar_exact

    # 9 of 10 disagreements favour the first: P = 2·(C(10,9) + C(10,10)) / 2¹⁰ = 22/1024
    assert mcnemar_exact(9, 1) == pytest.approx(22 / 1024)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0
    with pytest.raises(MetricInputError):
        mcnemar_exact(-1, 2)


def test_bootstrap_interval_reports_the_share_of_resamples_at_or_below_zero():
    from scipy.stats import bootstrap

    from causalqa.metrics import bootstrap_interval

    x = np.random.default_rng(8).normal(0.1, 1.0, 20)
    ours = bootstrap_interval(lambda v: float(np.mean(v)), x, draws=400, seed=2)
    ref = bootstrap((x,), np.mean, n_resamples=400, method="percentile",
                    rng=np.random.default_rng(2))  # fmt: skip
    assert ours["p_not_above_0"] == pytest.approx((ref.bootstrap_distribution <= 0).mean())
    none = bootstrap_interval(lambda v: None, x, draws=10)
    assert none["low"] is None and none["p_not_above_0"] is None


def test_grouped_bootstrap_skips_resamples_where_the_metric_is_undefined():
    from causalqa.metrics import bootstrap_interval, macro_f1

    # two groups: one all True, one all False; a resample of one group has one class
    gold = np.array([1, 1, 0, 0], dtype=bool)
    pred = np.array([1, 0, 0, 0], dtype=bool)

    def f1(g, p):
        return None if g.all() or not g.any() else macro_f1(p, g, digits=None)

    r = bootstrap_interval(f1, gold, pred, groups=["a", "a", "b", "b"], draws=200, seed=0)
    # only resamples with both groups count, and then the sample is the whole data set
    assert r["low"] == r["high"] == r["value"] == pytest.approx(100 * (2 / 3 + 4 / 5) / 2)
    assert 0 < r["draws"] < 200
