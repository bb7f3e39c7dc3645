"""A decision threshold picked by the best F1 of a precision-recall curve on the test rows is a choice by those
rows, whoever produced the scores (a classifier's probabilities, an anomaly detector's `score_samples`) and
however the best is found (`np.argmax(f1)`, `f1 == np.max(f1)`). Picked on a validation part, it is not."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

CODE = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.ensemble import IsolationForest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import precision_recall_curve, confusion_matrix
df = pd.read_csv("transactions.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="fraud"), df["fraud"], random_state=0)
X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, random_state=0)
model = {model}
scores = {scores}
precision, recall, thresholds = precision_recall_curve({truth}, scores)
f1 = 2 * precision * recall / (precision + recall)
best = {pick}
print(confusion_matrix(y_te, {final} >= best))"""

DETECTOR = ("IsolationForest(random_state=0).fit(X_fit)", "-model.score_samples({rows})")
CLASSIFIER = ("LogisticRegression().fit(X_fit, y_fit)", "model.predict_proba({rows})[:, 1]")


def leak_ids(made: tuple, rows: str, truth: str, pick: str) -> list[str]:
    code = CODE.format(model=made[0], scores=made[1].format(rows=rows), truth=truth, pick=pick,
                       final=made[1].format(rows="X_te"))
    return sorted({f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")})


@pytest.mark.parametrize("made", [DETECTOR, CLASSIFIER], ids=["detector", "classifier"])
@pytest.mark.parametrize("pick", ["thresholds[np.argmax(f1)]", "thresholds[np.where(f1 == np.max(f1))[0][0]]"],
                         ids=["argmax", "equals-max"])
def test_a_threshold_tuned_on_the_test_rows_is_a_choice_by_them(made: tuple, pick: str) -> None:
    assert leak_ids(made, "X_te", "y_te", pick) == ["LEAK004"]
    assert leak_ids(made, "X_val", "y_val", pick) == []
