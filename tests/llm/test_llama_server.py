"""Concurrent calls against llama.cpp's own server with 4 slots (`llama-server
--parallel 4`), started by the test over the small embedded model on 127.0.0.1.

The binary is optional (``bash scripts/build-llama-server.sh``); without it these skip.
How much faster 4 in flight are than 1 is measured by ``causalqa bench scale``, not here.
"""

import json
import urllib.request

import pytest
from tests.conftest import requires_llama

from causalqa.llm import get_llm
from causalqa.llm.concurrent import run_ordered
from causalqa.llm.models import EMBEDDED, ensure_model
from causalqa.llm.serve import llama_server_binary, start_server

pytestmark = [
    pytest.mark.server,
    requires_llama,
    pytest.mark.skipif(
        llama_server_binary() is None,
        reason="llama.cpp's llama-server is not built (bash scripts/build-llama-server.sh)",
    ),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    model = ensure_model(EMBEDDED["local:small"], quiet=True)
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with start_server(model, log=log, slots=4, threads=1, kind="llama-server") as srv:
        yield srv


def test_four_slots_answer_every_request_in_input_order(server):
    """Four calls in flight come back in input order, each the answer to its own prompt.

    Not bit-for-bit the answers of one call at a time: llama.cpp decodes the slots in one
    batch, and its float results depend on the batch's shape, so a greedy reply can take
    another word where two tokens are nearly tied (llama.cpp issues #6950, #7052;
    ``causalqa bench scale`` counts how many differ). So each prompt here has exactly one
    right answer, which tells whose answer came back where."""
    with urllib.request.urlopen(server.url.removesuffix("/v1") + "/props", timeout=10) as r:
        assert json.load(r)["total_slots"] == 4
    llm = get_llm(server.spec, cache=False, timeout=600)
    counts = [5, 2, 7, 3, 6, 4, 8, 2]
    prompts = [f"Count from 1 to {n}, digits only." for n in counts]
    expected = ["".join(str(i) for i in range(1, n + 1)) for n in counts]

    def ask(p):
        return "".join(c for c in llm.complete(p, max_tokens=24).text if c.isdigit())

    assert run_ordered(ask, prompts, concurrency=1) == expected
    assert run_ordered(ask, prompts, concurrency=4) == expected
