"""XGBoost, LightGBM and CatBoost: sklearn-style wrappers, native data containers and `train` functions."""

from __future__ import annotations

from .table import ClassRow, FuncRow

GB = ("xgboost", "lightgbm", "catboost")
CLASSES: dict[str, ClassRow] = {
    **{n: ClassRow("model", GB) for n in ("XGBClassifier", "XGBRegressor", "XGBRanker", "XGBRFClassifier",
                                          "XGBRFRegressor", "LGBMClassifier", "LGBMRegressor", "LGBMRanker",
                                          "CatBoostClassifier", "CatBoostRegressor", "CatBoostRanker")},
    **{n: ClassRow("data", GB) for n in ("DMatrix", "Dataset", "Pool", "DeviceQuantileDMatrix", "QuantileDMatrix")},
}
FUNCS: dict[str, FuncRow] = {
    "train": FuncRow("train", GB),
    "cv": FuncRow("cv", GB),
}
