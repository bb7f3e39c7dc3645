"""The guarded run of one cell: checks before, measurement during, clean-up and report after.

Front-end free: `run_guarded(shell, cell, options)` is what the `%%guarded_train` magic calls; it never
displays anything and returns the `GuardRun` plus the user's exception (to be re-raised unchanged).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields
from typing import Any

from ..findings import Location, Severity
from ..session_cells import current_count
from . import rules as R
from .after_run import after, close_runs
from .report import GuardRun, set_last
from .session_static import SESSION_PATH, _Pre, join_static, session_sources, start_static, static_checks

__all__ = ["SESSION_PATH", "GuardOptions", "run_guarded", "session_sources"]


@dataclass
class GuardOptions:
    seed: int | None = None
    deterministic: bool = False
    strict: bool = False
    config: str | None = None  # None: off; "": the UPPER_CASE constants; else a dict's name
    estimate: str | None = None  # None: off; "": default spec
    memory_budget: int | None = None
    group_key: str | None = None
    target: str | None = None
    time_column: str | None = None
    overlap_threshold: float = 0.0
    report_dir: str = "trainguard_reports"
    keep_traceback: bool = False
    static: bool = True
    runtime: bool = True
    sample_interval: float = 0.1
    leak_threshold: int = 256 << 20
    backend: Any = "auto"  # "auto" | "cuda" | "rss" | a MemoryBackend object

    def public(self) -> dict[str, Any]:
        """The options as plain JSON values (a backend object is named by its class)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["backend"] = self.backend if isinstance(self.backend, str) else type(self.backend).__name__
        return d


def runtime_checks(shell: Any, cell: str, opts: GuardOptions, pre: _Pre) -> None:
    from .data_checks import DataCheckOptions, DataContext, run_data_checks
    from .splits import discover_splits

    run, t0 = pre.run, time.perf_counter()
    try:
        splits = discover_splits(shell.user_ns, pre.trees)
    except Exception as exc:  # noqa: BLE001 - odd namespace objects must not block training
        run.notes.append(f"split discovery failed: {type(exc).__name__}")
        splits = []
    run.splits = [
        {"name": s.name, "role": s.role, "kind": s.kind, "label": s.is_label, "via": s.via, "rows": _rows(s.value)}
        for s in splits
    ]
    dctx = DataContext(
        user_ns=shell.user_ns,
        splits=splits,
        location=pre.location,
        cell_tree=pre.cell_tree,
        options=DataCheckOptions(opts.overlap_threshold, opts.group_key, opts.target, opts.time_column),
    )
    run.runtime_findings.extend(run_data_checks(dctx))
    run.notes.extend(dctx.notes)
    if opts.config is not None:
        from .config_check import check_config

        try:
            run.runtime_findings.extend(
                check_config(shell.user_ns, opts.config or None, pre.config, pre.kind, pre.location)
            )
        except ValueError as exc:
            run.notes.append(str(exc))
    run.runtime_ms = (time.perf_counter() - t0) * 1000


def _rows(value: Any) -> int | None:
    try:
        from .hashing import n_rows

        return n_rows(value)
    except Exception:  # noqa: BLE001
        return None


def seeding_checks(cell: str, opts: GuardOptions, pre: _Pre) -> None:
    from . import seeding

    run = pre.run
    rep = seeding.SeedReport()
    imported = {v.split(".")[0] for v in pre.aliases.values()}
    rep.in_use = seeding.in_use(imported, pre.trees, pre.aliases)
    rep.seeded.update(seeding.seeded_in_history(pre.trees, pre.aliases))
    rep.seeded.update(seeding.runtime_seeded())
    if opts.seed is not None:
        for name in seeding.seed_all(opts.seed, uses_torch="torch" in imported):
            rep.seeded[name] = f"--seed {opts.seed} (by the guard, before the cell)"
        rep.seed = opts.seed
    elif rep.unseeded:
        run.runtime_findings.append(
            R.RNG001.finding(
                pre.location,
                "Random number generators in use are not seeded: " + ", ".join(rep.unseeded) + ".",
                {"unseeded": rep.unseeded, "seeded": sorted(rep.seeded)},
            )
        )
    if opts.deterministic:
        rep.deterministic, rep.problems = seeding.apply_deterministic()
        for problem in rep.problems:
            run.runtime_findings.append(R.RNG002.finding(pre.location, problem, {"setting": problem.split()[0]}))
    run.seeding = rep.to_dict()


def estimate_check(shell: Any, cell: str, opts: GuardOptions, pre: _Pre) -> None:
    from .oom import fmt_bytes

    run = pre.run
    try:
        from ..estimate import estimate_for_cell
    except ImportError as exc:
        run.estimate = {
            "available": False,
            "reason": f"the estimator (jupyter_trainguard.estimate) is not available: {exc}",
        }
        return
    try:
        try:
            est = estimate_for_cell(shell.user_ns, cell, opts.estimate or None, budget=opts.memory_budget)
        except TypeError:  # an estimator without the budget option
            est = estimate_for_cell(shell.user_ns, cell, opts.estimate or None)
    except Exception as exc:  # noqa: BLE001 - an estimator bug must not block training
        run.estimate = {"available": False, "reason": f"estimate failed: {type(exc).__name__}: {exc}"}
        return
    data = dict(est.to_dict()) if hasattr(est, "to_dict") else {}
    data["summary"] = est.summary() if hasattr(est, "summary") else ""
    total = getattr(est, "total_bytes", None)
    data["available"] = total is not None
    if total is None:
        data.setdefault("reason", getattr(est, "reason", "no estimate"))
    run.estimate = data
    if total is not None and opts.memory_budget is not None and total > opts.memory_budget:
        sev = Severity.ERROR if opts.strict else None
        run.runtime_findings.append(
            R.MEM003.finding(
                pre.location,
                f"Estimated peak {fmt_bytes(total)} exceeds the memory budget {fmt_bytes(opts.memory_budget)}.",
                {"estimate_bytes": int(total), "budget_bytes": opts.memory_budget},
                severity=sev,
            )
        )


def make_backend(opts: GuardOptions, cell: str) -> Any:
    from .memory.backend import choose_backend

    if not isinstance(opts.backend, str):
        return opts.backend
    return choose_backend(cell, None if opts.backend == "auto" else opts.backend)


def execute(shell: Any, cell: str) -> BaseException | None:
    """Run the cell in the user namespace; return its exception without showing a traceback for it."""
    names = ("showtraceback", "showsyntaxerror")  # the magic re-raises; the error is shown once, after
    saved = {n: (n in vars(shell), getattr(shell, n)) for n in names}
    for n in names:
        setattr(shell, n, lambda *a, **k: None)
    # the user's own handlers (set_custom_exc) see the error once too: when the magic re-raises it
    handled, handler = vars(shell).get("custom_exceptions"), vars(shell).get("CustomTB")
    if handled:
        shell.custom_exceptions = ()
    count, compiler = current_count(shell, cell), getattr(shell, "compile", None)
    pinned = count is not None and "cache" not in vars(compiler) and callable(getattr(compiler, "cache", None))
    if pinned:  # tracebacks name the cell In[count] (IPython 9 would say In[count + 1])
        cache = compiler.cache
        compiler.cache = lambda code, number=0, raw_code=None: cache(code, count, raw_code=raw_code)
    try:
        result = shell.run_cell(cell, store_history=False)
        if result.error_before_exec is not None:  # did not compile: nothing of it ran
            from .session_log import mark_not_run

            mark_not_run(shell, count)
            if isinstance(result.error_before_exec, SyntaxError):  # no frame of the cell ran: none to show
                return result.error_before_exec.with_traceback(None)
        return result.error_in_exec or result.error_before_exec
    except BaseException as exc:  # noqa: BLE001 - shells that re-raise from run_cell
        return exc
    finally:
        if pinned:
            del compiler.cache
        if handled and vars(shell).get("CustomTB") is handler:  # unless the cell set its own handler
            shell.custom_exceptions = handled
        for n, (had_attr, original) in saved.items():
            if had_attr:
                setattr(shell, n, original)
            else:
                delattr(shell, n)


def run_guarded(shell: Any, cell: str, opts: GuardOptions) -> tuple[GuardRun, BaseException | None]:
    """Check, run and measure one cell; returns the run report and the user's exception (or None)."""
    run = GuardRun(options=opts.public(), execution_count=current_count(shell, cell))
    t_start = time.perf_counter()
    location = Location(path=SESSION_PATH)
    pre = _Pre(run=run, location=location)
    if opts.static:
        try:
            pre = static_checks(shell, cell, run, background=not opts.strict)
        except Exception as exc:  # noqa: BLE001
            run.notes.append(f"static checks failed: {type(exc).__name__}: {exc}")
    if opts.runtime:
        _guarded(run, "runtime checks", runtime_checks, shell, cell, opts, pre)
    if opts.config is not None and not opts.runtime:
        run.notes.append("--config needs the runtime checks")
    if opts.estimate is not None or opts.memory_budget is not None:
        _guarded(run, "estimate", estimate_check, shell, cell, opts, pre)
    _guarded(run, "seeding", seeding_checks, cell, opts, pre)
    apply_suppressions(cell, run)
    errors = run.errors()
    if opts.strict and errors:
        run.status = "refused"
        from .session_log import mark_not_run

        mark_not_run(shell, run.execution_count)
        run.refused_because = [f"{f.rule_id}: {f.message}" for f in errors]
        run.duration_s = time.perf_counter() - t_start
        _finish(shell, run)
        return run, None
    from . import tracking

    runs_before: dict[str, list[str]] = {"mlflow": [], "wandb": []}
    _guarded(run, "tracking", lambda: runs_before.update(tracking.active_runs()))
    backend, tracker = start_memory(run, opts, cell)
    error: BaseException | None = None
    beside = pre.pending is not None
    t_cell = time.perf_counter()
    try:
        start_static(pre)  # the static rules run while the cell runs (joined below)
        error = execute(shell, cell)
    finally:
        t_done = time.perf_counter()
        mem = stop_memory(run, backend, tracker)
        join_static(pre)
    run.cost.update(before_ms=(t_cell - t_start) * 1000, cell_s=t_done - t_cell,
                    during_ms=mem.own_ms + (run.cost.get("static_cpu_ms", 0.0) if beside else 0.0))
    run.status = "failed" if error is not None else "ok"
    if error is not None:  # first, on its own: nothing else may keep a failed cell's runs open
        _guarded(run, "tracking closure", close_runs, pre, runs_before)
    _guarded(run, "post-run analysis", after, shell, cell, opts, pre, backend, mem, error, runs_before)
    apply_suppressions(cell, run)
    run.duration_s = time.perf_counter() - t_start
    run.cost["after_ms"] = (run.duration_s - (t_done - t_start)) * 1000
    if error is not None:
        try:
            run.write(opts.report_dir)
        except OSError as exc:
            run.notes.append(f"failure report not written: {exc}")
    _finish(shell, run)
    return run, error


def start_memory(run: GuardRun, opts: GuardOptions, cell: str) -> tuple[Any, Any]:
    """The backend and a started tracker; a backend that fails is noted and replaced by one measuring nothing."""
    from .memory.backend import NullBackend
    from .memory.tracker import MemoryTracker

    try:
        backend = make_backend(opts, cell)
        tracker = MemoryTracker(backend, interval=opts.sample_interval)
        tracker.start()
        return backend, tracker
    except Exception as exc:  # noqa: BLE001 - memory tracking must never stop the user's cell
        run.notes.append(f"memory tracking failed to start: {type(exc).__name__}: {exc}")
        return NullBackend(), None


def stop_memory(run: GuardRun, backend: Any, tracker: Any) -> Any:
    """Stop the tracker (always undoing its thread, hooks and patches); an empty result when it fails."""
    from .memory.backend import NullBackend
    from .memory.tracker import MemoryResult

    if tracker is not None:
        try:
            return tracker.stop(collect=backend.is_device)
        except Exception as exc:  # noqa: BLE001
            run.notes.append(f"memory tracking failed: {type(exc).__name__}: {exc}")
            try:
                tracker.release()
            except Exception:  # noqa: BLE001
                pass
    null = NullBackend()
    return MemoryResult(backend=null.name, is_device=False)


def _guarded(run: GuardRun, what: str, fn: Any, *args: Any) -> None:
    """Run one stage of the guard; a bug in it is noted and never hides or replaces the user's own result."""
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001
        run.notes.append(f"{what} failed: {type(exc).__name__}: {exc}")


def apply_suppressions(cell: str, run: GuardRun) -> None:
    """`# trainguard: ignore[DATA006]` at the top of the guarded cell silences runtime findings of that rule."""
    if "trainguard" not in cell:
        return
    from ..notebook.model import Cell
    from ..suppression import directives

    cell_level = [d for d in directives(Cell(index=0, cell_type="code", source=cell)) if d.line is None]
    kept = []
    for f in run.runtime_findings:
        d = next((d for d in cell_level if d.covers(f.rule_id)), None)
        if d is None:
            kept.append(f)
        else:
            run.suppressed.append(f"{f.rule_id}: {d.describe()}")
    run.runtime_findings = kept


def _finish(shell: Any, run: GuardRun) -> None:
    set_last(run)
    shell.user_ns["_trainguard_last"] = run
