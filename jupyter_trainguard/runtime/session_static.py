"""The static side of a guarded cell: the session the kernel holds, parsed, and the static rules over it.

Two phases. The parse (memoised per cell) is done before the cell: the runtime and seeding checks need its ASTs
and import aliases. The rules over the whole session run before the cell only with `--strict` (they may refuse
it); otherwise they run in a background thread while the cell runs and are joined right after it, so a training
cell does not wait for them (its tensor kernels release the GIL). Their findings reach the report and the panel
exactly as before; a rule that fails is noted, never raised.

A short analysis runs before the cell even without `--strict`: when the last one of the session took under
`FOREGROUND_BELOW_MS` of CPU, a thread beside the cell would cost more than it hides (its start and the GIL
hand-offs between it and the cell's own Python, on two cores, add more than the analysis itself).

Incremental: each shell keeps its last analysed history. A cell whose content (source, execution count, label) is
unchanged stays the same object with its parse, and the engine's `SessionAnalysis` continues the provenance
interpreter over the new cells only and reuses the hits of an unchanged history, so the findings are those of a
full analysis of the history at a fraction of its cost.
"""

from __future__ import annotations

import ast
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .report import GuardRun

SESSION_PATH = "<session>"
FOREGROUND_BELOW_MS = 10.0  # the static rules run before the cell when the last analysis took less CPU than this


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
    from .session_log import log_for

    log = log_for(shell)  # what the kernel holds: no cell that never ran, no replaced version of a re-run cell
    if log is not None:
        keep = log.keep(counts)
        sources, counts = [sources[i] for i in keep], [counts[i] for i in keep]
    return sources, counts


@dataclass
class _Session:
    """One shell's last analysed history (its cells and their parse) and the engine's reusable state."""

    analysis: Any
    cells: list[Any] = field(default_factory=list)
    parsed: Any = None
    before: tuple[list[str], Any] | None = None  # the sources and cell places `cells` were built from
    cpu_ms: float | None = None  # CPU time of the last analysis of the static rules


_SESSIONS: weakref.WeakKeyDictionary[Any, _Session] = weakref.WeakKeyDictionary()


def _session_of(shell: Any) -> _Session | None:
    from ..engine import SessionAnalysis

    try:
        state = _SESSIONS.get(shell)
        if state is None:
            state = _SESSIONS[shell] = _Session(SessionAnalysis())
        return state
    except TypeError:  # a shell that cannot be weakly referenced: every analysis is a full one
        return None


def session_notebook(shell: Any, sources: list[str], counts: list[int | None],
                     previous: list[Any] | None = None, before: tuple[list[str], Any] | None = None
                     ) -> tuple[Any, Any]:
    """The history as a notebook (cells named as in the saved notebook) and where its cells are found there.

    `previous`: the cells of the last one; a cell of it built from the same entry (source, execution count, name,
    place) is taken over as it is, the object the last analysis saw. `before`: the sources and places that last
    one was built from, which lets the unchanged first entries be recognised in one comparison."""
    from ..notebook.load import notebook_from_sources
    from ..session_cells import locate

    places = locate(shell, sources, counts)  # session cells -> notebook cells ("cell 5 [In 3]")
    if not previous:
        nb = notebook_from_sources(SESSION_PATH, sources, counts)
        places.label_cells(nb.cells)
        return nb, places
    nb = notebook_from_sources(SESSION_PATH, [], [])
    same = _same_prefix(sources, places, previous, before)
    nb.cells.extend(previous[:same])
    for i in range(same, len(sources)):
        src, count = sources[i], counts[i]
        label = places.label(i) or (None if count is None else f"[In {count}]")  # as `label_cells` names it
        old = previous[i] if i < len(previous) else None
        if (old is not None and old.index == i and old.source == src and old.execution_count == count
                and old.label == label):
            nb.cells.append(old)
            continue
        cell = notebook_from_sources(SESSION_PATH, [src], [count]).cells[0]
        cell.index, cell.label = i, label
        nb.cells.append(cell)
    return nb, places


def _same_prefix(sources: list[str], places: Any, previous: list[Any], before: tuple[list[str], Any] | None) -> int:
    """How many first entries are those `previous` was built from (same source, execution count and place in the
    saved notebook, so the same cell and name): all of `previous` or none."""
    if before is None:
        return 0
    old_sources, old_places = before
    n = len(previous)
    if len(old_sources) != n or len(sources) < n:
        return 0
    if (sources[:n] == old_sources and places.counts[:n] == old_places.counts[:n]
            and places.places[:n] == old_places.places[:n]):
        return n
    return 0


@dataclass
class _Pre:
    run: GuardRun
    location: Any
    trees: tuple[tuple[str, ast.AST], ...] = ()  # (code, AST) per executed cell
    aliases: dict[str, str] = field(default_factory=dict)
    cell_tree: ast.AST | None = None
    kind: str = "other"
    config: Any = None
    pending: threading.Thread | None = None  # the static rules, running while the cell runs


def static_checks(shell: Any, cell: str, run: GuardRun, background: bool = False) -> _Pre:
    """Parse the session now; run the static rules now, or (`background`, unless the last analysis of the session
    was short) in a thread joined by `join_static`."""
    from ..analysis.parsed import ParsedNotebook
    from ..config import ConfigError, load_config

    t0 = time.perf_counter()
    sources, counts = session_sources(shell, cell)
    try:
        config = load_config(Path.cwd())
    except ConfigError as exc:
        from ..config import Config

        run.notes.append(f"configuration error, defaults used: {exc}")
        config = Config(root=Path.cwd())
    state = _session_of(shell)  # an unchanged cell stays the object analysed last time, its parse with it
    nb, places = session_notebook(shell, sources, counts, state.cells if state is not None else None,
                                  state.before if state is not None else None)
    parsed = ParsedNotebook.from_notebook(nb, state.parsed if state is not None else None)
    if state is not None:
        state.cells, state.parsed, state.before = nb.cells, parsed, (sources, places)
    location = places.location(len(sources) - 1)
    pre = _Pre(run=run, location=location, config=config, kind=config.notebook_kind(nb.path))
    pre.trees = tuple((c.python or "", t) for c, t in parsed.trees)  # immutable: its facts are looked up once
    pre.aliases = dict(parsed.aliases)
    last = [pc for pc in parsed.cells if pc.cell.index == len(sources) - 1]
    pre.cell_tree = last[0].tree if last else None
    parse_ms = (time.perf_counter() - t0) * 1000

    def rules() -> None:
        from ..engine import Selection, analyze_notebook

        t1, cpu = time.perf_counter(), time.thread_time()
        try:
            if state is None:
                report, _, _ = analyze_notebook(nb, config, Selection(), parsed=parsed)
            else:
                with state.analysis.lock:
                    report, _, _ = analyze_notebook(nb, config, Selection(), parsed=parsed, session=state.analysis)
            places.relocate_report(report)
            run.static = report
        except Exception as exc:  # noqa: BLE001 - a rule bug must not block or fail the user's cell
            run.notes.append(f"static checks failed: {type(exc).__name__}: {exc}")
        run.static_ms = parse_ms + (time.perf_counter() - t1) * 1000
        run.cost["static_cpu_ms"] = (time.thread_time() - cpu) * 1000
        if state is not None:
            state.cpu_ms = run.cost["static_cpu_ms"]

    if background and state is not None and state.cpu_ms is not None and state.cpu_ms < FOREGROUND_BELOW_MS:
        background = False  # short: cheaper now than beside the cell
    if background:  # started by `start_static` right before the cell, after the runtime checks
        pre.pending = threading.Thread(target=rules, name="trainguard-static-rules", daemon=True)
    else:
        rules()
    return pre


def start_static(pre: _Pre) -> None:
    """Start the static rules of `static_checks(background=True)`; they run while the cell runs."""
    if pre.pending is not None and pre.pending.ident is None:
        pre.pending.start()


def join_static(pre: _Pre) -> None:
    """Wait for the static rules (started now if they were not yet)."""
    if pre.pending is not None:
        start_static(pre)
        pre.pending.join()
        pre.pending = None
