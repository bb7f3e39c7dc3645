"""Read `.ipynb` files tolerantly: nbformat v4 directly, older versions upgraded through nbformat."""

from __future__ import annotations

import json
import warnings as pywarnings
from typing import Any

from .ipython_syntax import to_python
from .model import Cell, Notebook


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    if value is None:
        return ""
    return str(value)


_BOM = b"\xef\xbb\xbf"


def decode(raw: bytes, warnings: list[str]) -> str:
    """Decode bytes as UTF-8 (with or without BOM); undecodable bytes are replaced and reported. The BOM is cut
    here, as the "utf-8-sig" codec does (offsets count after it), so that codec's module is not imported."""
    body = raw[3:] if raw.startswith(_BOM) else raw
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        warnings.append(f"file is not valid UTF-8 (first bad byte at offset {exc.start}); bad bytes replaced")
        return body.decode("utf-8", errors="replace")


def notebook_from_json(path: str, text: str, warnings: list[str] | None = None) -> Notebook:
    warnings = list(warnings or [])
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return Notebook(path=path, error=f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                        warnings=warnings)
    except RecursionError:
        return Notebook(path=path, error="not valid JSON: nesting too deep", warnings=warnings)
    if not isinstance(data, dict):
        return Notebook(path=path, error="not a notebook: the top-level JSON value is not an object",
                        warnings=warnings)
    major = data.get("nbformat")
    minor = data.get("nbformat_minor", 0)
    if not isinstance(major, int):
        if "cells" not in data and "worksheets" not in data:
            return Notebook(path=path, error="not a notebook: no 'nbformat' version and no cells", warnings=warnings)
        warnings.append("no 'nbformat' version; read as version 4")
        major = 4
    if major < 4:
        try:
            import nbformat

            with pywarnings.catch_warnings():  # nbformat warns about (and repairs) duplicate ids on the way
                pywarnings.simplefilter("ignore")
                data = nbformat.convert(nbformat.from_dict(data), 4)
            warnings.append(f"upgraded from nbformat {major} to 4")
        except Exception as exc:  # nbformat rejects some broken v3 files
            return Notebook(path=path, error=f"could not upgrade nbformat {major} notebook: {exc}", warnings=warnings)
    elif major > 4:
        warnings.append(f"nbformat {major} is newer than this reader knows; read as version 4")
    raw_cells = data.get("cells")
    if not isinstance(raw_cells, list):
        return Notebook(path=path, error="not a notebook: 'cells' is missing or not a list", warnings=warnings)
    nb = Notebook(path=path, format="ipynb", nbformat=(int(major), int(minor) if isinstance(minor, int) else 0),
                  metadata=data.get("metadata") if isinstance(data.get("metadata"), dict) else {},
                  warnings=warnings)
    for i, raw in enumerate(raw_cells):
        if not isinstance(raw, dict):
            nb.warnings.append(f"cell {i + 1} is not an object; skipped")
            nb.cells.append(Cell(index=i, cell_type="raw", source=""))
            continue
        nb.cells.append(_cell(i, raw))
    return nb


def _cell(index: int, raw: dict) -> Cell:
    cell_type = raw.get("cell_type") if raw.get("cell_type") in ("code", "markdown", "raw") else "raw"
    source = _text(raw.get("source", "")).replace("\r\n", "\n").replace("\r", "\n")
    meta = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
    tags = meta.get("tags") if isinstance(meta.get("tags"), list) else []
    count = raw.get("execution_count")
    cell = Cell(
        index=index,
        cell_type=cell_type,
        source=source,
        execution_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
        cell_id=raw.get("id") if isinstance(raw.get("id"), str) else None,
        tags=tuple(str(t) for t in tags),
        outputs=raw.get("outputs") if isinstance(raw.get("outputs"), list) else [],
    )
    if cell_type == "code":
        cell.python, cell.line_map, cell.cell_magic = to_python(source)
    return cell
