"""``causalqa bench discovery pairs --method evidence``: the evidence model on the four
path-to-causality sets (issue 16).

From a training run's record (`causalqa.discovery.training.TrainingRecord`):

- grouped cross-validation over each set's training rows (ADE with ADE-NEG negatives): the
  combiner refitted on the other folds, its thresholds chosen on *their* out-of-fold
  predictions (nested), P/R/F1, macro F1, ROC AUC and ECE with 95% bootstrap intervals over
  groups, beside a TF-IDF + logistic regression on the same folds and the LLM's log-odds
  alone where they were computed;
- the paper's test split (``test_truth``): the combiner fitted on all training rows, the
  threshold chosen on their out-of-fold predictions, beside the paper's best F1 per set
  (`bench.published`), saying "causal" to every pair, TF-IDF + LR and our LLM;
- SemEval-style sentences: the text classifier's cross-fitted predictions on SemEval's
  ``TRAIN_FILE`` (its natural 12% Cause-Effect, and balanced subsamples like a half
  Cause-Effect test set) beside TF-IDF + LR trained on the same folds;
- a reliability diagram of the cross-validated probabilities.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.bench.published import published
from causalqa.discovery.features import vectorize
from causalqa.discovery.pathdata import DATASETS
from causalqa.discovery.training import (
    SENTENCES,
    TrainingRecord,
    fit_combiner,
    has_variant,
)
from causalqa.evidence import choose_threshold, grouped_folds
from causalqa.metrics import (
    binary_scores,
    bootstrap_interval,
    expected_calibration_error,
    macro_f1,
    reliability_curve,
    roc_auc,
)

__all__ = ["EvidenceBenchmark", "benchmark_evidence", "evidence_report", "plot_reliability"]

DEFAULT_VARIANTS = ("text+kg+llm", "text+kg", "text", "kg")
PAPER_MODELS = ("mistral-7b-instruct", "llama-3-8b-instruct", "gemma-7b-it")


def set_name(dataset: str) -> str:
    """The printed name of a data set of the record: a path-to-causality set's, or the
    training corpus's general sentences (`training.SENTENCES`)."""
    if dataset == SENTENCES:
        return "SemEval TRAIN sentences"
    return DATASETS[dataset][1]


def paper_best(dataset: str) -> dict[str, Any]:
    """The paper's best F1 on a data set's test split (any model, any method)."""
    table = published("001")["pairs"]["tables"][dataset]
    best = max(
        ((m, k, v) for m, rows in table.items() for k, v in rows.items()),
        key=lambda t: t[2]["f1"],
    )
    return {"model": best[0], "method": best[1], **best[2]}


def _f1(pred, gold) -> float:
    return binary_scores(pred, gold)["f1"]


def _scores(y, p, pred, groups, draws, seed) -> dict[str, Any]:
    """Point values and bootstrap intervals (groups resampled together)."""
    y, p, pred = np.asarray(y), np.asarray(p, dtype=float), np.asarray(pred)
    out: dict[str, Any] = {"n": int(len(y)), "causal": int(y.sum())}
    out.update(binary_scores(pred, y))
    out["macro_f1"] = macro_f1(pred, y)
    out["auc"] = roc_auc(p, y)
    out["ece"] = round(expected_calibration_error(y, p), 4) if len(y) else None
    kw = {"groups": groups, "draws": draws, "seed": seed}
    for name, fn, cols in (
        ("f1", _f1, (pred, y)),
        ("macro_f1", macro_f1, (pred, y)),
        ("auc", roc_auc, (p, y)),
    ):
        ci = bootstrap_interval(fn, *cols, **kw)
        out[f"{name}_ci"] = (
            None if ci["low"] is None else [round(ci["low"], 4), round(ci["high"], 4)]
        )
    return out


def nested_cv(
    n: int,
    labels: np.ndarray,
    groups: Sequence[str],
    datasets: Sequence[str],
    fit_predict: Callable[[np.ndarray, np.ndarray], np.ndarray],
    *,
    folds: int = 5,
    inner: int = 4,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Out-of-fold scores over grouped folds, and predictions thresholded per data set at
    the F1-best threshold of the inner out-of-fold scores of the outer training part (no
    row ever chooses its own threshold). `fit_predict(train, test)` → scores of `test`."""
    p = np.zeros(n)
    pred = np.zeros(n, dtype=int)
    ds = np.asarray(datasets)
    for tr, te in grouped_folds(groups, folds, seed=seed):
        p[te] = fit_predict(tr, te)
        sub_groups = [groups[i] for i in tr]
        q = np.zeros(len(tr))
        k = min(inner, len(set(sub_groups)))
        for itr, ite in grouped_folds(sub_groups, k, seed=seed + 1):
            q[ite] = fit_predict(tr[itr], tr[ite])
        for d in set(ds[te].tolist()):
            mask = ds[tr] == d
            thr = choose_threshold(labels[tr][mask], q[mask], metric="f1") if mask.any() else 0.5
            hit = te[ds[te] == d]
            pred[hit] = (p[hit] >= thr).astype(int)
    return p, pred


def _tfidf(texts: Sequence[str]):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1),
        LogisticRegression(C=10.0, max_iter=3000),
    )


def _marked_row(row) -> str:
    from causalqa.discovery.relation import Mention, mark

    return mark(Mention(row.sentence, row.span_a, row.span_b))[0]


@dataclass
class EvidenceBenchmark:
    text_model: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    semeval: list[dict[str, Any]] = field(default_factory=list)
    reliability: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text_model": self.text_model,
            "rows": self.rows,
            "semeval_sentences": self.semeval,
            "reliability": self.reliability,
            "notes": self.notes,
            "training": self.info,
        }

    def to_markdown(self) -> str:
        def ci(r, key):
            v = r.get(key)
            c = r.get(f"{key}_ci")
            if v is None:
                return "–"
            if key == "auc":
                return f"{v:.3f}" + (f" ({c[0]:.3f}–{c[1]:.3f})" if c else "")
            return f"{v:.1f}" + (f" ({c[0]:.1f}–{c[1]:.1f})" if c else "")

        lines = [f"Text model: {self.text_model}.", ""]
        for split, title in (
            ("cv", "Grouped cross-validation"),
            ("test", "The paper's test split"),
        ):
            lines += [
                f"## {title}",
                "",
                "| data set | method | n (causal) | P | R | F1 (95% CI) | macro F1 (95% CI) "
                "| ROC AUC (95% CI) | ECE | paper best F1 |",
                "|---|---|---|---|---|---|---|---|---|---|",
            ]
            for r in (r for r in self.rows if r["split"] == split):
                paper = r.get("paper") or {}
                ece = "–" if r.get("ece") is None else f"{r['ece']:.3f}"
                lines.append(
                    f"| {set_name(r['dataset'])} | {r['method']} | {r['n']} ({r['causal']}) "
                    f"| {r['precision']:.1f} | {r['recall']:.1f} | {ci(r, 'f1')} "
                    f"| {ci(r, 'macro_f1')} | {ci(r, 'auc')} "
                    f"| {ece} "
                    f"| {paper.get('f1', '')} |"
                )
            lines.append("")
        if self.semeval:
            lines += [
                "## SemEval-style sentences (SemEval-2010 TRAIN_FILE, cross-fitted)",
                "",
                "| method | sample | n (Cause-Effect) | macro F1 (95% CI) | ROC AUC (95% CI) |",
                "|---|---|---|---|---|",
            ]
            for r in self.semeval:
                lines.append(
                    f"| {r['method']} | {r['sample']} | {r['n']} ({r['causal']}) "
                    f"| {ci(r, 'macro_f1')} | {ci(r, 'auc')} |"
                )
            lines.append("")
        lines += [f"- {n}" for n in self.notes]
        return "\n".join(lines)


def benchmark_evidence(
    record: TrainingRecord,
    *,
    datasets: Sequence[str] = tuple(DATASETS),
    variants: Sequence[str] = DEFAULT_VARIANTS,
    folds: int = 5,
    seed: int = 0,
    draws: int = 2000,
    tfidf: bool = True,
    params: dict[str, Any] | None = None,
    on_step: Callable[[str], None] | None = None,
) -> EvidenceBenchmark:
    """The evidence model measured as the module says, from a training run's record
    (`params`: the combiners' xgboost settings, as in training when None)."""
    step = on_step or (lambda _w: None)
    if SENTENCES not in datasets and f"{SENTENCES}/train" in record.rows:
        # the combiners were trained on the corpus's general sentences too: fit them so
        # here, and report those rows' cross-validation beside the four sets
        datasets = (*datasets, SENTENCES)
    bench = EvidenceBenchmark(record.text_model, info=dict(record.info))
    bench.info.pop("oof", None)
    rows, feats = record.train(datasets)
    labels = np.array([r.label for r in rows])
    groups = [r.group for r in rows]
    ds = np.array([r.dataset for r in rows])
    fitted: dict[str, dict[str, Any]] = {}  # per variant: its model, out-of-fold scores
    for variant in variants:
        keep = np.array([i for i, f in enumerate(feats) if has_variant(f, variant)], dtype=int)
        if keep.size < 50:
            bench.notes.append(f"{variant}: only {keep.size} training rows have it; not measured")
            continue
        step(f"cross-validation: {variant}")
        sub = [feats[i] for i in keep]
        y = labels[keep]
        g = [groups[i] for i in keep]

        def fit_predict(tr, te, sub=sub, y=y, g=g, variant=variant):
            model = fit_combiner(
                [sub[i] for i in tr], y[tr], [g[i] for i in tr], variant, seed=seed, params=params
            )
            x = vectorize([sub[i] for i in te], model.feature_names_)
            return model.predict_proba(x)[:, 1]

        p, pred = nested_cv(len(keep), y, g, ds[keep], fit_predict, folds=folds, seed=seed)
        for d in datasets:
            m = ds[keep] == d
            if not m.any():
                continue
            gm = [g[i] for i in np.flatnonzero(m)]
            row = {
                "split": "cv",
                "dataset": d,
                "method": f"evidence ({variant})",
                "variant": variant,
            }
            row.update(_scores(y[m], p[m], pred[m], gm, draws, seed))
            bench.rows.append(row)
            if variant == variants[0] or d not in bench.reliability:
                bench.reliability[d] = reliability_curve(y[m], p[m])
                bench.reliability[d + ":variant"] = [{"variant": variant}]
        step(f"test split: {variant}")
        model = fit_combiner(sub, y, g, variant, seed=seed, params=params)
        fitted[variant] = {"model": model, "y": y, "p": p, "ds": ds[keep]}
        for d in datasets:
            test = record.rows.get(f"{d}/test", [])
            tf = record.features.get(f"{d}/test", [])
            have = [i for i, f in enumerate(tf) if has_variant(f, variant)]
            if not have:
                continue
            m = ds[keep] == d
            yt = np.array([test[i].label for i in have])
            pt = model.predict_proba(vectorize([tf[i] for i in have], model.feature_names_))[:, 1]
            note = f"{len(test) - len(have)} test pairs lack this evidence"
            _test_rows(
                bench,
                d,
                f"evidence ({variant})",
                yt,
                pt,
                lambda metric, m=m, y=y, p=p: (
                    choose_threshold(y[m], p[m], metric=metric) if m.any() else 0.5
                ),
                variant=variant,
                note=note if len(have) < len(test) else None,
                draws=draws,
                seed=seed,
            )
    _richest_evidence(bench, record, fitted, datasets, draws, seed)
    _baselines(
        bench, record, rows, feats, labels, groups, ds, datasets, folds, seed, draws, tfidf, step
    )
    if record.corpus:
        step("SemEval-style sentences")
        bench.semeval = semeval_sentences(record, seed=seed, draws=draws, tfidf=tfidf)
    bench.notes += [
        "Grouped CV: 5 folds over each set's training rows; a group joins rows that share a "
        "sentence or a pair (ADE: also a drug), so no fold tests a sentence, a pair or an ADE "
        "drug seen in training. Thresholds are chosen per data set on out-of-fold "
        "predictions of the training part only (nested), for F1.",
        "Text features of training rows are cross-fitted: the text classifier that read a "
        "row was trained without its sentence, its pair and (ADE) its drug.",
        "Intervals: 95% percentile bootstrap, groups resampled together (test: pairs).",
        "The test splits are balanced (ADE: all causal), the training rows are not (COMAGC and "
        "GENEC 19% causal, SEMEVAL 8%): 'always causal' is shown for what a threshold alone "
        "buys on F1.",
        "Test thresholds come from the training rows' out-of-fold predictions of the same data "
        "set: for F1 there (the rows named 'evidence (…)'), or for balanced accuracy ('prior-free "
        "threshold'), which does not depend on how common causal pairs are; a threshold chosen "
        "for F1 among 8–19% causal training rows is a strict one on a test split that is 50% "
        "causal. Neither looks at a test label.",
    ]
    return bench


THRESHOLD_RULES = (("f1", ""), ("balanced", ", prior-free threshold"))
"""How a test split's threshold is chosen from the training rows' out-of-fold predictions
of the same data set, and the suffix that names the rule in the report."""


def _test_rows(bench, d, method, yt, pt, threshold, *, variant, note, draws, seed) -> None:
    """One test-split row per threshold rule; `threshold(metric)` gives the threshold (a
    number, or one per pair)."""
    for metric, suffix in THRESHOLD_RULES:
        thr = threshold(metric)
        row = {
            "split": "test",
            "dataset": d,
            "method": method + suffix,
            "variant": variant,
            "threshold_metric": metric,
            "paper": paper_best(d),
        }
        if np.ndim(thr) == 0:
            row["threshold"] = round(float(thr), 4)
        if note:
            row["note"] = note
        row.update(_scores(yt, pt, (pt >= thr).astype(int), None, draws, seed))
        bench.rows.append(row)


RICHEST = "evidence, richest per pair"


def _richest_evidence(bench, record, fitted, datasets, draws, seed) -> None:
    """Each test pair judged by the richest evidence set it has (the first of
    `DEFAULT_VARIANTS` measured here: text+kg where the KG places both names, else
    text), with that set's model and its threshold from the same data set's out-of-fold
    training predictions — one row per data set, every pair in it."""
    order = [v for v in DEFAULT_VARIANTS if v in fitted]
    if not order:
        return
    for d in datasets:
        test = record.rows.get(f"{d}/test", [])
        tf = record.features.get(f"{d}/test", [])
        used = [next((v for v in order if has_variant(f, v)), None) for f in tf]
        have = [i for i, v in enumerate(used) if v is not None]
        if not have:
            continue
        yt = np.array([test[i].label for i in have])
        pt = np.array(
            [
                fitted[used[i]]["model"].predict_proba(
                    vectorize([tf[i]], fitted[used[i]]["model"].feature_names_)
                )[0, 1]
                for i in have
            ]
        )

        def threshold(metric, d=d, have=have, used=used):
            out = []
            for i in have:
                entry = fitted[used[i]]
                m = entry["ds"] == d
                key = f"threshold:{d}:{metric}"
                if key not in entry:
                    entry[key] = (
                        choose_threshold(entry["y"][m], entry["p"][m], metric=metric)
                        if m.any()
                        else 0.5
                    )
                out.append(entry[key])
            return np.array(out)

        counts = {v: sum(1 for i in have if used[i] == v) for v in order}
        mix = ", ".join(f"{v} {n}" for v, n in counts.items() if n)
        _test_rows(
            bench,
            d,
            RICHEST,
            yt,
            pt,
            threshold,
            variant="richest",
            note=f"evidence used: {mix}",
            draws=draws,
            seed=seed,
        )
    bench.notes.append(
        f"'{RICHEST}': each test pair judged by the richest evidence it has (text+kg where "
        "a path joins the two linked nodes, else text), as discover pair picks its evidence, "
        "so every pair of the split counts; its threshold is the data set's, as in the other "
        "rows (discover pair itself, not knowing the data set, uses one threshold per "
        "evidence set and family of text the sentence reads like, chosen by balanced "
        "accuracy on that family's training rows)."
    )


def _baselines(
    bench, record, rows, feats, labels, groups, ds, datasets, folds, seed, draws, tfidf, step
):
    """Always-causal, the LLM's log-odds alone, TF-IDF + LR: cross-validated and on test."""
    for d in datasets:
        test = record.rows.get(f"{d}/test", [])
        if not test:
            continue
        yt = np.array([r.label for r in test])
        row = {"split": "test", "dataset": d, "method": "always causal", "paper": paper_best(d)}
        row.update(_scores(yt, np.ones(len(yt)), np.ones(len(yt), dtype=int), None, draws, seed))
        bench.rows.append(row)
    # the LLM alone: its log-odds, thresholded on the training rows that have it
    have = np.array([i for i, f in enumerate(feats) if "llm_log_odds" in f], dtype=int)
    if have.size >= 50:
        score = np.array([feats[i]["llm_log_odds"] for i in have])
        for d in datasets:
            m = ds[have] == d
            if m.sum() < 10:
                continue
            gm = [groups[i] for i in have[m]]
            y = labels[have][m]
            thr = choose_threshold(y, 1 / (1 + np.exp(-score[m])), metric="f1")
            pred = (1 / (1 + np.exp(-score[m])) >= thr).astype(int)
            row = {
                "split": "cv",
                "dataset": d,
                "method": "LLM log-odds alone (in-sample threshold)",
            }
            row.update(_scores(y, 1 / (1 + np.exp(-score[m])), pred, gm, draws, seed))
            row["ece"] = None
            bench.rows.append(row)
            test = record.rows.get(f"{d}/test", [])
            tf = record.features.get(f"{d}/test", [])
            idx = [i for i, f in enumerate(tf) if "llm_log_odds" in f]
            if idx:
                st = 1 / (1 + np.exp(-np.array([tf[i]["llm_log_odds"] for i in idx])))
                yt = np.array([test[i].label for i in idx])
                row = {
                    "split": "test",
                    "dataset": d,
                    "method": "LLM log-odds alone",
                    "paper": paper_best(d),
                }
                row.update(_scores(yt, st, (st >= thr).astype(int), None, draws, seed))
                row["ece"] = None
                bench.rows.append(row)
    if not tfidf:
        return
    step("TF-IDF + logistic regression")
    texts = np.array([_marked_row(r) for r in rows], dtype=object)

    def fit_predict(tr, te):
        if len(set(labels[tr].tolist())) < 2:
            return np.full(len(te), labels[tr].mean())
        clf = _tfidf(texts[tr]).fit(texts[tr], labels[tr])
        return clf.predict_proba(texts[te])[:, 1]

    p, pred = nested_cv(len(rows), labels, groups, ds, fit_predict, folds=folds, seed=seed)
    full = _tfidf(texts).fit(texts, labels)
    for d in datasets:
        m = ds == d
        if not m.any():
            continue
        gm = [groups[i] for i in np.flatnonzero(m)]
        row = {"split": "cv", "dataset": d, "method": "TF-IDF + LR (same folds)"}
        row.update(_scores(labels[m], p[m], pred[m], gm, draws, seed))
        row["ece"] = None
        bench.rows.append(row)
        test = record.rows.get(f"{d}/test", [])
        if test:
            thr = choose_threshold(labels[m], p[m], metric="f1")
            st = full.predict_proba(np.array([_marked_row(r) for r in test], dtype=object))[:, 1]
            yt = np.array([r.label for r in test])
            row = {"split": "test", "dataset": d, "method": "TF-IDF + LR", "paper": paper_best(d)}
            row.update(_scores(yt, st, (st >= thr).astype(int), None, draws, seed))
            row["ece"] = None
            bench.rows.append(row)


def semeval_sentences(
    record: TrainingRecord,
    *,
    seed: int = 0,
    draws: int = 2000,
    tfidf: bool = True,
    balanced: int = 50,
) -> list[dict[str, Any]]:
    """The text classifier's cross-fitted verdicts on SemEval's TRAIN_FILE sentences
    (causal = P(A→B) + P(B→A) ≥ 0.5), all of them and in balanced subsamples (every
    Cause-Effect sentence and as many others, `balanced` seeded draws, mean and range),
    beside TF-IDF + LR trained on the same folds: on TRAIN_FILE alone and on the whole
    corpus."""
    c = record.corpus
    source = np.array(c["source"])
    sem = np.flatnonzero(source == "semeval")
    y_all = (np.array(c["label"]) != 0).astype(int)
    probs = np.array(c["probs"])
    fold = np.array(c["fold"])
    marked = np.array(c["marked"], dtype=object)
    scores = {"text classifier (cross-fitted)": probs[sem, 1] + probs[sem, 2]}
    if tfidf:
        for name, pool in (
            ("TF-IDF + LR, TRAIN_FILE folds", source == "semeval"),
            ("TF-IDF + LR, whole corpus folds", np.ones(len(source), dtype=bool)),
        ):
            s = np.zeros(len(sem))
            for k in sorted(set(fold.tolist())):
                tr = np.flatnonzero(pool & (fold != k))
                te = fold[sem] == k
                if not te.any():
                    continue
                clf = _tfidf(marked[tr]).fit(marked[tr], y_all[tr])
                s[te] = clf.predict_proba(marked[sem][te])[:, 1]
            scores[name] = s
    y = y_all[sem]
    out = []
    labels = np.array(c["label"])[sem]
    causal = np.flatnonzero(labels != 0)
    if causal.size:
        right = (probs[sem][causal, 1] > probs[sem][causal, 2]) == (labels[causal] == 1)
        ci = bootstrap_interval(
            lambda r: float(np.mean(r)), right.astype(float), draws=draws, seed=seed
        )
        out.append(
            {
                "method": "text classifier (cross-fitted)",
                "sample": "direction of Cause-Effect sentences (accuracy, %)",
                "n": int(causal.size),
                "causal": int(causal.size),
                "macro_f1": round(100 * float(right.mean()), 2),
                "macro_f1_ci": [round(100 * ci["low"], 2), round(100 * ci["high"], 2)],
                "auc": None,
                "auc_ci": None,
            }
        )
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    size = min(len(pos), len(neg))
    subsets = [
        np.concatenate(
            [rng.choice(pos, size=size, replace=False), rng.choice(neg, size=size, replace=False)]
        )
        for _ in range(balanced)
    ]
    for name, s in scores.items():
        pred = (s >= 0.5).astype(int)
        row = {
            "method": name,
            "sample": "all (natural mix)",
            "n": int(len(y)),
            "causal": int(y.sum()),
        }
        row["macro_f1"] = macro_f1(pred, y)
        row["auc"] = roc_auc(s, y)
        mci = bootstrap_interval(macro_f1, pred, y, draws=draws, seed=seed)
        aci = bootstrap_interval(roc_auc, s, y, draws=draws, seed=seed)
        row["macro_f1_ci"] = [round(mci["low"], 2), round(mci["high"], 2)]
        row["auc_ci"] = [round(aci["low"], 4), round(aci["high"], 4)]
        out.append(row)
        vals = [macro_f1(pred[idx], y[idx]) for idx in subsets]
        aucs = [roc_auc(s[idx], y[idx]) for idx in subsets]
        out.append(
            {
                "method": name,
                "sample": f"balanced ({balanced} draws: mean, min–max)",
                "n": int(2 * size),
                "causal": int(size),
                "macro_f1": round(float(np.mean(vals)), 2),
                "macro_f1_ci": [round(min(vals), 2), round(max(vals), 2)],
                "auc": round(float(np.mean(aucs)), 4),
                "auc_ci": [round(min(aucs), 4), round(max(aucs), 4)],
            }
        )
    return out


def plot_reliability(bench: EvidenceBenchmark, path: Path) -> Path | None:
    """Reliability diagram: mean predicted P(causal) against the observed share of causal
    pairs, per data set (cross-validated), point size by the number of pairs."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return None
    curves = {k: v for k, v in bench.reliability.items() if ":" not in k}
    if not curves:
        return None
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect calibration")
    for d, curve in curves.items():
        x = [c["mean_predicted"] for c in curve]
        y = [c["observed"] for c in curve]
        size = [10 + 2 * np.sqrt(c["count"]) * 3 for c in curve]
        variant = bench.reliability.get(d + ":variant", [{}])[0].get("variant", "")
        ax.plot(x, y, marker="o", lw=1, label=f"{set_name(d)} ({variant})")
        ax.scatter(x, y, s=size, alpha=0.4)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted P(causal), cross-validated")
    ax.set_ylabel("observed share causal")
    ax.set_title(f"Evidence model reliability\n{bench.text_model}", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def evidence_report(bench: EvidenceBenchmark, out_dir: Path, *, name: str = "pairs-evidence"):
    """(report, Markdown body, name) with the reliability plot written beside."""
    report = {"benchmark": "pairs --method evidence", **bench.to_dict()}
    png = plot_reliability(bench, out_dir / f"{name}-latest.png")
    md = bench.to_markdown()
    if png:
        md += f"\n\n![reliability of the evidence model]({png.name})"
        report["plot"] = str(png)
    return report, md, name


def measure_latency(
    pairs: Sequence[dict[str, Any]],
    *,
    judge,
    kg=None,
    llm=None,
    general: Sequence[Any] = (),
    on_step: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Seconds per `discover pair` answer in one process: the first (cold: encoder, graph
    index, linker and LLM loaded on first use) and the rest (warm), without and with the
    LLM feature, consulting `kg` and the `general` stores as `discover pair` does. `pairs`:
    dicts with ``a``, ``b`` and optional ``context``."""
    import time

    from causalqa.discovery.pair import judge_pair
    from causalqa.errors import CausalQAError

    out: dict[str, Any] = {"pairs": len(pairs)}
    for label, model in (("without LLM", None), ("with LLM", llm)):
        if label == "with LLM" and (llm is None or not any("llm" in v for v in judge.combiners)):
            continue
        seconds = []
        for i, p in enumerate(pairs):
            if on_step:
                on_step(f"{label}: {i + 1}/{len(pairs)}")
            t0 = time.perf_counter()
            try:
                judge_pair(p["a"], p["b"], judge=judge, kg=kg, llm=model,
                           context=p.get("context"), general=general)  # fmt: skip
            except CausalQAError as e:  # a refused pair is an answer too, timed apart
                out.setdefault("refused", {})[f"{p['a']} – {p['b']}"] = e.message
                continue
            seconds.append(time.perf_counter() - t0)
        if not seconds:
            continue
        warm = np.array(seconds[1:]) if len(seconds) > 1 else np.array(seconds)
        out[label] = {
            "first": round(seconds[0], 3),
            "warm_median": round(float(np.median(warm)), 3),
            "warm_p90": round(float(np.quantile(warm, 0.9)), 3),
            "warm_max": round(float(warm.max()), 3),
        }
    return out
