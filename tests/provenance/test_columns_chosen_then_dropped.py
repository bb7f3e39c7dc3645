"""Columns chosen by something learned from every row (a selector's support, the share of missing values) and
dropped from the frame carry what chose them, whether the drop makes a new frame or works in place, and whether
the names are listed by a comprehension or picked by a mask of the columns."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from sklearn.feature_selection import VarianceThreshold
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
df = pd.read_csv("loans.csv")"""

SCORED = """X_train, X_test, y_train, y_test = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
print(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))"""

CHOSEN = {
    "selector-mask": "vt = VarianceThreshold(threshold=0.05).fit(df)\ndrop = df.columns[~vt.get_support()]",
    "selector-comprehension": "vt = VarianceThreshold(threshold=0.05).fit(df)\n"
                              "drop = [c for c in df.columns if c not in df.columns[vt.get_support()]]",
    "missing-share": "drop = df.columns[df.isnull().mean() > 0.5]",
}
DROPS = {"new-frame": "df = df.drop(drop, axis=1)", "in-place": "df.drop(drop, axis=1, inplace=True)"}


def leaks(*cells: str) -> list[str]:
    return sorted({f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK")})


@pytest.mark.parametrize("drop", sorted(DROPS))
@pytest.mark.parametrize("chosen", sorted(CHOSEN))
def test_columns_chosen_on_every_row_then_dropped_leak(chosen: str, drop: str) -> None:
    assert leaks(CHOSEN[chosen], DROPS[drop], SCORED) == ["LEAK001"]


def test_columns_named_in_the_code_dropped_in_place_learn_nothing() -> None:
    assert leaks("df.drop(['id', 'notes'], axis=1, inplace=True)", SCORED) == []


def test_columns_chosen_on_the_training_split_only_are_clean() -> None:
    split_first = ("X_train, X_test, y_train, y_test = train_test_split(df.drop(columns='y'), df['y'])\n"
                   "vt = VarianceThreshold(threshold=0.05).fit(X_train)\n"
                   "keep = [c for c in X_train.columns if c in X_train.columns[vt.get_support()]]\n"
                   "print(LogisticRegression().fit(X_train[keep], y_train).score(X_test[keep], y_test))")
    assert leaks(split_first) == []
