"""How long `trainguard fix` takes per notebook, and how much of each file it rewrites.

Writes notebooks of growing size (N code cells, each with a split and an estimator lacking random_state, plus a
large output), runs `fix_paths` (own detectors and full engine), and prints the median seconds per notebook and
the share of the old file's bytes that were not kept verbatim.  Run: python benchmarks/fix_speed.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from jupyter_trainguard.fix import fix_paths

CELL = ("X{i}_tr, X{i}_te = train_test_split(\n    X,\n    test_size=0.2,\n)\n"
        "model{i} = RandomForestClassifier(n_estimators=10)  # cell {i}\nmodel{i}.fit(X{i}_tr, y[: len(X{i}_tr)])")


def notebook(path: Path, n: int) -> Path:
    nb = new_notebook()
    nb.cells = [new_code_cell("import numpy as np\nfrom sklearn.model_selection import train_test_split\n"
                              "from sklearn.ensemble import RandomForestClassifier\nSEED = 0\n"
                              "X = np.arange(100.0).reshape(50, 2)\ny = np.arange(50) % 2")]
    for i in range(n):
        c = new_code_cell(CELL.format(i=i), execution_count=i + 2)
        c.outputs = [new_output("display_data", data={"image/png": "iVBORw0KGgo" * 2000})]
        nb.cells.append(c)
    nbformat.write(nb, str(path))
    return path


def changed_share(before: bytes, after: bytes) -> float:
    """Share of the old file's bytes that are not kept verbatim (in order) in the new file."""
    import difflib

    old, new = before.decode().splitlines(keepends=True), after.decode().splitlines(keepends=True)
    kept = sum(len("".join(old[b.a:b.a + b.size])) for b in
               difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks())
    return 1 - kept / len(before.decode())


def main() -> None:
    fix_paths([notebook(Path(tempfile.mkdtemp()) / "warm.ipynb", 2)], diff_only=True)  # imports, caches
    print(f"{'cells':>5} {'KiB':>6} {'own detectors s':>16} {'with engine s':>14} {'fixes':>6} "
          f"{'old bytes not kept':>19}")
    for n in (5, 20, 50):
        own, full = [], []
        for _ in range(3):
            with tempfile.TemporaryDirectory() as tmp:
                path = notebook(Path(tmp) / "nb.ipynb", n)
                t = time.perf_counter()
                fix_paths([path], diff_only=True, engine_rules=[])
                own.append(time.perf_counter() - t)
                before = path.read_bytes()
                t = time.perf_counter()
                rep = fix_paths([path])
                full.append(time.perf_counter() - t)
                share = changed_share(before, path.read_bytes())
        print(f"{n:>5} {len(before) / 1024:>6.0f} {statistics.median(own):>16.2f} {statistics.median(full):>14.2f} "
              f"{len(rep.changes):>6} {share:>18.3%}")


if __name__ == "__main__":
    main()
