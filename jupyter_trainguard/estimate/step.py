"""`estimate_training_step`: peak memory of one training step from a fake-tensor run on the CPU device."""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
from collections.abc import Iterator
from typing import Any

from .accounting import Trace, account
from .constants import (
    CUBLAS_WORKSPACE_BYTES,
    CUBLAS_WORKSPACES_PER_STEP,
    CUDA_CONTEXT_BYTES,
    ESTIMATE_STEPS,
)
from .result import EstimateUnavailable, MemoryEstimate, parse_size

_GLOBAL_HOOK_TABLES = (
    ("torch.optim.optimizer", ("_global_optimizer_pre_hooks", "_global_optimizer_post_hooks")),
    ("torch.nn.modules.module", ("_global_forward_pre_hooks", "_global_forward_hooks", "_global_backward_hooks",
                                 "_global_backward_pre_hooks", "_global_forward_hooks_always_called",
                                 "_global_forward_hooks_with_kwargs")),
)


@contextlib.contextmanager
def _quiet_global_hooks() -> Iterator[None]:
    """Global module/optimizer hooks (trackers, loggers) must not see the fake run; restored afterwards."""
    saved = []
    for module_name, names in _GLOBAL_HOOK_TABLES:
        module = sys.modules.get(module_name)
        for name in names:
            table = getattr(module, name, None)
            if isinstance(table, dict) and table:
                saved.append((table, dict(table)))
                table.clear()
    try:
        yield
    finally:
        for table, content in saved:
            table.update(content)


def _where(exc: BaseException) -> str:
    """`file:line in func` of the innermost frame outside torch and this package, if any."""
    import torch

    skip = (os.path.dirname(torch.__file__), os.path.dirname(os.path.dirname(__file__)), os.path.dirname(os.__file__))
    place = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if not frame.filename.startswith(skip):
            place = f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}"
    return f" at {place}" if place else ""


def explain_failure(exc: BaseException) -> str:
    """A 'because ...' reason for an exception raised by the fake-tensor run."""
    from torch._subclasses import fake_tensor as ft

    from .fakes import CopyError

    name = type(exc).__name__
    where = _where(exc)
    if isinstance(exc, CopyError):
        return str(exc)
    if isinstance(exc, ft.DataDependentOutputException) or "DataDependent" in name:
        return (f"the model reads tensor values{where} (data-dependent control flow such as `if x.sum() > 0`, "
                "`.item()` or `.tolist()`), and the estimate runs on fake tensors that have no values")
    if isinstance(exc, ft.DynamicOutputShapeException):
        return (f"an operation's output shape depends on tensor values{where} (`nonzero`, boolean-mask indexing, "
                "`unique`, ...), so its memory cannot be known before running on real data")
    if isinstance(exc, ft.UnsupportedOperatorException):
        return (f"operator {exc.func} has no fake-tensor (meta) implementation{where}; custom CUDA or C++ "
                "extension ops cannot be estimated")
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if "not linked with support for cuda" in message.lower() or "Torch not compiled with CUDA" in message:
        return f"the model calls CUDA directly{where}, which cannot be emulated on this machine ({message})"
    return f"the fake-tensor run of the step failed{where}: {name}: {message}"[:600]


def _device(device: str) -> tuple[str, bool]:
    import torch

    dev = torch.device(device)
    if dev.type not in ("cuda", "cpu"):
        raise ValueError(f"device must be 'cuda' or 'cpu', not {device!r}")
    return str(dev), dev.type == "cuda"


def estimate_training_step(model: Any, example_batch: Any, *, target: Any = None, loss_fn: Any = None,
                           optimizer: Any = "adam", device: str = "cuda", amp: Any = False,
                           budget: int | str | None = None, steps: int = ESTIMATE_STEPS,
                           cuda_context_bytes: int = CUDA_CONTEXT_BYTES,
                           cublas_workspace_bytes: int = CUBLAS_WORKSPACE_BYTES,
                           train_mode: bool = True) -> MemoryEstimate | EstimateUnavailable:
    """Estimate the peak memory of one training step of `model` on `example_batch`, without a GPU.

    The model, loss module, optimizer and batch are copied as fake CPU tensors (no data, nothing the size of the
    model is allocated, the user's objects are only read); `steps` steps run on them (the second has optimizer
    state, as a real loop does) while a dispatch mode logs every storage. With `device="cuda"` the log is replayed
    with CUDA rules: 512-byte rounding, `foreach` optimizers, scalar `step` tensors on the host, the caching
    allocator's segments, plus the documented cuBLAS-workspace and CUDA-context allowances. `device="cpu"` gives the
    plain peak of live tensor bytes. `optimizer` is a name ("adam", "adamw", "sgd", ...), an Optimizer class or
    instance, or None (forward/backward only). `amp` runs the forward under autocast (True/"fp16" or "bf16").
    Any failure comes back as `EstimateUnavailable` with its reason; nothing is raised.
    """
    start = time.perf_counter()
    try:
        return _estimate(model, example_batch, target, loss_fn, optimizer, device, amp, budget, steps,
                         cuda_context_bytes, cublas_workspace_bytes, train_mode, start)
    except Exception as exc:  # a bug here must not break the user's cell either
        return EstimateUnavailable(f"of an internal error in the estimator ({type(exc).__name__}: {exc})",
                                   elapsed_s=time.perf_counter() - start)


def _estimate(model: Any, example_batch: Any, target: Any, loss_fn: Any, optimizer: Any, device: str, amp: Any,
              budget: int | str | None, steps: int, cuda_context_bytes: int, cublas_workspace_bytes: int,
              train_mode: bool, start: float) -> MemoryEstimate | EstimateUnavailable:
    try:
        import torch
    except ImportError:
        return EstimateUnavailable("PyTorch is not installed")
    try:
        device_name, cuda = _device(device)
        budget_bytes = parse_size(budget) if budget is not None else None
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"the model must be a torch.nn.Module, not {type(model).__name__}")
        if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
            from .fakes import optimizer_class

            optimizer = optimizer_class(optimizer)
    except (TypeError, ValueError, RuntimeError) as exc:
        return EstimateUnavailable(str(exc), elapsed_s=time.perf_counter() - start)

    notes: list[str] = []
    rng = torch.random.get_rng_state()
    try:
        with _quiet_global_hooks():
            trace, info = _fake_run(model, example_batch, target, loss_fn, optimizer, amp, cuda, steps, train_mode,
                                    notes)
    except MemoryError:
        return EstimateUnavailable("the estimator ran out of host memory", elapsed_s=time.perf_counter() - start)
    except Exception as exc:  # anything the user's model does under fake tensors becomes a reason, not a crash
        return EstimateUnavailable(explain_failure(exc), notes=notes, elapsed_s=time.perf_counter() - start)
    finally:
        torch.random.set_rng_state(rng)

    if cuda:
        workspaces = [len(trace.sizes) + i for i in range(CUBLAS_WORKSPACES_PER_STEP)]
        for record in workspaces:  # allocated on the first GEMM of each thread and kept
            trace.sizes.append(cublas_workspace_bytes)
            trace.origin.append("setup")
            trace.categories[record] = "cublas_workspace"
        trace.events[:0] = [(record, 1) for record in workspaces]
        trace.marks = [(i + len(workspaces), name) for i, name in trace.marks]
    peaks = account(trace, cuda=cuda)
    parts = {k: v for k, v in peaks.parts.items() if v or k in ("weights", "activations")}
    if cuda:
        parts["allocator_overhead"] = peaks.reserved - peaks.allocated
        parts["cuda_context"] = cuda_context_bytes
        notes.append("CUDA figures are emulated from a CPU fake-tensor run: allocated = tensor bytes rounded to "
                     "512 B; reserved = emulated caching-allocator segments; context and cuBLAS workspaces are "
                     "documented allowances; cuDNN/NCCL workspaces and fragmentation across steps are not included")
    total = sum(parts.values())
    notes.extend(info["notes"])
    return MemoryEstimate(
        total_bytes=int(total), parts={k: int(v) for k, v in parts.items()}, device=device_name, notes=notes,
        elapsed_s=time.perf_counter() - start, allocated_peak_bytes=int(peaks.allocated),
        reserved_peak_bytes=int(peaks.reserved), peak_phase=peaks.phase, phase_peaks=peaks.phase_peaks,
        parameters=int(info["parameters"]), budget_bytes=budget_bytes)


def _fake_run(model: Any, batch: Any, target: Any, loss_fn: Any, optimizer: Any, amp: Any, cuda: bool, steps: int,
              train_mode: bool, notes: list[str]) -> tuple[Trace, dict[str, Any]]:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    from .fakes import fake_module, fake_optimizer, fake_value, make_optimizer
    from .redirect import CpuOnly
    from .steprun import loss_from_name, run_step
    from .tracker import StorageLog

    original = getattr(model, "_orig_mod", None)
    if isinstance(original, torch.nn.Module):  # torch.compile wrapper: estimate the eager module
        model = original
        notes.append("torch.compile'd model: estimated in eager mode (compiled graphs usually need less)")
    log = StorageLog()
    memo: dict[int, Any] = {}
    with FakeTensorMode(allow_non_fake_inputs=True), CpuOnly():
        fmodel = fake_module(model, memo)
        if train_mode:
            fmodel.train()
        floss = loss_from_name(loss_fn) if isinstance(loss_fn, str) else loss_fn
        if isinstance(floss, torch.nn.Module):
            floss = fake_module(floss, memo)
        fbatch = fake_value(batch, memo)
        ftarget = fake_value(target, memo)
        params = [p for p in fmodel.parameters() if p.requires_grad]
        if optimizer is None:
            fopt = None
        elif isinstance(optimizer, torch.optim.Optimizer):
            fopt = fake_optimizer(optimizer, memo, cuda_defaults=cuda)
        else:
            fopt = make_optimizer(optimizer, params)
            if cuda:
                for group in fopt.param_groups:
                    if group.get("foreach", False) is None and not group.get("fused"):
                        group["foreach"] = True
        weights = {log.track(t) for t in (*fmodel.parameters(), *fmodel.buffers())}
        if isinstance(floss, torch.nn.Module):
            weights |= {log.track(t) for t in (*floss.parameters(), *floss.buffers())}
        if fopt is not None:  # parameters only the optimizer knows about (e.g. a learnable loss weight)
            weights |= {log.track(p) for g in fopt.param_groups for p in g["params"]}
        batch_records = {log.track(t) for t in _tensors(fbatch) + _tensors(ftarget)}
        state_records: set[int] = set()
        grads: set[int] = set()
        host_only: set[int] = set()
        if fopt is not None:
            _collect_state(log, fopt, state_records, host_only)

        def after_backward() -> None:
            for p in fmodel.parameters():
                record = log.record_of(p.grad)
                if record is not None:
                    grads.add(record)

        def after_step() -> None:
            _collect_state(log, fopt, state_records, host_only)

        with log:
            for i in range(steps):
                run_step(fmodel, fbatch, ftarget, floss, fopt, amp=amp,
                         mark=lambda phase, i=i: log.set_phase(f"step {i + 1} {phase}"),
                         after_backward=after_backward, after_step=after_step)
        log.close()
    categories: dict[int, str] = {}
    for name, records in (("batch", batch_records), ("optimizer_state", state_records), ("gradients", grads),
                          ("weights", weights)):
        categories.update({r: name for r in records if r is not None})
    trace = Trace(log.sizes, log.origin, log.events, log.marks, categories, host_only if cuda else set())
    info = {"parameters": sum(p.numel() for p in fmodel.parameters()), "notes": _op_notes(log, cuda)}
    return trace, info


def _tensors(value: Any) -> list[Any]:
    import torch
    from torch.utils._pytree import tree_leaves

    return [t for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def _collect_state(log: Any, optimizer: Any, records: set[int], host_only: set[int]) -> None:
    """Optimizer state tensors; on CUDA, scalar `step` counters stay on the host unless capturable/fused."""
    import torch

    from .fakes import DEVICE_STEP_KEY

    device_step = {id(p) for g in optimizer.param_groups
                   if g.get("capturable") or g.get("fused") or g.get(DEVICE_STEP_KEY) for p in g["params"]}
    for param, entries in optimizer.state.items():
        for key, value in entries.items():
            if not isinstance(value, torch.Tensor):
                continue
            record = log.track(value)
            if record is None:
                continue
            records.add(record)
            if key == "step" and value.dim() == 0 and id(param) not in device_step:
                host_only.add(record)


def _op_notes(log: Any, cuda: bool) -> list[str]:
    ops = log.ops
    notes = []
    if cuda and any("scaled_dot_product" in op for op in ops):
        notes.append("attention ran through the CPU SDPA kernel; CUDA picks flash or memory-efficient attention, "
                     "whose saved tensors differ slightly")
    if cuda and any("_scaled_dot_product_attention_math" in op for op in ops):
        notes.append("attention used the math path (full attention matrix): on CUDA with flash attention the real "
                     "peak is likely lower")
    if any("rnn" in op or "lstm" in op or "gru" in op for op in ops):
        notes.append("recurrent layers: the fake kernel of the CPU RNN op reports an empty workspace, so the saved "
                     "RNN workspace is missing (an LSTM measured 16% above the estimate on CPU); cuDNN keeps its own "
                     "reserve buffer on CUDA")
    if cuda and any("conv" in op for op in ops):
        notes.append("convolutions: cuDNN workspaces (algorithm-dependent, usually tens of MiB) are not included")
    return notes
