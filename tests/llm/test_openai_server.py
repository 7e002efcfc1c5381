"""The OpenAI-compatible backend against a real server: llama-cpp-python's own
`python -m llama_cpp.server` (through `causalqa.llm.serve`, which loads the CPU kernels
of a GGML_BACKEND_DL build) over the small embedded model, started on 127.0.0.1."""

import json
import os
import re
import subprocess
import sys

import pytest
from tests.conftest import have

from causalqa.llm import get_llm
from causalqa.llm.models import EMBEDDED, ensure_model
from causalqa.llm.serve import start_server

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(
        not (have("llama_cpp") and have("uvicorn") and have("fastapi")),
        reason="llama-cpp-python[server] not installed",
    ),
]

NAME = "qwen-small"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    path = ensure_model(EMBEDDED["local:small"], quiet=True)
    log = tmp_path_factory.mktemp("server") / "server.log"
    # llama_cpp.server through causalqa.llm.serve (causalqa's CPU-kernel choice)
    with start_server(
        path,
        log=log,
        kind="llama_cpp.server",
        name=NAME,
        threads=os.cpu_count() or 1,
        timeout=120,
    ) as srv:
        yield srv


@pytest.fixture(scope="module")
def server(served):
    return served.url


@pytest.fixture
def remote(server):
    return get_llm(f"openai:{server}#{NAME}", cache=False, timeout=120)


def test_plain_completion(remote):
    r = remote.complete("Say hello in one word.", max_tokens=8)
    assert r.text.strip()
    assert r.usage.prompt_tokens > 0 and r.usage.completion_tokens > 0
    assert r.backend == "openai" and r.model == NAME


def test_schema_falls_back_to_json_object_and_validates(remote):
    schema = {
        "type": "object",
        "properties": {
            "capital": {"type": "string", "maxLength": 30},
            "country": {"enum": ["France", "Spain"]},
        },
        "required": ["capital", "country"],
    }
    r = remote.complete("What is the capital of France?", schema=schema, max_tokens=60)
    assert set(r.data) >= {"capital", "country"}
    assert r.data["country"] in ("France", "Spain")
    assert remote._json_schema_ok is False  # this server lacks json_schema: the fallback ran


def test_label_logprobs_via_the_server(remote):
    """llama-cpp-python's server pairs echoed tokens with the wrong position's
    distribution (its first token has a logprob where OpenAI's API gives null), so echo is
    not trusted there: the first-token fallback runs and says it is not exact."""
    msgs = [{"role": "user", "content": "What is the capital of France? Answer with one word."}]
    s = remote.label_logprobs(msgs, ["Paris", "Berlin"])
    assert s.best == "Paris"
    assert not s.exact
    raw = (
        "<|im_start|>user\nWhat is the capital of Germany? Answer with one word.<|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    s = remote.label_logprobs(raw, ["Paris", "Berlin"])
    assert s.best == "Berlin"
    assert remote._echo_ok is False
    assert sum(s.probabilities.values()) <= 1 + 1e-6


def completions_served(log) -> int:
    """How many chat completions the server's access log shows it answered."""
    return len(re.findall(r'"POST /v1/chat/completions HTTP/[\d.]+" 200', log.read_text()))


def test_cli_against_the_server(served, tmp_path):
    """`causalqa llm --json --schema` through the server: the request reaches it (its
    access log shows one more completion, its token counts come back), and the reply is
    the schema's object with the known answer."""
    before = completions_served(served.log)
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {"answer": {"type": "boolean"}},
                "required": ["answer"],
            }
        )
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "causalqa.cli",
            "llm",
            "--json",
            "--schema",
            str(schema),
            "--llm",
            f"openai:{served.url}#{NAME}",
            "Is the sun a star?",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["data"] == {"answer": True}  # the sun is a star; the schema's one key only
    assert out["backend"] == "openai" and out["model"] == NAME and out["seconds"] > 0
    assert out["usage"]["prompt_tokens"] > 0 and out["usage"]["completion_tokens"] > 0
    assert not out["cached"]
    assert completions_served(served.log) >= before + 1


def test_concurrent_calls_keep_input_order(server):
    """Through `run_ordered` at concurrency 4 (this server takes one at a time, the rest
    wait in its queue), each answer comes back at its own prompt's position.

    The texts are not compared with a one-at-a-time run: llama.cpp reuses the longest
    cached prompt prefix, so the queue's order changes how much of a prompt is re-evaluated
    and, through floating point, a greedy token now and then ('123' once, '1, 2, 3' in
    another run). Each answer is checked against its own prompt instead."""
    from causalqa.llm.concurrent import run_ordered

    llm = get_llm(f"openai:{server}#{NAME}", cache=False, timeout=300)
    counts = (3, 4, 5, 6)
    # counts interleaved with open prompts: a count answer at the wrong place shows
    prompts = []
    for n, subject in zip(counts, ("rust", "fog", "acne", "hail")):
        prompts += [f"Count from 1 to {n}, digits only.", f"Name one cause of {subject}."]

    def ask(p):
        return llm.complete(p, max_tokens=16).text

    answers = run_ordered(ask, prompts, concurrency=4)
    assert len(answers) == len(prompts) and all(a.strip() for a in answers)
    for n, text in zip(counts, answers[::2]):
        assert "".join(re.findall(r"\d", text)) == "".join(map(str, range(1, n + 1))), (n, text)
