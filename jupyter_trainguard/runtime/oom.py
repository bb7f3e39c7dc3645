"""Out-of-memory errors: recognise them, parse the numbers PyTorch puts in the message, and give advice."""

from __future__ import annotations

import os
import re
from typing import Any

_UNITS = {"B": 1, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40,
          "KB": 1000, "MB": 1000**2, "GB": 1000**3, "TB": 1000**4}
_SIZE = r"([\d.]+)\s*([KMGT]i?B|B)"
_PATTERNS = {
    "requested": rf"Tried to allocate {_SIZE}",
    "total": rf"total capacity of {_SIZE}|{_SIZE} total capacity",
    "free": rf"of which {_SIZE} is free|{_SIZE} free",
    "allocated_by_pytorch": rf"{_SIZE} is allocated by PyTorch|{_SIZE} already allocated",
    "reserved_unallocated": rf"{_SIZE} is reserved by PyTorch but unallocated",
    "reserved_total": rf"{_SIZE} reserved in total by PyTorch",
    "process_in_use": rf"this process has {_SIZE} memory in use|Process \d+ has {_SIZE} memory in use",
}
_CPU_OOM = re.compile(r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory).*?(\d+) bytes", re.S)


def parse_size(text: str) -> int:
    """'24GiB', '512 MB', '1.5G', '1000' -> bytes."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]?i?B?)\s*", text, re.I)
    if not m:
        raise ValueError(f"not a size: {text!r} (use e.g. 24GiB, 512MB)")
    number, unit = float(m.group(1)), m.group(2).upper()
    if unit in ("", "B"):
        return int(number)
    if not unit.endswith("B"):
        unit += "IB"  # 24G means GiB
    return int(number * _UNITS[unit])


def fmt_bytes(n: int | float | None) -> str:
    if n is None:
        return "n/a"
    sign = "-" if n < 0 else ""
    n = abs(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{sign}{n:.0f} {unit}" if unit == "B" else f"{sign}{n:.2f} {unit}"
        n /= 1024
    return f"{sign}{n:.2f} TiB"


def is_oom(exc: BaseException | None) -> bool:
    if exc is None:
        return False
    if isinstance(exc, MemoryError):
        return True
    names = {c.__name__ for c in type(exc).__mro__}
    if "OutOfMemoryError" in names:
        return True
    msg = str(exc)
    return isinstance(exc, RuntimeError) and ("out of memory" in msg.lower() or bool(_CPU_OOM.search(msg)))


def parse_oom(message: str) -> dict[str, int]:
    """Numbers found in a CUDA (current or older format) or CPU allocator out-of-memory message."""
    out: dict[str, int] = {}
    for key, pattern in _PATTERNS.items():
        m = re.search(pattern, message)
        if m:
            groups = [g for g in m.groups() if g is not None]
            out[key] = int(float(groups[0]) * _UNITS[groups[1].upper()])
    m = _CPU_OOM.search(message)
    if m and "requested" not in out:
        out["requested"] = int(m.group(1))
    return out


def advice(numbers: dict[str, int], largest: list[dict[str, Any]] | None = None, estimate: int | None = None,
           retained_before: int | None = None) -> list[str]:
    """Concrete next steps, from the parsed numbers."""
    tips: list[str] = []
    req, free = numbers.get("requested"), numbers.get("free")
    unalloc = numbers.get("reserved_unallocated")
    total = numbers.get("total")
    if unalloc and req and unalloc >= req and "expandable_segments" not in os.environ.get(
            "PYTORCH_CUDA_ALLOC_CONF", ""):
        tips.append(f"{fmt_bytes(unalloc)} is reserved but unallocated (fragmentation): restart the kernel with "
                    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.")
    if req and total and req > total:
        tips.append(f"One allocation of {fmt_bytes(req)} exceeds the device ({fmt_bytes(total)}): the batch or a "
                    "layer is far too large for this GPU; shard the model or shrink the batch.")
    elif req is not None:
        shortfall = f" ({fmt_bytes(req)} requested, {fmt_bytes(free)} free)" if free is not None else ""
        tips.append("Reduce the batch size, or keep it and use gradient accumulation" + shortfall + ".")
        tips.append("Use mixed precision (torch.autocast with bf16/fp16) and gradient checkpointing for large "
                    "activations; optimizer.zero_grad(set_to_none=True) frees gradients between steps.")
    if retained_before:
        tips.append(f"{fmt_bytes(retained_before)} was already allocated before the cell started: del models or "
                    "tensors from earlier cells (and %reset -f out) before retrying.")
    if largest:
        top = ", ".join(f"{o['name']} ({fmt_bytes(o['bytes'])})" for o in largest[:3])
        tips.append(f"Largest objects in the namespace: {top}.")
    if estimate:
        tips.append(f"The estimate before the run was {fmt_bytes(estimate)}.")
    if not tips:
        tips.append("Reduce the batch size or model size, or free memory held by earlier cells.")
    return tips
