"""Serve a local GGUF over the OpenAI API on loopback, for tests and ``bench scale``.

Two servers are known, both built from the same llama.cpp:

- llama.cpp's own ``llama-server`` (C++; ``scripts/build-llama-server.sh`` compiles it
  from the llama.cpp vendored in llama-cpp-python): several *slots* decoded together in
  one batch (``--parallel N``), which is where concurrent requests gain throughput;
- llama-cpp-python's ``python -m llama_cpp.server``: one request at a time.

``python -m causalqa.llm.serve ARGS…`` runs the second with causalqa's choice of CPU
kernels (`causalqa.llm.kernels`: llama.cpp alone would not find them in a
``GGML_BACKEND_DL`` build) and otherwise takes ``llama_cpp.server``'s own arguments.
`start_server` starts either on a free port and waits until it answers.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from causalqa.errors import LLMUnavailableError

ENV_LLAMA_SERVER = "CAUSALQA_LLAMA_SERVER"


def llama_server_binary() -> Path | None:
    """llama.cpp's ``llama-server``: ``$CAUSALQA_LLAMA_SERVER``, else on ``PATH``, else
    where ``scripts/build-llama-server.sh`` puts it (``<home>/bin``)."""
    from causalqa.config import home_dir

    env = os.environ.get(ENV_LLAMA_SERVER, "").strip()
    candidates = [Path(env)] if env else []
    found = shutil.which("llama-server")
    if found:
        candidates.append(Path(found))
    candidates.append(home_dir() / "bin" / "llama-server")
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A running loopback server: its URL, the model name to ask for, its process."""

    kind: str
    """"llama-server" or "llama_cpp.server"."""
    url: str
    model: str
    slots: int
    threads: int
    process: subprocess.Popen
    log: Path

    @property
    def spec(self) -> str:
        """The causalqa backend spec that talks to it."""
        return f"openai:{self.url}#{self.model}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def start_server(
    model_path: str | Path,
    *,
    log: str | Path,
    slots: int = 4,
    threads: int = 1,
    ctx_per_slot: int = 2048,
    kind: str = "auto",
    name: str = "local",
    timeout: float = 180.0,
    extra_args: Sequence[str] = (),
) -> Server:
    """Start a server over `model_path` on 127.0.0.1 and wait until ``/v1/models``
    answers. `kind`: "llama-server", "llama_cpp.server" or "auto" (the first when its
    binary exists; the second serves one request at a time, whatever `slots` says).
    `extra_args` go to llama-server's command line ("--no-cont-batching" …)."""
    binary = llama_server_binary()
    if kind == "auto":
        kind = "llama-server" if binary else "llama_cpp.server"
    port = free_port()
    if kind == "llama-server":
        if binary is None:
            raise LLMUnavailableError(
                "llama.cpp's llama-server is not built",
                hint=f"bash scripts/build-llama-server.sh, or set {ENV_LLAMA_SERVER}",
            )
        cmd = [
            str(binary),
            "-m",
            str(model_path),
            "-a",
            name,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--parallel",
            str(slots),
            "-c",
            str(ctx_per_slot * slots),
            "-t",
            str(threads),
            "-tb",
            str(threads),
            "--no-webui",
            *extra_args,
        ]
    elif kind == "llama_cpp.server":
        if extra_args:
            raise ValueError("extra_args are llama-server's; llama_cpp.server takes none")
        slots = 1
        cmd = [
            sys.executable,
            "-m",
            "causalqa.llm.serve",
            "--model",
            str(model_path),
            "--model_alias",
            name,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            str(ctx_per_slot),
            "--n_threads",
            str(threads),
            "--n_threads_batch",
            str(threads),
        ]
    else:
        raise ValueError(f"unknown server kind {kind!r}")
    log = Path(log)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as sink:  # a file, not a pipe: a full pipe would block the server
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/models", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None:
            raise LLMUnavailableError(
                f"{kind} exited with code {proc.returncode}: "
                + log.read_text(errors="replace")[-1500:]
            )
        if time.monotonic() > deadline:
            proc.kill()
            raise LLMUnavailableError(f"{kind} did not answer within {timeout:g} s (log: {log})")
        time.sleep(0.3)
    return Server(kind, url, name, slots, threads, proc, log)


def main() -> None:
    """``python -m causalqa.llm.serve``: llama_cpp.server with causalqa's kernel choice."""
    import llama_cpp

    from causalqa.llm.kernels import ensure_cpu_backend

    ensure_cpu_backend(llama_cpp)
    from llama_cpp.server.__main__ import main as serve

    serve()


if __name__ == "__main__":
    main()
