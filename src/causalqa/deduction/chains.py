"""Causal chains: parse ``A --> B --> C`` lists out of model output, clean and print them.

Prompts 3 and 4 ask for one chain per list item, events joined by ``-->``. Models answer
with numbered or bulleted lists, markdown, other arrows (``->``, ``→``, ``=>``), chains
wrapped over two lines, a preamble, an echoed example, or a reply cut off mid-chain.
`parse_chains` keeps every chain such output does contain and drops only what is not a
chain.

>>> [c.nodes for c in parse_chains("1. Ice on the wing --> Lift lost --> Stall")]
[('Ice on the wing', 'Lift lost', 'Stall')]
>>> parse_chains("Sure! Here you go:\\n- fatigue -> late flare → hard landing")[0].edges
[('fatigue', 'late flare'), ('late flare', 'hard landing')]
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

EXTRACTED = "extracted"
INFERRED = "inferred"
SIMILAR = "similar"
RETRIEVED = "retrieved"

# Longest first, so "-->" is not read as "-" + "->". A lone hyphen never splits: it joins
# words ("low-altitude"). "-- >" and "- ->" are spaced-out arrows models do write.
ARROW = re.compile(r"\s*(?:-{1,3}\s?-?>|–+>|—+>|={1,2}>|→|⟶|⇒|⟹|➔|➜|➝|➞|⇨|\u2192)\s*")

_BULLET = re.compile(
    r"""^\s*(?:
        [-*•·‣▪◦+]\s+                       # - item, * item, • item
      | \(?\d{1,3}\s*(?:[.:](?!\d)|[)\]])\s*  # 1. item, 1) item, (1) item, 1: item
      | \(?[a-zA-Z][.)]\s+                  # a) item, b. item
      | (?:step|chain|relation)\s*\d+\s*[:.)-]\s*   # Step 1: item
    )""",
    re.VERBOSE | re.IGNORECASE,
)
_LABEL = re.compile(
    r"^\s*(?:answer|chain|causal\s+chain|relation|extracted|inferred|causal\s+events?|"
    r"cause\s+and\s+effect(?:\s+events?)?)\s*\d*\s*[:.-]\s+",
    re.IGNORECASE,
)
_ENDS_WITH_ARROW = re.compile(f"(?:{ARROW.pattern})$")
_PLACEHOLDER = re.compile(r"^(?:\.{2,}|…|etc\.?|and so on|cause event|effect event)$", re.I)
_ACCIDENT_TAG = re.compile(r"\s*\((?:the\s+)?accident\)\s*$", re.IGNORECASE)
_CAUSE_LINE = re.compile(r"^\s*(?:[-*•]\s*)?\**cause\**\s*(?:event)?\s*:\s*(.+)$", re.I)
_EFFECT_LINE = re.compile(r"^\s*(?:[-*•]\s*)?\**effect\**\s*(?:event)?\s*:\s*(.+)$", re.I)


@dataclass(frozen=True)
class Chain:
    """One causal chain: events in order, each causing the next.

    `kind` is where it came from ("extracted" from a report, "inferred" from a candidate
    cause, or a retriever's label), `report_id` the report it was mined from, and
    `statement` the candidate cause an inferred chain starts from.
    """

    nodes: tuple[str, ...]
    kind: str = EXTRACTED
    report_id: str | None = None
    statement: str | None = None
    score: float | None = field(default=None, compare=False)

    @property
    def edges(self) -> list[tuple[str, str]]:
        """Cause → effect pairs, one per arrow."""
        return list(zip(self.nodes[:-1], self.nodes[1:]))

    @property
    def text(self) -> str:
        return " --> ".join(self.nodes)

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict:
        return {
            "nodes": list(self.nodes),
            "kind": self.kind,
            "report_id": self.report_id,
            "statement": self.statement,
            "text": self.text,
            **({"score": self.score} if self.score is not None else {}),
        }

    @classmethod
    def from_dict(cls, d: dict) -> Chain:
        return cls(
            nodes=tuple(d["nodes"]),
            kind=d.get("kind", EXTRACTED),
            report_id=d.get("report_id"),
            statement=d.get("statement"),
            score=d.get("score"),
        )


def node_key(text: str) -> str:
    """The identity of an event's text: case, quotes, spacing, end punctuation and an
    ``(Accident)`` tag do not make two events different."""
    t = unicodedata.normalize("NFKC", text)
    t = t.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    t = re.sub(r"\s+", " ", t).strip().strip(" .,;:!\"'*`")
    t = _ACCIDENT_TAG.sub("", t).strip(" .,;:!\"'*`").casefold()
    return t


def clean_node(text: str) -> str:
    """An event's text as shown: markdown, quotes, list debris and end punctuation removed."""
    t = text.replace("**", "").replace("__", "").replace("`", "")
    t = re.sub(r"\s+", " ", t).strip().rstrip(".").rstrip()
    t = _ACCIDENT_TAG.sub("", t)
    # Balanced wrapping quotes or brackets around a whole event.
    for a, b in (('"', '"'), ("“", "”"), ("'", "'"), ("(", ")"), ("[", "]")):
        if len(t) > 2 and t.startswith(a) and t.endswith(b) and t.count(a) <= 2:
            t = t[1:-1].strip()
    return t.strip(" \t,;:").rstrip(".").strip()


_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z\"“'])")


def _split_chain(line: str) -> list[str]:
    raw = ARROW.split(line)
    # Prose before the first event ("The report says X. Chain 1: Fuel leak --> …") or
    # after the last ("… --> Forced landing. No one was hurt.") is not part of an event.
    raw[0] = _SENTENCE_END.split(raw[0])[-1]
    raw[-1] = _SENTENCE_END.split(raw[-1])[0]
    raw[0] = _LABEL.sub("", raw[0], count=1)
    parts = [clean_node(p) for p in raw]
    # An empty part is a doubled arrow or a reply cut off after "-->": skip it, keep the
    # chain through its neighbours.
    return [p for p in parts if p and not _PLACEHOLDER.match(p)]


def _logical_lines(text: str) -> list[str]:
    """Lines, with a chain wrapped over several lines joined back into one: a chain line
    ending in an arrow, or followed by a line that starts with an arrow or is indented
    and not a new list item, continues on the next line."""
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines: list[str] = []
    for ln in raw:
        s = ln.strip()
        if not s or s.startswith("```"):
            lines.append("")
            continue
        prev = lines[-1] if lines else ""
        chain_before = bool(prev) and ARROW.search(prev) is not None
        joins = (
            bool(prev)
            and not _BULLET.match(s)
            and (
                ARROW.match(s) is not None
                or chain_before
                and (
                    _ENDS_WITH_ARROW.search(prev) is not None
                    or (ln[:1].isspace() and not _CAUSE_LINE.match(s))
                )
            )
        )
        if joins:
            lines[-1] = f"{prev} {s}"
        else:
            lines.append(s)
    return [ln for ln in lines if ln]


_EXAMPLE_KEYS: set[tuple[str, ...]] = set()


def _example_keys() -> set[tuple[str, ...]]:
    if not _EXAMPLE_KEYS:
        from causalqa.deduction.prompts import EXAMPLE_CHAINS

        _EXAMPLE_KEYS.update(tuple(node_key(n) for n in c) for c in EXAMPLE_CHAINS)
    return _EXAMPLE_KEYS


ECHO_RATIO = 0.8
"""Levenshtein ratio at which both events of a pair count as a copy of an example pair."""
ECHO_EVENT_RATIO = 0.85
"""… and at which one event counts as a copy of a long (≥ 50 characters) example event."""


def echoes_example(nodes: Sequence[str]) -> bool:
    """Whether a chain copies the prompts' example chains (Prompts 3 and 4), whole or
    edited: a small model echoes them, often with a word changed ("Train B not stopped
    before red signal", "Pilot failed to operate the aircraft in accordance with signal
    indications and speed restriction") or spliced into its own chain.

    A chain echoes an example if it is one, if one of its cause → effect pairs matches an
    example pair (each event at Levenshtein ratio ≥ `ECHO_RATIO`), if one of its events
    holds a whole example event inside a longer text, or if one of its events copies a
    long example event (ratio ≥ `ECHO_EVENT_RATIO`: too specific to recur by chance). A
    single event that resembles a short example event ("Train collided with another
    train" in a rail report) is not enough.
    """
    from rapidfuzz import fuzz

    key = tuple(node_key(n) for n in nodes)
    examples = _example_keys()
    if key in examples:
        return True
    events = {e for ex in examples for e in ex if len(e) >= 20}
    if any(e in k and e != k for k in key for e in events):
        return True
    long_events = {e for e in events if len(e) >= 50}
    if any(fuzz.ratio(k, e) >= 100 * ECHO_EVENT_RATIO for k in key for e in long_events):
        return True
    pairs = {(a, b) for ex in examples for a, b in zip(ex[:-1], ex[1:])}
    for a, b in zip(key[:-1], key[1:]):
        for ea, eb in pairs:
            if fuzz.ratio(a, ea) >= 100 * ECHO_RATIO and fuzz.ratio(b, eb) >= 100 * ECHO_RATIO:
                return True
    return False


def parse_chains(
    text: str,
    *,
    kind: str = EXTRACTED,
    report_id: str | None = None,
    statement: str | None = None,
    drop_examples: bool = True,
    truncated: bool = False,
) -> list[Chain]:
    """Every causal chain in a model's reply, in order, each once.

    A chain is a line (or a list item wrapped over lines) with at least one arrow
    (``-->``, ``->``, ``→``, ``=>``, ``⇒``, ``—>`` …) between two non-empty events; list
    markers (``1.``, ``-``, ``*``, ``(a)``, ``Step 2:``), markdown emphasis, labels such as
    ``Answer:`` and an ``(Accident)`` tag are stripped. Several chains on one line split
    at ``;``. ``Cause: X`` / ``Effect: Y`` line pairs count as one edge. An event repeated
    back to back (a model looping) is kept once. Lines without an
    arrow are prose and ignored; the prompts' own example chains, and edited copies of
    them (`echoes_example`), are dropped unless `drop_examples` is False.

    `truncated` says the reply was cut off (by the token budget) rather than ended: its
    last event may be a word cut in half, so the reply's last line loses its last event
    (the rest of that chain, and every earlier chain, is kept) unless the reply ended
    at a line break.
    """
    if not text or not text.strip():
        return []
    if truncated and not text.endswith(("\n", "\r")):
        text = _drop_cut_event(text)
    found: list[Chain] = []
    seen: set[tuple[str, ...]] = set()

    def add(nodes: Sequence[str]) -> None:
        # A model stuck in a loop repeats an event ("X --> X --> X …"): once is enough.
        nodes = [n for i, n in enumerate(nodes) if not i or node_key(n) != node_key(nodes[i - 1])]
        if len(nodes) < 2:
            return
        key = tuple(node_key(n) for n in nodes)
        if key in seen or any(not k for k in key):
            return
        if drop_examples and echoes_example(nodes):
            return
        seen.add(key)
        found.append(Chain(tuple(nodes), kind, report_id, statement))

    pending_cause: str | None = None
    for line in _logical_lines(text):
        cause = _CAUSE_LINE.match(line)
        effect = _EFFECT_LINE.match(line)
        if cause and not ARROW.search(line):
            pending_cause = clean_node(cause.group(1))
            continue
        if effect and pending_cause and not ARROW.search(line):
            add([pending_cause, clean_node(effect.group(1))])
            pending_cause = None
            continue
        pending_cause = None
        if not ARROW.search(line):
            continue
        body = _BULLET.sub("", line.replace("**", "").replace("__", ""), count=1)
        body = _LABEL.sub("", body, count=1)
        pieces = body.split(";") if body.count(";") and _all_have_arrows(body) else [body]
        for piece in pieces:
            add(_split_chain(piece))
    return found


def _drop_cut_event(text: str) -> str:
    """`text` without what follows the last arrow of its last line (an event cut off
    mid-word); unchanged if the last line has no arrow (prose, not a chain)."""
    head, sep, last = text.rpartition("\n")
    matches = list(ARROW.finditer(last))
    if not matches:
        return text
    return head + sep + last[: matches[-1].start()]


def _all_have_arrows(body: str) -> bool:
    return all(ARROW.search(p) for p in body.split(";"))


def chain_edges(chains: Iterable[Chain]) -> list[tuple[str, str]]:
    """All cause → effect pairs of `chains`, in order (duplicates kept)."""
    return [e for c in chains for e in c.edges]


def format_chains(chains: Iterable[Chain | Sequence[str] | str], *, bullet: str = "- ") -> str:
    """One ``- A --> B --> C`` line per chain, as the prompts show relations."""
    lines = []
    for c in chains:
        if isinstance(c, str):
            lines.append(bullet + c)
        elif isinstance(c, Chain):
            lines.append(bullet + c.text)
        else:
            lines.append(bullet + " --> ".join(c))
    return "\n".join(lines)


def clean_chains(
    chains: Iterable[Chain],
    *,
    threshold: float = 0.8,
    limit: int | None = 10,
    per_kind: bool = True,
) -> list[Chain]:
    """The paper's post-processing (§4.3): drop a chain whose text has a Levenshtein
    ratio ≥ `threshold` with an earlier kept one (the first instance wins), then keep the
    first `limit` chains of each kind (or overall with ``per_kind=False``). ``limit=None``
    skips truncation; ``threshold=None``-like values > 1 skip de-duplication."""
    from rapidfuzz import fuzz

    kept: list[Chain] = []
    texts: list[str] = []
    counts: dict[str, int] = {}
    for c in chains:
        t = c.text.casefold()
        if threshold <= 1 and any(fuzz.ratio(t, u) / 100.0 >= threshold for u in texts):
            continue
        group = c.kind if per_kind else "*"
        if limit is not None and counts.get(group, 0) >= limit:
            continue
        counts[group] = counts.get(group, 0) + 1
        kept.append(c)
        texts.append(t)
    return kept
