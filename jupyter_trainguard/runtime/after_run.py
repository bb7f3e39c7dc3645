"""After a guarded cell: memory left behind, an out-of-memory explained, tracking runs closed or noted.

Called by `run_guarded` (runtime/guard.py) once the cell has run; each step is guarded there, so a bug here is
noted in the report and never hides or replaces the user's own result.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from . import rules as R
from .session_static import _Pre

if TYPE_CHECKING:
    from .guard import GuardOptions


def close_runs(pre: _Pre, runs_before: dict[str, list[str]]) -> None:
    """End the runs a failed cell left open (FAILED) and record them (GUARD001)."""
    from . import tracking

    run = pre.run
    closed = tracking.close_failed()
    run.tracking = {"before": runs_before, "closed_as_failed": closed}
    for system, ids in closed.items():
        if ids:
            run.runtime_findings.append(
                R.GUARD001.finding(
                    pre.location,
                    f"{len(ids)} {system} run(s) left open by the failed cell were closed as "
                    f"{'FAILED' if system == 'mlflow' else 'failed (exit code 1)'}.",
                    {"system": system, "run_ids": ids},
                )
            )


def _current(backend: Any) -> int:
    try:
        return int(backend.current()[0])
    except Exception:  # noqa: BLE001 - a broken backend reads as 0
        return 0


def after(
    shell: Any,
    cell: str,
    opts: GuardOptions,
    pre: _Pre,
    backend: Any,
    mem: Any,
    error: BaseException | None,
    runs_before: dict[str, list[str]],
) -> None:
    from . import cleanup
    from .oom import advice, fmt_bytes, is_oom, parse_oom

    run = pre.run
    try:
        largest = cleanup.largest_objects(shell.user_ns, device_only=backend.is_device)
    except Exception as exc:  # noqa: BLE001 - the frame clean-up below must still happen
        run.notes.append(f"largest objects failed: {type(exc).__name__}")
        largest = []
    if error is not None:
        oom = is_oom(error)
        # the message is kept for out-of-memory errors only (allocator sizes); others can quote data values
        # ("could not convert string to float: '<a value>'"), which must not reach the report file or panel
        run.error = {"type": type(error).__name__, "oom": oom, "message": str(error)[:500] if oom else None}
        if not oom:
            run.error["message_omitted"] = "not stored (it can quote data values); see the cell's traceback"
        if not opts.keep_traceback:
            before = _current(backend)
            frames = cleanup.release_exception(error)
            cleanup.forget_last_exception()
            cleanup.collect()
            _step(run, "empty_cache", backend.empty_cache)
            now = _current(backend)
            mem.retained = now - mem.start_allocated
            mem.end_allocated = now
            run.cleanup = {
                "frames_cleared": frames,
                "allocated_before": before,
                "allocated_after": now,
                "freed": max(0, before - now),
                "backend": backend.name,
            }
        else:
            run.cleanup = {"skipped": "--keep-traceback"}
        if oom:
            numbers = parse_oom(str(error))
            if backend.is_device and mem.device_free is not None:
                numbers.setdefault("free", mem.device_free)
                numbers.setdefault("total", mem.device_total)
            if backend.is_device:
                numbers.setdefault("reserved_unallocated", max(0, mem.end_reserved - mem.end_allocated))
            estimate = (run.estimate or {}).get("total_bytes")
            tips = advice(numbers, largest, estimate, mem.start_allocated if backend.is_device else None)
            run.error.update({"numbers": numbers, "advice": tips})
            req = f" while allocating {fmt_bytes(numbers['requested'])}" if "requested" in numbers else ""
            freed = run.cleanup.get("freed")
            msg = (
                f"Out of memory{req}. "
                + " ".join(tips)
                + (f" The guard freed {fmt_bytes(freed)} held by the failed frames." if freed else "")
            )
            run.runtime_findings.append(
                R.MEM001.finding(
                    pre.location, msg, {"numbers": numbers, "peak_allocated": mem.peak_allocated, "freed": freed}
                )
            )
    else:
        _step(run, "tracking", note_open_runs, pre, runs_before)
    if backend.is_device and mem.retained > opts.leak_threshold:
        held = [o for o in largest if o["device"] != "cpu"]
        names = ", ".join(f"{o['name']} ({fmt_bytes(o['bytes'])})" for o in held[:3])
        run.runtime_findings.append(
            R.MEM002.finding(
                pre.location,
                f"{fmt_bytes(mem.retained)} allocated by the cell is still allocated after it "
                f"({fmt_bytes(mem.start_allocated)} before, {fmt_bytes(mem.end_allocated)} after)"
                + (f"; largest device objects: {names}." if names else "."),
                {"retained": mem.retained, "largest": held[:5]},
            )
        )
    run.memory = mem.to_dict()
    run.memory["largest_objects"] = largest
    if sys.modules.get("torch") is not None and backend.name == "rss":
        run.memory["note"] = "no CUDA device: host process memory (RSS) is shown"


def note_open_runs(pre: _Pre, runs_before: dict[str, list[str]]) -> None:
    """After a successful cell: runs it started and left open are noted (info), never closed."""
    from . import tracking

    run = pre.run
    now = tracking.active_runs()
    run.tracking = {"before": runs_before, "after": now}
    for system, ids in now.items():
        new = [i for i in ids if i not in runs_before.get(system, [])]
        if new:
            run.runtime_findings.append(
                R.GUARD001.finding(
                    pre.location,
                    f"The cell started {len(new)} {system} run(s) and left them open; end them "
                    "(or use a context manager) so a later failure cannot leave them RUNNING.",
                    {"system": system, "run_ids": new},
                    severity="info",
                )
            )


def _step(run: Any, what: str, fn: Any, *args: Any) -> None:
    from .guard import _guarded

    _guarded(run, what, fn, *args)
