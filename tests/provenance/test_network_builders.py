"""Networks built by a function (`models.resnet50(weights=...)`, `timm.create_model`, `torch.hub.load`, a model
class's `from_pretrained`) are networks as their classes are: trained in a loop, scored outside it. Whole
notebooks through the real engine; `builds_network` on names that build one and names that do not."""

from __future__ import annotations

import pytest

from jupyter_trainguard.analysis.provenance.api import builds_network
from jupyter_trainguard.engine import analyze_sources

DATA = """import torch
import timm
from torch import nn, optim
from torchvision import datasets, models, transforms
from torch.utils.data import DataLoader, random_split
full = datasets.ImageFolder("photos", transform=transforms.ToTensor())
n = int(0.8 * len(full))
train_ds, val_ds = random_split(full, [n, len(full) - n])
train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=32)"""

TRAIN = """criterion = nn.CrossEntropyLoss()
optimizer = optim.Adam(model.parameters(), lr=0.001)
def train_epoch(model, loader):
    model.train()
    for images, labels in loader:
        optimizer.zero_grad()
        criterion(model(images), labels).backward()
        optimizer.step()
def accuracy(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for images, labels in loader:
            correct += (model(images).argmax(1) == labels).sum().item()
    return correct / len(loader.dataset)
best = 0.0
for epoch in range(10):
    train_epoch(model, train_loader)
    acc = accuracy(model, val_loader)
    if acc > best:
        best = acc
        torch.save(model.state_dict(), "best.pth")"""


@pytest.mark.parametrize("build", ['models.resnet50(weights="IMAGENET1K_V1")', "timm.create_model('resnet18')",
                                   'torch.hub.load("pytorch/vision", "resnet18")',
                                   "models.ResNet(models.resnet.BasicBlock, [2, 2, 2, 2])"])
def test_a_network_built_by_a_function_is_trained_and_scored(build: str) -> None:
    """The best epoch kept by its score on the only held-out split is a choice by those rows."""
    rep = analyze_sources([DATA, f"model = {build}\nmodel.fc = nn.Linear(512, 5)\nmodel = model.to('cpu')", TRAIN])
    assert "LEAK004" in {f.rule_id for f in rep.findings}
    kept_last = TRAIN.replace("    if acc > best:\n        best = acc\n        torch.save", "    torch.save")
    rep = analyze_sources([DATA, f"model = {build}", kept_last])
    assert "LEAK004" not in {f.rule_id for f in rep.findings}


@pytest.mark.parametrize("q, network", [
    ("torchvision.models.resnet50", True), ("torchvision.models.detection.fasterrcnn_resnet50_fpn", True),
    ("timm.create_model", True), ("torch.hub.load", True),
    ("transformers.AutoModelForSequenceClassification.from_pretrained", True),
    ("torchvision.models.ResNet50_Weights.DEFAULT.transforms", False), ("torchvision.models.list_models", False),
    ("transformers.AutoTokenizer.from_pretrained", False),
    ("transformers.TFAutoModelForSequenceClassification.from_pretrained", False), ("torch.load", False)])
def test_builds_network(q: str, network: bool) -> None:
    assert builds_network(q) is network
