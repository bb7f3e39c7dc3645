"""Forecasts: a time-series model fitted on a history predicts the rows after it. `res.predict()` with nothing
given is in-sample; `start`/`end` given as rows of data name the rows forecast; a horizon (`forecast(steps=90)`,
`get_forecast(len(test))`, `predict(start=len(train), end=...)`, Prophet's `predict(make_future_dataframe(...))`)
names no rows. A metric that sets such a forecast against rows of labels tells which rows it forecast: those
rows, when the model was not fitted on any of them (a forecast is never of its own history)."""

from __future__ import annotations

import ast

from .api.forecasting import FORECAST
from .astutil import const, kw, text
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

    def series_split(self, series: Val, e: ast.Call) -> Val:
        """A series cut at a point (`split_before(0.75)`, `split_after(pd.Timestamp('1958-01-01'))`): the steps
        before it and the steps after it, in time order."""
        key = ("pos", f"{e.func.attr if isinstance(e.func, ast.Attribute) else ''} {text(e.args[0]) if e.args else ''}")
        return Val("seq", items=tuple(self.select(series, key, side, "slice", e) for side in ("lo", "hi")),
                   site=self.site(e))

    def backtest(self, obj: Obj, series: Val, attr: str, e: ast.Call, kws: dict) -> Val:
        """darts's `historical_forecasts(series, start=0.75)` forecasts every step after `start` (`backtest` also
        scores them): by the model as fitted (`retrain=False`), or by copies retrained on the steps before each
        forecast, which learn from the steps before `start`."""
        start = kw(e, "start")
        key = ("pos", f"start={text(start) if start is not None else ''}")
        after = self.select(series, key, "hi", "slice", e)
        if const(kw(e, "retrain")) is not False or obj.fit is None:
            copies = Obj(obj.cls, "model", self.site(e))
            copies.fit = self.add_fit("model", obj.cls, self.select(series, key, "lo", "slice", e), e, obj=copies)
            obj = copies
        if attr == "backtest":
            return Val("score", site=self.site(e), evals=(self.add_eval(obj, after, attr, e, scored=True),))
        return self.prediction(obj, after, attr, e)

    def forecast_scored(self, vals: list) -> None:
        """A metric sets forecasts of a horizon against rows of labels: those are the rows forecast."""
        flat = [v for v in vals if v is not None]
        labels = next((v for v in flat if v.kind == "data" and v.rows and not v.evals), None)
        if labels is None:
            return
        for v in flat:
            for ev in v.evals if v.kind == "pred" else ():
                if ev.method != HORIZON or ev.data.rows or ev.fit is None:
                    continue
                if overlap(ev.fit.rows, labels.rows) is None:
                    ev.data = labels
                elif ev.obj is not None and ev.obj.cls.startswith("darts."):
                    # darts scores a forecast on the steps it shares with the series given: the whole series
                    # against a model fitted on its first steps (`series[:-36]`) scores the steps after them
                    after = frozenset(t[:-1] + ((t[-1][0], "hi"),) for t in ev.fit.rows
                                      if len(t) > 1 and t[-1][1] == "lo" and t[:-1] in labels.rows)
                    if after:
                        ev.data = Val("data", rows=after, stats=labels.all_stats, site=labels.site, name=labels.name)


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
