"""Rows visited one by one: `for i in range(len(X))` makes `X[i]` one row of X each pass. A statistic of that one
row (an image's own mean texture, a row scaled by its own maximum) is a per-row feature, not one learned from other
rows, and the list gathered pass by pass holds every row of X. Statistics over all of X inside the loop, and models
scored on their own training rows one at a time, are still what they were.

Whole notebooks run through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = ("import numpy as np\nfrom sklearn.model_selection import train_test_split\nfrom sklearn.svm import SVC\n"
        "shots = np.load('shots.npy')\nkinds = np.load('kinds.npy')")
FEATURES = """def texture(img):
    grey = img.astype(int)
    return np.abs(np.diff(grey, axis=0)).mean(axis=0)
def describe(img):
    return np.hstack([texture(img), {own}])
rows = []
for i in range({count}):
    rows.append(describe(shots[i]))
feats = np.array(rows)"""
SCORE = ("f_tr, f_te, k_tr, k_te = train_test_split(feats, kinds, random_state=5)\n"
         "print(SVC().fit(f_tr, k_tr).score(f_te, k_te))")


@pytest.mark.parametrize("count", ["len(shots)", "shots.shape[0]"])
def test_a_statistic_of_one_row_visited_by_its_position_is_a_per_row_feature(count: str) -> None:
    code = FEATURES.format(own="img.max(axis=0)", count=count)
    assert [f.rule_id for f in analyze_sources([HEAD, code, SCORE]).findings if f.rule_id.startswith("LEAK")] == []


def test_a_statistic_of_every_row_inside_the_loop_still_leaks() -> None:
    code = FEATURES.format(own="shots.max(axis=0)", count="len(shots)")
    found = [f for f in analyze_sources([HEAD, code, SCORE]).findings if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in found] == ["LEAK001"] and "shots.max(axis=0)" in found[0].message


def test_a_model_scored_row_by_row_on_its_training_rows_is_still_overlap() -> None:
    code = ("s_tr, s_te, k_tr, k_te = train_test_split(shots, kinds, random_state=5)\nclf = SVC().fit(s_tr, k_tr)\n"
            "hits = 0\nfor i in range(len(s_tr)):\n    hits += clf.predict(s_tr[i].reshape(1, -1))[0] == k_tr[i]\n"
            "print(hits / len(s_tr))")
    assert "LEAK007" in {f.rule_id for f in analyze_sources([HEAD, code]).findings}
