"""What the torch training code of discovery and deduction shares.

`encoder_path` (a model folder, default the embedded all-MiniLM-L6-v2), `load_transformer`
(tokenizer and model from a local folder, hub off, an engine's own error when it cannot),
`mean_pool` (attention-masked mean of token states) and `train_epochs`, the loop every
fit runs: per batch zero the gradients, backward, clip, optimizer and scheduler step,
report progress, stop at a step cap; per epoch the mean loss. Batching, shuffling and
losses stay with each model: they differ, and a fixed seed must give the same weights.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from causalqa.errors import CausalQAError


def encoder_path(path: str | os.PathLike[str] | None) -> str:
    """`path` as a string, or the embedded all-MiniLM-L6-v2's folder when None."""
    if path is not None:
        return str(path)
    from causalqa.embed import default_model_path

    return str(default_model_path())


@contextlib.contextmanager
def _quiet_transformers(hf_logging) -> Iterator[None]:
    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def load_transformer(
    path: str | os.PathLike[str],
    *,
    error: type[CausalQAError],
    name: str,
    model_class: str = "AutoModel",
    **kwargs: Any,
):
    """(tokenizer, model) from the local folder `path` — transformers' `model_class`
    (``AutoModel``, ``AutoModelForSequenceClassification``, …) with `kwargs` — with the
    hub switched off and transformers' logging quiet while loading. Without transformers,
    or when the folder cannot be read, raises `error` naming `name` (who needs it)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import transformers
        from transformers.utils import logging as hf_logging
    except ImportError:
        raise error(f"{name} needs transformers", hint="pip install 'causalqa[embed]'") from None
    with _quiet_transformers(hf_logging):
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            model = getattr(transformers, model_class).from_pretrained(
                str(path), local_files_only=True, **kwargs
            )
        except (OSError, ValueError) as e:
            raise error(f"cannot load {name}'s transformer from {path}: {e}") from e
    return tokenizer, model


def mean_pool(hidden, attention_mask):
    """Mean of `hidden` (batch × tokens × dim) over the tokens `attention_mask` keeps."""
    mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


@dataclass
class TrainingRun:
    """What `train_epochs` did: `steps` taken, `epoch_losses` (mean loss per epoch run,
    NaN for an epoch without a batch) and `last_loss` (of the last step)."""

    steps: int = 0
    epoch_losses: list[float] = field(default_factory=list)
    last_loss: float = math.nan


def train_epochs(
    batches: Callable[[int], Iterable[Any]],
    batch_loss: Callable[[Any], Any],
    optimizer,
    *,
    epochs: int,
    scheduler=None,
    clip: Sequence[Any] | None = None,
    max_norm: float = 1.0,
    max_steps: int | None = None,
    on_step: Callable[[int, int | None], None] | None = None,
    on_epoch: Callable[[int, float], None] | None = None,
) -> TrainingRun:
    """Run `epochs` passes of gradient descent and return a `TrainingRun`.

    ``batches(epoch)`` gives the epoch's batches (shuffled as the model likes);
    ``batch_loss(batch)`` the loss tensor of one. Per batch: zero the gradients,
    backward, clip the gradient norm of the `clip` parameters to `max_norm` (when given),
    step the optimizer and the `scheduler` (when given), then ``on_step(steps done,
    max_steps)``. Training stops after `max_steps` steps. After each epoch,
    ``on_epoch(epoch, mean loss)``.
    """
    import numpy as np
    import torch

    run = TrainingRun()
    for epoch in range(epochs):
        losses: list[float] = []
        for batch in batches(epoch):
            loss = batch_loss(batch)
            optimizer.zero_grad()
            loss.backward()
            if clip is not None:
                torch.nn.utils.clip_grad_norm_(clip, max_norm)
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            run.last_loss = float(loss.detach())
            losses.append(run.last_loss)
            run.steps += 1
            if on_step is not None:
                on_step(run.steps, max_steps)
            if max_steps is not None and run.steps >= max_steps:
                break
        mean = float(np.mean(losses)) if losses else math.nan
        run.epoch_losses.append(mean)
        if on_epoch is not None:
            on_epoch(epoch, mean)
        if max_steps is not None and run.steps >= max_steps:
            break
    return run
