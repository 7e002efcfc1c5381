from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalqa.kg import EntityNotFoundError, Linker, load_hetionet, normalize

NODES = pd.DataFrame(
    [
        ("Compound::DB00481", "Raloxifene", "Compound"),
        ("Disease::DOID:1909", "melanoma", "Disease"),
        ("Side Effect::C0025202", "Melanoma", "Side Effect"),
        ("Disease::DOID:4159", "skin cancer", "Disease"),
        ("Disease::DOID:1612", "breast cancer", "Disease"),
        ("Gene::2064", "ERBB2", "Gene"),
        ("Gene::6697", "SPR", "Gene"),
        ("Side Effect::C0037286", "Neoplasm skin", "Side Effect"),
        ("Compound::DB00945", "Acetylsalicylic acid", "Compound"),
        ("Compound::DB01050", "Ibuprofen", "Compound"),
    ],
    columns=["id", "name", "kind"],
)


class FakeEmbedder:
    """Vectors from a fixed table: 'aspirin' sits next to acetylsalicylic acid."""

    def __init__(self):
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        out = []
        for text in texts:
            v = np.zeros(4, dtype=np.float32)
            if text.lower() in {"aspirin", "acetylsalicylic acid"}:
                v[0] = 1
            elif text.lower() == "ibuprofen":
                v[:2] = [0.6, 0.8]
            else:
                v[3] = 1
            out.append(v / np.linalg.norm(v))
        return np.stack(out)


@pytest.fixture
def linker():
    return Linker(NODES, embedder=FakeEmbedder())


def test_normalize():
    assert normalize("  Crohn's  Disease ") == "crohn s disease"
    assert normalize("Sjögren-syndrome") == "sjogren syndrome"


def test_exact_and_case_insensitive(linker):
    linking = linker.link("ERBB2")
    assert linking.method == "exact" and not linking.ambiguous
    assert linking.best.node.id == "Gene::2064"
    linking = linker.link("raloxifene")
    assert linking.method == "normalized" and linking.best.node.name == "Raloxifene"
    assert linker.link("Compound::DB00481").best.node.name == "Raloxifene"


def test_same_name_two_kinds_is_ambiguous_not_guessed(linker):
    for query in ("Melanoma", "melanoma", "MELANOMA"):
        linking = linker.link(query)
        assert linking.ambiguous and linking.best is None
        assert {c.node.kind for c in linking.candidates} == {"Disease", "Side Effect"}
    exact = linker.link("Melanoma")
    assert exact.candidates[0].node.kind == "Side Effect"  # the exact-case hit ranks first
    assert linker.link("melanoma", kinds=["Disease"]).best.node.id == "Disease::DOID:1909"


def test_fuzzy_clear_and_ambiguous(linker):
    typo = linker.link("raloxifen")
    assert typo.method == "fuzzy" and typo.best.node.name == "Raloxifene"
    reordered = linker.link("skin neoplasm")
    assert reordered.method == "fuzzy" and reordered.best.node.name == "Neoplasm skin"
    both = linker.link("melanoma skin cancer")
    assert both.method == "fuzzy" and both.ambiguous and both.best is None
    names = [c.node.name for c in both.candidates]
    assert {"melanoma", "skin cancer"} <= set(names[:3])
    assert all(c.score >= 80 for c in both.candidates)
    scores = [c.score for c in both.candidates]
    assert scores == sorted(scores, reverse=True)


def test_alias(linker):
    linking = linker.link("Evista", aliases={"evista": "Compound::DB00481"})
    assert linking.method == "alias" and linking.best.node.name == "Raloxifene"
    assert linker.link("HER2", aliases={"her2": "ERBB2"}).best.node.id == "Gene::2064"


def test_embedding_only_when_cheaper_methods_fail(linker):
    linker.link("raloxifen")
    assert linker._embedder.calls == 0  # fuzzy sufficed: the model was never touched
    linking = linker.link("aspirin")
    assert linking.method == "embedding"
    assert linking.best.node.name == "Acetylsalicylic acid"
    assert linker._embedder.calls == 2  # node names once, the query once


def test_nothing_fits(linker):
    linking = linker.link("zzzqqq", embeddings=False)
    assert linking.method == "none" and linking.best is None and linking.candidates == []
    assert linker.link("   ").method == "none"


def test_name_vectors_are_cached(tmp_path):
    first = Linker(NODES, embedder=FakeEmbedder(), cache_dir=tmp_path)
    first.link("aspirin")
    second = Linker(NODES, embedder=FakeEmbedder(), cache_dir=tmp_path)
    second.link("aspirin")
    assert second._embedder.calls == 1  # only the query was encoded


def test_name_vectors_are_cached_whatever_order_the_store_returns(tmp_path):
    """A store returns its nodes in no fixed order: the cache is found all the same, and
    one file is kept, not one per process (an older cache of the store is removed)."""
    stale = tmp_path / "name-vectors-0123456789abcdef.npy"
    np.save(stale, np.zeros((2, 4), dtype=np.float32))
    (tmp_path / "graph.lbug").write_text("the store's own file")
    Linker(NODES, embedder=FakeEmbedder(), cache_dir=tmp_path).link("aspirin")
    assert not stale.exists() and (tmp_path / "graph.lbug").exists()
    shuffled = NODES.sample(frac=1.0, random_state=3)
    assert list(shuffled["id"]) != list(NODES["id"])
    again = Linker(shuffled, embedder=FakeEmbedder(), cache_dir=tmp_path)
    assert again.link("aspirin").best.node.name == "Acetylsalicylic acid"
    assert again._embedder.calls == 1
    assert len(list(tmp_path.glob("name-vectors-*.npy"))) == 1


def test_resolve_on_graph(tmp_path, hetionet_dir):
    with load_hetionet(hetionet_dir, tmp_path / "s") as kg:
        assert kg.resolve("Gene::2064").name == "ERBB2"
        assert kg.resolve("raloxifene").id == "Compound::DB00481"
        with pytest.raises(EntityNotFoundError, match="ambiguous") as info:
            kg.resolve("melanoma")
        assert len(info.value.candidates) == 2
        assert kg.resolve("melanoma", kinds=["Disease"]).kind == "Disease"
        with pytest.raises(EntityNotFoundError, match="matches no node"):
            kg.resolve("qwxzv", embeddings=False)
        assert kg.link("melanoma").to_dict()["ambiguous"] is True
