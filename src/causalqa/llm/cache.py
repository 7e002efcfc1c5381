"""An on-disk response cache: sqlite, one row per request, crash-safe.

Keys are sha256 digests of (backend, model identity, full request) as canonical JSON, so a
different model, prompt, schema, token budget, temperature or seed is a different entry.
Each write is its own transaction in WAL mode: a process killed mid-write leaves the
previous state, never half a row. A file that is not a readable sqlite database is moved
aside (never deleted) and a fresh cache started.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from causalqa import config

SCHEMA_VERSION = 1


class ResponseCache:
    """A persistent mapping from request keys to JSON-able responses."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else config.cache_path("responses")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._conn = self._open()
        except sqlite3.DatabaseError:
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            self.path.rename(aside)
            warnings.warn(
                f"response cache {self.path} was unreadable; moved it to {aside} and started "
                "a new one",
                stacklevel=2,
            )
            self._conn = self._open()

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL NOT NULL)"
            )
            conn.execute("SELECT count(*) FROM responses").fetchone()
            conn.commit()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    @staticmethod
    def key(backend: str, model: str, request: dict[str, Any]) -> str:
        payload = json.dumps(
            {"v": SCHEMA_VERSION, "backend": backend, "model": model, "request": request},
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        text = json.dumps(value, ensure_ascii=False)
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, value, created) VALUES (?, ?, ?)",
                (key, text, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT count(*) FROM responses").fetchone()[0]

    def clear(self) -> None:
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM responses")

    def close(self) -> None:
        with self._lock:
            self._conn.close()
