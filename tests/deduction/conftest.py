"""Shared fixtures of the deduction tests: a fast deterministic stand-in for the
sentence embedder, and tiny reports."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).parent / "fixtures"


class BagOfWordsEmbedder:
    """Unit vectors of hashed word counts: texts sharing words are similar, as with a
    real embedder, without loading one. `fixed` pins chosen texts to given vectors."""

    name = "bag-of-words"

    def __init__(self, dim: int = 256, fixed: dict[str, np.ndarray] | None = None) -> None:
        self.dim = dim
        self.fixed = fixed or {}
        self.calls = 0

    def _vec(self, text: str) -> np.ndarray:
        if text in self.fixed:
            v = np.asarray(self.fixed[text], dtype=np.float32)
            return v / np.linalg.norm(v)
        v = np.zeros(self.dim, dtype=np.float32)
        for w in re.findall(r"[a-z]+", text.lower()):
            if len(w) > 2:
                v[int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def encode(self, texts, **_):
        self.calls += 1
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vec(t) for t in texts])


@pytest.fixture
def embedder():
    return BagOfWordsEmbedder()


@pytest.fixture
def make_embedder():
    return BagOfWordsEmbedder


REPORT_A = (
    "The pilot did not remove frost from the wings before takeoff. During rotation the "
    "airplane exceeded its critical angle of attack, stalled, and impacted the runway."
)
REPORT_B = (
    "The engine lost power in cruise. Examination found ice in the carburetor; the pilot "
    "applied carburetor heat too late and made a forced landing in a field."
)


@pytest.fixture
def reports():
    from causalqa.deduction.dataset import Report

    return [
        Report(report_id="A", context=REPORT_A, probable_cause="x"),
        Report(report_id="B", context=REPORT_B, probable_cause="y"),
    ]
