"""Runs benchmarks/accuracy.py on the labelled fixtures and asserts the accuracy targets (not timing)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("tg_accuracy", ROOT / "benchmarks" / "accuracy.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def result(harness):
    return harness.evaluate("all", repeat=1)


def test_fixture_set_is_large_and_labelled(result):
    assert result["notebooks"] >= 80
    labelled = {rid for rid, c in result["rules"].items() if c["tp"] + c["fn"] > 0}
    for rid in ("LEAK001", "LEAK002", "LEAK003", "LEAK004", "LEAK005", "LEAK006", "EVAL001", "TIME001"):
        assert rid in labelled, f"no positive fixture for {rid}"


def test_leakage_category_targets(harness, result):
    assert not [m for m in result["mistakes"] if m.startswith("ERROR")]
    for cat, counts in result["categories"].items():
        precision, recall = harness.pr(counts)
        assert counts["tp"] >= 4, cat
        assert precision >= 0.97, (cat, counts, result["mistakes"])
        assert recall >= 0.90, (cat, counts, result["mistakes"])


def test_every_measured_rule_is_precise(harness, result):
    for rid, counts in result["rules"].items():
        precision, _ = harness.pr(counts)
        assert precision >= 0.9, (rid, counts, result["mistakes"])
