"""Rankers on tiny synthetic data: the interface, the LLM permutation ranker with a
scripted LLM, and trained rankers beating random where relevance is learnable."""

from __future__ import annotations

import hashlib
import json
import pickle
import re
import shutil
import zlib

import numpy as np
import pytest

from causalqa.bench.discovery_rankers import evaluate_rankers
from causalqa.discovery.pathdata import PathCandidate, PathDataset, PathRecord
from causalqa.discovery.rankers import (
    CrossEncoderRanker,
    LLMPermutationRanker,
    RandomRanker,
    RankerError,
    SimilarityRanker,
    XGBoostRanker,
    allrank_loss,
    clean_permutation,
    cross_encoder_text,
    load_ranker,
    permutation_schema,
    save_ranker,
)
from causalqa.errors import PairDiscoveryError
from causalqa.llm.testing import ScriptedLLM


class HashEmbedder:
    """Bag of hashed words → unit vectors: a fast stand-in for MiniLM."""

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace(",", " ").split():
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


MIDDLE = ["Gene", "Anatomy", "Compound", "Pathway", "Disease", "Symptom"]


def synthetic(n_queries: int, seed: int) -> list[PathRecord]:
    """Paths through a Gene are relevant (high rel_score); others are not."""
    rng = np.random.default_rng(seed)
    records = []
    for q in range(n_queries):
        a, b = f"drug{q}", f"effect{q}"
        kinds = rng.choice(MIDDLE, size=6, replace=True)
        kinds[rng.integers(6)] = "Gene"
        paths = []
        for k, kind in enumerate(kinds):
            good = kind == "Gene"
            score = (3.0 if good else -1.0) + rng.normal(0, 0.3)
            paths.append(
                PathCandidate(
                    path_id=k,
                    stops=(a, f"{kind.lower()}{rng.integers(50)}", b),
                    relations=("r1", "r2"),
                    node_types=("Compound", kind, "SideEffect"),
                    rel_score=float(score),
                    relevant=bool(score > 0),
                )
            )
        records.append(PathRecord(str(q), f"{a} causes {b}.", a, b, 1, tuple(paths)))
    return records


@pytest.fixture(scope="module")
def data():
    return PathDataset("synthetic", synthetic(120, 0), synthetic(30, 1))


def test_rank_returns_order_and_scores():
    rec = synthetic(1, 0)[0]
    ranking = RandomRanker(seed=3).rank(rec)
    assert sorted(ranking.order.tolist()) == list(range(6))
    assert ranking.scores.shape == (6,)
    assert np.all(np.diff(ranking.scores[ranking.order]) <= 0)
    assert (RandomRanker(seed=3).rank(rec).order == ranking.order).all()
    assert RandomRanker(seed=3).rank(rec, []).order.size == 0


def test_similarity_ranker_prefers_paths_sharing_words():
    rec = synthetic(1, 0)[0]
    cands = [
        PathCandidate(0, ("x", "unrelated", "y")),
        PathCandidate(1, (rec.e1, rec.e2)),
    ]
    ranking = SimilarityRanker(HashEmbedder()).rank(rec, cands)
    assert ranking.top(1) == [1]
    with pytest.raises(RankerError):
        SimilarityRanker(query="title")


def test_untrained_use_raises():
    rec = synthetic(1, 0)[0]
    with pytest.raises(RankerError, match="not fitted"):
        CrossEncoderRanker().rank(rec)
    with pytest.raises(RankerError, match="unknown loss"):
        CrossEncoderRanker("hinge")


# -- the cross-encoder, fine-tuned end to end on a tiny transformer ---------------------


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory):
    """A 2-layer, 32-dim BERT with a word-level vocabulary of the synthetic data, saved
    like a local model folder: the cross-encoder's whole code path in a second."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("tiny-bert")
    words = {w for r in synthetic(150, 0) + synthetic(30, 1) for p in r.paths
             for t in (r.e1, r.e2, p.text(types=True)) for w in t.lower().split()}  # fmt: skip
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ",", "-", *sorted(words)]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    transformers.BertTokenizerFast(str(folder / "vocab.txt")).save_pretrained(folder)
    config = transformers.BertConfig(
        vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=64,
    )  # fmt: skip
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(folder)
    return folder


def tiny_cross_encoder(loss: str, folder, **kw) -> CrossEncoderRanker:
    kw = {"epochs": 1, "lr": 2e-3, "head_lr": 1e-2, "seed": 0, **kw}
    return CrossEncoderRanker(loss, model_path=folder, **kw)


@pytest.mark.parametrize("loss", ["rmse", "ranknet", "listnet"])
def test_cross_encoder_beats_random_when_relevance_is_learnable(data, tiny_encoder, loss):
    ranker = tiny_cross_encoder(loss, tiny_encoder)
    ev = evaluate_rankers(data, rankers=[ranker], random_draws=20)
    rand, ce = ev.rows
    assert rand["ranker"] == "random (mean of 20 draws)"
    assert ce["ndcg@5"] > rand["ndcg@5"] + 15, ev.to_markdown()
    assert ranker.steps_ == 30 and len(ranker.losses_) == 1  # 120 queries / 4 per step


def test_cross_encoder_is_deterministic_and_caps_paths(data, tiny_encoder):
    rec = data.truth[0]
    train = data.train[:24]
    a = tiny_cross_encoder("ranknet", tiny_encoder, max_paths=4).fit(train)
    b = tiny_cross_encoder("ranknet", tiny_encoder, max_paths=4).fit(train)
    assert np.array_equal(a.rank(rec).scores, b.rank(rec).scores)
    assert a.losses_ == b.losses_
    labels = np.array([6, 1, 5, 2, 4, 3])
    keep = a._capped(labels, np.random.default_rng(0))
    assert len(keep) == 4 and {0, 2} <= set(keep.tolist())  # the best 2 + 2 random
    with pytest.raises(RankerError):
        CrossEncoderRanker(max_paths=1)


def test_cross_encoder_saves_loads_and_reports_steps(data, tiny_encoder, tmp_path):
    steps = []
    ranker = tiny_cross_encoder("listnet", tiny_encoder)
    ranker.on_step = lambda done, total: steps.append((done, total))
    ranker.fit(data.train[:40])
    assert steps[0] == (1, 10) and steps[-1] == (10, 10)
    path = save_ranker(ranker, "listnet", tmp_path)
    assert path == tmp_path / "listnet.npz" and ranker.on_step is not None
    loaded = load_ranker("listnet", tmp_path)
    assert loaded.on_step is None and loaded.name == "listnet-cross-encoder"
    assert loaded.model_path == tiny_encoder and not loaded.model_.training
    for rec in data.truth:  # the same weights, so the same scores to the last bit
        assert np.array_equal(loaded.rank(rec).scores, ranker.rank(rec).scores)
    # the file holds the weights as arrays and names no transformers or torch class
    assert _stored_classes(path) == {"causalqa.discovery.rankers.CrossEncoderRanker"}
    trained = dict(ranker.model_.named_parameters())
    assert all(torch_equal(p, trained[n]) for n, p in loaded.model_.named_parameters())
    # the weights are rebuilt around the encoder folder: without it, a clear error
    moved = tmp_path / "encoder-copy"
    shutil.copytree(tiny_encoder, moved)
    ranker.model_path = moved
    save_ranker(ranker, "listnet", tmp_path)
    shutil.rmtree(moved)
    with pytest.raises(PairDiscoveryError, match="cannot load the ranker.*encoder-copy"):
        load_ranker("listnet", tmp_path)


def test_evaluate_rankers_saves_fitted_rankers_and_reports_steps(data, tmp_path):
    steps = []
    ranker = XGBoostRanker(embedder=HashEmbedder(), n_estimators=5, seed=0)
    ev = evaluate_rankers(
        data, rankers=[ranker], random_draws=0, save_dir=tmp_path, on_fit_step=lambda *a: 0
    )
    assert ev.rows[0]["ranker"] == "xgboost" and (tmp_path / "xgboost.npz").is_file()
    assert steps == []  # XGBoost has no training steps to report


def test_cross_encoder_text_is_a_pair_and_path_sequence():
    rec = synthetic(1, 0)[0]
    pair, path = cross_encoder_text(rec, rec.paths[0])
    assert pair == f"{rec.e1}, {rec.e2}"
    assert path.startswith(f"Compound {rec.e1} - ")
    assert "-[r1]->" in cross_encoder_text(rec, rec.paths[0], relations=True)[1]
    tagged = PathRecord("q", "<e1> a </e1> raises <e2> b </e2> .", "a", "b", 1, rec.paths)
    assert cross_encoder_text(tagged, rec.paths[0], context=True)[0] == "a, b: a raises b ."


def test_cross_encoder_weighs_both_gold_labels_alike():
    assert CrossEncoderRanker(balance=False)._query_weights([1, 0, 0, 0]) == [1.0] * 4
    w = CrossEncoderRanker()._query_weights([1, 0, 0, 0])
    assert w[0] == pytest.approx(2.0) and w[1] == pytest.approx(2 / 3)
    assert sum(w[1:]) == pytest.approx(w[0])
    assert CrossEncoderRanker()._query_weights([1, 1]) == [1.0, 1.0]


def test_xgboost_beats_random_when_relevance_is_learnable(data):
    ranker = XGBoostRanker(embedder=HashEmbedder(), n_estimators=40, seed=0)
    ev = evaluate_rankers(data, rankers=[ranker], random_draws=20)
    rand, xgb = ev.rows
    assert xgb["ndcg@5"] > rand["ndcg@5"] + 15, ev.to_markdown()
    assert ranker.lm_.vectors_.shape[1] == 128
    # The paired comparison with random's exact expectation agrees, far outside its noise.
    vs = xgb["vs_random"]
    assert vs["low"] > 10 and vs["p"] < 0.01
    assert vs["mean"] == pytest.approx(xgb["ndcg@5"] - rand["ndcg@5"], abs=3)
    assert "vs random (95% CI; p)" in ev.to_markdown()
    by = vs["by_label"]
    assert by and set(by) <= {"causal", "non-causal"}
    labels = [q.label for q in data.truth]
    assert (by.get("causal", 0) * labels.count(1) + by.get("non-causal", 0) * labels.count(0)) / (
        len(labels)
    ) == pytest.approx(vs["mean"], abs=0.05)


def test_evaluation_hides_the_sorted_truth_order(data):
    class Constant(RandomRanker):
        name = "constant"

        def score(self, query, candidates):
            return np.zeros(len(candidates))

    # test_truth lists paths best first; a ranker that keeps the given order must not win
    sorted_truth = [
        PathRecord(r.qid, r.sentence, r.e1, r.e2, r.label,
                   tuple(sorted(r.paths, key=lambda p: -p.rel_score)))
        for r in data.truth
    ]  # fmt: skip
    ev = evaluate_rankers(
        PathDataset("s", data.train, sorted_truth), rankers=[Constant()], random_draws=0
    )
    assert ev.rows[0]["ndcg@5"] < 90
    assert ev.rows[0]["recall@5"] == pytest.approx(100 * 5 / 6, abs=0.01)
    # A constant ranker over shuffled candidates is a random one: no clear gain.
    assert ev.rows[0]["vs_random"]["low"] < 0


def test_allrank_losses_prefer_the_right_order():
    torch = pytest.importorskip("torch")
    y = torch.tensor([[3.0, 2.0, 1.0, -1.0]])  # last entry padded
    good = torch.tensor([[2.0, 1.0, 0.0, 5.0]])
    bad = torch.tensor([[0.0, 1.0, 2.0, -5.0]])
    for name in ("rmse", "ranknet", "listnet"):
        lg = allrank_loss(name, good, y, levels=3.0)
        lb = allrank_loss(name, bad, y, levels=3.0)
        assert float(lg) < float(lb), name
    # RankNet by hand: pairs (0,1), (0,2), (1,2), each log(1 + exp(-(s_i - s_j)))
    expect = np.mean([np.log1p(np.exp(-d)) for d in (1.0, 2.0, 1.0)])
    assert float(allrank_loss("ranknet", good, y)) == pytest.approx(expect, rel=1e-5)


# -- LLM permutation ranker -------------------------------------------------------------


def test_clean_permutation_and_schema():
    assert clean_permutation([3, 3, 9, "x", 1], 4) == [2, 0, 1, 3]
    s = permutation_schema(3)["properties"]["ranking"]
    assert s["items"]["enum"] == [1, 2, 3] and s["minItems"] == s["maxItems"] == 3


def test_llm_permutation_ranker_uses_the_schema_and_repairs():
    rec = synthetic(1, 0)[0]
    llm = ScriptedLLM([json.dumps({"ranking": [4, 2, 2, 1, 6, 3]})])
    ranking = LLMPermutationRanker(llm).rank(rec)
    assert ranking.order.tolist() == [3, 1, 0, 5, 2, 4]
    call = llm.calls[0]
    assert call["schema"]["properties"]["ranking"]["minItems"] == 6
    text = " ".join(m["content"] for m in call["messages"])
    assert f"({rec.e1}, {rec.e2})" in text and "[6]" in text


def test_llm_permutation_sliding_window():
    rec = synthetic(1, 0)[0]
    cands = [PathCandidate(i, (rec.e1, f"n{i}", rec.e2)) for i in range(7)]

    def reverse(messages):
        n = sum(1 for m in messages if m["role"] == "user" and m["content"].startswith("["))
        return json.dumps({"ranking": list(range(n, 0, -1))})

    llm = ScriptedLLM(reverse)
    ranker = LLMPermutationRanker(llm, window=4, step=2)
    ranking = ranker.rank(rec, cands)
    # windows [3:7], [1:5], [0:3], each reversed in turn: the last path bubbles to the top
    assert ranker.calls_ == 3
    assert ranking.order.tolist() == [6, 5, 0, 2, 1, 4, 3]


@pytest.mark.model
def test_llm_permutation_with_the_small_model():
    from causalqa.llm import get_llm

    rec = synthetic(1, 0)[0]
    ranking = LLMPermutationRanker(get_llm("local:small")).rank(rec, rec.paths[:3])
    assert sorted(ranking.order.tolist()) == [0, 1, 2]


# -- saved rankers: arrays and a checked manifest, no pickle ----------------------------


def torch_equal(a, b) -> bool:
    import torch

    return torch.equal(a, b)


def _stored_classes(path) -> set[str]:
    """The causalqa classes a saved ranker's state tree names (read with pickles refused)."""
    with np.load(path, allow_pickle=False) as npz:
        text = npz["__state__"].tobytes().decode()
    return {c for c in re.findall(r'"object": "([^"]+)"', text) if c.startswith("causalqa.")}


@pytest.fixture(scope="module")
def saved_xgboost(data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("rankers")
    ranker = XGBoostRanker(embedder=HashEmbedder(), n_estimators=10, seed=0).fit(data.train[:60])
    return ranker, save_ranker(ranker, "xgboost", folder)


def test_a_saved_xgboost_ranker_ranks_as_the_fitted_one(data, saved_xgboost):
    ranker, path = saved_xgboost
    assert path.name == "xgboost.npz" and ranker.embedder is not None  # given back after saving
    manifest = json.loads(path.with_name("xgboost.npz.json").read_text())
    assert manifest["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert manifest["class"] == "causalqa.discovery.rankers.XGBoostRanker"
    loaded = load_ranker("xgboost", path.parent)
    assert loaded.embedder is None  # not saved: re-created on use
    loaded.embedder = ranker.embedder
    for rec in data.truth:
        assert np.array_equal(loaded.rank(rec).scores, ranker.rank(rec).scores)
    assert loaded.lm_.index_ == ranker.lm_.index_
    assert np.array_equal(loaded.lm_.vectors_, ranker.lm_.vectors_)
    assert _stored_classes(path) == {
        "causalqa.discovery.rankers.XGBoostRanker",
        "causalqa.discovery.rankers.BigramLM",
    }
    with pytest.raises(RankerError, match="not fitted"):
        XGBoostRanker().rank(data.truth[0])


def test_a_tampered_ranker_is_refused_before_it_is_read(saved_xgboost, tmp_path, monkeypatch):
    _, path = saved_xgboost
    copy = tmp_path / "xgboost.npz"
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 3] ^= 0x01
    copy.write_bytes(bytes(blob))
    (tmp_path / "xgboost.npz.json").write_bytes(path.with_name("xgboost.npz.json").read_bytes())
    opened = []
    monkeypatch.setattr(np, "load", lambda *a, **k: opened.append(a))
    with pytest.raises(PairDiscoveryError, match="does not match its manifest") as e:
        load_ranker("xgboost", tmp_path)
    assert opened == [] and "causalqa bench discovery rankers" in e.value.hint


RAN: list[str] = []


def _side_effect() -> None:
    RAN.append("unpickled")


class _Payload:
    def __reduce__(self):
        return (_side_effect, ())


def test_an_earlier_pickled_ranker_is_read_only_with_a_manifest(saved_xgboost, data, tmp_path):
    """save_ranker used to pickle with nothing beside the file: such a file is refused
    unread, with the way to retrain; one a manifest vouches for is read."""
    (tmp_path / "xgboost.pkl").write_bytes(pickle.dumps(_Payload()))
    with pytest.raises(PairDiscoveryError, match="cannot load the ranker.*has no manifest") as e:
        load_ranker("xgboost", tmp_path)
    assert RAN == [] and "retrain" in e.value.hint
    ranker = saved_xgboost[0]
    embedder, ranker.embedder = ranker.embedder, None
    blob = pickle.dumps(ranker)
    ranker.embedder = embedder
    (tmp_path / "xgboost.pkl").write_bytes(blob)
    digest = {"sha256": hashlib.sha256(blob).hexdigest()}
    (tmp_path / "xgboost.pkl.json").write_text(json.dumps(digest))
    old = load_ranker("xgboost", tmp_path)
    old.embedder = embedder
    assert np.array_equal(old.rank(data.truth[0]).scores, ranker.rank(data.truth[0]).scores)
    # saving again writes the new form and removes the pickle beside it
    save_ranker(old, "xgboost", tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["xgboost.npz", "xgboost.npz.json"]
