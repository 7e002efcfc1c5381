"""`CausalModel`: a causal DAG over named variables plus a table of individual effects.

This is what a causal expert system hands over (paper 000, §3): a directed acyclic graph
whose nodes are variables ("Tech Support", "Revenue", "Größe (m²)" …) and a table with one
row per subject — the first column the subject id, one numeric column per treatment holding
that treatment's individual effect (ITE) on the subject, and boolean columns such as
"Already Engaged" that questions filter on. Files are read by `causalqa.causal_model.formats`.

    >>> import networkx as nx
    >>> m = CausalModel.from_graph(nx.DiGraph([("Price", "Demand"), ("Demand", "Revenue")]))
    >>> m.variables
    ['Price', 'Demand', 'Revenue']
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterable
from pathlib import Path

import networkx as nx
import pandas as pd

from causalqa.causal_model.formats import (
    EFFECTS_HINT,
    effects_from_frame,
    graph_from_networkx,
    invalid,
    load_effects,
    load_graph,
)
from causalqa.errors import ModelDataError
from causalqa.jsonl import atomic_file

# -- the model ---------------------------------------------------------------------------


class CausalModel:
    """A causal DAG over named variables plus an optional table of individual effects.

    Build one from files with `CausalModel.load`, or from objects with
    `CausalModel.from_graph` (the constructor takes the same arguments). Either way the
    data is validated; afterwards treat `graph` and `effects` as read-only.

    Attributes:
        graph: ``networkx.DiGraph`` whose nodes are the variable names (str).
        effects: ``pandas.DataFrame`` indexed by subject id (str, index name = the id
            column's header), float columns = treatments, bool columns = filters; or
            None when the model has no effects table.
        graph_source, effects_source: where each part came from (file path or
            ``<graph>``/``<effects>``), for messages.
        outcome: the graph variable the effects are effects on (e.g. "Revenue"), or
            None when not known. `causalqa fit` records it in the GraphML (a graph-level
            ``outcome`` attribute); `outcome=` sets it.
    """

    graph: nx.DiGraph
    effects: pd.DataFrame | None

    def __init__(
        self,
        graph: nx.DiGraph,
        effects: pd.DataFrame | str | os.PathLike[str] | None = None,
        *,
        filters: Iterable[str] | None = None,
        outcome: str | None = None,
    ) -> None:
        g = graph_from_networkx(graph)
        if effects is None:
            eff, eff_source = None, None
        elif isinstance(effects, pd.DataFrame):
            eff, eff_source = effects_from_frame(effects, "<effects>", filters), "<effects>"
        elif isinstance(effects, str | os.PathLike):
            eff, eff_source = load_effects(effects, filters=filters), str(effects)
        else:
            raise invalid(
                "<effects>",
                f"expected a DataFrame or a file path, got {type(effects).__name__}",
                hint=EFFECTS_HINT,
            )
        self._set(g, eff, "<graph>", eff_source, outcome)

    def _set(
        self,
        graph: nx.DiGraph,
        effects: pd.DataFrame | None,
        graph_source: str,
        effects_source: str | None,
        outcome: str | None = None,
    ) -> None:
        outcome = outcome if outcome is not None else graph.graph.get("outcome")
        if outcome is not None:
            if outcome not in graph:
                raise invalid(
                    graph_source,
                    f"the outcome {outcome!r} is not a variable of the graph",
                    hint="name the graph variable the effects are measured on",
                )
            graph.graph["outcome"] = outcome
        self.outcome: str | None = outcome
        self.graph = graph
        self.effects = effects
        self.graph_source = graph_source
        self.effects_source = effects_source
        self._variables = [str(n) for n in graph.nodes]
        self._order = {v: i for i, v in enumerate(self._variables)}
        if effects is None:
            self._treatments: list[str] = []
            self._filters: list[str] = []
            self._subjects: list[str] = []
        else:
            self._treatments = [c for c in effects.columns if effects[c].dtype != bool]
            self._filters = [c for c in effects.columns if effects[c].dtype == bool]
            self._subjects = [str(s) for s in effects.index]

    @classmethod
    def from_graph(
        cls,
        graph: nx.DiGraph,
        effects: pd.DataFrame | str | os.PathLike[str] | None = None,
        *,
        filters: Iterable[str] | None = None,
        outcome: str | None = None,
    ) -> CausalModel:
        """A model from a networkx DiGraph (nodes become ``str`` names) and an effects
        table: a DataFrame whose first column (or named index) holds subject ids, or a
        path to a CSV/Parquet file. Validated like `load`."""
        return cls(graph, effects, filters=filters, outcome=outcome)

    @classmethod
    def load(
        cls,
        graph_path: str | os.PathLike[str],
        effects_path: str | os.PathLike[str] | None = None,
        *,
        filters: Iterable[str] | None = None,
        outcome: str | None = None,
    ) -> CausalModel:
        """Load a graph file (GraphML, DOT, edge-list CSV, JSON) and optionally an effects
        table (CSV, Parquet); see `load_graph` and `load_effects` for formats and errors.
        `outcome` names the variable the effects are on (else the GraphML's own record).

        >>> CausalModel.load("graph.graphml", "effects.csv")  # doctest: +SKIP
        CausalModel(variables=5, edges=4, treatments=3, subjects=10, filters=['Already Engaged'])
        """
        graph = load_graph(graph_path)
        effects = None if effects_path is None else load_effects(effects_path, filters=filters)
        model = cls.__new__(cls)
        model._set(
            graph,
            effects,
            str(graph_path),
            None if effects_path is None else str(effects_path),
            outcome,
        )
        return model

    # -- what the model holds
    @property
    def variables(self) -> list[str]:
        """Variable names in the order the graph declares them."""
        return list(self._variables)

    @property
    def treatments(self) -> list[str]:
        """Treatment (effect) column names in table order; [] without effects."""
        return list(self._treatments)

    @property
    def filters(self) -> list[str]:
        """Boolean filter column names in table order; [] without effects."""
        return list(self._filters)

    @property
    def subjects(self) -> list[str]:
        """Subject ids (strings) in table order; [] without effects."""
        return list(self._subjects)

    @property
    def subject_column(self) -> str | None:
        """Header of the subject-id column (e.g. "Partner ID"), None without effects."""
        return None if self.effects is None else str(self.effects.index.name)

    def order(self, variable: str) -> int:
        """Position of a variable in `variables` (for stable, file-order results)."""
        return self._order[variable]

    def __repr__(self) -> str:
        parts = f"variables={len(self._variables)}, edges={self.graph.number_of_edges()}"
        if self.effects is not None:
            parts += (
                f", treatments={len(self._treatments)}, subjects={len(self._subjects)}, "
                f"filters={self._filters!r}"
            )
        return f"CausalModel({parts})"

    # -- writing
    def to_graphml(self) -> str:
        """The graph as GraphML text (node ids are the variable names), as in Listing 2."""
        # write_graphml, unlike generate_graphml, keeps non-ASCII names readable (and
        # cheaper in tokens) instead of turning them into &#246; references.
        buf = io.BytesIO()
        nx.write_graphml(self.graph, buf)
        return buf.getvalue().decode("utf-8")

    def effects_csv(self, *, float_format: str | None = None) -> str:
        """The effects table as CSV text (id column first), as in Listing 3."""
        if self.effects is None:
            raise ModelDataError(
                "the model has no effects table", hint="load one with effects_path=…"
            )
        return self.effects.to_csv(float_format=float_format, lineterminator="\n")

    def save(self, directory: str | os.PathLike[str], *, overwrite: bool = False) -> list[Path]:
        """Write ``graph.graphml`` (and ``effects.csv`` when there are effects) into
        `directory`, creating it; returns the paths written. Existing files are kept —
        and nothing is written — unless ``overwrite=True``."""
        d = Path(directory)
        if d.exists() and not d.is_dir():
            raise invalid(
                str(d), "is a file, not a directory", hint="give a directory to save into"
            )
        targets = {d / "graph.graphml": self.to_graphml()}
        if self.effects is not None:
            targets[d / "effects.csv"] = self.effects_csv()
        existing = [p for p in targets if p.exists()]
        if existing and not overwrite:
            raise invalid(
                str(existing[0]),
                "already exists",
                hint="choose another directory or pass overwrite=True",
            )
        d.mkdir(parents=True, exist_ok=True)
        # Every file is written in full beside its target before the first one takes its
        # place, so a crash leaves each file old or new (never a part), and the two
        # replacements happen back to back.
        with contextlib.ExitStack() as stack:
            for p, text in targets.items():
                stack.enter_context(atomic_file(p)).write(text)
        return list(targets)
