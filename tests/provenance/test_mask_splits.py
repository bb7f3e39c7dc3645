"""A boolean mask whose kept rows train the models and whose left-out rows score them (`train = df[msk]`,
`test = df[~msk]`) splits the data like `train_test_split`: comparing models on the left-out side, or stopping
on it, is a choice by the test rows. Whole notebooks through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
df = pd.read_csv("data.csv")"""

SPLIT = """msk = np.random.rand(len(df)) < 0.8
train, test = df[{tr}], df[{te}]
X_train, y_train = train.drop(columns="y"), train["y"]
X_test, y_test = test.drop(columns="y"), test["y"]"""

COMPARE = """for m in [LogisticRegression(), RandomForestClassifier()]:
    m.fit(X_train, y_train)
    print(accuracy_score(y_test, m.predict(X_test)))"""

ONE = """m = RandomForestClassifier().fit(X_train, y_train)
print(accuracy_score(y_test, m.predict(X_test)))"""


def rules(*cells: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize("tr, te", [("msk", "~msk"), ("~msk", "msk")])
def test_models_compared_on_the_rows_a_mask_leaves_out(tr: str, te: str) -> None:
    split = SPLIT.format(tr=tr, te=te)
    assert "LEAK005" in rules(split, COMPARE)
    assert not rules(split, ONE)  # one model scored once chooses nothing


def test_a_mask_that_only_filters_is_no_split() -> None:
    """`df[df.age > 0]` keeps the rows a later split divides: that split's test part is the held-out set."""
    code = ("from sklearn.model_selection import train_test_split\nclean = df[df.age > 0]\n"
            "X_train, X_test, y_train, y_test = train_test_split(clean.drop(columns='y'), clean['y'])")
    assert "LEAK005" in rules(code, COMPARE)
    assert not rules(code, ONE)


KERAS = """from tensorflow.keras import layers, models
from tensorflow.keras.callbacks import ModelCheckpoint
net = models.Sequential([layers.Dense(8), layers.Dense(1)])
net.compile(optimizer="adam", loss="mse")
best = ModelCheckpoint("best.h5", save_best_only=True)
net.fit(X_train, y_train, validation_data=(X_test, y_test), epochs=30, callbacks=[best])"""


def test_a_best_checkpoint_on_the_left_out_rows_chooses_by_them() -> None:
    split = SPLIT.format(tr="msk", te="~msk")
    found = analyze_sources([HEAD, split, KERAS]).findings
    leak = next(f for f in found if f.rule_id == "LEAK004")
    assert "which weights are kept" in leak.message
    held = ("hold = pd.read_csv('holdout.csv')\n"
            "print(accuracy_score(hold['y'], net.predict(hold.drop(columns='y')) > 0.5))")
    assert "LEAK004" not in rules(split, KERAS, held)  # a labelled file scored after it: a validation side


@pytest.mark.parametrize("labelled, unlabelled", [
    ("df.dropna(subset=['y'])", "df[df['y'].isna()]"),
    ("df[df.y.notnull()]", "df[pd.isnull(df['y'])]"),
    ("df[~df['y'].isna()]", "df[df.y.isnull()]"),
])
def test_rows_with_and_without_a_value_in_one_column_are_disjoint(labelled: str, unlabelled: str) -> None:
    """Every test of one column for missing values selects one of the same two sides: the rows with a label
    train, the rows without one are predicted (and imputed), never the rows trained on."""
    code = (f"known = {labelled}\nmissing = {unlabelled}\n"
            "m = LogisticRegression().fit(known.drop(columns='y'), known['y'])\n"
            "print(m.score(missing.drop(columns='y'), missing['y']))")
    found = {f.rule_id for f in analyze_sources([HEAD, code]).findings if f.rule_id.startswith("LEAK")}
    assert "LEAK003" not in found and "LEAK007" not in found
    inplace = code.replace(f"known = {labelled}\n", "known = df.copy()\nknown.dropna(subset=['y'], inplace=True)\n")
    assert "LEAK003" not in {f.rule_id for f in analyze_sources([HEAD, inplace]).findings}


CUTOFF = """train = df.loc[df.index < '2015-01-01']
test = df.loc[{later}]
X_train, y_train = train.drop(columns="y"), train["y"]
X_test, y_test = test.drop(columns="y"), test["y"]"""

STOPPED = """import xgboost as xgb
reg = xgb.XGBRegressor(n_estimators=500, early_stopping_rounds=20)
reg.fit(X_train, y_train, eval_set=[(X_train, y_train), (X_test, y_test)])
print(reg.predict(X_test))"""


@pytest.mark.parametrize("later", ["df.index >= '2015-01-01'", "'2015-01-01' <= df.index"])
def test_the_two_sides_of_a_date_cutoff_split_the_table(later: str) -> None:
    """`df[df.index < d]` / `df[df.index >= d]`: a time split; stopping on the later side chooses by it."""
    split = CUTOFF.format(later=later)
    found = [f for f in analyze_sources([HEAD, split, STOPPED]).findings if f.rule_id == "LEAK004"]
    assert found and "X_test" in found[0].message
    assert "LEAK005" in rules(split, COMPARE)
    assert not rules(split, ONE)


def test_a_scaler_fitted_on_the_earlier_side_and_scored_on_the_later_is_clean() -> None:
    fitted = ("from sklearn.preprocessing import StandardScaler\nsc = StandardScaler().fit(X_train)\n"
              "m = LogisticRegression().fit(sc.transform(X_train), y_train)\n"
              "print(accuracy_score(y_test, m.predict(sc.transform(X_test))))")
    assert not rules(CUTOFF.format(later="df.index >= '2015-01-01'"), fitted)
    every = fitted.replace("fit(X_train)\n", "fit(df.drop(columns='y'))\n", 1)
    assert "LEAK001" in rules(CUTOFF.format(later="df.index >= '2015-01-01'"), every)


@pytest.mark.parametrize("scored, expected", [
    ("df[df.year < 2015]", {"LEAK007"}),  # the same side again: the rows it was fitted on
    ("df[2015 > df.year]", {"LEAK007"}),
    ("df[df.year >= 2015]", set()),  # the other side
    ("df[2015 <= df.year]", set()),
])
def test_one_bound_written_either_way_selects_the_same_sides(scored: str, expected: set) -> None:
    code = ("a = df[df.year < 2015]\nm = LogisticRegression().fit(a.drop(columns='y'), a['y'])\n"
            f"b = {scored}\nprint(m.score(b.drop(columns='y'), b['y']))")
    assert rules(code) == expected


def test_a_filter_is_not_named_as_the_split() -> None:
    """A statistic learned before a filter and a random split: the message names the split that held the
    evaluated rows out, not the filter that dropped short rows."""
    code = ("df['age'] = df['age'].fillna(df['age'].mean())\nclean = df[~(df.n < 5)]\n"
            "from sklearn.model_selection import train_test_split\n"
            "X_train, X_test, y_train, y_test = train_test_split(clean.drop(columns='y'), clean['y'])\n"
            "m = LogisticRegression().fit(X_train, y_train)\nprint(accuracy_score(y_test, m.predict(X_test)))")
    leak = next(f for f in analyze_sources([HEAD, code]).findings if f.rule_id == "LEAK001")
    assert "train_test_split" in leak.message.split("later holds out")[0]


def test_a_window_of_later_rows_joined_by_and_is_the_other_side_of_the_cutoff() -> None:
    """`df[df.day <= 60]` trains, `df[(df.day > 60) & (df.day <= 90)]` scores: a time split whose later side is
    cut again; stopping on it chooses by the test rows, and models compared on it are compared on them."""
    split = ("train = df[df['day'] <= 60]\ntest = df[(df['day'] > 60) & (df['day'] <= 90)]\n"
             "X_train, y_train = train.drop(columns='y'), train['y']\n"
             "X_test, y_test = test.drop(columns='y'), test['y']")
    assert "LEAK004" in rules(split, STOPPED)
    assert "LEAK005" in rules(split, COMPARE)
    assert not rules(split, ONE)


@pytest.mark.parametrize("train_rows, test_rows", [
    ("df.loc[early]", "df.loc[late]"),  # each side's test bound to its own name
    ("df[early]", "df[~early]"),  # one named test and its negation
])
def test_a_cutoff_test_bound_to_a_name_splits_the_table_as_written_in_place(train_rows: str, test_rows: str) -> None:
    split = (f"cut = df['step'].quantile(0.8)\nearly = df['step'] <= cut\nlate = df['step'] > cut\n"
             f"train, test = {train_rows}, {test_rows}\n"
             "X_train, y_train = train.drop(columns='y'), train['y']\n"
             "X_test, y_test = test.drop(columns='y'), test['y']")
    found = [f for f in analyze_sources([HEAD, split, STOPPED]).findings if f.rule_id == "LEAK004"]
    assert found and "X_test" in found[0].message
    assert "LEAK005" in rules(split, COMPARE)
    assert not rules(split, ONE)


VALUE_SPLIT = """df["part"] = np.random.choice(["train", "valid", "test"], p=[.8, .1, .1], size=len(df))
train, valid, test = df[df.part == "train"], df[df.part == "valid"], df[df.part == "test"]
X_train, y_train = train.drop(columns=["y", "part"]), train["y"]
X_valid, y_valid = valid.drop(columns=["y", "part"]), valid["y"]
X_test, y_test = test.drop(columns=["y", "part"]), test["y"]"""

ON_VALID = """models = [LogisticRegression().fit(X_train, y_train), RandomForestClassifier().fit(X_train, y_train)]
for m in models:
    print(accuracy_score(y_valid, m.predict(X_valid)))"""


def test_the_rows_holding_other_values_of_a_split_column_are_held_out() -> None:
    """`df[df.part == 'train']` trains and `df[df.part == 'test']` scores: a split by that column's values, so
    models compared on the test value's rows are compared on the test set; compared on the validation value's
    rows, with the test rows scored once afterwards, nothing is chosen by the test set."""
    assert "LEAK005" in rules(VALUE_SPLIT, COMPARE)
    assert not rules(VALUE_SPLIT, ONE)
    final = "print(accuracy_score(y_test, models[1].predict(X_test)))"
    assert not rules(VALUE_SPLIT, ON_VALID, final)


@pytest.mark.parametrize("pick", ["df.values[{idx}]", "df.loc[{idx}]"])
def test_the_labels_a_value_mask_keeps_select_its_rows(pick: str) -> None:
    """`idx = df[df.part == 'test'].index`, then `df.loc[idx]` (or positions `.values[idx]`): the same rows as the
    mask written in place, so models compared on them are compared on the test set."""
    split = ('df["part"] = np.random.choice(["train", "test"], p=[.8, .2], size=len(df))\n'
             'tr_idx = df[df.part == "train"].index\nte_idx = df[df["part"] == "test"].index\n'
             f'X_train, y_train = {pick.format(idx="tr_idx")}, df["y"].values[tr_idx]\n'
             f'X_test, y_test = {pick.format(idx="te_idx")}, df["y"].values[te_idx]')
    assert "LEAK005" in rules(split, COMPARE)
    assert not rules(split, ONE)


ANTI_JOIN = """train = df.sample(frac=0.8, random_state=1)
test = df.loc[{te}]
X_train, y_train = train.drop(columns="y"), train["y"]
X_test, y_test = test.drop(columns="y"), test["y"]"""


@pytest.mark.parametrize("te", ["~df.index.isin(train.index)", "~df.index.isin(train.index.values)",
                                "~df.index.isin(list(train.index))"])
def test_models_compared_on_the_rows_a_sample_left_out(te: str) -> None:
    """`test = df.loc[~df.index.isin(train.index)]` after `train = df.sample(frac=0.8)`: the rows the sample left
    out, as `df.drop(train.index)`, are the held-out side."""
    split = ANTI_JOIN.format(te=te)
    assert "LEAK005" in rules(split, COMPARE)
    assert not rules(split, ONE)


def test_rows_a_sample_kept_are_its_training_rows() -> None:
    """`df[df.index.isin(train.index)]` keeps the very rows `train` holds: scoring a model trained on `train` on
    them scores its training rows."""
    split = ANTI_JOIN.format(te="~df.index.isin(train.index)")
    again = ("seen = df[df.index.isin(train.index)]\nm = RandomForestClassifier().fit(X_train, y_train)\n"
             "print(accuracy_score(seen['y'], m.predict(seen.drop(columns='y'))))")
    assert "LEAK007" in rules(split, again)


LEFT_OVER = """from sklearn.model_selection import train_test_split
pool = df.sample(frac=0.3, random_state=1)
tr_idx, te_idx = train_test_split(list(pool.index), test_size=0.2, random_state=1)
m = LogisticRegression().fit(pool.loc[tr_idx].drop(columns="y"), pool.loc[tr_idx]["y"])
print(accuracy_score(pool.loc[te_idx]["y"], m.predict(pool.loc[te_idx].drop(columns="y"))))
seen = set(tr_idx) | set(te_idx)
{extra} = df.loc[{picked}]
print(accuracy_score(extra["y"], m.predict(extra.drop(columns="y"))))"""


@pytest.mark.parametrize("picked, leaks", [
    ("[i for i in df.index if i not in seen]", False),  # the labels no part drew: a membership test against them
    ("[i for i in df.index if df.at[i, 'y'] == 1]", True),  # a subset by a test of the rows: the sample shares rows
])
def test_rows_picked_by_an_index_list_beside_a_random_sample(picked: str, leaks: bool) -> None:
    found = {f.rule_id for f in analyze_sources([HEAD, LEFT_OVER.format(extra="extra", picked=picked)]).findings}
    assert ("LEAK003" in found) is leaks


BOTH_FILES = """from sklearn.model_selection import train_test_split
both = pd.concat([pd.read_csv("train.csv"), pd.read_csv("test.csv")])
both['age'] = both['age'].fillna(30)
unlabelled = both[both['y'].isnull()]
labelled = {labelled}
X_tr, X_va, y_tr, y_va = train_test_split(labelled.drop(columns='y'), labelled['y'], random_state=0)
m = LogisticRegression().fit(X_tr, y_tr)
print(accuracy_score(y_va, m.predict(X_va)))
submission = m.predict(unlabelled.drop(columns='y'))"""


@pytest.mark.parametrize("labelled, overlaps", [
    ("both.dropna()", False),  # complete in every column, the label among them: none of the unlabelled rows
    ("both[both['y'].notnull()]", False),
    # of some columns the rows are kept as they are (the analysis does not know which rows miss a value there): every
    # row, the unlabelled ones included
    ("both[['age', 'y']].dropna()", True),
])
def test_a_whole_table_s_dropna_keeps_none_of_the_rows_a_null_test_picks(labelled: str, overlaps: bool) -> None:
    """Train and test files stacked, then told apart again: the unlabelled rows (`y` missing) are not among the
    rows `dropna()` keeps, so predicting them is no prediction on training rows."""
    found = {f.rule_id for f in analyze_sources([HEAD, BOTH_FILES.format(labelled=labelled)]).findings}
    assert ("LEAK003" in found) is overlaps


def test_a_whole_table_s_dropna_still_shares_rows_with_a_random_part() -> None:
    """`df.dropna()` is a subset of the table: a split of the table holds some of its rows."""
    code = """from sklearn.model_selection import train_test_split
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns='y'), df['y'], random_state=0)
full = df.dropna()
m = LogisticRegression().fit(full.drop(columns='y'), full['y'])
print(accuracy_score(y_te, m.predict(X_te)))"""
    assert "LEAK003" in {f.rule_id for f in analyze_sources([HEAD, code]).findings}
