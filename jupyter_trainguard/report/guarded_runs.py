"""What the last `%%guarded_train` run of this kernel found on live objects, for the session review: a runtime
finding the run panel showed is a finding of the review too, never "skipped"."""

from __future__ import annotations

from typing import Any

from ..findings import Finding, cell_label


def run_cell_label(run: Any, places: Any = None) -> str:
    """The guarded cell as the run panel names it: "cell 5 [In 3]" when the saved notebook holds it, else "[In 3]".

    From `places` (session_cells.SessionCells of the analysed session) when it holds the cell, else from the run's
    own runtime findings (located by the guard on the guarded cell), else by the execution count alone."""
    count = getattr(run, "execution_count", None)
    if count is None:
        return "the last guarded cell"
    if places is not None:
        for pos, c in enumerate(places.counts):
            if c == count and places.places[pos][0] is not None:
                return places.label(pos)
    for f in getattr(run, "runtime_findings", None) or []:
        loc = f.location
        if loc.execution_count == count and loc.cell_text:
            return loc.cell_text
    return cell_label(None, count)


def last_run_runtime_findings(user_ns: dict | None = None, places: Any = None) -> tuple[list[Finding], str | None]:
    """(the runtime findings of this session's last guarded run, a note naming that run); ([], None) before any.
    The run is the one in the session's namespace (`_trainguard_last`), so another shell's run never leaks in.
    `places`: where the session's cells are in the saved notebook, to name the run's cell."""
    if user_ns is not None:
        run = user_ns.get("_trainguard_last")
        if run is None or not hasattr(run, "runtime_findings"):
            return [], None
    else:
        try:
            from ..runtime import last_run
        except ImportError:  # the runtime is part of the package; a broken install must not break the review
            return [], None
        run = last_run()
    if run is None:
        return [], None
    findings = list(run.runtime_findings)
    cell = run_cell_label(run, places)
    note = (
        f"{len(findings)} runtime finding(s) from the last %%guarded_train run ({cell}, {run.status}) "
        "are included; runtime checks it did not report stay listed as skipped."
    )
    return findings, note
