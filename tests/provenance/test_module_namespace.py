"""The notebook's own namespace reached as a module (`this = sys.modules[__name__]`) holds what its helper
functions store on it (`this.x_train, this.x_test, ... = train_test_split(...)`); a list filled row by row from a
reader the analysis cannot follow (`for row in conn.execute(q): x.append(row[1:])`) and fitted on by a
transformer holds rows, as an unknown reader's result does."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HELPERS = """import sys
import sqlite3
import numpy as np
from sklearn.preprocessing import MinMaxScaler
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
this = sys.modules[__name__]
this.x_train, this.x_test, this.y_train, this.y_test = None, None, None, None
def init(x, y):
    {prepare}
    this.x_train, this.x_test, this.y_train, this.y_test = train_test_split(np.array(x), np.array(y), test_size=0.3)
    {after}
def evaluate():
    print(this.model.score({rows}))"""

RUN = """x, y = [], []
conn = sqlite3.connect("flowers.sqlite")
for row in conn.execute("SELECT * FROM flowers"):
    x.append(list(row[1:-1]))
    y.append(row[-1])
init(x, y)
this.model = LogisticRegression().fit(this.x_train, this.y_train)
evaluate()"""

BEFORE = "x = MinMaxScaler().fit_transform(x)"
AFTER = ("sc = MinMaxScaler().fit(this.x_train)\n"
         "    this.x_train, this.x_test = sc.transform(this.x_train), sc.transform(this.x_test)")


def leaks(prepare: str, after: str, rows: str) -> list[str]:
    code = HELPERS.format(prepare=prepare or "pass", after=after or "pass", rows=rows)
    return sorted(f.rule_id for f in analyze_sources([code, RUN]).findings if f.rule_id.startswith("LEAK"))


def test_a_scaler_fitted_on_every_row_before_the_split_stored_on_the_module_leaks() -> None:
    assert leaks(BEFORE, "", "this.x_test, this.y_test") == ["LEAK001"]


def test_a_scaler_fitted_on_the_training_part_stored_on_the_module_is_clean() -> None:
    assert leaks("", AFTER, "this.x_test, this.y_test") == []


def test_the_training_part_read_back_from_the_module_is_the_rows_it_was_fitted_on() -> None:
    assert leaks("", AFTER, "this.x_train, this.y_train") == ["LEAK007"]
