"""Write changed cells back into jupytext `.py` notebooks: only the lines of the changed cells are replaced."""

from __future__ import annotations

from ..notebook.model import Notebook


def splice(text: str, nb: Notebook, new_sources: dict[int, str], inserts: list[tuple[int, str]]) -> str:
    """Replace each changed cell's lines (from `cell.file_line`) and add `# %%` cells after original cells."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.replace("\r\n", "\n").split("\n")
    ops: list[tuple[int, int, list[str]]] = []  # (start, end) 0-based line slice -> new lines
    for index, source in new_sources.items():
        cell = nb.cells[index]
        if cell.file_line is None:
            raise ValueError(f"cell {index + 1} has no file position")
        start = cell.file_line - 1
        end = start + cell.source.count("\n") + 1
        if "\n".join(lines[start:end]) != cell.source:
            raise ValueError(f"cell {index + 1} does not match the file's lines; nothing written")
        ops.append((start, end, source.split("\n")))
    for after, source in inserts:
        if after < 0:
            first = next((c for c in nb.cells if c.file_line is not None), None)
            at = (first.file_line - 1) if first else len(lines)
            at = _marker_above(lines, at)
            ops.append((at, at, ["# %%", *source.split("\n"), ""]))
        else:
            cell = nb.cells[after]
            end = cell.file_line - 1 + cell.source.count("\n") + 1
            ops.append((end, end, ["", "# %%", *source.split("\n")]))
    for start, end, new in sorted(ops, key=lambda o: (o[0], o[1]), reverse=True):
        lines[start:end] = new
    return newline.join(lines)


def _marker_above(lines: list[str], at: int) -> int:
    """The line of the `# %%` marker that opens the cell starting at `at`, so a new cell goes before it."""
    i = at - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    return i if i >= 0 and lines[i].lstrip().startswith("# %%") else at
