"""The metric the notebook reported: its readable name, how to compute it again, and how to word a change."""

from __future__ import annotations

import math
from typing import Any

from .scene import ScoreCall

NAMES = {
    "accuracy_score": "accuracy",
    "balanced_accuracy_score": "balanced accuracy",
    "f1_score": "F1",
    "roc_auc_score": "ROC AUC",
    "average_precision_score": "average precision",
    "precision_score": "precision",
    "recall_score": "recall",
    "r2_score": "R²",
    "mean_squared_error": "MSE",
    "root_mean_squared_error": "RMSE",
    "mean_absolute_error": "MAE",
    "log_loss": "log loss",
    "matthews_corrcoef": "MCC",
    "explained_variance_score": "explained variance",
    "median_absolute_error": "median absolute error",
}
LOWER_IS_BETTER = ("_error", "log_loss")
UNIT_INTERVAL = {
    "accuracy_score",
    "balanced_accuracy_score",
    "f1_score",
    "roc_auc_score",
    "average_precision_score",
    "precision_score",
    "recall_score",
    "r2_score",
    "explained_variance_score",
    "matthews_corrcoef",
}


def metric_name(sc: ScoreCall, model: Any = None) -> str:
    """'accuracy', 'RMSE', 'accuracy (the estimator's score)', ..."""
    if sc.metric == "score":
        kind = getattr(model, "_estimator_type", None)
        if kind is None:
            tags = getattr(model, "__sklearn_tags__", None)
            try:
                kind = tags().estimator_type if tags else None
            except Exception:  # noqa: BLE001 - third-party tags
                kind = None
        return {"classifier": "accuracy", "regressor": "R²"}.get(kind or "", "score")
    if sc.metric == "mean_squared_error" and (sc.sqrt or sc.kwargs.get("squared") is False):
        return "RMSE"
    name = NAMES.get(sc.metric, sc.metric.replace("_", " "))
    avg = sc.kwargs.get("average")
    return f"{name} ({avg})" if isinstance(avg, str) and avg != "binary" else name


def lower_is_better(sc: ScoreCall) -> bool:
    return sc.metric != "score" and sc.metric.endswith(LOWER_IS_BETTER)


def in_points(sc: ScoreCall) -> bool:
    """Changes of metrics in [0, 1] are worded in percentage points; others relatively."""
    return sc.metric == "score" or (sc.metric in UNIT_INTERVAL and not sc.sqrt)


def compute(sc: ScoreCall, model: Any, x: Any, y: Any) -> float:
    """The metric of `model` on (x, y), computed the way the notebook did."""
    if sc.metric == "score":
        return float(model.score(x, y))
    import sklearn.metrics as skm

    fn = getattr(skm, sc.metric, None)
    if fn is None:
        raise LookupError(f"{sc.metric} is not a sklearn.metrics function")
    out = getattr(model, sc.method)(x)
    if sc.column is not None:
        out = out[:, sc.column]
    kwargs = dict(sc.kwargs)
    squared = kwargs.pop("squared", None)
    value = float(fn(y, out, **kwargs))
    return math.sqrt(value) if (sc.sqrt or squared is False) else value


def fmt(value: float) -> str:
    return f"{value:.3f}" if abs(value) < 1000 else f"{value:.4g}"


def change_text(sc: ScoreCall, before: float, after: float) -> str:
    """'−3.1 points' for metrics in [0, 1]; '+12.5%' for the others (relative to `before`)."""
    d = after - before
    if d == 0:
        return "±0.0 points" if in_points(sc) else "±0%"
    if in_points(sc):
        pts = abs(d) * 100
        return f"{'−' if d < 0 else '+'}{pts:.1f} points" if pts >= 0.1 else f"{'−' if d < 0 else '+'}{pts:.2g} points"
    if before == 0:
        return f"{'−' if d < 0 else '+'}{abs(d):.4g}"
    return relative(d, before)


def relative(d: float, before: float) -> str:
    """'+12.5%'; a change under 0.05% keeps two significant digits ('−0.0012%'), never '−0.0%'."""
    pct = abs(d / before) * 100
    return f"{'−' if d < 0 else '+'}{pct:.1f}%" if pct >= 0.05 else f"{'−' if d < 0 else '+'}{pct:.2g}%"


def reported_value(sc: ScoreCall, user_ns: dict[str, Any]) -> float | None:
    """The value the notebook holds in the variable the metric was assigned to (None when not a number)."""
    if sc.target is None or sc.target not in user_ns:
        return None
    value = user_ns[sc.target]
    if isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None
