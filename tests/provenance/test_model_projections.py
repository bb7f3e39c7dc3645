"""A model used as a transform (`LinearDiscriminantAnalysis().fit_transform(X, y)`, a fitted model's
`.transform`, k-means distances) projects rows with what it learned from the rows it was fitted on: fitted on
every row before the split, the projected test rows carry what it learned from them (as a PCA's would)."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.cluster import KMeans
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
df = pd.read_csv("patients.csv")
X, y = df.drop(columns="sick"), df["sick"]"""

SCORED = """clf = LogisticRegression().fit(Z_tr, y_tr)
print(accuracy_score(y_te, clf.predict(Z_te)))"""

BEFORE = {
    "lda-fit-transform": """Z = LinearDiscriminantAnalysis(n_components=1).fit_transform(X, y)
Z_tr, Z_te, y_tr, y_te = train_test_split(Z, y, random_state=0)""",
    "lda-in-a-function": """def project(features, labels):
    lda = LinearDiscriminantAnalysis(n_components=1)
    out = lda.fit_transform(features, labels)
    return lda, out
lda, Z = project(X, y)
Z_tr, Z_te, y_tr, y_te = train_test_split(Z, y, random_state=0)""",
    "lda-fit-then-transform": """lda = LinearDiscriminantAnalysis(n_components=1).fit(X, y)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
Z_tr, Z_te = lda.transform(X_tr), lda.transform(X_te)""",
    "kmeans-distances": """Z = KMeans(8, n_init=10).fit_transform(X)
Z_tr, Z_te, y_tr, y_te = train_test_split(Z, y, random_state=0)""",
}

AFTER = {
    "lda-fit-transform": """X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
lda = LinearDiscriminantAnalysis(n_components=1)
Z_tr = lda.fit_transform(X_tr, y_tr)
Z_te = lda.transform(X_te)""",
    "kmeans-distances": """X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
km = KMeans(8, n_init=10)
Z_tr = km.fit_transform(X_tr)
Z_te = km.transform(X_te)""",
}


def found(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_a_model_projecting_every_row_before_the_split_leaks(name: str) -> None:
    assert found(BEFORE[name], SCORED) == ["LEAK001"]


@pytest.mark.parametrize("name", sorted(AFTER))
def test_a_model_projecting_the_training_rows_only_is_clean(name: str) -> None:
    assert found(AFTER[name], SCORED) == []
