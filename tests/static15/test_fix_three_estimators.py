"""Issue 15, `trainguard fix --unsafe`: every estimator of a cell gets `random_state`, also several of the same class
on one line, and a fixed line is never also listed as having "no automatic fix". The fixed notebook runs in a real
kernel and gives the same scores twice."""

from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import pytest

from jupyter_trainguard.engine import analyze_path

from .nbmake import write_nb

IMPORTS = (
    "from sklearn.ensemble import RandomForestClassifier, ExtraTreesClassifier\n"
    "from sklearn.model_selection import train_test_split"
)
DATA = (
    "X = [[i % 7, i % 5, (i * 3) % 11] for i in range(160)]\ny = [int(r[0] + r[1] > 5) for r in X]\n"
    "X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0)"
)
ONE_LINE = (
    "models = [RandomForestClassifier(n_estimators=5), RandomForestClassifier(max_depth=2), "
    "ExtraTreesClassifier(n_estimators=4)]\n"
    "for m in models:\n    print(round(m.fit(X_tr, y_tr).score(X_te, y_te), 6))"
)
THREE_LINES = (
    "a = RandomForestClassifier(n_estimators=5)\nb = ExtraTreesClassifier(\n    n_estimators=4,\n)\n"
    "c = RandomForestClassifier(max_depth=2)\n"
    "for m in (a, b, c):\n    print(round(m.fit(X_tr, y_tr).score(X_te, y_te), 6))"
)


def _fix(path):
    return subprocess.run(
        [sys.executable, "-m", "jupyter_trainguard", "fix", "--unsafe", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("cell", [ONE_LINE, THREE_LINES], ids=["one-line", "three-lines"])
def test_all_three_estimators_get_random_state(tmp_path, cell):
    path = write_nb(tmp_path / "models.ipynb", [IMPORTS, DATA, cell])
    before = [f for f in analyze_path(path).findings if f.rule_id == "SEED004"]
    assert len(before) == 3
    res = _fix(path)
    report = json.loads(res.stdout)
    changes = [c for c in report["changes"] if c["rule_id"] == "SEED004" and c["summary"] == "added random_state"]
    assert len(changes) == 3
    assert not [x for x in report["left"] if x["rule_id"] == "SEED004"]  # nothing both fixed and left
    assert "SEED004" not in report["files"][0]["findings_without_fix"]
    source = nbformat.read(str(path), as_version=4).cells[2].source
    assert source.count("random_state=") == 3
    assert [f for f in analyze_path(path).findings if f.rule_id == "SEED004"] == []


def test_fixed_notebook_runs_and_reproduces_in_a_kernel(tmp_path):
    nbclient = pytest.importorskip("nbclient")
    path = write_nb(tmp_path / "models.ipynb", [IMPORTS, DATA, ONE_LINE])
    assert _fix(path).returncode in (0, 1)
    outs = []
    for _ in range(2):
        nb = nbformat.read(str(path), as_version=4)
        nbclient.NotebookClient(nb, timeout=180, kernel_name="python3").execute()
        code = [c for c in nb.cells if c.cell_type == "code"]
        outs.append("".join(o.get("text", "") for o in code[-1].outputs))
    assert len(outs[0].split()) == 3 and outs[0] == outs[1]
