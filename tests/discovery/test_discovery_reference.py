"""Reference thresholds for one pair: measured on validation pairs, saved, found again."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.discovery.test_discovery_pair import PromptLLM, write_path_data
from tests.discovery.test_discovery_rankers import HashEmbedder
from typer.testing import CliRunner

from causalqa.bench.discovery_reference import measure_reference
from causalqa.cli.bench import discovery_app
from causalqa.discovery.reference import ReferenceThresholds, reference_for, user_file
from causalqa.errors import ReferenceThresholdsError


def prior(text: str) -> float:
    """P(causal) that falls with every path in the prompt and rises with a context."""
    paths = text.split("[Relation Paths]:")[1].count(";") + 1 if "[Relation Paths]" in text else 0
    return 0.5 - 0.1 * paths + (0.2 if "[Textual context]" in text else 0.0)


def test_measure_reference_means_by_prompt_shape(tmp_path):
    root = write_path_data(tmp_path / "p2c")
    llm = PromptLLM(prior)
    ref = measure_reference(
        llm, datasets=["comagc"], root=root, embedder=HashEmbedder(), max_paths=2
    )
    assert ref.model == "scripted" and ref.info["pairs"] == 1  # 20% of 3 queries
    logit = lambda p: float(np.log(p / (1 - p)))  # noqa: E731
    assert ref.means["no-context"][0] == pytest.approx(logit(0.5), abs=1e-6)
    assert ref.means["context"][0] == pytest.approx(logit(0.7), abs=1e-6)
    n = max(ref.means["context"])
    assert ref.means["context"][n] == pytest.approx(logit(0.7 - 0.1 * n), abs=1e-6)
    assert ref.prompts["context"][0] == 1
    # the verdict rule's lookups
    assert ref.threshold(context=False, n_paths=0) == ref.means["no-context"][0]
    assert ReferenceThresholds.from_dict(json.loads(json.dumps(ref.to_dict()))).means == {
        s: {k: round(v, 4) for k, v in t.items()} for s, t in ref.means.items()
    }
    with pytest.raises(ReferenceThresholdsError, match="not a reference-thresholds record"):
        ReferenceThresholds.from_dict({"model": "x"})


def test_bench_reference_command_saves_where_discover_pair_looks(tmp_path, monkeypatch):
    root = write_path_data(tmp_path / "p2c")
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: PromptLLM(prior))
    monkeypatch.setattr("causalqa.embed.Embedder", HashEmbedder)
    out = tmp_path / "out"
    args = ["reference", "--datasets", "comagc", "--data", str(root), "--out", str(out)]
    result = CliRunner().invoke(discovery_app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["model"] == "scripted" and report["means"]["context"]["0"]
    assert user_file("scripted").is_file() and reference_for("scripted") is not None
    md = (out / "reference-latest.md").read_text()
    assert md.count("| context |") >= 1 and "Verdict rules on the test pairs" in md
    rules = {(r["paths"], r["rule"]) for r in report["test"]}
    assert {(0, "argmax"), (0, "content-free"), (0, "reference"), (1, "reference")} <= rules
    # the no-path prompt scores exactly the reference mean of its shape: not above it
    ref0 = next(r for r in report["test"] if r["paths"] == 0 and r["rule"] == "reference")
    assert ref0["recall"] == 0.0
    # --reuse scores the saved thresholds without measuring again
    again = CliRunner().invoke(discovery_app, [*args, "--reuse", "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["means"] == report["means"]


def test_bench_reference_reuse_without_saved_thresholds_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("causalqa.llm.get_llm", lambda *a, **k: PromptLLM(prior))
    result = CliRunner().invoke(discovery_app, ["reference", "--reuse", "--out", str(tmp_path)])
    assert "no reference thresholds saved for scripted" in result.exception.message


def test_saving_a_second_form_keeps_the_first(tmp_path, monkeypatch):
    from causalqa.discovery.reference import save_reference

    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path))
    model = "Some-Model-Q4"
    save_reference(ReferenceThresholds(model, {"context": {0: 0.5}}, form="plain"))
    save_reference(ReferenceThresholds(model, {"context": {0: 0.7}}, form="sentences"))
    save_reference(ReferenceThresholds(model, {"context": {0: 0.9}}, form="plain"))
    assert reference_for(model, form="plain").means == {"context": {0: 0.9}}
    assert reference_for(model, form="sentences").means == {"context": {0: 0.7}}
    assert [p.name for p in user_file(model).parent.iterdir()] == [user_file(model).name]
