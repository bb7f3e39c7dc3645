"""`trainguard audit PATH...`: the seven-part training-pipeline review of notebooks, without running them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import ConfigError
from .scan import add_selection_arguments, split_ids, threshold_exceeded

NAME = "audit"
HELP = "structured training-pipeline review (reproducibility, leakage, temporal, checkpointing, tracking)"
ORDER = 15


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="notebooks or folders of notebooks")
    p.add_argument("-f", "--format", choices=["text", "md", "markdown", "json", "html"], default=None,
                   help="output format (default: text, or from the --out suffix)")
    p.add_argument("-o", "--out", "--output", dest="out", metavar="FILE", help="write the review to FILE")
    p.add_argument("--checkpoint", action="append", default=[], metavar="FILE",
                   help="also audit this PyTorch checkpoint (repeatable)")
    p.add_argument("--unsafe-load", action="store_true",
                   help="load checkpoints with full pickle when weights_only=True refuses them (trusted files only)")
    p.add_argument("--fail-on", choices=["error", "warning", "info", "never"], default="never",
                   help="exit 1 when a finding is at or above this severity (default: never)")
    add_selection_arguments(p)


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return {"markdown": "md"}.get(args.format, args.format)
    if args.out:
        return {".json": "json", ".html": "html", ".txt": "text"}.get(Path(args.out).suffix.lower(), "md")
    return "text"


def run(args: argparse.Namespace) -> int:
    from ..engine import Selection
    from ..report.render import render
    from ..report.review import audit_paths

    selection = Selection(select=split_ids(args.select), ignore=split_ids(args.ignore))
    try:
        audit, errors = audit_paths(args.paths, selection, config_file=args.config, checkpoints=args.checkpoint,
                                    unsafe_load=args.unsafe_load)
    except ConfigError as exc:
        print(f"trainguard: {exc}", file=sys.stderr)
        return 2
    for err in errors:
        print(f"trainguard: {err}", file=sys.stderr)
    if errors and not audit.provenance.get("notebooks"):
        return 2
    text = render(audit, _format(args))
    if args.out:
        try:
            Path(args.out).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        except OSError as exc:
            print(f"trainguard: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
            return 2
    else:
        print(text)
    worst = max((f.severity for f in audit.findings), key=lambda s: s.rank, default=None)
    return 1 if threshold_exceeded(worst, args.fail_on) else 0
