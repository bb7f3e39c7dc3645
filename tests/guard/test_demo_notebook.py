"""The demo notebook runs top to bottom in a real kernel (nbclient) and keeps a readable guarded_train result."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from jupyter_trainguard.display import RUN_MIME

DEMO = Path(__file__).resolve().parents[2] / "demo_notebooks" / "guarded_torch_training.ipynb"


def test_demo_notebook_executes(tmp_path):
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("torch")
    path = tmp_path / DEMO.name
    shutil.copy(DEMO, path)
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    (run,) = [o for o in outputs if RUN_MIME in o.get("data", {})]
    payload = run["data"][RUN_MIME]
    assert payload["status"] == "ok" and payload["seeding"]["seed"] == 0
    assert payload["memory"]["steps"] == 5 * 13  # 5 epochs x 13 batches, each an optimizer step
    assert "text/html" in run["data"] and "guarded_train" in run["data"]["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" in run["data"]  # live kernel: the widget panel
    stream = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "validation accuracy" in stream and "ok 0 65 optimizer steps" in stream
