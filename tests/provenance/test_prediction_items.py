"""Predictions taken apart item by item (`for p in probs: labels.append(np.argmax(p))`) are still the model's
predictions: a metric over the list they were collected into scores the model."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
df = pd.read_csv("d.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)"""

FIRST = """lr = LogisticRegression().fit(X_tr, y_tr)
probs = lr.predict_proba(X_te)
labels = []
for p in probs:
    labels.append(np.argmax(p))
print(accuracy_score(y_te, labels))"""

SECOND = "rf = RandomForestClassifier().fit(X_tr, y_tr)\nprint(accuracy_score(y_te, rf.predict(X_te)))"


def leaks(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


def test_predictions_collected_item_by_item_score_their_model() -> None:
    assert leaks(FIRST, SECOND) == ["LEAK005"]  # two models scored on the same test rows


def test_one_model_scored_item_by_item_is_one_configuration() -> None:
    assert leaks(FIRST) == []
    assert leaks(FIRST.replace("X_te", "X_tr").replace("y_te", "y_tr")) == ["LEAK007"]
