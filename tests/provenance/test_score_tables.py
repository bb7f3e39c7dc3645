"""Scores gathered into a table (`pd.DataFrame(rows)` of `[name, score]` lists, or a dict of score lists) are
still those scores: ranking the table (`sort_values`), taking its best row (`frame[frame.acc == frame.acc.max()]`,
`idxmax`) picks a model, a setting or a split by them. Averaging them picks nothing. Whole notebooks through the
real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split, cross_val_score
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
df = pd.read_csv("table.csv")
X, y = df.drop(columns=["label"]), df["label"]"""

SPLIT = "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)"

MODELS = """rows = []
for name, m in [("lr", LogisticRegression()), ("rf", RandomForestClassifier())]:
    m.fit(X_train, y_train)
    rows.append([name, {score}])"""

ON_TEST = "accuracy_score(y_test, m.predict(X_test))"
BY_CV = "cross_val_score(m, X_train, y_train, cv=5).mean()"


def rules(*cells: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize("rank", [
    "table = pd.DataFrame(rows, columns=['model', 'acc']).sort_values('acc', ascending=False)",
    "table = pd.DataFrame(rows, columns=['model', 'acc'])\nbest = table.loc[table['acc'].idxmax(), 'model']",
    "table = pd.DataFrame({'model': [r[0] for r in rows], 'acc': [r[1] for r in rows]})\n"
    "print(table.sort_values(by='acc'))",
])
def test_a_ranked_table_of_test_scores_picks_by_the_test_set(rank: str) -> None:
    assert "LEAK004" in rules(SPLIT, MODELS.format(score=ON_TEST), rank)
    assert "LEAK004" not in rules(SPLIT, MODELS.format(score=BY_CV), rank)  # ranked by cross-validation


SEEDS = """rows = []
for seed in range(30):
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=seed)
    m = LogisticRegression().fit(X_train, y_train)
    rows.append([seed, accuracy_score(y_test, m.predict(X_test))])
frame = pd.DataFrame(rows, columns=["seed", "acc"])"""


def test_a_split_kept_for_its_best_test_score_is_chosen_by_it() -> None:
    """Trying seeds and keeping the split whose test score is best makes the test score a lucky draw."""
    found = [f for f in analyze_sources([HEAD, SEEDS, "print(frame[frame['acc'] == frame['acc'].max()])"]).findings
             if f.rule_id == "LEAK004"]
    assert found and "each pass splits the rows anew" in found[0].message
    assert not rules(SEEDS, "print(frame['acc'].mean(), frame['acc'].std())")  # an average over splits
