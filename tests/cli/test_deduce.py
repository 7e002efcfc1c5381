"""`causalqa deduce`, `kg mine` and the `deduction` group (stats, dataset, reparse, train),
and `deduce_items`, the dispatch they share with the server (scripted LLM)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from causalqa.cli import app
from causalqa.errors import ContextError, DatasetError
from causalqa.llm.testing import ScriptedLLM

CTX = (
    "The pilot did not remove frost from the wings before takeoff. During rotation the "
    "airplane exceeded its critical angle of attack, stalled, and impacted the runway."
)


def _reply(messages):
    content = messages[-1]["content"]
    if content.startswith("Extract all"):
        return "1. Frost on the wings --> Reduced lift --> Aerodynamic stall"
    if content.startswith("Based on your knowledge"):
        return "- Haste --> Frost not removed --> Aerodynamic stall (Accident)"
    return "The statement is True."


@pytest.fixture
def llm(monkeypatch):
    model = ScriptedLLM(_reply, label_scores={"True": -0.2, "False": -1.7})
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: model)
    return model


@pytest.fixture
def fast_embedder(monkeypatch, embedder):
    monkeypatch.setattr("causalqa.embed.Embedder", lambda *a, **k: embedder)
    return embedder


runner = CliRunner()


def test_deduce_json(llm, tmp_path):
    f = tmp_path / "r.txt"
    f.write_text(CTX, encoding="utf-8")
    res = runner.invoke(
        app,
        [
            "deduce",
            "--context",
            str(f),
            "--statement",
            "Frost on the wings.",
            "--method",
            "logprobs",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["label"] == "True" and out["fmt"] == "V1"
    assert out["probability"] == pytest.approx(0.82, abs=0.01)


def test_deduce_items_dispatches_by_method_and_keeps_the_order(llm):
    from causalqa.deduction.deduce import deduce, deduce_items
    from causalqa.errors import DeductionError

    items = [(CTX, "Frost on the wings."), (CTX, "The runway lights.")]
    found = deduce_items(items, method="both", llm=llm)
    assert [d.statement for d in found] == ["Frost on the wings.", "The runway lights."]
    alone = deduce(CTX, "The runway lights.", llm, method="both")
    assert found[1].model_dump(exclude={"seconds"}) == alone.model_dump(exclude={"seconds"})
    # P(True) = 1 / (1 + e^(-1.7 + 0.2)) under the scripted label scores
    assert found[0].method == "both" and found[0].probability == pytest.approx(0.818, abs=1e-3)
    with pytest.raises(DeductionError, match="unknown method"):
        deduce_items(items, method="vote", llm=llm)
    with pytest.raises(DeductionError, match="prompt format"):  # refused, not ignored
        deduce_items(items, method="verifier", fmt="V3")


def test_deduce_text_method_human_output(llm):
    res = runner.invoke(
        app,
        ["deduce", "-c", CTX, "-s", "Frost on the wings.", "--method", "text"],
    )
    assert res.exit_code == 0, res.output
    assert "True" in res.stdout and "The statement is True." in res.stdout


def test_deduce_garbled_context_raises_a_clear_error(llm):
    res = runner.invoke(app, ["deduce", "-c", "zzkt qxwv brrk", "-s", "Frost."])
    assert isinstance(res.exception, ContextError)
    res = runner.invoke(app, ["deduce", "-c", "", "-s", "Frost."])
    assert isinstance(res.exception, ContextError)
    assert "empty" in res.exception.message


def test_semantic_retriever_needs_a_kg(llm):
    res = runner.invoke(
        app, ["deduce", "-c", CTX, "-s", "Frost.", "-r", "semantic", "--method", "logprobs"]
    )
    assert isinstance(res.exception, DatasetError)
    assert "--kg" in res.exception.hint


def test_retriever_or_format_with_the_verifier_is_refused_not_ignored(llm):
    for extra in (["-r", "semantic"], ["--format", "V3"]):
        res = runner.invoke(app, ["deduce", "-c", CTX, "-s", "Frost.", *extra])
        assert isinstance(res.exception, DatasetError), res.output
        assert "--method logprobs" in res.exception.hint


def test_mine_then_deduce_with_the_kg(llm, fast_embedder, tmp_path):
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "frost.txt").write_text(CTX, encoding="utf-8")
    data = tmp_path / "data.jsonl"
    data.write_text(
        json.dumps(
            {
                "report_id": "ice",
                "context": CTX.replace("frost", "ice"),
                "statement": "Haste",
                "label": False,
                "source": "false-rules",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    kg_dir = tmp_path / "kg"
    res = runner.invoke(
        app, ["kg", "mine", str(tmp_path / "reports"), str(data), "--out", str(kg_dir), "--json"]
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["run"]["calls"] == 3  # two extractions, one inference
    assert out["stats"]["reports"] == 2
    assert out["stats"]["edges_by_type"]["extracted"] == 2
    assert out["stats"]["edges_by_type"]["inferred"] == 2
    # Again: nothing left to mine.
    res = runner.invoke(
        app, ["kg", "mine", str(tmp_path / "reports"), "--out", str(kg_dir), "--json"]
    )
    assert json.loads(res.stdout)["run"]["calls"] == 0
    res = runner.invoke(app, ["deduction", "stats", str(kg_dir), "--json"])
    assert json.loads(res.stdout)["nodes"] == out["stats"]["nodes"]
    # Deduce on a new report with semantic retrieval from the mined KG.
    res = runner.invoke(
        app,
        [
            "deduce",
            "-c",
            CTX + " New.",
            "-s",
            "Frost on the wings.",
            "-r",
            "semantic",
            "--kg",
            str(kg_dir),
            "--method",
            "logprobs",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["fmt"] == "V6" and d["chains"]


def test_mine_errors(llm, tmp_path):
    res = runner.invoke(app, ["kg", "mine", str(tmp_path / "nope.txt"), "--out", str(tmp_path)])
    assert isinstance(res.exception, DatasetError)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"context": "x"}\n', encoding="utf-8")
    res = runner.invoke(app, ["kg", "mine", str(bad), "--out", str(tmp_path / "kg")])
    assert isinstance(res.exception, DatasetError) and ":1:" in res.exception.message
    empty = tmp_path / "empty.txt"
    empty.write_text("  ", encoding="utf-8")
    res = runner.invoke(app, ["kg", "mine", str(empty), "--out", str(tmp_path / "kg")])
    assert isinstance(res.exception, ContextError)


def test_dataset_command_on_tiny_files(tmp_path, fast_embedder):
    (tmp_path / "ntsb").mkdir()
    (tmp_path / "ntsb" / "narratives-2021.csv").write_text(
        "ev_id,aircraft_key,narr_accp,narr_accf,narr_cause\n"
        '1,1,,"Frost on the wings.","Frost left on the wings."\n'
        '2,1,,"Ice in the carburetor.","The pilot’s failure to use carburetor heat."\n',
        encoding="utf-8",
    )
    (tmp_path / "ntsb" / "fatal.json").write_text("[]", encoding="utf-8")
    res = runner.invoke(
        app,
        [
            "deduction",
            "dataset",
            "--data",
            str(tmp_path),
            "--out",
            str(tmp_path / "d.jsonl"),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["true"] == 2
    # Hard negatives: each report gets the other's cause (never its own), no LLM call
    # (the two causes share too few words to be each other's rule negatives).
    args = ["deduction", "dataset", "--data", str(tmp_path), "--out", str(tmp_path / "h.jsonl")]
    res = runner.invoke(app, [*args, "--hard-negatives", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["by_source"]["false-hard"] == 2
    rows = [json.loads(line) for line in (tmp_path / "h.jsonl").read_text().splitlines()]
    own = {r["report_id"]: r["statement"] for r in rows if r["label"]}
    hard = [r for r in rows if r["source"] == "false-hard"]
    assert all(r["statement"] != own[r["report_id"]] for r in hard)
    res = runner.invoke(app, [*args, "--hard-negatives", "0"])
    assert isinstance(res.exception, DatasetError) and "≥ 1" in res.exception.message


@pytest.mark.parametrize(
    "context, problem",
    [
        ("", "the context is empty"),
        ("dGhlIHBpbG90IGRpZCBub3QgcmVtb3ZlIGZyb3N0IGZyb20gdGhlIHdpbmdzIGJlZm9yZQ" * 8, "garbled"),
        (" ".join(["kelavo musiru tapeno dirafu goleni basuke"] * 5), "English"),
    ],
)
def test_causalqa_deduce_refuses_bad_context_in_one_line_before_any_model(
    context, problem, tmp_path
):
    """The installed command: one error line and a hint, exit 1 — and the model is never
    touched (the LLM spec points at a file that does not exist)."""
    import os
    import subprocess
    import sys

    f = tmp_path / "report.txt"
    f.write_text(context, encoding="utf-8")
    env = {**os.environ, "CAUSALQA_LLM": f"local:{tmp_path / 'no-such-model.gguf'}"}
    res = subprocess.run(
        [sys.executable, "-m", "causalqa.cli", "deduce", "-c", str(f), "-s", "Frost."],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert res.returncode == 1, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert lines[0].startswith("error:") and problem in lines[0]
    assert lines[1].startswith("hint:") and len(lines) == 2
    assert "no-such-model" not in res.stderr and not res.stdout


def test_reparse_command(fast_embedder, tmp_path):
    from causalqa.deduction.event_graph import CausalKG, MiningRecord

    kg = CausalKG.open(tmp_path / "kg")
    raw = (
        "1. Icing --> Stall --> Stall\n"
        "2. Lack of positive train control system --> Train B not stopped before red signal"
    )
    kg.add_record(MiningRecord(report_id="A", task="extract", raw=raw))
    kg.save()
    res = runner.invoke(app, ["deduction", "reparse", str(tmp_path / "kg"), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["before"]["chains_by_kind"]["extracted"] == 0
    assert out["after"]["chains_by_kind"]["extracted"] == 1  # the echoed example dropped
    assert CausalKG.load(tmp_path / "kg").chains[0].nodes == ("Icing", "Stall")


# -- the verifier (the default method) -------------------------------------------------------
TOPICS = [
    ("The pilot did not remove frost from the wings before takeoff.", "Frost on the wings."),
    ("The engine stopped because the fuel tanks were empty.", "Fuel exhaustion."),
    ("Carburetor ice formed in humid air and the engine lost power.", "Carburetor icing."),
    ("The helicopter struck power lines at low altitude.", "Wire strike."),
]
FILLER = " The airplane was substantially damaged. The pilot held a private certificate."


@pytest.fixture
def verifier_file(tmp_path, embedder, monkeypatch):
    from causalqa.deduction.dataset import Example
    from causalqa.deduction.verifier import Verifier

    monkeypatch.setattr("causalqa.embed.Embedder", lambda *a, **k: embedder)
    ex = []
    for i in range(16):
        ctx, true = TOPICS[i % 4]
        other = TOPICS[(i + 1) % 4][1]
        c = f"Report {i}. {ctx}{FILLER}"
        ex.append(Example(report_id=f"r{i}", context=c, statement=true, label=True))
        ex.append(Example(report_id=f"r{i}", context=c, statement=other, label=False))
    v = Verifier(cross_encoder=False, kind="logistic", embedder=embedder).fit(ex)
    return v.save(tmp_path / "verifier.pkl")


def test_deduce_defaults_to_the_verifier_and_shows_its_evidence(verifier_file, monkeypatch):
    def no_llm(*a, **k):
        raise AssertionError("the verifier without LLM features must not load the LLM")

    monkeypatch.setattr("causalqa.llm.get_llm", no_llm)
    ctx = TOPICS[0][0] + FILLER
    res = runner.invoke(
        app,
        [
            "deduce",
            "-c",
            ctx,
            "-s",
            "Frost on the wings.",
            "--verifier",
            str(verifier_file),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["method"] == "verifier" and d["verdict"] is True
    assert 0 <= d["probability"] <= 1 and d["threshold"] is not None
    assert d["evidence"][0]["passage"].startswith("The pilot did not remove frost")
    assert d["contributions"]
    res = runner.invoke(
        app,
        ["deduce", "-c", ctx, "-s", "Wire strike.", "--verifier", str(verifier_file), "--no-llm"],
    )
    assert res.exit_code == 0, res.output
    assert "P(True)" in res.stdout and "threshold" in res.stdout and "evidence" in res.stdout


def test_deduce_batch_keeps_input_order(verifier_file, tmp_path):
    items = tmp_path / "items.jsonl"
    rows = [
        {"context": TOPICS[i % 4][0] + FILLER, "statement": s}
        for i, s in enumerate(["Frost on the wings.", "Frost on the wings.", "Carburetor icing."])
    ]
    items.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["deduce", "--batch", str(items), "--verifier", str(verifier_file)])
    assert res.exit_code == 0, res.output
    out = [json.loads(line) for line in res.stdout.splitlines()]
    assert [o["statement"] for o in out] == [r["statement"] for r in rows]
    assert [o["verdict"] for o in out] == [True, False, True]
    assert all({"verdict", "probability", "evidence"} <= set(o) for o in out)
    # A bad line names the file and the line, before anything loads.
    items.write_text(json.dumps(rows[0]) + "\n" + json.dumps({"context": "x"}) + "\n")
    res = runner.invoke(app, ["deduce", "--batch", str(items), "--verifier", str(verifier_file)])
    assert isinstance(res.exception, DatasetError) and ":2:" in res.exception.message


def test_deduce_with_a_damaged_or_missing_verifier(verifier_file, tmp_path, monkeypatch):
    from causalqa.errors import DataFileError

    blob = bytearray(verifier_file.read_bytes())
    blob[100] ^= 0xFF
    verifier_file.write_bytes(bytes(blob))
    ctx = TOPICS[0][0] + FILLER
    res = runner.invoke(
        app, ["deduce", "-c", ctx, "-s", "Frost.", "--verifier", str(verifier_file)]
    )
    assert isinstance(res.exception, DataFileError)
    assert "deduction train" in res.exception.hint
    monkeypatch.setattr("causalqa.deduction.verifier.SHIPPED", tmp_path / "none.pkl")
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    res = runner.invoke(app, ["deduce", "-c", ctx, "-s", "Frost."])
    assert (
        isinstance(res.exception, DataFileError) and "no trained verifier" in res.exception.message
    )


def test_deduce_refuses_a_statement_longer_than_the_report(verifier_file):
    ctx = TOPICS[0][0] + FILLER
    res = runner.invoke(app, ["deduce", "-c", ctx, "-s", ctx + " " + ctx])
    assert (
        isinstance(res.exception, ContextError)
        and "longer than the report" in res.exception.message
    )
