"""LEAK001-LEAK006 on real notebooks: positives, and the tricky negatives real notebooks contain."""

from __future__ import annotations

import pytest

from .nbhelp import ids, of, scan_cells

SK = ("import pandas as pd\nimport numpy as np\n"
      "from sklearn.model_selection import train_test_split, cross_val_score\n"
      "from sklearn.preprocessing import StandardScaler\nfrom sklearn.linear_model import LogisticRegression\n"
      "from sklearn.pipeline import make_pipeline\nfrom sklearn.metrics import accuracy_score")
LOAD = 'df = pd.read_csv("d.csv")\nX = df.drop("y", axis=1)\ny = df["y"]'
SPLIT = "X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)"


def test_fit_transform_before_split_names_both_cells(tmp_path):
    rep = scan_cells(tmp_path, [SK, LOAD + "\nX = StandardScaler().fit_transform(X)", SPLIT,
                                "m = LogisticRegression().fit(X_train, y_train)\nm.score(X_test, y_test)"])
    [f] = of(rep, "LEAK001")
    assert "cell 2" in f.message and "cell 3" in f.message and "`X_test`" in f.message
    assert f.severity.value == "error" and f.location.cell == 1 and f.location.line == 4
    assert f.evidence["split_cell"] == 3 and f.evidence["fitted_on"] == "X"


def test_fit_on_all_then_transform_train_with_alias(tmp_path):
    head = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split as tts\n"
            "from sklearn.preprocessing import MinMaxScaler as MMS\nfrom sklearn.svm import SVC")
    rep = scan_cells(tmp_path, [head, LOAD + "\nsc = MMS()\nsc.fit(X)",
                                "a, b, c, d = tts(X, y, random_state=1)\nclf = SVC().fit(sc.transform(a), c)\n"
                                "clf.score(sc.transform(b), d)"])
    assert "LEAK001" in ids(rep)


@pytest.mark.parametrize("body", [
    # split first, fit on train, transform test
    SPLIT + "\nsc = StandardScaler()\nX_train = sc.fit_transform(X_train)\nX_test = sc.transform(X_test)\n"
            "m = LogisticRegression().fit(X_train, y_train)\nprint(m.score(X_test, y_test))",
    # Pipeline inside cross-validation
    "print(cross_val_score(make_pipeline(StandardScaler(), LogisticRegression()), X, y, cv=5))",
    # a pipeline fitted on train is not leakage
    SPLIT + "\npipe = make_pipeline(StandardScaler(), LogisticRegression())\npipe.fit(X_train, y_train)\n"
            "print(pipe.score(X_test, y_test))",
    # PCA on everything only for a plot; the model trains on raw splits
    "from sklearn.decomposition import PCA\nxy = PCA(2).fit_transform(X)\n" + SPLIT +
    "\nLogisticRegression().fit(X_train, y_train).score(X_test, y_test)",
])
def test_preprocessing_negatives(tmp_path, body):
    rep = scan_cells(tmp_path, [SK, LOAD, body])
    assert "LEAK001" not in ids(rep), [f.message for f in rep.findings]


def test_prescaled_data_in_cross_validation_is_leakage(tmp_path):
    rep = scan_cells(tmp_path, [SK, LOAD, "Xs = StandardScaler().fit_transform(X)\n"
                                          "print(cross_val_score(LogisticRegression(), Xs, y, cv=5))"])
    [f] = of(rep, "LEAK001")
    assert "cross-validation" in f.message


def test_helper_function_propagates_fit(tmp_path):
    rep = scan_cells(tmp_path, [SK, "def prep(frame):\n    return StandardScaler().fit_transform(frame)",
                                LOAD + "\nXp = prep(X)",
                                "X_train, X_test, y_train, y_test = train_test_split(Xp, y, random_state=0)\n"
                                "LogisticRegression().fit(X_train, y_train).score(X_test, y_test)"])
    assert "LEAK001" in ids(rep)


def test_smote_before_split_and_after_split(tmp_path):
    head = SK + "\nfrom imblearn.over_sampling import SMOTE"
    bad = scan_cells(tmp_path, [head, LOAD, "Xr, yr = SMOTE(random_state=0).fit_resample(X, y)\n"
                                            "X_train, X_test, y_train, y_test = train_test_split(Xr, yr)\n"
                                            "LogisticRegression().fit(X_train, y_train).score(X_test, y_test)"],
                     name="bad.ipynb")
    [f] = of(bad, "LEAK002")
    assert "SMOTE(random_state=0).fit_resample" in f.message and f.severity.value == "error"
    good = scan_cells(tmp_path, [head, LOAD, SPLIT + "\nXr, yr = SMOTE(random_state=0).fit_resample(X_train, "
                                                     "y_train)\nLogisticRegression().fit(Xr, yr)"], name="good.ipynb")
    assert "LEAK002" not in ids(good)


@pytest.mark.parametrize("prep", ["X = StandardScaler().fit_transform(X)",
                                  "from imblearn.over_sampling import RandomOverSampler\n"
                                  "X, y = RandomOverSampler(random_state=0).fit_resample(X, y)"])
def test_held_out_part_never_scored_is_pending_only_in_a_live_session(tmp_path, prep):
    """A finished notebook that never scores the held-out part inflates no score (its training score is LEAK007's);
    the same cells as the live session's code so far are reported ahead of the evaluation still to come."""
    from jupyter_trainguard.engine import analyze_notebook
    from jupyter_trainguard.notebook.load import notebook_from_sources

    cells = [SK, LOAD + "\n" + prep, SPLIT, "m = LogisticRegression().fit(X_train, y_train)\nm.score(X_train, y_train)"]
    finished = scan_cells(tmp_path, cells)
    assert {"LEAK001", "LEAK002"} & ids(finished) == set() and "LEAK007" in ids(finished)
    live, _, _ = analyze_notebook(notebook_from_sources("<session>", cells, [1, 2, 3, 4]))
    assert {"LEAK001", "LEAK002"} & ids(live)
    scored = scan_cells(tmp_path, cells[:-1] + [cells[-1] + "\nm.score(X_test, y_test)"], name="scored.ipynb")
    assert {"LEAK001", "LEAK002"} & ids(scored)


def test_fit_on_full_data_then_score_test(tmp_path):
    rep = scan_cells(tmp_path, [SK, LOAD, SPLIT, "m = LogisticRegression()\nm.fit(X, y)\n"
                                                 "print(accuracy_score(y_test, m.predict(X_test)))"])
    [f] = of(rep, "LEAK003")
    assert "`X_test`" in f.message and "`X`" in f.message


def test_kfold_loop_and_three_way_split_do_not_overlap(tmp_path):
    rep = scan_cells(tmp_path, [SK + "\nfrom sklearn.model_selection import KFold", LOAD,
                                "for tr, te in KFold(5, shuffle=True, random_state=0).split(X):\n"
                                "    m = LogisticRegression().fit(X.iloc[tr], y.iloc[tr])\n"
                                "    print(m.score(X.iloc[te], y.iloc[te]))",
                                "X_tmp, X_test, y_tmp, y_test = train_test_split(X, y, random_state=0)\n"
                                "X_tr, X_val, y_tr, y_val = train_test_split(X_tmp, y_tmp, random_state=0)\n"
                                "m2 = LogisticRegression().fit(X_tr, y_tr)\nm2.score(X_val, y_val)\n"
                                "m3 = LogisticRegression().fit(pd.concat([X_tr, X_val]), pd.concat([y_tr, y_val]))\n"
                                "m3.score(X_test, y_test)"])
    assert not ids(rep) & {"LEAK003", "LEAK005"}, [f.message for f in rep.findings]


def test_eval_set_test_is_selection_but_validation_is_not(tmp_path):
    head = SK + "\nfrom xgboost import XGBClassifier"
    bad = scan_cells(tmp_path, [head, LOAD, SPLIT, "m = XGBClassifier(early_stopping_rounds=10)\n"
                                                   "m.fit(X_train, y_train, eval_set=[(X_test, y_test)])"],
                     name="bad.ipynb")
    [f] = of(bad, "LEAK004")
    assert "`X_test`" in f.message and "eval_set" in f.message
    good = scan_cells(tmp_path, [head, LOAD, SPLIT,
                                 "X_tr, X_val, y_tr, y_val = train_test_split(X_train, y_train, random_state=0)\n"
                                 "m = XGBClassifier(early_stopping_rounds=10)\n"
                                 "m.fit(X_tr, y_tr, eval_set=[(X_val, y_val)])\nprint(m.score(X_test, y_test))"],
                      name="good.ipynb")
    assert not ids(good) & {"LEAK004", "LEAK005"}


def test_keras_validation_data_test(tmp_path):
    rep = scan_cells(tmp_path, [SK + "\nfrom tensorflow import keras", LOAD, SPLIT,
                                "net = keras.Sequential([keras.layers.Dense(1)])\n"
                                "net.fit(X_train, y_train, validation_data=(X_test, y_test), "
                                "callbacks=[keras.callbacks.EarlyStopping()])"])
    assert "LEAK004" in ids(rep)


def test_models_loop_scored_on_test(tmp_path):
    rep = scan_cells(tmp_path, [SK + "\nfrom sklearn.tree import DecisionTreeClassifier", LOAD, SPLIT,
                                "for model in [LogisticRegression(), DecisionTreeClassifier(random_state=0)]:\n"
                                "    model.fit(X_train, y_train)\n    print(model.score(X_test, y_test))"])
    [f] = of(rep, "LEAK005")
    assert f.severity.value == "warning" and "`X_test`" in f.message
    assert "LEAK004" not in ids(rep)


def test_hyperparameter_loop_on_test_is_selection(tmp_path):
    rep = scan_cells(tmp_path, [SK + "\nfrom sklearn.neighbors import KNeighborsClassifier", LOAD, SPLIT,
                                "acc = []\nfor k in range(1, 10):\n    knn = KNeighborsClassifier(n_neighbors=k)\n"
                                "    knn.fit(X_train, y_train)\n    acc.append(knn.score(X_test, y_test))\n"
                                "best_k = np.argmax(acc) + 1"])
    [f] = of(rep, "LEAK004")  # one finding: the choice, naming the scores it reads
    assert "`knn.score(X_test, y_test)` in cell 4" in f.message and "`np.argmax(acc)`" in f.message
    assert "LEAK005" not in ids(rep)


def test_one_model_many_metrics_once_on_test(tmp_path):
    rep = scan_cells(tmp_path, [SK + "\nfrom sklearn.metrics import f1_score, confusion_matrix", LOAD, SPLIT,
                                "m = LogisticRegression().fit(X_train, y_train)\np = m.predict(X_test)\n"
                                "print(accuracy_score(y_test, p), f1_score(y_test, p))\nconfusion_matrix(y_test, p)"])
    assert not ids(rep) & {"LEAK003", "LEAK004", "LEAK005"}


def test_target_column_left_in_features(tmp_path):
    rep = scan_cells(tmp_path, [SK, 'df = pd.read_csv("d.csv")\ny = df["churn"]\nX = df.drop(columns=["id"])',
                                SPLIT + "\nLogisticRegression().fit(X_train, y_train)"])
    [f] = of(rep, "LEAK006")
    assert "'churn'" in f.message and f.evidence["columns"] == ["churn"]


def test_feature_derived_from_label_and_clean_drop(tmp_path):
    bad = scan_cells(tmp_path, [SK, 'df = pd.read_csv("d.csv")\ndf["ratio"] = df["price"] / df["area"]\n'
                                     'y = df["price"]\nX = df.drop("price", axis=1)',
                                SPLIT + "\nLogisticRegression().fit(X_train, y_train)"], name="bad.ipynb")
    assert "'ratio'" in of(bad, "LEAK006")[0].message
    good = scan_cells(tmp_path, [SK, 'df = pd.read_csv("d.csv")\ny = df.pop("price")\nX = df',
                                 SPLIT + "\nLogisticRegression().fit(X_train, y_train)"], name="good.ipynb")
    assert "LEAK006" not in ids(good)


def test_execution_order_is_followed(tmp_path):
    # the split cell ran before the scaler cell, although it is placed after it in the document
    rep = scan_cells(tmp_path, [SK, LOAD, "sc = StandardScaler()\nX_train = sc.fit_transform(X_train)\n"
                                          "X_test = sc.transform(X_test)\nLogisticRegression().fit(X_train, y_train)",
                                SPLIT], counts=[1, 2, 4, 3])
    assert "LEAK001" not in ids(rep)


def test_no_training_notebook_is_quiet(tmp_path):
    rep = scan_cells(tmp_path, ["import random\nimport numpy as np\nimport pandas as pd\n%matplotlib inline",
                                "!pip install seaborn\ndf = pd.read_csv('x.csv')\ndf.describe()",
                                "idx = random.sample(range(10), 3)\nnoise = np.random.randn(10)\n"
                                "from sklearn.preprocessing import StandardScaler\n"
                                "z = StandardScaler().fit_transform(df[['a']])"])
    mine = ("LEAK", "EVAL", "TIME", "SEED", "DET", "CKPT", "TRACK", "TRAIN", "ENV")
    assert not [f for f in rep.findings if f.rule_id.startswith(mine)], [f.message for f in rep.findings]


@pytest.mark.parametrize("body", [
    "svc = SVC()\nfor c in [0.1, 1, 10]:\n    svc.set_params(C=c)\n    svc.fit(X_train, y_train)\n"
    "    print(svc.score(X_test, y_test))",
    "Ns = [10, 50, 100]\nfor n in Ns:\n    m = RF(n_estimators=n, random_state=0).fit(X_train, y_train)\n"
    "    print(n, m.score(X_test, y_test))",
    "for p in ParameterGrid({'C': [1, 10]}):\n    m = SVC(**p).fit(X_train, y_train)\n"
    "    print(p, m.score(X_test, y_test))",
    "best, best_m = 0, None\nfor m in [SVC(), RF(random_state=0)]:\n"
    "    acc = m.fit(X_train, y_train).score(X_test, y_test)\n"
    "    if acc > best:\n        best, best_m = acc, m",
])
def test_hyperparameter_search_styles_on_test(tmp_path, body):
    head = (SK + "\nfrom sklearn.model_selection import ParameterGrid\nfrom sklearn.svm import SVC\n"
            "from sklearn.ensemble import RandomForestClassifier as RF")
    rep = scan_cells(tmp_path, [head, LOAD, SPLIT, body])
    found = ids(rep)
    assert "LEAK004" in found and "LEAK005" not in found, [f.message for f in rep.findings]


def test_threshold_check_on_test_score_is_not_selection(tmp_path):
    rep = scan_cells(tmp_path, [SK, LOAD, SPLIT, "m = LogisticRegression().fit(X_train, y_train)\n"
                                                 "acc = m.score(X_test, y_test)\nif acc > 0.9:\n    print('good')"])
    assert not ids(rep) & {"LEAK004", "LEAK005"}


@pytest.mark.parametrize("body,expected", [
    ('X = df.drop(columns=["id"])\ndf["target"] = (df["score"] > 5).astype(int)\ny = df["target"]', "'score'"),
    ('X = df.drop(columns=["id", "score"])\ndf["target"] = (df["score"] > 5).astype(int)\ny = df["target"]', None),
    ('X = df.drop(columns=["id"])\ndf["target"] = df["target"].map({"a": 1})\ny = df["target"]', "'target'"),
    ('X = df.drop(columns=["charges"])\ny = df["charges"]\ndf["per_age"] = df["charges"] / df["age"]', None),
])
def test_target_leakage_is_flow_sensitive(tmp_path, body, expected):
    rep = scan_cells(tmp_path, [SK, 'df = pd.read_csv("d.csv")\n' + body, "LogisticRegression().fit(X, y)"])
    found = of(rep, "LEAK006")
    if expected is None:
        assert not found, [f.message for f in found]
    else:
        assert len(found) == 1 and expected in found[0].message


def test_findings_from_helper_point_into_the_defining_cell(tmp_path):
    rep = scan_cells(tmp_path, [SK + "\nfrom sklearn.tree import DecisionTreeClassifier",
                                "def evaluate(model):\n    model.fit(X_train, y_train)\n"
                                "    return accuracy_score(y_test, model.predict(X_test))",
                                LOAD + "\n" + SPLIT,
                                "print(evaluate(LogisticRegression()))\n"
                                "print(evaluate(DecisionTreeClassifier(random_state=0)))"])
    [f] = of(rep, "LEAK005")
    assert f.location.cell == 1 and f.location.line == 3
