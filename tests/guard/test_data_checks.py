"""DATA001-DATA006 through the real magic, on real pandas/NumPy/scikit-learn/torch objects."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jupyter_trainguard.findings import Location
from jupyter_trainguard.runtime.data_checks import DataContext, overlap, predictiveness
from jupyter_trainguard.runtime.splits import Split, discover_splits, role_from_name

SETUP = """
import numpy as np, pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
rng = np.random.default_rng(1)
X = pd.DataFrame(rng.normal(size=(400, 5)), columns=["f0", "f1", "f2", "f3", "f4"])
y = pd.Series((X.f0 + X.f1 + rng.normal(scale=1.0, size=400) > 0).astype(int), name="label")
"""
TRAIN = "%%guarded_train\nclf = LogisticRegression().fit(X_train, y_train)\nscore = clf.score(X_test, y_test)\n"


def by_rule(shell, rule_id):
    return [f for f in shell.last.findings if f.rule_id == rule_id]


def test_data001_duplicated_rows_fire_with_ratio(shell):
    shell.run(SETUP)
    shell.run("X2 = pd.concat([X, X.iloc[:100]]); y2 = pd.concat([y, y.iloc[:100]])\n"
              "X_train, X_test, y_train, y_test = train_test_split(X2, y2, test_size=0.25, random_state=0)")
    shell.run(TRAIN)
    (f,) = by_rule(shell, "DATA001")
    xtr, xte = shell.ns["X_train"], shell.ns["X_test"]
    expected = int(xte.apply(tuple, axis=1).isin(set(xtr.apply(tuple, axis=1))).sum())
    assert expected > 0
    assert f.evidence["overlapping_rows"] == expected
    assert f.evidence["ratio"] == pytest.approx(expected / len(xte))
    assert f.source == "runtime" and f.severity.value == "error"
    assert "score" in shell.ns  # the default runs the cell anyway


def test_data001_silent_on_clean_split(shell):
    shell.run(SETUP)
    shell.run("X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)")
    shell.run(TRAIN)
    assert "DATA001" not in shell.ids()


def test_data001_torch_random_split_subsets_of_duplicated_tensor(shell):
    shell.run("import torch\nfrom torch.utils.data import TensorDataset, random_split, DataLoader\n"
              "g = torch.Generator().manual_seed(0)\nbase = torch.randn(200, 3, generator=g)\n"
              "data = torch.cat([base, base[:40]])\nds = TensorDataset(data, torch.zeros(240))\n"
              "train_ds, test_ds = random_split(ds, [180, 60], generator=g)\n"
              "train_loader = DataLoader(train_ds, batch_size=32)\ntest_loader = DataLoader(test_ds, batch_size=32)")
    shell.run("%%guarded_train\nn = sum(len(b[0]) for b in train_loader)")
    hits = by_rule(shell, "DATA001")
    tr = shell.ns["data"][list(shell.ns["train_ds"].indices)].numpy()
    te = shell.ns["data"][list(shell.ns["test_ds"].indices)].numpy()
    expected = sum(1 for row in te if (tr == row).all(axis=1).any())
    assert expected > 0
    assert any(h.evidence["overlapping_rows"] == expected for h in hits)


def test_data001_subsets_of_an_unhashable_dataset_compare_indices(shell):
    shell.run("import torch\nfrom torch.utils.data import Dataset, Subset, DataLoader\n"
              "class Images(Dataset):\n    def __len__(self): return 100\n"
              "    def __getitem__(self, i): return torch.full((3,), float(i))\n"
              "images = Images()\ntrain_set = Subset(images, list(range(0, 80)))\n"
              "test_loader = DataLoader(Subset(images, list(range(70, 100))), batch_size=10)")
    shell.run("%%guarded_train\nn = len(train_set)")
    (f,) = [f for f in shell.last.findings if f.rule_id == "DATA001"]
    assert f.evidence["overlapping_rows"] == 10 and f.evidence["by"] == "subset indices"
    assert {s["name"]: s["rows"] for s in shell.last.splits} == {"train_set": 80, "test_loader": 30}


def test_data002_group_key_overlap(shell):
    shell.run(SETUP)
    shell.run("df = X.assign(user_id=np.arange(400) // 4, label=y)\n"
              "train_df, test_df = train_test_split(df, test_size=0.25, random_state=0)")
    shell.run("%%guarded_train --group-key user_id\nm = LogisticRegression().fit(train_df[['f0']], train_df.label)")
    (f,) = by_rule(shell, "DATA002")
    tr, te = shell.ns["train_df"], shell.ns["test_df"]
    assert f.evidence["shared_keys"] == len(set(tr.user_id) & set(te.user_id))
    assert f.evidence["rows_affected"] == int(te.user_id.isin(set(tr.user_id)).sum())


def test_data002_silent_with_group_split(shell):
    shell.run(SETUP)
    shell.run("from sklearn.model_selection import GroupShuffleSplit\n"
              "df = X.assign(user_id=np.arange(400) // 4, label=y)\n"
              "tr_idx, te_idx = next(GroupShuffleSplit(test_size=0.25, random_state=0).split(df, groups=df.user_id))\n"
              "train_df, test_df = df.iloc[tr_idx], df.iloc[te_idx]")
    shell.run("%%guarded_train --group-key user_id\nm = LogisticRegression().fit(train_df[['f0']], train_df.label)")
    assert "DATA002" not in shell.ids()


def test_data003_scaler_fitted_on_full_data(shell):
    shell.run(SETUP)
    shell.run("from sklearn.preprocessing import StandardScaler\nscaler = StandardScaler().fit(X)\n"
              "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)")
    shell.run(TRAIN)
    (f,) = by_rule(shell, "DATA003")
    assert f.evidence["samples_seen"] == 400 and f.evidence["train_rows"] == 300
    assert f.evidence["eval_splits_matching"] == ["X_test"]
    assert f.evidence["mean_matches_train_plus_eval"] is True


def test_data003_silent_when_fitted_on_train_in_pipeline(shell):
    shell.run(SETUP)
    shell.run("from sklearn.preprocessing import StandardScaler\nfrom sklearn.pipeline import make_pipeline\n"
              "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)\n"
              "scaler = StandardScaler().fit(X_train)")
    shell.run("%%guarded_train\npipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)")
    assert "DATA003" not in shell.ids()


FITTER = """
class EarlyStoppingModel:
    def fit(self, X, y, eval_set=None):
        self.best_ = LogisticRegression().fit(X, y).score(*eval_set[0])
        return self
"""


def test_data004_test_set_as_eval_set_by_name_and_by_rows(shell):
    shell.run(SETUP + FITTER)
    shell.run("X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)\n"
              "X_es, y_es = X_test.copy(), y_test.copy()")
    shell.run("%%guarded_train\nm = EarlyStoppingModel().fit(X_train, y_train, eval_set=[(X_test, y_test)])")
    (f,) = by_rule(shell, "DATA004")
    assert f.evidence["names"] == ["X_test", "y_test"] and f.evidence["keyword"] == "eval_set"
    shell.run("%%guarded_train\nm = EarlyStoppingModel().fit(X_train, y_train, eval_set=[(X_es, y_es)])")
    (f,) = by_rule(shell, "DATA004")
    assert "X_es" in f.evidence["names"] and "same rows" in f.evidence["matched_by"]


def test_data004_silent_with_validation_split(shell):
    shell.run(SETUP + FITTER)
    shell.run("X_tmp, X_test, y_tmp, y_test = train_test_split(X, y, test_size=0.2, random_state=0)\n"
              "X_train, X_val, y_train, y_val = train_test_split(X_tmp, y_tmp, test_size=0.25, random_state=0)")
    shell.run("%%guarded_train\nm = EarlyStoppingModel().fit(X_train, y_train, eval_set=[(X_val, y_val)])")
    assert "DATA004" not in shell.ids()


TIME_SETUP = """
import numpy as np, pandas as pd
from sklearn.model_selection import train_test_split
rng = np.random.default_rng(2)
df = pd.DataFrame({"when": pd.date_range("2024-01-01", periods=300, freq="D"), "x": rng.normal(size=300)})
df["y"] = (df.x > 0).astype(int)
"""


def test_data005_shuffled_time_split(shell):
    shell.run(TIME_SETUP + "train_df, test_df = train_test_split(df, test_size=0.2, random_state=0)")
    shell.run("%%guarded_train\nn = len(train_df)")
    (f,) = by_rule(shell, "DATA005")
    tr, te = shell.ns["train_df"], shell.ns["test_df"]
    assert f.evidence["train_rows_after"] == int((tr.when > te.when.min()).sum())
    assert f.evidence["time_column"] == "when"


def test_data005_silent_on_chronological_split(shell):
    shell.run(TIME_SETUP + "train_df, test_df = df.iloc[:240], df.iloc[240:]")
    shell.run("%%guarded_train\nn = len(train_df)")
    assert "DATA005" not in shell.ids()


def test_data006_leaky_feature_named_never_valued(shell):
    shell.run(SETUP)
    shell.run("Xl = X.assign(**{'<b>refund_issued</b>': y * 3 + 7})\n"
              "X_train, X_test, y_train, y_test = train_test_split(Xl, y, test_size=0.25, random_state=0)")
    shell.run(TRAIN)
    hits = by_rule(shell, "DATA006")
    assert [h.evidence["column"] for h in hits] == ["<b>refund_issued</b>"]
    assert "7" not in hits[0].message and "10" not in hits[0].message


def test_cell_directive_suppresses_a_runtime_rule(shell):
    shell.run(SETUP)
    shell.run("Xl = X.assign(leak=y)\n"
              "X_train, X_test, y_train, y_test = train_test_split(Xl, y, test_size=0.25, random_state=0)")
    shell.run("%%guarded_train\n# trainguard: ignore[DATA006]\nclf = LogisticRegression().fit(X_train, y_train)")
    assert "DATA006" not in shell.ids() and shell.last.suppressed[0].startswith("DATA006")


def test_data006_silent_on_honest_features(shell):
    shell.run(SETUP)
    shell.run("X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)")
    shell.run(TRAIN)
    assert "DATA006" not in shell.ids()


def test_split_names_and_provenance():
    assert role_from_name("X_train") == ("train", "x")
    assert role_from_name("test_loader") == ("test", "loader")
    assert role_from_name("Xte") == ("test", "x")
    assert role_from_name("x_val") == ("val", "x")
    assert role_from_name("model") is None and role_from_name("tr") is None
    import ast

    tree = ast.parse("a, b, c, d = train_test_split(X, y)")
    ns = {n: np.zeros((4, 2)) for n in "ab"} | {n: np.zeros(4) for n in "cd"}
    found = {s.name: (s.role, s.is_label) for s in discover_splits(ns, [tree])}
    assert found == {"a": ("train", False), "b": ("test", False), "c": ("train", True), "d": ("test", True)}


def test_predictiveness_scores():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 5000)
    assert predictiveness(y * 2.0 + rng.normal(scale=0.01, size=5000), y, True)[0] == 1.0
    assert predictiveness(rng.normal(size=5000), y, True)[0] < 0.7
    assert predictiveness(rng.normal(size=5000), rng.normal(size=5000), False)[0] < 0.1


def test_overlap_of_one_million_by_twenty():
    rng = np.random.default_rng(3)
    data = rng.normal(size=(1_000_000, 20))
    train, test = data[:800_000], data[800_000:].copy()
    test[::200] = train[:1000]  # 1000 test rows copied from training rows
    train[5000, 0] = 0.0
    test[1] = train[5000]
    test[1, 0] = -0.0  # -0.0 and 0.0 are equal values: the row still counts
    ctx = DataContext({}, [], Location("<t>"))
    a = Split("X_train", "train", "x", train, False, "name")
    b = Split("X_test", "test", "x", test, False, "name")
    res = overlap(ctx, a, b)
    assert res["overlapping_rows"] == 1001
    assert res["confirmed_in_sample"] == "1001/1001"
    assert res["ratio"] == pytest.approx(1001 / 200_000)
    frame_a, frame_b = pd.DataFrame(train[:50_000]), pd.DataFrame(test[:5000])
    res = overlap(ctx, Split("tr", "train", "d", frame_a, False, "name"),
                  Split("te", "test", "d", frame_b, False, "name"))
    assert res["overlapping_rows"] == int(sum(1 for i in range(0, 5000, 200) if i < 50_000)) + 1
