"""`start_server`'s extra llama-server flags (bench/server_determinism.py) are refused for
the Python server, which has none of them: a clear error before anything is started."""

import pytest

from causalqa.llm.serve import start_server


def test_extra_args_are_only_for_llama_server(tmp_path):
    with pytest.raises(ValueError, match="extra_args are llama-server's"):
        start_server(
            tmp_path / "model.gguf",
            log=tmp_path / "server.log",
            kind="llama_cpp.server",
            extra_args=["--no-cont-batching"],
        )
    assert not (tmp_path / "server.log").exists()
