"""Exact row overlap of two big numeric splits without fingerprinting every whole row.

A window of adjacent probe columns (where values vary most over a sample of rows) gives each row a cheap
fingerprint: equal rows always agree on it, so only rows whose probe fingerprint occurs on the other side can be
equal. Those candidates alone get whole-row fingerprints and a value-by-value comparison
(`row_match.exact_matches`), so the count is as exact as the full path. When the probes do not narrow the rows
enough (repetitive data: many rows agree on every probed column) the caller falls back to fingerprinting every row.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .hashing import _numeric_row_hashes
from .row_match import _candidates, exact_matches

MIN_ELEMENTS = 1 << 21  # below about 2M values per side, whole-row fingerprints are already cheap
PROBES = 16  # probe columns per row
SAMPLE = 512  # rows sampled to choose them
MAX_CANDIDATE_SHARE = 0.5  # above this share of candidate rows, fingerprinting every row costs no more


def _matrix(rows: Any) -> np.ndarray | None:
    """The rows as a 2-D numeric NumPy array (a view where possible), or None for frames and other types."""
    if hasattr(rows, "iloc") or not isinstance(rows, np.ndarray) or rows.dtype.kind not in "biuf":
        return None
    return rows.reshape(len(rows), -1) if rows.ndim != 2 else rows


def probe_window(arr: np.ndarray, k: int = PROBES, sample: int = SAMPLE) -> slice:
    """The k adjacent columns whose values differ most over evenly spaced sample rows (deterministic for the
    data; adjacent, so reading them touches one or two cache lines per row)."""
    n, d = arr.shape
    k = min(k, d)
    idx = np.linspace(0, n - 1, min(n, sample)).astype(np.intp)
    s = np.sort(arr[idx], axis=0)
    distinct = 1 + (s[1:] != s[:-1]).sum(axis=0) if len(s) > 1 else np.ones(d, dtype=np.intp)
    window = np.convolve(distinct, np.ones(k, dtype=np.intp), mode="valid")  # sum over each run of k columns
    start = int(np.argmax(window))
    return slice(start, start + k)


def _avalanche(h: np.ndarray) -> np.ndarray:
    """Spread every bit of the fingerprints into the low bits `_candidates` reads (a product only carries low bits
    upwards, and a few probe bytes with small values leave the low bits nearly constant)."""
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xFF51AFD7ED558CCD)
    return h ^ (h >> np.uint64(33))


def prefiltered_overlap(ra: Any, rb: Any) -> tuple[int, int] | None:
    """(rows of b equal to some row of a, candidate pairs compared), or None when this path does not apply (small,
    not a plain numeric array, different widths or dtypes, or probes that leave too many candidates)."""
    a, b = _matrix(ra), _matrix(rb)
    if a is None or b is None or a.shape[1] != b.shape[1] or a.dtype != b.dtype:
        return None
    if min(a.size, b.size) < MIN_ELEMENTS or a.shape[1] < 4 * PROBES or not len(a) or not len(b):
        return None  # small, or narrow rows (the probes would be most of each row)
    cols = probe_window(a)
    pa = _avalanche(_numeric_row_hashes(np.ascontiguousarray(a[:, cols])))
    pb = _avalanche(_numeric_row_hashes(np.ascontiguousarray(b[:, cols])))
    ca, cb = _candidates(pa, pb)
    if len(ca) + len(cb) > MAX_CANDIDATE_SHARE * (len(a) + len(b)):
        return None
    if not len(ca) or not len(cb):
        return 0, 0
    sub_a, sub_b = a[ca], b[cb]  # gathered copies of the candidates only
    ib, _, compared = exact_matches(sub_a, _numeric_row_hashes(sub_a), sub_b, _numeric_row_hashes(sub_b))
    return int(len(ib)), compared
