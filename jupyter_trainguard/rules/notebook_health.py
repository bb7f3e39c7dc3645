"""NB rules: the notebook could not be (fully) read, parsed, or ran out of order."""

from __future__ import annotations

from collections.abc import Iterator

from .context import NotebookContext
from .registry import Hit, rule


@rule(
    id="NB001", name="cell-syntax-error", category="notebook", severity="error",
    rationale="A cell that does not parse cannot run, and nothing in it could be checked.",
    impact="The cell cannot run. Python 2 code is analysed as its Python 3 equivalent and the statements around a "
           "broken one as if it were fixed; what does not parse is not analysed and problems in it stay hidden.",
    fix="Fix the syntax error (a Python 2 cell: `print(...)`, `except E as e:`).",
    bad="print 'accuracy', acc", good="print('accuracy', acc)",
)
def cell_syntax_error(ctx: NotebookContext) -> Iterator[Hit]:
    """Reports each code cell that fails to parse; the other cells are still analysed, and so is a cell that only
    Python 2 syntax stops (read as its Python 3 equivalent) and the statements of a cell around a broken one."""
    for pc in ctx.parsed.cells:
        err = pc.syntax_error or pc.python2 or (pc.salvaged[0] if pc.salvaged else None)
        if err is None:
            continue
        note = ""
        if pc.python2:
            note = " The cell is Python 2: it was analysed as its Python 3 equivalent."
        elif pc.salvaged:
            spans = ", ".join(f"line {a}" if a == b else f"lines {a}-{b}" for a, b in pc.salvaged[1])
            note = f" The rest of the cell was analysed without the statement it stops ({spans})."
        yield Hit(pc.cell, err.lineno or 1, f"Syntax error: {err.msg}{note}",
                  evidence={"offset": err.offset, "python2": pc.python2 is not None,
                            "skipped_lines": [list(s) for s in pc.salvaged[1]] if pc.salvaged else []})


@rule(
    id="NB002", name="unreadable-notebook", category="notebook", severity="error",
    rationale="A notebook that cannot be read cannot be checked at all.",
    impact="Nothing in this file was analysed.",
    fix="Repair the file (valid JSON nbformat, UTF-8) or exclude it from the scan.",
    bad='{"cells": [ ...truncated', good='{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
)
def unreadable_notebook(ctx: NotebookContext) -> Iterator[Hit]:
    """Produced by the engine when a file cannot be read; also reports reader warnings (bad bytes)."""
    for w in ctx.notebook.warnings:
        if "not valid UTF-8" in w:
            yield Hit(None, None, f"Notebook read with problems: {w}", severity="warning")


@rule(
    id="NB003", name="out-of-order-execution", category="reproducibility.order", severity="warning",
    rationale="Saved outputs came from an execution order that 'Run All' will not repeat.",
    impact="Reported metrics may depend on hidden state and not reproduce on a clean run.",
    fix="Restart the kernel and run all cells top to bottom before reporting results.",
    bad="[3] model.fit(X, y)\n[1] X = load()", good="[1] X = load()\n[2] model.fit(X, y)",
)
def out_of_order(ctx: NotebookContext) -> Iterator[Hit]:
    """Flags notebooks whose execution counts are not increasing in document order."""
    nb = ctx.notebook
    if not nb.order_differs():
        return
    cells = [c for c in nb.code_cells if c.source.strip() and c.execution_count is not None]
    for prev, cur in zip(cells, cells[1:]):
        if cur.execution_count < prev.execution_count:  # type: ignore[operator]
            yield Hit(cur, 1, f"Cell ran as [{cur.execution_count}] after a later-placed cell ran as "
                              f"[{prev.execution_count}]: the saved results came from a non-linear order.",
                      evidence={"execution_counts": [c.execution_count for c in cells]})
            return
