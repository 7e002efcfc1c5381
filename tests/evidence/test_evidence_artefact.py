"""Model artefacts without pickle: a fitted model comes back from its arrays and state tree
with the same predictions to the last bit, shared parts stay shared, only allowed classes
are rebuilt, and a pickle from an earlier causalqa is read only after its checksum."""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from causalqa.errors import DataFileError, EvidenceModelError
from causalqa.evidence import EvidenceModel
from causalqa.evidence.artefact import (
    FORMAT,
    STATE_KEY,
    decode,
    encode,
    load_artefact,
    load_state,
    read_state,
    save_state,
    write_artefact,
)


def _data(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize(
    "kind, calibration",
    [("xgboost", "isotonic"), ("logistic", "sigmoid"), ("logistic", "isotonic")],
)
def test_a_fitted_model_comes_back_identical(tmp_path, kind, calibration):
    X, y = _data()
    m = EvidenceModel(kind=kind, calibration=calibration, cv=3).fit(
        X, y, feature_names=["a", "b", "c"]
    )
    path = m.save(tmp_path / "m.npz", info={"command": "test"})
    again = EvidenceModel.load(path)
    Xt = np.random.default_rng(1).normal(size=(50, 3)) * 3
    assert np.array_equal(again.predict_proba(Xt), m.predict_proba(Xt))
    assert np.array_equal(again.contributions(Xt), m.contributions(Xt))
    # the calibrated model's estimator is the base model, as in the fitted object
    assert again.base_ is again.model_.calibrated_classifiers_[0].estimator
    assert again.manifest_["format"] == FORMAT and again.manifest_["info"] == {"command": "test"}
    # no pickle anywhere: numpy reads every entry with pickles refused
    with np.load(path, allow_pickle=False) as npz:
        state = json.loads(npz[STATE_KEY].tobytes())
    names = {n["object"] for n in _objects(state["state"])}
    assert "causalqa.evidence.model.EvidenceModel" in names
    assert all(n.startswith(("sklearn.", "xgboost.", "causalqa.")) for n in names), names


def _objects(node):
    if isinstance(node, dict):
        if "object" in node:
            yield node
        for v in node.values():
            yield from _objects(v)
    elif isinstance(node, list):
        for v in node:
            yield from _objects(v)


def test_plain_values_round_trip():
    value = {
        "f": 1.5, "inf": float("inf"), "i": 3, "s": "x", "b": True, "none": None,
        "t": (1, 2), "set": {1, 2}, "keys": {1: "a", (2, 3): "b"},
        "np": np.float32(2.5), "arr": np.arange(6).reshape(2, 3), "text": np.array(["a", "bc"]),
        "raw": b"\x00\x01", "buf": bytearray(b"ab"), "dtype": np.dtype("float32"),
        "type": np.float64, "objs": np.array([1, "a"], dtype=object),
    }  # fmt: skip
    tree, arrays = encode(value)
    json.dumps(tree, allow_nan=False)  # strict JSON
    back = decode(tree, arrays)
    assert back["keys"] == {1: "a", (2, 3): "b"} and back["set"] == {1, 2}
    assert back["np"] == np.float32(2.5) and back["np"].dtype == np.float32
    assert np.array_equal(back["arr"], value["arr"]) and back["text"].tolist() == ["a", "bc"]
    assert back["raw"] == b"\x00\x01" and back["buf"] == bytearray(b"ab")
    assert back["dtype"] == np.float32 and back["type"] is np.float64
    assert back["inf"] == float("inf") and back["t"] == (1, 2)
    assert back["objs"].tolist() == [1, "a"]


def test_tensors_round_trip():
    torch = pytest.importorskip("torch")
    state = {"w": torch.arange(4, dtype=torch.float32), "h": torch.ones(2, dtype=torch.bfloat16)}
    back = decode(*encode(state))
    assert torch.equal(back["w"], state["w"]) and back["h"].dtype == torch.bfloat16
    assert torch.equal(back["h"], state["h"])


class _Stranger:
    def __init__(self) -> None:
        self.x = 1


def test_only_allowed_or_trusted_classes_are_written():
    with pytest.raises(EvidenceModelError, match="not an allowed class"):
        encode({"f": _Stranger()})
    with pytest.raises(EvidenceModelError, match="not an allowed class"):
        encode(lambda: 1)
    tree, arrays = encode(_Stranger(), trusted=(_Stranger,))
    assert decode(tree, arrays, trusted=(_Stranger,)).x == 1
    with pytest.raises(ValueError, match="not allowed"):
        decode(tree, arrays)  # not trusted when reading


def _forge(path, state) -> None:
    buf = io.BytesIO()
    doc = json.dumps({"format": FORMAT, "state": state}).encode()
    np.savez_compressed(buf, **{STATE_KEY: np.frombuffer(doc, np.uint8)})
    blob = buf.getvalue()
    write_artefact(path, blob, {"sha256": hashlib.sha256(blob).hexdigest()})


def test_a_file_naming_another_class_is_refused(tmp_path):
    path = tmp_path / "evil.npz"
    _forge(path, {"object": "os.system", "id": 0, "state": {"dict": []}})
    with pytest.raises(DataFileError, match="not allowed"):
        load_state(path, EvidenceModel, what="evidence model", hint="rebuild it")
    _forge(path, {"list": [1]})
    with pytest.raises(DataFileError, match="holds no evidence model"):
        load_state(path, EvidenceModel, what="evidence model", hint="rebuild it")
    _forge(path, {"array": "a9"})
    with pytest.raises(DataFileError, match="cannot be read"):
        load_state(path, EvidenceModel, what="evidence model", hint="rebuild it")


def test_an_altered_file_is_refused_before_it_is_read(tmp_path):
    X, y = _data()
    m = EvidenceModel(kind="logistic", cv=3).fit(X, y, feature_names=["a", "b", "c"])
    path = m.save(tmp_path / "m.npz")
    blob = bytearray(path.read_bytes())
    blob[-5] ^= 0xFF
    path.write_bytes(bytes(blob))
    with pytest.raises(DataFileError, match="does not match its manifest"):
        EvidenceModel.load(path)
    assert zipfile.is_zipfile(path)


class _Boom:
    def __reduce__(self):
        return (RuntimeError, ("unpickled!",))


def test_a_legacy_pickle_is_read_only_with_its_checksum(tmp_path):
    X, y = _data()
    m = EvidenceModel(kind="logistic", cv=3).fit(X, y, feature_names=["a", "b", "c"])
    blob = pickle.dumps(m)
    path = write_artefact(tmp_path / "old.pkl", blob, {"sha256": hashlib.sha256(blob).hexdigest()})
    old = load_artefact(path, EvidenceModel, what="evidence model", hint="rebuild it")
    assert np.array_equal(old.predict_proba(X), m.predict_proba(X))
    # a replaced pickle is refused before a byte of it is unpickled
    evil = pickle.dumps(_Boom())
    path.write_bytes(evil)
    with pytest.raises(DataFileError, match="does not match its manifest"):
        load_artefact(path, EvidenceModel, what="evidence model", hint="rebuild it")


def test_save_state_writes_the_manifest_with_the_checksum(tmp_path):
    path = save_state(tmp_path / "s.npz", {"w": np.ones(3)}, {"note": "x"})
    manifest = json.loads((tmp_path / "s.npz.json").read_text())
    assert manifest["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert manifest["format"] == FORMAT and manifest["note"] == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.npz", "s.npz.json"]


def test_numpy_scalars_are_json_numbers_that_come_back_bit_for_bit():
    value = [
        np.float64(0.1), np.float32(0.1), np.float16(0.1), np.float64(-2.5e-300),
        np.int64(-(2**63)), np.uint64(2**64 - 1), np.int8(-7), np.bool_(True),
    ]  # fmt: skip
    tree, arrays = encode(value)
    assert arrays == {}  # none is a zip entry of its own
    json.dumps(tree, allow_nan=False)
    back = decode(tree, arrays)
    for a, b in zip(back, value):
        assert type(a) is type(b) and a.tobytes() == b.tobytes()
    # a value JSON cannot hold exactly still round-trips, as an array
    tree, arrays = encode([np.float64("nan"), np.float32("-inf"), np.longdouble(1) / 3])
    assert len(arrays) == 3
    nan, inf, third = decode(tree, arrays)
    assert np.isnan(nan) and inf == -np.inf and inf.dtype == np.float32
    assert third == np.longdouble(1) / 3


@pytest.mark.parametrize(
    "node",
    [
        {"number": "1.5", "dtype": "<f8"},  # numpy would parse the text
        {"number": 1, "dtype": "|O"},
        {"number": 1, "dtype": "|b1"},  # a bool dtype takes a JSON bool only
        {"number": True, "dtype": "<i8"},
        {"number": 1.0},
    ],
)
def test_a_forged_number_is_refused(tmp_path, node):
    path = tmp_path / "n.npz"
    _forge(path, node)
    with pytest.raises(DataFileError, match="cannot be read"):
        read_state(path, what="state", hint="rebuild it")


def test_paths_round_trip(tmp_path):
    back = decode(*encode({"model_path": tmp_path / "bert", "none": None}))
    assert back["model_path"] == tmp_path / "bert" and isinstance(back["model_path"], Path)


def test_read_state_gives_any_value_with_its_manifest(tmp_path):
    torch = pytest.importorskip("torch")
    state = {"w": torch.arange(3, dtype=torch.float16), "history": [0.5, 0.25]}
    path = save_state(tmp_path / "s.npz", state, {"what": "cache"})
    back, manifest = read_state(path, what="cache", hint="retrain")
    assert torch.equal(back["w"], state["w"]) and back["history"] == [0.5, 0.25]
    assert manifest["what"] == "cache"
    assert manifest["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_altered_state_is_refused_before_numpy_opens_it(tmp_path, monkeypatch):
    path = save_state(tmp_path / "s.npz", {"w": np.ones(3)}, {})
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    path.write_bytes(bytes(blob))
    opened = []
    monkeypatch.setattr(np, "load", lambda *a, **k: opened.append(a))
    with pytest.raises(DataFileError, match="does not match its manifest") as e:
        read_state(path, what="state", hint="rebuild it with X")
    assert opened == [] and e.value.hint == "rebuild it with X"


RAN: list[str] = []


def _side_effect() -> None:
    RAN.append("unpickled")


class _Payload:
    def __reduce__(self):
        return (_side_effect, ())


def test_a_file_without_a_manifest_is_not_read(tmp_path):
    """An earlier causalqa pickled some files with nothing beside them: refused unread."""
    path = tmp_path / "old.pkl"
    path.write_bytes(pickle.dumps(_Payload()))
    with pytest.raises(DataFileError, match=r"has no manifest \(old.pkl.json\)") as e:
        load_artefact(path, EvidenceModel, what="evidence model", hint="rebuild it with X")
    assert RAN == [] and e.value.hint == "rebuild it with X"
    pickle.loads(path.read_bytes())  # the payload does run when unpickled
    assert RAN == ["unpickled"]
