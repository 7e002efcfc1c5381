"""Subgraph rankers (paper 001 §4.3, App. D, F) behind one interface, and Table D2.

Every ranker follows scikit-learn's habit: the constructor only stores parameters,
``fit(train_records)`` learns (and returns ``self``; the untrained ones just return), and
``rank(query, candidates)`` returns a `Ranking` — ``order`` (candidate indices, most
relevant first) and ``scores`` (one per candidate, in the candidates' order). Ties keep the
candidates' given order, so evaluation shuffles candidates before ranking.

- `RandomRanker`: seeded random scores (the paper's random subgraph selection).
- `SimilarityRanker` (F.1): MiniLM cosine between the pair (or sentence) and each path.
- `LLMPermutationRanker` (F.2): RankGPT-style permutation generation by an LLM, the
  permutation constrained by a JSON schema; a sliding window over long candidate lists.
- `CrossEncoderRanker` (§4.3, D.1): "[CLS] a, b: sentence [SEP] typed path [SEP]" as one
  sequence through a transformer fine-tuned end to end — the offline all-MiniLM-L6-v2 (the
  paper's roberta-base cannot be obtained here) — mean pooled into a linear scoring head,
  trained with allRank's pointwise RMSE, pairwise RankNet or listwise ListNet loss over
  batches of whole queries, each query weighted so that causal and non-causal pairs weigh
  the same. Why the sentence and the weights: Eq. 1's relevance is the relevance LLM's
  confidence in the *gold* label, so the same path is relevant for a causal pair and
  irrelevant for a non-causal one; a ranker that sees only the pair can learn nothing but
  the training set's label prior (81% non-causal in COMAGC's and GENEC's train_full),
  which inverts on causal pairs. Measured on a by-query validation split of COMAGC's
  train_full (never on test_truth; RankNet, NDCG@5): pair-only 75.8 vs random 75.3
  overall; with sentence and weights 83.1 vs 75.8 on causal and 73.4 vs 75.1 on non-causal
  pairs. Defaults (lr 1e-4, 1 epoch, 4 queries a step, 96 tokens) were chosen on such
  splits: on GENEC's, NDCG@5 peaked after 1–2 epochs and fell after (overfitting).
- `XGBoostRanker` (D.2): a bigram neural language model (128-dim embeddings, trained to
  predict the next token over "a - b: path" sequences, D.2.1); features are the mean token
  embeddings of the whole sequence and of the path, the MiniLM cosine of pair and path,
  and the path's hop count; XGBoost ``rank:ndcg`` with Table D3's settings
  (``tree_method="hist"``, ``lambdarank_pair_method="topk"``,
  ``lambdarank_num_pair_per_sample=8``).

Training targets are Table D2's graded labels (`metrics.relevance_labels` of each query's
``rel_score``): the raw scores are ±1/|log p| and reach ±250, so their order, not their
size, is what is distilled.

`evaluate_rankers(dataset)` fits the trained rankers on ``train_full`` and scores every
ranker on ``test_truth``: NDCG@5 and Recall@5 as Table D2 (see `metrics`), beside the
paper's numbers (`PAPER_TABLE_D2`).
"""

from __future__ import annotations

import contextlib
import os
import re
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from causalqa import config, registry
from causalqa._compat import moved_names
from causalqa.discovery.pathdata import (
    PathCandidate,
    PathRecord,
)
from causalqa.errors import ConfigError, DataFileError, PairDiscoveryError, RankerError
from causalqa.evidence.artefact import load_artefact, save_state
from causalqa.evidence.finetune import encoder_path, load_transformer, mean_pool, train_epochs
from causalqa.metrics import relevance_labels

__all__ = [
    "RANKERS",
    "TRAINED",
    "CrossEncoderRanker",
    "LLMPermutationRanker",
    "RandomRanker",
    "Ranker",
    "RankerError",
    "Ranking",
    "SimilarityRanker",
    "XGBoostRanker",
    "get_ranker",
    "load_ranker",
    "ranker_file",
    "save_ranker",
]

LOSSES = ("rmse", "ranknet", "listnet")
_NO_PATH = "(no path)"


@dataclass
class Ranking:
    """`order`: candidate indices, most relevant first; `scores`: per candidate, in the
    candidates' order (higher = more relevant)."""

    order: np.ndarray
    scores: np.ndarray

    def top(self, k: int) -> list[int]:
        return [int(i) for i in self.order[:k]]


def stable_seed(*parts: Any) -> int:
    return zlib.crc32("\x1f".join(str(p) for p in parts).encode())


def pair_text(query: PathRecord) -> str:
    """The pair as the ranker inputs write it (Eq. 5: "a, b")."""
    return f"{query.e1}, {query.e2}"


def _path_text(path: PathCandidate, *, types: bool) -> str:
    return path.text(types=types) or _NO_PATH


class Ranker(ABC):
    """The interface: ``fit(train_records) -> self``; ``rank(query, candidates) -> Ranking``."""

    name: str = "ranker"
    trained: bool = False

    def fit(self, records: Sequence[PathRecord]) -> Ranker:
        """Learn from training records (a no-op for untrained rankers)."""
        return self

    @abstractmethod
    def score(self, query: PathRecord, candidates: Sequence[PathCandidate]) -> np.ndarray:
        """One relevance score per candidate (higher = more relevant)."""

    def rank(self, query: PathRecord, candidates: Sequence[PathCandidate] | None = None) -> Ranking:
        """Rank `candidates` (default: the query's own paths) for `query`."""
        cands = list(query.paths if candidates is None else candidates)
        if not cands:
            return Ranking(np.zeros(0, dtype=int), np.zeros(0))
        scores = np.asarray(self.score(query, cands), dtype=float)
        if scores.shape != (len(cands),):
            raise RankerError(f"{self.name} returned {scores.shape} scores for {len(cands)} paths")
        order = np.lexsort((np.arange(len(cands)), -scores))
        return Ranking(order, scores)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


# -- untrained rankers ------------------------------------------------------------------


class RandomRanker(Ranker):
    """Uniform random scores, reproducible per (seed, query)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.name = "random"

    def score(self, query, candidates):
        rng = np.random.default_rng([self.seed, stable_seed(query.qid, query.e1, query.e2)])
        return rng.random(len(candidates))


class SimilarityRanker(Ranker):
    """Cosine similarity of MiniLM embeddings of the query and each path (App. F.1).

    `query`: ``"pair"`` ("a, b", as F.1), ``"sentence"`` or ``"both"`` ("a, b: sentence").
    Paths are verbalised as their stops ("A - B - C"), with node types when `types`.
    """

    def __init__(
        self, embedder=None, *, query: str = "pair", types: bool = False, threads: int | None = 1
    ) -> None:
        if query not in ("pair", "sentence", "both"):
            raise RankerError(f"query must be pair, sentence or both, got {query!r}")
        self.embedder = embedder
        self.query = query
        self.types = types
        self.threads = threads
        self.name = "similarity"

    def _embedder(self):
        if self.embedder is None:
            from causalqa.embed import Embedder

            self.embedder = Embedder()
        return self.embedder

    def query_text(self, query: PathRecord) -> str:
        if self.query == "pair":
            return pair_text(query)
        if self.query == "sentence":
            return query.sentence
        return f"{pair_text(query)}: {query.sentence}"

    def score(self, query, candidates):
        emb = self._embedder()
        with torch_threads(self.threads):
            q = emb.encode([self.query_text(query)])
            p = emb.encode([_path_text(c, types=self.types) for c in candidates])
        return (p @ q.T).ravel()


# -- LLM permutation ranker (RankGPT-style) --------------------------------------------

_SYSTEM = "You are an intelligent assistant that rank paths based on relevancy to entity pair."


def permutation_messages(query: PathRecord, paths: Sequence[str]) -> list[dict[str, str]]:
    """RankGPT's conversation adapted to paths (the paper's F.2 prompt); the last turn
    asks for the permutation as JSON."""
    n = len(paths)
    pair = f"({query.e1}, {query.e2})"
    msgs = [
        {"role": "system", "content": _SYSTEM},
        {
            "role": "user",
            "content": f"I will provide you with {n} paths, each indicated by number "
            f"identifier []. Rank the paths based on their usefulness in inferring causal "
            f"relationships between the pair: {pair}.",
        },
        {"role": "assistant", "content": "Okay, please provide the paths."},
    ]
    for i, text in enumerate(paths, start=1):
        msgs.append({"role": "user", "content": f"[{i}] {text}"})
        msgs.append({"role": "assistant", "content": f"Received path [{i}]."})
    msgs.append(
        {
            "role": "user",
            "content": f"pair: {pair}. Rank the {n} paths above based on their usefulness "
            f"in inferring causal relationships between entity pair. List every identifier "
            f'once, the most useful first, as JSON: {{"ranking": [identifiers]}}.',
        }
    )
    return msgs


def permutation_schema(n: int) -> dict[str, Any]:
    """JSON schema of a ranking of n identifiers (1..n); exactly n items."""
    return {
        "type": "object",
        "properties": {
            "ranking": {
                "type": "array",
                "items": {"enum": list(range(1, n + 1))},
                "minItems": n,
                "maxItems": n,
            }
        },
        "required": ["ranking"],
        "additionalProperties": False,
    }


def clean_permutation(ranking: Sequence[Any], n: int) -> list[int]:
    """RankGPT's repair: keep valid 1-based ids once, in order, then append the missing
    ones in their original order; returns 0-based indices.

    >>> clean_permutation([3, 3, 9, 1], 4)
    [2, 0, 1, 3]
    """
    seen: list[int] = []
    for x in ranking:
        try:
            i = int(x) - 1
        except (TypeError, ValueError):
            continue
        if 0 <= i < n and i not in seen:
            seen.append(i)
    return seen + [i for i in range(n) if i not in seen]


class LLMPermutationRanker(Ranker):
    """RankGPT permutation generation (App. F.2) with any causalqa LLM.

    Candidate lists longer than `window` are ranked by RankGPT's sliding window: windows of
    `window` paths with stride `step`, from the end of the list to its start, so the best
    paths bubble to the top. Scores are n − position.
    """

    def __init__(
        self,
        llm=None,
        *,
        window: int = 10,
        step: int = 5,
        max_tokens: int = 128,
        types: bool = False,
        seed: int = 0,
    ) -> None:
        if window < 2 or not 0 < step < window:
            raise RankerError("need window ≥ 2 and 0 < step < window")
        self.llm = llm
        self.window = window
        self.step = step
        self.max_tokens = max_tokens
        self.types = types
        self.seed = seed
        self.name = "llm-permutation"
        self.calls_ = 0

    def _llm(self):
        if self.llm is None:
            from causalqa.llm import get_llm

            self.llm = get_llm()
        return self.llm

    def _permute(self, query: PathRecord, texts: list[str]) -> list[int]:
        n = len(texts)
        if n == 1:
            return [0]
        response = self._llm().complete(
            permutation_messages(query, texts),
            schema=permutation_schema(n),
            max_tokens=max(self.max_tokens, 4 * n + 16),
            temperature=0.0,
            seed=self.seed,
        )
        self.calls_ += 1
        data = response.data if isinstance(response.data, dict) else {}
        return clean_permutation(data.get("ranking", []), n)

    def permutation(self, query: PathRecord, candidates: Sequence[PathCandidate]) -> list[int]:
        texts = [_path_text(c, types=self.types) for c in candidates]
        items = list(range(len(texts)))
        if len(items) <= self.window:
            return [items[i] for i in self._permute(query, texts)]
        end = len(items)
        start = end - self.window
        while True:
            start = max(start, 0)
            sub = items[start:end]
            perm = self._permute(query, [texts[i] for i in sub])
            items[start:end] = [sub[i] for i in perm]
            if start == 0:
                return items
            end -= self.step
            start -= self.step

    def score(self, query, candidates):
        order = self.permutation(query, candidates)
        scores = np.zeros(len(candidates))
        scores[order] = np.arange(len(candidates), 0, -1)
        return scores


# -- trained rankers -------------------------------------------------------------------


def _groups(records: Sequence[PathRecord]) -> list[tuple[PathRecord, np.ndarray]]:
    """Training groups: each record with its Table D2 labels (paths need a rel_score)."""
    out = []
    for r in records:
        if not r.paths:
            continue
        scores = [p.rel_score for p in r.paths]
        if any(s is None for s in scores):
            raise RankerError(
                f"{r.source or 'a record'} line {r.line}: a path has no rel_score",
                hint="train on train_full.jsonl or test_truth.jsonl records",
            )
        out.append((r, relevance_labels(scores)))
    if not out:
        raise RankerError("no training record with paths")
    return out


def _need_fit(ranker: Ranker, attr: str) -> None:
    if getattr(ranker, attr, None) is None:
        raise RankerError(f"{ranker.name} is not fitted", hint="call fit(train_records) first")


def _torch():
    try:
        import torch
    except ImportError:
        raise RankerError(
            "the trained rankers need torch", hint="pip install torch==2.13.0"
        ) from None
    return torch


@contextlib.contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run torch with `n` intra-op threads, then restore the previous setting.

    The trained rankers default to 1: their models are tiny, and on a shared 2-core
    machine torch's OpenMP workers spin-wait, so 2 threads measured 15× slower than 1.
    """
    if n is None:
        yield
        return
    torch = _torch()
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def allrank_loss(name: str, y_pred, y_true, *, levels: float = 1.0, eps: float = 1e-10):
    """allRank's losses over [batch, list] tensors; padded entries have y_true == -1.

    ``rmse``: pointwise_rmse (y_true − levels·sigmoid(y_pred), RMSE per list, mean);
    ``ranknet``: BCE-with-logits of s_i − s_j over pairs with y_i > y_j;
    ``listnet``: −Σ softmax(y_true)·log softmax(y_pred), mean over lists.
    """
    torch = _torch()
    mask = y_true == -1
    if name == "rmse":
        valid = (~mask).float()
        pred = torch.sigmoid(y_pred).masked_fill(mask, 0.0)
        true = y_true.masked_fill(mask, 0.0)
        mse = ((true - levels * pred) ** 2).sum(dim=1) / valid.sum(dim=1).clamp(min=1)
        return torch.sqrt(mse + eps).mean()
    if name == "ranknet":
        t = y_true.masked_fill(mask, float("-inf"))
        true_diff = t[:, :, None] - t[:, None, :]
        pairs = (true_diff > 0) & ~torch.isinf(true_diff)
        if not pairs.any():
            return y_pred.sum() * 0.0
        pred_diff = (y_pred[:, :, None] - y_pred[:, None, :])[pairs]
        return torch.nn.functional.binary_cross_entropy_with_logits(
            pred_diff, torch.ones_like(pred_diff)
        )
    if name == "listnet":
        p = torch.softmax(y_pred.masked_fill(mask, float("-inf")), dim=1)
        t = torch.softmax(y_true.masked_fill(mask, float("-inf")), dim=1)
        return torch.mean(-torch.sum(t * torch.log(p + eps), dim=1))
    raise RankerError(f"unknown loss {name!r}", hint=f"use one of: {', '.join(LOSSES)}")


def cross_encoder_text(
    query: PathRecord, path: PathCandidate, *, relations: bool = False, context: bool = False
) -> tuple[str, str]:
    """Eq. 5 / App. D.1 input as a (pair, path) text pair: the tokenizer joins them as
    "[CLS] a, b [SEP] typed path [SEP]". `relations` writes each hop's relation (Eq. 7);
    `context` appends the pair's sentence to the query side ("a, b: sentence")."""
    first = pair_text(query)
    if context and query.sentence.strip():
        first = f"{first}: {_sentence(query)}"
    return first, path.text(types=True, relations=relations) or _NO_PATH


_ENTITY_TAG = re.compile(r"</?e[12]>")


def _load_encoder(path: str):
    """Tokenizer and transformer (``AutoModel``) from a local folder, hub switched off."""
    return load_transformer(path, error=RankerError, name="the cross-encoder")


class CrossEncoderRanker(Ranker):
    """A fine-tuned cross-encoder (§4.3.2, App. D.1) trained with an allRank loss.

    Each (pair, path) is one sequence — "[CLS] a, b: sentence [SEP] typed path [SEP]" —
    through the transformer (default: the offline all-MiniLM-L6-v2; the paper's
    roberta-base cannot be obtained here), mean pooled, and scored by a linear head.
    Encoder and head are trained end to end with AdamW (linear warm-up and decay, gradient
    clipping) on batches of `batch_queries` whole queries, so the pairwise and listwise
    losses compare paths of one query. `context` puts the pair's sentence on the query side
    (Eq. 5 has the pair only; see the module docstring for why); `balance` weights each
    query by the inverse frequency of its gold label. Training caps for a CPU: sequences
    cut at `max_length` tokens (the longer side first); queries with more than `max_paths`
    paths keep their best `max_paths // 2` and a seeded random sample of the rest; `epochs`
    passes, at most `max_steps` steps. `relations` adds each hop's relation label to the
    path (Eq. 7); `head_lr` is the (larger) learning rate of the freshly initialised head.
    `on_step(done, total)`, when set, is called after every step. Deterministic for a given
    `seed` (and `threads`).
    """

    trained = True

    def __init__(
        self,
        loss: str = "ranknet",
        *,
        model_path=None,
        relations: bool = False,
        context: bool = True,
        balance: bool = True,
        max_length: int = 96,
        max_paths: int = 8,
        epochs: int = 1,
        max_steps: int | None = None,
        batch_queries: int = 4,
        lr: float = 1e-4,
        head_lr: float = 1e-3,
        weight_decay: float = 0.01,
        warmup: float = 0.1,
        score_batch: int = 64,
        seed: int = 0,
        threads: int | None = 1,
    ) -> None:
        if loss not in LOSSES:
            raise RankerError(f"unknown loss {loss!r}", hint=f"use one of: {', '.join(LOSSES)}")
        if max_paths < 2 or batch_queries < 1 or epochs < 1:
            raise RankerError("need max_paths ≥ 2, batch_queries ≥ 1 and epochs ≥ 1")
        self.loss = loss
        self.model_path = model_path
        self.relations = relations
        self.context = context
        self.balance = balance
        self.max_length = max_length
        self.max_paths = max_paths
        self.epochs = epochs
        self.max_steps = max_steps
        self.batch_queries = batch_queries
        self.lr = lr
        self.head_lr = head_lr
        self.weight_decay = weight_decay
        self.warmup = warmup
        self.score_batch = score_batch
        self.seed = seed
        self.threads = threads
        self.name = f"{loss}-cross-encoder"
        self.model_ = None
        self.on_step: Callable[[int, int], None] | None = None
        """Called with (steps done, total steps) during `fit`, e.g. for a progress bar."""

    def __getstate__(self) -> dict[str, Any]:
        # A progress callback is a closure of its caller: not part of a saved ranker.
        state = {**self.__dict__, "on_step": None}
        if state.get("model_") is not None:
            # The fitted transformer and head as their tensors, so a saved ranker holds
            # no code; both are rebuilt around them from the encoder folder, which also
            # gives the tokenizer (training never changes it).
            state["model_"] = dict(self.model_.state_dict())
            state["head_"] = dict(self.head_.state_dict())
            state.pop("tokenizer_", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if isinstance(state.get("model_"), dict):
            self.model_, self.head_, self.tokenizer_ = self._rebuild(
                state["model_"], state.get("head_") or {}
            )

    def _rebuild(self, weights: dict[str, Any], head_weights: dict[str, Any]):
        """The fitted (model, head, tokenizer) from their tensors: the encoder folder's
        architecture and tokenizer with the trained weights loaded into it, in eval mode."""
        torch = _torch()
        where = encoder_path(self.model_path)
        tokenizer, model = _load_encoder(where)
        head = torch.nn.Linear(model.config.hidden_size, 1)
        try:
            model.load_state_dict(weights, strict=True)
            head.load_state_dict(head_weights, strict=True)
        except (RuntimeError, TypeError) as e:  # torch's error for missing or misshapen keys
            raise RankerError(
                f"the saved {self.name} does not fit the encoder at {where}: {e}",
                hint="retrain it with the encoder it was trained with "
                "(causalqa bench discovery rankers)",
            ) from None
        model.eval()
        return model, head, tokenizer

    # -- helpers

    def _texts(self, query: PathRecord, candidates: Sequence[PathCandidate]):
        pairs = [
            cross_encoder_text(query, c, relations=self.relations, context=self.context)
            for c in candidates
        ]
        return [a for a, _ in pairs], [b for _, b in pairs]

    def _forward(self, model, head, tokenizer, query_texts, path_texts):
        enc = tokenizer(
            query_texts,
            path_texts,
            padding=True,
            truncation="longest_first",
            max_length=self.max_length,
            return_tensors="pt",
        )
        hidden = model(**enc).last_hidden_state
        return head(mean_pool(hidden, enc["attention_mask"])).squeeze(-1)

    def _capped(self, labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Indices of the paths a query trains on: all, or the best and a random rest."""
        n = len(labels)
        if n <= self.max_paths:
            return np.arange(n)
        by_label = np.argsort(-labels, kind="stable")
        top = self.max_paths // 2
        rest = rng.choice(by_label[top:], size=self.max_paths - top, replace=False)
        return np.concatenate([by_label[:top], np.sort(rest)])

    def _query_weights(self, gold: Sequence[int]) -> list[float]:
        """Each training query's weight in the loss: 1, or with `balance` the inverse of
        its gold label's frequency (both labels weigh the same in total)."""
        if not self.balance:
            return [1.0] * len(gold)
        counts = {y: sum(1 for g in gold if g == y) for y in set(gold)}
        return [len(gold) / (len(counts) * counts[g]) for g in gold]

    def _after_epoch(self, epoch: int) -> None:
        """Hook called after each training epoch (model in train mode), e.g. to trace a
        validation curve; a no-op here."""

    # -- fit / score

    def fit(self, records):
        torch = _torch()
        with torch_threads(self.threads), torch.random.fork_rng(devices=[]):
            return self._fit(records)

    def _fit(self, records):
        torch = _torch()
        groups = _groups(records)
        rng = np.random.default_rng([self.seed, stable_seed("cross-encoder-cap")])
        data = []
        for r, labels in groups:
            keep = self._capped(labels, rng)
            cands = [r.paths[i] for i in keep]
            data.append((*self._texts(r, cands), labels[keep].astype(np.float32)))
        self.levels_ = float(max(float(y.max()) for *_, y in data))
        weights = self._query_weights([r.label for r, _ in groups])
        torch.manual_seed(self.seed)
        tokenizer, model = _load_encoder(encoder_path(self.model_path))
        head = torch.nn.Linear(model.config.hidden_size, 1)
        decay = [p for n, p in model.named_parameters() if p.ndim > 1 and "LayerNorm" not in n]
        no_decay = [
            p for n, p in model.named_parameters() if not (p.ndim > 1 and "LayerNorm" not in n)
        ]
        opt = torch.optim.AdamW(
            [
                {"params": decay, "lr": self.lr, "weight_decay": self.weight_decay},
                {"params": no_decay, "lr": self.lr, "weight_decay": 0.0},
                {"params": head.parameters(), "lr": self.head_lr, "weight_decay": 0.0},
            ]
        )
        per_epoch = -(-len(data) // self.batch_queries)
        total = per_epoch * self.epochs
        if self.max_steps is not None:
            total = min(total, self.max_steps)
        warm = max(1, int(self.warmup * total))
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt,
            lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))),
        )
        gen = torch.Generator().manual_seed(self.seed)
        self.losses_: list[float] = []
        self.model_, self.head_, self.tokenizer_ = model, head, tokenizer
        model.train()

        def epoch_batches(_epoch):
            perm = torch.randperm(len(data), generator=gen).tolist()
            return (
                perm[b : b + self.batch_queries] for b in range(0, len(data), self.batch_queries)
            )

        def batch_loss(rows):
            batch = [data[i] for i in rows]
            qt = [t for q, _, _ in batch for t in q]
            pt = [t for _, p, _ in batch for t in p]
            flat = self._forward(model, head, tokenizer, qt, pt)
            width = max(len(y) for *_, y in batch)
            pred = flat.new_zeros((len(batch), width))
            true = torch.full((len(batch), width), -1.0)
            at = 0
            for g, (*_, y) in enumerate(batch):
                pred[g, : len(y)] = flat[at : at + len(y)]
                true[g, : len(y)] = torch.from_numpy(y)
                at += len(y)
            w = torch.tensor([weights[i] for i in rows])
            per_query = torch.stack(
                [
                    allrank_loss(self.loss, pred[g : g + 1], true[g : g + 1], levels=self.levels_)
                    for g in range(len(batch))
                ]
            )
            return (w * per_query).sum() / w.sum()

        def after_epoch(epoch, loss):
            self.losses_.append(loss)
            self._after_epoch(epoch)

        run = train_epochs(
            epoch_batches,
            batch_loss,
            opt,
            epochs=self.epochs,
            scheduler=sched,
            clip=[*model.parameters(), *head.parameters()],
            max_steps=total,
            on_step=self.on_step,
            on_epoch=after_epoch,
        )
        steps = run.steps
        model.eval()
        self.steps_ = steps
        return self

    def score(self, query, candidates):
        _need_fit(self, "model_")
        torch = _torch()
        qt, pt = self._texts(query, candidates)
        out = []
        with torch_threads(self.threads), torch.no_grad():
            for b in range(0, len(qt), self.score_batch):
                s = slice(b, b + self.score_batch)
                out.append(self._forward(self.model_, self.head_, self.tokenizer_, qt[s], pt[s]))
        return torch.cat(out).numpy().astype(float)


# -- XGBoost ranker with bigram-LM features ---------------------------------------------

_TOKEN = re.compile(r"\w+|[^\w\s]")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class BigramLM:
    """A neural bigram language model (App. D.2.1): embedding of the previous token → a
    softmax over the next; its embedding table gives 128-dim token vectors.

    Caps: `max_vocab` tokens (rarer ones share ``<unk>``), `epochs`, `max_steps`.
    """

    def __init__(
        self,
        dim: int = 128,
        *,
        max_vocab: int = 20000,
        epochs: int = 3,
        max_steps: int = 600,
        batch: int = 512,
        lr: float = 0.01,
        seed: int = 0,
    ) -> None:
        self.dim = dim
        self.max_vocab = max_vocab
        self.epochs = epochs
        self.max_steps = max_steps
        self.batch = batch
        self.lr = lr
        self.seed = seed

    def fit(self, corpus: Sequence[str]) -> BigramLM:
        torch = _torch()
        from collections import Counter

        seqs = [["<s>", *_tokens(t), "</s>"] for t in corpus]
        counts = Counter(tok for s in seqs for tok in s)
        vocab = ["<unk>"] + [t for t, _ in counts.most_common(self.max_vocab - 1)]
        self.index_ = {t: i for i, t in enumerate(vocab)}
        ids = [[self.index_.get(t, 0) for t in s] for s in seqs]
        prev = np.array([a for s in ids for a in s[:-1]], dtype=np.int64)
        nxt = np.array([b for s in ids for b in s[1:]], dtype=np.int64)
        torch.manual_seed(self.seed)
        emb = torch.nn.Embedding(len(vocab), self.dim)
        out = torch.nn.Linear(self.dim, len(vocab))
        opt = torch.optim.Adam([*emb.parameters(), *out.parameters()], lr=self.lr)
        p, n = torch.from_numpy(prev), torch.from_numpy(nxt)
        gen = torch.Generator().manual_seed(self.seed)

        def epoch_batches(_epoch):
            perm = torch.randperm(len(p), generator=gen)
            return (perm[b : b + self.batch] for b in range(0, len(p), self.batch))

        run = train_epochs(
            epoch_batches,
            lambda idx: torch.nn.functional.cross_entropy(out(emb(p[idx])), n[idx]),
            opt,
            epochs=self.epochs,
            max_steps=self.max_steps,
        )
        self.loss_ = run.last_loss
        self.steps_ = run.steps
        self.vectors_ = emb.weight.detach().numpy().copy()
        return self

    def embed(self, text: str) -> np.ndarray:
        """Mean embedding of the text's tokens (zeros for no token)."""
        ids = [self.index_.get(t, 0) for t in _tokens(text)]
        if not ids:
            return np.zeros(self.dim, dtype=np.float32)
        return self.vectors_[ids].mean(axis=0)


def _sentence(query: PathRecord) -> str:
    """The pair's sentence without its <e1>/<e2> tags."""
    return " ".join(_ENTITY_TAG.sub(" ", query.sentence).split())


def lm_sequence(query: PathRecord, path: PathCandidate) -> str:
    """App. D.2.1's sequence: "a - b: stop - stop - ..." (with node types where known)."""
    return f"{query.e1} - {query.e2}: {_path_text(path, types=True)}"


class XGBoostRanker(Ranker):
    """Gradient-boosted ranker over bigram-LM features (App. D.2, Table D3).

    `context` adds the mean bigram-LM embedding of the pair's sentence to every path's
    features (the same within a query, so trees can condition path features on it);
    `balance` weights each training query by the inverse frequency of its gold label —
    the cross-encoder's remedy for Eq. 1's label-dependent relevance (module docstring).
    """

    trained = True
    context = False  # class defaults: rankers saved before these options existed
    balance = False

    def __init__(
        self,
        *,
        embedder=None,
        context: bool = False,
        balance: bool = False,
        use_similarity: bool = True,
        lm_dim: int = 128,
        n_estimators: int = 200,
        max_depth: int = 4,
        learning_rate: float = 0.05,
        seed: int = 0,
        threads: int | None = 1,
    ) -> None:
        self.embedder = embedder
        self.context = context
        self.balance = balance
        self.use_similarity = use_similarity
        self.lm_dim = lm_dim
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.seed = seed
        self.threads = threads
        self.name = "xgboost"
        self.model_ = None

    def _features(self, query: PathRecord, candidates: Sequence[PathCandidate]) -> np.ndarray:
        rows = []
        for c in candidates:
            rows.append(
                np.concatenate(
                    [
                        self.lm_.embed(lm_sequence(query, c)),
                        self.lm_.embed(_path_text(c, types=True)),
                        [len(c.stops) - 1],
                    ]
                )
            )
        x = np.asarray(rows, dtype=np.float32)
        if self.context:
            sentence = self.lm_.embed(_sentence(query)).astype(np.float32)
            x = np.hstack([x, np.tile(sentence, (len(x), 1))])
        if self.use_similarity:
            if self.embedder is None:
                from causalqa.embed import Embedder

                self.embedder = Embedder()
            q = self.embedder.encode([pair_text(query)])
            p = self.embedder.encode([_path_text(c, types=False) for c in candidates])
            x = np.hstack([x, (p @ q.T).astype(np.float32)])
        return x

    def fit(self, records):
        try:
            import xgboost
        except ImportError:
            raise RankerError(
                "the XGBoost ranker needs xgboost", hint="pip install xgboost-cpu"
            ) from None
        with torch_threads(self.threads):
            return self._fit(records, xgboost)

    def _fit(self, records, xgboost):
        groups = _groups(records)
        corpus = [
            f"{r.e1} - {r.e2}: " + " ; ".join(_path_text(p, types=True) for p in r.paths)
            for r, _ in groups
        ]
        if self.context:
            corpus += [_sentence(r) for r, _ in groups]
        self.lm_ = BigramLM(self.lm_dim, seed=self.seed).fit(corpus)
        xs, ys, qids = [], [], []
        for g, (r, labels) in enumerate(groups):
            xs.append(self._features(r, r.paths))
            ys.append(labels)
            qids.append(np.full(len(r.paths), g))
        model = xgboost.XGBRanker(
            objective="rank:ndcg",
            tree_method="hist",
            lambdarank_pair_method="topk",
            lambdarank_num_pair_per_sample=8,
            n_estimators=self.n_estimators,
            max_depth=self.max_depth,
            learning_rate=self.learning_rate,
            subsample=0.8,
            colsample_bytree=0.8,
            random_state=self.seed,
            n_jobs=self.threads,
        )
        weights = None
        if self.balance:
            gold = [r.label for r, _ in groups]
            counts = {y: gold.count(y) for y in set(gold)}
            weights = np.array([len(gold) / (len(counts) * counts[y]) for y in gold])
        model.fit(
            np.vstack(xs), np.concatenate(ys), qid=np.concatenate(qids), sample_weight=weights
        )
        self.model_ = model
        return self

    def score(self, query, candidates):
        _need_fit(self, "model_")
        with torch_threads(self.threads):
            x = self._features(query, candidates)
        return self.model_.predict(x).astype(float)


# -- evaluation (Table D2) ---------------------------------------------------------------


# -- by name, and saved ------------------------------------------------------------------

RANKERS = ("none", "random", "similarity", "llm", "xgboost", "rmse", "ranknet", "listnet")
"""The built-in rankers' names ("none": no paths in the prompt); `registry.names("ranker")`
adds any a plugin registers."""
TRAINED = ("xgboost", "rmse", "ranknet", "listnet")


def ranker_file(name: str, folder: str | os.PathLike | None = None) -> Path:
    """Where a trained ranker is saved: ``<folder>/<name>.npz`` (its manifest beside it,
    ``<name>.npz.json``), by default in `config.rankers_dir()`
    (``$CAUSALQA_HOME/discovery/rankers``)."""
    return Path(folder or config.rankers_dir()) / f"{name}.npz"


def _legacy_file(name: str, folder: str | os.PathLike | None = None) -> Path:
    """Where an earlier causalqa pickled a trained ranker: ``<folder>/<name>.pkl``."""
    return ranker_file(name, folder).with_suffix(".pkl")


def _train_hint(folder: Path) -> str:
    return (
        "train one with causalqa bench discovery rankers (kept under "
        f"rankers/bench/full/<data set>/ beside {folder}) and copy it (the .npz and its "
        f".npz.json) to {folder}"
    )


def _ranker_classes(*extra: type) -> tuple[type, ...]:
    """The classes a saved ranker may hold besides scikit-learn's and XGBoost's."""
    return (XGBoostRanker, BigramLM, CrossEncoderRanker, *extra)


def save_ranker(
    ranker: Ranker, name: str | None = None, folder: str | os.PathLike | None = None
) -> Path:
    """Write a fitted ranker to ``<folder>/<name>.npz`` without pickle
    (`causalqa.evidence.artefact`: its state and arrays, a manifest with their sha256
    beside it); its embedder is dropped and re-created on use. A pickle an earlier
    causalqa wrote there is removed (it would only mislead)."""
    name = name or ranker.name.split("-")[0]
    path = ranker_file(name, folder)
    embedder = getattr(ranker, "embedder", None)
    manifest = {
        "what": "trained ranker",
        "name": name,
        "class": f"{type(ranker).__module__}.{type(ranker).__qualname__}",
        "ranker": ranker.name,
    }
    try:
        if embedder is not None:
            ranker.embedder = None
        save_state(path, ranker, manifest, trusted=_ranker_classes(type(ranker)))
    finally:
        if embedder is not None:
            ranker.embedder = embedder
    legacy = _legacy_file(name, folder)
    for old in (legacy, legacy.with_name(legacy.name + ".json")):
        old.unlink(missing_ok=True)
    return path


def load_ranker(name: str, folder: str | os.PathLike | None = None) -> Ranker:
    """A trained ranker saved by `save_ranker`, read only after its bytes match the sha256
    of its manifest and holding only the ranker classes and scikit-learn's and XGBoost's.
    A ranker an earlier causalqa pickled (``<name>.pkl``) is read only when a manifest
    beside it vouches for its bytes. `PairDiscoveryError` when there is none, or it is
    damaged, replaced or unreadable."""
    path = ranker_file(name, folder)
    legacy = _legacy_file(name, folder)
    if not path.is_file() and not legacy.is_file():
        raise PairDiscoveryError(
            f"no trained {name} ranker at {path}",
            hint=f"use --ranker similarity|random|llm, or {_train_hint(path.parent)}",
        )
    try:
        factory = registry.get("ranker", name)
    except ConfigError:
        factory = None
    plugin = (factory,) if isinstance(factory, type) and issubclass(factory, Ranker) else ()
    try:
        return load_artefact(
            path if path.is_file() else legacy,
            Ranker,
            what=f"trained {name} ranker",
            hint=f"retrain it: {_train_hint(path.parent)}",
            trusted=_ranker_classes(*plugin),
        )
    except (DataFileError, RankerError) as e:  # RankerError: its encoder is missing or other
        raise PairDiscoveryError(f"cannot load the ranker: {e.message}", hint=e.hint) from None


def get_ranker(name: str, *, llm=None, embedder=None, seed: int = 0, folder=None):
    """A ranker by name (`registry.names("ranker")`); ``"none"`` gives None (no paths in
    the prompt). A trained ranker is loaded from `folder` (see `ranker_file`)."""
    if name == "none":
        return None
    try:
        factory = registry.get("ranker", name)
    except ConfigError as e:
        raise PairDiscoveryError(e.message, hint=e.hint) from None
    if getattr(factory, "trained", False):
        return load_ranker(name, folder)
    return registry.create("ranker", name, llm=llm, embedder=embedder, seed=seed)


__getattr__ = moved_names(__name__)  # old names, for one release
