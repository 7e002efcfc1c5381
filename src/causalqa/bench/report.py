"""What every benchmark report records and how it is written (JSON + Markdown)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

import psutil

from causalqa.errors import ConfigError
from causalqa.jsonl import atomic_file


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def environment() -> dict[str, Any]:
    """Hardware, software and date of a benchmark run."""
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "causalqa": _version("causalqa"),
        "llama_cpp_python": _version("llama-cpp-python"),
    }


def markdown_table(rows: list[dict[str, Any]], columns: list[tuple[str, str]]) -> str:
    head = "| " + " | ".join(title for _, title in columns) + " |"
    sep = "|" + "|".join("---" for _ in columns) + "|"
    lines = [head, sep]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['spec']} | error: {row['error']} |" + " |" * (len(columns) - 2))
            continue
        cells = ["" if row.get(key) is None else str(row.get(key)) for key, _ in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


_SETTINGS = ("llm", "paraphrased", "seeds", "cache", "planner")
_DISPLAY = {"llama_cpp_python": "llama-cpp-python"}


def _settings_lines(report: dict[str, Any]) -> list[str]:
    """What a run measured with: the model and the run's own settings."""
    lines = []
    if report.get("llm"):
        lines.append(f"- model: {report['llm']}")
    settings = {k: report[k] for k in _SETTINGS[1:] if k in report}
    if settings:
        lines.append("- settings: " + ", ".join(f"{k}={v}" for k, v in settings.items()))
    return lines


def header(title: str, env: dict[str, Any], *, software: tuple[str, ...] = ()) -> list[str]:
    """The first lines of every report: its title, date, hardware and software (Python,
    causalqa and the `software` keys of `env`)."""
    packages = "".join(f", {_DISPLAY.get(k, k)} {env.get(k)}" for k in software)
    return [
        f"# {title}",
        "",
        f"- date: {env['date']}",
        f"- hardware: {env['cpu']}, {env['cores']} cores, {env['memory_gb']} GB RAM",
        f"- software: Python {env['python']}, causalqa {env['causalqa']}{packages}",
    ]


def document(title: str, report: dict[str, Any], body: str) -> str:
    """A report's Markdown: `header` (the run's environment, set here when missing), then
    `body`."""
    env = report.setdefault("environment", environment())
    return "\n".join(header(title, env)) + "\n\n" + body + "\n"


def table_markdown(
    name: str, report: dict[str, Any], columns: list[tuple[str, str]], *, extra: str = ""
) -> str:
    """A report whose body is one table of ``report["rows"]`` (`extra`, more Markdown, after
    it), headed by the run's environment and settings."""
    title = f"causalqa bench {name}{' (quick)' if report.get('quick') else ''}"
    return "\n".join(
        [
            *header(title, report["environment"], software=("llama_cpp_python",)),
            *_settings_lines(report),
            "",
            markdown_table(report["rows"], columns),
            "",
            *([extra.rstrip(), ""] if extra.strip() else []),
        ]
    )


def write_report(
    out_dir: Path, name: str, report: dict[str, Any], markdown: str, *, exclude: tuple = ()
) -> Path:
    """Write ``<name>-<timestamp>.json`` and ``.md`` and the same as ``<name>-latest.*``
    (earlier runs are kept); the JSON leaves out the `exclude` keys. Returns the latest
    Markdown file's path."""
    if "environment" not in report:
        report["environment"] = environment()
    stamp = report["environment"]["date"].replace(":", "").replace("-", "")[:15]
    body = {k: v for k, v in report.items() if k not in exclude}
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        text = json.dumps(body, indent=2, ensure_ascii=False, default=str)
        for stem in (f"{name}-{stamp}", f"{name}-latest"):
            # A run killed while writing leaves the previous -latest files whole.
            for suffix, content in ((".json", text), (".md", markdown)):
                with atomic_file(out_dir / f"{stem}{suffix}") as f:
                    f.write(content)
    except OSError as e:
        raise ConfigError(f"cannot write results to {out_dir}: {e.strerror}") from None
    return out_dir / f"{name}-latest.md"
