"""`%trainaudit --impact` on a live session (no guarded cell), and refits that never log into MLflow."""

from __future__ import annotations

import json

import pytest

from tests.impact.conftest import TARGET_ENCODING

FIT = "model = LogisticRegression(max_iter=1000).fit(X_train, y_train)\nacc = model.score(X_test, y_test)"


def _findings(capsys) -> list[dict]:
    return json.loads(capsys.readouterr().out)["findings"]


def test_trainaudit_impact_measures_the_sessions_leaks(shell, capsys):
    shell.run(TARGET_ENCODING)
    shell.run(FIT)
    capsys.readouterr()
    shell.run("%trainaudit --format json --no-log --no-hash")
    assert all("impact" not in f["evidence"] for f in _findings(capsys))  # only when asked
    shell.run("%trainaudit --impact --format json --no-log --no-hash")
    by_rule = {f["rule_id"]: f for f in _findings(capsys)}
    rec = by_rule["LEAK006"]["evidence"]["impact"]
    assert rec["status"] == "measured" and rec["verdict"] == "inflated"
    assert rec["reported"] == shell.ns["acc"] and rec["honest"] < rec["reported"] - 0.05
    assert rec["budget_s"] == 30.0 and rec["seconds"] < rec["budget_s"]
    audit = shell.ip.magics_manager.registry["TrainAuditMagics"].last_audit
    assert any(n.startswith("impact: 1 of 1 leak measurement(s) done") for n in audit.notes)


def test_trainaudit_impact_adds_live_overlap_the_code_does_not_show(shell, capsys):
    shell.run(
        "X = df[['tenure', 'monthly_fee', 'support_calls']]\n"
        "X_train, X_test, y_train, y_test = train_test_split(X, df['churned'], test_size=0.3, random_state=0)\n"
        "X_train = pd.concat([X_train, X_test.iloc[:200]])\n"
        "y_train = pd.concat([y_train, y_test.iloc[:200]])"
    )
    shell.run(
        "model = RandomForestClassifier(n_estimators=30, random_state=0).fit(X_train, y_train)\n"
        "acc = model.score(X_test, y_test)"
    )
    capsys.readouterr()
    shell.run("%trainaudit --impact --impact-budget 60 --format json --no-log --no-hash")
    live = [f for f in _findings(capsys) if f["rule_id"] == "DATA001"]
    assert live, "the live overlap check runs with --impact"
    rec = live[0]["evidence"]["impact"]
    assert rec["status"] == "measured" and rec["rows"]["dropped"] == 200 and rec["verdict"] == "inflated"


def test_refits_log_no_mlflow_runs(shell, tmp_path):
    mlflow = pytest.importorskip("mlflow")
    pytest.importorskip("mlflow.sklearn")
    shell.run(
        f"import mlflow, mlflow.sklearn\nmlflow.set_tracking_uri('sqlite:///{tmp_path}/mlflow.db')\n"
        "mlflow.sklearn.autolog(silent=True)"
    )
    shell.run(TARGET_ENCODING)
    shell.run("%%guarded_train --quiet\n" + FIT)
    rec = shell.impacts()["LEAK006"]
    assert rec["status"] == "measured"
    runs = mlflow.search_runs(search_all_experiments=True)
    assert len(runs) == 1  # the user's own fit; none of the refits


def test_replay_measures_a_leak_whose_raw_rows_are_gone(shell, capsys, tmp_path):
    pytest.importorskip("nbclient")
    shell.run(
        "X_raw = df[['tenure', 'monthly_fee', 'support_calls']]\nscaler = StandardScaler()\n"
        "X_scaled = scaler.fit_transform(X_raw)\n"
        "X_train, X_test, y_train, y_test = train_test_split(X_scaled, df['churned'], test_size=0.3, random_state=0)"
    )
    shell.run("del X_raw")
    shell.run(
        "model = LogisticRegression(C=0.01).fit(X_train, y_train)\n"
        "auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])\nprint(f'test ROC AUC: {auc:.6f}')"
    )
    mlflow = pytest.importorskip("mlflow")
    store = tmp_path / "tracking" / "mlflow.db"
    store.parent.mkdir()
    shell.run(  # the session logs into its own store; the replayed cells must not
        f"import mlflow\nmlflow.set_tracking_uri('sqlite:///{store}')\n"
        "with mlflow.start_run():\n    mlflow.log_metric('auc', auc)"
    )
    capsys.readouterr()
    shell.run("%trainaudit --impact --format json --no-log --no-hash")
    rec = next(f for f in _findings(capsys) if f["rule_id"] == "LEAK001")["evidence"]["impact"]
    assert rec["status"] == "not measured" and "raw rows" in rec["reason"]  # the refit cannot find them
    shell.run("%trainaudit --impact --replay --impact-budget 120 --format json --no-log --no-hash")
    rec = next(f for f in _findings(capsys) if f["rule_id"] == "LEAK001")["evidence"]["impact"]
    assert rec["status"] == "measured", rec
    assert rec["summary"].startswith("replayed with the fix: test ROC AUC ")
    (metric,) = [m for m in rec["replay"]["metrics"] if m["label"] == "test ROC AUC"]
    assert metric["before"][0] == pytest.approx(shell.ns["auc"], abs=1e-6)  # the replay reproduces the session
    assert metric["after"][0] != metric["before"][0]
    assert len(mlflow.search_runs(search_all_experiments=True)) == 1  # the session's own run only
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in tmp_path.iterdir() if "replay" not in p.name
    )
