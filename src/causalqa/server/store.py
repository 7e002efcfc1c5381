"""The service's causal models: uploaded ones, stored one directory each under
``<data_dir>/models/<id>/`` (``graph.graphml``, ``effects.csv``, ``meta.json``), and the
ones the operator named with ``--load`` (read-only, read where they are).

Ids are the service's own: a slug made from the name a client gives, checked against
`MODEL_ID` before it is ever joined to a path, and files an upload carries are written
under names the service chooses — nothing a client sends becomes a path. A model is
written into a hidden temporary directory first and renamed into place, so a crash never
leaves half a model behind, and one of an existing id is refused, never replaced.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
import unicodedata
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from causalqa.causal_model import GRAPH_FORMATS, CausalModel
from causalqa.errors import (
    CausalQAError,
    ConflictError,
    DataFileError,
    ModelDataError,
    NotFoundError,
    ServiceError,
)

MODEL_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
"""What a model id looks like: lower-case letters, digits, ``-`` and ``_``, at most 64."""

GRAPH_UPLOAD_FORMATS = {"graphml": ".graphml", "dot": ".dot", "csv": ".csv", "json": ".json"}
"""Graph formats an upload may declare, and the suffix its file is saved under."""

EFFECTS_UPLOAD_FORMATS = {"csv": ".csv", "tsv": ".tsv", "parquet": ".parquet"}

_META = "meta.json"


def slug(name: str) -> str:
    """A model id made from a display name ("Partners (2025)" → "partners-2025"), or
    `ServiceError` when nothing usable is left."""
    text = unicodedata.normalize("NFKD", str(name).replace("ß", "ss"))
    text = text.encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-_")[:64].strip("-_")
    if not MODEL_ID.match(text):
        raise ServiceError(
            f"the model name {name!r} has no letters or digits to make an id from",
            hint="name the model with letters or digits, e.g. 'partners'",
        )
    return text


def check_id(model_id: str) -> str:
    """`model_id` when it is a well-formed id; `NotFoundError` otherwise (a malformed id
    names no model, and must never reach the file system)."""
    if not isinstance(model_id, str) or not MODEL_ID.match(model_id):
        raise NotFoundError(
            f"no causal model {str(model_id)[:80]!r}",
            hint="model ids are lower-case letters, digits, '-' and '_'; GET /v1/models lists them",
        )
    return model_id


class ModelInfo(BaseModel):
    """What the registry records about a model (its ``meta.json``)."""

    id: str
    name: str
    source: Literal["upload", "fit", "loaded"]
    """``loaded``: named by the operator with ``--load``; read-only."""
    created: str
    variables: int = 0
    edges: int = 0
    treatments: list[str] = Field(default_factory=list)
    filters: list[str] = Field(default_factory=list)
    subjects: int = 0
    outcome: str | None = None
    notes: list[str] = Field(default_factory=list)

    @computed_field
    @property
    def read_only(self) -> bool:
        return self.source == "loaded"

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()


def _info(model_id: str, name: str, source: str, model: CausalModel, notes=()) -> ModelInfo:
    return ModelInfo(
        id=model_id,
        name=name,
        source=source,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        variables=len(model.variables),
        edges=model.graph.number_of_edges(),
        treatments=model.treatments,
        filters=model.filters,
        subjects=len(model.subjects),
        outcome=model.outcome,
        notes=list(notes),
    )


def describe(model: CausalModel, info: ModelInfo, *, preview_rows: int = 10) -> dict[str, Any]:
    """A model as the API shows it: its record, the graph's nodes and edges, each
    treatment's average effect and the first rows of the effects table."""
    out: dict[str, Any] = {
        **info.to_dict(),
        "nodes": model.variables,
        "edge_list": [[str(a), str(b)] for a, b in model.graph.edges()],
        "subject_column": model.subject_column,
        "ate": {},
        "effects_preview": None,
    }
    if model.effects is not None:
        eff = model.effects
        out["ate"] = {t: round(float(eff[t].mean()), 4) for t in model.treatments}
        head = eff.head(preview_rows)
        out["effects_preview"] = {
            "columns": [str(model.subject_column), *map(str, eff.columns)],
            "rows": [
                [str(idx), *(_cell(v) for v in row)]
                for idx, row in zip(head.index, head.itertuples(index=False))
            ],
        }
    return out


def _cell(v: Any) -> Any:
    if isinstance(v, bool) or hasattr(v, "dtype") and v.dtype == bool:
        return bool(v)
    return round(float(v), 4)


class ModelStore:
    """The registry. `root` is created on first write; `loaded` maps ids to directories
    holding ``graph.*`` and optionally ``effects.*`` (validated at start-up)."""

    def __init__(
        self, root: Path, loaded: Mapping[str, Path] | None = None, *, cache_size: int = 16
    ) -> None:
        self.root = Path(root)
        self._lock = threading.RLock()
        self._cache: OrderedDict[str, CausalModel] = OrderedDict()
        self._cache_size = cache_size
        self._loaded: dict[str, tuple[ModelInfo, Path, Path | None]] = {}
        for model_id, directory in (loaded or {}).items():
            self._mount(check_id_for_new(model_id), Path(directory))

    # -- operator-loaded models
    def _mount(self, model_id: str, directory: Path) -> None:
        graph, effects = _model_files(directory)
        model = CausalModel.load(graph, effects)
        self._loaded[model_id] = (_info(model_id, model_id, "loaded", model), graph, effects)
        self._remember(model_id, model)

    # -- reading
    def _dir(self, model_id: str) -> Path:
        d = self.root / check_id(model_id)
        if d.parent != self.root:  # pragma: no cover - MODEL_ID admits no separator
            raise NotFoundError(f"no causal model {model_id!r}")
        return d

    def list(self) -> list[ModelInfo]:
        infos = [info for info, _, _ in self._loaded.values()]
        if self.root.is_dir():
            for d in sorted(self.root.iterdir()):
                if MODEL_ID.match(d.name) and d.name not in self._loaded:
                    try:
                        infos.append(self.info(d.name))
                    except NotFoundError:
                        continue
        return infos

    def info(self, model_id: str) -> ModelInfo:
        if model_id in self._loaded:
            return self._loaded[model_id][0]
        meta = self._dir(model_id) / _META
        try:
            return ModelInfo.model_validate_json(meta.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise NotFoundError(
                f"no causal model {model_id!r}", hint="GET /v1/models lists the models"
            ) from None
        except (OSError, ValueError) as e:
            raise NotFoundError(f"the record of model {model_id!r} is unreadable: {e}") from None

    def get(self, model_id: str) -> CausalModel:
        """The model (loaded from disk once, then kept among the recently used)."""
        with self._lock:
            if model_id in self._cache:
                self._cache.move_to_end(model_id)
                return self._cache[model_id]
        info = self.info(model_id)
        if info.read_only:
            _, graph, effects = self._loaded[model_id]
        else:
            d = self._dir(model_id)
            graph, effects = d / "graph.graphml", d / "effects.csv"
            effects = effects if effects.exists() else None
        model = CausalModel.load(graph, effects)
        self._remember(model_id, model)
        return model

    def _remember(self, model_id: str, model: CausalModel) -> None:
        with self._lock:
            self._cache[model_id] = model
            self._cache.move_to_end(model_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    # -- writing
    def add(
        self, model: CausalModel, name: str, source: str, notes: list[str] | None = None
    ) -> ModelInfo:
        """Store `model` under the id made from `name`; `ConflictError` when it exists."""
        model_id = check_id_for_new(slug(name))
        info = _info(model_id, str(name)[:200], source, model, notes or ())
        with self._lock:
            target = self._dir(model_id)
            if model_id in self._loaded or target.exists():
                raise ConflictError(
                    f"a causal model {model_id!r} exists already",
                    hint="choose another name, or delete that model first",
                )
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = self.root / f".new-{uuid.uuid4().hex}"
            try:
                model.save(tmp)
                (tmp / _META).write_text(
                    info.model_dump_json(indent=2, exclude={"read_only"}), encoding="utf-8"
                )
                os.rename(tmp, target)
            finally:
                if tmp.exists():
                    shutil.rmtree(tmp, ignore_errors=True)
            self._remember(model_id, model)
        return info

    def delete(self, model_id: str) -> None:
        if model_id in self._loaded:
            raise ConflictError(
                f"the causal model {model_id!r} was loaded by the server's operator and "
                "cannot be deleted through the API",
                hint="restart the server without --load for it",
            )
        with self._lock:
            d = self._dir(model_id)
            if not (d / _META).exists():
                raise NotFoundError(f"no causal model {model_id!r}")
            trash = self.root / f".del-{uuid.uuid4().hex}"
            os.rename(d, trash)  # gone for readers at once; removed below
            self._cache.pop(model_id, None)
        shutil.rmtree(trash, ignore_errors=True)

    def scratch(self) -> Path:
        """A new private directory for an upload's files (the caller removes it)."""
        self.root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".upload-", dir=self.root))


def check_id_for_new(model_id: str) -> str:
    if not MODEL_ID.match(model_id):
        raise ServiceError(
            f"{model_id!r} is not a valid model id",
            hint="use lower-case letters, digits, '-' and '_' (at most 64)",
        )
    return model_id


def _model_files(directory: Path) -> tuple[Path, Path | None]:
    """The graph and effects files of an operator's model directory."""
    if not directory.is_dir():
        raise ModelDataError(
            f"{directory}: not a directory", hint="--load NAME=DIR names a model directory"
        )
    graphs = [p for p in sorted(directory.iterdir()) if p.stem == "graph" and p.is_file()]
    graphs = [p for p in graphs if p.suffix.lower() in GRAPH_FORMATS]
    if not graphs:
        raise ModelDataError(
            f"{directory}: no graph file (graph.graphml, graph.dot, graph.csv or graph.json)",
            hint="causalqa fit … --out DIR writes one",
        )
    effects = [
        p
        for p in sorted(directory.iterdir())
        if p.stem == "effects" and p.suffix.lower() in (".csv", ".tsv", ".parquet", ".pq")
    ]
    return graphs[0], effects[0] if effects else None


def graph_suffix(declared: str | None, filename: str | None, data: bytes) -> str:
    """The suffix to save an uploaded graph under: the declared format, else the upload's
    file-name suffix (only looked up, never used as a path), else a guess from its start."""
    if declared:
        return GRAPH_UPLOAD_FORMATS[declared]
    suffix = Path(filename or "").suffix.lower()
    if suffix in GRAPH_FORMATS:  # one of a fixed set of suffixes
        return suffix
    head = data.lstrip()[:200].lower()
    if head.startswith(b"<"):
        return ".graphml"
    if head.startswith((b"{", b"[")):
        return ".json"
    if re.match(rb"(strict\s+)?digraph\b", head):
        return ".dot"
    return ".csv"


def effects_suffix(declared: str | None, filename: str | None) -> str:
    if declared:
        return EFFECTS_UPLOAD_FORMATS[declared]
    suffix = Path(filename or "").suffix.lower()
    return {".tsv": ".tsv", ".parquet": ".parquet", ".pq": ".parquet"}.get(suffix, ".csv")


def relabel(error: CausalQAError, replacements: Mapping[str, str]) -> CausalQAError:
    """`error` with the service's scratch paths in its message replaced by what the client
    called those files, so a reply points at the upload's own line and column."""
    message = error.message
    for path, label in replacements.items():
        message = message.replace(path, label)
    error.args = (message, *error.args[1:])
    if isinstance(error, DataFileError) and error.path in replacements:
        error.path = replacements[error.path]
    return error
