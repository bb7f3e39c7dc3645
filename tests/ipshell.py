"""A real IPython InteractiveShell with trainguard loaded, for the magic tests (guard, audit, robustness)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from IPython.core.interactiveshell import ExecutionInfo, InteractiveShell
from traitlets.config import Config


class Shell:
    """Thin helper around the shell: `run(src)` executes a cell exactly as a notebook would (stored history)."""

    def __init__(self, ip: InteractiveShell) -> None:
        self.ip = ip

    def run(self, src: str, ok: bool = True):
        result = self.ip.run_cell(src, store_history=True)
        if ok and not result.success:
            raise AssertionError(f"cell failed: {result.error_before_exec or result.error_in_exec!r}")
        return result

    @property
    def ns(self) -> dict:
        return self.ip.user_ns


@contextmanager
def loaded_shell(cls: type[Shell] = Shell) -> Iterator[Shell]:
    """The singleton shell (so `display()` routes to it), history in memory only, trainguard loaded and unloaded."""
    InteractiveShell.clear_instance()
    cfg = Config()
    cfg.HistoryAccessor.enabled = False
    ip = InteractiveShell.instance(config=cfg)
    sh = cls(ip)
    sh.run("%load_ext trainguard")
    try:
        yield sh
    finally:
        ip.run_line_magic("unload_ext", "trainguard")
        close_widgets()
        InteractiveShell.clear_instance()
        release(ip)


def release(ip: InteractiveShell) -> None:
    """Let a finished test shell go: IPython registers every shell's `atexit_operations`, which keeps the shell and
    its namespace alive to the end of the session and then runs a full garbage collection per shell at exit
    (minutes for a whole test run). The test shells make no temporary files and keep no history file."""
    import atexit

    atexit.unregister(ip.atexit_operations)
    ip.user_ns.clear()


def close_widgets() -> None:
    """Close the widgets a test made while their comms are still registered: left to the garbage collector they
    close at interpreter exit, against a comm manager that no longer knows them (KeyError tracebacks)."""
    module = sys.modules.get("ipywidgets.widgets.widget")
    if module is None:
        return
    for widget in list(getattr(module, "_instances", {}).values()):
        try:
            widget.close()
        except Exception:  # noqa: BLE001 - a comm already gone: forget it so __del__ does not retry
            widget.comm = None


def run_with_id(shell, src: str, cell_id: str, ok: bool = True):
    """Run a cell as ipykernel does for a frontend that sends cell ids (info.cell_id on pre_run_cell)."""
    ip = shell.ip
    original = ip.events.trigger

    def trigger(event, *args, **kwargs):
        if event == "pre_run_cell" and args and isinstance(args[0], ExecutionInfo):
            info = args[0]
            args = (ExecutionInfo(info.raw_cell, info.store_history, info.silent, info.shell_futures, cell_id),)
        return original(event, *args, **kwargs)

    ip.events.trigger = trigger
    try:
        return shell.run(src, ok=ok)
    finally:
        ip.events.trigger = original
