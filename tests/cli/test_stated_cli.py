"""``causalqa ask --story`` and ``ask --batch`` as a user meets them (a subprocess: exit
codes, one-line errors, the JSON and the human output), on hand-made stories, on a
CLadder generator story built as background + given_info, and on the Corr2Cause-style
sample; and ``bench stated`` writing its two reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.test_cli import assert_one_clear_error, run
from tests.stated.test_route import CHAIN, COLLIDER_THEN_CHAIN, CONFOUNDED, SMOKING

from causalqa.stated.route import ask_story

ROOT = Path(__file__).resolve().parents[2]
CORR2CAUSE_SAMPLE = ROOT / "bench" / "data" / "corr2cause" / "sample.jsonl"
CLADDER = ROOT.parent / "shared" / "data" / "cladder"
requires_cladder = pytest.mark.skipif(
    not (CLADDER / "test-model-meta.json").is_file(),
    reason="the CLadder generator outputs are not in ../shared/data/cladder",
)


def ask_json(*args: str, stdin: str | None = None) -> dict:
    proc = run("ask", *args, "--json", stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


def without_seconds(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k != "seconds"}


def test_a_story_as_text_is_answered_with_its_value_estimand_model_and_derivation():
    got = ask_json("--story", CHAIN, SMOKING)
    assert got["answer"] == "yes"
    assert got["value"] == pytest.approx(0.18, abs=1e-9)  # (0.7 - 0.1) * (0.5 - 0.2)
    assert "do(smoking=1)" in got["estimand"]
    assert [v["name"] for v in got["model"]["variables"]] == [
        "smoking",
        "tar deposit",
        "lung cancer",
    ]
    assert got["derivation"] and got["route"][0] == "stated model"
    # the CLI prints what the library returns
    assert without_seconds(got) == without_seconds(ask_story(CHAIN, SMOKING).model_dump())


def test_a_story_file_and_standard_input_give_the_same_answer(tmp_path):
    story = tmp_path / "confounded.txt"
    story.write_text(CONFOUNDED, encoding="utf-8")
    from_file = ask_json("--story", str(story), SMOKING)
    from_stdin = ask_json("--story", "-", SMOKING, stdin=CONFOUNDED)
    assert from_file["value"] == pytest.approx(0.28, abs=1e-9)  # 0.6 * 0.2 + 0.4 * 0.4
    assert without_seconds(from_file) == without_seconds(from_stdin)


def test_a_claim_about_a_premise_stands_in_for_a_question():
    assert ask_json("--story", COLLIDER_THEN_CHAIN, "C directly causes D.")["answer"] == "yes"
    got = ask_json("--story", COLLIDER_THEN_CHAIN, "D directly causes C.")
    assert got["answer"] == "no" and got["route"][0] == "stated independences"
    assert got["model"]["cpdag"]["directed"] == [["A", "C"], ["B", "C"], ["C", "D"]]


def test_human_output_shows_answer_value_estimand_and_derivation():
    proc = run("ask", "--story", CHAIN, SMOKING)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "yes"
    assert "value: 0.18" in lines
    assert any(line.startswith("estimand: P(lung cancer=1 | do(smoking=1))") for line in lines)
    assert "derivation:" in lines
    assert "  P(lung cancer=1 | do(smoking=0)) = 0.23" in lines  # 0.2 * 0.9 + 0.5 * 0.1
    assert "stated model · rules" in proc.stderr


def test_a_refusal_says_why_and_exits_zero():
    proc = run("ask", "--story", CHAIN, "Will the moon rise earlier?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("no answer:")
    assert ask_json("--story", CHAIN, "Will the moon rise earlier?")["answer"] is None


@requires_cladder
def test_a_cladder_generator_story_is_answered_as_the_generator_labels_it():
    from causalqa.bench.stated import load_cladder

    items = [i for i in load_cladder(CLADDER) if i["kind"] == "easy"]
    for query_type in ("ate", "nie", "marginal"):
        item = next(i for i in items if i["query_type"] == query_type)
        got = ask_json("--story", item["story"], item["question"])
        assert got["answer"] == item["answer"], (query_type, got["reason"])
        assert got["value"] == pytest.approx(item["truth_value"], abs=0.011)


def test_a_batch_answers_the_corr2cause_sample_in_order():
    items = [json.loads(line) for line in CORR2CAUSE_SAMPLE.read_text().splitlines()]
    proc = run("ask", "--batch", str(CORR2CAUSE_SAMPLE), "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["id"] for r in results] == [i["id"] for i in items]
    assert [r["answer"] for r in results] == [i["expected"] for i in items]


def test_a_batch_mixes_story_kinds_and_reports_malformed_lines(tmp_path):
    batch = tmp_path / "items.jsonl"
    lines = [
        json.dumps({"id": "chain", "story": CHAIN, "question": SMOKING}),
        "{oops",
        json.dumps({"id": "premise", "story": COLLIDER_THEN_CHAIN, "question": "D causes A."}),
        json.dumps({"id": "no-story", "question": SMOKING}),
        json.dumps({"id": "refused", "story": CHAIN, "question": "Will the moon rise?"}),
    ]
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run("ask", "--batch", str(batch), "--json")
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["id"], r["line"], r["answer"], r["malformed"]) for r in results] == [
        ("chain", 1, "yes", False),
        (None, 2, None, True),
        ("premise", 3, "no", False),
        ("no-story", 4, None, True),
        ("refused", 5, None, False),
    ]
    assert results[1]["reason"].startswith("line 2: not JSON")
    assert results[4]["reason"]  # a refusal names why
    for key in ("value", "estimand", "model", "derivation"):
        assert key in results[0]
    human = run("ask", "--batch", str(batch))
    assert human.returncode == 0, human.stderr
    assert "chain" in human.stdout and "line 2" in human.stdout
    assert "no answer: line 2: not JSON" in human.stdout


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("Does A cause B?",), ("ask needs a model", "--story", "hint:")),
        (("--story", "story.txt", "q"), ("story.txt: no such file",)),
        (("--story", " ", "q"), ("--story is empty",)),
        (("--story", "x y z", "--graph", "g.graphml", "q"), ("--graph and --story", "give one")),
        (("--story", "x y z", "--batch", "b.jsonl"), ("--story and --batch",)),
        (("--story", "a story in words"), ("--story needs a QUESTION",)),
        (("--story", "a story in words", "--effects", "e.csv", "q"), ("--effects",)),
        (("--batch", "missing.jsonl"), ("missing.jsonl: no such file",)),
        (("--graph", "g.graphml"), ("give a QUESTION",)),
    ],
)
def test_options_that_do_not_go_together_are_one_clear_error(args, needles, tmp_path):
    assert_one_clear_error(run("ask", *args), *needles)


def test_a_batch_with_a_question_or_no_items_is_an_error(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    assert_one_clear_error(run("ask", "--batch", str(empty)), "holds no items")
    assert_one_clear_error(run("ask", "--batch", str(empty), "q"), "give no QUESTION")


def test_an_empty_story_file_is_an_error(tmp_path):
    story = tmp_path / "empty.txt"
    story.write_text("  \n", encoding="utf-8")
    assert_one_clear_error(run("ask", "--story", str(story), "q"), "holds no story")


@requires_cladder
def test_bench_stated_writes_both_reports(tmp_path, monkeypatch):
    """On a slice of the generator outputs and a small Corr2Cause-style generation (the
    quick run's sizes take minutes), the command writes both reports and sums them up."""
    from typer.testing import CliRunner

    import causalqa.bench.corr2cause as corr2cause
    from causalqa.cli import app

    data = tmp_path / "data" / "cladder"
    data.mkdir(parents=True)
    (data / "test-model-meta.json").write_bytes((CLADDER / "test-model-meta.json").read_bytes())
    for kind in ("easy", "hard", "anti", "non", "det"):
        items = json.loads((CLADDER / f"test-generate-{kind}.json").read_text())
        (data / f"test-generate-{kind}.json").write_text(json.dumps(items[:4]))
    real = corr2cause.run_corr2cause_bench

    def small(out_dir, *, seed=0, quick=False):
        return real(out_dir, sizes=(3,), samples_per_size=0, pairs_per_premise=2, seed=seed)

    monkeypatch.setattr(corr2cause, "run_corr2cause_bench", small)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["bench", "stated", "--quick", "--data", str(tmp_path / "data"), "--out", str(out),
              "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["cladder"]["items"] == 20
    assert set(summary["cladder"]["by_rung"]) <= {"1", "2", "3"}
    assert summary["corr2cause"]["items"] == 11 * 6 * 2  # 11 classes, 6 claim kinds, 2 pairs
    assert summary["corr2cause"]["overall"]["accuracy"] == 100.0
    for name in ("stated-latest.md", "stated-latest.json", "corr2cause-latest.md"):
        assert (out / name).is_file(), name


def test_a_tie_is_refused():
    from tests.server.test_server_stated import tied_story

    story, question = tied_story()
    got = ask_json("--story", story, question)
    assert got["answer"] is None and "refused rather than guessed" in got["reason"]
    assert "llm" not in got["route"]
