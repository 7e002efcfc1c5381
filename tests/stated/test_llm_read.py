"""The LLM reading of a story the rules cannot read: a scripted LLM (a test double) plays
the model, so these tests check what is done with its answers — the checks that turn a
misreading into a refusal, the graph turning a swapped statement round, the question put
back into a form the rules read, and that a reading by the LLM is shown (value, model,
derivation) but never answered from — not the model's skill (`bench stated` measures
that)."""

from __future__ import annotations

import json

import pytest

from causalqa.llm.testing import ScriptedLLM
from causalqa.stated.answer import answer_story
from causalqa.stated.llm_read import read_story_with_llm
from causalqa.stated.refusal import StoryRefusal

# Rules cannot read it ("Burnt: hot batches 60 percent, the rest 10 percent."). Oven heat
# -> burnt loaf. P(hot) = 0.3; P(burnt | hot) = 0.6, P(burnt | not hot) = 0.1:
# P(burnt) = 0.3*0.6 + 0.7*0.1 = 0.25; ATE = 0.5
BAKERY = (
    "Bakery notes, week 12. Ovens running hot are behind most burnt loaves. Roughly 3 of "
    "every 10 batches go into a hot oven. Burnt: hot batches 60 percent, the rest 10 percent."
)
GOOD = {
    "Bakery notes, week 12.": {"links": []},
    "Ovens running hot are behind most burnt loaves.": {
        "links": [{"cause": "ovens running hot", "effect": "burnt loaves"}]
    },
    "Roughly 3 of every 10 batches go into a hot oven.": {
        "links": [],
        "number_1": {"event": "hot oven", "group": ""},
    },
    "Burnt: hot batches 60 percent, the rest 10 percent.": {
        "links": [],
        "number_1": {"event": "burnt", "group": "hot batches"},
        "number_2": {"event": "burnt", "group": "the rest"},
    },
}


def shown(got) -> tuple[str, float]:
    """The answer the LLM's reading gives, which is shown with its value but not given."""
    assert got.answer is None and "not given" in got.reason, got.reason
    return got.reason.split("gives '", 1)[1].split("'", 1)[0], round(got.value, 6)


def _llm(readings: dict[str, dict], question: dict | None = None) -> ScriptedLLM:
    def reply(messages) -> str:
        text = messages[-1]["content"]
        if "\nQuestion:\n" in text:
            return json.dumps(question) if question is not None else "no reading"
        if "\nSentence:\n" not in text:
            return "no reading"  # asked again after a reply that was not valid
        sentence = text.split("\nSentence:\n", 1)[1].split("\n\n", 1)[0]
        return json.dumps(readings[sentence])

    return ScriptedLLM(reply)


def test_the_rules_alone_refuse_the_story():
    got = answer_story(BAKERY, "Is a burnt loaf more likely than not?")
    assert got.answer is None


def test_a_story_the_rules_cannot_read_is_read_by_the_llm_computed_and_shown_not_answered():
    llm = _llm(GOOD)
    got = answer_story(BAKERY, "Is a burnt loaf more likely than not?", llm=llm)
    assert shown(got) == ("no", 0.25)
    assert "llm reading" in got.route
    effect = answer_story(BAKERY, "Does a hot oven increase the chance of a burnt loaf?", llm=llm)
    assert shown(effect) == ("yes", 0.5)


def test_a_story_the_rules_read_never_calls_the_llm():
    llm = _llm({})
    story = (
        "Rain has a direct effect on traffic. The probability of rain is 30%. For rainy days, "
        "the probability of traffic is 80%. For dry days, the probability of traffic is 20%."
    )
    got = answer_story(story, "Is traffic more likely than not?", llm=llm)
    assert got.answer == "no" and llm.calls == []


def test_a_word_the_story_does_not_use_is_a_refusal_naming_the_sentence():
    # (read by the LLM alone: with the rules first, they would read this sentence)
    readings = dict(GOOD)
    readings["Burnt: hot batches 60 percent, the rest 10 percent."] = {
        "links": [],
        "number_1": {"event": "burnt", "group": "overheated batches"},
        "number_2": {"event": "burnt", "group": "the rest"},
    }
    with pytest.raises(StoryRefusal) as refused:
        read_story_with_llm(BAKERY, _llm(readings))
    assert "overheat" in str(refused.value) and "Burnt: hot batches" in str(refused.value)


def test_a_group_handed_to_the_other_number_is_a_refusal():
    readings = dict(GOOD)
    readings["Burnt: hot batches 60 percent, the rest 10 percent."] = {
        "links": [],
        "number_1": {"event": "burnt", "group": "the rest"},
        "number_2": {"event": "burnt", "group": "hot batches"},
    }
    with pytest.raises(StoryRefusal, match="next to another number"):
        read_story_with_llm(BAKERY, _llm(readings))


def test_a_sentence_the_rules_read_keeps_their_reading():
    # the LLM's wrong group for the list is never asked for: the rules read that sentence
    readings = dict(GOOD)
    readings["Burnt: hot batches 60 percent, the rest 10 percent."] = {
        "links": [],
        "number_1": {"event": "burnt", "group": "the rest"},
        "number_2": {"event": "burnt", "group": "hot batches"},
    }
    got = answer_story(BAKERY, "Is a burnt loaf more likely than not?", llm=_llm(readings))
    assert shown(got) == ("no", 0.25)


def test_a_cause_read_as_the_event_is_turned_round_by_the_graph():
    # "event: hot batches, group: burnt" is P(burnt | hot) said backwards; the rules
    # cannot read this wording of the list, so the LLM's reading is used
    listed = "Of the hot batches 60 percent come out burnt, which drops to 10 percent for the rest."
    story = BAKERY.replace("Burnt: hot batches 60 percent, the rest 10 percent.", listed)
    readings = {k: v for k, v in GOOD.items() if not k.startswith("Burnt:")}
    readings[listed] = {
        "links": [],
        "number_1": {"event": "hot batches", "group": "burnt"},
        "number_2": {"event": "burnt", "group": "the rest"},
    }
    got = answer_story(story, "Is a burnt loaf more likely than not?", llm=_llm(readings))
    assert shown(got) == ("no", 0.25)


def test_a_question_the_rules_cannot_read_is_put_into_a_form_they_do():
    question = "If the bakery ran every batch in a hot oven, would burnt loaves become more common?"
    assert answer_story(BAKERY, question, llm=_llm(GOOD)).answer is None  # no question reply
    got = answer_story(BAKERY, question, llm=_llm(GOOD, _question("more")))
    # "Does a hot oven increase the chance of burnt loaves?": the effect is +0.5
    assert shown(got) == ("yes", 0.5)
    assert any(step.startswith("llm question") for step in got.route)


def _question(direction: str) -> dict:
    return {
        "kind": "effect of doing something on an outcome",
        "direction": direction,
        "outcome": "burnt loaves",
        "cause": "a hot oven",
        **{k: "" for k in ("group", "other_group", "middle", "selected")},
    }


def test_the_direction_comes_from_the_questions_own_word():
    # the LLM says "less", the question says "more": the question's word decides
    question = "If the bakery ran every batch in a hot oven, would burnt loaves become more common?"
    got = answer_story(BAKERY, question, llm=_llm(GOOD, _question("less")))
    assert shown(got) == ("yes", 0.5)


def test_a_question_whose_negation_the_reading_drops_is_refused():
    # "kept out of a hot oven" read as "a hot oven" would answer the opposite question
    got = answer_story(
        BAKERY,
        "Would fewer loaves burn if we kept every batch out of a hot oven?",
        llm=_llm(GOOD, _question("less")),
    )
    assert got.answer is None and "drops its 'out'" in got.reason


def test_a_probability_over_100_percent_is_refused_on_the_llm_path_too():
    # the LLM path skips counts ("week 12"), never a percentage over 100
    listed = "Burnt: hot batches 130 percent, the rest 10 percent."
    story = BAKERY.replace("Burnt: hot batches 60 percent, the rest 10 percent.", listed)
    readings = dict(GOOD)
    readings[listed] = GOOD["Burnt: hot batches 60 percent, the rest 10 percent."]
    got = answer_story(story, "Is a burnt loaf more likely than not?", llm=_llm(readings))
    assert got.answer is None
    assert "130 percent is not a probability" in got.reason and listed in got.reason


def test_a_question_part_that_names_two_variables_is_refused():
    question = "If the bakery ran every batch in a hot oven, would burnt loaves become more common?"
    reading = _question("more")
    reading["outcome"] = "burnt loaves in a hot oven"
    got = answer_story(BAKERY, question, llm=_llm(GOOD, reading))
    assert got.answer is None and "two variables in one part" in got.reason


def test_bench_stated_counts_the_llm_reading_apart_on_the_plain_sets(tmp_path):
    from pathlib import Path

    from causalqa.bench.stated import run_stated_bench

    cladder = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cladder"
    if not (cladder / "test-model-meta.json").is_file():
        pytest.skip("the CLadder generator outputs are not in ../shared/data/cladder")
    data = tmp_path / "data"
    data.mkdir()
    (data / "test-model-meta.json").write_bytes((cladder / "test-model-meta.json").read_bytes())
    for kind in ("easy", "hard", "anti", "non", "det"):
        items = json.loads((cladder / f"test-generate-{kind}.json").read_text())
        (data / f"test-generate-{kind}.json").write_text(json.dumps(items[:2]))
    plain = tmp_path / "plain-bakery.jsonl"
    item = {"id": "b1", "story": BAKERY, "question": "Is a burnt loaf more likely than not?"}
    plain.write_text(json.dumps({**item, "answer": "no", "query_type": "marginal"}) + "\n")
    report = run_stated_bench(
        data, tmp_path / "out", rewordings=[plain], cold=0, plot=False, reading_llm=_llm(GOOD)
    )
    part = report["rewordings"][str(plain)]
    assert (part["right"], part["refused"]) == (0, 1)  # the rules cannot read it
    with_llm = part["with_llm_reading"]
    # read by the LLM, shown, not answered: still a refusal, counted as gone to the LLM
    assert (with_llm["refused"], with_llm["read_by_llm"]) == (1, 1)
    assert "with scripted reading what the rules cannot" in report["markdown"]


def test_the_second_reading_asks_the_llm_no_sentence_twice():
    # the first reading (rules first) fails at the links sentence; the second (the LLM's of
    # every sentence) fails there too, with the answers the first already had
    readings = dict(GOOD)
    readings["Ovens running hot are behind most burnt loaves."] = {
        "links": [{"cause": "overheated ovens", "effect": "burnt loaves"}]
    }
    llm = _llm(readings)
    got = answer_story(BAKERY, "Is a burnt loaf more likely than not?", llm=llm)
    assert got.answer is None and "overheat" in got.reason
    asked = [c["messages"][-1]["content"].split("\nSentence:\n", 1)[1] for c in llm.calls]
    assert len(asked) == len(set(asked)) == 2
