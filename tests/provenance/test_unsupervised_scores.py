"""Unsupervised models scored against labels: a clusterer's or outlier detector's answers for the very rows it was
fitted on (`fit_predict(X)`, `labels_`), compared with those rows' labels, are a training score (LEAK007); the
same answers as a feature, or judged by an internal measure (silhouette), score nothing. Whole notebooks through
the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.ensemble import IsolationForest, RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.metrics import accuracy_score, classification_report, silhouette_score, adjusted_rand_score
tx = pd.read_csv("transactions.csv")
X, y = tx.drop(columns="fraud"), tx["fraud"]"""


def rules(*cells: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize("code", [
    "flags = IsolationForest(random_state=0).fit_predict(X)\n"
    "print(classification_report(y, (flags == -1).astype(int)))",
    "km = KMeans(n_clusters=2, random_state=0)\nkm.fit(X)\nprint(accuracy_score(y, km.labels_))",
    "km = KMeans(n_clusters=2, random_state=0).fit(X)\nprint(adjusted_rand_score(y, km.labels_))",
    # hand-written accuracies: the answers compared with the labels element by element
    "km = KMeans(n_clusters=2, random_state=0).fit(X)\nhits = sum(y == km.labels_)\nprint(hits / len(y))",
    "km = KMeans(n_clusters=2, random_state=0).fit(X)\nprint((km.labels_ == y).mean())",
    "flags = IsolationForest(random_state=0).fit_predict(X)\nprint(np.mean((flags == -1) == y))",
])
def test_answers_for_the_fitted_rows_scored_against_their_labels(code: str) -> None:
    found = [f for f in analyze_sources([HEAD, code]).findings if f.rule_id.startswith("LEAK")]
    assert {f.rule_id for f in found} == {"LEAK007"}
    assert "answers for the very rows it was fitted on" in found[0].message


@pytest.mark.parametrize("code", [
    "km = KMeans(n_clusters=4, random_state=0).fit(X)\nprint(silhouette_score(X, km.labels_))",  # internal measure
    # fitted on the training part, judged on the other part's labels
    "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
    "iso = IsolationForest(random_state=0).fit(X_tr)\n"
    "print(classification_report(y_te, (iso.predict(X_te) == -1).astype(int)))",
])
def test_answers_judged_without_their_own_labels_score_nothing(code: str) -> None:
    assert not rules(code)


def test_cluster_labels_used_as_a_feature_stay_a_statistic_of_every_row() -> None:
    code = ("X = X.assign(segment=KMeans(n_clusters=5, random_state=0).fit_predict(X))\n"
            "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
            "print(RandomForestClassifier().fit(X_tr, y_tr).score(X_te, y_te))")
    assert rules(code) == {"LEAK001"}
