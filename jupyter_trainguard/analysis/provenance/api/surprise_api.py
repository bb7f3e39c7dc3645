"""Surprise (recommender systems): ratings loaded into a `Dataset` keep their rows; `train_test_split(data)` splits
them as scikit-learn's does (a train set and a test set); an algorithm is fitted on a train set (`algo.fit(ts)`),
predicts a list of ratings with `algo.test(testset)`, and `accuracy.rmse(predictions)` scores them;
`cross_validate(algo, data)` cross-validates and `GridSearchCV(SVD, grid).fit(data)` searches on the rows given;
`KFold().split(data)` yields each fold's train set and test set.
`build_anti_testset()` lists pairs nobody rated: new rows, not the train set's."""

from __future__ import annotations

from .table import ClassRow, FuncRow

SP = ("surprise",)
CLASSES: dict[str, ClassRow] = {
    **{n: ClassRow("model", SP) for n in (
        "SVD", "SVDpp", "NMF", "KNNBasic", "KNNWithMeans", "KNNWithZScore", "KNNBaseline", "BaselineOnly",
        "NormalPredictor", "SlopeOne", "CoClustering")},
    # splitters whose `split(data)` yields the (trainset, testset) pairs themselves, not row positions
    **{n: ClassRow("splitter", SP) for n in ("KFold", "RepeatedKFold", "ShuffleSplit", "LeaveOneOut",
                                             "PredefinedKFold")},
    "GridSearchCV": ClassRow("search", SP),
    "RandomizedSearchCV": ClassRow("search", SP),
}
FUNCS: dict[str, FuncRow] = {
    "load_from_df": FuncRow("build", SP),
    **{n: FuncRow("read", SP) for n in ("load_builtin", "load_from_file", "load_from_folds")},
    "train_test_split": FuncRow("split", SP),
    "cross_validate": FuncRow("cv", SP),
    **{n: FuncRow("metric", SP) for n in ("rmse", "mae", "mse", "fcp")},
}
