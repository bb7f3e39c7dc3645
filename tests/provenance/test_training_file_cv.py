"""A transform (or oversampler) fitted on a whole training file and then cross-validated on it spoils only the
cross-validated score when a labelled test file, read apart, is scored after: that is LEAK008 (a warning), as for
the training part of a split. With no test file scored after, the cross-validated score is the notebook's last
word, and the transform fitted on its folds is a preprocessing leak (LEAK001)."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

CODE = """import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import GridSearchCV
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
X, y = train.drop(columns="label"), train["label"]
scaler = StandardScaler().fit(X)
search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=5).fit(scaler.transform(X), y)
print(search.best_score_)"""
FINAL = "\nprint(accuracy_score(test['label'], search.predict(scaler.transform(test.drop(columns='label')))))"


@pytest.mark.parametrize("tail, rule", [(FINAL, "LEAK008"), ("", "LEAK001")], ids=["test-file-after", "cv-only"])
def test_a_transform_fitted_on_the_training_file_before_its_cross_validation(tail: str, rule: str) -> None:
    found = sorted({f.rule_id for f in analyze_sources([CODE + tail]).findings if f.rule_id.startswith("LEAK")})
    assert found == [rule]
