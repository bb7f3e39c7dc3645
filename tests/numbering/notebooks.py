"""Notebooks for the numbering tests: markdown cells between code cells, execution counts that differ from
the cell positions, nbformat 4.5 cell ids."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

KERNELSPEC = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}

IMPORTS = (
    "import numpy as np\nfrom sklearn.preprocessing import StandardScaler\n"
    "from sklearn.model_selection import train_test_split\nfrom sklearn.linear_model import LogisticRegression"
)
DATA = "np.random.seed(0)\nX = np.random.rand(80, 3)\ny = (X[:, 0] > 0.5).astype(int)"
LEAK = (
    "X_scaled = StandardScaler().fit_transform(X)\n"
    "X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, random_state=0)"
)
FIT = "model = LogisticRegression().fit(X_train, y_train)\nprint('test accuracy', model.score(X_test, y_test))"


def leaky_notebook(path: Path, counts: bool = True) -> Path:
    """# title | imports [In 1] | md | data [In 2] | md | leak (cell 6) [In 3] | fit (cell 7) [In 4]."""
    cells = [
        new_markdown_cell("# Churn model"),
        new_code_cell(IMPORTS),
        new_markdown_cell("## Data"),
        new_code_cell(DATA),
        new_markdown_cell("## Scale and split"),
        new_code_cell(LEAK),
        new_code_cell(FIT),
    ]
    if counts:
        for n, cell in enumerate(c for c in cells if c.cell_type == "code"):
            cell.execution_count = n + 1
    for i, cell in enumerate(cells):
        cell.id = f"cell-{i}"
    nb = new_notebook(cells=cells, metadata=KERNELSPEC)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def lab_notebook(path: Path, cells: list) -> Path:
    """A notebook of code strings (or ("md", text)), with nbformat 4.5 cell ids as JupyterLab writes them."""
    nb_cells = [new_markdown_cell(c[1]) if isinstance(c, tuple) else new_code_cell(c) for c in cells]
    for i, cell in enumerate(nb_cells):
        cell.id = f"id-{i}"
    nbformat.write(new_notebook(cells=nb_cells, metadata=KERNELSPEC), path)
    return path


def stdout_of(cell) -> str:
    """What an executed cell printed."""
    return "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
