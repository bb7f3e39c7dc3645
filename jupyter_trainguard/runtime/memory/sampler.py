"""One timeline sampler thread per process, shared by the memory trackers of guarded cells.

Starting a thread for every guarded cell cost 0.2-0.5 ms (its start waits until the new thread runs, its stop
until it ends): most of the tracker's fixed cost. The thread is started once, on the first tracker, and parks on a
condition while no tracker is attached; `attach` and `detach` are a lock and a notify. A sample runs under the
same lock, so once `detach` returns no sample of that tracker is running or will run. Each sample's CPU time is
counted on the tracker it served (the guard reports it as its own cost). A sample that raises detaches its
tracker, as the per-cell thread used to end.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

NAME = "trainguard-memory-sampler"


class Sampler:
    """The shared sampler: calls `tracker.sample()` every `tracker.interval` seconds for each attached tracker."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._due: dict[Any, float] = {}  # attached tracker -> when its next sample is due (perf_counter)
        self._thread: threading.Thread | None = None

    def attach(self, tracker: Any) -> None:
        with self._cond:
            self._due[tracker] = time.perf_counter() + tracker.interval
            if self._thread is None or not self._thread.is_alive():  # first use, or a forked child
                self._thread = threading.Thread(target=self._run, name=NAME, daemon=True)
                self._thread.start()
            self._cond.notify()

    def detach(self, tracker: Any) -> None:
        """Stop sampling `tracker`; returns once no sample of it is running."""
        with self._cond:
            self._due.pop(tracker, None)

    def attached(self) -> list[Any]:
        with self._cond:
            return list(self._due)

    def _run(self) -> None:
        with self._cond:
            while True:
                if not self._due:
                    self._cond.wait()
                    continue
                now = time.perf_counter()
                wait = min(self._due.values()) - now
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                for tracker, due in list(self._due.items()):
                    if due <= now:
                        self._sample(tracker, now)

    def _sample(self, tracker: Any, now: float) -> None:
        cpu = time.thread_time()
        try:
            tracker.sample()
            self._due[tracker] = now + tracker.interval
        except Exception:  # noqa: BLE001 - a failing sample stops sampling that tracker, never the thread
            self._due.pop(tracker, None)
        finally:
            tracker._sampler_cpu_s += time.thread_time() - cpu


_SAMPLER: Sampler | None = None
_LOCK = threading.Lock()


def _forget_in_child() -> None:
    """A forked child has no sampler thread, and its copy of the condition may be held by the parent's: it makes
    its own on first use."""
    global _SAMPLER, _LOCK
    _SAMPLER, _LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def sampler() -> Sampler:
    global _SAMPLER
    with _LOCK:
        if _SAMPLER is None:
            _SAMPLER = Sampler()
        return _SAMPLER


def attached() -> list[Any]:
    """The trackers being sampled now (none once every guarded cell has finished)."""
    return [] if _SAMPLER is None else _SAMPLER.attached()
