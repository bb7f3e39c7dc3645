"""Notebooks for the issue-15 static tests, written with nbformat (code strings, or ("md", text))."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


def write_nb(path: Path, cells: list) -> Path:
    nb = new_notebook()
    n = 0
    for c in cells:
        if isinstance(c, tuple) and c[0] == "md":
            nb.cells.append(new_markdown_cell(c[1]))
        else:
            n += 1
            nb.cells.append(new_code_cell(c, execution_count=n))
    nbformat.write(nb, str(path))
    return path


def rule_hits(path: Path, rule_id: str, **kw) -> list:
    from jupyter_trainguard.engine import analyze_path

    report = analyze_path(str(path), **kw)
    return [f for f in report.findings if f.rule_id == rule_id]
