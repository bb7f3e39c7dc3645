"""Epoch iteration: one loop shared by every standard notebook."""

from __future__ import annotations

import logging
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader

logger = logging.getLogger(__name__)


def train(model: nn.Module, dataloader: DataLoader, optimizer: torch.optim.Optimizer, *, epochs: int = 1,
          device: torch.device | None = None, max_steps: int | None = None,
          log_fn: Callable[[dict], None] | None = None) -> dict:
    """Train for `epochs` (or `max_steps` batches); returns loss, accuracy, steps and a status.

    An exception is logged and reported in the result (status "failed") instead of escaping, and the model is
    always left in eval mode with cached GPU memory released.
    """
    device = device or torch.device("cpu")
    model.to(device)
    model.train()
    losses: list[float] = []
    correct = seen = steps = epochs_done = 0
    status, error = "ok", None
    try:
        for _ in range(epochs):
            for tokens, labels in dataloader:
                tokens, labels = tokens.to(device), labels.to(device)
                optimizer.zero_grad(set_to_none=True)
                logits = model(tokens)
                loss = F.cross_entropy(logits, labels)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
                correct += (logits.argmax(dim=1) == labels).sum().item()
                seen += len(labels)
                steps += 1
                if log_fn is not None:
                    log_fn({"step": steps, "loss": losses[-1]})
                if max_steps is not None and steps >= max_steps:
                    break
            epochs_done += 1
            if max_steps is not None and steps >= max_steps:
                break
    except Exception as exc:
        status, error = "failed", f"{type(exc).__name__}: {exc}"
        logger.exception("training failed after %d step(s)", steps)
    finally:
        model.eval()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    return {"status": status, "error": error, "steps": steps, "epochs_completed": epochs_done,
            "loss": losses[-1] if losses else None, "mean_loss": sum(losses) / len(losses) if losses else None,
            "accuracy": correct / seen if seen else None}


@torch.no_grad()
def evaluate(model: nn.Module, dataloader: DataLoader, device: torch.device | None = None) -> dict:
    """Loss and accuracy on `dataloader`, in eval mode."""
    device = device or torch.device("cpu")
    model.eval()
    total_loss = correct = seen = 0.0
    for tokens, labels in dataloader:
        tokens, labels = tokens.to(device), labels.to(device)
        logits = model(tokens)
        total_loss += F.cross_entropy(logits, labels, reduction="sum").item()
        correct += (logits.argmax(dim=1) == labels).sum().item()
        seen += len(labels)
    return {"loss": total_loss / seen if seen else None, "accuracy": correct / seen if seen else None}
