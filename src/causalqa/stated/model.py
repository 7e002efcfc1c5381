"""The typed model a story is read into, and the typed question.

Variables are binary. A value is 1 or 0; which phrase names which value is read from
the story (see `causalqa.stated.resolve`), and every phrase read is kept so a reader can
check the mapping. Every number keeps the sentence it came from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Assignment = dict[str, int]


def show_assignment(values: Assignment, model: StatedModel | None = None) -> str:
    parts = []
    for var, val in values.items():
        if model is not None and var in model.variables:
            parts.append(model.variables[var].phrase(val))
        else:
            parts.append(f"{var}={val}")
    return ", ".join(parts)


@dataclass
class Variable:
    """A binary variable: its name as the story gives it, whether it is observed, and
    the phrases read for each of its values (value 1 first)."""

    name: str
    observed: bool = True
    phrases: dict[int, list[str]] = field(default_factory=lambda: {1: [], 0: []})
    positive_reason: str = ""

    def phrase(self, value: int) -> str:
        said = self.phrases.get(value) or []
        if said:
            return said[0]
        other = self.phrases.get(1 - value) or []
        return f"not {other[0]}" if other else f"{self.name}={value}"


@dataclass
class Probability:
    """A stated probability P(event | given) = value, from one sentence."""

    event: Assignment
    given: Assignment
    value: float
    sentence: str
    number: str

    def formal(self, model: StatedModel | None = None) -> str:
        ev = ", ".join(f"{k}={v}" for k, v in self.event.items())
        gv = ", ".join(f"{k}={v}" for k, v in self.given.items())
        return f"P({ev} | {gv})" if gv else f"P({ev})"


@dataclass
class Correlation:
    """A stated correlation between two variables (within a subgroup when `given`)."""

    a: str
    b: str
    given: Assignment
    value: float
    sentence: str
    number: str


@dataclass
class Mechanism:
    """A deterministic mechanism: `effect` takes `effect_value` exactly when the inputs
    (each a variable at a value) combine to true under `op` ("and" / "or"; one input
    for a plain "A causes B") and every one of `requires` holds ("A or B, unless C"),
    and the other value otherwise."""

    effect: str
    effect_value: int
    op: Literal["and", "or"]
    inputs: list[tuple[str, int]]
    sentence: str
    requires: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class Observation:
    variable: str
    value: int
    sentence: str


@dataclass
class Method:
    """One of the estimation methods a back-door question compares: look at how the
    treatment correlates with the outcome, overall (`adjust` empty) or case by case
    according to `adjust`."""

    label: str
    adjust: list[str]
    sentence: str


@dataclass
class StatedModel:
    variables: dict[str, Variable] = field(default_factory=dict)
    edges: list[tuple[str, str]] = field(default_factory=list)
    probabilities: list[Probability] = field(default_factory=list)
    correlations: list[Correlation] = field(default_factory=list)
    mechanisms: list[Mechanism] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    methods: list[Method] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    route: list[str] = field(default_factory=list)
    story: str = ""
    open_phrases: list[str] = field(default_factory=list)
    # the story says its graph is complete, so a missing edge means no effect
    closed_world: bool = False
    no_effect: set[tuple[str, str]] = field(default_factory=set)  # stated "A does not affect B"

    def parents(self, var: str) -> list[str]:
        return [a for a, b in self.edges if b == var]

    def to_dict(self) -> dict[str, Any]:
        return {
            "variables": [
                {
                    "name": v.name,
                    "observed": v.observed,
                    "value_1": v.phrases.get(1, []),
                    "value_0": v.phrases.get(0, []),
                }
                for v in self.variables.values()
            ],
            "edges": [list(e) for e in self.edges],
            "probabilities": [
                {
                    "event": p.event,
                    "given": p.given,
                    "value": p.value,
                    "formal": p.formal(),
                    "sentence": p.sentence,
                }
                for p in self.probabilities
            ],
            "correlations": [asdict(c) for c in self.correlations],
            "mechanisms": [asdict(m) for m in self.mechanisms],
            "observations": [asdict(o) for o in self.observations],
            "methods": [asdict(m) for m in self.methods],
            "notes": list(self.notes),
        }


QueryKind = Literal[
    "marginal",
    "correlation",
    "explaining_away",
    "collider_bias",
    "ate",
    "backdoor",
    "ett",
    "nde",
    "nie",
    "counterfactual",
]


@dataclass
class Query:
    """A question as a typed query.

    - marginal: is P(outcome=value) more (`direction` "more") or less likely than not;
    - correlation: is P(outcome | treatment) larger/smaller than P(outcome | other value);
    - explaining_away: within `given`, does P(outcome | treatment) increase/decrease
      against P(outcome) in that subgroup;
    - collider_bias: within `given`, does the treatment affect the outcome (`direction`
      "affects" / "does_not_affect");
    - ate / nde / nie: does setting the treatment to its value (against the other value)
      increase/decrease the chance of the outcome's value (nde: not through `mediators`;
      nie: only through `mediators`);
    - ett: for the group with treatment at `treatment_value`, would the outcome's value be
      more/less likely had the treatment been the other value;
    - backdoor: is method `methods[0]` more correct than `methods[1]`;
    - counterfactual: would the outcome take its value had the treatment been set to
      `treatment_value` (instead of the other), given `given` (deterministic models).
    """

    kind: QueryKind
    treatment: str | None = None
    treatment_value: int | None = None
    outcome: str | None = None
    outcome_value: int | None = None
    direction: str = ""
    given: Assignment = field(default_factory=dict)
    mediators: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    question: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, [], {}, "")}
