"""A small seeded sample of the CLadder generator outputs (the full 4,164 are the bench's):
the reader answers most, and no answer comes from a number far from the generator's own
ground truth (a misread number would show as such a gap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from causalqa.bench.stated import _score, load_cladder

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "cladder"


@pytest.mark.skipif(
    not (DATA / "test-model-meta.json").is_file(), reason="CLadder generator data not present"
)
def test_sample_of_generator_items():
    import random

    items = random.Random(3).sample(load_cladder(DATA), 80)
    rows = _score(items)
    right = sum(r["result"] == "right" for r in rows)
    wrong = [r for r in rows if r["result"] == "wrong"]
    assert right >= 0.88 * len(rows), [
        (r["id"], r["reason"]) for r in rows if r["result"] != "right"
    ]
    # a wrong answer may only come from rounding (a small gap), never from a misread number
    assert all((r.get("value_gap") or 0) <= 0.05 or r["caution"] for r in wrong)
