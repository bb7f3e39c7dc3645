"""`%%guarded_train` measures what each leak did to the reported metric, on real sklearn objects in a real shell."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from tests.impact.conftest import SCALER_LEAK, TARGET_ENCODING

LR_CELL = """%%guarded_train --quiet
model = LogisticRegression(max_iter=1000)
model.fit(X_train, y_train)
acc = model.score(X_test, y_test)
"""

AUC_CELL = """%%guarded_train --quiet
model = LogisticRegression(C=0.01)
model.fit(X_train, y_train)
auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
"""

FOREST_CELL = """%%guarded_train --quiet
forest = RandomForestClassifier(n_estimators=40)
forest.fit(X_train, y_train)
acc = forest.score(X_test, y_test)
"""


def test_target_encoding_leak_inflates_the_score_clearly(shell):
    shell.run(TARGET_ENCODING)
    shell.run(LR_CELL)
    impacts = shell.impacts()
    rec = impacts["LEAK006"]
    assert rec["status"] == "measured" and rec["verdict"] == "inflated"
    assert rec["reported"] == shell.ns["acc"] and rec["reported_from"] == "variable acc"
    ns = shell.ns  # the honest score, computed here independently: the same model without the derived column
    honest = (
        LogisticRegression(max_iter=1000)
        .fit(ns["X_train"].drop(columns=["city_churn_rate"]), ns["y_train"])
        .score(ns["X_test"].drop(columns=["city_churn_rate"]), ns["y_test"])
    )
    assert rec["honest"] == pytest.approx(honest)
    assert rec["reported"] - rec["honest"] > 0.05
    points = (rec["honest"] - rec["reported"]) * 100
    assert rec["summary"] == (
        f"reported accuracy {rec['reported']:.3f}; refitted without the leak "
        f"{rec['honest']:.3f} (−{abs(points):.1f} points)"
    )
    assert rec["rows"] == {"fit": 1050, "eval": 450, "columns_dropped": 1}
    assert impacts["LEAK001"] is rec  # the pandas statistic is the same leak, measured once
    assert 0 < rec["seconds"] <= rec["budget_s"]


def test_scaler_leak_has_a_small_measured_effect(shell):
    shell.run(SCALER_LEAK)
    shell.run(AUC_CELL)
    rec = shell.impacts()["DATA003"]
    assert rec["status"] == "measured" and rec["metric"] == "ROC AUC"
    assert "scaler (StandardScaler) refitted on the 1050 training rows of X_raw" in rec["strategy"]
    assert rec["rows"] == {"fit": 1050, "eval": 450, "transformer_saw": 1500}
    ns = shell.ns  # independently: split the raw rows the same way, fit the scaler on the training rows only
    tr, te, ytr, yte = train_test_split(ns["X_raw"], ns["df"]["churned"], test_size=0.3, random_state=0)
    sc = StandardScaler().fit(tr)
    m = LogisticRegression(C=0.01).fit(sc.transform(tr), ytr)
    honest = roc_auc_score(yte, m.predict_proba(sc.transform(te))[:, 1])
    assert rec["honest"] == pytest.approx(honest, abs=1e-12)
    assert 0 < abs(rec["delta"]) < 0.005  # real but small
    assert rec["verdict"] in ("inflated", "deflated") and not rec["spread"]  # deterministic: exact, no seeds
    assert "points)" in rec["summary"] and "no measurable effect" not in rec["summary"]


def test_unseeded_forest_under_a_scaler_leak_shows_no_measurable_effect(shell):
    shell.run(SCALER_LEAK)
    shell.run(FOREST_CELL.replace("--quiet", "--quiet --impact-budget 60"))  # 3 seeds even on a busy machine
    rec = shell.impacts()["DATA003"]
    assert rec["status"] == "measured" and rec["seeds"] == [0, 1, 2]
    assert rec["spread"] > 0  # the forest's own randomness moves the score
    assert rec["verdict"] == "no measurable effect"
    assert abs(rec["effect"]) <= rec["spread"]
    assert rec["summary"].endswith("no measurable effect (within the seed spread)")
    assert "mean of 3 seeds, spread" in rec["summary"]


def test_duplicated_rows_in_both_splits_inflate_the_score(shell):
    shell.run(
        "big = pd.concat([df, df.sample(600, random_state=1)])\n"
        "X = big[['tenure', 'monthly_fee', 'support_calls']]\n"
        "X_train, X_test, y_train, y_test = train_test_split(X, big['churned'], test_size=0.3, "
        "random_state=0)"
    )
    shell.run(FOREST_CELL.replace("n_estimators=40", "n_estimators=40, random_state=0"))
    rec = shell.impacts()["DATA001"]
    assert rec["status"] == "measured" and rec["verdict"] == "inflated"
    assert rec["rows"]["dropped"] > 0 and rec["rows"]["fit"] + rec["rows"]["dropped"] == len(shell.ns["X_train"])
    assert rec["seeds"] is None  # random_state=0 is kept: the same randomness as the notebook
    assert rec["reported"] - rec["honest"] > 0.05


def test_pipeline_fitted_on_every_row_is_refitted_without_the_evaluation_rows(shell):
    shell.run(
        "X = df[['tenure', 'monthly_fee', 'support_calls']]\ny = df['churned']\n"
        "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)"
    )
    shell.run(
        "%%guarded_train --quiet\npipe = make_pipeline(StandardScaler(), LogisticRegression())\n"
        "pipe.fit(X, y)\nacc = pipe.score(X_test, y_test)"
    )
    leaks = {k: v for k, v in shell.impacts().items() if v["status"] == "measured"}
    assert leaks, shell.impacts()
    rec = next(iter(leaks.values()))
    assert "refitted on the 1050 rows of X that are not in X_test (450 dropped)" in rec["strategy"]


def test_the_users_objects_and_rng_states_are_untouched(shell):
    from jupyter_trainguard.impact.session import measure_run

    shell.run(SCALER_LEAK)
    shell.run(FOREST_CELL)
    ns = shell.ns
    shell.run("np.random.seed(123); import random; random.seed(5)")
    before = {
        "np": np.random.get_state()[1].copy(),
        "py": __import__("random").getstate(),
        "keys": set(ns),
        "x": ns["X_train"].copy(),
        "x_id": id(ns["X_train"]),
        "mean": ns["scaler"].mean_.copy(),
        "pred": ns["forest"].predict_proba(ns["X_test"]).copy(),
        "forest": id(ns["forest"]),
    }
    records = measure_run(shell.ip, FOREST_CELL.split("\n", 1)[1], shell.last)
    assert any(r["status"] == "measured" for r in records)
    assert np.array_equal(np.random.get_state()[1], before["np"])
    assert __import__("random").getstate() == before["py"]
    assert set(ns) == before["keys"] and id(ns["X_train"]) == before["x_id"] and id(ns["forest"]) == before["forest"]
    assert np.array_equal(ns["X_train"], before["x"]) and np.array_equal(ns["scaler"].mean_, before["mean"])
    assert np.array_equal(ns["forest"].predict_proba(ns["X_test"]), before["pred"])


def test_not_measured_lines_instead_of_guesses(shell):
    from jupyter_trainguard.impact.locate import model_problem

    shell.run(TARGET_ENCODING)
    shell.run(LR_CELL.replace("--quiet", "--quiet --impact-budget 0"))
    rec = shell.impacts()["LEAK006"]
    assert rec["status"] == "not measured" and rec["summary"].startswith("not measured: over the time budget")
    torch = pytest.importorskip("torch")
    assert "is a torch model" in model_problem(torch.nn.Linear(3, 1))
    shell.run(LR_CELL.replace("--quiet", "--quiet --no-impact"))
    assert shell.impacts() == {}
    shell.run(LR_CELL.replace("--quiet", "--quiet --impact-memory 1KiB"))
    rec = shell.impacts()["LEAK006"]
    assert rec["status"] == "not measured" and "over the memory budget" in rec["summary"]
    shell.run("%config TrainGuard.impact_memory = '2KiB'")
    shell.run(LR_CELL)
    assert "over the memory budget" in shell.impacts()["LEAK006"]["summary"]
    shell.run("%config TrainGuard.impact_memory = '1GiB'")
    with pytest.raises(Exception, match="--impact-memory"):
        shell.run(LR_CELL.replace("--quiet", "--quiet --impact-memory lots"))


def test_panel_review_and_json_show_the_impact(shell, capsys):
    import json

    from jupyter_trainguard.display.run_panel import render_html, render_text

    shell.run(TARGET_ENCODING)
    shell.run(LR_CELL)
    rec = shell.impacts()["LEAK006"]
    d = shell.last.to_dict()
    assert f"measured impact: {rec['summary']}" in render_text(d)
    assert "refitted without the leak" in render_html(d)
    json_rec = next(f["evidence"]["impact"] for f in d["findings"] if f["rule_id"] == "LEAK006")
    assert json_rec["honest"] == rec["honest"] and math.isfinite(json_rec["seconds"])
    shell.run("%trainaudit --last --out review.md --format md")
    md = (Path.cwd() / "review.md").read_text()
    assert "| impact on metric honesty |" in md and "**measured:** reported accuracy" in md
    capsys.readouterr()
    shell.run("%trainaudit --last --format json")
    doc = json.loads(capsys.readouterr().out)
    assert any(f["evidence"].get("impact", {}).get("status") == "measured" for f in doc["findings"])


def test_test_set_driving_early_stopping_is_replaced_by_a_carved_validation_split(shell):
    pytest.importorskip("lightgbm")
    shell.run(
        "import lightgbm as lgb\nX = df[['tenure', 'monthly_fee', 'support_calls']]\n"
        "X_train, X_test, y_train, y_test = train_test_split(X, df['churned'], test_size=0.3, random_state=0)"
    )
    shell.run(
        "%%guarded_train --quiet --impact-budget 120\n"
        "model = lgb.LGBMClassifier(n_estimators=60, learning_rate=0.1, num_threads=1, verbose=-1)\n"
        "model.fit(X_train, y_train, eval_set=[(X_test, y_test)], "
        "callbacks=[lgb.early_stopping(10, verbose=False)])\n"
        "auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])"
    )
    rec = shell.impacts()["DATA004"]
    assert rec["status"] == "measured" and rec["metric"] == "ROC AUC"
    assert "eval_set= a 20% validation split carved out of X_train instead of the test rows" in rec["strategy"]
    assert rec["rows"] == {"fit": 840, "validation": 210, "eval": 450}
    assert rec["seeds"] == [0, 1, 2] and len(rec["honest_scores"]) == 3  # a new random split: 3 seeds
    assert rec["verdict"] in ("inflated", "deflated", "no measurable effect")
