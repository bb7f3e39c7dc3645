"""Forecasts of a horizon (`forecast(steps=n)`, `get_forecast(n).predicted_mean`, Prophet's `predict` of a future
frame) name no rows; the rows a metric sets them against are the rows they forecast. Two forecasters scored on
the same held-out tail compete on it; one forecaster scored once does not; a date range between two dates of the
data learns nothing from the rows' values."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import numpy as np
import pandas as pd
from statsmodels.tsa.arima.model import ARIMA
from statsmodels.tsa.holtwinters import ExponentialSmoothing
from sklearn.metrics import mean_absolute_error
sales = pd.read_csv("daily_sales.csv", parse_dates=["day"], index_col="day")["units"]
full = pd.date_range(sales.index.min(), sales.index.max(), freq="D")
sales = sales.reindex(full).interpolate()
HOLD = 60
train, test = sales.iloc[:-HOLD], sales.iloc[-HOLD:]"""

ARIMA_SCORED = """arima = ARIMA(train, order=(2, 1, 2)).fit()
arima_fc = arima.get_forecast(steps=HOLD).predicted_mean
print("ARIMA", mean_absolute_error(test.values, arima_fc.values))"""

HOLT_SCORED = """holt = ExponentialSmoothing(train, trend="add").fit()
holt_fc = holt.forecast(len(test))
print("Holt", mean_absolute_error(test, holt_fc))"""


def leaks(*cells: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in analyze_sources([PRELUDE, *cells]).findings:
        if f.rule_id.startswith(("LEAK", "TIME")):
            out.setdefault(f.rule_id, []).append(f)
    return out


def test_two_forecasters_scored_on_the_same_tail_compete_on_it() -> None:
    found = leaks(ARIMA_SCORED, HOLT_SCORED)
    assert list(found) == ["LEAK005"]
    assert "`ARIMA`" in found["LEAK005"][0].message and "`ExponentialSmoothing`" in found["LEAK005"][0].message


def test_one_forecaster_scored_once_is_fine_and_the_calendar_learns_nothing() -> None:
    assert leaks(ARIMA_SCORED) == {}


def test_a_forecast_set_against_its_own_history_is_no_training_score() -> None:
    """A horizon forecast is of the rows after the history, whatever it is (wrongly) compared with."""
    assert leaks("m = ARIMA(train, order=(1, 0, 0)).fit()\n"
                 "print(mean_absolute_error(train[-HOLD:], m.forecast(steps=HOLD)))") == {}


def test_prophet_future_frames_forecast_the_rows_they_are_scored_on() -> None:
    prophet = """from prophet import Prophet
frame = train.reset_index().rename(columns={"index": "ds", "units": "y"})
p = Prophet().fit(frame)
future = p.make_future_dataframe(periods=HOLD)
p_fc = p.predict(future)["yhat"].tail(HOLD)
print("Prophet", mean_absolute_error(test.values, p_fc.values))"""
    assert list(leaks(ARIMA_SCORED, prophet)) == ["LEAK005"]
    assert leaks(prophet) == {}


def test_a_forecast_turned_into_an_array_is_still_that_forecast() -> None:
    holt_array = HOLT_SCORED.replace("holt_fc = holt.forecast(len(test))",
                                     "holt_fc = np.asarray(holt.forecast(len(test)))")
    assert list(leaks(ARIMA_SCORED, holt_array)) == ["LEAK005"]


def test_the_next_step_forecast_is_not_in_sample() -> None:
    """`res.forecast()` with no argument is the one step after the history (`res.predict()` is in-sample)."""
    step = "m = ARIMA(train, order=(1, 0, 0)).fit()\nprint(mean_absolute_error(test[:1], m.forecast()))"
    assert leaks(step) == {}
    in_sample = "m = ARIMA(train, order=(1, 0, 0)).fit()\nprint(mean_absolute_error(train, m.predict()))"
    assert list(leaks(in_sample)) == ["LEAK007"]


def test_the_rows_named_by_the_frames_own_index_positions() -> None:
    """`df.drop(df.index[-n:])` keeps the rows before the last n, `df.loc[df.index[-n:]]` takes them."""
    frames = """from prophet import Prophet
df = sales.reset_index().rename(columns={"index": "ds", "units": "y"})
past = df.drop(df.index[-HOLD:])
last = df.loc[df.index[-HOLD:], :]
p = Prophet().fit(past)
print(mean_absolute_error(last["y"], p.predict(last[["ds"]])["yhat"]))"""
    assert leaks(frames) == {}
    everything = frames.replace("p = Prophet().fit(past)", "p = Prophet().fit(df)")
    assert list(leaks(everything)) == ["LEAK003"]
