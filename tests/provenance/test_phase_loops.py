"""A loop over literal words (`for phase in ['train', 'val']`) runs once per word with the word known: the loader
picked by `loaders[phase]`, and the branches `if phase == 'train':` taken or not, follow it. The pass that steps
the optimizer trains; the other predicts, and keeping the best weights by its accuracy chooses by those rows."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

LOOP = """import copy
import torch
from torch import nn
from torch.utils.data import DataLoader, random_split
from torchvision import datasets, transforms
tf = transforms.ToTensor()
train_ds = datasets.FashionMNIST('data', train=True, download=True, transform=tf)
test_ds = datasets.FashionMNIST('data', train=False, download=True, transform=tf)
fit_ds, hold_ds = random_split(train_ds, [50000, 10000])
loaders = {{'fit': DataLoader(fit_ds, batch_size=64, shuffle=True), 'check': DataLoader({checked}, batch_size=64)}}
def run(net, opt, loss_fn, epochs=5):
    best, best_state = 0.0, copy.deepcopy(net.state_dict())
    for epoch in range(epochs):
        for stage in ['fit', 'check']:
            net.train() if stage == 'fit' else net.eval()
            hits, seen = 0, 0
            for xb, yb in loaders[stage]:
                opt.zero_grad()
                with torch.set_grad_enabled(stage == 'fit'):
                    out = net(xb)
                    loss = loss_fn(out, yb)
                    if stage == 'fit':
                        loss.backward()
                        opt.step()
                hits += (out.argmax(1) == yb).sum().item()
                seen += len(yb)
            acc = hits / seen
            print(stage, acc)
            if stage == 'check' and acc > best:
                best, best_state = acc, copy.deepcopy(net.state_dict())
    net.load_state_dict(best_state)
    return net
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
net = run(net, torch.optim.SGD(net.parameters(), lr=0.1), nn.CrossEntropyLoss())"""
FINAL = """hits = 0
with torch.no_grad():
    for xb, yb in DataLoader(test_ds, batch_size=256):
        hits += (net(xb).argmax(1) == yb).sum().item()
print(hits / len(test_ds))"""


def leaks(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources(list(cells)).findings if f.rule_id.startswith("LEAK"))


def test_the_best_epoch_kept_by_the_test_set_accuracy_is_a_selection() -> None:
    assert leaks(LOOP.format(checked="test_ds")) == ["LEAK004"]


def test_the_best_epoch_kept_by_a_validation_part_carved_from_training_rows_is_clean() -> None:
    assert leaks(LOOP.format(checked="hold_ds"), FINAL) == []


def test_the_validation_part_that_kept_the_best_epoch_is_the_last_word_when_the_test_set_is_never_used() -> None:
    found = [f for f in analyze_sources([LOOP.format(checked="hold_ds")]).findings if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in found] == ["LEAK004"] and "never scored" in found[0].message


FOLDERS = """import copy
import os
import torch
from torch import nn
from torchvision import datasets, transforms
root = "data/flowers"
tfs = {x: transforms.ToTensor() for x in ["train", "val"]}
folders = {x: datasets.ImageFolder(os.path.join(root, x), tfs[x]) for x in ["train", "val"]}
loaders = {x: torch.utils.data.DataLoader(folders[x], batch_size=32, shuffle=True) for x in ["train", "val"]}
net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 5))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
best, best_state = 0.0, None
for epoch in range(5):
    for phase in ["train", "val"]:
        net.train() if phase == "train" else net.eval()
        hits = 0
        for xb, yb in loaders[phase]:
            opt.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                out = net(xb)
                loss = loss_fn(out, yb)
                if phase == "train":
                    loss.backward()
                    opt.step()
            hits += (out.argmax(1) == yb).sum().item()
        acc = hits / len(folders[phase])
        if phase == "val" and acc > best:
            best, best_state = acc, copy.deepcopy(net.state_dict())
print("best val acc", best)"""


def test_folders_made_by_a_dict_comprehension_over_words_are_one_folder_each() -> None:
    """`{x: ImageFolder(os.path.join(root, x)) for x in ['train', 'val']}`: the `train` and `val` folders are other
    images (not the same rows scored as their own training rows), and the best epoch kept by the `val` folder,
    the only held-out images, is a choice by them."""
    assert leaks(FOLDERS) == ["LEAK004"]
