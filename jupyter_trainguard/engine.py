"""The single analysis engine: notebook in, `Report` out. Every front end calls this."""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .analysis.parsed import ParsedNotebook
from .config import Config, ConfigError, load_config
from .findings import FACTORY, Finding, FrozenRecord, Location, Record, Report, Severity, Suppressed, factory
from .notebook.load import iter_notebook_paths, load_notebook
from .notebook.model import Notebook
from .rules.context import NotebookContext
from .rules.registry import Hit, Rule, get_rule, matches, notebook_rules, reusable
from .suppression import suppressing


class Selection(FrozenRecord):
    """Which rules run: config and command-line `select`/`ignore` (ids, id prefixes, names or categories)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def __init__(self, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> None:
        self.__dict__.update(select=select, ignore=ignore)

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
        ("jupyter_trainguard.rules.training_loop", "_FACTS"),
        ("jupyter_trainguard.rules.seeding", "_UNSEEDED"),
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


def context_for(nb: Notebook, config: Config, parsed: ParsedNotebook | None = None,
                kind: str | None = None) -> NotebookContext:
    return NotebookContext(
        notebook=nb,
        parsed=parsed or ParsedNotebook.from_notebook(nb),
        config=config,
        kind=kind if kind is not None else config.notebook_kind(nb.path),
    )


class SessionAnalysis:
    """What the last analysis of a live session leaves for the next one: the guard analyses the whole growing
    history before every guarded cell, and most of it is what was analysed last time.

    The caller (the guard) hands in cells that are the same objects as last time when their content is the same
    (`ParsedNotebook.from_notebook(nb, previous)` keeps their parse). Two things are reused, each only where it
    equals a fresh analysis:

    - the provenance interpreter continues from where it stopped when the cells it ran are, in replay order, the
      first cells of the new history and the import aliases are unchanged: it reads nothing else of the notebook,
      so running only the new cells leaves it in the state a run over the whole history would reach;
    - the notebook index (`analysis.usage.Usage`) is extended by the new cells when the old ones start the new
      history under the same import aliases;
    - a rule's hits are reused when the whole input is unchanged (the same cell objects, configuration, path and
      kind) and the rule reads nothing outside the notebook (`registry.reusable`).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()  # one analysis at a time (the guard runs it in a background thread)
        self._key: tuple | None = None
        self._config: Config | None = None
        self._cells: list[Any] = []  # keeps the keyed (parsed) cell objects alive, so their ids stay theirs
        self._hits: dict[str, list[Hit]] = {}
        self._interpreter: Any = None
        self._replayed: list[Any] = []
        self._aliases: dict[str, str] = {}
        self._cache: dict[str, Any] = {}  # the last analysis' context cache (its notebook index, continued)

    def begin(self, ctx: NotebookContext, config: Config) -> dict[str, list[Hit]]:
        """Prepare `ctx` (the provenance record, continued) and return the hits that may be reused for it."""
        nb = ctx.notebook
        key = (nb.path, nb.format, nb.error, tuple(nb.warnings), ctx.kind, tuple(map(id, nb.cells)),
               tuple(map(id, ctx.parsed.cells)))
        same = key == self._key and config == self._config
        if not same:
            self._key, self._config, self._hits = key, config, {}
            self._cells = [*nb.cells, *ctx.parsed.cells]
        self._provenance(ctx)
        if self._cache.get("usage") is not None:
            ctx.cache["usage_previous"] = self._cache["usage"]  # continued when its cells start this history
        self._cache = ctx.cache
        return dict(self._hits)

    def keep(self, r: Rule, hits: list[Hit]) -> None:
        if reusable(r):
            self._hits[r.id] = hits

    def _provenance(self, ctx: NotebookContext) -> None:
        from .analysis.provenance.interpreter import Interpreter
        from .analysis.provenance.order import replay_order

        parsed = ctx.parsed
        interp, ran = self._interpreter, self._replayed
        self._interpreter, self._replayed = None, []  # until it has run to the end without an error
        try:
            order = replay_order(parsed)
            if (interp is not None and parsed.aliases == self._aliases and len(order) >= len(ran)
                    and list(map(id, order[:len(ran)])) == list(map(id, ran))):  # `ran` keeps its cells alive
                rec = interp.resume(parsed, len(ran))
            else:
                interp = Interpreter(parsed)
                rec = interp.run()
        except Exception:  # noqa: BLE001 - the rules run it themselves and report its failure as before
            return
        self._interpreter, self._replayed, self._aliases = interp, order, dict(parsed.aliases)
        ctx.cache["provenance"] = rec


_GC_LOCK = threading.Lock()
_gc_state: list = [0, None]  # analyses under way in this process, the collector's thresholds before the first
GC_YOUNG_THRESHOLD = 10_000  # allocations between young collections while a notebook is analysed (default 700)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector's young collections spaced out while notebooks are analysed: the analysis
    allocates many small objects that live as long as it does, and the default rhythm of collections, each older
    one traversing the large syntax trees, took about a third of the scan's time on big notebooks. Cyclic garbage
    is still collected, less often; the thresholds come back when the last analysis under way ends."""
    with _GC_LOCK:
        if _gc_state[0] == 0:
            _gc_state[1] = gc.get_threshold()
            gc.set_threshold(max(_gc_state[1][0], GC_YOUNG_THRESHOLD), *_gc_state[1][1:])
        _gc_state[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_state[0] -= 1
            if _gc_state[0] == 0:
                gc.set_threshold(*_gc_state[1])


def analyze_notebook(
    nb: Notebook,
    config: Config | None = None,
    selection: Selection = Selection(),
    rules: Iterable[Rule] | None = None,
    parsed: ParsedNotebook | None = None,
    session: SessionAnalysis | None = None,
) -> tuple[Report, NotebookContext | None, dict[str, Any]]:
    """Run every selected notebook rule; returns the report, the context and project-rule data (`parsed`: the
    notebook already parsed by the caller; `session`: what the previous analysis of the same live session left,
    reused where it gives the same findings; a live session collects no project-rule data, which only combines
    the notebooks of a scan)."""
    with _gc_paused():
        return _analyze_notebook(nb, config, selection, rules, parsed, session)


def _analyze_notebook(nb: Notebook, config: Config | None, selection: Selection, rules: Iterable[Rule] | None,
                      parsed: ParsedNotebook | None, session: SessionAnalysis | None,
                      ) -> tuple[Report, NotebookContext | None, dict[str, Any]]:
    start = time.perf_counter()
    config = config or load_config(nb.path if os.path.exists(nb.path) else None)
    kind = config.notebook_kind(nb.path)
    report = Report(path=nb.path, notebook_kind=kind, cells=len(nb.cells))
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
    ctx = context_for(nb, config, parsed, kind)
    reuse = session.begin(ctx, config) if session is not None else {}
    for r in rules if rules is not None else notebook_rules():
        if r.scope == "runtime":
            continue
        reason = selection.why_skipped(r, config)
        if reason:
            report.skipped_rules[r.id] = reason
            continue
        try:
            if r.scope == "project":
                if r.collect is not None and session is None:  # a live session is one notebook: never combined
                    project_data[r.id] = r.collect(ctx)
                report.rules_run.append(r.id)
                continue
            hits = reuse[r.id] if r.id in reuse else list(r.check(ctx)) if r.check else []
        except Exception as exc:  # a rule bug must never end the scan
            report.skipped_rules[r.id] = f"internal error in rule: {type(exc).__name__}: {exc}"
            continue
        if session is not None:
            session.keep(r, hits)
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


class ScanResult(Record):
    """The reports of a scan, and the inputs it could not find."""

    reports: list[Report] = factory(list)
    errors: list[str] = factory(list)  # inputs that do not exist

    def __init__(self, reports: list[Report] = FACTORY, errors: list[str] = FACTORY) -> None:
        self.reports = [] if reports is FACTORY else reports
        self.errors = [] if errors is FACTORY else errors

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
