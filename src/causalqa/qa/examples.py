"""Worked examples for the planner: questions about a small illustrative model (the
partners/engagements scenario of the paper's Listing 4) with their plans.

They are written by hand, independently of the benchmark's templates and paraphrases,
and show each tool at least once with varied wording. The planner retrieves the ones
nearest to a question (sentence embeddings) or uses a fixed selection. They are data:
``examples.json`` beside this module, read once by `load_examples`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from causalqa.errors import DataFileError

EXAMPLES_PATH = Path(__file__).with_name("examples.json")


@dataclass(frozen=True)
class Example:
    question: str
    mentioned: dict[str, Any]
    """What grounding finds in the question (variables, treatments, subjects, where)."""
    plan: dict[str, Any]


@cache
def load_examples(path: Path = EXAMPLES_PATH) -> dict[str, list[Example]]:
    """The worked examples by group: ``paper`` (the paper's tools, for `Planner.plan`) and
    ``open`` (the query tools, for `Planner.plan_open`).

    Raises:
        DataFileError: the file is missing or not examples as written by this project.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return {
            group: [
                Example(str(e["question"]), dict(e["mentioned"]), dict(e["plan"]))
                for e in data[group]
            ]
            for group in ("paper", "open")
        }
    except FileNotFoundError:
        raise DataFileError(f"the planner's examples are missing: {path}") from None
    except (ValueError, KeyError, TypeError) as e:
        raise DataFileError(f"{path} is not the planner's examples ({e})") from None


EXAMPLES: list[Example] = load_examples()["paper"]
OPEN_EXAMPLES: list[Example] = load_examples()["open"]


def mentioned_text(mentioned: dict[str, Any]) -> str:
    """How grounding results are shown to the planner."""
    parts = []
    for key in ("variables", "treatments", "subjects"):
        if mentioned.get(key):
            parts.append(f"{key}: " + ", ".join(str(x) for x in mentioned[key]))
    where = mentioned.get("where")
    if where:
        parts.append(f"filter: {where['filter']} = {'true' if where['value'] else 'false'}")
    return "; ".join(parts) if parts else "nothing"
