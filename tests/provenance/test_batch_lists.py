"""A metric over predictions and labels gathered batch by batch into lists (`preds.extend(out.argmax(1).tolist())`,
then `f1_score(labels, preds)`) is a score of those rows: returned by an epoch function and used to keep the best
epoch, it chooses by them; with a labelled test folder scored after, they were a validation set."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

CODE = """import torch
from torch import nn
from torch.utils.data import DataLoader, random_split
from torchvision import datasets, transforms
from sklearn.metrics import f1_score
full = datasets.ImageFolder("songs", transform=transforms.ToTensor())
train_set, val_set = random_split(full, [800, 200])
train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
val_loader = DataLoader(val_set, batch_size=64)
model = nn.Sequential(nn.Flatten(), nn.Linear(100, 10))
opt = torch.optim.Adam(model.parameters())
crit = nn.CrossEntropyLoss()
def validate(model, loader, criterion):
    model.eval()
    total_loss, preds, labels = 0.0, [], []
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            total_loss += criterion(out, y).item()
            preds.extend(out.argmax(1).tolist())
            labels.extend(y.tolist())
    return total_loss / len(loader), f1_score(labels, preds, average="macro"), preds, labels
best_f1 = 0.0
for epoch in range(20):
    model.train()
    for x, y in train_loader:
        opt.zero_grad()
        crit(model(x), y).backward()
        opt.step()
    v_loss, v_f1, _, _ = validate(model, val_loader, crit)
    if v_f1 > best_f1:
        best_f1 = v_f1
        torch.save(model.state_dict(), "best.pth")
"""

TEST = """test_loader = DataLoader(datasets.ImageFolder("songs_test", transform=transforms.ToTensor()), batch_size=64)
model.load_state_dict(torch.load("best.pth"))
print(validate(model, test_loader, crit))"""


def rules(*cells: str) -> list[str]:
    return sorted({f.rule_id for f in analyze_sources(list(cells)).findings if f.rule_id.startswith("LEAK")})


def test_the_best_epoch_by_a_metric_over_gathered_lists_is_a_choice() -> None:
    assert rules(CODE) == ["LEAK004"]
    assert rules(CODE, TEST) == []
