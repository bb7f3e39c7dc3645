"""Predictors written out in the notebook (a kNN vote as a function): called with features and labels of the same
rows and rows to answer for, fitting no model, returning values drawn from the labels, such a function is a model
trained on the labels' rows that predicts the other rows. Helpers that learn statistics (an encoder written out)
or return only their query rows are not predictors."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import numpy as np
import pandas as pd
from collections import Counter
from sklearn.model_selection import train_test_split
df = pd.read_csv("flowers.csv")
X, y = df.drop(columns="kind").values, df["kind"].values
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=1)"""

KNN = """def vote(train_x, train_y, point, k):
    dist = np.sqrt(((train_x - point) ** 2).sum(axis=1))
    nearest = np.argsort(dist)[:k]
    return Counter([train_y[i] for i in nearest]).most_common(1)[0][0]"""


def leak_ids(*cells: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([PRELUDE, KNN, *cells]).findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize("rows, labels, leaks", [("X_train", "y_train", True), ("X_test", "y_test", False)])
def test_a_vote_over_the_training_rows_scored_on_them_is_a_training_score(rows: str, labels: str,
                                                                          leaks: bool) -> None:
    cell = (f"pred = [vote(X_train, y_train, p, 5) for p in {rows}]\n"
            f"print('accuracy', np.mean(np.array(pred) == {labels}))")
    assert ("LEAK007" in leak_ids(cell)) is leaks


def test_the_vote_size_chosen_on_the_test_rows_is_a_choice() -> None:
    cell = ("for k in [1, 3, 5, 7]:\n"
            "    pred = [vote(X_train, y_train, p, k) for p in X_test]\n"
            "    print(k, np.mean(np.array(pred) == y_test))")
    assert leak_ids(cell) & {"LEAK004", "LEAK005"}
    once = "pred = [vote(X_train, y_train, p, 5) for p in X_test]\nprint(np.mean(np.array(pred) == y_test))"
    assert not leak_ids(once)


def test_a_vote_for_a_whole_matrix_of_its_own_training_rows() -> None:
    whole = """def knn(train_x, train_y, rows, k):
    out = []
    for r in rows:
        nearest = np.argsort(((train_x - r) ** 2).sum(axis=1))[:k]
        out.append(Counter(train_y[nearest]).most_common(1)[0][0])
    return np.array(out)
print(np.mean(knn(X_train, y_train, {rows}, 3) == {labels}))"""
    assert "LEAK007" in leak_ids(whole.format(rows="X_train", labels="y_train"))
    assert not leak_ids(whole.format(rows="X_test", labels="y_test"))


def test_helpers_that_learn_statistics_or_return_their_query_are_not_predictors() -> None:
    encoder = """def encode(train_x, train_y, rows):
    means = pd.Series(train_y).groupby(train_x[:, 0]).mean()
    return rows[:, 0] * means.mean()
enc = encode(X_train, y_train, X_train)
print(np.mean(enc == y_train))"""
    scaled = """def scale(train_x, train_y, rows):
    return rows / 10.0
z = scale(X_train, y_train, X_train)
print(np.mean(z == y_train))"""
    assert not leak_ids(encoder)
    assert not leak_ids(scaled)


def test_a_helper_selecting_rows_by_a_column_it_is_given_is_not_a_predictor() -> None:
    """`frame[frame[column] == value]` returns rows of the frame; the column is only a key it indexes with."""
    cells = ["""import pandas as pd
df = pd.read_csv("weather.csv")
def impurity(frame, column, target):
    groups = frame.groupby(column)[target].value_counts(normalize=True).unstack(fill_value=0)
    return (frame.groupby(column).size() / len(frame)).dot(1 - (groups ** 2).sum(axis=1))
scores = {c: impurity(df, c, "play") for c in ["outlook", "wind"]}
best = min(scores, key=scores.get)""",
             """def rows_where(frame, column, value):
    return frame[frame[column] == value]""",
             """subset = rows_where(df, best, df[best].unique()[0])
print(subset)"""]
    assert not [f.rule_id for f in analyze_sources(cells).findings if f.rule_id.startswith("LEAK")]


PERCEPTRON = """class Perceptron:
    def __init__(self, n, rate=0.1):
        self.w = np.zeros(n)
        self.rate = rate
    def predict(self, x):
        return (np.dot(x, self.w) >= 0).astype(int)
    def train(self, X, y, epochs=20):
        for _ in range(epochs):
            for xi, yi in zip(X, y):
                self.w += self.rate * (yi - self.predict(xi)) * xi
    def evaluate(self, X, y):
        return np.mean(self.predict(X) == y)"""


@pytest.mark.parametrize("rows, labels, leaks", [("X_train", "y_train", True), ("X_test", "y_test", False)])
def test_a_notebook_model_class_trained_by_its_train_method(rows: str, labels: str, leaks: bool) -> None:
    """A class with `train(X, y)` and `predict` is a model: `train` is its fit, and its scores are evaluations."""
    cell = f"p = Perceptron(X.shape[1])\np.train(X_train, y_train)\nprint('accuracy', p.evaluate({rows}, {labels}))"
    found = {f.rule_id for f in analyze_sources([PRELUDE, PERCEPTRON, cell]).findings if f.rule_id.startswith("LEAK")}
    assert ("LEAK007" in found) is leaks
    score = f"p = Perceptron(X.shape[1])\np.train(X_train, y_train)\nprint(np.mean(p.predict({rows}) == {labels}))"
    found = {f.rule_id for f in analyze_sources([PRELUDE, PERCEPTRON, score]).findings if f.rule_id.startswith("LEAK")}
    assert ("LEAK007" in found) is leaks


def test_a_wrapper_whose_train_fits_an_estimator_is_followed_through_its_methods() -> None:
    """`train` calling `self.clf.fit(X, y)`: the estimator inside is the model, its rows followed as before."""
    wrapper = """from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
class Helper:
    def __init__(self, clf):
        self.clf = clf
    def train(self, X, y):
        self.clf.fit(X, y)
    def predict(self, X):
        return self.clf.predict(X)
Xs = StandardScaler().fit_transform(X)
A_train, A_test, b_train, b_test = train_test_split(Xs, y, random_state=0)"""
    cell = "h = Helper(LogisticRegression())\nh.train(A_train, b_train)\nprint(np.mean(h.predict(A_test) == b_test))"
    found = {f.rule_id for f in analyze_sources([PRELUDE, wrapper, cell]).findings if f.rule_id.startswith("LEAK")}
    assert found == {"LEAK001"}
