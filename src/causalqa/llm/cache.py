"""An on-disk response cache: sqlite, one row per request, crash-safe.

Keys are sha256 digests of (backend, model identity, full request) as canonical JSON, so a
different model, prompt, schema, token budget, temperature or seed is a different entry.
Each write is its own transaction in WAL mode: a process killed mid-write leaves the
previous state, never half a row. A file that is not a readable sqlite database is moved
aside (never deleted) and a fresh cache started. `open_sqlite` is the one way causalqa
opens its sqlite caches (this one and the embeddings' vectors): processes that open one
at the same moment wait for each other instead of taking a busy file for a damaged one.
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
from causalqa.errors import ConfigError

SCHEMA_VERSION = 1

_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


def open_sqlite(path: Path, create: str, *, wait: float = 30.0) -> sqlite3.Connection:
    """A WAL-mode connection to the sqlite file at `path`, with `create` (``CREATE TABLE IF
    NOT EXISTS …``) run.

    Several processes may open one file at once: a busy or locked database is retried for
    `wait` seconds (switching a new file to WAL takes a lock sqlite's busy handler does not
    wait for). A file that is not a readable sqlite database is moved aside (never
    deleted), with a warning, and a fresh one started. Still busy after `wait`:
    `ConfigError` naming the file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait
    moved = False
    while True:
        conn = sqlite3.connect(path, timeout=wait, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(create)
            conn.commit()
            return conn
        except sqlite3.DatabaseError as e:
            conn.close()
            code = (getattr(e, "sqlite_errorcode", None) or 0) & 0xFF
            if code in _BUSY and time.monotonic() < deadline:
                time.sleep(0.02)
                continue
            if code in _DAMAGED and not moved:
                aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
                path.rename(aside)
                warnings.warn(
                    f"cache {path} was unreadable; moved it to {aside} and started a new one",
                    stacklevel=3,
                )
                moved = True
                continue
            if code in _BUSY:
                raise ConfigError(
                    f"cache {path} stayed locked for {wait:.0f} s",
                    hint="another causalqa process holds it; or set CAUSALQA_HOME to a "
                    "local folder (sqlite's locks do not work on some network file systems)",
                ) from e
            raise


class ResponseCache:
    """A persistent mapping from request keys to JSON-able responses."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else config.cache_path("responses")
        self._lock = threading.Lock()
        self._conn = open_sqlite(
            self.path,
            "CREATE TABLE IF NOT EXISTS responses ("
            " key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL NOT NULL)",
        )

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
