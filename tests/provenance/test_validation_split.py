"""Keras's `fit(X, y, validation_split=0.2)` trains on the first rows and watches the last fifth: early stopping on
them is a choice by them when nothing else is scored after, a checkpoint of every epoch chooses nothing, and
statistics of the rows given to the fit reaching that part are no preprocessing leak (its loss steers training or
is logged beside it)."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from tensorflow import keras
from tensorflow.keras.callbacks import EarlyStopping, ModelCheckpoint
df = pd.read_csv("concrete.csv")
X, y = df.drop(columns="strength"), df["strength"]
net = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
net.compile(optimizer="adam", loss="mse")"""


def rules(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


def test_statistics_of_the_rows_a_validation_split_is_carved_from_are_no_preprocessing_leak() -> None:
    """The validation part's loss steers training or is logged beside it: statistics of every row given to the
    fit (its last fifth among them) are the field's practice, not a leak into an evaluation; scaled by every
    row and then scored on a test part split off after the scaling, they are."""
    normed = "X_norm = (X - X.mean()) / X.std()\nnet.fit(X_norm, y, validation_split=0.3, epochs=50)"
    assert rules(normed) == []
    scored = normed.replace("net.fit(X_norm, y,", "X_tr, X_te, y_tr, y_te = train_test_split(X_norm, y)\n"
                            "net.fit(X_tr, y_tr,") + "\nprint(net.evaluate(X_te, y_te))"
    assert rules(scored) == ["LEAK001"]
    split_first = ("X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
                   "mu, sd = X_tr.mean(), X_tr.std()\n"
                   "net.fit((X_tr - mu) / sd, y_tr, validation_split=0.3, epochs=50)\n"
                   "print(net.evaluate((X_te - mu) / sd, y_te))")
    assert rules(split_first) == []


@pytest.mark.parametrize("callback, chooses", [
    ("EarlyStopping(monitor='val_loss', patience=5, restore_best_weights=True)", True),
    ("ModelCheckpoint('best.keras', monitor='val_loss', save_best_only=True)", True),
    ("ModelCheckpoint('epoch.keras', monitor='val_loss', save_best_only=False)", False),
    ("ModelCheckpoint('epoch.keras')", False),
])
def test_a_callback_on_the_validation_split_chooses_by_it(callback: str, chooses: bool) -> None:
    fit = f"net.fit(X, y, validation_split=0.2, epochs=100, callbacks=[{callback}])"
    assert ("LEAK004" in rules(fit)) is chooses
    later = ("test = pd.read_csv('holdout.csv')\n"
             "print(net.evaluate(test.drop(columns='strength'), test['strength']))")
    assert "LEAK004" not in rules(fit, later)  # a labelled file scored after it: the split was a validation set


def test_a_model_scored_on_every_row_after_a_validation_split_saw_most_of_them() -> None:
    assert rules("net.fit(X, y, validation_split=0.2, epochs=10)\nprint(net.evaluate(X, y))") == ["LEAK003"]


def test_batches_stacked_in_a_loop_are_new_rows_not_copies() -> None:
    """`acc = np.vstack((acc, batch))` over files read one per pass adds rows; it copies none."""
    code = ("import pickle\nacc = None\nlabels = []\nfor i in range(1, 6):\n"
            "    batch = pickle.load(open(f'data_batch_{i}', 'rb'))\n"
            "    acc = batch['data'] if i == 1 else np.vstack((acc, batch['data']))\n"
            "    labels += batch['labels']\n"
            "net.fit(acc, np.array(labels), validation_split=0.1, epochs=5)")
    assert rules(code) == []


def test_the_training_rows_scored_with_the_validation_part_carved_from_them_are_a_training_score() -> None:
    """`evaluate(X_train)` after `fit(X_train, validation_split=0.2)`: the rows trained on and the part watched
    beside them, scaled by their own statistics: a training-set score (LEAK003), not a preprocessing leak."""
    code = ("from sklearn.preprocessing import StandardScaler\n"
            "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
            "X_tr = StandardScaler().fit_transform(X_tr)\n"
            "net.fit(X_tr, y_tr, validation_split=0.2, epochs=50)\n"
            "print(net.evaluate(X_tr, y_tr))")
    assert rules(code) == ["LEAK003"]
