"""The estimate against the measured peak of the same real step on the CPU (profiler allocator events)."""

from __future__ import annotations

import pytest

from jupyter_trainguard.estimate import MemoryEstimate, estimate_training_step
from jupyter_trainguard.estimate.measure import measure_cpu_peak

from .conftest import MODELS


@pytest.mark.parametrize("name", sorted(MODELS))
def test_cpu_estimate_within_ten_percent_of_measured_peak(name):
    model, x, y = MODELS[name]()
    estimate = estimate_training_step(model, x, target=y, optimizer="adam", device="cpu")
    assert isinstance(estimate, MemoryEstimate), estimate.summary()
    measured = measure_cpu_peak(model, x, target=y, optimizer="adam")
    assert abs(estimate.total_bytes - measured) <= 0.10 * measured, (estimate.total_bytes, measured)
    assert sum(estimate.parts.values()) == estimate.total_bytes == estimate.allocated_peak_bytes
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    weights += sum(b.numel() * b.element_size() for b in model.buffers())
    assert estimate.parts["weights"] == weights


def test_adam_peak_is_in_the_optimizer_step_and_state_is_twice_the_weights():
    model, x, y = MODELS["mlp"]()
    estimate = estimate_training_step(model, x, target=y, optimizer="adam", device="cpu")
    assert estimate.peak_phase.endswith("optimizer")
    params = sum(p.numel() * 4 for p in model.parameters())
    # exp_avg + exp_avg_sq, plus one scalar `step` per parameter tensor
    assert params * 2 <= estimate.parts["optimizer_state"] <= params * 2 + 4 * len(list(model.parameters()))
    assert estimate.parts["gradients"] == params


def test_cuda_emulation_adds_rounding_segments_and_allowances():
    from jupyter_trainguard.estimate.constants import (
        CUBLAS_WORKSPACE_BYTES,
        CUBLAS_WORKSPACES_PER_STEP,
        CUDA_CONTEXT_BYTES,
    )

    model, x, y = MODELS["bn_dropout"]()
    cpu = estimate_training_step(model, x, target=y, device="cpu")
    cuda = estimate_training_step(model, x, target=y, device="cuda")
    assert cuda.device == "cuda"
    assert cuda.parts["cuda_context"] == CUDA_CONTEXT_BYTES
    assert cuda.parts["cublas_workspace"] == CUBLAS_WORKSPACES_PER_STEP * CUBLAS_WORKSPACE_BYTES
    assert cuda.reserved_peak_bytes >= cuda.allocated_peak_bytes
    assert cuda.parts["allocator_overhead"] == cuda.reserved_peak_bytes - cuda.allocated_peak_bytes
    assert cuda.total_bytes == cuda.reserved_peak_bytes + CUDA_CONTEXT_BYTES == sum(cuda.parts.values())
    # every tensor is rounded up to 512 B, so each part is at least its CPU size
    for part in ("weights", "batch"):
        assert cuda.parts[part] >= cpu.parts[part] and cuda.parts[part] % 512 == 0


def test_foreach_adam_on_cuda_needs_more_step_temporaries_than_the_cpu_loop():
    model, x, y = MODELS["mlp"]()
    cpu = estimate_training_step(model, x, target=y, device="cpu")
    cuda = estimate_training_step(model, x, target=y, device="cuda")
    # CPU Adam updates one tensor at a time; CUDA's foreach Adam holds temporaries for all parameters at once
    biggest = max(p.numel() * 4 for p in model.parameters())
    assert cpu.parts["optimizer_temporaries"] <= 2 * biggest + 65536
    assert cuda.parts["optimizer_temporaries"] >= sum(p.numel() * 4 for p in model.parameters())


def test_amp_and_sgd_and_forward_backward_only():
    model, x, y = MODELS["mlp"]()
    full = estimate_training_step(model, x, target=y, device="cpu")
    sgd = estimate_training_step(model, x, target=y, optimizer="sgd", device="cpu")
    none = estimate_training_step(model, x, target=y, optimizer=None, device="cpu")
    amp = estimate_training_step(model, x, target=y, amp="bf16", device="cpu")
    assert "optimizer_state" not in sgd.parts and sgd.total_bytes < full.total_bytes
    assert none.total_bytes <= sgd.total_bytes
    assert isinstance(amp, MemoryEstimate) and amp.total_bytes > 0
