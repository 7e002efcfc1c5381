"""The papers' own numbers, kept as data files (``tables/paper00N.json``) and printed
beside ours for shape only; never recomputed."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

PAPERS = ("000", "001", "002")


@cache
def _load(paper: str) -> str:
    return resources.files("causalqa.bench").joinpath("tables", f"paper{paper}.json").read_text()


def published(paper: str) -> dict[str, Any]:
    """A fresh copy of paper `paper`'s published numbers ("000", "001" or "002").

    >>> published("001")["sachs"]["rows"][0]["method"]
    'PC Algorithm'
    """
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}: use one of {', '.join(PAPERS)}")
    return json.loads(_load(paper))
