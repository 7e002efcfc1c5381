"""`causalqa bench deduction`: the paper's evaluation (§5, Tables 2–5 and 8).

K-fold cross-validation grouped by report (`sklearn.model_selection.GroupKFold`: a report's
statements are never split between training and test) over a deduction data set JSONL.
Each *condition* is a prompt format and a retriever, written ``FORMAT:RETRIEVER`` —
``V1:none`` (the paper's *None*, Prompt 5), ``V6:semantic``, ``V6:rotg`` (Prompt 10) — with
optional retriever variants ``+notrunc`` / ``+noclean`` (Table 5: no truncation to 10
chains per kind / no cleaning at all) and, for RoTG, ``+similar`` / ``+causal`` (Table 2:
message passing over similar or causal edges only). Retrievers are fitted on the training
folds only: the semantic index and the chains it may show hold the training reports; RoTG
is trained on the training examples (and its auxiliary classifier is scored on the test
fold — Table 2).

Per fold: macro F1 and micro F1 over True/False and accuracy per label source; then mean
(std) over folds, and a paired test over folds (t-test, and Wilcoxon) of each condition
against the no-retrieval baseline, starred as in the paper (* p < 0.15, ** < 0.10,
*** < 0.05). Tables in the paper's shapes with the paper's numbers beside ours; JSON and
Markdown to ``bench/results/deduction/``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.bench.published import published
from causalqa.bench.report import environment, write_report
from causalqa.deduction.dataset import SOURCES, Example, load_jsonl
from causalqa.jsonl import write_jsonl
from causalqa.llm.concurrent import BUSY, run_ordered
from causalqa.metrics import macro_f1, mcnemar_exact, micro_f1, paired_test, roc_auc

METRICS = ("macro_f1", "micro_f1", "acc_true", "acc_false_rules", "acc_false_llm")
"""The per-fold figures of the paper's tables (``acc_false_hard`` is kept beside them when a
data set has hard negatives)."""
METRIC_TITLES = {
    "macro_f1": "Macro F1",
    "micro_f1": "Micro F1",
    "acc_true": "Acc True",
    "acc_false_rules": "Acc False (Rules)",
    "acc_false_llm": "Acc False (LLM)",
    "acc_false_hard": "Acc False (hard)",
    "acc_false": "Acc False (other)",
}
SOURCE_METRIC = {
    "true": "acc_true",
    "false-rules": "acc_false_rules",
    "false-llm": "acc_false_llm",
    "false-hard": "acc_false_hard",
    "false": "acc_false",
}
DEFAULT_CONDITIONS = ("V1:none", "V6:semantic", "V6:rotg")
SOURCES_SHOWN = SOURCES
BASELINE = "V1:none"
TRAIN_VARIANTS = ("similar", "causal")


# The paper's numbers: mean (std) over 10 folds, Mistral-7B-Instruct (Tables 2-5, 8).
PAPER: dict[str, dict[str, str | None]] = published("002")["conditions"]["rows"]
PAPER_ROTG: dict[str, dict[str, str | None]] = published("002")["rotg_aux"]["rows"]
TABLES: dict[str, tuple[str, list[str]]] = {
    "table3": ("Table 3: None, Semantic and RoTG retrieval", ["V1:none", "V6:semantic", "V6:rotg"]),
    "table4": (
        "Table 4: relations in the prompt (extracted / inferred / retrieved)",
        [
            "V1:none",
            "V3:none",
            "V4:none",
            "V5:none",
            "V6:semantic",
            "V7:semantic",
            "V8:semantic",
            "V6:rotg",
            "V7:rotg",
            "V8:rotg",
        ],
    ),
    "table5": (
        "Table 5: RoTG chains cleaned / not truncated / not cleaned",
        ["V6:rotg", "V6:rotg+notrunc", "V6:rotg+noclean", "V7:rotg", "V7:rotg+notrunc"]
        + ["V7:rotg+noclean"],
    ),
    "table8": (
        "Table 8: all prompts (Prompt 5–13 = V1–V9)",
        ["V1:none", "V2:none", "V3:none", "V4:none", "V5:none", "V6:semantic", "V7:semantic"]
        + ["V8:semantic", "V6:rotg", "V7:rotg", "V8:rotg", "V6:rotg+noclean"]
        + ["V6:rotg+notrunc", "V7:rotg+notrunc", "V7:rotg+noclean", "V9:rotg"],
    ),
}


# -- metrics and statistics ------------------------------------------------------------------
def scores(
    y_true: Sequence[bool], y_pred: Sequence[bool], examples: Sequence[Any] | None = None
) -> dict[str, Any]:
    """Macro and micro F1 (in %) over the labels True/False, and accuracy (in %) per
    label source of `examples` (``true``, ``false-rules``, ``false-llm``, ``false-hard``,
    ``false``)."""
    yt = [bool(v) for v in y_true]
    yp = [bool(v) for v in y_pred]
    out: dict[str, Any] = {"n": len(yt)}
    if not yt:
        return {**out, **{m: None for m in METRICS}}
    out["macro_f1"] = macro_f1(yp, yt, digits=4)
    out["micro_f1"] = micro_f1(yp, yt, digits=4)
    sources = [e.source for e in examples] if examples is not None else [None] * len(yt)
    for src, key in SOURCE_METRIC.items():
        hits = [t == p for t, p, s in zip(yt, yp, sources) if s == src]
        out[key] = round(100 * sum(hits) / len(hits), 4) if hits else None
    return out


def grouped_folds(examples: Sequence[Example], n_folds: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train indices, test indices) of `n_folds` folds grouped by report id."""
    from sklearn.model_selection import GroupKFold

    groups = [e.report_id for e in examples]
    n_groups = len(set(groups))
    if n_folds < 2 or n_folds > n_groups:
        from causalqa.errors import DatasetError

        raise DatasetError(
            f"cannot make {n_folds} folds of {n_groups} reports",
            hint="use --folds between 2 and the number of reports",
        )
    idx = np.arange(len(examples))
    return [(tr, te) for tr, te in GroupKFold(n_splits=n_folds).split(idx, groups=groups)]


def stars(p: float | None) -> str:
    """The paper's marks: * p < 0.15, ** < 0.10, *** < 0.05."""
    if p is None:
        return ""
    return "***" if p < 0.05 else "**" if p < 0.10 else "*" if p < 0.15 else ""


def mean_std(values: Sequence[float | None]) -> dict[str, float | None]:
    xs = [v for v in values if v is not None]
    if not xs:
        return {"mean": None, "std": None}
    std = float(np.std(xs, ddof=1)) if len(xs) > 1 else 0.0
    return {"mean": round(float(np.mean(xs)), 2), "std": round(std, 2)}


def _cell(ms: dict[str, float | None], p: float | None = None) -> str:
    if ms.get("mean") is None:
        return "—"
    return f"{ms['mean']:.2f} ({ms['std']:.2f}){stars(p)}"


# -- conditions ------------------------------------------------------------------------------
def parse_condition(spec: str) -> tuple[str, str, tuple[str, ...]]:
    """``"V6:rotg+noclean"`` → (``"V6"``, ``"rotg"``, (``"noclean"``,))."""
    from causalqa.deduction.prompts import get_format
    from causalqa.errors import DatasetError

    fmt, _, ret = spec.strip().partition(":")
    name, *variants = (ret or "none").strip().lower().split("+")
    f = get_format(fmt)
    known = {"notrunc", "noclean", "similar", "causal"}
    if bad := [v for v in variants if v not in known]:
        raise DatasetError(f"unknown condition variant(s) {bad}", hint=f"use {sorted(known)}")
    if f.retrieved and name == "none":
        raise DatasetError(f"{f.name} shows retrieved chains: give a retriever, e.g. {f.name}:rotg")
    if not f.retrieved and name != "none":
        raise DatasetError(f"{f.name} shows no retrieved chains: use {f.name}:none or V6–V9")
    return f.name, name, tuple(variants)


def condition_key(spec: str) -> str:
    fmt, name, variants = parse_condition(spec)
    return f"{fmt}:{'+'.join((name, *variants))}"


def make_retriever(name: str, variants: Sequence[str], embedder=None, rotg_params=None):
    """A fresh, unfitted retriever for a condition."""
    from causalqa.deduction.chains import EXTRACTED, INFERRED, SIMILAR
    from causalqa.deduction.retrieve import get_retriever

    if name == "rotg":
        import causalqa.deduction.gnn_retriever  # noqa: F401  (registers "rotg")
    kw: dict[str, Any] = {}
    kw["dedupe"], kw["per_kind"] = _cleaning(variants)
    if name == "rotg":
        kw.update(rotg_params or {})
        if "similar" in variants:
            kw["edge_types"] = (SIMILAR,)
        if "causal" in variants:
            kw["edge_types"] = (EXTRACTED, INFERRED)
    if embedder is not None:
        kw["embedder"] = embedder
    return get_retriever(name, **kw) if kw else get_retriever(name)


def _cleaning(variants: Sequence[str]) -> tuple[float | None, int | None]:
    """(dedupe threshold, chains kept per kind) of a condition: the paper's 0.8 and 10,
    no truncation (``notrunc``), or neither (``noclean``)."""
    if "noclean" in variants:
        return None, None
    if "notrunc" in variants:
        return 0.8, None
    return 0.8, 10


# -- the benchmark -------------------------------------------------------------------------
def limit_reports(examples: Sequence[Example], n: int | None, seed: int = 0) -> list[Example]:
    """The examples of `n` reports drawn at random (seeded), or all."""
    from causalqa.deduction.dataset import sample_report_ids

    if n is None:
        return list(examples)
    keep = set(sample_report_ids((e.report_id for e in examples), n, seed))
    return [e for e in examples if e.report_id in keep]


def run_deduction_bench(
    data: str | Path | Sequence[Example],
    *,
    kg=None,
    llm=None,
    llm_spec: str | None = None,
    conditions: Sequence[str] = DEFAULT_CONDITIONS,
    folds: int = 10,
    limit: int | None = None,
    kg_reports_only: bool = False,
    method: str = "logprobs",
    k: int = 3,
    seed: int = 0,
    rotg_params: dict[str, Any] | None = None,
    rotg_aux_variants: Sequence[str] = (),
    verifier_pool: str | Path | Sequence[Example] | None = None,
    ce_params: dict[str, Any] | None = None,
    verifier_params: dict[str, Any] | None = None,
    stored_predictions: str | Path | None = None,
    embedder=None,
    hard_negatives: int | None = None,
    time_split: bool = False,
    out_dir: Path | None = Path("bench/results/deduction"),
    progress: bool = True,
    console=None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    concurrency: int = 1,
) -> dict[str, Any]:
    """Run the cross-validation and return (and, with `out_dir`, write) the report.

    `concurrency` > 1 keeps that many `deduce` calls in flight (a server with several
    slots; `causalqa.llm.concurrent.run_ordered`); predictions are kept in input order.

    `kg` is a `CausalKG` or a KG directory (``causalqa kg mine`` output); without one,
    conditions with a retriever are skipped with a note. With `kg_reports_only`, only the
    reports fully mined into `kg` are evaluated (`fully_mined`; then `limit` draws among
    them). `llm` is an
    LLM object, or `llm_spec` a backend spec for `get_llm`.

    `rotg_aux_variants` (``all``, ``similar``, ``causal``) also trains RoTG on all edge
    types or on those alone and scores its auxiliary classifier (Table 2) without any
    LLM call.

    Besides the fold scores, the report keeps every test prediction (`predictions`: the
    condition, report, label source, verdict, P(True), chains shown, prompt tokens) and,
    per condition, the pooled ROC AUC of P(True) and an exact McNemar test of the
    per-statement correctness against the baseline.

    `hard_negatives` K adds to a data set without ``false-hard`` statements the causes of
    each report's K most similar other reports (`hard_negatives.with_hard_negatives`); a
    verifier's training part never holds a hard negative that is a test report's own
    cause. `time_split` also trains each verifier condition on the earlier reports and
    tests it on the latest year's (`deduction_verifier.run_time_split`, with hard
    negatives among all reports: K, or 3), reported beside the folds as ``time_split``.
    """
    from causalqa.bench import deduction_verifier as dv
    from causalqa.deduction.deduce import deduce
    from causalqa.deduction.event_graph import CausalKG
    from causalqa.deduction.prompts import get_format

    started = time.perf_counter()
    examples = list(load_jsonl(data)) if isinstance(data, str | Path) else list(data)
    pool = (
        list(load_jsonl(verifier_pool))
        if isinstance(verifier_pool, str | Path)
        else list(verifier_pool)
        if verifier_pool is not None
        else examples
    )
    verifier_conds = [c.strip().lower() for c in conditions if dv.is_verifier_condition(c)]
    conditions = [c for c in conditions if not dv.is_verifier_condition(c)]
    if kg is not None and not isinstance(kg, CausalKG):
        kg = CausalKG.load(kg)
    if kg_reports_only:
        from causalqa.errors import DatasetError

        if kg is None:
            raise DatasetError("only the KG's reports were asked for, but no KG was given")
        mined = fully_mined(kg, examples)
        examples = [e for e in examples if e.report_id in mined]
        if not examples:
            raise DatasetError(
                "no report of the data set is mined in the KG",
                hint="mine the data set's reports first: causalqa kg mine DATA --out KG",
            )
    examples = limit_reports(examples, limit, seed)
    if hard_negatives and not any(e.source == "false-hard" for e in examples):
        from causalqa.deduction.hard_negatives import with_hard_negatives

        examples = with_hard_negatives(examples, hard_negatives, embedder=embedder)
    if verifier_pool is None:
        pool = examples
    if llm is None and conditions:
        from causalqa.llm import get_llm

        llm = get_llm(llm_spec, cache=True, quiet=not progress)
    if bad := [v for v in rotg_aux_variants if v not in ("all", *TRAIN_VARIANTS)]:
        from causalqa.errors import DatasetError

        raise DatasetError(f"unknown RoTG variant(s) {bad}", hint=f"use {['all', *TRAIN_VARIANTS]}")
    keys = list(dict.fromkeys(condition_key(c) for c in conditions))
    if keys and BASELINE not in keys:
        keys.insert(0, BASELINE)
    notes: list[str] = []
    run_keys = []
    for key in keys:
        fmt, name, variants = parse_condition(key)
        f = get_format(fmt)
        if name != "none" and kg is None:
            notes.append(f"{key}: skipped — no causal KG given (--kg DIR from `causalqa kg mine`)")
            continue
        if (f.extracted or f.inferred) and kg is None:
            notes.append(
                f"{key}: no KG given, so its extracted/inferred chains are mined live "
                "(two extra LLM calls per statement)"
            )
        run_keys.append(key)
    splits = grouped_folds(examples, folds)
    total = sum(len(te) for _, te in splits) * (len(run_keys) + len(verifier_conds))
    audits: list[dict[str, Any]] = []
    per_fold: dict[str, list[dict[str, Any]]] = {key: [] for key in run_keys}
    rotg_aux: dict[str, list[dict[str, Any]]] = {}
    retrieval_stats: dict[str, dict[str, float]] = {
        key: {"statements": 0, "with_chains": 0, "chains": 0} for key in run_keys
    }
    errors: dict[str, int] = {}
    predictions: list[dict[str, Any]] = []
    bar = _progress(progress, console)
    with bar:
        task = bar.add_task("bench deduction", total=total) if bar else None
        for fold, (tr, te) in enumerate(splits):
            train = [examples[i] for i in tr]
            test = [examples[i] for i in te]
            train_reports = sorted({e.report_id for e in train})
            fitted: dict[str, Any] = {}
            for key in run_keys:
                fmt, name, variants = parse_condition(key)
                if bar:
                    bar.update(task, description=f"fold {fold + 1}/{folds} {key}")
                retriever = None
                if name != "none":
                    # Cleaning variants share the fitted model; edge variants retrain.
                    tkey = "+".join((name, *(v for v in variants if v in TRAIN_VARIANTS)))
                    if tkey not in fitted:
                        r = make_retriever(name, variants, embedder, rotg_params)
                        if name == "rotg":
                            aux = _train_rotg(r, kg, train, test, train_reports, fold)
                            rotg_aux.setdefault(tkey, []).append(aux)
                            if on_result:
                                on_result({"condition": f"{tkey} (auxiliary)", **aux})
                        else:
                            r.fit(kg, reports=train_reports)
                        fitted[tkey] = r
                        audits.append(
                            {
                                "condition": key,
                                "fold": fold,
                                "train_reports": train_reports,
                                "retriever_reports": sorted(
                                    {str(c.report_id) for c in getattr(r, "chains_", [])}
                                ),
                                "test_reports": sorted({e.report_id for e in test}),
                            }
                        )
                    retriever = copy.copy(fitted[tkey])
                    retriever.dedupe, retriever.per_kind = _cleaning(variants)

                def one(e, _r=retriever, _fmt=fmt):
                    try:
                        return deduce(
                            e.context, e.statement, llm, _r, _fmt, method=method, k=k, kg=kg
                        )
                    except _known_errors() as exc:  # a garbled context: counted, never fatal
                        return exc

                y_pred, kept = [], []

                def take(
                    _i,
                    e,
                    d,
                    key=key,
                    retriever=retriever,
                    fold=fold,
                    y_pred=y_pred,
                    kept=kept,
                    predictions=predictions,
                ):
                    if isinstance(d, Exception):
                        name_ = type(d).__name__
                        errors[f"{key}: {name_}"] = errors.get(f"{key}: {name_}", 0) + 1
                    else:
                        y_pred.append(d.verdict)
                        kept.append(e)
                        predictions.append(
                            {
                                "condition": key,
                                "fold": fold,
                                "report_id": e.report_id,
                                "statement": e.statement,
                                "source": e.source,
                                "label": e.label,
                                "verdict": d.verdict,
                                "p_true": d.probability,
                                "chains": [c["text"] for c in d.chains],
                                "chain_scores": [c.get("score") for c in d.chains],
                                "prompt_tokens": d.usage.get("prompt_tokens", 0),
                                "seconds": d.seconds,
                            }
                        )
                        if retriever is not None:
                            st = retrieval_stats[key]
                            st["statements"] += 1
                            st["chains"] += len(d.chains)
                            st["with_chains"] += bool(d.chains)
                    if bar:
                        bar.advance(task)

                run_ordered(one, test, concurrency=concurrency, retry=BUSY, on_result=take)
                s = scores([e.label for e in kept], y_pred, kept)
                s["fold"] = fold
                per_fold[key].append(s)
                if on_result:
                    on_result({"condition": key, **s})
            # The evidence verifier and its controls: trained on the pool minus this fold.
            test_reports = {e.report_id for e in test}
            test_truths = {e.statement for e in test if e.label}
            # A hard negative of a training report that is a test report's own cause
            # would put a test label's statement into training: left out.
            pool_train = [
                e
                for e in pool
                if e.report_id not in test_reports
                and not (e.source == "false-hard" and e.statement in test_truths)
            ]
            for cond in verifier_conds:
                if bar:
                    bar.update(task, description=f"fold {fold + 1}/{folds} {cond}")

                def say(text, _c=cond, _f=fold):
                    if bar:
                        bar.update(task, description=f"fold {_f + 1}/{folds} {_c}: {text}")

                preds_, audit = dv.run_fold(
                    cond,
                    pool_train,
                    test,
                    fold=fold,
                    kg=kg,
                    seed=seed,
                    embedder=embedder,
                    ce_params=ce_params,
                    verifier_params=verifier_params,
                    say=say,
                )
                audits.append(
                    {**audit, "condition": cond, "fold": fold, "test_reports": sorted(test_reports)}
                )
                predictions += preds_
                s = scores([p["label"] for p in preds_], [p["verdict"] for p in preds_], test)
                s["fold"] = fold
                per_fold.setdefault(cond, []).append(s)
                if on_result:
                    on_result({"condition": cond, **s})
                if bar:
                    bar.advance(task, len(test))
            # Table 2's edge-type ablations: RoTG's own classifier only, no LLM.
            for variant in rotg_aux_variants:
                tkey = "rotg" if variant == "all" else f"rotg+{variant}"
                if kg is None or tkey in fitted:
                    continue
                edges = () if variant == "all" else (variant,)
                r = make_retriever("rotg", edges, embedder, rotg_params)
                aux = _train_rotg(r, kg, train, test, train_reports, fold)
                rotg_aux.setdefault(tkey, []).append(aux)
                if on_result:
                    on_result({"condition": f"{tkey} (auxiliary)", **aux})
    timed, timed_preds = None, []
    if time_split and verifier_conds:
        if bar:
            bar.update(task, description="time split")
        timed = dv.run_time_split(
            pool,
            verifier_conds,
            hard_negatives=hard_negatives or dv.HARD_K,
            kg=kg,
            seed=seed,
            embedder=embedder,
            ce_params=ce_params,
            verifier_params=verifier_params,
        )
        # Kept apart from the folds' predictions (their figures are the CV's).
        timed_preds = [{**p, "split": "time"} for p in timed.pop("predictions")]
    summary = _summarize(per_fold, rotg_aux, retrieval_stats, notes)
    stored: list[dict[str, Any]] = []
    if stored_predictions is not None:
        # Predictions of an earlier run (e.g. the LLM prompts, hours of compute), compared
        # with the verifier statement by statement on the statements both scored.
        from causalqa.errors import DatasetError as _DatasetError
        from causalqa.jsonl import read_jsonl

        wanted = {(e.report_id, e.statement) for e in examples}
        for _, p in read_jsonl(Path(stored_predictions), error=_DatasetError):
            if p.get("condition") in run_keys or (p["report_id"], p["statement"]) not in wanted:
                continue
            stored.append({**p, "condition": f"{p['condition']} (stored)"})
    stored_conds = list(dict.fromkeys(p["condition"] for p in stored))
    verifier_summary = (
        dv.summarize(predictions + stored, verifier_conds + run_keys + stored_conds)
        if verifier_conds
        else None
    )
    _add_pooled(summary["results"], predictions)
    summary["notes"] += _shift_notes(summary["results"])
    tuned = {key: tuned_fold_scores(predictions, key) for key in run_keys}
    tuned = {key: folds_ for key, folds_ in tuned.items() if folds_}
    summary["results_tuned"] = _summarize(tuned, {}, {}, [])["results"] if tuned else []
    report = {
        "benchmark": "deduction",
        "environment": {
            **environment(),
            "torch": _version("torch"),
            "torch_geometric": _version("torch_geometric"),
            "scikit_learn": _version("scikit-learn"),
        },
        "config": {
            "data": str(data) if isinstance(data, str | Path) else "<in memory>",
            "kg": str(getattr(kg, "path", None)) if kg is not None else None,
            "kg_stats": _kg_stats(kg),
            "llm": f"{getattr(llm, 'backend', '?')}:{getattr(llm, 'model', '?')}",
            "conditions": run_keys,
            "folds": folds,
            "limit_reports": limit,
            "kg_reports_only": kg_reports_only,
            "reports": len({e.report_id for e in examples}),
            "statements": len(examples),
            "by_source": _count_sources(examples),
            "method": method,
            "k": k,
            "seed": seed,
            "rotg_params": rotg_params or {},
            "rotg_aux_variants": list(rotg_aux_variants),
            "encoder": "all-MiniLM-L6-v2 (stands in for the paper's RoBERTa / mpnet)",
            "verifier_conditions": verifier_conds,
            "stored_predictions": str(stored_predictions) if stored_predictions else None,
            "verifier_pool": len({e.report_id for e in pool}) if verifier_conds else None,
            "ce_params": ce_params or {},
            "hard_negatives": hard_negatives,
            "time_split": time_split,
        },
        "verifier": verifier_summary,
        "time_split": timed,
        "audits": audits + (timed["audits"] if timed else []),
        "quick": limit is not None or folds < 10,
        "seconds": round(time.perf_counter() - started, 1),
        "errors": errors,
        "notes": notes + summary.pop("notes"),
        **summary,
        "per_fold": per_fold,
        "per_fold_tuned": tuned,
        "rotg_aux_per_fold": rotg_aux,
        "predictions": predictions + timed_preds,
    }
    report["markdown"] = markdown(report)
    if out_dir is not None:
        write(report, Path(out_dir))
        if verifier_summary:
            dv.plot(predictions, verifier_summary, Path(out_dir) / "deduction-latest.png")
    return report


def _train_rotg(r, kg, train, test, train_reports, fold: int) -> dict[str, Any]:
    """Train RoTG retriever `r` on a fold's training examples; its auxiliary classifier's
    scores on the test fold (Table 2), with the training time and loss history."""
    t0 = time.perf_counter()
    r.fit(kg, train, reports=train_reports)
    p_true = r.predict_proba(test)
    aux = scores([bool(e.label) for e in test], (p_true >= 0.5).tolist(), test)
    aux.update(
        fold=fold,
        train_seconds=round(time.perf_counter() - t0, 2),
        loss_history=[round(x, 4) for x in r.history_],
    )
    return aux


def fully_mined(kg, examples: Sequence[Example]) -> set[str]:
    """The reports of `examples` whose mining in `kg` is complete: extracted (Prompt 3)
    and every one of their statements inferred (Prompt 4). A run stopped mid-report
    leaves that report out rather than judging it with half its inferred chains."""
    done = kg.mined_units()
    todo: dict[str, set[tuple[str, str, str]]] = {}
    for e in examples:
        units = todo.setdefault(e.report_id, {(e.report_id, "extract", "")})
        units.add((e.report_id, "infer", e.statement))
    return {rid for rid, units in todo.items() if units <= done}


def _add_pooled(results: list[dict[str, Any]], predictions: list[dict[str, Any]]) -> None:
    """Per condition, over all test predictions pooled: ROC AUC of P(True), mean prompt
    tokens, mean P(True) per label source, and (not for the baseline) an exact McNemar
    test of per-statement correctness against the baseline."""
    by_cond: dict[str, list[dict[str, Any]]] = {}
    for p in predictions:
        by_cond.setdefault(p["condition"], []).append(p)
    base = {(p["report_id"], p["statement"]): p for p in by_cond.get(BASELINE, [])}
    for row in results:
        preds = by_cond.get(row["condition"], [])
        if not preds:
            continue
        probs = [p["p_true"] for p in preds]
        labels = [bool(p["label"]) for p in preds]
        if all(v is not None for v in probs) and 0 < sum(labels) < len(labels):
            row["auc"] = round(100 * roc_auc(probs, labels, digits=None), 2)
        row["prompt_tokens"] = round(float(np.mean([p.get("prompt_tokens", 0) for p in preds])), 1)
        row["p_true_by_source"] = {
            src: round(float(np.mean([p["p_true"] for p in group])), 4)
            for src, group in _group(preds, "source").items()
            if all(p["p_true"] is not None for p in group)
        }
        if row["condition"] == BASELINE or not base:
            continue
        # b: right here and wrong in the baseline; c: the reverse.
        b = c = 0
        shift: dict[bool, list[float]] = {True: [], False: []}
        for p in preds:
            ref = base.get((p["report_id"], p["statement"]))
            if ref is None:
                continue
            ok, ok_ref = p["verdict"] == p["label"], ref["verdict"] == ref["label"]
            b += ok and not ok_ref
            c += ok_ref and not ok
            if p["p_true"] is not None and ref["p_true"] is not None:
                shift[bool(p["label"])].append(p["p_true"] - ref["p_true"])
        if shift[True] and shift[False]:
            row["p_true_shift"] = {
                "true": round(float(np.mean(shift[True])), 4),
                "false": round(float(np.mean(shift[False])), 4),
            }
        row["mcnemar"] = {
            "better": b,
            "worse": c,
            "p": round(mcnemar_exact(b, c), 4),
        }


def best_threshold(labels: Sequence[bool], p_true: Sequence[float]) -> float:
    """The P(True) threshold with the highest macro F1 on (`labels`, `p_true`): one of the
    midpoints between consecutive distinct probabilities, or 0.5; ties go to the
    threshold nearest 0.5."""
    ps = sorted(set(float(p) for p in p_true))
    cands = {0.5, *((a + b) / 2 for a, b in zip(ps[:-1], ps[1:]))}
    y = [bool(v) for v in labels]
    best: tuple[float, float] | None = None
    for t in sorted(cands, key=lambda t: abs(t - 0.5)):
        f1 = macro_f1([p >= t for p in p_true], y, digits=None)
        if best is None or f1 > best[0] + 1e-10:  # in %: the 1e-12 of a fraction
            best = (f1, t)
    return best[1] if best else 0.5


def tuned_fold_scores(
    predictions: Sequence[dict[str, Any]], condition: str
) -> list[dict[str, Any]]:
    """Fold scores of `condition` with the verdict ``P(True) ≥ t``, `t` fitted
    (`best_threshold`) on the other folds' test predictions — never on the fold scored.

    The model's P(True) can sit below 0.5 for every statement (a small model says
    "False" to all): this separates what the prompt tells the model from where its
    "True"/"False" prior puts the line. (RoTG's predictions on the other folds come
    from retrievers trained with this fold's labels: a second-order use of them.)
    """
    from types import SimpleNamespace

    preds = [p for p in predictions if p["condition"] == condition and p["p_true"] is not None]
    folds = sorted({p["fold"] for p in preds})
    if len(folds) < 2:
        return []
    out = []
    for f in folds:
        rest = [p for p in preds if p["fold"] != f]
        t = best_threshold([p["label"] for p in rest], [p["p_true"] for p in rest])
        test = [p for p in preds if p["fold"] == f]
        s_ = scores(
            [p["label"] for p in test],
            [p["p_true"] >= t for p in test],
            [SimpleNamespace(source=p["source"]) for p in test],
        )
        out.append({**s_, "fold": f, "threshold": round(t, 6)})
    return out


def _shift_notes(results: list[dict[str, Any]]) -> list[str]:
    """What a condition did to the model's P(True), beside the baseline's: moving True
    and False statements alike changes the verdicts without separating them better."""
    base = next((r for r in results if r["condition"] == BASELINE), None)
    notes = []
    for r in results:
        sh = r.get("p_true_shift")
        if sh is None or base is None:
            continue
        auc = (
            f"; ROC AUC {r['auc']:.1f} vs {base['auc']:.1f}"
            if r.get("auc") is not None and base.get("auc") is not None
            else ""
        )
        notes.append(
            f"{r['condition']}: mean P(True) moved {100 * sh['true']:+.1f} points on True "
            f"statements and {100 * sh['false']:+.1f} on False ones against {BASELINE}{auc}; "
            f"prompts of {r['prompt_tokens']:.0f} tokens vs {base['prompt_tokens']:.0f}"
        )
    return notes


def _group(rows: list[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    out: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r[key], []).append(r)
    return out


def _known_errors() -> tuple[type, ...]:
    from causalqa.errors import ContextError

    return (ContextError,)


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _kg_stats(kg) -> dict[str, Any] | None:
    if kg is None:
        return None
    s = kg.stats()
    return {k: s[k] for k in ("reports", "nodes", "edges", "edges_by_type")}


def _count_sources(examples: Sequence[Example]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in examples:
        out[str(e.source)] = out.get(str(e.source), 0) + 1
    return out


def _progress(show: bool, console):
    if not show:
        return _NoBar()
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __bool__(self) -> bool:
        return False


def _summarize(per_fold, rotg_aux, retrieval_stats, notes_in) -> dict[str, Any]:
    notes: list[str] = []
    base = per_fold.get(BASELINE, [])
    results = []
    for key, folds in per_fold.items():
        row: dict[str, Any] = {"condition": key, "n": sum(f["n"] for f in folds)}
        for m in (*METRICS, "acc_false", "acc_false_hard"):
            vals = [f.get(m) for f in folds]
            if all(v is None for v in vals):
                continue
            row[m] = mean_std(vals)
            if key != BASELINE and base:
                ref = [f.get(m) for f in base]
                row[f"{m}_p_ttest"] = paired_test(vals, ref, "ttest")
                row[f"{m}_p_wilcoxon"] = _safe_wilcoxon(vals, ref)
        st = retrieval_stats.get(key)
        if st and st["statements"]:
            row["retrieval"] = {
                "with_chains_pct": round(100 * st["with_chains"] / st["statements"], 1),
                "chains_per_statement": round(st["chains"] / st["statements"], 2),
            }
        results.append(row)
    for row in results:
        if row["condition"] == BASELINE or "macro_f1" not in row or not base:
            continue
        b = next(r for r in results if r["condition"] == BASELINE)
        diff = row["macro_f1"]["mean"] - b["macro_f1"]["mean"]
        p = row.get("macro_f1_p_ttest")
        why = []
        ret = row.get("retrieval")
        if ret is not None and ret["with_chains_pct"] < 50:
            why.append(
                f"only {ret['with_chains_pct']}% of statements got any retrieved chain "
                "(the KG is small or mined from few reports)"
            )
        if len(base) < 5:
            why.append(f"{len(base)} folds give a weak paired test")
        significant = p is not None and p < 0.05
        verdict = ("helped" if diff > 0 else "hurt") if significant else "did not clearly help"
        notes.append(
            f"{row['condition']}: macro F1 {diff:+.2f} vs {BASELINE} (paired t-test p = "
            f"{'n/a' if p is None else f'{p:.3g}'}) — {verdict}"
            + (f"; {'; '.join(why)}" if why and verdict != "helped" else "")
        )
    aux = []
    for rkey, folds in rotg_aux.items():
        row = {"retriever": rkey, "n": sum(f["n"] for f in folds)}
        for m in METRICS:
            row[m] = mean_std([f.get(m) for f in folds])
            if rkey != "rotg" and "rotg" in rotg_aux:
                ref = [f.get(m) for f in rotg_aux["rotg"]]
                row[f"{m}_p_ttest"] = paired_test([f.get(m) for f in folds], ref, "ttest")
        row["train_seconds"] = mean_std([f["train_seconds"] for f in folds])
        aux.append(row)
    return {"results": results, "rotg_aux": aux, "notes": notes}


def _safe_wilcoxon(a, b) -> float | None:
    try:
        return paired_test(a, b, "wilcoxon")
    except ValueError:
        return None


# -- output ------------------------------------------------------------------------------
def _table(title: str, keys: list[str], results: dict[str, dict], paper: dict) -> list[str]:
    head = "| Condition | " + " | ".join(
        f"{METRIC_TITLES[m]} (ours) | {METRIC_TITLES[m]} (paper)" for m in METRICS
    )
    lines = [f"### {title}", "", head + " |", "|---" * (1 + 2 * len(METRICS)) + "|"]
    for key in keys:
        row = results.get(key, {})
        cells = [key]
        for m in METRICS:
            cells.append(_cell(row[m], row.get(f"{m}_p_ttest")) if m in row else "—")
            cells.append((paper.get(key) or {}).get(m) or "—")
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


def markdown(report: dict[str, Any]) -> str:
    env, cfg = report["environment"], report["config"]
    res = {r["condition"]: r for r in report["results"]}
    quick = cfg["limit_reports"] is not None or cfg["folds"] < 10
    lines = [
        "# causalqa bench deduction" + (" (quick)" if quick else ""),
        "",
        f"- date: {env['date']}",
        f"- hardware: {env['cpu']}, {env['cores']} cores, {env['memory_gb']} GB RAM",
        f"- software: Python {env['python']}, causalqa {env['causalqa']}, "
        f"llama-cpp-python {env['llama_cpp_python']}, torch {env.get('torch')}, "
        f"torch_geometric {env.get('torch_geometric')}",
        f"- LLM: {cfg['llm']} · method {cfg['method']} · top-E {cfg['k']} · "
        f"{cfg['folds']}-fold CV grouped by report · {cfg['reports']} reports, "
        f"{cfg['statements']} statements {cfg['by_source']}",
        f"- KG: {cfg['kg']} {cfg['kg_stats'] or ''}",
        f"- encoder: {cfg['encoder']}",
        f"- wall time: {report['seconds']} s",
        "",
        "Ours: mean (std) over folds, in %; stars: paired t-test over folds against "
        f"{BASELINE} (* p < 0.15, ** < 0.10, *** < 0.05). Paper: the paper's own numbers "
        "(Mistral-7B-Instruct, its unreleased data set) — labelled (paper), for shape only.",
        "",
    ]
    if report.get("verifier"):
        from causalqa.bench.deduction_verifier import markdown as verifier_markdown

        best = max(
            (float(str(r.get("macro_f1") or "0").split()[0]) for r in PAPER.values()),
            default=None,
        )
        lines += verifier_markdown(report["verifier"], best)
    if report.get("time_split"):
        from causalqa.bench.deduction_verifier import time_split_markdown

        lines += time_split_markdown(report["time_split"])
        lines += [
            f"Verifier training pool: {cfg.get('verifier_pool')} reports (each fold: the "
            "pool minus that fold's test reports).",
            "",
        ]
    for title, keys in TABLES.values():
        if any(k in res for k in keys) or (title.startswith("Table 3") and res.get(BASELINE)):
            lines += _table(title, keys, res, PAPER)
    extra = [k for k in res if not any(k in keys for _, keys in TABLES.values())]
    if extra:
        lines += _table("Other conditions", extra, res, PAPER)
    aux = {f"{r['retriever']}": r for r in report["rotg_aux"]}
    lines += _table(
        "Table 2: RoTG's auxiliary True/False classifier (test folds)",
        ["rotg", "rotg+similar", "rotg+causal"],
        aux,
        PAPER_ROTG,
    )
    if aux:
        lines += [
            "Stars in Table 2: paired t-test over folds against rotg (all edge types). "
            "RoTG training seconds per fold: "
            + ", ".join(f"{k} {_cell(v['train_seconds'])}" for k, v in aux.items()),
            "",
        ]
    pv = [
        f"- {r['condition']}: macro F1 p = {_fmt_p(r.get('macro_f1_p_ttest'))} (t-test), "
        f"{_fmt_p(r.get('macro_f1_p_wilcoxon'))} (Wilcoxon); micro F1 p = "
        f"{_fmt_p(r.get('micro_f1_p_ttest'))} (t-test)"
        + (
            f"; per statement (McNemar, exact): {r['mcnemar']['better']} right only here, "
            f"{r['mcnemar']['worse']} right only in {BASELINE}, p = {r['mcnemar']['p']:.3g}"
            if r.get("mcnemar")
            else ""
        )
        + (
            f"; chains retrieved for {r['retrieval']['with_chains_pct']}% of statements, "
            f"{r['retrieval']['chains_per_statement']} per statement"
            if r.get("retrieval")
            else ""
        )
        for r in report["results"]
        if r["condition"] != BASELINE
    ]
    if pv:
        lines += ["### Significance against no retrieval", "", *pv, ""]
    tuned = {r["condition"]: r for r in report.get("results_tuned", [])}
    if tuned:
        lines += _table(
            "Table 3 again, the P(True) threshold fitted on the other folds (not 0.5)",
            [k for k in res if k in tuned],
            tuned,
            PAPER,
        )
        thresholds = {
            k: mean_std([f["threshold"] for f in v])
            for k, v in report.get("per_fold_tuned", {}).items()
        }
        lines += [
            "Thresholds, mean (std) over folds: "
            + ", ".join(f"{k} {v['mean']:.3f} ({v['std']:.3f})" for k, v in thresholds.items()),
            "",
        ]
        lines += [
            f"- {k}: macro F1 p = {_fmt_p(r.get('macro_f1_p_ttest'))} (t-test), "
            f"{_fmt_p(r.get('macro_f1_p_wilcoxon'))} (Wilcoxon), fitted thresholds"
            for k, r in tuned.items()
            if k != BASELINE
        ] + [""]
    pooled = [r for r in report["results"] if "prompt_tokens" in r]
    if pooled:
        lines += [
            "### Pooled over all test statements",
            "",
            "| Condition | ROC AUC of P(True) | "
            + " | ".join(f"mean P(True), {s}" for s in SOURCES_SHOWN)
            + " | prompt tokens |",
            "|---" * (3 + len(SOURCES_SHOWN)) + "|",
        ]
        for r in pooled:
            by = r.get("p_true_by_source", {})
            cells = [f"{100 * by[s]:.1f}%" if s in by else "—" for s in SOURCES_SHOWN]
            auc = f"{r['auc']:.2f}" if r.get("auc") is not None else "—"
            lines.append(
                f"| {r['condition']} | {auc} | " + " | ".join(cells) + f" | {r['prompt_tokens']} |"
            )
        lines.append("")
    if report["notes"] or report["errors"]:
        lines += ["### Notes", ""] + [f"- {n}" for n in report["notes"]]
        lines += [f"- errors: {k} × {v}" for k, v in report["errors"].items()] + [""]
    return "\n".join(lines)


def _fmt_p(p: float | None) -> str:
    return "n/a" if p is None else f"{p:.3g}"


def write(report: dict[str, Any], out_dir: Path) -> Path:
    """``deduction-<timestamp>.json/.md`` and ``deduction-latest.json/.md`` in `out_dir`,
    and the latest run's test predictions, one per line, in
    ``deduction-latest.predictions.jsonl``."""
    path = write_report(out_dir, "deduction", report, report["markdown"], exclude=("predictions",))
    write_jsonl(out_dir / "deduction-latest.predictions.jsonl", report.get("predictions") or [])
    return path
