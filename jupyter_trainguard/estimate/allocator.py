"""Emulation of PyTorch's CUDA caching allocator on a trace of allocations (no torch, no GPU).

`round_size` is what `torch.cuda.memory_allocated()` counts per tensor. `simulate_reserved` replays an
alloc/free trace through a simplified caching allocator (small/large pools, best-fit reuse of cached blocks,
block splitting and merging, segments never returned) and gives the peak of `memory_reserved()`, which is what
must fit on the device before the CUDA context. Not emulated: streams, `expandable_segments`,
`roundup_power2_divisions`, `max_split_size_mb`, and the free-and-retry the allocator does when cudaMalloc fails
(so the reserved figure is an upper bound for a step that would just fit).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from .constants import LARGE_BUFFER, MIN_BLOCK_SIZE, MIN_LARGE_ALLOC, ROUND_LARGE, SMALL_BUFFER, SMALL_SIZE


def round_size(nbytes: int) -> int:
    """Bytes the caching allocator hands out for a request of `nbytes` (multiple of 512, at least 512)."""
    if nbytes <= 0:
        return 0
    return -(-nbytes // MIN_BLOCK_SIZE) * MIN_BLOCK_SIZE


def segment_size(rounded: int) -> int:
    """Size of the cudaMalloc segment the allocator creates when no cached block fits."""
    if rounded <= SMALL_SIZE:
        return SMALL_BUFFER
    if rounded < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return -(-rounded // ROUND_LARGE) * ROUND_LARGE


class _Block:
    __slots__ = ("seg", "addr", "size", "free", "prev", "next")

    def __init__(self, seg: int, addr: int, size: int):
        self.seg, self.addr, self.size, self.free = seg, addr, size, True
        self.prev: _Block | None = None
        self.next: _Block | None = None


class CachingAllocatorModel:
    """A small model of the caching allocator: `malloc(key, nbytes)`, `free(key)`, `reserved`, `allocated`."""

    def __init__(self) -> None:
        self._free: dict[bool, list[tuple[int, int, int]]] = {True: [], False: []}  # pool -> sorted (size, seg, addr)
        self._blocks: dict[tuple[int, int], _Block] = {}  # (seg, addr) -> free block, for removal from the pool
        self._used: dict[object, tuple[_Block, bool]] = {}
        self._segments = 0
        self.reserved = 0
        self.allocated = 0
        self.peak_reserved = 0
        self.peak_allocated = 0

    def _add_free(self, small: bool, block: _Block) -> None:
        block.free = True
        bisect.insort(self._free[small], (block.size, block.seg, block.addr))
        self._blocks[(block.seg, block.addr)] = block

    def _remove_free(self, small: bool, block: _Block) -> None:
        pool = self._free[small]
        i = bisect.bisect_left(pool, (block.size, block.seg, block.addr))
        del pool[i]
        del self._blocks[(block.seg, block.addr)]
        block.free = False

    def malloc(self, key: object, nbytes: int) -> None:
        size = round_size(nbytes)
        if size == 0:
            return
        small = size <= SMALL_SIZE
        pool = self._free[small]
        i = bisect.bisect_left(pool, (size, -1, -1))
        if i < len(pool):
            _, seg, addr = pool[i]
            block = self._blocks[(seg, addr)]
            self._remove_free(small, block)
        else:
            seg_bytes = segment_size(size)
            self._segments += 1
            block = _Block(self._segments, 0, seg_bytes)
            block.free = False
            self.reserved += seg_bytes
            self.peak_reserved = max(self.peak_reserved, self.reserved)
        remaining = block.size - size
        if remaining >= MIN_BLOCK_SIZE if small else remaining > SMALL_SIZE:
            rest = _Block(block.seg, block.addr + size, remaining)
            rest.prev, rest.next = block, block.next
            if block.next is not None:
                block.next.prev = rest
            block.next = rest
            block.size = size
            self._add_free(small, rest)
        self._used[key] = (block, small)
        self.allocated += block.size
        self.peak_allocated = max(self.peak_allocated, self.allocated)

    def free(self, key: object) -> None:
        entry = self._used.pop(key, None)
        if entry is None:
            return
        block, small = entry
        self.allocated -= block.size
        for neighbour in (block.prev, block.next):
            if neighbour is not None and neighbour.free:
                self._remove_free(small, neighbour)
                if neighbour is block.prev:
                    neighbour.size += block.size
                    neighbour.next = block.next
                    if block.next is not None:
                        block.next.prev = neighbour
                    block = neighbour
                else:
                    block.size += neighbour.size
                    block.next = neighbour.next
                    if neighbour.next is not None:
                        neighbour.next.prev = block
        self._add_free(small, block)


def simulate_reserved(events: Iterable[tuple[object, int]]) -> tuple[int, int]:
    """Replay `(key, nbytes)` events (nbytes > 0: allocate, nbytes == 0: free `key`); return (peak reserved,
    peak allocated) in bytes."""
    model = CachingAllocatorModel()
    for key, nbytes in events:
        if nbytes > 0:
            model.malloc(key, nbytes)
        else:
            model.free(key)
    return model.peak_reserved, model.peak_allocated
