"""A recursive forecast: a network fed the last window of its training series predicts the next value, and the loop
feeds each prediction back into the window. It predicts the rows after the window, not the window's own rows, so
it is no score on training rows; set against the test part by a metric, it is the forecast of those rows.

Whole notebooks run through the real engine."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.preprocessing import MinMaxScaler
from sklearn.metrics import mean_squared_error
from tensorflow import keras
from tensorflow.keras.preprocessing.sequence import TimeseriesGenerator
load = pd.read_csv('load.csv', index_col='day', parse_dates=True)
hist, future = load.iloc[:-30], load.iloc[-30:]
sc = MinMaxScaler().fit(hist)
s_hist = sc.transform(hist)
gen = TimeseriesGenerator(s_hist, s_hist, length=12, batch_size=1)
net = keras.Sequential([keras.layers.LSTM(50, input_shape=(12, 1)), keras.layers.Dense(1)])
net.compile(loss='mse', optimizer='adam')
net.fit(gen, epochs=20)"""

FORECAST = """out = []
window = s_hist[-12:].reshape(1, 12, 1)
for step in range(len(future)):
    nxt = net.predict(window)[0]
    out.append(nxt)
    window = {feed}
print(mean_squared_error(future, sc.inverse_transform(out)))"""


def _leaks(code: str) -> list:
    return [f.rule_id for f in analyze_sources([HEAD, code]).findings if f.rule_id.startswith("LEAK")]


def test_predictions_fed_back_into_the_window_forecast_the_rows_after_it() -> None:
    assert _leaks(FORECAST.format(feed="np.append(window[:, 1:, :], [[nxt]], axis=1)")) == []


def test_a_window_of_training_rows_never_fed_back_is_still_scored_on_training_rows() -> None:
    code = ("window = s_hist[-12:].reshape(1, 12, 1)\nguess = net.predict(window)\n"
            "print(mean_squared_error(s_hist[-1:], guess))")
    assert "LEAK003" in _leaks(code) or "LEAK007" in _leaks(code)
