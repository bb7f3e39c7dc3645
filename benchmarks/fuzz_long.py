"""Long fuzz run of the scanner: N hostile notebooks, crashes must be 0.

    python benchmarks/fuzz_long.py [--cases 10000] [--start 0]

Prints cases, crashes (exceptions escaping the engine, or rules that failed internally), the slowest case and the
per-strategy counts. The short version of this runs in the tests (tests/robustness).
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jupyter_trainguard.engine import analyze_notebook  # noqa: E402
from jupyter_trainguard.notebook import notebook_from_bytes  # noqa: E402
from tests.robustness.mutations import hostile_notebook  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--start", type=int, default=0)
    args = ap.parse_args()
    times: list[tuple[float, int, str]] = []
    crashes: list[tuple[int, str, str]] = []
    per_strategy: collections.Counter[str] = collections.Counter()
    t_all = time.perf_counter()
    for seed in range(args.start, args.start + args.cases):
        name, data = hostile_notebook(seed)
        per_strategy[name] += 1
        t0 = time.perf_counter()
        try:
            rep, _, _ = analyze_notebook(notebook_from_bytes(f"fuzz_{seed}.ipynb", data))
            broken = [f"{k}: {v}" for k, v in rep.skipped_rules.items() if v.startswith("internal error")]
            if broken:
                crashes.append((seed, name, "; ".join(broken)))
        except BaseException as exc:  # noqa: BLE001 - counting every escape is the point
            crashes.append((seed, name, "".join(traceback.format_exception_only(type(exc), exc)).strip()))
        times.append((time.perf_counter() - t0, seed, name))
    wall = time.perf_counter() - t_all
    slowest = max(times)
    ms = sorted(t * 1000 for t, _, _ in times)
    print(f"cases: {args.cases} (seeds {args.start}..{args.start + args.cases - 1}) in {wall:.1f} s")
    print(f"crashes: {len(crashes)}")
    for seed, name, what in crashes[:20]:
        print(f"  seed {seed} ({name}): {what}")
    print(f"per case: median {statistics.median(ms):.2f} ms, p99 {ms[int(0.99 * (len(ms) - 1))]:.1f} ms")
    print(f"slowest case: seed {slowest[1]} ({slowest[2]}) {slowest[0] * 1000:.0f} ms")
    print("strategies: " + ", ".join(f"{k}={v}" for k, v in sorted(per_strategy.items())))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
