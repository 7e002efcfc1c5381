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


def test_four_slots_answer_like_one_at_a_time_in_input_order(server):
    with urllib.request.urlopen(server.url.removesuffix("/v1") + "/props", timeout=10) as r:
        assert json.load(r)["total_slots"] == 4
    llm = get_llm(server.spec, cache=False, timeout=600)
    prompts = [f"Name one cause of {x}. One short sentence." for x in ("rust", "fog", "acne")]
    prompts += [f"Count from 1 to {n}, digits only." for n in (3, 4, 5, 6, 7)]

    def ask(p):
        return llm.complete(p, max_tokens=16).text

    one_at_a_time = run_ordered(ask, prompts, concurrency=1)
    assert all(one_at_a_time)
    assert run_ordered(ask, prompts, concurrency=4) == one_at_a_time
