"""Which way a one-variable structural question points: at X's causes or at its effects.

The small planner model picks the right kind of tool ("direct neighbours" vs "everything
connected") reliably but confuses the direction on passive or inverted wordings: "which
nodes point directly into X", "by which variables is X influenced", "which nodes are
caused by X". English marks the direction with a few constructions — a preposition into
X, a passive with "by", X as the grammatical subject of a causal verb, an intervention
verb on X — so we read it from them, and let the model decide only where they are absent
or disagree.
"""

from __future__ import annotations

import re
from typing import Literal

from causalqa.qa.grounding import Grounding, _norm

Direction = Literal["causes", "effects"]

_PP = (
    r"(?:influenced|affected|caused|driven|determined|shaped|impacted|explained|controlled"
    r"|changed|governed)"
)
_INTERVENED = (
    r"(?:changed|modified|altered|increased|decreased|raised|lowered|adjusted|perturbed"
    r"|shifted|manipulated|moved|set|tweaked|nudged|varied|intervened)"
)
# X (written "X" after substitution) is the effect: the question asks for its causes.
_CAUSES_OF_X = [
    r"\b(?:point(?:s|ing)?|arrows?|feed(?:s|ing)?|flow(?:s|ing)?|lead(?:s|ing)?|go(?:es|ing)?)"
    r"\s+(?:\w+\s+)?into\s+(?:the\s+)?X\b",
    r"\b(?:effects?|impacts?|influences?|bearing|say)\s+(?:\w+\s+)?on\s+(?:the\s+)?X\b",
    r"\b(?:causes|drivers|determinants|parents|predecessors|antecedents|sources|inputs"
    r"|ancestors|origins|roots)\s+(?:of|for|behind)\s+(?:the\s+)?X\b",
    r"\bupstream\s+(?:of|from)\s+(?:the\s+)?X\b",
    rf"\bX\s+(?:is|are|gets?|being|was|were)\s+(?:\w+\s+){{0,2}}{_PP}\s+(?:\w+\s+){{0,2}}by\b",
    rf"\b(?:is|are|was|were)\s+(?:the\s+)?X\s+(?:\w+\s+)?{_PP}\s+(?:\w+\s+)?by\b",
    rf"\bby\s+(?:which|what)\b.*\b(?:is|are|was|were)\s+(?:the\s+)?X\s+(?:\w+\s+)?{_PP}\b",
    r"\bX\s+(?:depends?|relies|rely|hinges?)\b",
    r"\b(?:drives?|causes?|influences?|affects?|determines?|shapes?|impacts?|explains?"
    r"|controls?|governs?|feeds?)\s+(?:the\s+)?X\b",
]
# X is the cause: the question asks for its effects.
_EFFECTS_OF_X = [
    rf"\b(?:if|when|once|after)\s+(?:the\s+)?X\s+(?:is|are|gets?|were|was)\s+(?:\w+\s+)?"
    rf"{_INTERVENED}\b(?!\s+(?:\w+\s+)?by\b)",
    r"\b(?:effects|consequences|outcomes|results|children|successors|descendants|targets"
    r"|dependents)\s+(?:of|from)\s+(?:the\s+)?X\b",
    r"\bdownstream\s+(?:of|from)\s+(?:the\s+)?X\b",
    rf"\b(?:{_PP}|moved)\s+(?:\w+\s+)?by\s+(?:the\s+)?X\b",
    r"\bX\s+(?:\w+\s+)?(?:affects?|causes?|influences?|drives?|impacts?|points?|feeds?|leads?"
    r"|changes?|determines?|shapes?|controls?|reaches|touches|moves)\b",
    r"\b(?:change|changes|changing|adjust|adjusting|nudge|nudging|tweak|tweaking|intervene on"
    r"|intervening on|intervention on|push|pushing|shift|shifting|manipulate|manipulating"
    r"|increase|decrease|raise|lower|alter|altering|move|moving|perturb|perturbing|set)"
    r"\s+(?:the\s+)?(?:value\s+of\s+|level\s+of\s+)?X\b",
    r"\b(?:respond|responds|responding|react|reacts|reacting|sensitive|susceptible)"
    r"\s+(?:\w+\s+)?to\s+(?:the\s+)?X\b",
]
_CAUSES_RE = [re.compile(p) for p in _CAUSES_OF_X]
_EFFECTS_RE = [re.compile(p) for p in _EFFECTS_OF_X]

_OPPOSITE = {
    "parents": "children",
    "children": "parents",
    "ancestors": "descendants",
    "descendants": "ancestors",
}
_ASKS = {
    "parents": "causes",
    "ancestors": "causes",
    "children": "effects",
    "descendants": "effects",
}


def asked_direction(question: str, grounding: Grounding) -> Direction | None:
    """ "causes" or "effects" of the one variable the question names; None if unclear."""
    variables = [m for m in grounding.mentions if m.kind == "variable"]
    if len(variables) != 1:
        return None
    q = _norm(question)
    text = q[: variables[0].start] + " X " + q[variables[0].end :]
    text = re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", text))
    causes = any(p.search(text) for p in _CAUSES_RE)
    effects = any(p.search(text) for p in _EFFECTS_RE)
    if causes == effects:
        return None
    return "causes" if causes else "effects"


def orient(tool: str, question: str, grounding: Grounding) -> str:
    """`tool`, or its mirror image (parents ↔ children, ancestors ↔ descendants) when the
    question's wording clearly asks the other way."""
    if tool not in _ASKS:
        return tool
    asked = asked_direction(question, grounding)
    return _OPPOSITE[tool] if asked is not None and asked != _ASKS[tool] else tool
