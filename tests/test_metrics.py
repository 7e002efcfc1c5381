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
    assert paired_bootstrap([1, 2], [1, 2], seed=0) == paired_bootstrap([1, 2], [1, 2], seed=0)
    with pytest.raises(MetricInputError):
        paired_bootstrap([], [])
    with pytest.raises(MetricInputError):
        paired_bootstrap([1.0], [0.0], level=1.5)


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
