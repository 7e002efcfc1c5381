"""Reference thresholds: a verdict rule for one pair asked on its own.

A small model's "causal"/"non-causal" log-odds carry a prior that moves with the prompt's
shape: measured on the 1.5B model, the paper's argmax says "non-causal" to nearly every
prompt with a path, and contextual calibration (a content-free prompt) says "causal" to
nearly every prompt, path or not. Batch calibration (`graph.DECISIONS`) fixes this by
comparing each answer with the mean over the run's questions, which a single question
does not have. So the mean is measured once per model on a reference batch — validation
pairs of the four path-to-causality data sets (never their test pairs), asked in
`pair.discover_pair`'s own prompt shape (its default instruction, with and without a
textual context, with 0 to 3 paths chosen by the similarity ranker) — and shipped:
"causal" when an answer's log-odds exceed the reference mean for its shape. No gold label
is read to make them.

- `measure_reference(llm)` → a `ReferenceThresholds` (``causalqa bench discovery
  reference`` runs it and saves it where `reference_for` looks first);
- `reference_for(model)` → the thresholds for a model name: the user's own measurement
  (``$CAUSALQA_HOME/discovery/reference/``), else the measurement shipped with causalqa
  (``reference_thresholds.json``, the embedded models), else None;
- `evaluate_decisions(llm, ref)` → what each verdict rule (reference, content-free,
  argmax) gives on the test pairs, with and without the top path.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causalqa._compat import moved_names
from causalqa.errors import ReferenceThresholdsError

__all__ = [
    "MAX_PATHS",
    "ReferenceThresholdsError",
    "ReferenceThresholds",
    "reference_for",
    "save_reference",
    "shipped_file",
    "user_file",
]

MAX_PATHS = 3
"""Reference prompts carry 0..MAX_PATHS paths; more paths use the MAX_PATHS threshold."""


def shape_name(context: bool) -> str:
    return "context" if context else "no-context"


@dataclass
class ReferenceThresholds:
    """Mean log-odds of "causal" by prompt shape: ``means[shape][n_paths]`` with shape
    ``"context"`` or ``"no-context"``; `prompts` counts the answers behind each mean."""

    model: str
    means: dict[str, dict[int, float]]
    prompts: dict[str, dict[int, int]] = field(default_factory=dict)
    form: str = "plain"
    info: dict[str, Any] = field(default_factory=dict)

    def threshold(self, *, context: bool, n_paths: int) -> float | None:
        """The reference mean for a prompt with or without context and `n_paths` paths;
        more paths than were measured use the largest measured count (paths move the prior
        most from none to one); None when this shape was not measured."""
        table = self.means.get(shape_name(context), {})
        if n_paths in table:
            return table[n_paths]
        most = max(table, default=0)
        return table[most] if 1 <= most < n_paths else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "form": self.form,
            "means": {
                s: {str(n): round(v, 4) for n, v in t.items()} for s, t in self.means.items()
            },
            "prompts": {s: {str(n): c for n, c in t.items()} for s, t in self.prompts.items()},
            "info": self.info,
        }

    @classmethod
    def from_dict(cls, obj: Any, *, source: str = "<thresholds>") -> ReferenceThresholds:
        try:
            return cls(
                model=str(obj["model"]),
                form=str(obj.get("form", "plain")),
                means={
                    s: {int(n): float(v) for n, v in t.items()} for s, t in obj["means"].items()
                },
                prompts={
                    s: {int(n): int(c) for n, c in t.items()}
                    for s, t in obj.get("prompts", {}).items()
                },
                info=dict(obj.get("info", {})),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ReferenceThresholdsError(
                f"{source}: not a reference-thresholds record ({e})",
                hint="make one with: causalqa bench discovery reference",
            ) from None


def shipped_file() -> Path:
    """The measurements shipped with causalqa (one record per embedded model)."""
    return Path(__file__).with_name("reference_thresholds.json")


def _slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_") or "model"


def user_file(model: str) -> Path:
    """Where ``causalqa bench discovery reference`` saves a model's thresholds."""
    from causalqa import config

    return config.home_dir() / "discovery" / "reference" / f"{_slug(model)}.json"


def _read(path: Path) -> list[ReferenceThresholds]:
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReferenceThresholdsError(f"{path}: cannot be read as JSON ({e})") from None
    records = obj if isinstance(obj, list) else [obj]
    return [ReferenceThresholds.from_dict(r, source=str(path)) for r in records]


def reference_for(model: str, *, form: str = "plain") -> ReferenceThresholds | None:
    """The reference thresholds for `model` (the name an LLM reports, e.g.
    ``Qwen2.5-Coder-1.5B-Instruct-Q4_K_M``) and path `form`: the user's own measurement
    first, then the shipped one; None when neither has this model."""
    for path in (user_file(model), shipped_file()):
        if not path.is_file():
            continue
        for rec in _read(path):
            if rec.model == model and rec.form == form:
                return rec
    return None


def save_reference(ref: ReferenceThresholds, path: Path | None = None) -> Path:
    """Write `ref` as JSON (default: `user_file`), atomically, keeping the file's records
    of other (model, form) pairs; a record of the same model and form is replaced."""
    import os
    import tempfile

    target = Path(path) if path is not None else user_file(ref.model)
    target.parent.mkdir(parents=True, exist_ok=True)
    kept = []
    if target.is_file():
        kept = [r for r in _read(target) if (r.model, r.form) != (ref.model, ref.form)]
    records = [r.to_dict() for r in kept] + [ref.to_dict()]
    obj = records[0] if len(records) == 1 else records
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(obj, indent=2) + "\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


__getattr__ = moved_names(__name__)  # old names, for one release
