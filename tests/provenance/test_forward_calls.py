"""`net.forward(x)` written out runs the network as `net(x)` does: inside a training loop it learns from the batch,
outside it predicts. Whole notebooks through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

CODE = """import pandas as pd
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset
df = pd.read_csv("churn.csv")
df["charges"] = df["charges"].fillna({fill})
X = torch.tensor(df.drop(columns="left").values, dtype=torch.float32)
y = torch.tensor(df["left"].values, dtype=torch.float32)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
class Net(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(k, 16), nn.ReLU(), nn.Linear(16, 1))
    def forward(self, x):
        return self.body(x)
net = Net(X.shape[1])
opt = torch.optim.Adam(net.parameters())
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(20):
    for xb, yb in DataLoader(TensorDataset(X_tr, y_tr), batch_size=32, shuffle=True):
        out = net.forward(xb).squeeze()
        loss = loss_fn(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
net.eval()
with torch.no_grad():
    pred = (torch.sigmoid(net.forward(X_te).squeeze()) >= 0.5).float()
print((pred == y_te).float().mean().item())"""


@pytest.mark.parametrize("fill, leaks", [('df["charges"].median()', True), ("0", False)])
def test_a_network_run_by_forward_is_trained_and_scored(fill: str, leaks: bool) -> None:
    """The median filled in over every row reaches the test rows the network, trained and scored through
    `forward`, is evaluated on; a constant fill learns nothing."""
    found = [f for f in analyze_sources([CODE.format(fill=fill)]).findings if f.rule_id == "LEAK001"]
    assert bool(found) is leaks
    assert all("`net.forward(X_te)` in cell 1 evaluates on them" in f.message for f in found)
