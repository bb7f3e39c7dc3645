"""The memory logic (peak folding, timeline, step markers, leftover, OOM numbers) driven by a scripted backend,
the host RSS backend on real allocations, and CUDA checks that run only where a GPU exists."""

from __future__ import annotations

import pytest

from jupyter_trainguard.runtime.memory import (
    CudaBackend,
    MemoryBackend,
    MemoryTracker,
    RssBackend,
    ScriptedBackend,
)

MiB = 1 << 20


def test_backends_satisfy_the_protocol():
    assert isinstance(ScriptedBackend(), MemoryBackend) and isinstance(RssBackend(), MemoryBackend)


def test_user_peak_reset_is_folded_into_the_cells_peak(shell):
    shell.run("from jupyter_trainguard.runtime.memory import ScriptedBackend\nmem = ScriptedBackend()\n"
              "mem.alloc(50 << 20)\nreset = mem.api.reset_peak_memory_stats")
    shell.run("%%guarded_train --backend mem --sample-interval 0\n"
              "mem.alloc(300 << 20); mem.free(300 << 20)\n"
              "mem.api.reset_peak_memory_stats()   # the user's own reset, mid-cell\n"
              "mem.alloc(10 << 20)")
    m = shell.last.memory
    assert m["peak_allocated"] == 350 * MiB  # not the 60 MiB the reset would leave
    assert m["user_peak_resets"] == 1 and m["peak_source"] == "counter"
    assert shell.ns["mem"].api.reset_peak_memory_stats is shell.ns["reset"]  # patch undone
    assert m["start_allocated"] == 50 * MiB and m["end_allocated"] == 60 * MiB and m["retained"] == 10 * MiB
    assert m["device_total"] == 16 << 30


def test_retained_device_memory_is_mem002(shell):
    shell.run("from jupyter_trainguard.runtime.memory import ScriptedBackend\nmem = ScriptedBackend()")
    shell.run("%%guarded_train --backend mem --sample-interval 0\nmem.alloc(1 << 30)")
    (f,) = [f for f in shell.last.findings if f.rule_id == "MEM002"]
    assert f.evidence["retained"] == 1 << 30
    shell.run("%%guarded_train --backend mem --sample-interval 0\nmem.free(1 << 30)")
    assert "MEM002" not in shell.ids() and shell.last.memory["retained"] == -(1 << 30)


def test_failed_cell_frees_and_empties_cache_on_scripted_device(shell):
    shell.run("from jupyter_trainguard.runtime.memory import ScriptedBackend\nmem = ScriptedBackend(total=8 << 30)\n"
              "class Held:\n    def __init__(self, n): self.n = n; mem.alloc(n)\n"
              "    def __del__(self): mem.free(self.n)\n"
              "msg = 'CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 8.00 GiB of "
              "which 1.00 GiB is free.'\nimport torch")
    shell.run("%%guarded_train --backend mem --sample-interval 0\ndef step():\n    acts = Held(3 << 30)\n"
              "    raise torch.OutOfMemoryError(msg)\nstep()", ok=False)
    run = shell.last
    assert run.cleanup["freed"] == 3 << 30 and run.cleanup["allocated_after"] == 0
    assert shell.ns["mem"].empty_cache_calls == 1 and shell.ns["mem"].reserved == 0
    (m,) = [f for f in run.findings if f.rule_id == "MEM001"]
    assert m.evidence["numbers"]["requested"] == 4 << 30 and m.evidence["numbers"]["free"] == 1 << 30
    assert m.evidence["peak_allocated"] == 3 << 30


def test_timeline_samples_follow_the_script():
    b = ScriptedBackend(script=[("alloc", 10 * MiB), ("alloc", 20 * MiB), ("free", 5 * MiB)])
    t = MemoryTracker(b, interval=0)
    t.start()  # start consumes the first event
    t.sample()
    t.sample()
    r = t.stop(collect=False)
    assert [p[1] for p in r.timeline] == [10 * MiB, 30 * MiB, 25 * MiB, 25 * MiB]
    assert r.peak_allocated == 30 * MiB
    assert all(a <= b for a, b in zip([p[0] for p in r.timeline], [p[0] for p in r.timeline][1:]))


def test_timeline_is_decimated_not_unbounded():
    b = ScriptedBackend()
    t = MemoryTracker(b, interval=0, max_points=50)
    t.start()
    for _ in range(500):
        b.alloc(MiB)
        t.sample()
    r = t.stop(collect=False)
    assert len(r.timeline) <= 51 and r.timeline[-1][1] == 500 * MiB and r.timeline[0][1] == 0


def test_sampler_thread_collects_points():
    import time

    from jupyter_trainguard.runtime.memory.sampler import attached

    b = ScriptedBackend()
    t = MemoryTracker(b, interval=0.01)
    t.start()
    deadline = time.time() + 5
    while len(t.timeline) < 4 and time.time() < deadline:
        time.sleep(0.01)
    r = t.stop(collect=False)
    assert len(r.timeline) >= 4 and t not in attached(), "stopped: the sampler no longer serves it"
    points = len(t.timeline)
    time.sleep(0.05)
    assert len(t.timeline) == points, "no sample after stop"


def test_optimizer_steps_become_markers_and_hook_is_removed():
    torch = pytest.importorskip("torch")
    b = ScriptedBackend()
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    t = MemoryTracker(b, interval=0, step_sample_gap=0)
    t.start()
    for _ in range(3):
        b.alloc(MiB)
        model(torch.ones(2, 4)).sum().backward()
        opt.step()
    r = t.stop(collect=False)
    opt.step()  # after stop: not recorded
    assert r.steps == 3 and [m[1] for m in r.markers] == [1, 2, 3]
    assert [m[2] for m in r.markers] == [MiB, 2 * MiB, 3 * MiB] and len(t.markers) == 3


def test_fast_steps_reuse_the_last_read():
    torch = pytest.importorskip("torch")
    b = ScriptedBackend()
    opt = torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.1)
    t = MemoryTracker(b, interval=0, step_sample_gap=60)
    t.start()
    b.alloc(MiB)
    opt.step()  # first step reads the backend
    b.alloc(MiB)
    opt.step()  # within the gap: reuses the first read
    r = t.stop(collect=False)
    assert [m[2] for m in r.markers] == [MiB, MiB] and r.peak_allocated == 2 * MiB


def test_rss_backend_measures_a_real_host_allocation(shell):
    shell.run("import numpy as np")
    shell.run("%%guarded_train --backend rss\nblock = np.ones((256 << 20) // 8)\ndel block")
    m = shell.last.memory
    assert m["backend"] == "rss" and not m["is_device"]
    assert m["peak_allocated"] - m["start_allocated"] >= 200 * MiB
    assert abs(m["retained"]) < 64 * MiB


def test_cuda_backend_never_raises_on_a_cpu_only_build():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("has CUDA")
    b = CudaBackend()
    assert b.current() == (0, 0) and b.peak() == 0 and b.counters() == {"num_ooms": 0, "num_alloc_retries": 0}
    b.reset_peak()
    b.synchronize()
    b.empty_cache()
    assert b.device_info() is None


@pytest.mark.gpu
def test_cuda_peak_and_cleanup_on_gpu(shell):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    shell.run("import torch")
    shell.run("%%guarded_train --backend cuda\nx = torch.empty(256 << 20, dtype=torch.uint8, device='cuda')\n"
              "torch.cuda.reset_peak_memory_stats()\ndel x\ny = torch.empty(1 << 20, dtype=torch.uint8, "
              "device='cuda')")
    m = shell.last.memory
    assert m["backend"] == "cuda" and m["peak_allocated"] >= 256 * MiB and m["user_peak_resets"] == 1
    shell.run("%%guarded_train --backend cuda\ndef f():\n    t = torch.empty(512 << 20, dtype=torch.uint8, "
              "device='cuda')\n    raise RuntimeError('x')\nf()", ok=False)
    assert shell.last.cleanup["freed"] >= 512 * MiB


def test_one_sampler_thread_serves_every_tracker_and_a_failing_sample_stops_only_its_own():
    import threading
    import time

    from jupyter_trainguard.runtime.memory.sampler import NAME, attached

    class Broken(ScriptedBackend):
        def current(self):
            if getattr(self, "armed", False):
                raise RuntimeError("device lost")
            return super().current()

    first, second = MemoryTracker(ScriptedBackend(), interval=0.01), MemoryTracker(Broken(), interval=0.01)
    first.start()
    second.start()
    second.backend.armed = True  # its next timeline sample raises
    deadline = time.time() + 5
    while (len(first.timeline) < 5 or second in attached()) and time.time() < deadline:
        time.sleep(0.01)
    assert second not in attached(), "a failing sample detaches its tracker"
    assert first in attached() and len(first.timeline) >= 5, "the other tracker is still sampled"
    second.backend.armed = False
    second.stop(collect=False)
    result = first.stop(collect=False)
    assert not attached() and result.own_ms > 0, "the sampler's CPU time is counted on the tracker it served"
    for _ in range(3):  # later cells reuse the same thread: never one thread per cell
        t = MemoryTracker(ScriptedBackend(), interval=0.01)
        t.start()
        t.stop(collect=False)
    assert len([t for t in threading.enumerate() if t.name == NAME]) == 1


def test_a_forked_child_samples_with_its_own_sampler_thread():
    import os
    import time

    from jupyter_trainguard.runtime.memory import sampler

    parent = MemoryTracker(ScriptedBackend(), interval=0.01)
    parent.start()  # the parent's sampler holds its condition on and off while the fork happens
    pid = os.fork()
    if pid == 0:  # the child: a guarded cell there must sample (and never wait on the parent's lock)
        code = 1
        try:
            child = MemoryTracker(ScriptedBackend(), interval=0.01)
            child.start()
            deadline = time.time() + 5
            while len(child.timeline) < 3 and time.time() < deadline:
                time.sleep(0.01)
            child.stop(collect=False)
            code = 0 if len(child.timeline) >= 3 and not sampler.attached() else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    parent.stop(collect=False)
    assert os.waitstatus_to_exitcode(status) == 0
