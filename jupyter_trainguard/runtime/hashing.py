"""Per-row fingerprints of frames, arrays and tensors: equal rows always get equal fingerprints.

Numeric rows are copied one cache-sized chunk at a time into a buffer (`+ 0` folds -0.0 into 0.0), each 64-bit
word is mixed with its upper half (so values with many trailing zero bits still spread) and the words of a row are
reduced by one integer matrix-vector product with a fixed vector of random odd multipliers. The arithmetic wraps
modulo 2**64, so the result does not depend on summation order, chunking or the BLAS: the same row gives the same
fingerprint in the training and in the test split. Different rows can share a fingerprint; callers compare
candidate rows exactly (see `data_checks.exact_matches`). Other frames and object arrays go through
`pandas.util.hash_pandas_object(index=False)`.

Fingerprints of objects that have not changed are kept between guarded cells (`cached_row_hashes`): an entry is
keyed by the object and reused only while the object is alive, has the same shape, dtype and data pointer, the
same torch version counter, and the same values at a strided sample (one element of every row, the columns
cycling); in-place torch operations bump the version counter, and rebuilding or reassigning a split makes a new
object.
"""

from __future__ import annotations

import sys
import weakref
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

CHUNK_BYTES = 1 << 20  # rows copied per step: about 1 MiB, so the mixing and the product stay in cache
MAX_DEVICE_BYTES = 1 << 30  # larger GPU tensors are not copied to the host for hashing
_SHIFT = np.uint64(32)
_MULTIPLIERS: dict[int, np.ndarray] = {}
_CACHE: dict[int, tuple[Any, tuple[Any, ...], np.ndarray]] = {}
_CACHE_MAX = 64


class Unhashable(Exception):
    """The object cannot be hashed row-wise (unknown type, generic Dataset, ...)."""


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


def _multipliers(n: int) -> np.ndarray:
    """A fixed vector of n random odd 64-bit multipliers (the same in every process)."""
    m = _MULTIPLIERS.get(n)
    if m is None:
        m = np.random.default_rng(0x5EED + n).integers(0, 2**63, size=n, dtype=np.uint64, endpoint=False)
        m = (m << np.uint64(1)) | np.uint64(1)
        _MULTIPLIERS[n] = m
    return m


def row_hashes(rows: Any) -> np.ndarray:
    """One uint64 per row (equal rows always get equal hashes; different rows rarely do)."""
    if hasattr(rows, "iloc"):
        frame = rows.to_frame() if not hasattr(rows, "columns") else rows
        kinds = {dt.kind for dt in frame.dtypes}
        if len(frame.columns) and kinds <= set("biuf"):
            if len(set(frame.dtypes)) == 1:
                return _numeric_row_hashes(frame.to_numpy())  # one block: a view, no copy
            return _column_hashes(frame)
        import pandas as pd

        return pd.util.hash_pandas_object(rows, index=False).to_numpy(dtype=np.uint64)
    arr = np.asarray(rows)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    elif arr.ndim > 2:
        arr = arr.reshape(arr.shape[0], -1)
    if arr.dtype.kind not in "biufcmMS?":
        import pandas as pd

        return pd.util.hash_pandas_object(pd.DataFrame(arr), index=False).to_numpy(dtype=np.uint64)
    return _numeric_row_hashes(arr)


def _numeric_row_hashes(arr: np.ndarray) -> np.ndarray:
    n, d = arr.shape
    dt = arr.dtype
    row_bytes = d * dt.itemsize
    words = max(1, -(-row_bytes // 8))
    mult = _multipliers(words)
    step = max(16, CHUNK_BYTES // (words * 8))
    raw = np.zeros((min(step, max(n, 1)), words * 8), dtype=np.uint8)  # zero padding up to whole words
    values = raw[:, :row_bytes].view(dt) if row_bytes else raw[:, :0]
    w = raw.view(np.uint64)
    tmp = np.empty_like(w)
    out = np.empty(n, dtype=np.uint64)
    fold = dt.kind in "fc"
    zero = dt.type(0) if fold else None
    for start in range(0, n, step):
        block = arr[start : start + step]
        k = block.shape[0]
        if fold:
            np.add(block, zero, out=values[:k])  # -0.0 + 0 == +0.0: equal floats get equal bytes
        else:
            np.copyto(values[:k], block)
        wk, tk = w[:k], tmp[:k]
        np.right_shift(wk, _SHIFT, out=tk)
        np.bitwise_xor(wk, tk, out=wk)
        np.dot(wk, mult, out=out[start : start + k])
    return out


def _column_words(values: np.ndarray) -> np.ndarray:
    """A numeric column as one uint64 per value (floats with -0.0 folded), mixed like the row words."""
    if values.dtype.kind == "f":
        values = values + values.dtype.type(0)
    size = values.dtype.itemsize
    u = values.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]).astype(np.uint64)
    return u ^ (u >> _SHIFT)


def _column_hashes(frame: Any) -> np.ndarray:
    """Row hashes of an all-numeric frame with mixed dtypes, one column at a time (no wide copy)."""
    mult = _multipliers(len(frame.columns))
    h = np.zeros(len(frame), dtype=np.uint64)
    for j in range(len(frame.columns)):
        h += _column_words(frame.iloc[:, j].to_numpy()) * mult[j]
    return h


# -- fingerprints kept between guarded cells ---------------------------------------------------------------------


def _anchor(value: Any) -> Any:
    """The object that owns a split's rows (a loader's or TensorDataset's tensor); None: not cached."""
    mod = type(value).__module__ or ""
    if mod.startswith("pandas") or isinstance(value, np.ndarray):
        return value
    if sys.modules.get("torch") is not None:
        import torch
        from torch.utils.data import DataLoader, TensorDataset

        if isinstance(value, torch.Tensor):
            return value
        if isinstance(value, DataLoader):
            return _anchor(value.dataset)
        if isinstance(value, TensorDataset):
            return value.tensors[0]
    return None


def _sample_digest(rows: Any) -> int:
    """CRC of one element of every row (columns cycling): a changed row or column changes it."""
    if hasattr(rows, "iloc"):  # column j gives rows j, j + d, ...: no copy of the frame (`to_numpy` copies it all)
        frame = rows.to_frame() if not hasattr(rows, "columns") else rows
        d = len(frame.columns)
        crc = 0
        for j in range(d):
            col = frame.iloc[j::d, j].to_numpy()
            if col.dtype.kind in "biufcmM":
                data = np.ascontiguousarray(col).view(np.uint8)
            else:
                import pandas as pd

                data = pd.util.hash_array(col)
            crc = zlib.crc32(data, crc)
        return crc
    arr = np.asarray(rows)
    arr = arr.reshape(len(arr), -1) if arr.ndim != 2 else arr
    n, d = arr.shape
    if not n or not d:
        return 0
    i = np.arange(n)
    sample = np.ascontiguousarray(arr[i, i % d])
    if sample.dtype.kind == "O":
        import pandas as pd

        sample = pd.util.hash_array(sample)
    return zlib.crc32(sample.view(np.uint8))


def _token(anchor: Any, rows: Any) -> tuple[Any, ...]:
    """What must be unchanged for a kept fingerprint to be reused."""
    version = getattr(anchor, "_version", None)  # torch: bumped by every in-place operation
    if hasattr(rows, "iloc"):
        if hasattr(rows, "columns"):  # a frame
            cols, dtypes = tuple(map(str, rows.columns)), tuple(map(str, rows.dtypes))
        else:  # a series
            cols, dtypes = (str(rows.name),), (str(rows.dtype),)
        layout: tuple[Any, ...] = (tuple(rows.shape), cols, dtypes)
    else:
        arr = np.asarray(rows)
        layout = (arr.shape, arr.strides, str(arr.dtype), arr.__array_interface__["data"][0])
    return (type(anchor).__name__, version, layout, _sample_digest(rows))


def identity_token(value: Any, rows: Any) -> tuple[Any, tuple[Any, ...]] | None:
    """(the object owning the rows, what must stay equal for a result about them to be reused), or None."""
    anchor = _anchor(value)
    if anchor is None:
        return None
    try:
        return anchor, _token(anchor, rows)
    except Exception:  # noqa: BLE001 - an odd object is simply not reused
        return None


def cached_row_hashes(value: Any, rows: Any, compute: Callable[[Any], np.ndarray] = row_hashes) -> np.ndarray:
    """`compute(rows)` for the split object `value`, reused while the object is unchanged."""
    owned = identity_token(value, rows)
    if owned is None:
        return compute(rows)
    anchor, token = owned
    key = id(anchor)
    entry = _CACHE.get(key)
    if entry is not None and entry[0]() is anchor and entry[1] == token:
        return entry[2]
    hashes = compute(rows)
    try:
        ref = weakref.ref(anchor, lambda _r, k=key: _CACHE.pop(k, None))
    except TypeError:
        return hashes
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = (ref, token, hashes)
    return hashes


def kept_row_hashes(value: Any, rows: Any) -> np.ndarray | None:
    """The fingerprints `cached_row_hashes` kept for this unchanged object, or None (nothing is computed)."""
    anchor = _anchor(value)
    entry = _CACHE.get(id(anchor)) if anchor is not None else None
    if entry is None or entry[0]() is not anchor:
        return None
    owned = identity_token(value, rows)
    return entry[2] if owned is not None and entry[1] == owned[1] else None


def clear_cache() -> None:
    """Forget every kept fingerprint (benchmarks measure cold checks with this)."""
    _CACHE.clear()
