"""The wording sets are data files read by one loader: each with its header, found from the
repository or $CAUSALQA_BENCH_DATA, never inside the installed package, and a clear error
where they are missing or malformed. No test prints a wording (held-out sets stay unread)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from causalqa.bench import wordings as wordings_module
from causalqa.bench.wordings import (
    BENCHMARKS,
    DATA_ENV,
    STATUSES,
    bench_data_dir,
    load_wordings,
    wording_sets,
)
from causalqa.errors import ConfigError, DataFileError

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "causalqa"


@pytest.fixture(autouse=True)
def _repository_data(monkeypatch):
    monkeypatch.delenv(DATA_ENV, raising=False)


def test_the_data_is_the_repositorys_not_the_packages():
    assert bench_data_dir() == ROOT / "bench" / "data"
    assert not (PACKAGE / "bench" / "data").exists()
    # no wording set is a module of the package any more
    assert not list((PACKAGE / "bench").glob("qa_open_test*.py"))
    assert not list((PACKAGE / "bench").glob("qa_*sets*.py"))


@pytest.mark.parametrize(
    "benchmark, name",
    [(b, n) for b in BENCHMARKS for n in wording_sets(b)],
)
def test_every_file_has_its_header(benchmark, name):
    found = load_wordings(name, benchmark)
    assert (found.benchmark, found.name) == (benchmark, name)
    assert found.status in STATUSES and found.writer and found.history
    assert found.path == ROOT / "bench" / "data" / "wordings" / benchmark / f"{name}.json"
    if found.first_measurement is not None:
        assert found.first_measurement["date"].startswith("2026-")
        report = found.first_measurement.get("report")
        assert report is None or (ROOT / report).is_file(), report
    # a set measured held out records its first measurement
    if found.held_out and name.startswith("test"):
        assert found.first_measurement is not None
    texts = [t for ts in found.wordings.values() for t in ts]
    assert texts and all(isinstance(t, str) and t.strip() for t in texts)


def test_the_loaded_set_cannot_be_changed_by_a_caller():
    dev = load_wordings("dev")
    with pytest.raises(TypeError):
        dev.wordings["median"] = ("x",)  # type: ignore[index]
    assert isinstance(dev.wordings["median"], tuple)


def test_unknown_names_and_benchmarks_are_config_errors():
    with pytest.raises(ConfigError, match="unknown open wording set 'nope'") as e:
        load_wordings("nope")
    assert "dev2" in e.value.hint
    with pytest.raises(ConfigError):
        load_wordings("../paraphrase/dev")
    with pytest.raises(ConfigError, match="unknown wording benchmark"):
        load_wordings("dev", "closed")
    with pytest.raises(ConfigError, match="unknown status"):
        wording_sets("open", status="secret")


def test_the_environment_variable_names_another_copy(tmp_path, monkeypatch):
    copy = tmp_path / "data"
    shutil.copytree(ROOT / "bench" / "data" / "wordings" / "open", copy / "wordings" / "open")
    (copy / "wordings" / "paraphrase").mkdir()
    doc = json.loads((copy / "wordings" / "open" / "dev.json").read_text(encoding="utf-8"))
    doc["name"] = "mine"
    doc["wordings"] = {"median": ["What is the median of {T}?"]}
    (copy / "wordings" / "open" / "mine.json").write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setenv(DATA_ENV, str(copy))
    assert bench_data_dir() == copy
    assert "mine" in wording_sets("open") and wording_sets("paraphrase") == []
    assert load_wordings("mine").wordings == {"median": ("What is the median of {T}?",)}
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(DataFileError, match="holds no wordings/ folder"):
        bench_data_dir()


def test_an_installed_wheel_without_the_data_says_where_to_get_it(tmp_path, monkeypatch):
    site = tmp_path / "site-packages" / "causalqa" / "bench"
    site.mkdir(parents=True)
    monkeypatch.setattr(wordings_module, "__file__", str(site / "wordings.py"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DataFileError, match="benchmark wordings are not installed") as e:
        load_wordings("dev")
    assert DATA_ENV in e.value.hint and "pip install -e" in e.value.hint


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.pop("status"), "missing status"),
        (lambda d: d.update(status="secret"), "status 'secret'"),
        (lambda d: d.update(name="other"), "sits at its path"),
        (lambda d: d.update(wordings={"median": []}), "non-empty list"),
        (lambda d: d.update(wordings={"median": ["ok", 3]}), "non-empty strings"),
        (lambda d: d.update(first_measurement="yesterday"), "first_measurement"),
    ],
)
def test_a_malformed_file_is_a_data_file_error(tmp_path, monkeypatch, change, message):
    folder = tmp_path / "wordings" / "open"
    folder.mkdir(parents=True)
    doc = json.loads((ROOT / "bench/data/wordings/open/dev.json").read_text(encoding="utf-8"))
    change(doc)
    (folder / "dev.json").write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    with pytest.raises(DataFileError, match=message):
        load_wordings("dev")
    (folder / "dev.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DataFileError, match="not readable JSON"):
        load_wordings("dev")
