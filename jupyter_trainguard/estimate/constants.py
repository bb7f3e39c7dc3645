"""Documented constants for what a fake-tensor run cannot see on a real CUDA device.

Each figure is an allowance, not a measurement: it is reported as its own line so a user can judge it.
"""

from __future__ import annotations

MIB = 1 << 20
GIB = 1 << 30

# CUDA context created by the driver on first use (kernels, module images, runtime heaps). It never goes through
# PyTorch's caching allocator, so `memory_allocated()` does not show it. Reported as about 300 MB with lazy module
# loading (CUDA >= 11.7, pytorch#107667) and 200-700 MB across drivers and GPUs (pytorch#28113); we take 512 MiB.
CUDA_CONTEXT_BYTES = 512 * MIB

# cuBLAS workspace that PyTorch allocates *through* the caching allocator on the first GEMM of each (handle, stream)
# and keeps: 4096 KiB * 2 + 16 KiB * 8 = 8,519,680 B by default (pytorch#95668 shows exactly this growth after one
# nn.Linear forward); 32 MiB on Hopper (sm_90). Handles are per thread, and autograd runs the backward pass on its own
# device thread, so a training step normally holds two workspaces: forward/optimizer thread and backward thread.
CUBLAS_WORKSPACE_BYTES = 4096 * 1024 * 2 + 16 * 1024 * 8
CUBLAS_WORKSPACE_BYTES_SM90 = 4096 * 8 * 1024
CUBLAS_WORKSPACES_PER_STEP = 2

# CUDACachingAllocator (c10/cuda/CUDACachingAllocator.cpp) constants used by the allocator emulation.
MIN_BLOCK_SIZE = 512  # every allocation is rounded up to a multiple of 512 B (kMinBlockSize)
SMALL_SIZE = 1 * MIB  # requests up to 1 MiB are served from the small pool (kSmallSize)
SMALL_BUFFER = 2 * MIB  # small-pool segments are 2 MiB (kSmallBuffer)
LARGE_BUFFER = 20 * MIB  # large requests under 10 MiB get a 20 MiB segment (kLargeBuffer)
MIN_LARGE_ALLOC = 10 * MIB  # (kMinLargeAlloc)
ROUND_LARGE = 2 * MIB  # larger requests get a segment rounded up to 2 MiB (kRoundLarge)

# How many training steps the estimator runs: the second one has optimizer state from the start, as in a real loop.
ESTIMATE_STEPS = 2
