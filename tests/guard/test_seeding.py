"""Seeding (--seed, RNG001) and determinism (--deterministic, RNG002) on real torch/NumPy training cells."""

from __future__ import annotations

import pytest

from jupyter_trainguard.runtime import seeding

torch = pytest.importorskip("torch")

MODEL = """
import random
import numpy as np
import torch
from torch import nn
X = torch.randn(256, 8)
y = (X[:, 0] > 0).long()
"""
TRAIN = """%%guarded_train --seed 0
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
perm = np.random.permutation(256)
jitter = random.random()
for step in range(20):
    idx = torch.from_numpy(perm[(step * 32) % 256:(step * 32) % 256 + 32])
    loss = nn.functional.cross_entropy(model(X[idx] + torch.randn(32, 8) * 0.01), y[idx])
    opt.zero_grad(); loss.backward(); opt.step()
"""


def test_seed_makes_two_runs_bit_identical(shell):
    shell.run(MODEL)
    shell.run(TRAIN)
    first = {k: v.clone() for k, v in shell.ns["model"].state_dict().items()}
    first_extra = (shell.ns["perm"].copy(), shell.ns["jitter"])
    shell.run("_ = torch.randn(1000); _ = np.random.rand(1000); _ = random.random()")  # move every RNG on
    shell.run(TRAIN)
    second = shell.ns["model"].state_dict()
    assert all(torch.equal(first[k], second[k]) for k in first)
    assert (first_extra[0] == shell.ns["perm"]).all() and first_extra[1] == shell.ns["jitter"]
    s = shell.last.seeding
    assert s["seed"] == 0 and {"python", "numpy", "torch"} <= set(s["seeded"])
    assert "RNG001" not in shell.ids()
    assert shell.last.memory["steps"] == 20  # optimizer steps were marked


def test_rng001_names_unseeded_generators(shell):
    shell.run(MODEL)
    shell.run(TRAIN.replace(" --seed 0", ""))
    (f,) = [f for f in shell.last.findings if f.rule_id == "RNG001"]
    assert set(f.evidence["unseeded"]) >= {"python", "numpy"}


def test_rng001_silent_when_history_seeds_through_a_helper(shell):
    shell.run(MODEL)
    shell.run("def set_everything(s):\n    random.seed(s)\n    np.random.seed(s)\n    torch.manual_seed(s)\n"
              "set_everything(7)")
    shell.run(TRAIN.replace(" --seed 0", ""))
    assert "RNG001" not in shell.ids()
    assert shell.last.seeding["seeded"]["torch"]


def test_deterministic_turns_on_torch_flags_and_reports_late_env(shell):
    before = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    try:
        shell.run(MODEL)
        shell.run("%%guarded_train --deterministic\nz = torch.ones(2) @ torch.ones(2)")
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.backends.cudnn.deterministic and not torch.backends.cudnn.benchmark
        env = seeding.initial_environ()
        rng002 = [f for f in shell.last.findings if f.rule_id == "RNG002"]
        assert any("PYTHONHASHSEED" in f.message for f in rng002) == ("PYTHONHASHSEED" not in (env or {"x": 1}))
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])
        torch.backends.cudnn.deterministic = False


def test_apply_deterministic_reads_the_start_environment():
    _, problems = seeding.apply_deterministic(start_env={})
    assert any(p.startswith("PYTHONHASHSEED") for p in problems)
    _, problems = seeding.apply_deterministic(start_env={"PYTHONHASHSEED": "0"})
    assert not any(p.startswith("PYTHONHASHSEED") for p in problems)
    torch.use_deterministic_algorithms(False)


def test_rng001_quiet_for_seeded_generators_only(shell):
    shell.run("import numpy as np\nimport random\nrng = np.random.default_rng(0)\nr = random.Random(1)")
    shell.run("%%guarded_train\nx = rng.normal(size=10).sum() + r.random()")
    assert "RNG001" not in shell.ids()
    assert shell.last.seeding["in_use"]["numpy"] is False and shell.last.seeding["in_use"]["python"] is False
    shell.run("%%guarded_train\nnoise = np.random.rand(3)")
    (f,) = [f for f in shell.last.findings if f.rule_id == "RNG001"]
    assert f.evidence["unseeded"] == ["numpy"] or f.evidence["unseeded"][0] == "numpy"
