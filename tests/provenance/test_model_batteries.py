"""lazypredict's `LazyClassifier().fit(X_train, X_test, y_train, y_test)` trains some thirty estimators on the first
part and scores each on the second: on a test part that is several models compared on it (picked from the table
by its scores: a choice); on the held-out folds of cross-validation it is model selection."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from sklearn.model_selection import train_test_split, StratifiedKFold
from lazypredict.Supervised import LazyClassifier
df = pd.read_csv("loans.csv")
X, y = df.drop(columns="default"), df["default"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
battery = LazyClassifier(verbose=0, ignore_warnings=True)"""


def rules(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


def test_the_table_of_models_scored_on_the_test_part() -> None:
    assert rules("models, preds = battery.fit(X_train, X_test, y_train, y_test)\nprint(models)") == ["LEAK005"]


def test_the_best_row_of_that_table_picked() -> None:
    pick = "models, preds = battery.fit(X_train, X_test, y_train, y_test)\nbest = models['Accuracy'].idxmax()"
    assert rules(pick) == ["LEAK004"]


def test_the_battery_run_on_cross_validation_folds_is_model_selection() -> None:
    folds = """for tr, va in StratifiedKFold(5).split(X_train, y_train):
    models, preds = battery.fit(X_train.iloc[tr], X_train.iloc[va], y_train.iloc[tr], y_train.iloc[va])
    print(models)"""
    assert rules(folds) == []
