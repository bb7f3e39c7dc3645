"""A decision threshold picked by the best F1 of a precision-recall curve on the test rows is a choice by those
rows, whoever produced the scores (a classifier's probabilities, an anomaly detector's `score_samples`) and
however the best is found (`np.argmax(f1)`, `f1 == np.max(f1)`). Picked on a validation part, it is not."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

CODE = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.ensemble import IsolationForest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import precision_recall_curve, confusion_matrix
df = pd.read_csv("transactions.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="fraud"), df["fraud"], random_state=0)
X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, random_state=0)
model = {model}
scores = {scores}
precision, recall, thresholds = precision_recall_curve({truth}, scores)
f1 = 2 * precision * recall / (precision + recall)
best = {pick}
print(confusion_matrix(y_te, {final} >= best))"""

DETECTOR = ("IsolationForest(random_state=0).fit(X_fit)", "-model.score_samples({rows})")
CLASSIFIER = ("LogisticRegression().fit(X_fit, y_fit)", "model.predict_proba({rows})[:, 1]")


def leak_ids(made: tuple, rows: str, truth: str, pick: str) -> list[str]:
    code = CODE.format(model=made[0], scores=made[1].format(rows=rows), truth=truth, pick=pick,
                       final=made[1].format(rows="X_te"))
    return sorted({f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")})


@pytest.mark.parametrize("made", [DETECTOR, CLASSIFIER], ids=["detector", "classifier"])
@pytest.mark.parametrize("pick", ["thresholds[np.argmax(f1)]", "thresholds[np.where(f1 == np.max(f1))[0][0]]"],
                         ids=["argmax", "equals-max"])
def test_a_threshold_tuned_on_the_test_rows_is_a_choice_by_them(made: tuple, pick: str) -> None:
    assert leak_ids(made, "X_te", "y_te", pick) == ["LEAK004"]
    assert leak_ids(made, "X_val", "y_val", pick) == []


COST = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
df = pd.read_csv("loans.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="bad").values, df["bad"].values, random_state=0)
proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
def cost(truth, p, t):
    said = (p >= t).astype(int)
    return 5 * np.sum((said == 0) & (truth == 1)) + np.sum((said == 1) & (truth == 0))
grid = np.linspace(0.01, 0.99, 99)
costs = [cost(y_te, proba, t) for t in grid]
{pick}"""


def test_a_threshold_picked_from_costs_computed_in_a_comprehension_is_a_choice() -> None:
    """`[cost(y_te, p, t) for t in grid]` scores one threshold per pass, as a loop over the settings does: the
    cheapest one is picked by the test rows."""
    ids = {f.rule_id for f in analyze_sources([COST.format(pick="best = grid[int(np.argmin(costs))]")]).findings}
    assert "LEAK004" in ids
    listed = {f.rule_id for f in analyze_sources([COST.format(pick="print(costs[:3])")]).findings}
    assert "LEAK005" in listed and "LEAK004" not in listed  # every threshold's cost shown side by side: compared
    once = COST.replace("costs = [cost(y_te, proba, t) for t in grid]", "costs = [cost(y_te, proba, 0.5)]")
    assert not {f.rule_id for f in analyze_sources([once.format(pick="print(costs)")]).findings
                if f.rule_id.startswith("LEAK")}


SWEEP = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import precision_score, recall_score
df = pd.read_csv("loans.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="bad"), df["bad"], random_state=0)
proba = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
grid = np.linspace(0, 1, 101)
recalls, precisions = [], []
for t in grid:
    recalls.append(recall_score(y_te, proba >= t))
    precisions.append(precision_score(y_te, proba >= t))
table = pd.DataFrame({table}, columns=["t", "recall", "precision"])
table["f1"] = 2 * table["precision"] * table["recall"] / (table["precision"] + table["recall"])
{pick}"""


@pytest.mark.parametrize("table", ["list(zip(grid, recalls, precisions))", "zip(grid, recalls, precisions)"],
                         ids=["list-zip", "zip"])
def test_a_threshold_read_off_a_table_zipped_from_the_sweep_is_a_choice(table: str) -> None:
    """The thresholds zipped with the scores the loop gathered for them: the row of the best F1 is a pick by the
    test rows; the table only shown compares every threshold side by side."""
    picked = SWEEP.format(table=table, pick="best = table[table['f1'] == table['f1'].max()]")
    assert {f.rule_id for f in analyze_sources([picked]).findings if f.rule_id.startswith("LEAK")} == {"LEAK004"}
    shown = SWEEP.format(table=table, pick="print(table.head())")
    assert {f.rule_id for f in analyze_sources([shown]).findings if f.rule_id.startswith("LEAK")} == {"LEAK005"}
