"""`%trainaudit --rerun`: reruns a cell twice in copies of the namespace, in a real IPython shell."""

from __future__ import annotations

import nbformat
import numpy as np
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

SETUP = (
    "import numpy as np\nfrom sklearn.linear_model import SGDClassifier\n"
    "from sklearn.model_selection import train_test_split\n"
    "data_rng = np.random.default_rng(1)\nX = data_rng.normal(size=(300, 5))\n"
    "y = (X[:, 0] + 0.7 * data_rng.normal(size=300) > 0).astype(int)"
)
UNSEEDED = (
    "X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3)\nclf = SGDClassifier()\n"
    "clf.fit(X_tr, y_tr)\nacc = clf.score(X_te, y_te)"
)
SEEDED = (
    "X_tr2, X_te2, y_tr2, y_te2 = train_test_split(X, y, test_size=0.3, random_state=0)\n"
    "clf2 = SGDClassifier(random_state=0).fit(X_tr2, y_tr2)\nacc2 = clf2.score(X_te2, y_te2)"
)


def test_unseeded_cell_does_not_reproduce_and_user_state_is_untouched(shell):
    shell.run(SETUP)
    shell.run(UNSEEDED)
    n = shell.ip.execution_count - 1
    acc, coef = shell.ns["acc"], shell.ns["clf"].coef_.copy()
    rng_before = np.random.get_state()[1].copy()
    shell.run(f"%trainaudit --rerun {n} --metric acc --format text --no-log")
    rr = shell.audit.rerun
    assert rr["cell"] == n and rr["matched"] is False and rr["seeds_itself"] is False
    assert len({str(v) for v in rr["values"]}) > 1  # up to 5 runs, each from fresh entropy like a new kernel
    assert "does NOT reproduce" in rr["summary"] and "does not seed itself" in rr["summary"]
    assert rr["label"] == f"[In {n}]" and rr["summary"].startswith(f"[In {n}] ran ")  # no notebook: count only
    repro = shell.audit.part("reproducibility")
    assert repro.status == "issues" and repro.verdict.startswith(f"NOT REPRODUCIBLE: the rerun of [In {n}] gave")
    # the user's objects and the global RNG were not changed by the reruns
    assert shell.ns["acc"] == acc and np.array_equal(shell.ns["clf"].coef_, coef)
    assert np.array_equal(np.random.get_state()[1], rng_before)
    assert "X" in rr["copied"]


def test_objects_defined_earlier_are_copied_not_mutated(shell):
    shell.run(SETUP)
    shell.run("model = SGDClassifier()")
    shell.run("model.fit(X, y)\nfit_acc = model.score(X, y)")
    n = shell.ip.execution_count - 1
    shell.ns["model"] = shell.ns["SGDClassifier"]()  # the user resets the model: the rerun must not fit it
    shell.run(f"%trainaudit --rerun {n} --metric fit_acc --format text --no-log")
    assert "model" in shell.audit.rerun["copied"]
    assert not hasattr(shell.ns["model"], "coef_")


def test_seeded_cell_reproduces(shell):
    shell.run(SETUP)
    shell.run(SEEDED)
    n = shell.ip.execution_count - 1
    shell.run(f"%trainaudit --rerun {n} --metric acc2 --format text --no-log")
    rr = shell.audit.rerun
    assert rr["matched"] is True and rr["difference"] == 0.0
    assert rr["seeds_itself"] is True and any("random_state=0" in s for s in rr["seeding"])
    (rerun,) = [ln for ln in shell.audit.part("reproducibility").lines if ln.label == "Rerun"]
    assert rerun.value.startswith(f"[In {n}] ran twice: acc2 =")
    assert "In[" not in rerun.value  # the project's spelling, never the Python expression `In[3]`


def test_external_seed_and_tolerance(shell):
    shell.run(SETUP)
    shell.run("import numpy as np\nnoise = np.random.normal()\nscore = 0.9 + 0.001 * noise")
    n = shell.ip.execution_count - 1
    shell.run(f"%trainaudit --rerun {n} --metric score --seed 7 --format text --no-log")
    rr = shell.audit.rerun
    assert rr["matched"] is True and rr["seed"] == 7 and rr["seeds_itself"] is False
    shell.run(f"%trainaudit --rerun {n} --metric score --tol 0.1 --format text --no-log")
    assert shell.audit.rerun["matched"] is True and shell.audit.rerun["difference"] > 0
    shell.run(f"%trainaudit --rerun {n} --metric score --format text --no-log")
    assert shell.audit.rerun["matched"] is False


def test_rerun_errors_are_reported(shell, capsys):
    shell.run("value = 1")
    shell.run("%trainaudit --rerun 99 --metric value --format text --no-log")
    assert "no cell [In 99] in this session" in shell.audit.rerun["error"]
    shell.run("%trainaudit --rerun 1 --metric missing --format text --no-log")
    assert "did not set 'missing'" in shell.audit.rerun["error"]
    result = shell.run("%trainaudit --rerun 1", ok=False)
    assert type(result.error_in_exec).__name__ == "UsageError"
    assert "--rerun needs --metric" in str(result.error_in_exec)


def test_rerun_names_the_notebook_cell(shell, tmp_path):
    """With the notebook known (`__session__`, as ipykernel sets it), the rerun names "cell N [In k]"; the cell is
    found by the id the frontend sent, although its saved source is older than the one that ran."""
    shell.run(SETUP)  # [In 2]
    cells = [
        new_markdown_cell("# Reproducibility"),
        new_code_cell("%load_ext trainguard", execution_count=1),
        new_code_cell(SETUP, execution_count=2),
        new_markdown_cell("## Train"),
        new_code_cell(SEEDED.replace("random_state=0)\n", "random_state=1)\n", 1), execution_count=3),
        new_code_cell("%trainaudit --rerun 3 --metric acc2"),
    ]
    for i, cell in enumerate(cells):
        cell.id = f"id-{i}"
    nbformat.write(new_notebook(cells=cells), tmp_path / "repro.ipynb")
    shell.ns["__session__"] = str(tmp_path / "repro.ipynb")
    shell.ip.run_cell(SEEDED, store_history=True, cell_id="id-4")  # [In 3], edited since the save
    shell.ip.run_cell("%trainaudit --rerun 3 --metric acc2 --format text --no-log", store_history=True, cell_id="id-5")
    rr = shell.audit.rerun
    assert rr["cell"] == 3 and rr["label"] == "cell 5 [In 3]" and rr["matched"] is True
    assert rr["summary"].startswith("cell 5 [In 3] ran twice: acc2 =")
