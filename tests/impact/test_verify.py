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


MLFLOW_CELL = """import mlflow
mlflow.set_tracking_uri("sqlite:///{store}")
with mlflow.start_run():
    mlflow.log_metric("auc", auc)
client = mlflow.MlflowClient("sqlite:///{store}")"""


def test_verify_unsafe_json_and_the_notebooks_own_tracking_uri_is_pinned(tmp_path, capsys):
    pytest.importorskip("mlflow")
    import json

    user = tmp_path / "user"
    user.mkdir()
    store = user / "mlflow.db"  # the notebook logs here when the user runs it
    nb = write(tmp_path / "tracked.ipynb", DATA, LEAKY, TRAIN, MLFLOW_CELL.format(store=store))
    assert main(["fix", "--verify", "--unsafe", "--format", "json", "--timeout", "180", str(nb)]) == 0
    (doc,) = json.loads(capsys.readouterr().out)
    assert doc["error"] is None and not doc["errors"], doc
    assert [f["rule_id"] for f in doc["fixes"]] == ["LEAK001"] and doc["fixes"][0]["unsafe"]
    (auc,) = [m for m in doc["metrics"] if m["label"] == "test ROC AUC"]
    assert auc["verdict"] == "changed" and auc["before"] != auc["after"]
    assert abs(auc["after"][0] - auc["before"][0]) < 0.005 and re.fullmatch(r"[+−][\d.]+ points", auc["change"])
    assert not store.exists()  # both runs logged into the private copy's store, never the notebook's own
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tracked.ipynb", "user"]


SEEDED_BY_RUN = """import pathlib
counter = pathlib.Path("run_count.txt")  # run-to-run randomness, made repeatable: a seed per run of each copy
run = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(run + 1))
seed = run + (10 if pathlib.Path.cwd().name == "after" else 0)"""

FOREST = """from sklearn.ensemble import RandomForestClassifier
forest = RandomForestClassifier(n_estimators=20, random_state=seed).fit(X_train, y_train)
print(f"test accuracy: {forest.score(X_test, y_test):.6f}")"""


@pytest.mark.slow
def test_verify_runs_3_reports_a_change_within_the_spread_as_no_measurable_effect(tmp_path, capsys):
    # trees do not depend on the scale of a feature: the scaler fix leaves only the forest's own randomness
    nb = write(tmp_path / "forest.ipynb", SEEDED_BY_RUN, DATA, LEAKY, FOREST)
    assert main(["fix", "--verify", "--unsafe", "--runs", "3", "--timeout", "120", str(nb)]) == 0
    out = capsys.readouterr().out
    assert "(3 run(s) each;" in out
    line = next(x for x in out.splitlines() if "test accuracy:" in x)
    assert "(mean of 3)" in line and "; spread between runs" in line, out
    assert line.endswith(": no measurable effect (within the spread between runs)"), out


def test_verify_timeout_stops_a_cell_that_runs_too_long(tmp_path, capsys):
    nb = write(tmp_path / "slow.ipynb", DATA, LEAKY, "import time\ntime.sleep(60)", TRAIN)
    t0 = __import__("time").perf_counter()
    assert main(["fix", "--verify", "--unsafe", "--timeout", "3", str(nb)]) == 2
    assert __import__("time").perf_counter() - t0 < 40
    out = capsys.readouterr().out
    assert "not verified: the before run failed: CellTimeoutError" in out


def test_an_overall_deadline_bounds_the_whole_verification(tmp_path):
    import time

    from jupyter_trainguard.impact.verify import verify_notebook

    nb = write(tmp_path / "slow.ipynb", DATA, LEAKY, "import time\ntime.sleep(60)", TRAIN)
    t0 = time.perf_counter()
    result = verify_notebook(str(nb), unsafe=True, timeout=600, deadline_s=8)
    assert time.perf_counter() - t0 < 8 + 6  # the deadline, and the kernel's shutdown
    assert result.error.startswith("over the time budget of 8 s (the time ran out in cell 3, in the before run)")
