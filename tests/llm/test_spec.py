from pathlib import Path

import pytest

from causalqa import config
from causalqa.errors import ConfigError, UnknownBackendError
from causalqa.llm import parse_spec


@pytest.mark.parametrize(
    ("spec", "backend", "model", "base_url"),
    [
        ("local", "local", "local", None),
        ("local:small", "local", "local:small", None),
        ("local:/models/x.gguf", "local", "/models/x.gguf", None),
        ("local:~/m/q.gguf", "local", "~/m/q.gguf", None),
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini", None),
        (
            "openai:http://127.0.0.1:8000/v1#Qwen2.5-7B",
            "openai",
            "Qwen2.5-7B",
            "http://127.0.0.1:8000/v1",
        ),
        ("openai:https://h.example/v1/#m:latest", "openai", "m:latest", "https://h.example/v1"),
        ("  local:small ", "local", "local:small", None),
    ],
)
def test_parse_spec(spec, backend, model, base_url):
    parsed = parse_spec(spec)
    assert (parsed.backend, parsed.model, parsed.base_url) == (backend, model, base_url)


def test_embedded_specs_point_at_the_cache():
    assert parse_spec("local").embedded.parts == 22
    assert parse_spec("local:small").embedded.parts == 6
    assert parse_spec("local:/a/b.gguf").path == Path("/a/b.gguf")


@pytest.mark.parametrize(
    "spec", ["gpt4", "anthropic:claude", "local:medium", "openai:", "openai:http://h:1/v1", ""]
)
def test_bad_specs_are_clear_errors(spec):
    with pytest.raises(UnknownBackendError) as e:
        parse_spec(spec)
    assert e.value.message


def test_precedence_flag_env_config_default(monkeypatch, tmp_path):
    cfg = tmp_path / "c.toml"
    assert config.resolve_llm_spec(None) == ("local", "default")
    cfg.write_text('llm = "local:small"\n')
    monkeypatch.setenv("CAUSALQA_CONFIG", str(cfg))
    assert config.resolve_llm_spec(None) == ("local:small", str(cfg))
    monkeypatch.setenv("CAUSALQA_LLM", "openai:gpt-4o")
    assert config.resolve_llm_spec(None) == ("openai:gpt-4o", "$CAUSALQA_LLM")
    assert config.resolve_llm_spec("local:/x.gguf") == ("local:/x.gguf", "argument")


def test_bad_config_file_is_a_clear_error(monkeypatch, tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("llm = local small\n")
    monkeypatch.setenv("CAUSALQA_CONFIG", str(cfg))
    with pytest.raises(ConfigError, match="not valid TOML"):
        config.resolve_llm_spec(None)
    monkeypatch.setenv("CAUSALQA_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match="does not exist"):
        config.resolve_llm_spec(None)


def test_timeout_and_cache_settings(monkeypatch):
    monkeypatch.setenv("CAUSALQA_TIMEOUT", "12.5")
    assert config.resolve_timeout(None) == 12.5
    assert config.resolve_timeout(3) == 3.0
    monkeypatch.setenv("CAUSALQA_TIMEOUT", "soon")
    with pytest.raises(ConfigError):
        config.resolve_timeout(None)
    monkeypatch.setenv("CAUSALQA_CACHE", "off")
    assert config.resolve_cache(None, default=True) is False
    assert config.resolve_cache(True, default=False) is True
    monkeypatch.setenv("CAUSALQA_CACHE", "maybe")
    with pytest.raises(ConfigError):
        config.resolve_cache(None, default=True)
