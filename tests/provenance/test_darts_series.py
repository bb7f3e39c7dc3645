"""darts: a `Scaler` fitted on the whole series before it is cut carries the held-out steps' range into every step;
a model fitted on the first steps forecasts the steps after them (`predict(n=36)`), which a metric scores whether
it is given the held-out steps or the whole series (darts aligns them); `historical_forecasts(series, start=0.75)`
forecasts each step after `start`; models compared by those scores on the only held-out steps choose by them."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """from darts.models import NBEATSModel, ExponentialSmoothing, Theta
from darts.metrics import mape
from darts.dataprocessing.transformers import Scaler
from darts.datasets import AirPassengersDataset
series = AirPassengersDataset().load()
"""
SCALE_ALL = "scaler = Scaler()\nscaled = scaler.fit_transform(series)\ntrain, val = scaled[:-24], scaled[-24:]\n"
SCALE_TRAIN = ("train, val = series[:-24], series[-24:]\nscaler = Scaler()\ntrain = scaler.fit_transform(train)\n"
               "val = scaler.transform(val)\n")
ONE = ("net = NBEATSModel(input_chunk_length=24, output_chunk_length=12)\nnet.fit(train)\n"
       "print(mape({actual}, net.predict(n=24)))\n")


def leaks(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources(list(cells)).findings if f.rule_id.startswith("LEAK"))


def test_a_scaler_fitted_on_the_whole_series_before_the_cut() -> None:
    assert leaks(HEAD + SCALE_ALL, ONE.format(actual="val")) == ["LEAK001"]
    assert leaks(HEAD + SCALE_ALL, ONE.format(actual="scaled")) == ["LEAK001"]  # darts scores the shared steps
    assert leaks(HEAD + SCALE_TRAIN, ONE.format(actual="val")) == []


def test_a_series_cut_at_a_point_in_time() -> None:
    cut = ("scaled = Scaler().fit_transform(series)\ntrain, val = scaled.split_before(0.75)\n")
    assert leaks(HEAD + cut, ONE.format(actual="val")) == ["LEAK001"]
    clean = "train, val = series.split_after(0.75)\n"
    assert leaks(HEAD + clean, ONE.format(actual="val")) == []


def test_models_backtested_on_the_same_steps_are_compared_on_them() -> None:
    backtests = """models = [ExponentialSmoothing(), Theta()]
runs = [m.historical_forecasts(series, start=0.75, forecast_horizon=3) for m in models]
for i, m in enumerate(models):
    print(m, mape(series, runs[i]))
"""
    assert leaks(HEAD + backtests) == ["LEAK005"]
    one = "run = Theta().historical_forecasts(series, start=0.75, forecast_horizon=3)\nprint(mape(series, run))\n"
    assert leaks(HEAD + one) == []
