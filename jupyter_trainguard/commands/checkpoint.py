"""`trainguard checkpoint FILE...`: open PyTorch checkpoints safely and say what an exact resume would miss."""

from __future__ import annotations

import argparse
import json
import sys

from .scan import threshold_exceeded

NAME = "checkpoint"
HELP = "audit PyTorch checkpoints: model/optimizer/scheduler/scaler/progress/RNG/sampler state, safe loading"
ORDER = 16


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="checkpoint files or checkpoint folders")
    p.add_argument("--unsafe-load", action="store_true",
                   help="fall back to full pickle when weights_only=True refuses a file (trusted files only)")
    p.add_argument("-f", "--format", choices=["text", "json", "md", "markdown"], default="text")
    p.add_argument("--fail-on", choices=["error", "warning", "info", "never"], default="error",
                   help="exit 1 when a finding is at or above this severity (default: error)")


def run(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401
    except ImportError:
        print("trainguard: checkpoint auditing needs PyTorch (pip install 'jupyter-trainguard[torch]')",
              file=sys.stderr)
        return 2
    from ..findings import Severity
    from ..report.checkpoint_audit import audit_checkpoint, describe

    results = [audit_checkpoint(f, unsafe_load=args.unsafe_load) for f in args.files]
    if args.format == "json":
        print(json.dumps(results, indent=2, default=str))
    elif args.format in ("md", "markdown"):
        from ..report.render import render_markdown
        from ..report.review import audit_checkpoints

        print(render_markdown(audit_checkpoints(args.files, args.unsafe_load, results=results)))
    else:
        print("\n\n".join(describe(r) for r in results))
    missing = [r["path"] for r in results if r.get("error") == "no such file or directory"]
    for path in missing:
        print(f"trainguard: {path}: no such file or directory", file=sys.stderr)
    sev = [Severity.parse(f["severity"]) for r in results for f in r.get("findings", [])]
    worst = max(sev, key=lambda s: s.rank, default=None)
    if missing and len(missing) == len(results):
        return 2
    return 1 if threshold_exceeded(worst, args.fail_on) else 0
