"""The guarded run of one cell: checks before, measurement during, clean-up and report after.

Front-end free: `run_guarded(shell, cell, options)` is what the `%%guarded_train` magic calls; it never
displays anything and returns the `GuardRun` plus the user's exception (to be re-raised unchanged).
"""

from __future__ import annotations

import ast
import sys
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..findings import Location, Severity
from . import rules as R
from .report import GuardRun, set_last

SESSION_PATH = "<session>"


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


def session_sources(shell: Any, cell: str) -> tuple[list[str], list[int | None]]:
    """The executed cells in execution order (raw, magics included) ending with the guarded cell."""
    raw = list(getattr(shell.history_manager, "input_hist_raw", []) or [])
    sources, counts = [], []
    for i, src in enumerate(raw):
        if i == 0 or not src.strip():
            continue
        sources.append(src)
        counts.append(i)
    if not sources or cell.strip() not in sources[-1]:
        sources.append("%%guarded_train\n" + cell)
        counts.append(None)
    return sources, counts


@dataclass
class _Pre:
    run: GuardRun
    location: Location
    trees: list[tuple[str, ast.AST]] = field(default_factory=list)  # (code, AST) per executed cell
    aliases: dict[str, str] = field(default_factory=dict)
    cell_tree: ast.AST | None = None
    kind: str = "other"
    config: Any = None


def static_checks(shell: Any, cell: str, run: GuardRun) -> _Pre:
    from ..config import ConfigError, load_config
    from ..engine import Selection, analyze_notebook
    from ..notebook.load import notebook_from_sources

    t0 = time.perf_counter()
    sources, counts = session_sources(shell, cell)
    try:
        config = load_config(Path.cwd())
    except ConfigError as exc:
        from ..config import Config

        run.notes.append(f"configuration error, defaults used: {exc}")
        config = Config(root=Path.cwd())
    nb = notebook_from_sources(SESSION_PATH, sources, counts)
    report, ctx, _ = analyze_notebook(nb, config, Selection())
    location = Location(path=SESSION_PATH, cell=len(sources) - 1, execution_count=counts[-1])
    pre = _Pre(run=run, location=location, config=config, kind=report.notebook_kind)
    if ctx is not None:
        pre.trees = [(c.python or "", t) for c, t in ctx.parsed.trees]
        pre.aliases = dict(ctx.parsed.aliases)
        last = [pc for pc in ctx.parsed.cells if pc.cell.index == len(sources) - 1]
        pre.cell_tree = last[0].tree if last else None
    run.static = report
    run.static_ms = (time.perf_counter() - t0) * 1000
    return pre


def runtime_checks(shell: Any, cell: str, opts: GuardOptions, pre: _Pre) -> None:
    from .data_checks import DataCheckOptions, DataContext, run_data_checks
    from .splits import discover_splits

    run, t0 = pre.run, time.perf_counter()
    try:
        splits = discover_splits(shell.user_ns, pre.trees)
    except Exception as exc:  # noqa: BLE001 - odd namespace objects must not block training
        run.notes.append(f"split discovery failed: {type(exc).__name__}")
        splits = []
    run.splits = [{"name": s.name, "role": s.role, "kind": s.kind, "label": s.is_label, "via": s.via,
                   "rows": _rows(s.value)} for s in splits]
    dctx = DataContext(user_ns=shell.user_ns, splits=splits, location=pre.location, cell_tree=pre.cell_tree,
                       options=DataCheckOptions(opts.overlap_threshold, opts.group_key, opts.target,
                                                opts.time_column))
    run.runtime_findings.extend(run_data_checks(dctx))
    run.notes.extend(dctx.notes)
    if opts.config is not None:
        from .config_check import check_config

        try:
            run.runtime_findings.extend(check_config(shell.user_ns, opts.config or None, pre.config, pre.kind,
                                                     pre.location))
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
        run.runtime_findings.append(R.RNG001.finding(
            pre.location, "Random number generators in use are not seeded: " + ", ".join(rep.unseeded) + ".",
            {"unseeded": rep.unseeded, "seeded": sorted(rep.seeded)}))
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
        run.estimate = {"available": False, "reason": f"the estimator (jupyter_trainguard.estimate) is not "
                                                      f"available: {exc}"}
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
        run.runtime_findings.append(R.MEM003.finding(
            pre.location, f"Estimated peak {fmt_bytes(total)} exceeds the memory budget "
                          f"{fmt_bytes(opts.memory_budget)}.",
            {"estimate_bytes": int(total), "budget_bytes": opts.memory_budget}, severity=sev))


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
    try:
        result = shell.run_cell(cell, store_history=False)
        return result.error_in_exec or result.error_before_exec
    except BaseException as exc:  # noqa: BLE001 - shells that re-raise from run_cell
        return exc
    finally:
        for n, (had_attr, original) in saved.items():
            if had_attr:
                setattr(shell, n, original)
            else:
                delattr(shell, n)


def run_guarded(shell: Any, cell: str, opts: GuardOptions) -> tuple[GuardRun, BaseException | None]:
    """Check, run and measure one cell; returns the run report and the user's exception (or None)."""
    run = GuardRun(options=opts.public(), execution_count=getattr(shell, "execution_count", None))
    t_start = time.perf_counter()
    location = Location(path=SESSION_PATH)
    pre = _Pre(run=run, location=location)
    if opts.static:
        try:
            pre = static_checks(shell, cell, run)
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
        run.refused_because = [f"{f.rule_id}: {f.message}" for f in errors]
        run.duration_s = time.perf_counter() - t_start
        _finish(shell, run)
        return run, None
    from . import tracking

    runs_before: dict[str, list[str]] = {"mlflow": [], "wandb": []}
    _guarded(run, "tracking", lambda: runs_before.update(tracking.active_runs()))
    backend, tracker = start_memory(run, opts, cell)
    error: BaseException | None = None
    try:
        error = execute(shell, cell)
    finally:
        mem = stop_memory(run, backend, tracker)
    run.status = "failed" if error is not None else "ok"
    if error is not None:  # first, on its own: nothing else may keep a failed cell's runs open
        _guarded(run, "tracking closure", close_runs, pre, runs_before)
    _guarded(run, "post-run analysis", after, shell, cell, opts, pre, backend, mem, error, runs_before)
    apply_suppressions(cell, run)
    run.duration_s = time.perf_counter() - t_start
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


def close_runs(pre: _Pre, runs_before: dict[str, list[str]]) -> None:
    """End the runs a failed cell left open (FAILED) and record them (GUARD001)."""
    from . import tracking

    run = pre.run
    closed = tracking.close_failed()
    run.tracking = {"before": runs_before, "closed_as_failed": closed}
    for system, ids in closed.items():
        if ids:
            run.runtime_findings.append(R.GUARD001.finding(
                pre.location, f"{len(ids)} {system} run(s) left open by the failed cell were closed as "
                              f"{'FAILED' if system == 'mlflow' else 'failed (exit code 1)'}.",
                {"system": system, "run_ids": ids}))


def _current(backend: Any) -> int:
    try:
        return int(backend.current()[0])
    except Exception:  # noqa: BLE001 - a broken backend reads as 0
        return 0


def after(shell: Any, cell: str, opts: GuardOptions, pre: _Pre, backend: Any, mem: Any,
          error: BaseException | None, runs_before: dict[str, list[str]]) -> None:
    from . import cleanup
    from .oom import advice, fmt_bytes, is_oom, parse_oom

    run = pre.run
    try:
        largest = cleanup.largest_objects(shell.user_ns, device_only=backend.is_device)
    except Exception as exc:  # noqa: BLE001 - the frame clean-up below must still happen
        run.notes.append(f"largest objects failed: {type(exc).__name__}")
        largest = []
    if error is not None:
        oom = is_oom(error)
        # the message is kept for out-of-memory errors only (allocator sizes); others can quote data values
        # ("could not convert string to float: '<a value>'"), which must not reach the report file or panel
        run.error = {"type": type(error).__name__, "oom": oom,
                     "message": str(error)[:500] if oom else None}
        if not oom:
            run.error["message_omitted"] = "not stored (it can quote data values); see the cell's traceback"
        if not opts.keep_traceback:
            before = _current(backend)
            frames = cleanup.release_exception(error)
            cleanup.forget_last_exception()
            cleanup.collect()
            _guarded(run, "empty_cache", backend.empty_cache)
            now = _current(backend)
            mem.retained = now - mem.start_allocated
            mem.end_allocated = now
            run.cleanup = {"frames_cleared": frames, "allocated_before": before, "allocated_after": now,
                           "freed": max(0, before - now), "backend": backend.name}
        else:
            run.cleanup = {"skipped": "--keep-traceback"}
        if oom:
            numbers = parse_oom(str(error))
            if backend.is_device and mem.device_free is not None:
                numbers.setdefault("free", mem.device_free)
                numbers.setdefault("total", mem.device_total)
            if backend.is_device:
                numbers.setdefault("reserved_unallocated", max(0, mem.end_reserved - mem.end_allocated))
            estimate = (run.estimate or {}).get("total_bytes")
            tips = advice(numbers, largest, estimate, mem.start_allocated if backend.is_device else None)
            run.error.update({"numbers": numbers, "advice": tips})
            req = f" while allocating {fmt_bytes(numbers['requested'])}" if "requested" in numbers else ""
            freed = run.cleanup.get("freed")
            msg = f"Out of memory{req}. " + " ".join(tips) + (f" The guard freed {fmt_bytes(freed)} held by the "
                                                               "failed frames." if freed else "")
            run.runtime_findings.append(R.MEM001.finding(pre.location, msg, {
                "numbers": numbers, "peak_allocated": mem.peak_allocated, "freed": freed}))
    else:
        _guarded(run, "tracking", note_open_runs, pre, runs_before)
    if backend.is_device and mem.retained > opts.leak_threshold:
        held = [o for o in largest if o["device"] != "cpu"]
        names = ", ".join(f"{o['name']} ({fmt_bytes(o['bytes'])})" for o in held[:3])
        run.runtime_findings.append(R.MEM002.finding(
            pre.location, f"{fmt_bytes(mem.retained)} allocated by the cell is still allocated after it "
                          f"({fmt_bytes(mem.start_allocated)} before, {fmt_bytes(mem.end_allocated)} after)"
                          + (f"; largest device objects: {names}." if names else "."),
            {"retained": mem.retained, "largest": held[:5]}))
    run.memory = mem.to_dict()
    run.memory["largest_objects"] = largest
    if sys.modules.get("torch") is not None and backend.name == "rss":
        run.memory["note"] = "no CUDA device: host process memory (RSS) is shown"


def note_open_runs(pre: _Pre, runs_before: dict[str, list[str]]) -> None:
    """After a successful cell: runs it started and left open are noted (info), never closed."""
    from . import tracking

    run = pre.run
    now = tracking.active_runs()
    run.tracking = {"before": runs_before, "after": now}
    for system, ids in now.items():
        new = [i for i in ids if i not in runs_before.get(system, [])]
        if new:
            run.runtime_findings.append(R.GUARD001.finding(
                pre.location, f"The cell started {len(new)} {system} run(s) and left them open; end them "
                              "(or use a context manager) so a later failure cannot leave them RUNNING.",
                {"system": system, "run_ids": new}, severity="info"))


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
