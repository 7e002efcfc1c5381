"""Effects tables (CSV): generated tables with junk cells, duplicate ids, odd headers and
mutated files give a table that keeps its promises (unique string ids, finite numbers,
booleans) or one `ModelDataError` naming the file; at the CLI ``ask --effects`` exits 0
or 1 without a traceback."""

from __future__ import annotations

import csv
import io
import math

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.common import (
    FILE,
    FUZZ,
    FUZZ_CLI,
    NASTY,
    load_or_refused,
    mutated,
    names,
    run_with_file,
)
from tests.hardening.support import PARTNERS

from causalqa.causal_model import load_effects

cells = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["true", "False", "yes", "NO", "0", "1", "", "nan", "NA", "1,5", "1e3"]),
    st.sampled_from(NASTY),
)


@st.composite
def tables(draw) -> str:
    columns = draw(st.lists(names, min_size=1, max_size=5))
    rows = draw(st.integers(0, 6))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator=draw(st.sampled_from(["\n", "\r\n"])))
    writer.writerow(columns)
    for i in range(rows):
        ident = draw(st.one_of(st.just(f"P{i:03d}"), names))
        writer.writerow([ident] + [draw(cells) for _ in columns[1:]])
    return buf.getvalue()


def check_table(df: pd.DataFrame) -> None:
    assert len(df) > 0 and df.index.is_unique
    assert all(isinstance(i, str) and i.strip() for i in df.index)
    for col in df.columns:
        values = df[col]
        if values.dtype == bool:
            continue
        assert all(isinstance(v, float) and math.isfinite(v) for v in values), (col, values)


def load_or_error(content: str | bytes, suffix: str = ".csv"):
    return load_or_refused(load_effects, f"effects{suffix}", content)


@FUZZ
@given(tables())
def test_generated_effects_tables(text):
    df = load_or_error(text)
    if df is not None:
        check_table(df)


VALID = (PARTNERS / "model" / "effects.csv").read_text(encoding="utf-8")[:600]


@FUZZ
@given(mutated(VALID))
def test_mutated_effects_tables(text):
    df = load_or_error(text)
    if df is not None:
        check_table(df)


@FUZZ
@given(st.binary(max_size=300), st.sampled_from([".csv", ".tsv"]))
def test_random_bytes_as_effects(data, suffix):
    df = load_or_error(data, suffix)
    if df is not None:
        check_table(df)


@FUZZ_CLI
@given(mutated(VALID))
def test_ask_with_mutated_effects_exits_cleanly(text):
    run_with_file("effects.csv", text, "--json", "ask", "Which partner benefits most from "
                  "Tech Support?", "--graph", str(PARTNERS / "model" / "graph.graphml"),
                  "--effects", FILE)  # fmt: skip
