"""Hyperparameter tuners call the notebook's objective once per trial and keep the best settings: an objective
that scores the final held-out rows makes them a selection set; one that scores a validation part does not."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
df = pd.read_csv("table.csv")
X, y = df[["a", "b", "c"]], df["label"]
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0)
Xfit, Xval, yfit, yval = train_test_split(Xtr, ytr, test_size=0.25, random_state=0)"""

# the chosen model scored once on the test part: the validation part is then a selection set, not the last word
FINAL = "final = RandomForestClassifier().fit(Xtr, ytr)\nprint(accuracy_score(yte, final.predict(Xte)))"

OBJECTIVE = """def objective({arg}):
    depth = {depth}
    m = RandomForestClassifier(max_depth=depth).fit(Xfit, yfit)
    return accuracy_score({truth}, m.predict({rows}))
"""

TUNERS = [
    ("optuna", "trial", "trial.suggest_int('d', 2, 16)",
     "import optuna\nstudy = optuna.create_study(direction='maximize')\nstudy.optimize(objective, n_trials=40)"),
    ("hyperopt", "params", "int(params['d'])",
     "from hyperopt import fmin, tpe, hp\nbest = fmin(objective, {'d': hp.quniform('d', 2, 16, 1)}, algo=tpe.suggest, "
     "max_evals=40)"),
    ("skopt", "params", "params[0]",
     "from skopt import gp_minimize\nres = gp_minimize(objective, [(2, 16)], n_calls=30)"),
]


def picks_on(rows: str, truth: str, arg: str, depth: str, tune: str) -> bool:
    code = OBJECTIVE.format(arg=arg, depth=depth, truth=truth, rows=rows) + tune
    return "LEAK004" in {f.rule_id for f in analyze_sources([PRELUDE, code, FINAL]).findings}


@pytest.mark.parametrize("name, arg, depth, tune", TUNERS, ids=[t[0] for t in TUNERS])
def test_an_objective_scoring_the_test_rows_makes_them_a_selection_set(name: str, arg: str, depth: str,
                                                                      tune: str) -> None:
    assert picks_on("Xte", "yte", arg, depth, tune)
    assert not picks_on("Xval", "yval", arg, depth, tune)


def test_one_finding_names_the_tuner_and_the_scoring_call() -> None:
    name, arg, depth, tune = TUNERS[0]
    code = OBJECTIVE.format(arg=arg, depth=depth, truth="yte", rows="Xte") + tune
    leaks = [f for f in analyze_sources([PRELUDE, code]).findings if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in leaks] == ["LEAK004"]
    assert "by `m.predict(Xte)` in cell 2" in leaks[0].message and "study.optimize" in leaks[0].message


def test_models_compared_beside_a_tuned_one_are_still_reported() -> None:
    name, arg, depth, tune = TUNERS[0]
    code = OBJECTIVE.format(arg=arg, depth=depth, truth="yte", rows="Xte") + tune
    other = ("from sklearn.linear_model import LogisticRegression\n"
             "lr = LogisticRegression().fit(Xtr, ytr)\nprint(accuracy_score(yte, lr.predict(Xte)))")
    found = {f.rule_id for f in analyze_sources([PRELUDE, code, other]).findings}
    assert {"LEAK004", "LEAK005"} <= found


KERAS_TUNER = """import keras_tuner as kt
from tensorflow import keras
def build(hp):
    net = keras.Sequential([keras.layers.Dense(hp.Int("units", 8, 64)), keras.layers.Dense(1)])
    net.compile(optimizer="adam", loss="mse")
    return net
tuner = kt.{cls}(build, objective="val_loss", max_trials=5)
tuner.search(Xtr, ytr, epochs=5, {watch})"""


@pytest.mark.parametrize("cls", ["RandomSearch", "Hyperband", "BayesianOptimization"])
def test_a_keras_tuner_search_validated_on_the_test_rows_picks_by_them(cls: str) -> None:
    def leaks(watch: str) -> list:
        code = KERAS_TUNER.format(cls=cls, watch=watch)
        return [f for f in analyze_sources([PRELUDE, code, FINAL]).findings if f.rule_id == "LEAK004"]

    found = leaks("validation_data=(Xte, yte)")
    assert len(found) == 1 and "hyperparameter search" in found[0].message
    assert not leaks("validation_data=(Xval, yval)")
    assert not leaks("validation_split=0.2")


def test_a_keras_tuner_search_on_a_validation_split_with_no_test_score_after_picks_by_it() -> None:
    """`search(X, y, validation_split=0.2)` keeps the settings its last rows score best on: with the test part
    never scored, those rows are the notebook's last word; scored after, they are a validation set."""
    code = KERAS_TUNER.format(cls="RandomSearch", watch="validation_split=0.2")
    found = [f for f in analyze_sources([PRELUDE, code]).findings if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in found] == ["LEAK004"] and "`validation_split`" in found[0].message
    assert not [f for f in analyze_sources([PRELUDE, code, FINAL]).findings if f.rule_id.startswith("LEAK")]


@pytest.mark.parametrize("best", ["tuner.get_best_models(num_models=1)[0]",
                                  "tuner.hypermodel.build(tuner.get_best_hyperparameters()[0])"])
def test_the_best_keras_tuner_network_is_a_model_and_a_test_file_scored_after_it_keeps_the_search_honest(
        best: str) -> None:
    """The search validates on a part of the training file; the network it picked is trained (on a dataset, one
    argument) and scored once on a labelled test file read apart: that file is the test set, the searched part a
    validation set."""
    code = (KERAS_TUNER.format(cls="RandomSearch", watch="validation_data=(Xte, yte)") +
            "\nimport tensorflow as tf\ntrain_ds = tf.data.Dataset.from_tensor_slices((Xtr, ytr)).batch(32)\n"
            f"model = {best}\nmodel.fit(train_ds, epochs=5)\nheld = pd.read_csv('holdout.csv')\n"
            "print(model.evaluate(held.drop(columns='label'), held['label']))")
    found = {f.rule_id for f in analyze_sources([PRELUDE, code]).findings}
    assert "LEAK004" not in found
    on_train = code.replace("model.evaluate(held.drop(columns='label'), held['label'])", "model.evaluate(Xtr, ytr)")
    assert "LEAK007" in {f.rule_id for f in analyze_sources([PRELUDE, on_train]).findings}


BOUND = """import functools
import optuna
def objective(X_a, y_a, X_b, y_b, trial):
    m = RandomForestClassifier(max_depth=trial.suggest_int('d', 2, 16)).fit(X_a, y_a)
    return accuracy_score(y_b, m.predict(X_b))
study = optuna.create_study(direction='maximize')
study.optimize({objective}, n_trials=40)"""


@pytest.mark.parametrize("bound", ["functools.partial(objective, Xfit, yfit, {rows}, {truth})",
                                   "lambda t: objective(Xfit, yfit, {rows}, {truth}, t)"])
def test_an_objective_bound_to_its_data_by_partial_or_lambda_is_run_per_trial(bound: str) -> None:
    def picks(rows: str, truth: str) -> bool:
        code = BOUND.format(objective=bound.format(rows=rows, truth=truth))
        return "LEAK004" in {f.rule_id for f in analyze_sources([PRELUDE, code, FINAL]).findings}

    assert picks("Xte", "yte")
    assert not picks("Xval", "yval")


LAZY = "from lazypredict.Supervised import {cls}\nzoo = {cls}(verbose=0, ignore_warnings=True)\n" \
       "models, predictions = zoo.fit({args})\nprint(models.head())"


@pytest.mark.parametrize("cls", ["LazyClassifier", "LazyRegressor"])
def test_a_zoo_of_models_ranked_on_the_test_rows_picks_by_them(cls: str) -> None:
    """lazypredict fits every model on the first pair and ranks them by their scores on the second."""
    found = [f for f in analyze_sources([PRELUDE, LAZY.format(cls=cls, args="Xtr, Xte, ytr, yte")]).findings
             if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in found] == ["LEAK004"] and "ranking of many models" in found[0].message
    on_val = LAZY.format(cls=cls, args="Xfit, Xval, yfit, yval")
    assert not [f for f in analyze_sources([PRELUDE, on_val, FINAL]).findings if f.rule_id.startswith("LEAK")]


SEARCH_ALL = """from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier
grid = {{"max_depth": range(1, 10), "min_samples_leaf": [1, 2, 4]}}
search = GridSearchCV(DecisionTreeClassifier(), param_grid=grid, cv=5).fit({rows})
print(search.best_params_)"""
TYPED_IN = "tree = {made}.fit(Xtr, ytr)\nprint(accuracy_score(yte, tree.predict(Xte)))"


@pytest.mark.parametrize("rows, made, leaks", [
    ("X, y", "DecisionTreeClassifier(max_depth=6, min_samples_leaf=4)", True),
    ("Xtr, ytr", "DecisionTreeClassifier(max_depth=6, min_samples_leaf=4)", False),  # searched on training rows
    ("X, y", "DecisionTreeClassifier()", False),  # the scored tree takes none of the searched settings
    ("X, y", "RandomForestClassifier(max_depth=6)", False),  # another estimator than the one searched
])
def test_settings_searched_over_every_row_and_typed_into_the_scored_model(rows: str, made: str, leaks: bool) -> None:
    """A search cross-validated over rows that include the test part chose the settings that are then typed by
    hand into the model scored on that part: the test rows helped choose them."""
    found = [f for f in analyze_sources([PRELUDE, SEARCH_ALL.format(rows=rows), TYPED_IN.format(made=made)]).findings
             if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in found] == (["LEAK004"] if leaks else [])
    if leaks:
        assert "typed in by hand" in found[0].message and "`DecisionTreeClassifier`" in found[0].message
        assert found[0].location.cell == 1


@pytest.mark.parametrize("rows, leaks", [("X, y", True), ("Xtr, ytr", False)])
def test_settings_searched_over_every_row_and_unpacked_into_the_scored_model(rows: str, leaks: bool) -> None:
    """`DecisionTreeClassifier(**search.best_params_)` takes every setting the search found: searched over rows
    that include the test part, those rows helped choose them."""
    made = "DecisionTreeClassifier(**search.best_params_)"
    found = [f for f in analyze_sources([PRELUDE, SEARCH_ALL.format(rows=rows), TYPED_IN.format(made=made)]).findings
             if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in found] == (["LEAK004"] if leaks else [])
    if leaks:
        assert "with the settings it found" in found[0].message


def test_a_zoo_of_models_ranked_on_each_cross_validation_fold_is_model_selection() -> None:
    """The zoo fitted on each fold's training rows and ranked on its held-out fold: cross-validation."""
    folds = ("from sklearn.model_selection import KFold\nfrom lazypredict.Supervised import LazyClassifier\n"
             "zoo = LazyClassifier(verbose=0)\n"
             "for tr, va in KFold(5).split(Xfit):\n"
             "    models, predictions = zoo.fit(Xfit.iloc[tr], Xfit.iloc[va], yfit.iloc[tr], yfit.iloc[va])\n"
             "    print(models.head())")
    assert not [f for f in analyze_sources([PRELUDE, folds, FINAL]).findings if f.rule_id.startswith("LEAK")]
