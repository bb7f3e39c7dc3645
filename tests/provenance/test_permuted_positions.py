"""Hand-made random splits: shuffled row positions (`np.random.permutation(len(df))`, `torch.randperm(n)`,
`list(range(n))` shuffled in place) cut in two select disjoint parts of the rows, as `train_test_split` does; the
same cut of positions in order is an ordered split."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

FRAME = """import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.metrics import mean_squared_error
df = pd.read_csv('calls.csv')
{prep}
def split_train_test(data, ratio):
    idx = {perm}
    n = int(len(data) * ratio)
    return data.iloc[idx[n:]], data.iloc[idx[:n]]
train, test = split_train_test(df, 0.2)"""
SCORE = ("{m} = {cls}().fit(train[['x']], train['y'])\n"
         "print(mean_squared_error({part}['y'], {m}.predict({part}[['x']])))")

LOADERS = """import numpy as np
import torch
from torch.utils.data import DataLoader, SubsetRandomSampler
from torchvision import datasets
ds = datasets.ImageFolder('imgs')
indices = list(range(len(ds)))
{shuffle}
split = int(0.2 * len(ds))
train_idx, val_idx = indices[split:], indices[:split]
train_loader = DataLoader(ds, batch_size=32, sampler=SubsetRandomSampler(train_idx))
val_loader = DataLoader(ds, batch_size=32, sampler=SubsetRandomSampler(val_idx))
net = torch.nn.Linear(10, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for xb, yb in train_loader:
    opt.zero_grad()
    torch.nn.functional.cross_entropy(net(xb), yb).backward()
    opt.step()
correct = 0
for xb, yb in {scored}:
    correct += (net(xb).argmax(1) == yb).sum().item()
print(correct)"""


def leaks(cells: list[str]) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources(cells).findings if f.rule_id.startswith("LEAK"))


@pytest.mark.parametrize("perm", ["np.random.permutation(len(data))", "np.random.default_rng(0).permutation(len(data))",
                                  "torch.randperm(len(data)).numpy()"])
def test_a_permutation_cut_in_two_is_a_split(perm: str) -> None:
    head = FRAME.format(prep="", perm=perm).replace("import numpy as np", "import numpy as np\nimport torch")
    one = SCORE.format(m="a", cls="LinearRegression", part="test")
    two = SCORE.format(m="b", cls="Ridge", part="test")
    assert leaks([head, one]) == []
    assert leaks([head, one, two]) == ["LEAK005"]  # two models compared on the same random test part
    assert leaks([head, SCORE.format(m="a", cls="LinearRegression", part="train")]) == ["LEAK007"]


def test_statistics_of_all_rows_reach_the_permuted_test_part() -> None:
    head = FRAME.format(prep="df['x'] = StandardScaler().fit_transform(df[['x']])",
                        perm="np.random.permutation(len(data))")
    assert leaks([head, SCORE.format(m="a", cls="LinearRegression", part="test")]) == ["LEAK001"]


@pytest.mark.parametrize("shuffle", ["np.random.shuffle(indices)", ""])
def test_loaders_over_two_cuts_of_positions_hold_disjoint_rows(shuffle: str) -> None:
    assert leaks([LOADERS.format(shuffle=shuffle, scored="val_loader")]) == []
    assert leaks([LOADERS.format(shuffle=shuffle, scored="train_loader")]) == ["LEAK007"]


DRAWN = """import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
df = pd.read_csv("patients.csv")
X, y = df.drop(columns="sick").values, df["sick"].values
n = len(X)
test_idx = np.random.choice(n, size=n // 5, replace=False)
{rest}
m = LogisticRegression().fit(X[train_idx], y[train_idx])
print(accuracy_score(y[test_idx], m.predict(X[test_idx])))"""


@pytest.mark.parametrize("rest, found", [
    ("train_idx = np.setdiff1d(np.arange(n), test_idx)", []),
    ("train_idx = [i for i in range(n) if i not in test_idx]", []),
    ("train_idx = np.arange(n)", ["LEAK003"]),
    ("train_idx = [i for i in range(n) if i in test_idx]", ["LEAK007"]),
], ids=["setdiff1d", "not-in", "every-row", "in"])
def test_positions_drawn_without_repeats_and_the_positions_they_leave(rest: str, found: list) -> None:
    """`np.random.choice(n, k, replace=False)` draws a random subset of the row positions; the positions outside it
    (`np.setdiff1d(np.arange(n), idx)`, `[i for i in range(n) if i not in idx]`) are the other rows."""
    code = DRAWN.replace("{rest}", rest)
    assert sorted(f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")) == found
