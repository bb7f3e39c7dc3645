"""Load any supported notebook source into the `Notebook` model, never raising on bad input."""

from __future__ import annotations

import os
from pathlib import Path

from .ipynb import decode, notebook_from_json
from .model import Cell, Notebook
from .pyscript import is_notebook_script, notebook_from_script

MAX_BYTES = 64 * 1024 * 1024
NOTEBOOK_SUFFIXES = (".ipynb", ".py")
SKIP_DIRS = frozenset({".git", ".ipynb_checkpoints", "__pycache__", "node_modules", ".venv", "venv", ".tox",
                       "site-packages", ".mypy_cache", ".ruff_cache", "build", "dist"})


def load_notebook(path: str | os.PathLike, max_bytes: int = MAX_BYTES) -> Notebook:
    """Read a `.ipynb`, jupytext `.py` or plain `.py` file. Problems become `Notebook.error`, never exceptions."""
    p = str(path)
    try:
        size = os.path.getsize(p)
        if size > max_bytes:
            limit = f"{max_bytes / 1e6:.0f} MB"
            return Notebook(path=p, error=f"file is {size / 1e6:.1f} MB, over the {limit} limit; skipped")
        with open(p, "rb") as fh:
            raw = fh.read()
    except IsADirectoryError:
        return Notebook(path=p, error="is a directory")
    except OSError as exc:
        return Notebook(path=p, error=f"cannot read file: {exc.strerror or exc}")
    return notebook_from_bytes(p, raw)


def notebook_from_bytes(path: str, raw: bytes) -> Notebook:
    warnings: list[str] = []
    if b"\x00" in raw[:8192] and not raw.lstrip().startswith(b"{"):
        return Notebook(path=path, error="binary file, not a notebook")
    text = decode(raw, warnings)
    if path.endswith(".ipynb") or (not path.endswith(".py") and text.lstrip().startswith("{")):
        return notebook_from_json(path, text, warnings)
    return notebook_from_script(path, text, warnings)


def notebook_from_sources(path: str, sources: list[str], execution_counts: list[int | None] | None = None) -> Notebook:
    """Build a notebook from code strings (the live session's history, tests)."""
    from .ipython_syntax import to_python

    nb = Notebook(path=path, format="session")
    for i, src in enumerate(sources):
        count = execution_counts[i] if execution_counts else None
        cell = Cell(index=i, cell_type="code", source=src, execution_count=count)
        cell.python, cell.line_map, cell.cell_magic = to_python(src)
        nb.cells.append(cell)
    return nb


def iter_notebook_paths(paths: list[str | os.PathLike], include_py: bool = True) -> tuple[list[Path], list[str]]:
    """Expand files and folders into notebook paths; returns (paths, errors for missing inputs).

    Files named explicitly are always taken; inside folders, `.ipynb` files are taken, and `.py` files only
    when they carry jupytext cell markers.
    """
    found: list[Path] = []
    errors: list[str] = []
    for entry in paths:
        p = Path(entry)
        if p.is_file():
            found.append(p)
        elif p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for name in sorted(files):
                    f = Path(root) / name
                    if name.endswith(".ipynb"):
                        found.append(f)
                    elif include_py and name.endswith(".py") and _looks_like_notebook(f):
                        found.append(f)
        else:
            errors.append(f"{p}: no such file or directory")
    seen: set[Path] = set()
    unique = []
    for f in found:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique, errors


def _looks_like_notebook(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(256 * 1024)
    except OSError:
        return False
    return is_notebook_script(head.decode("utf-8", errors="replace"))
