"""Row fingerprints and exact overlap counts on real NumPy/pandas/torch objects, and the kept fingerprints."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jupyter_trainguard.findings import Location
from jupyter_trainguard.runtime import hashing
from jupyter_trainguard.runtime.data_checks import DataContext, overlap
from jupyter_trainguard.runtime.hashing import cached_row_hashes, row_hashes
from jupyter_trainguard.runtime.row_match import exact_matches
from jupyter_trainguard.runtime.splits import Split


def brute_force(a: np.ndarray, b: np.ndarray) -> int:
    rows = {tuple(r) for r in np.asarray(a, dtype=float).tolist()}
    return sum(tuple(r) in rows for r in np.asarray(b, dtype=float).tolist())


def test_equal_rows_get_equal_fingerprints_whatever_the_layout():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5000, 7))
    h = row_hashes(x)
    assert np.array_equal(row_hashes(np.asfortranarray(x)), h)
    assert np.array_equal(row_hashes(x[1234:1300]), h[1234:1300])  # other chunk boundaries
    assert np.array_equal(row_hashes(pd.DataFrame(x)), h)
    y = x.copy()
    y[y > 1.5] = 0.0
    z = y.copy()
    z[z == 0.0] = -0.0
    assert np.array_equal(row_hashes(y), row_hashes(z))
    assert len(np.unique(h)) == len(h)


@pytest.mark.parametrize("kind", ["onehot", "bool", "small_int", "float32_image", "mixed_frame"])
def test_exact_counts_on_structured_data(kind):
    rng = np.random.default_rng(1)
    if kind == "onehot":
        a = np.eye(40)[rng.integers(0, 40, 3000)]
        b = np.eye(40)[rng.integers(0, 40, 700)]
        b[::7] = np.eye(40)[0] * 2  # never in a
    elif kind == "bool":
        a, b = rng.random((3000, 12)) < 0.2, rng.random((800, 12)) < 0.2
    elif kind == "small_int":
        a, b = rng.integers(0, 3, (4000, 5)), rng.integers(0, 3, (900, 5))
    elif kind == "float32_image":
        a = (rng.integers(0, 4, (2000, 28 * 28)) / 255).astype(np.float32)
        b = (rng.integers(0, 4, (300, 28 * 28)) / 255).astype(np.float32)
        b[:50] = a[100:150]
    else:
        a = pd.DataFrame(
            {
                "i": rng.integers(0, 4, 3000),
                "f": rng.integers(0, 3, 3000) * 0.5,
                "s": rng.integers(0, 2, 3000).astype(np.int8),
            }
        )
        b = pd.DataFrame(
            {
                "i": rng.integers(0, 4, 500),
                "f": rng.integers(0, 3, 500) * 0.5,
                "s": rng.integers(0, 2, 500).astype(np.int8),
            }
        )
    ib, ia, _ = exact_matches(a, row_hashes(a), b, row_hashes(b))
    assert len(ib) == brute_force(a, b)
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert (va[ia] == vb[ib]).all()


def test_overlap_counts_every_row_exactly_on_a_large_split():
    rng = np.random.default_rng(2)
    train = rng.normal(size=(300_000, 20))
    test = rng.normal(size=(60_000, 20))
    test[::60] = train[:1000]
    test[5] = test[6]  # a duplicate inside the test split that is not in train
    res = overlap(
        DataContext({}, [], Location("<t>")),
        Split("X_train", "train", "x", train, False, "name"),
        Split("X_test", "test", "x", test, False, "name"),
    )
    assert res["overlapping_rows"] == 1000 and res["rows"] == 60_000


def test_fingerprints_are_kept_while_the_object_is_unchanged():
    calls = []

    def compute(rows):
        calls.append(1)
        return row_hashes(rows)

    hashing.clear_cache()
    x = np.random.default_rng(3).normal(size=(2000, 6))
    first = cached_row_hashes(x, x, compute)
    assert cached_row_hashes(x, x, compute) is first and len(calls) == 1
    x[1500] = x[3]  # a row replaced in place: the sample of one element per row sees it
    again = cached_row_hashes(x, x, compute)
    assert len(calls) == 2 and again[1500] == again[3]
    y = x.copy()  # another object: its own entry
    cached_row_hashes(y, y, compute)
    assert len(calls) == 3


def test_torch_datasets_and_loaders_share_one_fingerprint_and_see_in_place_updates():
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    calls = []

    def compute(rows):
        calls.append(1)
        return row_hashes(rows)

    hashing.clear_cache()
    data = TensorDataset(torch.rand(3000, 1, 28, 28), torch.randint(0, 10, (3000,)))
    loader = DataLoader(data, batch_size=64)
    h = cached_row_hashes(data, hashing.as_rows(data), compute)
    assert cached_row_hashes(loader, hashing.as_rows(loader), compute) is h and len(calls) == 1
    data.tensors[0][10, 0, 3, 3] += 1.0  # in place through torch: the version counter moves
    cached_row_hashes(loader, hashing.as_rows(loader), compute)
    assert len(calls) == 2


def test_pandas_frames_and_series_keep_their_fingerprints_while_unchanged():
    import pandas as pd

    calls = []

    def compute(rows):
        calls.append(1)
        return row_hashes(rows)

    hashing.clear_cache()
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.normal(size=(1500, 4)), columns=list("abcd"))
    frame["city"] = rng.choice(["x", "y", "z"], 1500)
    labels = pd.Series(rng.integers(0, 2, 1500), name="label")
    first = cached_row_hashes(frame, frame, compute)
    assert cached_row_hashes(frame, frame, compute) is first and len(calls) == 1
    lab = cached_row_hashes(labels, labels, compute)
    assert cached_row_hashes(labels, labels, compute) is lab and len(calls) == 2
    frame.loc[700, "a"] = 99.0  # a value changed in place
    assert cached_row_hashes(frame, frame, compute) is not first and len(calls) == 3
    frame["e"] = 1.0  # a column added: the layout changed
    cached_row_hashes(frame, frame, compute)
    assert len(calls) == 4
