"""parse_size, byte formatting, result serialisation and the caching-allocator emulation (no torch needed)."""

from __future__ import annotations

import json

import pytest

from jupyter_trainguard.estimate import EstimateUnavailable, MemoryEstimate, format_bytes, parse_size
from jupyter_trainguard.estimate.allocator import CachingAllocatorModel, round_size, segment_size, simulate_reserved

MIB = 1 << 20


@pytest.mark.parametrize("text, expected", [
    ("24GiB", 24 * 1024**3), ("24 GiB", 24 * 1024**3), ("16GB", 16 * 10**9), ("512MiB", 512 * MIB),
    ("1.5GiB", 3 * 1024**3 // 2), ("300MB", 300 * 10**6), ("4096", 4096), ("4096B", 4096), ("2kib", 2048),
    (1000, 1000), ("1e3", 1000),
])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["", "GiB", "12 parsecs", "-5", "1..5GB", True])
def test_parse_size_rejects(bad):
    with pytest.raises(ValueError):
        parse_size(bad)


def test_format_bytes():
    assert format_bytes(512) == "512 B"
    assert format_bytes(3 * MIB // 2) == "1.5 MiB"
    assert format_bytes(24 * 1024**3) == "24.00 GiB"


def test_round_size_and_segments():
    assert [round_size(n) for n in (0, 1, 512, 513, 4000)] == [0, 512, 512, 1024, 4096]
    assert segment_size(512) == 2 * MIB  # small pool
    assert segment_size(MIB) == 2 * MIB
    assert segment_size(MIB + 512) == 20 * MIB  # large request under 10 MiB
    assert segment_size(10 * MIB + 512) == 12 * MIB  # rounded up to 2 MiB


def test_allocator_reuses_cached_blocks_and_merges_free_neighbours():
    model = CachingAllocatorModel()
    model.malloc("a", 4 * MIB)  # new 20 MiB segment, split: 16 MiB stays cached
    model.malloc("b", 4 * MIB)  # served from the cached rest
    assert model.reserved == 20 * MIB and model.allocated == 8 * MIB
    model.free("a")
    model.free("b")  # a, b and the rest merge back into one 20 MiB block
    model.malloc("c", 18 * MIB)  # needs 18 MiB contiguous: fits only if merged
    assert model.reserved == 20 * MIB and model.allocated == 18 * MIB
    model.malloc("d", 100)  # small pool: its own 2 MiB segment
    assert model.reserved == 22 * MIB and model.peak_allocated == 18 * MIB + 512


def test_simulate_reserved_frees_and_peaks():
    events = [("x", 30 * MIB), ("y", 30 * MIB), ("x", 0), ("z", 30 * MIB)]
    reserved, allocated = simulate_reserved(events)
    assert allocated == 60 * MIB and reserved == 60 * MIB  # z reuses x's segment


def test_result_objects_serialise():
    est = MemoryEstimate(total_bytes=3 * MIB, parts={"weights": MIB, "activations": 2 * MIB}, device="cuda",
                         notes=["a <note>"], elapsed_s=0.1, budget_bytes=2 * MIB)
    data = json.loads(json.dumps(est.to_dict()))
    assert data["status"] == "ok" and data["fits"] is False and data["parts"]["weights"] == MIB
    assert "3.0 MiB" in est.summary() and "EXCEEDS" in est.summary()
    gone = EstimateUnavailable("the model reads tensor values")
    assert gone.summary() == "cannot estimate because the model reads tensor values"
    assert json.loads(json.dumps(gone.to_dict()))["status"] == "unavailable"
