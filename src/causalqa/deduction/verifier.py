"""The evidence verifier: is a statement a probable cause of the accident in a report?

A calibrated `causalqa.evidence.EvidenceModel` over explainable evidence — text support
(`features.TextFeatures`), the coded findings a statement implies
(`features.ImpliedFindings`), a fine-tuned cross-encoder (`cross_encoder.CrossEncoder`),
causal-KG support (chains from the mined graph: `kg_features`) and, optionally, the LLM's
log-odds under V1 — trained on labelled (report, statement) examples only. Its decision
threshold is chosen on out-of-fold predictions of the training data (reports grouped),
never on the data it is scored on. A verdict comes with its calibrated probability, the
passages that support the statement best, the chains found, and the features that moved
it most.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.deduction.features import (
    DESCRIPTIONS,
    FEATURES,
    IMPLIED_FEATURES,
    LEGACY_FEATURES,
    ImpliedFindings,
    TermPairs,
    TextFeatures,
    findings,
)
from causalqa.errors import DataFileError, DeductionError
from causalqa.evidence.artefact import load_artefact, save_state

CE_FEATURE = "cross_encoder"
PAIRS_FEATURE = "term_pairs"
KG_FEATURES = ("kg_chains", "kg_best", "kg_hops", "kg_report_link")
LLM_FEATURES = ("llm_v1",)
ALL_DESCRIPTIONS = {
    **DESCRIPTIONS,
    CE_FEATURE: "fine-tuned cross-encoder's logit for (statement, the report's passages)",
    PAIRS_FEATURE: "learned logit of which statement words go with which report words",
    "kg_chains": "chains of the causal KG through the nodes nearest the statement",
    "kg_best": "cosine of the KG node nearest the statement",
    "kg_hops": "cause → effect hops of the best such chain",
    "kg_report_link": "how closely those chains' events match the report's passages",
    "llm_v1": "the LLM's log-odds of True under the paper's Prompt 5 (V1)",
}
ARTEFACT_VERSION = 1
INPUT_KINDS = ("coded", "narrative")
MIN_KIND_REPORTS = 20
NARRATIVE_PARAMS = {"C": 0.1}
"""The narratives' logistic regression (few reports: regularised)."""
CODED_ONLY = frozenset(
    ("finding_emb_max", "finding_emb_top2", "finding_coverage", "findings", "narrative")
    + IMPLIED_FEATURES
)
"""Features that read coded findings (constant on a narrative): not in the narratives'
model."""
"""Reports of one kind needed in the training data to give that kind its own threshold."""


def input_kind(context: str) -> str:
    """``coded`` (an NTSB record with coded findings) or ``narrative`` (free text: no
    findings to check a statement against), read from the context itself."""
    return "coded" if findings(context) else "narrative"


def kg_features(kg, reports: Sequence[str] | None, embedder=None):
    """A function (statement, ranked passages) → the KG features, over the chains of
    `reports` only (the training reports: a test report's own chains never count)."""
    from causalqa.deduction.retrieve import SemanticRetriever

    retr = SemanticRetriever(embedder, dedupe=0.8, per_kind=10).fit(kg, reports=reports)
    emb = retr._embedder()

    def compute(context: str, statement: str, passages: Sequence[str]) -> dict[str, float]:
        chains = retr.retrieve(context, statement, 3)
        if not chains:
            return {"kg_chains": 0.0, "kg_best": 0.0, "kg_hops": 0.0, "kg_report_link": 0.0}
        best = max(chains, key=lambda c: c.score or 0.0)
        link = 0.0
        if passages:
            ends = list(dict.fromkeys(c.nodes[-1] for c in chains))
            v = np.asarray(emb.encode(ends + list(passages[:5])), dtype=np.float32)
            link = float((v[: len(ends)] @ v[len(ends) :].T).max())
        return {
            "kg_chains": float(len(chains)),
            "kg_best": float(best.score or 0.0),
            "kg_hops": float(len(best.nodes) - 1),
            "kg_report_link": link,
        }

    compute.reports = sorted(retr.report_sha_) if reports is None else sorted(set(reports))  # type: ignore[attr-defined]
    return compute


def _cross_fitted(
    make, score, contexts, statements, y, groups, *, seed, width=None, both_labels=False
) -> np.ndarray:
    """A learned feature's out-of-fold values for the training rows: `make()` fitted on the
    other grouped folds (five, or one per report when fewer), ``score(model, contexts,
    statements)`` on the held-out one. With `both_labels`, a fold whose training part
    lacks True or False rows stays 0 (the model needs both)."""
    from causalqa.evidence import grouped_folds

    out = np.zeros(len(y) if width is None else (len(y), width))
    for a, b in grouped_folds(groups, min(5, len(set(groups))), seed=seed):
        if both_labels and (y[a].all() or not y[a].any()):
            continue
        model = make().fit([contexts[i] for i in a], [statements[i] for i in a], y[a])
        out[b] = score(model, [contexts[i] for i in b], [statements[i] for i in b])
    return out


class Verifier:
    """Train on (context, statement, label) examples; verify new (context, statement).

    Parameters (held until `fit`): `cross_encoder` (use the fine-tuned cross-encoder
    feature), `ce_params` (its `CrossEncoder` parameters), `llm_features` (names of
    precomputed LLM features to expect, e.g. ``("llm_v1",)``), `kind` and `calibration`
    of the `EvidenceModel`, `inner_folds` (grouped folds of the training data whose
    out-of-fold predictions choose the threshold), `seed`, `threads` (torch threads for
    MiniLM: one is fastest on a shared 2-core machine; None leaves torch alone),
    `hard_negatives` (K > 0: `fit` adds, for each training report, the causes of its K
    most similar other *training* reports as False statements —
    `hard_negatives.hard_negative_examples` — so a test report's cause is never one;
    `hard_kinds` says for which kinds of input: ``("narrative",)`` gives them to the
    narratives only),
    `narrative_model` (free narratives — contexts without coded findings — get a model of
    their own: a calibrated logistic regression over the features that mean something
    without findings, fitted on the training narratives, with its own threshold),
    `embedder`.

    Learned: `text_` (IDF), `pairs_` (`TermPairs`) and `implied_` (`ImpliedFindings`:
    each also fitted per grouped fold, so the combiner's training rows get out-of-fold
    values), `ce_halves_` (two cross-encoders, each trained on half the
    training reports: each scores the other half's rows for the combiner, their mean
    scores new rows), `model_` (the EvidenceModel), `threshold_`, `feature_names_`,
    `train_reports_` (the reports it saw — a test asserts no test report is among them),
    `text_features_` (the text features it reads, in column order).
    """

    def __init__(
        self,
        *,
        cross_encoder: bool = True,
        ce_params: Mapping[str, Any] | None = None,
        llm_features: Sequence[str] = (),
        kind: str = "xgboost",
        calibration: str = "isotonic",
        inner_folds: int = 5,
        seed: int = 0,
        threads: int | None = 1,
        hard_negatives: int = 0,
        hard_kinds: Sequence[str] = INPUT_KINDS,
        narrative_model: bool = True,
        embedder=None,
    ) -> None:
        self.hard_negatives = hard_negatives
        self.hard_kinds = tuple(hard_kinds)
        self.narrative_model = narrative_model
        self.threads = threads
        self.cross_encoder = cross_encoder
        self.ce_params = ce_params
        self.llm_features = tuple(llm_features)
        self.kind = kind
        self.calibration = calibration
        self.inner_folds = inner_folds
        self.seed = seed
        self.embedder = embedder

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["embedder"] = None
        state.pop("kg_fn_", None)
        if "text_" in state:
            text = TextFeatures(None, k1=self.text_.k1, b=self.text_.b)
            text.__dict__.update({k: v for k, v in self.text_.__dict__.items() if k.endswith("_")})
            state["text_"] = text
        return state

    # -- features ------------------------------------------------------------------------
    def _text_names(self) -> list[str]:
        # A verifier trained before the findings and circumstance features reads only
        # the text features it was trained on.
        return list(getattr(self, "text_features_", LEGACY_FEATURES))

    def _names(self, with_kg: bool) -> list[str]:
        names = self._text_names() + [PAIRS_FEATURE]
        if getattr(self, "implied_", None) is not None:  # not in verifiers saved before it
            names += list(IMPLIED_FEATURES)
        if self.cross_encoder:
            names.append(CE_FEATURE)
        if with_kg:
            names += list(KG_FEATURES)
        return names + list(self.llm_features)

    def _text_rows(self, pairs):
        threads = getattr(self, "threads", 1)
        if threads:
            # MiniLM in torch: on a shared 2-core machine one thread is ~7× faster than two.
            import torch

            torch.set_num_threads(threads)
        return self.text_.transform(pairs)

    def _matrix(
        self,
        pairs,
        rows,
        ce: np.ndarray | None,
        kg_fn,
        llm: Mapping[str, Sequence[float]],
        term_pairs: np.ndarray | None = None,
        implied: np.ndarray | None = None,
    ):
        names = self._text_names()
        cols = [[r.values[f] for f in names] for r in rows]
        X = np.asarray(cols, dtype=float)
        contexts, statements = [c for c, _ in pairs], [s for _, s in pairs]
        if term_pairs is None:
            term_pairs = self.pairs_.decision_function(contexts, statements)
        parts = [X, np.asarray(term_pairs, dtype=float).reshape(-1, 1)]
        if getattr(self, "implied_", None) is not None:
            if implied is None:
                implied = self.implied_.transform(contexts, statements)
            parts.append(np.asarray(implied, dtype=float).reshape(-1, len(IMPLIED_FEATURES)))
        if self.cross_encoder:
            parts.append(np.asarray(ce, dtype=float).reshape(-1, 1))
        if kg_fn is not None:
            kg_rows = [kg_fn(c, s, [p for p, _ in r.ranked]) for (c, s), r in zip(pairs, rows)]
            parts.append(np.asarray([[k[f] for f in KG_FEATURES] for k in kg_rows], dtype=float))
        for name in self.llm_features:
            if name not in llm:
                raise DeductionError(
                    f"the verifier was trained with the LLM feature {name} and none was given",
                    hint="compute it (e.g. deduce without --no-llm) or use a verifier trained "
                    "without LLM features",
                )
            parts.append(np.asarray(llm[name], dtype=float).reshape(-1, 1))
        return np.hstack(parts)

    # -- training ------------------------------------------------------------------------
    def fit(
        self,
        examples: Sequence[Any],
        *,
        kg=None,
        llm: Mapping[str, Sequence[float]] | None = None,
        progress=None,
    ) -> Verifier:
        """Learn from `examples` (report_id, context, statement, label); `kg` (a mined
        `CausalKG`) adds the KG features over the training reports' chains; `llm` maps
        each of `llm_features` to one value per example. `progress(text)` is told what
        is being done."""
        from causalqa.evidence import EvidenceModel, choose_threshold, grouped_folds

        say = progress or (lambda _t: None)
        if not examples:
            raise DeductionError("no training examples")
        if getattr(self, "hard_negatives", 0):
            from causalqa.deduction.hard_negatives import hard_negative_examples

            say("hard negatives")
            kinds_ = set(getattr(self, "hard_kinds", INPUT_KINDS))
            wanted = {e.report_id for e in examples if input_kind(e.context) in kinds_}
            examples = list(examples) + hard_negative_examples(
                examples, self.hard_negatives, reports=wanted, embedder=self.embedder
            )
        y = np.asarray([bool(e.label) for e in examples])
        if y.all() or not y.any():
            raise DeductionError("the training examples need both True and False labels")
        groups = [e.report_id for e in examples]
        self.train_reports_ = sorted(set(groups))
        self.text_features_ = list(FEATURES)
        pairs = [(e.context, e.statement) for e in examples]
        say("text features")
        self.text_ = TextFeatures(self.embedder).fit([e.context for e in examples])
        rows = self._text_rows(pairs)
        say("term pairs")
        contexts = [e.context for e in examples]
        statements = [e.statement for e in examples]
        # Out-of-fold values for the combiner's training rows; one model on all for new rows.
        tp = _cross_fitted(
            TermPairs,
            TermPairs.decision_function,
            contexts,
            statements,
            y,
            groups,
            seed=self.seed + 2,
            both_labels=True,
        )
        self.pairs_ = TermPairs().fit(contexts, statements, y)
        say("implied findings")
        implied = _cross_fitted(
            ImpliedFindings,
            ImpliedFindings.transform,
            contexts,
            statements,
            y,
            groups,
            seed=self.seed + 3,
            width=len(IMPLIED_FEATURES),
        )
        self.implied_ = ImpliedFindings().fit(contexts, statements, y)
        ce = None
        if self.cross_encoder:
            ce = self._fit_cross_encoder(examples, rows, y, groups, say)
        self.kg_fn_ = (
            kg_features(kg, self.train_reports_, self.embedder) if kg is not None else None
        )
        self.kg_reports_ = list(self.kg_fn_.reports) if self.kg_fn_ is not None else []  # type: ignore[attr-defined]
        self.with_kg_ = kg is not None
        say("combiner")
        X = self._matrix(pairs, rows, ce, self.kg_fn_, llm or {}, term_pairs=tp, implied=implied)
        self.feature_names_ = self._names(self.with_kg_)
        params = {"n_estimators": 300, "max_depth": 3} if self.kind == "xgboost" else None
        make = lambda: EvidenceModel(  # noqa: E731
            kind=self.kind, calibration=self.calibration, seed=self.seed, params=params
        )
        from causalqa.errors import EvidenceModelError

        try:
            self.model_ = make().fit(X, y, feature_names=self.feature_names_, groups=groups)
        except EvidenceModelError as e:
            raise DeductionError(
                f"too few training reports to train and calibrate the verifier "
                f"({len(self.train_reports_)} reports): {e.message}",
                hint="train on more reports (each calibration fold needs True and False "
                "statements)",
            ) from None
        # The threshold: macro F1 on out-of-fold predictions of the training reports.
        n_groups = len(self.train_reports_)
        folds = min(self.inner_folds, n_groups)
        oof = np.full(len(y), np.nan)
        if folds >= 2:
            for a, b in grouped_folds(groups, folds, seed=self.seed + 1):
                if y[a].all() or not y[a].any():
                    continue
                m = make().fit(
                    X[a], y[a], feature_names=self.feature_names_, groups=[groups[i] for i in a]
                )
                oof[b] = m.predict_proba(X[b])[:, 1]
        ok = ~np.isnan(oof)
        self.threshold_ = (
            choose_threshold(y[ok], oof[ok], metric="macro_f1") if ok.sum() and y[ok].any() else 0.5
        )
        # Per kind of input: a coded record and a free narrative are read from different
        # evidence (a narrative has no findings), so each gets the threshold its own
        # out-of-fold rows choose — when it has enough of them, else the pooled one.
        kinds = np.array([input_kind(c) for c in contexts])
        self.thresholds_ = {}
        for kind in INPUT_KINDS:
            sel = ok & (kinds == kind)
            n_reports = len({groups[i] for i in np.flatnonzero(sel)})
            if n_reports >= MIN_KIND_REPORTS and y[sel].any() and not y[sel].all():
                self.thresholds_[kind] = float(
                    choose_threshold(y[sel], oof[sel], metric="macro_f1")
                )
        self.oof_ = oof
        self.narrative_model_ = None
        if getattr(self, "narrative_model", False):
            self._fit_narrative(X, y, groups, kinds)
        self.n_train_ = len(y)
        return self

    def _fit_narrative(self, X, y, groups, kinds) -> None:
        """The narratives' own model and threshold (see the class doc); nothing when the
        training data holds too few narrative reports."""
        from causalqa.errors import EvidenceModelError
        from causalqa.evidence import EvidenceModel, choose_threshold, grouped_folds

        sel = np.flatnonzero(kinds == "narrative")
        g = [groups[i] for i in sel]
        if len(set(g)) < MIN_KIND_REPORTS or y[sel].all() or not y[sel].any():
            return
        cols = [i for i, n in enumerate(self.feature_names_) if n not in CODED_ONLY]
        names = [self.feature_names_[i] for i in cols]
        Xn, yn = X[sel][:, cols], y[sel]
        make = lambda: EvidenceModel(  # noqa: E731
            kind="logistic", calibration="sigmoid", seed=self.seed, params=NARRATIVE_PARAMS
        )
        try:
            model = make().fit(Xn, yn, feature_names=names, groups=g)
        except EvidenceModelError:
            return
        oof = np.full(len(yn), np.nan)
        for a, b in grouped_folds(g, min(self.inner_folds, len(set(g))), seed=self.seed + 4):
            if yn[a].all() or not yn[a].any():
                continue
            try:
                m = make().fit(Xn[a], yn[a], feature_names=names, groups=[g[i] for i in a])
            except EvidenceModelError:
                continue
            oof[b] = m.predict_proba(Xn[b])[:, 1]
        ok = ~np.isnan(oof)
        if ok.sum() and yn[ok].any() and not yn[ok].all():
            self.thresholds_["narrative"] = float(
                choose_threshold(yn[ok], oof[ok], metric="macro_f1")
            )
        self.narrative_model_ = model
        self.narrative_cols_ = cols

    def _narrative_rows(self, contexts: Sequence[str]) -> np.ndarray:
        if getattr(self, "narrative_model_", None) is None:
            return np.zeros(len(contexts), dtype=bool)
        return np.array([input_kind(c) == "narrative" for c in contexts], dtype=bool)

    def proba(self, X: np.ndarray, contexts: Sequence[str]) -> np.ndarray:
        """Calibrated P(probable cause) of feature rows `X` of `contexts`: the narratives'
        own model for a free narrative (when the verifier has one), else the main one."""
        p = self.model_.predict_proba(X)[:, 1]
        narr = self._narrative_rows(contexts)
        if narr.any():
            p[narr] = self.narrative_model_.predict_proba(X[narr][:, self.narrative_cols_])[:, 1]
        return p

    def _fit_cross_encoder(self, examples, rows, y, groups, say):
        from causalqa.deduction.cross_encoder import CrossEncoder
        from causalqa.evidence import grouped_folds

        statements = [e.statement for e in examples]
        passages = [[p for p, _ in r.ranked] for r in rows]
        ce = np.zeros(len(y))
        self.ce_halves_ = []
        halves = grouped_folds(groups, 2, seed=self.seed) if len(set(groups)) >= 2 else []
        for i, (a, b) in enumerate(halves):
            say(f"cross-encoder {i + 1}/2")
            m = CrossEncoder(**dict(self.ce_params or {}))
            m.fit([statements[j] for j in a], [passages[j] for j in a], y[a])
            ce[b] = m.decision_function([statements[j] for j in b], [passages[j] for j in b])
            self.ce_halves_.append(m)
        return ce

    # -- prediction ----------------------------------------------------------------------
    def threshold_for(self, contexts: Sequence[str]) -> np.ndarray:
        """The decision threshold of each context: its kind's (`input_kind`), else the
        pooled `threshold_` (and always that one for verifiers saved before kinds)."""
        own = getattr(self, "thresholds_", {}) or {}
        return np.array([own.get(input_kind(c), self.threshold_) for c in contexts])

    def _check(self) -> None:
        if not hasattr(self, "model_"):
            raise DeductionError("the verifier is not fitted", hint="call fit first")

    def evidence(
        self, pairs: Sequence[tuple[str, str]], *, kg=None, llm=None
    ) -> tuple[np.ndarray, list]:
        """(feature matrix, text rows) of (context, statement) pairs."""
        self._check()
        if self.text_.embedder is None and self.embedder is not None:
            self.text_.embedder = self.embedder
        rows = self._text_rows(pairs)
        ce = None
        if self.cross_encoder:
            passages = [[p for p, _ in r.ranked] for r in rows]
            statements = [s for _, s in pairs]
            ce = np.mean(
                [m.decision_function(statements, passages) for m in self.ce_halves_], axis=0
            )
        kg_fn = None
        if self.with_kg_:
            kg_fn = getattr(self, "kg_fn_", None)
            if kg_fn is None:
                if kg is None:
                    raise DeductionError(
                        "this verifier uses causal-KG features: give the KG it was trained with",
                        hint="pass --kg DIR",
                    )
                kg_fn = self.kg_fn_ = kg_features(kg, self.kg_reports_, self.embedder)
        implied = None
        if getattr(self, "implied_", None) is not None:
            implied, said = self.implied_.explain([c for c, _ in pairs], [s for _, s in pairs])
            for row, reasons in zip(rows, said):
                row.reasons.update(reasons)
        return self._matrix(pairs, rows, ce, kg_fn, llm or {}, implied=implied), rows

    def predict_proba(self, pairs, *, kg=None, llm=None) -> np.ndarray:
        """Calibrated P(probable cause) of each (context, statement)."""
        X, _ = self.evidence(pairs, kg=kg, llm=llm)
        return self.proba(X, [c for c, _ in pairs])

    def explain(
        self, X_row: np.ndarray, *, top: int = 5, context: str | None = None
    ) -> list[dict[str, Any]]:
        """The features that moved one verdict most, with what each one measures (for a
        free narrative given as `context`, those of the model that decided it)."""
        if context is not None and self._narrative_rows([context])[0]:
            said = self.narrative_model_.explain(np.asarray(X_row)[self.narrative_cols_], top=top)
        else:
            said = self.model_.explain(X_row, top=top)
        return [
            {**c.to_dict(), "description": ALL_DESCRIPTIONS.get(c.feature, c.feature)} for c in said
        ]

    # -- files ---------------------------------------------------------------------------
    def save(self, path: str | Path, *, info: Mapping[str, Any] | None = None) -> Path:
        """One file (an ``.npz`` of the fitted state, no pickle:
        `causalqa.evidence.artefact`) with a manifest beside it (sha256, features,
        threshold, `info`: the training command and the data's hashes), written
        atomically."""
        self._check()
        manifest = {
            "version": ARTEFACT_VERSION,
            "features": self.feature_names_,
            "threshold": self.threshold_,
            "thresholds": getattr(self, "thresholds_", {}),
            "n_train": self.n_train_,
            "reports": len(self.train_reports_),
            "python": platform.python_version(),
            "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "info": dict(info or {}),
        }
        return save_state(path, self, manifest, trusted=_trusted())

    @classmethod
    def load(cls, path: str | Path, *, embedder=None) -> Verifier:
        """A verifier written by `save` (or pickled by an earlier causalqa). A missing,
        truncated or altered file (checked against the manifest's sha256) is a
        `DataFileError` with the rebuild command."""
        model = load_artefact(
            path,
            cls,
            what="verifier",
            hint="rebuild it: causalqa deduction train (see its manifest for the exact command)",
            trusted=_trusted(),
        )
        model.embedder = embedder
        return model


def _trusted() -> tuple[type, ...]:
    """The classes a saved verifier holds besides scikit-learn's and XGBoost's."""
    from causalqa.deduction.cross_encoder import CrossEncoder
    from causalqa.evidence import EvidenceModel

    return (Verifier, TextFeatures, TermPairs, ImpliedFindings, CrossEncoder, EvidenceModel)


SHIPPED = Path(__file__).with_name("verifier.npz")
"""The verifier shipped with causalqa (trained on the NTSB data set, no LLM feature)."""


def user_verifier_path() -> Path:
    """Where `causalqa deduction train` writes by default: ``<home>/deduction/verifier.npz``
    (a verifier an earlier causalqa trained, ``verifier.pkl``, is still read)."""
    from causalqa.config import home_dir

    return home_dir() / "deduction" / "verifier.npz"


def load_verifier(path: str | Path | None = None, *, embedder=None) -> Verifier:
    """The verifier at `path`; without one, the user's own (``deduction train``) if there
    is one, else the shipped one. None found, or a damaged file: `DataFileError` naming
    the command that rebuilds it."""
    if path is not None:
        return Verifier.load(path, embedder=embedder)
    user = user_verifier_path()
    for candidate in (user, user.with_suffix(".pkl"), SHIPPED):
        if candidate.is_file():
            return Verifier.load(candidate, embedder=embedder)
    raise DataFileError(
        f"no trained verifier (looked for {user_verifier_path()} and {SHIPPED})",
        hint="build one: causalqa deduction train (about 10 minutes on 2 cores), or use "
        "--method logprobs for the LLM-only way",
        path=str(SHIPPED),
    )
