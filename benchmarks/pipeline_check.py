"""Cost of `trainguard pipeline` on the demo repository: median wall seconds per mode, and the isolation overhead.

    python benchmarks/pipeline_check.py [--repeat 3] [--project demo_notebooks]

Modes: source rules only (nothing imported), the full check (one isolated probe process), and the full check with
the smoke run. The overhead ratio compares the full check with a bare `python -c "import <every component>"` in a
fresh interpreter, which is the least any isolated check must pay.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from jupyter_trainguard.config import load_config
from jupyter_trainguard.engine import Selection
from jupyter_trainguard.pipeline import check_pipeline
from jupyter_trainguard.pipeline.sources import load_components


def timed(fn, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--project", default=str(Path(__file__).resolve().parents[1] / "demo_notebooks"))
    args = ap.parse_args()
    config = load_config(args.project)
    mods = load_components(config.root, config.components, config.package_name)
    imports = "; ".join(f"import {m.module}" for m in mods)

    def bare() -> None:
        subprocess.run([sys.executable, "-c", imports], cwd=config.root, check=True)

    results = {
        "bare import of all components (fresh interpreter)": timed(bare, args.repeat),
        "source rules only (PHEALTH01x, nothing imported)":
            timed(lambda: check_pipeline(config, selection=Selection(select=("PHEALTH01",))), args.repeat),
        "full check (isolated probe)": timed(lambda: check_pipeline(config), args.repeat),
        "full check + smoke run": timed(lambda: check_pipeline(config, smoke=True), args.repeat),
    }
    for name, seconds in results.items():
        print(f"{name:<55} median {seconds:7.3f} s over {args.repeat} run(s)")
    base = results["bare import of all components (fresh interpreter)"]
    print(f"isolation overhead: full check / bare import = {results['full check (isolated probe)'] / base:.2f}x")
    smoke = check_pipeline(config, smoke=True).smoke
    if smoke is not None:
        print(smoke.describe())
    return 0


if __name__ == "__main__":
    sys.exit(main())
