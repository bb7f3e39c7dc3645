"""The `trainguard` command: a thin adapter over the engine. Each subcommand is a module in `commands/`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from types import ModuleType

from . import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _command_modules(only: str | None = None) -> list[ModuleType]:
    """Every command module, or just the one named `only` (a start-up of one command imports one module)."""
    from . import commands

    infos = [info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_")]
    if only:
        for name in (only, f"{only}_cmd"):
            if name in infos:
                mod = importlib.import_module(f"{commands.__name__}.{name}")
                if getattr(mod, "NAME", None) == only:
                    return [mod]
    mods = [importlib.import_module(f"{commands.__name__}.{name}") for name in infos]
    return sorted(mods, key=lambda m: getattr(m, "ORDER", 50))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `command`, only that subcommand is loaded (all of them when it is not found)."""
    parser = argparse.ArgumentParser(
        prog="trainguard",
        description="Find leakage, reproducibility and pipeline problems in ML training notebooks.",
    )
    parser.add_argument("--version", action="version", version=f"trainguard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in _command_modules(command):
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    first = args_in[0] if args_in and not args_in[0].startswith("-") else None
    parser = build_parser(first)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args._run(args))
    except KeyboardInterrupt:
        print("trainguard: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
