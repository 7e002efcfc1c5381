"""Read knowledge graphs from files into two tables, ready for a bulk import.

- `read_hetionet`: Hetionet v1.0 as published — nodes TSV (``id name kind``), edges SIF
  (``source metaedge target``, plain or gzipped; the 5k-per-metaedge sample and the full
  ``hetionet-v1.0-edges.sif.gz`` share the format), metaedge abbreviations from
  ``metaedges.tsv`` or, failing that, the metagraph JSON.
- `read_triples`: any ``head, relation, tail[, head_type, tail_type]`` TSV/CSV.
- `read_causenet`: the CauseNet core (Heindorf et al., CIKM 2020; CC BY 4.0) — every
  cause → effect edge of ``core-raw.tsv`` with its support (the number of extractions
  behind it), one ``Concept`` node per lemma, and the surface forms of
  ``lem_mapping-precision.tsv`` as aliases.

All return a `GraphData`: ``nodes`` (id, name, kind) and ``edges`` (source, target,
relation, abbrev; CauseNet's also ``support``) as pandas frames, and CauseNet's
``aliases`` (name, id). Files are checked as they are read: an empty
file, a missing column, a blank field or an edge to an unknown node is a `KGFormatError`
naming the file and the line (1-based, the header being line 1).

>>> data = read_triples("drugs.tsv")                          # doctest: +SKIP
>>> data.nodes.shape, data.edges.shape                        # doctest: +SKIP
((3, 3), (2, 4))
"""

from __future__ import annotations

import csv
import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from causalqa.errors import KGFormatError

NODE_COLUMNS = ["id", "name", "kind"]
EDGE_COLUMNS = ["source", "target", "relation", "abbrev"]
EDGE_PROPERTIES = ["support"]
"""Optional edge columns a store keeps when a graph has them (integers)."""
ALIAS_COLUMNS = ["name", "id"]
DEFAULT_KIND = "Entity"

_TRIPLE_HEADERS = {
    "head": "head",
    "subject": "head",
    "source": "head",
    "relation": "relation",
    "predicate": "relation",
    "rel": "relation",
    "tail": "tail",
    "object": "tail",
    "target": "tail",
    "head_type": "head_type",
    "subject_type": "head_type",
    "source_type": "head_type",
    "tail_type": "tail_type",
    "object_type": "tail_type",
    "target_type": "tail_type",
}


@dataclass
class GraphData:
    """A graph as two tables of strings: `nodes` (id, name, kind) and `edges` (source,
    target, relation, abbrev, and the optional integer `EDGE_PROPERTIES` such as
    ``support``), plus where it came from and, optionally, `aliases`: other names of nodes
    (name, node id) that entity linking accepts."""

    nodes: pd.DataFrame
    edges: pd.DataFrame
    source: dict = field(default_factory=dict)
    aliases: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        self.nodes = self.nodes[NODE_COLUMNS].reset_index(drop=True)
        extra = [c for c in EDGE_PROPERTIES if c in self.edges.columns]
        self.edges = self.edges[EDGE_COLUMNS + extra].reset_index(drop=True)
        if self.aliases is not None:
            self.aliases = self.aliases[ALIAS_COLUMNS].reset_index(drop=True)

    @property
    def edge_properties(self) -> list[str]:
        """The optional edge columns this graph has (``["support"]`` for CauseNet)."""
        return [c for c in EDGE_PROPERTIES if c in self.edges.columns]


def _fail(path: Path, message: str, line: int | None = None, hint: str | None = None):
    where = f"{path}, line {line}" if line is not None else f"{path}"
    return KGFormatError(f"{where}: {message}", hint=hint, path=str(path), line=line)


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return path.open("r", encoding="utf-8", newline="")


def _first_line(path: Path) -> str | None:
    try:
        with _open_text(path) as f:
            for raw in f:
                if raw.strip():
                    return raw.rstrip("\r\n")
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile) as e:
        raise _fail(path, f"cannot be read: {e}") from e
    return None


def _read_table(path: Path, sep: str, ncols: int, *, header: bool, names: list[str]):
    """Read a delimited file of exactly `ncols` string columns; return the frame and each
    row's 1-based line number. Blank lines are skipped but still counted."""
    if not path.is_file():
        raise _fail(path, "no such file")
    if _first_line(path) is None:
        raise _fail(path, "the file is empty", line=1, hint="give a file with at least one row")
    quoting = csv.QUOTE_NONE if sep == "\t" else csv.QUOTE_MINIMAL
    try:
        frame = pd.read_csv(
            path,
            sep=sep,
            header=None,
            names=[*names, "__extra__"],  # a sentinel column catches a surplus field
            index_col=False,
            skiprows=1 if header else 0,
            dtype=str,
            keep_default_na=False,
            na_values=[],
            skip_blank_lines=False,
            quoting=quoting,
            engine="c",
            compression="infer",
        )
    except pd.errors.ParserError as e:
        found = re.search(r"line (\d+), saw (\d+)", str(e))
        if found:
            line = int(found.group(1)) + (1 if header else 0)
            raise _fail(
                path,
                f"expected {ncols} fields, found {found.group(2)}",
                line=line,
                hint=f"separate the {ncols} fields with {sep!r}; quote fields that contain it",
            ) from e
        raise _fail(path, f"cannot be parsed: {e}") from e
    except (UnicodeDecodeError, OSError, EOFError) as e:
        raise _fail(path, f"cannot be read: {e}") from e
    lines = pd.Series(range(len(frame)), dtype="int64") + (2 if header else 1)
    extra = frame.pop("__extra__")
    surplus = extra.notna() & (extra != "")
    if surplus.any():
        row = int(surplus.to_numpy().argmax())
        raise _fail(
            path,
            f"expected {ncols} fields, found more",
            line=int(lines.iloc[row]),
            hint=f"separate the {ncols} fields with {sep!r}; quote fields that contain it",
        )
    blank = frame.isna().all(axis=1) | (frame.fillna("") == "").all(axis=1)
    frame, lines = frame[~blank], lines[~blank]
    if frame.empty:
        raise _fail(path, "the file has no data rows", line=2 if header else 1)
    bad = frame.isna() | (frame.apply(lambda c: c.str.strip()) == "")
    if bad.to_numpy().any():
        row = int(bad.any(axis=1).to_numpy().argmax())
        col = bad.columns[bad.iloc[row].to_numpy().argmax()]
        raise _fail(
            path,
            f"the field {col!r} is missing or empty",
            line=int(lines.iloc[row]),
            hint=f"every row needs {ncols} non-empty fields: {', '.join(names)}",
        )
    frame = frame.apply(lambda c: c.str.strip())
    return frame.reset_index(drop=True), lines.reset_index(drop=True)


def _check_header(path: Path, expected: list[str]) -> None:
    first = _first_line(path)
    if first is None:
        raise _fail(path, "the file is empty", line=1)
    got = [c.strip() for c in first.split("\t")]
    if got != expected:
        raise _fail(
            path,
            f"expected the header {' '.join(expected)!r} (tab-separated), found {first[:80]!r}",
            line=1,
        )


# -- Hetionet ----------------------------------------------------------------------------
def _parse_metaedge(text: str) -> tuple[str, str, str] | None:
    """'Compound - binds - Gene' -> (Compound, binds, Gene); 'Gene > regulates > Gene' too."""
    parts = re.split(r"\s+[->]\s+", text.strip())
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 else None


def read_metaedges(path: str | Path) -> dict[str, tuple[str, str, str]]:
    """Metaedge abbreviation -> (source kind, relation, target kind), from Hetionet's
    ``metaedges.tsv`` or its metagraph JSON (``*.json``)."""
    path = Path(path)
    if path.suffix == ".json":
        try:
            graph = json.loads(path.read_text(encoding="utf-8"))
            abbrev = graph["kind_to_abbrev"]
            result = {}
            for source, target, relation, direction in graph["metaedge_tuples"]:
                arrow = ">" if direction == "forward" else ""
                key = f"{abbrev[source]}{abbrev[relation]}{arrow}{abbrev[target]}"
                result[key] = (source, relation, target)
            return result
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise _fail(path, f"not a Hetionet metagraph JSON: {e}") from e
    first = _first_line(path)
    columns = [c.strip() for c in first.split("\t")] if first else []
    if not {"metaedge", "abbreviation"} <= set(columns):
        raise _fail(path, "expected a header with the columns metaedge and abbreviation", 1)
    frame, lines = _read_table(path, "\t", len(columns), header=True, names=columns)
    result = {}
    for metaedge, abbreviation, line in zip(frame["metaedge"], frame["abbreviation"], lines):
        parsed = _parse_metaedge(metaedge)
        if parsed is None:
            raise _fail(path, f"cannot read the metaedge {metaedge!r}", line=int(line))
        result[abbreviation] = parsed
    return result


def _find(directory: Path, patterns: list[str], what: str) -> Path:
    for pattern in patterns:
        found = sorted(directory.glob(pattern))
        if found:
            return found[0]
    raise KGFormatError(
        f"{directory}: no {what} file (looked for {', '.join(patterns)})",
        hint="pass the file explicitly",
        path=str(directory),
    )


def hetionet_files(path: str | Path) -> dict[str, Path | None]:
    """The nodes, edges and metaedge files of a Hetionet folder (or of the folder holding the
    given edges file). The full edge list wins over the 5k sample when both are present."""
    path = Path(path)
    directory = path if path.is_dir() else path.parent
    if not path.exists():
        raise KGFormatError(f"{path}: no such file or directory", path=str(path))
    edges = (
        path
        if path.is_file()
        else _find(
            directory,
            ["hetionet-v1.0-edges.sif.gz", "hetionet-v1.0-edges.sif", "edges-5k.sif.gz", "*.sif*"],
            "edges (.sif)",
        )
    )
    nodes = _find(directory, ["hetionet-v1.0-nodes.tsv", "*nodes.tsv"], "nodes (.tsv)")
    metaedges = None
    for pattern in ["metaedges.tsv", "*metagraph.json"]:
        found = sorted(directory.glob(pattern))
        if found:
            metaedges = found[0]
            break
    return {"nodes": nodes, "edges": edges, "metaedges": metaedges}


def read_hetionet(
    path: str | Path,
    *,
    nodes: str | Path | None = None,
    edges: str | Path | None = None,
    metaedges: str | Path | None = None,
) -> GraphData:
    """Read Hetionet from a folder (or an edges file next to the nodes file).

    Edges get the relation's name from the metaedge ("CbG" -> "binds") and keep the
    abbreviation. An edge whose metaedge is unknown, or whose endpoint is not a node, is
    an error naming the file and line.
    """
    files = hetionet_files(path)
    nodes_path = Path(nodes) if nodes else files["nodes"]
    edges_path = Path(edges) if edges else files["edges"]
    meta_path = Path(metaedges) if metaedges else files["metaedges"]

    _check_header(nodes_path, NODE_COLUMNS)
    node_frame, node_lines = _read_table(nodes_path, "\t", 3, header=True, names=NODE_COLUMNS)
    dup = node_frame["id"].duplicated()
    if dup.any():
        row = int(dup.to_numpy().argmax())
        raise _fail(
            nodes_path, f"the node id {node_frame['id'][row]!r} appears twice", node_lines[row]
        )

    _check_header(edges_path, ["source", "metaedge", "target"])
    edge_frame, edge_lines = _read_table(
        edges_path, "\t", 3, header=True, names=["source", "metaedge", "target"]
    )
    known = read_metaedges(meta_path) if meta_path else {}
    if known:
        unknown = ~edge_frame["metaedge"].isin(list(known))
        if unknown.any():
            row = int(unknown.to_numpy().argmax())
            raise _fail(
                edges_path,
                f"unknown metaedge {edge_frame['metaedge'][row]!r}",
                edge_lines[row],
                hint=f"metaedges are listed in {meta_path}",
            )
        relation = edge_frame["metaedge"].map({k: v[1] for k, v in known.items()})
    else:
        relation = edge_frame["metaedge"]
    for column in ("source", "target"):
        missing = ~edge_frame[column].isin(node_frame["id"])
        if missing.any():
            row = int(missing.to_numpy().argmax())
            raise _fail(
                edges_path,
                f"the {column} {edge_frame[column][row]!r} is not a node of {nodes_path.name}",
                edge_lines[row],
            )
    edge_out = pd.DataFrame(
        {
            "source": edge_frame["source"],
            "target": edge_frame["target"],
            "relation": relation,
            "abbrev": edge_frame["metaedge"],
        }
    ).drop_duplicates()
    return GraphData(
        node_frame,
        edge_out,
        source={
            "format": "hetionet",
            "nodes": str(nodes_path),
            "edges": str(edges_path),
            "metaedges": str(meta_path) if meta_path else None,
        },
    )


# -- generic triples ---------------------------------------------------------------------
def _sniff_sep(path: Path, first: str) -> str:
    name = path.name.lower().removesuffix(".gz")
    if name.endswith(".csv"):
        return ","
    if name.endswith((".tsv", ".tab", ".txt")) or "\t" in first:
        return "\t"
    return ","


def read_triples(
    path: str | Path, *, sep: str | None = None, default_kind: str = DEFAULT_KIND
) -> GraphData:
    """Read ``head, relation, tail[, head_type, tail_type]`` rows (TSV or CSV, optionally
    gzipped; the separator follows the extension unless given). A header row is recognised
    by its names (head/subject/source, relation/predicate, tail/object/target, *_type);
    without one, columns are taken in that order.

    A node's id is its name, or ``"{type}::{name}"`` when the file gives types, so that
    "Mercury" the planet and "Mercury" the element stay apart. Nodes without a type get
    `default_kind`. Duplicate triples are kept once.
    """
    path = Path(path)
    if not path.is_file():
        raise _fail(path, "no such file")
    first = _first_line(path)
    if first is None:
        raise _fail(path, "the file is empty", line=1, hint="give at least one triple")
    sep = sep or _sniff_sep(path, first)
    cells = next(csv.reader([first], delimiter=sep))
    lowered = [c.strip().lower() for c in cells]
    header = all(c in _TRIPLE_HEADERS for c in lowered)
    ncols = len(cells)
    if ncols not in (3, 5):
        raise _fail(
            path,
            f"expected 3 fields (head, relation, tail) or 5 (with head_type, tail_type), "
            f"found {ncols}",
            line=1,
            hint=f"the separator used was {sep!r}; pass sep= for another",
        )
    if header:
        names = [_TRIPLE_HEADERS[c] for c in lowered]
        if sorted(set(names)) != sorted(names) or not {"head", "relation", "tail"} <= set(names):
            raise _fail(path, f"the header {first!r} does not name head, relation, tail", 1)
    else:
        names = ["head", "relation", "tail", "head_type", "tail_type"][:ncols]
    frame, _ = _read_table(path, sep, ncols, header=header, names=names)
    typed = "head_type" in frame.columns
    if typed:
        head_id = frame["head_type"] + "::" + frame["head"]
        tail_id = frame["tail_type"] + "::" + frame["tail"]
        head_kind, tail_kind = frame["head_type"], frame["tail_type"]
    else:
        head_id, tail_id = frame["head"], frame["tail"]
        head_kind = tail_kind = pd.Series(default_kind, index=frame.index)
    nodes = pd.concat(
        [
            pd.DataFrame({"id": head_id, "name": frame["head"], "kind": head_kind}),
            pd.DataFrame({"id": tail_id, "name": frame["tail"], "kind": tail_kind}),
        ]
    ).drop_duplicates("id")
    edges = pd.DataFrame(
        {"source": head_id, "target": tail_id, "relation": frame["relation"], "abbrev": ""}
    ).drop_duplicates()
    return GraphData(nodes, edges, source={"format": "triples", "path": str(path), "sep": sep})


# -- CauseNet ----------------------------------------------------------------------------
CAUSENET_EDGES = "core-raw.tsv"
CAUSENET_MAPPING = "lem_mapping-precision.tsv"
CAUSENET_COLUMNS = ["Source", "Target", "Weight_Source_Target"]
CAUSENET_KIND = "Concept"
CAUSENET_RELATION = "CAUSES"
CAUSENET_ATTRIBUTION = (
    "CauseNet (Heindorf et al. 2020, CauseNet: Towards a Causality Graph Extracted from the "
    "Web, CIKM 2020), CC BY 4.0"
)


def causenet_files(path: str | Path) -> dict[str, Path]:
    """The edges (``core-raw.tsv``) and lemma mapping (``lem_mapping-precision.tsv``) of a
    CauseNet core folder; a clear error naming what is missing."""
    path = Path(path)
    if not path.exists():
        raise KGFormatError(
            f"{path}: no such folder",
            hint="give the CauseNet core folder, which holds core-raw.tsv and "
            "lem_mapping-precision.tsv",
            path=str(path),
        )
    if not path.is_dir():
        raise KGFormatError(
            f"{path}: not a folder",
            hint=f"give the folder that holds {CAUSENET_EDGES} and {CAUSENET_MAPPING}",
            path=str(path),
        )
    files = {"edges": path / CAUSENET_EDGES, "mapping": path / CAUSENET_MAPPING}
    for what, file in files.items():
        if not file.is_file():
            held = ", ".join(sorted(p.name for p in path.iterdir())[:8]) or "nothing"
            raise KGFormatError(
                f"{path}: no {file.name} (the CauseNet core's "
                f"{'cause → effect edges' if what == 'edges' else 'lemma ↔ surface forms'})",
                hint=f"the folder holds: {held}",
                path=str(file),
            )
    return files


def _causenet_header(path: Path, expected: list[str], ncols: tuple[int, ...]) -> list[str]:
    first = _first_line(path)
    if first is None:
        raise _fail(path, "the file is empty", line=1, hint="give a file with at least one row")
    got = [c.strip() for c in first.split("\t")]
    if got[: len(expected)] != expected or len(got) not in ncols:
        raise _fail(
            path,
            f"expected the tab-separated columns {', '.join(expected)}"
            + (" (and one more, e.g. Annotation)" if max(ncols) > len(expected) else "")
            + f", found {', '.join(got)[:120]!r}",
            line=1,
        )
    return got


def _concept_name(lemma: pd.Series) -> pd.Series:
    return lemma.str.replace("_", " ", regex=False).str.split().str.join(" ")


def read_causenet(path: str | Path) -> GraphData:
    """Read the CauseNet core from its folder: every row of ``core-raw.tsv`` (``Source``,
    ``Target``, ``Weight_Source_Target``, an optional fourth column such as
    ``Annotation``) as an edge ``Source -CAUSES-> Target`` with ``support`` = the weight
    (the number of web extractions behind it; both directions of a pair are kept, each with
    its own support), one node per lemma (id: the lemma, ``lung_cancer``; name: the lemma
    with spaces, "lung cancer"; kind ``Concept``), and the surface forms of
    ``lem_mapping-precision.tsv`` whose lemma is a node ("lung cancers" → ``lung_cancer``)
    as aliases — less those that read like another node's name once case and punctuation
    are folded (a node's own name always wins).

    Errors (`KGFormatError`, naming the file and line): a missing folder or file, other
    columns, an empty file or one without rows, an empty field, a weight that is not a
    positive whole number, the same edge twice.
    """
    from causalqa.kg.linking import normalize

    files = causenet_files(path)
    edges_path, mapping_path = files["edges"], files["mapping"]
    columns = _causenet_header(edges_path, CAUSENET_COLUMNS, (3, 4))
    frame, lines = _read_table(edges_path, "\t", len(columns), header=True, names=columns)
    weights = pd.to_numeric(frame["Weight_Source_Target"], errors="coerce")
    bad = weights.isna() | (weights < 1) | (weights != weights.round())
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise _fail(
            edges_path,
            f"the weight {frame['Weight_Source_Target'][row]!r} is not a positive whole number",
            line=int(lines[row]),
            hint="Weight_Source_Target counts the extractions behind the edge: 1, 2, 3, …",
        )
    dup = frame.duplicated(["Source", "Target"])
    if dup.any():
        row = int(dup.to_numpy().argmax())
        raise _fail(
            edges_path,
            f"the edge {frame['Source'][row]} → {frame['Target'][row]} appears twice",
            line=int(lines[row]),
            hint="each cause → effect pair has one row, its weight the number of extractions",
        )
    lemmas = pd.Index(pd.concat([frame["Source"], frame["Target"]]).unique()).sort_values()
    nodes = pd.DataFrame(
        {"id": lemmas, "name": _concept_name(pd.Series(lemmas)), "kind": CAUSENET_KIND}
    )
    edges = pd.DataFrame(
        {
            "source": frame["Source"],
            "target": frame["Target"],
            "relation": CAUSENET_RELATION,
            "abbrev": "",
            "support": weights.astype("int64"),
        }
    )
    _causenet_header(mapping_path, ["Lemmatized", "Original"], (2,))
    mapping, _ = _read_table(mapping_path, "\t", 2, header=True, names=["Lemmatized", "Original"])
    known = mapping[mapping["Lemmatized"].isin(lemmas)]
    aliases = pd.DataFrame({"name": _concept_name(known["Original"]), "id": known["Lemmatized"]})
    taken = {normalize(n) for n in nodes["name"]}
    folded = aliases["name"].map(normalize)
    lemmas_of = aliases.groupby(folded)["id"].transform("nunique")
    # a node's own name wins; a surface form of two lemmas is no alias of either
    aliases = aliases[~folded.isin(taken) & (lemmas_of == 1)].drop_duplicates("name")
    return GraphData(
        nodes,
        edges,
        source={
            "format": "causenet",
            "edges": str(edges_path),
            "mapping": str(mapping_path),
            "licence": "CC BY 4.0",
            "attribution": CAUSENET_ATTRIBUTION,
            "mapping_rows": int(len(mapping)),
        },
        aliases=aliases,
    )
