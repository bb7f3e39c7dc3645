"""A guarded cell keeps a saved notebook small: compact HTML fallback, thinned JSON, one widget layout/style."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from jupyter_trainguard.display import RUN_MIME

from .kernel import run_like_lab
from .notebooks import KERNELSPEC

pytest.importorskip("nbclient")
pytest.importorskip("torch")

SETUP = (
    "import torch\nfrom torch import nn\nfrom torch.utils.data import DataLoader, TensorDataset\n"
    "g = torch.Generator().manual_seed(0)\n"
    "training_data = TensorDataset(torch.randn(1600, 20, generator=g),\n"
    "                              torch.randint(0, 3, (1600,), generator=g))\n"
    "train_dataloader = DataLoader(training_data, batch_size=8)\n"
    "model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3))\n"
    "loss_fn = nn.CrossEntropyLoss()\noptimizer = torch.optim.SGD(model.parameters(), lr=1e-2)"
)
TRAIN = (
    "for epoch in range(4):\n    for X, y in train_dataloader:\n        loss = loss_fn(model(X), y)\n"
    "        loss.backward()\n        optimizer.step()\n        optimizer.zero_grad()\nprint('done', epoch)"
)


def notebook(path, guarded: bool):
    cells = [
        new_markdown_cell("# Quick training"),
        new_code_cell("%load_ext trainguard"),
        new_code_cell(SETUP),
        new_code_cell(("%%guarded_train --seed 0\n" if guarded else "torch.manual_seed(0)\n") + TRAIN),
    ]
    nbformat.write(new_notebook(cells=cells, metadata=KERNELSPEC), path)
    return path


def test_guarded_cell_adds_little_to_the_saved_notebook(tmp_path):
    plain = run_like_lab(notebook(tmp_path / "plain.ipynb", guarded=False))
    guarded = run_like_lab(notebook(tmp_path / "guarded.ipynb", guarded=True))
    growth = (tmp_path / "guarded.ipynb").stat().st_size - (tmp_path / "plain.ipynb").stat().st_size
    assert "done 3" in "".join(o.get("text", "") for o in plain.cells[3].outputs)
    (out,) = [o for o in guarded.cells[3].outputs if RUN_MIME in o.get("data", {})]
    payload = out["data"][RUN_MIME]
    assert payload["memory"]["steps"] == 4 * 200  # 800 optimizer steps: before, each was saved three times
    # widget state saved with the notebook (as JupyterLab can): one shared layout and style, not one per view
    state = guarded.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    names = [m["model_name"] for m in state.values()]
    assert names.count("LayoutModel") == 1 and names.count("HTMLStyleModel") == 1
    assert growth < 30_000, growth  # was 145 KB without widget state, ~200 KB with it
    # the essentials are still there in every form
    html = out["data"]["text/html"]
    assert "guarded_train: cell ran" in html and "<svg" in html and "800 optimizer steps" in html
    assert len(html) < 8_000 and html.count("<path") <= 2
    assert payload["memory"]["markers_total"] == 800 and len(payload["memory"]["timeline"]) <= 40
    assert payload["memory"]["peak_allocated"] > 0 and "findings" in payload
    assert "application/vnd.jupyter.widget-view+json" in out["data"]
    assert len(json.dumps(payload)) < 8_000
