"""Runtime split discovery: label vectors named with a suffix (`y_train_s`) are labels, not feature rows (their
repeated values are no row overlap); validation keywords such as `X_val=` are read like `eval_set=`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from jupyter_trainguard.runtime.splits import discover_splits

SETUP = """
import numpy as np, pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
rng = np.random.default_rng(3)
X = pd.DataFrame(rng.normal(size=(600, 4)), columns=["a", "b", "c", "d"])
y = pd.Series((X.a - X.b > 0).astype(int), name="label")
X_train_s, X_test_s, y_train_s, y_test_s = train_test_split(X, y, test_size=0.25, random_state=0)
"""


def test_suffixed_label_vectors_are_labels():
    ns = {
        "X_train_s": pd.DataFrame(np.zeros((4, 2))),
        "y_train_s": pd.Series([0, 1, 0, 1]),
        "y_test_s": np.array([1, 0]),
        "target_train_2": np.array([0, 1, 1, 0]),
        "text_train": pd.Series(["a b", "c d", "e f", "g h"]),  # 1-D features (texts) stay features
    }
    labels = {s.name: s.is_label for s in discover_splits(ns)}
    assert labels == {"X_train_s": False, "y_train_s": True, "y_test_s": True, "target_train_2": True,
                      "text_train": False}


def test_no_row_overlap_from_suffixed_labels(shell):
    shell.run(SETUP)
    shell.run("%%guarded_train\nclf = LogisticRegression().fit(X_train_s, y_train_s)\n"
              "score = clf.score(X_test_s, y_test_s)\n")
    assert [f for f in shell.last.findings if f.rule_id == "DATA001"] == []
    # and a real duplicate across the same suffixed splits is still found
    shell.run("X_test_s = pd.concat([X_test_s, X_train_s.iloc[:30]])\n"
              "y_test_s = pd.concat([y_test_s, y_train_s.iloc[:30]])")
    shell.run("%%guarded_train\nscore = clf.score(X_test_s, y_test_s)\n")
    (f,) = [f for f in shell.last.findings if f.rule_id == "DATA001"]
    assert f.evidence["overlapping_rows"] == 30


def test_hist_gradient_boosting_x_val_on_the_test_split(shell):
    shell.run(SETUP + "from sklearn.ensemble import HistGradientBoostingClassifier")
    shell.run("%%guarded_train\nm = HistGradientBoostingClassifier(max_iter=20).fit("
              "X_train_s, y_train_s, X_val=X_test_s, y_val=y_test_s)")
    (f,) = [f for f in shell.last.findings if f.rule_id == "DATA004"]
    assert f.evidence["keyword"] == "X_val" and "X_test_s" in f.evidence["names"]
