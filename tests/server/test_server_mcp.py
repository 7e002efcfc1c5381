"""`causalqa mcp` started as a subprocess by the official MCP SDK's client (stdio): it lists
its tools with typed input schemas, and `ask`, `list_models` and `deduce` answer with the
real small model."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest
from tests.conftest import have, requires_llama
from tests.server.conftest import PARTNERS, REPORT, ROOT, STATEMENT, average_effect

pytestmark = [
    pytest.mark.model,
    requires_llama,
    pytest.mark.skipif(not have("mcp"), reason="the mcp package is not installed"),
]


def test_mcp_server_over_stdio(tmp_path, tiny_kg):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "causalqa.cli",
            "--llm",
            "local:small",
            "mcp",
            "--load",
            f"partners={PARTNERS}",
            "--data-dir",
            str(tmp_path),
            "--kg",
            str(tiny_kg),
        ],  # fmt: skip
        env={
            "PYTHONPATH": str(ROOT / "src"),
            **{k: v for k, v in os.environ.items() if k.startswith(("CAUSALQA_", "XDG_", "HOME"))},
        },
    )

    async def session() -> dict:
        async with Client(params) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            ask = await client.call_tool(
                "ask",
                {"model": "partners", "question": "What is the average effect of Tech Support?"},
            )
            models = await client.call_tool("list_models", {})
            deduce = await client.call_tool("deduce", {"context": REPORT, "statement": STATEMENT})
            unknown = await client.call_tool("ask", {"model": "nope", "question": "Is A a cause?"})
            invalid = await client.call_tool("ask", {"model": "partners"})
            # linked, no path, no sentence, no LLM feature (the shipped evidence model)
            no_evidence = await client.call_tool("discover_pair", {"a": "lonely", "b": "melanoma"})
            return dict(
                tools=tools, ask=ask, models=models, deduce=deduce, unknown=unknown,
                invalid=invalid, no_evidence=no_evidence,
            )  # fmt: skip

    got = asyncio.run(asyncio.wait_for(session(), 600))
    tools = got["tools"]
    assert set(tools) == {
        "ask",
        "list_models",
        "show_model",
        "discover_pair",
        "deduce",
        "answer_stated_question",
    }
    schema = tools["ask"].input_schema
    assert schema["required"] == ["model", "question"]
    assert schema["properties"]["question"]["maxLength"] == 2000
    assert set(tools["deduce"].input_schema["required"]) == {"context", "statement"}
    assert "causal relation" in tools["discover_pair"].description

    ask = got["ask"].structured_content
    assert not got["ask"].is_error
    assert ask["plan"]["steps"] == [{"tool": "ate", "args": {"treatment": "Tech Support"}}]
    assert ask["result"] == pytest.approx(average_effect("Tech Support"))
    assert [m["id"] for m in got["models"].structured_content["models"]] == ["partners"]
    d = got["deduce"].structured_content
    # the statement is the cause the report itself states: the verifier must say so
    assert d["label"] == "True" and d["verdict"] is True and d["method"] == "verifier"
    assert d["threshold"] <= d["probability"] <= 1
    assert got["unknown"].is_error and "[not_found]" in got["unknown"].content[0].text
    assert got["invalid"].is_error
    pair = got["no_evidence"].structured_content
    assert not got["no_evidence"].is_error and pair["verdict"] == "unknown"
    assert pair["causal"] is None and pair["direction"] is None and pair["probability"] is None
    assert "(the context argument)" in pair["abstention"]["hint"]


def test_mcp_server_over_http_needs_its_token(tmp_path):
    import socket
    import subprocess
    import time
    import urllib.error
    import urllib.request

    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [
        sys.executable, "-m", "causalqa.cli", "--llm", "local:small", "mcp", "--transport",
        "http", "--port", str(port), "--load", f"partners={PARTNERS}", "--data-dir",
        str(tmp_path),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "CAUSALQA_TOKEN": "mcp-test-token"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=5)
            except urllib.error.HTTPError as e:
                assert e.code == 401  # up, and refusing a request without the token
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.3)

        async def session():
            headers = {"Authorization": "Bearer mcp-test-token"}
            async with httpx2.AsyncClient(headers=headers, timeout=300) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    names = [t.name for t in (await client.list_tools()).tools]
                    shown = await client.call_tool("show_model", {"model": "partners"})
                    return names, shown.structured_content

        names, shown = asyncio.run(asyncio.wait_for(session(), 300))
        assert "ask" in names and shown["outcome"] == "Revenue" and len(shown["nodes"]) == 9
    finally:
        proc.terminate()
        proc.wait(30)
