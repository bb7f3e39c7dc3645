"""Arrays laid out with one sample per column (`X = data.T`, shape (features, samples)): a column slice picks
samples, so `X[:, :n]` and `X[:, n:]` are two disjoint parts of the rows, a permutation of the columns shuffles
the samples, and `.T` turns a part back for scikit-learn.

Whole notebooks run through the real engine."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

CODE = """import numpy as np
import pandas as pd
from sklearn.svm import SVC
from sklearn.preprocessing import StandardScaler
trips = pd.read_csv('trips.csv')
late = trips.pop('late').values.reshape(1, -1)
{prep}data = trips.values.T
def cut_samples(X, Y, n, seed=0):
    np.random.seed(seed)
    perm = list(np.random.permutation(X.shape[1]))
    X, Y = X[:, perm], Y[:, perm]
    return X[:, :n], Y[:, :n], X[:, n:], Y[:, n:]
X_fit, Y_fit, X_dev, Y_dev = cut_samples(data, late, 700)
svc = SVC().fit(X_fit.T, Y_fit.ravel())
print(svc.score(X_dev.T, Y_dev.ravel()))"""


def _leaks(prep: str = "") -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([CODE.format(prep=prep)]).findings
                  if f.rule_id.startswith("LEAK"))


def test_two_column_parts_of_samples_laid_out_as_columns_are_disjoint_rows() -> None:
    assert _leaks() == []


def test_a_scaler_fitted_on_every_sample_before_the_column_cut_leaks() -> None:
    assert _leaks("trips[:] = StandardScaler().fit_transform(trips)\n") == ["LEAK001"]


def test_a_column_slice_of_samples_as_rows_still_keeps_every_row() -> None:
    rows = ("import pandas as pd\nfrom sklearn.svm import SVC\ntrips = pd.read_csv('trips.csv')\n"
            "X, y = trips.drop(columns='late').values, trips['late'].values\n"
            "svc = SVC().fit(X[:, :3], y)\nprint(svc.score(X[:, 3:], y))")
    assert "LEAK007" in {f.rule_id for f in analyze_sources([rows]).findings}
