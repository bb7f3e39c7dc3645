"""Which splits hold out the same rows: a fixed seed given as a literal, as a name bound to one (`SEED = 42`) or as
a function's parameter given one makes the same partition every time; another seed, `random_state=None` or a
name rebound by a loop does not."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
SEED = 42
df = pd.read_csv("table.csv")
X, y = df[["a", "b"]], df["label"]"""

FIRST = ("Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=SEED)\n"
         "m = LogisticRegression().fit(Xtr, ytr)")


def rules(*cells: str) -> set[str]:
    rep = analyze_sources([PRELUDE, *cells])
    return {f.rule_id for f in rep.findings if f.rule_id.startswith("LEAK")}


def test_a_seed_bound_to_a_name_splits_the_same_rows_again() -> None:
    again = ("Xtr2, Xte2, ytr2, yte2 = train_test_split(X, y, test_size=0.2, random_state=SEED)\n"
             "print(m.score(Xte2, yte2))")
    assert "LEAK003" not in rules(FIRST, again)


def test_another_seed_or_none_splits_other_rows() -> None:
    for seed in ("7", "None"):
        other = (f"Xtr2, Xte2, ytr2, yte2 = train_test_split(X, y, test_size=0.2, random_state={seed})\n"
                 "print(m.score(Xte2, yte2))")
        assert "LEAK003" in rules(FIRST, other), seed


def test_the_same_named_seed_twice_holds_out_one_test_set_for_two_models() -> None:
    second = ("Xtr2, Xte2, ytr2, yte2 = train_test_split(X, y, test_size=0.2, random_state=SEED)\n"
              "m2 = RandomForestClassifier().fit(Xtr2, ytr2)\nprint(m.score(Xte, yte), m2.score(Xte2, yte2))")
    assert "LEAK005" in rules(FIRST, second)


def test_a_seed_given_to_a_helper_is_a_fixed_seed_inside_it() -> None:
    helper = ("def evaluate(model, seed):\n"
              "    Xa, Xb, ya, yb = train_test_split(X, y, random_state=seed)\n"
              "    return model.fit(Xa, ya).score(Xb, yb)\n"
              "print(evaluate(LogisticRegression(), 1), evaluate(RandomForestClassifier(), 1))")
    assert "LEAK005" in rules(helper)


def test_a_name_rebound_by_a_loop_is_no_fixed_seed() -> None:
    loop = ("seed = 0\nfor seed in range(5):\n    Xa, Xb, ya, yb = train_test_split(X, y, random_state=seed)\n"
            "    print(LogisticRegression().fit(Xa, ya).score(Xb, yb))")
    assert not rules(loop)


def test_the_same_file_read_again_holds_the_same_rows() -> None:
    """`pd.read_csv('table.csv')` in a later cell is the same table: scoring there is scoring the training rows,
    and its split with the same seed holds out the same test rows."""
    reread = "df2 = pd.read_csv('table.csv')\nprint(m.score(df2[['a', 'b']], df2['label']))"
    assert "LEAK007" in rules("m = LogisticRegression().fit(X, y)", reread)
    other_file = reread.replace("table.csv", "other.csv")
    assert "LEAK007" not in rules("m = LogisticRegression().fit(X, y)", other_file)
    again = ("df2 = pd.read_csv('table.csv')\nXtr2, Xte2, ytr2, yte2 = train_test_split(df2[['a', 'b']], df2['label'], "
             "test_size=0.2, random_state=SEED)\nprint(RandomForestClassifier().fit(Xtr2, ytr2).score(Xte2, yte2))")
    first = FIRST + "\nprint(m.score(Xte, yte))"
    rep = analyze_sources([PRELUDE, first, again])
    assert "LEAK005" in {f.rule_id for f in rep.findings}


def test_parts_named_the_other_way_round_are_read_by_what_trains_on_them() -> None:
    """`x_test, x_train, y_test, y_train = train_test_split(X, y)`: the models train on the split's second part, so
    its first part is their held-out side, and two models compared there are compared on the test rows."""
    split = "x_test, x_train, y_test, y_train = train_test_split(X, y, random_state=1)"
    two = ("a = LogisticRegression().fit(x_train, y_train)\nb = LogisticRegression(C=0.1).fit(x_train, y_train)\n"
           "print(a.score(x_test, y_test), b.score(x_test, y_test))")
    assert "LEAK005" in rules(split, two)
    assert not rules(split, "print(LogisticRegression().fit(x_train, y_train).score(x_test, y_test))")


TYPED = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.metrics import accuracy_score
from sklearn.{module} import {model}
cases = {{'dose': [5, 1, 8, 2, 7, 3, 9, 4, 6, 0], 'age': [50, 31, 32, 21, 33, 30, 26, 29, 53, 54],
         'ill': [1, 0, 1, 0, 1, 0, 0, 0, 1, 1]}}
df = pd.DataFrame({data})
X_train, X_test, y_train, y_test = train_test_split(df[['dose', 'age']], df['ill'], test_size=0.3, random_state=7)
m = {model}().fit(X_train, y_train)
print(accuracy_score(y_test, m.predict(X_test)))"""


def test_a_table_typed_again_in_each_cell_and_split_by_the_same_seed_is_one_test_set() -> None:
    """A lab that retypes its data in every cell and splits it with the same seed scores its two models on the
    same test rows; a different table typed in the second cell is other rows."""
    one = TYPED.format(module="naive_bayes", model="GaussianNB", data="cases")
    two = TYPED.format(module="tree", model="DecisionTreeClassifier", data="cases")
    assert "LEAK005" in {f.rule_id for f in analyze_sources([one, two]).findings}
    other = two.replace("[5, 1, 8, 2, 7, 3, 9, 4, 6, 0]", "[4, 4, 2, 9, 1, 3, 5, 8, 6, 7]")
    assert "LEAK005" not in {f.rule_id for f in analyze_sources([one, other]).findings}


def test_empty_tables_typed_with_the_same_columns_are_not_the_same_rows() -> None:
    """`pd.DataFrame(columns=COLS)` filled row by row in two calls of a feature function: two tables, not one
    table concatenated with its own copy."""
    code = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
COLS = ['mean_grip', 'label']
def features(raw, label):
    out = pd.DataFrame(columns=COLS)
    for _, r in raw.iterrows():
        out = out.append({'mean_grip': r['grip'], 'label': label}, ignore_index=True)
    return out
both = pd.concat([features(pd.read_csv('a.csv'), 0), features(pd.read_csv('b.csv'), 1)])
Xtr, Xte, ytr, yte = train_test_split(both[['mean_grip']], both['label'], random_state=0)
print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))"""
    assert not {f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")}


def test_lists_filled_by_each_call_of_a_loader_are_other_rows_each_time() -> None:
    """`xs = []` filled from a folder inside a loader called for the training and the test folder: the empty list
    typed in the loader is no table typed in, so the two calls return other rows."""
    code = """import os
import numpy as np
import cv2
from sklearn.svm import SVC
from sklearn.metrics import f1_score
def load(folder):
    xs = []
    ys = []
    for label, name in enumerate(['neg', 'pos']):
        for f in os.listdir(os.path.join(folder, name)):
            xs.append(cv2.imread(os.path.join(folder, name, f), 0).flatten() / 255.0)
            ys.append(label)
    return np.array(xs), np.array(ys)
X_train, y_train = load('scans/train')
X_test, y_test = load('scans/test')
m = SVC().fit(X_train, y_train)
print(f1_score(y_test, m.predict(X_test)))"""
    assert not {f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")}
