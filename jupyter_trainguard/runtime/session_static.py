"""The static side of a guarded cell: the session the kernel holds, parsed, and the static rules over it.

Two phases. The parse (memoised per cell) is done before the cell: the runtime and seeding checks need its ASTs
and import aliases. The rules over the whole session run before the cell only with `--strict` (they may refuse
it); otherwise they run in a background thread while the cell runs and are joined right after it, so a training
cell does not wait for them (its tensor kernels release the GIL). Their findings reach the report and the panel
exactly as before; a rule that fails is noted, never raised.
"""

from __future__ import annotations

import ast
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .report import GuardRun

SESSION_PATH = "<session>"


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
class _Pre:
    run: GuardRun
    location: Any
    trees: list[tuple[str, ast.AST]] = field(default_factory=list)  # (code, AST) per executed cell
    aliases: dict[str, str] = field(default_factory=dict)
    cell_tree: ast.AST | None = None
    kind: str = "other"
    config: Any = None
    pending: threading.Thread | None = None  # the static rules, running while the cell runs


def static_checks(shell: Any, cell: str, run: GuardRun, background: bool = False) -> _Pre:
    """Parse the session now; run the static rules now, or (`background`) in a thread joined by `join_static`."""
    from ..analysis.parsed import ParsedNotebook
    from ..config import ConfigError, load_config
    from ..notebook.load import notebook_from_sources
    from ..session_cells import locate

    t0 = time.perf_counter()
    sources, counts = session_sources(shell, cell)
    try:
        config = load_config(Path.cwd())
    except ConfigError as exc:
        from ..config import Config

        run.notes.append(f"configuration error, defaults used: {exc}")
        config = Config(root=Path.cwd())
    nb = notebook_from_sources(SESSION_PATH, sources, counts)
    places = locate(shell, sources, counts)  # session cells -> notebook cells ("cell 5 [In 3]")
    places.label_cells(nb.cells)
    parsed = ParsedNotebook.from_notebook(nb)
    location = places.location(len(sources) - 1)
    pre = _Pre(run=run, location=location, config=config, kind=config.notebook_kind(nb.path))
    pre.trees = [(c.python or "", t) for c, t in parsed.trees]
    pre.aliases = dict(parsed.aliases)
    last = [pc for pc in parsed.cells if pc.cell.index == len(sources) - 1]
    pre.cell_tree = last[0].tree if last else None
    parse_ms = (time.perf_counter() - t0) * 1000

    def rules() -> None:
        from ..engine import Selection, analyze_notebook

        t1 = time.perf_counter()
        try:
            report, _, _ = analyze_notebook(nb, config, Selection(), parsed=parsed)
            places.relocate_report(report)
            run.static = report
        except Exception as exc:  # noqa: BLE001 - a rule bug must not block or fail the user's cell
            run.notes.append(f"static checks failed: {type(exc).__name__}: {exc}")
        run.static_ms = parse_ms + (time.perf_counter() - t1) * 1000

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
