"""Predictions taken apart item by item (`for p in probs: labels.append(np.argmax(p))`) are still the model's
predictions: a metric over the list they were collected into scores the model. Values kept in a dict are read
back key by key in a loop over its keys, each key's own."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
df = pd.read_csv("d.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)"""

FIRST = """lr = LogisticRegression().fit(X_tr, y_tr)
probs = lr.predict_proba(X_te)
labels = []
for p in probs:
    labels.append(np.argmax(p))
print(accuracy_score(y_te, labels))"""

SECOND = "rf = RandomForestClassifier().fit(X_tr, y_tr)\nprint(accuracy_score(y_te, rf.predict(X_te)))"


def leaks(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK"))


def test_predictions_collected_item_by_item_score_their_model() -> None:
    assert leaks(FIRST, SECOND) == ["LEAK005"]  # two models scored on the same test rows


def test_one_model_scored_item_by_item_is_one_configuration() -> None:
    assert leaks(FIRST) == []
    assert leaks(FIRST.replace("X_te", "X_tr").replace("y_te", "y_tr")) == ["LEAK007"]


KEYED = """lr, rf = LogisticRegression().fit(X_tr, y_tr), RandomForestClassifier().fit(X_tr, y_tr)
preds = {"lr": lr.predict(X_te), "rf": rf.predict(X_te)}
for name in LOOP:
    print(name, accuracy_score(y_te, preds[name]))"""


def test_a_loop_over_a_dicts_keys_reads_each_keys_value() -> None:
    """`for name in preds: ... preds[name]`: each pass scores that key's predictions (two models side by side);
    the dict of one model's predictions is one configuration."""
    for loop in ("preds", "preds.keys()", "list(preds)"):
        assert leaks(KEYED.replace("LOOP", loop)) == ["LEAK005"], loop
    one = KEYED.replace(', "rf": rf.predict(X_te)', "")
    assert leaks(one.replace("LOOP", "preds")) == []



PER_KEY = """from sklearn.preprocessing import MinMaxScaler
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_squared_error
train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
sc = MinMaxScaler().fit(train)
scaled = {"train": sc.transform(train), "test": sc.transform(test)}
rows, targets = {"train": [], "test": []}, {"train": [], "test": []}
for key in list(scaled.keys()):
    for i in range(10, 400):
        rows[key].append(scaled[key][i - 10:i, 0])
        targets[key].append(scaled[key][i, 0])
    rows[key], targets[key] = np.array(rows[key]), np.array(targets[key])
m = Ridge().fit(rows["train"], targets["train"])
print(mean_squared_error(targets["test"], m.predict(rows["test"])))"""


def test_lists_in_a_dict_filled_per_key_stay_apart() -> None:
    """`rows[key].append(...)` in a loop over the keys fills that key's list only: the test file's windows are
    not the training file's (clean), and a scaler fitted on the test file reaches only its own windows."""
    assert leaks(PER_KEY) == []
    assert leaks(PER_KEY.replace("fit(train)", "fit(test)")) == ["LEAK001"]


SCORES = """results = {}
results["lr"] = accuracy_score(y_te, LogisticRegression().fit(X_tr, y_tr).predict(X_te))
results["rf"] = accuracy_score(y_te, RandomForestClassifier().fit(X_tr, y_tr).predict(X_te))
"""


@pytest.mark.parametrize("walk", ["sorted(results)", "sorted(results.keys())", "results", "list(results)"])
def test_a_dicts_names_sorted_for_printing_choose_nothing(walk: str) -> None:
    """Two models' test scores printed name by name: compared side by side (LEAK005), but sorting the names reads
    no score; `max(results, key=results.get)` does pick by the scores."""
    assert leaks(SCORES + f"for k in {walk}:\n    print(k, results[k])") == ["LEAK005"]
    assert "LEAK004" in leaks(SCORES + "best = max(results, key=results.get)\nprint(best, results[best])")


PER_MODEL = """from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from sklearn.metrics import accuracy_score
visits = pd.read_csv("visits.csv")
X_tr, X_te, y_tr, y_te = train_test_split(visits[["age", "stay"]], visits["back"], random_state=1)
models = [LogisticRegression(), DecisionTreeClassifier(max_depth=3)]
preds = [m.fit(X_tr, y_tr).predict(X_te) for m in models]
"""


@pytest.mark.parametrize("walk", [
    "for i, m in enumerate(models):\n    print(type(m).__name__, accuracy_score(y_te, preds[i]))",
    "for n, m in enumerate(models, 1):\n    print(n, accuracy_score(y_te, preds[n - 1]))",
    "for p in preds:\n    print(accuracy_score(y_te, p))",
])
def test_a_list_of_each_models_predictions_read_back_by_position_scores_each_model(walk: str) -> None:
    """`[m.fit(...).predict(X_te) for m in models]` keeps one item per model; `preds[i]` with `i` counted by
    `enumerate(models)` is that pass's model's predictions (not a blend of all of them)."""
    found = [f.rule_id for f in analyze_sources([HEAD, PER_MODEL + walk]).findings if f.rule_id.startswith("LEAK")]
    assert found == ["LEAK005"]
