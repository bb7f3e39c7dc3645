"""Models the fake run cannot handle come back as EstimateUnavailable with a reason, never as an exception."""

from __future__ import annotations

import torch
from torch import nn

from jupyter_trainguard.estimate import EstimateUnavailable, MemoryEstimate, estimate_training_step


class ValueBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        if x.sum() > 0:  # data-dependent control flow
            return self.fc(x)
        return self.fc(-x)


class MaskSelect(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x[x > 0].reshape(-1, 8))


class DeviceHopping(nn.Module):
    """Moves tensors to CUDA inside forward: emulated on the CPU instead of touching CUDA."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.device = torch.device("cuda")

    def forward(self, x):
        return self.fc(x.to(self.device)).cuda() + torch.zeros(8, device="cuda")


@torch.library.custom_op("tg_estimate_test::opaque", mutates_args=())
def _opaque(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


class CustomOp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return _opaque(self.fc(x))


def test_data_dependent_branch_is_unavailable_with_reason():
    result = estimate_training_step(ValueBranch(), torch.randn(4, 8))
    assert isinstance(result, EstimateUnavailable)
    assert result.summary().startswith("cannot estimate because the model reads tensor values")
    assert "test_unsupported.py" in result.reason and "forward" in result.reason
    assert result.to_dict()["status"] == "unavailable"


def test_value_dependent_shape_is_unavailable():
    result = estimate_training_step(MaskSelect(), torch.randn(4, 8))
    assert isinstance(result, EstimateUnavailable)
    assert "output shape depends on tensor values" in result.reason


def test_custom_op_without_fake_kernel_is_unavailable():
    result = estimate_training_step(CustomOp(), torch.randn(4, 8))
    assert isinstance(result, EstimateUnavailable)
    assert "tg_estimate_test" in result.reason or "fake" in result.reason.lower()


def test_cuda_moves_inside_forward_are_emulated_not_executed():
    result = estimate_training_step(DeviceHopping(), torch.randn(4, 8))
    assert isinstance(result, MemoryEstimate), result.summary()
    assert result.parts["weights"] == 2 * 512  # weight 256 B and bias 32 B, each rounded to 512 B


def test_bad_arguments_are_reasons_too():
    assert "torch.nn.Module" in estimate_training_step("not a model", torch.randn(2)).reason
    assert "unknown" in estimate_training_step(nn.Linear(2, 2), torch.randn(2), optimizer="adamm").reason
    assert "device" in estimate_training_step(nn.Linear(2, 2), torch.randn(2), device="tpu").reason


class WithLock(nn.Module):
    """An attribute deepcopy refuses: shared with the copy instead of failing the estimate."""

    def __init__(self):
        super().__init__()
        import threading

        self.lock = threading.Lock()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        with self.lock:
            return self.fc(x)


def test_uncopyable_attribute_is_shared_not_fatal():
    model = WithLock()
    result = estimate_training_step(model, torch.randn(4, 8), device="cpu")
    assert isinstance(result, MemoryEstimate), result.summary()
    assert result.parts["weights"] == (64 + 8) * 4 and not model.lock.locked()


def test_capturable_and_fused_optimizers_keep_step_counters_on_the_device():
    model = nn.Linear(64, 64)
    plain = estimate_training_step(model, torch.randn(4, 64), optimizer=torch.optim.Adam(model.parameters()))
    for flag in ("capturable", "fused"):
        opt = torch.optim.Adam(model.parameters(), **{flag: True})
        result = estimate_training_step(model, torch.randn(4, 64), optimizer=opt)
        assert isinstance(result, MemoryEstimate), result.summary()
        # one 512-byte block per parameter tensor for its `step` counter, which foreach Adam keeps on the host
        assert result.parts["optimizer_state"] == plain.parts["optimizer_state"] + 2 * 512, flag
        assert opt.param_groups[0][flag] is True and not opt.state
