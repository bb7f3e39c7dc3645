"""Surprise recommenders: several algorithms compared on one test set of ratings, and settings searched over every
rating then given to the algorithm scored on the test part. Whole notebooks through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from surprise import Dataset, Reader, SVD, KNNBasic, BaselineOnly, accuracy
from surprise.model_selection import train_test_split, GridSearchCV
ratings = pd.read_csv("ratings.csv")
data = Dataset.load_from_df(ratings[["user", "item", "stars"]], Reader(rating_scale=(1, 5)))
trainset, testset = train_test_split(data, test_size=0.2, random_state=0)
"""


def leak_rules(code: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, code]).findings if f.rule_id.startswith("LEAK"))


@pytest.mark.parametrize("algos, rules", [("SVD(), KNNBasic(), BaselineOnly()", ["LEAK005"]), ("SVD()", [])])
def test_algorithms_compared_on_one_test_set(algos: str, rules: list) -> None:
    code = (f"for algo in [{algos}]:\n    algo.fit(trainset)\n"
            "    print(type(algo).__name__, accuracy.rmse(algo.test(testset)))")
    assert leak_rules(code) == rules


@pytest.mark.parametrize("searched, rules", [("data", ["LEAK004"]), ("None", [])])
def test_settings_searched_over_every_rating(searched: str, rules: list) -> None:
    """`GridSearchCV(SVD, grid)` takes the algorithm's class; `SVD(**gs.best_params['rmse'])` scored on the test
    part got settings that its ratings helped choose when the search saw every rating."""
    search = (f"gs = GridSearchCV(SVD, {{'n_factors': [50, 100]}}, measures=['rmse'], cv=3)\ngs.fit({searched})\n"
              if searched != "None" else "")
    made = "SVD(**gs.best_params['rmse'])" if search else "SVD(n_factors=50)"
    code = search + f"algo = {made}\nalgo.fit(trainset)\nprint(accuracy.rmse(algo.test(testset)))"
    assert leak_rules(code) == rules


@pytest.mark.parametrize("fitted_on, rules", [("trainset", []), ("data.build_full_trainset()", ["LEAK003"])])
def test_folds_of_a_surprise_kfold_are_the_sets_themselves(fitted_on: str, rules: list) -> None:
    """`for trainset, testset in KFold(3).split(data)` yields each fold's two sets: an algorithm fitted on the fold's
    train set and tested on its test set is scored on rows it never saw; one fitted on every rating is not."""
    code = ("from surprise.model_selection import KFold\nalgo = SVD()\n"
            "for trainset, testset in KFold(n_splits=3).split(data):\n"
            f"    algo.fit({fitted_on})\n    accuracy.rmse(algo.test(testset), verbose=True)")
    assert leak_rules(code) == rules
