"""`%trainaudit`: the structured training-pipeline review of the live session, notebooks, a guarded run or a
checkpoint. It reads; it never retrains, changes variables, or alters a recorded metric or param.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

USAGE = (
    "%trainaudit [PATH ...] [--last] [--rerun CELL --metric NAME [--tol X] [--seed N]] "
    "[--checkpoint FILE] [--unsafe-load] [--format panel|md|json|html|text] [--out FILE] "
    "[--select IDS] [--ignore IDS] [--no-log] [--no-hash] "
    "[--impact [--impact-budget SECONDS] [--impact-memory SIZE] [--replay]]"
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # never SystemExit inside a kernel
        raise ValueError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="%trainaudit", usage=USAGE, add_help=False)
    p.add_argument("paths", nargs="*")
    p.add_argument("--last", action="store_true")
    p.add_argument("--rerun", type=int, metavar="CELL")
    p.add_argument("--metric")
    p.add_argument("--tol", type=float, default=0.0)
    p.add_argument("--seed", type=int)
    p.add_argument("--checkpoint", action="append", default=[])
    p.add_argument("--unsafe-load", action="store_true")
    p.add_argument("--format", choices=["panel", "md", "markdown", "json", "html", "text"], default=None)
    p.add_argument("--out")
    p.add_argument("--select", action="append")
    p.add_argument("--ignore", action="append")
    p.add_argument("--no-log", action="store_true")
    p.add_argument("--no-hash", action="store_true")
    p.add_argument("--impact", action="store_true")
    p.add_argument("--impact-budget", type=float, default=None, metavar="SECONDS")
    p.add_argument("--impact-memory", type=_size, default=None, metavar="SIZE")
    p.add_argument("--replay", action="store_true")
    p.add_argument("-h", "--help", action="store_true")
    return p


def _size(text: str) -> int:
    """'512MiB', '2GiB', ... -> bytes (argparse reports a ValueError as an invalid value)."""
    from ..runtime.oom import parse_size

    return parse_size(text)


_size.__name__ = "size"  # argparse: "invalid size value: 'x'"


def _impact_memory(args: argparse.Namespace, shell: Any) -> int | None:
    """--impact-memory, else `%config TrainGuard.impact_memory` where that setting exists, else None (1 GiB)."""
    if args.impact_memory is not None:
        return args.impact_memory
    settings = next((c for c in getattr(shell, "configurables", []) if type(c).__name__ == "TrainGuard"), None)
    configured = getattr(settings, "impact_memory", "") or ""
    if not configured:
        return None
    try:
        return _size(configured)
    except ValueError as exc:
        raise UsageError(f"%trainaudit: TrainGuard.impact_memory: {exc}") from None


def _format_for(out: str | None, fmt: str | None) -> str:
    if fmt and fmt != "panel":
        return {"markdown": "md"}.get(fmt, fmt)
    if out:
        suffix = Path(out).suffix.lower()
        return {".json": "json", ".html": "html", ".htm": "html", ".txt": "text"}.get(suffix, "md")
    return "panel"


@magics_class
class TrainAuditMagics(Magics):
    """Registers `%trainaudit`; the last review is kept on `.last_audit`."""

    last_audit: Any = None

    @line_magic
    def trainaudit(self, line: str = "") -> None:
        """Review the training pipeline (reproducibility, split & leakage, temporal, checkpointing, tracking).

        `--impact` also refits clones of the live model without each leak found and reports the honest metric next
        to the reported one (budget: `--impact-budget SECONDS`, default 30 s; `--impact-memory SIZE` of copies, default
        1 GiB or `%config TrainGuard.impact_memory`); `--replay` measures
        the leaks a refit cannot by replaying the session's cells with the fixes in a separate kernel, on copies."""
        try:
            args = build_parser().parse_args(shlex.split(line))
        except ValueError as exc:  # an unknown or malformed option fails the cell, as IPython's own magics do
            raise UsageError(f"%trainaudit: {exc}\nusage: {USAGE}") from None
        if args.help:
            print(f"usage: {USAGE}\n\n{__doc__}")
            return
        if args.rerun is not None and not args.metric:
            raise UsageError("%trainaudit: --rerun needs --metric NAME (the variable the cell sets)")
        audit = self._audit(args)
        if audit is None:
            return
        self.last_audit = audit
        self._emit(audit, args)

    def _audit(self, args: argparse.Namespace) -> Any:
        from ..commands.scan import split_ids
        from ..engine import Selection
        from ..report import review

        selection = Selection(select=split_ids(args.select), ignore=split_ids(args.ignore))
        ns = self.shell.user_ns
        if args.last:
            try:
                data = review.last_run_dict()
                sources = review.session_sources(ns, self.shell)
                count = data.get("execution_count")
                if isinstance(count, int) and 0 < count <= len(sources):
                    sources = sources[:count]  # what the guarded cell's static checks saw
                return review.audit_run_dict(data, selection, sources=sources)
            except review.RuntimeUnavailable as exc:
                print(f"%trainaudit --last: {exc}")
                return None
        if args.paths:
            if args.rerun is not None:
                print("%trainaudit: --rerun applies to the live session only; ignored for PATH")
            audit, errors = review.audit_paths(
                args.paths, selection, checkpoints=args.checkpoint, unsafe_load=args.unsafe_load
            )
            for err in errors:
                print(f"%trainaudit: {err}")
            return audit
        rerun = None
        if args.rerun is not None:
            from ..report.rerun import rerun_cell

            rerun = rerun_cell(self.shell, args.rerun, args.metric, tol=args.tol, seed=args.seed)
        from ..impact.budget import memory_limit

        with memory_limit(_impact_memory(args, self.shell)):
            audit = review.audit_session(
                ns,
                selection,
                rerun=rerun,
                checkpoints=args.checkpoint,
                unsafe_load=args.unsafe_load,
                shell=self.shell,
                hash_data=not args.no_hash,
                impact=args.impact or args.impact_budget is not None or args.impact_memory is not None or args.replay,
                impact_budget=args.impact_budget,
                impact_replay=args.replay,
            )
        if not args.no_log:
            from ..report.mlflow_log import log_to_active_run
            from ..report.render import render_markdown

            try:
                logged = log_to_active_run(audit, render_markdown(audit))
            except Exception as exc:  # tracking trouble must not hide the review
                audit.notes.append(f"could not log provenance to MLflow: {type(exc).__name__}: {exc}")
                logged = {}
            if logged:
                audit.provenance["mlflow"] = logged
        return audit

    def _emit(self, audit: Any, args: argparse.Namespace) -> None:
        from ..display.bundle import AUDIT_MIME, publish
        from ..report.panel import make_panel
        from ..report.render import render, render_html, render_text

        fmt = _format_for(args.out, args.format)
        if args.out:
            text = render(audit, "md" if fmt == "panel" else fmt)
            try:
                Path(args.out).write_text(text, encoding="utf-8")
            except OSError as exc:
                print(f"%trainaudit: cannot write {args.out}: {exc.strerror or exc}")
            else:
                print(f"%trainaudit: review written to {args.out}")
            if args.format in (None, "panel"):
                fmt = "panel"
            else:
                return
        if fmt == "panel":
            publish(
                render_text(audit),
                render_html(audit),
                audit.to_dict(),
                AUDIT_MIME,
                widget_factory=lambda: make_panel(audit),
                shell=self.shell,
            )
        elif fmt == "md":
            from IPython.display import Markdown, display

            display(Markdown(render(audit, "md")))
        elif fmt == "html":
            from IPython.display import HTML, display

            display(HTML(render_html(audit)))
        else:
            print(render(audit, fmt))
