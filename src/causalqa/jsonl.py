"""JSON Lines files: one reader that names the file and line of a bad record, and writers
that never leave half a file behind (`atomic_file`, also for other text files)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from causalqa.errors import DataFileError


def read_jsonl(
    path: str | os.PathLike[str],
    *,
    error: type[DataFileError] = DataFileError,
    torn_tail: bool = False,
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of `path`, numbered from 1.

    A missing or unreadable file, text that is not UTF-8 or a line that is not JSON raises
    `error` (a `DataFileError` subclass) naming the file and line. With `torn_tail`, a
    malformed *last* line is skipped instead: what a writer killed mid-line leaves behind.
    """
    p = Path(path)
    if not p.is_file():
        raise error(f"{p}: no such file", path=str(p))
    try:
        with p.open(encoding="utf-8") as f:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError as e:
                    if torn_tail and not f.readline():
                        return
                    raise error(
                        f"{p}:{n}: not valid JSON ({e.msg} at column {e.colno})",
                        hint="each line must be one JSON value",
                        path=str(p),
                        line=n,
                    ) from None
                yield n, value
    except UnicodeDecodeError as e:
        raise error(f"{p}: not UTF-8 text ({e.reason})", path=str(p)) from None
    except OSError as e:
        raise error(f"{p}: cannot be read: {e.strerror}", path=str(p)) from None


def dumps(value: Any, *, strict: bool = False) -> str:
    """One JSON line (no newline inside, unicode kept; other objects as their text).

    With `strict`, the line is standard JSON that any parser reads as one line: a NaN or
    infinite number becomes ``null`` (Python writes ``NaN``, which is not JSON), and the
    Unicode line and paragraph separators are escaped (some line readers split on them).
    """
    if not strict:
        return json.dumps(value, ensure_ascii=False, default=str)
    text = json.dumps(_finite(value), ensure_ascii=False, default=str, allow_nan=False)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _finite(value: Any) -> Any:
    """`value` with every non-finite float replaced by None (containers copied)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """A text file (bytes with `binary`) to write that replaces `path` only when the
    block ends without an error: a reader (or a process killed mid-write) sees the old
    file or the new one, never a part. The temporary file beside it has a unique name, so
    two writers never share one, and it is removed when the block fails."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    opened = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="")
    try:
        with opened as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_jsonl(path: str | os.PathLike[str], rows: Iterable[Any]) -> Path:
    """Write `rows` as JSON Lines through `atomic_file`: the old file or the new one,
    never a part."""
    p = Path(path)
    with atomic_file(p) as f:
        for row in rows:
            f.write(dumps(row) + "\n")
    return p


@contextlib.contextmanager
def appending(path: str | os.PathLike[str] | None) -> Iterator[Callable[[Any], None]]:
    """A function that appends one row to the JSON Lines file `path` (its folder made,
    each line flushed) while the block runs — for a cache a rerun resumes from; with None,
    one that does nothing."""
    if path is None:
        yield lambda row: None
        return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("a", encoding="utf-8") as f:

        def add(row: Any) -> None:
            f.write(dumps(row) + "\n")
            f.flush()

        yield add


def append_jsonl(path: str | os.PathLike[str], rows: Iterable[Any]) -> None:
    """Append `rows`, each as one line flushed to disk (a kill tears at most the last)."""
    with Path(path).open("a", encoding="utf-8") as f:
        for row in rows:
            f.write(dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())
