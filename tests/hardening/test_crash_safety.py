"""Crash safety: a process killed with SIGKILL in the middle of writing leaves every store
readable, holding its old state or its new one, and a rerun finishes the work: the LLM
response cache, ``causalqa fit``'s model folder, ``kg load``'s store and ``kg mine``'s
causal KG. Kill times are spread over the work (seeded), so each run hits the write
windows at different points; each test stays within seconds."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from tests.deduction.conftest import REPORT_A, REPORT_B
from tests.hardening.support import PARTNERS

from causalqa.causal_model import CausalModel, fit_causal_model
from causalqa.kg import KnowledgeGraph
from causalqa.kg.loaders import read_triples
from causalqa.llm.cache import ResponseCache

DRIVER = Path(__file__).with_name("driver.py")


def start(job: str, **args) -> subprocess.Popen:
    """The driver's `job` in a subprocess, returned once its imports are done."""
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), job, json.dumps(args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CAUSALQA_KV_CACHE": "0"},
    )
    line = proc.stdout.readline()
    if line.strip() != "ready":
        proc.kill()
        raise AssertionError(f"driver did not start: {line!r} {proc.stderr.read()[-2000:]}")
    return proc


def kill_after(proc: subprocess.Popen, seconds: float) -> bool:
    """SIGKILL `proc` after `seconds` unless it ended; True when it was killed."""
    try:
        proc.wait(timeout=seconds)
        return False
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        return True


def run_to_end(job: str, timeout: float = 120, **args) -> subprocess.CompletedProcess:
    proc = start(job, **args)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:  # timed out: never leave it running
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-3000:]
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


# -- the LLM response cache ---------------------------------------------------------------
def test_cache_killed_mid_write_keeps_every_committed_entry_and_resumes(tmp_path):
    path = tmp_path / "responses.sqlite"
    rng = random.Random(0)
    written = 0
    for _ in range(5):
        proc = start("cache", path=str(path), start=written, count=1_000_000)
        assert kill_after(proc, rng.uniform(0.05, 0.4))
        cache = ResponseCache(path)
        n = len(cache)
        assert n >= written  # nothing committed was lost
        for i in range(n):  # entries are whole and contiguous: no gap, no torn value
            value = cache.get(str(i))
            assert value is not None and value["i"] == i and len(value["text"]) == 2000
        cache.close()
        written = n
    assert written > 0
    run_to_end("cache", path=str(path), start=written, count=50)
    cache = ResponseCache(path)
    assert len(cache) == written + 50 and cache.get(str(written + 49))["i"] == written + 49


# -- causalqa fit: the model folder -------------------------------------------------------
@pytest.fixture(scope="module")
def two_models(tmp_path_factory):
    """Two different fitted models of the partner data (old and new states)."""
    base = tmp_path_factory.mktemp("models")
    data = PARTNERS / "partners.csv"
    common = dict(outcome="Revenue", subject_column="Partner ID", filters=["Already Engaged"])
    a = fit_causal_model(data, treatments=["Tech Support"], **common)
    b = fit_causal_model(data, treatments=["Discount"], **common)
    a.save(base / "a")
    b.save(base / "b")
    return base / "a", base / "b"


def same_model(folder: Path, reference: Path) -> bool:
    got = CausalModel.load(folder / "graph.graphml", folder / "effects.csv")
    ref = CausalModel.load(reference / "graph.graphml", reference / "effects.csv")
    return set(got.graph.edges) == set(ref.graph.edges) and got.effects.equals(ref.effects)


def test_saving_a_model_killed_at_any_moment_leaves_old_or_new_files(tmp_path, two_models):
    a, b = two_models
    folder = tmp_path / "model"
    CausalModel.load(a / "graph.graphml", a / "effects.csv").save(folder)
    rng = random.Random(1)
    seen = set()
    for _ in range(8):
        proc = start("saves", folder=str(folder), a_graph=str(a / "graph.graphml"),
                     a_effects=str(a / "effects.csv"), b_graph=str(b / "graph.graphml"),
                     b_effects=str(b / "effects.csv"))  # fmt: skip
        assert kill_after(proc, rng.uniform(0.05, 0.5))
        # Each file is whole: the graph and the table each are one model's.
        graph = CausalModel.load(folder / "graph.graphml").graph
        effects = pd.read_csv(folder / "effects.csv")
        assert set(effects.columns) in (
            {"Partner ID", "Tech Support", "Already Engaged"},
            {"Partner ID", "Discount", "Already Engaged"},
        )
        assert graph.number_of_nodes() > 0
        seen.add("Discount" in effects.columns)
        if same_model(folder, a) or same_model(folder, b):
            continue
        # The only other state: killed between the two back-to-back replacements.
        seen.add("between")
    assert seen & {True, False}


def test_fit_command_killed_then_rerun(tmp_path, two_models):
    a, _ = two_models
    folder = tmp_path / "model"
    CausalModel.load(a / "graph.graphml", a / "effects.csv").save(folder)
    argv = ["fit", str(PARTNERS / "partners.csv"), "-t", "Discount", "-y", "Revenue",
            "--subject-column", "Partner ID", "--filter", "Already Engaged", "--out",
            str(folder), "--overwrite", "--json"]  # fmt: skip
    for delay in (0.3, 1.5):
        proc = start("cli", argv=argv)
        kill_after(proc, delay)
        assert same_model(folder, a) or same_model(folder, two_models[1])
    run_to_end("cli", argv=argv)
    assert same_model(folder, two_models[1])
    assert sorted(p.name for p in folder.iterdir() if not p.name.endswith(".tmp")) == [
        "effects.csv",
        "graph.graphml",
    ]


# -- kg load: the store ------------------------------------------------------------------
def triples(path: Path, n: int, prefix: str) -> Path:
    rows = [f"{prefix}{i}\tcauses\t{prefix}{(i * 7 + 1) % n}" for i in range(n)]
    path.write_text("head\trelation\ttail\n" + "\n".join(rows) + "\n")
    return path


def test_kg_load_killed_leaves_the_old_or_new_store_and_reruns(tmp_path):
    old, new = triples(tmp_path / "old.tsv", 50, "o"), triples(tmp_path / "new.tsv", 20_000, "n")
    store = tmp_path / "stores" / "kg"
    KnowledgeGraph.build(read_triples(old), store).close()
    argv = ["kg", "load", "triples", str(new), "--store", str(store), "--replace", "--json"]
    rng = random.Random(2)
    for _ in range(4):
        proc = start("cli", argv=argv)
        kill_after(proc, rng.uniform(0.1, 2.5))
        with KnowledgeGraph.open(store) as kg:
            assert kg.stats()["nodes"] in (50, 20_000)
    run_to_end("cli", argv=argv)
    with KnowledgeGraph.open(store) as kg:
        assert kg.stats()["nodes"] == 20_000
    assert sorted(p.name for p in store.parent.iterdir()) == ["kg"]  # no debris left


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_store_killed_between_its_two_renames_opens_as_the_new_one(tmp_path):
    old, new = triples(tmp_path / "old.tsv", 5, "o"), triples(tmp_path / "new.tsv", 9, "n")
    store = tmp_path / "kg"
    pid = dead_pid()
    # What a build killed after moving the old store aside, before moving the new in:
    KnowledgeGraph.build(read_triples(old), tmp_path / f".kg.old-{pid}").close()
    KnowledgeGraph.build(read_triples(new), tmp_path / f".kg.partial-{pid}").close()
    with KnowledgeGraph.open(store) as kg:
        assert kg.stats()["nodes"] == 9
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".kg")) == []
    # Killed before the new store was complete: the old one comes back.
    pid = dead_pid()
    (tmp_path / "kg").rename(tmp_path / f".kg.old-{pid}")
    (tmp_path / f".kg.partial-{pid}").mkdir()
    with KnowledgeGraph.open(store) as kg:
        assert kg.stats()["nodes"] == 9


# -- kg mine: the causal KG ---------------------------------------------------------------
def test_kg_mine_killed_then_resumed_mines_every_report_once(tmp_path):
    from causalqa.deduction.event_graph import CausalKG

    reports = tmp_path / "reports"
    reports.mkdir()
    for i in range(12):
        (reports / f"r{i:02d}.txt").write_text((REPORT_A if i % 2 else REPORT_B) + f" Case {i}.")
    out = tmp_path / "ckg"
    argv = [
        "--llm",
        "scripted:x",
        "kg",
        "mine",
        str(reports),
        "--out",
        str(out),
        "--no-infer",
        "--json",
    ]
    rng = random.Random(3)
    for _ in range(3):
        proc = start("cli", argv=argv, scripted=True, slow=0.1, bag_of_words=True)
        kill_after(proc, rng.uniform(0.2, 1.0))
        if (out / "chains.jsonl").exists() or (out / "meta.json").exists():
            CausalKG.load(out)  # the store reads after every kill
    run_to_end("cli", argv=argv, scripted=True, bag_of_words=True)
    kg = CausalKG.load(out)
    mined = [r.report_id for r in kg.records]
    assert sorted(set(mined)) == sorted(f"r{i:02d}" for i in range(12)), mined
    assert len(mined) == len(set(mined)), "a report was mined twice"
    time.sleep(0)
