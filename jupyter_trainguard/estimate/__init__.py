"""Peak-memory estimate of one training step, before training and without a GPU.

`estimate_training_step(model, batch, ...)` runs the step on fake CPU tensors (no data, no GPU, the user's objects
untouched) and replays the storage trace with CUDA caching-allocator rules; `estimate_for_cell(user_ns, source,
spec)` finds the model, batch, optimizer and loss of a notebook cell. Importing this package does not import torch.
"""

from __future__ import annotations

from typing import Any

from .constants import CUBLAS_WORKSPACE_BYTES, CUDA_CONTEXT_BYTES
from .result import ESTIMATE_MIME, EstimateUnavailable, MemoryEstimate, format_bytes, parse_size

__all__ = [
    "CUBLAS_WORKSPACE_BYTES", "CUDA_CONTEXT_BYTES", "ESTIMATE_MIME", "EstimateUnavailable", "MemoryEstimate",
    "estimate_for_cell", "estimate_training_step", "format_bytes", "parse_size",
]


def estimate_training_step(model: Any, example_batch: Any, **options: Any) -> MemoryEstimate | EstimateUnavailable:
    """See `jupyter_trainguard.estimate.step.estimate_training_step` (imported lazily: it needs torch)."""
    try:
        from .step import estimate_training_step as run
    except ImportError as exc:
        return EstimateUnavailable(f"PyTorch is not available ({exc})")
    return run(model, example_batch, **options)


def estimate_for_cell(user_ns: dict[str, Any], cell_source: str, spec: str | None,
                      **options: Any) -> MemoryEstimate | EstimateUnavailable:
    """Estimate the training step of a cell: `spec` like "model=net,batch=xb,target=yb,optimizer=opt,loss=crit",
    or None to infer them from the namespace and the cell. Never raises."""
    from .cell import estimate_for_cell as run

    return run(user_ns, cell_source, spec, **options)
