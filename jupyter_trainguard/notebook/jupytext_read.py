"""Read text notebooks (percent, light, MyST, Markdown, ... and their paired `.ipynb`) through jupytext when it is
installed, mapping every cell line back to its line in the file.

jupytext is imported only here, and only when a text notebook is read: scanning `.ipynb` files never imports it.
Without jupytext, `.py` notebooks fall back to the own percent/light parser (`pyscript.py`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .ipython_syntax import to_python
from .model import Cell, Notebook

MARKDOWN_SUFFIXES = (".md", ".markdown", ".myst", ".mystnb", ".mnb", ".Rmd")
_FORMATS_LINE = re.compile(r"formats:\s*([^\n]+)")
_LOOKAHEAD = 12  # file lines searched for a cell's next non-blank line (cell markers, options, blank lines)


def jupytext_module() -> Any | None:
    """The jupytext module, or None when it is not installed (or cannot be imported)."""
    try:
        import jupytext
    except Exception:  # noqa: BLE001 - a broken install reads like an absent one: the fallback parser is used
        return None
    return jupytext


def available() -> bool:
    """Is jupytext importable? Checked without importing it (folder walks call this)."""
    import importlib.util

    try:
        return importlib.util.find_spec("jupytext") is not None
    except (ImportError, ValueError):  # ValueError: a module blocked with sys.modules[name] = None
        return False


def read_text_notebook(path: str, text: str, warnings: list[str]) -> Notebook | None:
    """The notebook as jupytext reads it, with exact file lines; None when jupytext is not available."""
    jupytext = jupytext_module()
    if jupytext is None:
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    ext = Path(path).suffix or ".py"
    try:
        fmt_name, _ = jupytext.formats.guess_format(text, ext)
        nb = jupytext.reads(text, fmt={"extension": ext, "format_name": fmt_name})
    except Exception as exc:  # noqa: BLE001 - jupytext rejects some broken files: say so, never crash
        return Notebook(
            path=path, format=ext.lstrip("."), error=f"jupytext could not read it: {exc}", warnings=list(warnings)
        )
    fmt = "py:" + fmt_name if ext == ".py" else f"{ext.lstrip('.')}:{fmt_name}"
    out = Notebook(path=path, format=fmt, metadata=dict(nb.metadata), warnings=list(warnings))
    lines = text.split("\n")
    cursor = 0
    for i, raw in enumerate(nb.cells):
        kind = raw.cell_type if raw.cell_type in ("code", "markdown", "raw") else "raw"
        source = raw.source
        line_map, cursor = map_lines(source, lines, cursor, kind == "markdown")
        cell = Cell(
            index=i,
            cell_type=kind,
            source=source,
            file_line=line_map[0] if line_map else None,
            file_line_map=line_map,
            cell_id=raw.get("id") if isinstance(raw.get("id"), str) else None,
            tags=tuple(str(t) for t in raw.metadata.get("tags", []) if isinstance(t, str)),
        )
        if kind == "code":
            cell.python, cell.line_map, cell.cell_magic = to_python(source)
        out.cells.append(cell)
    _merge_paired_outputs(out)
    return out


def _norm(line: str, markdown: bool) -> str:
    """A line as compared with the file: stripped, and without a leading comment marker (jupytext comments out
    magics and markdown in `.py` files)."""
    s = line.strip()
    return s.lstrip("#").strip() if (markdown or s.startswith("#")) else s


def map_lines(source: str, lines: list[str], cursor: int, markdown: bool = False) -> tuple[list[int], int]:
    """(1-based file line of each line of `source`, the cursor after the cell): each line is matched in order,
    from `cursor` on; a line that cannot be found keeps the place after the previous one."""
    out: list[int] = []
    first = True
    for src_line in source.split("\n"):
        want = _norm(src_line, markdown)
        stop = len(lines) if first else min(len(lines), cursor + _LOOKAHEAD)
        hit = next((j for j in range(cursor, stop) if _norm(lines[j], markdown) == want), None)
        if hit is None or (not want and not first and hit != cursor):
            hit = min(cursor, len(lines) - 1) if lines else 0
        out.append(hit + 1)
        cursor = hit + 1
        first = False
    return out, cursor


def paired_ipynb(nb: Notebook) -> Path | None:
    """The `.ipynb` a text notebook is paired with (jupytext `formats` metadata), when it exists."""
    formats = (nb.metadata.get("jupytext") or {}).get("formats")
    if not isinstance(formats, str) or "ipynb" not in formats:
        return None
    candidate = Path(nb.path).with_suffix(".ipynb")
    return candidate if candidate.is_file() else None


def _merge_paired_outputs(nb: Notebook) -> None:
    """Execution counts, outputs and cell ids from the paired `.ipynb`, when its code cells are the same."""
    twin = paired_ipynb(nb)
    if twin is None:
        return
    try:
        data = json.loads(twin.read_text(encoding="utf-8"))
        raw_code = [c for c in data.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"]
    except (OSError, ValueError, AttributeError):
        return
    code = nb.code_cells
    text = [
        "".join(c.get("source", "")) if isinstance(c.get("source"), list) else str(c.get("source", ""))
        for c in raw_code
    ]
    if len(raw_code) != len(code) or any(a.strip() != c.source.strip() for a, c in zip(text, code)):
        nb.warnings.append(f"paired {twin.name} differs from this file; its outputs were not used")
        return
    for cell, raw in zip(code, raw_code):
        count = raw.get("execution_count")
        cell.execution_count = count if isinstance(count, int) and not isinstance(count, bool) else None
        cell.outputs = raw.get("outputs") if isinstance(raw.get("outputs"), list) else []
        if isinstance(raw.get("id"), str):
            cell.cell_id = raw["id"]


def declared_pair(text: str) -> bool:
    """Does a text notebook's header pair it with an `.ipynb` (`formats: ipynb,py:percent`)?"""
    m = _FORMATS_LINE.search(text[:4000])
    return bool(m) and "ipynb" in m.group(1)


def looks_like_text_notebook(head: str) -> bool:
    """A Markdown-family file is a notebook when jupytext's header or MyST code cells say so."""
    front = head[:4000]
    return "jupytext" in front or "kernelspec" in front or "```{code-cell}" in head
