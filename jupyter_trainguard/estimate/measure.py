"""Measured peak of one real training step on the CPU, to check the estimator against (benchmarks, tests).

Method: copy the model and optimizer (real tensors, so the user's objects are untouched), run one warm-up step so
the optimizer state exists, drop the gradients, then run the same step as the estimator under
`torch.profiler.profile(profile_memory=True)`. The CPU allocator reports every allocation and free to the profiler,
including memory a kernel allocates internally. Summing the signed sizes of those events in time order gives the
bytes allocated during the step that are still alive (the profiler's own `total_allocated` is a process-wide counter
that carries over between profiling sessions, so it is not used). Peak = bytes alive before the step (parameters,
buffers, optimizer state, batch; unique storages) + the highest running sum. Allocations outside PyTorch's
allocator (oneDNN/MKL scratch space) are not seen. `measure_with_dispatch` gives the same step's peak from a
dispatch-mode storage log on real tensors (the estimator's own accounting, without fake tensors).
"""

from __future__ import annotations

import copy
from typing import Any

import torch

from .fakes import make_optimizer
from .steprun import loss_from_name, run_step


def _real_copies(model: torch.nn.Module, optimizer: Any) -> tuple[torch.nn.Module, Any]:
    clone = copy.deepcopy(model).train()
    params = [p for p in clone.parameters() if p.requires_grad]
    if isinstance(optimizer, torch.optim.Optimizer):
        mapping = dict(zip((id(p) for p in model.parameters()), clone.parameters()))
        groups = [{**{k: v for k, v in g.items() if k != "params"}, "params": [mapping[id(p)] for p in g["params"]]}
                  for g in optimizer.param_groups]
        opt = type(optimizer)(groups)
    elif optimizer is None:
        opt = None
    else:
        opt = make_optimizer(optimizer, params)
    return clone, opt


def _alive_bytes(*groups: Any) -> int:
    seen: dict[int, int] = {}
    for group in groups:
        for t in group:
            if isinstance(t, torch.Tensor):
                st = t.untyped_storage()
                seen[st.data_ptr()] = st.nbytes()
    return sum(seen.values())


def _leaves(value: Any) -> list[Any]:
    from torch.utils._pytree import tree_leaves

    return [t for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def _prepare(model, batch, target, loss_fn, optimizer, amp):
    clone, opt = _real_copies(model, optimizer)
    loss = loss_from_name(loss_fn) if isinstance(loss_fn, str) else loss_fn
    run_step(clone, batch, target, loss, opt, amp=amp)  # warm-up: optimizer state exists, as in the estimate's step 2
    if opt is not None:
        opt.zero_grad(set_to_none=True)
    for p in clone.parameters():
        p.grad = None
    state = [] if opt is None else [v for s in opt.state.values() for v in s.values()]
    before = _alive_bytes(clone.parameters(), clone.buffers(), state, _leaves(batch), _leaves(target))
    return clone, opt, loss, before


def measure_cpu_peak(model: torch.nn.Module, batch: Any, *, target: Any = None, loss_fn: Any = None,
                     optimizer: Any = "adam", amp: Any = False) -> int:
    """Peak bytes of one real training step on the CPU, from the profiler's allocator events."""
    from torch._C._profiler import _EventType
    from torch.profiler import ProfilerActivity, profile

    clone, opt, loss, before = _prepare(model, batch, target, loss_fn, optimizer, amp)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        run_step(clone, batch, target, loss, opt, amp=amp)

    def walk(nodes):
        for node in nodes:
            yield node
            yield from walk(node.children)

    events = sorted((e.start_time_ns, e.extra_fields.alloc_size)
                    for e in walk(prof.profiler.kineto_results.experimental_event_tree())
                    if e.tag == _EventType.Allocation and e.extra_fields.device.type == "cpu")
    current = peak = 0
    for _, delta in events:  # frees of blocks allocated before profiling are not reported, so they never count
        current += delta
        peak = max(peak, current)
    return before + peak


def measure_with_dispatch(model: torch.nn.Module, batch: Any, *, target: Any = None, loss_fn: Any = None,
                          optimizer: Any = "adam", amp: Any = False) -> int:
    """Peak bytes of the same real step from a dispatch-mode storage log (tensors only, no kernel scratch)."""
    from .accounting import Trace, account
    from .tracker import StorageLog

    clone, opt, loss, _ = _prepare(model, batch, target, loss_fn, optimizer, amp)
    log = StorageLog()
    state = [] if opt is None else [v for s in opt.state.values() for v in s.values()]
    for t in (*clone.parameters(), *clone.buffers(), *state, *_leaves(batch), *_leaves(target)):
        log.track(t)
    with log:
        run_step(clone, batch, target, loss, opt, amp=amp, mark=log.set_phase)
    log.close()
    return account(Trace(log.sizes, log.origin, log.events, log.marks), cuda=False).allocated
