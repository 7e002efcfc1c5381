"""Raw data for ``fit``: generated observations (junk cells, constant or non-binary
treatments, missing values, duplicate ids, odd headers) and mutated CSV files give a
valid causal model or one `CausalQAError` naming the file; ``causalqa fit`` exits 0 or 1
without a traceback and leaves no file behind when it fails."""

from __future__ import annotations

import csv
import io
import tempfile
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.common import FUZZ, FUZZ_CLI, NASTY, load_or_refused, mutated, write
from tests.hardening.support import PARTNERS, assert_clean_exit, files_under, run_cli

from causalqa.causal_model import CausalModel, fit_causal_model

junk = st.one_of(st.sampled_from(NASTY), st.sampled_from(["", "nan", "inf", "1,5", "yes"]))


@st.composite
def observations(draw) -> str:
    """A CSV of n rows: Partner ID, T (treatment), X, F (filter), Y (outcome)."""
    n = draw(st.integers(0, 40))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 2, n) if draw(st.booleans()) else rng.integers(0, 3, n)
    x = rng.normal(size=n)
    y = 2 * t + x + rng.normal(size=n)
    f = rng.choice(["yes", "no"], n)
    ids = [f"P{i}" for i in range(n)]
    rows = [list(r) for r in zip(ids, t.tolist(), x.tolist(), f.tolist(), y.tolist())]
    for _ in range(draw(st.integers(0, 3))):  # junk cells
        if rows:
            i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, 4))
            rows[i][j] = draw(junk)
    header = ["Partner ID", "T", "X", "F", "Y"]
    if draw(st.integers(0, 9)) == 0:
        header[draw(st.integers(0, 4))] = draw(st.sampled_from(["T", "", "Y ", "é"]))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def fit_or_error(text: str, **kwargs):
    def fit(path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fit_causal_model(path, **kwargs)

    return load_or_refused(fit, "data.csv", text)


def check_model(model: CausalModel, treatments) -> None:
    assert nx.is_directed_acyclic_graph(model.graph)
    assert model.treatments == list(treatments)
    assert np.isfinite(model.effects[list(treatments)].to_numpy(dtype=float)).all()
    assert model.effects.index.is_unique


@FUZZ
@given(observations(), st.booleans())
def test_fit_on_generated_observations(text, with_filter):
    kwargs = dict(treatments=["T"], outcome="Y", subject_column="Partner ID")
    if with_filter:
        kwargs["filters"] = ["F"]
    model = fit_or_error(text, **kwargs)
    if model is not None:
        check_model(model, ["T"])


VALID = (PARTNERS / "partners.csv").read_text(encoding="utf-8")
VALID = "\n".join(VALID.splitlines()[:60]) + "\n"
ARGS = dict(treatments=["Tech Support"], outcome="Revenue", subject_column="Partner ID")


@FUZZ
@given(mutated(VALID))
def test_fit_on_mutated_partner_data(text):
    model = fit_or_error(text, **ARGS)
    if model is not None:
        check_model(model, ["Tech Support"])


@FUZZ_CLI
@given(st.one_of(observations(), mutated(VALID)))
def test_fit_command_leaves_nothing_behind_when_it_fails(text):
    with tempfile.TemporaryDirectory() as d:
        path, out = Path(d) / "data.csv", Path(d) / "out" / "model"
        write(path, text)
        treatment = ["-t", "T"] if text.startswith("Partner ID,T") else ["-t", "Tech Support"]
        outcome = "Y" if treatment[1] == "T" else "Revenue"
        run = run_cli("fit", str(path), *treatment, "-y", outcome, "--subject-column",
                      "Partner ID", "--out", str(out), "--json")  # fmt: skip
        assert_clean_exit(run)
        if run.code == 0:
            CausalModel.load(out / "graph.graphml", out / "effects.csv")
            assert files_under(out) == {"graph.graphml", "effects.csv"}
        else:
            assert not (Path(d) / "out").exists(), files_under(Path(d) / "out")
            assert run.stdout == ""
