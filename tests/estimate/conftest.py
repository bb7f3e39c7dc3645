"""Fixtures for the estimator tests: the four reference models and a real IPython shell."""

from __future__ import annotations

import importlib.util

import pytest

if importlib.util.find_spec("torch") is None:  # only the byte/allocator tests run without torch
    collect_ignore = ["test_accuracy.py", "test_untouched.py", "test_unsupported.py", "test_cell.py",
                      "test_magic.py"]
    MODELS: dict = {}
else:
    import torch
    from torch import nn


def mlp():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    return model, torch.randn(128, 512), torch.randint(0, 10, (128,))


def cnn():
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(64 * 16, 10))
    return model, torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))


def transformer():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(128, 4, 256, batch_first=True)
    model = nn.Sequential(nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), nn.Flatten(),
                          nn.Linear(128 * 32, 10))
    return model, torch.randn(16, 32, 128), torch.randint(0, 10, (16,))


def bn_dropout():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.5), nn.Linear(512, 10))
    return model, torch.randn(64, 256), torch.randint(0, 10, (64,))


if importlib.util.find_spec("torch") is not None:
    MODELS = {"mlp": mlp, "cnn": cnn, "transformer": transformer, "bn_dropout": bn_dropout}


@pytest.fixture
def ip():
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class TestingShell(InteractiveShell):
        def run_cell(self, *args, **kwargs):
            result = super().run_cell(*args, **kwargs)
            if result.error_in_exec is not None:
                raise result.error_in_exec
            return result

    config = Config()
    config.HistoryAccessor.enabled = False
    shell = TestingShell.instance(config=config)
    yield shell
    TestingShell.clear_instance()
    InteractiveShell.clear_instance()
