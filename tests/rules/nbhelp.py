"""Build real .ipynb files with nbformat and scan them with the engine."""

from __future__ import annotations

from pathlib import Path

import nbformat

from jupyter_trainguard.engine import analyze_notebook
from jupyter_trainguard.findings import Report
from jupyter_trainguard.notebook.load import load_notebook


def write_notebook(path: Path, cells: list[str], counts: list[int | None] | None = None) -> Path:
    book = nbformat.v4.new_notebook()
    for i, src in enumerate(cells):
        cell = nbformat.v4.new_code_cell(src)
        cell.execution_count = counts[i] if counts is not None else i + 1
        book.cells.append(cell)
    nbformat.write(book, path)
    return path


def scan_cells(tmp_path: Path, cells: list[str], name: str = "nb.ipynb",
               counts: list[int | None] | None = None) -> Report:
    path = write_notebook(tmp_path / name, cells, counts)
    report, _, _ = analyze_notebook(load_notebook(path))
    errors = {k: v for k, v in report.skipped_rules.items() if "internal error" in v}
    assert not errors, errors
    return report


def ids(report: Report) -> set[str]:
    return {f.rule_id for f in report.findings}


def of(report: Report, rule_id: str) -> list:
    return [f for f in report.findings if f.rule_id == rule_id]
