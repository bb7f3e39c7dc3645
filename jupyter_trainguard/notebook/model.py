"""Format-free notebook model: cells with their Python code and a line map back to the source."""

from __future__ import annotations

from ..findings import FACTORY, Record, factory


class Cell(Record):
    """One cell. `python` is the code the analysis sees (IPython syntax transformed), or None."""

    index: int
    cell_type: str  # "code" | "markdown" | "raw"
    source: str
    python: str | None = None
    line_map: list[int] = factory(list)  # python line (0-based idx) -> source line (1-based)
    execution_count: int | None = None
    file_line: int | None = None  # for text formats: file line of the cell's first source line
    file_line_map: list[int] = factory(list)  # text formats read by jupytext: source line -> file line
    cell_magic: str | None = None
    cell_id: str | None = None
    tags: tuple[str, ...] = ()
    outputs: list[dict] = factory(list)
    label: str | None = None  # how messages name the cell when `index` is not its place in a notebook (session)

    def __init__(self, index: int, cell_type: str, source: str, python: str | None = None,
                 line_map: list[int] = FACTORY, execution_count: int | None = None, file_line: int | None = None,
                 file_line_map: list[int] = FACTORY, cell_magic: str | None = None, cell_id: str | None = None,
                 tags: tuple[str, ...] = (), outputs: list[dict] = FACTORY, label: str | None = None) -> None:
        self.index = index
        self.cell_type = cell_type
        self.source = source
        self.python = python
        self.line_map = [] if line_map is FACTORY else line_map
        self.execution_count = execution_count
        self.file_line = file_line
        self.file_line_map = [] if file_line_map is FACTORY else file_line_map
        self.cell_magic = cell_magic
        self.cell_id = cell_id
        self.tags = tags
        self.outputs = [] if outputs is FACTORY else outputs
        self.label = label

    @property
    def is_code(self) -> bool:
        return self.cell_type == "code"

    def source_line(self, python_line: int) -> int:
        """Map a 1-based line of `python` to the 1-based line in the cell's source."""
        if not self.line_map:
            return python_line
        idx = min(max(python_line, 1), len(self.line_map)) - 1
        return self.line_map[idx]

    def file_line_of(self, source_line: int) -> int | None:
        if self.file_line_map and 1 <= source_line <= len(self.file_line_map):
            return self.file_line_map[source_line - 1]
        if self.file_line is None:
            return None
        return self.file_line + source_line - 1


class Notebook(Record):
    """A notebook read from any format, or the live session's history."""

    path: str
    cells: list[Cell] = factory(list)
    format: str = "ipynb"  # "ipynb" | "py:percent" | "py:light" | "py" | "md:myst" (any jupytext one) | "session"
    nbformat: tuple[int, int] | None = None
    metadata: dict = factory(dict)
    warnings: list[str] = factory(list)
    error: str | None = None  # the notebook could not be read at all

    def __init__(self, path: str, cells: list[Cell] = FACTORY, format: str = "ipynb",
                 nbformat: tuple[int, int] | None = None, metadata: dict = FACTORY, warnings: list[str] = FACTORY,
                 error: str | None = None) -> None:
        self.path = path
        self.cells = [] if cells is FACTORY else cells
        self.format = format
        self.nbformat = nbformat
        self.metadata = {} if metadata is FACTORY else metadata
        self.warnings = [] if warnings is FACTORY else warnings
        self.error = error

    @property
    def code_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.is_code]

    def execution_order(self) -> list[Cell]:
        """Code cells in the order they ran: by execution count when every non-empty code cell has a
        distinct one, document order otherwise."""
        cells = [c for c in self.code_cells if c.source.strip()]
        counts = [c.execution_count for c in cells]
        if cells and all(isinstance(n, int) for n in counts) and len(set(counts)) == len(counts):
            return sorted(cells, key=lambda c: c.execution_count or 0)
        return cells

    def order_differs(self) -> bool:
        """`execution_order()` is not the document order: every non-empty code cell has a distinct execution count
        and the counts do not increase from top to bottom."""
        counts = [c.execution_count for c in self.code_cells if c.source.strip()]
        if not counts or not all(isinstance(n, int) for n in counts) or len(set(counts)) != len(counts):
            return False
        return counts != sorted(counts)  # type: ignore[type-var]
