"""A network built once before a fold loop and fitted in it keeps its weights from fold to fold: each later fold is
scored on rows the earlier folds trained on. Built (or reset) inside the loop, or a scikit-learn estimator whose
`fit` starts again, it is clean."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

KERAS = """import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold, train_test_split
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Dense
df = pd.read_csv("signals.csv")
X, y = df.drop(columns="label").values, df["label"].values
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
def build():
    net = Sequential([Dense(16, activation="relu"), Dense(1, activation="sigmoid")])
    net.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    return net
{before}
for tr, va in StratifiedKFold(n_splits=5, shuffle=True, random_state=0).split(X_train, y_train):
{inside}    model.fit(X_train[tr], y_train[tr], epochs=10, validation_data=(X_train[va], y_train[va]))
    print("fold accuracy", model.evaluate(X_train[va], y_train[va])[1])
print("test accuracy", model.evaluate(X_test, y_test)[1])"""


def leaks(code: str) -> list:
    return [f for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")]


def test_a_network_built_before_the_fold_loop_is_scored_on_folds_it_trained_on() -> None:
    (leak,) = leaks(KERAS.format(before="model = build()", inside=""))
    assert leak.rule_id == "LEAK003" and leak.severity == "error" and leak.location.line == 16
    assert "built once, before the fold loop" in leak.message and "StratifiedKFold" in leak.message
    assert leak.evidence["folds"]["code"].startswith("StratifiedKFold")


@pytest.mark.parametrize("before, inside", [
    ("", "    model = build()\n"),  # built by a function called in the loop
    ("", "    model = Sequential([Dense(1)])\n    model.compile(optimizer='adam', loss='mse')\n"),  # built in the loop
    ("model = build()\nstart = model.get_weights()", "    model.set_weights(start)\n"),  # reset each fold
])
def test_a_network_built_or_reset_in_the_loop_starts_each_fold_afresh(before: str, inside: str) -> None:
    assert leaks(KERAS.format(before=before, inside=inside)) == []


SKLEARN = """import pandas as pd
from sklearn.model_selection import KFold
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import accuracy_score
df = pd.read_csv("rows.csv")
X, y = df[["a", "b"]].values, df["y"].values
clf = SGDClassifier({settings})
for tr, va in KFold(n_splits=5).split(X):
    clf.{fit}(X[tr], y[tr]{classes})
    print(accuracy_score(y[va], clf.predict(X[va])))"""


def test_scikit_learn_fit_starts_again_but_warm_start_and_partial_fit_carry_on() -> None:
    assert leaks(SKLEARN.format(settings="", fit="fit", classes="")) == []
    assert [f.rule_id for f in leaks(SKLEARN.format(settings="warm_start=True", fit="fit", classes=""))] == \
        ["LEAK003"]
    assert [f.rule_id for f in leaks(SKLEARN.format(settings="", fit="partial_fit", classes=", classes=[0, 1]"))] \
        == ["LEAK003"]


TORCH = """import torch
import pandas as pd
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, Subset, SubsetRandomSampler
from sklearn.model_selection import KFold
df = pd.read_csv("rows.csv")
ds = TensorDataset(torch.tensor(df[["a", "b"]].values), torch.tensor(df["y"].values))
{before}
for tr, va in KFold(n_splits=5, shuffle=True).split(range(len(ds))):
{inside}    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for xb, yb in {loader}:
        loss = nn.functional.mse_loss(net(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        xv, yv = ds[va]
        print("fold mse", nn.functional.mse_loss(net(xv), yv).item())"""


@pytest.mark.parametrize("loader", [
    "DataLoader(Subset(ds, tr), batch_size=32)",  # the fold's rows, as `ds[tr]` holds them
    "DataLoader(ds, batch_size=32, sampler=SubsetRandomSampler(tr))",  # a sampler stands for its indices
])
def test_a_torch_network_trained_over_the_folds_without_a_new_one(loader: str) -> None:
    assert [f.rule_id for f in leaks(TORCH.format(before="net = nn.Linear(2, 1)", inside="", loader=loader))] == \
        ["LEAK003"]
    assert leaks(TORCH.format(before="", inside="    net = nn.Linear(2, 1)\n", loader=loader)) == []


NESTED = """import numpy as np
from sklearn.model_selection import KFold
from tensorflow.keras.layers import Dense, Input
from tensorflow.keras.models import Model
X, y = np.load("x.npy"), np.load("y.npy")
def build(width):
    inputs = Input(shape=(width,))
    net = Model(inputs, Dense(1)(inputs))
    net.compile(optimizer="adam", loss="mse")
    return net
def cross_validate(rate):
    scores = []
{before}    for tr, va in KFold(n_splits=5, shuffle=True, random_state=0).split(X):
{inside}        model.fit(X[tr], y[tr], epochs=10)
        scores.append(model.evaluate(X[va], y[va]))
    return np.mean(scores)
print(cross_validate(0.1))"""


def test_a_builder_called_in_a_fold_loop_inside_a_function_builds_afresh() -> None:
    """The builder runs inside a notebook function's loop: each fold gets a new network, called from the cells
    through another function or not."""
    assert not leaks(NESTED.format(before="", inside="        model = build(X.shape[1])\n"))
    (leak,) = leaks(NESTED.format(before="    model = build(X.shape[1])\n", inside=""))
    assert leak.rule_id == "LEAK003" and "built once, before the fold loop" in leak.message
