"""The provenance interpreter itself: splits and their parts, complements, helpers, loops, aliases, replay order
and robustness to unknown code (real notebooks built with nbformat's model through the project's loader)."""

from __future__ import annotations

import pytest

from jupyter_trainguard.analysis.names import role_from_name
from jupyter_trainguard.analysis.parsed import ParsedNotebook
from jupyter_trainguard.analysis.provenance import Interpreter
from jupyter_trainguard.analysis.provenance.rows import covered, overlap
from jupyter_trainguard.notebook.load import notebook_from_sources


def run(cells, counts=None):
    it = Interpreter(ParsedNotebook.from_notebook(notebook_from_sources("t.ipynb", cells, counts)), strict=True)
    return it.run()


@pytest.mark.parametrize("name,role", [
    ("X_test", "test"), ("xtest", "test"), ("XTest", "test"), ("test_df", "test"), ("testloader", "test"),
    ("X_val", "val"), ("valid_ds", "val"), ("y_va", "val"), ("X_train", "train"), ("trainX", "train"),
    ("X_trainval", "train"), ("latest", None), ("contest", None), ("X", None), ("attestation", None),
])
def test_role_from_name_reads_report_labels(name, role):
    # names only label how a score is reported (EVAL001); provenance never decides a split from them
    assert role_from_name(name) == role


def test_split_parts_are_disjoint_and_a_second_split_nests_inside_the_first():
    rec = run(["import pandas as pd\nfrom sklearn.model_selection import train_test_split as tts",
               "df = pd.read_csv('a.csv')\na, b, c, d = tts(df.drop('y', axis=1), df.y)\n"
               "X_tr, X_val, y_tr, y_val = tts(a, c)"])
    env = rec.env
    assert overlap(env["a"].rows, env["b"].rows) is None
    assert covered(env["X_tr"].rows, env["a"].rows) and covered(env["X_val"].rows, env["a"].rows)
    assert overlap(env["X_val"].rows, env["b"].rows) is None
    assert overlap(env["X_tr"].rows, env["X_val"].rows) is None


def test_sample_and_its_complement_are_disjoint_parts_of_the_frame():
    rec = run(["import pandas as pd", "df = pd.read_csv('a.csv')\ntrain = df.sample(frac=0.8, random_state=0)\n"
                                      "test = df.drop(train.index)"])
    train, test, df = rec.env["train"], rec.env["test"], rec.env["df"]
    assert overlap(train.rows, test.rows) is None
    assert covered(test.rows, df.rows) and covered(train.rows, df.rows)
    assert [s.how for s in rec.splits] == ["sample"] and rec.splits[0].shuffle


def test_helper_function_followed_per_call_and_models_loop_runs_per_model():
    rec = run(["from sklearn.linear_model import LogisticRegression\nfrom sklearn.svm import SVC",
               "def fit_eval(m, a, b):\n    m.fit(a, b)\n    return m.predict(a)",
               "import numpy as np\nX = np.load('x.npy')\ny = np.load('y.npy')\n"
               "fit_eval(LogisticRegression(), X, y)\nfit_eval(SVC(), X, y)\n"
               "for m in [LogisticRegression(), SVC()]:\n    m.fit(X, y)"])
    fits = [f for f in rec.fits if f.kind == "model"]
    assert len(fits) == 4 and len({id(f.obj) for f in fits}) == 4
    assert fits[0].site.cell.index == 1  # events inside a helper point into the cell that defines it


def test_fit_then_transform_through_an_alias_carries_the_fit():
    rec = run(["from sklearn.preprocessing import StandardScaler\nimport numpy as np",
               "X = np.load('x.npy')\nsc = StandardScaler()\nsc.fit(X)\nscaler = sc\nZ = scaler.transform(X)"])
    [fit] = rec.fits
    assert fit in rec.env["Z"].stats and rec.env["Z"].rows == rec.env["X"].rows


def test_a_second_return_left_below_the_first_never_runs():
    """`return feats` then `return models`: the function returns what its first return gives (the rest of the
    block is dead code), so the selected features reach the caller, not the list of models."""
    cells = ["from sklearn.feature_selection import RFE\nfrom sklearn.linear_model import LogisticRegression\n"
             "import numpy as np\nX = np.load('x.npy')\ny = np.load('y.npy')",
             "def select(X, y):\n    models = [LogisticRegression()]\n    feats = []\n    for m in models:\n"
             "        feats.append(RFE(m, n_features_to_select=3).fit(X, y).transform(X))\n"
             "    return feats\n    return models",
             "for f in select(X, y):\n    LogisticRegression().fit(f, y)"]
    rec = run(cells)
    model_fits = [f for f in rec.fits if f.kind == "model" and f.cls.endswith("LogisticRegression")]
    assert model_fits and any(s.cls.endswith("RFE") for f in model_fits for s in f.stats)


def test_execution_order_when_it_is_a_feasible_replay():
    rec = run(["import numpy as np", "X = np.load('b.npy')", "X = np.load('a.npy')\nY = X"], counts=[1, 3, 2])
    assert rec.env["Y"].rows != rec.env["X"].rows and rec.env["X"].site.cell.index == 1


def test_counts_that_cannot_replay_fall_back_to_top_to_bottom():
    # the import ran last (re-run after a restart), so the counts do not describe how the state was built
    rec = run(["import numpy as np", "X = np.load('a.npy')", "Y = X * 2"], counts=[9, 1, 2])
    assert rec.env["Y"].rows == rec.env["X"].rows


def test_a_split_re_run_after_the_cells_that_scored_on_it_ran_before_them_too():
    """Counts keep only each cell's last run: the models scored on `Xte` (counts 5, 6) saw the split, whose
    cell was re-run later (count 9). It is replayed before them as well, so they score the same test rows."""
    from jupyter_trainguard.analysis.provenance.detectors.multitest import multitest_leaks
    cells = ["import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
             "from sklearn.linear_model import LogisticRegression\nfrom sklearn.tree import DecisionTreeClassifier\n"
             "df = pd.read_csv('a.csv')",
             "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
             "print(DecisionTreeClassifier().fit(Xtr, ytr).score(Xte, yte))",
             "Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['y'], random_state=0)"]
    assert len(multitest_leaks(run(cells, counts=[1, 5, 6, 9]))) == 1
    assert len(multitest_leaks(run(cells))) == 1  # no counts: the cells as they stand, the split run first


def test_a_function_called_before_the_cell_defining_it_runs_is_followed():
    rec = run(["import numpy as np", "Z = centre(np.load('a.npy'))", "def centre(a):\n    return a - a.mean()"],
              counts=[1, 3, 2])
    assert rec.env["Z"] is not None and rec.env["Z"].all_stats  # the mean the function takes


def test_an_application_entry_point_is_followed_down_to_its_feature_builder():
    """`main()` -> `run()` -> `train_and_score()` -> `features()`: a fit four calls deep still reaches the caller."""
    code = ("import numpy as np\nfrom sklearn.preprocessing import StandardScaler\nsc = StandardScaler()\n"
            "def features(a):\n    return sc.fit_transform(a)\n"
            "def train_and_score(a):\n    return features(a)\n"
            "def run(path):\n    return train_and_score(np.load(path))\n"
            "def main():\n    return run('x.npy')\nZ = main()")
    rec = run([code])
    assert rec.env["Z"] is not None and any(f.kind == "transformer" for f in rec.env["Z"].all_stats)


def test_a_loop_over_dict_items_keeps_each_key_with_its_own_value():
    """`for name, frame in parts.items(): clean[name] = ...`: each key of the new dict holds the frame it was
    built from (not every frame under every key: the training part is not the validation part)."""
    rec = run(["import pandas as pd\nfrom sklearn.model_selection import train_test_split",
               "df = pd.read_csv('a.csv')\ntr, va = train_test_split(df, random_state=0)\n"
               "parts = {'train': tr, 'valid': va}\nclean = {}\nfor name, frame in parts.items():\n"
               "    clean[name] = frame.drop('c', axis=1)\nA, B = clean['train'], clean['valid']"])
    env = rec.env
    assert env["A"].rows == env["tr"].rows and env["B"].rows == env["va"].rows
    assert overlap(env["A"].rows, env["B"].rows) is None


def test_row_positions_split_once_or_twice_select_the_same_parts_of_whatever_they_index():
    rec = run(["import numpy as np\nimport pandas as pd\nfrom sklearn.model_selection import train_test_split",
               "df = pd.read_csv('a.csv')\n"
               "rest, te = train_test_split(list(range(len(df))), test_size=0.2, random_state=0)\n"
               "tr, va = train_test_split(rest, test_size=0.25, random_state=0)\n"
               "A, B, C = df.values[tr], df.values[va], df['y'].values[te]\nD = df.values[te]"])
    env = rec.env
    assert overlap(env["A"].rows, env["B"].rows) is None and overlap(env["A"].rows, env["C"].rows) is None
    assert overlap(env["B"].rows, env["C"].rows) is None
    assert env["C"].rows == env["D"].rows  # labels and features at the same positions: the same rows


def test_a_stack_cut_at_the_length_of_its_first_part_recovers_the_parts():
    rec = run(["import pandas as pd",
               "train = pd.read_csv('train.csv')\ntest = pd.read_csv('test.csv')\nn = train.shape[0]\n"
               "both = pd.concat([train, test])\nA, B = both[:len(train)], both[len(train):]\n"
               "C, D = both[:n], both[n:]"])
    env = rec.env
    assert env["A"].rows == env["train"].rows == env["C"].rows
    assert env["B"].rows == env["test"].rows == env["D"].rows


def test_unknown_code_does_not_break_the_analysis():
    rec = run(["import mystery\nimport numpy as np",
               "X = np.load('x.npy')\nobj = mystery.Thing(X)[0].frobnicate(lambda q: q ** 2)\n"
               "class A:\n    pass\nwith open('f') as fh:\n    data = fh.read()\ndel obj\n"
               "Z = [v for v in X if v]\nmatch_ = {**{'a': 1}}"])
    assert rec.env["Z"] is not None and rec.env["Z"].rows  # the rows of X the condition keeps
    assert all(any(z[: len(x)] == x for x in rec.env["X"].rows) for z in rec.env["Z"].rows)


def test_nested_loops_over_models_with_helpers_stay_bounded():
    models = "[" + ", ".join(["LogisticRegression()"] * 8) + "]"
    helper = "def h(m, a, b):\n    m.fit(a, b)\n    return g(m, a)\ndef g(m, a):\n    return m.predict(a)"
    loops = (f"for m1 in {models}:\n    for m2 in {models}:\n        for m3 in {models}:\n"
             "            h(m1, X, y)\n            h(m2, X, y)\n            h(m3, X, y)")
    cells = ["from sklearn.linear_model import LogisticRegression\nimport numpy as np\n"
             "X = np.load('x.npy')\ny = np.load('y.npy')", helper] + [loops] * 40
    it = Interpreter(ParsedNotebook.from_notebook(notebook_from_sources("t.ipynb", cells)), strict=True)
    it.run()
    assert it.steps < 250_000  # 40 x 512 passes x 3 calls would be millions of statements without the budget


@pytest.mark.parametrize("loop", [
    "for frame in frames:\n    frame['age'].fillna(frame['age'].median(), inplace=True)",
    "for frame in frames:\n    frame['age'] = frame['age'].fillna(frame['age'].mean())",
    "frame = X\nframe['age'].fillna(frame['age'].median(), inplace=True)",
])
def test_in_place_mutation_through_an_alias_or_a_loop_variable_changes_the_object_itself(loop):
    rec = run(["import pandas as pd", "train = pd.read_csv('a.csv')\ntest = pd.read_csv('b.csv')\n"
                                      "X = train.drop(columns=['y'])\nframes = [X, test]", loop])
    assert rec.env["X"].all_stats, "the statistic learned through the alias reached X"
    assert not rec.env["train"].all_stats


def test_a_copy_or_a_rebinding_is_not_an_alias():
    rec = run(["import pandas as pd", "train = pd.read_csv('a.csv')\nX = train.drop(columns=['y'])\n"
                                      "frame = X.copy()\nframe['age'].fillna(frame['age'].median(), inplace=True)\n"
                                      "other = X\nother = other.fillna(other.mean())"])
    assert rec.env["frame"].all_stats and rec.env["other"].all_stats
    assert not rec.env["X"].all_stats


def test_a_column_written_through_attribute_access_carries_the_statistic_into_the_frame():
    rec = run(["import pandas as pd\nimport numpy as np", "df = pd.read_csv('a.csv')\nmeans = []\n"
               "means.append(df.groupby('kind').age.mean())\n"
               "for i in range(len(df)):\n    if np.isnan(df.age[i]):\n        df.age[i] = means[0][i]"])
    assert rec.env["df"].all_stats
    clean = run(["import pandas as pd", "df = pd.read_csv('a.csv')\nfor i in range(len(df)):\n    df.age[i] = 0"])
    assert not clean.env["df"].all_stats


def test_data_from_a_cell_that_is_not_in_the_notebook_is_a_source_and_leaks_are_followed():
    # the cell that loaded `raw` was removed before sharing; everything else is in the notebook
    cells = ["import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n"
             "from sklearn.model_selection import train_test_split\n"
             "from sklearn.linear_model import LogisticRegression",
             "df = raw[['a', 'b', 'y']].dropna()\ny = df['y']\nX = df.drop('y', axis=1)",
             "X = StandardScaler().fit(X).transform(X)\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)\n"
             "m = LogisticRegression().fit(X_tr, y_tr)\nprint(m.score(X_te, y_te))"]
    rec = run(cells)
    assert rec.env["raw"].rows and covered(rec.env["X_te"].rows, rec.env["raw"].rows)
    from jupyter_trainguard.analysis.provenance.detectors import preprocessing_leaks
    assert [lk.kind for lk in preprocessing_leaks(rec)] == ["preprocessing"]
    # builtins, IPython's names and names some cell binds are never taken for outside data
    rec = run(["x = len([1, 2])\ndisplay(x)\nget_ipython()", "print(later)", "later = 1"])
    assert "display" not in rec.env and "get_ipython" not in rec.env and "len" not in rec.env


def test_an_evaluation_inside_a_notebook_function_names_the_call_that_ran_it():
    from jupyter_trainguard.analysis.provenance.detectors import preprocessing_leaks

    rec = run(["import pandas as pd\nfrom sklearn.model_selection import KFold\n"
               "from sklearn.linear_model import Ridge",
               "def run_fold(a, b, c, d):\n    m = Ridge().fit(a, b)\n    return m.predict(c)",
               "df = pd.read_csv('a.csv')\ndf['x'] = df['x'].fillna(df['x'].mean())\n"
               "X, y = df[['x']], df['y']",
               "for tr, va in KFold(5).split(X):\n    run_fold(X.iloc[tr], y.iloc[tr], X.iloc[va], y.iloc[va])"])
    (leak,) = preprocessing_leaks(rec)
    assert leak.evidence["evaluation"]["cell"] == 2
    assert leak.evidence["evaluation"]["called_from"]["cell"] == 4
    assert "`m.predict(c)` cell 2 (called from cell 4)" in leak.message
    # the path lists the steps in the order they ran: the fit (cell 3), the split, then the call in cell 4
    trail = leak.message[leak.message.index("(`"):]
    assert trail.index("cell 3") < trail.index("split cell 4") < trail.index("called from cell 4")


def test_draws_of_a_random_generator_are_new_rows_and_a_permutation_keeps_the_rows():
    rec = run(["import numpy as np\nfrom sklearn.model_selection import train_test_split",
               "rng = np.random.default_rng(0)\nX = rng.normal(0, 1, size=(100, 3))\ny = rng.integers(0, 2, 100)\n"
               "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\nZ = rng.permutation(X_tr)"])
    env = rec.env
    assert env["X"].rows and overlap(env["X_tr"].rows, env["X_te"].rows) is None
    assert env["Z"].rows == env["X_tr"].rows


def test_a_frame_built_from_random_draws_keeps_its_column_facts():
    from jupyter_trainguard.engine import analyze_sources

    data = ("import numpy as np\nimport pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
            "from sklearn.model_selection import train_test_split\nrng = np.random.default_rng(7)\n"
            "df = pd.DataFrame({'city': rng.integers(0, 50, 300), 'fee': rng.normal(size=300)})\n"
            "df['churned'] = (rng.random(300) < 0.3).astype(int)")
    encoded = ("df['city_rate'] = df.groupby('city')['churned'].transform('mean')\n"
               "X_tr, X_te, y_tr, y_te = train_test_split(df[['fee', 'city_rate']], df['churned'], random_state=0)\n"
               "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))")
    ids = {f.rule_id for f in analyze_sources([data, encoded]).findings}
    assert {"LEAK006", "LEAK001"} <= ids


def test_data_from_a_reader_the_table_does_not_know_becomes_rows_when_a_transformer_fits_on_it():
    cells = ["import numpy as np\nimport marketdata\nfrom sklearn.preprocessing import MinMaxScaler\n"
             "from sklearn.linear_model import Ridge",
             "quotes = marketdata.fetch('XYZ').values\nn = int(len(quotes) * 0.8)",
             "mm = MinMaxScaler()\nscaled = mm.fit_transform(quotes)",
             "m = Ridge().fit(scaled[:n, :-1], scaled[:n, -1])\nprint(m.predict(scaled[n:, :-1]))"]
    from jupyter_trainguard.analysis.provenance.detectors import preprocessing_leaks
    rec = run(cells)
    assert rec.env["quotes"].rows and covered(rec.env["scaled"].rows, rec.env["quotes"].rows)
    assert [lk.kind for lk in preprocessing_leaks(rec)] == ["preprocessing"]
    # fitted on the training rows only: the same unknown reader gives no leak
    cells[2:] = ["mm = MinMaxScaler()\ntrain_part = mm.fit_transform(quotes[:n])\n"
                 "m = Ridge().fit(train_part[:, :-1], train_part[:, -1])\n"
                 "print(m.predict(mm.transform(quotes[n:])[:, :-1]))"]
    assert preprocessing_leaks(run(cells)) == []
    # an unknown value passed to a model is not taken for rows (no score on invented rows)
    rec = run(["import mystery\nfrom sklearn.linear_model import Ridge", "m = Ridge().fit(mystery.X, mystery.y)"])
    assert rec.env.get("mystery") is None or not rec.env["mystery"].is_data


def test_an_empty_frame_filled_column_by_column_holds_the_rows_of_its_columns():
    from jupyter_trainguard.analysis.provenance.detectors import preprocessing_leaks
    head = "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n" \
           "from sklearn.tree import DecisionTreeRegressor\ngames = pd.read_csv('games.csv')"
    fill = "tab = pd.DataFrame()\ntab['team'] = games['team']\ntab['length'] = games['length']\n"
    tail = "x, y = tab[['team', 'length', 'team_win']], games['won']\ntx, vx, ty, vy = train_test_split(x, y)\n" \
           "m = DecisionTreeRegressor().fit(tx, ty)\nprint(m.predict(vx))"
    # a target mean over all rows written into the frame: its held-out rows carry it
    rec = run([head, fill + "tab['team_win'] = games.groupby('team')['won'].transform('mean')", tail])
    assert rec.env["tab"].rows == rec.env["games"].rows
    assert [lk.kind for lk in preprocessing_leaks(rec)] == ["preprocessing"]
    # the same frame without the statistic: no leak
    assert preprocessing_leaks(run([head, fill + "tab['team_win'] = games['won'].shift(1)", tail])) == []
    # a frame of per-group aggregates keeps rows of its own (its rows are groups, not the source's rows)
    rec = run([head, "agg = pd.DataFrame()\nagg['m'] = games.groupby('team')['length'].mean()"])
    assert rec.env["agg"].rows and not (rec.env["agg"].rows & rec.env["games"].rows)


def test_a_model_whose_training_the_notebook_does_not_show_is_no_evidence_of_a_preprocessing_leak():
    from jupyter_trainguard.analysis.provenance.detectors import preprocessing_leaks
    head = "import numpy as np\nfrom tensorflow import keras\nX = np.load('x.npy')\nX = X - X.mean(axis=0)"
    # an encoder taken out of an autoencoder: the notebook never fits it, so nothing says it learned the rows
    rec = run([head, "enc = keras.Sequential([keras.layers.Dense(2)])\n"
                     "auto = keras.Sequential([enc, keras.layers.Dense(3)])\nauto.fit(X, X)\ncodes = enc.predict(X)"])
    assert preprocessing_leaks(rec) == []
    # the same statistics and a model fitted on a part of the rows, then scored on the rest: a leak
    rec = run([head, "from sklearn.linear_model import Ridge\ny = np.load('y.npy')\n"
                     "m = Ridge().fit(X[:800], y[:800])\nprint(m.score(X[800:], y[800:]))"])
    assert [lk.kind for lk in preprocessing_leaks(rec)] == ["preprocessing"]


def test_a_function_called_in_the_cell_that_defines_it_is_named_by_that_cell_alone():
    from jupyter_trainguard.analysis.provenance.detectors import overlap_leaks

    rec = run(["import pandas as pd\nfrom sklearn.linear_model import Ridge\ndf = pd.read_csv('a.csv')",
               "def fit_and_score(a, b):\n    m = Ridge().fit(a, b)\n    return m.score(a, b)\n"
               "print(fit_and_score(df[['x']], df['y']))"])
    (leak,) = overlap_leaks(rec)
    assert "`m.score(a, b)` in cell 2 evaluates" in leak.message, leak.message
    assert "called from" not in leak.message


def test_a_method_of_a_notebook_class_is_located_in_the_cell_that_defines_the_class():
    from jupyter_trainguard.analysis.provenance.detectors import overlap_leaks

    rec = run(["import pandas as pd\nfrom sklearn.linear_model import Ridge\nfrom sklearn.metrics import r2_score\n"
               "df = pd.read_csv('a.csv')",
               "class Trainer:\n    def __init__(self, model):\n        self.model = model\n\n"
               "    def train(self, X, y):\n        self.model.fit(X, y)\n\n"
               "    def evaluate(self, X, y):\n        return r2_score(y, self.model.predict(X))",
               "t = Trainer(Ridge())\nt.train(df[['x']], df['y'])",
               "print(t.evaluate(df[['x']], df['y']))"])
    (leak,) = overlap_leaks(rec)
    # the fit and the evaluation are code of cell 2, run by the calls in cells 3 and 4
    assert leak.evidence["evaluation"]["cell"] == 2 and leak.evidence["evaluation"]["line"] == 9
    assert leak.evidence["evaluation"]["called_from"]["cell"] == 4
    assert "`self.model.fit(X, y)` in cell 2 (called from cell 3)" in leak.message, leak.message
    assert "`self.model.predict(X)` cell 2 (called from cell 4)" in leak.message, leak.message
