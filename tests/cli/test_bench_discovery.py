"""The discovery bench sub-app: SACHS on a fixture, errors as CausalQAError."""

from __future__ import annotations

import json

import pytest
from tests.discovery.test_discovery_statistical import write_sachs
from typer.testing import CliRunner

from causalqa.cli.bench import discovery_app as app
from causalqa.errors import CausalQAError


def test_bench_sachs_writes_json_and_markdown(tmp_path):
    data = tmp_path / "sachs"
    data.mkdir()
    write_sachs(data)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["sachs", "--data", str(data), "--methods", "pc", "--out", str(out), "--json"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["rows"][0]["key"] == "pc" and report["truth_edges"] == 2
    assert (out / "sachs-cdt-latest.json").exists()
    assert "Table 3" in (out / "sachs-cdt-latest.md").read_text()


def test_bench_sachs_with_ours_in_the_same_run(tmp_path, monkeypatch):
    from tests.discovery.test_discovery_pair import PromptLLM

    data = tmp_path / "sachs"
    data.mkdir()
    write_sachs(data)
    llm = PromptLLM(lambda text: 0.9 if "[Pair]: Raf and Mek" in text else 0.1)
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: llm)
    out = tmp_path / "out"
    args = ["sachs", "--data", str(data), "--methods", "pc", "--ours", "none"]
    result = CliRunner().invoke(app, [*args, "--no-calibrate", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [r["key"] for r in report["rows"]] == ["pc", "ours-none-argmax", "ours-none-batch"]
    assert report["rows"][1]["questions"] == 110 and report["model"] == "scripted"
    assert report["rows"][1]["precision"] == 100.0 and report["rows"][2]["recall"] == 50.0
    assert "ours: no-subgraph (LLM), batch verdicts" in (out / "sachs-cdt-latest.md").read_text()


def test_bench_rankers_on_a_validation_split(tmp_path, monkeypatch):
    from tests.discovery.test_discovery_pair import write_path_data
    from tests.discovery.test_discovery_rankers import HashEmbedder

    root = write_path_data(tmp_path / "p2c")
    folder = root / "comagc"
    lines = folder.joinpath("train_full.jsonl").read_text().splitlines()
    many = [json.loads(lines[i % 3]) | {"qid": f"v{i}"} for i in range(10)]
    folder.joinpath("train_full.jsonl").write_text("\n".join(map(json.dumps, many)) + "\n")
    folder.joinpath("test_truth.jsonl").write_text("{broken\n")  # never read
    monkeypatch.setattr("causalqa.embed.Embedder", HashEmbedder)
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    out = tmp_path / "out"
    args = ["rankers", "--datasets", "comagc", "--rankers", "similarity", "--validation"]
    result = CliRunner().invoke(app, [*args, "--data", str(root), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["split"].startswith("validation")
    rows = report["datasets"][0]["rows"]
    assert [r["ranker"] for r in rows] == ["random (mean of 100 draws)", "similarity"]
    assert rows[0]["queries"] == 2 and (out / "rankers-validation-latest.md").exists()
    args[4] = "xgboost"
    first = CliRunner().invoke(app, [*args, "--data", str(root), "--out", str(out), "--json"])
    assert first.exit_code == 0, first.output
    saved = tmp_path / "home" / "discovery" / "rankers" / "bench" / "validation" / "comagc"
    assert (saved / "xgboost.npz").is_file()
    again = CliRunner().invoke(
        app, [*args, "--reuse-rankers", "--data", str(root), "--out", str(out), "--json"]
    )
    assert again.exit_code == 0, again.output
    rows = [json.loads(r.stdout)["datasets"][0]["rows"][1] for r in (first, again)]
    assert rows[1]["ranker"] == "xgboost (saved fit)" and rows[1]["fit_seconds"] == ""
    assert rows[1]["ndcg@5"] == rows[0]["ndcg@5"]


@pytest.mark.parametrize(
    "args",
    [
        ["sachs", "--methods", "lasso"],
        ["sachs", "--truth", "tetrad"],
        ["sachs", "--ours", "bm25"],
        ["sachs", "--ours", "none", "--ranker-data", "wiki"],
        ["rankers", "--datasets", "wiki"],
        ["rankers", "--rankers", "bm25"],
        ["pairs", "--path-format", "arrows"],
    ],
)
def test_bad_options_raise_causalqa_errors(args):
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert isinstance(result.exception, CausalQAError)
