from causalqa.bench import qa_data
from causalqa.bench.qa import (
    Outcome,
    judge_agreement,
    judge_selection,
    result_from_text,
    summarize,
    totals,
)


def test_result_from_text_reads_each_answer_shape():
    model = qa_data.generate_model(8, 5, 10, seed=3)
    items = qa_data.generate_questions(model, n_per_template=1, seed=3)
    for item in items:
        e = item.expected
        if isinstance(e, bool):
            assert result_from_text("Yes, it does." if e else "No.", item, model) == e
        elif isinstance(e, list):
            text = "Via " + ", ".join(e) + "." if e else "None."
            assert sorted(result_from_text(text, item, model)) == sorted(e)
        elif isinstance(e, float):
            assert result_from_text(f"The effect is {e:.2f}.", item, model) == round(e, 2)
        else:
            text = f"'{e['arg']}' with {e['value']:.2f}"
            got = result_from_text(text, item, model)
            assert qa_data.grade_exact(e, got), (text, got)


def test_summarize_means_over_seeds():
    def o(seed, parsed, correct):
        return Outcome(
            "graph",
            "n_n=5",
            seed,
            "tool",
            "t",
            "q",
            True,
            True,
            "",
            parsed,
            correct,
            None,
            100,
            1.0,
        )

    rows = summarize([o(0, True, True), o(0, False, False), o(1, True, True), o(1, True, False)])
    (row,) = rows
    assert row["unparseable"] == "0.25 ± 0.25"
    assert row["correct_parseable"] == "0.75 ± 0.25"
    assert row["end_to_end"] == "0.50 ± 0.00"
    assert row["paper_unparseable"]  # the paper's GPT-3.5 number for n_n=5


def _outcome(family="graph", parsed=True, correct=True, judge=None, seconds=1.0, cached=False):
    return Outcome(
        family, "n_n=5", 0, "tool", "t", "q", True, True, "", parsed, correct, judge, 100,
        seconds, cached,
    )  # fmt: skip


def test_judge_agreement_counts_and_kappa():
    outs = [
        _outcome(correct=True, judge=True),
        _outcome(correct=True, judge=True),
        _outcome(correct=False, judge=False),
        _outcome(correct=False, judge=True),
        _outcome(correct=True, judge=None),  # no verdict: left out
    ]
    ja = judge_agreement(outs)
    assert ja["n"] == 4 and ja["agreement"] == 0.75
    assert ja["exact_no_judge_yes"] == 1 and ja["exact_yes_judge_no"] == 0
    # chance agreement 0.5*0.75 + 0.5*0.25 = 0.5 -> kappa (0.75 - 0.5) / 0.5
    assert ja["kappa"] == 0.5
    assert judge_agreement([_outcome()]) == {"n": 0}


def test_judge_selection_is_seeded_and_skips_unparsed():
    outs = [_outcome(parsed=i % 3 != 0) for i in range(30)]
    every = judge_selection(outs, None)
    assert every == [i for i in range(30) if i % 3 != 0]
    a, b = judge_selection(outs, 5), judge_selection(outs, 5)
    assert a == b and len(a) == 5 and set(a) <= set(every)


def test_totals_leave_cached_answers_out_of_the_timing():
    outs = [_outcome(seconds=2.0), _outcome(seconds=4.0), _outcome(seconds=0.01, cached=True)]
    outs.append(_outcome("effect", parsed=False, correct=False, seconds=3.0))
    rows = {(r["mode"], r["family"]): r for r in totals(outs)}
    assert rows["tool", "graph"]["median_seconds"] == 3.0
    assert rows["tool", "effect"]["unparseable"] == 1
    assert rows["tool", "all"]["n"] == 4 and rows["tool", "all"]["correct"] == 3
