"""Which notebook cell a live-session cell is, so runtime findings name cells as a scan of the file does.

The frontend sends each cell's nbformat id with its execute request (`metadata.cellId`; IPython hands it to
`pre_run_cell` hooks as `info.cell_id`). With the notebook's path (`__session__`, set by ipykernel from
JupyterLab's `JPY_SESSION_NAME`, or VS Code's `__vsc_ipynb_file__`) the id gives the cell's place in the saved
notebook. A cell not found there (path unknown, notebook not saved since the cell was added) is named by its
execution count alone: "[In k]".
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .findings import Finding, Location, Report, cell_label

SESSION_PATH = "<session>"
_IDS: weakref.WeakKeyDictionary[Any, dict[int, str]] = weakref.WeakKeyDictionary()
_HOOKS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def watch(shell: Any) -> None:
    """Record the cell id of every cell the shell runs from now on (execution count -> id)."""
    if shell is None or shell in _HOOKS:
        return
    ids = _IDS.setdefault(shell, {})
    ref = weakref.ref(shell)

    def record(info: Any = None) -> None:
        sh = ref()
        cell_id = getattr(info, "cell_id", None)
        if sh is not None and cell_id and getattr(info, "store_history", False) and not getattr(info, "silent", 0):
            ids[len(_history(sh))] = str(cell_id)  # the cell is stored right after this hook, at this index

    try:
        shell.events.register("pre_run_cell", record)
    except Exception:  # noqa: BLE001 - a shell without events: the kernel's parent header still names the cell
        return
    _HOOKS[shell] = record


def unwatch(shell: Any) -> None:
    hook = _HOOKS.pop(shell, None)
    if hook is not None:
        try:
            shell.events.unregister("pre_run_cell", hook)
        except ValueError:
            pass


def _history(shell: Any) -> list[str]:
    return list(getattr(getattr(shell, "history_manager", None), "input_hist_raw", None) or [])


def current_count(shell: Any, cell: str | None = None) -> int | None:
    """The execution count of the cell now running (the `k` of `In [k]`), None when it is not in the history.

    Read from the input history: IPython 8 moves `execution_count` on after a cell, IPython 9 before it runs.
    """
    raw = _history(shell)
    if len(raw) > 1 and (cell is None or cell.strip() in raw[-1]):
        return len(raw) - 1
    return None


def current_cell_id(shell: Any) -> str | None:
    """The id of the cell being executed, from the kernel's current execute request (ipykernel >= 6)."""
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return None
    try:
        parent = kernel.get_parent("shell")
    except TypeError:  # older kernels: no channel argument
        parent = kernel.get_parent()
    except Exception:  # noqa: BLE001
        return None
    meta = parent.get("metadata") if isinstance(parent, dict) else None
    cell_id = meta.get("cellId") if isinstance(meta, dict) else None
    return str(cell_id) if cell_id else None


def notebook_path(shell: Any) -> str | None:
    """The notebook file this kernel runs, when the frontend told it."""
    ns = getattr(shell, "user_ns", None) or {}
    for value in (ns.get("__session__"), ns.get("__vsc_ipynb_file__"), os.environ.get("JPY_SESSION_NAME")):
        if isinstance(value, str) and value.endswith(".ipynb") and Path(value).is_file():
            return value
    return None


@dataclass
class SessionCells:
    """Per session cell (history position): its execution count and, when found, its notebook index and id."""

    counts: list[int | None]
    places: list[tuple[int | None, str | None]] = field(default_factory=list)
    path: str | None = None

    def label(self, pos: int) -> str:
        index = self.places[pos][0] if 0 <= pos < len(self.places) else None
        count = self.counts[pos] if 0 <= pos < len(self.counts) else None
        return cell_label(index, count)

    def location(self, pos: int, base: Location | None = None) -> Location:
        """`base` (a location in session positions) moved onto the notebook cell of position `pos`."""
        index, cell_id = self.places[pos] if 0 <= pos < len(self.places) else (None, None)
        count = self.counts[pos] if 0 <= pos < len(self.counts) else None
        base = base or Location(path=SESSION_PATH)
        path = self.path if index is not None and self.path else base.path  # found: a cell of that notebook
        return replace(base, path=path, cell=index, cell_id=cell_id, execution_count=count)

    def label_cells(self, cells: list[Any]) -> None:
        """Give the analysed session cells the labels finding messages print ("cell 5 [In 3]" or "[In 3]")."""
        for pos, cell in enumerate(cells):
            text = self.label(pos)
            if text:
                cell.label = text

    def relocate(self, finding: Finding) -> Finding:
        loc = finding.location
        if loc.path != SESSION_PATH or loc.cell is None:
            return finding
        return replace(finding, location=self.location(loc.cell, loc))

    def relocate_report(self, report: Report) -> None:
        report.findings = [self.relocate(f) for f in report.findings]
        for s in report.suppressed:
            s.finding = self.relocate(s.finding)


def locate(shell: Any, sources: list[str], counts: list[int | None]) -> SessionCells:
    """Find each executed cell in the saved notebook: by cell id, else by execution count with the same source."""
    ids = dict(_IDS.get(shell, {})) if shell is not None else {}
    current = current_cell_id(shell)
    if current and counts and counts[-1] is not None:
        ids[counts[-1]] = current
    out = SessionCells(counts=list(counts), path=notebook_path(shell))
    nb_cells = _notebook_cells(out.path)
    by_id = {c.cell_id: c.index for c in nb_cells if c.cell_id}
    by_count = {c.execution_count: c for c in nb_cells if c.is_code and c.execution_count is not None}
    for pos, count in enumerate(counts):
        cell_id = ids.get(count) if count is not None else None
        index = by_id.get(cell_id) if cell_id else None
        if (
            index is None
            and count is not None
            and count in by_count
            and pos < len(sources)
            and by_count[count].source.strip() == sources[pos].strip()
        ):
            index, cell_id = by_count[count].index, cell_id or by_count[count].cell_id
        out.places.append((index, cell_id))
    return out


_SAVED: dict[str, tuple[tuple[int, int], list[Any]]] = {}


def _notebook_cells(path: str | None) -> list[Any]:
    """The saved notebook's cells, read again only when the file changed (size or modification time): a notebook
    with outputs takes milliseconds to tens of milliseconds to parse, and every guarded cell asks."""
    if not path:
        return []
    try:
        st = os.stat(path)
    except OSError:
        return []
    stamp = (st.st_mtime_ns, st.st_size)
    kept = _SAVED.get(path)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    from .notebook.load import load_notebook

    nb = load_notebook(path)
    cells = [] if nb.error else nb.cells
    if len(_SAVED) >= 8:
        _SAVED.clear()
    _SAVED[path] = (stamp, cells)
    return cells
