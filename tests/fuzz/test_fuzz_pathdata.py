"""Pair data (path-to-causality JSONL, read-only use of `causalqa.discovery.pathdata`):
generated records with wrong types and missing fields, and mutated files, read as
records or fail with one `PathDataError` naming the file and line."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.common import FUZZ, load_or_refused, mutated, texts

from causalqa.discovery.pathdata import read_path_file
from causalqa.errors import PathDataError

values = st.one_of(
    texts, st.none(), st.integers(), st.floats(), st.booleans(), st.sampled_from(["0", "1"])
)
GOOD_PATH = {"pathid": 0, "stops": "a - g - b", "reltypes": "r - r", "nodelabels": "G - G - D",
             "rel_score": 1.0, "prob_score": -0.5, "relevant": "1"}  # fmt: skip
GOOD = {"qid": "1", "sentence": "a and b.", "e1": "a", "e2": "b", "ground_truth": "1",
        "llm_pred": "1", "metapaths": [GOOD_PATH]}  # fmt: skip


OPTIONAL_TEXT = {"reltypes", "nodelabels", "stops_id", "reltypes_id"}
"""A path's optional text fields (a number in one was once a crash, not an error)."""


@st.composite
def records(draw) -> dict:
    rec = json.loads(json.dumps(GOOD))
    for _ in range(draw(st.integers(0, 3))):
        paths = rec.get("metapaths")
        inner = isinstance(paths, list) and paths and isinstance(paths[0], dict)
        target = paths[0] if inner and draw(st.booleans()) else rec
        if not target:
            continue
        key = draw(st.sampled_from(sorted(target)))
        if draw(st.booleans()):
            del target[key]
        else:
            target[key] = draw(values)
    return rec


def _names_its_line(e, _path):
    assert isinstance(e, PathDataError)
    if e.line is not None:
        assert re.search(rf":{e.line}\b", e.message), e.message


def read_or_error(text: str):
    return load_or_refused(read_path_file, "train_full.jsonl", text, on_error=_names_its_line)


@FUZZ
@given(st.lists(records(), min_size=0, max_size=4))
def test_generated_pair_records(recs):
    got = read_or_error("".join(json.dumps(r) + "\n" for r in recs))
    if got is not None:
        assert len(got) == len(recs)
        for r in got:
            assert r.label in (0, 1) and isinstance(r.e1, str) and isinstance(r.e2, str)


@FUZZ
@given(mutated(json.dumps(GOOD) + "\n" + json.dumps(dict(GOOD, qid="2")) + "\n"))
def test_mutated_pair_data_jsonl(text):
    got = read_or_error(text)
    if got is not None:
        assert all(r.label in (0, 1) for r in got)


@pytest.mark.parametrize("key", sorted(OPTIONAL_TEXT))
def test_a_non_string_optional_path_field_is_a_clear_error(key):
    rec = dict(GOOD, metapaths=[dict(GOOD_PATH, **{key: 5})])
    assert read_or_error(json.dumps(rec) + "\n") is None
