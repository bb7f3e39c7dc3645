"""One training step as the estimator runs it: zero_grad, forward, loss, backward, optimizer step.

Shared by the fake-tensor estimate and the real CPU measurement (`measure`), so both run exactly the same step.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.nn.functional as F

_LOSS_NAMES = {
    "cross_entropy": F.cross_entropy, "ce": F.cross_entropy, "crossentropy": F.cross_entropy,
    "mse": F.mse_loss, "l2": F.mse_loss, "l1": F.l1_loss, "mae": F.l1_loss, "nll": F.nll_loss,
    "bce": F.binary_cross_entropy, "bce_with_logits": F.binary_cross_entropy_with_logits,
    "smooth_l1": F.smooth_l1_loss, "huber": F.huber_loss,
}


def loss_from_name(name: str) -> Callable[..., Any]:
    key = name.lower().removesuffix("_loss").removesuffix("loss").strip("_")
    if key in _LOSS_NAMES:
        return _LOSS_NAMES[key]
    raise ValueError(f"unknown loss {name!r} (known: {', '.join(sorted(_LOSS_NAMES))})")


def call_args(batch: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """How the batch is passed to the model: a dict as keywords, a tuple/list as positional args, else one arg."""
    if isinstance(batch, dict):
        return (), dict(batch)
    if isinstance(batch, (tuple, list)):
        return tuple(batch), {}
    return (batch,), {}


def _first_tensor(value: Any) -> torch.Tensor | None:
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("logits"), torch.Tensor):
            return value["logits"]
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        for item in value:
            found = _first_tensor(item)
            if found is not None:
                return found
    logits = getattr(value, "logits", None)
    return logits if isinstance(logits, torch.Tensor) else None


def compute_loss(output: Any, target: Any, loss_fn: Callable[..., Any] | None) -> torch.Tensor:
    """The scalar to backpropagate. Without `loss_fn`: a loss the model returned (`.loss` / `["loss"]`), else
    cross-entropy for integer targets, MSE for float targets, or the mean output when there is no target."""
    if loss_fn is not None:
        loss = loss_fn(output, target) if target is not None else loss_fn(output)
    else:
        own = output.get("loss") if isinstance(output, dict) else getattr(output, "loss", None)
        if isinstance(own, torch.Tensor):
            loss = own
        else:
            out = _first_tensor(output)
            if out is None:
                raise TypeError(f"the model returned no tensor ({type(output).__name__}); pass loss_fn")
            if target is None:
                loss = out if out.dim() == 0 else out.float().mean()
            elif isinstance(target, torch.Tensor) and not target.is_floating_point() and out.dim() >= 2:
                loss = F.cross_entropy(out, target)
            elif isinstance(target, torch.Tensor):
                loss = F.mse_loss(out, target.to(out.dtype).reshape(out.shape) if target.numel() == out.numel()
                                  else target.to(out.dtype))
            else:
                raise TypeError("cannot guess a loss for this target; pass loss_fn")
    loss = _first_tensor(loss) if not isinstance(loss, torch.Tensor) else loss
    if loss is None:
        raise TypeError("the loss function returned no tensor")
    return loss if loss.dim() == 0 else loss.float().mean()


@contextlib.contextmanager
def autocast_ctx(amp: Any) -> Iterator[None]:
    """CPU autocast standing in for CUDA AMP: `True`/"fp16" -> float16, "bf16" -> bfloat16, or a dtype."""
    if not amp:
        yield
        return
    dtype = amp if isinstance(amp, torch.dtype) else (
        torch.bfloat16 if str(amp).lower() in ("bf16", "bfloat16") else torch.float16)
    with torch.autocast("cpu", dtype=dtype):
        yield


def run_step(model: torch.nn.Module, batch: Any, target: Any, loss_fn: Callable[..., Any] | None,
             optimizer: Any, *, amp: Any = False, mark: Callable[[str], None] = lambda phase: None,
             after_backward: Callable[[], None] = lambda: None, after_step: Callable[[], None] = lambda: None) -> None:
    """zero_grad(set_to_none) -> forward + loss -> backward -> optimizer.step; `mark` names each phase."""
    args, kwargs = call_args(batch)
    mark("zero_grad")
    (optimizer or model).zero_grad(set_to_none=True)
    mark("forward")
    with torch.enable_grad(), autocast_ctx(amp):
        output = model(*args, **kwargs)
        loss = compute_loss(output, target, loss_fn)
    mark("backward")
    loss.backward()
    after_backward()
    if optimizer is not None:
        mark("optimizer")
        optimizer.step()
        after_step()
    del output, loss  # as in a loop body: the output and loss live until the step ends
