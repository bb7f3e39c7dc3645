"""Save and restore the global random states (Python, NumPy, torch CPU and CUDA) around work that must leave the
user's session exactly as it found it (re-runs, impact refits). Nothing heavy is imported that is not loaded."""

from __future__ import annotations

import random
import sys
from typing import Any


def capture() -> dict[str, Any]:
    """The global RNG states of the libraries already imported."""
    states: dict[str, Any] = {"python": random.getstate()}
    if "numpy" in sys.modules:
        import numpy as np

        states["numpy"] = np.random.get_state()
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "get_rng_state"):
        states["torch"] = torch.get_rng_state()
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            states["cuda"] = torch.cuda.get_rng_state_all()
    return states


def restore(states: dict[str, Any]) -> None:
    """Put back what `capture` saved."""
    random.setstate(states["python"])
    if "numpy" in states:
        import numpy as np

        np.random.set_state(states["numpy"])
    if "torch" in states:
        import torch

        torch.set_rng_state(states["torch"])
        if "cuda" in states:
            torch.cuda.set_rng_state_all(states["cuda"])
