"""`KnowledgeGraph`: a typed, labelled multigraph in a Cypher database.

The embedded default is LadybugDB (the maintained fork of Kùzu): one on-disk database in a
store folder the user chooses (default ``$CAUSALQA_HOME/kg/default``). Neo4j, through the
official driver, holds the same schema and answers the same Cypher, for graphs that outgrow
one process or are already served by a team.

Schema (both backends): nodes ``(:Node {id, name, kind})``, edges
``(:Node)-[:Rel {relation, abbrev}]->(:Node)``. A relation keeps its name ("binds") and, for
Hetionet, its metaedge abbreviation ("CbG"). A graph with edge properties (CauseNet's
``support``) keeps them on ``Rel``; one with aliases (CauseNet's surface forms) keeps them as
``(:Alias {name, id})``, which entity linking reads.

Stores live in folders; those under ``$CAUSALQA_HOME/kg`` are the *loaded* stores
(`loaded_stores`): ``default`` (Hetionet, triples) and ``causenet`` unless the user named
another folder.

A store is built once, by a bulk import (``COPY ... FROM`` a data frame on LadybugDB,
batched ``UNWIND`` on Neo4j), into a fresh folder that replaces the target only when the
load succeeded; an existing store is never overwritten unless ``replace=True``.

>>> kg = KnowledgeGraph.build(read_hetionet("../shared/data/hetionet"), "kg")  # doctest: +SKIP
>>> kg.paths("Compound::DB00481", "Disease::DOID:1909", k=2)[0].verbalise()    # doctest: +SKIP
'Compound Raloxifene -downregulates-> Gene PAH, Gene PAH <-downregulates- Disease melanoma'
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from causalqa import config
from causalqa.errors import EntityNotFoundError, KGBackendError, KGError, KGStoreError
from causalqa.kg.loaders import ALIAS_COLUMNS, EDGE_COLUMNS, NODE_COLUMNS, GraphData
from causalqa.kg.model import KGPath, Node
from causalqa.kg.paths import DEFAULT_K, DEFAULT_LIMIT, PathIndex, cypher_paths

if TYPE_CHECKING:
    from collections.abc import Callable

    from causalqa.kg.sparql import SparqlKnowledgeGraph

    Step = Callable[[str, int, int], None]
    """A progress callback: ``on_step(what, done, total)``."""

STORE_FORMAT = 1
META_FILE = "kg.json"
DB_FILE = "graph.lbug"
DEFAULT_BUFFER_MB = 1024

SCHEMA_NODES = "CREATE NODE TABLE Node(id STRING, name STRING, kind STRING, PRIMARY KEY (id))"
# `code` numbers the (relation, abbrev) pairs in sorted order (listed in kg.json), so the
# path index reads integers only: reading millions of relation strings back is slow.
SCHEMA_RELS = "CREATE REL TABLE Rel(FROM Node TO Node, relation STRING, abbrev STRING, code INT64)"
SCHEMA_ALIASES = "CREATE NODE TABLE Alias(name STRING, id STRING, PRIMARY KEY (name))"
Q_ALIASES = "MATCH (x:Alias) RETURN x.name AS name, x.id AS id"

# Shared Cypher: the same text runs on LadybugDB and Neo4j.
Q_NODE = "MATCH (n:Node {id: $id}) RETURN n.id, n.name, n.kind"
Q_NODES = "MATCH (n:Node) RETURN n.id AS id, n.name AS name, n.kind AS kind"
Q_EDGES = (
    "MATCH (a:Node)-[r:Rel]->(b:Node) "
    "RETURN a.id AS source, b.id AS target, r.relation AS relation, r.abbrev AS abbrev"
)
Q_KINDS = "MATCH (n:Node) RETURN n.kind, count(*) ORDER BY n.kind"
Q_RELATIONS = (
    "MATCH (:Node)-[r:Rel]->(:Node) RETURN r.relation, r.abbrev, count(*) "
    "ORDER BY r.relation, r.abbrev"
)
Q_NEIGHBOURS = (
    "MATCH (a:Node {id: $id})-[r:Rel]-(b:Node) RETURN b.id, b.name, b.kind, r.relation, "
    "r.abbrev ORDER BY b.id, r.relation LIMIT $limit"
)


NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
"""URI schemes that name a Neo4j server rather than a store folder."""


def neo4j_uri(location: str | os.PathLike | None) -> str | None:
    """`location` as a Neo4j URI if it is one (``bolt://host:7687``, ``neo4j+s://…``), else
    None. A URI that went through `pathlib.Path` (which folds ``//`` into ``/``) is
    repaired."""
    if location is None:
        return None
    text = os.fspath(location)
    scheme, sep, rest = text.partition(":/")
    if not sep or scheme.lower() not in NEO4J_SCHEMES:
        return None
    return f"{scheme.lower()}://{rest.lstrip('/')}"


def default_store(fmt: str | None = None) -> Path:
    """Where a graph is stored when the user names no folder: ``$CAUSALQA_HOME/kg/default``;
    a format with a store of its own (``causenet``) in ``$CAUSALQA_HOME/kg/<format>``, so
    that it sits beside Hetionet instead of replacing it."""
    name = fmt if fmt in OWN_STORE_FORMATS else "default"
    return config.home_dir() / "kg" / name


OWN_STORE_FORMATS = ("causenet",)
"""Formats loaded into a store of their own by default (`default_store`)."""


def loaded_stores() -> list[Path]:
    """The stores under ``$CAUSALQA_HOME/kg`` (folders holding a ``kg.json``): the ones
    `discover pair` consults when no ``--store`` is given. ``default`` first, then by name."""
    root = config.home_dir() / "kg"
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if not p.name.startswith(".") and p.is_dir()]
    for p in found:
        if not _is_store(p):
            _recover(p)  # a build killed between its two renames
    stores = [p for p in found if _is_store(p)]
    return sorted(stores, key=lambda p: (p.name != "default", p.name))


def open_stores(path: str | Path | None = None) -> list[KnowledgeGraph]:
    """The graphs `discover pair` consults (every surface): the one at `path` when given
    (`KnowledgeGraph.connect`: a folder, bolt://…, sparql:…), else every store loaded
    under ``$CAUSALQA_HOME/kg`` (``default`` first); with none loaded, the error naming
    the default store."""
    folders = loaded_stores() if path is None else []
    if not folders:
        return [KnowledgeGraph.connect(path)]
    opened: list[KnowledgeGraph] = []
    try:
        for folder in folders:
            opened.append(KnowledgeGraph.open(folder))
    except BaseException:
        for kg in opened:
            kg.close()
        raise
    return opened


# -- backends ----------------------------------------------------------------------------
class LadybugBackend:
    """The embedded LadybugDB database of one store folder."""

    dialect = "ladybug"

    def __init__(
        self, db_file: Path, *, read_only: bool = True, buffer_mb: int = DEFAULT_BUFFER_MB
    ):
        try:
            import ladybug
        except ImportError as e:  # pragma: no cover - a core dependency
            raise KGBackendError(
                "the embedded graph database (ladybug) is not installed",
                hint="pip install ladybug==0.22.0",
            ) from e
        self.db_file = db_file
        if read_only and not Path(db_file).exists():
            raise KGBackendError(
                f"the store has no graph database file {db_file}",
                hint="load the graph again: causalqa kg load ... --store DIR --replace",
            )
        try:
            # Ladybug would otherwise claim ~80% of RAM for its buffer pool, and every core.
            self._db = ladybug.Database(
                str(db_file),
                buffer_pool_size=buffer_mb * 1024 * 1024,
                max_num_threads=min(2, os.cpu_count() or 1),
                read_only=read_only,
            )
            self._conn = ladybug.Connection(self._db)
        except RuntimeError as e:
            raise KGBackendError(
                f"cannot open the graph database {db_file}: {e}",
                hint="is another process writing to it? Close it or copy the store. A damaged "
                "file: load the graph again (causalqa kg load ... --replace).",
            ) from e

    def run(self, query: str, params: dict[str, Any] | None = None) -> list[list]:
        try:
            result = self._conn.execute(query, params or {})
            rows = []
            while result.has_next():
                rows.append(result.get_next())
            return rows
        except RuntimeError as e:
            raise KGBackendError(f"graph query failed: {e}") from e

    def frame(self, query: str, params: dict[str, Any] | None = None) -> pd.DataFrame:
        try:
            return self._conn.execute(query, params or {}).get_as_df()
        except RuntimeError as e:
            raise KGBackendError(f"graph query failed: {e}") from e

    def import_data(self, data: GraphData, on_step: Step | None = None) -> None:
        nodes = data.nodes.astype(str)  # noqa: F841 - scanned by name in COPY below
        extra = data.edge_properties
        edges = data.edges[EDGE_COLUMNS].astype(str)
        pairs = pd.MultiIndex.from_arrays([edges["relation"], edges["abbrev"]])
        codes, _ = pd.factorize(pairs, sort=True)
        edges["code"] = codes.astype("int64")
        for column in extra:  # integer edge properties (CauseNet's support)
            edges[column] = data.edges[column].astype("int64")
        aliases = None if data.aliases is None else data.aliases[ALIAS_COLUMNS].astype(str)  # noqa: F841
        schema_rels = SCHEMA_RELS[:-1] + "".join(f", {c} INT64" for c in extra) + ")"
        steps = [
            ("schema", [SCHEMA_NODES, schema_rels]),
            (f"nodes ({len(data.nodes):,})", ["COPY Node FROM nodes"]),
            (f"edges ({len(data.edges):,})", ["COPY Rel FROM edges"]),
        ]
        if data.aliases is not None:
            alias_queries = [SCHEMA_ALIASES, "COPY Alias FROM aliases"]
            steps.append((f"aliases ({len(data.aliases):,})", alias_queries))
        steps.append(("checkpoint", ["CHECKPOINT"]))
        try:
            for i, (what, queries) in enumerate(steps):
                if on_step:
                    on_step(what, i, len(steps))
                for query in queries:
                    self._conn.execute(query)
            if on_step:
                on_step("done", len(steps), len(steps))
        except RuntimeError as e:
            raise KGBackendError(f"bulk import into {self.db_file} failed: {e}") from e

    def path_index(self) -> PathIndex:
        # Internal offsets instead of id strings: no string join over millions of edges.
        nodes = self.frame(
            "MATCH (n:Node) RETURN offset(id(n)) AS pos, n.id AS id, n.name AS name, n.kind AS kind"
        )
        nodes = nodes.sort_values("pos").reset_index(drop=True)
        if not (nodes["pos"].to_numpy() == range(len(nodes))).all():
            raise KGBackendError("unexpected node offsets in the embedded store")
        relations = self.run(
            "MATCH (:Node)-[r:Rel]->(:Node) RETURN DISTINCT r.code, r.relation, r.abbrev"
        )
        names = {int(c): (str(r), str(a or "")) for c, r, a in relations}
        if sorted(names) != list(range(len(names))):
            raise KGBackendError("relation codes in the embedded store are not contiguous")
        edges = self.frame(
            "MATCH (a:Node)-[r:Rel]->(b:Node) RETURN offset(id(a)) AS s, offset(id(b)) AS t, "
            "r.code AS code"
        )
        return PathIndex.from_arrays(
            nodes[NODE_COLUMNS],
            edges["s"].to_numpy(dtype="int64"),
            edges["t"].to_numpy(dtype="int64"),
            edges["code"].to_numpy(dtype="int64"),
            [names[i] for i in range(len(names))],
        )

    def close(self) -> None:
        for thing in (getattr(self, "_conn", None), getattr(self, "_db", None)):
            if thing is not None:
                thing.close()


class Neo4jBackend:
    """A Neo4j database reached with the official driver (Bolt)."""

    dialect = "neo4j"
    batch = 10_000

    def __init__(self, uri: str, auth: tuple[str, str] | None = None, database: str | None = None):
        try:
            import neo4j
        except ImportError as e:
            raise KGBackendError(
                "the Neo4j driver is not installed", hint="pip install neo4j"
            ) from e
        self.uri = uri
        self.database = database
        try:
            self._driver = neo4j.GraphDatabase.driver(uri, auth=auth)
            self._driver.verify_connectivity()
        except Exception as e:  # the driver raises many kinds; all mean "unreachable"
            raise KGBackendError(
                f"cannot reach Neo4j at {uri}: {e}",
                hint="check NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD",
            ) from e

    def run(self, query: str, params: dict[str, Any] | None = None) -> list[list]:
        try:
            records, _, _ = self._driver.execute_query(query, params or {}, database_=self.database)
        except Exception as e:
            raise KGBackendError(f"Neo4j query failed: {e}") from e
        return [list(r.values()) for r in records]

    def frame(self, query: str, params: dict[str, Any] | None = None) -> pd.DataFrame:
        try:
            records, _, keys = self._driver.execute_query(
                query, params or {}, database_=self.database
            )
        except Exception as e:
            raise KGBackendError(f"Neo4j query failed: {e}") from e
        return pd.DataFrame([list(r.values()) for r in records], columns=keys)

    def is_empty(self) -> bool:
        return not self.run("MATCH (n:Node) RETURN n.id LIMIT 1")

    def clear(self) -> None:
        while self.run(
            "MATCH (n:Node) WITH n LIMIT $n DETACH DELETE n RETURN count(*)", {"n": self.batch}
        )[0][0]:
            pass
        if self.aliases() is not None:
            while self.run(
                "MATCH (n:Alias) WITH n LIMIT $n DELETE n RETURN count(*)", {"n": self.batch}
            )[0][0]:
                pass

    def aliases(self) -> pd.DataFrame | None:
        """The (:Alias {name, id}) nodes; None where the database does not know the label
        (a Cypher engine with a fixed schema, such as the embedded one the tests stand in
        for Neo4j with: one that never held aliases has nothing to read or delete)."""
        try:
            return self.frame(Q_ALIASES)
        except KGBackendError:
            return None

    def import_data(self, data: GraphData, on_step: Step | None = None) -> None:
        self.run(
            "CREATE CONSTRAINT causalqa_node_id IF NOT EXISTS FOR (n:Node) REQUIRE n.id IS UNIQUE"
        )
        nodes = data.nodes.astype(str).to_dict("records")
        for i in range(0, len(nodes), self.batch):
            self.run(
                "UNWIND $rows AS row CREATE (:Node {id: row.id, name: row.name, kind: row.kind})",
                {"rows": nodes[i : i + self.batch]},
            )
        extra = data.edge_properties
        frame = data.edges[EDGE_COLUMNS].astype(str)
        for column in extra:
            frame[column] = data.edges[column].astype("int64")
        edges = frame.to_dict("records")
        props = "".join(f", {c}: row.{c}" for c in extra)
        for i in range(0, len(edges), self.batch):
            if on_step:
                on_step(f"edges {i:,}/{len(edges):,}", i, len(edges))
            self.run(
                "UNWIND $rows AS row MATCH (a:Node {id: row.source}), (b:Node {id: row.target}) "
                f"CREATE (a)-[:Rel {{relation: row.relation, abbrev: row.abbrev{props}}}]->(b)",
                {"rows": [{k: _plain(v) for k, v in r.items()} for r in edges[i : i + self.batch]]},
            )
        if data.aliases is not None:
            aliases = data.aliases[ALIAS_COLUMNS].astype(str).to_dict("records")
            for i in range(0, len(aliases), self.batch):
                self.run(
                    "UNWIND $rows AS row CREATE (:Alias {name: row.name, id: row.id})",
                    {"rows": aliases[i : i + self.batch]},
                )

    def path_index(self) -> PathIndex:
        return PathIndex(self.frame(Q_NODES), self.frame(Q_EDGES))

    def close(self) -> None:
        self._driver.close()


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value a driver can send."""
    return value.item() if hasattr(value, "item") else value


# -- the graph ---------------------------------------------------------------------------
def _is_store(folder: Path) -> bool:
    return (folder / META_FILE).is_file()


def _siblings(folder: Path, kind: str) -> list[tuple[Path, int]]:
    """The ``.{name}.{kind}-{pid}`` folders a build of `folder` uses, with their pids."""
    found = []
    for p in folder.parent.glob(f".{folder.name}.{kind}-*"):
        pid = p.name.rsplit("-", 1)[-1]
        if pid.isdigit():
            found.append((p, int(pid)))
    return found


def _alive(pid: int) -> bool:
    import psutil

    return pid != os.getpid() and psutil.pid_exists(pid)


def _recover(folder: Path) -> None:
    """Finish or undo a build that was killed between its two renames (the old store moved
    aside, the new one not yet in place), and delete what killed builds left behind.

    A build writes ``kg.json`` last, so a ``.partial`` folder holding it is complete: it is
    the new store. Folders of builds still running are left alone.
    """
    if not folder.parent.is_dir():
        return
    partial = [(p, pid) for p, pid in _siblings(folder, "partial") if not _alive(pid)]
    old = [(p, pid) for p, pid in _siblings(folder, "old") if not _alive(pid)]
    if not folder.exists():
        done = [p for p, pid in partial if _is_store(p) and any(q == pid for _, q in old)]
        if done:
            done[0].rename(folder)
        else:
            previous = [p for p, _ in old if _is_store(p)]
            if previous:
                previous[0].rename(folder)
    for p, _ in partial + old:
        if p.exists():
            shutil.rmtree(p, ignore_errors=True)


class KnowledgeGraph:
    """A typed, labelled multigraph behind a Cypher database.

    Open an existing store with `KnowledgeGraph.open`, build one from a `GraphData` with
    `KnowledgeGraph.build` (or `causalqa.kg.load_hetionet` / `load_triples`), or connect to
    Neo4j with `KnowledgeGraph.neo4j`. Use it as a context manager or call `close`.
    """

    def __init__(self, backend, *, path: Path | None = None, meta: dict | None = None):
        self.backend = backend
        self.path = path
        self.meta = meta or {}
        self._index: PathIndex | None = None
        self._nodes: pd.DataFrame | None = None
        self._linker = None

    # construction
    @classmethod
    def open(
        cls,
        path: str | os.PathLike | None = None,
        *,
        read_only: bool = True,
        buffer_mb: int = DEFAULT_BUFFER_MB,
    ) -> KnowledgeGraph:
        """Open the embedded store in folder `path` (default: `default_store()`)."""
        folder = Path(path).expanduser() if path else default_store()
        if not _is_store(folder):
            _recover(folder)
        if not _is_store(folder):
            raise KGStoreError(
                f"no knowledge graph store at {folder}",
                hint="load the graph once: causalqa kg load hetionet ../shared/data/hetionet"
                + (
                    f" --store {folder}"
                    if path
                    else " (general knowledge: causalqa kg load causenet "
                    "../shared/data/causenet-core)"
                ),
            )
        try:
            meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise KGStoreError(f"{folder / META_FILE} is unreadable: {e}") from e
        if meta.get("format") != STORE_FORMAT:
            raise KGStoreError(
                f"{folder} was written in store format {meta.get('format')}, "
                f"this version reads format {STORE_FORMAT}",
                hint="load the graph again with --replace",
            )
        backend = LadybugBackend(folder / DB_FILE, read_only=read_only, buffer_mb=buffer_mb)
        return cls(backend, path=folder, meta=meta)

    @classmethod
    def build(
        cls,
        data: GraphData,
        path: str | os.PathLike | None = None,
        *,
        replace: bool = False,
        buffer_mb: int = DEFAULT_BUFFER_MB,
        on_step: Step | None = None,
    ) -> KnowledgeGraph:
        """Bulk-import `data` into a new embedded store at `path` and open it (read-only).
        `on_step(what, done, total)` is told of each import step (a progress bar).

        The import goes into a sibling folder that takes the store's place only once it
        succeeded, so a failed load leaves an existing store untouched; a load killed
        (SIGKILL) at any point leaves the old store or the new one, as the next `open` or
        `build` finds it (see `_recover`). An existing
        non-empty folder is an error unless ``replace=True`` — and even then only a folder
        that is a causalqa graph store is ever deleted.
        """
        folder = Path(path).expanduser() if path else default_store(data.source.get("format"))
        _recover(folder)
        exists = folder.exists() and (not folder.is_dir() or any(folder.iterdir()))
        if exists and not replace:
            raise KGStoreError(
                f"a knowledge graph store already exists at {folder}",
                hint="pass --replace (replace=True) to overwrite it, or choose another --store",
            )
        if exists and not _is_store(folder):
            raise KGStoreError(
                f"{folder} exists and is not a causalqa graph store; refusing to delete it",
                hint="choose an empty or new folder for --store",
            )
        folder.parent.mkdir(parents=True, exist_ok=True)
        partial = folder.with_name(f".{folder.name}.partial-{os.getpid()}")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        started = time.perf_counter()
        try:
            backend = LadybugBackend(partial / DB_FILE, read_only=False, buffer_mb=buffer_mb)
            try:
                backend.import_data(data, on_step)
            finally:
                backend.close()
            meta = {
                "format": STORE_FORMAT,
                "backend": "ladybug",
                "ladybug_version": _ladybug_version(),
                "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                "source": data.source,
                "nodes": int(len(data.nodes)),
                "edges": int(len(data.edges)),
                "import_seconds": round(time.perf_counter() - started, 3),
            }
            if data.edge_properties:
                meta["edge_properties"] = data.edge_properties
            if data.aliases is not None:
                meta["aliases"] = int(len(data.aliases))
            (partial / META_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
            if folder.exists():
                old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
                folder.rename(old)
                partial.rename(folder)
                shutil.rmtree(old, ignore_errors=True)
            else:
                partial.rename(folder)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        return cls.open(folder, buffer_mb=buffer_mb)

    @classmethod
    def connect(
        cls, location: str | os.PathLike | None = None, *, buffer_mb: int = DEFAULT_BUFFER_MB
    ) -> KnowledgeGraph | SparqlKnowledgeGraph:
        """The graph at `location`: a Neo4j server for a ``bolt://`` / ``neo4j://`` URI
        (credentials from ``$NEO4J_USER`` / ``$NEO4J_PASSWORD``, database from
        ``$NEO4J_DATABASE``); a `SparqlKnowledgeGraph` (same path API) for ``sparql:URL``,
        ``sparql:FILE.ttl`` or ``wikidata`` (unless a store folder has that name); else the
        embedded store in that folder (default: `default_store()`)."""
        from causalqa.kg.sparql import SparqlKnowledgeGraph, sparql_location

        spec = sparql_location(location)
        if spec is not None and not _is_store(Path(location)):
            return SparqlKnowledgeGraph.connect(spec)
        uri = neo4j_uri(location)
        if uri is not None:
            return cls.neo4j(uri, database=os.environ.get("NEO4J_DATABASE") or None)
        return cls.open(location, buffer_mb=buffer_mb)

    @classmethod
    def neo4j(
        cls,
        uri: str | None = None,
        *,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
    ) -> KnowledgeGraph:
        """Connect to Neo4j (default: ``$NEO4J_URI`` with ``$NEO4J_USER``/``$NEO4J_PASSWORD``)."""
        uri = uri or os.environ.get("NEO4J_URI")
        if not uri:
            raise KGBackendError("no Neo4j URI given", hint="pass uri= or set NEO4J_URI")
        if auth is None and os.environ.get("NEO4J_USER"):
            auth = (os.environ["NEO4J_USER"], os.environ.get("NEO4J_PASSWORD", ""))
        return cls(Neo4jBackend(uri, auth, database), meta={"backend": "neo4j", "uri": uri})

    def import_data(
        self, data: GraphData, *, replace: bool = False, on_step: Step | None = None
    ) -> KnowledgeGraph:
        """Load `data` into a connected Neo4j database (embedded stores use `build`)."""
        if not isinstance(self.backend, Neo4jBackend):
            raise KGStoreError(
                "an embedded store is loaded once, with KnowledgeGraph.build",
                hint="build a new store (replace=True to overwrite this one)",
            )
        if not self.backend.is_empty():
            if not replace:
                raise KGStoreError(
                    f"the Neo4j database at {self.backend.uri} already holds :Node data",
                    hint="pass replace=True to delete it first",
                )
            self.backend.clear()
        self.backend.import_data(data, on_step)
        self._forget()
        return self

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> KnowledgeGraph:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _forget(self) -> None:
        self._index = self._nodes = self._linker = None

    # queries
    def cypher(self, query: str, params: dict[str, Any] | None = None) -> list[list]:
        """Run a Cypher query; rows as lists."""
        return self.backend.run(query, params)

    def stats(self) -> dict[str, Any]:
        """Counts of nodes by kind and edges by relation."""
        kinds = {str(k): int(c) for k, c in self.backend.run(Q_KINDS)}
        relations = [
            {"relation": r, "abbrev": a or "", "edges": int(c)}
            for r, a, c in self.backend.run(Q_RELATIONS)
        ]
        return {
            "backend": self.backend.dialect,
            "store": str(self.path) if self.path else self.meta.get("uri"),
            "nodes": sum(kinds.values()),
            "edges": sum(r["edges"] for r in relations),
            "kinds": kinds,
            "relations": relations,
            "source": self.meta.get("source"),
        }

    def nodes(self) -> pd.DataFrame:
        """All nodes (id, name, kind), cached."""
        if self._nodes is None:
            self._nodes = self.backend.frame(Q_NODES)[NODE_COLUMNS]
        return self._nodes

    def edges(self) -> pd.DataFrame:
        """All edges (source, target, relation, abbrev)."""
        return self.backend.frame(Q_EDGES)[EDGE_COLUMNS]

    def node(self, node_id: str) -> Node:
        rows = self.backend.run(Q_NODE, {"id": node_id})
        if not rows:
            raise EntityNotFoundError(
                f"no node with id {node_id!r}", hint="link a name to an id with kg.link(name)"
            )
        return Node(*rows[0])

    def neighbours(self, node_id: str, limit: int = 100) -> list[tuple[Node, str, str]]:
        return [
            (Node(i, n, k), r, a or "")
            for i, n, k, r, a in self.backend.run(Q_NEIGHBOURS, {"id": node_id, "limit": limit})
        ]

    def path_index(self) -> PathIndex:
        """The in-memory adjacency used for fast path extraction (built on first use)."""
        if self._index is None:
            self._index = self.backend.path_index()
        return self._index

    def paths(
        self,
        source: str | Node,
        target: str | Node,
        *,
        k: int = DEFAULT_K,
        types: Sequence[str | None] | None = None,
        limit: int | None = DEFAULT_LIMIT,
        engine: str = "auto",
    ) -> list[KGPath]:
        """Metapath subgraphs between two nodes (ids or `Node`s): simple paths of at most
        `k` edges walked in either direction, shortest first in a stable order, at most
        `limit`; with `types`, only paths through that node-type sequence.

        `engine`: "index" (in-memory adjacency; the default on the embedded store),
        "cypher" (variable-length Cypher; the default on Neo4j) or "auto". An empty list
        means no path within `k` hops. Unknown ids raise `EntityNotFoundError`.
        """
        a = source.id if isinstance(source, Node) else source
        b = target.id if isinstance(target, Node) else target
        for node_id in (a, b):
            self.node(node_id)
        if engine == "auto":
            engine = "cypher" if self.backend.dialect == "neo4j" else "index"
        if engine == "index":
            return self.path_index().paths(a, b, k=k, types=types, limit=limit)
        if engine == "cypher":
            return cypher_paths(
                self.backend.run, self.backend.dialect, a, b, k=k, types=types, limit=limit
            )
        raise KGError(f"unknown path engine {engine!r}", hint="use index, cypher or auto")

    def aliases(self) -> dict[str, str]:
        """Other names of nodes (alias → node id) the graph was loaded with (CauseNet's
        surface forms, "lung cancers" → ``lung_cancer``); empty for most graphs."""
        if self.backend.dialect == "ladybug":
            if not self.meta.get("aliases"):
                return {}  # no Alias table in this store
            frame = self.backend.frame(Q_ALIASES)
        else:
            frame = self.backend.aliases()
        if frame is None or not len(frame):
            return {}
        return dict(zip(frame["name"].astype(str), frame["id"].astype(str)))

    @property
    def format(self) -> str | None:
        """The format the graph was loaded from (``hetionet``, ``triples``, ``causenet``)."""
        return (self.meta.get("source") or {}).get("format")

    def link(self, name: str, **options: Any):
        """Link a variable name to nodes: see `causalqa.kg.linking.Linker.link` (the
        graph's own `aliases` are part of the linker)."""
        from causalqa.kg.linking import Linker

        if self._linker is None:
            self._linker = Linker(self.nodes(), cache_dir=self.path, aliases=self.aliases())
        return self._linker.link(name, **options)

    def resolve(self, name_or_id: str, **options: Any) -> Node:
        """A node id, or a name that links to one node without ambiguity; else a clear
        `EntityNotFoundError` listing the candidates."""
        nodes = self.nodes()
        hit = nodes[nodes["id"] == name_or_id]
        if len(hit):
            return Node(*hit.iloc[0][NODE_COLUMNS].tolist())
        linking = self.link(name_or_id, **options)
        if linking.best is not None:
            return linking.best.node
        if not linking.candidates:
            raise EntityNotFoundError(
                f"{name_or_id!r} matches no node of the graph",
                hint="check the spelling, or give a node id",
            )
        listed = "; ".join(
            f"{c.node.name} ({c.node.kind}, {c.node.id}, {c.score:.0f})"
            for c in linking.candidates[:5]
        )
        raise EntityNotFoundError(
            f"{name_or_id!r} is ambiguous: {listed}",
            hint="give the node id, or restrict the node kind",
            candidates=linking.candidates,
        )


def _ladybug_version() -> str:
    try:
        import ladybug

        return str(ladybug.__version__)
    except Exception:  # pragma: no cover
        return "unknown"


def load_hetionet(
    path: str | os.PathLike,
    store: str | os.PathLike | None = None,
    *,
    replace: bool = False,
    **files: Any,
) -> KnowledgeGraph:
    """Read Hetionet (see `read_hetionet`) and build an embedded store from it."""
    from causalqa.kg.loaders import read_hetionet

    return KnowledgeGraph.build(read_hetionet(path, **files), store, replace=replace)


def load_triples(
    path: str | os.PathLike,
    store: str | os.PathLike | None = None,
    *,
    replace: bool = False,
    sep: str | None = None,
) -> KnowledgeGraph:
    """Read a triples file (see `read_triples`) and build an embedded store from it."""
    from causalqa.kg.loaders import read_triples

    return KnowledgeGraph.build(read_triples(path, sep=sep), store, replace=replace)


def load_causenet(
    path: str | os.PathLike,
    store: str | os.PathLike | None = None,
    *,
    replace: bool = False,
) -> KnowledgeGraph:
    """Read the CauseNet core (see `read_causenet`) and build an embedded store from it
    (default ``$CAUSALQA_HOME/kg/causenet``)."""
    from causalqa.kg.loaders import read_causenet

    return KnowledgeGraph.build(read_causenet(path), store, replace=replace)
