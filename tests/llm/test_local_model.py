"""Integration tests on the real embedded model (local:small, Qwen2.5-Coder-0.5B-Instruct).

They assert behaviour a broken layer would fail: outputs that parse and validate, a
label ranking that is right, a prefix that is really reused, errors that are clear."""

import json
import math
import time

import jsonschema
import pytest
from tests.conftest import requires_llama

from causalqa.errors import LLMError, LLMOutputError, LLMTimeoutError, ModelFileError
from causalqa.llm import ResponseCache, get_llm

pytestmark = [pytest.mark.model, requires_llama]

VARS = ["Price", "Discount (%)", "Revenue", "Churn", "Tech Support", "Café visits"]

CASES = [
    ("Answer yes or no: is fire hot?", {"enum": ["yes", "no"]}),
    ("Is water wet?", {"type": "boolean"}),
    ("How many legs does a spider have?", {"type": "integer", "minimum": 0}),
    ("Give pi to 3 decimals.", {"type": "number"}),
    (
        "Write a two-line poem about rain, lines separated by a newline.",
        {
            "type": "object",
            "properties": {"poem": {"type": "string", "maxLength": 300}},
            "required": ["poem"],
        },
    ),
    (
        'Quote this exactly inside a string: He said "stop" and left.',
        {"type": "object", "properties": {"quote": {"type": "string"}}, "required": ["quote"]},
    ),
    (
        "Write the German word for 'cheers' and the French word for 'coffee'.",
        {
            "type": "object",
            "properties": {"german": {"type": "string"}, "french": {"type": "string"}},
            "required": ["german", "french"],
        },
    ),
    (
        "Write a Windows path to a file named notes.txt in C:\\Users\\ana.",
        {
            "type": "object",
            "properties": {"path": {"type": "string", "maxLength": 80}},
            "required": ["path"],
        },
    ),
    (
        "Which variable is the outcome in: "
        "'Does a change in Discount (%) lead to a change in Revenue?'",
        {"type": "object", "properties": {"outcome": {"enum": VARS}}, "required": ["outcome"]},
    ),
    (
        "List three colours.",
        {
            "type": "array",
            "items": {"type": "string", "maxLength": 20},
            "minItems": 3,
            "maxItems": 3,
        },
    ),
    ("List the primes below 10.", {"type": "array", "items": {"type": "integer"}}),
    (
        "Plan: find the parents of Revenue, then the children of Price.",
        {
            "type": "object",
            "properties": {
                "steps": {
                    "type": "array",
                    "maxItems": 4,
                    "items": {
                        "type": "object",
                        "properties": {
                            "function": {"enum": ["parents", "children", "ancestors"]},
                            "variable": {"enum": VARS},
                        },
                        "required": ["function", "variable"],
                    },
                }
            },
            "required": ["steps"],
        },
    ),
    (
        "Describe a person named Zoë, aged 31, who likes café visits.",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 30},
                "age": {"type": "integer"},
                "likes": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": 30},
                    "maxItems": 3,
                },
            },
            "required": ["name", "age", "likes"],
        },
    ),
    (
        "Give a JSON object with a nested address (city and zip) for Paris.",
        {
            "type": "object",
            "properties": {
                "address": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string", "maxLength": 40},
                        "zip": {"type": "string", "maxLength": 10},
                    },
                    "required": ["city", "zip"],
                }
            },
            "required": ["address"],
        },
    ),
    (
        "Does smoking cause cancer? Give answer and confidence between 0 and 1.",
        {
            "type": "object",
            "properties": {
                "answer": {"type": "boolean"},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            },
            "required": ["answer", "confidence"],
        },
    ),
    ("Return null.", {"type": "null"}),
    (
        "Name a fruit or give its count.",
        {"anyOf": [{"type": "string", "maxLength": 20}, {"type": "integer"}]},
    ),
    (
        "Optional fields: give only a title for a book about causality.",
        {
            "type": "object",
            "properties": {
                "title": {"type": "string", "maxLength": 60},
                "year": {"type": "integer"},
                "isbn": {"type": "string", "maxLength": 20},
            },
            "required": ["title"],
        },
    ),
    (
        "Write a tab-separated row: a, b, c.",
        {
            "type": "object",
            "properties": {"row": {"type": "string", "maxLength": 40}},
            "required": ["row"],
        },
    ),
    (
        "Translate 'thank you' to Japanese and Chinese.",
        {
            "type": "object",
            "properties": {
                "ja": {"type": "string", "maxLength": 20},
                "zh": {"type": "string", "maxLength": 20},
            },
            "required": ["ja", "zh"],
        },
    ),
    (
        "Classify the question 'What are the ancestors of Churn?' as graph or effect.",
        {
            "type": "object",
            "properties": {
                "kind": {"const": "classification"},
                "label": {"enum": ["graph", "effect"]},
            },
            "required": ["kind", "label"],
        },
    ),
    (
        "Give a tree: root 'A' with children 'B' and 'C'.",
        {
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "maxLength": 5},
                        "children": {
                            "type": "array",
                            "maxItems": 3,
                            "items": {"$ref": "#/$defs/node"},
                        },
                    },
                    "required": ["name"],
                }
            },
            "$ref": "#/$defs/node",
        },
    ),
]


@pytest.fixture(scope="module")
def small():
    llm = get_llm("local:small", cache=False, quiet=True, timeout=120)
    yield llm
    llm.close()


@pytest.mark.parametrize(
    ("prompt", "schema"), CASES, ids=[f"case{i:02d}" for i in range(len(CASES))]
)
def test_constrained_output_parses_and_validates(small, prompt, schema):
    r = small.complete(prompt, schema=schema, max_tokens=200)
    # Valid JSON by json.loads (no raw control characters), valid under the schema by
    # jsonschema itself, not only by the backend's own check.
    assert json.loads(r.text) == r.data
    jsonschema.Draft202012Validator(schema).validate(r.data)
    assert r.usage.prompt_tokens > 0 and r.usage.completion_tokens > 0
    assert r.seconds > 0


@pytest.mark.parametrize("case", [2, 4, 6, len(CASES) - 1])
def test_greedy_first_grammar_gives_the_tokens_of_the_full_grammar(small, case, monkeypatch):
    """Checking the model's best token against the grammar first (the default) must write
    exactly what constraining the whole vocabulary at every step writes."""
    from causalqa.llm import local

    prompt, schema = CASES[case]
    messages = [{"role": "user", "content": prompt}]

    def run(first: bool) -> str:
        monkeypatch.setattr(local, "GREEDY_GRAMMAR_FIRST", first)
        return small._generate(
            messages, schema=schema, max_tokens=200, temperature=0.0, seed=0
        ).text

    run(False)  # the prompt's prefix state as the later calls will find it
    full = run(False)
    assert run(True) == full
    json.loads(full)


def test_enum_answers_are_sensible(small):
    r = small.complete("Is fire hot? Answer yes or no.", schema={"enum": ["yes", "no"]})
    assert r.data == "yes"


def test_label_logprobs_ranks_an_obvious_case(small):
    def ask(country):
        msgs = [
            {"role": "user", "content": f"What is the capital of {country}? Answer with one word."}
        ]
        return small.label_logprobs(msgs, ["Paris", "Berlin"])

    s = ask("France")
    assert s.best == "Paris" and s.exact
    assert 0 < sum(s.probabilities.values()) <= 1 + 1e-6
    assert all(v < 0 for v in s.logprobs.values())
    assert ask("Germany").best == "Berlin"


def test_label_logprobs_match_a_full_forward_pass(small):
    """Teacher forcing gives the same numbers as llama.cpp scoring prompt+label in one
    batch with logits for every position (up to float noise between batch shapes)."""
    import llama_cpp
    import numpy as np

    msgs = [{"role": "user", "content": "Is this relation causal? smoking -> lung cancer"}]
    labels = ["causal", "non-causal", " maybe so"]
    ours = small.label_logprobs(msgs, labels).logprobs
    ref = llama_cpp.Llama(
        model_path=str(small.model_path), n_ctx=1024, logits_all=True, verbose=False
    )
    try:
        text = small.render(msgs)
        n_prompt = len(ref.tokenize(text.encode(), add_bos=False, special=True))
        for label in labels:
            full = ref.tokenize((text + label).encode(), add_bos=False, special=True)
            ref.reset()
            ref.eval(full)
            scores = np.asarray(ref.scores[: len(full)], dtype=np.float64)
            scores -= scores.max(axis=1, keepdims=True)
            logsm = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
            expected = sum(logsm[j - 1][full[j]] for j in range(n_prompt, len(full)))
            assert ours[label] == pytest.approx(expected, abs=0.3), label
    finally:
        ref.close()
    assert sum(math.exp(v) for v in ours.values()) <= 1 + 1e-6


def test_label_logprobs_on_a_raw_prompt(small):
    s = small.label_logprobs("The opposite of hot is", [" cold", " banana"])
    assert s.best == " cold"


def test_complete_after_label_scoring_is_unaffected(small):
    msgs = [{"role": "user", "content": "Is ice cold? Answer True or False."}]
    small.llama.reset()
    alone = small.complete(msgs, max_tokens=6)
    small.label_logprobs(msgs, ["True", "False"])
    after = small.complete(msgs, max_tokens=6)
    assert after.text == alone.text


def test_truncated_output_is_an_error_not_half_json(small):
    schema = {"type": "object", "properties": {"story": {"type": "string"}}, "required": ["story"]}
    with pytest.raises(LLMOutputError, match="cut off"):
        small.complete("Write a long story about a dragon.", schema=schema, max_tokens=4)


def test_prefix_is_reused(small):
    prefix = "Background facts: " + " ".join(
        f"Fact {i}: item {i} relates to item {i + 1}." for i in range(40)
    )
    m1 = [{"role": "system", "content": prefix}, {"role": "user", "content": "Say A."}]
    m2 = [{"role": "system", "content": prefix}, {"role": "user", "content": "Say B."}]
    small.llama.reset()
    t0 = time.perf_counter()
    small.complete(m1, max_tokens=2)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    small.complete(m2, max_tokens=2)
    warm = time.perf_counter() - t0
    assert warm < cold * 0.6, (cold, warm)


def test_cache_hit_skips_the_model(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    llm = get_llm("local:small", cache=cache, quiet=True)
    a = llm.complete("Name one planet.", schema={"type": "string", "maxLength": 20})
    llm.close()
    llm._llama = None
    # A model object whose loader would fail proves the hit needs no model.
    llm._load = lambda: (_ for _ in ()).throw(AssertionError("model was called"))
    b = llm.complete("Name one planet.", schema={"type": "string", "maxLength": 20})
    assert b.cached and (b.text, b.data, b.usage) == (a.text, a.data, a.usage)


def test_timeout_is_enforced(small):
    old = small.timeout
    small.timeout = 0.3
    try:
        with pytest.raises(LLMTimeoutError):
            small.complete("Count from 1 to 500, separated by spaces.", max_tokens=800)
    finally:
        small.timeout = old


def test_context_overflow_is_a_clear_error(small):
    with pytest.raises(LLMError, match="context window"):
        small.complete("word " * 9000, max_tokens=10)


def test_truncated_gguf_file_is_a_clear_error(tmp_path, small):
    src = small.model_path
    bad = tmp_path / "cut.gguf"
    with src.open("rb") as f:
        bad.write_bytes(f.read(5_000_000))
    llm = get_llm(f"local:{bad}", cache=False)
    with pytest.raises(ModelFileError, match="could not load"):
        llm.complete("hi")
    assert bad.stat().st_size == 5_000_000  # the user's file is left as it was


def test_thread_count_from_the_environment(small, monkeypatch):
    from causalqa.llm.local import LocalLLM

    monkeypatch.setenv("CAUSALQA_THREADS", "1")
    assert LocalLLM(small.model_path).n_threads == 1
    assert LocalLLM(small.model_path, n_threads=3).n_threads == 3  # an explicit value wins
    monkeypatch.setenv("CAUSALQA_THREADS", "many")
    assert LocalLLM(small.model_path).n_threads >= 1  # not a number: the core count


def test_chat_prefix_state_is_saved_and_loaded_by_the_next_process(small, tmp_path):
    prefix = "Reference list: " + " ".join(f"Item {i} is colour {i % 7}." for i in range(80))
    chat = [
        {"role": "system", "content": prefix},
        {"role": "user", "content": "What colour is item 9?"},
        {"role": "assistant", "content": "Colour 2."},
    ]
    ask = [*chat, {"role": "user", "content": "And item 15? Reply with the colour only."}]
    plain = small.complete(ask, max_tokens=6).text
    plain_scores = small.label_logprobs(ask, ["Colour 1", "Colour 3"]).logprobs

    first = get_llm("local:small", cache=False, quiet=True, timeout=120)
    first.prefix_state_dir = tmp_path
    assert first.complete(ask, max_tokens=6).text == plain
    assert first.prefix_state_events == ["saved"]
    first.close()
    (saved,) = tmp_path.glob("*.npz")

    second = get_llm("local:small", cache=False, quiet=True, timeout=120)  # a new process
    second.prefix_state_dir = tmp_path
    assert second.complete(ask, max_tokens=6).text == plain
    scores = second.label_logprobs(ask, ["Colour 1", "Colour 3"]).logprobs
    assert second.prefix_state_events == ["loaded", "kept"]
    # The same numbers up to llama.cpp's batch-split float noise (see the forward-pass test).
    assert max(scores, key=scores.get) == max(plain_scores, key=plain_scores.get)
    for label, lp in plain_scores.items():
        assert scores[label] == pytest.approx(lp, abs=0.1), label
    # The next turn of the conversation extends the cache in memory; nothing new is saved.
    turn = [
        *ask,
        {"role": "assistant", "content": "Colour 1."},
        {"role": "user", "content": "Item 3?"},
    ]
    second.complete(turn, max_tokens=4)
    assert second.prefix_state_events == ["loaded", "kept", "extended"]
    assert list(tmp_path.glob("*.npz")) == [saved]
    # A damaged state file is ours to rebuild, with a warning, never an error.
    second.close()
    saved.write_bytes(b"not a state")
    third = get_llm("local:small", cache=False, quiet=True, timeout=120)
    third.prefix_state_dir = tmp_path
    with pytest.warns(RuntimeWarning, match="unreadable"):
        assert third.complete(ask, max_tokens=6).text == plain
    assert third.prefix_state_events == ["saved"]
    third.close()
    # A state file written by another llama.cpp version (or model, or context size) is stale.
    import numpy as np

    (path,) = tmp_path.glob("*.npz")
    with np.load(path) as f:
        arrays = dict(f)
    arrays["meta"] = np.asarray(str(arrays["meta"]).replace('"llama_cpp": "', '"llama_cpp": "0.0-'))
    np.savez(path, **arrays)
    fourth = get_llm("local:small", cache=False, quiet=True, timeout=120)
    fourth.prefix_state_dir = tmp_path
    with pytest.warns(RuntimeWarning, match="stale"):
        assert fourth.complete(ask, max_tokens=6).text == plain
    assert fourth.prefix_state_events == ["saved"]
    fourth.close()


def test_a_warmed_prefix_is_loaded_by_the_next_process_and_a_chat_goes_on_from_it(small, tmp_path):
    prefix = [
        {
            "role": "system",
            "content": "Reference list: "
            + " ".join(f"Item {i} is colour {i % 7}." for i in range(80)),
        },
        {"role": "user", "content": "What colour is item 9?"},
        {"role": "assistant", "content": "Colour 2."},
    ]
    warmer = get_llm("local:small", cache=False, quiet=True, timeout=120)
    warmer.prefix_state_dir = tmp_path
    assert warmer.warm_prefix(prefix) == "saved"
    assert warmer.warm_prefix(prefix) == "loaded"  # again: idempotent, nothing new written
    warmer.close()
    (saved,) = tmp_path.glob("*.npz")

    ask = [*prefix, {"role": "user", "content": "And item 15? Reply with the colour only."}]
    plain = small.complete(ask, max_tokens=6).text
    # A chat whose history goes on after the warmed prefix starts from its state.
    chat = [
        *prefix,
        {"role": "user", "content": "And item 4?"},
        {"role": "assistant", "content": "Colour 4."},
        {"role": "user", "content": "And item 15? Reply with the colour only."},
    ]
    plain_chat = small.complete(chat, max_tokens=6).text
    later = get_llm("local:small", cache=False, quiet=True, timeout=120)  # a new process
    later.prefix_state_dir = tmp_path
    assert later.complete(chat, max_tokens=6).text == plain_chat
    assert later.prefix_state_events == ["loaded and extended"]
    assert list(tmp_path.glob("*.npz")) == [saved]  # a chat's own history is not saved
    assert later.complete(ask, max_tokens=6).text == plain
    later.close()
    # Too short to be worth saving: said so, nothing written.
    short = get_llm("local:small", cache=False, quiet=True, timeout=120)
    short.prefix_state_dir = tmp_path
    assert short.warm_prefix([{"role": "system", "content": "Be brief."}]) == "not kept"
    assert list(tmp_path.glob("*.npz")) == [saved]
    short.close()


def test_after_idle_time_the_threads_follow_the_idle_cores(small, monkeypatch):
    from causalqa.llm import local
    from causalqa.llm.threads import ThreadChoice

    llm = get_llm("local:small", cache=False, quiet=True, timeout=120)
    monkeypatch.setattr(llm, "_thread_choice", ThreadChoice(2, 2, 0.0, "idle cores"))
    baseline = llm.complete("Say OK.", max_tokens=3).text
    monkeypatch.setattr(local, "choose_threads", lambda: ThreadChoice(1, 2, 1.0, "idle cores"))
    llm.complete("Say OK.", max_tokens=3)  # just used: not measured again
    assert llm.n_threads == 2 and llm.llama.n_threads == 2
    llm._last_request -= local.IDLE_RECHECK_SECONDS  # as if idle since
    assert llm.complete("Say OK.", max_tokens=3).text == baseline
    assert llm.n_threads == 1 and llm.llama.n_threads == 1
    # A count fixed by the caller (or CAUSALQA_THREADS) is never changed.
    fixed = local.LocalLLM(small.model_path, n_threads=2)
    fixed.complete("Say OK.", max_tokens=3)
    fixed._last_request -= local.IDLE_RECHECK_SECONDS
    fixed.complete("Say OK.", max_tokens=3)
    assert fixed.n_threads == 2 and fixed.llama.n_threads == 2
    llm.close()
    fixed.close()
