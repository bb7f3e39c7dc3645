"""Failing cells: same exception re-raised, namespace kept, frames freed, MLflow closed as FAILED, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_trainguard.runtime import last_run
from jupyter_trainguard.runtime.oom import advice, is_oom, parse_oom, parse_size

torch = pytest.importorskip("torch")

SETUP = """
import weakref, torch
from torch import nn
boom = RuntimeError("loss became NaN")
kept = {"epochs": 3}
"""
FAILING = """%%guarded_train
partial = "set before the failure"
def train():
    activations = torch.ones(4096, 4096)  # 64 MiB held only by this frame
    global ref
    ref = weakref.ref(activations)
    raise boom
train()
"""


def test_failure_reraises_same_object_keeps_namespace_and_frees_frames(shell):
    shell.run(SETUP)
    result = shell.run(FAILING, ok=False)
    assert result.error_in_exec is shell.ns["boom"]  # the user's own exception object, unchanged
    assert shell.ns["kept"] == {"epochs": 3} and shell.ns["partial"] == "set before the failure"
    assert shell.ns["ref"]() is None  # the tensor held by the failed frame was freed
    run = shell.last
    assert run.status == "failed" and run.error["type"] == "RuntimeError"
    assert run.cleanup["frames_cleared"] >= 1
    report = json.loads(Path(run.report_path).read_text())
    assert Path(run.report_path).parent.name == "trainguard_reports"
    assert report["status"] == "failed" and report["error"]["type"] == "RuntimeError"
    assert last_run() is run


def test_keep_traceback_leaves_frames_alone(shell):
    shell.run(SETUP)
    shell.run(FAILING.replace("%%guarded_train", "%%guarded_train --keep-traceback --report-dir out"), ok=False)
    assert shell.ns["ref"]() is not None
    assert shell.last.cleanup == {"skipped": "--keep-traceback"}
    assert Path(shell.last.report_path).parent.name == "out"


@pytest.fixture(scope="module")
def mlflow_db(tmp_path_factory):
    """One sqlite store per module: creating the schema is the slow part."""
    mlflow = pytest.importorskip("mlflow")
    return mlflow, f"sqlite:///{tmp_path_factory.mktemp('mlruns')}/mlflow.db"


@pytest.fixture
def mlflow_store(mlflow_db, request):
    mlflow, uri = mlflow_db
    mlflow.set_tracking_uri(uri)
    mlflow.set_experiment(request.node.name[:60])
    yield mlflow, uri
    while mlflow.active_run() is not None:
        mlflow.end_run()


@pytest.mark.parametrize("raise_stmt", ["raise boom", "raise KeyboardInterrupt()"])
def test_open_mlflow_run_closed_as_failed(shell, mlflow_store, raise_stmt):
    mlflow, uri = mlflow_store
    shell.run(SETUP + "import mlflow")
    result = shell.run("%%guarded_train\nrun = mlflow.start_run()\nmlflow.log_param('lr', 0.1)\n"
                       f"for epoch in range(3):\n    mlflow.log_metric('loss', 1.0 / (epoch + 1), step=epoch)\n"
                       f"    if epoch == 1:\n        {raise_stmt}\n", ok=False)
    expected = KeyboardInterrupt if "Keyboard" in raise_stmt else RuntimeError
    assert type(result.error_in_exec) is expected
    run_id = shell.ns["run"].info.run_id
    assert mlflow.active_run() is None
    assert mlflow.MlflowClient(uri).get_run(run_id).info.status == "FAILED"
    (g,) = [f for f in shell.last.findings if f.rule_id == "GUARD001"]
    assert g.evidence["run_ids"] == [run_id]
    report = json.loads(Path(shell.last.report_path).read_text())
    assert report["tracking"]["closed_as_failed"]["mlflow"] == [run_id]
    assert report["error"]["type"] == expected.__name__


def test_successful_cell_leaving_run_open_is_noted_not_closed(shell, mlflow_store):
    mlflow, uri = mlflow_store
    shell.run("import mlflow")
    shell.run("%%guarded_train\nrun = mlflow.start_run()\nmlflow.log_metric('acc', 0.9)")
    (g,) = [f for f in shell.last.findings if f.rule_id == "GUARD001"]
    assert g.severity.value == "info" and mlflow.active_run() is not None
    assert shell.last.report_path is None  # success: no file, the report object only


OOM_NEW = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which "
           "1.19 GiB is free. Including non-PyTorch memory, this process has 22.43 GiB memory in use. Of the "
           "allocated memory 17.80 GiB is allocated by PyTorch, and 4.18 GiB is reserved by PyTorch but "
           "unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
OOM_OLD = ("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.21 GiB already "
           "allocated; 3.75 MiB free; 14.52 GiB reserved in total by PyTorch)")


def test_oom_message_parsing_and_advice(monkeypatch):
    monkeypatch.delenv("PYTORCH_CUDA_ALLOC_CONF", raising=False)
    n = parse_oom(OOM_NEW)
    assert n == {"requested": 2 << 30, "total": int(23.64 * (1 << 30)), "free": int(1.19 * (1 << 30)),
                 "allocated_by_pytorch": int(17.80 * (1 << 30)), "reserved_unallocated": int(4.18 * (1 << 30)),
                 "process_in_use": int(22.43 * (1 << 30))}
    tips = advice(n)
    assert "expandable_segments" in tips[0] and any("batch size" in t for t in tips)
    old = parse_oom(OOM_OLD)
    assert old["requested"] == 20 << 20 and old["free"] == int(3.75 * (1 << 20))
    assert old["reserved_total"] == int(14.52 * (1 << 30))
    assert is_oom(torch.OutOfMemoryError(OOM_OLD)) and not is_oom(ValueError("x"))
    assert parse_size("24GiB") == 24 << 30 and parse_size("512MB") == 512_000_000 and parse_size("2G") == 2 << 30


def test_oom_in_cell_becomes_mem001_with_numbers(shell):
    shell.run(SETUP + f"msg = {OOM_NEW!r}")
    result = shell.run("%%guarded_train\nbig = nn.Linear(256, 256)\nraise torch.OutOfMemoryError(msg)", ok=False)
    assert isinstance(result.error_in_exec, torch.OutOfMemoryError)
    (m,) = [f for f in shell.last.findings if f.rule_id == "MEM001"]
    assert m.evidence["numbers"]["requested"] == 2 << 30
    assert "2.00 GiB" in m.message and "big" in " ".join(shell.last.error["advice"])


def test_strict_refuses_on_error_findings(shell):
    shell.run("import numpy as np\nX = np.arange(40.).reshape(20, 2)\nX_train, X_test = X, X")
    result = shell.run("%%guarded_train --strict\nran = True", ok=False)
    assert "refused" in str(result.error_in_exec) and "DATA001" in str(result.error_in_exec)
    assert "ran" not in shell.ns and shell.last.status == "refused"
    shell.run("%%guarded_train\nran = True")
    assert shell.ns["ran"] is True
