"""`trainguard fix --verify`: run a notebook before and after its fixes in a real kernel, on copies, and report
the metrics that changed, cell by cell. The user's notebook, folder and tracking server are never touched: both
versions run in a temporary copy of the notebook's folder, with MLflow pinned to a sqlite store in the copy (the
notebook's own tracking URI is ignored) and W&B disabled."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COPY_LIMIT = 200 << 20  # the notebook's folder is copied when it holds less than this
SKIP_DIRS = {".git", ".ipynb_checkpoints", "__pycache__", "node_modules", ".venv", "venv"}


@dataclass
class Verified:
    path: str
    fixes: list[dict[str, Any]] = field(default_factory=list)
    left: list[dict[str, Any]] = field(default_factory=list)
    metrics: list[dict[str, Any]] = field(default_factory=list)
    errors: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    runs: int = 1
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "fixes": self.fixes,
            "left": self.left,
            "metrics": self.metrics,
            "errors": {k: [list(e) for e in v] for k, v in self.errors.items()},
            "runs": self.runs,
            "seconds": self.seconds,
            "notes": self.notes,
            "error": self.error,
        }

    def to_text(self) -> str:
        if self.error:
            return f"{self.path}: not verified: {self.error}"
        out = [
            f"Verified {self.path}: {len(self.fixes)} fix(es), notebook run before and after in a kernel "
            f"({self.runs} run(s) each; {self.seconds.get('before', 0):.1f} s before, "
            f"{self.seconds.get('after', 0):.1f} s after)"
        ]
        for fx in self.fixes:
            out.append(f"  fix {fx['place']}: {fx['rule_id']} {fx['summary']}" + (" (UNSAFE)" if fx["unsafe"] else ""))
        changed = [m for m in self.metrics if m["verdict"] != "unchanged"]
        out.append("Metrics that changed:" if changed else "Metrics that changed: none")
        for m in changed:
            b, a = m["before"], m["after"]
            vals = f"{_fmt(b)} → {_fmt(a)}"
            spread = f"; spread between runs {m['spread']:.3g}" if m["spread"] is not None else ""
            tail = (
                ": no measurable effect (within the spread between runs)"
                if m["verdict"] == "no measurable effect"
                else ""
            )
            out.append(
                f"  cell {m['cell_before'] + 1} → cell {m['cell_after'] + 1}  {m['label']}: {vals} "
                f"({m['change']}{spread}){tail}"
            )
        same = len(self.metrics) - len(changed)
        if same:
            out.append(f"Unchanged: {same} metric(s)")
        for side, errs in self.errors.items():
            for cell, name in errs:
                out.append(f"  {side}: cell {cell + 1} raised {name}")
        for left in self.left:
            out.append(f"  not applied: {left['rule_id']} at {left['where']}: {left['reason']}")
        out += [f"Note: {n}" for n in self.notes]
        return "\n".join(out)


def _fmt(values: list[float]) -> str:
    import statistics

    text = f"{statistics.fmean(values):.6g}"
    return text + (f" (mean of {len(values)})" if len(values) > 1 else "")


def copy_folder(nb_path: Path, dest: Path, inputs: Path | None = None) -> tuple[Path, str | None]:
    """Copy the notebook's folder (or `inputs`) into dest with the notebook; only the notebook when the folder is
    too large."""
    src = inputs or nb_path.parent
    total = 0
    note = None
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        total += sum((Path(root) / f).stat().st_size for f in files if (Path(root) / f).is_file())
        if total > COPY_LIMIT:
            note = (
                f"the folder {src.name or src} is over {COPY_LIMIT >> 20} MiB: only the notebook was copied, so "
                "inputs it reads by relative path may be missing"
            )
            break
    if note:
        dest.mkdir(parents=True)
    else:
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns(*SKIP_DIRS), symlinks=True)
    shutil.copy2(nb_path, dest / nb_path.name)
    return dest / nb_path.name, note


PIN_STARTUP = """# trainguard fix --verify: tracking pinned to a private store in the notebook's temporary copy.
import importlib.abc as _abc
import os as _os
import sys as _sys


def _trainguard_pin():
    uri = _os.environ["TRAINGUARD_PINNED_MLFLOW_URI"]

    def mlflow_pinned(mod):
        try:
            from mlflow.tracking._tracking_service import utils
        except Exception:
            return
        real_set = utils.set_tracking_uri

        def set_tracking_uri(_uri=None, *args, **kwargs):  # the notebook's own URI is ignored
            real_set(uri)

        def resolve(tracking_uri=None):  # MlflowClient("...") and friends
            return uri

        for name in ("mlflow", "mlflow.tracking", "mlflow.tracking._tracking_service.utils"):
            m = _sys.modules.get(name)
            if m is not None and hasattr(m, "set_tracking_uri"):
                m.set_tracking_uri = set_tracking_uri
        for name in ("mlflow.tracking._tracking_service.utils", "mlflow.tracking.fluent", "mlflow.tracing.client",
                     "mlflow.models.model"):
            m = _sys.modules.get(name)
            if m is not None and hasattr(m, "_resolve_tracking_uri"):
                m._resolve_tracking_uri = resolve
        real_set(uri)

    def wandb_disabled(mod):
        real_init = getattr(mod, "init", None)
        if real_init is None:
            return

        def init(*args, **kwargs):
            kwargs["mode"] = "disabled"
            return real_init(*args, **kwargs)

        mod.init = init

    hooks = {"mlflow": mlflow_pinned, "wandb": wandb_disabled}

    class Pin(_abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name not in hooks:
                return None
            for finder in _sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
            else:
                return None
            loader = spec.loader
            real_exec = getattr(loader, "exec_module", None)
            if real_exec is None:
                return spec

            def exec_module(module):
                real_exec(module)
                hooks[name](module)

            loader.exec_module = exec_module
            return spec

    _sys.meta_path.insert(0, Pin())
    for name, hook in hooks.items():
        if name in _sys.modules:
            hook(_sys.modules[name])


_trainguard_pin()
del _trainguard_pin
"""


def private_environment(folder: Path, ipython_dir: Path) -> dict[str, str]:
    """The kernels' environment: MLflow logs into a sqlite store in the copy (pinned: the notebook's own
    set_tracking_uri/MlflowClient URI is ignored), W&B disabled, IPython started from a private IPYTHONDIR whose
    startup file does the pinning (the user's IPython profile, history and startup files are not used)."""
    startup = ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-trainguard-pin-tracking.py").write_text(PIN_STARTUP, encoding="utf-8")
    uri = f"sqlite:///{folder / 'mlflow.db'}"
    env = dict(os.environ)
    env.update(
        {
            "MLFLOW_TRACKING_URI": uri,
            "TRAINGUARD_PINNED_MLFLOW_URI": uri,
            "WANDB_MODE": "disabled",
            "IPYTHONDIR": str(ipython_dir),
        }
    )
    return env


class OutOfTime(Exception):
    """The overall deadline of a verification or replay passed."""


def execute(path: Path, timeout: int, kernel_name: str, deadline: float | None = None) -> Any:
    """Run the notebook at `path` top to bottom (errors recorded, not raised); the executed notebook. Each cell
    gets `timeout` seconds, and no more than what is left before `deadline` (a time.monotonic() value)."""
    import nbformat
    from nbclient import NotebookClient

    def left() -> float:
        return float("inf") if deadline is None else deadline - time.monotonic()

    nb = nbformat.read(str(path), as_version=4)
    if left() <= 1:
        raise OutOfTime("no time left to start the kernel")
    client = NotebookClient(
        nb,
        timeout=timeout,
        startup_timeout=int(max(1, min(60, left()))),
        kernel_name=kernel_name,
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    with tempfile.TemporaryDirectory(prefix="trainguard-ipython-") as ipython_dir:
        env = private_environment(path.parent, Path(ipython_dir))
        client.reset_execution_trackers()
        with client.setup_kernel(env=env):
            for index, cell in enumerate(nb.cells):
                if left() <= 0:
                    raise OutOfTime(f"the time ran out before cell {index + 1}")
                client.timeout = int(max(1, min(timeout, left())))
                try:
                    client.execute_cell(cell, index, execution_count=client.code_cells_executed + 1)
                except Exception as exc:
                    if type(exc).__name__ == "CellTimeoutError" and left() <= 1:
                        raise OutOfTime(f"the time ran out in cell {index + 1}") from None
                    raise
            client.set_widgets_metadata()
    return nb


def verify_notebook(
    path: str,
    unsafe: bool = False,
    timeout: int = 600,
    runs: int = 1,
    kernel_name: str = "python3",
    selection: Any = None,
    config_file: str | None = None,
    inputs: Path | None = None,
    deadline_s: float | None = None,
) -> Verified:
    """Fix a copy, run the original and the fixed copy `runs` times each, and compare their metrics; with
    `deadline_s`, all of it within that many seconds (the replay's budget), else each cell within `timeout`."""
    from ..engine import Selection
    from ..fix.runner import fix_file
    from .outputs import compare, errors_of, metrics_of

    nb_path = Path(path).resolve()
    result = Verified(path=str(path), runs=runs)
    deadline = None if deadline_s is None else time.monotonic() + deadline_s
    try:
        import nbclient  # noqa: F401
    except ImportError:
        result.error = "nbclient is not installed (pip install nbclient ipykernel)"
        return result
    if not nb_path.is_file() or nb_path.suffix != ".ipynb":
        result.error = "not an .ipynb notebook file"
        return result
    with tempfile.TemporaryDirectory(prefix="trainguard-verify-") as tmp:
        before_nb, note = copy_folder(nb_path, Path(tmp) / "before", inputs)
        after_nb, _ = copy_folder(nb_path, Path(tmp) / "after", inputs)
        if note:
            result.notes.append(note)
        fixed = fix_file(str(after_nb), unsafe=unsafe, selection=selection or Selection(), config_file=config_file)
        if fixed.error:
            result.error = f"the fixes could not be applied: {fixed.error}"
            return result
        result.fixes = [
            {
                "rule_id": c.rule_id,
                "fixer": c.fixer,
                "place": c.place(),
                "summary": c.summary,
                "unsafe": c.safety == "unsafe",
            }
            for c in fixed.changes
        ]
        result.left = [{"rule_id": x.rule_id, "where": x.place(), "reason": x.reason} for x in fixed.left]
        if not fixed.changes:
            result.notes.append(
                "no fix applies to this notebook: nothing to compare"
                + ("" if unsafe else " (behaviour-changing fixes need --unsafe)")
            )
            return result
        before_runs, after_runs = [], []
        for side, nb_file, bucket in (("before", before_nb, before_runs), ("after", after_nb, after_runs)):
            t0 = time.perf_counter()
            for _ in range(runs):
                try:
                    nb = execute(nb_file, timeout, kernel_name, deadline)
                except OutOfTime as exc:
                    result.error = f"over the time budget of {deadline_s:.0f} s ({exc}, in the {side} run)"
                    return result
                except Exception as exc:  # noqa: BLE001 - timeouts, dead kernels: reported, not raised
                    result.error = f"the {side} run failed: {type(exc).__name__}: {str(exc)[:200]}"
                    return result
                bucket.append(metrics_of(nb))
                errs = errors_of(nb)
                if errs:
                    result.errors[side] = errs
            result.seconds[side] = round(time.perf_counter() - t0, 2)
        result.metrics = compare(before_runs, after_runs)
        if runs == 1 and any(m["verdict"] == "changed" for m in result.metrics):
            result.notes.append(
                "one run of each version: a change can be run-to-run noise when the notebook is "
                "not fully seeded; --runs 3 reports changes within the spread between runs as "
                "no measurable effect"
            )
        if not result.metrics:
            result.notes.append("no metric value (label: number) was found in the outputs of both versions")
    return result
