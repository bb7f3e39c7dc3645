"""estimate_for_cell: the contract of `%%guarded_train --estimate[=SPEC]`, with and without a spec."""

from __future__ import annotations

import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from jupyter_trainguard.estimate import EstimateUnavailable, MemoryEstimate, estimate_for_cell
from jupyter_trainguard.estimate.cell import split_spec

CELL = """
for epoch in range(3):
    for xb, yb in train_loader:
        opt.zero_grad()
        loss = criterion(net(xb), yb)
        loss.backward()
        opt.step()
"""


def _namespace(num_workers=0):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
    features, labels = torch.randn(256, 20), torch.randint(0, 3, (256,))
    return {
        "torch": torch, "nn": nn, "net": net, "helper": nn.Linear(2, 2),
        "opt": torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9), "criterion": nn.CrossEntropyLoss(),
        "features": features, "labels": labels,
        "train_loader": DataLoader(TensorDataset(features, labels), batch_size=32, shuffle=True,
                                   num_workers=num_workers),
    }


def test_spec_names_everything():
    ns = _namespace()
    spec = "model=net, batch=features[:32], target=labels[:32], optimizer=adamw, loss=criterion, device=cpu"
    result = estimate_for_cell(ns, CELL, spec)
    assert isinstance(result, MemoryEstimate), result.summary()
    assert result.device == "cpu"
    assert result.parts["batch"] == 32 * 20 * 4 + 32 * 8
    assert result.parts["optimizer_state"] >= 2 * sum(p.numel() * 4 for p in ns["net"].parameters())


def test_inferred_from_the_cell_draws_one_loader_batch_without_moving_rngs():
    ns = _namespace()
    states = torch.random.get_rng_state(), random.getstate(), np.random.get_state()[1].copy()
    result = estimate_for_cell(ns, CELL, None)
    assert isinstance(result, MemoryEstimate), result.summary()
    assert any("'net'" in n for n in result.notes) and any("train_loader" in n for n in result.notes)
    assert result.device == "cuda"
    # batch of 32 x 20 floats + 32 int64 labels, rounded to 512 B each: the loader's batch size, not the dataset
    assert result.parts["batch"] == 2560 + 512
    # SGD with momentum: one buffer per parameter (the optimizer in the namespace, not the Adam default)
    assert not any("assumed Adam" in n for n in result.notes)
    assert torch.equal(states[0], torch.random.get_rng_state()) and states[1] == random.getstate()
    assert (states[2] == np.random.get_state()[1]).all()


def test_partial_spec_infers_the_rest():
    ns = _namespace()
    ns["xb"], ns["yb"] = ns["features"][:8], ns["labels"][:8]
    result = estimate_for_cell(ns, "loss = criterion(net(xb), yb)", "batch=xb,device=cpu")
    assert isinstance(result, MemoryEstimate), result.summary()
    assert result.parts["batch"] == 8 * 20 * 4 + 8 * 8  # the target yb was found in the cell


def test_unavailable_reasons():
    ns = _namespace(num_workers=2)
    assert "worker processes" in estimate_for_cell(ns, CELL, None).reason
    assert "not defined" in estimate_for_cell(ns, CELL, "model=nothing,batch=features").reason
    assert "unknown" in estimate_for_cell(ns, CELL, "modle=net").reason
    assert "not a torch.nn.Module" in estimate_for_cell(ns, CELL, "model=features,batch=features").reason
    empty = estimate_for_cell({}, "print(1)", None)
    assert isinstance(empty, EstimateUnavailable) and "no torch.nn.Module" in empty.reason


def test_split_spec_keeps_commas_inside_brackets():
    assert split_spec("model=net, batch=data[0, :8], opt=adam") == {
        "model": "net", "batch": "data[0, :8]", "optimizer": "adam"}
