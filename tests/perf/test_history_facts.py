"""The session's per-cell facts (calls, helper functions, split assignments) that the guard's seeding, split and
runtime checks read: one lookup per guarded cell, and the same facts as a fresh scan of the same code."""

from __future__ import annotations

import ast

from jupyter_trainguard.runtime import history
from jupyter_trainguard.runtime.seeding import in_use, seeded_in_history

CELLS = (
    "import numpy as np\nimport random",
    "def seed_all(s):\n    random.seed(s)\n    np.random.seed(s)",
    "x = np.random.rand(3)\nX_train, X_test = train_test_split(x)",
    "seed_all(0)",
)


def pairs() -> tuple[tuple[str, ast.Module], ...]:
    return tuple((src, ast.parse(src)) for src in CELLS)


def test_a_tuple_of_cells_is_answered_once_and_equals_a_fresh_scan(monkeypatch):
    trees = pairs()
    scanned: list[str | None] = []
    original = history.facts_for

    def spy(tree, key=None):
        scanned.append(key)
        return original(tree, key)

    monkeypatch.setattr(history, "facts_for", spy)
    first = history.all_facts(trees)
    assert len(scanned) == len(CELLS)
    assert history.all_facts(trees) is first and len(scanned) == len(CELLS), "the same tuple: no lookup per cell"
    fresh = [history._scan(t) for _, t in trees]
    assert [(f.top_calls, f.helpers, f.split_assigns) for f in first] == \
        [(f.top_calls, f.helpers, f.split_assigns) for f in fresh]

    again = pairs()  # equal content, another session state: looked up again (by source), same facts
    assert [(f.top_calls, f.helpers) for f in history.all_facts(again)] == [(f.top_calls, f.helpers) for f in first]
    assert len(scanned) == 2 * len(CELLS)

    as_list = list(trees)  # a list may change between calls: never answered from the memo
    history.all_facts(as_list)
    history.all_facts(as_list)
    assert len(scanned) == 4 * len(CELLS)


def test_seeding_reads_the_same_facts_twice_per_guarded_cell():
    trees = pairs()
    aliases = {"np": "numpy", "random": "random"}
    assert in_use({"numpy", "random"}, trees, aliases)["numpy"] is True
    seeded = seeded_in_history(trees, aliases)
    assert set(seeded) >= {"python", "numpy"}, seeded
