"""Knowledge graphs for knowledge-based causal discovery (paper 001).

- `KnowledgeGraph`: a typed, labelled multigraph in an embedded LadybugDB store (default)
  or in Neo4j, queried with the same Cypher.
- `read_hetionet`, `read_triples` → `GraphData`; `load_hetionet`, `load_triples` build a store.
- `Linker` / `KnowledgeGraph.link`: variable name → ranked candidate nodes.
- `KnowledgeGraph.paths`: metapath subgraphs (simple paths up to k hops, shortest first),
  `verbalise` puts them into words as in the paper's Eq. 7.
- `SparqlKnowledgeGraph`: the same path API over a SPARQL endpoint (Wikidata, any URL, an
  RDF file); `KnowledgeGraph.connect("sparql:URL")` or ``"wikidata"`` opens one.

>>> from causalqa.kg import load_hetionet                           # doctest: +SKIP
>>> kg = load_hetionet("../shared/data/hetionet", "/tmp/hetionet-kg")  # doctest: +SKIP
>>> a, b = kg.resolve("raloxifene"), kg.resolve("melanoma", kinds=["Disease"])  # doctest: +SKIP
>>> [p.verbalise(types=False, relations=False) for p in kg.paths(a, b, limit=2)]  # doctest: +SKIP
['Raloxifene - PAH - melanoma', 'Raloxifene - ERBB2 - melanoma']
"""

from typing import TYPE_CHECKING

from causalqa._lazy import lazy_exports

if TYPE_CHECKING:
    from causalqa.errors import (
        EntityNotFoundError,
        KGBackendError,
        KGError,
        KGFormatError,
        KGStoreError,
    )
    from causalqa.kg.linking import Candidate, Linker, Linking, normalize
    from causalqa.kg.loaders import GraphData, read_hetionet, read_metaedges, read_triples
    from causalqa.kg.model import KGPath, Node, Step, verbalise
    from causalqa.kg.paths import DEFAULT_K, DEFAULT_LIMIT, PathIndex, cypher_paths
    from causalqa.kg.sparql import SparqlKnowledgeGraph
    from causalqa.kg.store import (
        KnowledgeGraph,
        LadybugBackend,
        Neo4jBackend,
        default_store,
        load_hetionet,
        load_triples,
    )

_EXPORTS = {
    **dict.fromkeys(
        ["EntityNotFoundError", "KGBackendError", "KGError", "KGFormatError", "KGStoreError"],
        "causalqa.errors",
    ),
    **dict.fromkeys(["Candidate", "Linker", "Linking", "normalize"], "causalqa.kg.linking"),
    **dict.fromkeys(
        ["GraphData", "read_hetionet", "read_metaedges", "read_triples"], "causalqa.kg.loaders"
    ),
    **dict.fromkeys(["KGPath", "Node", "Step", "verbalise"], "causalqa.kg.model"),
    **dict.fromkeys(
        ["DEFAULT_K", "DEFAULT_LIMIT", "PathIndex", "cypher_paths"], "causalqa.kg.paths"
    ),
    "SparqlKnowledgeGraph": "causalqa.kg.sparql",
    **dict.fromkeys(
        [
            "KnowledgeGraph",
            "LadybugBackend",
            "Neo4jBackend",
            "default_store",
            "load_hetionet",
            "load_triples",
        ],
        "causalqa.kg.store",
    ),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)


__all__ = [
    "DEFAULT_K",
    "DEFAULT_LIMIT",
    "Candidate",
    "EntityNotFoundError",
    "GraphData",
    "KGBackendError",
    "KGError",
    "KGFormatError",
    "KGStoreError",
    "KnowledgeGraph",
    "LadybugBackend",
    "Linker",
    "Linking",
    "Neo4jBackend",
    "Node",
    "KGPath",
    "PathIndex",
    "SparqlKnowledgeGraph",
    "Step",
    "cypher_paths",
    "default_store",
    "load_hetionet",
    "load_triples",
    "normalize",
    "read_hetionet",
    "read_metaedges",
    "read_triples",
    "verbalise",
]
