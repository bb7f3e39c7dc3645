"""The bad/good pair check the API-table tests share: whole notebooks (cells separated by `# %%`) after a
prelude cell, run through the real engine."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

LEAKS = ("LEAK001", "LEAK002", "LEAK003", "LEAK007")


def leak_ids(prelude: str, code: str) -> set[str]:
    """The leak rules the engine reports on `prelude` followed by the cells of `code`."""
    rep = analyze_sources([prelude] + code.split("\n# %%\n"))
    return {f.rule_id for f in rep.findings if f.rule_id in LEAKS}


def check_pair(prelude: str, case: str, rule: str | None, bad: str, good: str) -> None:
    """`bad` raises `rule` (None: nothing asked of it) and `good` raises no leak."""
    if rule is not None:
        assert rule in leak_ids(prelude, bad), case
    assert not leak_ids(prelude, good), case
