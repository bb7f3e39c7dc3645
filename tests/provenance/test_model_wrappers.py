"""A helper library's object built around a fitted model (`Experiment(name=..., model=model, ...)`) scores with that
model: its `evaluate`/`predict` are the model's, so statistics of every row reaching the features, or several
wrapped models scored on the test rows, are found through it. Given no fitted model it stands for nothing."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
import keras
import course_helpers.experiment as hx
raw = pd.read_csv("grains.csv")
mean, std = raw.mean(numeric_only=True), raw.std(numeric_only=True)
num = raw.select_dtypes("number").columns
data = (raw[num] - mean) / std
data["label"] = (raw["kind"] == "a").astype(int)
shuffled = data.sample(frac=1, random_state=1)
n = round(len(shuffled) * 0.8)
train, test = shuffled.iloc[:n], shuffled.iloc[n:]
def run(name, cols):
    net = keras.Sequential([keras.layers.Dense(1, activation="sigmoid")])
    net.compile(optimizer="rmsprop", loss="binary_crossentropy", metrics=["accuracy"])
    history = net.fit(train[cols].to_numpy(), train["label"].to_numpy(), epochs=10)
    return hx.Experiment(name=name, model=net, history=history.history)"""


def rules(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


def test_statistics_of_every_row_reach_the_rows_a_wrapped_model_evaluates() -> None:
    one = "small = run('small', ['area', 'length'])\nprint(small.evaluate(test[['area', 'length']], test['label']))"
    assert set(rules(one)) == {"LEAK001"}


def test_two_wrapped_models_compared_on_the_test_rows() -> None:
    two = """small = run('small', ['area', 'length'])
big = run('big', ['area', 'length', 'width', 'extent'])
print(small.evaluate(test[['area', 'length']], test['label']))
print(big.evaluate(test[['area', 'length', 'width', 'extent']], test['label']))"""
    assert "LEAK005" in rules(two)


def test_a_helper_object_given_no_fitted_model_scores_nothing() -> None:
    unfitted = """plain = hx.Experiment(name="empty", model=keras.Sequential([keras.layers.Dense(1)]))
print(plain.evaluate(test[['area']], test['label']))"""
    assert rules(unfitted) == []
