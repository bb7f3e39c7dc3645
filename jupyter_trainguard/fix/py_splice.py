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
        if not _same_lines(lines[start:end], cell.source.split("\n"), cell.file_line_map):
            raise ValueError(f"cell {index + 1} does not match the file's lines; nothing written")
        ops.append((start, end, [_as_file_line(x) for x in source.split("\n")]))
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


def _same_lines(file_lines: list[str], source_lines: list[str], line_map: list[int]) -> bool:
    """The file holds the cell's lines in one block: verbatim, or with IPython magics commented out as jupytext
    writes them (`# %matplotlib inline` for `%matplotlib inline`)."""
    if line_map and line_map != list(range(line_map[0], line_map[0] + len(line_map))):
        return False
    return len(file_lines) == len(source_lines) and all(
        f == s or f.lstrip().startswith("#") and _uncomment(f) == s.strip() for f, s in zip(file_lines, source_lines))


def _uncomment(line: str) -> str:
    return line.strip().lstrip("#").strip()


def _as_file_line(line: str) -> str:
    """A new cell line as jupytext stores it in a `.py` file: magics and shell escapes commented out."""
    body = line.lstrip()
    return f"{line[: len(line) - len(body)]}# {body}" if body[:1] in ("%", "!") else line


def _marker_above(lines: list[str], at: int) -> int:
    """The line of the `# %%` marker that opens the cell starting at `at`, so a new cell goes before it."""
    i = at - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    return i if i >= 0 and lines[i].lstrip().startswith("# %%") else at
