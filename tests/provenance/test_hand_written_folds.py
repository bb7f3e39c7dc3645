"""A k-fold written by hand (`x[i * n:(i + 1) * n]` held out, `x[:i * n]` and `x[(i + 1) * n:]` around it, in a
loop over the folds) selects each pass's fold and the rows around it: disjoint, as `KFold` folds are. Statistics
learned from the whole training split before any hand-written cross-validation reach its held-out folds only
(the validation finding, as for `cross_val_score`); batches sliced by a counter still sweep every row. Shuffled
positions cut the same way (`idx[i * n:(i + 1) * n]`), or split into parts (`np.array_split(idx, k)`) whose part
`folds[i]` is held out and the rest (`np.setdiff1d(idx, folds[i])`, the other parts) trains, are folds too."""

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


PERMUTED = """idx = np.random.permutation(len(Xtr))
n = len(Xtr) // 4
for i in range(4):
    va = idx[i * n:(i + 1) * n]
    tr = np.concatenate([idx[:i * n], idx[(i + 1) * n:]])
    m = Ridge().fit(Xtr[tr], ytr[tr])
    print(m.score(Xtr[va], ytr[va]))"""

SETDIFF = """idx = np.random.permutation(len(Xtr))
folds = np.array_split(idx, 4)
for i in range(4):
    va = folds[i]
    tr = np.setdiff1d(idx, va)
    m = Ridge().fit(Xtr[tr], ytr[tr])
    print(m.score(Xtr[va], ytr[va]))"""

OTHER_PARTS = """folds = np.array_split(np.arange(len(Xtr)), 4)
for i in range(4):
    tr = np.concatenate([folds[j] for j in range(4) if j != i])
    m = Ridge().fit(Xtr[tr], ytr[tr])
    print(m.score(Xtr[folds[i]], ytr[folds[i]]))"""

SLICED_PARTS = """folds = np.array_split(np.random.permutation(len(Xtr)), 4)
for i in range(4):
    tr = np.concatenate(folds[:i] + folds[i + 1:])
    m = Ridge().fit(Xtr[tr], ytr[tr])
    print(m.score(Xtr[folds[i]], ytr[folds[i]]))"""

OVER_PARTS = """idx = np.arange(len(Xtr))
folds = np.array_split(np.random.permutation(len(Xtr)), 5)
for i, va in enumerate(folds):
    tr = np.setdiff1d(idx, va)
    m = Ridge().fit(Xtr[tr], ytr[tr])
    print(m.score(Xtr[va], ytr[va]))"""

HAND_FOLDS = [PERMUTED, SETDIFF, OTHER_PARTS, SLICED_PARTS, OVER_PARTS]
FOLD_IDS = ["cut-positions", "setdiff", "other-parts", "sliced-parts", "over-parts"]


@pytest.mark.parametrize("folds", HAND_FOLDS, ids=FOLD_IDS)
def test_shuffled_positions_cut_into_folds_hold_each_fold_out(folds: str) -> None:
    assert found(folds) == []


@pytest.mark.parametrize("folds", HAND_FOLDS, ids=FOLD_IDS)
def test_a_model_fitted_on_every_training_row_is_still_scored_on_rows_it_saw(folds: str) -> None:
    """The same loops with the fold's model replaced by one fitted on the whole training split first."""
    refit = folds.replace("    m = Ridge().fit(Xtr[tr], ytr[tr])\n", "")
    assert found("m = Ridge().fit(Xtr, ytr)", refit) == [("LEAK003", "leakage.overlap")]


@pytest.mark.parametrize("folds", HAND_FOLDS, ids=FOLD_IDS)
def test_statistics_of_the_training_split_reach_shuffled_hand_written_folds(folds: str) -> None:
    assert found(SCALED, folds) == [("LEAK008", "leakage.validation")]


def test_parts_taken_by_a_literal_index_are_one_split() -> None:
    """Three parts of shuffled positions: trained on the first, checked on the second, then refitted on both and
    scored on the third (clean) and on the second again (it trained on it)."""
    parts = """tr, va, te = np.array_split(np.random.permutation(len(X)), 3)
m = Ridge().fit(X[tr], y[tr])
print(m.score(X[va], y[va]))
both = np.concatenate([tr, va])
m = Ridge().fit(X[both], y[both])
print(m.score(X[te], y[te]))"""
    assert found(parts) == []
    assert found(parts + "\nprint(m.score(X[va], y[va]))") == [("LEAK003", "leakage.overlap")]


def test_a_comprehension_over_position_parts_reads_them_as_folds() -> None:
    """`[len(f) for f in folds]` iterates the parts (index values, not lists): the strict interpreter, which raises
    what the scan would swallow, runs through it, and the folds after it are still folds."""
    from jupyter_trainguard.analysis.parsed import ParsedNotebook
    from jupyter_trainguard.analysis.provenance.interpreter import Interpreter
    from jupyter_trainguard.notebook.load import notebook_from_sources

    sizes = "print([len(f) for f in np.array_split(np.random.permutation(len(Xtr)), 4)])"
    sources = [HEAD, sizes, SETDIFF]
    Interpreter(ParsedNotebook.from_notebook(notebook_from_sources("<test>", sources)), strict=True).run()
    assert found(sizes, SETDIFF) == []
