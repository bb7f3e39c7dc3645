"""What `%trainaudit` costs: review time of the demo notebook (static part vs full review), dataset-hash
throughput on a large frame, and rerun overhead (two reruns vs one plain run of the cell).

Usage: python benchmarks/audit_cost.py [--rows N] [--repeat R]
Prints medians and ratios; no thresholds.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "demo_notebooks" / "audit_leaky_pipeline.ipynb"


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    import numpy as np
    import pandas as pd

    from jupyter_trainguard.engine import analyze_path
    from jupyter_trainguard.report.provenance import hash_dataset
    from jupyter_trainguard.report.review import audit_paths

    analyze_path(DEMO)  # warm caches (rule loading, IPython transformer)
    static = median_time(lambda: analyze_path(DEMO), args.repeat)
    review = median_time(lambda: audit_paths([str(DEMO)]), args.repeat)
    print(f"demo notebook: engine scan median {static * 1000:.1f} ms, full review median {review * 1000:.1f} ms "
          f"(review/scan ratio {review / static:.2f})")

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=args.rows), "b": rng.integers(0, 100, args.rows),
                       "c": rng.normal(size=args.rows)})
    mb = df.memory_usage(deep=True).sum() / 1e6
    t = median_time(lambda: hash_dataset(df), args.repeat)
    arr = df.to_numpy()
    ta = median_time(lambda: hash_dataset(arr), args.repeat)
    print(f"hash_dataset: DataFrame {args.rows:,} rows ({mb:.0f} MB) median {t * 1000:.0f} ms "
          f"({mb / t:.0f} MB/s); ndarray {arr.nbytes / 1e6:.0f} MB median {ta * 1000:.0f} ms "
          f"({arr.nbytes / 1e6 / ta:.0f} MB/s)")

    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_trainguard.report.rerun import rerun_cell

    ip = InteractiveShell.instance()
    ip.run_cell("import numpy as np\nfrom sklearn.linear_model import LogisticRegression\n"
                "X = np.random.default_rng(0).normal(size=(20000, 20))\ny = (X[:, 0] > 0).astype(int)",
                store_history=True)
    cell = "clf = LogisticRegression(max_iter=200).fit(X, y)\nacc = clf.score(X, y)"
    ip.run_cell(cell, store_history=True)
    n = ip.execution_count - 1
    plain = median_time(lambda: ip.run_cell(cell, store_history=False), args.repeat)
    rerun = median_time(lambda: rerun_cell(ip, n, "acc"), args.repeat)
    print(f"rerun check: plain cell median {plain * 1000:.0f} ms, --rerun (2 runs + copies) median "
          f"{rerun * 1000:.0f} ms (ratio {rerun / plain:.2f})")


if __name__ == "__main__":
    main()
