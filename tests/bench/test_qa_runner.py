from causalqa.bench import qa_data
from causalqa.bench.qa import Outcome, result_from_text, summarize


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
