"""`bench discovery pairs --method evidence` on the tiny data folder's training record."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.discovery.conftest import evidence_data, evidence_model, tiny_encoder  # noqa: F401
from typer.testing import CliRunner

from causalqa.bench.discovery_evidence import (
    benchmark_evidence,
    evidence_report,
    nested_cv,
    paper_best,
)
from causalqa.cli.bench import discovery_app
from causalqa.errors import CausalQAError

FAST = {"n_estimators": 15}


def test_paper_best_is_the_published_maximum():
    assert paper_best("comagc")["f1"] == 87.5 and paper_best("semeval")["f1"] == 75.0
    assert paper_best("ade")["f1"] == 92.96


def test_nested_cv_never_lets_a_row_choose_its_own_threshold():
    n = 60
    labels = np.array([i % 2 for i in range(n)])
    groups = [str(i // 2) for i in range(n)]
    seen = []

    def fit_predict(tr, te):
        seen.append((set(tr.tolist()), set(te.tolist())))
        return labels[te] * 0.8 + 0.1

    p, pred = nested_cv(n, labels, groups, ["x"] * n, fit_predict, folds=3, inner=2)
    assert all(not (tr & te) for tr, te in seen)
    assert (pred == labels).all() and np.allclose(p, labels * 0.8 + 0.1)


def test_benchmark_on_a_training_record(evidence_model, tmp_path):  # noqa: F811
    record = evidence_model[1]
    steps = []
    bench = benchmark_evidence(
        record, variants=["text", "kg"], draws=30, folds=3, params=FAST, on_step=steps.append
    )
    cv = [r for r in bench.rows if r["split"] == "cv" and r["method"] == "evidence (text)"]
    test = [r for r in bench.rows if r["split"] == "test"]
    # the corpus's general sentences are combiner rows too: fitted and reported beside
    assert {r["dataset"] for r in cv} == {"comagc", "gene", "ade", "semeval", "sentences"}
    for r in cv:
        assert 0 <= r["f1"] <= 100 and r["ece"] is not None and r["n"] > 0
        assert r["macro_f1_ci"] is None or r["macro_f1_ci"][0] <= r["macro_f1"] + 1e-9
    assert {r["method"] for r in test} >= {
        "evidence (text)",
        "evidence (text), prior-free threshold",
        "evidence, richest per pair",
        "always causal",
        "TF-IDF + LR",
    }
    # the rows of the two threshold rules differ only in the threshold, chosen on training
    # rows: the same scores, so the same ROC AUC
    for d in ("comagc", "gene"):
        f1_rule, free = (
            next(r for r in test if r["dataset"] == d and r["method"] == m)
            for m in ("evidence (text)", "evidence (text), prior-free threshold")
        )
        assert f1_rule["auc"] == free["auc"] and free["threshold_metric"] == "balanced"
        deployed = next(
            r for r in test if r["dataset"] == d and r["method"] == "evidence, richest per pair"
        )
        # without a KG every pair is judged on its sentence: the text model's scores
        assert deployed["auc"] == f1_rule["auc"] and "text" in deployed["note"]
    always = next(r for r in test if r["method"] == "always causal" and r["dataset"] == "ade")
    assert always["recall"] == 100.0
    assert any("kg: only 0 training rows" in n for n in bench.notes)
    assert bench.semeval and {r["method"] for r in bench.semeval} >= {
        "text classifier (cross-fitted)"
    }
    assert bench.reliability["comagc"]
    report, md, name = evidence_report(bench, tmp_path)
    assert "Grouped cross-validation" in md and "SemEval-style sentences" in md
    assert (tmp_path / f"{name}-latest.png").exists()
    json.dumps(report)


def test_cross_validation_and_test_fits_use_the_same_combiner_settings(
    evidence_model,  # noqa: F811
    monkeypatch,
):
    """The combiner measured by grouped CV is the one fitted for the test split: both get
    the settings asked for (the CV used xgboost's defaults before)."""
    from causalqa.bench import discovery_evidence as module

    seen = []
    real = module.fit_combiner

    def spy(*args, **kwargs):
        seen.append(kwargs.get("params"))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "fit_combiner", spy)
    benchmark_evidence(
        evidence_model[1], variants=["text"], draws=5, folds=3, params=FAST, tfidf=False
    )
    assert len(seen) > 3 and all(p == FAST for p in seen)


def test_the_bench_command(evidence_model, tmp_path, monkeypatch):  # noqa: F811
    import functools

    import causalqa.bench.discovery_evidence as module

    fast = functools.partial(module.benchmark_evidence, draws=20, folds=3, params=FAST, tfidf=False)
    monkeypatch.setattr(module, "benchmark_evidence", fast)
    work = evidence_model[3]
    args = ["pairs", "--method", "evidence", "--text-model", "frozen", "--work", str(work)]
    args += ["--variants", "text", "--out", str(tmp_path), "--json"]
    result = CliRunner().invoke(discovery_app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["environment"]["cores"] and report["text_model"].startswith("all-MiniLM")
    assert (tmp_path / "pairs-evidence-frozen-latest.md").exists()
    missing = CliRunner().invoke(
        discovery_app, ["pairs", "--method", "evidence", "--work", str(tmp_path)]
    )
    assert (
        isinstance(missing.exception, CausalQAError) and "discover train" in missing.exception.hint
    )
    with pytest.raises(AssertionError):
        assert CliRunner().invoke(discovery_app, ["pairs", "--method", "vote"]).exit_code == 0


def test_latency_is_measured_cold_and_warm(evidence_model, evidence_data, tmp_path):  # noqa: F811
    from tests.discovery.test_discovery_pair import tiny_graph

    from causalqa.bench.discovery_evidence import measure_latency
    from causalqa.kg import KnowledgeGraph

    judge = evidence_model[0]
    pairs = [
        {"a": "GENEX", "b": "cancerX", "context": f"GENEX causes cancerX in mice {i} ."}
        for i in range(3)
    ]
    result = measure_latency(pairs, judge=judge)
    r = result["without LLM"]
    assert result["pairs"] == 3 and 0 < r["warm_median"] <= r["warm_max"]
    assert "with LLM" not in result  # a model without the LLM feature
    KnowledgeGraph.build(tiny_graph(), tmp_path / "kg").close()
    args = ["latency", "--pairs", "3", "--kg", str(tmp_path / "kg"), "--no-llm"]
    args += [
        "--evidence-model",
        str(evidence_model[2]),
        "--data",
        str(evidence_data[0] / "path-to-causality"),
    ]
    result = CliRunner().invoke(discovery_app, [*args, "--out", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["without LLM"]["first"] > 0
    assert report["stores"] == [str(tmp_path / "kg")]  # the stores consulted, named
