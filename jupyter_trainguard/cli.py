"""The `trainguard` command: a thin adapter over the engine. Each subcommand is a module in `commands/`."""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from . import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _command_modules(only: str | None = None) -> list[ModuleType]:
    """Every command module, or just the one named `only` (a start-up of one command imports one module)."""
    from . import commands

    if only and only.isidentifier() and not only.startswith("_"):
        for name in (only, f"{only}_cmd"):
            qualified = f"{commands.__name__}.{name}"
            try:
                mod = importlib.import_module(qualified)
            except ModuleNotFoundError as exc:
                if exc.name != qualified:  # the command exists but something it imports is missing
                    raise
                continue
            if getattr(mod, "NAME", None) == only:
                return [mod]
    import pkgutil

    infos = [info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_")]
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
        p.set_defaults(_run=mod.run, _prepare=getattr(mod, "prepare", None))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; `argv` None means this is the `trainguard` process itself (see `_start_up`)."""
    args_in = sys.argv[1:] if argv is None else argv
    first = args_in[0] if args_in and not args_in[0].startswith("-") else None
    process = argv is None
    with _start_up(process):
        parser = build_parser(first)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
            return int(exc.code or 0)
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        if args._prepare is not None:
            with _start_up(process):
                args._prepare()
        return int(args._run(args))
    except KeyboardInterrupt:
        print("trainguard: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    finally:
        if process:
            gc.freeze()  # the process ends now: spare it the collection of every object at interpreter exit


@contextmanager
def _start_up(process: bool) -> Iterator[None]:
    """Import and build without the cyclic garbage collector: start-up makes long-lived objects only (modules, the
    parser, the rules), so collecting would only walk them again and again. In the `trainguard` process they are
    then frozen out of the collector's sight, and later collections walk only the scan's own objects."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if process:
            gc.freeze()
        if collecting:
            gc.enable()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
