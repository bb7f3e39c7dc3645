"""After a failed cell: free what the failed frames hold without touching the user's namespace."""

from __future__ import annotations

import gc
import sys
import weakref
from typing import Any


def release_exception(exc: BaseException | None) -> int:
    """Clear the locals of every traceback frame of `exc` (and its causes/contexts); returns frames cleared.

    The cell's own module frame is skipped: its locals *are* the user namespace. On Python <= 3.12 IPython's
    traceback formatter caches `f_locals` in a dict that `frame.clear()` leaves alive, so that dict is cleared
    too; on 3.13 `f_locals` is a proxy without `.clear()`.
    """
    seen: set[int] = set()
    cleared = 0
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_locals is not frame.f_globals and not _is_module_frame(frame):
                try:
                    frame.f_locals.clear()
                except AttributeError:
                    pass
                try:
                    frame.clear()
                    cleared += 1
                except RuntimeError:  # still executing (e.g. our own caller)
                    pass
            tb = tb.tb_next
        exc = exc.__cause__ or exc.__context__
    return cleared


def _is_module_frame(frame: Any) -> bool:
    return frame.f_code.co_name == "<module>"


def forget_last_exception() -> None:
    for attr in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, attr):
            setattr(sys, attr, None)


def user_traceback(exc: BaseException) -> Any:
    """The traceback from the user's code on (drops IPython's own `run_code` frame)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_name == "run_code" and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def largest_objects(user_ns: dict[str, Any], device_only: bool, limit: int = 5) -> list[dict[str, Any]]:
    """The biggest tensors, modules, arrays and frames reachable by name (names and sizes only)."""
    sizes: list[dict[str, Any]] = []
    torch = sys.modules.get("torch")
    for name, value in list(user_ns.items()):
        if name.startswith("_"):
            continue
        nbytes, kind, device = 0, "", ""
        try:
            if torch is not None and isinstance(value, torch.Tensor):
                nbytes, kind, device = value.element_size() * value.nelement(), "tensor", value.device.type
            elif torch is not None and isinstance(value, torch.nn.Module):
                tensors = list(value.parameters()) + list(value.buffers())
                nbytes = sum(t.element_size() * t.nelement() for t in tensors)
                kind = "module"
                device = tensors[0].device.type if tensors else "cpu"
            elif not device_only and type(value).__module__.startswith("numpy") and hasattr(value, "nbytes"):
                nbytes, kind, device = int(value.nbytes), "array", "cpu"
            elif not device_only and type(value).__name__ == "DataFrame" and hasattr(value, "dtypes"):
                nbytes, kind, device = _frame_bytes(value), "frame", "cpu"
        except Exception:  # noqa: BLE001 - odd objects are skipped
            continue
        if nbytes and (not device_only or device != "cpu"):
            sizes.append({"name": name, "kind": kind, "bytes": int(nbytes), "device": device})
    sizes.sort(key=lambda d: -d["bytes"])
    return sizes[:limit]


_FRAME_BYTES: dict[int, tuple[Any, tuple[int, int], int]] = {}


def _frame_bytes(frame: Any) -> int:
    """Rows x item sizes: exact for numeric frames, and cheap (`memory_usage()` builds a Series per column). Kept
    per frame while its shape holds: reading `dtypes` of every frame in a big session costs milliseconds per cell."""
    key, shape = id(frame), frame.shape
    kept = _FRAME_BYTES.get(key)
    if kept is not None and kept[0]() is frame and kept[1] == shape:
        return kept[2]
    nbytes = shape[0] * sum(getattr(dt, "itemsize", 8) for dt in frame.dtypes)
    try:
        ref = weakref.ref(frame, lambda _r, k=key: _FRAME_BYTES.pop(k, None))
    except TypeError:
        return nbytes
    _FRAME_BYTES[key] = (ref, shape, nbytes)
    return nbytes


def collect() -> None:
    gc.collect()
