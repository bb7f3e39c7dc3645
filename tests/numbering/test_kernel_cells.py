"""Runtime findings name the real notebook cell: a guarded cell run in a real ipykernel (nbclient), with
markdown cells before it, as JupyterLab runs it (cell ids in the requests, the notebook path in the env)."""

from __future__ import annotations

import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from jupyter_trainguard.display import RUN_MIME

from .kernel import run_like_lab
from .notebooks import IMPORTS, KERNELSPEC

pytest.importorskip("nbclient")
pytest.importorskip("sklearn")

DATA = (
    "np.random.seed(0)\nX = np.random.rand(80, 3)\ny = (X[:, 0] > 0.5).astype(int)\nscaler = StandardScaler()\n"
    "X_scaled = scaler.fit_transform(X)\n"
    "X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, random_state=0)"
)
GUARDED = (
    "%%guarded_train\nmodel = LogisticRegression().fit(X_train, y_train)\n"
    "score = model.score(X_test, y_test)\nraise ValueError('stop here')"
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def guarded_notebook(path):
    cells = [
        new_markdown_cell("# Guarded run"),
        new_code_cell("%load_ext trainguard\n" + IMPORTS),
        new_markdown_cell("## Data"),
        new_code_cell(DATA),
        new_markdown_cell("## Train"),
        new_code_cell("print('about to train')"),
        new_code_cell(GUARDED),
    ]
    for i, cell in enumerate(cells):
        cell.id = f"id-{i}"
    nbformat.write(new_notebook(cells=cells, metadata=KERNELSPEC), path)
    return path


def outputs_of(cell):
    run = [o["data"][RUN_MIME] for o in cell.outputs if RUN_MIME in o.get("data", {})]
    errors = [o for o in cell.outputs if o.output_type == "error"]
    return run[0], errors


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    path = guarded_notebook(tmp_path_factory.mktemp("kernel") / "guarded.ipynb")
    return run_like_lab(path)


def test_runtime_findings_carry_the_notebook_cell(ran):
    guarded = ran.cells[6]
    count = guarded.execution_count
    assert count == 4  # [In 1] imports, [In 2] data, [In 3] print, [In 4] the guarded cell
    payload, _ = outputs_of(guarded)
    assert payload["execution_count"] == count
    runtime = [f for f in payload["findings"] if f["source"] == "runtime"]
    assert runtime, payload["findings"]
    for f in runtime:  # about the guarded cell itself: cell 7, its id and its count
        loc = f["location"]
        assert (loc["cell_index"], loc["cell_id"], loc["execution_count"]) == (6, "id-6", count), f
    (leak,) = [f for f in payload["findings"] if f["rule_id"] == "LEAK001"]  # static, about the data cell
    assert (leak["location"]["cell_index"], leak["location"]["execution_count"]) == (3, 2)
    assert "cell 4 [In 2]" in leak["message"] and "[In [" not in leak["message"]
    text = next(o["data"]["text/plain"] for o in guarded.outputs if RUN_MIME in o.get("data", {}))
    assert f"LEAK001   {leak['message']}  (cell 4 [In 2], line {leak['location']['line']})" in text


def test_traceback_names_the_cell_as_ipython_does(ran):
    guarded = ran.cells[6]
    _, (error,) = outputs_of(guarded)
    assert error["ename"] == "ValueError"
    names = re.findall(r"Cell In\[(\d+)\]", ANSI.sub("", "\n".join(error["traceback"])))
    assert names and set(names) == {str(guarded.execution_count)}, names


def test_without_the_notebook_path_cells_are_named_by_count(tmp_path):
    path = guarded_notebook(tmp_path / "unknown.ipynb")
    nb = run_like_lab(path, session_name=False)
    payload, _ = outputs_of(nb.cells[6])
    (leak,) = [f for f in payload["findings"] if f["rule_id"] == "LEAK001"]
    assert "cell_index" not in leak["location"] and leak["location"]["execution_count"] == 2
    assert "[In 2]" in leak["message"] and "cell 4" not in leak["message"]
    runtime = [f for f in payload["findings"] if f["source"] == "runtime"]
    assert runtime and all("cell_index" not in f["location"] and f["location"]["execution_count"] == 4 for f in runtime)
