"""Fake (storage-less) CPU copies of the user's model, loss module, optimizer and batch.

`copy.deepcopy` runs with a memo that already maps every parameter, buffer and tensor attribute of the user's modules
to a fake CPU tensor of the same shape, strides, dtype and `requires_grad`, so no real tensor is copied (nothing
proportional to the model is allocated) and modules that clone their layers in `__init__` are handled: deepcopy never
meets a fake tensor, which would otherwise fail with "Mixing fake modes". The user's objects are only read.
"""

from __future__ import annotations

import copy
from collections import OrderedDict, defaultdict
from typing import Any

import torch
from torch import nn

DEVICE_STEP_KEY = "_trainguard_device_step"  # marks groups whose `step` counters live on the device


class CopyError(Exception):
    """The user's module could not be copied."""


def fake_like(tensor: torch.Tensor, requires_grad: bool | None = None) -> torch.Tensor:
    """A fake CPU tensor shaped like `tensor` (call inside the FakeTensorMode). Parameters stay Parameters."""
    if tensor.layout != torch.strided:
        raise TypeError(f"{tensor.layout} tensors are not supported")
    fake = torch.empty_strided(tuple(tensor.shape), tuple(tensor.stride()), dtype=tensor.dtype, device="cpu")
    grad = tensor.requires_grad if requires_grad is None else requires_grad
    if isinstance(tensor, nn.Parameter):
        return nn.Parameter(fake, requires_grad=grad)
    return fake.requires_grad_(grad) if grad and fake.is_floating_point() else fake


def seed_memo(memo: dict[int, Any], module: nn.Module) -> None:
    """Map every tensor reachable as a parameter, buffer or attribute of `module` to a fake copy in `memo`."""
    for sub in module.modules():
        for tensor in (*sub._parameters.values(), *sub._buffers.values(), *sub.__dict__.values()):
            if isinstance(tensor, torch.Tensor) and id(tensor) not in memo:
                memo[id(tensor)] = fake_like(tensor)


def fake_module(module: nn.Module, memo: dict[int, Any]) -> nn.Module:
    """Deep copy of `module` whose tensors are fake (inside the FakeTensorMode).

    If some attribute cannot be deep-copied (a lock, a file, a connection), the copy is retried sharing every
    plain attribute with the original; parameters, buffers and submodules are still copied.
    """
    seed_memo(memo, module)
    try:
        return copy.deepcopy(module, dict(memo))
    except Exception as exc:
        first = exc
    shared = dict(memo)
    for sub in module.modules():
        for key, value in sub.__dict__.items():
            if key not in ("_parameters", "_buffers", "_modules") and not isinstance(value, (torch.Tensor, nn.Module)):
                shared.setdefault(id(value), value)
    try:
        return copy.deepcopy(module, shared)
    except Exception as exc:
        raise CopyError(f"{type(module).__name__} cannot be copied for the fake run (copy.deepcopy failed: "
                        f"{type(first).__name__}: {first})") from exc


def fake_value(value: Any, memo: dict[int, Any]) -> Any:
    """Fake copy of a batch: tensors become compact fake CPU tensors; containers are rebuilt; the rest is kept."""
    if isinstance(value, torch.Tensor):
        if id(value) not in memo:
            memo[id(value)] = torch.empty(tuple(value.shape), dtype=value.dtype, device="cpu")
        return memo[id(value)]
    if isinstance(value, (list, tuple)):
        items = [fake_value(v, memo) for v in value]
        if hasattr(value, "_fields"):  # namedtuple
            return type(value)(*items)
        return type(value)(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        items = {k: fake_value(v, memo) for k, v in value.items()}
        try:
            return type(value)(items)
        except Exception:  # dict subclasses with other constructors
            return items
    if hasattr(value, "keys") and hasattr(value, "__getitem__") and hasattr(value, "to"):  # e.g. BatchEncoding
        return {k: fake_value(value[k], memo) for k in value.keys()}
    return value


def fake_optimizer(optimizer: torch.optim.Optimizer, memo: dict[int, Any], *, cuda_defaults: bool) -> Any:
    """A copy of `optimizer` over the fake parameters in `memo`, with its state (if any) faked too.

    Built without calling the constructor (custom optimizers may need extra arguments): the instance dict is copied,
    then `param_groups`, `state` and the hook tables are replaced, so the user's optimizer is never touched.
    With `cuda_defaults`, groups that leave `foreach` unset get `foreach=True`, as PyTorch picks on CUDA.
    """
    clone = object.__new__(type(optimizer))
    clone.__dict__.update(optimizer.__dict__)
    groups = []
    for group in optimizer.param_groups:
        new = {k: v for k, v in group.items() if k != "params"}
        params = []
        for p in group["params"]:
            if id(p) not in memo:
                memo[id(p)] = fake_like(p)
            params.append(memo[id(p)])
        new["params"] = params
        if cuda_defaults and "foreach" in new and new["foreach"] is None and not new.get("fused"):
            new["foreach"] = True
        if new.get("capturable"):  # CUDA-graph mode is refused on CPU; keep its device-side `step` in the count
            new["capturable"], new[DEVICE_STEP_KEY] = False, True
        groups.append(new)
    clone.param_groups = groups
    state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
    for p, entries in optimizer.state.items():
        if id(p) in memo:
            state[memo[id(p)]] = {k: _state_value(v) for k, v in entries.items()}
    clone.state = state
    for name, value in list(clone.__dict__.items()):
        if isinstance(value, OrderedDict) and (name.startswith("_optimizer_") or name.endswith("_hooks")):
            setattr(clone, name, OrderedDict())
    return clone


def optimizer_class(spec: Any) -> type:
    """Optimizer class from a name (`"adam"`, `"AdamW"`, `"sgd"`, ...) or a class; ValueError/TypeError otherwise."""
    if isinstance(spec, str):
        wanted = spec.replace("_", "").lower()
        names = {n.lower(): n for n in dir(torch.optim) if isinstance(getattr(torch.optim, n), type)}
        cls = getattr(torch.optim, names[wanted]) if wanted in names else None
        if cls is None or not issubclass(cls, torch.optim.Optimizer) or cls is torch.optim.Optimizer:
            raise ValueError(f"the optimizer {spec!r} is unknown (use a torch.optim name such as adam, adamw, sgd)")
        return cls
    if isinstance(spec, type) and issubclass(spec, torch.optim.Optimizer):
        return spec
    raise TypeError(f"optimizer must be a name, an Optimizer class or instance, not {type(spec).__name__}")


def _state_value(value: Any) -> Any:
    """Optimizer state entry for the copy. Scalar tensors (Adam's `step`) keep their value, because optimizers read
    it (`.item()`) and a fake tensor has none; a value on an accelerator is not read (that would touch the device)."""
    if not isinstance(value, torch.Tensor):
        return copy.copy(value)
    if value.dim() == 0:
        from torch._subclasses.fake_tensor import unset_fake_temporarily

        number = 1
        if value.device.type == "cpu":
            with unset_fake_temporarily():  # read the user's real scalar outside the fake mode
                number = value.item()
        return torch.tensor(number, dtype=value.dtype)
    return fake_like(value, False)


def make_optimizer(spec: Any, params: list[torch.Tensor]) -> Any:
    """Optimizer over `params` from a name or an Optimizer class (lr 1e-3 when the class requires one)."""
    cls = optimizer_class(spec)
    try:
        return cls(params)
    except TypeError:
        return cls(params, lr=1e-3)
