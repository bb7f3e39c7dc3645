"""Replay a live session's executed cells with the leak fixes applied, in a separate kernel, on copies.

For leaks the in-process refit cannot measure (the raw rows are gone, the model is not clonable, a pandas
statistic): the session's code becomes a notebook, `verify_notebook` runs it before and after the fixes
(`--unsafe` ones included) in two fresh kernels on a copy of the working folder, and the metrics the cells print
or display are compared."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from ..findings import Finding
from .measure import is_leak

NAME = "trainguard-session-replay.ipynb"


def replay_session(raw_sources: list[str], folder: Path, timeout: int, deadline_s: float | None = None) -> Any:
    """The `Verified` result of the session's cells (as typed) replayed before and after the fixes: each cell
    within `timeout` seconds, all of it (both kernels) within `deadline_s`."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from .verify import verify_notebook

    nb = new_notebook(cells=[new_code_cell(src) for src in raw_sources if src.strip()])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    with tempfile.TemporaryDirectory(prefix="trainguard-replay-") as tmp:
        path = Path(tmp) / NAME
        nbformat.write(nb, path)
        return verify_notebook(str(path), unsafe=True, timeout=timeout, inputs=folder, deadline_s=deadline_s)


def attach_replay(findings: list[Finding], raw_sources: list[str], folder: Path, seconds: float) -> dict[str, Any]:
    """Replay once, within `seconds` overall (kernel starts and every cell of both versions); the record goes to
    every leak finding left unmeasured whose rule a fix changed."""
    waiting = [f for f in findings if is_leak(f) and (f.evidence.get("impact") or {}).get("status") != "measured"]
    if not waiting:
        return {}
    t0 = time.perf_counter()
    result = replay_session(raw_sources, folder, timeout=max(1, int(seconds)), deadline_s=seconds)
    took = round(time.perf_counter() - t0, 2)
    fixed_rules = {fx["rule_id"] for fx in result.fixes}
    changed = [m for m in result.metrics if m["verdict"] != "unchanged"]
    base = {
        "strategy": "the session's cells replayed in two fresh kernels on copies, before and after the fixes "
        "(" + ", ".join(sorted(fixed_rules)) + ")",
        "seconds": took,
        "budget_s": seconds,
        "replay": result.to_dict(),
    }
    if result.error:
        rec = {
            "status": "not measured",
            "reason": f"replay: {result.error}",
            "summary": f"not measured: replay: {result.error}",
            **base,
        }
    elif changed:
        parts = [f"{m['label']} {_mean(m['before']):.4g} → {_mean(m['after']):.4g} ({m['change']})" for m in changed]
        rec = {
            "status": "measured",
            "verdict": "replayed",
            "summary": "replayed with the fix: " + "; ".join(parts),
            **base,
        }
    else:
        rec = {
            "status": "measured",
            "verdict": "no measurable effect",
            "summary": "replayed with the fix: no printed or displayed metric changed",
            **base,
        }
    for f in waiting:
        if f.rule_id in fixed_rules:
            f.evidence["impact"] = rec
    return rec


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)
