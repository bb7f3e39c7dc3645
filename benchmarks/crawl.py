"""Crawl-scale scan: N generated notebooks scanned with 2 worker processes, results streamed.

    python benchmarks/crawl.py [--n 20000] [--jobs 2] [--seed 0] [--keep DIR]

The generator writes varied notebooks of its own (5-150 cells: data loading, pandas feature work, scikit-learn
splits/pipelines/search, PyTorch loops with checkpoints, plotting, magics and shell escapes, markdown, outputs,
helper functions, deliberate leaks, a few syntax errors and broken files). They are scanned with the engine's
streaming scan (`iter_scan`, the path `trainguard scan --jobs 2` takes): each report is counted and dropped.
Prints notebooks/s, the peak RSS (main process + workers) at 25/50/75/100 % of the run, and the time extrapolated
to 100,000 notebooks (target: <= 30 min on this machine).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

NAMES = ["df", "data", "frame", "raw", "table", "events", "sales", "patients", "clicks"]
MODELS = [
    "LogisticRegression(max_iter={n})",
    "RandomForestClassifier(n_estimators={n}, random_state=0)",
    "GradientBoostingClassifier()",
    "SVC(C={c})",
    "Ridge(alpha={c})",
    "KNeighborsClassifier({k})",
]
CELLS = [
    "import numpy as np\nimport pandas as pd\nimport matplotlib.pyplot as plt",
    "from sklearn.model_selection import train_test_split, cross_val_score, GridSearchCV\n"
    "from sklearn.preprocessing import StandardScaler, OneHotEncoder\nfrom sklearn.pipeline import make_pipeline\n"
    "from sklearn.linear_model import LogisticRegression, Ridge\nfrom sklearn.svm import SVC\n"
    "from sklearn.ensemble import RandomForestClassifier, GradientBoostingClassifier\n"
    "from sklearn.neighbors import KNeighborsClassifier\nfrom sklearn.metrics import accuracy_score",
    "{d} = pd.read_csv('{f}.csv')\n{d}.head()",
    "{d} = {d}.dropna()\n{d}['{c1}_ratio'] = {d}['{c1}'] / ({d}['{c2}'] + 1)\n{d}.describe()",
    "X = {d}.drop(columns=['{t}'])\ny = {d}['{t}']",
    "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.{p}, random_state={s})",
    "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.{p})",
    "scaler = StandardScaler()\nX_train_s = scaler.fit_transform(X_train)\nX_test_s = scaler.transform(X_test)",
    "scaler = StandardScaler().fit(X)\nX_all = scaler.transform(X)",
    "model = make_pipeline(StandardScaler(), {m})\nmodel.fit(X_train, y_train)\n"
    "print(accuracy_score(y_test, model.predict(X_test)))",
    "scores = cross_val_score({m}, X, y, cv={k})\nscores.mean()",
    "grid = GridSearchCV({m}, {{'C': [0.1, 1, {c}]}}, cv={k})\ngrid.fit(X_test, y_test)",
    "def add_features(frame):\n    out = frame.copy()\n    out['{c1}_log'] = np.log1p(out['{c1}'])\n"
    "    out['{c2}_sq'] = out['{c2}'] ** 2\n    return out\n\n{d} = add_features({d})",
    "fig, ax = plt.subplots()\nax.hist({d}['{c1}'], bins={k}0)\nplt.show()",
    "%matplotlib inline\n%time {d}.groupby('{c2}').size()",
    "!pip install -q lightgbm\n!ls data",
    "import torch\nfrom torch import nn\nmodel = nn.Sequential(nn.Linear({k}, 64), nn.ReLU(), nn.Linear(64, 2))\n"
    "opt = torch.optim.Adam(model.parameters(), lr=1e-{k})\nloss_fn = nn.CrossEntropyLoss()",
    "for epoch in range({k}):\n    for xb, yb in loader:\n        opt.zero_grad()\n"
    "        loss = loss_fn(model(xb), yb)\n        loss.backward()\n        opt.step()\n"
    "    torch.save(model.state_dict(), 'ckpt_{s}.pt')",
    "model.load_state_dict(torch.load('ckpt_{s}.pt'))\nmodel.eval()",
    "results = {{}}\nfor name in ['a', 'b', 'c']:\n    results[name] = {d}[name].mean() * {c}\nresults",
    "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.fc = nn.Linear({k}, 2)\n\n    def forward(self, x):\n        return self.fc(x)",
    "import random\nrandom.seed({s})\nnp.random.seed({s})",
    "with open('notes_{s}.txt') as fh:\n    notes = fh.read().splitlines()\nlen(notes)",
]
BROKEN = ["def broken(:\n    pass", "x = (1,\n", "print 'python 2'"]
MARKDOWN = [
    "## Step {s}\n\nWhat happens next, with `inline code` and a [link](https://example.org).",
    "# Results\n\n| metric | value |\n|---|---|\n| acc | 0.{p} |",
    "Notes on the **data**: {k} columns.",
]


def make_notebook(rng: random.Random, k: int) -> str:
    """One notebook as JSON text; about 1 in 200 is not valid JSON (a scan must survive it)."""
    if rng.random() < 0.005:
        return '{"cells": [ {"cell_type": "code", "source": "x = 1"'  # truncated file
    n = rng.randint(5, 150)
    cells = []
    count = 0
    for i in range(n):
        fill = {
            "d": rng.choice(NAMES),
            "f": f"data/part_{k % 97}",
            "c1": rng.choice("abcdefgh"),
            "c2": rng.choice("pqrstuvw"),
            "t": rng.choice(["target", "label", "y", "churn"]),
            "p": rng.randint(1, 4),
            "s": rng.randint(0, 99),
            "k": rng.randint(2, 9),
            "c": rng.randint(1, 20),
            "n": rng.randint(50, 500),
        }
        fill["m"] = rng.choice(MODELS).format(**fill)
        roll = rng.random()
        if roll < 0.22:
            cells.append({"cell_type": "markdown", "metadata": {}, "source": rng.choice(MARKDOWN).format(**fill)})
            continue
        src = rng.choice(BROKEN) if roll > 0.995 else rng.choice(CELLS).format(**fill)
        count += 1
        outputs = (
            [{"output_type": "stream", "name": "stdout", "text": f"{rng.random():.4f}\n"}] if rng.random() < 0.3 else []
        )
        cells.append(
            {
                "cell_type": "code",
                "execution_count": count if rng.random() < 0.9 else None,
                "id": f"c{k}-{i}",
                "metadata": {},
                "outputs": outputs,
                "source": src,
            }
        )
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(nb)


def generate(folder: Path, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    paths = []
    for k in range(n):
        sub = folder / f"project_{k // 500:03d}"
        if k % 500 == 0:
            sub.mkdir(parents=True, exist_ok=True)
        p = sub / f"nb_{k:06d}.ipynb"
        p.write_text(make_notebook(rng, k))
        paths.append(str(p))
    return paths


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def family_rss() -> tuple[float, float]:
    """(RSS of this process, RSS of its worker processes) in MiB."""
    me = os.getpid()
    workers = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int(Path(entry, "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == me:
                workers += rss_mib(int(entry.name))
    return rss_mib(me), workers


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", metavar="DIR", help="write the notebooks here and keep them")
    args = ap.parse_args()
    from jupyter_trainguard.engine import iter_scan

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="trainguard-crawl-"))
    t0 = time.perf_counter()
    paths = generate(folder, args.n, args.seed)
    print(f"generated {len(paths)} notebooks in {time.perf_counter() - t0:.1f} s under {folder}")
    marks = {int(args.n * q / 4): f"{q * 25}%" for q in (1, 2, 3, 4)}
    peaks: dict[str, tuple[float, float]] = {}
    findings = errors = 0
    t0 = time.perf_counter()
    for i, (report, _) in enumerate(iter_scan(paths, jobs=args.jobs), start=1):
        findings += len(report.findings)
        errors += report.error is not None
        if i in marks:
            peaks[marks[i]] = family_rss()
    wall = time.perf_counter() - t0
    rate = args.n / wall
    print(
        f"scanned {args.n} notebooks with --jobs {args.jobs} in {wall:.1f} s: {rate:.0f} notebooks/s "
        f"({findings} findings, {errors} unreadable notebooks reported as NB002)"
    )
    print("RSS at 25/50/75/100 % of the run (MiB, main + workers):")
    for label, (main_rss, workers) in peaks.items():
        print(f"  {label:>4}: main {main_rss:6.1f} + workers {workers:6.1f} = {main_rss + workers:6.1f}")
    print(
        f"  peak RSS of the main process over the run: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}"
        " MiB"
    )
    est = 100_000 / rate
    print(f"extrapolated time for 100,000 notebooks: {est / 60:.1f} min (target <= 30 min)")
    if not args.keep:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
