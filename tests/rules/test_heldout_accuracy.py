"""The independent held-out set (tests/fixtures/heldout, written apart from the rules) meets the accuracy targets.

First-measurement figures, taken before any rule change, are kept in tests/fixtures/heldout/FIRST_MEASUREMENT.txt.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELDOUT = ROOT / "tests" / "fixtures" / "heldout"


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("tg_accuracy_heldout", ROOT / "benchmarks" / "accuracy.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def result(harness):
    return harness.evaluate("all", repeat=1, fixture_set="heldout")


def test_heldout_set_is_large_mixed_and_labelled():
    labels = json.loads((HELDOUT / "labels.json").read_text())
    assert len(labels) >= 40
    negatives = [n for n, lab in labels.items() if not lab["expect"]]
    assert len(negatives) >= 15
    for name, lab in labels.items():
        assert (HELDOUT / "notebooks" / name).is_file(), name
        assert set(lab) >= {"expect", "checked", "heldout", "categories"}
        # the per-category booleans agree with the expected rule ids
        leak = {c for c, on in lab["categories"].items() if on}
        from_ids = {c for rid, c in {"LEAK001": "leakage.preprocessing", "LEAK002": "leakage.overlap",
                                     "LEAK003": "leakage.overlap", "LEAK004": "leakage.multi-test",
                                     "LEAK005": "leakage.multi-test", "LEAK006": "leakage.target",
                                     "LEAK007": "leakage.overlap", "TIME001": "leakage.temporal"}.items()
                    if rid in lab["expect"]}
        assert leak == from_ids, name


def test_heldout_leakage_categories_meet_targets(harness, result):
    assert result["notebooks"] >= 40
    assert not [m for m in result["mistakes"] if m.startswith("ERROR")]
    for cat, counts in result["categories"].items():
        precision, recall = harness.pr(counts)
        assert counts["tp"] >= 5, (cat, counts)
        assert precision >= 0.97, (cat, counts, result["mistakes"])
        assert recall >= 0.90, (cat, counts, result["mistakes"])


def test_heldout_rules_are_precise(harness, result):
    for rid, counts in result["rules"].items():
        precision, _ = harness.pr(counts)
        assert precision >= 0.9, (rid, counts, result["mistakes"])
