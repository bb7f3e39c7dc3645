"""Vectorised per-row hashes of frames, arrays and tensors, without copying the data wholesale.

Numeric rows (arrays, tensors, all-numeric frames) are hashed by reading each row's bytes as 64-bit words and
folding them in with xor-multiply-xorshift steps plus a splitmix64 finaliser, in chunks of rows, so at most one
chunk is ever copied. Other frames and object arrays go through `pandas.util.hash_pandas_object(index=False)`.
Matches found by hash are confirmed on the raw rows for a sample, so a hash collision cannot produce a finding
on its own.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

CHUNK_ROWS = 65_536
MAX_DEVICE_BYTES = 1 << 30  # larger GPU tensors are not copied to the host for hashing
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


class Unhashable(Exception):
    """The object cannot be hashed row-wise (unknown type, generic Dataset, ...)."""


def _mix(h: np.ndarray) -> np.ndarray:
    h ^= h >> np.uint64(30)
    h *= _M1
    h ^= h >> np.uint64(27)
    h *= _M2
    h ^= h >> np.uint64(31)
    return h


def as_rows(value: Any) -> Any:
    """The 2-D (or 1-D) array-like of rows behind a split: frames stay frames; tensors become NumPy views."""
    mod = type(value).__module__ or ""
    if mod.startswith("pandas"):
        return value
    if isinstance(value, np.ndarray):
        return value
    if sys.modules.get("torch") is not None:
        import torch
        from torch.utils.data import DataLoader, Subset, TensorDataset

        if isinstance(value, torch.Tensor):
            t = value.detach()
            if t.device.type != "cpu":
                if t.element_size() * t.nelement() > MAX_DEVICE_BYTES:
                    raise Unhashable(f"{t.device.type} tensor larger than {MAX_DEVICE_BYTES >> 20} MiB")
                t = t.cpu()  # device tensors need one host copy to be hashed
            return t.reshape(t.shape[0], -1).numpy() if t.ndim > 2 else t.numpy()
        if isinstance(value, DataLoader):
            return as_rows(value.dataset)
        if isinstance(value, TensorDataset):
            return as_rows(value.tensors[0])
        if isinstance(value, Subset):
            base = as_rows(value.dataset)
            idx = np.asarray(value.indices, dtype=np.int64)
            return base.iloc[idx] if hasattr(base, "iloc") else base[idx]
    raise Unhashable(type(value).__name__)


def n_rows(value: Any) -> int:
    """Row count without materialising anything (a DataLoader counts its dataset's rows)."""
    dataset = getattr(value, "dataset", None)
    if dataset is not None and type(value).__name__ == "DataLoader":
        value = dataset
    shape = getattr(value, "shape", None)
    return int(shape[0]) if shape else int(len(value))


def subset_indices(value: Any) -> tuple[Any, Any] | None:
    """(parent dataset, indices) for a torch Subset (or a DataLoader over one), else None."""
    if sys.modules.get("torch") is None:
        return None
    from torch.utils.data import DataLoader, Subset

    if isinstance(value, DataLoader):
        value = value.dataset
    if isinstance(value, Subset):
        return value.dataset, np.asarray(value.indices, dtype=np.int64)
    return None


def row_hashes(rows: Any) -> np.ndarray:
    """One uint64 per row (equal rows always get equal hashes)."""
    if hasattr(rows, "iloc"):
        import pandas as pd

        frame = rows.to_frame() if not hasattr(rows, "columns") else rows
        if len(frame.columns) and all(dt.kind in "biuf" for dt in frame.dtypes):
            return _numeric_row_hashes(frame)  # row chunks of the frame, one small copy at a time
        return pd.util.hash_pandas_object(rows, index=False).to_numpy(dtype=np.uint64)
    arr = np.asarray(rows)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.dtype.kind not in "biufcmMS?":
        import pandas as pd

        return pd.util.hash_pandas_object(pd.DataFrame(arr), index=False).to_numpy(dtype=np.uint64)
    return _numeric_row_hashes(arr)


def _block(rows: Any, start: int, stop: int) -> np.ndarray:
    if hasattr(rows, "iloc"):
        return rows.iloc[start:stop].to_numpy()
    return rows[start:stop]


def _numeric_row_hashes(rows: Any) -> np.ndarray:
    n = len(rows)
    out = np.empty(n, dtype=np.uint64)
    shift = np.uint64(29)
    for start in range(0, n, CHUNK_ROWS):
        block = _block(rows, start, start + CHUNK_ROWS)
        # one chunk-sized copy at most; + 0.0 folds -0.0 into 0.0 so equal floats hash equally
        block = np.ascontiguousarray(block + 0.0 if block.dtype.kind in "fc" else block)
        raw = block.reshape(block.shape[0], -1).view(np.uint8)
        pad = (-raw.shape[1]) % 8
        if pad:
            raw = np.concatenate([raw, np.zeros((raw.shape[0], pad), dtype=np.uint8)], axis=1)
        words = np.ascontiguousarray(raw.view(np.uint64).T)  # column-major: each word is a contiguous row
        h = np.full(block.shape[0], _GOLD, dtype=np.uint64)
        tmp = np.empty_like(h)
        for w in words:
            np.bitwise_xor(h, w, out=h)
            np.multiply(h, _M1, out=h)
            np.right_shift(h, shift, out=tmp)
            np.bitwise_xor(h, tmp, out=h)
        out[start:start + block.shape[0]] = _mix(h)
    return out
