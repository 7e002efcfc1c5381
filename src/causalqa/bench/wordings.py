"""Question wordings of the QA benchmarks, read from the repository's data files.

Every wording set is one JSON file, ``bench/data/wordings/<benchmark>/<name>.json``:

- ``open/``: wordings of the open-question benchmark (`causalqa.bench.qa_open`), by kind;
- ``paraphrase/``: paraphrases of paper 000's question templates
  (`causalqa.bench.qa_data.TEMPLATES`), by template id.

A file holds a header — who wrote the set and what they were shown (``writer``), whether
it may be read while developing the engine (``status``: ``development`` or
``held-out``), the ``first_measurement`` of a set measured held out (date, engine commit,
command, counts, report), its ``history`` — and the ``wordings`` themselves. The files
live outside the installed package, so held-out wordings are never importable by the
engine; a wheel without them finds none and says so. The folder is found from
``$CAUSALQA_BENCH_DATA`` (the repository's ``bench/data``), else above the package's own
directory (an editable install), else above the working directory.

    >>> "dev" in wording_sets("open") and "test" in wording_sets("paraphrase", status="held-out")
    True
    >>> load_wordings("dev").wordings["median"][0]
    'What is the median effect of {T}?'
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from causalqa.errors import ConfigError, DataFileError

__all__ = [
    "BENCHMARKS",
    "DATA_ENV",
    "STATUSES",
    "WordingSet",
    "bench_data_dir",
    "load_wordings",
    "wording_sets",
]

Benchmark = Literal["open", "paraphrase"]
BENCHMARKS: tuple[str, ...] = ("open", "paraphrase")
STATUSES: tuple[str, ...] = ("development", "held-out")
DATA_ENV = "CAUSALQA_BENCH_DATA"
"""Environment variable naming the repository's ``bench/data`` folder."""

_HINT = (
    f"run from a causalqa repository checkout (pip install -e .), or set {DATA_ENV} to "
    "its bench/data folder"
)


@dataclass(frozen=True)
class WordingSet:
    """One wording set: its header and its wordings (kind or template id → texts, in the
    file's order, which fixes the questions generated from them)."""

    benchmark: str
    name: str
    status: str
    writer: str
    first_measurement: Mapping[str, Any] | None
    history: str
    wordings: Mapping[str, tuple[str, ...]]
    path: Path

    @property
    def held_out(self) -> bool:
        return self.status == "held-out"


def bench_data_dir() -> Path:
    """The repository's ``bench/data`` folder (one holding ``wordings/``).

    Raises:
        DataFileError: `$CAUSALQA_BENCH_DATA` names a folder without ``wordings/``, or no
            such folder is found above the package or the working directory (an
            installed wheel ships no benchmark data).
    """
    given = os.environ.get(DATA_ENV)
    if given:
        folder = Path(given).expanduser()
        if not (folder / "wordings").is_dir():
            raise DataFileError(
                f"{DATA_ENV}={given} holds no wordings/ folder",
                hint=f"point {DATA_ENV} at the repository's bench/data",
                path=str(folder),
            )
        return folder
    for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):
        for parent in (start, *start.parents):
            if (parent / "bench" / "data" / "wordings").is_dir():
                return parent / "bench" / "data"
    raise DataFileError(
        "the benchmark wordings are not installed: no bench/data/wordings/ above "
        f"{Path(__file__).resolve().parent} or the working directory",
        hint=_HINT,
    )


def _check_benchmark(benchmark: str) -> None:
    if benchmark not in BENCHMARKS:
        raise ConfigError(
            f"unknown wording benchmark {benchmark!r}", hint="use: " + ", ".join(BENCHMARKS)
        )


def wording_sets(benchmark: Benchmark | str = "open", *, status: str | None = None) -> list[str]:
    """Names of the wording sets of `benchmark` (all, or those of one `status`), in a
    stable order: by name, with a number's digits compared as a number (test2 < test10)."""
    _check_benchmark(benchmark)
    if status is not None and status not in STATUSES:
        raise ConfigError(f"unknown status {status!r}", hint="use: " + ", ".join(STATUSES))
    folder = bench_data_dir() / "wordings" / benchmark
    names = sorted((p.stem for p in folder.glob("*.json")), key=_natural)
    if status is None:
        return names
    return [n for n in names if load_wordings(n, benchmark).status == status]


def _natural(name: str) -> tuple[str, int]:
    stem = name.rstrip("0123456789")
    digits = name[len(stem) :]
    return stem, int(digits) if digits else -1


def load_wordings(name: str, benchmark: Benchmark | str = "open") -> WordingSet:
    """The wording set `name` of `benchmark` (``open`` or ``paraphrase``).

    Raises:
        ConfigError: no such set (the message lists the sets there are).
        DataFileError: the data folder is missing (see `bench_data_dir`), or the file is
            not a well-formed wording set.
    """
    _check_benchmark(benchmark)
    folder = bench_data_dir() / "wordings" / benchmark
    path = folder / f"{name}.json"
    if not isinstance(name, str) or "/" in name or "\\" in name or not path.is_file():
        known = sorted((p.stem for p in folder.glob("*.json")), key=_natural)
        raise ConfigError(
            f"unknown {benchmark} wording set {name!r}",
            hint="use: " + ", ".join(known) if known else _HINT,
        )
    stat = path.stat()
    return _read(path.resolve(), stat.st_mtime_ns, stat.st_size)


@cache
def _read(path: Path, _mtime: int, _size: int) -> WordingSet:
    """Parse and check one file (cached per path, modification time and size: an edited
    file is read again)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise DataFileError(f"{path}: not readable JSON ({e})", path=str(path)) from None

    def bad(what: str) -> DataFileError:
        return DataFileError(f"{path}: {what}", hint="see causalqa.bench.wordings", path=str(path))

    if not isinstance(doc, dict):
        raise bad("a wording set is a JSON object")
    missing = [
        k for k in ("benchmark", "name", "status", "writer", "history", "wordings") if k not in doc
    ]
    if missing:
        raise bad(f"missing {', '.join(missing)}")
    if doc["benchmark"] != path.parent.name or doc["name"] != path.stem:
        raise bad(f"says it is {doc['benchmark']}/{doc['name']}, but sits at its path")
    if doc["status"] not in STATUSES:
        raise bad(f"status {doc['status']!r} is not one of {', '.join(STATUSES)}")
    first = doc.get("first_measurement")
    if first is not None and not isinstance(first, dict):
        raise bad("first_measurement must be an object or null")
    raw = doc["wordings"]
    if not isinstance(raw, dict) or not raw:
        raise bad("wordings must be a non-empty object of lists")
    wordings: dict[str, tuple[str, ...]] = {}
    for key, texts in raw.items():
        if (
            not isinstance(texts, list)
            or not texts
            or not all(isinstance(t, str) and t.strip() for t in texts)
        ):
            raise bad(f"wordings[{key!r}] must be a non-empty list of non-empty strings")
        wordings[key] = tuple(texts)
    return WordingSet(
        benchmark=doc["benchmark"],
        name=doc["name"],
        status=doc["status"],
        writer=str(doc["writer"]),
        first_measurement=MappingProxyType(dict(first)) if first is not None else None,
        history=str(doc["history"]),
        wordings=MappingProxyType(wordings),
        path=path,
    )
