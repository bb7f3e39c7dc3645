"""Forecasting libraries with the fit/predict interface on frames of dates and values (Prophet, NeuralProphet):
`fit(history)` learns from those rows, `predict(future)` forecasts the rows it is given."""

from __future__ import annotations

from .table import ClassRow

FORECAST = ("prophet", "fbprophet", "neuralprophet")
CLASSES: dict[str, ClassRow] = {
    "Prophet": ClassRow("model", FORECAST),
    "NeuralProphet": ClassRow("model", FORECAST),
}
FUNCS: dict = {}
