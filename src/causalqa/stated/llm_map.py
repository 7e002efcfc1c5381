"""The LLM as the last resort of the phrase mapping: when the words leave two readings of
a story tied (which variable, or which value, a phrase names) and the readings answer
differently, the LLM is shown the story and the readings — each a list of the story's own
phrases with the variable and value they would name — and picks one under a JSON schema
whose only field is an enum of those readings. Its pick is then computed and checked
like any reading; it never supplies a number or an answer itself.
"""

from __future__ import annotations

from typing import Any

from causalqa.errors import LLMError
from causalqa.stated.refusal import StoryRefusal

_SYSTEM = (
    "You read a short causal story. Some phrases in it can be read in more than one way. "
    "Choose the reading that matches what the words mean. Answer with JSON only."
)


def _mapping(model) -> dict[str, str]:
    """phrase -> 'variable: value' in the words of the story."""
    out = {}
    for var in model.variables.values():
        for value in (1, 0):
            for phrase in var.phrases.get(value, []):
                other = var.phrases.get(1 - value) or []
                if other and phrase in other:
                    continue
                label = var.phrases.get(value, [phrase])[0]
                out[phrase] = (
                    f"{var.name} = {label}" if label != phrase else f"{var.name} ({phrase})"
                )
                if label == phrase and other:
                    out[phrase] = f"{var.name} = {phrase} (not {other[0]})"
    return out


def _options(models: list) -> list[str]:
    maps = [_mapping(m) for m in models]
    phrases = sorted({p for mp in maps for p in mp})
    differing = [p for p in phrases if len({mp.get(p) for mp in maps}) > 1]
    options = []
    for i, mp in enumerate(maps):
        parts = [f"'{p}' means {mp.get(p, '?')}" for p in differing[:6]]
        options.append(f"reading {i + 1}: " + ("; ".join(parts) if parts else "as written"))
    return options


def _ask(models: list, story: str, question: str | None, llm) -> int | None:
    options = _options(models)
    if len(set(options)) < len(options):
        return None
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"reading": {"type": "string", "enum": options}},
        "required": ["reading"],
        "additionalProperties": False,
    }
    prompt = f"Story:\n{story.strip()}\n"
    if question:
        prompt += f"\nQuestion:\n{question.strip()}\n"
    prompt += (
        "\nPossible readings of the phrases:\n" + "\n".join(options) + "\n\nWhich reading is right?"
    )
    try:
        response = llm.complete(
            [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": prompt}],
            schema=schema,
            max_tokens=300,
        )
    except LLMError:
        return None
    data = response.data or {}
    choice = data.get("reading")
    return options.index(choice) if choice in options else None


def choose_outcome(outcomes: list, story: str, question: str, llm):
    """The outcome (model, query, answer, result, why) of the reading the LLM picks, or
    None when it picks none or a reading that does not answer."""
    idx = _ask([o[0] for o in outcomes], story, question, llm)
    if idx is None:
        return None
    picked = outcomes[idx]
    return picked if picked[2] is not None else None


def choose_reading(readings: list, llm):
    """The model of the reading the LLM picks (a `StoryRefusal` when none)."""
    models = [m for m, _ in readings]
    idx = _ask(models, models[0].story, None, llm)
    if idx is None:
        raise StoryRefusal("the readings of the story tie and the LLM did not settle it")
    model = models[idx]
    model.route = list(model.route) + ["llm"]
    return model
