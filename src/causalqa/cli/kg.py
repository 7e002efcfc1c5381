"""``causalqa kg``: load a knowledge graph into a store, describe it, find paths; and grow
a causal knowledge graph from reports (``kg mine``, paper 002)."""

from __future__ import annotations

import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from causalqa.cli.deduce import print_stats
from causalqa.cli.options import (
    ConcurrencyOption,
    JSONOption,
    LLMOption,
    SimilarityOption,
    as_json,
    concurrency,
    emit_json,
    emit_json_if,
    err,
    open_kg,
    open_llm,
    out,
)
from causalqa.kg.model import DEFAULT_K, DEFAULT_LIMIT

app = typer.Typer(
    help="Knowledge graphs: load Hetionet, CauseNet or triples into a store, show stats, "
    "find paths.",
    no_args_is_help=True,
)


class Format(StrEnum):
    hetionet = "hetionet"
    triples = "triples"
    causenet = "causenet"


StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store",
        "--kg",
        help="Store folder (default: $CAUSALQA_HOME/kg/default), a Neo4j server: "
        "bolt://HOST:7687 (credentials from $NEO4J_USER, $NEO4J_PASSWORD), or a SPARQL "
        "endpoint for stats and paths: sparql:URL, wikidata, sparql:FILE.ttl.",
    ),
]


LoadStoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store",
        "--kg",
        help="Store folder (default: $CAUSALQA_HOME/kg/default; causenet: "
        "$CAUSALQA_HOME/kg/causenet, a store of its own beside Hetionet) or a Neo4j server: "
        "bolt://HOST:7687 (credentials from $NEO4J_USER, $NEO4J_PASSWORD).",
    ),
]


@app.command("load")
def load_command(
    fmt: Annotated[Format, typer.Argument(help="hetionet, causenet or triples.")],
    path: Annotated[
        Path,
        typer.Argument(
            help="Hetionet folder (or its edges .sif[.gz]); the CauseNet core folder (its "
            "core-raw.tsv: every cause → effect edge with its support, the number of "
            "extractions behind it; and lem_mapping-precision.tsv: surface forms as "
            "aliases); or a triples TSV/CSV."
        ),
    ],
    store: LoadStoreOption = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Overwrite an existing store at --store.")
    ] = False,
    sep: Annotated[
        str | None, typer.Option("--sep", help="Triples separator (default: by extension).")
    ] = None,
    json_: JSONOption = False,
) -> None:
    """Load a graph into a new store (bulk import) or a Neo4j server (--store bolt://…).
    An existing store, or a server that holds a graph, needs --replace. CauseNet
    (Heindorf et al. 2020, CC BY 4.0) goes into a store of its own, which discover pair
    consults beside Hetionet."""
    from causalqa.cli.options import progress
    from causalqa.errors import KGStoreError
    from causalqa.kg.loaders import read_causenet, read_hetionet, read_triples
    from causalqa.kg.sparql import sparql_location
    from causalqa.kg.store import KnowledgeGraph, default_store, neo4j_uri

    if sparql_location(store) is not None:
        raise KGStoreError(
            f"{store} is a SPARQL endpoint: causalqa reads it, it does not load into it",
            hint="load into a store folder or a Neo4j server (--store DIR|bolt://HOST:7687); "
            "a folder named wikidata: give its full path",
        )
    uri = neo4j_uri(store)
    if uri is None:
        store = store or default_store(fmt.value)
        _refuse_existing(store, replace)  # before reading: a refusal costs nothing
    started = time.perf_counter()
    readers = {Format.hetionet: lambda: read_hetionet(path),
               Format.causenet: lambda: read_causenet(path),
               Format.triples: lambda: read_triples(path, sep=sep)}  # fmt: skip
    with progress(transient=True) as bar:
        task = bar.add_task(f"reading {escape(str(path))}", total=None)
        data = readers[fmt]()
        read_seconds = time.perf_counter() - started
        bar.update(task, total=1, completed=1, description=f"read {escape(str(path))}")
        what = f"{len(data.nodes):,} nodes, {len(data.edges):,} edges"
        task = bar.add_task(f"importing {what}", total=None)

        def step(name: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, description=f"importing {name}")

        if uri is not None:  # a Neo4j server: batched UNWIND into the same schema
            kg = KnowledgeGraph.connect(uri)
            try:
                kg.import_data(data, replace=replace, on_step=step)
            except BaseException:
                kg.close()
                raise
            kg.meta["import_seconds"] = round(time.perf_counter() - started - read_seconds, 3)
        else:
            kg = KnowledgeGraph.build(data, store, replace=replace, on_step=step)
        bar.update(task, description=f"imported {what}")
    with kg:
        report = {
            "store": uri or str(kg.path),
            "format": fmt.value,
            "nodes": int(len(data.nodes)),
            "edges": int(len(data.edges)),
            "read_seconds": round(read_seconds, 3),
            "import_seconds": kg.meta.get("import_seconds"),
            "total_seconds": round(time.perf_counter() - started, 3),
        }
        if data.aliases is not None:
            report["aliases"] = int(len(data.aliases))
        if data.edge_properties:
            report["edge_properties"] = data.edge_properties
        if data.source.get("attribution"):
            report["attribution"] = data.source["attribution"]
    if emit_json_if(json_, report):
        return
    aliases = f", {report['aliases']:,} aliases" if "aliases" in report else ""
    out.print(
        f"loaded {report['nodes']:,} nodes and {report['edges']:,} edges{aliases} into "
        f"{escape(report['store'])} in {report['total_seconds']:.1f} s"
    )
    if "attribution" in report:
        out.print(f"data: {escape(report['attribution'])}", highlight=False)


def _refuse_existing(store: Path, replace: bool) -> None:
    """The store build's own refusal, said before the (slower) read of the files."""
    from causalqa.errors import KGStoreError

    folder = Path(store).expanduser()
    if replace or not folder.exists():
        return
    if folder.is_dir() and not any(folder.iterdir()):
        return
    raise KGStoreError(
        f"a knowledge graph store already exists at {folder}",
        hint="pass --replace to overwrite it, or choose another --store",
    )


@app.command("stats")
def stats_command(store: StoreOption = None, json_: JSONOption = False) -> None:
    """Counts of nodes by kind and edges by relation."""
    with open_kg(store) as kg:
        stats = kg.stats()
    if emit_json_if(json_, stats):
        return
    if stats["nodes"] is None:  # a SPARQL endpoint too large to count (Wikidata)
        out.print(f"[bold]{escape(str(stats['store']))}[/]: {escape(stats.get('note', ''))}")
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
    kinds = _split_types(types)
    with open_kg(store) as kg:
        a_kinds = [kinds[0]] if kinds and kinds[0] != "*" else None
        b_kinds = [kinds[-1]] if kinds and kinds[-1] != "*" else None
        a = kg.resolve(source, kinds=a_kinds)
        b = kg.resolve(target, kinds=b_kinds)
        started = time.perf_counter()
        found = kg.paths(a, b, k=k, types=kinds, limit=limit, engine=engine)
        seconds = time.perf_counter() - started
    hops = len(kinds) - 1 if kinds else k
    message = None if found else f"no path found within {hops} hops"
    if as_json(json_):
        emit_json(
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


@app.command("mine", help="Grow a causal KG from reports with the LLM (paper 002).")
def mine_command(
    reports: Annotated[
        list[Path], typer.Argument(help="Report files (.txt/.md), JSONL data sets, or folders.")
    ],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="The KG directory to grow.")],
    infer: Annotated[
        bool,
        typer.Option("--infer/--no-infer", help="Also infer chains for statements (Prompt 4)."),
    ] = True,
    fmt: Annotated[str, typer.Option("--format", help="Nodes/edges as jsonl or parquet.")] = (
        "jsonl"
    ),
    threshold: SimilarityOption = 0.7,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens", min=16, help="Token budget of every call (default 512 P3, 256 P4)."
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Mine at most this many reports.")
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option(
            "--sample",
            min=1,
            help="Mine this many reports drawn at random (seeded by --seed); a larger "
            "sample with the same seed extends a smaller one.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of --sample.")] = 0,
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="paper (Prompt 3 + one Prompt 4 per statement) or fast (one "
            "schema-constrained call per report).",
        ),
    ] = "paper",
    paper_order: Annotated[
        bool,
        typer.Option(
            "--paper-order",
            help="Send Prompt 4 with the statement before the context, as printed in the "
            "paper (default: context first, so a report's calls share a cached prefix).",
        ),
    ] = False,
    concurrency_: ConcurrencyOption = None,
    llm: LLMOption = None,
    json_: JSONOption = False,
) -> None:
    """Grow a causal KG from REPORTS (Prompt 3 extraction, Prompt 4 inference); resumable."""
    from causalqa.deduction.dataset import read_reports, sample_report_ids
    from causalqa.deduction.deduce import check_text
    from causalqa.deduction.event_graph import CausalKG
    from causalqa.deduction.mining import mine

    items, statements = read_reports(reports)
    for r in items:
        check_text(r.context, what=f"report {r.report_id}")
    if sample is not None:
        by_id = {r.report_id: r for r in items}
        items = [by_id[i] for i in sample_report_ids(by_id, sample, seed)]
    if limit is not None:
        items = items[:limit]
    kg = CausalKG.open(out_dir, fmt=fmt)
    in_flight = concurrency(concurrency_, llm)
    model = open_llm(llm, quiet=as_json(json_))
    summary = mine(
        items,
        model,
        kg,
        statements=statements,
        infer=infer,
        max_tokens=max_tokens,
        context_first=not paper_order,
        progress=not as_json(json_),
        mode=mode,
        concurrency=in_flight,
    )
    if summary.calls or not kg.similar_current or not (out_dir / "meta.json").exists():
        kg.link_similar(threshold=threshold)
    kg.save(fmt=fmt)
    stats = kg.stats()
    if emit_json_if(json_, {"out": str(out_dir), "run": summary.__dict__, "stats": stats}):
        return
    print_stats(stats, out_dir)
    err.print(
        f"[dim]{summary.calls} LLM calls, {summary.skipped} already mined, {summary.failed} "
        f"failed, {summary.new_chains} new chains, {summary.seconds:.1f} s[/]"
    )
    for e in summary.errors[:5]:
        err.print(f"[yellow]failed:[/] {escape(e)}", highlight=False)
