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
DESCRIPTION = (HELP + ". Only the changed cells' sources are rewritten; outputs, metadata and other cells stay "
               "byte-identical. The report ends with STATUS: no_work | fixed, CHANGES and DETAILS.")
ORDER = 15


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="notebooks or folders (searched recursively)")
    p.add_argument("--diff", action="store_true", help="print a unified diff per changed cell; change nothing")
    p.add_argument("--unsafe", action="store_true",
                   help="also apply fixes that can change behaviour (each is marked UNSAFE in the report)")
    p.add_argument("--format", choices=["text", "json"], default="text", help="report format (default: text)")
    p.add_argument("--list-fixers", action="store_true", help="list the fixers (id, rules, safety) and exit")
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
    report = fix_paths(args.paths, unsafe=args.unsafe, diff_only=args.diff, selection=selection,
                       config_file=args.config)
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
