"""A notebook function that cuts windows in a loop between bounds it is given (`for i in range(start, end)`
appending `series[i - size:i]`) returns the windows of the rows between the bounds each call gives: two calls
with other bounds are two periods (training and validation windows), the same bounds twice the same rows."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from tensorflow import keras
readings = pd.read_csv("readings.csv")["value"].values
CUT = 5000
def make_windows(values, first, last, size, ahead):
    xs, ys = [], []
    first = first + size
    if last is None:
        last = len(values) - ahead
    for i in range(first, last):
        idx = range(i - size, i)
        xs.append(np.reshape(values[idx], (size, 1)))
        ys.append(values[i + ahead])
    return np.array(xs), np.array(ys)
def by_slices(values, first, last, size):
    xs, ys = [], []
    for t in range(first + size, last):
        xs.append(values[t - size:t])
        ys.append(values[t])
    return np.array(xs), np.array(ys)"""

FIT = """net = keras.Sequential([keras.layers.LSTM(8), keras.layers.Dense(1)])
net.compile(optimizer="adam", loss="mae")
net.fit(x_tr, y_tr, epochs=5, validation_data=(x_va, y_va))"""


def rules(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


@pytest.mark.parametrize("windows", [
    "x_tr, y_tr = make_windows(readings, 0, CUT, 20, 0)\nx_va, y_va = make_windows(readings, CUT, None, 20, 0)",
    "x_tr, y_tr = by_slices(readings, 0, CUT, 30)\nx_va, y_va = by_slices(readings, CUT, len(readings), 30)",
], ids=["index-range", "slice"])
def test_windows_of_two_periods_are_other_rows(windows: str) -> None:
    assert rules(windows + "\n" + FIT) == []


def test_the_same_bounds_twice_are_the_same_rows() -> None:
    same = "x_tr, y_tr = make_windows(readings, 0, CUT, 20, 0)\nx_va, y_va = make_windows(readings, 0, CUT, 20, 0)"
    assert rules(same + "\n" + FIT) == ["LEAK007"]


def test_a_loop_that_adds_columns_keeps_every_row() -> None:
    """`df[f'lag{i}']` in `for i in range(1, n)` names columns: the frame returned holds every row."""
    lags = """def with_lags(frame, first, n):
    for i in range(first, n):
        frame[f"lag{i}"] = frame["value"].shift(i)
    return frame.dropna()
df = with_lags(pd.read_csv("readings.csv"), 1, 4)
model = Ridge().fit(df.drop(columns="value"), df["value"])
tail = df.iloc[-500:]
print(mean_absolute_error(tail["value"], model.predict(tail.drop(columns="value"))))"""
    assert rules(lags) == ["LEAK003"]
