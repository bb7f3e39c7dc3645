# ruff: noqa: E501  (the bad/good pairs read best one statement per line)
"""Scores the detectors must see wherever they are read: predictions tabulated against the labels, the data a fit
watches while it trains (a part of the very rows it trains on), watched data of a fit run once per call of a
notebook function, columns chosen by a model's importances, folds scored in a comprehension or through joblib's
`Parallel(...)(delayed(f)(...) for ...)`, scores computed by `map(lambda ...)` over lists of parts, and plots that
score a fitted model on the rows they are given (`ConfusionMatrixDisplay.from_estimator(model, X, y)`).

Each case is a bad/good pair of whole notebooks (cells separated by `# %%`) run through the real engine."""

from __future__ import annotations

import pytest

from .pairs import check_pair, leak_ids

PRELUDE = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split, KFold
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from tensorflow import keras
import lightgbm as lgb
df = pd.read_csv("table.csv")
X, y = df.drop(columns=["label"]), df["label"]"""

SPLIT = """Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=3)
"""

NET = """net = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
net.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
"""

FOLDS = """def fold_models(data, target):
    models = []
    for tr, va in KFold(4, shuffle=True, random_state=0).split(data):
        m = lgb.LGBMClassifier(n_estimators=500)
        m.fit(data.iloc[tr], target.iloc[tr], early_stopping_rounds=20,
              eval_set=[(data.iloc[tr], target.iloc[tr]), (data.iloc[va], target.iloc[va])])
        models.append(m)
    return models
"""

IMPORTANCE = """imp = pd.Series(rf.feature_importances_, index=X.columns).sort_values(ascending=False)
top = list(imp.head(8).index)
"""

FOLD_SCORE = """def fold_score(data, tr, va):
    m = LogisticRegression().fit(data[tr], y.iloc[tr])
    return m.score(data[va], y.iloc[va])
"""

PAIRS = [
    ("predictions-tabulated-against-the-labels", "LEAK007",
     SPLIT + "clf = LogisticRegression().fit(Xtr, ytr)\n# %%\nprint(pd.crosstab(ytr, clf.predict(Xtr)))",
     SPLIT + "clf = LogisticRegression().fit(Xtr, ytr)\n# %%\nprint(pd.crosstab(yte, clf.predict(Xte)))"),
    ("scores-computed-by-map-over-pairs-of-parts", "LEAK007",
     SPLIT + "clf = LogisticRegression().fit(Xtr, ytr)\n"
     "print(list(map(lambda a, b: round(clf.score(a, b) * 100, 2), [Xtr, Xte], [ytr, yte])))",
     SPLIT + "clf = LogisticRegression().fit(Xtr, ytr)\n"
     "print(list(map(lambda a, b: round(clf.score(a, b) * 100, 2), [Xte], [yte])))"),
    ("an-estimator-plot-scores-the-rows-it-is-given", "LEAK007",
     SPLIT + "from sklearn.metrics import ConfusionMatrixDisplay\nclf = LogisticRegression().fit(Xtr, ytr)\n"
     "ConfusionMatrixDisplay.from_estimator(clf, Xtr, ytr)",
     SPLIT + "from sklearn.metrics import ConfusionMatrixDisplay\nclf = LogisticRegression().fit(Xtr, ytr)\n"
     "ConfusionMatrixDisplay.from_estimator(clf, Xte, yte)"),
    ("an-estimator-plot-of-a-model-fitted-on-every-row", "LEAK003",
     SPLIT + "from sklearn.metrics import RocCurveDisplay\nclf = LogisticRegression().fit(X, y)\n"
     "RocCurveDisplay.from_estimator(clf, Xte, yte)",
     SPLIT + "from sklearn.metrics import RocCurveDisplay\nclf = LogisticRegression().fit(Xtr, ytr)\n"
     "RocCurveDisplay.from_estimator(clf, Xte, yte)"),
    ("validation-data-a-part-of-the-rows-trained-on", "LEAK003",
     SPLIT + NET + "net.fit(X, y, epochs=5, validation_data=(Xte, yte))",
     SPLIT + NET + "net.fit(Xtr, ytr, epochs=5, validation_data=(Xte, yte))"),
    ("watched-data-of-a-fit-a-notebook-function-runs-per-call", "LEAK003",
     "def fit_all(data, target, part):\n    m = lgb.LGBMClassifier()\n    m.fit(data, target, eval_set=[part])\n    return m\n"
     + SPLIT + "fit_all(X, y, (Xte, yte))",
     FOLDS + SPLIT + "first = fold_models(Xtr, ytr)\n# %%\nsecond = fold_models(X, y)"),
    ("columns-chosen-by-a-model-fitted-on-every-row", "LEAK001",
     "rf = RandomForestClassifier(random_state=0).fit(X, y)\n" + IMPORTANCE + SPLIT.replace("(X, y", "(X[top], y")
     + "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
     SPLIT + "rf = RandomForestClassifier(random_state=0).fit(Xtr, ytr)\n" + IMPORTANCE
     + "print(LogisticRegression().fit(Xtr[top], ytr).score(Xte[top], yte))"),
    ("array-columns-chosen-by-a-model-fitted-on-every-row", "LEAK001",
     "A = X.values\nrf = RandomForestClassifier().fit(A, y)\ntop = np.argsort(rf.feature_importances_)[::-1][:5]\n"
     "Atr, Ate, ytr, yte = train_test_split(A[:, top], y, random_state=0)\n"
     "print(LogisticRegression().fit(Atr, ytr).score(Ate, yte))",
     "A = X.values\nAtr, Ate, ytr, yte = train_test_split(A, y, random_state=0)\n"
     "rf = RandomForestClassifier().fit(Atr, ytr)\ntop = np.argsort(rf.feature_importances_)[::-1][:5]\n"
     "print(LogisticRegression().fit(Atr[:, top], ytr).score(Ate[:, top], yte))"),
    ("folds-scored-in-a-comprehension", "LEAK001",
     "from sklearn.preprocessing import StandardScaler\nXs = StandardScaler().fit_transform(X)\n" + FOLD_SCORE
     + "print(np.mean([fold_score(Xs, tr, va) for tr, va in KFold(5, shuffle=True).split(Xs)]))",
     "Xs = X.values\n" + FOLD_SCORE
     + "print(np.mean([fold_score(Xs, tr, va) for tr, va in KFold(5, shuffle=True).split(Xs)]))"),
    ("folds-scored-through-joblib-parallel", "LEAK001",
     "from joblib import Parallel, delayed\nfrom sklearn.preprocessing import StandardScaler\n"
     "Xs = StandardScaler().fit_transform(X)\n" + FOLD_SCORE
     + "scores = Parallel(n_jobs=2)(delayed(fold_score)(Xs, tr, va) for tr, va in KFold(5).split(Xs))",
     "from joblib import Parallel, delayed\nXs = X.values\n" + FOLD_SCORE
     + "scores = Parallel(n_jobs=2)(delayed(fold_score)(Xs, tr, va) for tr, va in KFold(5).split(Xs))"),
    ("a-range-made-into-a-feature-column-and-scored-on-itself", "LEAK007",
     "x = np.arange(15).reshape(-1, 1)\nt = np.array([0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1])\n"
     "clf = LogisticRegression(C=0.5).fit(x, t)\n# %%\nprint(clf.score(x, t))",
     "x = np.arange(15).reshape(-1, 1)\nt = np.array([0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1])\n"
     "clf = LogisticRegression(C=0.5).fit(x[:10], t[:10])\n# %%\nprint(clf.score(x[10:], t[10:]))"),
]


@pytest.mark.parametrize("case,rule,bad,good", PAIRS, ids=[p[0] for p in PAIRS])
def test_bad_leaks_and_good_is_clean(case: str, rule: str, bad: str, good: str) -> None:
    check_pair(PRELUDE, case, rule, bad, good)


def test_training_rows_watched_beside_the_validation_rows_are_no_overlap() -> None:
    """`eval_set=[(X_tr, y_tr), (X_va, y_va)]`: the training pair is watched for its curve, not reported as a
    score of held-out rows."""
    code = SPLIT + "m = lgb.LGBMClassifier().fit(Xtr, ytr, eval_set=[(Xtr, ytr), (Xte, yte)])"
    assert not leak_ids(PRELUDE, code)


def test_a_plotted_importance_chooses_nothing() -> None:
    """Importances of a model fitted on every row, only plotted: no column is chosen by them."""
    code = ("rf = RandomForestClassifier().fit(X, y)\npd.Series(rf.feature_importances_, index=X.columns).plot.bar()\n"
            + SPLIT + "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))")
    assert not leak_ids(PRELUDE, code)


def test_a_resampling_is_never_named_as_the_split() -> None:
    """A statistic learned before an oversampler and cross-validation: the folds hold its rows out, and the
    message does not call the oversampler a split."""
    from jupyter_trainguard.engine import analyze_sources

    code = ("from imblearn.over_sampling import RandomOverSampler\nfrom sklearn.model_selection import cross_val_score\n"
            "X = X.fillna(X.mean())\nXr, yr = RandomOverSampler().fit_resample(X, y)\n"
            "print(cross_val_score(LogisticRegression(), Xr, yr, cv=5).mean())")
    rep = analyze_sources([PRELUDE, code])
    prep = [f for f in rep.findings if f.rule_id == "LEAK001" and f.evidence.get("transformer") != "oversampler"]
    assert prep, [f.rule_id for f in rep.findings]
    for f in prep:  # (the oversampler's own LEAK001, for the class counts it read, names it: that is right)
        assert "fit_resample" not in f.message.split("evaluates on")[0], f.message
        assert "the very rows" in f.message
        assert not f.evidence.get("split"), f.evidence


def test_predictions_over_all_rows_beside_a_held_out_score_are_a_plot() -> None:
    """A fitted line drawn over every row (training rows included) is no evaluation when the model's score is
    taken on the held-out rows; with no held-out score, that picture is the only evaluation and it overlaps."""
    fit = SPLIT + "m = LogisticRegression().fit(Xtr, ytr)\n"
    plot = "import matplotlib.pyplot as plt\nplt.plot(m.predict(X))\nplt.plot(y.values)"
    assert not leak_ids(PRELUDE, fit + "print(m.score(Xte, yte))\n" + plot)
    assert "LEAK003" in leak_ids(PRELUDE, fit + plot)


def test_a_clusterer_on_its_own_rows() -> None:
    """How well clusters separate the rows they were found in reads no label; cluster labels nothing scores are
    no evaluation; the clusters set against the true labels of those rows are scored on training rows."""
    fit = "from sklearn.cluster import KMeans\nfrom sklearn.metrics import silhouette_score, accuracy_score\nkm = KMeans(3).fit(X)\n"
    assert not leak_ids(PRELUDE, fit + "print(silhouette_score(X, km.predict(X)))\ngroups = km.predict(df.drop(columns=['label']))")
    assert "LEAK007" in leak_ids(PRELUDE, fit + "print(accuracy_score(y, km.predict(X)))")


def test_labels_made_by_another_model_are_the_truth_not_a_score_of_it() -> None:
    """`y_pseudo = iso.predict(X)` used as `y_true`: the anomaly detector makes the labels the classifier is scored
    against; it is not evaluated on its own training rows. The classifier scored on its training rows still is."""
    code = ("from sklearn.ensemble import IsolationForest\nfrom sklearn.metrics import f1_score\n"
            "iso = IsolationForest().fit(X)\ny_pseudo = np.where(iso.predict(X) == -1, 1, 0)\n"
            "Xa, Xb, ya, yb = X[:800], X[800:], y_pseudo[:800], y_pseudo[800:]\n"
            "clf = RandomForestClassifier().fit(Xa, ya)\nprint(f1_score(yb, clf.predict(Xb)))")
    assert "LEAK007" not in leak_ids(PRELUDE, code)
    assert "LEAK007" in leak_ids(PRELUDE, code + "\nprint(f1_score(ya, clf.predict(Xa)))")
