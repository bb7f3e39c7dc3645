"""Name-based hints: split roles read from variable names, ML library class tables."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from functools import lru_cache

_TRAIN = {"train", "tr", "trn", "training", "trainval", "fit"}
_TEST = {"test", "te", "tst", "testing", "holdout"}
_VAL = {"val", "valid", "validation", "dev", "va", "vl"}
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_GLUED = re.compile(r"^(x|y|df|data|ds|dataset|features|labels|target)?(train|test|val|valid|dev)"
                    r"(x|y|df|data|set|loader|ds|dataset|dl|labels|features|target)?$")


@lru_cache(maxsize=4096)
def role_from_name(name: str) -> str | None:
    """'train' | 'val' | 'test' when the variable name says so (X_test, val_df, testloader), else None."""
    toks = [t.lower() for t in _WORDS.findall(name)]
    found = set()
    for t in toks:
        if t in _TRAIN:
            found.add("train")
        elif t in _TEST:
            found.add("test")
        elif t in _VAL:
            found.add("val")
        else:
            m = _GLUED.match(t)
            if m:
                w = m.group(2)
                found.add("train" if w == "train" else "test" if w == "test" else "val")
    if not found:
        return None
    if "train" in found:
        return "train" if "test" not in found else None
    if len(found) > 1:
        return None
    return found.pop()


TRANSFORMERS = frozenset({
    "StandardScaler", "MinMaxScaler", "RobustScaler", "MaxAbsScaler", "QuantileTransformer", "PowerTransformer",
    "SimpleImputer", "KNNImputer", "IterativeImputer", "TargetEncoder", "PCA", "TruncatedSVD", "KernelPCA",
    "IncrementalPCA", "NMF", "FastICA", "SelectKBest", "SelectPercentile", "RFE", "RFECV", "SelectFromModel",
    "VarianceThreshold", "TfidfVectorizer", "CountVectorizer", "TfidfTransformer", "KBinsDiscretizer",
    "ColumnTransformer", "make_column_transformer", "FeatureAgglomeration", "GenericUnivariateSelect",
    "SequentialFeatureSelector", "Tokenizer", "TextVectorization", "Normalization", "MeanEncoder",
    "WOEEncoder", "CatBoostEncoder", "LeaveOneOutEncoder", "SelectFdr", "SelectFpr", "SelectFwe",
})
RESAMPLERS_UP = ("SMOTE", "ADASYN", "RandomOverSampler", "BorderlineSMOTE", "SVMSMOTE", "KMeansSMOTE",
                 "SMOTENC", "SMOTEN", "SMOTEENN", "SMOTETomek")
PIPELINES = frozenset({"Pipeline", "make_pipeline"})
SEARCHES = frozenset({"GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV", "HalvingRandomSearchCV",
                      "BayesSearchCV", "TuneSearchCV"})
SPLITTERS = frozenset({"KFold", "StratifiedKFold", "GroupKFold", "RepeatedKFold", "RepeatedStratifiedKFold",
                       "ShuffleSplit", "StratifiedShuffleSplit", "GroupShuffleSplit", "TimeSeriesSplit",
                       "LeaveOneOut", "StratifiedGroupKFold", "PredefinedSplit"})
CV_FUNCS = frozenset({"cross_val_score", "cross_validate", "cross_val_predict", "learning_curve",
                      "validation_curve", "permutation_test_score"})
ML_ROOTS = frozenset({"sklearn", "xgboost", "lightgbm", "catboost", "imblearn", "keras", "tensorflow",
                      "statsmodels", "torch", "torchvision", "transformers", "timm"})
MODEL_SUFFIXES = ("Classifier", "Regressor", "Regression", "SVC", "SVR", "NB", "Forest", "Boost", "KNN",
                  "Ridge", "Lasso", "ElasticNet", "Sequential", "Model", "Network", "Net", "Booster",
                  "Perceptron", "LinearSVC", "NuSVC", "Trees", "Estimator")
TORCH_MODULE_BASES = ("Module", "LightningModule")
METRIC_HINTS = ("_score", "_error", "_loss", "classification_report", "confusion_matrix", "roc_curve",
                "precision_recall_curve", "log_loss", "r2_score", "mean_squared", "mean_absolute")
PREDICT_METHODS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "score",
                             "evaluate", "predict_classes", "predict_on_batch", "test_on_batch"})
EVAL_KWARGS = frozenset({"eval_set", "validation_data", "evals", "valid_sets", "eval_dataset", "val_dataloaders",
                         "eval_data", "valid_data", "X_val", "validation_set", "eval_X"})
TIME_OPS = frozenset({"shift", "rolling", "diff", "pct_change", "ewm", "resample", "asfreq", "expanding"})
DATE_WORD = re.compile(r"(date|time|timestamp|datetime|period|^ds$|^dt$|month|week|year)", re.I)


_HOLD_WORDS = ("test", "valid", "validation", "val ", "val_", "val:", "holdout", "hold-out", "unseen", "dev ")


def string_texts(node: ast.AST) -> Iterable[str]:
    """String literals of a statement or call, looking only one level into calls/f-strings/keywords."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        for v in node.values:
            yield from string_texts(v)
    elif isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, (ast.Constant, ast.JoinedStr)):
            yield from string_texts(node.func.value)  # "Test acc: {}".format(acc)
        for a in node.args:
            yield from string_texts(a)
        for k in node.keywords:
            yield from string_texts(k.value)
    elif isinstance(node, ast.Expr):
        yield from string_texts(node.value)
    elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        yield from string_texts(node.value)
    elif isinstance(node, ast.BinOp):  # "Test acc: %.2f" % acc
        yield from string_texts(node.left)
    elif isinstance(node, (ast.Dict, ast.Tuple, ast.List)):
        for v in (node.keys + node.values if isinstance(node, ast.Dict) else node.elts):
            if v is not None:
                yield from string_texts(v)


def label_says_holdout(node: ast.AST) -> bool:
    texts = [t.lower() for t in string_texts(node)]
    if not texts:
        return False
    joined = " ".join(texts)
    return any(w in joined for w in _HOLD_WORDS) and "train" not in joined


METRIC_WORDS = frozenset({"metric", "metrics", "score", "scores", "scoring", "eval", "evaluate", "evaluation",
                           "error", "errors", "accuracy", "report", "confusion", "rmse", "mae", "mse", "auc", "f1",
                           "r2", "mape"})


def scores_by_name(leaf: str) -> bool:
    """`calculate_metrics`, `evaluateModel`, `print_scores`: a word of the function's name says it scores."""
    return bool(METRIC_WORDS & {w.lower() for w in re.split(r"_|(?<=[a-z])(?=[A-Z])", leaf)})


def loads_by_name(leaf: str) -> bool:
    """`pickle.load`, `read_table`, `yf.download`, `get_data`: a helper library's loader by name (new rows)."""
    return leaf in ("load", "loads", "read", "load_data", "get_data", "fetch", "query", "read_data", "download",
                    "DataReader") or leaf.startswith(("load_", "read_", "get_data", "fetch_"))
