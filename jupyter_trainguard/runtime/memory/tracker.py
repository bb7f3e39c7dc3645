"""Per-cell memory tracking: exact peak from the backend's counter (protected against the user's own resets),
a low-rate timeline sampled by the process's sampler thread, optimizer steps as markers, and what is left after
the cell."""

from __future__ import annotations

import gc
import sys
import threading
import time
from dataclasses import dataclass, field, fields
from typing import Any

from .backend import MemoryBackend


@dataclass
class MemoryResult:
    backend: str
    is_device: bool
    start_allocated: int = 0
    start_reserved: int = 0
    end_allocated: int = 0
    end_reserved: int = 0
    peak_allocated: int = 0
    peak_source: str = "counter"  # "counter" | "sampled"
    retained: int = 0  # allocated after the cell (after gc) minus before it
    device_free: int | None = None
    device_total: int | None = None
    steps: int = 0
    user_peak_resets: int = 0
    counters_delta: dict[str, int] = field(default_factory=dict)
    timeline: list[tuple[float, int, int]] = field(default_factory=list)  # (seconds, allocated, reserved)
    markers: list[tuple[float, int, int]] = field(default_factory=list)  # (seconds, step, allocated)
    duration_s: float = 0.0
    own_ms: float = 0.0  # the tracker's own work while the cell ran: step hooks plus the sampler thread's CPU

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types; a shallow copy (`dataclasses.asdict` deep-copies every timeline point: ~10 ms)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["counters_delta"] = dict(self.counters_delta)
        d["timeline"] = [list(p) for p in self.timeline]
        d["markers"] = [list(m) for m in self.markers]
        return d


class MemoryTracker:
    """Use as `start()` ... run the cell ... `stop()`; `stop()` always undoes every patch and hook."""

    def __init__(self, backend: MemoryBackend, interval: float = 0.1, max_points: int = 2000,
                 step_markers: bool = True, step_sample_gap: float = 0.02) -> None:
        """`step_sample_gap`: an optimizer step reads the backend only when the last read is older than this
        (other steps reuse it), so fast loops pay ~1 us per step instead of a /proc or allocator read."""
        self.backend = backend
        self.interval = interval
        self.max_points = max_points
        self.step_markers = step_markers
        self.step_sample_gap = step_sample_gap
        self._last_step_read = (float("-inf"), 0)
        self._folded = 0
        self._resets = 0
        self._patched: list[tuple[Any, str, Any]] = []
        self._hook: Any = None
        self._sampling = False  # attached to the process's sampler thread (`sampler.py`)
        self._lock = threading.Lock()
        self._steps = 0
        self._own_s = 0.0  # time spent in the step hook
        self._sampler_cpu_s = 0.0  # CPU time the sampler thread spent on this tracker
        self.timeline: list[tuple[float, int, int]] = []
        self.markers: list[tuple[float, int, int]] = []
        self._max_sampled = 0
        self._t0 = 0.0
        self._start: tuple[int, int] = (0, 0)
        self._counters0: dict[str, int] = {}
        self.running = False

    # -- lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> None:
        try:
            self._start_tracking()
        except BaseException:
            self.release()  # a backend that fails half-way must not leave a patch, hook or thread behind
            raise

    def release(self) -> None:
        """Stop sampling and undo every hook and patch; safe to call more than once."""
        if self._sampling:
            from .sampler import sampler

            sampler().detach(self)
            self._sampling = False
        self._remove_step_hook()
        self._unpatch_resets()
        self.running = False

    def _start_tracking(self) -> None:
        b = self.backend
        b.synchronize()
        self._t0 = time.perf_counter()
        self._start = b.current()
        self._counters0 = b.counters()
        b.reset_peak()
        self._record(0.0, *self._start)
        self._patch_resets()
        if self.step_markers:
            self._install_step_hook()
        if self.interval and self.interval > 0:
            from .sampler import sampler

            sampler().attach(self)  # the process's sampler thread, started once
            self._sampling = True
        self.running = True

    def stop(self, collect: bool = True) -> MemoryResult:
        """Stop sampling and undo hooks/patches; `collect` runs a young-generation gc before the leftover is read
        (a full collection can take half a second with torch loaded, far above the 2 % overhead budget)."""
        b = self.backend
        self.release()
        b.synchronize()
        peak_counter = b.peak()
        end_now = b.current()
        self._record(time.perf_counter() - self._t0, *end_now)
        if collect:
            gc.collect(1)
        end = b.current() if collect else end_now
        info = b.device_info()
        c1 = b.counters()
        peak = max(self._folded, peak_counter)
        source = "counter"
        if peak == 0 or getattr(b, "peak_exact", True) is False:
            peak, source = max(peak, self._max_sampled, self._start[0], end_now[0]), "sampled"
        return MemoryResult(
            backend=b.name, is_device=b.is_device, start_allocated=self._start[0], start_reserved=self._start[1],
            end_allocated=end[0], end_reserved=end[1], peak_allocated=peak, peak_source=source,
            retained=end[0] - self._start[0], device_free=info[0] if info else None,
            device_total=info[1] if info else None, steps=self._steps, user_peak_resets=self._resets,
            counters_delta={k: c1.get(k, 0) - self._counters0.get(k, 0) for k in c1},
            timeline=list(self.timeline), markers=list(self.markers),
            duration_s=time.perf_counter() - self._t0, own_ms=(self._own_s + self._sampler_cpu_s) * 1000,
        )

    # -- sampling --------------------------------------------------------------------------------------------
    def _record(self, t: float, allocated: int, reserved: int) -> None:
        with self._lock:
            self.timeline.append((round(t, 4), allocated, reserved))
            self._max_sampled = max(self._max_sampled, allocated)
            if len(self.timeline) > self.max_points:  # keep the first and last points, halve the rest
                self.timeline = self.timeline[:1] + self.timeline[1:-1:2] + self.timeline[-1:]
                self.interval *= 2

    def sample(self) -> None:
        """Take one timeline sample now (the sampler thread calls this every `interval` seconds)."""
        a, r = self.backend.current()
        self._record(time.perf_counter() - self._t0, a, r)

    # -- optimizer step markers ------------------------------------------------------------------------------
    def _install_step_hook(self) -> None:
        if sys.modules.get("torch") is None:
            return
        try:
            from torch.optim.optimizer import register_optimizer_step_post_hook
        except ImportError:
            return
        self._hook = register_optimizer_step_post_hook(self._on_step)

    def _on_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        self._steps += 1
        entered = time.perf_counter()
        now = entered - self._t0
        last_t, a = self._last_step_read
        if self._sampling and self.timeline:
            a = self.timeline[-1][1]  # the sampler's latest point: a read here costs ~0.1 ms once caches are cold
        elif now - last_t >= self.step_sample_gap:
            a = self.backend.current()[0]
            self._last_step_read = (now, a)
            self._max_sampled = max(self._max_sampled, a)
        if len(self.markers) < self.max_points or self._steps % 10 == 0:
            self.markers.append((round(now, 4), self._steps, a))
        self._own_s += time.perf_counter() - entered

    def _remove_step_hook(self) -> None:
        if self._hook is not None:
            self._hook.remove()
            self._hook = None

    # -- protecting the cell's peak from the user's own resets ------------------------------------------------
    def _patch_resets(self) -> None:
        for owner, attr in self.backend.reset_targets():
            original = getattr(owner, attr, None)
            if original is None:
                continue

            def guarded_reset(*args: Any, __original: Any = original, **kwargs: Any) -> Any:
                self._folded = max(self._folded, self.backend.peak())  # fold the peak so far into ours
                self._resets += 1
                return __original(*args, **kwargs)

            setattr(owner, attr, guarded_reset)
            self._patched.append((owner, attr, original))

    def _unpatch_resets(self) -> None:
        while self._patched:
            owner, attr, original = self._patched.pop()
            setattr(owner, attr, original)
