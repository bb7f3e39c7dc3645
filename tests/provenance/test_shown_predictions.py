"""Predictions nothing scores: a few training rows drawn at random to show what a fitted model answers
(`X.sample(5)`) are a demonstration, not an evaluation; the held-out part of a split predicted and left unscored by
any metric the analysis knows still counts as evaluated on the rows a model fitted on every row learned."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score, train_test_split
trips = pd.read_csv("trips.csv")
X, y = trips[["dist", "hour"]], trips["late"]
model = LogisticRegression()
print(cross_val_score(model, X, y, cv=5).mean())
"""


def leaks(code: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD + code]).findings if f.rule_id.startswith("LEAK"))


def test_a_handful_of_training_rows_drawn_to_show_predictions_is_no_evaluation() -> None:
    assert leaks("few = X.sample(5, random_state=1)\nmodel.fit(X, y)\nmodel.predict(few)") == []


def test_the_held_out_part_predicted_by_a_model_fitted_on_every_row_still_counts() -> None:
    code = ("X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\nmodel.fit(X, y)\n"
            "model.predict(X_te)")
    assert leaks(code) == ["LEAK003"]
    assert leaks("part = X.sample(frac=0.3, random_state=1)\nmodel.fit(X, y)\nmodel.predict(part)") == ["LEAK003"]
