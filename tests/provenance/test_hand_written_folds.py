"""A k-fold written by hand (`x[i * n:(i + 1) * n]` held out, `x[:i * n]` and `x[(i + 1) * n:]` around it, in a
loop over the folds) selects each pass's fold and the rows around it: disjoint, as `KFold` folds are. Statistics
learned from the whole training split before any hand-written cross-validation reach its held-out folds only
(the validation finding, as for `cross_val_score`); batches sliced by a counter still sweep every row."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split, KFold
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import Ridge, SGDRegressor
df = pd.read_csv("houses.csv")
X, y = df.drop(columns="price").values, df["price"].values
Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)"""

SCALED = """sc = StandardScaler().fit(Xtr)
Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)"""

MANUAL = """k = 4
n = len(Xtr) // k
for i in range(k):
    xv, yv = Xtr[i * n:(i + 1) * n], ytr[i * n:(i + 1) * n]
    xp = np.concatenate([Xtr[:i * n], Xtr[(i + 1) * n:]])
    yp = np.concatenate([ytr[:i * n], ytr[(i + 1) * n:]])
    m = Ridge().fit(xp, yp)
    print(m.score(xv, yv))
print(Ridge().fit(Xtr, ytr).score(Xte, yte))"""

KFOLD = """for tr, va in KFold(4).split(Xtr):
    m = Ridge().fit(Xtr[tr], ytr[tr])
    print(m.score(Xtr[va], ytr[va]))
print(Ridge().fit(Xtr, ytr).score(Xte, yte))"""


def found(*cells: str) -> list[tuple[str, str]]:
    return sorted((f.rule_id, f.category) for f in analyze_sources([HEAD, *cells]).findings
                  if f.rule_id.startswith("LEAK"))


def test_the_held_out_fold_is_not_the_rows_around_it() -> None:
    assert found(MANUAL) == []


@pytest.mark.parametrize("folds", [MANUAL, KFOLD], ids=["slices", "kfold"])
def test_statistics_of_the_training_split_reach_hand_written_folds_only(folds: str) -> None:
    assert found(SCALED, folds) == [("LEAK008", "leakage.validation")]


def test_batches_sliced_by_a_counter_sweep_every_row() -> None:
    """Trained batch by batch on every training row, then scored on the first thousand of them."""
    batches = """m = SGDRegressor()
bs = 64
for i in range(len(Xtr) // bs):
    m.partial_fit(Xtr[i * bs:(i + 1) * bs], ytr[i * bs:(i + 1) * bs])
print(m.score(Xtr[:1000], ytr[:1000]))"""
    assert found(batches) == [("LEAK003", "leakage.overlap")]
