# ruff: noqa: E501  (the notebooks read best one statement per line)
"""Keras's declared subsets (`flow_from_directory(d, subset="validation")`, `image_dataset_from_directory(d,
validation_split=0.2, subset=...)`) are the two sides of one split of the folder, and batches yielded by a
notebook's generator function are what its caller iterates over. Whole notebooks through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

KERAS = """from tensorflow.keras.preprocessing.image import ImageDataGenerator
from tensorflow.keras.callbacks import EarlyStopping
from tensorflow.keras import layers, models
import tensorflow as tf
datagen = ImageDataGenerator(rescale=1./255, validation_split=0.2)"""

NET = """model = models.Sequential([layers.Flatten(), layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])"""

WATCHED = NET + """
stop = EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True)
history = model.fit(train_gen, validation_data=val_gen, epochs=20, callbacks=[stop])"""

SUBSETS = """train_gen = datagen.flow_from_directory("images/train", subset="training")
val_gen = datagen.flow_from_directory("images/train", subset="validation")"""


def rules(*cells: str) -> set[str]:
    rep = analyze_sources([KERAS, *cells])
    return {f.rule_id for f in rep.findings if f.rule_id.startswith("LEAK")}


def test_early_stopping_on_the_only_held_out_subset_is_a_choice_by_it() -> None:
    assert "LEAK004" in rules(SUBSETS, WATCHED, 'print(max(history.history["val_accuracy"]))')


def test_a_test_folder_scored_after_makes_the_subset_a_validation_set() -> None:
    test = 'test_gen = ImageDataGenerator(rescale=1./255).flow_from_directory("images/test", shuffle=False)'
    assert not rules(SUBSETS + "\n" + test, WATCHED, "print(model.evaluate(test_gen))")


@pytest.mark.parametrize("reader", ["datagen.flow_from_directory", "tf.keras.utils.image_dataset_from_directory"])
def test_the_validation_subset_holds_rows_the_training_subset_does_not(reader: str) -> None:
    """Two reads of one folder are the same images; their subsets are the two sides of one split."""
    code = (f'train_gen = {reader}("flowers", validation_split=0.2, subset="training", seed=1)\n'
            f'val_gen = {reader}("flowers", validation_split=0.2, subset="validation", seed=1)')
    assert not rules(code, NET + "\nmodel.fit(train_gen, epochs=5)", "print(model.evaluate(val_gen))")
    assert "LEAK007" in rules(code, NET + "\nmodel.fit(train_gen, epochs=5)", "print(model.evaluate(train_gen))")


def test_subset_both_returns_the_two_sides() -> None:
    code = 'train_ds, val_ds = tf.keras.utils.image_dataset_from_directory("flowers", validation_split=0.2, subset="both", seed=1)'
    fit = NET + "\nmodel.fit(train_ds, validation_data=val_ds, epochs=10)"
    assert not rules(code, fit, "print(model.evaluate(val_ds))")
    assert "LEAK007" in rules(code, fit, "print(model.evaluate(train_ds))")


GENERATOR = '''def batches(gen, directory, **kwargs):
    inner = gen.flow_from_directory(directory, **kwargs)
    while True:
        bx, by = next(inner)
        yield bx, by
train_gen = batches(datagen, "images", subset="training")
val_gen = batches(datagen, "images", subset="validation")'''


def test_batches_yielded_by_a_generator_function_keep_their_subset() -> None:
    """The caller iterates over what the function yields: the validation batches are the held-out subset."""
    assert "LEAK004" in rules(GENERATOR, WATCHED)
    plain = WATCHED.replace(", callbacks=[stop]", "")
    assert "LEAK004" not in rules(GENERATOR, plain)  # watched without a callback that selects: no choice


def test_a_loop_over_a_generator_function_reads_its_batches() -> None:
    """`for xb, yb in pairs(...)`: each pass is one yielded pair, features and labels of the same rows."""
    code = '''from sklearn.linear_model import SGDClassifier
from sklearn.preprocessing import StandardScaler
import numpy as np
X, y = np.load("x.npy"), np.load("y.npy")
X = StandardScaler().fit_transform(X)
def pairs(a, b, size):
    for i in range(0, len(a), size):
        yield a[i:i + size], b[i:i + size]
clf = SGDClassifier()
for xb, yb in pairs(X[:800], y[:800], 64):
    clf.partial_fit(xb, yb, classes=[0, 1])
print(clf.score(X[800:], y[800:]))'''
    assert "LEAK001" in rules(code)
    assert "LEAK001" not in rules(code.replace("X = StandardScaler().fit_transform(X)\n", ""))


def test_the_message_names_the_generator_not_its_inner_variables() -> None:
    found = analyze_sources([KERAS, GENERATOR, WATCHED]).findings
    leak = next(f for f in found if f.rule_id == "LEAK004")
    assert "`val_gen`" in leak.message and "`bx`" not in leak.message


ARRAY_BATCHES = '''import numpy as np
X, y = np.load("x.npy"), np.load("y.npy")
X_tr, y_tr, X_te, y_te = X[:800], y[:800], X[800:], y[800:]
def batches(a, b, size):
    while True:
        for i in range(0, len(a), size):
            yield a[i:i + size], b[i:i + size]
def net(units):
    m = models.Sequential([layers.Dense(units, activation="relu"), layers.Dense(1, activation="sigmoid")])
    m.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    return m
small, big = net(8), net(64)
small.fit(batches(X_tr, y_tr, 32), steps_per_epoch=25, epochs=3)
big.fit(batches(X_tr, y_tr, 32), steps_per_epoch=25, epochs=3)'''


def test_networks_fitted_on_a_generator_of_array_batches_learn_from_those_arrays() -> None:
    """`model.fit(batches(X_tr, y_tr))` trains on the rows the yielded (x, y) pairs hold: two networks trained so
    and scored on the test rows side by side are compared there; one scored on the training rows is overlap."""
    assert rules(ARRAY_BATCHES, "print(small.evaluate(X_te, y_te))\nprint(big.evaluate(X_te, y_te))") == {"LEAK005"}
    assert rules(ARRAY_BATCHES, "print(small.evaluate(X_tr, y_tr))") == {"LEAK007"}
    assert not rules(ARRAY_BATCHES, "print(big.evaluate(X_te, y_te))")


def test_a_subset_forwarded_through_keyword_arguments_is_read() -> None:
    """`flow_from_directory(d, **kwargs)` inside a function called with `subset="validation"`: that subset. Fitted
    on the training generator and scored on the validation one: clean; on the training one: overlap."""
    forwarded = '''def reader(directory, **kwargs):
    return datagen.flow_from_directory(directory, target_size=(64, 64), **kwargs)
train_gen = reader("images", subset="training")
val_gen = reader("images", subset="validation")'''
    fitted = NET + "\nmodel.fit(train_gen, epochs=5)"
    assert not rules(forwarded, fitted, "print(model.evaluate(val_gen))")
    assert "LEAK007" in rules(forwarded, fitted, "print(model.evaluate(train_gen))")
