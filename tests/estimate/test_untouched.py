"""Estimating never changes the user's model, optimizer, batch or RNG, and allocates nothing model-sized."""

from __future__ import annotations

import copy
import resource

import torch
from torch import nn

from jupyter_trainguard.estimate import MemoryEstimate, estimate_training_step

from .conftest import MODELS


def _snapshot(model):
    return {k: (v.detach().clone(), v.data_ptr()) for k, v in model.state_dict(keep_vars=True).items()}


def test_model_and_fresh_optimizer_unchanged():
    model, x, y = MODELS["bn_dropout"]()
    model.eval()
    opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    before, x_before = _snapshot(model), x.clone()
    rng = torch.random.get_rng_state()
    estimate = estimate_training_step(model, x, target=y, optimizer=opt, device="cuda")
    assert isinstance(estimate, MemoryEstimate), estimate.summary()
    after = _snapshot(model)
    assert before.keys() == after.keys()
    for key, (value, ptr) in before.items():
        assert torch.equal(value, after[key][0]) and ptr == after[key][1], key
    assert all(p.grad is None for p in model.parameters())
    assert len(opt.state) == 0 and opt.param_groups[0]["foreach"] is None and opt.param_groups[0]["lr"] == 0.01
    assert all(p is q for p, q in zip(opt.param_groups[0]["params"], model.parameters()))
    assert not model.training  # the copy was put in train mode, not the user's model
    assert torch.equal(x, x_before) and torch.equal(rng, torch.random.get_rng_state())


def test_optimizer_with_state_is_copied_not_stepped():
    model, x, y = MODELS["mlp"]()
    opt = torch.optim.Adam(model.parameters())
    nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    state = copy.deepcopy(opt.state_dict())
    estimate = estimate_training_step(model, x, target=y, optimizer=opt, device="cpu")
    assert isinstance(estimate, MemoryEstimate)
    now = opt.state_dict()
    for index, entries in state["state"].items():
        for key, value in entries.items():
            assert torch.equal(value, now["state"][index][key]), key
    # the estimate starts from the existing state, so it is already counted
    assert estimate.parts["optimizer_state"] >= 2 * sum(p.numel() * 4 for p in model.parameters())


def test_large_model_does_not_allocate_its_size():
    # 2048 x 2048 x 16 floats = 256 MiB of weights on the meta device: nothing real exists to copy, and the
    # estimate (weights + grads + Adam state, > 1 GiB) must not grow the process by anything like that.
    with torch.device("meta"):
        model = nn.Sequential(*[nn.Linear(2048, 2048, bias=False) for _ in range(16)])
    x = torch.randn(8, 2048)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    estimate = estimate_training_step(model, x, device="cuda")
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    assert isinstance(estimate, MemoryEstimate), estimate.summary()
    assert estimate.parts["weights"] == 16 * 2048 * 2048 * 4
    assert estimate.total_bytes > 4 * 16 * 2048 * 2048 * 4
    assert grown_kib < 100 * 1024
