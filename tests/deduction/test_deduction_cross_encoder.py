"""The cross-encoder's training cache: arrays and a checked manifest, no pickle. A cached
state gives the same logits as the state it was written from; a damaged or replaced cache
file is refused before it is read and trained again; an earlier torch pickle is never read."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from causalqa.deduction import cross_encoder as ce  # noqa: E402
from causalqa.deduction.cross_encoder import CrossEncoder, cache_dir  # noqa: E402

CAUSES = ["icing", "fatigue", "fuel", "wind", "rain", "bird", "engine", "tire", "smoke"]
STATEMENTS = [f"the {w} caused the accident" for w in CAUSES] * 2
PASSAGES = [[f"the report says {w} was seen", "the crew landed"] for w in CAUSES * 2]
LABELS = [i % 3 == 0 for i in range(len(STATEMENTS))]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A 2-layer, 16-wide BERT with MiniLM's tokenizer: the cross-encoder's code path fast."""
    from transformers import BertConfig, BertModel, BertTokenizerFast
    from transformers.utils import logging as hf_logging

    from causalqa.embed import default_model_path

    hf_logging.set_verbosity_error()
    folder = tmp_path_factory.mktemp("tiny-bert")
    tok = BertTokenizerFast.from_pretrained(str(default_model_path()))
    config = BertConfig(
        vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=128,
    )  # fmt: skip
    torch.manual_seed(0)
    BertModel(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _fit(folder, **kw) -> CrossEncoder:
    return CrossEncoder(folder, epochs=1, batch_size=4, **kw).fit(STATEMENTS, PASSAGES, LABELS)


def _cache_file(folder) -> object:
    key = CrossEncoder(folder, epochs=1, batch_size=4)._key(
        STATEMENTS, PASSAGES, np.asarray(LABELS)
    )
    return cache_dir() / f"{key}.npz"


def test_a_cached_state_gives_the_same_logits(tiny_bert, home, monkeypatch):
    first = _fit(tiny_bert)
    path = _cache_file(tiny_bert)
    assert sorted(p.name for p in cache_dir().iterdir()) == [path.name, f"{path.name}.json"]
    manifest = json.loads(path.with_name(f"{path.name}.json").read_text())
    assert manifest["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert manifest["params"]["epochs"] == 1 and manifest["n_train"] == len(LABELS)
    # a rerun reads the cache: it neither loads the transformer nor trains
    monkeypatch.setattr(ce, "_load", lambda *_: pytest.fail("trained again"))
    again = _fit(tiny_bert)
    monkeypatch.undo()
    assert again.history_ == first.history_ and list(again.state_) == list(first.state_)
    assert all(torch.equal(again.state_[n], t) for n, t in first.state_.items())
    assert all(t.dtype == torch.float16 for t in again.state_.values())
    # the stored state is what both apply (the first also holds its float32 weights)
    first._model = None
    assert np.array_equal(
        again.decision_function(STATEMENTS, PASSAGES), first.decision_function(STATEMENTS, PASSAGES)
    )


def test_a_tampered_cache_is_refused_unread_and_retrained(tiny_bert, home, monkeypatch):
    first = _fit(tiny_bert)
    path = _cache_file(tiny_bert)
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    path.write_bytes(bytes(blob))
    opened = []
    with monkeypatch.context() as m:
        m.setattr(np, "load", lambda *a, **k: opened.append(a))
        assert ce._read_cache(path) is None
    assert opened == [] and not path.exists()  # removed, so the next fit rewrites it
    again = _fit(tiny_bert)
    assert again.history_ == first.history_
    assert all(torch.equal(again.state_[n], t) for n, t in first.state_.items())
    manifest = json.loads(path.with_name(f"{path.name}.json").read_text())
    assert manifest["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_cache_of_another_shape_is_not_used(tiny_bert, home):
    from causalqa.evidence.artefact import save_state

    first = _fit(tiny_bert)
    path = _cache_file(tiny_bert)
    save_state(path, {"state": {"w": np.ones(2)}, "history": [0.5]}, {})  # arrays, not tensors
    assert ce._read_cache(path) is None and not path.exists()
    assert _fit(tiny_bert).history_ == first.history_


def test_an_earlier_torch_pickle_cache_is_never_read(tiny_bert, home):
    path = _cache_file(tiny_bert)
    legacy = path.with_suffix(".pt")
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_bytes(b"an earlier causalqa's torch.save output")
    model = _fit(tiny_bert)  # trained (a read would have failed on these bytes)
    assert not legacy.exists() and path.is_file() and model.n_train_ == len(LABELS)


def test_state_bytes_are_safetensors(tiny_bert, home):
    from safetensors.torch import load

    model = _fit(tiny_bert, cache=False)
    assert not cache_dir().exists()
    back = load(model.state_bytes())
    assert set(back) == set(model.state_)
    assert all(torch.equal(back[n], t) for n, t in model.state_.items())
