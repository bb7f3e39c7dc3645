"""Keras time-series windows and checkpoints: `timeseries_dataset_from_array(..., start_index=a, end_index=b)`
windows only the rows from `a` to `b` (consecutive bounds make training, validation and test periods), and a
network saved by `ModelCheckpoint(path)` during `fit` is the trained network when `load_model(path)` reads it."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
from tensorflow import keras
from tensorflow.keras import layers
series = np.load("sensor.npy")
n_train, n_val = int(0.5 * len(series)), int(0.25 * len(series))
train_ds = keras.utils.timeseries_dataset_from_array(series[:-24], targets=series[24:, 0], sequence_length=24,
                                                     start_index=0, end_index=n_train)
val_ds = keras.utils.timeseries_dataset_from_array(series[:-24], targets=series[24:, 0], sequence_length=24,
                                                   start_index=n_train, end_index=n_train + n_val)
test_ds = keras.utils.timeseries_dataset_from_array(series[:-24], targets=series[24:, 0], sequence_length=24,
                                                    start_index=n_train + n_val)"""

NET = """inputs = keras.Input(shape=(24, series.shape[-1]))
outputs = layers.Dense(1)({layer}(inputs))
model = keras.Model(inputs, outputs)
model.compile(optimizer="rmsprop", loss="mse", metrics=["mae"])
model.fit(train_ds, epochs=5, validation_data=val_ds,
          callbacks=[keras.callbacks.ModelCheckpoint("{path}", save_best_only=True)])
model = keras.models.load_model("{path}")
print("test MAE", model.evaluate(test_ds)[1])"""


def rules(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


def test_windows_between_consecutive_positions_are_disjoint_periods() -> None:
    """One network checkpointed on the validation period and scored once on the test period: honest (before, the
    three datasets read as the same rows: a training-row score)."""
    assert rules(NET.format(layer="layers.Flatten()", path="dense.keras")) == []


def test_windows_without_bounds_are_every_row() -> None:
    """Scored on windows over the whole series: the training period included (overlap)."""
    code = NET.format(layer="layers.Flatten()", path="dense.keras").replace("test_ds", "keras.utils."
                                                                             "timeseries_dataset_from_array("
                                                                             "series[:-24], series[24:, 0], 24)")
    assert rules(code) == ["LEAK003"]


@pytest.mark.parametrize("second", ["layers.GRU(16)", "layers.LSTM(16)"])
def test_networks_reloaded_from_their_checkpoints_and_compared_on_the_test_period(second: str) -> None:
    first = NET.format(layer="layers.Flatten()", path="dense.keras")
    other = NET.format(layer=second, path="rnn.keras")
    assert rules(first, other) == ["LEAK005"]


TF_DATA = """import tensorflow as tf
import tensorflow_datasets as tfds
from tensorflow import keras
pets = tfds.load("pets", split="train", as_supervised=True)
held = pets.take(500).batch(32)
rest = pets.skip(500).batch(32)
net = keras.Sequential([keras.layers.Flatten(), keras.layers.Dense(2, activation="softmax")])
net.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
net.fit(rest, epochs=3, validation_data=held)"""


def test_a_dataset_split_by_take_and_skip_holds_the_first_rows_out() -> None:
    """`ds.take(n)` is the first n rows and `ds.skip(n)` the rest: watching the first while fitting the rest is no
    training-row score (fitting and watching the same `take` is)."""
    assert [f.rule_id for f in analyze_sources([TF_DATA]).findings if f.rule_id.startswith("LEAK")] == []
    same = TF_DATA.replace("net.fit(rest,", "net.fit(held,")
    assert [f.rule_id for f in analyze_sources([same]).findings if f.rule_id.startswith("LEAK")] == ["LEAK007"]
