"""`SparqlKnowledgeGraph`: the path API of `KnowledgeGraph` over a SPARQL endpoint —
Wikidata's query service, any endpoint by URL, or an RDF file in an embedded pyoxigraph
store — for the general-domain paths paper 001 takes from Wikidata.

What it reads from RDF:

- an *entity* is an IRI; its `Node.id` is the IRI, written with a known prefix where one
  fits (``wd:Q42``), its name is its label (``rdfs:label``, else ``skos:prefLabel``, in the
  vocabulary's language, else untagged; else the IRI's local name), its kind is the label
  of its ``rdf:type`` / ``wdt:P31`` value (the first in sorted order; ``Entity`` if none);
- an *edge* is a triple between two IRIs whose predicate the vocabulary counts as a relation
  (Wikidata: the direct claims ``wdt:P…``; elsewhere: every predicate but labels, types and
  comments); its relation name is the predicate's label (Wikidata: the property's label),
  else its local name.

`SparqlKnowledgeGraph.paths` asks one SELECT per hop length with explicit triple patterns
(a property path would not return the path), each hop a UNION of both edge directions and
the inner nodes kept apart by FILTERs, so the answer is the simple paths of at most `k`
edges walked either way, shortest first in `KGPath.sort_key` order — the store's answer.
Every query carries a LIMIT (`max_rows` rows per hop length) and, over HTTP, a timeout. A
name or id from the user is never pasted into a query: IRIs are checked against the IRI
grammar and literals escaped (`sparql_iri`, `sparql_literal`).

>>> kg = SparqlKnowledgeGraph.connect("wikidata")                      # doctest: +SKIP
>>> a, b = kg.resolve("wd:Q12206"), kg.resolve("wd:Q12078")            # doctest: +SKIP
>>> [p.verbalise(types=False) for p in kg.paths(a, b, k=2, limit=2)]   # doctest: +SKIP
"""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from causalqa import __version__
from causalqa.errors import EntityNotFoundError, KGBackendError, KGError, KGFormatError
from causalqa.kg.linking import Candidate, Linking, normalize
from causalqa.kg.loaders import DEFAULT_KIND
from causalqa.kg.model import DEFAULT_K, DEFAULT_LIMIT, KGPath, Node, Step
from causalqa.kg.paths import check_query

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
SCHEMA = "http://schema.org/"
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
WIKIBASE = "http://wikiba.se/ontology#"
BD = "http://www.bigdata.com/rdf#"
MWAPI = "https://www.mediawiki.org/ontology#API/"

WIKIDATA_URL = "https://query.wikidata.org/sparql"
WIKIDATA_HOST = "query.wikidata.org"
USER_AGENT = f"causalqa/{__version__} (https://github.com/causalqa/causalqa; knowledge-graph paths)"
DEFAULT_TIMEOUT = 60.0
"""Seconds the HTTP client waits for the endpoint to connect or to send more of its answer
(a socket timeout per read, not a bound on the whole query; Wikidata's service stops its
own queries at 60 s)."""
DEFAULT_MAX_ROWS = 10_000
"""The LIMIT of each path query: rows (paths) of one hop length read at most."""
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
CHUNK = 100  # entities per VALUES block

_IRI_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_LANG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")
_PREFIX = re.compile(r"[A-Za-z][\w\-]*")
# How a server that stopped a query midway ends its answer: Oxigraph (``--timeout-s``)
# has already sent "200 OK" and the start of the JSON, then "The SPARQL operation has been
# cancelled"; others write a timeout exception into the body.
_STOPPED = re.compile(rb"(?i)cancell?ed|time ?out|timed out")
_ECHAR = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


# -- safe query terms --------------------------------------------------------------------
def sparql_iri(value: str) -> str:
    """`value` as a SPARQL IRI reference, ``<value>``.

    Raises `KGError` when `value` is not an absolute IRI or holds a character an IRI
    reference may not (spaces, ``<>"{}|^`\\``, control characters): such a value is refused,
    never escaped into a query.

    >>> sparql_iri("http://www.wikidata.org/entity/Q42")
    '<http://www.wikidata.org/entity/Q42>'
    """
    if not isinstance(value, str) or not _SCHEME.match(value) or _IRI_FORBIDDEN.search(value):
        raise KGError(
            f"{value!r} is not an IRI a query can name",
            hint="give an absolute IRI (http://…), a prefixed id (wd:Q42) or a name to link",
        )
    _check_text(value)
    return f"<{value}>"


def sparql_literal(value: str, lang: str | None = None) -> str:
    """`value` as a SPARQL string literal, quotes, backslashes and line breaks escaped
    (optionally tagged ``@lang``). Raises `KGError` for text that is not valid Unicode or a
    malformed language tag.

    >>> sparql_literal('say "hi"\\n', "en")
    '"say \\\\"hi\\\\"\\\\n"@en'
    """
    _check_text(value)
    text = "".join(_ECHAR.get(ch, ch) for ch in value)
    if lang is None:
        return f'"{text}"'
    if not _LANG.fullmatch(lang):
        raise KGError(f"{lang!r} is not a language tag", hint="e.g. en, de, pt-BR")
    return f'"{text}"@{lang}'


def _check_text(value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise KGError(
            f"{value!r} is not valid text (unpaired surrogate)", hint="retype the name"
        ) from e


def local_name(iri: str) -> str:
    """The last segment of an IRI (after ``#``, ``/`` or ``:``), e.g. ``P279``."""
    for sep in ("#", "/", ":"):
        head, found, tail = iri.rpartition(sep)
        if found and tail:
            return tail
    return iri


# -- vocabularies ------------------------------------------------------------------------
@dataclass(frozen=True)
class Vocabulary:
    """How a graph's RDF is read: which predicates give names, aliases and kinds, which
    count as relations, and which prefixes shorten ids.

    `edge_namespace`: only predicates in it are relations (None: every predicate not in
    `non_edges`). `property_entities`: a predicate's label is that of the property entity
    whose ``wikibase:directClaim`` it is (Wikidata). `untagged_labels`: labels without a
    language tag count as the vocabulary's language. `entity_search`: names not found by
    label are looked up with Wikidata's EntitySearch. `countable`: `stats` may count the
    whole graph in a query.
    """

    name: str
    prefixes: Mapping[str, str]
    label_predicates: tuple[str, ...] = (RDFS + "label", SKOS + "prefLabel")
    alias_predicates: tuple[str, ...] = (SKOS + "altLabel",)
    type_predicates: tuple[str, ...] = (RDF + "type", WDT + "P31")
    non_edges: tuple[str, ...] = (
        RDF + "type",
        WDT + "P31",
        RDFS + "label",
        RDFS + "comment",
        SKOS + "prefLabel",
        SKOS + "altLabel",
        SCHEMA + "description",
    )
    edge_namespace: str | None = None
    language: str = "en"
    untagged_labels: bool = True
    property_entities: bool = False
    entity_search: bool = False
    countable: bool = True
    bare_id: str | None = None  # a regular expression of ids written without a prefix

    def expand(self, text: str) -> str | None:
        """The IRI an id names — ``<http://…>``, ``http://…``, ``urn:…``, ``prefix:local``
        with a known prefix, or (Wikidata) a bare ``Q42`` — else None (it is a name)."""
        text = text.strip()
        if text.startswith("<") and text.endswith(">"):
            text = text[1:-1]
            return text if _SCHEME.match(text) else None
        if "://" in text or text.startswith("urn:"):
            return text if _SCHEME.match(text) and not _IRI_FORBIDDEN.search(text) else None
        prefix, sep, rest = text.partition(":")
        if sep and rest and prefix in self.prefixes and not _IRI_FORBIDDEN.search(rest):
            return self.prefixes[prefix] + rest
        if self.bare_id and re.fullmatch(self.bare_id, text):
            return WD + text
        return None

    def compact(self, iri: str) -> str:
        """`iri` written with the longest known namespace (``wd:Q42``), else in full."""
        best = ""
        for prefix, namespace in self.prefixes.items():
            if iri.startswith(namespace) and len(namespace) > len(self.prefixes.get(best, "")):
                best = prefix
        rest = iri[len(self.prefixes[best]) :] if best else ""
        return f"{best}:{rest}" if best and rest else iri

    def edge_filter(self, var: str) -> str:
        """A FILTER expression true when `var` (a predicate variable) is a relation."""
        if self.edge_namespace is not None:
            return f"STRSTARTS(STR({var}), {sparql_literal(self.edge_namespace)})"
        return f"{var} NOT IN ({', '.join(sparql_iri(p) for p in self.non_edges)})"

    def label_filter(self, var: str) -> str:
        """A FILTER expression true when literal `var` is in the vocabulary's language."""
        tagged = f"LANGMATCHES(LANG({var}), {sparql_literal(self.language)})"
        return f'(LANG({var}) = "" || {tagged})' if self.untagged_labels else tagged

    def lang_rank(self, lang: str) -> int:
        if lang.lower() == self.language.lower():
            return 0
        return 2 if not lang else 1


COMMON_PREFIXES = {"rdf": RDF, "rdfs": RDFS, "owl": OWL, "skos": SKOS, "schema": SCHEMA}

GENERIC = Vocabulary("generic", prefixes={**COMMON_PREFIXES, "wd": WD, "wdt": WDT})
"""Any RDF graph: rdfs:label / skos:prefLabel names, skos:altLabel aliases, rdf:type (or
wdt:P31) kinds, every other predicate between two IRIs a relation."""

WIKIDATA = Vocabulary(
    "wikidata",
    prefixes={**COMMON_PREFIXES, "wd": WD, "wdt": WDT, "wikibase": WIKIBASE},
    label_predicates=(RDFS + "label",),
    alias_predicates=(SKOS + "altLabel",),
    type_predicates=(WDT + "P31",),
    edge_namespace=WDT,
    untagged_labels=False,
    property_entities=True,
    entity_search=True,
    countable=False,
    bare_id=r"Q[1-9][0-9]*",
)
"""Wikidata's RDF: English labels and aliases, kinds from P31 (instance of), relations the
direct claims wdt:P… (P31 included, as in the paper's paths) named by their property's
label; ids may be written Q42."""


# -- endpoints ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Term:
    """One value of a SPARQL JSON result: `kind` is uri, literal or bnode."""

    kind: str
    value: str
    lang: str = ""


Row = dict[str, Term]


class Endpoint(Protocol):
    """Anything that answers a SPARQL SELECT with rows (variable → `Term`)."""

    name: str

    def select(self, query: str) -> list[Row]: ...


def _preview(body: bytes | str, size: int = 120) -> str:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = " ".join(text.split())
    return text[:size] + ("…" if len(text) > size else "")


def parse_results(body: bytes, *, source: str) -> list[Row]:
    """Rows of a SPARQL 1.1 JSON results document (``application/sparql-results+json``).

    Raises `KGBackendError` naming `source` when `body` is not JSON or not shaped as SELECT
    results (``{"head": …, "results": {"bindings": [...]}}``).
    """
    hint = f"is {source} a SPARQL endpoint? It should answer SELECT queries in SPARQL JSON"
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise KGBackendError(
            f"{source} answered with something that is not JSON: {_preview(body)!r}", hint=hint
        ) from None
    bindings = doc.get("results", {}).get("bindings") if isinstance(doc, dict) else None
    if not isinstance(bindings, list):
        raise KGBackendError(
            f"{source} answered JSON that is not SPARQL SELECT results: {_preview(body)!r}",
            hint=hint,
        )
    rows = []
    for binding in bindings:
        if not isinstance(binding, dict):
            raise KGBackendError(f"{source} answered a malformed result row", hint=hint)
        row = {}
        for var, term in binding.items():
            if not (
                isinstance(term, dict)
                and isinstance(term.get("type"), str)
                and isinstance(term.get("value"), str)
            ):
                raise KGBackendError(
                    f"{source} answered a malformed value for ?{var}: {_preview(str(term))!r}",
                    hint=hint,
                )
            kind = "literal" if term["type"] == "typed-literal" else term["type"]
            row[var] = Term(kind, term["value"], str(term.get("xml:lang") or ""))
        rows.append(row)
    return rows


class HttpEndpoint:
    """A SPARQL endpoint reached over HTTP(S) with the standard library (SPARQL 1.1
    protocol: the query POSTed as a form, JSON results asked for, causalqa's User-Agent).

    `timeout`: seconds a query may take. Every failure — unreachable, timed out, an HTTP
    error status, a reply that is not SPARQL JSON — is a `KGBackendError` with a hint.
    """

    def __init__(
        self, url: str, *, timeout: float = DEFAULT_TIMEOUT, user_agent: str = USER_AGENT
    ) -> None:
        try:
            parts = urllib.parse.urlsplit(url)
        except ValueError:
            parts = urllib.parse.urlsplit("")
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise KGError(
                f"{url!r} is not an http(s) URL of a SPARQL endpoint",
                hint=f"e.g. sparql:{WIKIDATA_URL}",
            )
        if timeout <= 0:
            raise KGError(f"the timeout must be positive, got {timeout}")
        self.url = url
        self.name = url
        self.timeout = timeout
        self.user_agent = user_agent

    def select(self, query: str) -> list[Row]:
        """Run a SELECT query; its rows. Raises `KGBackendError` on any failure."""
        request = urllib.request.Request(
            self.url,
            data=urllib.parse.urlencode({"query": query}).encode("utf-8"),
            method="POST",
            headers={
                "Accept": "application/sparql-results+json",
                "Content-Type": "application/x-www-form-urlencoded",
                "User-Agent": self.user_agent,
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as e:
            raise self._status_error(e) from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                raise self._timeout_error() from None
            raise KGBackendError(
                f"cannot reach the SPARQL endpoint {self.url}: {e.reason}",
                hint="check the URL and the network (Wikidata's service needs internet access)",
            ) from None
        except TimeoutError:
            raise self._timeout_error() from None
        except (http.client.HTTPException, OSError) as e:
            raise KGBackendError(
                f"the SPARQL endpoint {self.url} broke off its answer: {e or type(e).__name__}",
                hint="retry; if it persists, the endpoint is overloaded or not a SPARQL server",
            ) from None
        if len(body) > MAX_RESPONSE_BYTES:
            raise KGBackendError(
                f"{self.url} answered more than {MAX_RESPONSE_BYTES // 2**20} MB",
                hint="ask for fewer hops (--k) or a smaller row limit",
            )
        try:
            return parse_results(body, source=self.url)
        except KGBackendError:
            # not an answer: one the server broke off itself says so at its end
            if _STOPPED.search(body[-200:]):
                raise KGBackendError(
                    f"{self.url} stopped the query at its own time limit; its answer broke off "
                    f"with {_preview(body[-80:])!r}",
                    hint="ask for fewer hops (--k); hub entities make long paths slow to enumerate",
                ) from None
            raise

    def _timeout_error(self) -> KGBackendError:
        return KGBackendError(
            f"the SPARQL endpoint {self.url} did not answer within {self.timeout:g} s",
            hint="ask for fewer hops (--k); hub entities make long paths slow to enumerate",
        )

    def _status_error(self, e: urllib.error.HTTPError) -> KGBackendError:
        try:
            body = e.read(4000) or b""
        except Exception:  # a broken error body says nothing more
            body = b""
        status, what = e.code, _preview(body)
        if status == 429:
            wait = e.headers.get("Retry-After") if e.headers else None
            return KGBackendError(
                f"{self.url} is limiting requests (429)"
                + (f"; it asks to wait {wait} s" if wait else ""),
                hint="wait and retry; ask for fewer hops or paths",
            )
        if status == 404:
            return KGBackendError(
                f"no SPARQL endpoint at {self.url} (404)",
                hint=f"check the URL; Wikidata's is {WIKIDATA_URL}",
            )
        if status in (401, 403):
            return KGBackendError(
                f"{self.url} refused the request ({status}): {what}",
                hint="the endpoint needs credentials or blocks this client; try another endpoint",
            )
        if "TimeoutException" in what or status == 504:
            return KGBackendError(
                f"{self.url} stopped the query at its own time limit ({status})",
                hint="ask for fewer hops (--k); hub entities make long paths slow to enumerate",
            )
        if status == 400:
            return KGBackendError(
                f"{self.url} rejected the query (400): {what}",
                hint="the endpoint may not support SPARQL 1.1 (VALUES, BIND, UNION); "
                "run with --verbose and report it",
            )
        return KGBackendError(
            f"{self.url} answered with an error ({status}): {what}",
            hint="the service may be overloaded or down; retry later",
        )

    def close(self) -> None:
        pass


class StoreEndpoint:
    """An embedded pyoxigraph `Store` answering the same queries in process (results go
    through the same JSON reader as an HTTP endpoint's)."""

    def __init__(self, store: Any, *, name: str = "the embedded RDF store") -> None:
        self.store = store
        self.name = name

    def select(self, query: str) -> list[Row]:
        from pyoxigraph import QueryResultsFormat

        try:
            # Quads of an N-Quads/TriG file sit in named graphs; the graph a user loaded
            # is all of them, not only the (then empty) default graph.
            result = self.store.query(query, use_default_graph_as_union=True)
            body = result.serialize(format=QueryResultsFormat.JSON)
        except (SyntaxError, ValueError, OSError, RuntimeError) as e:
            raise KGBackendError(f"{self.name} could not run a query: {e}") from e
        return parse_results(body, source=self.name)

    def close(self) -> None:
        pass


def load_rdf(path: str | Path) -> Any:
    """An in-memory pyoxigraph `Store` holding the RDF file at `path` (Turtle, N-Triples,
    N-Quads, TriG, RDF/XML, N3; the format follows the extension).

    Raises `KGFormatError` for a missing or unparsable file, `KGBackendError` when pyoxigraph
    is not installed.
    """
    try:
        from pyoxigraph import RdfFormat, Store
    except ImportError as e:
        raise KGBackendError(
            "reading RDF files needs pyoxigraph", hint="pip install 'causalqa[sparql]'"
        ) from e
    path = Path(path).expanduser()
    if not path.is_file():
        raise KGFormatError(f"no RDF file at {path}", path=str(path))
    fmt = RdfFormat.from_extension(path.suffix.lstrip(".").lower())
    if fmt is None:
        raise KGFormatError(
            f"{path}: unknown RDF format {path.suffix!r}",
            hint="use .ttl, .nt, .nq, .trig, .rdf or .n3",
            path=str(path),
        )
    store = Store()
    try:
        store.load(path=str(path), format=fmt)
    except (SyntaxError, ValueError, OSError) as e:
        raise KGFormatError(f"{path}: not valid RDF: {e}", path=str(path)) from e
    return store


# -- locations ---------------------------------------------------------------------------
SCHEME = "sparql:"


def sparql_location(location: str | Path | None) -> str | None:
    """`location` as a SPARQL spec if it names one, else None (a store folder or Neo4j).

    ``wikidata`` or ``sparql:wikidata`` → ``sparql:https://query.wikidata.org/sparql``;
    ``sparql:http(s)://HOST/PATH`` → itself (a URL that went through `pathlib.Path`, which
    folds ``//`` into ``/``, is repaired); ``sparql:FILE`` → an RDF file to load in process.
    """
    if location is None:
        return None
    text = str(location).strip()
    if text.lower() == "wikidata":
        return SCHEME + WIKIDATA_URL
    if not text.lower().startswith(SCHEME):
        return None
    rest = text[len(SCHEME) :].strip()
    if rest.lower() == "wikidata":
        return SCHEME + WIKIDATA_URL
    match = re.match(r"(?i)(https?):/+(.*)", rest)
    if match:
        return f"{SCHEME}{match[1].lower()}://{match[2]}"
    return SCHEME + rest


# -- the graph ---------------------------------------------------------------------------
@dataclass
class _Info:
    """What is known of one entity while choosing its name and kind."""

    labels: list[tuple[int, int, str]] = field(default_factory=list)
    kinds: list[tuple[int, str]] = field(default_factory=list)


class SparqlKnowledgeGraph:
    """A knowledge graph behind a SPARQL endpoint, with `KnowledgeGraph`'s path API:
    `resolve` / `link` a name, `node`, `neighbours`, `paths`, `stats`.

    Open one with `SparqlKnowledgeGraph.connect` (``"wikidata"``, ``"sparql:URL"``,
    ``"sparql:FILE.ttl"``) or wrap any `Endpoint`. The whole graph is never read:
    `nodes`, `edges` and `path_index` (what the evidence features of ``discover pair`` need)
    raise `KGBackendError` saying so.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        vocabulary: Vocabulary = GENERIC,
        max_rows: int = DEFAULT_MAX_ROWS,
        location: str | None = None,
    ) -> None:
        if max_rows < 1:
            raise KGError(f"max_rows must be at least 1, got {max_rows}")
        self.endpoint = endpoint
        self.vocabulary = vocabulary
        self.max_rows = max_rows
        self.path: Path | None = None
        self.location = location or endpoint.name
        self.meta: dict[str, Any] = {
            "backend": "sparql",
            "uri": self.location,
            "vocabulary": vocabulary.name,
        }
        self.truncated = False
        """Whether the last `paths` call read `max_rows` rows for some hop length (so paths
        of that length may be missing)."""
        self._nodes: dict[str, Node] = {}
        self._relations: dict[str, str] = {}

    # construction
    @classmethod
    def connect(
        cls,
        location: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        vocabulary: Vocabulary | None = None,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> SparqlKnowledgeGraph:
        """The graph at `location` (see `sparql_location`): an HTTP endpoint, Wikidata's
        service (with the `WIKIDATA` vocabulary), or an RDF file loaded into memory.

        Raises `KGError` for a location that is not a SPARQL spec, `KGFormatError` for an
        unreadable RDF file. Nothing is sent until the first query.
        """
        spec = sparql_location(location)
        if spec is None:
            raise KGError(
                f"{location!r} is not a SPARQL location",
                hint=f"use sparql:URL (e.g. sparql:{WIKIDATA_URL}), wikidata or sparql:FILE.ttl",
            )
        target = spec[len(SCHEME) :]
        if not target:
            raise KGError("sparql: needs an endpoint URL or an RDF file after it")
        if re.match(r"https?://", target):
            host = urllib.parse.urlsplit(target).hostname or ""
            chosen = vocabulary or (WIKIDATA if host == WIKIDATA_HOST else GENERIC)
            return cls(
                HttpEndpoint(target, timeout=timeout),
                vocabulary=chosen,
                max_rows=max_rows,
                location=target,
            )
        store = load_rdf(target)
        return cls(
            StoreEndpoint(store, name=target),
            vocabulary=vocabulary or GENERIC,
            max_rows=max_rows,
            location=target,
        )

    @classmethod
    def from_store(cls, store: Any, **options: Any) -> SparqlKnowledgeGraph:
        """Wrap an embedded pyoxigraph `Store` (options as for the constructor)."""
        return cls(StoreEndpoint(store), **options)

    def close(self) -> None:
        self.endpoint.close()

    def __enter__(self) -> SparqlKnowledgeGraph:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # plumbing
    def select(self, query: str) -> list[Row]:
        """Run a SELECT query on the endpoint (IRIs written in full); its rows."""
        return self.endpoint.select(query)

    def _iri(self, node_or_id: str | Node) -> str:
        text = node_or_id.id if isinstance(node_or_id, Node) else str(node_or_id)
        iri = self.vocabulary.expand(text)
        if iri is None:
            raise EntityNotFoundError(
                f"{text!r} is not an entity id",
                hint="give an IRI or a prefixed id (wd:Q42), or link a name with kg.resolve(name)",
            )
        sparql_iri(iri)  # refuses what a query could not name
        return iri

    def _values(self, var: str, iris: Iterable[str]) -> str:
        return f"VALUES {var} {{ {' '.join(sparql_iri(i) for i in iris)} }}"

    # entities
    def node(self, node_id: str | Node) -> Node:
        """The entity with this id (IRI, prefixed id, or Wikidata's bare Q42).

        Raises `EntityNotFoundError` when the id is malformed or the graph has no triple
        about it; `KGBackendError` when the endpoint fails.
        """
        iri = self._iri(node_id)
        if iri not in self._nodes:
            rows = self.select(
                f"SELECT ?x WHERE {{ {{ {sparql_iri(iri)} ?p ?x }} UNION "
                f"{{ ?x ?p {sparql_iri(iri)} }} }} LIMIT 1"
            )
            if not rows:
                raise EntityNotFoundError(
                    f"no entity {self.vocabulary.compact(iri)!r} in {self.location}",
                    hint="check the id, or link a name with kg.resolve(name)",
                )
        return self._describe([iri])[iri]

    def _describe(self, iris: Iterable[str]) -> dict[str, Node]:
        """Name and kind of each entity (cached), one query per `CHUNK` entities."""
        iris = list(iris)
        wanted = [i for i in dict.fromkeys(iris) if i not in self._nodes]
        vocab = self.vocabulary
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            query = (
                "SELECT ?n ?lp ?l ?tp ?t ?tl WHERE {\n"
                f"  {self._values('?n', chunk)}\n"
                f"  OPTIONAL {{ {self._values('?lp', vocab.label_predicates)} ?n ?lp ?l . "
                f"FILTER(isLiteral(?l) && {vocab.label_filter('?l')}) }}\n"
                f"  OPTIONAL {{ {self._values('?tp', vocab.type_predicates)} ?n ?tp ?t . "
                f"OPTIONAL {{ ?t {sparql_iri(RDFS + 'label')} ?tl . "
                f"FILTER({vocab.label_filter('?tl')}) }} }}\n"
                f"}} LIMIT {len(chunk) * 200}"
            )
            info = {i: _Info() for i in chunk}
            for row in self.select(query):
                entry = info.get(row["n"].value) if "n" in row else None
                if entry is None:
                    continue
                if "l" in row and "lp" in row:
                    rank = vocab.label_predicates.index(row["lp"].value)
                    entry.labels.append((rank, vocab.lang_rank(row["l"].lang), row["l"].value))
                if "t" in row and "tp" in row:
                    kind = row["tl"].value if "tl" in row else local_name(row["t"].value)
                    entry.kinds.append((vocab.type_predicates.index(row["tp"].value), kind))
            for iri, entry in info.items():
                name = min(entry.labels)[2] if entry.labels else local_name(iri)
                kind = min(entry.kinds)[1] if entry.kinds else DEFAULT_KIND
                self._nodes[iri] = Node(vocab.compact(iri), name, kind)
        return {i: self._nodes[i] for i in iris}

    def _relation_names(self, predicates: Iterable[str]) -> dict[str, str]:
        """Each predicate's relation name: its label (Wikidata: its property's), else its
        local name (cached)."""
        predicates = list(predicates)
        wanted = [p for p in dict.fromkeys(predicates) if p not in self._relations]
        via = WIKIBASE + "directClaim" if self.vocabulary.property_entities else None
        self._relations.update(self._labels(wanted, via=via))
        return {p: self._relations[p] for p in predicates}

    def _labels(self, iris: Sequence[str], *, via: str | None = None) -> dict[str, str]:
        """The rdfs:label of each IRI in the vocabulary's language (with `via`: the label of
        the entity that points at it by that predicate), else its local name."""
        vocab = self.vocabulary
        label = sparql_iri(RDFS + "label")
        found: dict[str, tuple[int, str]] = {}
        for start in range(0, len(iris), CHUNK):
            chunk = iris[start : start + CHUNK]
            if via is not None:
                where = f"?e {sparql_iri(via)} ?x . ?e {label} ?l ."
            else:
                where = f"?x {label} ?l ."
            rows = self.select(
                f"SELECT ?x ?l WHERE {{ {self._values('?x', chunk)} {where} "
                f"FILTER({vocab.label_filter('?l')}) }} LIMIT {len(chunk) * 20}"
            )
            for row in rows:
                if "x" in row and "l" in row:
                    key = (vocab.lang_rank(row["l"].lang), row["l"].value)
                    found[row["x"].value] = min(found.get(row["x"].value, key), key)
        return {i: found[i][1] if i in found else local_name(i) for i in iris}

    # linking
    def link(
        self,
        name: str,
        *,
        kinds: Sequence[str] | None = None,
        aliases: Mapping[str, str] | None = None,
        limit: int = 5,
        **_ignored: Any,
    ) -> Linking:
        """Link `name` to entities by label, as `Linker.link` does on a store.

        Looked up, cheapest first: `aliases` (name → id), labels and aliases equal to the
        name as typed or in its case variants (lower, UPPER, Capitalised, Title), then
        (generic endpoints) any label equal ignoring case, (Wikidata) EntitySearch hits whose
        label equals the name ignoring case. A label as typed scores 100, ignoring case 99;
        an alias 98 / 97. The best is taken only at 97 or more and 2 points clear of the
        runner-up; otherwise `Linking.best` is None and `candidates` lists what fits —
        or, when nothing does, the closest names (method ``closest``, never a `best`). The
        Linker's fuzzy and embedding settings (`_ignored`) do not apply to a remote graph.
        """
        query = name.strip()
        if not query:
            return Linking(name, "none")
        allowed = set(kinds) if kinds else None
        if aliases:
            table = {normalize(k): v for k, v in aliases.items()}
            target = table.get(normalize(query))
            iri = self.vocabulary.expand(target) if target else None
            if iri is not None:
                node = self.node(iri)
                if allowed is None or node.kind in allowed:
                    return Linking(name, "alias", [Candidate(node, 100.0, "alias")])
        scored = self._score(query, self._exact_hits(query))
        method = "exact"
        if not scored:
            hits, method = self._loose_hits(query)
            scored = self._score(query, hits)
        nodes = self._describe(scored)
        candidates = sorted(
            (
                Candidate(nodes[i], score, how)
                for i, (score, how) in scored.items()
                if allowed is None or nodes[i].kind in allowed
            ),
            key=lambda c: (-c.score, c.node.id),
        )
        if not candidates:
            closest = self._closest(query, allowed, limit)
            # suggestions only: `best` stays None (ambiguous), as for the Linker's fuzzy ones
            return Linking(name, "closest", closest, True) if closest else Linking(name, "none")
        top = candidates[0].score
        runner_up = candidates[1].score if len(candidates) > 1 else None
        ambiguous = top < 97 or (runner_up is not None and top - runner_up < 2)
        return Linking(name, method, candidates[: max(limit, 2)], ambiguous)

    def _label_predicates(self) -> tuple[str, ...]:
        return self.vocabulary.label_predicates + self.vocabulary.alias_predicates

    def _exact_hits(self, query: str) -> list[tuple[str, str, str]]:
        """(entity, predicate, label) of labels equal to `query` or a case variant."""
        vocab = self.vocabulary
        variants = dict.fromkeys(
            [query, query.lower(), query.upper(), query.capitalize(), query.title()]
        )
        literals = []
        for v in variants:
            literals.append(sparql_literal(v, vocab.language))
            if vocab.untagged_labels:
                literals.append(sparql_literal(v))
        rows = self.select(
            "SELECT DISTINCT ?n ?lp ?l WHERE {\n"
            f"  VALUES ?l {{ {' '.join(literals)} }}\n"
            f"  {self._values('?lp', self._label_predicates())}\n"
            "  ?n ?lp ?l . FILTER(isIRI(?n))\n"
            "} LIMIT 200"
        )
        return [(r["n"].value, r["lp"].value, r["l"].value) for r in rows if len(r) == 3]

    def _loose_hits(self, query: str) -> tuple[list[tuple[str, str, str]], str]:
        """Labels equal to `query` ignoring case: a scan on a generic endpoint, Wikidata's
        EntitySearch (which matches labels and aliases) on Wikidata."""
        vocab = self.vocabulary
        if vocab.entity_search:
            hits = self._entity_search(query, 20)
            described = self._describe(hits)
            return [(i, vocab.label_predicates[0], described[i].name) for i in hits], "search"
        rows = self.select(
            "SELECT DISTINCT ?n ?lp ?l WHERE {\n"
            f"  {self._values('?lp', self._label_predicates())}\n"
            "  ?n ?lp ?l .\n"
            f"  FILTER(isIRI(?n) && isLiteral(?l) && {vocab.label_filter('?l')} && "
            f"LCASE(STR(?l)) = {sparql_literal(query.lower())})\n"
            "} LIMIT 200"
        )
        return [(r["n"].value, r["lp"].value, r["l"].value) for r in rows if len(r) == 3], (
            "normalized"
        )

    def _entity_search(self, text: str, limit: int) -> list[str]:
        """Wikidata's EntitySearch (the search box's ranking): item IRIs, best first."""
        rows = self.select(
            "SELECT ?item ?num WHERE {\n"
            f"  SERVICE {sparql_iri(WIKIBASE + 'mwapi')} {{\n"
            f"    {sparql_iri(BD + 'serviceParam')} {sparql_iri(WIKIBASE + 'endpoint')} "
            '"www.wikidata.org" ;\n'
            f'      {sparql_iri(WIKIBASE + "api")} "EntitySearch" ;\n'
            f"      {sparql_iri(MWAPI + 'search')} {sparql_literal(text)} ;\n"
            f"      {sparql_iri(MWAPI + 'language')} {sparql_literal(self.vocabulary.language)} ;\n"
            f"      {sparql_iri(WIKIBASE + 'limit')} {int(limit)} .\n"
            f"    ?item {sparql_iri(WIKIBASE + 'apiOutputItem')} {sparql_iri(MWAPI + 'item')} .\n"
            f"    ?num {sparql_iri(WIKIBASE + 'apiOrdinal')} true .\n"
            "  }\n"
            f"}} ORDER BY ASC(?num) LIMIT {int(limit)}"
        )
        return list(dict.fromkeys(r["item"].value for r in rows if "item" in r))

    def _score(self, query: str, hits) -> dict[str, tuple[float, str]]:
        """Entity → (best score, method) of label hits that equal `query` ignoring case."""
        labels = set(self.vocabulary.label_predicates)
        norm = normalize(query)
        scored: dict[str, tuple[float, str]] = {}
        for iri, predicate, label in hits:
            if label != query and normalize(label) != norm:
                continue
            is_label = predicate in labels
            score = (100.0 if is_label else 98.0) - (0.0 if label == query else 1.0)
            how = ("exact" if label == query else "normalized") if is_label else "alias"
            if score > scored.get(iri, (0.0, ""))[0]:
                scored[iri] = (score, how)
        return scored

    def _closest(self, query: str, allowed: set[str] | None, limit: int) -> list[Candidate]:
        """Entities whose labels come closest to `query` (rapidfuzz ratio ≥ 50): Wikidata's
        EntitySearch, or, on a generic endpoint, labels holding the first or last four
        letters of the query's longest word."""
        from rapidfuzz import fuzz

        vocab = self.vocabulary
        if vocab.entity_search:
            hits = self._entity_search(query, 10)
            pairs = [(i, self._describe([i])[i].name) for i in hits]
        else:
            words = sorted(normalize(query).split(), key=len, reverse=True)
            if not words or len(words[0]) < 3:
                return []
            # The longest word's first and last four letters: a typo rarely hits both.
            probes = dict.fromkeys([words[0][:4], words[0][-4:]])
            contains = " || ".join(f"CONTAINS(LCASE(STR(?l)), {sparql_literal(p)})" for p in probes)
            rows = self.select(
                "SELECT DISTINCT ?n ?l WHERE {\n"
                f"  {self._values('?lp', self._label_predicates())}\n"
                "  ?n ?lp ?l .\n"
                f"  FILTER(isIRI(?n) && isLiteral(?l) && ({contains}))\n"
                "} LIMIT 500"
            )
            pairs = [(r["n"].value, r["l"].value) for r in rows if "n" in r and "l" in r]
        best: dict[str, float] = {}
        for iri, label in pairs:
            score = float(fuzz.ratio(normalize(query), normalize(label)))
            if score >= 50:
                best[iri] = max(best.get(iri, 0.0), score)
        nodes = self._describe(best)
        found = [
            Candidate(nodes[i], s, "closest")
            for i, s in best.items()
            if allowed is None or nodes[i].kind in allowed
        ]
        return sorted(found, key=lambda c: (-c.score, c.node.id))[:limit]

    def resolve(self, name_or_id: str, **options: Any) -> Node:
        """An entity id, or a name that links to one entity without ambiguity; else an
        `EntityNotFoundError` listing the candidates (or the closest names)."""
        if self.vocabulary.expand(name_or_id) is not None:
            return self.node(name_or_id)
        linking = self.link(name_or_id, **options)
        if linking.best is not None:
            return linking.best.node
        listed = "; ".join(
            f"{c.node.name} ({c.node.kind}, {c.node.id})" for c in linking.candidates[:5]
        )
        if linking.method in ("none", "closest"):
            raise EntityNotFoundError(
                f"{name_or_id!r} matches no entity of {self.location}"
                + (f"; closest names: {listed}" if listed else ""),
                hint="check the spelling, or give an entity id (an IRI, or wd:Q… on Wikidata)",
                candidates=linking.candidates,
            )
        raise EntityNotFoundError(
            f"{name_or_id!r} is ambiguous: {listed}",
            hint="give the entity id, or restrict the kind (--types)",
            candidates=linking.candidates,
        )

    # paths
    def path_query(self, a: str, b: str, length: int) -> str:
        """The SELECT of every walk of exactly `length` edges from IRI `a` to IRI `b`, each
        edge in either direction (``?d{i}`` is "f" when the triple points the way the walk
        goes), inner nodes distinct IRIs, at most `max_rows` rows."""
        ends = [sparql_iri(a)] + [f"?n{i}" for i in range(1, length)] + [sparql_iri(b)]
        hops, tests = [], []
        for i in range(1, length + 1):
            x, y = ends[i - 1], ends[i]
            hops.append(
                f'  {{ {x} ?p{i} {y} . BIND("f" AS ?d{i}) }} UNION '
                f'{{ {y} ?p{i} {x} . BIND("b" AS ?d{i}) }}'
            )
            tests.append(self.vocabulary.edge_filter(f"?p{i}"))
        for i in range(1, length):
            tests.append(f"isIRI(?n{i})")
            tests += [f"?n{i} != {other}" for other in [ends[0], ends[-1], *ends[1:i]]]
        variables = [f"?p{i} ?d{i}" for i in range(1, length + 1)]
        variables += [f"?n{i}" for i in range(1, length)]
        return (
            f"SELECT DISTINCT {' '.join(variables)} WHERE {{\n"
            + "\n".join(hops)
            + f"\n  FILTER({' && '.join(tests)})\n}} LIMIT {self.max_rows}"
        )

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
        """Simple paths of at most `k` edges between two entities (ids or `Node`s), edges
        walked in either direction, shortest first in `KGPath.sort_key` order, at most
        `limit`; with `types`, only paths through that node-kind sequence (``None``/``*``:
        any kind), of ``len(types) - 1`` edges.

        One query per hop length, each reading at most `max_rows` rows (`truncated` says
        whether one was cut); stops once `limit` paths are found. `engine` is "auto" or
        "sparql". Raises `EntityNotFoundError` for an unknown id, `KGError` for impossible
        arguments, `KGBackendError` when the endpoint fails or times out.
        """
        if engine not in ("auto", "sparql"):
            raise KGError(
                f"unknown path engine {engine!r} for a SPARQL graph", hint="use auto or sparql"
            )
        lengths = check_query(k, types, limit)
        a, b = self._iri(source), self._iri(target)
        self.node(a)
        self.node(b)
        self.truncated = False
        if a == b:
            return []
        result: list[KGPath] = []
        for length in lengths:
            rows = self.select(self.path_query(a, b, length))
            self.truncated |= len(rows) >= self.max_rows
            found = sorted(set(self._rows_to_paths(rows, a, b, length, types)), key=_sort_key)
            result.extend(found)
            if limit is not None and len(result) >= limit:
                return result[:limit]
        return result

    def _rows_to_paths(self, rows, a, b, length, types) -> list[KGPath]:
        walks = []
        for row in rows:
            try:
                inner = [row[f"n{i}"].value for i in range(1, length)]
                preds = [row[f"p{i}"].value for i in range(1, length + 1)]
                dirs = [row[f"d{i}"].value == "f" for i in range(1, length + 1)]
            except KeyError as e:
                raise KGBackendError(
                    f"{self.location} answered a path row without ?{e.args[0]}",
                    hint="the endpoint may not support BIND inside UNION (SPARQL 1.1)",
                ) from None
            walks.append(([a, *inner, b], preds, dirs))
        nodes = self._describe(i for walk, _, _ in walks for i in walk)
        names = self._relation_names(p for _, preds, _ in walks for p in preds)
        paths = []
        for walk, preds, dirs in walks:
            kinds = [nodes[i].kind for i in walk]
            if types and any(t not in (None, "*") and t != kind for t, kind in zip(types, kinds)):
                continue
            steps = tuple(Step(names[p], "", forward=d) for p, d in zip(preds, dirs))
            paths.append(KGPath(tuple(nodes[i] for i in walk), steps))
        return paths

    def neighbours(self, node_id: str | Node, limit: int = 100) -> list[tuple[Node, str, str]]:
        """Entities one edge away (either direction) with the relation's name and "" for the
        abbreviation, sorted by id and relation, at most `limit`."""
        if limit < 1:
            raise KGError(f"limit must be at least 1, got {limit}")
        iri = self._iri(node_id)
        self.node(iri)
        edge = self.vocabulary.edge_filter("?p")
        rows = self.select(
            f"SELECT DISTINCT ?m ?p WHERE {{ {{ {sparql_iri(iri)} ?p ?m }} UNION "
            f"{{ ?m ?p {sparql_iri(iri)} }} FILTER(isIRI(?m) && ?m != {sparql_iri(iri)} && "
            f"{edge}) }} ORDER BY ?m ?p LIMIT {int(limit)}"
        )
        pairs = [(r["m"].value, r["p"].value) for r in rows if "m" in r and "p" in r]
        nodes = self._describe(m for m, _ in pairs)
        names = self._relation_names(p for _, p in pairs)
        found = sorted({(nodes[m], names[p], "") for m, p in pairs}, key=lambda t: (t[0].id, t[1]))
        return found[:limit]

    # the graph as a whole
    def stats(self) -> dict[str, Any]:
        """Counts as `KnowledgeGraph.stats` gives them — `nodes` (entities on an edge),
        `edges`, `kinds` (entities per type label; an entity of two types counts under
        both), `relations` (with each `predicate`) — where the vocabulary allows
        counting the whole graph; on Wikidata the counts are None and `note` says why."""
        vocab = self.vocabulary
        base = {
            "backend": "sparql",
            "store": self.location,
            "vocabulary": vocab.name,
            "source": None,
        }
        if not vocab.countable:
            return {
                **base,
                "nodes": None,
                "edges": None,
                "kinds": {},
                "relations": [],
                "note": "too large to count in one query: counts skipped "
                "(resolve, neighbours and paths work)",
            }
        edge = vocab.edge_filter("?p")
        per_predicate = self.select(
            "SELECT ?p (COUNT(*) AS ?c) WHERE { ?s ?p ?o . "
            f"FILTER(isIRI(?s) && isIRI(?o) && {edge}) }} GROUP BY ?p LIMIT {self.max_rows}"
        )
        nodes = self.select(
            "SELECT (COUNT(DISTINCT ?n) AS ?c) WHERE { { ?n ?p ?o } UNION { ?o ?p ?n } "
            f"FILTER(isIRI(?n) && isIRI(?o) && {edge}) }} LIMIT 1"
        )
        per_type = self.select(
            f"SELECT ?t (COUNT(DISTINCT ?n) AS ?c) WHERE {{ "
            f"{self._values('?tp', vocab.type_predicates)} ?n ?tp ?t . FILTER(isIRI(?n)) }} "
            f"GROUP BY ?t LIMIT {self.max_rows}"
        )
        counts = {r["p"].value: _count(r, "c") for r in per_predicate if "p" in r}
        names = self._relation_names(counts)
        relations = sorted(
            (
                {"relation": names[p], "abbrev": "", "edges": c, "predicate": vocab.compact(p)}
                for p, c in counts.items()
            ),
            key=lambda r: (r["relation"], r["predicate"]),
        )
        typed = {r["t"].value: _count(r, "c") for r in per_type if "t" in r}
        kinds: dict[str, int] = {}
        for t, kind in self._labels(list(typed)).items():
            kinds[kind] = kinds.get(kind, 0) + typed[t]
        return {
            **base,
            "nodes": _count(nodes[0], "c") if nodes else 0,
            "edges": sum(counts.values()),
            "kinds": dict(sorted(kinds.items())),
            "relations": relations,
        }

    def _whole(self, what: str) -> KGBackendError:
        return KGBackendError(
            f"{what} needs the whole graph, and a SPARQL graph ({self.location}) is queried, "
            "not read whole",
            hint="load the graph into a store (causalqa kg load …) for that; over SPARQL use "
            "kg paths, kg stats, resolve, neighbours",
        )

    def nodes(self):
        """Not available over SPARQL: raises `KGBackendError`."""
        raise self._whole("listing every node")

    def edges(self):
        """Not available over SPARQL: raises `KGBackendError`."""
        raise self._whole("listing every edge")

    def path_index(self):
        """Not available over SPARQL: raises `KGBackendError`."""
        raise self._whole("the in-memory path index (evidence features)")


def _count(row: Row, var: str) -> int:
    try:
        return int(row[var].value)
    except (KeyError, ValueError):
        raise KGBackendError(f"a count came back as {row.get(var)!r}, not a number") from None


def _sort_key(path: KGPath) -> tuple:
    return path.sort_key()
