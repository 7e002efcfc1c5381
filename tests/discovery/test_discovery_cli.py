"""The discovery bench sub-app: SACHS on a fixture, errors as CausalQAError."""

from __future__ import annotations

import json

import pytest
from test_discovery_statistical import write_sachs
from typer.testing import CliRunner

from causalqa.discovery.cli import app
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


@pytest.mark.parametrize(
    "args",
    [
        ["sachs", "--methods", "lasso"],
        ["sachs", "--truth", "tetrad"],
        ["rankers", "--datasets", "wiki"],
    ],
)
def test_bad_options_raise_causalqa_errors(args):
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert isinstance(result.exception, CausalQAError)
