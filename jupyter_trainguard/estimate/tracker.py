"""A TorchDispatchMode that logs every storage allocation and free of a run (fake or real tensors).

The log is an ordered list of events; categories (weights, gradients, ...) and device rules (CUDA rounding, host-only
tensors) are applied afterwards by `accounting`, so one run serves every view. Storages are keyed by identity (PyTorch
keeps one Python object per live storage) and freed through a weakref finalizer. Views share their base's storage and
are counted once. Not seen: memory allocated inside a kernel without a tensor (library workspaces), which a fake run
cannot see either.
"""

from __future__ import annotations

import weakref
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.weak import WeakIdKeyDictionary


class StorageLog(TorchDispatchMode):
    """Records `(record, +1)` at allocation and `(record, -1)` at free; `sizes[record]` is the storage's bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []
        self.origin: list[str] = []  # phase in which each record was allocated
        self.events: list[tuple[int, int]] = []
        self.marks: list[tuple[int, str]] = []  # (index into events, phase that starts there)
        self.phase = "setup"
        self._live: Any = WeakIdKeyDictionary()  # storage -> [record]
        self._open = True
        self.ops: set[str] = set()  # names of the aten ops seen (for notes about device-specific kernels)

    def set_phase(self, name: str) -> None:
        self.phase = name
        self.marks.append((len(self.events), name))

    def close(self) -> None:
        """Stop recording: frees after this point (end of the run, garbage collection) are not part of the step."""
        self._open = False

    def _free(self, holder: list[int]) -> None:
        if self._open:
            self.events.append((holder[0], -1))

    def _new_record(self, nbytes: int) -> int:
        record = len(self.sizes)
        self.sizes.append(nbytes)
        self.origin.append(self.phase)
        self.events.append((record, 1))
        return record

    def track(self, tensor: Any) -> int | None:
        """Start accounting for `tensor`'s storage (if new) and return its record, or None for non-tensors."""
        if not isinstance(tensor, torch.Tensor):
            return None
        try:
            storage = tensor.untyped_storage()
            nbytes = storage.nbytes()
        except Exception:  # sparse, nested or opaque tensors have no plain storage
            return None
        holder = self._live.get(storage)
        if holder is not None:
            if nbytes != self.sizes[holder[0]] and self._open:  # resized in place (resize_, out= kernels)
                self.events.append((holder[0], -1))
                holder[0] = self._new_record(nbytes)
            return holder[0]
        holder = [self._new_record(nbytes)]
        self._live[storage] = holder
        weakref.finalize(storage, self._free, holder)
        return holder[0]

    def record_of(self, tensor: Any) -> int | None:
        """Record of a tensor already tracked, without adding it."""
        if not isinstance(tensor, torch.Tensor):
            return None
        try:
            holder = self._live.get(tensor.untyped_storage())
        except Exception:
            return None
        return None if holder is None else holder[0]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.ops.add(str(func))
        if self._open:
            for leaf in tree_leaves(out):
                self.track(leaf)
        return out
