"""What the last `%%guarded_train` run of this kernel found on live objects, for the session review: a runtime
finding the run panel showed is a finding of the review too, never "skipped"."""

from __future__ import annotations

from ..findings import Finding


def last_run_runtime_findings(user_ns: dict | None = None) -> tuple[list[Finding], str | None]:
    """(the runtime findings of this session's last guarded run, a note naming that run); ([], None) before any.
    The run is the one in the session's namespace (`_trainguard_last`), so another shell's run never leaks in."""
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
    cell = f"[In {run.execution_count}]" if run.execution_count is not None else "the last guarded cell"
    note = (
        f"{len(findings)} runtime finding(s) from the last %%guarded_train run ({cell}, {run.status}) "
        "are included; runtime checks it did not report stay listed as skipped."
    )
    return findings, note
