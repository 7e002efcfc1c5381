"""The causal knowledge graph an LLM mines from reports (paper 002, §4.1).

Nodes are events (deduplicated by normalised text); directed edges are of three types:

- ``extracted``: cause → effect stated in a report (Prompt 3);
- ``inferred``: cause → effect the LLM suggests between a candidate cause and the
  accident (Prompt 4);
- ``similar``: both directions between two events whose text embeddings have cosine
  similarity > 0.7, weighted by that similarity.

A graph lives in a directory. The mined chains and one record per LLM call (its raw
reply, seconds, tokens) are *appended* as they are mined — ``chains.jsonl`` and
``mining.jsonl`` — so an interrupted run resumes where it stopped and a report is never
mined twice. Nodes and edges are derived from the chains and written by `save` as JSONL
or Parquet (``nodes.*``, ``edges.*``) beside ``meta.json`` with the §4.1 statistics.

>>> from causalqa.deduction.chains import Chain
>>> kg = CausalKG()
>>> kg.add_chains([Chain(("Ice on wing", "Lift loss", "Stall"), report_id="r1")])
1
>>> kg.stats()["edges_by_type"]
{'extracted': 2, 'inferred': 0, 'similar': 0}
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from causalqa.deduction.chains import EXTRACTED, INFERRED, SIMILAR, Chain, clean_node, node_key
from causalqa.errors import EventGraphError
from causalqa.jsonl import append_jsonl, read_jsonl, write_jsonl

EDGE_TYPES = (EXTRACTED, INFERRED, SIMILAR)
SIMILARITY_THRESHOLD = 0.7
FORMAT_VERSION = 1


@dataclass
class Node:
    id: int
    text: str
    key: str
    kinds: set[str] = field(default_factory=set)
    report_ids: set[str] = field(default_factory=set)

    def to_row(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "extracted": EXTRACTED in self.kinds,
            "inferred": INFERRED in self.kinds,
            "report_ids": sorted(self.report_ids),
        }


@dataclass
class Edge:
    source: int
    target: int
    type: str
    weight: float = 1.0
    count: int = 0
    """How many mined cause → effect pairs this edge stands for (0 for similar edges)."""
    report_ids: set[str] = field(default_factory=set)

    def to_row(self, nodes: list[Node]) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "source_text": nodes[self.source].text,
            "target_text": nodes[self.target].text,
            "type": self.type,
            "weight": round(float(self.weight), 6),
            "count": self.count,
            "report_ids": sorted(self.report_ids),
        }


@dataclass
class MiningRecord:
    """One LLM call of mining: which report, which prompt, what came back, how long."""

    report_id: str
    task: Literal["extract", "infer"]
    statement: str | None = None
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    n_chains: int = 0
    model: str = ""
    context_sha: str = ""
    raw: str = ""
    error: str | None = None
    finish_reason: str = "stop"
    at: float = field(default_factory=time.time)
    prompt: str = ""
    """Which prompt: ``P3``, ``P4`` (the paper's order) or ``P4-context-first``."""
    max_tokens: int = 0
    """The generation budget of the call (0: not recorded)."""

    @property
    def unit(self) -> tuple[str, str, str]:
        return (self.report_id, self.task, self.statement or "")


def context_sha(text: str) -> str:
    """A short, stable fingerprint of a context (whitespace-insensitive)."""
    return hashlib.sha1(" ".join(text.split()).encode()).hexdigest()[:16]


def context_id(text: str) -> str:
    """A report id for a context that has none (a user's text)."""
    return f"ctx-{context_sha(text)[:12]}"


class CausalKG:
    """A causal knowledge graph of mined chains; see the module docstring.

    Create one in memory (``CausalKG()``), or bound to a directory with `open` (created
    if new, loaded if it exists) so that mining appends to it as it goes.
    """

    def __init__(self, path: str | Path | None = None, *, fmt: str = "jsonl") -> None:
        if fmt not in ("jsonl", "parquet"):
            raise EventGraphError(f"unknown KG format {fmt!r}", hint="use jsonl or parquet")
        self.path = Path(path) if path is not None else None
        self.fmt = fmt
        self.chains: list[Chain] = []
        self.records: list[MiningRecord] = []
        self.nodes: list[Node] = []
        self.edges: dict[tuple[int, int, str], Edge] = {}
        self.similarity_threshold = SIMILARITY_THRESHOLD
        self._by_key: dict[str, int] = {}
        self._chain_keys: set[tuple[str, str, str | None, tuple[str, ...]]] = set()
        self._similar_current = True

    # -- building ------------------------------------------------------------------------
    def node_id(self, text: str) -> int:
        """The id of the node for `text`, created if new."""
        key = node_key(text)
        if not key:
            raise EventGraphError(f"empty node text {text!r}")
        nid = self._by_key.get(key)
        if nid is None:
            nid = len(self.nodes)
            self.nodes.append(Node(nid, clean_node(text) or text.strip(), key))
            self._by_key[key] = nid
        return nid

    def find(self, text: str) -> int | None:
        """The id of the node whose text normalises like `text`, or None."""
        return self._by_key.get(node_key(text))

    def add_chains(self, chains: Iterable[Chain], *, persist: bool = True) -> int:
        """Add chains (their nodes and causal edges); a chain already present for the same
        report, kind and statement is skipped. Returns how many were new. On a graph
        bound to a directory, new chains are appended to ``chains.jsonl`` at once."""
        new = []
        for c in chains:
            if c.kind not in (EXTRACTED, INFERRED):
                raise EventGraphError(f"a mined chain is extracted or inferred, not {c.kind!r}")
            ck = (c.report_id or "", c.kind, c.statement, tuple(node_key(n) for n in c.nodes))
            if ck in self._chain_keys or len(c.nodes) < 2:
                continue
            self._chain_keys.add(ck)
            self._index_chain(c)
            new.append(c)
        if new and persist and self.path is not None:
            self._append("chains.jsonl", [c.to_dict() for c in new])
        if new:
            self._similar_current = False
        return len(new)

    def _index_chain(self, c: Chain) -> None:
        self.chains.append(c)
        ids = [self.node_id(n) for n in c.nodes]
        for nid in ids:
            self.nodes[nid].kinds.add(c.kind)
            if c.report_id:
                self.nodes[nid].report_ids.add(c.report_id)
        for a, b in zip(ids[:-1], ids[1:]):
            if a == b:
                continue
            e = self.edges.setdefault((a, b, c.kind), Edge(a, b, c.kind))
            e.count += 1
            if c.report_id:
                e.report_ids.add(c.report_id)

    def reparse(self) -> int:
        """Rebuild the mined chains from the recorded raw replies with the current parser
        — after a parser fix, without calling the LLM again. Chains not backed by a
        record (added directly) are kept. Similar edges are stale afterwards (call
        `link_similar`); on a bound graph ``chains.jsonl`` and ``mining.jsonl`` are
        rewritten. Returns the number of chains."""
        from causalqa.deduction.chains import parse_chains

        # Fast-mode records hold JSON whose chains were kept as mined: not re-parsed.
        backed = {
            (r.report_id, r.task, r.statement or "") for r in self.records if r.prompt != "fast"
        }
        kept = [
            c
            for c in self.chains
            if (c.report_id, "extract" if c.kind == EXTRACTED else "infer", c.statement or "")
            not in backed
        ]
        mined: list[Chain] = []
        for r in self.records:
            if r.error is not None or r.prompt == "fast":
                continue
            found = parse_chains(
                r.raw,
                kind=EXTRACTED if r.task == "extract" else INFERRED,
                report_id=r.report_id,
                statement=r.statement,
                truncated=r.finish_reason == "length",
            )
            r.n_chains = len(found)
            mined += found
        self.chains, self.nodes, self.edges = [], [], {}
        self._by_key, self._chain_keys = {}, set()
        self.add_chains(kept + mined, persist=False)
        self._similar_current = False
        if self.path is not None:
            write_jsonl(self.path / "chains.jsonl", [c.to_dict() for c in self.chains])
            write_jsonl(self.path / "mining.jsonl", [asdict(r) for r in self.records])
        return len(self.chains)

    def add_record(self, record: MiningRecord, *, persist: bool = True) -> None:
        """Keep a mining record (appended to ``mining.jsonl`` on a bound graph)."""
        self.records.append(record)
        if persist and self.path is not None:
            self._append("mining.jsonl", [asdict(record)])

    def link_similar(
        self,
        embedder=None,
        *,
        threshold: float = SIMILARITY_THRESHOLD,
        batch: int = 2048,
    ) -> int:
        """(Re)compute the similar edges: both directions between every two nodes whose
        text embeddings have cosine similarity > `threshold`, weighted by it. Returns the
        number of similar edges."""
        if embedder is None:
            from causalqa.embed import Embedder

            embedder = Embedder()
        for k in [k for k in self.edges if k[2] == SIMILAR]:
            del self.edges[k]
        self.similarity_threshold = threshold
        self._similar_current = True
        if len(self.nodes) < 2:
            return 0
        vecs = np.asarray(embedder.encode([n.text for n in self.nodes]), dtype=np.float32)
        for start in range(0, len(vecs), batch):
            sims = vecs[start : start + batch] @ vecs.T
            rows, cols = np.nonzero(sims > threshold)
            for r, c in zip(rows.tolist(), cols.tolist()):
                a = start + r
                if a != c:
                    self.edges[(a, c, SIMILAR)] = Edge(a, c, SIMILAR, float(sims[r, c]))
        return sum(1 for k in self.edges if k[2] == SIMILAR)

    # -- queries -------------------------------------------------------------------------
    @property
    def similar_current(self) -> bool:
        """False when chains were added after the similar edges were last computed."""
        return self._similar_current

    def mined_units(self) -> set[tuple[str, str, str]]:
        """(report id, task, statement) of every successful mining call."""
        return {r.unit for r in self.records if r.error is None}

    def is_mined(self, report_id: str, task: str = "extract", statement: str | None = None):
        return (report_id, task, statement or "") in self.mined_units()

    def context_mined(self, context: str, task: str = "extract", statement: str | None = None):
        """Whether `context` (found by its fingerprint) was mined with `task` — for
        ``infer``, with `statement` — successfully, whether or not chains came of it."""
        sha = context_sha(context)
        skey = node_key(statement or "")
        return any(
            r.error is None
            and r.context_sha == sha
            and r.task == task
            and (task != "infer" or node_key(r.statement or "") == skey)
            for r in self.records
        )

    def report_ids(self) -> list[str]:
        return list(dict.fromkeys(r.report_id for r in self.records if r.error is None))

    def chains_of(
        self,
        report_id: str | None = None,
        *,
        kind: str | None = None,
        statement: str | None = None,
        context: str | None = None,
    ) -> list[Chain]:
        """Chains of one report (by id, or by its context's fingerprint), optionally only
        one kind and, for inferred chains, one statement."""
        if report_id is None and context is not None:
            sha = context_sha(context)
            ids = {r.report_id for r in self.records if r.context_sha == sha}
        else:
            ids = {report_id} if report_id is not None else None
        out = []
        for c in self.chains:
            if ids is not None and c.report_id not in ids:
                continue
            if kind is not None and c.kind != kind:
                continue
            if statement is not None and node_key(c.statement or "") != node_key(statement):
                continue
            out.append(c)
        return out

    def edges_of_type(self, type_: str) -> list[Edge]:
        return [e for e in self.edges.values() if e.type == type_]

    def to_networkx(self):
        """The graph as a networkx MultiDiGraph (node attribute ``text``; edge attributes
        ``type``, ``weight``, ``count``, ``report_ids``)."""
        import networkx as nx

        g = nx.MultiDiGraph()
        for n in self.nodes:
            g.add_node(n.id, text=n.text, kinds=sorted(n.kinds))
        for e in self.edges.values():
            g.add_edge(
                e.source,
                e.target,
                key=e.type,
                type=e.type,
                weight=e.weight,
                count=e.count,
                report_ids=sorted(e.report_ids),
            )
        return g

    def stats(self) -> dict[str, Any]:
        """The §4.1 statistics: reports, nodes, edges by type, mined cause → effect pairs
        by kind, and mining seconds per report (extraction plus inference); also how many
        calls gave no chain or were cut off by their token budget."""
        by_type = {t: 0 for t in EDGE_TYPES}
        for e in self.edges.values():
            by_type[e.type] += 1
        pairs = {EXTRACTED: 0, INFERRED: 0}
        chains = {EXTRACTED: 0, INFERRED: 0}
        for c in self.chains:
            pairs[c.kind] += len(c.nodes) - 1
            chains[c.kind] += 1
        per_report: dict[str, float] = {}
        for r in self.records:
            per_report[r.report_id] = per_report.get(r.report_id, 0.0) + r.seconds
        secs = list(per_report.values())
        extract_secs = [r.seconds for r in self.records if r.task == "extract" and not r.error]
        infer_secs = [r.seconds for r in self.records if r.task == "infer" and not r.error]
        ok = [r for r in self.records if r.task == "extract" and r.error is None]
        inferred_ok = [r for r in self.records if r.task == "infer" and r.error is None]
        cut = sum(1 for r in self.records if r.error is None and r.finish_reason == "length")
        return {
            "reports": len(self.report_ids()),
            "nodes": len(self.nodes),
            "edges": sum(by_type.values()),
            "edges_by_type": by_type,
            "pairs_by_kind": pairs,
            "chains_by_kind": chains,
            "reports_without_chains": sum(1 for r in ok if r.n_chains == 0),
            "inferences_without_chains": sum(1 for r in inferred_ok if r.n_chains == 0),
            "calls_cut_off": cut,
            "llm_calls": len(self.records),
            "failed_calls": sum(1 for r in self.records if r.error),
            "seconds_per_report": _describe(secs),
            "seconds_per_extraction": _describe(extract_secs),
            "seconds_per_inference": _describe(infer_secs),
            "similarity_threshold": self.similarity_threshold,
            "similar_current": self._similar_current,
        }

    # -- persistence ---------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, *, fmt: str | None = None) -> CausalKG:
        """The graph in directory `path`, created empty if it does not exist yet."""
        p = Path(path)
        if p.exists() and not p.is_dir():
            raise EventGraphError(
                f"{p} is a file, not a KG directory", hint="give a directory path"
            )
        if (p / "chains.jsonl").exists() or (p / "meta.json").exists():
            kg = cls.load(p)
            if fmt is not None:
                kg.fmt = fmt
            return kg
        p.mkdir(parents=True, exist_ok=True)
        return cls(p, fmt=fmt or "jsonl")

    def save(self, path: str | Path | None = None, *, fmt: str | None = None) -> Path:
        """Write nodes, edges and meta (and, when saving elsewhere, chains and mining
        records) to a directory; returns it."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise EventGraphError("this KG has no directory", hint="pass a path to save()")
        fmt = fmt or self.fmt
        if fmt not in ("jsonl", "parquet"):
            raise EventGraphError(f"unknown KG format {fmt!r}", hint="use jsonl or parquet")
        target.mkdir(parents=True, exist_ok=True)
        if self.path is None or target.resolve() != self.path.resolve():
            write_jsonl(target / "chains.jsonl", [c.to_dict() for c in self.chains])
            write_jsonl(target / "mining.jsonl", [asdict(r) for r in self.records])
        nodes = [n.to_row() for n in self.nodes]
        edges = [e.to_row(self.nodes) for e in self.edges.values()]
        for stale in ("nodes", "edges"):
            for ext in ("jsonl", "parquet"):
                (target / f"{stale}.{ext}").unlink(missing_ok=True)
        if fmt == "jsonl":
            write_jsonl(target / "nodes.jsonl", nodes)
            write_jsonl(target / "edges.jsonl", edges)
        else:
            _write_parquet(target / "nodes.parquet", nodes, _NODE_COLUMNS)
            _write_parquet(target / "edges.parquet", edges, _EDGE_COLUMNS)
        meta = {"version": FORMAT_VERSION, "format": fmt, "stats": self.stats()}
        tmp = target / "meta.json.tmp"
        tmp.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(target / "meta.json")
        self.path, self.fmt = target, fmt
        return target

    @classmethod
    def load(cls, path: str | Path) -> CausalKG:
        """A graph saved in directory `path`: chains and mining records rebuild the nodes
        and causal edges; similar edges come from the saved edges file."""
        p = Path(path)
        if not p.is_dir():
            raise EventGraphError(
                f"no KG directory at {p}", hint="mine one with `causalqa kg mine`"
            )
        meta: dict[str, Any] = {}
        if (p / "meta.json").exists():
            try:
                meta = json.loads((p / "meta.json").read_text(encoding="utf-8"))
            except ValueError as e:
                raise EventGraphError(f"{p / 'meta.json'} is not valid JSON: {e}") from e
        if not (p / "chains.jsonl").exists() and not meta:
            raise EventGraphError(f"{p} holds no causal KG (no chains.jsonl or meta.json)")
        kg = cls(p, fmt=meta.get("format", "jsonl"))
        for n, row in _read_rows(p / "chains.jsonl"):
            try:
                chain = Chain.from_dict(row)
            except (KeyError, TypeError) as e:
                raise EventGraphError(f"{p / 'chains.jsonl'}:{n}: not a chain record ({e})") from e
            kg.add_chains([chain], persist=False)
        for n, row in _read_rows(p / "mining.jsonl"):
            try:
                kg.records.append(MiningRecord(**row))
            except TypeError as e:
                raise EventGraphError(f"{p / 'mining.jsonl'}:{n}: not a mining record ({e})") from e
        edges = _read_table(p, "edges")
        n_similar = 0
        for row in edges:
            if row.get("type") != SIMILAR:
                continue
            a, b = kg.find(str(row["source_text"])), kg.find(str(row["target_text"]))
            if a is None or b is None:
                continue
            kg.edges[(a, b, SIMILAR)] = Edge(a, b, SIMILAR, float(row["weight"]))
            n_similar += 1
        saved_nodes = (meta.get("stats") or {}).get("nodes")
        kg.similarity_threshold = (meta.get("stats") or {}).get(
            "similarity_threshold", SIMILARITY_THRESHOLD
        )
        kg._similar_current = saved_nodes == len(kg.nodes) and bool(
            (meta.get("stats") or {}).get("similar_current", True)
        )
        return kg

    def _append(self, name: str, rows: Sequence[dict]) -> None:
        assert self.path is not None
        self.path.mkdir(parents=True, exist_ok=True)
        append_jsonl(self.path / name, rows)


_NODE_COLUMNS = ("id", "text", "extracted", "inferred", "report_ids")
_EDGE_COLUMNS = (
    "source",
    "target",
    "source_text",
    "target_text",
    "type",
    "weight",
    "count",
    "report_ids",
)


def _describe(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "mean": 0.0, "median": 0.0, "max": 0.0, "total": 0.0}
    return {
        "n": len(values),
        "mean": round(statistics.fmean(values), 2),
        "median": round(statistics.median(values), 2),
        "max": round(max(values), 2),
        "total": round(sum(values), 2),
    }


def _read_rows(path: Path) -> Iterable[tuple[int, Any]]:
    """The rows of one of the graph's JSONL files (none when it is absent); a line torn by
    a run killed mid-write is lost alone."""
    if not path.exists():
        return iter(())
    return read_jsonl(path, error=EventGraphError, torn_tail=True)


def _write_parquet(path: Path, rows: list[dict], columns: Sequence[str]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        raise EventGraphError(
            "writing Parquet needs pyarrow", hint="pip install 'causalqa[parquet]' or use jsonl"
        ) from e
    table = pa.Table.from_pylist(rows) if rows else pa.table({c: [] for c in columns})
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(table, tmp)
    tmp.replace(path)


def _read_table(directory: Path, name: str) -> list[dict]:
    if (directory / f"{name}.parquet").exists():
        try:
            import pyarrow.parquet as pq
        except ImportError as e:
            raise EventGraphError(f"reading {name}.parquet needs pyarrow") from e
        return pq.read_table(directory / f"{name}.parquet").to_pylist()
    return [row for _, row in _read_rows(directory / f"{name}.jsonl")]
