"""Result types of the estimator and byte-size helpers (no torch import)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from .constants import GIB, MIB

ESTIMATE_MIME = "application/vnd.trainguard.estimate+json"

# Display order and labels of the parts of an estimate.
PART_LABELS: dict[str, str] = {
    "weights": "Weights (parameters and buffers)",
    "gradients": "Gradients",
    "optimizer_state": "Optimizer state",
    "batch": "Input batch",
    "activations": "Activations and temporaries at the peak",
    "optimizer_temporaries": "Optimizer-step temporaries at the peak",
    "cublas_workspace": "cuBLAS workspaces (allowance)",
    "allocator_overhead": "Caching-allocator segments beyond allocated",
    "cuda_context": "CUDA context (allowance)",
}

_UNITS = {
    "": 1, "b": 1,
    "k": 1000, "kb": 1000, "m": 1000**2, "mb": 1000**2, "g": 1000**3, "gb": 1000**3, "t": 1000**4, "tb": 1000**4,
    "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}


def parse_size(text: str | int | float) -> int:
    """`"24GiB"` -> bytes. Accepts B, KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB (powers of 1024), plain bytes."""
    if isinstance(text, bool):
        raise ValueError(f"not a size: {text!r}")
    if isinstance(text, (int, float)):
        if text < 0:
            raise ValueError(f"negative size: {text!r}")
        return int(text)
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*", str(text))
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {text!r} (use e.g. 24GiB, 16GB, 512MiB or a number of bytes)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def format_bytes(nbytes: int | float) -> str:
    """Human-readable size in binary units: `1.50 GiB`, `12.3 MiB`, `512 B`."""
    n = float(nbytes)
    if abs(n) >= GIB:
        return f"{n / GIB:.2f} GiB"
    if abs(n) >= MIB:
        return f"{n / MIB:.1f} MiB"
    if abs(n) >= 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{int(n)} B"


@dataclass
class MemoryEstimate:
    """Estimated peak memory of one training step; `parts` add up to `total_bytes`."""

    total_bytes: int
    parts: dict[str, int]
    device: str
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    allocated_peak_bytes: int = 0  # what `torch.cuda.max_memory_allocated()` would show (CPU: live tensor bytes)
    reserved_peak_bytes: int = 0  # emulated `max_memory_reserved()`; equals allocated on CPU
    peak_phase: str = ""  # where the peak happens: "step 2 forward", "step 2 optimizer", ...
    phase_peaks: dict[str, int] = field(default_factory=dict)  # allocated peak per phase
    parameters: int = 0  # number of parameter elements
    budget_bytes: int | None = None

    @property
    def fits(self) -> bool | None:
        """Whether `total_bytes` is within `budget_bytes` (None without a budget)."""
        return None if self.budget_bytes is None else self.total_bytes <= self.budget_bytes

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = "ok"
        data["fits"] = self.fits
        return data

    def summary(self) -> str:
        lines = [f"Estimated peak of one training step on {self.device}: {format_bytes(self.total_bytes)}"
                 + (f" (peak during {self.peak_phase})" if self.peak_phase else "")]
        width = max((len(PART_LABELS.get(k, k)) for k in self.parts), default=0)
        for key, value in self.parts.items():
            lines.append(f"  {PART_LABELS.get(key, key):<{width}}  {format_bytes(value):>11}")
        if self.budget_bytes is not None:
            verdict = "fits within" if self.fits else "EXCEEDS"
            lines.append(f"  {verdict} the budget of {format_bytes(self.budget_bytes)}")
        lines.extend(f"  note: {note}" for note in self.notes)
        lines.append(f"  (estimated in {self.elapsed_s:.2f} s on fake tensors; no memory was allocated)")
        return "\n".join(lines)


@dataclass
class EstimateUnavailable:
    """Why no estimate could be made; never an exception in the user's kernel."""

    reason: str
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = "unavailable"
        return data

    def summary(self) -> str:
        return f"cannot estimate because {self.reason}"
