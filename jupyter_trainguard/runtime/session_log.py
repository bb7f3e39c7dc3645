"""What the kernel really holds: the executed cells the guard analyses, minus the ones that never took effect.

IPython's input history keeps every submission. Two kinds of entries are not part of the kernel's state:

- a cell that did not run: it failed to compile (a SyntaxError, in a plain cell or in the body of a guarded one)
  or `--strict` refused it; nothing of it executed, so it cannot define, fit or leak anything;
- an earlier version of a re-run cell: when the frontend sends cell ids (`info.cell_id`, ipykernel >= 6 with
  JupyterLab/Notebook 7/VS Code), the latest execution of a cell id replaces the earlier ones.

Without cell ids a corrected resubmission cannot be told from a new cell, but the failed version it corrects never
ran and so drops out by the first rule. Cells run before the extension was loaded are kept as they are.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SessionLog:
    """Per history index: the cell id the frontend sent, and whether the cell did not run."""

    ids: dict[int, str] = field(default_factory=dict)
    not_run: set[int] = field(default_factory=set)

    def keep(self, counts: list[int | None]) -> list[int]:
        """Positions of `counts` (history indices; None for the guarded cell when unknown) the kernel holds."""
        last_of: dict[str, int] = {}
        for pos, count in enumerate(counts):
            cell_id = self.ids.get(count) if count is not None else None
            if cell_id is not None:
                last_of[cell_id] = pos
        out = []
        for pos, count in enumerate(counts):
            if pos == len(counts) - 1:
                out.append(pos)  # the cell being guarded now
                continue
            if count is not None and count in self.not_run:
                continue
            cell_id = self.ids.get(count) if count is not None else None
            if cell_id is not None and last_of[cell_id] != pos:
                continue  # replaced by a later run of the same cell
            out.append(pos)
        return out


_LOGS: weakref.WeakKeyDictionary[Any, SessionLog] = weakref.WeakKeyDictionary()
_HOOKS: weakref.WeakKeyDictionary[Any, tuple[Any, Any]] = weakref.WeakKeyDictionary()


def log_for(shell: Any) -> SessionLog | None:
    try:
        return _LOGS.get(shell)
    except TypeError:
        return None


def _history_len(shell: Any) -> int:
    return len(getattr(getattr(shell, "history_manager", None), "input_hist_raw", None) or [])


def watch(shell: Any) -> None:
    """Follow every cell the shell runs from now on (its cell id, and whether it ran)."""
    if shell is None or shell in _HOOKS:
        return
    log = _LOGS.setdefault(shell, SessionLog())
    ref = weakref.ref(shell)

    def pre(info: Any = None) -> None:
        sh = ref()
        cell_id = getattr(info, "cell_id", None)
        if sh is not None and cell_id and getattr(info, "store_history", False):
            log.ids[_history_len(sh)] = str(cell_id)  # stored at this index right after the hook

    def post(result: Any = None) -> None:
        count = getattr(result, "execution_count", None)
        if count is not None and getattr(result, "error_before_exec", None) is not None:
            log.not_run.add(int(count))

    try:
        shell.events.register("pre_run_cell", pre)
        shell.events.register("post_run_cell", post)
    except Exception:  # noqa: BLE001 - a shell without events: the whole history is analysed
        return
    _HOOKS[shell] = (pre, post)


def unwatch(shell: Any) -> None:
    hooks = _HOOKS.pop(shell, None)
    if hooks is None:
        return
    for event, hook in zip(("pre_run_cell", "post_run_cell"), hooks):
        try:
            shell.events.unregister(event, hook)
        except ValueError:
            pass


def mark_not_run(shell: Any, count: int | None) -> None:
    """The guarded cell at history index `count` did not run (its body did not compile, or it was refused)."""
    log = log_for(shell)
    if log is not None and count is not None:
        log.not_run.add(int(count))
