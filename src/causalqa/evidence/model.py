"""`EvidenceModel`: a calibrated classifier over named evidence features, in scikit-learn's
manner (parameters in the constructor, ``fit`` returns ``self``, learned state ends in
``_``), that can say which features moved each verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from causalqa.errors import EvidenceModelError
from causalqa.evidence.artefact import load_artefact, save_state, write_artefact
from causalqa.evidence.artefact import load_artefact as read_artefact
from causalqa.metrics import f1_from_counts

Kind = Literal["xgboost", "logistic"]
Calibration = Literal["isotonic", "sigmoid"]


@dataclass(frozen=True)
class Contribution:
    """How much one feature moved a verdict: its value and its contribution to the
    log-odds of the class explained (positive: towards it)."""

    feature: str
    value: float
    contribution: float

    def to_dict(self) -> dict[str, Any]:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}


def grouped_folds(
    groups: Sequence[Any], n_folds: int, *, seed: int = 0
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train indices, test indices) of `n_folds` folds in which no group (a report, a
    drug, a pair) has items on both sides; groups are shuffled by `seed`."""
    from sklearn.model_selection import GroupKFold

    groups = np.asarray([str(g) for g in groups])
    n_groups = len(set(groups.tolist()))
    if n_folds < 2 or n_folds > n_groups:
        raise EvidenceModelError(
            f"cannot make {n_folds} folds of {n_groups} groups",
            hint="use at least 2 folds and no more folds than groups",
        )
    splitter = GroupKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(groups)), groups=groups))


def choose_threshold(
    y_true: Sequence[Any],
    p: Sequence[float],
    *,
    metric: Literal["f1", "macro_f1", "balanced"] = "f1",
) -> float:
    """The probability threshold that maximises `metric` (F1 of the positive class, the
    macro F1 of both, or ``"balanced"`` accuracy — the mean of the two classes' recalls,
    which does not depend on how common each class is, so a threshold chosen on data of
    one class balance keeps its meaning on data of another) on these labels — to be
    chosen on training or validation data only. Ties go to the middle of the best range;
    one class only gives 0.5."""
    if metric not in ("f1", "macro_f1", "balanced"):
        raise EvidenceModelError(
            f"unknown threshold metric {metric!r}", hint="use f1, macro_f1 or balanced"
        )
    y = np.asarray(y_true).astype(bool)
    p = np.asarray(p, dtype=float)
    if y.all() or not y.any():
        return 0.5
    cuts = np.unique(np.concatenate([[0.0, 1.0], (p[:-1] + p[1:]) / 2 if p.size > 1 else [], p]))
    # Every cut's confusion counts at once (sorted scores, cumulative counts): O(n log n)
    # where one scikit-learn call per cut was O(n²).
    order = np.argsort(p, kind="stable")
    ps, ys = p[order], y[order]
    below = np.searchsorted(ps, cuts, side="left")  # how many scores fall below each cut
    pos_below = np.concatenate([[0], np.cumsum(ys)])[below]
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    tp = n_pos - pos_below
    fn = pos_below
    fp = n_neg - (below - pos_below)
    tn = below - pos_below
    if metric == "balanced":
        scores = (tp / n_pos + tn / n_neg) / 2
    elif metric == "f1":
        scores = f1_from_counts(tp, fp, fn)
    else:
        scores = (f1_from_counts(tp, fp, fn) + f1_from_counts(tn, fn, fp)) / 2
    best = np.flatnonzero(scores >= scores.max() - 1e-12)
    return float(np.clip(cuts[best].mean(), 1e-6, 1 - 1e-6))


class EvidenceModel:
    """A classifier over named features whose probabilities are calibrated.

    `kind`: ``"xgboost"`` (gradient-boosted trees; per-feature contributions are exact
    SHAP values from ``pred_contribs``) or ``"logistic"`` (standardised logistic
    regression; a contribution is coefficient × standardised value). `calibration`:
    ``"isotonic"`` or ``"sigmoid"`` (Platt), fitted on out-of-fold predictions of `cv`
    folds — grouped by `groups` when `fit` gets them, so that no report or drug is on both
    sides. `params` go to the underlying estimator.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
    >>> m = EvidenceModel(kind="logistic").fit(X, y, feature_names=["signal", "noise"])
    >>> m.explain(np.array([2.0, 0.0]))[0].feature
    'signal'
    """

    def __init__(
        self,
        *,
        kind: Kind = "xgboost",
        calibration: Calibration = "isotonic",
        cv: int = 5,
        seed: int = 0,
        params: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.calibration = calibration
        self.cv = cv
        self.seed = seed
        self.params = params

    # -- training ------------------------------------------------------------------------
    def _estimator(self, n_classes: int):
        params = dict(self.params or {})
        if self.kind == "xgboost":
            from xgboost import XGBClassifier

            defaults = dict(
                n_estimators=200,
                max_depth=3,
                learning_rate=0.05,
                subsample=0.9,
                colsample_bytree=0.9,
                min_child_weight=2.0,
                n_jobs=1,
                random_state=self.seed,
                eval_metric="logloss" if n_classes == 2 else "mlogloss",
            )
            return XGBClassifier(**{**defaults, **params})
        if self.kind == "logistic":
            from sklearn.linear_model import LogisticRegression
            from sklearn.pipeline import make_pipeline
            from sklearn.preprocessing import StandardScaler

            lr = LogisticRegression(**{"max_iter": 2000, "C": 1.0, **params})
            return make_pipeline(StandardScaler(), lr)
        raise EvidenceModelError(f"unknown kind {self.kind!r}", hint="use xgboost or logistic")

    def fit(
        self,
        X: Any,
        y: Sequence[Any],
        *,
        feature_names: Sequence[str],
        groups: Sequence[Any] | None = None,
    ) -> EvidenceModel:
        """Learn from the rows of `X` (one column per name of `feature_names`) and their
        labels `y`; `groups` keep related rows on one side of every calibration fold."""
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.model_selection import StratifiedKFold

        X = np.asarray(X, dtype=float)
        labels = np.asarray(y)
        if X.ndim != 2 or X.shape[0] != labels.shape[0] or X.shape[1] != len(feature_names):
            raise EvidenceModelError(
                f"X is {X.shape}, y has {labels.shape[0]} labels and there are "
                f"{len(feature_names)} feature names: they must agree"
            )
        self.classes_, y_index = np.unique(labels, return_inverse=True)
        if len(self.classes_) < 2:
            raise EvidenceModelError("the training labels hold one class only")
        counts = np.bincount(y_index)
        if groups is not None:
            n_groups = len(set(map(str, groups)))
            folds = min(self.cv, n_groups)
            splits = grouped_folds(groups, folds, seed=self.seed) if folds >= 2 else None
        else:
            folds = min(self.cv, int(counts.min()))
            splits = (
                list(StratifiedKFold(folds, shuffle=True, random_state=self.seed).split(X, y_index))
                if folds >= 2
                else None
            )
        if splits is None:
            raise EvidenceModelError("too few examples per class (or groups) to calibrate")
        base = self._estimator(len(self.classes_))
        model = CalibratedClassifierCV(base, method=self.calibration, cv=splits, ensemble=False)
        model.fit(X, y_index)
        self.model_ = model
        self.feature_names_ = list(feature_names)
        self.n_features_in_ = X.shape[1]
        self.base_ = model.calibrated_classifiers_[0].estimator
        return self

    # -- prediction --------------------------------------------------------------------
    def _check(self, X: Any) -> np.ndarray:
        if not hasattr(self, "model_"):
            raise EvidenceModelError("the evidence model is not fitted", hint="call fit first")
        X = np.atleast_2d(np.asarray(X, dtype=float))
        if X.shape[1] != self.n_features_in_:
            raise EvidenceModelError(
                f"{X.shape[1]} features given, the model was fitted on {self.n_features_in_}"
            )
        return X

    def predict_proba(self, X: Any) -> np.ndarray:
        """Calibrated class probabilities, one column per class of `classes_`."""
        X = self._check(X)
        return self.model_.predict_proba(X)

    def predict(self, X: Any, *, threshold: float | None = None) -> np.ndarray:
        """The most probable class; for two classes with a `threshold`, the second class
        when its probability reaches it."""
        p = self.predict_proba(X)
        if threshold is not None and len(self.classes_) == 2:
            return self.classes_[(p[:, 1] >= threshold).astype(int)]
        return self.classes_[p.argmax(axis=1)]

    def contributions(self, X: Any, *, class_index: int | None = None) -> np.ndarray:
        """Per-feature contributions to the uncalibrated log-odds of class `class_index`
        (default: the second of two classes, else the most probable one per row), shape
        ``(rows, features)``."""
        X = self._check(X)
        n_classes = len(self.classes_)
        if self.kind == "xgboost":
            from xgboost import DMatrix

            raw = self.base_.get_booster().predict(DMatrix(X), pred_contribs=True)
            if raw.ndim == 2:  # binary: contributions to the positive class's margin
                per_class = np.stack([-raw[:, :-1], raw[:, :-1]], axis=1)
            else:
                per_class = raw[:, :, :-1]
        else:
            scaler, lr = self.base_[0], self.base_[-1]
            z = scaler.transform(X)
            coef = lr.coef_
            if coef.shape[0] == 1:
                per_class = np.stack([-(z * coef[0]), z * coef[0]], axis=1)
            else:
                per_class = z[:, None, :] * coef[None, :, :]
        if class_index is None:
            if n_classes == 2:
                return per_class[:, 1, :]
            best = self.predict_proba(X).argmax(axis=1)
            return per_class[np.arange(len(X)), best, :]
        return per_class[:, class_index, :]

    def explain(
        self, x: Any, *, top: int = 5, class_index: int | None = None
    ) -> list[Contribution]:
        """The `top` features that moved one example's verdict most, largest first."""
        row = self._check(x)[0]
        contrib = self.contributions(row[None, :], class_index=class_index)[0]
        order = np.argsort(-np.abs(contrib), kind="stable")[:top]
        return [
            Contribution(self.feature_names_[i], float(row[i]), float(contrib[i])) for i in order
        ]

    # -- files -----------------------------------------------------------------------------
    def save(self, path: str | Path, *, info: dict[str, Any] | None = None) -> Path:
        """Write the fitted model to `path` (an ``.npz`` of its state, no pickle:
        `causalqa.evidence.artefact`) with a manifest beside it (``<path>.json``:
        features, classes, settings, sha256 and `info`, e.g. the training command and the
        data's hashes). Both are written atomically."""
        if not hasattr(self, "model_"):
            raise EvidenceModelError("the evidence model is not fitted", hint="call fit first")
        manifest = {
            "kind": self.kind,
            "calibration": self.calibration,
            "features": self.feature_names_,
            "classes": [c.item() if hasattr(c, "item") else c for c in self.classes_],
            "info": info or {},
        }
        return save_state(path, self, manifest, trusted=(EvidenceModel,))

    @classmethod
    def load(cls, path: str | Path) -> EvidenceModel:
        """A model written by `save` (or pickled by an earlier causalqa); a missing,
        truncated or altered file is a `DataFileError` (checked against the manifest's
        sha256), never a crash."""
        return load_artefact(
            path,
            cls,
            what="evidence model",
            hint="rebuild it with the command recorded in its manifest",
        )


__all__ = [
    "Contribution",
    "EvidenceModel",
    "choose_threshold",
    "grouped_folds",
    "read_artefact",
    "write_artefact",
]
