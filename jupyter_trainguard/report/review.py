"""Entry points of the review: the live session, notebooks on disk, the last guarded run, checkpoint files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..analysis.parsed import ParsedNotebook
from ..config import load_config
from ..engine import Selection, analyze_notebook, scan
from ..findings import Finding, Location, Report
from ..notebook.load import load_notebook
from .build import build_audit
from .model import AuditReport
from .signals import Signals, collect

SESSION = "<session>"


def _checkpoint_results(checkpoints: Sequence[str], unsafe_load: bool) -> tuple[list[dict[str, Any]], list[Finding]]:
    if not checkpoints:
        return [], []
    from .checkpoint_audit import audit_checkpoint, checkpoint_findings

    results = [audit_checkpoint(c, unsafe_load=unsafe_load) for c in checkpoints]
    return results, [f for r in results for f in checkpoint_findings(r)]


def raw_history(user_ns: dict[str, Any], shell: Any = None) -> list[str]:
    """The executed cells as typed (magics untransformed, so `%%guarded_train` bodies stay visible), index =
    execution count: the history manager's raw input when it matches `In`, else `In` itself."""
    history = list(user_ns.get("In") or [""])
    hm = getattr(shell, "history_manager", None)
    raw = list(getattr(hm, "input_hist_raw", None) or [])
    return raw if len(raw) == len(history) else history


def _held_counts(raw: list[str], shell: Any = None) -> list[int]:
    """The execution counts of the cells the kernel holds, as the guard analyses them (runtime.session_log: a cell
    that never ran drops out, a re-run cell replaces its earlier version); empty and %trainaudit cells left out."""
    counts = [i for i in range(1, len(raw)) if raw[i].strip() and "trainaudit" not in raw[i]]
    from ..runtime.session_log import log_for

    log = log_for(shell) if shell is not None else None
    if log is not None:  # `keep` always keeps its last entry (the guarded cell): a placeholder takes that place
        counts = [counts[i] for i in log.keep([*counts, None])[:-1]]
    return counts


def session_history(user_ns: dict[str, Any], shell: Any = None) -> tuple[list[str], list[int]]:
    """The executed cells the kernel holds (raw, magics included) and their execution counts, in order."""
    raw = raw_history(user_ns, shell)
    counts = _held_counts(raw, shell)
    return [raw[c] for c in counts], counts


def session_sources(user_ns: dict[str, Any], shell: Any = None) -> list[str]:
    """`In[1:]` as the kernel holds it: index = execution count - 1; a cell it does not hold (never ran, replaced by
    a re-run) and a %trainaudit cell are blanked."""
    raw = raw_history(user_ns, shell)
    held = set(_held_counts(raw, shell))
    return [raw[i] if i in held else "" for i in range(1, len(raw))]


def _current_shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    return get_ipython()


def _session_notebook(shell: Any, sources: list[str], counts: list[int | None]) -> tuple[Any, Any]:
    """The history as a notebook and where its cells are in the saved notebook, as the guard builds them
    (runtime.session_static.session_notebook). The cell running now (a %trainaudit cell, left out of the history)
    is passed last while the cells are located: the cell id of the request being executed is its own."""
    from ..runtime.session_static import session_notebook
    from ..session_cells import current_count

    now = current_count(shell) if shell is not None else None
    extra = now is not None and (not counts or counts[-1] != now)
    if extra:
        sources, counts = [*sources, ""], [*counts, now]
    nb, places = session_notebook(shell, sources, counts)
    if extra:
        nb.cells.pop()
        places.counts.pop()
        places.places.pop()
    return nb, places


def _mover(places: Any) -> Any:
    """A session location onto its notebook cell (`places.location`, as the guard relocates its findings) when the
    saved notebook holds it; a cell it does not hold keeps its history place (the key of its code in the review)
    and is named "[In k]"; a location without a cell is about the notebook when its path is known."""
    def move(loc: Location | None) -> Location | None:
        if loc is None or loc.path != SESSION:
            return loc
        if loc.cell is None:
            return replace(loc, path=places.path) if places.path else loc
        pos = loc.cell
        index, cell_id = places.places[pos] if 0 <= pos < len(places.places) else (None, None)
        if index is None:
            return replace(loc, cell_id=cell_id or loc.cell_id)
        return places.location(pos, loc)

    return move


def _relocate(report: Report, signals: Signals, places: Any) -> None:
    move = _mover(places)
    report.findings = [replace(f, location=move(f.location)) for f in report.findings]
    for s in report.suppressed:
        s.finding = replace(s.finding, location=move(s.finding.location))
    if places.path:
        report.path = places.path
    for name in ("splits", "fits", "pipelines", "seeds", "determinism", "time_evidence", "training", "saves",
                 "loads", "tracking"):
        for fact in getattr(signals, name):
            fact.location = move(fact.location)
    for fact in signals.rng_users.values():
        fact.location = move(fact.location)
    cells: dict[str, str] = {}
    for key, code in signals.cells.items():
        path, _, idx = key.rpartition("#")
        if path == SESSION and idx.isdigit():
            loc = move(Location(path=SESSION, cell=int(idx)))
            key = f"{loc.path}#{loc.cell}"
        cells[key] = code
    signals.cells = cells


def _analyze(
    sources: list[str], counts: list[int | None], selection: Selection, shell: Any
) -> tuple[Report, Signals, Any]:
    nb, places = _session_notebook(shell, sources, counts)
    report, ctx, _ = analyze_notebook(nb, load_config(Path.cwd()), selection)
    parsed = ctx.parsed if ctx is not None else ParsedNotebook.from_notebook(nb)
    signals = collect(parsed, SESSION)
    _relocate(report, signals, places)
    return report, signals, places


def analyze_session(
    sources: list[str],
    path: str = SESSION,
    selection: Selection = Selection(),
    counts: list[int | None] | None = None,
    shell: Any = None,
) -> tuple[Report, Signals]:
    """The static rules over the session's cells, named as the guard names them ("cell 5 [In 3]" when the saved
    notebook holds the cell, else "[In 3]"). Without `counts`, `sources` is `In[1:]` (index = execution count - 1)
    and its empty entries are no cells. `path` is kept for compatibility: the session is analysed as the guard
    analyses it, and its findings are moved onto the notebook's path when the kernel knows it."""
    if counts is None:
        held = [(src, i + 1) for i, src in enumerate(sources) if src.strip()]
        sources, counts = [s for s, _ in held], [c for _, c in held]
    report, signals, _ = _analyze(sources, counts, selection, shell)
    return report, signals


def audit_session(
    user_ns: dict[str, Any],
    selection: Selection = Selection(),
    rerun: dict[str, Any] | None = None,
    checkpoints: Sequence[str] = (),
    unsafe_load: bool = False,
    shell: Any = None,
    hash_data: bool = True,
    impact: bool = False,
    impact_budget: float | None = None,
    impact_replay: bool = False,
) -> AuditReport:
    """Review the live kernel: its executed code (static rules) and the data objects in its namespace.

    With `impact`, each leak finding (plus the live-object leak checks the static rules did not cover) carries
    what it did to the reported metric in evidence["impact"] (clones refitted within `impact_budget` seconds);
    with `impact_replay`, leaks the refit could not measure are replayed with their fixes in a separate kernel."""
    from .provenance import collect_provenance, datetime_columns

    sources, counts = session_history(user_ns, shell)  # what the kernel holds, as the guard analyses it
    report, signals, places = _analyze(sources, list(counts), selection, shell)
    prov = collect_provenance(user_ns, hash_data=hash_data)
    ck, ck_findings = _checkpoint_results(checkpoints, unsafe_load)
    live: list[Finding] = []
    note = None
    if impact:
        live, note = _impact(user_ns, sources, report.findings, shell, impact_budget, impact_replay)
    from .guarded_runs import last_run_runtime_findings

    # what the run panel showed is a finding here too; its cell named as the run panel names it
    guarded, guarded_note = last_run_runtime_findings(user_ns, places)
    guarded = [f for f in guarded if f.rule_id not in {x.rule_id for x in live}]
    audit = build_audit(
        [report],
        signals,
        subject=prov.get("notebook") or "live session",
        mode="session",
        live_time_columns=datetime_columns(user_ns),
        env_start=prov.get("notebook"),
        provenance=prov,
        rerun=rerun,
        checkpoints=ck,
        extra_findings=ck_findings + live + guarded,
    )
    for text in (guarded_note, note):
        if text:
            audit.notes.append(text)
    return audit


def _impact(
    user_ns: dict[str, Any],
    sources: list[str],
    findings: list[Finding],
    shell: Any,
    seconds: float | None,
    replay: bool = False,
) -> tuple[list[Finding], str]:
    """Live leak findings added for the impact, and a note on what was measured."""
    import time

    from ..impact.session import measure_audit

    t0 = time.perf_counter()
    try:
        live, records = measure_audit(user_ns, sources, findings, shell=shell, seconds=seconds, replay=replay)
    except Exception as exc:  # noqa: BLE001 - the review must still be shown
        return [], f"impact not measured: {type(exc).__name__}: {exc}"
    done = sum(1 for r in records if r.get("status") == "measured")
    if not records:
        return live, "impact: no leak finding to measure"
    return live, (
        f"impact: {done} of {len(records)} leak measurement(s) done in {time.perf_counter() - t0:.2f} s"
        + (f" (budget {seconds:g} s)" if seconds is not None else "")
    )


def audit_paths(
    paths: Sequence[str],
    selection: Selection = Selection(),
    config_file: str | None = None,
    checkpoints: Sequence[str] = (),
    unsafe_load: bool = False,
) -> tuple[AuditReport, list[str]]:
    """Review notebooks (or folders of notebooks) without running them; returns (audit, input errors)."""
    from .provenance import collect_provenance

    result = scan(list(paths), selection=selection, config_file=config_file)
    signals = Signals()
    for rep in result.reports:
        nb = load_notebook(rep.path)
        if nb.error is None:
            signals.merge(collect(ParsedNotebook.from_notebook(nb), rep.path))
    first = str(paths[0]) if paths else None
    prov = collect_provenance(None, first)
    prov["notebooks"] = [r.path for r in result.reports]
    ck, ck_findings = _checkpoint_results(checkpoints, unsafe_load)
    subject = ", ".join(str(p) for p in paths)
    audit = build_audit(
        result.reports,
        signals,
        subject=subject,
        mode="path",
        env_start=first,
        provenance=prov,
        checkpoints=ck,
        extra_findings=ck_findings,
    )
    return audit, result.errors


def audit_checkpoints(
    checkpoints: Sequence[str], unsafe_load: bool = False, results: list[dict[str, Any]] | None = None
) -> AuditReport:
    """Review checkpoint files alone (part 4 filled, the others not applicable); `results` reuses audits."""
    if results is None:
        ck, ck_findings = _checkpoint_results(checkpoints, unsafe_load)
    else:
        from .checkpoint_audit import checkpoint_findings

        ck, ck_findings = results, [f for r in results for f in checkpoint_findings(r)]
    signals = Signals()
    return build_audit(
        [], signals, subject=", ".join(checkpoints), mode="checkpoint", checkpoints=ck, extra_findings=ck_findings
    )


class RuntimeUnavailable(Exception):
    """`%%guarded_train`'s runtime is not installed, or no guarded run happened yet."""


def last_run_dict() -> dict[str, Any]:
    try:
        from .. import runtime
    except ImportError as exc:
        raise RuntimeUnavailable(
            f"the %%guarded_train runtime (jupyter_trainguard.runtime) is not available: {exc}"
        ) from None
    getter = getattr(runtime, "last_run", None)
    if getter is None:
        raise RuntimeUnavailable("jupyter_trainguard.runtime has no last_run(); update jupyter-trainguard")
    run = getter()
    if run is None:
        raise RuntimeUnavailable("no %%guarded_train run in this kernel yet")
    data = run.to_dict() if hasattr(run, "to_dict") else dict(run)
    if not isinstance(data.get("findings"), list):
        raise RuntimeUnavailable("the last guarded run has no findings list")
    return data


def run_outcome(data: dict[str, Any]) -> str | None:
    """How a guarded run ended when it did not succeed: failed (with the exception type; interrupted for
    KeyboardInterrupt; out of memory with the allocator's message) or refused (with the reasons)."""
    status = data.get("status")
    err = data.get("error") or {}
    if status == "failed":
        kind = err.get("type") or "an exception"
        if kind == "KeyboardInterrupt":
            return "The guarded run was interrupted (KeyboardInterrupt): its results are partial."
        how = f"{kind}" + (f" — out of memory: {err['message']}" if err.get("oom") and err.get("message") else "")
        return f"The guarded run FAILED with {how}; the exception was re-raised in the cell."
    if status == "refused":
        reasons = "; ".join(data.get("refused_because") or []) or "see the run panel"
        return f"The guarded run was REFUSED before it started: {reasons}."
    return None


def audit_run_dict(
    data: dict[str, Any], selection: Selection = Selection(), sources: list[str] | None = None, shell: Any = None
) -> AuditReport:
    """Review a guarded run: its findings (runtime and static, as the run recorded them). When the session's code
    is given (`In[1:]`, what the run's static checks saw) it is analysed for the descriptive facts and for the list
    of static rules that ran; its findings are not added twice. `shell` (default: this kernel's) locates its cells
    in the saved notebook."""
    findings = [Finding.from_dict(f) for f in data["findings"]]
    reports: list[Report] = []
    signals = Signals()
    if sources:
        report, signals = analyze_session(sources, selection=selection,
                                          shell=shell if shell is not None else _current_shell())
        report.findings = []
        reports.append(report)
    summary = {k: v for k, v in data.items() if k != "findings" and isinstance(v, (str, int, float, bool))}
    outcome = run_outcome(data)
    if outcome:
        summary["outcome"] = outcome
    audit = build_audit(
        reports, signals, subject="last %%guarded_train run", mode="last-run", run=summary, extra_findings=findings
    )
    if outcome:
        audit.notes.insert(0, outcome)
    audit.notes.append(
        f"{sum(1 for f in findings if f.source == 'runtime')} runtime finding(s) from the guarded "
        "run; the run record does not list which runtime checks passed."
    )
    return audit
