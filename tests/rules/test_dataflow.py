"""The dataflow analysis itself: roles, aliases, helpers, loops and execution order."""

from __future__ import annotations

import pytest

from jupyter_trainguard.analysis.dataflow import analyze
from jupyter_trainguard.analysis.names import role_from_name
from jupyter_trainguard.analysis.parsed import ParsedNotebook
from jupyter_trainguard.notebook.load import notebook_from_sources


def flow(cells, counts=None):
    return analyze(ParsedNotebook.from_notebook(notebook_from_sources("t.ipynb", cells, counts)), strict=True)


@pytest.mark.parametrize("name,role", [
    ("X_test", "test"), ("xtest", "test"), ("XTest", "test"), ("test_df", "test"), ("testloader", "test"),
    ("X_val", "val"), ("valid_ds", "val"), ("y_va", "val"), ("X_train", "train"), ("trainX", "train"),
    ("X_trainval", "train"), ("latest", None), ("contest", None), ("X", None), ("attestation", None),
])
def test_role_from_name(name, role):
    assert role_from_name(name) == role


def test_split_roles_alias_and_positional_names():
    f = flow(["import pandas as pd\nfrom sklearn.model_selection import train_test_split as tts",
              "df = pd.read_csv('a.csv')\na, b, c, d = tts(df.drop('y', axis=1), df.y)\n"
              "X_tr, X_val, y_tr, y_val = tts(a, c)"])
    first, second = f.splits
    assert [o.role for o in first.outputs] == ["train", "test", "train", "test"]
    assert [o.name for o in second.outputs] == ["X_tr", "X_val", "y_tr", "y_val"]
    assert [o.role for o in second.outputs] == ["train", "val", "train", "val"]
    assert all(o.strong for o in second.outputs)


def test_slicing_and_sample_drop_are_splits():
    f = flow(["import pandas as pd", "df = pd.read_csv('a.csv')\ntrain = df.sample(frac=0.8, random_state=0)\n"
                                     "test = df.drop(train.index)"])
    [s] = f.splits
    assert s.kind == "slice" and [o.role for o in s.outputs] == ["train", "test"] and s.shuffle


def test_helper_function_inlined_per_call_and_models_loop():
    f = flow(["from sklearn.linear_model import LogisticRegression\nfrom sklearn.svm import SVC",
              "def fit_eval(m, a, b):\n    m.fit(a, b)\n    return m.predict(a)",
              "import numpy as np\nX = np.load('x.npy')\ny = np.load('y.npy')\n"
              "fit_eval(LogisticRegression(), X, y)\nfit_eval(SVC(), X, y)\n"
              "for m in [LogisticRegression(), SVC()]:\n    m.fit(X, y)"])
    fits = [fe for fe in f.fits if fe.est.ekind == "model"]
    assert len(fits) == 3 and len({id(fe.est) for fe in fits}) == 3
    assert fits[-1].est.multi and fits[-1].loops


def test_taint_follows_fit_then_transform_on_other_name():
    f = flow(["from sklearn.preprocessing import StandardScaler\nimport numpy as np",
              "X = np.load('x.npy')\nsc = StandardScaler()\nsc.fit(X)\nscaler = sc\nZ = scaler.transform(X)"])
    [fe] = f.fits
    z = f.env["Z"]
    assert fe.eid in z.taints and f.env["X"].vid in z.anc


def test_execution_order_not_document_order():
    f = flow(["import numpy as np", "X = np.load('b.npy')", "X = np.load('a.npy')\nY = X"], counts=[1, 3, 2])
    assert f.env["Y"].vid != f.env["X"].vid and f.env["X"].cell.index == 1


def test_unknown_code_does_not_break_the_flow():
    f = flow(["import mystery\nimport numpy as np",
              "X = np.load('x.npy')\nobj = mystery.Thing(X)[0].frobnicate(lambda q: q ** 2)\n"
              "class A:\n    pass\nwith open('f') as fh:\n    data = fh.read()\ndel obj\n"
              "Z = [v for v in X if v]\nmatch_ = {**{'a': 1}}"])
    assert f.env["Z"] is not None and f.env["X"].vid in f.env["Z"].anc
