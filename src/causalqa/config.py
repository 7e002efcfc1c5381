"""Where causalqa keeps its files and how settings are resolved.

Precedence for every setting: an explicit argument (CLI flag) > an environment variable >
the config file > the built-in default. The config file is TOML, by default
``~/.config/causalqa/config.toml`` (or ``$CAUSALQA_CONFIG``), e.g.::

    llm = "openai:http://127.0.0.1:8000/v1#Qwen2.5-7B-Instruct"
    timeout = 120
"""

from __future__ import annotations

import os
import tomllib
import warnings
from pathlib import Path
from typing import Any

import platformdirs

from causalqa.errors import ConfigError

DEFAULT_LLM = "local"
DEFAULT_TIMEOUT = 300.0

ENV_LLM = "CAUSALQA_LLM"
ENV_CONFIG = "CAUSALQA_CONFIG"
ENV_HOME = "CAUSALQA_HOME"
ENV_TIMEOUT = "CAUSALQA_TIMEOUT"
ENV_CACHE = "CAUSALQA_CACHE"
ENV_DATA = "CAUSALQA_DATA"
ENV_DATA_DEPRECATED = "CAUSALQA_DATA_DIR"


def home_dir() -> Path:
    """Root of causalqa's own files (assembled models, caches): ``$CAUSALQA_HOME`` or the
    platform's user cache directory."""
    env = os.environ.get(ENV_HOME)
    return Path(env).expanduser() if env else Path(platformdirs.user_cache_dir("causalqa"))


def data_dir() -> Path:
    """The folder of public data sets (NTSB reports, path-to-causality, SACHS, …):
    ``$CAUSALQA_DATA``, else ``../shared/data`` beside the repository or the working
    directory (the first that exists).

    ``$CAUSALQA_DATA_DIR`` is the older name: still read, with a `FutureWarning`, and
    ignored (also with a warning) when ``$CAUSALQA_DATA`` is set too.
    """
    env = os.environ.get(ENV_DATA)
    old = os.environ.get(ENV_DATA_DEPRECATED)
    if old:
        use = f"use {ENV_DATA} instead"
        if env and Path(env).expanduser() != Path(old).expanduser():
            use = f"ignored, since {ENV_DATA} is set too"
        warnings.warn(f"${ENV_DATA_DEPRECATED} is deprecated: {use}", FutureWarning, stacklevel=2)
    env = env or old
    if env:
        return Path(env).expanduser()
    candidates = [
        Path(__file__).resolve().parents[2] / ".." / "shared" / "data",
        Path.cwd() / ".." / "shared" / "data",
    ]
    for c in candidates:
        if c.is_dir():
            return c.resolve()
    return candidates[0]


def models_dir() -> Path:
    return home_dir() / "models"


def rankers_dir() -> Path:
    """Where `discover pair --ranker xgboost|rmse|ranknet|listnet` finds trained rankers."""
    return home_dir() / "discovery" / "rankers"


def cache_path(name: str) -> Path:
    return home_dir() / f"{name}.sqlite"


def config_path() -> Path:
    env = os.environ.get(ENV_CONFIG)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir("causalqa")) / "config.toml"


def load_config() -> dict[str, Any]:
    """The config file's contents, or {} when there is none."""
    path = config_path()
    if not path.exists():
        if os.environ.get(ENV_CONFIG):
            raise ConfigError(
                f"config file {path} (from ${ENV_CONFIG}) does not exist",
                hint=f"create it or unset {ENV_CONFIG}",
            )
        return {}
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(
            f"config file {path} is not valid TOML: {e}",
            hint='write settings as key = value lines, e.g. llm = "local:small"',
        ) from e


def _setting(explicit: Any, env_name: str, key: str, default: Any) -> tuple[Any, str]:
    if explicit is not None:
        return explicit, "argument"
    env = os.environ.get(env_name)
    if env:
        return env, f"${env_name}"
    config = load_config()
    if key in config:
        return config[key], f"{config_path()}"
    return default, "default"


def resolve_llm_spec(explicit: str | None = None) -> tuple[str, str]:
    """The backend spec to use and where it came from (flag, env var, config file, default)."""
    value, source = _setting(explicit, ENV_LLM, "llm", DEFAULT_LLM)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"the LLM spec from {source} must be a non-empty string, got {value!r}")
    return value.strip(), source


def resolve_timeout(explicit: float | None = None) -> float:
    value, source = _setting(explicit, ENV_TIMEOUT, "timeout", DEFAULT_TIMEOUT)
    try:
        timeout = float(value)
    except (TypeError, ValueError):
        raise ConfigError(
            f"timeout from {source} must be a number of seconds, got {value!r}"
        ) from None
    if timeout <= 0:
        raise ConfigError(f"timeout from {source} must be positive, got {timeout}")
    return timeout


def resolve_cache(explicit: bool | None, default: bool) -> bool:
    """Whether the response cache is on: the flag, else ``$CAUSALQA_CACHE`` (0/1), else
    the config file's ``cache``, else the caller's default (on for benchmarks)."""
    value, source = _setting(explicit, ENV_CACHE, "cache", default)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"cache setting from {source} must be on/off (1/0), got {value!r}")
