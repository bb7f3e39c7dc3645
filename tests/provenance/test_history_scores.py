"""A Keras History's training metric printed as a number (the last epoch's, or the best) is the model's score on
the rows it was fitted on: LEAK007, a warning when a held-out score is reported beside it. The whole list printed
or plotted is a learning curve, and the `val_` metrics are those of the watched data.

Whole notebooks run through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = ("import numpy as np\nfrom tensorflow import keras\nsignals = np.load('signals.npy')\n"
        "alarms = np.load('alarms.npy')\n"
        "net = keras.Sequential([keras.layers.Dense(8, activation='relu'),\n"
        "                       keras.layers.Dense(1, activation='sigmoid')])\n"
        "net.compile('adam', 'binary_crossentropy', metrics=['accuracy'])")
FIT = "hist = net.fit(signals, alarms, epochs=30)\n"


def _leaks(code: str) -> list:
    return [f for f in analyze_sources([HEAD, code]).findings if f.rule_id.startswith("LEAK")]


@pytest.mark.parametrize("shown", [
    "print('accuracy:', hist.history['accuracy'][-1])",
    "print(f\"best accuracy {max(hist.history['accuracy']):.3f}\")",
])
def test_the_training_metric_printed_as_the_score_is_a_training_row_score(shown: str) -> None:
    found = _leaks(FIT + shown)
    assert [(f.rule_id, f.severity.value) for f in found] == [("LEAK007", "error")]
    assert "hist.history['accuracy']" in found[0].message and "net.fit(" in found[0].message


def test_beside_a_held_out_score_it_is_a_warning() -> None:
    code = ("from sklearn.model_selection import train_test_split\n"
            "s_tr, s_te, a_tr, a_te = train_test_split(signals, alarms, random_state=2)\n"
            "hist = net.fit(s_tr, a_tr, epochs=30)\nprint('train', hist.history['accuracy'][-1])\n"
            "print('test', net.evaluate(s_te, a_te))")
    assert [(f.rule_id, f.severity.value) for f in _leaks(code)] == [("LEAK007", "warning")]


@pytest.mark.parametrize("shown", [
    "print(hist.history['accuracy'])",
    "import matplotlib.pyplot as plt\nplt.plot(hist.history['accuracy'])",
    "print(hist.history['loss'][-1])",
])
def test_curves_and_losses_are_not_reported_scores(shown: str) -> None:
    assert _leaks(FIT + shown) == []


def test_the_validation_metric_is_that_of_the_watched_rows() -> None:
    code = "hist = net.fit(signals, alarms, epochs=30, validation_split=0.2)\nprint(hist.history['val_accuracy'][-1])"
    assert _leaks(code) == []
