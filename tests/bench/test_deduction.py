"""`causalqa bench deduction`: grouped folds, metrics, significance, end to end."""

from __future__ import annotations

import json

import pytest

from causalqa.bench.deduction import (
    best_threshold,
    fully_mined,
    grouped_folds,
    limit_reports,
    parse_condition,
    run_deduction_bench,
    scores,
    stars,
    tuned_fold_scores,
)
from causalqa.deduction.chains import INFERRED, Chain
from causalqa.deduction.dataset import Example
from causalqa.deduction.event_graph import CausalKG, MiningRecord, context_sha
from causalqa.errors import DatasetError
from causalqa.llm.base import LabelScores, Usage
from causalqa.llm.testing import ScriptedLLM
from causalqa.metrics import paired_test

CONTEXTS = {
    "r1": "The pilot did not remove frost from the wings before takeoff and the airplane "
    "stalled during rotation.",
    "r2": "The engine lost power in cruise because of carburetor ice and the pilot made a "
    "forced landing in a field.",
    "r3": "The engine stopped from fuel exhaustion after the pilot skipped the preflight fuel "
    "check before departure.",
    "r4": "The airplane struck trees after the pilot continued visual flight into instrument "
    "conditions at night.",
}
STATEMENTS = {
    "r1": [("Frost on the wings", "true"), ("Fuel exhaustion", "false-rules")],
    "r2": [("Carburetor ice", "true"), ("Pilot fatigue", "false-llm")],
    "r3": [("Fuel exhaustion", "true"), ("Carburetor ice", "false-rules")],
    "r4": [("Continued flight into instrument conditions", "true"), ("Frost", "false-rules")],
}


def _examples():
    return [
        Example(report_id=r, context=CONTEXTS[r], statement=s, label=src == "true", source=src)
        for r, rows in STATEMENTS.items()
        for s, src in rows
    ]


@pytest.fixture
def kg():
    g = CausalKG()
    g.add_chains(
        [
            Chain(("Frost on the wings", "Reduced lift", "Aerodynamic stall"), report_id="r1"),
            Chain(("Carburetor ice", "Loss of engine power", "Forced landing"), report_id="r2"),
            Chain(("Fuel exhaustion", "Loss of engine power"), report_id="r3"),
            Chain(("Pilot fatigue", "Loss of engine power"), INFERRED, "r2", "Pilot fatigue"),
            Chain(("Night VFR into IMC", "Spatial disorientation"), report_id="r4"),
        ]
    )
    for rid, ctx in CONTEXTS.items():
        g.add_record(MiningRecord(report_id=rid, task="extract", context_sha=context_sha(ctx)))
    return g


def _llm():
    # "True" whenever the prompt shows the report's own true cause word: a deterministic
    # stand-in whose answers depend on the statement.
    return ScriptedLLM(label_scores={"True": -1.0, "False": -0.5})


def test_grouped_folds_never_split_a_report():
    ex = _examples() * 2
    folds = grouped_folds(ex, 3)
    assert len(folds) == 3
    seen_test = []
    for tr, te in folds:
        train_ids = {ex[i].report_id for i in tr}
        test_ids = {ex[i].report_id for i in te}
        assert not train_ids & test_ids
        seen_test += list(te)
    assert sorted(seen_test) == list(range(len(ex)))
    with pytest.raises(DatasetError, match="folds"):
        grouped_folds(ex, 5)


def test_limit_reports_is_seeded_and_keeps_whole_reports():
    a = limit_reports(_examples(), 2, seed=1)
    assert len({e.report_id for e in a}) == 2 and len(a) == 4
    assert a == limit_reports(_examples(), 2, seed=1)
    assert limit_reports(_examples(), None) == _examples()


def test_scores_per_source():
    ex = _examples()
    s = scores([e.label for e in ex], [True] * len(ex), ex)
    assert s["acc_true"] == 100 and s["acc_false_rules"] == 0 and s["acc_false_llm"] == 0
    assert s["micro_f1"] == 50 and 0 < s["macro_f1"] < 50
    assert scores([], [], [])["macro_f1"] is None


def test_significance():
    a = [70.0, 72.0, 71.0, 69.0, 73.0]
    assert paired_test(a, a) == 1.0
    assert paired_test([1.0], [2.0]) is None
    assert paired_test(a, [x - 5 for x in a]) == 0.0  # constant shift
    b = [60.0, 63.0, 60.5, 59.0, 64.0]
    p = paired_test(a, b)
    assert p is not None and p < 0.05 and stars(p) == "***"
    assert 0 < paired_test(a, b, "wilcoxon") <= 0.1
    assert paired_test([1, 2, 3, 4], [1.5, 1.5, 3.5, 3.5]) > 0.5
    assert (stars(0.12), stars(0.08), stars(0.2), stars(None)) == ("*", "**", "", "")


def test_conditions():
    assert parse_condition("v6:RoTG+noclean") == ("V6", "rotg", ("noclean",))
    assert parse_condition("V1") == ("V1", "none", ())
    with pytest.raises(DatasetError):
        parse_condition("V6:none")
    with pytest.raises(DatasetError):
        parse_condition("V1:semantic")
    with pytest.raises(DatasetError, match="variant"):
        parse_condition("V6:rotg+fast")


def test_bench_end_to_end(kg, embedder, tmp_path):
    pytest.importorskip("torch_geometric")
    progress = []
    report = run_deduction_bench(
        _examples(),
        kg=kg,
        llm=_llm(),
        conditions=["V1:none", "V6:semantic", "V6:rotg", "V6:rotg+noclean"],
        folds=2,
        rotg_params={"epochs": 1},
        rotg_aux_variants=["similar"],
        embedder=embedder,
        out_dir=tmp_path,
        progress=False,
        on_result=progress.append,
    )
    conds = [r["condition"] for r in report["results"]]
    assert conds == ["V1:none", "V6:semantic", "V6:rotg", "V6:rotg+noclean"]
    # Per fold: four conditions, and RoTG's classifier trained on all edges and on
    # similar edges only (no LLM call for the latter).
    assert len(progress) == 12 and all(p["n"] == 4 for p in progress)
    assert sum(p["condition"] == "rotg+similar (auxiliary)" for p in progress) == 2
    base, sem, rotg, noclean = report["results"]
    assert noclean["retrieval"]["chains_per_statement"] >= rotg["retrieval"]["chains_per_statement"]
    # The scripted LLM always says False: every condition scores the same.
    assert base["acc_true"]["mean"] == 0 and base["acc_false_rules"]["mean"] == 100
    assert sem["macro_f1_p_ttest"] == 1.0 and "macro_f1_p_ttest" not in base
    assert rotg["retrieval"]["with_chains_pct"] > 0
    aux, similar = report["rotg_aux"]  # the cleaning variant reuses the trained model
    assert aux["retriever"] == "rotg" and aux["n"] == 8
    assert similar["retriever"] == "rotg+similar" and "macro_f1_p_ttest" in similar
    with pytest.raises(DatasetError, match="variant"):
        run_deduction_bench(_examples(), llm=_llm(), rotg_aux_variants=["fast"], out_dir=None)
    assert len(report["rotg_aux_per_fold"]["rotg"]) == 2
    md = (tmp_path / "deduction-latest.md").read_text()
    assert "Table 3" in md and "Table 2" in md and "73.19 (7.01)" in md and "(paper)" in md
    saved = json.loads((tmp_path / "deduction-latest.json").read_text())
    assert saved["config"]["folds"] == 2 and saved["environment"]["torch_geometric"]


class _ByStatement(ScriptedLLM):
    """P(True) high for the reports' true statements, and for any statement once the
    prompt shows retrieved chains (V6's first turn): retrieval changes some verdicts."""

    def _score_labels(self, prompt, labels):
        self.calls.append({"prompt": prompt, "labels": labels})
        task = prompt[-1]["content"]
        statement = task.split("<STATEMENT>\n")[1].split("\n</STATEMENT>")[0]
        context = task.split("<CONTEXT>\n")[1].split("\n</CONTEXT>")[0]
        true = {
            (CONTEXTS[r], s) for r, rows in STATEMENTS.items() for s, src in rows if src == "true"
        }
        retrieved = len(prompt) > 1 and "-->" in prompt[0]["content"]
        usage = Usage(sum(len(m["content"].split()) for m in prompt))
        if (context, statement) in true:
            return LabelScores({"True": -0.1, "False": -2.5}, usage=usage)
        if retrieved:
            return LabelScores({"True": -0.6, "False": -0.8}, usage=usage)
        return LabelScores({"True": -2.0, "False": -0.2}, usage=usage)


def _two_conditions(kg, embedder, **options):
    """The bench over `_examples()` with no retrieval (V1) and semantic retrieval (V6),
    two folds, scripted by `_ByStatement`."""
    return run_deduction_bench(
        _examples(),
        kg=kg,
        llm=_ByStatement(),
        conditions=["V1:none", "V6:semantic"],
        folds=2,
        embedder=embedder,
        progress=False,
        **options,
    )


def test_bench_keeps_every_prediction_and_pooled_tests(kg, embedder, tmp_path):
    report = _two_conditions(kg, embedder, out_dir=tmp_path)
    preds = report["predictions"]
    assert len(preds) == 2 * len(_examples())
    assert {p["condition"] for p in preds} == {"V1:none", "V6:semantic"}
    assert all(0 <= p["p_true"] <= 1 and p["prompt_tokens"] > 0 for p in preds)
    base, sem = report["results"]
    assert base["auc"] == 100.0 and "mcnemar" not in base
    assert base["p_true_by_source"]["true"] > base["p_true_by_source"]["false-rules"]
    # Retrieval made some False statements True: worse only, never better.
    got = sem["mcnemar"]
    assert got["better"] == 0 and got["worse"] == sum(
        1 for p in preds if p["condition"] == "V6:semantic" and p["chains"] and not p["label"]
    )
    assert 0 < got["p"] <= 1
    assert sem["prompt_tokens"] > base["prompt_tokens"]
    assert sem["p_true_shift"]["true"] == 0 < sem["p_true_shift"]["false"]
    assert any(n.startswith("V6:semantic: mean P(True) moved +0.0") for n in report["notes"])
    lines = (tmp_path / "deduction-latest.predictions.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in lines] == json.loads(json.dumps(preds))
    saved = json.loads((tmp_path / "deduction-latest.json").read_text())
    assert "predictions" not in saved and saved["results"][1]["mcnemar"] == got
    md = report["markdown"]
    assert "McNemar" in md and "ROC AUC" in md
    # Thresholds fitted on the other fold: V1 separates perfectly once its line is found.
    tuned = {r["condition"]: r for r in report["results_tuned"]}
    assert tuned["V1:none"]["macro_f1"]["mean"] == 100.0
    assert len(report["per_fold_tuned"]["V6:semantic"]) == 2
    assert "threshold fitted on the other folds" in md


def test_bench_with_calls_in_flight_keeps_every_prediction_in_order(kg, embedder):
    def run(n):
        report = _two_conditions(kg, embedder, out_dir=None, concurrency=n)
        return [{k: v for k, v in p.items() if k != "seconds"} for p in report["predictions"]]

    one = run(1)
    assert len(one) == 2 * len(_examples())
    assert run(3) == one


def test_best_threshold_and_scores_tuned_on_the_other_folds():
    assert best_threshold([True, False, False], [0.3, 0.1, 0.05]) == pytest.approx(0.2)
    assert best_threshold([True, False], [0.9, 0.1]) == 0.5  # ties go to 0.5
    preds = [
        {"condition": "V1:none", "fold": f, "label": lab, "p_true": p, "source": src}
        for f in range(3)
        for lab, p, src in ((True, 0.30 + f / 100, "true"), (False, 0.10, "false-rules"))
    ]
    got = tuned_fold_scores(preds, "V1:none")
    assert [g["fold"] for g in got] == [0, 1, 2]
    assert all(g["macro_f1"] == 100.0 and 0.1 < g["threshold"] < 0.3 for g in got)
    assert tuned_fold_scores(preds, "V6:rotg") == []


def test_bench_on_the_fully_mined_reports_only(kg, tmp_path):
    examples = _examples()
    # r1–r3 mined completely; r4 extracted but its statements not inferred yet.
    for e in examples:
        if e.report_id != "r4":
            kg.add_record(MiningRecord(report_id=e.report_id, task="infer", statement=e.statement))
    assert fully_mined(kg, examples) == {"r1", "r2", "r3"}
    report = run_deduction_bench(
        examples,
        kg=kg,
        llm=_llm(),
        conditions=["V1:none"],
        folds=3,
        kg_reports_only=True,
        out_dir=None,
        progress=False,
    )
    assert report["config"]["reports"] == 3 and report["config"]["kg_reports_only"]
    with pytest.raises(DatasetError, match="no KG"):
        run_deduction_bench(examples, llm=_llm(), kg_reports_only=True, out_dir=None)
    with pytest.raises(DatasetError, match="no report"):
        run_deduction_bench(examples, kg=CausalKG(), llm=_llm(), kg_reports_only=True, out_dir=None)


def test_bench_without_kg_skips_retrieval_with_a_note(tmp_path):
    report = run_deduction_bench(
        _examples(),
        llm=_llm(),
        conditions=["V6:semantic", "V6:rotg"],
        folds=2,
        out_dir=None,
        progress=False,
    )
    assert [r["condition"] for r in report["results"]] == ["V1:none"]
    assert sum("skipped" in n for n in report["notes"]) == 2
    assert "skipped" in report["markdown"]


def test_bench_cli(monkeypatch, tmp_path, embedder):
    from typer.testing import CliRunner

    from causalqa import cli
    from causalqa.deduction.dataset import save_jsonl

    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: _llm())
    data = save_jsonl(_examples(), tmp_path / "data.jsonl")
    res = CliRunner().invoke(
        cli.app,
        [
            "bench",
            "deduction",
            "--data",
            str(data),
            "--folds",
            "2",
            "--conditions",
            "V1:none,tfidf",
            "--out",
            str(tmp_path / "out"),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["config"]["folds"] == 2 and out["results"][0]["condition"] == "V1:none"
    assert (tmp_path / "out" / "deduction-latest.md").exists()


def test_no_test_fold_report_reaches_training_thresholds_or_the_index(kg, embedder, tmp_path):
    """Every fold: the verifier's training data (and so its in-fold threshold), the
    reports whose chains its KG features and the retrievers may use, never hold a report
    of that fold's test set — also when the verifier trains on a larger pool."""
    from causalqa.deduction.chains import Chain

    pool = _examples() + [
        Example(
            report_id=f"x{i}",
            context=CONTEXTS["r1"].replace("frost", f"frost number {i}"),
            statement=s,
            label=lab,
            source="true" if lab else "false-rules",
        )
        for i in range(4)
        for s, lab in (("Frost on the wings", True), ("Pilot fatigue", False))
    ]
    kg.add_chains([Chain(("Frost number 1", "Stall"), report_id="x1")])
    report = run_deduction_bench(
        _examples(),
        kg=kg,
        llm=_llm(),
        conditions=["verifier+noce+kg", "tfidf", "statement-only", "V6:semantic"],
        verifier_pool=pool,
        verifier_params={"kind": "logistic", "inner_folds": 2},
        folds=2,
        embedder=embedder,
        out_dir=None,
        progress=False,
    )
    audits = report["audits"]
    assert {a["condition"] for a in audits} >= {"verifier+noce+kg", "V6:semantic", "tfidf"}
    for a in audits:
        test = set(a["test_reports"])
        for key in ("train_reports", "verifier_reports", "kg_reports", "retriever_reports"):
            assert not test & set(a.get(key) or []), (a["condition"], key)
    v = [a for a in audits if a["condition"] == "verifier+noce+kg"]
    assert all({"x0", "x1", "x2", "x3"} <= set(a["verifier_reports"]) for a in v)
    assert "kg_best" in v[0]["features"]
    preds = [p for p in report["predictions"] if p["condition"] == "verifier+noce+kg"]
    assert sorted(p["statement"] for p in preds) == sorted(e.statement for e in _examples())
    by_kind = report["verifier"]["by_kind"]["verifier+noce+kg"]
    assert set(by_kind) == {"all", "false-rules", "false-llm"}
    assert "The evidence verifier, per negative kind" in report["markdown"]


def test_every_prompt_format_of_table_8_runs(kg, embedder):
    """V1–V9 and the cleaning variants run end to end (extracted and inferred chains from
    the KG, mined live with Prompts 3/4 where the KG has none)."""
    conditions = [
        "V2:none",
        "V3:none",
        "V4:none",
        "V5:none",
        "V7:semantic",
        "V8:semantic",
        "V9:semantic",
        "V6:semantic+notrunc",
        "V7:semantic+noclean",
    ]

    def reply(messages):
        return "1. Frost on the wings --> Stall"

    llm = ScriptedLLM(reply, label_scores={"True": -1.0, "False": -0.5})
    report = run_deduction_bench(
        _examples(), kg=kg, llm=llm, conditions=conditions, folds=2, embedder=embedder,
        out_dir=None, progress=False,
    )  # fmt: skip
    ran = [r["condition"] for r in report["results"]]
    assert ran == ["V1:none", *conditions]
    assert all(r["n"] == len(_examples()) for r in report["results"])
    assert "Table 8" in report["markdown"]


# -- the time split ------------------------------------------------------------------------
def _dated(n_per_year: dict[int | None, int]) -> list[Example]:
    topics = [(CONTEXTS[r], [s for s, src in STATEMENTS[r] if src == "true"][0]) for r in CONTEXTS]
    out, i = [], 0
    for year, n in n_per_year.items():
        for _ in range(n):
            ctx, cause = topics[i % len(topics)]
            head = (
                f"On {year}-03-0{1 + i % 9}, a Cessna 172 was involved in an accident. "
                if year
                else ""
            )
            rid = f"y{year}-{i}"
            out.append(Example(report_id=rid, context=head + ctx, statement=cause, label=True))
            out.append(
                Example(
                    report_id=rid,
                    context=head + ctx,
                    statement=topics[(i + 1) % len(topics)][1],
                    label=False,
                    source="false-rules",
                )
            )
            i += 1
    return out


def test_time_split_tests_the_latest_years_and_trains_on_the_rest():
    from causalqa.bench.deduction_verifier import time_split

    data = _dated({2020: 6, 2021: 5, 2022: 3, 2023: 2, None: 2})
    train, test, info = time_split(data, min_test_reports=4)
    # 2023 alone holds 2 reports (< 4): the test years are 2022 and 2023.
    assert info["test_from_year"] == 2022 and info["test_reports"] == 5
    assert {e.report_id for e in test} == {
        e.report_id for e in data if e.report_id[1:5] in ("2022", "2023")
    }
    assert not {e.report_id for e in train} & {e.report_id for e in test}
    # Undated reports are said and kept in training.
    assert info["undated_in_training"] == 2
    assert {"yNone-16", "yNone-17"} <= {e.report_id for e in train}
    assert info["reports_per_year"]["undated"] == 2


@pytest.mark.parametrize(
    "years, problem",
    [
        ({None: 5}, "no report states its date"),
        ({2020: 2, None: 5}, "only 2 dated"),
        ({2021: 5}, "nothing left to train on"),
    ],
)
def test_time_split_bad_data_is_a_clear_error(years, problem):
    from causalqa.bench.deduction_verifier import time_split

    with pytest.raises(DatasetError, match=problem):
        time_split(_dated(years), min_test_reports=4)


def test_run_time_split_scores_hard_negatives_never_the_report_s_own(embedder):
    from causalqa.bench.deduction_verifier import run_time_split

    data = _dated({2020: 8, 2021: 8, 2022: 4})
    res = run_time_split(data, ["tfidf"], hard_negatives=8, min_test_reports=4, embedder=embedder)
    preds = res["predictions"]
    test_ids = {e.report_id for e in data if e.report_id.startswith("y2022")}
    assert {p["report_id"] for p in preds} == test_ids
    own = {(e.report_id, e.statement) for e in data if e.label}
    hard = [p for p in preds if p["source"] == "false-hard"]
    assert hard and all(
        not p["label"] and (p["report_id"], p["statement"]) not in own for p in hard
    )
    assert "false-hard" in res["summary"]["by_kind"]["tfidf"]
    assert res["split"]["hard_negatives"] == 8 and res["split"]["train_reports"] == 16
