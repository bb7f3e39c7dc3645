"""A PyTorch-only session stays free of pandas and scikit-learn: a guarded cell over TensorDatasets and DataLoaders
runs every runtime check without importing them (pandas alone costs about half a second on the first cell)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "trainguard")
ip.run_cell('''import torch
from torch.utils.data import DataLoader, TensorDataset
train_data = TensorDataset(torch.rand(600, 1, 8, 8), torch.randint(0, 3, (600,)))
test_data = TensorDataset(torch.rand(100, 1, 8, 8), torch.randint(0, 3, (100,)))
train_loader = DataLoader(train_data, batch_size=32)''', store_history=True)
result = ip.run_cell("%%guarded_train --quiet\\nn = sum(len(x) for x, _ in train_loader)", store_history=True)
run = ip.user_ns["_trainguard_last"]
assert result.success and run.splits, run.notes
print(sorted(m for m in ("pandas", "sklearn") if m in sys.modules))
"""


def test_guarded_cell_in_a_torch_session_imports_neither_pandas_nor_sklearn():
    pytest.importorskip("torch")
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"
