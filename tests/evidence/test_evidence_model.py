"""The evidence model on small synthetic sets: it learns, its probabilities are
calibrated, it explains with the feature that matters, it keeps groups apart, and its
files are checked."""

from __future__ import annotations

import numpy as np
import pytest

from causalqa.errors import DataFileError, EvidenceModelError
from causalqa.evidence import EvidenceModel, choose_threshold, grouped_folds
from causalqa.metrics import expected_calibration_error


def synthetic(n=600, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    logits = 2.5 * X[:, 0] - 0.2 * X[:, 2]
    if classes == 2:
        y = (rng.random(n) < 1 / (1 + np.exp(-logits))).astype(int)
    else:
        y = np.digitize(logits + rng.normal(scale=0.5, size=n), [-1.0, 1.0])
    groups = np.repeat(np.arange(n // 3), 3)
    return X, y, groups


@pytest.mark.parametrize("kind", ["xgboost", "logistic"])
def test_learns_calibrates_and_explains(kind):
    X, y, groups = synthetic()
    m = EvidenceModel(kind=kind, calibration="sigmoid").fit(
        X[:400], y[:400], feature_names=["signal", "noise", "weak"], groups=groups[:400]
    )
    p = m.predict_proba(X[400:])[:, 1]
    accuracy = ((p > 0.5) == y[400:]).mean()
    assert accuracy > 0.7  # chance is 0.5; the noise in the labels caps it near 0.8
    assert expected_calibration_error(y[400:], p) < 0.12
    top = m.explain(X[400], top=3)
    assert top[0].feature == "signal" and len(top) == 3
    # A large signal pushes towards class 1, a very negative one away from it.
    assert m.contributions(np.array([[3.0, 0, 0]]))[0, 0] > 0
    assert m.contributions(np.array([[-3.0, 0, 0]]))[0, 0] < 0


def test_three_classes():
    X, y, groups = synthetic(classes=3)
    m = EvidenceModel(kind="xgboost").fit(X, y, feature_names=["a", "b", "c"], groups=groups)
    p = m.predict_proba(X[:5])
    assert p.shape == (5, 3) and np.allclose(p.sum(axis=1), 1.0)
    assert list(m.classes_) == [0, 1, 2]
    assert m.contributions(X[:5], class_index=2).shape == (5, 3)


def test_grouped_folds_never_split_a_group():
    groups = ["r1", "r1", "r2", "r3", "r3", "r3", "r4", "r5"]
    for train, test in grouped_folds(groups, 3, seed=1):
        assert not {groups[i] for i in train} & {groups[i] for i in test}
    with pytest.raises(EvidenceModelError, match="cannot make 9 folds of 5 groups"):
        grouped_folds(groups, 9)


def test_choose_threshold_on_training_labels():
    y = [0, 0, 0, 1, 1, 1]
    p = [0.1, 0.2, 0.35, 0.4, 0.8, 0.9]
    t = choose_threshold(y, p)
    assert 0.35 < t <= 0.4
    assert choose_threshold([1, 1], [0.2, 0.3]) == 0.5


@pytest.mark.parametrize("metric", ["f1", "macro_f1", "balanced"])
def test_choose_threshold_agrees_with_scikit_learn_at_every_cut(metric):
    from sklearn.metrics import balanced_accuracy_score, f1_score

    def slow(y, p):  # one scikit-learn score per cut, as the threshold is defined
        cuts = np.unique(np.concatenate([[0.0, 1.0], (p[:-1] + p[1:]) / 2, p]))
        if metric == "balanced":
            scores = np.array([balanced_accuracy_score(y, p >= t) for t in cuts])
        else:
            avg = "binary" if metric == "f1" else "macro"
            scores = np.array([f1_score(y, p >= t, average=avg, zero_division=0) for t in cuts])
        return float(np.clip(cuts[scores >= scores.max() - 1e-12].mean(), 1e-6, 1 - 1e-6))

    rng = np.random.default_rng(3)
    for n, share in [(7, 0.3), (200, 0.1), (300, 0.5)]:
        y = (rng.random(n) < share).astype(int)
        y[0], y[1] = 1, 0
        p = np.round(np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1), 2)  # ties included
        assert choose_threshold(y, p, metric=metric) == pytest.approx(slow(y, p), abs=1e-12)


def test_a_balanced_accuracy_threshold_does_not_move_with_the_class_balance():
    # scores of positives ~ N(0.65, 0.1), negatives ~ N(0.35, 0.1): balanced accuracy is
    # best where the two densities cross, 0.5, whatever the share of positives; F1's
    # threshold falls as positives get commoner
    rng = np.random.default_rng(0)
    thresholds = {}
    for share in (0.1, 0.5):
        n_pos = int(1000 * share)
        p = np.concatenate([rng.normal(0.65, 0.1, n_pos), rng.normal(0.35, 0.1, 1000 - n_pos)])
        y = np.array([1] * n_pos + [0] * (1000 - n_pos))
        thresholds[share] = (
            choose_threshold(y, p, metric="balanced"),
            choose_threshold(y, p, metric="f1"),
        )
    assert thresholds[0.1][0] == pytest.approx(0.5, abs=0.05)
    assert thresholds[0.5][0] == pytest.approx(0.5, abs=0.05)
    assert thresholds[0.1][1] > thresholds[0.5][1] + 0.05
    with pytest.raises(EvidenceModelError, match="unknown threshold metric"):
        choose_threshold(y, p, metric="balance")


def test_misuse_is_a_clear_error():
    X, y, _ = synthetic(60)
    with pytest.raises(EvidenceModelError, match="not fitted"):
        EvidenceModel().predict_proba(X)
    with pytest.raises(EvidenceModelError, match="must agree"):
        EvidenceModel().fit(X, y, feature_names=["a"])
    with pytest.raises(EvidenceModelError, match="one class"):
        EvidenceModel().fit(X, np.zeros(60), feature_names=["a", "b", "c"])
    m = EvidenceModel(kind="logistic").fit(X, y, feature_names=["a", "b", "c"])
    with pytest.raises(EvidenceModelError, match="2 features given"):
        m.predict_proba(X[:, :2])


def test_save_and_load_check_the_file(tmp_path):
    X, y, _ = synthetic(120)
    m = EvidenceModel(kind="logistic").fit(X, y, feature_names=["a", "b", "c"])
    path = m.save(tmp_path / "m.pkl", info={"command": "test"})
    again = EvidenceModel.load(path)
    assert np.allclose(again.predict_proba(X), m.predict_proba(X))
    assert again.manifest_["info"] == {"command": "test"} and again.manifest_["features"] == [
        "a",
        "b",
        "c",
    ]
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(DataFileError, match="does not match its manifest"):
        EvidenceModel.load(path)
    with pytest.raises(DataFileError, match="no evidence model"):
        EvidenceModel.load(tmp_path / "missing.pkl")


def test_an_artefact_that_is_not_a_model_is_a_clear_error(tmp_path):
    import hashlib
    import pickle

    from causalqa.evidence.model import read_artefact, write_artefact

    for name, blob in (("junk.pkl", b"not a pickle"), ("list.pkl", pickle.dumps([1, 2]))):
        path = write_artefact(tmp_path / name, blob, {"sha256": hashlib.sha256(blob).hexdigest()})
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(name)) == [
            name,
            f"{name}.json",
        ]  # no temporary file left
        with pytest.raises(DataFileError, match="cannot be read|holds no evidence model") as e:
            read_artefact(path, EvidenceModel, what="evidence model", hint="rebuild it")
        assert e.value.hint == "rebuild it" and e.value.path == str(path)
    (tmp_path / "list.pkl.json").write_text("[1]")
    with pytest.raises(DataFileError, match="does not match its manifest"):
        EvidenceModel.load(tmp_path / "list.pkl")
