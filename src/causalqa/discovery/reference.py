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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.errors import CausalQAError

__all__ = [
    "MAX_PATHS",
    "ReferenceError",
    "ReferenceThresholds",
    "evaluate_decisions",
    "measure_reference",
    "reference_for",
    "save_reference",
    "shipped_file",
    "user_file",
]

MAX_PATHS = 3
"""Reference prompts carry 0..MAX_PATHS paths; more paths use the MAX_PATHS threshold."""


class ReferenceError(CausalQAError):
    """Reference thresholds cannot be measured, read or written."""


def _shape(context: bool) -> str:
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
        table = self.means.get(_shape(context), {})
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
            raise ReferenceError(
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
        raise ReferenceError(f"{path}: cannot be read as JSON ({e})") from None
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
    """Write `ref` as JSON (default: `user_file`), atomically."""
    target = Path(path) if path is not None else user_file(ref.model)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(ref.to_dict(), indent=2) + "\n", encoding="utf-8")
    tmp.replace(target)
    return target


def measure_reference(
    llm,
    *,
    datasets: Sequence[str] = ("comagc", "gene", "ade", "semeval"),
    per_dataset: int | None = 60,
    max_paths: int = MAX_PATHS,
    root=None,
    seed: int = 0,
    embedder=None,
    on_step: Callable[[str, int], None] | None = None,
) -> ReferenceThresholds:
    """Ask `llm` about validation pairs (a seeded sample of `per_dataset` from each data
    set's by-query validation split of ``train_full``) in `discover_pair`'s prompt shape,
    with and without the pair's sentence as context and with the top 0..`max_paths` paths
    of the similarity ranker, and return the mean log-odds per shape.
    `on_step(description, advance)` is called once per pair."""
    from causalqa.discovery.bench_pairs import _sample, clean_sentence
    from causalqa.discovery.pair import classify_pair, rank_paths
    from causalqa.discovery.pathdata import load_path_dataset, validation_split
    from causalqa.discovery.rankers import SimilarityRanker

    if max_paths < 0:
        raise ReferenceError(f"max_paths must be at least 0, got {max_paths}")
    if embedder is None and max_paths > 0:
        from causalqa.embed import Embedder

        embedder = Embedder()
    ranker = SimilarityRanker(embedder)
    values: dict[str, dict[int, list[float]]] = {}
    pairs = 0
    for ds in datasets:
        data = validation_split(load_path_dataset(ds, root, splits=("train",)), seed=seed)
        for q in _sample(data.truth, per_dataset, seed):
            top = rank_paths(ranker, q, list(q.paths), max_paths) if max_paths else []
            for context in (True, False):
                sentence = clean_sentence(q.sentence) if context else None
                for n in range(min(max_paths, len(top)) + 1):
                    v = classify_pair(q.e1, q.e2, llm, paths=top[:n], context=sentence)
                    values.setdefault(_shape(context), {}).setdefault(n, []).append(v.log_odds)
            pairs += 1
            if on_step:
                on_step(f"{ds}: {q.e1} – {q.e2}", 1)
    if not pairs:
        raise ReferenceError("no validation pair to measure on")
    model = getattr(llm, "model", "") or type(llm).__name__
    return ReferenceThresholds(
        model=model,
        means={s: {n: float(np.mean(v)) for n, v in sorted(t.items())} for s, t in values.items()},
        prompts={s: {n: len(v) for n, v in sorted(t.items())} for s, t in values.items()},
        info={
            "datasets": list(datasets),
            "pairs": pairs,
            "per_dataset": per_dataset,
            "seed": seed,
            "split": "by-query validation split of train_full (20%, seed as given)",
            "ranker": "similarity",
        },
    )


def evaluate_decisions(
    llm,
    ref: ReferenceThresholds | None,
    *,
    datasets: Sequence[str] = ("comagc", "gene", "ade", "semeval"),
    root=None,
    embedder=None,
    on_step: Callable[[str, int], None] | None = None,
) -> list[dict[str, Any]]:
    """What `discover_pair`'s verdict rules give on the test pairs (``test_truth``): each
    pair asked in its prompt shape with its sentence as context, without a path and with the
    similarity ranker's top path; P/R/F1/accuracy (%) per data set, path setting and rule
    (reference with `ref`, content-free, argmax). Thresholds are never fitted here."""
    from causalqa.discovery.bench_pairs import clean_sentence, prf
    from causalqa.discovery.pair import (
        CAUSAL,
        NON_CAUSAL,
        classify_pair,
        content_free_logprobs,
        rank_paths,
    )
    from causalqa.discovery.pathdata import load_path_dataset
    from causalqa.discovery.rankers import SimilarityRanker

    if embedder is None:
        from causalqa.embed import Embedder

        embedder = Embedder()
    ranker = SimilarityRanker(embedder)
    rows: list[dict[str, Any]] = []
    for ds in datasets:
        queries = load_path_dataset(ds, root, splits=("truth",)).truth
        got: dict[int, list[tuple[int, float]]] = {0: [], 1: []}
        for q in queries:
            top = rank_paths(ranker, q, list(q.paths), 1)
            sentence = clean_sentence(q.sentence)
            for n in (0, 1) if top else (0,):
                v = classify_pair(q.e1, q.e2, llm, paths=top[:n], context=sentence)
                got[n].append((q.label, v.log_odds))
            if on_step:
                on_step(f"{ds}: {q.e1} – {q.e2}", 1)
        for n, answers in got.items():
            if not answers:
                continue
            gold = [g for g, _ in answers]
            lo = np.array([x for _, x in answers])
            cf = content_free_logprobs(llm, n_paths=n, has_context=True)
            rules = {
                "argmax": lo > 0,
                "content-free": lo > cf[CAUSAL] - cf[NON_CAUSAL],
            }
            t = ref.threshold(context=True, n_paths=n) if ref is not None else None
            if t is not None:
                rules["reference"] = lo > t
            for rule, pred in rules.items():
                rows.append(
                    {"dataset": ds, "paths": n, "rule": rule, "pairs": len(gold),
                     "causal": int(sum(gold)), **prf(pred.astype(int).tolist(), gold)}
                )  # fmt: skip
    return rows
