"""Early stopping inside a cross-validation loop on the fold that is then scored: each fold's score is read on the
rows that chose when training stopped (LEAK004, a warning). A fold of its own for stopping, a fixed number of
rounds, or the fold only watched without stopping chooses nothing."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

LOOP = """import numpy as np
import pandas as pd
import lightgbm as lgb
from sklearn.model_selection import KFold, train_test_split
from sklearn.metrics import mean_squared_error
df = pd.read_csv('load.csv')
X, y = df.drop(columns='mw'), df['mw']
scores = []
for tr, va in KFold(5, shuffle=True, random_state=0).split(X):
    X_tr, X_va, y_tr, y_va = X.iloc[tr], X.iloc[va], y.iloc[tr], y.iloc[va]
{body}
    scores.append(mean_squared_error(y_va, m.predict(X_va)))
print(np.mean(scores))"""

STOPPED = """    m = lgb.LGBMRegressor(n_estimators=2000)
    m.fit(X_tr, y_tr, eval_set=[(X_va, y_va)], callbacks=[lgb.early_stopping(50)])"""


def found(body: str) -> list:
    return [f for f in analyze_sources([LOOP.format(body=body)]).findings if f.rule_id.startswith("LEAK")]


def test_early_stopping_on_the_scored_fold_is_a_selection_warning() -> None:
    [f] = found(STOPPED)
    assert f.rule_id == "LEAK004" and f.severity.value == "warning"
    assert "`X_va`" in f.message and "m.predict(X_va)" in f.message and f.evidence["cross_validation"]


@pytest.mark.parametrize("body", [
    STOPPED.replace("callbacks=[lgb.early_stopping(50)]", "callbacks=[lgb.log_evaluation(100)]"),  # watched only
    "    m = lgb.LGBMRegressor(n_estimators=300)\n    m.fit(X_tr, y_tr)",  # a fixed number of rounds
    # stopping on a part carved from the training fold, the held-out fold scored untouched
    "    X_fit, X_stop, y_fit, y_stop = train_test_split(X_tr, y_tr, test_size=0.1, random_state=0)\n"
    "    m = lgb.LGBMRegressor(n_estimators=2000)\n"
    "    m.fit(X_fit, y_fit, eval_set=[(X_stop, y_stop)], callbacks=[lgb.early_stopping(50)])",
])
def test_stopping_that_does_not_read_the_scored_fold_chooses_nothing(body: str) -> None:
    assert found(body) == []


OOF = """import numpy as np
import pandas as pd
import lightgbm as lgb
from sklearn.model_selection import StratifiedKFold
from sklearn.metrics import roc_auc_score
df = pd.read_csv('churn.csv')
X, y = df.drop(columns='left'), df['left']
PARAMS = dict(objective='binary')
oof = np.zeros(len(X))
for tr, va in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
    fit_set = lgb.Dataset(X.iloc[tr], label=y.iloc[tr])
    stop_set = lgb.Dataset(X.iloc[va], label=y.iloc[va])
    booster = lgb.train(PARAMS, fit_set, 1000, valid_sets=[fit_set, stop_set]{stop})
    oof[va] = booster.predict(X.iloc[va], num_iteration=booster.best_iteration)
print('CV AUC', roc_auc_score(y, oof))"""


def test_out_of_fold_predictions_scored_after_the_loop_read_the_stopping_folds() -> None:
    """`oof[va] = m.predict(X.iloc[va])` fills an array made for them: scoring it scores every fold's predictions."""
    [f] = [f for f in analyze_sources([OOF.format(stop=", early_stopping_rounds=50")]).findings
           if f.rule_id.startswith("LEAK")]
    assert f.rule_id == "LEAK004" and f.evidence["cross_validation"]
    assert not [f for f in analyze_sources([OOF.format(stop="")]).findings if f.rule_id.startswith("LEAK")]


def test_predictions_written_into_a_frame_attribute_are_what_its_metric_scores() -> None:
    code = """import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
df = pd.read_csv('loans.csv')
X = df.drop(columns='paid')
model = LogisticRegression().fit(X, df['paid'])
df.guess = model.predict(X)
print(accuracy_score(df['paid'], df.guess))"""
    assert "LEAK007" in {f.rule_id for f in analyze_sources([code]).findings}


LOGGED = """import pandas as pd
import xgboost as xgb
from sklearn.model_selection import StratifiedKFold
train = pd.read_csv('claims.csv')
unlabelled = pd.read_csv('claims_new.csv')
X, y = train.drop(columns='claim').values, train['claim'].values
preds = 0
for tr, va in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
    d_fit, d_stop = xgb.DMatrix(X[tr], y[tr]), xgb.DMatrix(X[va], y[va])
    booster = xgb.train({'objective': 'binary:logistic', 'eval_metric': 'auc'}, d_fit, 1500,
                        [(d_fit, 'fit'), (d_stop, 'held')]STOP, verbose_eval=100)
    preds += booster.predict(xgb.DMatrix(unlabelled.values)) / 5"""


def test_stopping_on_the_fold_whose_logged_score_is_the_only_score() -> None:
    """Each fold's best AUC, logged while the booster stops on that fold, is the only evaluation the notebook
    gives (it predicts only unlabelled rows): those figures were read on the rows that chose when to stop."""
    leaks = [f for f in analyze_sources([LOGGED.replace("STOP", ", early_stopping_rounds=70")]).findings
             if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in leaks] == ["LEAK004"] and leaks[0].severity.value == "warning"
    assert "logged while training" in leaks[0].message
    assert not [f for f in analyze_sources([LOGGED.replace("STOP", "")]).findings if f.rule_id.startswith("LEAK")]
