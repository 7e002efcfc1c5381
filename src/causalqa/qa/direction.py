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

from causalqa.qa.grounding import Grounding
from causalqa.qa.lexicon import any_of
from causalqa.qa.lexicon import normalize as _norm

Direction = Literal["causes", "effects"]

_PP = (
    r"(?:influenced|affected|caused|driven|determined|shaped|impacted|explained|controlled"
    r"|changed|governed|moved|shifted|altered|modified|swayed|pushed|reached|touched|boosted"
    r"|lifted|raised|lowered)"
)
_INTERVENED = (
    r"(?:changed|modified|altered|increased|decreased|raised|lowered|adjusted|perturbed"
    r"|shifted|manipulated|moved|set|tweaked|nudged|varied|intervened)"
)
# Adjectives before "causes"/"effects" that make them nouns: "X: immediate causes".
_ADJ = r"(?:immediate|direct|proximate|first\s+order|1st\s+order|main|key|root|upstream|downstream)"
# X (written "X" after substitution) is the effect: the question asks for its causes.
_CAUSES_OF_X = [
    r"\b(?:point(?:s|ing)?|arrows?|feed(?:s|ing)?|flow(?:s|ing)?|lead(?:s|ing)?|go(?:es|ing)?)"
    r"\s+(?:\w+\s+)?into\s+(?:the\s+)?X\b",
    r"\b(?:effects?|impacts?|influences?|bearing|say)\s+(?:\w+\s+)?on\s+(?:the\s+)?X\b",
    r"\b(?:causes|drivers|determinants|parents|predecessors|antecedents|sources|inputs"
    r"|ancestors|origins|roots)\s+(?:of|for|behind)\s+(?:the\s+)?X\b",
    r"\bupstream\s+(?:of|from)\s+(?:the\s+)?X\b",
    rf"\bX\s+(?:is|are|gets?|being|was|were|be|been)\s+(?:\w+\s+){{0,2}}{_PP}\s+(?:\w+\s+){{0,2}}by\b",
    rf"\b(?:is|are|was|were)\s+(?:the\s+)?X\s+(?:\w+\s+)?{_PP}\s+(?:\w+\s+){{0,4}}by\b",
    rf"\bby\s+(?:which|what)\b.*\b(?:is|are|was|were)\s+(?:the\s+)?X\s+(?:\w+\s+)?{_PP}\b",
    r"\bX\s+(?:\w+ly\s+)?(?:depends?|relies|rely|hinges?|responds?|reacts?|changes?\s+(?:when|if"
    r"|after|with))\b",
    r"\b(?:drives?|causes?|influences?|affects?|determines?|shapes?|impacts?|explains?"
    r"|controls?|governs?|feeds?|moves|shifts|changes|alters|pushes)\s+(?:the\s+)?X\b",
    # "X is directly downstream of what?"
    r"\bX\s+(?:is|are|sits?|lies|lie|comes?)\s+(?:\w+\s+)?(?:downstream|after)\s+(?:of|from)\b",
    # "X: immediate causes only", "X's direct drivers"
    rf"\bX\s+(?:s\s+)?(?:{_ADJ}\s+)?(?:parents|drivers|predecessors|determinants|antecedents"
    rf"|inputs|ancestors)\b|\bX\s+(?:s\s+)?{_ADJ}\s+causes\b",
    # "Of which variables is X a direct effect?"
    r"\b(?:is|are|was|were)\s+(?:the\s+)?X\s+(?:an?\s+|the\s+)?(?:\w+\s+){0,3}(?:effects?"
    r"|child|children|consequences?|results?|outcomes?|descendants?|successors?|targets?)\b",
    # "Of X, which variables are its direct causes?"
    r"^\s*of\s+(?:the\s+)?X\b.*\b(?:causes|parents|drivers|predecessors|ancestors|determinants)\b",
]
# X is the cause: the question asks for its effects.
_EFFECTS_OF_X = [
    rf"\b(?:if|when|once|after)\s+(?:the\s+)?X\s+(?:is|are|gets?|were|was)\s+(?:\w+\s+)?"
    rf"{_INTERVENED}\b(?!\s+(?:\w+\s+)?by\b)",
    r"\b(?:effects|consequences|outcomes|results|children|successors|descendants|targets"
    r"|dependents)\s+(?:of|from)\s+(?:the\s+)?X\b",
    r"\bdownstream\s+(?:of|from)\s+(?:the\s+)?X\b",
    rf"\b(?:{_PP}|moved)\s+(?:\w+\s+)?by\s+(?:the\s+)?X\b",
    # X as the subject of a causal verb, active voice only ("caused" would be passive)
    rf"\bX\s+(?:(?!{_ADJ}\b)(?:\w+ly|also|really|still|even|ever|then|not|in\s+turn|itself"
    r"|is|are|was|were|will|would|can|could|does|do|did|may|might|has|have|(?:ends?|ended)\s+up)\s+)"
    r"{0,2}(?:affect|caus|influenc|driv|impact|point|feed"
    r"|lead|chang|determin|shap|control|reach|touch|mov|push|shift|rais|lower|alter|modif"
    r"|perturb)(?:es|e|s|ies|y|ing)?\b",
    r"\b(?:have|has|take|takes|use|uses|get|gets|receive|receives)\s+X\s+as\s+(?:\w+\s+){0,4}"
    r"(?:causes?|parents?|drivers?|inputs?|ancestors?|sources?)\b",
    r"\b(?:an?\s+|the\s+)?(?:change|changes|shift|shock|increase|decrease|intervention)\s+(?:in|to"
    r"|of)\s+(?:the\s+)?X\b",
    r"\bX\s+(?:is|are|sits?|lies|lie|comes?)\s+(?:\w+\s+)?(?:upstream|before)\s+(?:of|from)\b",
    r"\b(?:change|changing|adjust|adjusting|nudge|nudging|tweak|tweaking|intervene on"
    r"|intervening on|intervention on|push|pushing|shift|shifting|manipulate|manipulating"
    r"|increase|decrease|raise|lower|alter|altering|move|moving|perturb|perturbing|set)"
    r"\s+(?:the\s+)?(?:value\s+of\s+|level\s+of\s+)?X\b",
    r"\bX\s+(?:has|have|had|exerts?)\s+(?:\w+\s+){0,3}(?:effects?|impacts?|influences?|bearing"
    r"|say)\s+(?:on|over|upon)\b",
    r"\b(?:respond|responds|responding|react|reacts|reacting|sensitive|susceptible)"
    r"\s+(?:\w+\s+)?to\s+(?:the\s+)?X\b",
    # "an edge originating from X", "get effect from X": X is the source
    r"\bfrom\s+(?:the\s+)?X\b",
    # "By X, which variables are influenced directly?", "influenced, directly, by X"
    rf"^\s*by\s+(?:the\s+)?X\b|\b{_PP}\b.*\bby\s+(?:the\s+)?X\b",
    # "Of X, which variables are the direct effects?"; "X: direct effects"
    r"^\s*of\s+(?:the\s+)?X\b.*\b(?:effects|children|consequences|outcomes|successors"
    r"|descendants|targets)\b",
    rf"\bX\s+(?:s\s+)?(?:{_ADJ}\s+)?(?:children|successors|descendants|consequences"
    rf"|outcomes|targets|dependents)\b|\bX\s+(?:s\s+)?{_ADJ}\s+effects\b",
    # "Is X a direct cause of which variables?"
    r"\b(?:is|are|was|were)\s+(?:the\s+)?X\s+(?:an?\s+|the\s+)?(?:\w+\s+){0,3}(?:causes?"
    r"|parents?|drivers?|ancestors?|predecessors?|sources?|determinants?)\b",
    # do(X): an intervention on X
    r"\bdo\s+X\b(?!\s+(?:and|or)\b)",
]
_CAUSES_RE = any_of(_CAUSES_OF_X)
_EFFECTS_RE = any_of(_EFFECTS_OF_X)

_VERB = (
    r"(?:move|change|shift|affect|influence|drive|push|alter|hit|cause|impact|reach|determine"
    r"|shape|raise|lower)"
)
# Constructions that settle the direction even where an ordinary cue points the other way:
# the asked-for variables as the subject of a causal verb on X ("which variables would move
# X if we intervened on them"), a causal verb on "a change in X" ("what causes a change in
# X"), X as the aim of a change ("…work through in order to change X").
_STRONG_CAUSES_OF_X = any_of(
    [
        (
            rf"\b(?:which|what)\s+(?:\w+\s+){{0,3}}(?:would|will|could|can|do|does|might|directly)"
            rf"\s+(?:\w+\s+)?{_VERB}s?\s+(?:the\s+)?X\b"
        ),
        (
            rf"\b(?:{_VERB}|make|bring|produce|induce|trigger|lead|result)s?\s+(?:about\s+|to\s+|in\s+)?"
            rf"(?:an?\s+)?"
            rf"(?:change|changes|shift|shifts|increase|decrease|difference)\s+(?:in|of|to|on)\s+"
            rf"(?:the\s+)?X\b"
        ),
        (rf"\b(?:in\s+order\s+)?to\s+{_VERB}\s+(?:the\s+)?X\b"),
    ]
)


def _votes(text: str, x_is_cause: re.Pattern[str] = _EFFECTS_RE) -> tuple[bool, bool]:
    """(X is the effect, X is the cause) by the constructions in `text` (`x_is_cause`: the
    patterns that make X the cause); a strong construction making X the effect decides
    alone."""
    if _STRONG_CAUSES_OF_X.search(text):
        return True, False
    return bool(_CAUSES_RE.search(text)), bool(x_is_cause.search(text))


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
    text = _words(text)
    # "We're looking at X. Which variables point into it?": "it" after X is X.
    at = text.find(" X ")
    text = text[: at + 3] + re.sub(r"\bit\b(?!\s+(?:is|was)\b)", "X", text[at + 3 :])
    causes, effects = _votes(text)
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


# Two-variable questions: constructions that mark one of the two names (X; the other is
# written W) as the cause or the effect, beyond the one-variable ones above.
_X_IS_CAUSE_OF_W = [
    r"\bfrom\s+(?:the\s+)?X\b",
    r"\bback\s+(?:\w+\s+)?to\s+(?:the\s+)?X\b",
    r"\b(?:effects?|impacts?|influences?|consequences?)\s+(?:of|from)\s+(?:the\s+)?X\s+(?:on|in|upon"
    r"|over|onto)\b",
    r"\bby\s+(?:\w+ing|the)\s+(?:the\s+)?(?:value\s+of\s+|level\s+of\s+)?X\b",
    r"\bX\s+(?:\w+ly\s+)?(?:reach|reaches|propagates?|flows?|spills?|carries|carry)\b",
    r"\bX\s+(?:has|have|had|exerts?)\s+(?:\w+\s+){0,3}(?:effects?|impacts?|influences?"
    r"|bearing|say|role)\b",
    r"\bX\s+(?:an?\s+|the\s+)?(?:\w+\s+)?(?:cause|driver|ancestor|parent|source|determinant|root)"
    r"\s+(?:of|for)\s+(?:the\s+)?W\b",
    r"\bW\s+(?:\w+\s+)?(?:downstream|descendant|child|consequence|result|effect|outcome)\s+of\s+"
    r"(?:the\s+)?X\b",
]
_X_CAUSES_W_RE = any_of(_EFFECTS_OF_X + _X_IS_CAUSE_OF_W)


def _words(text: str) -> str:
    """`text` with punctuation as spaces and runs of spaces folded: words and the X/W tags
    only, as the vote patterns read them."""
    return _SPACES.sub(" ", _PUNCTUATION.sub(" ", text))


_PUNCTUATION = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"\s+")
_ARROW = re.compile(r"\s*(?:->|→|=>|⟶|-->)\s*")


def cause_and_effect(question: str, grounding: Grounding) -> tuple[str, str] | None:
    """(cause, effect) of a question naming two variables, when its wording marks which
    is which ("Can Y be moved by shifting X?", "Does Y depend causally on X?", "X -> Y");
    None when it does not, or marks both ways."""
    variables = [m for m in grounding.mentions if m.kind == "variable"]
    names = list(dict.fromkeys(m.name for m in variables))
    if len(names) != 2:
        return None
    a, b = (next(m for m in variables if m.name == n) for n in names)
    q = _norm(question)
    first, second = (a, b) if a.start < b.start else (b, a)
    between = q[first.end : second.start]
    if _ARROW.fullmatch(between):
        return first.name, second.name
    votes = set()
    for x, w in ((a, b), (b, a)):
        spans = sorted([(x.start, x.end, " X "), (w.start, w.end, " W ")])
        text, pos = "", 0
        for s, e, tag in spans:
            text += q[pos:s] + tag
            pos = e
        text += q[pos:]
        text = _words(text)
        x_effect, x_cause = _votes(text, _X_CAUSES_W_RE)
        if x_cause and not x_effect:
            votes.add((x.name, w.name))
        elif x_effect and not x_cause:
            votes.add((w.name, x.name))
    return votes.pop() if len(votes) == 1 else None
