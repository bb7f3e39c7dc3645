"""One epoch function for training and evaluation (`run_epoch(model, loader, optimizer=None)`,
`run(model, loader, train=False)`): a call whose flag turns the backward pass off evaluates, it does not train, so
the validation rows are held out, and keeping the best epoch by them is a choice by those rows."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

DATA = """import torch
from torch import nn, optim
from torchvision import datasets, transforms
from torch.utils.data import DataLoader, random_split
full = datasets.ImageFolder("photos", transform=transforms.ToTensor())
n = int(0.8 * len(full))
train_ds, val_ds = random_split(full, [n, len(full) - n])
train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=32)
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 64 * 64, 5))
criterion = nn.CrossEntropyLoss()
opt = optim.Adam(model.parameters(), lr=0.001)"""

OPTIONAL = """def run_epoch(model, loader, optimizer=None):
    training = optimizer is not None
    model.train(training)
    correct = 0
    for images, labels in loader:
        out = model(images)
        loss = criterion(out, labels)
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        correct += (out.argmax(1) == labels).sum().item()
    return correct / len(loader.dataset)
best = 0.0
for epoch in range(10):
    run_epoch(model, train_loader, opt)
    acc = run_epoch(model, val_loader)
    print(epoch, acc)
{keep}"""

FLAG = """def run(model, loader, train):
    model.train() if train else model.eval()
    correct = 0
    for images, labels in loader:
        out = model(images)
        if train:
            opt.zero_grad()
            criterion(out, labels).backward()
            opt.step()
        correct += (out.argmax(1) == labels).sum().item()
    return correct / len(loader.dataset)
best = 0.0
for epoch in range(10):
    run(model, train_loader, True)
    acc = run(model, val_loader, False)
    print(epoch, acc)
{keep}"""

KEEP = """    if acc > best:
        best = acc
        torch.save(model.state_dict(), "best.pth")"""


def rules(code: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([DATA, code]).findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize("body", [OPTIONAL, FLAG], ids=["optimizer-none", "train-flag"])
def test_the_evaluation_call_of_an_epoch_function_does_not_train(body: str) -> None:
    assert "LEAK003" not in rules(body.format(keep=""))  # the validation rows are never trained on
    assert "LEAK004" not in rules(body.format(keep=""))  # scores printed, nothing kept by them
    assert "LEAK004" in rules(body.format(keep=KEEP))  # the best epoch kept by the only held-out rows


RESET = """    best = float("inf")
    if acc < best:
        best = acc
        torch.save(model.state_dict(), "best.pth")"""

RESET_PER_TRIAL = """def trial(lr):
    best = -1.0
    for epoch in range(5):
        run_epoch(model, train_loader, optim.SGD(model.parameters(), lr=lr))
        acc = run_epoch(model, val_loader)
        if acc > best:
            best = acc
            torch.save(model.state_dict(), f"best_{lr}.pth")
for lr in [0.1, 0.01]:
    trial(lr)"""


def test_a_best_reset_on_every_epoch_keeps_every_epoch_and_chooses_nothing() -> None:
    """`best` bound to a literal at the top of each pass: the comparison always holds, every epoch is saved."""
    assert "LEAK004" not in rules(OPTIONAL.format(keep=RESET))
    assert "LEAK004" in rules(OPTIONAL.format(keep=KEEP))


def test_a_best_reset_per_trial_still_keeps_the_best_epoch_of_each_trial() -> None:
    assert "LEAK004" in rules(OPTIONAL.format(keep="") + "\n" + RESET_PER_TRIAL)
