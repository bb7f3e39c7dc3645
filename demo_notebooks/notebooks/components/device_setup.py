"""Device initialisation: pick the device once and seed every random number generator."""

from __future__ import annotations

import gc
import random

import numpy as np
import torch

DEVICES = ("auto", "cpu", "cuda")


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch (CPU and every CUDA device)."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def setup(prefer: str = "auto", seed: int | None = 0, deterministic: bool = False) -> torch.device:
    """The device to train on ("auto": CUDA when available), with the RNGs seeded when `seed` is given."""
    if prefer not in DEVICES:
        raise ValueError(f"prefer must be one of {', '.join(DEVICES)}, not {prefer!r}")
    if prefer == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("CUDA was requested but no CUDA device is available")
    use_cuda = prefer == "cuda" or (prefer == "auto" and torch.cuda.is_available())
    if seed is not None:
        seed_everything(seed)
    if deterministic:
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.benchmark = False
    return torch.device("cuda" if use_cuda else "cpu")


def free_memory() -> None:
    """Drop unreachable tensors and hand cached GPU memory back to the driver."""
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
