"""A network's weights stand for the trained network: saved (`torch.save(net.state_dict(), p)`, `save_weights`),
copied (`shutil.copy`) and loaded into a fresh network (`load_state_dict(torch.load(p))`, `load_weights`), they
make it the network they came from. A best checkpoint chosen on a validation part and reloaded to score a labelled
test folder is honest; the same choice with nothing scored after it makes the validation part the test set."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

TORCH_HEAD = """import shutil
import torch
from torch import nn
from torch.utils.data import DataLoader, random_split
from torchvision import datasets, transforms
train_full = {train}
test_ds = {test}
train_ds, val_ds = random_split(train_full, [900, 100])
train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=32)
test_loader = DataLoader(test_ds, batch_size=32)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)
    def forward(self, x):
        return self.fc(x.flatten(1))
model = Net()
opt = torch.optim.Adam(model.parameters())
loss_fn = nn.CrossEntropyLoss()"""

TRAIN = """best = 0
for epoch in range(10):
    model.train()
    for x, y in train_loader:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.size(0)
    if correct / total > best:
        best = correct / total
        torch.save(model.state_dict(), "/tmp/best.pth")
shutil.copy("/tmp/best.pth", "best.pth")"""

TEST = """final = Net()
final.load_state_dict(torch.load("best.pth"))
final.eval()
correct = total = 0
with torch.no_grad():
    for x, y in test_loader:
        correct += (final(x).argmax(1) == y).sum().item()
        total += y.size(0)
print("test accuracy", correct / total)"""

FOLDERS = {"train": 'datasets.ImageFolder("data/train", transform=transforms.ToTensor())',
           "test": 'datasets.ImageFolder("data/test", transform=transforms.ToTensor())'}
OWN_CLASS = {"train": 'Folder("data/train")', "test": 'Folder("data/test")'}
FOLDER_CLASS = """import os
from torch.utils.data import Dataset
class Folder(Dataset):
    def __init__(self, root):
        self.files = sorted(os.listdir(root))
    def __len__(self):
        return len(self.files)
    def __getitem__(self, i):
        return torch.load(self.files[i])"""


def rules(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources(list(cells)).findings if f.rule_id.startswith("LEAK"))


@pytest.mark.parametrize("reads, head", [(FOLDERS, ""), (OWN_CLASS, FOLDER_CLASS)])
def test_a_best_checkpoint_reloaded_to_score_a_test_folder_is_honest(reads: dict, head: str) -> None:
    """The test folder, read apart (by torchvision or by a Dataset class of the notebook's own) and scored by the
    reloaded best network, is the test set: choosing the checkpoint on the validation part is fine."""
    setup = (head + "\n" if head else "import torch\n") + TORCH_HEAD.format(**reads)
    assert rules(setup, TRAIN, TEST) == []
    assert rules(setup, TRAIN) == ["LEAK004"]  # nothing scored after it: the validation part is the test set


def test_weights_loaded_into_another_network_carry_its_training_rows() -> None:
    setup = TORCH_HEAD.format(**FOLDERS)
    copied = ("clone = Net()\nclone.load_state_dict(model.state_dict())\nclone.eval()\n"
              "correct = 0\nfor x, y in train_loader:\n    correct += (clone(x).argmax(1) == y).sum().item()\n"
              "print('accuracy', correct / 900)")
    assert "LEAK007" in rules(setup, TRAIN, copied)
    fresh = copied.replace("clone.load_state_dict(model.state_dict())\n", "")
    assert "LEAK007" not in rules(setup, TRAIN, fresh)  # an untrained network scores nothing it learned


KERAS = """import numpy as np
from sklearn.model_selection import train_test_split
from tensorflow import keras
X, y = np.load("x.npy"), np.load("y.npy")
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
def build():
    net = keras.Sequential([keras.layers.Dense(8), keras.layers.Dense(1, activation="sigmoid")])
    net.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    return net
model = build()
model.fit(X_train, y_train, epochs=5)
model.save_weights("weights.h5")
other = build()
other.load_weights("weights.h5")
print(other.evaluate({scored}))"""


def test_keras_weights_saved_and_loaded_by_path() -> None:
    assert "LEAK007" in rules(KERAS.format(scored="X_train, y_train"))
    assert rules(KERAS.format(scored="X_test, y_test")) == []


def test_weights_restored_from_a_snapshot_taken_before_training_reset_the_network() -> None:
    """`init = copy of net.state_dict()` before any training, restored after a first run on every row: the network
    starts again, so its later training on the training part alone is what the test score measures."""
    setup = TORCH_HEAD.format(**FOLDERS)
    everything = ("init = model.state_dict()\nfull_loader = DataLoader(train_full, batch_size=32)\n"
                  "for x, y in full_loader:\n    opt.zero_grad()\n    loss_fn(model(x), y).backward()\n"
                  "    opt.step()\n")
    scored = ("model.eval()\ncorrect = 0\nwith torch.no_grad():\n    for x, y in val_loader:\n"
              "        correct += (model(x).argmax(1) == y).sum().item()\nprint('accuracy', correct / 100)")
    again = ("model.train()\nfor x, y in train_loader:\n    opt.zero_grad()\n    loss_fn(model(x), y).backward()\n"
             "    opt.step()\n")
    assert "LEAK003" in rules(setup, everything, again, scored)  # it goes on from what every row taught it
    assert rules(setup, everything, "model.load_state_dict(init)\n" + again, scored) == []
