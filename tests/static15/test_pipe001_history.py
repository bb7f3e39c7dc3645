"""Issue 15, PIPE001: printing or plotting a returned history per epoch in a standard notebook is not training
code; a loop over epochs that trains (directly or through a notebook function) still is."""

from __future__ import annotations

from pathlib import Path

import pytest

from .nbmake import rule_hits, write_nb

PYPROJECT = """[tool.trainguard]
standard = ["notebooks/0[1-4]_*"]
components = "notebooks/components"
runner = "experiment_runner.run_standard_experiment"
"""
RUNNER = "def run_standard_experiment(component, positions, dataset, output_dir):\n    return {'history': {}}\n"
HEAD = [
    "from notebooks.components.experiment_runner import run_standard_experiment",
    'res = run_standard_experiment("empathy", [3], "toy", "outputs/x")',
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    comp = tmp_path / "notebooks" / "components"
    comp.mkdir(parents=True)
    (tmp_path / "notebooks" / "__init__.py").write_text("")
    (comp / "__init__.py").write_text("")
    (comp / "experiment_runner.py").write_text(RUNNER)
    return tmp_path


def test_printing_and_plotting_a_returned_history_is_not_training(project):
    cells = HEAD + [
        'for epoch, loss in enumerate(res["history"]["loss"]):\n    print(f"epoch {epoch}: loss {loss:.3f}")',
        "import matplotlib.pyplot as plt\n"
        'for epoch_idx, batch_losses in enumerate(res["history"]["batches"]):\n'
        "    plt.plot(batch_losses, label=str(epoch_idx))\nplt.legend()",
        'epoch = 0\nwhile epoch < len(res["history"]["acc"]):\n    print(res["history"]["acc"][epoch])\n    epoch += 1',
    ]
    path = write_nb(project / "notebooks" / "01_report.ipynb", cells)
    assert rule_hits(path, "PIPE001") == []


def test_epoch_loops_that_train_are_still_training_code(project):
    cells = HEAD + [
        "def train_one(model, loader, opt):\n    for xb, yb in loader:\n        opt.zero_grad()\n"
        "        model(xb).sum().backward()\n        opt.step()",
        "for epoch in range(3):\n    train_one(model, loader, opt)\n    print(epoch)",  # through a notebook function
        "for epoch in range(3):\n    clf.partial_fit(X, y)",  # a direct training call
    ]
    path = write_nb(project / "notebooks" / "02_trains.ipynb", cells)
    hits = rule_hits(path, "PIPE001")
    assert sorted(f.location.cell for f in hits) == [2, 3, 4]
    assert all("epoch/batch training loop" in f.message for f in hits if f.location.cell in (3, 4))
