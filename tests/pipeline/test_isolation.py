"""Subprocess isolation: a component that exits, hangs or crashes the interpreter is a finding, not a crash."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from jupyter_trainguard.pipeline import check_pipeline

BROKEN = {
    "good.py": """\
        import os
        print("noise from user code")
        os.write(1, b'{"event": "done"}\\n')  # even raw writes to fd 1 cannot forge the protocol
        def run(a, b, *, c=1):
            return {"status": "ok"}
        """,
    "exiter.py": "import sys\nsys.exit(3)\n",
    "hanger.py": "import time\ntime.sleep(60)\n",
    "crasher.py": "import ctypes\nctypes.string_at(0)\n",
    "user.py": "from . import hanger\n",
    "caller.py": "from .good import run\n\ndef go():\n    return run(1, b=2, d=3)\n",
}


def _by_file(result):
    return {Path(r.path).name: r.findings for r in result.reports}


def test_exit_hang_and_segfault_at_import_become_findings(components):
    config = components(BROKEN, "[tool.trainguard.pipeline]\ntimeout_s = 2\n")
    cwd, modules_before = os.getcwd(), set(sys.modules)
    result = check_pipeline(config)
    assert os.getcwd() == cwd
    assert not {m for m in set(sys.modules) - modules_before if m.split(".")[0] in ("comps", "ctypes_user")}
    assert "comps" not in sys.modules  # user code never ran in this process
    found = _by_file(result)
    (exiter,) = found["exiter.py"]
    assert exiter.rule_id == "PHEALTH001" and "sys.exit(3)" in exiter.message and exiter.location.line == 2
    (crasher,) = found["crasher.py"]
    assert crasher.rule_id == "PHEALTH001" and "SIGSEGV" in crasher.message and crasher.location.line == 2
    (hanger,) = found["hanger.py"]
    assert "2 s time limit" in hanger.message and hanger.location.line == 2
    (user,) = found["user.py"]
    assert user.evidence["caused_by"] == "hanger" and user.location.line == 1
    (caller,) = found["caller.py"]
    assert caller.rule_id == "PHEALTH003" and "'d'" in caller.message and caller.location.line == 4
    status = {c.name: c for c in result.components}
    assert status["good"].ok and status["__init__"].ok
    assert not status["exiter"].ok and not status["crasher"].ok and not status["hanger"].ok
    assert result.probe_runs == 3  # hang, then crash, then a run that finishes with both blocked


def test_hanging_import_leaves_no_process_behind(components, tmp_path):
    pidfile = tmp_path / "child.pid"
    config = components({"spawner.py": f"""\
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open({str(pidfile)!r}, "w").write(str(child.pid))
        time.sleep(60)
        """}, "[tool.trainguard.pipeline]\ntimeout_s = 2\n")
    result = check_pipeline(config)
    assert [f.rule_id for f in result.findings] == ["PHEALTH001"]
    pid = int(pidfile.read_text())
    deadline = time.time() + 5
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"child process {pid} of the hanging import is still running")


SMOKE = """\
[tool.trainguard.pipeline]
timeout_s = 2
[tool.trainguard.pipeline.smoke]
entry = "entry.run"
kwargs = {{ mode = "{mode}", output_dir = "out/smoke" }}
"""

ENTRY = """\
    import ctypes, os, sys, time
    from pathlib import Path

    def run(mode: str, output_dir: str) -> dict:
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        (Path(output_dir) / "report.json").write_text("{}")
        if mode == "exit":
            sys.exit(4)
        if mode == "crash":
            ctypes.string_at(0)
        if mode == "hang":
            time.sleep(60)
        if mode == "raise":
            raise ValueError("bad batch")
        return {"status": "ok"}
    """


def test_smoke_run_failures_are_captured(components):
    outcomes = {}
    for mode in ("ok", "exit", "crash", "hang", "raise"):
        config = components({"entry.py": ENTRY}, SMOKE.format(mode=mode))
        result = check_pipeline(config, smoke=True, notebooks=False)
        smoke = [f for f in result.findings if f.rule_id == "PHEALTH006"]
        outcomes[mode] = (result.smoke, smoke)
    ok, none = outcomes["ok"]
    assert ok.ok and not none and ok.artifacts == ["out/smoke/report.json"] and ok.rss_peak_mb > 0
    assert "sys.exit(4)" in outcomes["exit"][1][0].message
    assert "SIGSEGV" in outcomes["crash"][1][0].message
    assert "time limit" in outcomes["hang"][1][0].message
    raised = outcomes["raise"][1][0]
    assert "ValueError: bad batch" in raised.message and raised.location.line == 14
    assert Path(raised.location.path).name == "entry.py"
    assert all(not outcomes[m][0].ok for m in ("exit", "crash", "hang", "raise"))
