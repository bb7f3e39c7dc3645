"""Turn a `StorageLog` trace into peaks per category and phase, with or without CUDA allocator rules (no torch)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .allocator import round_size, simulate_reserved

PERSISTENT = ("weights", "gradients", "optimizer_state", "batch", "cublas_workspace")
ORDER = ("weights", "gradients", "optimizer_state", "batch", "activations", "optimizer_temporaries",
         "cublas_workspace")


@dataclass
class Trace:
    """What accounting needs from a run: sizes and allocation phases per record, the ordered events, phase marks."""

    sizes: list[int]
    origin: list[str]
    events: list[tuple[int, int]]
    marks: list[tuple[int, str]]
    categories: dict[int, str] = field(default_factory=dict)  # record -> persistent category
    host_only: set[int] = field(default_factory=set)  # records that would live in host memory on CUDA


@dataclass
class Peaks:
    allocated: int
    reserved: int
    parts: dict[str, int]  # allocated bytes per category at the peak
    phase: str
    phase_peaks: dict[str, int]


def _category(trace: Trace, record: int) -> str:
    known = trace.categories.get(record)
    if known is not None:
        return known
    return "optimizer_temporaries" if trace.origin[record].endswith("optimizer") else "activations"


def account(trace: Trace, *, cuda: bool) -> Peaks:
    """Replay the trace; on CUDA every storage is rounded to 512 B and the caching allocator is emulated."""
    sizes = [0 if r in trace.host_only else (round_size(n) if cuda else n) for r, n in enumerate(trace.sizes)]
    current = dict.fromkeys(ORDER, 0)
    total = peak = 0
    peak_parts = dict(current)
    peak_phase = ""
    phase_peaks: dict[str, int] = {}
    marks = sorted(trace.marks)
    mark_i = 0
    phase = "setup"
    for i, (record, sign) in enumerate(trace.events):
        while mark_i < len(marks) and marks[mark_i][0] <= i:
            phase = marks[mark_i][1]
            mark_i += 1
        nbytes = sizes[record] * sign
        if not nbytes:
            continue
        current[_category(trace, record)] += nbytes
        total += nbytes
        kind = phase.split()[-1]
        if total > phase_peaks.get(kind, 0):
            phase_peaks[kind] = total
        if total > peak:
            peak, peak_parts, peak_phase = total, dict(current), phase
    reserved = peak
    if cuda:
        reserved, _ = simulate_reserved(
            (record, trace.sizes[record] if sign > 0 else 0)
            for record, sign in trace.events if record not in trace.host_only)
        reserved = max(reserved, peak)
    return Peaks(peak, reserved, peak_parts, peak_phase, phase_peaks)
