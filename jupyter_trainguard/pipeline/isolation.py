"""Run the probe in a child process: its own interpreter, process group, time limit and JSON-lines protocol."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jupyter_trainguard

_PKG_PARENT = str(Path(jupyter_trainguard.__file__).resolve().parent.parent)
STDERR_TAIL = 4000


@dataclass
class ProbeRun:
    """What one probe process reported, and how it ended."""

    events: list[dict[str, Any]] = field(default_factory=list)
    returncode: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    stderr: str = ""

    @property
    def finished(self) -> bool:
        return any(e.get("event") == "done" for e in self.events)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("event") == kind]

    def last(self, kind: str) -> dict[str, Any] | None:
        found = self.of(kind)
        return found[-1] if found else None

    def open_imports(self) -> list[str]:
        """Modules whose import started but never ended (innermost last)."""
        stack: list[str] = []
        for e in self.events:
            if e.get("event") == "import_start":
                stack.append(e["module"])
            elif e.get("event") == "import_end" and e["module"] in stack:
                stack.remove(e["module"])
        return stack

    def how_it_ended(self) -> str:
        if self.timed_out:
            return f"did not finish within the {self.seconds:.0f} s time limit (killed)"
        code = self.returncode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"crashed the interpreter ({name})"
        return f"ended the interpreter (exit status {code})"


def probe_env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(root), _PKG_PARENT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave no __pycache__ in the user's repository
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("MPLBACKEND", "Agg")
    return env


def run_probe(request: dict[str, Any], root: Path, timeout_s: float) -> ProbeRun:
    """Start `python -m jupyter_trainguard.pipeline.probe` in `root`; kill its process group at the limit."""
    run = ProbeRun()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter_trainguard.pipeline.probe"], cwd=str(root), env=probe_env(root),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        out, err = proc.communicate(json.dumps(request).encode(), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        run.timed_out = True
        if hasattr(signal, "SIGUSR1"):  # the probe dumps its stack (faulthandler), so the hang has a line
            try:
                proc.send_signal(signal.SIGUSR1)
                proc.communicate(timeout=0.5)
            except (subprocess.TimeoutExpired, OSError):
                pass
        _kill_group(proc)
        out, err = proc.communicate()
    finally:
        _kill_group(proc)  # stray children of user code must not outlive the check
    run.seconds = time.perf_counter() - start
    if run.timed_out:
        run.seconds = timeout_s
    run.returncode = proc.returncode
    run.stderr = err.decode("utf-8", errors="replace")[-STDERR_TAIL:]
    for line in out.decode("utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict) and "event" in event:
            run.events.append(event)
    return run


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError, AttributeError):
        pass
