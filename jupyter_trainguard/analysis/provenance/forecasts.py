"""Forecasts: a time-series model fitted on a history predicts the rows after it. `res.predict()` with nothing
given is in-sample; `start`/`end` given as rows of data name the rows forecast; a horizon (`forecast(steps=90)`,
`get_forecast(len(test))`, `predict(start=len(train), end=...)`, Prophet's `predict(make_future_dataframe(...))`)
names no rows. A metric that sets such a forecast against rows of labels tells which rows it forecast: those
rows, when the model was not fitted on any of them (a forecast is never of its own history)."""

from __future__ import annotations

import ast

from .api.forecasting import FORECAST
from .rows import overlap
from .values import Obj, Val

HORIZON = "forecast"  # the method recorded for an evaluation whose rows a horizon left unnamed


class Forecasts:
    """Mixin: the rows a forecaster predicts."""

    def fed_back(self, e: ast.Call) -> bool:
        """The call predicts from a window that the loop it runs in feeds its own predictions back into
        (`p = model.predict(batch)[0]; batch = np.append(batch[:, 1:, :], [[p]], axis=1)`): a recursive forecast
        of the rows after the window, not a prediction of the window's own rows."""
        return bool(e.args) and isinstance(e.args[0], ast.Name) and e.args[0].id in self.fed_back_names

    def forecast_rows(self, obj: Obj, e: ast.Call, kws: dict) -> Val | None:
        """The rows a model fitted on a history predicts without rows given: its own rows in-sample
        (`res.predict()`; `res.forecast()` is the step after them), the range `start`/`end` name
        (`predict(start=test.index[0], end=test.index[-1])`), or a horizon: rows the call does not name (no rows
        yet)."""
        attr = e.func.attr if isinstance(e.func, ast.Attribute) else ""
        in_sample = attr == "predict_in_sample" or attr == "predict" and not e.args and not e.keywords and \
            not obj.cls.startswith("pmdarima.")  # (its `predict()`: ten ahead; `forecast()`: the next step)
        if obj.bound is not None and in_sample:
            return obj.bound[0]
        named = [v for k in ("start", "end") if (v := kws.get(k)) is not None and v.is_data]
        if named:
            return self.derive(e, named)
        if obj.bound is not None or obj.cls.split(".", 1)[0] in FORECAST:
            return Val("data", rows=frozenset(), site=self.site(e))
        return None

    def forecast_scored(self, vals: list) -> None:
        """A metric sets forecasts of a horizon against rows of labels: those are the rows forecast."""
        flat = [v for v in vals if v is not None]
        labels = next((v for v in flat if v.kind == "data" and v.rows and not v.evals), None)
        if labels is None:
            return
        for v in flat:
            for ev in v.evals if v.kind == "pred" else ():
                if ev.method == HORIZON and not ev.data.rows and ev.fit is not None and \
                        overlap(ev.fit.rows, labels.rows) is None:
                    ev.data = labels


def recursive_inputs(loop: ast.For | ast.AsyncFor) -> frozenset[str]:
    """Names a loop's body predicts from (`p = model.predict(batch)`) and then rebinds from that prediction
    (`batch = np.append(batch[:, 1:, :], [[p]], axis=1)`), reading the body's assignments (inside `if`/`with`/`try`
    too, not inside nested loops, which are read when they run)."""
    binds: dict[str, set[str]] = {}
    predicted: dict[str, str] = {}  # the name a prediction is bound to -> the name it predicted from
    stack = list(loop.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.If, ast.With, ast.Try)):
            stack.extend(stmt.body + getattr(stmt, "orelse", []) + getattr(stmt, "finalbody", []))
            continue
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        target = stmt.targets[0].id
        for n in ast.walk(stmt.value):
            if isinstance(n, ast.Name):
                binds.setdefault(target, set()).add(n.id)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                    "predict", "predict_on_batch") and n.args and isinstance(n.args[0], ast.Name):
                predicted[target] = n.args[0].id
    return frozenset(window for out, window in predicted.items() if out in binds.get(window, set()))
