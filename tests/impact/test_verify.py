"""`trainguard fix --verify`: the notebook runs before and after its fixes in a real kernel (nbclient), on copies."""

from __future__ import annotations

import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from jupyter_trainguard.cli import main
from jupyter_trainguard.impact.outputs import compare, metrics_of

pytest.importorskip("nbclient")

DATA = """import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

rng = np.random.default_rng(7)
n = 1500
df = pd.DataFrame({"tenure": rng.integers(1, 72, n), "monthly_fee": rng.lognormal(4, 0.6, n).round(2),
                   "support_calls": rng.poisson(2, n)})
df["churned"] = (rng.random(n) < 0.1 + 0.008 * df["tenure"] + 0.05 * df["support_calls"]).astype(int)
X = df[["tenure", "monthly_fee", "support_calls"]]
y = df["churned"]"""

LEAKY = """scaler = StandardScaler()
X_scaled = scaler.fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, test_size=0.3, random_state=0)"""

CLEAN = "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)"

TRAIN = """model = LogisticRegression(C=0.01, random_state=0)
model.fit(X_train, y_train)
auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
print(f"test ROC AUC: {auc:.6f}")"""


def write(path, *cells):
    nb = new_notebook(cells=[new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


def test_verify_unsafe_prints_the_metric_the_scaler_fix_changed(tmp_path, capsys):
    nb = write(tmp_path / "leaky.ipynb", DATA, LEAKY, TRAIN)
    original = nb.read_bytes()
    assert main(["fix", "--verify", "--unsafe", "--timeout", "120", str(nb)]) == 0
    out = capsys.readouterr().out
    assert "LEAK001" in out and "(UNSAFE)" in out
    m = re.search(r"cell (\d+) → cell (\d+)  test ROC AUC: (0\.\d+) → (0\.\d+) \(([+−][\d.]+) points\)", out)
    assert m, out
    before, after = float(m.group(3)), float(m.group(4))
    assert before != after and abs(after - before) < 0.005  # the scaler leak: a small, real effect
    assert nb.read_bytes() == original  # verify never writes the user's notebook
    assert sorted(p.name for p in tmp_path.iterdir()) == ["leaky.ipynb"]


def test_verify_without_unsafe_leaves_the_leak_and_the_metric(tmp_path, capsys):
    nb = write(tmp_path / "leaky.ipynb", DATA, LEAKY, TRAIN)
    assert main(["fix", "--verify", "--format", "json", str(nb)]) == 0
    import json

    (doc,) = json.loads(capsys.readouterr().out)
    if not doc["fixes"]:  # no safe fix applies to this notebook: nothing was run
        assert "behaviour-changing fixes need --unsafe" in doc["notes"][0]
        return
    assert not any(f["unsafe"] for f in doc["fixes"])
    assert all(m["verdict"] == "unchanged" for m in doc["metrics"])


def test_verify_on_a_clean_notebook_has_nothing_to_compare(tmp_path, capsys):
    nb = write(tmp_path / "clean.ipynb", DATA, CLEAN, TRAIN)
    assert main(["fix", "--verify", "--unsafe", str(nb)]) == 0
    assert "no fix applies to this notebook: nothing to compare" in capsys.readouterr().out


def test_metric_values_are_read_from_outputs_and_a_change_within_the_spread_is_no_effect():
    def run(*values):
        nb = new_notebook(cells=[new_code_cell("print(acc)"), new_code_cell("acc")])
        nb.cells[0].outputs = [
            nbformat.v4.new_output("stream", name="stdout", text=f"epoch 3\ntest accuracy: {values[0]}\n")
        ]
        nb.cells[1].outputs = [
            nbformat.v4.new_output("execute_result", data={"text/plain": str(values[1])}, execution_count=2)
        ]
        return metrics_of(nb)

    rows = compare([run(0.90, 0.5), run(0.94, 0.5)], [run(0.92, 0.4), run(0.94, 0.4)])
    by = {r["label"]: r for r in rows}
    assert by["test accuracy"]["verdict"] == "no measurable effect"  # 0.92 vs 0.93 within a 0.04 spread
    assert by["acc"]["verdict"] == "changed" and by["acc"]["change"] == "−10.0 points"
