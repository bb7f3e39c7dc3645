"""`trainguard fix --verify`: run a notebook before and after its fixes in a real kernel, on copies, and report
the metrics that changed, cell by cell. The user's notebook, folder and tracking server are never touched: both
versions run in a temporary copy of the notebook's folder, with MLflow pointed at the copy and W&B disabled."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
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


@contextlib.contextmanager
def _private_tracking(folder: Path) -> Iterator[None]:
    """The kernels inherit an environment that logs MLflow runs into the copy and keeps W&B offline."""
    saved = {k: os.environ.get(k) for k in ("MLFLOW_TRACKING_URI", "WANDB_MODE")}
    os.environ["MLFLOW_TRACKING_URI"] = (folder / "mlruns").as_uri()
    os.environ["WANDB_MODE"] = "disabled"
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def execute(path: Path, timeout: int, kernel_name: str) -> Any:
    """Run the notebook at `path` top to bottom (errors recorded, not raised); the executed notebook."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=kernel_name,
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    with _private_tracking(path.parent):
        client.execute()
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
) -> Verified:
    """Fix a copy, run the original and the fixed copy `runs` times each, and compare their metrics."""
    from ..engine import Selection
    from ..fix.runner import fix_file
    from .outputs import compare, errors_of, metrics_of

    nb_path = Path(path).resolve()
    result = Verified(path=str(path), runs=runs)
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
                    nb = execute(nb_file, timeout, kernel_name)
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
