"""Libraries that fit a whole zoo of models in one call and rank them (lazypredict): `LazyClassifier().fit(X_train,
X_test, y_train, y_test)` trains every model on the first pair and scores each on the second, so the second pair
chooses the model, as a hyperparameter search validated on it does."""

from __future__ import annotations

from .table import ClassRow

ZOO = ("lazypredict",)
CLASSES: dict[str, ClassRow] = {
    "LazyClassifier": ClassRow("tuner", ZOO),
    "LazyRegressor": ClassRow("tuner", ZOO),
}
FUNCS: dict = {}
