"""The shared torch training loop and loaders of `causalqa.evidence.finetune`."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from causalqa.errors import RankerError  # noqa: E402
from causalqa.evidence.finetune import (  # noqa: E402
    encoder_path,
    load_transformer,
    mean_pool,
    train_epochs,
)


def _problem():
    torch.manual_seed(0)
    x = torch.randn(20, 3)
    y = x @ torch.tensor([1.0, -2.0, 0.5])
    lin = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    return x, y, lin, opt


def test_train_epochs_learns_reports_and_stops_at_the_cap():
    x, y, lin, opt = _problem()
    steps, epochs, seen = [], [], []

    def batch_loss(rows):
        loss = ((lin(x[list(rows)]).squeeze(-1) - y[list(rows)]) ** 2).mean()
        seen.append(float(loss.detach()))
        return loss

    run = train_epochs(
        lambda e: (range(b, b + 5) for b in range(0, 20, 5)),
        batch_loss,
        opt,
        epochs=5,
        clip=list(lin.parameters()),
        max_steps=10,
        on_step=lambda done, total: steps.append((done, total)),
        on_epoch=lambda e, loss: epochs.append((e, loss)),
    )
    # 4 batches an epoch: the cap of 10 steps ends the third epoch after 2 of them
    assert run.steps == 10 and steps[0] == (1, 10) and steps[-1] == (10, 10)
    assert [e for e, _ in epochs] == [0, 1, 2] and len(run.epoch_losses) == 3
    assert run.epoch_losses[-1] < run.epoch_losses[0]
    assert run.last_loss == seen[-1] and len(seen) == 10
    assert run.epoch_losses[0] == pytest.approx(sum(seen[:4]) / 4)


def test_train_epochs_steps_the_scheduler_and_clips():
    x, y, lin, opt = _problem()
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5**s)
    run = train_epochs(
        lambda e: [range(20)],
        lambda rows: 1e6 * ((lin(x).squeeze(-1) - y) ** 2).mean(),
        opt,
        epochs=3,
        scheduler=sched,
        clip=list(lin.parameters()),
        max_norm=0.01,
    )
    assert run.steps == 3 and opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5**3)
    # with the gradient norm clipped to 0.01 and lr ≤ 0.1, weights move < 0.002 in all
    x2, y2, lin2, _ = _problem()
    with torch.no_grad():
        moved = torch.cat([(a - b).flatten() for a, b in zip(lin.parameters(), lin2.parameters())])
    assert float(moved.norm()) < 0.002


def test_an_epoch_without_batches_has_a_nan_loss():
    _, _, _, opt = _problem()
    run = train_epochs(lambda e: [], lambda b: None, opt, epochs=2)
    assert run.steps == 0 and all(math.isnan(v) for v in run.epoch_losses)


def test_mean_pool_ignores_masked_tokens():
    hidden = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]])
    mask = torch.tensor([[1, 1, 0]])
    assert mean_pool(hidden, mask).tolist() == [[2.0, 3.0]]
    assert mean_pool(hidden, torch.zeros(1, 3, dtype=torch.long)).tolist() == [[0.0, 0.0]]


def test_load_transformer_names_who_needs_it(tmp_path):
    assert encoder_path(tmp_path) == str(tmp_path)
    assert encoder_path(None)  # the embedded MiniLM's folder
    with pytest.raises(RankerError, match="cannot load the cross-encoder's transformer"):
        load_transformer(tmp_path, error=RankerError, name="the cross-encoder")
