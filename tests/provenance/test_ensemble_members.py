"""An ensemble's fitted members (`voting.estimators_`, `voting.named_estimators_`) are models of their own, trained
on the ensemble's rows: scored one by one beside the ensemble on the test rows, they are several configurations.
A matrix allocated with a row per test row (`np.empty(shape=(len(X_test), k))`) and filled with the members'
predictions holds the test rows: a blender scored on it is scored on them."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.ensemble import VotingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
df = pd.read_csv("digits.csv")
X_train, X_test, y_train, y_test = train_test_split(df.drop(columns="y"), df.y, random_state=0)
vote = VotingClassifier([("lr", LogisticRegression()), ("rf", RandomForestClassifier())])
vote.fit(X_train, y_train)
print(vote.score(X_test, y_test))"""


def rules(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


@pytest.mark.parametrize("members", [
    "for name, clf in vote.named_estimators_.items():\n    print(name, clf.score(X_test, y_test))",
    "print([clf.score(X_test, y_test) for clf in vote.estimators_])",
], ids=["named", "list"])
def test_members_scored_beside_the_ensemble_on_the_test_rows(members: str) -> None:
    assert rules(members) == ["LEAK005"]


def test_the_ensemble_scored_alone_chooses_nothing() -> None:
    assert rules() == []


def test_a_blender_scored_on_a_matrix_with_a_row_per_test_row() -> None:
    blend = """members = [LogisticRegression().fit(X_train, y_train), RandomForestClassifier().fit(X_train, y_train)]
def stacked(X):
    out = np.empty(shape=(len(X), len(members)))
    for j, m in enumerate(members):
        out[:, j] = m.predict(X)
    return out
blender = LogisticRegression().fit(stacked(X_train), y_train)
print(accuracy_score(y_test, blender.predict(stacked(X_test))))"""
    assert rules(blend) == ["LEAK005"]
