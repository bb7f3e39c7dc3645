"""`%%guarded_train`: run a training cell with leakage/seeding/config checks, memory tracking and safe failure.

Defaults for every option can be set with `%config TrainGuard.<option> = value`.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from traitlets import Bool, Float, Integer, Unicode
from traitlets.config import Configurable


class TrainGuard(Configurable):
    """Defaults for `%%guarded_train` (`%config TrainGuard.seed = 0`, `%config TrainGuard.strict = True`)."""

    seed = Integer(None, allow_none=True, help="Seed Python, NumPy and torch before every guarded cell.").tag(
        config=True
    )
    deterministic = Bool(False, help="Turn on torch deterministic algorithms and cuDNN flags.").tag(config=True)
    strict = Bool(False, help="Refuse to run a cell with error-severity findings.").tag(config=True)
    report_dir = Unicode("trainguard_reports", help="Where failure reports (JSON) are written.").tag(config=True)
    memory_budget = Unicode("", help="Memory budget for --estimate, e.g. 24GiB ('' = none).").tag(config=True)
    group_key = Unicode("", help="Column whose values must not be shared between splits (DATA002).").tag(config=True)
    target = Unicode("", help="Label column inside the training frame (DATA006).").tag(config=True)
    time_column = Unicode("", help="Datetime column for DATA005 (default: a DatetimeIndex or datetime column).").tag(
        config=True
    )
    overlap_threshold = Float(0.0, help="DATA001 fires when the overlap ratio exceeds this (0 = any row).").tag(
        config=True
    )
    keep_traceback = Bool(False, help="Do not clear the failed frames (keeps %debug usable).").tag(config=True)
    sample_interval = Float(0.1, help="Seconds between memory timeline samples (0 = no sampler thread).").tag(
        config=True
    )
    leak_threshold = Unicode("256MiB", help="MEM002 fires when more device memory than this is retained.").tag(
        config=True
    )
    backend = Unicode("auto", help="Memory backend: auto, cuda or rss.").tag(config=True)
    quiet = Bool(False, help="Do not display the panel (the report is still in _trainguard_last).").tag(config=True)
    impact = Bool(
        True,
        help="After a successful cell, refit clones without each leak found and report the honest "
        "metric (within the impact budget).",
    ).tag(config=True)
    impact_memory = Unicode(
        "1GiB", help="Memory budget of the impact refits' copies, e.g. 512MiB (also %trainaudit --impact)."
    ).tag(config=True)


class GuardRefused(UsageError):
    """The cell was not run because --strict found error-severity findings."""


@magics_class
class GuardedTrainMagics(Magics):
    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell, **kwargs)
        self.settings = TrainGuard(parent=shell)
        if shell is not None and all(type(c).__name__ != "TrainGuard" for c in shell.configurables):
            shell.configurables.append(self.settings)
        elif shell is not None:
            self.settings = next(c for c in shell.configurables if type(c).__name__ == "TrainGuard")

    @magic_arguments()
    @argument("--seed", type=int, default=None, help="Seed Python random, NumPy and torch (CPU+CUDA) first.")
    @argument(
        "--deterministic",
        action="store_true",
        default=None,
        help="torch.use_deterministic_algorithms(True, warn_only=True) + cuDNN flags; reports env vars "
        "that can no longer take effect (RNG002).",
    )
    @argument(
        "--strict",
        action="store_true",
        default=None,
        help="Refuse to run the cell when there is any error-severity finding.",
    )
    @argument(
        "--config",
        nargs="?",
        const="",
        default=None,
        metavar="NAME",
        help="Validate dict NAME (or, without NAME, the UPPER_CASE constants) against [tool.trainguard.constants].",
    )
    @argument(
        "--estimate",
        nargs="?",
        const="",
        default=None,
        metavar="SPEC",
        help="Estimate the cell's peak memory before running it (SPEC is passed to the estimator).",
    )
    @argument(
        "--memory-budget",
        default=None,
        metavar="SIZE",
        help="e.g. 24GiB: MEM003 when the estimate is above it (an error that refuses with --strict).",
    )
    @argument("--group-key", default=None, metavar="COL", help="ID/group column checked for overlap (DATA002).")
    @argument("--target", default=None, metavar="COL", help="Label column inside the training frame (DATA006).")
    @argument("--time-column", default=None, metavar="COL", help="Datetime column for DATA005.")
    @argument(
        "--overlap-threshold",
        type=float,
        default=None,
        metavar="RATIO",
        help="DATA001 fires above this overlap ratio (default 0: any shared row).",
    )
    @argument(
        "--report-dir",
        default=None,
        metavar="DIR",
        help="Directory for the failure report JSON (default ./trainguard_reports/).",
    )
    @argument(
        "--keep-traceback",
        action="store_true",
        default=None,
        help="Keep the failed frames alive for %%debug instead of freeing their memory.",
    )
    @argument("--no-static", action="store_true", help="Skip the static rules over the session history.")
    @argument("--no-runtime", action="store_true", help="Skip the checks on live objects.")
    @argument(
        "--backend",
        default=None,
        metavar="NAME",
        help="Memory backend: auto, cuda, rss, or the name of a MemoryBackend object in the namespace.",
    )
    @argument(
        "--sample-interval",
        type=float,
        default=None,
        metavar="SECONDS",
        help="Memory timeline sampling period (default 0.1 s; 0 turns the sampler thread off).",
    )
    @argument("--quiet", action="store_true", default=None, help="Do not display the panel.")
    @argument("--no-impact", action="store_true", help="Do not measure what the leaks found did to the metric.")
    @argument(
        "--impact-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="Time budget of the impact refits (default: 2x the cell's own time + 2 s).",
    )
    @argument(
        "--impact-memory",
        default=None,
        metavar="SIZE",
        help="Memory budget of the impact refits' copies (default 1 GiB or TrainGuard.impact_memory).",
    )
    @cell_magic
    def guarded_train(self, line: str, cell: str) -> None:
        """Run a training cell with trainguard's checks, memory tracking and safe failure handling.

        Before the cell: static rules over the session's executed cells and this one; runtime checks on the
        live train/validation/test splits (DATA001 row overlap, DATA002 group-key overlap, DATA003 transformer
        fitted on more rows than the training split, DATA004 test set passed as eval_set/validation data,
        DATA005 training rows dated after evaluation rows, DATA006 a single feature predicting the label),
        seeding (RNG001/RNG002), config (--config) and the memory estimate (--estimate, MEM003).
        While it runs: allocator (CUDA) or RSS memory, its peak, a timeline and optimizer steps.
        If it fails (exception, OOM, KeyboardInterrupt): the failed frames are freed (not the namespace), an OOM
        is explained (MEM001), open MLflow/W&B runs are closed as failed (GUARD001), a JSON report is written,
        and the same exception is raised again.
        The result is in `_trainguard_last` and `jupyter_trainguard.runtime.last_run()`.
        Defaults for the options: `%config TrainGuard.seed = 0`, `%config TrainGuard.strict = True`, ...
        (`%config TrainGuard` lists them).
        """
        __tracebackhide__ = True  # noqa: F841 - IPython hides this frame in tracebacks
        from ..display.run_panel import show_run
        from ..runtime.guard import run_guarded

        args = parse_argstring(self.guarded_train, line)
        opts = self._options(args)
        impact_memory = self._impact_memory(args)
        run, error = run_guarded(self.shell, cell, opts)
        if error is None and self.settings.impact and not args.no_impact:
            self._impact(cell, run, args.impact_budget, impact_memory)
        quiet = args.quiet if args.quiet is not None else self.settings.quiet
        if not quiet or run.status == "refused":
            try:
                show_run(run, self.shell)
            except Exception as exc:  # noqa: BLE001 - a display bug must not hide the user's own error
                print(
                    f"trainguard: the result panel could not be shown ({type(exc).__name__}: {exc}); "
                    "the report is in _trainguard_last"
                )
        if run.status == "refused":
            raise GuardRefused("guarded_train refused to run the cell (--strict): " + "; ".join(run.refused_because))
        if error is not None:
            from ..runtime.cleanup import user_traceback

            if isinstance(error, SyntaxError):  # shown once, as for a plain cell: no frames of IPython or trainguard
                from . import plain_syntax_error

                raise plain_syntax_error(error, user_traceback(error))
            raise error.with_traceback(user_traceback(error))

    def _impact_memory(self, args: Any) -> int | None:
        """--impact-memory, else `%config TrainGuard.impact_memory`, in bytes (a bad size fails the cell first)."""
        from ..runtime.oom import parse_size

        size = args.impact_memory or self.settings.impact_memory
        try:
            return parse_size(size) if size else None
        except ValueError as exc:
            raise UsageError(f"--impact-memory: {exc}") from None

    def _impact(self, cell: str, run: Any, seconds: float | None, memory_bytes: int | None = None) -> None:
        """What each leak did to the reported metric (clones and copies only); a failure is a note, never raised."""
        try:
            from ..impact.session import measure_run

            measure_run(self.shell, cell, run, seconds=seconds, memory_bytes=memory_bytes)
        except Exception as exc:  # noqa: BLE001 - the user's cell already ran; never fail it here
            run.notes.append(f"impact measurement failed: {type(exc).__name__}: {exc}")

    def _options(self, args: Any) -> Any:
        from ..runtime.guard import GuardOptions
        from ..runtime.oom import parse_size

        s = self.settings

        def pick(value: Any, default: Any) -> Any:
            return default if value is None else value

        budget = pick(args.memory_budget, s.memory_budget or None)
        try:
            budget_bytes = parse_size(budget) if budget else None
            leak = parse_size(s.leak_threshold)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        backend: Any = pick(args.backend, s.backend)
        if backend not in ("auto", "cuda", "rss"):
            obj = self.shell.user_ns.get(backend)
            if obj is None or not hasattr(obj, "current"):
                raise UsageError(f"--backend {backend}: not auto, cuda, rss or a memory backend in the namespace")
            backend = obj
        return GuardOptions(
            seed=pick(args.seed, s.seed),
            deterministic=bool(pick(args.deterministic, s.deterministic)),
            strict=bool(pick(args.strict, s.strict)),
            config=args.config,
            estimate=args.estimate,
            memory_budget=budget_bytes,
            group_key=pick(args.group_key, s.group_key or None),
            target=pick(args.target, s.target or None),
            time_column=pick(args.time_column, s.time_column or None),
            overlap_threshold=pick(args.overlap_threshold, s.overlap_threshold),
            report_dir=pick(args.report_dir, s.report_dir),
            keep_traceback=bool(pick(args.keep_traceback, s.keep_traceback)),
            static=not args.no_static,
            runtime=not args.no_runtime,
            sample_interval=pick(args.sample_interval, s.sample_interval),
            leak_threshold=leak,
            backend=backend,
        )
