"""A labelled test file read on its own is a test set: no model is trained on it, a metric scores it, and it is
scored after every split part (which then were validation sets). A file only predicted (a submission) is not."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.metrics import accuracy_score
train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
X, y = train.drop(columns="y"), train["y"]"""

COMPARE_ON_FILE = """Xt, yt = test.drop(columns="y"), test["y"]
for m in [LogisticRegression(), RandomForestClassifier()]:
    m.fit(X, y)
    print(accuracy_score(yt, m.predict(Xt)))"""

TUNE_ON_VALIDATION = """Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.25, random_state=0)
scores = []
for d in [2, 4, 8]:
    scores.append(DecisionTreeClassifier(max_depth=d).fit(Xtr, ytr).score(Xva, yva))
best = [2, 4, 8][scores.index(max(scores))]"""


def multi_test(*cells: str) -> set[str]:
    found = analyze_sources([PRELUDE, *cells]).findings
    return {f.rule_id for f in found if f.rule_id in ("LEAK004", "LEAK005")}


def test_models_compared_on_a_labelled_test_file() -> None:
    assert multi_test(COMPARE_ON_FILE) == {"LEAK005"}


def test_tuning_on_a_validation_split_before_the_test_file_is_scored_once() -> None:
    final = ("m = DecisionTreeClassifier(max_depth=best).fit(Xtr, ytr)\n"
             "print(accuracy_score(test['y'], m.predict(test.drop(columns='y'))))")
    assert not multi_test(TUNE_ON_VALIDATION, final)


def test_a_test_file_only_predicted_leaves_the_split_part_final() -> None:
    submit = "pd.DataFrame({'y': DecisionTreeClassifier(max_depth=best).fit(X, y).predict(test)}).to_csv('s.csv')"
    assert multi_test(TUNE_ON_VALIDATION, submit) == {"LEAK004"}


def test_a_file_trained_on_is_no_test_set() -> None:
    both = ("full = pd.concat([train, test])\nXf, yf = full.drop(columns='y'), full['y']\n"
            "for m in [LogisticRegression(), RandomForestClassifier()]:\n    m.fit(Xf, yf)\n"
            "    print(accuracy_score(test['y'], m.predict(test.drop(columns='y'))))")
    assert not multi_test(both)


IMAGES = """from tensorflow import keras
from keras.preprocessing.image import ImageDataGenerator
from keras.callbacks import EarlyStopping
gen = ImageDataGenerator(rescale=1 / 255)
train_flow = gen.flow_from_directory("photos/train", target_size=(64, 64))
held_flow = gen.flow_from_directory("photos/held", target_size=(64, 64))
net = keras.Sequential([keras.layers.Flatten(), keras.layers.Dense(5, activation="softmax")])
net.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
net.fit_generator(generator=train_flow, validation_data=held_flow, epochs=30, callbacks=[EarlyStopping(patience=3)])"""


def test_a_folder_of_images_watched_with_early_stopping_is_the_held_out_set() -> None:
    """The only held-out folder decides when training stops: it is chosen by, so it cannot score the result."""
    found = [f for f in analyze_sources([IMAGES]).findings if f.rule_id == "LEAK004"]
    assert len(found) == 1 and "`held_flow`" in found[0].message


def test_a_later_folder_scored_once_makes_the_watched_one_a_validation_set() -> None:
    final = ('last_flow = gen.flow_from_directory("photos/last", target_size=(64, 64))\n'
             "print(net.evaluate(last_flow))")
    assert "LEAK004" not in {f.rule_id for f in analyze_sources([IMAGES, final]).findings}
