"""Checkpoint audit on checkpoints written by real torch training code."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from jupyter_trainguard.cli import main  # noqa: E402
from jupyter_trainguard.report.checkpoint_audit import audit_checkpoint  # noqa: E402


def _train(steps: int = 3, scheduler: bool = False):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5) if scheduler else None
    x, y = torch.randn(32, 4), torch.randn(32, 1)
    for _ in range(steps):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        if sched:
            sched.step()
    return model, opt, sched


def _ids(result):
    return sorted(f["rule_id"] for f in result["findings"])


def test_weights_only_checkpoint(tmp_path):
    model, _, _ = _train()
    path = tmp_path / "weights.pt"
    torch.save(model.state_dict(), path)
    res = audit_checkpoint(path)
    assert res["loaded_as"] == "weights_only"
    assert res["components"]["model"] and not res["components"]["optimizer"]
    assert not res["components"]["progress"] and res["resume_restarts_schedule"] is True
    assert _ids(res) == ["CKPT102", "CKPT103", "CKPT105"]
    assert all(f["source"] == "artifact" and f["category"] == "checkpointing" for f in res["findings"])


def test_full_dict_with_optimizer_epoch_and_rng(tmp_path):
    model, opt, _ = _train()
    path = tmp_path / "full.pt"
    torch.save({"epoch": 7, "global_step": 70, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": opt.state_dict(),
                "rng_states": {"python": random.getstate(), "numpy": np.random.get_state(),
                               "torch": torch.get_rng_state()}}, path)
    res = audit_checkpoint(path)
    # numpy RNG state needs numpy globals: allowed, still without arbitrary pickle
    assert res["loaded_as"] == "weights_only+numpy"
    c = res["components"]
    assert c["model"] and c["optimizer"] and c["progress"] and c["rng"]
    assert res["rng"] == ["numpy", "python", "torch"]
    assert res["resume_restarts_schedule"] is False
    # a step-level checkpoint without sampler state is an info, nothing else is missing
    assert _ids(res) == ["CKPT107"]


def test_scheduler_and_scaler_checkpoint(tmp_path):
    model, opt, sched = _train(scheduler=True)
    scaler = torch.amp.GradScaler("cpu")
    path = tmp_path / "sched.pt"
    torch.save({"epoch": 3, "model": model.state_dict(), "optimizer": opt.state_dict(),
                "lr_scheduler": sched.state_dict(), "scaler": scaler.state_dict()}, path)
    res = audit_checkpoint(path)
    c = res["components"]
    assert c["scheduler"] and c["scaler"] and c["optimizer"] and c["model"] and c["progress"]
    assert res["resume_restarts_schedule"] is False
    assert _ids(res) == ["CKPT105"]
    # the same run without its scheduler: the optimizer's initial_lr betrays the schedule
    torch.save({"epoch": 3, "model": model.state_dict(), "optimizer": opt.state_dict()}, tmp_path / "nosched.pt")
    res2 = audit_checkpoint(tmp_path / "nosched.pt")
    assert "CKPT104" in _ids(res2) and res2["resume_restarts_schedule"] is True


def test_pickled_objects_are_not_loaded_without_consent(tmp_path):
    model, opt, _ = _train()
    path = tmp_path / "objects.pt"
    torch.save({"model": model, "optimizer": opt, "epoch": 1}, path)
    res = audit_checkpoint(path)
    assert res["loaded_as"] == "needs-pickle" and _ids(res) == ["CKPT101"]
    assert "torch.nn.modules.container.Sequential" in res["error"]
    unsafe = audit_checkpoint(path, unsafe_load=True)
    assert unsafe["loaded_as"] == "unsafe-pickle"
    assert unsafe["components"]["model"] and unsafe["components"]["optimizer"]
    assert "CKPT101" in _ids(unsafe) and "CKPT102" not in _ids(unsafe)


def test_cli_checkpoint_command(tmp_path, capsys):
    model, opt, _ = _train()
    torch.save(model.state_dict(), tmp_path / "w.pt")
    torch.save({"epoch": 1, "model": model.state_dict(), "optimizer": opt.state_dict(),
                "rng": {"torch": torch.get_rng_state(), "python": random.getstate(),
                        "numpy": np.random.get_state()}}, tmp_path / "ok.pt")
    assert main(["checkpoint", str(tmp_path / "w.pt")]) == 1
    out = capsys.readouterr().out
    assert "[x] model weights" in out and "[ ] optimizer state" in out and "restart the schedule: YES" in out
    assert main(["checkpoint", str(tmp_path / "ok.pt"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["components"]["optimizer"] is True and data[0]["findings"] == []
    assert main(["checkpoint", str(tmp_path / "missing.pt")]) == 2
    assert main(["checkpoint", str(tmp_path / "w.pt"), "--format", "md", "--fail-on", "never"]) == 0
    md = capsys.readouterr().out
    assert "**NOT RESUMABLE: checkpoints lack optimizer state, epoch / step counter.**" in md
    assert "| CKPT102 (error) |" in md and "Not applicable: only checkpoint files were reviewed." in md


def test_magic_checkpoint_fills_part_four(shell, tmp_path):
    model, _, _ = _train()
    torch.save(model.state_dict(), tmp_path / "w.pt")
    shell.run(f"%trainaudit --checkpoint {tmp_path / 'w.pt'} --format text --no-log")
    part = shell.audit.part("checkpointing")
    assert part.status == "issues"
    assert any(ln.label == "Checkpoint file" and "model weights" in ln.value and "restarts the schedule" in ln.value
               for ln in part.lines)
    assert {"CKPT102", "CKPT103"} <= {f.rule_id for f in part.findings}
    assert "CKPT108" in shell.audit.passed
