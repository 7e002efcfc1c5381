"""The OpenAI-compatible backend's failure modes that need no model."""

import socket
import threading
import time

import pytest

from causalqa.errors import ConfigError, LLMTimeoutError, LLMUnavailableError
from causalqa.llm import get_llm


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_server_is_a_clear_error_within_the_timeout():
    port = free_port()  # nothing listens there
    llm = get_llm(f"openai:http://127.0.0.1:{port}/v1#m", timeout=2, max_retries=1, cache=False)
    start = time.monotonic()
    with pytest.raises(LLMUnavailableError, match=f"127.0.0.1:{port}") as e:
        llm.complete("hi")
    assert time.monotonic() - start < 10
    assert "running" in e.value.hint


def test_server_that_never_answers_times_out():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    port = srv.getsockname()[1]
    accepted = []
    stop = threading.Event()

    def accept_and_hang():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                accepted.append(conn)  # read nothing, answer nothing
            except OSError:
                pass

    t = threading.Thread(target=accept_and_hang, daemon=True)
    t.start()
    try:
        llm = get_llm(
            f"openai:http://127.0.0.1:{port}/v1#m", timeout=1.5, max_retries=0, cache=False
        )
        start = time.monotonic()
        with pytest.raises(LLMTimeoutError, match="did not answer within 1.5 s"):
            llm.complete("hi")
        assert time.monotonic() - start < 8
    finally:
        stop.set()
        t.join()
        for c in accepted:
            c.close()
        srv.close()


def test_openai_without_key_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="API key"):
        get_llm("openai:gpt-4o-mini", cache=False)
