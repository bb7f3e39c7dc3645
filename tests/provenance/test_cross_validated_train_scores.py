"""`cross_validate(..., return_train_score=True)` scores each fold's model on the folds it was fitted on as well as
on the held-out fold: those training scores are a training-set score (LEAK007, a warning beside the held-out
scores); without the option only held-out folds are scored."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

CODE = """import pandas as pd
from sklearn.model_selection import cross_validate, train_test_split
from sklearn.linear_model import Ridge
films = pd.read_csv("films.csv")
X, y = films.drop(columns="revenue"), films["revenue"]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
res = cross_validate(Ridge(alpha=1.0), X_tr, y_tr, cv=5{option})
print(res["test_score"].mean())
print(Ridge(alpha=1.0).fit(X_tr, y_tr).score(X_te, y_te))"""


def leaks(option: str) -> list:
    return [f for f in analyze_sources([CODE.format(option=option)]).findings if f.rule_id.startswith("LEAK")]


def test_training_folds_scored_by_request_are_a_training_score() -> None:
    found = leaks(", return_train_score=True")
    assert [f.rule_id for f in found] == ["LEAK007"]
    assert "return_train_score=True" in found[0].message and found[0].severity.value == "warning"


def test_held_out_folds_only_score_nothing_on_training_rows() -> None:
    assert leaks("") == []
    assert leaks(", return_train_score=False") == []
