"""Question text -> the form of a typed query, with its phrases still to be resolved.

The forms (each with the wordings of the CLadder generator and common variants):

- marginal: "Is A more/less likely than B overall?", "Is A more likely than not?"
- correlation: "Is the chance of Y larger/smaller when observing X?"
- explaining away: "If we look at C, does the chance of Y increase/decrease when X?"
- collider bias: "If we look at C, does it mean that X affects / does not affect Y?"
- total effect: "Will X increase/decrease the chance of Y?", "Does X have a positive effect on Y?"
- back-door: "To understand how X affects Y, is it more correct to use Method 1 than Method 2?"
- effect on the treated: "For G, would it be more/less likely to see Y if G had been X'?"
- natural direct: "If we disregard the mediation effect through M, would X positively affect Y?"
- natural indirect: "Does X positively/negatively affect Y through M (and M')?"
- deterministic counterfactual: "Would Y if X' instead of X?"
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

UP = r"(?:increase|increases|raise|raises|boost|boosts|higher|larger|bigger|greater|more|positively|positive|improve|improves)"
DOWN = r"(?:decrease|decreases|reduce|reduces|lower|lowers|smaller|less|negatively|negative|diminish|diminishes)"
CHANCE = r"(?:the\s+)?(?:chance|chances|probability|likelihood|odds|risk|rate)\s+(?:of|that)"


def _direction(word: str) -> str:
    return "up" if re.fullmatch(UP, word.strip(), flags=re.I) else "down"


@dataclass
class QuestionForm:
    kind: str
    slots: dict[str, list[str]] = field(default_factory=dict)
    direction: str = ""  # up / down / affects / not_affects / first_better
    methods: tuple[str, str] = ("", "")


def _list(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", text.strip()) if p.strip()]


_FORMS: list[tuple[str, str]] = [
    # back-door choice
    (
        "backdoor",
        r"to\s+understand\s+how\s+(?P<x>.+?)\s+affects\s+(?P<y>.+?),\s+is\s+it\s+more\s+correct\s+to\s+use\s+(?:the\s+)?method\s+(?P<m1>\w+)\s+than\s+(?:the\s+)?method\s+(?P<m2>\w+)",
    ),
    (
        "backdoor",
        r"(?:is|would)\s+(?:the\s+)?method\s+(?P<m1>\w+)\s+(?:be\s+)?(?:more\s+correct|better|more\s+appropriate|preferable)\s+than\s+(?:the\s+)?method\s+(?P<m2>\w+)\s+(?:to|for)\s+(?:understand(?:ing)?|estimat(?:e|ing)|learn(?:ing)?)\s+(?:how|the\s+effect\s+of)\s+(?P<x>.+?)\s+(?:affects|on)\s+(?P<y>.+)",
    ),
    # collider bias
    (
        "collider_bias",
        r"(?:if\s+we\s+look\s+at|among|looking\s+at|for|within)\s+(?P<c>.+?),\s+does\s+it\s+mean\s+that\s+(?P<x>.+?)\s+(?P<neg>does\s+not\s+affect|doesn't\s+affect|affects)\s+(?P<y>.+)",
    ),
    # explaining away
    (
        "explaining_away",
        rf"(?:if\s+we\s+look\s+at|among|looking\s+at|for|within)\s+(?P<c>.+?),\s+does\s+{CHANCE}\s+(?P<y>.+?)\s+(?P<dir>{UP}|{DOWN})\s+(?:when|if|given(?:\s+that)?|for|among)\s+(?P<x>.+)",
    ),
    # natural direct effect
    (
        "nde",
        rf"if\s+we\s+(?:disregard|ignore|block|set\s+aside|leave\s+out)\s+the\s+(?:mediation|mediated|indirect)\s+(?:effect|path|paths)\s+(?:through|via)\s+(?P<m>.+?),\s+(?:would|does|will)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+affect\s+(?P<y>.+)",
    ),
    (
        "nde",
        rf"(?:does|would|will)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+affect\s+(?P<y>.+?)\s+(?:directly|not\s+through|other\s+than\s+through|without\s+going\s+through)\s+(?P<m>.+)",
    ),
    # natural indirect effect
    (
        "nie",
        rf"(?:does|would|will)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+affect\s+(?P<y>.+?)\s+(?:only\s+)?(?:through|via)\s+(?P<m>.+)",
    ),
    # effect of treatment on the treated
    (
        "ett",
        rf"(?:for|among)\s+(?P<g>.+?),\s+would\s+it\s+be\s+(?P<dir>more|less)\s+likely\s+to\s+(?:see|observe|find)\s+(?P<y>.+?)\s+if\s+(?P<cf>.+)",
    ),
    # deterministic counterfactual
    (
        "counterfactual",
        r"would\s+(?P<y>.+?)\s+if\s+(?P<x>.+?)\s+instead\s+of\s+(?P<x0>.+)",
    ),
    # marginal
    (
        "marginal",
        r"is\s+(?P<y>.+?)\s+(?P<dir>more|less)\s+likely\s+than\s+(?P<y0>.+?)\s+(?:overall|in\s+general|on\s+the\s+whole|in\s+the\s+population)",
    ),
    ("marginal", r"(?:overall,?\s+)?is\s+(?P<y>.+?)\s+(?P<dir>more|less)\s+likely\s+than\s+not(?:\s+overall)?"),
    (
        "marginal",
        r"is\s+the\s+(?:overall\s+)?(?:probability|chance)\s+of\s+(?P<y>.+?)\s+(?P<dir>above|over|greater\s+than|more\s+than|higher\s+than|below|under|less\s+than|lower\s+than)\s+(?:50\s*%|50\s+percent|0\.5|one\s+half|half)(?:\s+overall)?",
    ),
    # correlation
    (
        "correlation",
        rf"is\s+{CHANCE}\s+(?P<y>.+?)\s+(?P<dir>{UP}|{DOWN})\s+when\s+(?:observing|we\s+observe|we\s+see|seeing)\s+(?P<x>.+)",
    ),
    (
        "correlation",
        rf"is\s+(?P<y>.+?)\s+(?P<dir>more|less)\s+likely\s+(?:when|among|for|if|given)\s+(?:we\s+observe\s+|observing\s+)?(?P<x>.+)",
    ),
    (
        "correlation",
        rf"does\s+(?:observing|seeing)\s+(?P<x>.+?)\s+make\s+(?P<y>.+?)\s+(?P<dir>more|less)\s+likely",
    ),
    # total effect
    (
        "ate",
        rf"(?:will|would|does|do|can)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+{CHANCE}\s+(?P<y>.+)",
    ),
    (
        "ate",
        rf"(?:does|do|will|would)\s+(?P<x>.+?)\s+have\s+a\s+(?P<dir>positive|negative)\s+(?:causal\s+|total\s+)?effect\s+on\s+(?P<y>.+)",
    ),
    (
        "ate",
        rf"(?:does|do|will|would)\s+(?:setting|making|forcing)\s+(?P<x>.+?)\s+(?P<dir>{UP}|{DOWN})\s+(?P<y>.+)",
    ),
]


def parse_question(question: str) -> QuestionForm | None:
    """The question's form and its phrases, or None when no known form fits."""
    q = " ".join(question.strip().split())
    q = re.sub(r"^(?:question:\s*|q:\s*)", "", q, flags=re.I).rstrip("?.! ").strip()
    for kind, pat in _FORMS:
        m = re.fullmatch(pat, q, flags=re.IGNORECASE)
        if not m:
            continue
        d = {k: (v or "").strip() for k, v in m.groupdict().items()}
        f = QuestionForm(kind)
        if kind == "backdoor":
            f.slots = {"treatment": [d["x"]], "outcome": [d["y"]]}
            f.methods = (d["m1"], d["m2"])
            f.direction = "first_better"
        elif kind == "collider_bias":
            f.slots = {"given": _list(d["c"]), "treatment": [d["x"]], "outcome": [d["y"]]}
            f.direction = "affects" if d["neg"].lower() == "affects" else "not_affects"
        elif kind == "explaining_away":
            f.slots = {"given": _list(d["c"]), "treatment": [d["x"]], "outcome": [d["y"]]}
            f.direction = _direction(d["dir"])
        elif kind in ("nde", "nie"):
            f.slots = {"treatment": [d["x"]], "outcome": [d["y"]], "mediators": _list(d["m"])}
            f.direction = _direction(d["dir"])
        elif kind == "ett":
            f.slots = {"treatment": [d["g"]], "outcome": [d["y"]], "counterfactual": [d["cf"]]}
            f.direction = "up" if d["dir"].lower() == "more" else "down"
        elif kind == "counterfactual":
            f.slots = {"outcome": [d["y"]], "treatment": [d["x"]], "counterfactual": [d["x0"]]}
            f.direction = "up"
        elif kind == "marginal":
            f.slots = {"outcome": [d["y"]]}
            word = d["dir"].lower()
            f.direction = "up" if word in ("more", "above", "over") or word.startswith(("greater", "more", "higher")) else "down"
        elif kind in ("correlation", "ate"):
            f.slots = {"treatment": [d["x"]], "outcome": [d["y"]]}
            f.direction = _direction(d["dir"])
        if any(not p for ps in f.slots.values() for p in ps):
            continue
        return f
    return None
