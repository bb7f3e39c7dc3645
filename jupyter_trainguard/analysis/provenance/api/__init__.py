"""The declarative API table: one row per library class or function, saying what it fits, what it returns and
which rows and statistics flow through. `lookup_class`/`lookup_func` resolve a qualified name to its row;
each library has its own module. Unknown calls are not in the table: the interpreter keeps their provenance
conservatively (rows and statistics of the data arguments flow through) and never invents a leak from them."""

from __future__ import annotations

from functools import lru_cache

from . import (
    boosting,
    darts_api,
    fastai_api,
    feature_engine_api,
    forecasting,
    gensim_api,
    keras,
    model_zoo,
    nltk_api,
    numpy_api,
    pandas_api,
    pyspark_api,
    sklearn,
    sklearn_pandas_api,
    statsmodels_api,
    surprise_api,
    torch_api,
)
from .table import ClassRow, FuncRow

MODULES = (sklearn, pandas_api, numpy_api, keras, torch_api, boosting, statsmodels_api, forecasting,
           feature_engine_api, sklearn_pandas_api, model_zoo, gensim_api, nltk_api, surprise_api,
           pyspark_api, fastai_api, darts_api)
_MODEL_SUFFIXES = ("Classifier", "Regressor", "Regression", "SVC", "SVR", "NB", "Ridge", "Lasso", "ElasticNet",
                   "Perceptron", "Estimator", "Booster")
_ANY_LIBRARY_MODELS = ("Classifier", "Regressor", "Regression")
_TRANSFORMER_SUFFIXES = ("Scaler", "Encoder", "Imputer", "Vectorizer", "Selector")
_ML_ROOTS = ("sklearn", "xgboost", "lightgbm", "catboost", "imblearn", "keras", "tensorflow", "statsmodels",
             "category_encoders", "feature_engine", "skopt", "mlxtend", "tpot", "optuna")


def _root(q: str) -> str:
    return q.split(".", 1)[0]


@lru_cache(maxsize=4096)
def lookup_class(q: str) -> ClassRow | None:
    """The row of a class constructor by qualified name (`sklearn.preprocessing.StandardScaler`)."""
    leaf = q.rsplit(".", 1)[-1]
    root = _root(q)
    for mod in MODULES:
        row = mod.CLASSES.get(leaf)
        if row is not None and (not row.roots or root in row.roots or root == leaf):
            return row
    if root == "torch" and ".nn." in q and leaf[:1].isupper():
        return ClassRow("loss") if leaf.endswith("Loss") else ClassRow("torch")
    if root in ("torchvision", "timm") and leaf[:1].isupper() and (".models" in q or root == "timm"):
        return ClassRow("torch")
    if root == "transformers" and leaf[:1].isupper() and ("For" in leaf or leaf.endswith("Model")):
        return ClassRow("torch")
    if root == "sklearn" and leaf[:1].isupper() and q.count(".") >= 2:
        module = q.split(".")[1]
        if module in sklearn.TRANSFORMER_MODULES:
            return ClassRow("transformer")
        if module in sklearn.MODEL_MODULES:
            return ClassRow("model")
    if root in _ML_ROOTS or root == leaf:
        if leaf.endswith(_TRANSFORMER_SUFFIXES):
            return ClassRow("transformer")
        if leaf.endswith(_MODEL_SUFFIXES) and (root in _ML_ROOTS or leaf[0].isupper()):
            return ClassRow("model")
    if leaf[:1].isupper() and leaf.endswith(_ANY_LIBRARY_MODELS):
        return ClassRow("model")  # another library's estimator (`FMRegression`, `KNNClassifier`): fit/predict
    return None


NETWORK_FACTORIES = frozenset({"timm.create_model", "torch.hub.load", "torchvision.models.get_model"})
_NOT_NETWORKS = frozenset({"list_models", "get_model_weights", "get_weight", "get_model_builder"})


@lru_cache(maxsize=4096)
def builds_network(q: str) -> bool:
    """A function returning a network, as its class would: torchvision's builders (`models.resnet50(weights=...)`,
    `models.detection.fasterrcnn_resnet50_fpn()`), `timm.create_model`, `torch.hub.load`, and `from_pretrained` of
    a torch model class (`AutoModelForSequenceClassification.from_pretrained(...)`)."""
    if q in NETWORK_FACTORIES:
        return True
    parts = q.split(".")
    if parts[:2] == ["torchvision", "models"] and len(parts) > 2:
        return all(p[:1].islower() for p in parts[2:]) and parts[-1] not in _NOT_NETWORKS
    cls, _, leaf = q.rpartition(".")
    row = lookup_class(cls) if leaf == "from_pretrained" and not cls.rsplit(".", 1)[-1].startswith("TF") else None
    return row is not None and row.role == "torch"


@lru_cache(maxsize=4096)
def lookup_func(q: str) -> FuncRow | None:
    """The row of a function by qualified name (`sklearn.model_selection.train_test_split`)."""
    leaf = q.rsplit(".", 1)[-1]
    root = _root(q)
    for mod in MODULES:
        row = mod.FUNCS.get(leaf)
        if row is not None and (not row.roots or root in row.roots or root == leaf and mod is sklearn and "_" in leaf):
            return row  # (a bare `train_test_split` the notebook never imports: a cell that imported it is missing)
    if root == "sklearn" and ".metrics" in q:
        return FuncRow("metric")
    if leaf.endswith(("_score", "_error")) and root in ("sklearn", "", leaf, "keras", "tensorflow", "torchmetrics"):
        return FuncRow("metric")
    return None


__all__ = ["ClassRow", "FuncRow", "builds_network", "lookup_class", "lookup_func"]
