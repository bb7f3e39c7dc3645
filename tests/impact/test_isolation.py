"""The impact refits never touch the user's files or objects, stay within their budgets, say why when they cannot
measure, and compute the notebook's own metric (F1, RMSE, R²) — on real sklearn/lightgbm objects in a real shell."""

from __future__ import annotations

import math
import os
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import f1_score, r2_score, root_mean_squared_error
from sklearn.tree import DecisionTreeRegressor

from tests.impact.conftest import SCALER_LEAK, TARGET_ENCODING

SPLIT = (
    "X = df[['tenure', 'monthly_fee', 'support_calls']]\ny = df['churned']\n"
    "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)"
)


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def test_refit_of_a_cached_pipeline_writes_nothing_in_the_working_folder(shell, tmp_path):
    from jupyter_trainguard.impact.session import measure_run

    shell.run(SPLIT)
    cell = (
        "from sklearn.pipeline import Pipeline\n"
        "pipe = Pipeline([('scale', StandardScaler()), ('lr', LogisticRegression())], memory='pipe_cache')\n"
        "pipe.fit(X, y)\nacc = pipe.score(X_test, y_test)"
    )
    shell.run("%%guarded_train --quiet --no-impact\n" + cell)
    before = listing(tmp_path)
    assert any(name.startswith("pipe_cache") for name in before)  # the user's own fit filled its cache
    records = measure_run(shell.ip, cell, shell.last)
    assert [r for r in records if r["status"] == "measured"], records
    assert listing(tmp_path) == before  # no file added, changed or removed
    assert Path.cwd() == tmp_path
    assert shell.ns["pipe"].memory == "pipe_cache"


def test_a_callback_of_the_notebook_is_never_run_and_library_callbacks_fill_copies(shell):
    pytest.importorskip("lightgbm")
    shell.run("import lightgbm as lgb\n" + SPLIT)
    shell.run(
        "%%guarded_train --quiet --impact-budget 60\n"
        "seen = []\nhist = {}\n"
        "def cb(env):\n    seen.append(env.iteration)\n"
        "model = lgb.LGBMClassifier(n_estimators=15, num_threads=1, verbose=-1)\n"
        "model.fit(X_train, y_train, eval_set=[(X_test, y_test)], callbacks=[cb, lgb.record_evaluation(hist)])\n"
        "auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])"
    )
    rec = shell.impacts()["DATA004"]
    assert rec["status"] == "not measured"
    assert "the fit keyword callbacks= holds cb, a function of the notebook (a refit would run it)" in rec["reason"]
    assert shell.ns["seen"] == list(range(15))  # the user's fit only
    shell.run(
        "%%guarded_train --quiet --impact-budget 60\n"
        "hist = {}\n"
        "model = lgb.LGBMClassifier(n_estimators=15, num_threads=1, verbose=-1)\n"
        "model.fit(X_train, y_train, eval_set=[(X_test, y_test)], callbacks=[lgb.record_evaluation(hist)])\n"
        "auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])"
    )
    rec = shell.impacts()["DATA004"]
    assert rec["status"] == "measured", rec
    (curve,) = shell.ns["hist"]["valid_0"].values()
    assert len(curve) == 15  # the refits filled copies of hist, never the user's dict


DECOYS = "\n".join(f"big_{i} = pd.DataFrame(rng.normal(size=(200_000, 3)))" for i in range(25))
LR_AUC = (
    "model = LogisticRegression(C=0.01)\nmodel.fit(X_train, y_train)\n"
    "auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])"
)


def test_the_frame_the_transformer_was_fitted_on_is_tried_first(shell):
    shell.run(DECOYS)
    shell.run(SCALER_LEAK)  # scaler.fit_transform(X_raw): X_raw is tried before the (larger) decoys
    shell.run("%%guarded_train --quiet --impact-budget 20\n" + LR_AUC)
    rec = shell.impacts()["DATA003"]
    assert rec["status"] == "measured" and "rows of X_raw only" in rec["strategy"]
    assert rec["seconds"] < 5


def test_finding_the_raw_rows_stays_within_the_budget(shell):
    shell.run(DECOYS)
    shell.run(  # fitted on a frame the code does not name: the decoys (larger) come first
        "X_raw = df[['tenure', 'monthly_fee', 'support_calls']]\n"
        "sc = StandardScaler().fit(df[['tenure', 'monthly_fee', 'support_calls']])\n"
        "X_scaled = sc.transform(X_raw)\n"
        "X_train, X_test, y_train, y_test = train_test_split(X_scaled, df['churned'], test_size=0.3, random_state=0)"
    )
    shell.run("%%guarded_train --quiet --impact-budget 0.3\n" + LR_AUC)
    rec = shell.impacts()["DATA003"]
    assert rec["status"] == "not measured"
    assert rec["summary"].startswith("not measured: the budget was spent on finding the raw rows behind X_train")
    (note,) = [n for n in shell.last.notes if n.startswith("impact:")]
    took = float(note.split(" done in ")[1].split(" s ")[0])
    assert took < 0.3 + 1.0  # the budget, and at most one candidate frame past it


def test_one_seed_only_suggests_the_budget_for_three(shell):
    from jupyter_trainguard.impact.budget import Budget, isolated
    from jupyter_trainguard.impact.locate import locate
    from jupyter_trainguard.impact.plans import plan_for
    from jupyter_trainguard.impact.refit import SAFETY, measure_plan
    from jupyter_trainguard.impact.scene import read_scene
    from jupyter_trainguard.impact.session import python_sources
    from jupyter_trainguard.runtime.guard import session_sources

    shell.run(SCALER_LEAK)
    cell = (
        "forest = RandomForestClassifier(n_estimators=30)\nforest.fit(X_train, y_train)\n"
        "acc = forest.score(X_test, y_test)"
    )
    shell.run("%%guarded_train --quiet --no-impact\n" + cell)
    finding = next(f for f in shell.last.findings if f.rule_id == "DATA003")

    class OneSeed(Budget):  # room for the first pair of refits (with and without the leak) only
        calls = 0

        def allows(self, predicted_s: float) -> bool:
            self.calls += 1
            return self.calls <= 2

    raw, _ = session_sources(shell.ip, cell)
    sources = python_sources(raw, shell.ip)
    with isolated():
        setup = locate(read_scene(sources), shell.ns)
        plan = plan_for(finding, setup, shell.ns, None, sources)
        rec = measure_plan(setup, plan, OneSeed(60.0), shell.ns)
    assert rec["verdict"] == "undetermined" and rec["seeds"] == [0]
    n = rec["budget_for_3_seeds_s"]
    assert n >= 1 and n >= 6 * SAFETY * min(rec["seconds"] / 2, 0.1)  # 6 fits of about half the 2 fits' time
    assert rec["summary"].endswith(f"(3 seeds need about {n} s: --impact-budget {n})")


def test_not_clonable_model_is_not_measured(shell, capsys):
    import json

    shell.run(
        "class Rounded(LogisticRegression):\n"
        "    def __init__(self, C=1.0):\n"
        "        super().__init__(C=round(C, 1) + 0.0, max_iter=1000)\n"
    )
    shell.run(TARGET_ENCODING)
    shell.run("model = Rounded(C=1.0)\nmodel.fit(X_train, y_train)\nacc = model.score(X_test, y_test)")
    capsys.readouterr()
    shell.run("%trainaudit --impact --format json --no-log --no-hash")
    leaks = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["category"].startswith("leakage.")]
    assert leaks
    for f in leaks:
        assert f["evidence"]["impact"]["summary"] == "not measured: Rounded is not clonable (RuntimeError)"


@pytest.mark.parametrize("module", ["keras.src.models.sequential", "tf_keras.src.engine", "skorch.net", "scikeras"])
def test_deep_learning_models_are_not_refitted(module):
    from jupyter_trainguard.impact.locate import model_problem

    if module.split(".")[0] in ("keras", "tf_keras"):
        try:  # the real class when installed; a class of a module of that name otherwise
            import keras

            if module.startswith("keras"):
                model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
                assert "is a keras model" in model_problem(model)
                return
        except ImportError:
            pass
    fake = types.new_class("Sequential", (), {})
    fake.__module__ = module
    fake.fit = lambda self, x, y: self
    fake.get_params = lambda self, deep=True: {}
    problem = model_problem(fake())
    assert problem.startswith(f"Sequential is a {module.split('.')[0]} model (a refit would retrain the network")


def test_over_the_memory_budget(shell, capsys):
    import json

    shell.run(TARGET_ENCODING)
    shell.run("model = LogisticRegression(max_iter=1000).fit(X_train, y_train)\nacc = model.score(X_test, y_test)")
    capsys.readouterr()
    shell.run("%trainaudit --impact --impact-memory 64KiB --format json --no-log --no-hash")
    doc = json.loads(capsys.readouterr().out)
    rec = next(f for f in doc["findings"] if f["rule_id"] == "LEAK006")["evidence"]["impact"]
    assert rec["status"] == "not measured"
    assert "over the memory budget 64.00 KiB (--impact-memory SIZE)" in rec["reason"]
    shell.run("%trainaudit --impact --impact-memory 2GiB --format json --no-log --no-hash")
    doc = json.loads(capsys.readouterr().out)
    rec = next(f for f in doc["findings"] if f["rule_id"] == "LEAK006")["evidence"]["impact"]
    assert rec["status"] == "measured"
    with pytest.raises(Exception, match="invalid size value"):
        shell.ip.run_line_magic("trainaudit", "--impact --impact-memory lots")


def test_small_things():
    from jupyter_trainguard.impact.metric import change_text
    from jupyter_trainguard.impact.outputs import change_words
    from jupyter_trainguard.impact.refit import unseeded_params
    from jupyter_trainguard.impact.scene import read_scene

    assert unseeded_params(LogisticRegression(random_state=np.int64(0))) == []
    assert unseeded_params(LogisticRegression()) == ["random_state"]
    (sc,) = read_scene(["rmse = root_mean_squared_error(y_test, model.predict(X_test))"]).scores
    assert change_text(sc, 10.0, 10.0001) == "+0.001%"
    assert change_text(sc, 10.0, 9.5) == "−5.0%"
    assert change_words("test RMSE", 10.0, 9.99999) == "−0.0001%"


def _independent_honest(ns, model, metric):
    """Refit `model` on the training rows that are not evaluation rows, computed here without trainguard."""
    xtr, xte = ns["X_train"], ns["X_test"]
    test_rows = set(map(tuple, xte.to_numpy()))
    keep = np.array([tuple(r) not in test_rows for r in xtr.to_numpy()])
    fitted = model.fit(xtr[keep], ns["y_train"][keep])
    return metric(ns["y_test"], fitted.predict(xte))


def test_f1_of_a_target_encoding_leak(shell):
    shell.run("from sklearn.metrics import f1_score\n" + TARGET_ENCODING)
    shell.run(
        "%%guarded_train --quiet\nmodel = LogisticRegression(max_iter=1000)\nmodel.fit(X_train, y_train)\n"
        "f1 = f1_score(y_test, model.predict(X_test))"
    )
    rec = shell.impacts()["LEAK006"]
    ns = shell.ns
    honest = f1_score(
        ns["y_test"],
        LogisticRegression(max_iter=1000)
        .fit(ns["X_train"].drop(columns=["city_churn_rate"]), ns["y_train"])
        .predict(ns["X_test"].drop(columns=["city_churn_rate"])),
    )
    assert rec["metric"] == "F1" and rec["reported"] == ns["f1"] and rec["reported_from"] == "variable f1"
    assert rec["honest"] == pytest.approx(honest) and rec["verdict"] == "inflated"


@pytest.mark.parametrize(
    ("code", "name", "metric"),
    [
        ("rmse = root_mean_squared_error(y_test, model.predict(X_test))", "RMSE", root_mean_squared_error),
        ("r2 = r2_score(y_test, model.predict(X_test))", "R²", r2_score),
    ],
)
def test_rmse_and_r2_of_rows_shared_between_splits(shell, code, name, metric):
    shell.run(
        "from sklearn.tree import DecisionTreeRegressor\n"
        "from sklearn.metrics import root_mean_squared_error, r2_score\n"
        "big = pd.concat([df, df.sample(600, random_state=1)])\n"
        "X = big[['tenure', 'support_calls', 'city']]\n"
        "X_train, X_test, y_train, y_test = train_test_split(X, big['monthly_fee'], test_size=0.3, random_state=0)"
    )
    shell.run(
        "%%guarded_train --quiet --impact-budget 60\nmodel = DecisionTreeRegressor(random_state=0)\n"
        f"model.fit(X_train, y_train)\n{code}"
    )
    rec = shell.impacts()["DATA001"]
    assert rec["status"] == "measured" and rec["metric"] == name
    honest = _independent_honest(shell.ns, DecisionTreeRegressor(random_state=0), metric)
    assert rec["honest"] == pytest.approx(honest)
    assert rec["verdict"] == "inflated"  # a lower RMSE, a higher R² with the shared rows
    assert (rec["honest"] > rec["reported"]) == (name == "RMSE")
    if name == "RMSE":
        assert rec["change"].startswith("+") and rec["change"].endswith("%")
    assert math.isfinite(rec["seconds"]) and rec["seconds"] <= rec["budget_s"]


def test_linear_model_is_unaffected_by_where_it_runs(tmp_path):
    """The private folder is left and removed: the process comes back to where it was."""
    from jupyter_trainguard.impact.budget import isolated

    here = os.getcwd()
    with isolated():
        inside = os.getcwd()
        Path("written.txt").write_text("x")
        LinearRegression().fit(pd.DataFrame({"a": [1.0, 2.0, 3.0]}), [1.0, 2.0, 3.0])
    assert os.getcwd() == here and inside != here and not Path(inside).exists()
    assert not Path(here, "written.txt").exists()
