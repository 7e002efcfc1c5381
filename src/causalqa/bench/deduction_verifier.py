"""The evidence verifier in `bench deduction`: cross-validated beside the paper's prompts.

Per fold the verifier is trained on every example of the training pool whose report is
not in the test fold (the pool is the whole data set, also when only a subset — e.g. the
mined reports — is scored), its threshold chosen on out-of-fold predictions of that
training data, and it scores the test fold. Two controls are scored the same way: an
untrained TF-IDF cosine (threshold fitted on the training fold) and a *statement-only*
model that never sees the report (MiniLM embedding of the statement, logistic regression):
whatever it gets right is an artefact of how the statements were written, not deduction.

Every figure is given per negative kind — True statements against ``false-rules`` (other
reports' probable causes: does the verifier tie a cause to *this* report?) and against
``false-llm`` (factors this report discusses that were not the probable cause: can it
tell the probable cause from what was merely investigated?) — with a 95% bootstrap
interval (reports resampled), ROC AUC, ECE, and paired comparisons on the same statements.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from causalqa.metrics import (
    bootstrap_interval,
    expected_calibration_error,
    macro_f1,
    mcnemar_exact,
    roc_auc,
)

VERIFIER_CONDITIONS = ("verifier", "verifier+noce", "verifier+kg", "tfidf", "statement-only")
"""Named here; ``verifier`` takes any of the flags ``+noce`` (no cross-encoder), ``+kg``
(causal-KG features), ``+hard`` (trained with `HARD_K` hard negatives of its training
reports) and ``+hardnarr`` (hard negatives for the training narratives only), e.g.
``verifier+noce+kg``."""
KINDS = ("false-rules", "false-llm", "false-hard")
VERIFIER_FLAGS = {"noce", "kg", "hard", "hardnarr"}
HARD_K = 3
"""Nearest other reports whose causes are a report's hard negatives (``+hard``)."""


def is_verifier_condition(spec: str) -> bool:
    head, *flags = spec.strip().lower().split("+")
    if head == "verifier":
        return set(flags) <= VERIFIER_FLAGS
    return not flags and head in ("tfidf", "statement-only")


def run_fold(
    condition: str,
    train: Sequence[Any],
    test: Sequence[Any],
    *,
    fold: int,
    kg=None,
    seed: int = 0,
    embedder=None,
    ce_params: dict[str, Any] | None = None,
    verifier_params: dict[str, Any] | None = None,
    say: Callable[[str], None] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Test predictions of one verifier condition on one fold, and what the fold used
    (its training reports, the reports the KG features could draw on)."""
    from causalqa.deduction.verifier import Verifier

    cond = condition.strip().lower()
    t0 = time.perf_counter()
    audit: dict[str, Any] = {"train_reports": sorted({e.report_id for e in train})}
    head, *flags = cond.split("+")
    if head == "verifier":
        if "kg" in flags and kg is None:
            from causalqa.errors import DatasetError

            raise DatasetError(f"{cond} needs a causal KG", hint="pass --kg DIR")
        hard = "hard" in flags or "hardnarr" in flags
        params: dict[str, Any] = {"hard_negatives": HARD_K if hard else 0}
        if "hardnarr" in flags:
            params["hard_kinds"] = ("narrative",)
        params.update(verifier_params or {})
        v = Verifier(cross_encoder="noce" not in flags, ce_params=ce_params, seed=seed, **params)
        v.embedder = embedder
        v.fit(train, kg=kg if "kg" in flags else None, progress=say)
        p = v.predict_proba([(e.context, e.statement) for e in test], kg=kg)
        t = v.threshold_for([e.context for e in test])
        audit["verifier_reports"] = v.train_reports_
        audit["kg_reports"] = v.kg_reports_
        audit["features"] = v.feature_names_
    elif cond == "tfidf":
        from causalqa.deduction.features import TextFeatures
        from causalqa.evidence import choose_threshold

        tf = TextFeatures(embedder).fit([e.context for e in train])
        tr = np.array([tf.tfidf_cos(e.context, e.statement) for e in train])
        p = np.array([tf.tfidf_cos(e.context, e.statement) for e in test])
        t = choose_threshold([e.label for e in train], tr, metric="macro_f1")
    elif cond == "statement-only":
        from sklearn.linear_model import LogisticRegression

        from causalqa.evidence import choose_threshold, grouped_folds

        if embedder is None:
            from causalqa.embed import Embedder

            embedder = Embedder()
        Xtr = np.asarray(embedder.encode([e.statement for e in train]), dtype=float)
        Xte = np.asarray(embedder.encode([e.statement for e in test]), dtype=float)
        ytr = np.array([bool(e.label) for e in train])
        groups = [e.report_id for e in train]
        oof = np.zeros(len(train))
        for a, b in grouped_folds(groups, 5, seed=seed + 1):
            m = LogisticRegression(max_iter=2000, C=1.0).fit(Xtr[a], ytr[a])
            oof[b] = m.predict_proba(Xtr[b])[:, 1]
        t = choose_threshold(ytr, oof, metric="macro_f1")
        p = LogisticRegression(max_iter=2000, C=1.0).fit(Xtr, ytr).predict_proba(Xte)[:, 1]
    else:
        raise ValueError(f"unknown verifier condition {condition!r}")
    audit["seconds"] = round(time.perf_counter() - t0, 1)
    ts = np.broadcast_to(np.asarray(t, dtype=float), (len(test),))
    preds = [
        {
            "condition": cond,
            "fold": fold,
            "report_id": e.report_id,
            "statement": e.statement,
            "source": e.source,
            "label": bool(e.label),
            "verdict": bool(pi >= ti),
            "p_true": round(float(pi), 6),
            "threshold": round(float(ti), 6),
        }
        for e, pi, ti in zip(test, p, ts)
    ]
    return preds, audit


# -- per-kind figures ----------------------------------------------------------------------
def _subset(preds: Sequence[dict[str, Any]], kind: str | None) -> list[dict[str, Any]]:
    if kind is None:
        return list(preds)
    return [p for p in preds if p["label"] or p["source"] == kind]


def _macro_f1(y: np.ndarray, v: np.ndarray) -> float | None:
    """Macro F1 (in %, unrounded) of verdicts `v` against labels `y`; None when the
    labels hold one class (a resample of reports with no True or no False statement)."""
    if y.all() or not y.any():
        return None
    return macro_f1(v, y, digits=None)


def _interval(ci: dict[str, Any]) -> list[float | None]:
    return [None, None] if ci["low"] is None else [round(ci["low"], 2), round(ci["high"], 2)]


def kind_scores(preds: Sequence[dict[str, Any]], kind: str | None, *, draws: int = 1000):
    """Macro F1 (pooled, with its 95% report-bootstrap interval, and mean (std) over
    folds), ROC AUC, ECE, accuracy on True and on False of the subset True ∪ `kind`."""
    sub = _subset(preds, kind)
    y = np.array([p["label"] for p in sub], dtype=bool)
    if not len(sub) or y.all() or not y.any():
        return None
    v = np.array([p["verdict"] for p in sub], dtype=bool)
    probs = [p["p_true"] for p in sub]
    reports = [p["report_id"] for p in sub]
    ci = bootstrap_interval(_macro_f1, y, v, groups=reports, draws=draws, seed=0)
    folds = np.array([p["fold"] for p in sub])
    per_fold = [_macro_f1(y[folds == f], v[folds == f]) for f in sorted(set(folds.tolist()))]
    per_fold = [x for x in per_fold if x is not None]
    calibrated = all(p is not None and 0 <= p <= 1 for p in probs)
    auc = roc_auc(probs, y.astype(int).tolist()) if calibrated else None
    return {
        "n": len(sub),
        "n_true": int(y.sum()),
        "reports": len(set(reports)),
        "macro_f1": round(macro_f1(v, y, digits=None), 2),
        "ci": _interval(ci),
        "fold_mean": round(float(np.mean(per_fold)), 2) if per_fold else None,
        "fold_std": round(float(np.std(per_fold, ddof=1)), 2) if len(per_fold) > 1 else None,
        "auc": round(100 * auc, 2) if auc is not None else None,
        "ece": round(expected_calibration_error(y.astype(int), probs), 4) if calibrated else None,
        "acc_true": round(100 * float(v[y].mean()), 2),
        "acc_false": round(100 * float((~v[~y]).mean()), 2),
    }


def paired(
    preds: Sequence[dict[str, Any]], a: str, b: str, kind: str | None, *, draws: int = 1000
) -> dict[str, Any] | None:
    """Condition `a` against `b` on the statements both scored (subset True ∪ `kind`):
    macro F1 difference with its 95% report-bootstrap interval and the share of
    resamples where `a` is not better, and an exact McNemar test of per-statement
    correctness."""

    def key(p):
        return (p["report_id"], p["statement"])

    pa = {key(p): p for p in _subset(preds, kind) if p["condition"] == a}
    pb = {key(p): p for p in _subset(preds, kind) if p["condition"] == b}
    common = [k for k in pa if k in pb]
    if not common:
        return None
    y = np.array([pa[k]["label"] for k in common], dtype=bool)
    va = np.array([pa[k]["verdict"] for k in common], dtype=bool)
    vb = np.array([pb[k]["verdict"] for k in common], dtype=bool)

    def diff(y: np.ndarray, va: np.ndarray, vb: np.ndarray) -> float | None:
        fa, fb = _macro_f1(y, va), _macro_f1(y, vb)
        return None if fa is None or fb is None else fa - fb

    d = diff(y, va, vb)
    if d is None:
        return None
    ci = bootstrap_interval(diff, y, va, vb, groups=[k[0] for k in common], draws=draws, seed=1)
    better = int(((va == y) & (vb != y)).sum())
    lost = int(((va != y) & (vb == y)).sum())
    p_not_better = ci["p_not_above_0"]
    return {
        "a": a,
        "b": b,
        "kind": kind or "all",
        "n": len(common),
        "diff": round(d, 2),
        "ci": _interval(ci),
        "p_not_better": round(p_not_better, 4) if p_not_better is not None else None,
        "mcnemar": {"a_only": better, "b_only": lost, "p": round(mcnemar_exact(better, lost), 4)},
    }


def summarize(
    preds: Sequence[dict[str, Any]], conditions: Sequence[str], *, against: Sequence[str] = ()
):
    """Per condition and kind: `kind_scores`; and the verifier against each of `against`."""
    out: dict[str, Any] = {"by_kind": {}, "paired": []}
    for c in conditions:
        mine = [p for p in preds if p["condition"] == c]
        if not mine:
            continue
        # A negative kind the data set lacks is left out (e.g. false-hard without
        # --hard-negatives); one present but unscorable stays, as None.
        present = {p["source"] for p in mine}
        out["by_kind"][c] = {
            k or "all": kind_scores(mine, k) for k in (None, *KINDS) if k is None or k in present
        }
        if c == "tfidf":  # a cosine, not a probability: no calibration to speak of
            for s_ in out["by_kind"][c].values():
                if s_:
                    s_["ece"] = None
    # The first verifier condition asked for is compared with every other condition.
    main = next((c for c in conditions if c.startswith("verifier")), None)
    if main:
        for b in list(conditions) + list(against):
            if b == main:
                continue
            for k in (None, *KINDS):
                r = paired(preds, main, b, k)
                if r:
                    out["paired"].append(r)
    return out


def markdown(
    summary: dict[str, Any], paper_best: float | None = None, *, folds: bool = True
) -> list[str]:
    """The verifier's table per negative kind; `folds` False for one test part (the time
    split: no pooling over folds, no folds' mean)."""
    pooled = "pooled over the test folds; " if folds else "one test part; "
    spread = "; mean (std) over folds" if folds else ""
    lines = [
        "### The evidence verifier, per negative kind",
        "",
        "Macro F1 over True/False on True statements plus the False statements of one kind "
        f"({pooled}[95% interval, reports resampled]{spread}), ROC AUC and ECE of P(True). "
        "The target is ≥ 80 on each kind"
        + (f" (paper's best: {paper_best})" if paper_best else "")
        + ".",
        "",
        "| condition | kind | n (True) | macro F1 [95% CI] | folds mean (std) | ROC AUC | ECE | "
        "acc True | acc False |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c, kinds in summary["by_kind"].items():
        for k, s in kinds.items():
            if not s:
                continue
            ci = f"[{s['ci'][0]}, {s['ci'][1]}]" if s["ci"][0] is not None else ""
            fold = f"{s['fold_mean']} ({s['fold_std']})" if s["fold_std"] is not None else "—"
            auc = s["auc"] if s["auc"] is not None else "—"
            ece = s["ece"] if s["ece"] is not None else "—"
            lines.append(
                f"| {c} | {k} | {s['n']} ({s['n_true']}) | {s['macro_f1']} {ci} | {fold} | "
                f"{auc} | {ece} | {s['acc_true']} | {s['acc_false']} |"
            )
    if summary["paired"]:
        lines += [
            "",
            "Paired, on the statements both conditions scored: macro F1 difference "
            "[95% interval, reports resampled], share of resamples where the verifier is not "
            "better, exact McNemar test of per-statement correctness.",
            "",
            "| verifier vs | kind | n | Δ macro F1 [95% CI] | P(not better) | right only with "
            "verifier / only with the other | McNemar p |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in summary["paired"]:
            lines.append(
                f"| {r['b']} | {r['kind']} | {r['n']} | {r['diff']:+.2f} [{r['ci'][0]}, "
                f"{r['ci'][1]}] | {r['p_not_better']} | {r['mcnemar']['a_only']} / "
                f"{r['mcnemar']['b_only']} | {r['mcnemar']['p']} |"
            )
    return lines + [""]


def plot(preds: Sequence[dict[str, Any]], summary: dict[str, Any], path) -> None:
    """Macro F1 per condition and kind with intervals, and the verifier's reliability."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from causalqa.metrics import reliability_curve

    conds = list(summary["by_kind"])
    kinds = ["all", *KINDS]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    w = 0.8 / max(len(kinds), 1)
    for j, k in enumerate(kinds):
        xs, ys, lo, hi = [], [], [], []
        for i, c in enumerate(conds):
            s = summary["by_kind"][c].get(k)
            if not s:
                continue
            xs.append(i + j * w)
            ys.append(s["macro_f1"])
            lo.append(s["macro_f1"] - (s["ci"][0] if s["ci"][0] is not None else s["macro_f1"]))
            hi.append((s["ci"][1] if s["ci"][1] is not None else s["macro_f1"]) - s["macro_f1"])
        ax.bar(xs, ys, w, yerr=[lo, hi], label=k, capsize=2)
    ax.axhline(80, color="k", ls="--", lw=0.8)
    ax.set_xticks([i + w for i in range(len(conds))], conds, rotation=30, ha="right")
    ax.set_ylabel("macro F1 (%)")
    ax.set_ylim(0, 100)
    ax.legend(title="False statements", fontsize=8)
    ax.set_title("macro F1 per negative kind (95% CI)")
    for c in conds:
        mine = [p for p in preds if p["condition"] == c and p["p_true"] is not None]
        if not mine or c in ("tfidf",):
            continue
        curve = reliability_curve([int(p["label"]) for p in mine], [p["p_true"] for p in mine])
        ax2.plot(
            [b["mean_predicted"] for b in curve], [b["observed"] for b in curve], "o-", label=c
        )
    ax2.plot([0, 1], [0, 1], "k--", lw=0.8)
    ax2.set_xlabel("predicted P(True)")
    ax2.set_ylabel("observed share True")
    ax2.set_title("reliability")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# -- the time split ------------------------------------------------------------------------
MIN_TEST_REPORTS = 30
"""The test year is the latest whose reports (with any later ones) number at least this."""


def time_split(examples: Sequence[Any], *, min_test_reports: int = MIN_TEST_REPORTS):
    """(train, test, what was split): the test part is every example whose report is dated
    in the latest year that — with any later year — holds at least `min_test_reports`
    reports (`dataset.report_date`: the record's event date, a narrative's "On December 6,
    2023"); the training part is every earlier report *and every report without a date*
    (said in the returned dict: a user's narrative has none).

    Raises:
        DatasetError: no report has a date, or every dated year together holds fewer than
            `min_test_reports` reports, or nothing would be left to train on.
    """
    from causalqa.deduction.dataset import report_date
    from causalqa.errors import DatasetError

    year: dict[str, int | None] = {}
    for e in examples:
        if e.report_id not in year:
            d = report_date(e.context)
            year[e.report_id] = d[0] if d else None
    dated = sorted((y for y in year.values() if y is not None), reverse=True)
    if not dated:
        raise DatasetError(
            "no report states its date: a time split needs dated reports",
            hint="NTSB records open with 'On 2021-06-05, …'; or use the grouped folds",
        )
    if len(dated) < min_test_reports:
        raise DatasetError(
            f"only {len(dated)} dated reports: a time split needs {min_test_reports} to test on"
        )
    cut = dated[min_test_reports - 1]
    test_ids = {r for r, y in year.items() if y is not None and y >= cut}
    if len(test_ids) == len(year):
        raise DatasetError("every report falls in the test years: nothing left to train on")
    train = [e for e in examples if e.report_id not in test_ids]
    test = [e for e in examples if e.report_id in test_ids]
    per_year: dict[str, int] = {}
    for y in year.values():
        per_year[str(y) if y is not None else "undated"] = (
            per_year.get(str(y) if y is not None else "undated", 0) + 1
        )
    info = {
        "test_from_year": cut,
        "train_reports": len(year) - len(test_ids),
        "test_reports": len(test_ids),
        "undated_in_training": sum(y is None for y in year.values()),
        "reports_per_year": dict(sorted(per_year.items())),
    }
    return train, test, info


def run_time_split(
    examples: Sequence[Any],
    conditions: Sequence[str],
    *,
    hard_negatives: int | None = HARD_K,
    min_test_reports: int = MIN_TEST_REPORTS,
    kg=None,
    seed: int = 0,
    embedder=None,
    ce_params: dict[str, Any] | None = None,
    verifier_params: dict[str, Any] | None = None,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train each verifier condition on the earlier reports and score the latest year's.

    Hard negatives: the data set's own ``false-hard`` statements are set aside; each test
    report is then scored against the causes of its `hard_negatives` most similar other
    reports among *all* reports, earlier or of the test year (what a user could confuse
    it with; the report's own cause never — `hard_negatives.hard_negative_examples`); the
    training part keeps no hard negative unless the condition asks for ``+hard``, which
    builds them among the training reports only. The threshold is each condition's own,
    chosen on its training data. Returns the split, every prediction and `summarize`'s
    figures per negative kind."""
    from causalqa.deduction.hard_negatives import hard_negative_examples

    base = [e for e in examples if e.source != "false-hard"]
    train, test, info = time_split(base, min_test_reports=min_test_reports)
    # A report is tested once, in its own context: shorter views of a narrative
    # (`dataset.narrative_views`) are training data, not more test items.
    first: dict[str, str] = {}
    for e in test:
        first.setdefault(e.report_id, e.context)
    test = [e for e in test if e.context == first[e.report_id]]
    if hard_negatives:
        test_ids = {e.report_id for e in test}
        test = test + hard_negative_examples(
            base, hard_negatives, reports=test_ids, embedder=embedder
        )
    info["hard_negatives"] = hard_negatives or 0
    info["train_statements"] = len(train)
    info["test_statements"] = len(test)
    preds: list[dict[str, Any]] = []
    audits = []
    for cond in conditions:
        p, audit = run_fold(
            cond,
            train,
            test,
            fold=0,
            kg=kg,
            seed=seed,
            embedder=embedder,
            ce_params=ce_params,
            verifier_params=verifier_params,
            say=say,
        )
        preds += p
        audits.append(
            {**audit, "condition": cond, "test_reports": sorted({e.report_id for e in test})}
        )
    return {
        "split": info,
        "summary": summarize(preds, list(conditions)),
        "audits": audits,
        "predictions": preds,
    }


def time_split_markdown(result: dict[str, Any]) -> list[str]:
    """The time split's section of the bench report."""
    s = result["split"]
    lines = [
        "## Time split: trained on earlier reports, tested on the latest year's",
        "",
        f"Test: the {s['test_reports']} reports dated {s['test_from_year']} or later "
        f"({s['test_statements']} statements, hard negatives: the causes of the "
        f"{s['hard_negatives']} most similar other reports); training: the "
        f"{s['train_reports']} earlier reports ({s['train_statements']} statements), "
        f"{s['undated_in_training']} of them undated (narratives without a date are kept in "
        f"training). Reports per year: {s['reports_per_year']}. Thresholds chosen on the "
        "training data only.",
        "",
    ]
    return lines + markdown(result["summary"], folds=False)[2:]
