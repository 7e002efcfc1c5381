"""Model artefacts without pickle: a fitted object as a JSON tree of its state plus its arrays,
in one ``.npz`` read with ``allow_pickle=False``, and a manifest beside it.

A pickle runs whatever code its bytes name when it is loaded; a shipped or downloaded model
should not be able to. Here an object is written as the state pickle would take from it
(``__getstate__``, else its ``__dict__``) — but only for classes on an allow-list: the
scikit-learn and XGBoost estimators the evidence models use, numpy's scalar types, and
the classes a caller names as `trusted` (its own model classes). Loading rebuilds exactly
those classes (``cls.__new__`` then ``__setstate__`` or the ``__dict__``, as pickle does),
so an XGBoost booster comes back from its own serialisation (``Booster.__setstate__``)
and an isotonic regression rebuilds its interpolation; any other name in a file is
refused. Shared references stay shared (a calibrated model's estimator is its base).

    >>> import numpy as np
    >>> tree, arrays = encode({"w": np.arange(3.0), "k": (1, "a")})
    >>> decode(tree, arrays)["w"].tolist(), decode(tree, arrays)["k"]
    ([0.0, 1.0, 2.0], (1, 'a'))
"""

from __future__ import annotations

import collections
import hashlib
import importlib
import io
import json
import math
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.errors import DataFileError, EvidenceModelError
from causalqa.jsonl import atomic_file

FORMAT = "causalqa-state/1"
STATE_KEY = "__state__"

ALLOWED_CLASSES: tuple[str, ...] = (
    "sklearn.calibration.CalibratedClassifierCV",
    "sklearn.calibration._CalibratedClassifier",
    "sklearn.calibration._SigmoidCalibration",
    "sklearn.isotonic.IsotonicRegression",
    "sklearn.linear_model._logistic.LogisticRegression",
    "sklearn.pipeline.Pipeline",
    "sklearn.preprocessing._data.StandardScaler",
    "sklearn.feature_extraction.text.TfidfVectorizer",
    "sklearn.feature_extraction.text.TfidfTransformer",
    "sklearn.feature_extraction.text.CountVectorizer",
    "xgboost.sklearn.XGBClassifier",
    "xgboost.sklearn.XGBRanker",
    "xgboost.core.Booster",
)
"""Classes any artefact may hold (module and qualified name)."""

_NUMPY_TYPES = {
    t.__name__: t
    for t in (np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
              np.uint64, np.uint32, np.uint16, np.uint8, np.bool_, np.complex128)
}  # fmt: skip


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class _Encoder:
    def __init__(self, trusted: Iterable[type]) -> None:
        self.trusted = {_name(c) for c in trusted}
        self.arrays: dict[str, np.ndarray] = {}
        self.refs: dict[int, int] = {}
        self.keep: list[Any] = []  # objects seen, alive until the end (stable ids)

    def array(self, a: np.ndarray) -> str:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = a
        return key

    def __call__(self, x: Any) -> Any:
        if x is None:
            return x
        if isinstance(x, np.generic):  # first: np.float64 is a float, np.str_ a str
            if isinstance(x, np.void) or x.dtype.hasobject:
                raise self.refuse(x)
            if _inline(x):
                # in the JSON, not one zip entry each: a record holds thousands of them
                return {"number": x.item(), "dtype": x.dtype.str}
            return {"scalar": self.array(np.asarray(x))}
        if isinstance(x, (bool, str, int)):
            return x
        if isinstance(x, float):
            return x if math.isfinite(x) else {"float": repr(x)}
        if isinstance(x, np.ndarray):
            if x.dtype.hasobject:
                return {"objects": [self(v) for v in x.ravel().tolist()], "shape": list(x.shape)}
            return {"array": self.array(x)}
        if isinstance(x, Path):  # e.g. the folder of the encoder a model was trained from
            return {"path": str(x)}
        if isinstance(x, (bytes, bytearray)):
            kind = "bytes" if isinstance(x, bytes) else "bytearray"
            return {kind: self.array(np.frombuffer(bytes(x), dtype=np.uint8))}
        if isinstance(x, type) and x in _NUMPY_TYPES.values():
            return {"type": x.__name__}
        if isinstance(x, np.dtype):
            if x.hasobject:
                raise self.refuse(x)
            return {"dtype": x.str}
        if type(x) in (list, tuple, set, frozenset):
            return {type(x).__name__: [self(v) for v in x]}
        if type(x) in (dict, collections.OrderedDict):
            kind = "dict" if type(x) is dict else "odict"
            return {kind: [[self(k), self(v)] for k, v in x.items()]}
        if _is_tensor(x):
            return self.tensor(x)
        return self.object(x)

    def tensor(self, t: Any) -> dict[str, Any]:
        import torch

        t = t.detach().cpu()
        if t.dtype == torch.bfloat16:  # numpy has no bfloat16: keep its bits
            return {"tensor": self.array(t.view(torch.int16).numpy()), "bits": "bfloat16"}
        return {"tensor": self.array(t.numpy())}

    def object(self, x: Any) -> dict[str, Any]:
        if id(x) in self.refs:
            return {"ref": self.refs[id(x)]}
        name = _name(type(x))
        if name not in self.trusted and name not in ALLOWED_CLASSES:
            raise self.refuse(x)
        self.refs[id(x)] = ref = len(self.refs)
        self.keep.append(x)
        state = x.__getstate__() if hasattr(x, "__getstate__") else x.__dict__
        return {"object": name, "id": ref, "state": self(state)}

    @staticmethod
    def refuse(x: Any) -> EvidenceModelError:
        return EvidenceModelError(
            f"cannot store a {_name(type(x))} in a model artefact (not an allowed class)",
            hint="name the class as trusted when saving, if it is one of causalqa's own",
        )


def _inline(x: np.generic) -> bool:
    """Whether a numpy scalar survives as a JSON number and back, bit for bit: booleans,
    integers, and finite floats (a float16/32 value is exactly a float64 one)."""
    if x.dtype.kind in "biu":
        return True
    return x.dtype.kind == "f" and x.dtype.itemsize <= 8 and math.isfinite(x)


def _is_tensor(x: Any) -> bool:
    return type(x).__module__ == "torch" and type(x).__name__ in ("Tensor", "Parameter")


def encode(obj: Any, *, trusted: Iterable[type] = ()) -> tuple[Any, dict[str, np.ndarray]]:
    """`obj` as a JSON-able tree and the arrays it refers to (see the module).

    Raises:
        EvidenceModelError: `obj` holds an object of a class neither allowed nor trusted.
    """
    enc = _Encoder(trusted)
    return enc(obj), enc.arrays


class _Decoder:
    def __init__(self, arrays: dict[str, np.ndarray], trusted: Iterable[type]) -> None:
        self.arrays = arrays
        self.trusted = {_name(c): c for c in trusted}
        self.objects: dict[int, Any] = {}

    def array(self, key: Any) -> np.ndarray:
        if not isinstance(key, str) or key not in self.arrays:
            raise ValueError(f"no array {key!r}")
        return self.arrays[key]

    def __call__(self, x: Any) -> Any:
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        if not isinstance(x, dict) or len(x) not in (1, 2, 3):
            raise ValueError(f"not a state node: {str(x)[:80]}")
        if "object" in x:
            return self.object(x)
        if "ref" in x:
            return self.objects[x["ref"]]
        (kind, value), *rest = x.items()
        if kind == "scalar":
            return self.array(value)[()]
        if kind == "number":
            dtype = np.dtype(x["dtype"]) if isinstance(x.get("dtype"), str) else None
            if (
                dtype is None
                or dtype.kind not in "biuf"
                or not isinstance(value, (int, float))
                or isinstance(value, bool) != (dtype.kind == "b")
            ):
                raise ValueError(f"not a numeric scalar: {str(x)[:80]}")
            return dtype.type(value)
        if kind == "array":
            return self.array(value)
        if kind == "objects":
            out = np.empty(len(value), dtype=object)
            out[:] = [self(v) for v in value]
            return out.reshape(x["shape"])
        if kind == "float":
            return float(value)
        if kind == "path":
            if not isinstance(value, str):
                raise ValueError(f"not a path: {str(x)[:80]}")
            return Path(value)
        if kind in ("bytes", "bytearray"):
            raw = self.array(value).tobytes()
            return raw if kind == "bytes" else bytearray(raw)
        if kind == "type":
            return _NUMPY_TYPES[value]
        if kind == "dtype":
            return np.dtype(value)
        if kind in ("list", "tuple", "set", "frozenset"):
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](
                self(v) for v in value
            )
        if kind in ("dict", "odict"):
            items = ((self(k), self(v)) for k, v in value)
            return dict(items) if kind == "dict" else collections.OrderedDict(items)
        if kind == "tensor":
            import torch

            t = torch.from_numpy(np.array(self.array(value)))
            return t.view(torch.bfloat16) if x.get("bits") == "bfloat16" else t
        raise ValueError(f"unknown state node {kind!r}")

    def object(self, x: dict[str, Any]) -> Any:
        cls = self.trusted.get(x["object"]) or _allowed(x["object"])
        obj = cls.__new__(cls)
        self.objects[x["id"]] = obj
        state = self(x["state"])
        if hasattr(obj, "__setstate__"):
            obj.__setstate__(state)
        elif isinstance(state, dict):
            obj.__dict__.update(state)
        elif state is not None:  # None: an object with an empty __dict__
            raise ValueError(f"{x['object']}: state is not a dict")
        return obj


def _allowed(name: str) -> type:
    if name not in ALLOWED_CLASSES:
        raise ValueError(f"the class {name} is not allowed in a model artefact")
    module, _, qualname = name.rpartition(".")
    return getattr(importlib.import_module(module), qualname)


def decode(tree: Any, arrays: dict[str, np.ndarray], *, trusted: Iterable[type] = ()) -> Any:
    """The object `encode` made `tree` and `arrays` from. Raises ValueError (and
    ImportError for an allowed class whose package is missing) on anything else."""
    return _Decoder(arrays, trusted)(tree)


# -- files -----------------------------------------------------------------------------------


def write_artefact(path: Path, blob: bytes, manifest: dict[str, Any]) -> Path:
    """`blob` at `path` and its `manifest` (JSON, which should hold the blob's sha256) at
    ``<path>.json``, each written atomically. Returns `path`."""
    for suffix, data in (("", blob), (".json", json.dumps(manifest, indent=2).encode())):
        with atomic_file(path.with_name(path.name + suffix), binary=True) as f:
            f.write(data)
    return path


def save_state(
    path: str | Path, obj: Any, manifest: dict[str, Any], *, trusted: Iterable[type] = ()
) -> Path:
    """Write `obj` to `path` (an ``.npz``: its arrays and its state tree) and `manifest`
    beside it (``<path>.json``, with the format and the file's sha256), atomically."""
    tree, arrays = encode(obj, trusted=trusted)
    state = json.dumps({"format": FORMAT, "state": tree}, ensure_ascii=False, allow_nan=False)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays, **{STATE_KEY: np.frombuffer(state.encode(), np.uint8)})
    blob = buf.getvalue()
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    head = {"format": FORMAT, "sha256": hashlib.sha256(blob).hexdigest(), "bytes": len(blob)}
    return write_artefact(target, blob, {**head, **manifest})


def is_state_file(path: str | Path) -> bool:
    """Whether `path` is an artefact of `save_state` (a zip), not a legacy pickle."""
    with open(path, "rb") as f:
        return f.read(4) == b"PK\x03\x04"


def load_state(
    path: str | Path, cls: type, *, what: str, hint: str, trusted: Iterable[type] = ()
) -> Any:
    """The `cls` object `save_state` wrote at `path`, its manifest as `manifest_`.

    Raises:
        DataFileError: missing, unreadable, altered (the manifest's sha256), holding a
            class that is not allowed, or not a `cls`.
    """
    target = Path(path)
    obj, manifest = read_state(target, what=what, hint=hint, trusted=(cls, *trusted))
    if not isinstance(obj, cls):
        raise DataFileError(f"{target} holds no {what}", hint=hint, path=str(target))
    obj.manifest_ = manifest
    return obj


def read_state(
    path: str | Path, *, what: str, hint: str, trusted: Iterable[type] = ()
) -> tuple[Any, dict[str, Any]]:
    """What `save_state` wrote at `path`, whatever its type (a dict of tensors, a list),
    and the manifest beside it; the bytes are checked against the manifest's sha256
    before any is read. The caller checks the value's shape.

    Raises:
        DataFileError: missing, without a manifest, unreadable, altered, or naming a
            class neither allowed nor `trusted`.
    """
    target = Path(path)
    manifest, blob = read_checked(target, what=what, hint=hint)
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        doc = json.loads(arrays.pop(STATE_KEY).tobytes().decode("utf-8"))
        if doc.get("format") != FORMAT:
            raise ValueError(f"format {doc.get('format')!r}, not {FORMAT}")
        obj = decode(doc["state"], arrays, trusted=trusted)
    except (ValueError, KeyError, TypeError, OSError, zipfile.BadZipFile, ImportError) as e:
        raise DataFileError(f"{target} cannot be read ({e})", hint=hint, path=str(target)) from None
    return obj, manifest


def read_checked(target: Path, *, what: str, hint: str) -> tuple[dict[str, Any], bytes]:
    """The manifest (``<target>.json``) and the bytes of `target`, after checking the
    bytes' sha256 against the manifest's; nothing of `target` is interpreted.

    Raises:
        DataFileError: `target` or its manifest missing or unreadable, or the bytes not
            those the manifest recorded.
    """
    target = Path(target)
    manifest_path = target.with_name(target.name + ".json")
    if not target.is_file():
        raise DataFileError(f"no {what} at {target}", hint=hint, path=str(target))
    if not manifest_path.is_file():
        # a file nothing vouches for is not read: it could hold anything
        raise DataFileError(
            f"the {what} at {target} has no manifest ({manifest_path.name}) to check it "
            "against, so it is not read",
            hint=hint,
            path=str(target),
        )
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        blob = target.read_bytes()
    except (OSError, ValueError) as e:
        raise DataFileError(
            f"{manifest_path}: unreadable ({e})", hint=hint, path=str(target)
        ) from None
    if not isinstance(manifest, dict) or hashlib.sha256(blob).hexdigest() != manifest.get("sha256"):
        raise DataFileError(
            f"{target} does not match its manifest (damaged or replaced)",
            hint=hint,
            path=str(target),
        )
    return manifest, blob


def load_legacy_pickle(path: str | Path, cls: type, *, what: str, hint: str) -> Any:
    """A model pickled by an earlier causalqa (a user's own training), unpickled only
    after its bytes match the sha256 its manifest recorded when it was written."""
    import pickle

    target = Path(path)
    manifest, blob = read_checked(target, what=what, hint=hint)
    try:
        obj = pickle.loads(blob)
    except Exception as e:  # a pickle of a different causalqa version
        raise DataFileError(f"{target} cannot be read ({e})", hint=hint, path=str(target)) from None
    if not isinstance(obj, cls):
        raise DataFileError(f"{target} holds no {what}", hint=hint, path=str(target))
    obj.manifest_ = manifest
    return obj


def load_artefact(
    path: str | Path, cls: type, *, what: str, hint: str, trusted: Iterable[type] = ()
) -> Any:
    """A `cls` saved by `save_state`, or, written by an earlier causalqa, a pickle whose
    sha256 its manifest recorded (`load_legacy_pickle`); either way checked against its
    manifest before anything is read."""
    target = Path(path)
    if target.is_file() and not is_state_file(target):
        return load_legacy_pickle(target, cls, what=what, hint=hint)
    return load_state(target, cls, what=what, hint=hint, trusted=trusted)
