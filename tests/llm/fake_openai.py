"""A tiny OpenAI-compatible chat server on 127.0.0.1 for tests that need no model.

It answers ``POST /v1/chat/completions`` with the last user message reversed (so every
answer is checkable), after `delay` seconds, and can first answer some requests with an
HTTP error (429 with ``Retry-After``, 503, …). It counts requests per prompt and the
most it served at once. ``with FakeServer(delay=0.1) as srv: … srv.url``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def reply_to(prompt: str) -> str:
    return prompt[::-1]


class FakeServer:
    def __init__(self, *, delay: float = 0.0, failures: list[tuple[int, dict]] | None = None):
        """`failures`: the first requests' answers, in order, as (status, headers)."""
        self.delay = delay
        self.failures = list(failures or [])
        self.requests: Counter[str] = Counter()
        self.times: list[float] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][-1]["content"]
                with server._lock:
                    server.times.append(time.monotonic())
                    server.requests[prompt] += 1
                    failure = server.failures.pop(0) if server.failures else None
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    if failure is not None:
                        status, headers = failure
                        self._send(status, {"error": {"message": f"fake {status}"}}, headers)
                        return
                    time.sleep(server.delay)
                    text = reply_to(prompt)
                    self._send(
                        200,
                        {
                            "id": "x",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body.get("model", "fake"),
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": {
                                "prompt_tokens": len(prompt.split()),
                                "completion_tokens": len(text.split()),
                                "total_tokens": 0,
                            },
                        },
                    )
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status, payload, headers=None):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
