"""The notebook being fixed: cells whose sources change as fixers run, with a map back to the original lines."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..findings import cell_label
from ..notebook.model import Cell, Notebook


@dataclass(frozen=True)
class TextEdit:
    """Replace the text from (line, col) to (end_line, end_col) of a cell's source; lines 1-based, cols 0-based."""

    line: int
    col: int
    end_line: int
    end_col: int
    text: str

    @classmethod
    def insert(cls, line: int, col: int, text: str) -> TextEdit:
        return cls(line, col, line, col, text)


@dataclass
class WorkCell:
    """One cell of the notebook being fixed. `orig` is None for a cell the fixers inserted."""

    cell_type: str
    source: str
    orig: Cell | None = None
    origin: list[int | None] = field(default_factory=list)  # current line (0-based) -> original line or None
    inserted_after: int | None = None  # original index of the cell an inserted cell follows (-1: at the top)
    anchor: Cell | None = None  # the original cell an inserted cell follows (None: at the top), for its label

    @classmethod
    def from_cell(cls, cell: Cell) -> WorkCell:
        return cls(cell.cell_type, cell.source, cell, list(range(1, cell.source.count("\n") + 2)))

    @property
    def changed(self) -> bool:
        return self.orig is None or self.source != self.orig.source

    @property
    def is_code(self) -> bool:
        return self.cell_type == "code"

    def label(self) -> str:
        """How fix output names this cell: the findings label ("cell 4 [In 2]"), or "new cell after <label>"."""
        if self.orig is not None:
            return cell_label(self.orig.index, self.orig.execution_count)
        if self.anchor is not None:
            return f"new cell after {cell_label(self.anchor.index, self.anchor.execution_count)}"
        where = self.inserted_after
        return "new cell at the top" if where is None or where < 0 else f"new cell after {cell_label(where)}"

    def original_lines(self, start: int, end: int) -> set[int]:
        return {o for o in self.origin[max(start - 1, 0): end] if o is not None}

    def original_line(self, line: int) -> int | None:
        return self.origin[line - 1] if 0 < line <= len(self.origin) else None

    def apply(self, edits: list[TextEdit]) -> None:
        """Apply non-overlapping edits (positions refer to the current source) and update the line map."""
        lines = self.source.split("\n")
        starts = [0]
        for ln in lines:
            starts.append(starts[-1] + len(ln) + 1)

        def offset(line: int, col: int) -> int:
            return starts[line - 1] + col

        ordered = sorted(edits, key=lambda e: (e.line, e.col, e.end_line, e.end_col), reverse=True)
        for a, b in zip(ordered, ordered[1:]):
            if offset(b.end_line, b.end_col) > offset(a.line, a.col):
                raise ValueError("overlapping edits")
        text = self.source
        origin = list(self.origin)
        for e in ordered:
            lo, hi = offset(e.line, e.col), offset(e.end_line, e.end_col)
            text = text[:lo] + e.text + text[hi:]
            new_nl = e.text.count("\n")
            keep = origin[e.line - 1] if e.line - 1 < len(origin) else None
            if e.col == 0 and lo == hi and e.text.endswith("\n"):
                mapped = [None] * new_nl + [keep]
            else:
                mapped = [keep] + [None] * new_nl
            origin[e.line - 1: e.end_line] = mapped
        self.source = text
        self.origin = origin


@dataclass
class WorkNotebook:
    notebook: Notebook
    cells: list[WorkCell] = field(default_factory=list)

    @classmethod
    def from_notebook(cls, nb: Notebook) -> WorkNotebook:
        return cls(nb, [WorkCell.from_cell(c) for c in nb.cells])

    @property
    def path(self) -> str:
        return self.notebook.path

    @property
    def can_insert_cells(self) -> bool:
        return self.notebook.format in ("ipynb", "py:percent")

    def code_cells(self) -> list[WorkCell]:
        return [c for c in self.cells if c.is_code]

    def insert_after(self, after: WorkCell | None, source: str) -> WorkCell:
        """Insert a new code cell after `after` (None: at the top)."""
        pos = 0 if after is None else self.cells.index(after) + 1
        anchor = -1 if after is None else (after.orig.index if after.orig is not None else after.inserted_after)
        anchor_cell = None if after is None else (after.orig if after.orig is not None else after.anchor)
        new = WorkCell("code", source, None, [None] * (source.count("\n") + 1), inserted_after=anchor,
                       anchor=anchor_cell)
        self.cells.insert(pos, new)
        return new

    def before(self, a: WorkCell, a_line: int, b: WorkCell, b_line: int) -> bool:
        """Is (a, a_line) strictly before (b, b_line) in document order?"""
        ia, ib = self.cells.index(a), self.cells.index(b)
        return ia < ib or (ia == ib and a_line < b_line)
