"""A torchvision dataset built without `train=`/`split=` is its training part (`MNIST(root)` is
`MNIST(root, train=True)`): a network trained on it and scored on `MNIST(root, train=False)` is scored on rows it
never saw. Said positionally (`MNIST(root, False)`, `SVHN(root, "test")`) the part is read the same way."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

CODE = """import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
train_set = datasets.{cls}("data", {train_args}transform=transforms.ToTensor(), download=True)
test_set = datasets.{cls}("data", {test_args}transform=transforms.ToTensor(), download=True)
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
test_loader = DataLoader(test_set, batch_size=256)
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    model.train()
    for x, y in train_loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
model.eval()
correct = 0
with torch.no_grad():
    for x, y in test_loader:
        correct += (model(x).argmax(1) == y).sum().item()
print("test accuracy", correct / len(test_set))"""


def rules(code: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK"))


@pytest.mark.parametrize("cls, train_args, test_args", [
    ("MNIST", "", "train=False, "),
    ("FashionMNIST", "", "False, "),
    ("CIFAR10", "True, ", "train=False, "),
    ("SVHN", "", '"test", '),
    ("SVHN", 'split="train", ', 'split="test", '),
])
def test_the_default_part_is_the_training_part(cls: str, train_args: str, test_args: str) -> None:
    assert rules(CODE.format(cls=cls, train_args=train_args, test_args=test_args)) == []


@pytest.mark.parametrize("train_args, test_args", [("train=False, ", "train=False, "), ("", "")])
def test_the_same_part_on_both_sides_is_scored_on_its_training_rows(train_args: str, test_args: str) -> None:
    assert rules(CODE.format(cls="MNIST", train_args=train_args, test_args=test_args)) == ["LEAK007"]
