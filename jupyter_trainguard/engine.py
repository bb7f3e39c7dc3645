"""The single analysis engine: notebook in, `Report` out. Every front end calls this."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .analysis.parsed import ParsedNotebook
from .config import Config, ConfigError, load_config
from .findings import Finding, Location, Report, Severity, Suppressed
from .notebook.load import iter_notebook_paths, load_notebook
from .notebook.model import Notebook
from .rules.context import NotebookContext
from .rules.registry import Hit, Rule, get_rule, matches, notebook_rules
from .suppression import suppressing


@dataclass(frozen=True)
class Selection:
    """Which rules run: config and command-line `select`/`ignore` (ids, id prefixes, names or categories)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def why_skipped(self, r: Rule, config: Config) -> str | None:
        sel = self.select or config.select
        if sel and not matches(r, sel):
            return "not selected (" + ", ".join(sel) + ")"
        for source, pats in (("--ignore", self.ignore), ("[tool.trainguard] ignore", config.ignore)):
            if pats and matches(r, pats):
                return f"ignored by {source} " + ", ".join(p for p in pats if matches(r, [p]))
        return None


def clear_caches() -> None:
    """Forget memoised parses and the memos that hold parsed cells (benchmarks measure cold analyses with this;
    crawl workers call it to keep their memory flat)."""
    from .analysis.parsed import _PARSE_CACHE, _PARSE_LOCK
    from .notebook.ipython_syntax import _to_python_cached
    from .rules.duplicate_code import _UNITS_CACHE

    with _PARSE_LOCK:
        _PARSE_CACHE.clear()
    _to_python_cached.cache_clear()
    _UNITS_CACHE.clear()
    import sys

    for module, name in (
        ("jupyter_trainguard.rules.training_loop", "_MEMO"),
        ("jupyter_trainguard.analysis.provenance.functions", "_GLOBALS"),
    ):
        memo = getattr(sys.modules.get(module), name, None)  # memos keyed by AST node: they pin parsed cells
        if isinstance(memo, dict):
            memo.clear()


def hit_to_finding(r: Rule, hit: Hit, path: str, config: Config) -> Finding:
    cell = hit.cell
    if cell is not None:
        line = cell.source_line(hit.line) if hit.line else None
        end = cell.source_line(hit.end_line) if hit.end_line else None
        loc = Location(
            path=path,
            cell=cell.index,
            line=line,
            column=hit.column,
            end_line=end if end != line else None,
            file_line=cell.file_line_of(line) if line else cell.file_line,
            execution_count=cell.execution_count,
            cell_id=cell.cell_id,
        )
    else:
        loc = Location(path=path)
    sev = hit.severity or config.severity.get(r.id) or r.severity
    f = r.finding(loc, hit.message, hit.evidence, severity=sev, source="static")
    return f


def context_for(nb: Notebook, config: Config, parsed: ParsedNotebook | None = None) -> NotebookContext:
    return NotebookContext(
        notebook=nb,
        parsed=parsed or ParsedNotebook.from_notebook(nb),
        config=config,
        kind=config.notebook_kind(nb.path),
    )


def analyze_notebook(
    nb: Notebook,
    config: Config | None = None,
    selection: Selection = Selection(),
    rules: Iterable[Rule] | None = None,
    parsed: ParsedNotebook | None = None,
) -> tuple[Report, NotebookContext | None, dict[str, Any]]:
    """Run every selected notebook rule; returns the report, the context and project-rule data (`parsed`: the
    notebook already parsed by the caller)."""
    start = time.perf_counter()
    config = config or load_config(nb.path if os.path.exists(nb.path) else None)
    report = Report(path=nb.path, notebook_kind=config.notebook_kind(nb.path), cells=len(nb.cells))
    project_data: dict[str, Any] = {}
    if nb.error:
        report.error = nb.error
        r = get_rule("NB002")
        report.findings.append(
            r.finding(
                Location(nb.path),
                f"Notebook could not be read: {nb.error}",
                severity=config.severity.get("NB002"),
                source="static",
            )
        )
        report.elapsed_ms = (time.perf_counter() - start) * 1000
        return report, None, project_data
    ctx = context_for(nb, config, parsed)
    for r in rules if rules is not None else notebook_rules():
        if r.scope == "runtime":
            continue
        reason = selection.why_skipped(r, config)
        if reason:
            report.skipped_rules[r.id] = reason
            continue
        try:
            if r.scope == "project":
                if r.collect is not None:
                    project_data[r.id] = r.collect(ctx)
                report.rules_run.append(r.id)
                continue
            hits = list(r.check(ctx)) if r.check else []
        except Exception as exc:  # a rule bug must never end the scan
            report.skipped_rules[r.id] = f"internal error in rule: {type(exc).__name__}: {exc}"
            continue
        report.rules_run.append(r.id)
        for hit in hits:
            _add(report, r, hit, config)
    report.elapsed_ms = (time.perf_counter() - start) * 1000
    return report, ctx, project_data


def _add(report: Report, r: Rule, hit: Hit, config: Config) -> None:
    finding = hit_to_finding(r, hit, report.path, config)
    directive = suppressing(hit.cell, hit.line and finding.location.line, finding.location.end_line, r.id)
    if directive:
        report.suppressed.append(Suppressed(finding, directive.describe()))
    else:
        report.findings.append(finding)


def analyze_path(path: str | os.PathLike, config: Config | None = None, selection: Selection = Selection()) -> Report:
    return analyze_notebook(load_notebook(path), config, selection)[0]


def _scan_one(args: tuple[str, str | None, Selection]) -> tuple[Report, dict[str, Any]]:
    path, config_file, selection = args
    try:
        config = load_config(path, explicit=config_file)
    except ConfigError as exc:
        rep = Report(path=path, error=f"configuration error: {exc}")
        rep.findings.append(get_rule("NB002").finding(Location(path), f"Configuration error: {exc}", source="static"))
        return rep, {}
    report, _, data = analyze_notebook(load_notebook(path), config, selection)
    return report, data


@dataclass
class ScanResult:
    reports: list[Report] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # inputs that do not exist

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.reports for f in r.findings]

    def worst(self) -> Severity | None:
        sev = [f.severity for f in self.findings]
        return max(sev, key=lambda s: s.rank) if sev else None


WORKER_PARSE_CACHE = 1024  # a crawl worker keeps at most this many parsed cells between batches


def _scan_many(items: list[tuple[str, str | None, Selection]]) -> list[tuple[Report, dict[str, Any]]]:
    """One batch in a worker process; the parse memo is emptied when it grows past `WORKER_PARSE_CACHE` cells,
    so a worker's memory stays flat over a crawl of any length (boilerplate cells are still reused)."""
    out = [_scan_one(item) for item in items]
    from .analysis.parsed import _PARSE_CACHE

    if len(_PARSE_CACHE) > WORKER_PARSE_CACHE:
        clear_caches()
    return out


def iter_scan(
    files: list[str], selection: Selection = Selection(), config_file: str | None = None, jobs: int = 1, batch: int = 16
) -> Iterator[tuple[Report, dict[str, Any]]]:
    """(report, project-rule data) per notebook, in input order, as they are done; nothing is kept here.

    With `jobs` > 1 a process pool scans batches of `batch` files with at most 4 batches per worker in flight, so
    memory stays flat however many notebooks there are."""
    work = [(str(f), config_file, selection) for f in files]
    if jobs <= 1 or len(work) <= 8:
        for item in work:
            yield _scan_one(item)
        return
    from collections import deque
    from concurrent.futures import ProcessPoolExecutor

    chunks = (work[i : i + batch] for i in range(0, len(work), batch))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: deque[Any] = deque()
        for chunk in chunks:
            pending.append(pool.submit(_scan_many, chunk))
            while len(pending) >= jobs * 4:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()


def scan(
    paths: list[str | os.PathLike],
    selection: Selection = Selection(),
    config_file: str | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> ScanResult:
    """Scan files and folders; notebook rules per file (in parallel with `jobs` > 1), then project rules."""
    files, errors = iter_notebook_paths(paths)
    result = ScanResult(errors=errors)
    outputs: list[tuple[Report, dict[str, Any]]] = []
    batch = max(1, min(16, len(files) // (max(1, jobs) * 8)))
    for i, out in enumerate(iter_scan([str(f) for f in files], selection, config_file, jobs, batch)):
        outputs.append(out)
        if progress:
            progress(i + 1, len(files))
    result.reports = [rep for rep, _ in outputs]
    _combine_project_rules(outputs)
    from .rules.project_facts import once_per_project

    once_per_project(result.reports)  # a project without a lockfile is one finding, not one per notebook
    return result


def _combine_project_rules(outputs: list[tuple[Report, dict[str, Any]]]) -> None:
    by_path = {rep.path: rep for rep, _ in outputs}
    rule_ids = sorted({rid for _, data in outputs for rid in data})
    for rid in rule_ids:
        r = get_rule(rid)
        items = [(rep.path, data[rid]) for rep, data in outputs if rid in data]
        try:
            produced = list(r.combine(items)) if r.combine else []
        except Exception as exc:
            for rep, data in outputs:
                if rid in data:
                    rep.skipped_rules[rid] = f"internal error in rule: {type(exc).__name__}: {exc}"
            continue
        for loc, message, evidence in produced:
            rep = by_path.get(loc.path)
            if rep is not None:
                rep.findings.append(r.finding(loc, message, evidence, source="static"))


def analyze_sources(
    sources: list[str],
    path: str = "<session>",
    config: Config | None = None,
    selection: Selection = Selection(),
    execution_counts: list[int | None] | None = None,
) -> Report:
    """Analyse code strings (the live session's executed cells) with the same rules."""
    from .notebook.load import notebook_from_sources

    nb = notebook_from_sources(path, sources, execution_counts)
    return analyze_notebook(nb, config or load_config(Path.cwd()), selection)[0]
