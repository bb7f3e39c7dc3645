"""CLI subcommands. A module here defines NAME, HELP, `add_arguments(parser)` and `run(args) -> int`."""
