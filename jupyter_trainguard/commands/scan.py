"""`trainguard scan PATH...`: scan notebooks and report findings."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..config import ConfigError
from ..engine import Selection, scan
from ..findings import Severity
from ..output import FORMATS, render

NAME = "scan"
HELP = "scan notebooks (.ipynb, jupytext .py) for leakage, reproducibility and pipeline problems"
ORDER = 10


def prepare() -> None:
    """Load the rules a scan runs (the CLI calls this as part of its start-up, before `run`)."""
    from ..rules.registry import notebook_rules

    notebook_rules()


def split_ids(values: list[str] | None) -> tuple[str, ...]:
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return tuple(out)


def add_selection_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--select",
        action="append",
        metavar="IDS",
        help="only these rules (ids, id prefixes such as LEAK, or categories), comma-separated",
    )
    p.add_argument("--ignore", action="append", metavar="IDS", help="skip these rules (ids, prefixes, categories)")
    p.add_argument("--config", metavar="PYPROJECT", help="use this pyproject.toml instead of discovering one")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="notebooks or folders (searched recursively)")
    p.add_argument("-f", "--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE instead of stdout")
    p.add_argument(
        "--fail-on",
        choices=["error", "warning", "info", "never"],
        default=None,
        help="exit 1 when a finding is at or above this severity (default: the config's, else error)",
    )
    add_selection_arguments(p)
    p.add_argument("-j", "--jobs", type=int, default=1, help="scan files in parallel with N processes")
    p.add_argument("-v", "--verbose", action="store_true", help="also list suppressed findings and skipped rules")
    p.add_argument("--show-info", action="store_true", help="list info findings in the text output (always counted)")
    p.add_argument("--no-color", action="store_true", help="never colour the text output")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def wants_colour(args: argparse.Namespace) -> bool:
    """Colour only for text going to a terminal, unless --no-color or NO_COLOR says otherwise."""
    return args.output is None and sys.stdout.isatty() and not args.no_color and "NO_COLOR" not in os.environ


def emit(text: str, output: str | None) -> bool:
    """Print `text`, or write it to `output`; False (after saying why) when the file cannot be written."""
    if not output:
        print(text)
        return True
    try:
        Path(output).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"trainguard: cannot write {output}: {exc.strerror}", file=sys.stderr)
        return False
    return True


def threshold_exceeded(worst: Severity | None, fail_on: str) -> bool:
    if worst is None or fail_on == "never":
        return False
    return worst.rank >= Severity.parse(fail_on).rank


class Progress:
    """A one-line progress bar on stderr, shown only on a terminal for batches of more than 20 files."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 20:
            return
        width = 30
        filled = int(width * done / total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} notebooks")
        if done == total:
            sys.stderr.write("\r" + " " * (width + 30) + "\r")
        sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        print("trainguard: --jobs must be at least 1", file=sys.stderr)
        return 2
    selection = Selection(select=split_ids(args.select), ignore=split_ids(args.ignore))
    if args.config and not Path(args.config).is_file():
        print(f"trainguard: config file {args.config} not found", file=sys.stderr)
        return 2
    tty = sys.stderr.isatty()
    try:
        result = scan(
            args.paths,
            selection=selection,
            config_file=args.config,
            jobs=args.jobs,
            progress=Progress(tty and not args.no_progress),
        )
    except ConfigError as exc:
        print(f"trainguard: {exc}", file=sys.stderr)
        return 2
    for err in result.errors:
        print(f"trainguard: {err}", file=sys.stderr)
    text = render(
        args.format,
        result.reports,
        colour=wants_colour(args),
        verbose=args.verbose,
        show_info=getattr(args, "show_info", False),
    )
    if not emit(text, args.output):
        return 2
    if result.errors and not result.reports:
        return 2
    fail_on = args.fail_on or _config_fail_on(args)
    return 1 if threshold_exceeded(result.worst(), fail_on) else (2 if result.errors else 0)


def _config_fail_on(args: argparse.Namespace) -> str:
    from ..config import load_config

    try:
        return load_config(args.paths[0], explicit=args.config).fail_on
    except ConfigError:
        return "error"
