"""The graph side of stated (in)dependences: d-separation, the PC algorithm with the stated
independences as its oracle, Meek's orientation rules, the members of a Markov
equivalence class, and the Corr2Cause relations evaluated on one DAG.

Variables are the integers ``0 … n-1`` here (the reader maps names to them); a DAG is a
`Dag` holding each node's parents as a bit mask, a conditioning set is a bit mask too, so
the thousands of d-separation tests a 6-variable premise needs take milliseconds.

    >>> chain = Dag.from_edges(3, [(0, 1), (1, 2)])
    >>> d_separated(chain, 0, 2, 0), d_separated(chain, 0, 2, 0b010)
    (False, True)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum

Edge = tuple[int, int]
IndependenceOracle = Callable[[int, int, int], bool]
"""``independent(x, y, given_mask)``: are x and y independent given the set `given_mask`?"""


def bits(mask: int) -> Iterator[int]:
    """The members of a bit-mask set, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(nodes: Iterable[int]) -> int:
    mask = 0
    for node in nodes:
        mask |= 1 << node
    return mask


@dataclass(frozen=True)
class Dag:
    """A directed graph over ``0 … n-1`` given by each node's parents (a bit mask)."""

    n: int
    parents: tuple[int, ...]
    kids: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kids = [0] * self.n
        for head in range(self.n):
            for tail in bits(self.parents[head]):
                kids[tail] |= 1 << head
        object.__setattr__(self, "kids", tuple(kids))

    @classmethod
    def from_edges(cls, n: int, edges: Iterable[Edge]) -> Dag:
        parents = [0] * n
        for tail, head in edges:
            parents[head] |= 1 << tail
        return cls(n, tuple(parents))

    @property
    def edges(self) -> list[Edge]:
        return [(tail, head) for head in range(self.n) for tail in bits(self.parents[head])]

    def has_edge(self, tail: int, head: int) -> bool:
        return bool(self.parents[head] >> tail & 1)

    def children(self) -> tuple[int, ...]:
        """Each node's children (a bit mask)."""
        return self.kids

    def descendants(self, node: int) -> int:
        """The nodes reachable from `node` by a directed path of length ≥ 1 (a mask)."""
        kids = self.children()
        seen, frontier = 0, kids[node]
        while frontier:
            seen |= frontier
            nxt = 0
            for v in bits(frontier):
                nxt |= kids[v]
            frontier = nxt & ~seen
        return seen

    def ancestors_of_set(self, mask: int) -> int:
        """`mask` and every node with a directed path into it (a mask)."""
        seen, frontier = mask, mask
        while frontier:
            nxt = 0
            for v in bits(frontier):
                nxt |= self.parents[v]
            frontier = nxt & ~seen
            seen |= frontier
        return seen

    def is_acyclic(self) -> bool:
        remaining = (1 << self.n) - 1
        while remaining:
            # A node none of whose parents remain can go first among the remaining ones.
            sources = [v for v in bits(remaining) if not self.parents[v] & remaining]
            if not sources:
                return False
            remaining &= ~mask_of(sources)
        return True

    def v_structures(self) -> set[tuple[int, int, int]]:
        """Every ``(a, c, b)`` with ``a → c ← b``, ``a < b`` and a, b not adjacent."""
        found = set()
        for c in range(self.n):
            for a, b in itertools.combinations(bits(self.parents[c]), 2):
                if not (self.has_edge(a, b) or self.has_edge(b, a)):
                    found.add((a, c, b))
        return found


def d_separated(dag: Dag, x: int, y: int, given: int) -> bool:
    """Whether x and y are d-separated given the set `given` (a mask) in `dag`.

    The reachability form of the criterion (Koller & Friedman, Algorithm 3.1): a trail may
    pass a non-collider only outside `given`, and a collider only if it is in `given` or
    an ancestor of it. x and y must not be in `given`.
    """
    kids = dag.children()
    opens_collider = dag.ancestors_of_set(given)
    # (node, arrived_from_child): going "up" a trail reached node from one of its children.
    stack = [(x, True)]
    visited: set[tuple[int, bool]] = set()
    while stack:
        node, up = stack.pop()
        if (node, up) in visited:
            continue
        visited.add((node, up))
        observed = bool(given >> node & 1)
        if node == y and not observed:
            return False
        if up and not observed:
            stack.extend((p, True) for p in bits(dag.parents[node]))
            stack.extend((c, False) for c in bits(kids[node]))
        elif not up:
            if not observed:
                stack.extend((c, False) for c in bits(kids[node]))
            if opens_collider >> node & 1:
                stack.extend((p, True) for p in bits(dag.parents[node]))
    return True


def independence_set(dag: Dag) -> set[tuple[int, int, int]]:
    """Every ``(x, y, given_mask)`` with ``x < y`` for which x and y are d-separated."""
    found = set()
    everyone = (1 << dag.n) - 1
    for x, y in itertools.combinations(range(dag.n), 2):
        rest = everyone & ~(1 << x) & ~(1 << y)
        for given in submasks(rest):
            if d_separated(dag, x, y, given):
                found.add((x, y, given))
    return found


def submasks(mask: int) -> Iterator[int]:
    """Every subset of `mask`, the empty set first, smaller sets before larger ones."""
    members = list(bits(mask))
    for size in range(len(members) + 1):
        for chosen in itertools.combinations(members, size):
            yield mask_of(chosen)


# -- PC with an oracle -----------------------------------------------------------------------
@dataclass
class Pattern:
    """What PC finds: the skeleton, the separating set of each non-adjacent pair, the
    v-structures, and after Meek's rules the CPDAG (`directed` plus `undirected` edges).
    `conflicts` lists edges two v-structures orient both ways (no faithful DAG exists)."""

    n: int
    adjacent: set[frozenset[int]]
    separating: dict[frozenset[int], int]
    v_structures: set[tuple[int, int, int]] = field(default_factory=set)
    directed: set[Edge] = field(default_factory=set)
    undirected: set[frozenset[int]] = field(default_factory=set)
    conflicts: list[tuple[tuple[int, int, int], tuple[int, int, int]]] = field(default_factory=list)

    def adjacent_to(self, node: int) -> set[int]:
        return {other for edge in self.adjacent if node in edge for other in edge - {node}}


def pc(n: int, independent: IndependenceOracle) -> Pattern:
    """The PC algorithm (the stable variant: each level's adjacencies are frozen before
    its tests) with `independent` as the conditional-independence oracle; returns the
    pattern with the CPDAG from Meek's rules 1–3 (rule 4 is only needed with background
    knowledge, Meek 1995).

    With an oracle that is faithful to some DAG the skeleton and v-structures are that
    DAG's, so the CPDAG is its Markov equivalence class (Spirtes, Glymour & Scheines 2000).
    """
    adjacent = {frozenset(pair) for pair in itertools.combinations(range(n), 2)}
    separating: dict[frozenset[int], int] = {}
    level = 0
    while True:
        neighbours = {v: _neighbours(adjacent, v) for v in range(n)}
        if all(len(neighbours[v]) - 1 < level for v in range(n)):
            break
        for x in range(n):
            for y in sorted(neighbours[x]):
                pair = frozenset((x, y))
                if pair not in adjacent:
                    continue
                for given in itertools.combinations(sorted(neighbours[x] - {y}), level):
                    mask = mask_of(given)
                    if independent(min(x, y), max(x, y), mask):
                        adjacent.discard(pair)
                        separating[pair] = mask
                        break
        level += 1

    pattern = Pattern(n, adjacent, separating)
    oriented: dict[Edge, tuple[int, int, int]] = {}
    for c in range(n):
        for a, b in itertools.combinations(sorted(pattern.adjacent_to(c)), 2):
            if frozenset((a, b)) in adjacent or separating[frozenset((a, b))] >> c & 1:
                continue
            triple = (a, c, b)
            pattern.v_structures.add(triple)
            for tail in (a, b):
                if (c, tail) in oriented:
                    pattern.conflicts.append((oriented[(c, tail)], triple))
                oriented.setdefault((tail, c), triple)
    pattern.directed = {edge for edge in oriented if (edge[1], edge[0]) not in oriented}
    pattern.undirected = {
        edge
        for edge in adjacent
        if not any((a, b) in oriented for a, b in itertools.permutations(edge))
    }
    if not pattern.conflicts:
        _apply_meek(pattern)
    return pattern


def _neighbours(adjacent: set[frozenset[int]], node: int) -> set[int]:
    return {other for edge in adjacent if node in edge for other in edge - {node}}


def _apply_meek(pattern: Pattern) -> None:
    """Orient undirected edges by Meek's rules 1–3 until none applies."""

    def is_adjacent(a: int, b: int) -> bool:
        return frozenset((a, b)) in pattern.adjacent

    changed = True
    while changed:
        changed = False
        for edge in sorted(pattern.undirected, key=sorted):
            for a, b in itertools.permutations(sorted(edge)):
                if _meek_orients(pattern, a, b, is_adjacent):
                    pattern.undirected.discard(edge)
                    pattern.directed.add((a, b))
                    changed = True
                    break


def _meek_orients(pattern: Pattern, a: int, b: int, is_adjacent) -> bool:
    """Whether one of Meek's rules 1–3 orients the undirected edge a — b as a → b."""
    directed = pattern.directed

    def undirected(u: int, v: int) -> bool:
        return frozenset((u, v)) in pattern.undirected

    others = [c for c in range(pattern.n) if c not in (a, b)]
    # Rule 1: c → a — b with c, b not adjacent (else c → a ← b would be a new v-structure).
    if any((c, a) in directed and not is_adjacent(c, b) for c in others):
        return True
    # Rule 2: a → c → b (else b → a would close a cycle).
    if any((a, c) in directed and (c, b) in directed for c in others):
        return True
    # Rule 3: a — c → b and a — d → b with c, d not adjacent.
    middles = [c for c in others if undirected(a, c) and (c, b) in directed]
    return any(not is_adjacent(c, d) for c, d in itertools.combinations(middles, 2))


def class_members(pattern: Pattern, limit: int) -> list[Dag] | None:
    """Every DAG of the pattern's equivalence class: the orientations of its undirected
    edges that make no directed cycle and no v-structure beyond the pattern's. None when
    there are more than `limit`."""
    n = pattern.n
    base = Dag.from_edges(n, pattern.directed)
    undirected = sorted(tuple(sorted(edge)) for edge in pattern.undirected)
    members: list[Dag] = []

    def adjacent(u: int, v: int) -> bool:
        return frozenset((u, v)) in pattern.adjacent

    def extend(index: int, parents: list[int]) -> bool:
        if index == len(undirected):
            dag = Dag(n, tuple(parents))
            if dag.is_acyclic() and dag.v_structures() == pattern.v_structures:
                members.append(dag)
            return len(members) <= limit
        for tail, head in (undirected[index], undirected[index][::-1]):
            # A new collider tail → head ← other with tail, other not adjacent.
            if any(not adjacent(tail, other) for other in bits(parents[head])):
                continue
            parents[head] |= 1 << tail
            if not _reaches(parents, head, tail) and not extend(index + 1, parents):
                return False
            parents[head] &= ~(1 << tail)
        return True

    if not extend(0, list(base.parents)):
        return None
    return members


def _reaches(parents: list[int], start: int, target: int) -> bool:
    """Whether a directed path leads from start to target (so target → start would close
    a cycle)."""
    # Walk up from target's side: target is reached from start iff start is an ancestor.
    seen, frontier = 0, parents[target]
    while frontier:
        if frontier >> start & 1:
            return True
        seen |= frontier
        nxt = 0
        for v in bits(frontier):
            nxt |= parents[v]
        frontier = nxt & ~seen
    return False


# -- the Corr2Cause relations ------------------------------------------------------------------
class Relation(StrEnum):
    """The relations a claim can assert between variables a and b (Jin et al., ICLR 2024,
    §3: the hypotheses of Corr2Cause), each a property of one DAG:

    - ``Is-Parent(a, b)``: the edge a → b.
    - ``Is-Child(a, b)``: the edge b → a.
    - ``Is-Ancestor(a, b)``: a directed path a → … → b of length ≥ 2, and no edge a → b.
    - ``Is-Descendant(a, b)``: a directed path b → … → a of length ≥ 2, and no edge b → a.
    - ``Has-Collider(a, b)``: a third node c with a → c ← b (a and b may be adjacent).
    - ``Has-Confounder(a, b)``: a third node c with a ← c → b (a and b may be adjacent).

    One more, outside the paper's six, for the plain wording "a causes b":
    - ``Is-Cause(a, b)``: a directed path a → … → b of any length ≥ 1 (a direct edge
      counts).
    """

    PARENT = "Is-Parent"
    CHILD = "Is-Child"
    ANCESTOR = "Is-Ancestor"
    DESCENDANT = "Is-Descendant"
    COLLIDER = "Has-Collider"
    CONFOUNDER = "Has-Confounder"
    CAUSE = "Is-Cause"


def relation_holds(dag: Dag, relation: Relation, a: int, b: int) -> bool:
    """Whether `relation` holds between a and b in `dag` (see `Relation`)."""
    if relation is Relation.PARENT:
        return dag.has_edge(a, b)
    if relation is Relation.CHILD:
        return dag.has_edge(b, a)
    if relation is Relation.ANCESTOR:
        return bool(dag.descendants(a) >> b & 1) and not dag.has_edge(a, b)
    if relation is Relation.DESCENDANT:
        return bool(dag.descendants(b) >> a & 1) and not dag.has_edge(b, a)
    if relation is Relation.COLLIDER:
        kids = dag.children()
        return bool(kids[a] & kids[b] & ~(1 << a) & ~(1 << b))
    if relation is Relation.CONFOUNDER:
        return bool(dag.parents[a] & dag.parents[b] & ~(1 << a) & ~(1 << b))
    if relation is Relation.CAUSE:
        return bool(dag.descendants(a) >> b & 1)
    raise ValueError(f"unknown relation {relation!r}")
