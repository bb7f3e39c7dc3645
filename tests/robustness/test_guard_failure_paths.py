"""`%%guarded_train` when something breaks in any phase: the user's code, a runtime check, the memory sampler,
the display, the failure report, a missing optional package.

Every test asserts the same contract: the user's namespace survives, the user's exception surfaces unchanged
(a guard-internal failure never replaces or hides the cell's own result), tracking runs are not left open,
the sampler thread stops, and global patches (peak resetters, optimizer step hooks) are undone.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from jupyter_trainguard.runtime.memory.backend import ScriptedBackend

from ..guard import conftest as guard_conftest

shell = guard_conftest.shell  # the real-InteractiveShell fixture of tests/guard

SAMPLER = "trainguard-memory-sampler"


def sampler_threads() -> list[object]:
    """What is still being sampled: trackers attached to the process's sampler thread, and any other thread of
    that name (the sampler itself parks between guarded cells, serving nothing)."""
    from jupyter_trainguard.runtime.memory import sampler

    shared = sampler._SAMPLER._thread if sampler._SAMPLER is not None else None
    others = [t for t in threading.enumerate() if t.name == SAMPLER and t.is_alive() and t is not shared]
    return [*sampler.attached(), *others]


class FlakyBackend(ScriptedBackend):
    """A scripted device that raises from one method after `after` calls (`after=0`: from the first call)."""

    def __init__(self, method: str, after: int = 0, exc: type[BaseException] = RuntimeError) -> None:
        super().__init__()
        self.method, self.after, self.exc, self.calls = method, after, exc, 0

    def __getattribute__(self, name: str):
        if name in ("current", "peak", "synchronize", "reset_peak", "counters", "device_info", "empty_cache",
                    "reset_targets") and name == object.__getattribute__(self, "method"):
            original = object.__getattribute__(self, name)

            def flaky(*a, **k):
                self.calls += 1
                if self.calls > self.after:
                    raise self.exc(f"backend {name} broke")
                return original(*a, **k)

            return flaky
        return object.__getattribute__(self, name)


@pytest.fixture(scope="module")
def mlflow_db(tmp_path_factory):
    mlflow = pytest.importorskip("mlflow")
    return mlflow, f"sqlite:///{tmp_path_factory.mktemp('mlruns')}/mlflow.db"


@pytest.fixture
def store(mlflow_db, request, shell):
    mlflow, uri = mlflow_db
    mlflow.set_tracking_uri(uri)
    mlflow.set_experiment(request.node.name[:60])
    shell.run("import mlflow")
    yield mlflow, uri
    while mlflow.active_run() is not None:
        mlflow.end_run()


def check_contract(shell, result, *, expected=None, store=None, run_var="run"):
    """The invariants every failure path keeps."""
    assert shell.ns["before"] == "assigned before the failure"
    if expected is None:
        assert result.success, f"the cell itself must succeed: {result.error_in_exec!r}"
        assert shell.ns["after"] == "assigned at the end"
    else:
        assert result.error_in_exec is expected, "the user's exception must surface unchanged (same object)"
    assert not sampler_threads(), "the memory sampler thread must stop"
    if store is not None:
        mlflow, uri = store
        assert mlflow.active_run() is None or expected is None
        if expected is not None:
            rid = shell.ns[run_var].info.run_id
            assert mlflow.MlflowClient(uri).get_run(rid).info.status == "FAILED"
    assert shell.last is not None and shell.last.status in ("ok", "failed")


BODY_OK = """%%guarded_train{opts}
before = "assigned before the failure"
{extra}
after = "assigned at the end"
"""
BODY_FAIL = """%%guarded_train{opts}
before = "assigned before the failure"
run = mlflow.start_run()
mlflow.log_param("lr", 0.1)
raise user_error
"""


# -- the user's own code ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", ["RuntimeError('diverged')", "KeyboardInterrupt()", "SystemExit(3)"])
def test_user_exception_surfaces_unchanged(shell, store, make):
    shell.run(f"user_error = {make}")
    result = shell.run(BODY_FAIL.format(opts=" --sample-interval 0.005"), ok=False)
    check_contract(shell, result, expected=shell.ns["user_error"], store=store)
    assert shell.last.status == "failed" and shell.last.error["type"] == type(shell.ns["user_error"]).__name__
    assert Path(shell.last.report_path).is_file()


# -- inside a runtime check -------------------------------------------------------------------------------------

HOSTILE = """
class Hostile:
    '''Looks like a split; every probe the guard makes raises.'''
    @property
    def shape(self):
        raise RuntimeError("shape exploded")
    def __len__(self):
        raise RuntimeError("len exploded")
    def __hash__(self):
        raise RuntimeError("hash exploded")
    def __eq__(self, other):
        raise RuntimeError("eq exploded")
    def __array__(self, *a, **k):
        raise RuntimeError("array exploded")
    def __getattr__(self, name):
        raise RuntimeError(f"getattr {name} exploded")
X_train, X_test, y_train, y_test = Hostile(), Hostile(), Hostile(), Hostile()
"""


def test_namespace_objects_whose_probes_raise(shell, store):
    shell.run(HOSTILE)
    result = shell.run(BODY_OK.format(opts=" --group-key id --target y", extra="run = mlflow.start_run()"))
    check_contract(shell, result)
    assert shell.last.status == "ok"
    mlflow, _ = store
    assert mlflow.active_run() is not None  # success: the user's run stays open (noted, not closed)


def test_hostile_objects_then_failure_still_closes_runs(shell, store):
    shell.run(HOSTILE + "user_error = ValueError('bad batch')")
    result = shell.run(BODY_FAIL.format(opts=" --group-key id"), ok=False)
    check_contract(shell, result, expected=shell.ns["user_error"], store=store)


@pytest.mark.parametrize("stage", ["data_check", "discover_splits", "static", "seeding", "cleanup", "tracking"])
def test_a_guard_stage_that_raises_is_noted_and_the_cell_runs(shell, store, monkeypatch, stage):
    from jupyter_trainguard.runtime import cleanup, data_checks, seeding, splits, tracking

    def broken(*a, **k):
        raise RuntimeError(f"{stage} is broken")

    if stage == "data_check":
        monkeypatch.setattr(data_checks, "CHECKS", [("DATA001", broken)] + data_checks.CHECKS[1:])
    elif stage == "discover_splits":
        monkeypatch.setattr(splits, "discover_splits", broken)
    elif stage == "static":
        monkeypatch.setattr("jupyter_trainguard.engine.analyze_notebook", broken)
    elif stage == "seeding":
        monkeypatch.setattr(seeding, "runtime_seeded", broken)
    elif stage == "cleanup":
        monkeypatch.setattr(cleanup, "largest_objects", broken)
    else:
        monkeypatch.setattr(tracking, "active_runs", broken)
    shell.run("import pandas as pd\nX_train = pd.DataFrame({'a': range(30)})\nX_test = X_train.iloc[:10]")
    result = shell.run(BODY_OK.format(opts="", extra="x = 1"))
    check_contract(shell, result)
    # stages that touch data note only the exception type (a message may quote a value); the others say more
    data_stages = {"data_check", "discover_splits", "cleanup"}
    expected = "RuntimeError" if stage in data_stages else f"{stage} is broken"
    assert any(expected in n for n in shell.last.notes), shell.last.notes
    if stage in data_stages:
        assert not any("is broken" in n for n in shell.last.notes)
    # the same stage broken while the cell fails: the user's error still wins and runs are still closed
    shell.run("user_error = ArithmeticError('nan loss')")
    result = shell.run(BODY_FAIL.format(opts=""), ok=False)
    if stage == "tracking":  # the guard cannot list runs, but it must still close the failed cell's run
        assert result.error_in_exec is shell.ns["user_error"]
        assert store[0].active_run() is None
    else:
        check_contract(shell, result, expected=shell.ns["user_error"], store=store)


# -- inside the memory sampler / backend ------------------------------------------------------------------------

@pytest.mark.parametrize("method,after", [("current", 1), ("current", 0), ("peak", 0), ("synchronize", 0),
                                          ("reset_peak", 0), ("empty_cache", 0), ("device_info", 0)])
@pytest.mark.parametrize("fails", [False, True])
def test_backend_that_raises(shell, store, method, after, fails):
    shell.ns["flaky"] = FlakyBackend(method, after)
    api = shell.ns["flaky"].api
    original_reset = api.reset_peak_memory_stats
    shell.run("user_error = OverflowError('exploding gradients')")
    opts = " --backend flaky --sample-interval 0.002"
    if fails:
        result = shell.run(BODY_FAIL.format(opts=opts), ok=False)
        check_contract(shell, result, expected=shell.ns["user_error"], store=store)
    else:
        result = shell.run(BODY_OK.format(opts=opts, extra="import time\ntime.sleep(0.03)"))
        check_contract(shell, result)
    assert api.reset_peak_memory_stats == original_reset, "the patched peak resetter must be restored"
    if fails or method != "empty_cache":  # empty_cache is only called after a failure
        assert any(f"backend {method} broke" in n for n in shell.last.notes), shell.last.notes
        assert shell.last.memory["backend"] in ("none", "scripted")


# -- inside the display -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("broken", ["publish", "render_html", "build_widget"])
def test_display_failure_never_hides_the_result(shell, store, monkeypatch, broken):
    from IPython.utils.capture import capture_output

    from jupyter_trainguard.display import run_panel

    def boom(*a, **k):
        raise RuntimeError(f"{broken} broke")

    monkeypatch.setattr(run_panel, broken, boom)
    monkeypatch.setattr(shell.ip, "kernel", object(), raising=False)  # widgets are attempted with a "kernel"
    with capture_output() as cap:
        result = shell.run(BODY_OK.format(opts="", extra="y = 2"))
    check_contract(shell, result)
    if broken == "build_widget":  # the widget breaks: the HTML/text fallback is still shown
        assert cap.outputs and "text/html" in cap.outputs[0].data
    else:
        assert "could not be shown" in cap.stdout
    shell.run("user_error = LookupError('missing shard')")
    with capture_output():
        result = shell.run(BODY_FAIL.format(opts=""), ok=False)
    check_contract(shell, result, expected=shell.ns["user_error"], store=store)


# -- writing the failure report ---------------------------------------------------------------------------------

def test_report_dir_not_writable(shell, store, tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the report directory should be")
    shell.run("user_error = MemoryError('host OOM')")
    result = shell.run(BODY_FAIL.format(opts=f" --report-dir {blocker}/reports"), ok=False)
    check_contract(shell, result, expected=shell.ns["user_error"], store=store)
    assert shell.last.report_path is None
    assert any("failure report not written" in n for n in shell.last.notes)


# -- missing optional packages / no CUDA ------------------------------------------------------------------------

@pytest.mark.parametrize("missing", ["torch", "mlflow"])
def test_missing_optional_package(shell, monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # `import torch` now raises ImportError
    shell.run("import numpy as np\nX_train = np.arange(60.).reshape(30, 2)\nX_test = X_train[:5]")
    result = shell.run(BODY_OK.format(opts=" --seed 1 --deterministic", extra="z = X_train.sum()"))
    check_contract(shell, result)
    ids = shell.ids()
    assert "DATA001" in ids, (ids, shell.last.notes)  # the checks still ran
    assert not any("ImportError" in n or "ModuleNotFoundError" in n for n in shell.last.notes), shell.last.notes
    shell.run("user_error = ZeroDivisionError('empty batch')")
    result = shell.run("%%guarded_train\nbefore = 'assigned before the failure'\nraise user_error", ok=False)
    assert result.error_in_exec is shell.ns["user_error"] and not sampler_threads()


def test_torch_without_cuda_restores_patches_and_hooks(shell, store):
    torch = pytest.importorskip("torch")
    from torch.optim import optimizer as optim_mod

    if torch.cuda.is_available():
        pytest.skip("needs a CPU-only torch")
    reset_top, reset_mem = torch.cuda.reset_peak_memory_stats, torch.cuda.memory.reset_peak_memory_stats
    hooks_before = len(optim_mod._global_optimizer_post_hooks)
    shell.run("import torch\nnet = torch.nn.Linear(4, 1)\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
              "user_error = RuntimeError('CUDA error: no kernel image')")
    step = ("for _ in range(3):\n    opt.zero_grad(); net(torch.ones(2, 4)).sum().backward(); opt.step()\n"
            "try:\n    torch.cuda.reset_peak_memory_stats()  # the guard's wrapper, then CPU torch's own error\n"
            "except (AttributeError, RuntimeError, AssertionError) as exc:\n    reset_error = exc\n")
    for backend in ("cuda", "auto"):
        result = shell.run(BODY_OK.format(opts=f" --backend {backend} --seed 0", extra=step))
        check_contract(shell, result)
        assert shell.last.memory["steps"] == 3  # the step hook was installed during the cell ...
        assert shell.last.memory["user_peak_resets"] == (1 if backend == "cuda" else 0)  # ... and the patch
        assert shell.last.memory["backend"] == ("cuda" if backend == "cuda" else "rss")
        failing = BODY_FAIL.format(opts=f" --backend {backend}").replace("raise user_error",
                                                                         step + "raise user_error")
        result = shell.run(failing, ok=False)
        check_contract(shell, result, expected=shell.ns["user_error"], store=store)
        assert torch.cuda.reset_peak_memory_stats is reset_top
        assert torch.cuda.memory.reset_peak_memory_stats is reset_mem
        assert len(optim_mod._global_optimizer_post_hooks) == hooks_before
