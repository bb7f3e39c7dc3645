"""Forecasting libraries with the fit/predict interface on frames of dates and values (Prophet, NeuralProphet):
`fit(history)` learns from those rows, `predict(future)` forecasts the rows it is given. pmdarima's `auto_arima(y)`
returns a model already fitted on the series it is given; `predict(n_periods=k)` forecasts the k rows after it."""

from __future__ import annotations

from .table import ClassRow

FORECAST = ("prophet", "fbprophet", "neuralprophet", "darts")
CLASSES: dict[str, ClassRow] = {
    "Prophet": ClassRow("model", FORECAST),
    "NeuralProphet": ClassRow("model", FORECAST),
    "auto_arima": ClassRow("model", ("pmdarima",), bound=(0, -2), fitted_by=("y",)),
}
FUNCS: dict = {}
