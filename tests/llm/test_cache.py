import sqlite3

import pytest

from causalqa.llm import ResponseCache


def test_roundtrip_and_persistence(tmp_path):
    path = tmp_path / "c.sqlite"
    c = ResponseCache(path)
    k = c.key("local", "m@sha", {"messages": [{"role": "user", "content": "ü"}]})
    assert c.get(k) is None
    c.put(k, {"text": "ok ✓"})
    c.close()
    assert ResponseCache(path).get(k) == {"text": "ok ✓"}
    assert len(ResponseCache(path)) == 1


def test_key_depends_on_backend_model_and_request():
    req = {"a": 1, "b": [1, 2]}
    k = ResponseCache.key("local", "m1", req)
    assert k == ResponseCache.key("local", "m1", {"b": [1, 2], "a": 1})
    assert k != ResponseCache.key("openai", "m1", req)
    assert k != ResponseCache.key("local", "m2", req)
    assert k != ResponseCache.key("local", "m1", {"a": 2, "b": [1, 2]})


def test_unreadable_cache_file_is_moved_aside_not_deleted(tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.warns(UserWarning, match="moved it"):
        c = ResponseCache(path)
    c.put("k", {"v": 1})
    assert c.get("k") == {"v": 1}
    aside = list(tmp_path.glob("c.sqlite.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not sqlite")


def test_writes_are_transactions(tmp_path):
    path = tmp_path / "c.sqlite"
    c = ResponseCache(path)
    c.put("k", {"v": 1})
    # Another connection sees a consistent database.
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT count(*) FROM responses").fetchone()[0] == 1
