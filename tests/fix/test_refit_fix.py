"""LEAK001 re-fit on the evaluated rows (`X_test = scaler.fit_transform(X_test)` after fitting on the training rows):
`trainguard fix --unsafe` turns it into `transform`, removes a bare re-fit, and the fixed notebook runs in a real
kernel with the test rows scaled by the training statistics."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_path
from jupyter_trainguard.fix import fix_paths

from .conftest import assert_only_sources_changed, cells, src, write_nb
from .test_unsafe_fixes import execute

IMPORTS = ("import numpy as np\nfrom sklearn.preprocessing import StandardScaler\n"
           "from sklearn.model_selection import train_test_split\nfrom sklearn.svm import SVC")
DATA = ("rng = np.random.default_rng(0)\nX = rng.normal(5.0, 2.0, size=(200, 3))\ny = (X[:, 0] > 5).astype(int)\n"
        "X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0)\nX_te = X_te + 3.0")
CHECK = ("print(abs(float(X_tr.mean())) < 1e-9, float(X_te.mean()) > 1.0)\n"
         "print(0.0 <= SVC(random_state=0).fit(X_tr, y_tr).score(X_te, y_te) <= 1.0)")

SHAPES = {
    "fit_transform": ("sc = StandardScaler()\nX_tr = sc.fit_transform(X_tr)\nX_te = sc.fit_transform(X_te)",
                      "X_te = sc.transform(X_te)"),
    "fit_transform-with-labels": ("sc = StandardScaler()\nX_tr = sc.fit_transform(X_tr, y_tr)\n"
                                  "X_te = sc.fit_transform(X_te, y_te)", "X_te = sc.transform(X_te)"),
    "bare-refit": ("sc = StandardScaler().fit(X_tr)\nX_tr = sc.transform(X_tr)\n"
                   "sc.fit(X_te)\nX_te = sc.transform(X_te)",
                   "# removed: re-fitted sc on the evaluated rows"),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_refit_on_the_test_rows_is_fixed_and_the_notebook_runs(nbdir, shape):
    code, expected = SHAPES[shape]
    path = write_nb(nbdir / "refit.ipynb", [IMPORTS, DATA, code, CHECK])
    assert "LEAK001" in {f.rule_id for f in analyze_path(path).findings}
    before = path.read_text(encoding="utf-8")
    report = fix_paths([path], unsafe=True, selection=["LEAK001"])
    assert [c.fixer for c in report.changes] == ["no-refit-on-evaluated-rows"]
    fixed = src(cells(path)[2])
    code_lines = [ln for ln in fixed.splitlines() if not ln.lstrip().startswith("#")]
    assert expected in fixed and not any("X_te" in ln and "fit" in ln for ln in code_lines)
    assert_only_sources_changed(before, path.read_text(encoding="utf-8"), {2}, {})
    assert "LEAK001" not in {f.rule_id for f in analyze_path(path).findings}
    # the training rows are standardised, the shifted test rows keep their shift: training statistics only
    assert execute(path)[-1].split() == ["True", "True", "True"]


def test_needs_unsafe_and_leaves_a_first_fit_alone(nbdir):
    path = write_nb(nbdir / "refit.ipynb", [IMPORTS, DATA, SHAPES["fit_transform"][0], CHECK])
    raw = path.read_bytes()
    report = fix_paths([path], selection=["LEAK001"])
    assert path.read_bytes() == raw and [x.rule_id for x in report.left] == ["LEAK001"]
    clean = write_nb(nbdir / "clean.ipynb", [IMPORTS, DATA, "sc = StandardScaler()\nX_tr = sc.fit_transform(X_tr)\n"
                                                              "X_te = sc.transform(X_te)", CHECK])
    raw = clean.read_bytes()
    assert fix_paths([clean], unsafe=True, selection=["LEAK001"]).status == "no_work"
    assert clean.read_bytes() == raw
