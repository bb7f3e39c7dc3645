"""The split of a tutorial: `train = df.sample(frac=0.8)`, `test = df.drop(train.index)`. The dropped rows are the
test set; a Keras `validation_split` carved from the sampled rows is a validation part, and statistics of the
training rows (`train.describe()`) normalise both sides without carrying the test rows into the training rows. A
callback the notebook writes that only prints chooses nothing."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from tensorflow import keras
from tensorflow.keras import layers
df = pd.read_csv("cars.csv").dropna()
train = df.sample(frac=0.8, random_state=0)
test = df.drop(train.index)
stats = train.describe().transpose()
y_train, y_test = train.pop("mpg"), test.pop("mpg")
def norm(x):
    return (x - stats["mean"]) / stats["std"]
x_train, x_test = norm(train), norm(test)
class Dots(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs):
        print(".", end="")
class Stopper(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs):
        if logs["val_loss"] < 1.0:
            self.model.stop_training = True
model = keras.Sequential([layers.Dense(32, activation="relu"), layers.Dense(1)])
model.compile(loss="mse", optimizer="adam")"""


def rules(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


@pytest.mark.parametrize("callbacks", ["[Dots()]", "[keras.callbacks.EarlyStopping(patience=10)]"])
def test_a_validation_split_of_the_sampled_rows_before_the_dropped_rows_are_scored(callbacks: str) -> None:
    fit = f"model.fit(x_train, y_train, epochs=50, validation_split=0.2, callbacks={callbacks})\n"
    assert rules(fit + "print(model.evaluate(x_test, y_test))") == []


@pytest.mark.parametrize("callbacks, chooses", [("[Dots()]", False), ("[Stopper()]", True)])
def test_a_notebook_callback_chooses_only_when_it_stops_training_or_keeps_weights(callbacks: str,
                                                                                  chooses: bool) -> None:
    """With nothing scored after it, the validation part is the last word: a callback that stops the training on
    it chooses by it; one that prints does not (the statistics of the sampled rows reaching that part are the
    training rows' own: no preprocessing leak)."""
    fit = f"model.fit(x_train, y_train, epochs=50, validation_split=0.2, callbacks={callbacks})"
    assert rules(fit) == (["LEAK004"] if chooses else [])


def test_statistics_of_every_row_still_reach_the_test_rows() -> None:
    """`df.describe()` over every row normalises the test rows with their own statistics."""
    everything = "stats = df.drop(columns='mpg').describe().transpose()\nx_train, x_test = norm(train), norm(test)\n"
    fit = "model.fit(x_train, y_train, epochs=50)\nprint(model.evaluate(x_test, y_test))"
    assert rules(everything + fit) == ["LEAK001"]
