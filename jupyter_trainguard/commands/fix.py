"""`trainguard fix PATH...`: apply the safe fixes (and, with --unsafe, the behaviour-changing ones) in place."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..engine import Selection
from .scan import add_selection_arguments, split_ids

NAME = "fix"
HELP = "fix what has a safe automatic fix (random_state, seeding, weights_only, ...) inside the notebooks"
DESCRIPTION = (
    HELP + ". Only the changed cells' sources are rewritten; outputs, metadata and other cells stay "
    "byte-identical. The report ends with STATUS: no_work | fixed, CHANGES and DETAILS."
)
ORDER = 15


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="notebooks or folders (searched recursively)")
    p.add_argument("--diff", action="store_true", help="print a unified diff per changed cell; change nothing")
    p.add_argument(
        "--unsafe",
        action="store_true",
        help="also apply fixes that can change behaviour (each is marked UNSAFE in the report)",
    )
    p.add_argument("--format", choices=["text", "json"], default="text", help="report format (default: text)")
    p.add_argument("--list-fixers", action="store_true", help="list the fixers (id, rules, safety) and exit")
    p.add_argument(
        "--verify",
        action="store_true",
        help="run each notebook before and after the fixes in a real kernel (on copies of the notebook "
        "and its folder; nothing is written) and print the metrics that changed, cell by cell",
    )
    p.add_argument(
        "--timeout",
        type=int,
        default=600,
        metavar="SECONDS",
        help="with --verify: per-cell execution timeout (default: 600)",
    )
    p.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="with --verify: run each version N times; a change within the spread between runs is "
        "reported as no measurable effect (default: 1)",
    )
    p.add_argument("--kernel", default="python3", help="with --verify: the Jupyter kernel to use (default: python3)")
    add_selection_arguments(p)


def run(args: argparse.Namespace) -> int:
    from ..fix import all_fixers, fix_paths

    if args.list_fixers:
        for fx in all_fixers():
            print(f"{fx.id:28} {','.join(fx.rules):24} {fx.safety:7} {fx.description}")
        return 0
    if not args.paths:
        print("trainguard fix: give at least one PATH", file=sys.stderr)
        return 2
    if args.config and not Path(args.config).is_file():
        print(f"trainguard: config file {args.config} not found", file=sys.stderr)
        return 2
    selection = Selection(select=split_ids(args.select), ignore=split_ids(args.ignore))
    if args.verify:
        return _verify(args, selection)
    report = fix_paths(
        args.paths, unsafe=args.unsafe, diff_only=args.diff, selection=selection, config_file=args.config
    )
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=2))
    else:
        if args.diff and report.diff():
            print(report.diff())
        print(report.to_text())
    if report.errors and not report.files:
        return 2
    if any(f.error for f in report.files):
        return 2
    return 1 if args.diff and report.changes else 0


def _verify(args: argparse.Namespace, selection: Selection) -> int:
    """`fix --verify`: 0 when every notebook ran before and after, 2 when one could not be verified."""
    from ..impact.verify import verify_notebook
    from ..notebook.load import iter_notebook_paths

    files, errors = iter_notebook_paths(list(args.paths))
    for err in errors:
        print(f"trainguard fix: {err}", file=sys.stderr)
    results = [
        verify_notebook(
            str(f),
            unsafe=args.unsafe,
            timeout=args.timeout,
            runs=max(1, args.runs),
            kernel_name=args.kernel,
            selection=selection,
            config_file=args.config,
        )
        for f in files
        if str(f).endswith(".ipynb")
    ]
    if args.format == "json":
        print(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        print("\n\n".join(r.to_text() for r in results) or "trainguard fix --verify: no .ipynb notebook given")
    return 2 if errors or not results or any(r.error for r in results) else 0
