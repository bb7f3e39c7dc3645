"""Category labels passed to `.cat.reorder_categories` / `set_categories` are a vocabulary in some order: ranked by
the label's mean over every row, they still put no value of any row into the features one-hot encoded from them.
The same means written into the column as values (`map`) are a target statistic of every row. Whole notebooks
through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from sklearn.model_selection import cross_val_score
from sklearn.linear_model import LinearRegression
jobs = pd.read_csv("salaries.csv")
means = jobs.groupby("role")["salary"].mean()
"""

SCORE = """X = pd.get_dummies(jobs[["role", "years"]])
print(cross_val_score(LinearRegression(), X, jobs["salary"], cv=5).mean())"""


def rules(*cells: str) -> set[str]:
    return {f.rule_id for f in analyze_sources(list(cells)).findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize("order", [
    "jobs['role'] = jobs['role'].astype('category')\n"
    "jobs['role'].cat.reorder_categories(means.sort_values().index.tolist(), inplace=True)",
    "jobs['role'] = jobs['role'].astype('category').cat.set_categories(list(means.sort_values().index))",
])
def test_categories_ordered_by_a_statistic_then_one_hot_encoded_learn_nothing(order: str) -> None:
    assert not rules(HEAD + order, SCORE)


def test_the_statistic_written_into_the_column_is_learned_from_every_row() -> None:
    mapped = HEAD + "jobs['role'] = jobs['role'].map(means)"
    assert "LEAK001" in rules(mapped, SCORE.replace("get_dummies", "DataFrame"))
