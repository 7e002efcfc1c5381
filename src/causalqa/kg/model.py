"""Records of a knowledge graph: nodes, the steps of a path, paths, and how paths are put
into words (paper 001, Eq. 7) or into the JSONL shape of the path-to-causality data.

A path is a *simple* path (no node twice) walked without regard to edge direction; every
step still says whether it follows its edge (``forward``) or goes against it, so
``Gene FGF6 <-expresses- Anatomy tendon`` keeps the fact that the anatomy expresses the gene.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from causalqa._compat import moved_names

DEFAULT_K = 4
"""Most hops of a path between two entities (the paper's setting for Hetionet)."""
DEFAULT_LIMIT = 100
"""Most paths returned for one pair."""


@dataclass(frozen=True, order=True)
class Node:
    """One entity: a unique `id`, a display `name` and its type (`kind`)."""

    id: str
    name: str
    kind: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class Step:
    """One edge of a path, walked from the path's i-th node to its (i+1)-th.

    `relation` is the relation's name ("binds"), `abbrev` its short form where the graph
    has one (Hetionet's metaedge "CbG", else ""), `forward` whether the stored edge points
    the way the path walks.
    """

    relation: str
    abbrev: str
    forward: bool

    @property
    def rel_type(self) -> str:
        """The relationship type as Hetionet's Neo4j spells it ("BINDS_CbG", "REGULATES_GrG"),
        or the plain relation when there is no abbreviation."""
        if not self.abbrev:
            return self.relation
        return f"{self.relation.upper().replace(' ', '_')}_{self.abbrev.replace('>', '')}"


@dataclass(frozen=True)
class KGPath:
    """A simple path between two nodes: ``nodes[0]`` is the source, ``nodes[-1]`` the target
    and ``steps[i]`` joins ``nodes[i]`` to ``nodes[i + 1]``."""

    nodes: tuple[Node, ...]
    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        if len(self.nodes) != len(self.steps) + 1:
            raise ValueError("a path has exactly one more node than steps")

    @property
    def length(self) -> int:
        return len(self.steps)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The node-type sequence (the metapath's nodes), e.g. Compound, Gene, Disease."""
        return tuple(n.kind for n in self.nodes)

    @property
    def metapath(self) -> str:
        """Node types and relations in one string, e.g. ``Compound-binds-Gene-associates-Disease``
        (arrows mark steps walked against their edge: ``Gene<-expresses-Anatomy``)."""
        parts = [self.nodes[0].kind]
        for step, node in zip(self.steps, self.nodes[1:]):
            parts.append(f"-{step.relation}-" if step.forward else f"<-{step.relation}-")
            parts.append(node.kind)
        return "".join(parts)

    def sort_key(self) -> tuple:
        """Shortest first, then by node ids and relations step by step: the one stable order
        every engine (index, Cypher, networkx in the tests) reports paths in."""
        return (
            self.length,
            tuple(
                (node.id, step.relation, step.abbrev, not step.forward)
                for step, node in zip(self.steps, self.nodes[1:])
            ),
        )

    def verbalise(self, **options: Any) -> str:
        return verbalise(self, **options)

    def to_record(self) -> dict[str, Any]:
        """The path in the shape of ``path-to-causality/*/train_full.jsonl`` metapaths
        (``stops``, ``reltypes``, ``nodelabels``; names and labels joined by " - "), plus
        the node ids and step directions the data does not carry."""
        return {
            "stops": " - ".join(n.name for n in self.nodes),
            "reltypes": " - ".join(s.rel_type for s in self.steps),
            "nodelabels": " - ".join(n.kind.replace(" ", "") for n in self.nodes),
            "node_ids": [n.id for n in self.nodes],
            "directions": ["forward" if s.forward else "backward" for s in self.steps],
            "length": self.length,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": [n.to_dict() for n in self.nodes],
            "steps": [
                {
                    "relation": s.relation,
                    "abbrev": s.abbrev,
                    "direction": "forward" if s.forward else "backward",
                }
                for s in self.steps
            ],
            "length": self.length,
            "metapath": self.metapath,
            "text": self.verbalise(),
            "text_plain": self.verbalise(types=False, relations=False),
        }


def _arrow(step: Step, directed: bool) -> str:
    if directed and not step.forward:
        return f"<-{step.relation}-"
    return f"-{step.relation}->"


def verbalise(
    path: KGPath,
    *,
    types: bool = True,
    relations: bool = True,
    directed: bool = True,
    sep: str = " - ",
) -> str:
    """Put a path into words, the two ways of paper 001's Eq. 7.

    - ``types=True, relations=True`` (Eq. 7): one triple per step, "type name -rel-> type
      name", joined by ", ":
      ``Compound Raloxifene -upregulates-> Gene ERBB2, Gene ERBB2 <-associates- Disease melanoma``
    - ``types=False, relations=False`` (the simplest form, and the ``stops`` field of the
      path-to-causality data): ``Raloxifene - ERBB2 - melanoma`` (`sep` between names; the
      paper also uses " → ").
    - ``types=False, relations=True``: ``Raloxifene -upregulates-> ERBB2 <-associates- melanoma``
    - ``types=True, relations=False`` (the ranker input of Appendix D.1):
      ``Compound Raloxifene - Gene ERBB2 - Disease melanoma``

    With ``directed=False`` every relation is written as a forward arrow, as in the paper's
    example, dropping which way the stored edge points.
    """

    def label(node: Node) -> str:
        return f"{node.kind} {node.name}" if types else node.name

    if not relations:
        return sep.join(label(n) for n in path.nodes)
    if types:
        return ", ".join(
            f"{label(a)} {_arrow(s, directed)} {label(b)}"
            for a, s, b in zip(path.nodes, path.steps, path.nodes[1:])
        )
    parts = [label(path.nodes[0])]
    for step, node in zip(path.steps, path.nodes[1:]):
        parts += [_arrow(step, directed), label(node)]
    return " ".join(parts)


__getattr__ = moved_names(__name__)  # old names, for one release
