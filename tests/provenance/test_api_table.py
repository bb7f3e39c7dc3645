"""Every row of the API table, exercised through the real engine with a generated bad/good pair: transformers leak
when fitted before the split, models when fitted on all rows and scored on a part, oversamplers when they run
before the split, metrics read predictions; rows that learn nothing (stateless, category renamers) never leak."""

from __future__ import annotations

import pytest

from jupyter_trainguard.analysis.provenance.api import boosting, keras, sklearn, statsmodels_api
from jupyter_trainguard.engine import analyze_sources

HEAD = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
        "from sklearn.linear_model import Ridge\ndf = pd.read_csv('data.csv')\n"
        "X, y = df.drop(columns='label'), df['label']")
MODULE = {"sklearn": "sklearn.preprocessing", "imblearn": "imblearn.over_sampling", "xgboost": "xgboost",
          "lightgbm": "lightgbm", "catboost": "catboost", "keras": "tensorflow.keras.layers",
          "category_encoders": "category_encoders", "statsmodels": "statsmodels.api"}


def _ids(code: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([HEAD, code]).findings if f.rule_id.startswith("LEAK")}


def _rows(module, role: str, vocab: bool | None = None) -> list[tuple[str, str]]:
    out = []
    for name, row in module.CLASSES.items():
        if row.role != role or (vocab is not None and row.vocab != vocab) or name[:1].islower():
            continue
        out.append((name, MODULE.get(row.roots[0], row.roots[0]) if row.roots else "sklearn"))
    return sorted(out)


ARGS = {"VarianceThreshold": "threshold=0.05"}  # (a threshold of 0 drops only constant columns: see below)
TRANSFORMERS = [r for r in _rows(sklearn, "transformer", vocab=False)
                if r[0] not in ("ColumnTransformer", "FeatureUnion", "RFE", "RFECV", "SelectFromModel",
                                "SequentialFeatureSelector", "ExhaustiveFeatureSelector")]


@pytest.mark.parametrize("name, module", TRANSFORMERS, ids=[t[0] for t in TRANSFORMERS])
def test_transformer_fitted_before_the_split_leaks(name: str, module: str) -> None:
    imp = f"from {module} import {name}\n"
    args = ARGS.get(name, "")
    bad = imp + (f"Z = {name}({args}).fit_transform(X)\nZtr, Zte, ytr, yte = train_test_split(Z, y)\n"
                 "print(Ridge().fit(Ztr, ytr).score(Zte, yte))")
    good = imp + (f"Xtr, Xte, ytr, yte = train_test_split(X, y)\nt = {name}().fit(Xtr)\n"
                  "print(Ridge().fit(t.transform(Xtr), ytr).score(t.transform(Xte), yte))")
    assert "LEAK001" in _ids(bad)
    assert not _ids(good)


QUIET = _rows(sklearn, "stateless") + _rows(sklearn, "transformer", vocab=True)


def test_a_variance_filter_that_drops_only_constant_columns_learns_no_statistic() -> None:
    """`VarianceThreshold()` (threshold 0) keeps every column that varies at all: fitted on every row, it leaks
    nothing of how values are distributed; with a threshold it chooses columns by their variance."""
    code = ("from sklearn.feature_selection import VarianceThreshold\nZ = VarianceThreshold({args}).fit_transform(X)\n"
            "Ztr, Zte, ytr, yte = train_test_split(Z, y)\nprint(Ridge().fit(Ztr, ytr).score(Zte, yte))")
    for args in ("", "threshold=0", "0.0"):
        assert "LEAK001" not in _ids(code.format(args=args)), args
    assert "LEAK001" in _ids(code.format(args="threshold=0.05"))


@pytest.mark.parametrize("name, module", QUIET, ids=[t[0] for t in QUIET])
def test_rows_that_learn_no_statistics_never_leak(name: str, module: str) -> None:
    code = (f"from {module} import {name}\nZ = {name}().fit_transform(X)\n"
            "Ztr, Zte, ytr, yte = train_test_split(Z, y)\nprint(Ridge().fit(Ztr, ytr).score(Zte, yte))")
    assert "LEAK001" not in _ids(code)


MODELS = [r for r in _rows(sklearn, "model") + _rows(boosting, "model")
          if not r[0].startswith(("Stacking", "Voting", "OneVs", "MultiOutput", "Calibrated", "TransformedTarget",
                                  "Bagging", "Balanced", "EasyEnsemble", "RUSBoost"))]
@pytest.mark.parametrize("name, module", MODELS, ids=[t[0] for t in MODELS])
def test_model_fitted_on_all_rows_then_scored_on_a_part_overlaps(name: str, module: str) -> None:
    # the scan is static: the import only has to name the library the class comes from
    imp = f"from {'sklearn' if module == 'sklearn.preprocessing' else module} import {name}\n"
    bad = imp + f"Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = {name}().fit(X, y)\nprint(m.predict(Xte))"
    good = imp + f"Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = {name}().fit(Xtr, ytr)\nprint(m.predict(Xte))"
    assert "LEAK003" in _ids(bad)
    assert not _ids(good) & {"LEAK001", "LEAK002", "LEAK003", "LEAK007"}


OVERSAMPLERS = _rows(sklearn, "resampler")


@pytest.mark.parametrize("name, module", OVERSAMPLERS, ids=[t[0] for t in OVERSAMPLERS])
def test_oversampling_before_the_split_puts_copies_on_both_sides(name: str, module: str) -> None:
    imp = f"from imblearn.over_sampling import {name}\n" if "SMOTEENN" not in name and "SMOTETomek" not in name \
        else f"from imblearn.combine import {name}\n"
    bad = imp + (f"Xr, yr = {name}().fit_resample(X, y)\nXtr, Xte, ytr, yte = train_test_split(Xr, yr)\n"
                 "print(Ridge().fit(Xtr, ytr).score(Xte, yte))")
    good = imp + (f"Xtr, Xte, ytr, yte = train_test_split(X, y)\nXr, yr = {name}().fit_resample(Xtr, ytr)\n"
                  "print(Ridge().fit(Xr, yr).score(Xte, yte))")
    assert "LEAK002" in _ids(bad)
    assert not _ids(good)


METRICS = sorted(n for n, r in sklearn.FUNCS.items() if r.effect == "metric" and not n.startswith("plot_")
                 and n not in ("auc", "silhouette_score", "roc_curve", "precision_recall_curve"))


@pytest.mark.parametrize("name", METRICS)
def test_metric_reads_predictions_on_training_rows(name: str) -> None:
    code = f"from sklearn.metrics import {name}\nm = Ridge().fit(X, y)\nprint({name}(y, m.predict(X)))"
    assert "LEAK007" in _ids(code)


def test_keras_and_statsmodels_rows_resolve() -> None:
    assert keras.CLASSES["Normalization"].role == "transformer" and not keras.CLASSES["Normalization"].vocab
    assert statsmodels_api.CLASSES["OLS"].bound == (1, 0)


@pytest.mark.parametrize("name, leaks", [("OneHotEncoder", False), ("OrdinalEncoder", False),
                                         ("CountEncoder", True), ("TargetEncoder", True)])
def test_category_encoders_through_their_module_alias(name: str, leaks: bool) -> None:
    """`ce.OneHotEncoder` renames categories as scikit-learn's does; `ce.CountEncoder` learns their frequencies."""
    code = (f"import category_encoders as ce\nZ = ce.{name}(cols=['c']).fit_transform(X, y)\n"
            "Ztr, Zte, ytr, yte = train_test_split(Z, y)\nprint(Ridge().fit(Ztr, ytr).score(Zte, yte))")
    assert ("LEAK001" in _ids(code)) is leaks


@pytest.mark.parametrize("made, leaks", [("OneHotEncoder()", False), ("OrdinalEncoder(encoding_method='arbitrary')",
                                                                      False),
                                         ("OrdinalEncoder()", True), ("RareLabelEncoder(tol=0.05)", True),
                                         ("MeanEncoder()", True)])
def test_feature_engine_encoders_rename_or_learn(made: str, leaks: bool) -> None:
    """feature_engine's one-hot and arbitrary ordinal codes rename categories; its default ordinal encoder orders
    them by the target's mean, and rare-label grouping counts them: fitted before the split, those leak."""
    code = (f"from feature_engine.encoding import {made.split('(')[0]}\nZ = {made}.fit_transform(X, y)\n"
            "Ztr, Zte, ytr, yte = train_test_split(Z, y)\nprint(Ridge().fit(Ztr, ytr).score(Zte, yte))")
    assert ("LEAK001" in _ids(code)) is leaks


@pytest.mark.parametrize("module, name, rule", [
    ("sklearn.decomposition", "FutureReducer", "LEAK001"), ("sklearn.feature_selection", "FutureSelect", "LEAK001"),
    ("sklearn.ensemble", "FutureForest", "LEAK003")])
def test_an_estimator_the_table_does_not_name_is_known_by_its_module(module: str, name: str, rule: str) -> None:
    """scikit-learn's module says what a class is: a new or renamed reducer learns from the rows it is fitted on,
    and a new ensemble is a model."""
    head = f"from {module} import {name}\nfrom sklearn.metrics import r2_score\n"
    if rule == "LEAK001":
        bad = (head + f"Z = {name}().fit_transform(X, y)\nZtr, Zte, ytr, yte = train_test_split(Z, y, random_state=0)\n"
               "print(Ridge().fit(Ztr, ytr).score(Zte, yte))")
    else:
        bad = (head + f"m = {name}().fit(X, y)\nXtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\n"
               "print(r2_score(yte, m.predict(Xte)))")
    assert rule in _ids(bad)
    assert not _ids(bad.replace(f"from {module} import", "from elsewhere import"))


def test_a_library_module_bound_to_a_name_resolves_its_functions() -> None:
    """`imdb = keras.datasets.imdb` names the module: `imdb.load_data()` is Keras's declared train/test split, and
    two models scored on its test part are compared there."""
    src = ("from tensorflow import keras\nimdb = keras.datasets.imdb\n"
           "(x_tr, y_tr), (x_te, y_te) = imdb.load_data(num_words=1000)\n"
           "for units in [8, 32]:\n"
           "    m = keras.Sequential([keras.layers.Dense(units), keras.layers.Dense(1)])\n"
           "    m.fit(x_tr, y_tr)\n    print(m.evaluate(x_te, y_te))\n")
    assert {f.rule_id for f in analyze_sources([src]).findings} & {"LEAK004", "LEAK005"}


@pytest.mark.parametrize("module, made, leaks", [
    ("discretisation", "EqualFrequencyDiscretiser(q=5)", True), ("transformation", "YeoJohnsonTransformer()", True),
    ("imputation", "RandomSampleImputer()", True), ("imputation", "EndTailImputer()", True),
    ("selection", "DropCorrelatedFeatures(threshold=0.9)", True),
    ("imputation", "ArbitraryNumberImputer(arbitrary_number=-1)", False), ("transformation", "LogTransformer()", False),
    ("transformation", "PowerTransformer(exp=0.5)", False), ("imputation", "CategoricalImputer()", False),
    ("imputation", "CategoricalImputer(imputation_method='frequent')", True)])
def test_feature_engine_transformers_learn_or_compute_per_row(module: str, made: str, leaks: bool) -> None:
    """Bin edges, power lambdas, tail values, the values to sample from and the correlated columns to drop are
    learned from the rows fitted on; a given number, a log or a fixed power is computed row by row."""
    code = (f"from feature_engine.{module} import {made.split('(')[0]}\nZ = {made}.fit_transform(X, y)\n"
            "Ztr, Zte, ytr, yte = train_test_split(Z, y)\nprint(Ridge().fit(Ztr, ytr).score(Zte, yte))")
    assert ("LEAK001" in _ids(code)) is leaks


@pytest.mark.parametrize("made, leaks", [("CategoricalImputer()", True),
                                         ("CategoricalImputer(strategy='constant', fill_value='none')", False)])
def test_sklearn_pandas_categorical_imputer_learns_the_mode(made: str, leaks: bool) -> None:
    """sklearn-pandas fills the most frequent value it saw by default: fitted before the split, the held-out rows'
    own values chose it; a constant fill learns nothing."""
    code = (f"from sklearn_pandas import CategoricalImputer\nX['c'] = {made}.fit_transform(X['c'])\n"
            "Xtr, Xte, ytr, yte = train_test_split(X, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))")
    assert ("LEAK001" in _ids(code)) is leaks
