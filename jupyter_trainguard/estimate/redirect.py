"""A TorchFunctionMode that keeps every tensor of the estimate on the (fake) CPU device.

Models often move tensors inside `forward` (`x.to(self.device)`, `.cuda()`, `torch.zeros(..., device="cuda")`).
On a CPU-only torch build, a fake CUDA tensor that reaches autograd aborts the whole process (SIGABRT in a device
guard that C++ cannot unwind), which would kill the user's kernel. Rewriting those requests to CPU keeps the estimate
safe and lets such models be estimated; device-specific behaviour is then emulated by `accounting`.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.overrides import TorchFunctionMode

_CPU = torch.device("cpu")


def _off_cpu(value: Any) -> bool:
    if isinstance(value, torch.device):
        return value.type not in ("cpu", "meta")
    if isinstance(value, str):
        try:
            return torch.device(value).type not in ("cpu", "meta")
        except RuntimeError:
            return False
    if isinstance(value, int) and not isinstance(value, bool):
        return True  # a bare index means a CUDA device
    return False


class CpuOnly(TorchFunctionMode):
    """Rewrites device arguments that are not CPU (or meta) to CPU; `.cuda()` and `.pin_memory()` become no-ops."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in (torch.Tensor.cuda, torch.Tensor.pin_memory):
            return args[0]
        if "device" in kwargs and _off_cpu(kwargs["device"]):
            kwargs["device"] = _CPU
        if func is torch.Tensor.to:
            args = tuple(_CPU if i > 0 and _off_cpu(a) else a for i, a in enumerate(args))
            kwargs.pop("non_blocking", None)
        return func(*args, **kwargs)
