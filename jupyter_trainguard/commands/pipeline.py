"""`trainguard pipeline [PATH]`: the shared components import, fit together and fail safely."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import ConfigError, load_config
from ..engine import Selection
from ..output import FORMATS, render
from .scan import emit, split_ids, threshold_exceeded, wants_colour

NAME = "pipeline"
HELP = "check the shared training components: imports, signatures, integration, error handling (--smoke: run it)"
DESCRIPTION = (
    "Import every component of [tool.trainguard] components in an isolated subprocess, check the declared entry "
    "points, every call into the components, the values passed between stages and the notebook constants "
    "against what the components accept, and read the components' error handling. --smoke also runs the "
    "integration entry point on the tiny configuration of [tool.trainguard.pipeline.smoke]."
)
ORDER = 20


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="the project (a folder or file under the pyproject.toml to use; default: .)")
    p.add_argument("--smoke", action="store_true", help="also run the integration entry point end to end")
    p.add_argument("-f", "--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE instead of stdout")
    p.add_argument("--fail-on", choices=["error", "warning", "info", "never"], default=None,
                   help="exit 1 when a finding is at or above this severity (default: the config's, else error)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="time limit per isolated probe process (default: the config's timeout_s, else 60)")
    nb = p.add_mutually_exclusive_group()
    nb.add_argument("--notebooks", dest="notebooks", action="store_true", default=None,
                    help="also check the notebooks' calls and constants (overrides the config)")
    nb.add_argument("--no-notebooks", dest="notebooks", action="store_false",
                    help="check the components only")
    p.add_argument("--select", action="append", metavar="IDS", help="only these rules (ids, prefixes, categories)")
    p.add_argument("--ignore", action="append", metavar="IDS", help="skip these rules (ids, prefixes, categories)")
    p.add_argument("--config", metavar="PYPROJECT", help="use this pyproject.toml instead of discovering one")
    p.add_argument("--no-color", action="store_true", help="never colour the text output")


def run(args: argparse.Namespace) -> int:
    from ..pipeline import check_pipeline
    from ..pipeline.spec import pipeline_spec

    if not Path(args.path).exists():
        print(f"trainguard: {args.path}: no such file or directory", file=sys.stderr)
        return 2
    if args.config and not Path(args.config).is_file():
        print(f"trainguard: config file {args.config} not found", file=sys.stderr)
        return 2
    if args.timeout is not None and args.timeout <= 0:
        print("trainguard: --timeout must be positive", file=sys.stderr)
        return 2
    try:
        config = load_config(args.path, explicit=args.config)
        if args.smoke and pipeline_spec(config).smoke is None:
            print(f"trainguard: --smoke needs a [tool.trainguard.pipeline.smoke] table (entry, kwargs) in "
                  f"{config.source or 'pyproject.toml'}", file=sys.stderr)
            return 2
        result = check_pipeline(config, smoke=args.smoke, timeout_s=args.timeout, notebooks=args.notebooks,
                                selection=Selection(select=split_ids(args.select), ignore=split_ids(args.ignore)))
    except ConfigError as exc:
        print(f"trainguard: {exc}", file=sys.stderr)
        return 2
    text = render(args.format, result.reports, colour=wants_colour(args))
    if args.format == "text":
        head, _, last = text.rpartition("\n")
        last = last.replace(" notebooks scanned:", " files checked:").replace(" notebook scanned:", " file checked:")
        text = result.summary_text() + "\n\n" + (head + "\n" if head else "") + last
    if not emit(text, args.output):
        return 2
    return 1 if threshold_exceeded(result.worst(), args.fail_on or config.fail_on) else 0
