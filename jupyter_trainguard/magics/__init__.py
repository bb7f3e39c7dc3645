"""IPython magics. Each front end lives in its own module; `register` loads those that exist."""

from __future__ import annotations

import importlib
from typing import Any

# (module, class) pairs; each class is an IPython `Magics` subclass.
MAGIC_CLASSES = [
    ("jupyter_trainguard.magics.guarded", "GuardedTrainMagics"),
    ("jupyter_trainguard.magics.audit", "TrainAuditMagics"),
    ("jupyter_trainguard.magics.estimate", "EstimateMagics"),
]

_registered: dict[int, list[object]] = {}

# A guarded cell's SyntaxError is re-raised by the magic, and IPython shows any SyntaxError raised while code runs
# with the whole stack (interactiveshell, the magic). The marked one is shown as IPython shows it for a plain cell:
# the cell's own source without frames, one raised by the cell's code (compile(), an import) from the cell's frame
# on. The shell's showsyntaxerror is wrapped for that at load; every other SyntaxError is shown as before, and the
# shell's custom exception handlers (set_custom_exc) are not touched.
_PLAIN = "_trainguard_show_plain"


def plain_syntax_error(error: SyntaxError, frames: Any = None) -> SyntaxError:
    """The user's SyntaxError (same object and type), marked to be shown with `frames` only (a traceback or None:
    the cell's own source did not compile)."""
    setattr(error, _PLAIN, (frames,))
    return error.with_traceback(frames)


def _wrap_showsyntaxerror(ipython: Any) -> None:
    current = vars(ipython).get("showsyntaxerror")
    if getattr(current, _PLAIN, False):
        return  # already wrapped (a reload)
    original = ipython.showsyntaxerror

    def showsyntaxerror(*args: Any, **kwargs: Any) -> Any:
        try:
            etype, value, _ = ipython._get_exc_info()
        except Exception:  # noqa: BLE001 - no exception at hand: IPython's own method says so
            etype, value = None, None
        mark = getattr(value, _PLAIN, None)
        if not isinstance(mark, tuple):
            return original(*args, **kwargs)
        if mark[0] is None:  # the cell's own source: as a plain cell's, no stack (IPython's own method)
            kwargs.pop("running_compiled_code", None)
            return original(*args[:1], **kwargs)
        import traceback

        stb = ipython.SyntaxTB.structured_traceback(etype, value, traceback.extract_tb(mark[0]))
        ipython._showtraceback(etype, value, stb)
        return None

    setattr(showsyntaxerror, _PLAIN, (current is not None, original))
    ipython.showsyntaxerror = showsyntaxerror


def _unwrap_showsyntaxerror(ipython: Any) -> None:
    current = vars(ipython).get("showsyntaxerror")
    saved = getattr(current, _PLAIN, None)
    if not saved:
        return  # not ours (or wrapped again by someone else): left alone
    was_set, original = saved
    if was_set:
        ipython.showsyntaxerror = original
    else:
        del ipython.showsyntaxerror


def register(ipython) -> None:
    instances = []
    for module, cls_name in MAGIC_CLASSES:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name == module:
                continue
            raise
        cls = getattr(mod, cls_name)
        instance = cls(ipython)
        ipython.register_magics(instance)
        instances.append(instance)
    _registered[id(ipython)] = instances
    _wrap_showsyntaxerror(ipython)
    from ..runtime.session_log import watch

    watch(ipython)  # the guard analyses what the kernel holds (re-runs replace, failed compiles drop out)


def unregister(ipython) -> None:
    from ..runtime.session_log import unwatch

    unwatch(ipython)
    _unwrap_showsyntaxerror(ipython)
    for instance in _registered.pop(id(ipython), []):
        for kind, names in getattr(instance, "magics", {}).items():
            for name in names:
                ipython.magics_manager.magics[kind].pop(name, None)
