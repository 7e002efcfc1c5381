"""Causal models stated in words on every server surface: ``POST /v1/stated`` over real
HTTP on loopback (``causalqa serve`` started as a user does), the MCP tool
``answer_stated_question`` (``causalqa mcp`` over stdio), and the page's Story tab in
Debian's chromium — each answering exactly what ``causalqa ask --story … --json`` prints.
The fast tests (a scripted LLM) show a story is read off the model worker."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import urllib.error
import urllib.request

import pytest
from tests.cli.test_cli import run
from tests.conftest import have, requires_llama
from tests.server.conftest import PARTNERS, ROOT, requires_chromium
from tests.server.test_server_browser import open_page, serve
from tests.stated.test_route import CHAIN, COLLIDER_THEN_CHAIN, CONFOUNDED, SMOKING

from causalqa.errors import NotReadyError
from causalqa.server.worker import ModelWorker, QueuedLLM

CLADDER = ROOT.parent / "shared" / "data" / "cladder"
CASES = [
    (CHAIN, SMOKING),
    (CONFOUNDED, SMOKING),
    (COLLIDER_THEN_CHAIN, "C directly causes D."),
    (COLLIDER_THEN_CHAIN, "Is there a confounder of A and C?"),
    (CHAIN, "Will the moon rise earlier?"),  # refused
]


def cladder_case() -> tuple[str, str] | None:
    """A CLadder generator story (background + given_info) and its question."""
    if not (CLADDER / "test-model-meta.json").is_file():
        return None
    from causalqa.bench.stated import load_cladder

    item = next(i for i in load_cladder(CLADDER) if i["query_type"] == "nde")
    return item["story"], item["question"]


def cases() -> list[tuple[str, str]]:
    extra = cladder_case()
    return CASES + ([extra] if extra else [])


def cli_answer(story: str, question: str) -> dict:
    proc = run("ask", "--story", story, question, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def same(a: dict, b: dict) -> bool:
    """The same answer: every field but the time it took."""
    return {k: v for k, v in a.items() if k != "seconds"} == {
        k: v for k, v in b.items() if k != "seconds"
    }


@pytest.fixture(scope="module")
def cli_answers() -> list[dict]:
    return [cli_answer(s, q) for s, q in cases()]


# -- real HTTP on loopback ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    proc, url = serve(tmp_path_factory.mktemp("stated-srv"))
    yield url
    proc.terminate()
    proc.wait(30)


def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        url + "/v1/stated",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.mark.model
@requires_llama
def test_http_answers_exactly_as_the_cli(server, cli_answers):
    for (story, question), expected in zip(cases(), cli_answers):
        status, got = post(server, {"story": story, "question": question})
        assert status == 200, got
        assert same(got, expected), question
    chain, confounded, premise, confounder, refused = cli_answers[:5]
    assert chain["answer"] == "yes" and chain["value"] == pytest.approx(0.18, abs=1e-9)
    assert confounded["value"] == pytest.approx(0.28, abs=1e-9)
    assert premise["answer"] == "yes" and premise["model"]["cpdag"]["directed"] == [
        ["A", "C"],
        ["B", "C"],
        ["C", "D"],
    ]
    assert confounder["answer"] == "no"  # A -> C: no common cause in the only member
    assert refused["answer"] is None and refused["reason"]


@pytest.mark.model
@requires_llama
def test_http_refuses_malformed_requests_with_the_api_error_body(server):
    for body, needle in [
        ({"story": CHAIN}, "question"),
        ({"story": "", "question": SMOKING}, "story"),
        ({"story": CHAIN, "question": SMOKING, "llm": "x"}, "llm"),
        ({"story": CHAIN, "question": "x" * 2001}, "question"),
    ]:
        status, got = post(server, body)
        assert status == 422, got
        assert got["error"]["code"] == "invalid_request" and needle in got["error"]["message"]
    # beyond the reader's limit: the same one-line error as the CLI's
    too_long = "Smoking has a direct effect on cancer. " * 600
    status, got = post(server, {"story": too_long, "question": SMOKING})
    proc = run("ask", "--story", too_long, SMOKING)
    assert status == 400 and proc.returncode == 1
    assert got["error"]["message"] == "the story is longer than 20000 characters"
    assert proc.stderr.startswith(f"error: {got['error']['message']}")


# -- MCP -----------------------------------------------------------------------------------------
@pytest.mark.model
@requires_llama
@pytest.mark.skipif(not have("mcp"), reason="the mcp package is not installed")
def test_the_mcp_tool_answers_exactly_as_the_cli(tmp_path, cli_answers):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "causalqa.cli", "--llm", "local:small", "mcp", "--load",
              f"partners={PARTNERS}", "--data-dir", str(tmp_path)],
        env={
            "PYTHONPATH": str(ROOT / "src"),
            **{k: v for k, v in os.environ.items() if k.startswith(("CAUSALQA_", "XDG_", "HOME"))},
        },
    )  # fmt: skip

    async def session() -> dict:
        async with Client(params) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            answers = [
                await client.call_tool("answer_stated_question", {"story": s, "question": q})
                for s, q in cases()
            ]
            empty = await client.call_tool("answer_stated_question", {"story": "", "question": "q"})
            return {"tools": tools, "answers": answers, "empty": empty}

    got = asyncio.run(asyncio.wait_for(session(), 600))
    schema = got["tools"]["answer_stated_question"].input_schema
    assert sorted(schema["required"]) == ["question", "story"]
    for result, expected in zip(got["answers"], cli_answers):
        assert not result.is_error
        assert same(result.structured_content, expected)
    assert got["empty"].is_error


# -- the page ------------------------------------------------------------------------------------
@pytest.fixture
def page(server):
    with open_page(server, "() => window.causalqa && window.causalqa.cy") as page:
        yield page


def ask_on_the_page(page, story: str | None = None, question: str | None = None) -> str:
    """Send the story box (filled with `story` and `question` when given) and wait for the
    new answer: sending clears the box at once, so the answer shown is this request's."""
    page.click("button[data-tab=story]")
    if story is not None:
        page.fill("#story-text", story)
        page.fill("#story-question", question)
    page.click("#story-send")
    return page.wait_for_selector("#story-answer", timeout=120_000).inner_text()


def drawn(page) -> tuple[list[str], list[list[str]], list[list[str]]]:
    nodes = page.evaluate("window.causalqa.cy.nodes().map(n => n.id())")
    edges = page.evaluate(
        "window.causalqa.cy.edges().map(e => [e.data('source'), e.data('target'), "
        "e.hasClass('undirected') ? 'undirected' : 'directed'])"
    )
    directed = sorted(e[:2] for e in edges if e[2] == "directed")
    undirected = sorted(sorted(e[:2]) for e in edges if e[2] == "undirected")
    return sorted(nodes), directed, undirected


@pytest.mark.model
@requires_llama
@requires_chromium
def test_the_story_tab_shows_the_answer_the_numbers_and_draws_the_graph(page, shots):
    expected = cli_answer(CHAIN, SMOKING)
    assert ask_on_the_page(page, CHAIN, SMOKING) == "yes"
    box = page.locator("#story-result")
    text = box.inner_text()
    assert "0.18" in text and expected["estimand"] in text
    steps = box.locator("ol.derivation li").all_inner_texts()
    assert steps == expected["derivation"]
    numbers = box.locator("table.numbers tr").all_inner_texts()[1:]
    assert len(numbers) == 4  # the story's four stated probabilities, each once
    assert any("P(tar deposit=1 | smoking=0)" in row and "0.1" in row for row in numbers)
    assert any("For smokers, the probability of tar deposit is 70%." in row for row in numbers)
    nodes, directed, undirected = drawn(page)
    assert nodes == ["lung cancer", "smoking", "tar deposit"]
    assert directed == [["smoking", "tar deposit"], ["tar deposit", "lung cancer"]]
    assert undirected == []
    assert page.evaluate("window.causalqa.cy.getElementById('smoking').hasClass('treatment')")
    assert page.evaluate("window.causalqa.cy.getElementById('lung cancer').hasClass('outcome')")
    page.screenshot(path=str(shots / "page-story.png"))

    # A premise of independences: the class's CPDAG, undirected where the class is split.
    chain_premise = (
        "Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
        "relations among these 3 variables are as follows: A correlates with B. A correlates "
        "with C. B correlates with C. However, A and C are independent given B."
    )
    assert ask_on_the_page(page, chain_premise, "A directly causes B.") == "no"
    nodes, directed, undirected = drawn(page)
    assert nodes == ["A", "B", "C"] and directed == []
    assert undirected == [["A", "B"], ["B", "C"]]
    statements = page.locator("#story-result table.numbers tr").all_inner_texts()[1:]
    assert len(statements) == 4 and any("independent" in s for s in statements)

    # The example buttons fill in stories the server answers.
    page.click("button[data-example=numbers]")
    assert ask_on_the_page(page) == "yes"
    assert "gender" in page.inner_text("#story-result")
    page.click("button[data-example=independences]")
    assert ask_on_the_page(page) == "yes"
    assert drawn(page)[1] == [["A", "C"], ["B", "C"], ["C", "D"]]
    page.screenshot(path=str(shots / "page-story-independences.png"))

    # A refusal says why; a request the API refuses shows its message.
    assert ask_on_the_page(page, CHAIN, "Will the moon rise earlier?") == "No answer"
    assert page.inner_text("#story-result .reason")
    page.fill("#story-text", "Smoking has a direct effect on cancer. " * 600)
    page.fill("#story-question", SMOKING)
    page.click("#story-send")
    error = page.wait_for_selector("#story-result p.verdict.no", timeout=60_000)
    assert "longer than 20000 characters" in error.inner_text()
    assert page.problems == []


# -- fast: a story is read off the model worker ---------------------------------------------------
def test_a_story_is_answered_while_the_model_worker_is_busy(scripted):
    client, service, _ = scripted()
    with client:
        service.worker.wait_ready(10)
        release = threading.Event()
        busy = service.worker.submit(lambda _llm: release.wait(30))
        try:
            r = client.post("/v1/stated", json={"story": CHAIN, "question": SMOKING})
            assert r.status_code == 200
            assert r.json()["answer"] == "yes" and not busy.done()
        finally:
            release.set()
        busy.result(10)


def test_queued_llm_calls_run_on_the_worker_and_wait_for_its_model():
    seen = {}

    class Model:
        def complete(self, messages):
            seen["thread"] = threading.current_thread().name
            return messages[0]["content"].upper()

    worker = ModelWorker(Model, queue_size=2, name="m")
    with pytest.raises(NotReadyError):  # not started: the model has not loaded
        QueuedLLM(worker).complete([{"content": "hi"}])
    worker.start()
    try:
        assert worker.wait_ready(10)
        assert QueuedLLM(worker).complete([{"content": "hi"}]) == "HI"
        assert seen["thread"] == "causalqa-model" and worker.done == 1
    finally:
        worker.stop()


TIED = ("det-100", "det-483", "det-474")
"""Generator items whose words left two readings tied when these tests were written."""


def tied_story() -> tuple[str, str]:
    if not (CLADDER / "test-model-meta.json").is_file():
        pytest.skip("the CLadder generator outputs are not in ../shared/data/cladder")
    from causalqa.stated.route import ask_story

    items = {i["id"]: i for i in load_cladder_items() if i["id"] in TIED}
    for item_id in TIED:
        item = items[item_id]
        if "rather than guessed" in (ask_story(item["story"], item["question"]).reason or ""):
            return item["story"], item["question"]
    pytest.skip("the reader no longer leaves these stories tied")


def load_cladder_items() -> list[dict]:
    from causalqa.bench.stated import load_cladder

    return load_cladder(CLADDER)


def test_only_a_request_that_asks_for_it_lets_the_llm_read_a_story(tmp_path):
    from fastapi.testclient import TestClient
    from tests.server.conftest import settings
    from tests.stated.test_llm_read import BAKERY, GOOD, _llm

    from causalqa.server import create_app

    llm = _llm(GOOD)
    question = "Is a burnt loaf more likely than not?"
    app = create_app(settings(tmp_path, llm="scripted", load={}), llm=llm)
    with TestClient(app) as client:
        app.state.service.worker.wait_ready(10)
        plain = client.post("/v1/stated", json={"story": BAKERY, "question": question}).json()
        assert plain["answer"] is None and llm.calls == []
        read = client.post(
            "/v1/stated", json={"story": BAKERY, "question": question, "use_llm": True}
        ).json()
        # P(burnt) = 0.3 * 0.6 + 0.7 * 0.1 = 0.25, from the LLM's reading of the sentences:
        # shown, not answered
        assert read["answer"] is None and round(read["value"], 6) == 0.25
        assert "gives 'no'" in read["reason"]
        assert "llm reading" in read["route"] and llm.calls
