"""Loops over settings that split anew on every pass score each pass on other rows: they repeat an estimate
(several seeds, folds chosen by hand) and choose nothing, unless their scores are then used to pick the pass.
A split with a fixed seed inside the loop holds out the same rows on every pass: that still chooses."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
df = pd.read_csv("table.csv")
X, y = df[["a", "b"]], df["label"]"""

MULTI = ("LEAK004", "LEAK005")


def multi_test(code: str) -> set[str]:
    rep = analyze_sources([PRELUDE, code])
    return {f.rule_id for f in rep.findings if f.rule_id in MULTI}


def test_a_split_per_seed_averaged_chooses_nothing() -> None:
    code = ("scores = []\nfor seed in range(5):\n"
            "    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=seed)\n"
            "    scores.append(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))\nprint(np.mean(scores))")
    assert not multi_test(code)


def test_folds_chosen_by_hand_from_the_loop_variable_choose_nothing() -> None:
    code = ("for k in range(5):\n    tr, te = df[df['fold'] != k], df[df['fold'] == k]\n"
            "    m = LogisticRegression().fit(tr[['a', 'b']], tr['label'])\n"
            "    print(k, m.score(te[['a', 'b']], te['label']))")
    assert not multi_test(code)


def test_the_best_seed_picked_by_its_test_score_is_a_choice() -> None:
    code = ("scores = []\nfor seed in range(5):\n"
            "    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=seed)\n"
            "    scores.append(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))\n"
            "best_seed = int(np.argmax(scores))")
    assert "LEAK004" in multi_test(code)


def test_a_fixed_split_inside_a_loop_over_settings_still_chooses() -> None:
    code = ("for C in [0.1, 1.0, 10.0]:\n"
            "    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=42)\n"
            "    print(C, LogisticRegression(C=C).fit(Xtr, ytr).score(Xte, yte))")
    assert multi_test(code) == {"LEAK004"}  # the choice; a repeated-scoring warning on it would say less
