"""Accuracy and speed of the training-step memory estimator (jupyter_trainguard.estimate), on the CPU.

For each reference model the estimator (fake tensors, device="cpu": no CUDA rounding or allowances, so like is
compared with like) is compared with the measured peak of the same real step on real CPU tensors:
  * measured (profiler): torch.profiler with profile_memory=True; the CPU allocator reports every allocation and
    free, including memory kernels allocate internally; peak = bytes alive before the step + highest running sum of
    the allocation events during it (see jupyter_trainguard/estimate/measure.py);
  * measured (dispatch): the estimator's storage log run on the real tensors (tensor storages only).
Both measurements run the step after a warm-up step, so the optimizer state exists. The error is against the
profiler figure. Then the estimator's run time on a ~10M-parameter MLP (cold = first call in the process, warm =
median of later calls), for the CPU and the emulated CUDA target.

Run: python benchmarks/estimate_accuracy.py
"""

from __future__ import annotations

import statistics
import time

import torch
from torch import nn

from jupyter_trainguard.estimate import estimate_training_step, format_bytes
from jupyter_trainguard.estimate.measure import measure_cpu_peak, measure_with_dispatch


def models():
    torch.manual_seed(0)
    yield ("MLP 784-1024-1024-10, batch 256",
           nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10)),
           torch.randn(256, 784), torch.randint(0, 10, (256,)))
    yield ("CNN 2 conv + pool + fc, batch 64x3x32x32",
           nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 8 * 8, 10)),
           torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,)))
    layer = nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True)
    yield ("TransformerEncoder d256 x4 layers, batch 16x64",
           nn.Sequential(nn.TransformerEncoder(layer, 4, enable_nested_tensor=False), nn.Flatten(),
                         nn.Linear(256 * 64, 10)),
           torch.randn(16, 64, 256), torch.randint(0, 10, (16,)))
    yield ("MLP + BatchNorm1d + Dropout, batch 128",
           nn.Sequential(nn.Linear(512, 1024), nn.BatchNorm1d(1024), nn.ReLU(), nn.Dropout(0.3),
                         nn.Linear(1024, 1024), nn.BatchNorm1d(1024), nn.ReLU(), nn.Dropout(0.3), nn.Linear(1024, 10)),
           torch.randn(128, 512), torch.randint(0, 10, (128,)))


class LstmTagger(nn.Module):
    """Known limitation, shown for honesty: RNN kernels allocate scratch memory without tensors."""

    def __init__(self):
        super().__init__()
        self.emb, self.rnn, self.out = nn.Embedding(1000, 64), nn.LSTM(64, 128, batch_first=True), nn.Linear(128, 1000)

    def forward(self, ids):
        return self.out(self.rnn(self.emb(ids))[0]).transpose(1, 2)


def extra_models():
    torch.manual_seed(0)
    ids = torch.randint(0, 1000, (8, 20))
    yield "(extra) LSTM tagger, batch 8x20", LstmTagger(), ids, torch.randint(0, 1000, (8, 20))


def accuracy_table() -> float:
    print("Accuracy: estimate (fake tensors, device=cpu, Adam) vs measured peak of the same real CPU step")
    header = f"{'model':<46}{'params':>11}{'estimate':>13}{'measured':>13}{'dispatch':>13}{'error':>8}  peak in"
    print(header)
    print("-" * len(header))
    worst = 0.0
    for name, model, x, y in (*models(), *extra_models()):
        est = estimate_training_step(model, x, target=y, optimizer="adam", device="cpu")
        real = measure_cpu_peak(model, x, target=y, optimizer="adam")
        disp = measure_with_dispatch(model, x, target=y, optimizer="adam")
        error = (est.total_bytes - real) / real
        if not name.startswith("(extra)"):
            worst = max(worst, abs(error))
        print(f"{name:<46}{est.parameters:>11,}{format_bytes(est.total_bytes):>13}{format_bytes(real):>13}"
              f"{format_bytes(disp):>13}{error:>+8.1%}  {est.peak_phase}")
    print(f"worst absolute error over the four reference models: {worst:.1%} (target <= 10%)")
    return worst


def timing() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                          nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 10))
    x, y = torch.randn(256, 1024), torch.randint(0, 10, (256,))
    params = sum(p.numel() for p in model.parameters())
    print(f"\nEstimator run time, MLP with {params:,} parameters, batch 256, Adam (2 fake steps per estimate)")
    for device in ("cpu", "cuda"):
        times = []
        for _ in range(7):
            start = time.perf_counter()
            est = estimate_training_step(model, x, target=y, device=device)
            times.append(time.perf_counter() - start)
        warm = statistics.median(times[1:])
        print(f"  device={device:<5} first call {times[0]:.3f} s, median of next 6 {warm:.3f} s"
              f"  -> estimated peak {format_bytes(est.total_bytes)}"
              f" (allocated {format_bytes(est.allocated_peak_bytes)},"
              f" reserved {format_bytes(est.reserved_peak_bytes)})")
    opt = torch.optim.Adam(model.parameters())
    steps = []
    for _ in range(5):
        start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        steps.append(time.perf_counter() - start)
    print(f"  for scale: one real CPU training step of this model takes {statistics.median(steps[1:]):.3f} s")


if __name__ == "__main__":
    accuracy_table()
    timing()
