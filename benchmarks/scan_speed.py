"""Scan speed on a generated corpus: median and p95 ms per notebook, notebooks per second.

    python benchmarks/scan_speed.py [--notebooks 500] [--seed 0] [--jobs 1]

The corpus mixes realistic cells (pandas loading, sklearn splits and pipelines, torch training loops, plotting,
magics, markdown) into notebooks of 20-200 cells; it is written to a temporary folder with nbformat and scanned
with the same engine as `trainguard scan` (reading, parsing, every rule).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    "import pandas as pd\nimport numpy as np\nimport matplotlib.pyplot as plt\n%matplotlib inline",
    "df = pd.read_csv('data/train_{i}.csv')\ndf.head()",
    "df = df.dropna(subset=['target'])\ndf['ratio_{i}'] = df['a'] / (df['b'] + 1)\ndf.describe()",
    "from sklearn.model_selection import train_test_split\nX = df.drop(columns=['target'])\ny = df['target']\n"
    "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=42)",
    "from sklearn.preprocessing import StandardScaler\nscaler = StandardScaler()\n"
    "X_train_s = scaler.fit_transform(X_train)\nX_test_s = scaler.transform(X_test)",
    "from sklearn.pipeline import make_pipeline\nfrom sklearn.linear_model import LogisticRegression\n"
    "pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter={i}00))\npipe.fit(X_train, y_train)",
    "from sklearn.metrics import accuracy_score, f1_score\npred = pipe.predict(X_test)\n"
    "print(accuracy_score(y_test, pred), f1_score(y_test, pred))",
    "fig, ax = plt.subplots(figsize=(8, 4))\nax.hist(df['a'], bins=50)\nax.set_title('feature a')\nplt.show()",
    "import torch\nimport torch.nn as nn\nmodel = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))\n"
    "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\ncriterion = nn.CrossEntropyLoss()",
    "for epoch in range({i}):\n    model.train()\n    for xb, yb in train_loader:\n        optimizer.zero_grad()\n"
    "        loss = criterion(model(xb), yb)\n        loss.backward()\n        optimizer.step()\n"
    "    print(epoch, loss.item())",
    "def evaluate(model, loader):\n    model.eval()\n    correct = 0\n    with torch.no_grad():\n"
    "        for xb, yb in loader:\n            correct += (model(xb).argmax(1) == yb).sum().item()\n"
    "    return correct / len(loader.dataset)",
    "!pip install -q lightgbm\nresults_{i} = {{'acc': evaluate(model, val_loader)}}\nresults_{i}",
    "for name, group in df.groupby('category'):\n    print(name, len(group), group['a'].mean())",
    "torch.save({{'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'epoch': {i}}}, 'ckpt.pt')",
]
MARKDOWN = "## Step {i}\n\nSome explanation of what happens next, with a [link](https://example.org)."


def make_corpus(folder: Path, n: int, seed: int) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    for k in range(n):
        size = rng.randint(20, 200)
        nb = new_notebook()
        for i in range(size):
            if rng.random() < 0.25:
                nb.cells.append(new_markdown_cell(MARKDOWN.format(i=i)))
            else:
                nb.cells.append(new_code_cell(rng.choice(CELLS).format(i=i + 1), execution_count=i + 1))
        p = folder / f"nb_{k:04}.ipynb"
        nbformat.write(nb, p)
        paths.append(p)
    return paths


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notebooks", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    from jupyter_trainguard.engine import analyze_path, clear_caches, scan
    from jupyter_trainguard.rules import all_rules

    all_rules()  # registry import is a one-off cost, not per notebook
    with tempfile.TemporaryDirectory() as tmp:
        paths = make_corpus(Path(tmp), args.notebooks, args.seed)
        cells = [len(nbformat.read(p, as_version=4).cells) for p in paths[:50]]
        analyze_path(paths[0])  # warm caches (IPython transformer import)
        per_nb = []
        by_size: dict[str, list[float]] = {"20-60 cells": [], "61-120 cells": [], "121-200 cells": []}
        for p in paths:
            clear_caches()  # cold: no cell of an earlier notebook is reused
            t0 = time.perf_counter()
            rep = analyze_path(p)
            ms = (time.perf_counter() - t0) * 1000
            per_nb.append(ms)
            key = "20-60 cells" if rep.cells <= 60 else "61-120 cells" if rep.cells <= 120 else "121-200 cells"
            by_size[key].append(ms)
        warm = []
        for p in paths[:100]:
            t0 = time.perf_counter()
            analyze_path(p)
            warm.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        result = scan([tmp], jobs=args.jobs)
        wall = time.perf_counter() - t0
    per_nb.sort()
    p95 = per_nb[int(0.95 * (len(per_nb) - 1))]
    print(f"corpus: {args.notebooks} notebooks, 20-200 cells (mean of first 50: {statistics.mean(cells):.0f})")
    print(f"per notebook (cold caches): median {statistics.median(per_nb):.2f} ms, p95 {p95:.2f} ms, "
          f"max {per_nb[-1]:.2f} ms")
    for key, values in by_size.items():
        if values:
            print(f"  {key}: {len(values)} notebooks, median {statistics.median(values):.2f} ms")
    print(f"per notebook re-analysed (parse cache warm, as in %%guarded_train): median "
          f"{statistics.median(warm):.2f} ms")
    print(f"trainguard scan (jobs={args.jobs}, project rules included): {wall:.2f} s for "
          f"{len(result.reports)} notebooks = {len(result.reports) / wall:.0f} notebooks/s, "
          f"{len(result.findings)} findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
