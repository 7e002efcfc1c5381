"""`causalqa bench discovery statements`: statement files are checked line by line, an
unknown verdict is never scored as right, and the command judges every item with the
shipped evidence model and writes what it measured."""

from __future__ import annotations

import json

import pytest

from causalqa.bench.statements import balanced, read_statements, score
from causalqa.errors import DataFileError


def test_a_statement_file_is_checked_line_by_line(tmp_path):
    bad = {
        "no-label.jsonl": ('{"a": "x", "b": "y", "context": "x causes y"}', "missing label"),
        "label.jsonl": ('{"a": "x", "b": "y", "context": "x y", "label": "yes"}', "label must"),
        "dir.jsonl": ('{"a": "x", "b": "y", "context": "x y", "label": 1, "direction": "up"}',
                      "direction must"),
        "json.jsonl": ("{not json", "not JSON|JSON"),
        "empty.jsonl": ("", "no statements"),
    }  # fmt: skip
    for name, (line, message) in bad.items():
        path = tmp_path / name
        path.write_text(line + "\n")
        with pytest.raises(DataFileError, match=message):
            read_statements(path)
    with pytest.raises(DataFileError, match="no such file"):
        read_statements(tmp_path / "absent.jsonl")


def test_unknown_and_errors_are_wrong_answers():
    rows = [
        {"label": 1, "causal": True, "probability": 0.9, "verdict": "causal"},
        {"label": 0, "causal": None, "probability": None, "verdict": "unknown"},
        {"label": 1, "causal": None, "probability": None, "verdict": "error"},
        {"label": 0, "causal": False, "probability": 0.1, "verdict": "non-causal"},
    ]
    s = score(rows, draws=50)
    assert s["accuracy"] == 0.5
    assert s["unknown"] == 1 and s["errors"] == 1
    assert s["roc_auc"] == 1.0  # over the two items with a probability
    b = balanced(rows, draws=3)
    assert b["draws"] == 3 and 0.0 <= b["macro_f1"] <= 1.0


def test_the_command_judges_each_statement_and_writes_the_report(tmp_path):
    from typer.testing import CliRunner

    from causalqa.cli.bench import discovery_app

    items = [
        {"a": "smoking", "b": "lung cancer", "context": "Smoking causes lung cancer.",
         "label": 1, "direction": "A->B", "kind": "active"},
        {"a": "book", "b": "table", "context": "The book lies on the table.", "label": 0,
         "kind": "other"},
    ]  # fmt: skip
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items))
    out = tmp_path / "out"
    args = ["statements", str(path), "--no-heldout", "--no-kg", "--out", str(out), "--json"]
    result = CliRunner().invoke(discovery_app, args)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "statements-latest.json").read_text())
    (mine,) = report["results"]
    assert mine["set"] == "mine" and mine["items"] == 2 and mine["causal"] == 1
    assert mine["kinds"] == {"active": {"right": 1, "of": 1}, "other": {"right": 1, "of": 1}}
    assert mine["direction_right"] == 1
    predictions = [json.loads(x) for x in (out / "statements-latest.predictions.jsonl").open()]
    assert [p["verdict"] for p in predictions] == ["causal", "non-causal"]
