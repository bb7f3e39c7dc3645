"""`%tg_estimate` in a real IPython InteractiveShell."""

from __future__ import annotations

import subprocess
import sys

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from jupyter_trainguard.estimate import ESTIMATE_MIME

SETUP = """
import torch
from torch import nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 4))
xb = torch.randn(16, 64)
yb = torch.randint(0, 4, (16,))
"""


def test_tg_estimate_publishes_table_and_payload(ip):
    ip.run_line_magic("load_ext", "trainguard")
    ip.run_cell(SETUP)
    with capture_output() as cap:
        ip.run_line_magic("tg_estimate", "model=net batch=xb target=yb optimizer=adam --budget 24GiB")
    (out,) = cap.outputs
    payload = out.data[ESTIMATE_MIME]
    assert payload["status"] == "ok" and payload["fits"] is True and payload["budget_bytes"] == 24 * 1024**3
    assert payload["total_bytes"] == sum(payload["parts"].values())
    assert "<table" in out.data["text/html"] and "Optimizer state" in out.data["text/html"]
    assert "Estimated peak" in out.data["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" not in out.data
    assert all(p.grad is None for p in ip.user_ns["net"].parameters())


def test_tg_estimate_over_budget_and_escaping(ip):
    ip.run_line_magic("load_ext", "trainguard")
    ip.run_cell(SETUP)
    with capture_output() as cap:
        ip.run_cell("%tg_estimate model=net batch=xb device=cuda --budget=100MiB")
    payload = cap.outputs[0].data[ESTIMATE_MIME]
    assert payload["fits"] is False  # the CUDA context allowance alone is 512 MiB
    ip.run_cell("class Bad(nn.Module):\n    def forward(self, x):\n        return x if x.sum() > 0 else -x\n"
                "evil = Bad()\nevil.register_parameter('w', nn.Parameter(torch.ones(1)))")
    with capture_output() as cap:
        ip.run_line_magic("tg_estimate", "model=evil batch=xb")
    data = cap.outputs[0].data
    assert data[ESTIMATE_MIME]["status"] == "unavailable"
    assert data["text/plain"].startswith("cannot estimate because the model reads tensor values")
    with capture_output() as cap:
        ip.run_line_magic("tg_estimate", "model=net batch=<script>")
    html = cap.outputs[0].data["text/html"]
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_tg_estimate_usage_errors(ip):
    ip.run_line_magic("load_ext", "trainguard")
    with pytest.raises(UsageError):
        ip.run_line_magic("tg_estimate", "model=net --frobnicate")
    with pytest.raises(UsageError):
        ip.run_line_magic("tg_estimate", "model=net --budget lots")


def test_importing_the_magic_does_not_import_torch():
    code = ("import sys, jupyter_trainguard.magics.estimate, jupyter_trainguard.estimate.cell;"
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


def test_tg_estimate_without_arguments_finds_model_batch_and_target(ip):
    from jupyter_trainguard.magics.estimate import EstimateMagics

    ip.register_magics(EstimateMagics)
    ip.run_cell(SETUP + "yb_wrong = torch.randint(0, 4, (3,))\n")
    with capture_output() as cap:
        ip.run_line_magic("tg_estimate", "device=cpu")
    payload = cap.outputs[0].data[ESTIMATE_MIME]
    assert payload["status"] == "ok", payload
    assert payload["device"] == "cpu"
    assert payload["parts"]["batch"] == 16 * 64 * 4 + 16 * 8  # xb and yb (same number of rows), not yb_wrong
    assert any("'net'" in note for note in payload["notes"])
