"""EVAL001 and TIME001 on real notebooks."""

from __future__ import annotations

from .nbhelp import ids, of, scan_cells

SK = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split, KFold, TimeSeriesSplit, "
      "cross_val_score\nfrom sklearn.linear_model import LogisticRegression, Ridge\n"
      "from sklearn.metrics import accuracy_score")
LOAD = 'df = pd.read_csv("d.csv")\nX = df.drop("y", axis=1)\ny = df["y"]'
SPLIT = "X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)"


def test_train_score_named_test(tmp_path):
    rep = scan_cells(tmp_path, [SK, LOAD, SPLIT, "m = LogisticRegression().fit(X_train, y_train)\n"
                                                 "test_acc = m.score(X_train, y_train)"])
    [f] = of(rep, "EVAL001")
    assert "`test_acc`" in f.message and "cell 4" in f.message


def test_train_metric_printed_as_validation(tmp_path):
    rep = scan_cells(tmp_path, [SK, LOAD, SPLIT, "m = LogisticRegression().fit(X_train, y_train)\n"
                                                 "print('Validation accuracy:', accuracy_score(y_train, "
                                                 "m.predict(X_train)))"])
    assert "EVAL001" in ids(rep)


def test_train_and_test_metrics_labelled_correctly(tmp_path):
    rep = scan_cells(tmp_path, [SK, LOAD, SPLIT, "m = LogisticRegression().fit(X_train, y_train)\n"
                                                 "print('train accuracy', m.score(X_train, y_train))\n"
                                                 "print('test accuracy', m.score(X_test, y_test))\n"
                                                 "train_acc = accuracy_score(y_train, m.predict(X_train))"])
    assert "EVAL001" not in ids(rep)


def test_lag_features_then_shuffled_split(tmp_path):
    rep = scan_cells(tmp_path, [SK, 'df = pd.read_csv("s.csv", parse_dates=["date"])\n'
                                     'df["lag1"] = df["sales"].shift(1)\ndf = df.dropna()',
                                'X = df.drop(columns=["sales", "date"])\ny = df["sales"]\n' + SPLIT +
                                "\nRidge().fit(X_train, y_train)"])
    [f] = of(rep, "TIME001")
    assert "`.shift()` in cell 2" in f.message and f.severity.value == "error"


def test_time_ordered_with_chronological_split_or_tss(tmp_path):
    head = 'df = pd.read_csv("s.csv", parse_dates=["date"])\ndf["roll"] = df["sales"].rolling(7).mean()\n' \
           'X = df.drop(columns=["sales"])\ny = df["sales"]'
    rep = scan_cells(tmp_path, [SK, head, "X_train, X_test, y_train, y_test = train_test_split(X, y, shuffle=False)\n"
                                          "Ridge().fit(X_train, y_train)\n"
                                          "cross_val_score(Ridge(), X, y, cv=TimeSeriesSplit(5))"])
    assert "TIME001" not in ids(rep)
    rep2 = scan_cells(tmp_path, [SK, head, "cross_val_score(Ridge(), X, y, cv=KFold(5, shuffle=True, "
                                           "random_state=0))"], name="kf.ipynb")
    assert "TIME001" in ids(rep2)


def test_plain_tabular_data_with_random_split(tmp_path):
    rep = scan_cells(tmp_path, [SK, LOAD, SPLIT + "\nLogisticRegression().fit(X_train, y_train)"])
    assert "TIME001" not in ids(rep)


def test_a_column_parsed_as_dates_orders_rows_whatever_its_name(tmp_path):
    """`parse_dates=['day']` or `to_datetime` then sorting/indexing by that column: time order from provenance."""
    tail = 'X = df[["store", "promo"]]\ny = df["units"]\n' + SPLIT + "\nRidge().fit(X_train, y_train)"
    read = 'df = pd.read_csv("s.csv", parse_dates=["day"])\ndf = df.sort_values("day")'
    [f] = of(scan_cells(tmp_path, [SK, read, tail]), "TIME001")
    assert "`sort_values('day')` in cell 2" in f.message
    conv = 'df = pd.read_csv("s.csv")\ndf["day"] = pd.to_datetime(df["day"])\ndf = df.set_index("day")'
    [f] = of(scan_cells(tmp_path, [SK, conv, tail], name="conv.ipynb"), "TIME001")
    assert "`set_index('day')` in cell 2" in f.message
    other = 'df = pd.read_csv("s.csv", parse_dates=["day"])\ndf = df.sort_values("store")'
    assert "TIME001" not in ids(scan_cells(tmp_path, [SK, other, tail], name="other.ipynb"))


def test_sliding_windows_shuffled_into_train_and_test(tmp_path):
    """Overlapping windows `x[i:i + n]` presuppose ordered rows; shuffling them puts near-copies on both sides."""
    windows = ('sig = pd.read_csv("s.csv")["v"].values\nX, y = [], []\nfor i in range(len(sig) - 50):\n'
               '    X.append(sig[i:i + 50])\n    y.append(sig[i + 50])\nX, y = np.array(X), np.array(y)')
    [f] = of(scan_cells(tmp_path, [SK + "\nimport numpy as np", windows, SPLIT + "\nRidge().fit(X_train, y_train)"]),
             "TIME001")
    assert "sliding windows" in f.message
    chrono = "X_train, X_test, y_train, y_test = train_test_split(X, y, shuffle=False)\nRidge().fit(X_train, y_train)"
    assert "TIME001" not in ids(scan_cells(tmp_path, [SK + "\nimport numpy as np", windows, chrono], name="c.ipynb"))


def test_a_long_linspace_is_synthetic_data_not_a_grid_of_settings(tmp_path):
    """`np.linspace(0, 100, 10000)` makes a series to learn from; `np.linspace(0.1, 1, 10)` is settings to try."""
    series = ("t = np.linspace(0, 100, 10000)\nsig = np.sin(t)\nX, y = [], []\nfor i in range(len(sig) - 50):\n"
              "    X.append(sig[i:i + 50])\n    y.append(sig[i + 50])\nX, y = np.array(X), np.array(y)")
    rep = scan_cells(tmp_path, [SK + "\nimport numpy as np", series, SPLIT + "\nRidge().fit(X_train, y_train)"])
    assert "TIME001" in ids(rep)
    grid = (LOAD + "\n" + SPLIT + "\nfor a in np.linspace(0.1, 1, 10):\n"
            "    print(a, Ridge(alpha=a).fit(X_train, y_train).score(X_test, y_test))")
    assert "LEAK004" in ids(scan_cells(tmp_path, [SK + "\nimport numpy as np", grid], name="grid.ipynb"))
