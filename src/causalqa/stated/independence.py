"""Stated (in)dependences → what follows (Corr2Cause, Jin et al., ICLR 2024).

A premise lists, for a closed system of named variables, which pairs correlate and which
are independent, marginally or given sets of the others; a claim asserts a causal
relation between two of them (`Relation`). The claim follows — the answer is "yes" —
iff it holds in **every** DAG faithful to the stated independences, i.e. in every member
of their Markov equivalence class. The steps, each recorded in the derivation:

1. read: the premise into typed statements (`read_premise`), the claim into a relation
   (`read_claim`); sentences that name no variable (prose, "No other independences
   hold.") are skipped and listed; an unreadable sentence, a name that is no variable, or
   two sentences that contradict each other are refused, naming them;
2. complete: in a closed system the list is complete, so every pair and conditioning set
   not stated independent is dependent;
3. PC: the PC algorithm with those statements as its independence oracle gives the
   skeleton, the separating sets, the v-structures, and with Meek's rules the CPDAG;
4. the class: every orientation of the CPDAG's undirected edges without a new
   v-structure or a cycle;
5. faithfulness: a member's d-separations must be exactly the stated independences
   (then every member's are); if not, no DAG has exactly these independences and the
   premise is refused;
6. evaluate the relation on each member: yes iff it holds in all of them.

    >>> a = answer_independence_claim(
    ...     "Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
    ...     "relations among these 3 variables are as follows: A correlates with C. B "
    ...     "correlates with C. However, A is independent of B.", "A directly causes C.")
    >>> a.answer, a.value
    ('yes', 1.0)
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass

from causalqa.errors import StoryError
from causalqa.stated.answer import StatedAnswer
from causalqa.stated.independence_graph import (
    Dag,
    Pattern,
    Relation,
    bits,
    class_members,
    d_separated,
    mask_of,
    pc,
    relation_holds,
    submasks,
)
from causalqa.stated.independence_reader import (
    Claim,
    Premise,
    Statement,
    read_claim,
    read_premise,
)

__all__ = [
    "Claim",
    "EquivalenceClass",
    "MAX_MEMBERS",
    "MAX_VARIABLES",
    "Premise",
    "Relation",
    "Statement",
    "answer_independence_claim",
    "equivalence_class",
    "is_independence_story",
    "read_claim",
    "read_premise",
]

MAX_VARIABLES = 12
"""More variables than this are refused: the faithfulness check tests every pair given
every subset of the others (66 pairs × 1,024 sets at 12)."""
MAX_MEMBERS = 100_000
"""A class with more members than this is refused rather than enumerated."""

_HYPOTHESIS = re.compile(r"\b(?:hypothesis|claim)\s*:\s*", re.IGNORECASE)
_STORY_SIGNS = re.compile(
    r"\bclosed system\b|\b(?:correlates|is correlated|are correlated|is associated) with\b|"
    r"\bare (?:correlated|associated)\b|\b(?:statistically|conditionally) (?:in)?dependent\b|"
    r"\bare (?:conditionally )?independent\b|\bis (?:conditionally )?independent (?:of|from)\b|"
    r"\buncorrelated\b|⫫|⊥",
    re.IGNORECASE,
)


def is_independence_story(text: str) -> bool:
    """Whether `text` looks like a premise of stated (in)dependences (for routing a story
    to this reader rather than the one for graphs with probabilities): it mentions a
    closed system or states correlations / independences, and gives no percentages."""
    return bool(_STORY_SIGNS.search(text)) and not re.search(r"\d\s*%|\b0?\.\d+\b", text)


@dataclass
class EquivalenceClass:
    """The Markov equivalence class of a premise's stated independences."""

    variables: tuple[str, ...]
    pattern: Pattern
    members: list[Dag]
    checked_statements: int

    def edge_text(self, tail: int, head: int, arrow: str = "→") -> str:
        return f"{self.variables[tail]}{arrow}{self.variables[head]}"

    def describe(self) -> list[str]:
        """The derivation's graph steps, in words a reader can check."""
        v = self.variables
        p = self.pattern
        skeleton = sorted(tuple(sorted(e)) for e in p.adjacent)
        lines = [
            "skeleton (PC, the statements as independence oracle): "
            + (", ".join(f"{v[a]}–{v[b]}" for a, b in skeleton) or "no edges"),
        ]
        seps = [
            f"{v[a]}, {v[b]} by {{{', '.join(v[i] for i in bits(m))}}}"
            for (a, b), m in sorted(
                ((tuple(sorted(k)), m) for k, m in p.separating.items()), key=lambda t: t[0]
            )
        ]
        if seps:
            lines.append("separating sets: " + "; ".join(seps))
        lines.append(
            "v-structures: "
            + (", ".join(f"{v[a]}→{v[c]}←{v[b]}" for a, c, b in sorted(p.v_structures)) or "none")
        )
        directed = ", ".join(self.edge_text(a, b) for a, b in sorted(p.directed)) or "none"
        undirected = (
            ", ".join(f"{v[a]}–{v[b]}" for a, b in sorted(tuple(sorted(e)) for e in p.undirected))
            or "none"
        )
        lines.append(f"CPDAG (Meek's rules): directed {directed}; undirected {undirected}")
        lines.append(
            f"faithfulness: the class's d-separations equal the stated independences "
            f"({self.checked_statements} pair-and-set combinations checked)"
        )
        shown = "; ".join(
            "[" + (", ".join(self.edge_text(a, b) for a, b in m.edges) or "no edges") + "]"
            for m in self.members[:8]
        )
        more = f"; … {len(self.members) - 8} more" if len(self.members) > 8 else ""
        lines.append(f"Markov equivalence class: {len(self.members)} DAG(s): {shown}{more}")
        return lines


def _closed_world_oracle(premise: Premise):
    """The independence oracle of a closed system: independent iff stated independent."""
    index = {name: i for i, name in enumerate(premise.variables)}
    stated: set[tuple[int, int, int]] = set()
    for s in premise.statements:
        if s.independent:
            x, y = sorted((index[s.x], index[s.y]))
            stated.add((x, y, mask_of(index[g] for g in s.given)))
    return stated


def equivalence_class(premise: Premise) -> EquivalenceClass:
    """The DAGs faithful to the premise's independences (with every unstated pair and set
    dependent). Raises `StoryError` when no DAG is faithful to them, or when there are too
    many variables or members to enumerate."""
    n = len(premise.variables)
    if n > MAX_VARIABLES:
        raise StoryError(
            f"the premise has {n} variables; at most {MAX_VARIABLES} are answered (every pair "
            f"is checked given every subset of the others)"
        )
    stated = _closed_world_oracle(premise)
    pattern = pc(n, lambda x, y, given: (x, y, given) in stated)
    names = premise.variables
    if pattern.conflicts:
        (a1, c1, b1), (a2, c2, b2) = pattern.conflicts[0]
        raise StoryError(
            "no causal graph over these variables has exactly these independences: the "
            f"v-structures {names[a1]}→{names[c1]}←{names[b1]} and "
            f"{names[a2]}→{names[c2]}←{names[b2]} orient an edge both ways"
        )
    members = class_members(pattern, MAX_MEMBERS)
    if members is None:
        raise StoryError(
            f"the equivalence class has more than {MAX_MEMBERS:,} members; too many to check "
            f"one by one"
        )
    if not members:
        raise StoryError(
            "no causal graph over these variables has exactly these independences: every "
            "orientation of the skeleton PC finds adds a v-structure or a cycle"
        )
    checked = _check_faithful(members[0], stated, premise)
    return EquivalenceClass(names, pattern, members, checked)


def _check_faithful(dag: Dag, stated: set[tuple[int, int, int]], premise: Premise) -> int:
    """Raise unless `dag`'s d-separations are exactly `stated`; the number checked.

    If any DAG were faithful to the statements, PC would have returned its class, so a
    member that disagrees with them proves no DAG is faithful."""
    n = len(premise.variables)
    names = premise.variables
    everyone = (1 << n) - 1
    checked = 0
    for x, y in itertools.combinations(range(n), 2):
        for given in submasks(everyone & ~(1 << x) & ~(1 << y)):
            checked += 1
            separated = d_separated(dag, x, y, given)
            if separated == ((x, y, given) in stated):
                continue
            cond = f" given {', '.join(names[i] for i in bits(given))}" if given else ""
            if separated:
                problem = (
                    f"the graphs that fit the other statements make {names[x]} and "
                    f"{names[y]} independent{cond}, which the premise does not state (in a "
                    f"closed system an unstated pair is dependent)"
                )
            else:
                sentence = _sentence_of(premise, names[x], names[y], given)
                problem = (
                    f"{sentence!r} cannot hold together with the other statements"
                    if sentence
                    else f"{names[x]} and {names[y]} independent{cond} cannot hold"
                )
            raise StoryError(
                "no causal graph over these variables has exactly these independences: " + problem
            )
    return checked


def _sentence_of(premise: Premise, x: str, y: str, given: int) -> str | None:
    index = {name: i for i, name in enumerate(premise.variables)}
    for s in premise.statements:
        if s.independent and {s.x, s.y} == {x, y} and mask_of(index[g] for g in s.given) == given:
            return s.sentence
    return None


def _split_story(story: str, claim: str | None) -> tuple[str, str]:
    if claim is not None and claim.strip():
        return story, claim
    parts = _HYPOTHESIS.split(story, maxsplit=1)
    if len(parts) == 2:
        return parts[0], parts[1]
    raise StoryError(
        "no claim to check: give one (e.g. 'A directly causes B.') or end the story with "
        "'Hypothesis: …'"
    )


def answer_independence_claim(story: str, claim: str | None = None) -> StatedAnswer:
    """Whether `claim` follows from the (in)dependences stated in `story`.

    `story` is the premise (a closed system of named variables and which pairs correlate
    or are independent, marginally or given sets); `claim` one relation of `Relation`
    between two of its variables, as a statement or a yes/no question. Without `claim`,
    the story may carry it after "Hypothesis:". Returns a `StatedAnswer`: "yes" iff the
    claim holds in every DAG of the stated independences' Markov equivalence class,
    `value` the share of the class's members in which it holds; a refusal (answer None,
    `reason` naming the sentence) when the premise or claim cannot be read, contradicts
    itself, or fits no DAG. Never raises for bad input.
    """
    start = time.perf_counter()
    derivation: list[str] = []
    model: dict = {}
    query: dict = {}
    try:
        premise_text, claim_text = _split_story(story, claim)
        premise = read_premise(premise_text)
        model = premise.as_dict()
        parsed = read_claim(claim_text, premise.variables)
        query = parsed.as_dict()
        n_ind = sum(s.independent for s in premise.statements)
        derivation.append(
            f"read {len(premise.variables)} variables ({', '.join(premise.variables)}) and "
            f"{len(premise.statements)} statements ({n_ind} independent, "
            f"{len(premise.statements) - n_ind} dependent); closed system: every pair and "
            f"conditioning set not stated independent is dependent"
        )
        derivation.extend(premise.notes)
        derivation.append(f"claim: {parsed.describe()} ({_meaning(parsed)})")
        mec = equivalence_class(premise)
        derivation.extend(mec.describe())
        index = {name: i for i, name in enumerate(premise.variables)}
        holds = [
            relation_holds(dag, parsed.relation, index[parsed.a], index[parsed.b]) != parsed.negated
            for dag in mec.members
        ]
        count = sum(holds)
        verdict = "yes" if count == len(holds) else "no"
        derivation.append(
            f"the claim holds in {count} of the {len(holds)} member(s) → {verdict}"
            + ("" if verdict == "yes" else " (it must hold in all of them)")
        )
        return StatedAnswer(
            answer=verdict,
            value=count / len(holds),
            estimand=f"{parsed.describe()} in every DAG of the Markov equivalence class of "
            f"the stated independences",
            query=query,
            model=model,
            derivation=derivation,
            route=["rules"],
            seconds=time.perf_counter() - start,
        )
    except StoryError as error:
        return StatedAnswer(
            answer=None,
            reason=error.message,
            query=query,
            model=model,
            derivation=derivation,
            route=["rules"],
            seconds=time.perf_counter() - start,
        )


_MEANINGS = {
    Relation.PARENT: "the edge {a}→{b}",
    Relation.CHILD: "the edge {b}→{a}",
    Relation.ANCESTOR: "a directed path {a}→…→{b} of length ≥ 2 and no edge {a}→{b}",
    Relation.DESCENDANT: "a directed path {b}→…→{a} of length ≥ 2 and no edge {b}→{a}",
    Relation.COLLIDER: "a third variable C with {a}→C←{b}",
    Relation.CONFOUNDER: "a third variable C with {a}←C→{b}",
    Relation.CAUSE: "a directed path {a}→…→{b} of any length",
}


def _meaning(claim: Claim) -> str:
    text = _MEANINGS[claim.relation].format(a=claim.a, b=claim.b)
    return f"there is not {text}" if claim.negated else text
