"""The shared core, with a scripted test double in place of a model."""

import json
import math

import pytest

from causalqa.errors import LLMError, LLMOutputError, SchemaError
from causalqa.llm import ResponseCache
from causalqa.llm.testing import ScriptedLLM

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "boolean"}, "n": {"type": "integer", "minimum": 0}},
    "required": ["answer", "n"],
}


def test_plain_text_with_usage_and_seconds():
    llm = ScriptedLLM(["hello there"])
    r = llm.complete("say hello")
    assert r.text == "hello there"
    assert r.data is None
    assert r.usage.prompt_tokens == 2 and r.usage.completion_tokens == 2
    assert r.seconds >= 0 and r.attempts == 1 and not r.cached


def test_schema_output_is_parsed_and_validated():
    llm = ScriptedLLM(['{"answer": true, "n": 3}'])
    assert llm.complete("q", schema=SCHEMA).data == {"answer": True, "n": 3}


def test_invalid_output_is_repaired_once_with_the_error_shown():
    llm = ScriptedLLM(['{"answer": true, "n": -1}', '{"answer": false, "n": 1}'])
    r = llm.complete("q", schema=SCHEMA)
    assert r.data == {"answer": False, "n": 1}
    assert r.attempts == 2
    repair = llm.calls[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"answer": true, "n": -1}'}
    assert "minimum" in repair[-1]["content"] or "-1" in repair[-1]["content"]
    assert r.usage.completion_tokens == 4 + 4  # both attempts are counted


def test_output_that_stays_invalid_raises_a_clear_error():
    llm = ScriptedLLM(["not json", '{"answer": "yes"}'])
    with pytest.raises(LLMOutputError, match="no valid JSON after 2 attempts"):
        llm.complete("q", schema=SCHEMA)


def test_cut_off_output_is_retried_with_more_tokens_then_refused():
    llm = ScriptedLLM(['{"answer": tr', '{"answer": true, "n'], finish_reason="length")
    with pytest.raises(LLMOutputError, match="cut off at max_tokens=20"):
        llm.complete("q", schema=SCHEMA, max_tokens=10)
    assert [c["max_tokens"] for c in llm.calls] == [10, 20]


def test_bad_schema_and_messages_are_clear_errors():
    llm = ScriptedLLM(["x"])
    with pytest.raises(SchemaError):
        llm.complete("q", schema={"type": "strin"})
    with pytest.raises(SchemaError):
        llm.complete("q", schema=["not", "a", "schema"])
    with pytest.raises(LLMError):
        llm.complete("   ")
    with pytest.raises(LLMError, match="unknown role"):
        llm.complete([{"role": "robot", "content": "x"}])
    with pytest.raises(LLMError):
        llm.complete("q", max_tokens=0)
    assert llm.calls == []


def test_cache_hit_returns_identical_result_without_calling_the_model(tmp_path):
    cache = ResponseCache(tmp_path / "r.sqlite")
    first = ScriptedLLM(['{"answer": true, "n": 7}'], cache=cache)
    a = first.complete("q", schema=SCHEMA)
    second = ScriptedLLM([], cache=ResponseCache(tmp_path / "r.sqlite"))  # a new process, say
    b = second.complete("q", schema=SCHEMA)
    assert second.calls == []
    assert b.cached and not a.cached
    assert (b.text, b.data, b.usage, b.seconds) == (a.text, a.data, a.usage, a.seconds)
    # Any change to the request is a different entry.
    with pytest.raises(AssertionError, match="ran out"):
        second.complete("q", schema=SCHEMA, max_tokens=100)


def test_label_logprobs_and_probabilities(tmp_path):
    llm = ScriptedLLM(
        label_scores={"True": math.log(0.7), "False": math.log(0.2)},
        cache=ResponseCache(tmp_path / "c.sqlite"),
    )
    s = llm.label_logprobs("Is it?", ["True", "False"])
    assert s.best == "True"
    assert sum(s.probabilities.values()) == pytest.approx(0.9)
    assert sum(s.normalized.values()) == pytest.approx(1.0)
    again = llm.label_logprobs("Is it?", ["True", "False"])
    assert again.cached and again.logprobs == s.logprobs
    assert len(llm.calls) == 1
    json.dumps(s.to_dict())


@pytest.mark.parametrize("labels", [[], ["a", "a"], ["a", ""]])
def test_bad_labels(labels):
    with pytest.raises(LLMError):
        ScriptedLLM().label_logprobs("p", labels)
