"""`causalqa kg ...`: load a knowledge graph into a store, describe it, extract paths.

Wire into the main CLI with ``app.add_typer(kg_app, name="kg")``. Errors are
`CausalQAError`s, shown by the main CLI as one line plus a hint.
"""

from __future__ import annotations

import json
import sys
import time
from enum import StrEnum
from pathlib import Path as FsPath
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from causalqa.kg.model import DEFAULT_K, DEFAULT_LIMIT

app = typer.Typer(
    help="Knowledge graphs: load Hetionet or triples into a store, show stats, find paths.",
    no_args_is_help=True,
)
out = Console()
err = Console(stderr=True)


class Format(StrEnum):
    hetionet = "hetionet"
    triples = "triples"


StoreOption = Annotated[
    FsPath | None,
    typer.Option("--store", help="Store folder (default: $CAUSALQA_HOME/kg/default)."),
]
JSONOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


@app.command("load")
def load_command(
    fmt: Annotated[Format, typer.Argument(help="hetionet or triples.")],
    path: Annotated[
        FsPath,
        typer.Argument(help="Hetionet folder (or its edges .sif[.gz]); or a triples TSV/CSV."),
    ],
    store: StoreOption = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Overwrite an existing store at --store.")
    ] = False,
    sep: Annotated[
        str | None, typer.Option("--sep", help="Triples separator (default: by extension).")
    ] = None,
    json_: JSONOption = False,
) -> None:
    """Load a graph into a new store (bulk import). An existing store needs --replace."""
    from causalqa.kg.loaders import read_hetionet, read_triples
    from causalqa.kg.store import KnowledgeGraph

    started = time.perf_counter()
    with err.status(f"reading {escape(str(path))}"):
        data = read_hetionet(path) if fmt is Format.hetionet else read_triples(path, sep=sep)
    read_seconds = time.perf_counter() - started
    with err.status(f"importing {len(data.nodes):,} nodes and {len(data.edges):,} edges"):
        kg = KnowledgeGraph.build(data, store, replace=replace)
    with kg:
        report = {
            "store": str(kg.path),
            "format": fmt.value,
            "nodes": int(len(data.nodes)),
            "edges": int(len(data.edges)),
            "read_seconds": round(read_seconds, 3),
            "import_seconds": kg.meta.get("import_seconds"),
            "total_seconds": round(time.perf_counter() - started, 3),
        }
    if json_:
        _emit(report)
        return
    out.print(
        f"loaded {report['nodes']:,} nodes and {report['edges']:,} edges into "
        f"{escape(report['store'])} in {report['total_seconds']:.1f} s"
    )


@app.command("stats")
def stats_command(store: StoreOption = None, json_: JSONOption = False) -> None:
    """Counts of nodes by kind and edges by relation."""
    from causalqa.kg.store import KnowledgeGraph

    with KnowledgeGraph.open(store) as kg:
        stats = kg.stats()
    if json_:
        _emit(stats)
        return
    out.print(
        f"[bold]{escape(str(stats['store']))}[/]: {stats['nodes']:,} nodes, "
        f"{stats['edges']:,} edges ({stats['backend']})"
    )
    kinds = Table("node kind", "nodes", title=None)
    for kind, count in stats["kinds"].items():
        kinds.add_row(escape(kind), f"{count:,}")
    out.print(kinds)
    relations = Table("relation", "abbrev", "edges")
    for row in stats["relations"]:
        relations.add_row(escape(row["relation"]), escape(row["abbrev"]), f"{row['edges']:,}")
    out.print(relations)


def _split_types(types: list[str] | None) -> list[str] | None:
    if not types:
        return None
    flat = [t.strip() for value in types for t in value.split(",") if t.strip()]
    return flat or None


@app.command("paths")
def paths_command(
    source: Annotated[str, typer.Argument(help="Source: a node id or a name to link.")],
    target: Annotated[str, typer.Argument(help="Target: a node id or a name to link.")],
    store: StoreOption = None,
    k: Annotated[int, typer.Option("--k", min=1, help="Most hops.")] = DEFAULT_K,
    types: Annotated[
        list[str] | None,
        typer.Option(
            "--types",
            help="Node-type sequence, repeated or comma-separated: Compound,Gene,Disease "
            "('*' is any type). Fixes the path length.",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Most paths.")] = DEFAULT_LIMIT,
    engine: Annotated[str, typer.Option("--engine", help="index, cypher or auto.")] = "auto",
    plain: Annotated[
        bool, typer.Option("--plain", help="Names only, without node types and relations.")
    ] = False,
    json_: JSONOption = False,
) -> None:
    """Paths between two entities, shortest first (paper 001's metapath subgraphs)."""
    from causalqa.kg.store import KnowledgeGraph

    kinds = _split_types(types)
    with KnowledgeGraph.open(store) as kg:
        a_kinds = [kinds[0]] if kinds and kinds[0] != "*" else None
        b_kinds = [kinds[-1]] if kinds and kinds[-1] != "*" else None
        a = kg.resolve(source, kinds=a_kinds)
        b = kg.resolve(target, kinds=b_kinds)
        started = time.perf_counter()
        found = kg.paths(a, b, k=k, types=kinds, limit=limit, engine=engine)
        seconds = time.perf_counter() - started
    hops = len(kinds) - 1 if kinds else k
    message = None if found else f"no path found within {hops} hops"
    if json_:
        _emit(
            {
                "source": a.to_dict(),
                "target": b.to_dict(),
                "k": k,
                "types": kinds,
                "limit": limit,
                "count": len(found),
                "seconds": round(seconds, 4),
                "message": message,
                "paths": [{**p.to_dict(), "record": p.to_record()} for p in found],
            }
        )
        return
    if message:
        out.print(f"{escape(a.name)} → {escape(b.name)}: {message}")
        return
    table = Table("#", "hops", "path", title=f"{a.name} → {b.name} ({len(found)} paths)")
    for i, p in enumerate(found, 1):
        text = p.verbalise(types=False, relations=False) if plain else p.verbalise()
        table.add_row(str(i), str(p.length), escape(text))
    out.print(table)
