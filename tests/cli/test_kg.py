from __future__ import annotations

import json

from tests.kg.conftest import write_hetionet
from typer.testing import CliRunner

from causalqa.cli.kg import app
from causalqa.kg import EntityNotFoundError, KGFormatError, KGStoreError

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_load_stats_paths(tmp_path, hetionet_dir):
    store = tmp_path / "store"
    result = invoke("load", "hetionet", hetionet_dir, "--store", store, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["nodes"] == 8 and report["edges"] == 6

    result = invoke("stats", "--store", store, "--json")
    assert json.loads(result.stdout)["kinds"]["Disease"] == 3
    result = invoke("stats", "--store", store)
    assert result.exit_code == 0 and "ERBB2" not in result.stdout and "binds" in result.stdout

    result = invoke("paths", "raloxifene", "Disease::DOID:1909", "--store", store, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["count"] == 3 and out["message"] is None
    first = out["paths"][0]
    assert first["text_plain"] == "Raloxifene - ERBB2 - melanoma"
    assert first["record"]["reltypes"] == "BINDS_CbG - ASSOCIATES_DaG"
    assert [p["length"] for p in out["paths"]] == [2, 3, 3]

    result = invoke(
        "paths", "raloxifene", "melanoma", "--store", store, "--types", "Compound,Gene,Disease"
    )
    assert result.exit_code == 0, result.output
    assert "Compound Raloxifene -binds-> Gene ERBB2" in result.stdout

    result = invoke("paths", "raloxifene", "skin cancer", "--store", store, "--json")
    assert json.loads(result.stdout)["message"] == "no path found within 4 hops"
    result = invoke("paths", "raloxifene", "skin cancer", "--store", store)
    assert "no path found within 4 hops" in result.stdout

    result = invoke("paths", "raloxifene", "melanoma", "--store", store, "--limit", "1")
    assert isinstance(result.exception, EntityNotFoundError)  # ambiguous: two melanomas
    result = invoke("paths", "raloxifene", "unobtainium", "--store", store)
    assert isinstance(result.exception, EntityNotFoundError)


def test_load_refuses_to_overwrite_and_replaces_on_request(tmp_path, hetionet_dir):
    store = tmp_path / "store"
    assert invoke("load", "hetionet", hetionet_dir, "--store", store).exit_code == 0
    result = invoke("load", "hetionet", hetionet_dir, "--store", store)
    assert isinstance(result.exception, KGStoreError)
    triples = tmp_path / "t.tsv"
    triples.write_text("smoking\tcauses\tcancer\ntar\tpart of\tsmoking\n")
    result = invoke("load", "triples", triples, "--store", store, "--replace")
    assert result.exit_code == 0, result.output
    assert "loaded 3 nodes and 2 edges" in result.stdout
    result = invoke("paths", "tar", "cancer", "--store", store, "--json")
    assert json.loads(result.stdout)["paths"][0]["text"] == (
        "Entity tar -part of-> Entity smoking, Entity smoking -causes-> Entity cancer"
    )


def test_malformed_file_and_missing_store(tmp_path):
    folder = write_hetionet(tmp_path / "h", edges="")
    result = invoke("load", "hetionet", folder, "--store", tmp_path / "s")
    assert isinstance(result.exception, KGFormatError)
    assert "line 1" in result.exception.message
    result = invoke("stats", "--store", tmp_path / "none")
    assert isinstance(result.exception, KGStoreError)


def test_empty_files_and_damaged_stores_are_errors_not_crashes(tmp_path, hetionet_dir):
    from causalqa.errors import CausalQAError

    for text in ("", "head\trelation\ttail\n", "\x00\xff\xfe binary"):
        bad = tmp_path / "bad.tsv"
        bad.write_bytes(text.encode("latin-1"))
        result = invoke("load", "triples", bad, "--store", tmp_path / "never")
        assert isinstance(result.exception, CausalQAError), (text, result.output)
    store = tmp_path / "store"
    assert invoke("load", "hetionet", hetionet_dir, "--store", store).exit_code == 0
    (store / "kg.json").write_text("{not json")
    for args in (("stats",), ("paths", "raloxifene", "melanoma")):
        result = invoke(*args, "--store", store)
        assert isinstance(result.exception, KGStoreError), result.output
    assert invoke("load", "hetionet", hetionet_dir, "--store", store, "--replace").exit_code == 0
    db = next(p for p in store.iterdir() if p.suffix == ".lbug")
    db.write_bytes(b"\x00" * 4096)
    result = invoke("stats", "--store", store)
    assert isinstance(result.exception, CausalQAError) and "load" in result.exception.hint
    db.unlink()
    result = invoke("stats", "--store", store)
    assert isinstance(result.exception, CausalQAError)
    assert "no graph database file" in result.exception.message
