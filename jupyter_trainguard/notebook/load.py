"""Load any supported notebook source into the `Notebook` model, never raising on bad input."""

from __future__ import annotations

import os
from pathlib import Path

from .ipynb import decode, notebook_from_json
from .model import Cell, Notebook

MAX_BYTES = 64 * 1024 * 1024
MARKDOWN_SUFFIXES = (".md", ".markdown", ".myst", ".mystnb", ".mnb", ".Rmd")  # jupytext's Markdown family
TEXT_SUFFIXES = (".py", *MARKDOWN_SUFFIXES)
NOTEBOOK_SUFFIXES = (".ipynb", *TEXT_SUFFIXES)
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
    if path.endswith(".ipynb") or (not path.endswith(TEXT_SUFFIXES) and text.lstrip().startswith("{")):
        return notebook_from_json(path, text, warnings)
    return notebook_from_text(path, text, warnings)


def notebook_from_text(path: str, text: str, warnings: list[str]) -> Notebook:
    """A text notebook: through jupytext when it is installed (every format it knows, exact file lines), else
    the own percent/light parser for `.py`. A plain script without cell markers is one code cell either way."""
    from .pyscript import is_notebook_script, notebook_from_script  # not needed to read .ipynb files

    markdown = path.endswith(MARKDOWN_SUFFIXES)
    if markdown or is_notebook_script(text):
        from .jupytext_read import read_text_notebook

        nb = read_text_notebook(path, text, warnings)
        if nb is not None:
            return nb
        if markdown:
            return Notebook(path=path, format=Path(path).suffix.lstrip("."), warnings=warnings,
                            error="reading Markdown notebooks needs jupytext (`pip install jupytext`)")
    return notebook_from_script(path, text, warnings)


def notebook_from_sources(path: str, sources: list[str], execution_counts: list[int | None] | None = None) -> Notebook:
    """Build a notebook from code strings (the live session's history, tests)."""
    from .ipython_syntax import to_python

    nb = Notebook(path=path, format="session")
    for i, src in enumerate(sources):
        count = execution_counts[i] if execution_counts else None
        cell = Cell(index=i, cell_type="code", source=src, execution_count=count,
                    label=None if count is None else f"[In {count}]")  # its place in a notebook is unknown
        cell.python, cell.line_map, cell.cell_magic = to_python(src)
        nb.cells.append(cell)
    return nb


def iter_notebook_paths(paths: list[str | os.PathLike], include_py: bool = True) -> tuple[list[Path], list[str]]:
    """Expand files and folders into notebook paths; returns (paths, errors for missing inputs).

    Files named explicitly are always taken; inside folders, `.ipynb` files are taken, `.py` files only when they
    carry jupytext cell markers, Markdown notebooks (jupytext/MyST header) only when jupytext is installed, and a
    text notebook paired with an `.ipynb` beside it is left to that `.ipynb` (the same cells, reported once).
    """
    found: list[Path] = []
    errors: list[str] = []
    markdown_ok: bool | None = None
    for entry in paths:
        p = Path(entry)
        if p.is_file():
            found.append(p)
        elif p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                names = set(files)
                for name in sorted(files):
                    f = Path(root) / name
                    if name.endswith(".ipynb"):
                        found.append(f)
                    elif not include_py or not name.endswith(TEXT_SUFFIXES):
                        continue
                    elif name.endswith(MARKDOWN_SUFFIXES):
                        if markdown_ok is None:
                            from .jupytext_read import available

                            markdown_ok = available()
                        if markdown_ok and _looks_like_notebook(f, names, markdown=True):
                            found.append(f)
                    elif _looks_like_notebook(f, names):
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


def _looks_like_notebook(path: Path, siblings: set[str], markdown: bool = False) -> bool:
    from .jupytext_read import declared_pair, looks_like_text_notebook
    from .pyscript import is_notebook_script

    try:
        with open(path, "rb") as fh:
            head = fh.read(256 * 1024).decode("utf-8", errors="replace")
    except OSError:
        return False
    if not (looks_like_text_notebook(head) if markdown else is_notebook_script(head)):
        return False
    return not (declared_pair(head) and path.with_suffix(".ipynb").name in siblings)
