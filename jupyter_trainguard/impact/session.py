"""Impact in a live kernel: after a `%%guarded_train` cell, and for `%trainaudit --impact`."""

from __future__ import annotations

import re
from typing import Any

from ..findings import Finding
from .budget import Budget
from .measure import is_leak, measure_findings

FIT_CALL = re.compile(r"\.fit\w*\s*\(")
_TRANSFORMED: dict[str, str] = {}  # raw cell -> Python source (IPython's transforms do not change per session)


def python_sources(raw: list[str], shell: Any = None) -> list[str]:
    """Executed cells as Python: a `%%guarded_train`-like cell becomes its body, line magics are transformed
    (memoised per cell text, so a long session is not re-tokenised after every guarded cell)."""
    from ..notebook.ipython_syntax import PYTHON_BODY_MAGICS, split_cell_magic

    out = []
    for text in raw:
        key = text if shell is not None else "\0" + text
        src = _TRANSFORMED.get(key)
        if src is None:
            src = text
            magic, body, _ = split_cell_magic(src)
            if magic is not None:
                src = body if magic in PYTHON_BODY_MAGICS else ""
            if shell is not None:
                try:
                    src = shell.transform_cell(src)
                except Exception:  # noqa: BLE001
                    pass
            if len(_TRANSFORMED) > 4096:
                _TRANSFORMED.clear()
            _TRANSFORMED[key] = src
        out.append(src)
    return out


def about_cell(f: Finding, number: int) -> bool:
    """A finding of the guarded cell (cell `number`, counted from 1): a runtime finding, or a static one whose
    location or evaluation/fit cell is that cell. Leaks of earlier cells are measured by `%trainaudit --impact`."""
    if f.source == "runtime":
        return True
    ev = f.evidence
    cells = {ev.get("eval_cell"), ev.get("fit_cell") if f.category == "leakage.target" else None}
    if f.location.cell is not None:
        cells.add(f.location.cell + 1)
    return number in cells


def cell_seconds(run: Any) -> float:
    """The guarded cell's own time: the run's duration less the checks before it."""
    return max(0.0, run.duration_s - (run.static_ms + run.runtime_ms) / 1000.0)


def measure_run(
    shell: Any, cell: str, run: Any, seconds: float | None = None, memory_bytes: int | None = None
) -> list[dict[str, Any]]:
    """Measure the leaks of a successful guarded run; the records go into the findings' evidence["impact"]."""
    if run.status != "ok":
        return []
    fits_here = bool(run.options.get("runtime", True)) and FIT_CALL.search(cell) is not None
    if not fits_here and not any(is_leak(f) for f in run.findings):
        return []  # nothing to measure and no model fitted here: no per-cell cost
    from ..runtime.guard import session_sources

    budget = Budget.for_cell(cell_seconds(run), seconds, memory_bytes)  # counts from here: all of the work
    raw, _ = session_sources(shell, cell)
    sources = python_sources(raw, shell)
    if fits_here:
        run.runtime_findings.extend(scored_on_fit_rows(shell.user_ns, sources, run.runtime_findings))
    if not any(is_leak(f) for f in run.findings):
        return []
    here = [f for f in run.findings if about_cell(f, len(raw))]
    records = measure_findings(here, shell.user_ns, sources, budget)
    measured = [r for r in records if r.get("status") == "measured"]
    if records:
        run.notes.append(
            f"impact: {len(measured)} of {len(records)} leak measurement(s) done in "
            f"{budget.elapsed():.2f} s (budget {budget.seconds:.1f} s)"
        )
    return records


def scored_on_fit_rows(user_ns: dict[str, Any], sources: list[str], known: list[Finding]) -> list[Finding]:
    """DATA001 for a model the last cell fitted on rows it then scored on (e.g. `pipe.fit(X, y)` then
    `pipe.score(X_test, y_test)`): the checks before the cell cannot see a model that did not exist yet."""
    import numpy as np

    from ..findings import Location
    from ..runtime import rules as R
    from ..runtime.hashing import Unhashable
    from .locate import NotMeasurable, candidates
    from .plans import fingerprints
    from .scene import read_scene

    last = len(sources) - 1
    try:
        pairs = candidates(read_scene(sources), user_ns)
    except NotMeasurable:
        return []
    told = {(f.evidence.get("train"), f.evidence.get("other")) for f in known if f.rule_id == "DATA001"}
    out = []
    for sc, fit in pairs:
        if fit.cell != last or (fit.x, sc.x) in told:
            continue
        try:
            shared = int(np.isin(fingerprints(user_ns[sc.x]), fingerprints(user_ns[fit.x])).sum())
        except (Unhashable, TypeError, ValueError):
            continue
        if shared:
            n = len(user_ns[sc.x])
            told.add((fit.x, sc.x))
            out.append(
                R.DATA001.finding(
                    Location(path="<session>", cell=last),
                    f"{shared} of {n} rows of {sc.x} ({shared / n:.1%}) are among "
                    f"the rows {sc.model} was fitted on ({fit.x}): it is scored on rows it was trained on.",
                    {
                        "train": fit.x,
                        "other": sc.x,
                        "model": sc.model,
                        "rows": n,
                        "overlapping_rows": shared,
                        "ratio": shared / n,
                        "found": "after the cell",
                    },
                )
            )
    return out


def live_leak_findings(user_ns: dict[str, Any], sources: list[str], known: list[Finding]) -> list[Finding]:
    """The runtime leak checks (DATA001-DATA006) on the live namespace, for categories no static finding covers."""
    import ast

    from ..findings import Location
    from ..runtime.data_checks import DataContext, run_data_checks
    from ..runtime.splits import discover_splits

    trees = []
    for src in sources:
        try:
            trees.append((src, ast.parse(src)))
        except SyntaxError:
            continue
    splits = discover_splits(user_ns, trees)
    last = trees[-1][1] if trees else None
    ctx = DataContext(user_ns=user_ns, splits=splits, location=Location(path="<session>"), cell_tree=last)
    covered = {f.category for f in known if is_leak(f)}
    return [f for f in run_data_checks(ctx) if is_leak(f) and f.category not in covered]


def measure_audit(
    user_ns: dict[str, Any],
    raw_sources: list[str],
    findings: list[Finding],
    shell: Any = None,
    seconds: float | None = None,
    memory_bytes: int | None = None,
    replay: bool = False,
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """For `%trainaudit --impact`: live leak findings the static rules did not report, and the impact of all;
    with `replay`, leaks the refit could not measure are measured by replaying the session with the fixes."""
    budget = Budget.for_cell(None, seconds, memory_bytes)
    sources = python_sources(raw_sources, shell)
    extra = live_leak_findings(user_ns, sources, findings)
    records = measure_findings([*findings, *extra], user_ns, sources, budget)
    if replay:
        from pathlib import Path

        from .replay import attach_replay

        rec = attach_replay([*findings, *extra], raw_sources, Path.cwd(), max(10.0, budget.left()))
        if rec:
            records.append(rec)
    return extra, records
