"""Positional slices of the same rows: constant bounds prove an overlap (`df[:800]` trained on, `df[700:]` tested
on); bounds held in names prove nothing (though a name rebound to another literal cuts elsewhere), and rows read
through sliding windows keep their first rows as context."""

from __future__ import annotations

import pytest

from jupyter_trainguard.analysis.provenance.rows import slices_overlap
from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
df = pd.read_csv("table.csv")
n, m = 800, 700"""

FIT_AND_SCORE = ("model = LogisticRegression().fit(train.drop(columns='label'), train['label'])\n"
                 "print(accuracy_score(test['label'], model.predict(test.drop(columns='label'))))")


def findings(train: str, test: str):
    rep = analyze_sources([PRELUDE, f"train = {train}\ntest = {test}", FIT_AND_SCORE])
    return [f for f in rep.findings if f.rule_id.startswith("LEAK")]


@pytest.mark.parametrize("train, test", [
    ("df[:800]", "df[700:]"),
    ("df.iloc[:-200]", "df.iloc[-300:]"),
    ("df.head(800)", "df.iloc[600:900]"),
    ("df[100:900]", "df[:200]"),
])
def test_constant_bounds_that_overlap_are_an_overlap_leak(train: str, test: str) -> None:
    found = findings(train, test)
    assert [f.rule_id for f in found] == ["LEAK003"], (train, test)
    assert found[0].category == "leakage.overlap"
    sliced = [s["code"] for s in found[0].evidence["slices"]]
    assert sliced == [train, test]
    assert "overlapping ranges of the same rows" in found[0].message


@pytest.mark.parametrize("train, test", [
    ("df[:800]", "df[800:]"),
    ("df.iloc[:-300]", "df.iloc[-300:]"),
    ("df[:n]", "df[m:]"),  # names: their values are not read, nothing is proven
    ("df.head(800)", "df.tail(300)"),  # depends on how many rows there are
    ("df[:800]", "df[-100:]"),
])
def test_adjacent_or_unknown_bounds_stay_quiet(train: str, test: str) -> None:
    assert not findings(train, test), (train, test)


def test_a_test_slice_starting_a_window_early_is_only_context() -> None:
    windows = """X_tr, y_tr, X_te, y_te = [], [], [], []
for i in range(60, len(train)):
    X_tr.append(train.values[i - 60:i])
    y_tr.append(train['label'].values[i])
for i in range(60, len(test)):
    X_te.append(test.values[i - 60:i])
    y_te.append(test['label'].values[i])
X_tr, y_tr, X_te, y_te = np.array(X_tr), np.array(y_tr), np.array(X_te), np.array(y_te)
model = LogisticRegression().fit(X_tr, y_tr)
print(accuracy_score(y_te, model.predict(X_te)))"""
    rep = analyze_sources([PRELUDE, "train = df[:1000]\ntest = df[940:]", windows])
    assert not [f for f in rep.findings if f.rule_id.startswith("LEAK")]


def test_slice_bounds_arithmetic() -> None:
    lo = (("pos", "800"), "lo")
    assert slices_overlap(lo, (("pos", "799"), "hi"))
    assert not slices_overlap(lo, (("pos", "800"), "hi"))
    assert slices_overlap((("pos", "-200"), "lo"), (("pos", "-300"), "hi"))
    assert not slices_overlap((("pos", "-300"), "lo"), (("pos", "-300"), "hi"))
    assert slices_overlap((("tail", "300"), "hi"), (("pos", "-100"), "hi"))
    assert slices_overlap((("pos", "-200"), "lo"), (("pos", "100"), "lo"))  # both start at the first row
    assert not slices_overlap((("pos", "-200"), "lo"), (("pos", "100"), "hi"))  # depends on the length
    assert not slices_overlap((("pos", "n"), "lo"), (("pos", "5"), "hi"))
    assert not slices_overlap((("pos", "10", "20"), "mid"), (("pos", "20", "30"), "mid"))
    assert slices_overlap((("pos", "10", "21"), "mid"), (("pos", "20", "30"), "mid"))


REGROUPED = """from sklearn.preprocessing import StandardScaler
prices = df['close'].values.reshape(500, 1)
scaler = StandardScaler().fit(prices[{fitted}])
frame = pd.DataFrame({regroup}, columns=list('abcdy'))
train, test = frame.iloc[:74], frame.iloc[75:99]
model = LogisticRegression().fit(train.drop(columns='y'), train['y'])
print(accuracy_score(test['y'], model.predict(test.drop(columns='y'))))"""


@pytest.mark.parametrize("regroup", ["scaler.transform(prices).reshape(100, 5)",
                                     "np.reshape(scaler.transform(prices), (100, 5))"])
@pytest.mark.parametrize("fitted, leaks", [(":374", False), (":", True)])
def test_rows_regrouped_by_a_reshape_are_not_named_by_earlier_positions(fitted: str, leaks: bool, regroup: str) -> None:
    """`reshape(100, 5)` makes five values one row: a slice of the result says nothing about the slice the
    scaler was fitted on, but a scaler fitted on every value still reached every regrouped row."""
    rep = analyze_sources([PRELUDE, REGROUPED.format(fitted=fitted, regroup=regroup)])
    assert ("LEAK001" in {f.rule_id for f in rep.findings}) is leaks


@pytest.mark.parametrize("train, test", [
    ("a = 0\nb = 10\ntrain = df[a:b]", "a = 10\nb = 250\ntest = df[a:b]"),  # the same text, rebound: other rows
    ("start = 0\ntrain = pd.concat([df[start:start + 10]])", "start = 10\ntest = df[start:]"),
    ("k = 800\ntrain = df[:k]", "test = df[k:]"),  # one name, one value: one cut
    ("k = 800\ntrain = df[:k]", "test = df[700:]"),  # a name's value proves no overlap (a branch may rebind it)
])
def test_names_bound_to_literals_cut_where_they_were_bound_when_the_slice_ran(train: str, test: str) -> None:
    rep = analyze_sources([PRELUDE, train, test, FIT_AND_SCORE])
    assert not [f for f in rep.findings if f.rule_id.startswith("LEAK")], (train, test)


def test_a_slice_repeated_with_the_same_bound_names_and_values_is_the_same_rows() -> None:
    rep = analyze_sources([PRELUDE, "a = 0\nb = 10\ntrain = df[a:b]", "test = df[a:b]", FIT_AND_SCORE])
    assert "LEAK007" in {f.rule_id for f in rep.findings}


@pytest.mark.parametrize("train, test, leaks", [
    ("df.iloc[list(range(0, 800)), :]", "df.iloc[800:, :]", False),  # a run of positions is the slice `:800`
    ("df.iloc[range(800)]", "df.iloc[800:]", False),
    ("df.iloc[np.arange(0, 800)]", "df.iloc[800:]", False),
    ("df.iloc[list(range(0, 800))]", "df.iloc[700:]", True),
    ("df.iloc[np.arange(100, 900)]", "df.iloc[:200]", True),
])
def test_a_range_of_positions_selects_the_rows_of_the_same_slice(train: str, test: str, leaks: bool) -> None:
    found = findings(train, test)
    assert ([f.rule_id for f in found] == ["LEAK003"]) is leaks and (leaks or not found), (train, test)


def test_a_range_of_positions_with_a_step_is_no_run_of_rows() -> None:
    """`range(0, 800, 2)` picks every other row of the first 800: they still meet `df[600:]`."""
    assert [f.rule_id for f in findings("df.iloc[list(range(0, 800, 2))]", "df.iloc[600:]")] == ["LEAK003"]


def test_a_range_given_to_a_frame_without_an_accessor_picks_columns() -> None:
    """`df[range(3)]` of a frame names its columns 0, 1, 2: every row is kept, so its rows from 500 on were
    trained on (read as the rows `:3`, they would not have been)."""
    rep = analyze_sources([PRELUDE, "feats = df[range(3)]\nmodel = LogisticRegression().fit(feats, df['label'])\n"
                                    "print(accuracy_score(df['label'][500:], model.predict(feats[500:])))"])
    assert "LEAK003" in {f.rule_id for f in rep.findings}
