"""Peak-memory estimate of one training step, before training and without a GPU.

`estimate_training_step(model, batch, ...)` runs the step on fake CPU tensors (no data, no GPU, the user's objects
untouched) and replays the storage trace with CUDA caching-allocator rules; `estimate_for_cell(user_ns, source,
spec)` finds the model, batch, optimizer and loss of a notebook cell. Importing this package does not import torch.
"""

from __future__ import annotations

from .cell import estimate_for_cell
from .constants import CUBLAS_WORKSPACE_BYTES, CUDA_CONTEXT_BYTES
from .result import ESTIMATE_MIME, EstimateUnavailable, MemoryEstimate, format_bytes, parse_size
from .step import estimate_training_step

__all__ = [
    "CUBLAS_WORKSPACE_BYTES", "CUDA_CONTEXT_BYTES", "ESTIMATE_MIME", "EstimateUnavailable", "MemoryEstimate",
    "estimate_for_cell", "estimate_training_step", "format_bytes", "parse_size",
]
