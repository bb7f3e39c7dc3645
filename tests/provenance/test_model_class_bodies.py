"""A notebook model class (one with `fit` and `predict`) stays one model to the code that uses it, and what its own
`fit` does inside is followed too, on an instance built by its `__init__`: folds it cuts, early stopping on them,
data from the notebook it watches. Whole notebooks through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
import lightgbm as lgb
from sklearn.model_selection import KFold, train_test_split
from sklearn.metrics import mean_squared_error
sales = pd.read_csv("sales.csv")
X, y = sales.drop(columns="units"), sales["units"]
"""

FOLDS = """class FoldAverage:
    def __init__(self, folds):
        self.kfolds = KFold(n_splits=folds, shuffle=True, random_state=0)
    def fit(self, X, y, params):
        self.models = []
        oof = np.zeros(len(y))
        for tr, va in self.kfolds.split(X):
            d_tr, d_va = lgb.Dataset(X.iloc[tr], y.iloc[tr]), lgb.Dataset(X.iloc[va], y.iloc[va])
            booster = lgb.train(params, d_tr, 5000, valid_sets=d_va{stop})
            oof[va] = booster.predict(X.iloc[va])
            self.models.append(booster)
        self.rmse = mean_squared_error(y, oof) ** 0.5
    def predict(self, X):
        return np.mean([m.predict(X) for m in self.models], axis=0)
"""

WATCHING = """X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
class Booster:
    def fit(self, X, y):
        self.m = lgb.LGBMRegressor(n_estimators=3000).fit(X, y, eval_set=[({watched})]{stop})
        return self
    def predict(self, X):
        return self.m.predict(X)
model = Booster().fit(X_tr, y_tr)
print(mean_squared_error(y_te, model.predict(X_te)))
"""


def leak_rules(code: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD + code]).findings if f.rule_id.startswith("LEAK"))


@pytest.mark.parametrize("stop, rules", [(", early_stopping_rounds=100", ["LEAK004"]), ("", [])])
def test_folds_cut_by_the_classs_own_fit_and_stopped_on(stop: str, rules: list) -> None:
    """`self.kfolds`, made by `__init__`, cuts the folds `fit` stops on and scores: the out-of-fold score is read
    on the rows that chose when each booster stopped."""
    code = FOLDS.replace("{stop}", stop) + "fa = FoldAverage(10)\nfa.fit(X, y, {'objective': 'rmse'})\nprint(fa.rmse)"
    assert leak_rules(code) == rules


@pytest.mark.parametrize("watched, stop, leaks", [
    ("X_te, y_te", ", callbacks=[lgb.early_stopping(50)]", True),  # the notebook's test rows stop the training
    ("X_te, y_te", "", False),  # watched only
])
def test_test_rows_watched_inside_a_model_class(watched: str, stop: str, leaks: bool) -> None:
    code = WATCHING.replace("{watched}", watched).replace("{stop}", stop)
    assert ("LEAK004" in leak_rules(code)) is leaks
