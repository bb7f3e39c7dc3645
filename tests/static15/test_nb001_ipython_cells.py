"""Issue 15, NB001: cells that run in Jupyter parse (IPython dedents a first indented line, runs a one-line
`pip install x` as the `%pip` magic); real syntax errors stay NB001. A real kernel is the oracle: NB001 must fire
exactly on the cells that raise SyntaxError when the notebook is executed."""

from __future__ import annotations

import nbformat
import pytest

from .nbmake import rule_hits, write_nb

RUNS_IN_JUPYTER = [
    " import math\n x = math.sqrt(4)\n if x:\n     y = x + 1",  # pasted with one leading space
    "\n  z = 3\n  w = z * 2",  # a blank first line, then indented
    "pip --version",  # automagic %pip (runs `python -m pip --version`)
    "pwd",
    "cd .",
    "who",
    "env HOME",
    "load_ext trainguard",
    "time total = sum(range(10))",
]
STATIC_ONLY = [  # would need the network or conda to run, but IPython reads them as magics too
    "pip install scikit-learn",
    "conda install -y numpy",
    "matplotlib inline",
]
REAL_ERRORS = [
    "print 'accuracy', 0.9",
    "pip install scikit-learn\nimport sklearn",  # IPython does not prefilter multi-line cells
    "def f(:\n    pass",
    "x = 1\n  y = 2",  # only the first line's indent is removed
]


def test_ipython_cells_parse_and_real_errors_stay(tmp_path):
    cells = RUNS_IN_JUPYTER + STATIC_ONLY + REAL_ERRORS
    path = write_nb(tmp_path / "nb.ipynb", cells)
    hits = {f.location.cell for f in rule_hits(path, "NB001")}
    first_error = len(RUNS_IN_JUPYTER) + len(STATIC_ONLY)
    assert hits == set(range(first_error, len(cells)))


def test_nb001_matches_what_a_real_kernel_rejects(tmp_path):
    nbclient = pytest.importorskip("nbclient")
    cells = RUNS_IN_JUPYTER + REAL_ERRORS
    path = write_nb(tmp_path / "nb.ipynb", cells)
    nb = nbformat.read(str(path), as_version=4)
    nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    kernel_rejects = {
        i
        for i, c in enumerate(nb.cells)
        if any(
            o.get("output_type") == "error" and o.get("ename") in ("SyntaxError", "IndentationError")
            for o in c.get("outputs", [])
        )
    }
    other_errors = [
        (i, o.get("ename"))
        for i, c in enumerate(nb.cells)
        for o in c.get("outputs", [])
        if o.get("output_type") == "error" and i not in kernel_rejects
    ]
    assert not other_errors  # every cell meant to run did run
    assert kernel_rejects == set(range(len(RUNS_IN_JUPYTER), len(cells)))
    nbformat.write(nb, str(path))
    assert {f.location.cell for f in rule_hits(path, "NB001")} == kernel_rejects


def test_automagic_line_maps_to_its_own_line(tmp_path):
    path = write_nb(tmp_path / "nb.ipynb", ["\n\n  x = 1\n  y = (", "\npip install x"])
    hits = rule_hits(path, "NB001")
    assert [(f.location.cell, f.location.line) for f in hits] == [(0, 4)]
