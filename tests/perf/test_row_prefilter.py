"""The probe-column prefilter of the row-overlap check gives the exact counts of the whole-row path (every row
fingerprinted and every candidate pair compared), on data shaped to defeat it, and falls back when it cannot help."""

from __future__ import annotations

import numpy as np
import pytest

from jupyter_trainguard.runtime import row_prefilter
from jupyter_trainguard.runtime.hashing import _numeric_row_hashes
from jupyter_trainguard.runtime.row_match import exact_matches
from jupyter_trainguard.runtime.row_prefilter import prefiltered_overlap

RNG = np.random.default_rng(11)


@pytest.fixture
def small_splits(monkeypatch):
    """Splits of a few thousand rows take the prefilter too (its size threshold is only a speed choice)."""
    monkeypatch.setattr(row_prefilter, "MIN_ELEMENTS", 1 << 16)


def whole_rows(a: np.ndarray, b: np.ndarray) -> int:
    a2, b2 = a.reshape(len(a), -1), b.reshape(len(b), -1)
    ib, _, _ = exact_matches(a2, _numeric_row_hashes(a2), b2, _numeric_row_hashes(b2))
    return int(len(ib))


def planted(base: np.ndarray, n_test: int, copies: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = base[:-n_test].copy(), base[-n_test:].copy()
    b[:copies] = a[RNG.choice(len(a), copies, replace=False)]
    return a, b


def images() -> np.ndarray:
    img = np.zeros((12_000, 28, 28), np.float32)  # zero borders: most columns never vary
    img[:, 8:20, 8:20] = RNG.random((12_000, 12, 12), dtype=np.float32)
    return img


CASES = {
    "uniform-float32": lambda: RNG.random((12_000, 784), dtype=np.float32),
    "images-with-zero-borders": images,
    "few-values-uint8": lambda: (RNG.random((12_000, 400)) * 3).astype(np.uint8),
    "int64-ids": lambda: RNG.integers(0, 1 << 40, (12_000, 300)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_counts_equal_the_whole_row_path(case, small_splits):
    a, b = planted(CASES[case](), 2_000, 37)
    fast = prefiltered_overlap(a.reshape(len(a), -1), b.reshape(len(b), -1))
    assert fast is not None, "the prefilter applies to these big numeric splits"
    assert fast[0] == whole_rows(a, b) >= 37


def test_equal_rows_that_differ_only_outside_the_probes_are_not_counted_and_signed_zero_and_nan_match(small_splits):
    a = RNG.random((8_000, 300))
    b = a[:1_500].copy()
    b[:500, 299] += 1.0  # differ in the last column only: candidates by the probes, rejected by the values
    zero_rows = np.flatnonzero(a[:1_500, 0] < 0.5)[:50]
    a[zero_rows, 150] = 0.0
    b[zero_rows, 150] = -0.0  # -0.0 == 0.0
    a[1_000:1_010, 10] = np.nan
    b[1_000:1_010, 10] = np.nan  # NaN equals NaN for duplicates
    fast = prefiltered_overlap(a, b)
    assert fast is not None and fast[0] == whole_rows(a, b) == 1_000


def test_repetitive_data_falls_back_and_small_or_narrow_splits_skip_it():
    rep = np.repeat(RNG.random((5, 784), dtype=np.float32), 3_000, axis=0)  # every row agrees with 2,999 others
    assert prefiltered_overlap(rep[::2], rep[1::2]) is None
    assert prefiltered_overlap(RNG.random((500, 784)), RNG.random((100, 784))) is None  # small
    assert prefiltered_overlap(RNG.random((200_000, 20)), RNG.random((50_000, 20))) is None  # narrow
    assert prefiltered_overlap(RNG.random((9_000, 300)), RNG.random((3_000, 299))) is None  # other width
