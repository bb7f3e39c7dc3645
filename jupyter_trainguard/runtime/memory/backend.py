"""The one interface in front of every `torch.cuda` memory call, with a host-RSS and a scripted implementation.

Every CUDA call is guarded: on CPU-only wheels the getters return 0 while resetters, snapshots and sync raise
(AttributeError, AssertionError, KeyError, RuntimeError), so nothing here is called without checking.
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any, Protocol, runtime_checkable

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@runtime_checkable
class MemoryBackend(Protocol):
    name: str
    is_device: bool  # True for device (GPU) memory, False for host process memory

    def current(self) -> tuple[int, int]:
        """(allocated, reserved) bytes now; cheap enough for a sampler thread and a per-step hook."""

    def peak(self) -> int:
        """Peak allocated bytes since the last `reset_peak` (0 when unknown)."""

    def reset_peak(self) -> None: ...

    def counters(self) -> dict[str, int]:
        """Cumulative counters such as num_ooms and num_alloc_retries."""

    def device_info(self) -> tuple[int, int] | None:
        """(free, total) bytes of the device, or of host memory for RSS."""

    def synchronize(self) -> None: ...

    def empty_cache(self) -> None: ...

    def reset_targets(self) -> list[tuple[Any, str]]:
        """(object, attribute) of user-callable peak resetters the tracker protects during the cell."""


class CudaBackend:
    """PyTorch's caching-allocator counters for one CUDA device."""

    name = "cuda"
    is_device = True

    def __init__(self, device: int | None = None) -> None:
        import torch

        self.torch = torch
        if device is None:
            try:
                device = torch.cuda.current_device()
            except (RuntimeError, AssertionError):
                device = 0
        self.device = device
        self._reset = torch.cuda.memory.reset_peak_memory_stats  # the original, even while patched

    def _stats(self) -> dict[str, Any]:
        try:
            return self.torch.cuda.memory_stats(self.device)
        except (RuntimeError, AssertionError, AttributeError, KeyError):
            return {}

    def current(self) -> tuple[int, int]:
        try:
            d = self.torch.cuda.memory_stats_as_nested_dict(self.device)
            return int(d["allocated_bytes"]["all"]["current"]), int(d["reserved_bytes"]["all"]["current"])
        except (RuntimeError, AssertionError, AttributeError, KeyError, TypeError):
            return 0, 0

    def peak(self) -> int:
        return int(self._stats().get("allocated_bytes.all.peak", 0))

    def peak_reserved(self) -> int:
        return int(self._stats().get("reserved_bytes.all.peak", 0))

    def reset_peak(self) -> None:
        try:
            self._reset(self.device)
        except (RuntimeError, AssertionError, AttributeError):
            pass

    def counters(self) -> dict[str, int]:
        s = self._stats()
        return {k: int(s.get(k, 0)) for k in ("num_ooms", "num_alloc_retries")}

    def device_info(self) -> tuple[int, int] | None:
        try:
            free, total = self.torch.cuda.mem_get_info(self.device)
            return int(free), int(total)
        except (RuntimeError, AssertionError, AttributeError):
            return None

    def synchronize(self) -> None:
        try:
            self.torch.cuda.synchronize(self.device)
        except (RuntimeError, AssertionError):
            pass

    def empty_cache(self) -> None:
        try:
            self.torch.cuda.empty_cache()
        except (RuntimeError, AssertionError):
            pass

    def reset_targets(self) -> list[tuple[Any, str]]:
        return [(self.torch.cuda, "reset_peak_memory_stats"), (self.torch.cuda.memory, "reset_peak_memory_stats")]


def _read_proc(path: str, size: int = 16384) -> bytes:
    """One read of a /proc file (raises OSError where there is none)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def _proc_fields(path: str, *fields: bytes) -> tuple[int, ...] | None:
    """The numbers after `fields` in one read of a /proc file of `Key: value kB` lines (None where a field or the
    file is missing)."""
    try:
        text = b"\n" + _read_proc(path)
        out = []
        for field in fields:
            at = text.find(b"\n" + field)
            if at < 0:
                return None
            out.append(int(text[at + 1 + len(field):].split(None, 1)[0]))
        return tuple(out)
    except (OSError, ValueError, IndexError):
        return None


class RssBackend:
    """Host memory of this process: RSS now, and the kernel's high-water mark (VmHWM) reset per cell on Linux."""

    name = "rss"
    is_device = False

    def __init__(self) -> None:
        self._hwm_exact = False

    @property
    def _proc(self) -> Any:
        """This process in psutil (made on first use: Linux reads /proc directly, every guarded cell makes a
        backend)."""
        proc = self.__dict__.get("_psutil_proc")
        if proc is None:
            import psutil

            proc = self.__dict__["_psutil_proc"] = psutil.Process()
        return proc

    def current(self) -> tuple[int, int]:
        try:  # Linux: one read of /proc/self/statm (~2 us; psutil's memory_info takes ~12 us)
            rss = int(_read_proc("/proc/self/statm", 128).split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            rss = int(self._proc.memory_info().rss)
        return rss, rss

    def _hwm(self) -> int | None:
        kb = _proc_fields("/proc/self/status", b"VmHWM:")
        return None if kb is None else kb[0] * 1024

    @property
    def peak_exact(self) -> bool:
        return self._hwm_exact

    def peak(self) -> int:
        hwm = self._hwm() if self._hwm_exact else None
        return hwm if hwm is not None else 0

    def reset_peak(self) -> None:
        try:  # Linux: writing 5 to clear_refs resets the peak RSS (VmHWM) to the current RSS
            with open(f"/proc/{os.getpid()}/clear_refs", "w") as fh:
                fh.write("5")
            self._hwm_exact = self._hwm() is not None
        except OSError:
            self._hwm_exact = False

    def counters(self) -> dict[str, int]:
        return {}

    def device_info(self) -> tuple[int, int] | None:
        """(available, total) host memory: /proc/meminfo's two fields on Linux (psutil reads the same fields and
        parses the whole file), psutil elsewhere."""
        kb = _proc_fields("/proc/meminfo", b"MemAvailable:", b"MemTotal:")
        if kb is not None:
            return kb[0] * 1024, kb[1] * 1024
        import psutil

        vm = psutil.virtual_memory()
        return int(vm.available), int(vm.total)

    def synchronize(self) -> None:
        pass

    def empty_cache(self) -> None:
        pass

    def reset_targets(self) -> list[tuple[Any, str]]:
        return []


class ScriptedBackend:
    """A device whose allocations are driven by the test (or by a script of events replayed one per sample).

    It behaves like the CUDA caching allocator where the tracker's logic depends on it: allocated ≤ reserved,
    a peak counter that `reset_peak` and the user-facing `api.reset_peak_memory_stats` set back to the current
    value, `empty_cache` releasing reserved-but-unallocated memory, and a fixed device total.
    """

    name = "scripted"
    is_device = True

    def __init__(self, total: int = 16 << 30, script: list[tuple[str, int]] | None = None) -> None:
        self.total = total
        self.allocated = 0
        self.reserved = 0
        self._peak = 0
        self.script = list(script or [])
        self.num_ooms = 0
        self.empty_cache_calls = 0
        self.api = types.SimpleNamespace(reset_peak_memory_stats=self._user_reset)

    def alloc(self, n: int) -> None:
        self.allocated += n
        self.reserved = max(self.reserved, self.allocated)
        self._peak = max(self._peak, self.allocated)

    def free(self, n: int) -> None:
        self.allocated = max(0, self.allocated - n)

    def _user_reset(self, device: Any = None) -> None:
        self._peak = self.allocated

    def _play(self) -> None:
        if self.script:
            op, n = self.script.pop(0)
            getattr(self, op)(n)

    def current(self) -> tuple[int, int]:
        self._play()
        return self.allocated, self.reserved

    def peak(self) -> int:
        return self._peak

    def reset_peak(self) -> None:
        self._peak = self.allocated

    def counters(self) -> dict[str, int]:
        return {"num_ooms": self.num_ooms, "num_alloc_retries": 0}

    def device_info(self) -> tuple[int, int] | None:
        return self.total - self.reserved, self.total

    def synchronize(self) -> None:
        pass

    def empty_cache(self) -> None:
        self.empty_cache_calls += 1
        self.reserved = self.allocated

    def reset_targets(self) -> list[tuple[Any, str]]:
        return [(self.api, "reset_peak_memory_stats")]


class NullBackend:
    """Measures nothing: what the guard falls back to when the real backend fails, so the cell still runs."""

    name = "none"
    is_device = False
    peak_exact = False

    def current(self) -> tuple[int, int]:
        return 0, 0

    def peak(self) -> int:
        return 0

    def reset_peak(self) -> None:
        pass

    def counters(self) -> dict[str, int]:
        return {}

    def device_info(self) -> tuple[int, int] | None:
        return None

    def synchronize(self) -> None:
        pass

    def empty_cache(self) -> None:
        pass

    def reset_targets(self) -> list[tuple[Any, str]]:
        return []


def cuda_in_use(cell_source: str = "") -> bool:
    """CUDA is measured when torch is already imported (or the cell imports it) and a device is available."""
    if "torch" not in sys.modules and "torch" not in cell_source:
        return False
    try:
        import torch
    except ImportError:  # not installed, or blocked (`sys.modules["torch"] = None`)
        return False
    try:
        return bool(torch.cuda.is_available())
    except (RuntimeError, AssertionError):
        return False


def choose_backend(cell_source: str = "", prefer: str | None = None) -> MemoryBackend:
    if prefer == "rss":
        return RssBackend()
    if prefer == "cuda" or cuda_in_use(cell_source):
        return CudaBackend()
    return RssBackend()
