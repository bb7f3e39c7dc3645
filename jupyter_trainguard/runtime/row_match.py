"""Rows of two splits compared exactly: fingerprints propose candidate pairs, values decide.

`exact_matches` finds, for every row of b, an equal row of a: two passes over flag tables addressed by the low
fingerprint bits (linear time, no sort of the big side) narrow both sides to candidates, a sort of the few
candidates pairs them by fingerprint, and every pair is compared value by value (NaN equals NaN). A fingerprint
collision is resolved by comparing the other rows with that fingerprint, so counts are exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MAX_TABLE_BITS = 25  # candidate filter: at most 32 MiB of flags
MAX_FALLBACK_PAIRS = 2_000_000  # exact comparisons after a fingerprint collision


def _width(rows: Any) -> int | None:
    shape = getattr(rows, "shape", None)
    if shape is None:
        return None
    return 1 if len(shape) == 1 else int(np.prod(shape[1:]))


def _comparable(a: Any, b: Any) -> bool:
    """Row hashes are comparable only within one family (frames with the same columns, arrays of one dtype)."""
    if hasattr(a, "iloc") or hasattr(b, "iloc"):
        if not (hasattr(a, "iloc") and hasattr(b, "iloc")):
            return False
        if hasattr(a, "columns") != hasattr(b, "columns"):
            return False
        if hasattr(a, "columns"):
            return list(a.columns) == list(b.columns) and list(a.dtypes) == list(b.dtypes)
        return a.dtype == b.dtype
    return _width(a) == _width(b) and getattr(a, "dtype", None) == getattr(b, "dtype", None)


def _rows_equal(a: Any, ia: np.ndarray, b: Any, ib: np.ndarray) -> np.ndarray:
    if hasattr(a, "iloc"):
        va, vb = a.iloc[ia].to_numpy(), b.iloc[ib].to_numpy()
    else:
        va, vb = np.asarray(a)[ia], np.asarray(b)[ib]
    va = va.reshape(len(ia), -1)
    vb = vb.reshape(len(ib), -1)
    eq = va == vb
    try:
        eq |= (va != va) & (vb != vb)  # NaN equals NaN for duplicate detection
    except TypeError:
        pass
    return eq.all(axis=1)


def _candidates(ha: np.ndarray, hb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices into ha and hb whose fingerprint may occur on the other side (a superset of the matches).

    Two passes over flag tables addressed by the low fingerprint bits: linear time, no sort of the big side."""
    bits = int(min(MAX_TABLE_BITS, max(10, np.ceil(np.log2(len(ha) + len(hb) + 1)) + 3)))
    mask = np.uint64((1 << bits) - 1)
    table = np.zeros(1 << bits, dtype=bool)
    table[(ha & mask).astype(np.intp)] = True
    cb = np.flatnonzero(table[(hb & mask).astype(np.intp)])
    if not len(cb):
        return np.empty(0, np.intp), cb
    table[:] = False
    table[(hb[cb] & mask).astype(np.intp)] = True
    return np.flatnonzero(table[(ha & mask).astype(np.intp)]), cb


def exact_matches(ra: Any, ha: np.ndarray, rb: Any, hb: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(rows of b equal to some row of a, the matching a row for each, candidate pairs compared).

    Fingerprints only propose candidates; every reported pair is compared value by value (NaN equals NaN)."""
    ca, cb = _candidates(ha, hb)
    if not len(ca) or not len(cb):
        return np.empty(0, np.intp), np.empty(0, np.intp), 0
    order = np.argsort(ha[ca], kind="stable")
    sa = ha[ca][order]
    hcb = hb[cb]
    left = np.searchsorted(sa, hcb)
    found = left < len(sa)
    found[found] = sa[left[found]] == hcb[found]
    ib, left = cb[found], left[found]
    ia = ca[order[left]]
    ok = _rows_equal(ra, ia, rb, ib) if len(ib) else np.zeros(0, dtype=bool)
    compared = len(ib)
    bad = np.flatnonzero(~ok)
    if len(bad):  # a collision, or several a rows share the fingerprint: try each of them
        right = np.searchsorted(sa, hcb[found][bad], side="right")
        for j, (lo, hi) in enumerate(zip(left[bad] + 1, right)):
            if compared >= MAX_FALLBACK_PAIRS or lo >= hi:
                continue
            cand = ca[order[lo:hi]]
            compared += len(cand)
            eq = _rows_equal(ra, cand, rb, np.full(len(cand), ib[bad[j]]))
            if eq.any():
                ok[bad[j]], ia[bad[j]] = True, cand[np.argmax(eq)]
    return ib[ok], ia[ok], compared


def _same_rows(a: Any, ia: np.ndarray, b: Any, ib: np.ndarray, chunk: int = 65_536) -> bool:
    """Rows a[ia] equal b[ib] pairwise (compared in chunks; fingerprints alone never decide)."""
    return all(_rows_equal(a, ia[i : i + chunk], b, ib[i : i + chunk]).all() for i in range(0, len(ia), chunk))
