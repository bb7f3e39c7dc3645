"""DATA006 tells the label column of a training frame from its features (real pandas/scikit-learn objects)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from jupyter_trainguard.findings import Location
from jupyter_trainguard.runtime.data_checks import DataContext
from jupyter_trainguard.runtime.splits import Split
from jupyter_trainguard.runtime.target_check import check_single_feature, screen_columns

FRAME = """
import numpy as np, pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
rng = np.random.default_rng(4)
df = pd.DataFrame(rng.normal(size=(600, 4)), columns=["a", "b", "c", "d"])
df["label"] = (df.a - df.b + rng.normal(scale=1.0, size=600) > 0).astype(int)
train_df, test_df = train_test_split(df, test_size=0.25, random_state=0)
"""


def data006(shell):
    return [f for f in shell.last.findings if f.rule_id == "DATA006"]


def test_label_series_named_like_a_frame_column_is_not_a_feature(shell):
    shell.run(FRAME + "y_train, y_test = train_df['label'], test_df['label']")
    shell.run("%%guarded_train\nclf = LogisticRegression().fit(train_df.drop(columns=['label']), y_train)")
    assert data006(shell) == []


def test_label_as_array_dropped_before_fit_is_not_a_feature(shell):
    shell.run(FRAME + "y_train, y_test = train_df['label'].to_numpy(), test_df['label'].to_numpy()")
    shell.run("%%guarded_train\nclf = LogisticRegression().fit(train_df.drop('label', axis=1), y_train)")
    assert data006(shell) == []


def test_frame_not_passed_to_fit_keeps_its_label_column_out(shell):
    shell.run(
        FRAME + "y_train, y_test = train_df['label'].to_numpy(), test_df['label'].to_numpy()\n"
        "features = ['a', 'b', 'c', 'd']"
    )
    shell.run("%%guarded_train\nclf = LogisticRegression().fit(train_df[features], y_train)")
    assert data006(shell) == []
    assert any("taken as the label column" in n for n in shell.last.notes)


def test_a_copy_of_the_label_inside_the_model_input_still_fires(shell):
    shell.run(
        FRAME + "train_df = train_df.assign(outcome_code=train_df['label'] * 2 + 1)\n"
        "y_train = train_df.pop('label')\ntest_df = test_df.drop(columns=['label'])"
    )
    shell.run("%%guarded_train\nclf = LogisticRegression().fit(train_df, y_train)")
    hits = data006(shell)
    assert [h.evidence["column"] for h in hits] == ["outcome_code"]


def test_label_column_inside_the_frame_passed_as_is_fires(shell):
    shell.run(FRAME + "y_train = train_df['label'].to_numpy()")
    shell.run("%%guarded_train\nclf = LogisticRegression().fit(train_df, y_train)")
    assert [h.evidence["column"] for h in data006(shell)] == ["label"]


def test_wide_arrays_are_screened_without_losing_the_leaking_column():
    rng = np.random.default_rng(0)
    n, d = 70_000, 784
    y = rng.integers(0, 10, n)
    x = rng.random((n, d), dtype=np.float32)
    x[:, 431] = y * 0.1 + rng.random(n, dtype=np.float32) * 0.05  # sorted by this column, labels form runs
    x[:, 17] = y == 3  # discrete, but far from determining ten classes
    splits = [Split("X_train", "train", "x", x, False, "name"), Split("y_train", "train", "y", y, True, "name")]
    ctx = DataContext({}, splits, Location("<t>"))
    found = check_single_feature(ctx)
    assert [f.evidence["column"] for f in found] == ["column 431"]
    assert not any("time box" in note for note in ctx.notes)


def test_screening_keeps_every_column_the_exact_score_would_flag():
    rng = np.random.default_rng(1)
    m = 1024
    y = rng.integers(0, 3, m)
    cols = {
        "equal": y.astype(float),
        "runs": y + rng.random(m) * 0.5,
        "discrete": np.where(rng.random(m) < 0.003, (y + 1) % 3, y) * 7.0,
        "noise": rng.normal(size=m),
    }
    keep = screen_columns(np.column_stack(list(cols.values())), y, True, 3)
    assert [list(cols)[j] for j in keep] == ["equal", "runs", "discrete"]
    yr = rng.normal(size=m)
    keep = screen_columns(
        np.column_stack([yr * 3 + 1, rng.normal(size=m), yr + rng.normal(scale=1e-3, size=m)]), yr, False, 0
    )
    assert list(keep) == [0, 2]


def test_frame_with_target_option_and_series_label():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.normal(size=(500, 3)), columns=["p", "q", "r"])
    frame["churned"] = (frame.p > 0).astype(int)
    splits = [Split("train_df", "train", "df", frame, False, "name")]
    ctx = DataContext({}, splits, Location("<t>"))
    ctx.options.target = "churned"
    found = check_single_feature(ctx)
    assert [f.evidence["column"] for f in found] == ["p"]  # p > 0 is the label: a real leak; churned itself is not


def test_result_is_kept_while_the_objects_are_unchanged_and_rechecked_after_an_in_place_change(shell, monkeypatch):
    from jupyter_trainguard.runtime import target_check

    calls = []
    real = target_check.predictiveness
    monkeypatch.setattr(target_check, "predictiveness", lambda *a: calls.append(1) or real(*a))
    shell.run(FRAME + "X_train, X_test = train_df.drop(columns=['label']), test_df.drop(columns=['label'])\n"
              "y_train, y_test = train_df['label'], test_df['label']")
    fit = "%%guarded_train\nclf = LogisticRegression().fit(X_train, y_train)"
    shell.run(fit)
    assert data006(shell) == [] and calls
    first = len(calls)
    shell.run(fit)  # nothing changed: the kept result, no column scored again
    assert data006(shell) == [] and len(calls) == first
    shell.run("X_train['a'] = y_train.to_numpy() * 2.0")  # in place: the label leaks into column a
    shell.run(fit)
    assert len(calls) > first
    assert [f.evidence["column"] for f in data006(shell)] == ["a"]
    shell.run(fit)  # the finding is kept too, at this cell
    assert [f.evidence["column"] for f in data006(shell)] == ["a"]


SMALL = """
import numpy as np, pandas as pd
from sklearn.linear_model import LogisticRegression
rng = np.random.default_rng(7)
X_train = pd.DataFrame(rng.normal(size=(60, 4)), columns=["a", "b", "c", "d"])
X_train["count"] = rng.integers(0, 40, 60)  # discrete noise, most values seen once or twice
y_train = pd.Series(rng.integers(0, 2, 60), name="y")
"""


def test_small_training_set_of_noise_is_no_data006_and_a_copy_of_the_label_still_fires(shell):
    shell.run(SMALL)
    shell.run("%%guarded_train\nclf = LogisticRegression().fit(X_train, y_train)")
    assert data006(shell) == []  # 60 distinct values in 60 rows: each its own group, not a predictor
    shell.run("X_train['copy'] = y_train.to_numpy() * 3 + 1")
    shell.run("%%guarded_train\nclf = LogisticRegression().fit(X_train, y_train)")
    assert [(h.evidence["column"], h.evidence["method"]) for h in data006(shell)] == [("copy", "group_purity")]


def test_noise_with_one_or_two_rows_per_value_scores_low():
    from jupyter_trainguard.runtime.target_check import predictiveness

    rng = np.random.default_rng(3)
    for n in (20, 30, 60, 64, 100):
        y = rng.integers(0, 2, n)
        score, method = predictiveness(rng.normal(size=n), y, True)
        assert method == "sorted_runs" and score < 0.9, (n, score)
        assert predictiveness(y * 2.0 + 5, y, True) == (1.0, "group_purity")
    y = rng.integers(0, 3, 200)
    score, method = predictiveness(rng.integers(0, 60, 200), y, True)  # 60 values, 3+ rows each: still grouped
    assert method == "group_purity" and score < 0.9
