"""Two processes writing the same cache or file at the same time lose nothing: the LLM
response cache keeps every entry of both (20 repetitions), an atomically written file is
always one writer's whole version with no temporary file left, and the saved reference
thresholds (the per-model registry `discover pair` reads) keep every form saved."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.hardening.test_crash_safety import DRIVER

from causalqa.jsonl import atomic_file
from causalqa.llm.cache import ResponseCache

REPETITIONS = 20


def spawn(job: str, **args) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(DRIVER), job, json.dumps(args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_both(job: str, **args) -> None:
    """Run the driver's `job` in two processes at once (tags "a" and "b"); both must
    succeed (neither is left running)."""
    procs = [spawn(job, **args, tag=tag) for tag in "ab"]
    try:
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err[-2000:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.mark.parametrize("rep", range(REPETITIONS))
def test_two_processes_writing_one_response_cache_lose_no_entry(tmp_path, rep):
    path = tmp_path / "responses.sqlite"
    n = 60
    run_both("cache", path=str(path), start=0, count=n, size=500)
    cache = ResponseCache(path)
    assert len(cache) == 2 * n
    for tag in "ab":
        for i in range(n):
            assert cache.get(f"{tag}{i}") == {"i": i, "tag": tag, "text": "x" * 500}


@pytest.mark.parametrize("rep", range(5))
def test_two_processes_opening_one_vector_cache_lose_no_entry(tmp_path, rep):
    """The embeddings' cache opens through the same `open_sqlite`: two processes starting
    on a new file at once both write (a busy file is not taken for a damaged one)."""
    from causalqa.embed import _VectorCache

    path = tmp_path / "embeddings.sqlite"
    run_both("vectors", path=str(path), count=40)
    keys = [f"{tag}{i}" for tag in "ab" for i in range(40)]
    assert set(_VectorCache(path).get_many(keys)) == set(keys)
    assert not list(tmp_path.glob("*.corrupt-*"))


WRITER = """
import sys
sys.path.insert(0, {src!r})
from causalqa.jsonl import atomic_file
for k in range(200):
    with atomic_file({path!r}) as f:
        f.write(("{tag}" * 1000 + "\\n") * 20)
"""


def test_two_processes_replacing_one_file_leave_a_whole_version_and_no_temporary(tmp_path):
    from tests.hardening.support import ROOT

    path = tmp_path / "data.jsonl"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER.format(src=str(ROOT / "src"), path=str(path), tag=t)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for t in "ab"
    ]
    seen = set()
    while any(p.poll() is None for p in procs):
        if path.exists():
            text = path.read_text()
            assert text in {("a" * 1000 + "\n") * 20, ("b" * 1000 + "\n") * 20}
            seen.add(text[0])
    for p in procs:
        assert p.wait() == 0, p.stderr.read()[-2000:]
    assert seen and [q.name for q in tmp_path.iterdir()] == ["data.jsonl"]


def test_atomic_file_keeps_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError), atomic_file(path) as f:
        f.write("half of the new")
        raise RuntimeError("disk full")
    assert path.read_text() == "old" and [q.name for q in tmp_path.iterdir()] == ["x.txt"]


def test_reference_thresholds_of_two_forms_for_one_model_are_both_kept(tmp_path, monkeypatch):
    from causalqa.discovery.reference import ReferenceThresholds, reference_for, save_reference

    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path))
    model = "Some-Model-Q4"
    for form in ("plain", "sentences"):
        save_reference(ReferenceThresholds(model, {"context": {0: 0.5}}, form=form))
    assert reference_for(model, form="plain") is not None
    assert reference_for(model, form="sentences") is not None


def test_atomic_file_writes_bytes(tmp_path):
    path = tmp_path / "x.bin"
    with atomic_file(path, binary=True) as f:
        f.write(b"\x00\xffbytes")
    assert path.read_bytes() == b"\x00\xffbytes" and [q.name for q in tmp_path.iterdir()] == [
        "x.bin"
    ]


def test_appending_flushes_each_row_and_none_writes_nothing(tmp_path):
    from causalqa.jsonl import appending, read_jsonl

    path = tmp_path / "cache" / "rows.jsonl"
    with appending(path) as keep:
        keep({"i": 1})
        assert path.read_text() == '{"i": 1}\n'  # on disk before the block ends
        keep({"i": 2})
    with appending(path) as keep:  # a rerun appends
        keep({"i": 3})
    assert [obj for _, obj in read_jsonl(path)] == [{"i": 1}, {"i": 2}, {"i": 3}]
    with appending(None) as keep:
        keep({"i": 4})
    assert [p.name for p in tmp_path.iterdir()] == ["cache"]
