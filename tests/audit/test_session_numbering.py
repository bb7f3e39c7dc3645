"""Issue 15: `%trainaudit` on the live session names cells as the guard does and reviews what the kernel holds.

A real ipykernel (nbclient), started as JupyterLab starts it (the notebook path in `JPY_SESSION_NAME`, each cell's id
in its execute request): the session review says "cell N [In k]" for the same finding the guarded run panel names so,
its JSON carries `cell_index`, `cell_id` and `execution_count`, and a guarded cell whose body did not compile (then
corrected) leaves no NB001 behind. The re-run of the same cell (same cell id) is checked in a real IPython shell."""

from __future__ import annotations

import json
import re

import pytest

from jupyter_trainguard.display import RUN_MIME
from tests.ipshell import run_with_id
from tests.numbering.kernel import run_like_lab
from tests.numbering.notebooks import IMPORTS, lab_notebook, stdout_of

pytest.importorskip("nbclient")
pytest.importorskip("sklearn")

DATA = (
    "np.random.seed(0)\nX = np.random.rand(80, 3)\ny = (X[:, 0] > 0.5).astype(int)\n"
    "X_scaled = StandardScaler().fit_transform(X)\n"
    "X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, random_state=0)"
)
BROKEN = "%%guarded_train\nmodel = LogisticRegression().fit(X_train, y_train\n"
FIXED = "%%guarded_train\nmodel = LogisticRegression().fit(X_train, y_train)\nscore = model.score(X_test, y_test)"
REVIEW_JSON = "%trainaudit --format json --no-log --no-hash"
REVIEW_TEXT = "%trainaudit --format text --no-log --no-hash"


def review_notebook(path):
    """# | imports [In 1] | md | data, leaky scaling [In 2] | broken guarded [In 3] | corrected guarded [In 4] |
    %trainaudit json [In 5] | %trainaudit text [In 6]."""
    return lab_notebook(path, [("md", "# Review"), "%load_ext trainguard\n" + IMPORTS, ("md", "## Data"), DATA,
                               BROKEN, FIXED, REVIEW_JSON, REVIEW_TEXT])


def run_payload(cell) -> dict:
    return next(o["data"][RUN_MIME] for o in cell.outputs if RUN_MIME in o.get("data", {}))


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    path = review_notebook(tmp_path_factory.mktemp("review") / "review.ipynb")
    nb = run_like_lab(path)
    return path, nb


def test_session_review_names_cells_as_the_guard_does(ran):
    path, nb = ran
    assert [c.execution_count for c in nb.cells if c.cell_type == "code"] == [1, 2, 3, 4, 5, 6]
    guard = run_payload(nb.cells[5])
    (g_leak,) = [f for f in guard["findings"] if f["rule_id"] == "LEAK001"]
    assert "cell 4 [In 2]" in g_leak["message"]
    review = json.loads(stdout_of(nb.cells[6]))
    (leak,) = [f for f in review["findings"] if f["rule_id"] == "LEAK001"]
    loc = leak["location"]
    assert (loc["cell_index"], loc["cell_id"], loc["execution_count"]) == (3, "id-3", 2)
    assert loc["path"] == str(path)
    assert leak["message"] == g_leak["message"]
    g_loc = g_leak["location"]
    assert (g_loc["cell_index"], g_loc["cell_id"], g_loc["execution_count"], g_loc["line"]) == (
        loc["cell_index"], loc["cell_id"], loc["execution_count"], loc["line"])
    # every static finding of the session names a notebook cell (no "<session>" path once the notebook is known)
    assert all(f["location"]["path"] == str(path) for f in review["findings"]), review["findings"]
    assert all("cell_index" in f["location"] and "cell_id" in f["location"]
               for f in review["findings"] if f["location"].get("execution_count") is not None)
    # the last guarded run is named as its panel names it: cell 6 (the corrected one), [In 4]
    assert any("(cell 6 [In 4], ok)" in note for note in review["notes"]), review["notes"]


def test_session_review_text_says_cell_n_in_k(ran):
    _, nb = ran
    text = stdout_of(nb.cells[7])
    assert re.search(r"LEAK001.*cell 4 \[In 2\]", text), text
    assert "[In [" not in text
    assert not re.search(r"(?<!cell \d)\s\[In 2\], line", text)  # never the count alone for a located cell


def test_corrected_syntax_error_leaves_no_nb001(ran):
    _, nb = ran
    broken = run_payload(nb.cells[4])
    assert any(f["rule_id"] == "NB001" for f in broken["findings"])  # the broken cell itself is reported
    assert not [f for f in run_payload(nb.cells[5])["findings"] if f["rule_id"] == "NB001"]
    review = json.loads(stdout_of(nb.cells[6]))
    assert not [f for f in review["findings"] if f["rule_id"] == "NB001"], review["findings"]
    passed = {rid for part in review["parts"] for rid in part["passed"]}
    assert "NB001" in passed and "Syntax error" not in stdout_of(nb.cells[7])
    assert review["cells"] and all(key.startswith(review["subject"] + "#") for key in review["cells"])


def review_rules(shell) -> list[str]:
    shell.run("%trainaudit --format json --no-log --no-hash --out review.json")
    return [f.rule_id for f in shell.audit.findings]


def test_rerun_of_the_same_cell_replaces_its_broken_version(shell, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_with_id(shell, IMPORTS, "setup")
    run_with_id(shell, DATA, "data")
    run_with_id(shell, BROKEN, "train", ok=False)  # reported by its own run, then out of the session: it never ran
    assert [f.rule_id for f in shell.ns["_trainguard_last"].findings if f.rule_id == "NB001"] == ["NB001"]
    run_with_id(shell, FIXED, "train")  # the same cell, corrected and re-run
    assert [f.rule_id for f in shell.ns["_trainguard_last"].findings if f.rule_id == "NB001"] == []
    rules = review_rules(shell)
    assert "NB001" not in rules and "LEAK001" in rules
    assert review_rules(shell).count("LEAK001") == 1  # the earlier %trainaudit cells are not part of the session


def test_plain_cell_that_never_compiled_drops_out(shell, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shell.run("x = (1,", ok=False)
    shell.run("x = (1, 2)")
    assert "NB001" not in review_rules(shell)
