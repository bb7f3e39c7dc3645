"""Artifacts: the JSON report every run leaves behind, and checkpoints that can resume training exactly."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

REPORT_NAME = "report.json"


def save_report(output_dir: str | os.PathLike, report: dict, *, status: str = "ok") -> Path:
    """Write `report` (plus status and time) to `output_dir/report.json`, atomically; returns the path."""
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    doc = {**report, "status": status, "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    path = out / REPORT_NAME
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _rng_state() -> dict[str, Any]:
    name, keys, pos, has_gauss, cached = np.random.get_state()
    state: dict[str, Any] = {
        "python": random.getstate(), "numpy": [name, keys.tolist(), pos, has_gauss, cached],
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def save_checkpoint(output_dir: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer, *,
                    epoch: int, extra: dict | None = None) -> Path:
    """Save model, optimizer, epoch and every RNG state to `output_dir/checkpoint.pt`; returns the path."""
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "checkpoint.pt"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch,
                "rng": _rng_state(), "extra": extra or {}}, path)
    return path


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> int:
    """Restore model, optimizer and RNG states from `path`; returns the epoch to resume from."""
    state = torch.load(path, map_location="cpu", weights_only=False)
    model.load_state_dict(state["model"])
    if optimizer is not None:
        optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    random.setstate(tuple(x if not isinstance(x, list) else tuple(x) for x in rng["python"]))
    name, keys, pos, has_gauss, cached = rng["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(rng["torch"])
    if "cuda" in rng and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rng["cuda"])
    return int(state["epoch"]) + 1
