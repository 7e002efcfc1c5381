"""`bench qa` (paper templates and --open) with several questions in flight: the report is
the one a one-at-a-time run writes (timings aside), and a busy server is waited for."""

import hashlib

import pytest
from tests.llm.busy_llm import BusyLLM
from tests.llm.fake_openai import FakeServer

from causalqa.bench import qa as bench_qa
from causalqa.bench import qa_open
from causalqa.llm import get_llm

TIMINGS = {"seconds", "median_seconds", "p90_seconds", "median_s"}


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def _reply(messages) -> str:
    """A fixed reply per prompt, whatever order the prompts come in."""
    text = messages[-1]["content"]
    h = _digest(text)
    if "personal AI assistant" in text and "classify" in text.lower():
        return '{"class": "%s"}' % ("graph" if h % 3 else "te")
    if "Submission" in text or "submission" in text:
        return "Reasoning.\n" + ("Y" if h % 2 else "N")
    return '{"answer": "%s"}' % ("yes" if h % 2 else f"n{h % 10} and 0.5")


class SlowScripted(BusyLLM):
    """Fixed replies per prompt, after a delay per prompt; counts the calls in flight."""

    def __init__(self, busy: int = 0):
        super().__init__(_reply, busy=busy)


def _untimed(obj):
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if k not in TIMINGS}
    if isinstance(obj, list):
        return [_untimed(v) for v in obj]
    return obj


def _comparable(report):
    skip = {"environment", "concurrency", "markdown", "load_average"}
    return _untimed({k: v for k, v in report.items() if k not in skip})


def _qa_run(monkeypatch, tmp_path, concurrency, llm):
    monkeypatch.setattr(bench_qa, "get_llm", lambda spec, **kw: llm)
    return bench_qa.run_qa_bench(
        "scripted",
        quick=True,
        modes=("tool", "context"),
        judge=True,
        cache=False,
        out_dir=tmp_path / f"c{concurrency}",
        concurrency=concurrency,
    )


def test_bench_qa_at_concurrency_4_writes_the_report_of_concurrency_1(monkeypatch, tmp_path):
    one = _qa_run(monkeypatch, tmp_path, 1, SlowScripted())
    llm = SlowScripted(busy=3)  # and the first three calls are answered 429
    four = _qa_run(monkeypatch, tmp_path, 4, llm)
    assert llm.most > 1 and llm.busy == 0  # calls did overlap; the 429s were met
    assert one["concurrency"] == 1 and four["concurrency"] == 4
    assert len(one["outcomes"]) > 20
    assert {o["mode"] for o in one["outcomes"]} == {"tool", "context"}
    assert any(o["judge"] is not None for o in one["outcomes"])  # the judge ran too
    assert _comparable(four) == _comparable(one)


def test_bench_qa_open_at_concurrency_4_writes_the_report_of_concurrency_1(monkeypatch, tmp_path):
    import causalqa.llm

    runs, llms = {}, {}
    for c in (1, 4):
        llms[c] = llm = SlowScripted(busy=0 if c == 1 else 2)
        monkeypatch.setattr(causalqa.llm, "get_llm", lambda spec, llm=llm, **kw: llm)
        runs[c] = qa_open.run_open_bench(
            "scripted", quick=True, cache=False, out_dir=tmp_path / f"c{c}", concurrency=c
        )
    assert len(runs[1]["outcomes"]) > 20 and llms[1].calls and llms[4].busy == 0
    assert _comparable(runs[4]) == _comparable(runs[1])


@pytest.mark.parametrize("mode", ["tool", "context"])
def test_bench_qa_waits_for_a_server_answering_429(monkeypatch, tmp_path, mode):
    """Against a loopback OpenAI-compatible server: the first answers are 429 with a
    Retry-After; the run waits, asks again, and its outcomes are those of a server that
    never said no."""

    def run(server, out):
        real = get_llm
        monkeypatch.setattr(
            bench_qa, "get_llm", lambda spec, **kw: real(spec, **{**kw, "max_retries": 0})
        )
        return bench_qa.run_qa_bench(
            f"openai:{server.url}#fake",
            quick=True,
            modes=(mode,),
            graph_sizes=(5,),
            effect_sizes=(),
            cache=False,
            out_dir=out,
            concurrency=3,
            planner={"sure": None},  # every tool-mode question asks the server
        )

    with FakeServer() as calm:
        expected = run(calm, tmp_path / "calm")
    busy_answers = [(429, {"Retry-After": "0.2"})] * 3
    with FakeServer(failures=busy_answers) as busy:
        got = run(busy, tmp_path / "busy")
    assert sum(calm.requests.values()) > 0
    assert sum(busy.requests.values()) == sum(calm.requests.values()) + 3
    assert _comparable(got)["outcomes"] == _comparable(expected)["outcomes"]


def test_a_rerun_at_concurrency_3_takes_the_finished_answers_from_the_cache(monkeypatch, tmp_path):
    """What a stopped run asked is in the response cache (written by every worker): the
    rerun asks the server nothing again and grades the same."""
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))

    def run(server, out):
        return bench_qa.run_qa_bench(
            f"openai:{server.url}#fake", quick=True, modes=("context",), cache=True,
            out_dir=out, concurrency=3,
        )  # fmt: skip

    with FakeServer(delay=0.01) as srv:
        first = run(srv, tmp_path / "first")
        asked = sum(srv.requests.values())
        again = run(srv, tmp_path / "again")
        assert asked > 10 and sum(srv.requests.values()) == asked
    assert _comparable(again)["rows"] == _comparable(first)["rows"]
