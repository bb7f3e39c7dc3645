"""Start-up cost as a user pays it: `trainguard scan one.ipynb` and `%load_ext trainguard`, each as a fresh process.

    python benchmarks/cli_startup.py [--runs 21]

Prints the median wall time of each next to a bare `python -c pass` (and, for the extension, a bare IPython shell)
measured in the same run, interleaved, so machine noise hits every command alike. Bytecode is cached in a private
folder first (as an installed package has it); the environment's PYTHONDONTWRITEBYTECODE would otherwise make
every run compile every module again. Also checks that the scan and the extension load never import torch,
pandas, scikit-learn, ipywidgets, jupyter_server, libcst or the report machinery.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("torch", "pandas", "sklearn", "ipywidgets", "jupyter_server", "libcst", "jupyter_trainguard.report")
SCAN_HEAVY = HEAVY + ("IPython", "prompt_toolkit", "jedi")  # a scan reads magics without importing IPython
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# A small training notebook"},
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "outputs": [],
            "source": "%matplotlib inline\n!pip install -q scikit-learn\n"
            "import numpy as np\nimport pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
            "from sklearn.preprocessing import StandardScaler\nfrom sklearn.linear_model import LogisticRegression",
        },
        {
            "cell_type": "code",
            "execution_count": 2,
            "metadata": {},
            "outputs": [],
            "source": "df = pd.read_csv('data.csv')\nX = df.drop(columns=['y'])\ny = df['y']\n"
            "X = StandardScaler().fit_transform(X)\n"
            "X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)",
        },
        {
            "cell_type": "code",
            "execution_count": 3,
            "metadata": {},
            "outputs": [],
            "source": "clf = LogisticRegression().fit(X_train, y_train)\nprint(clf.score(X_test, y_test))",
        },
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}
LOAD_EXT = (
    "from IPython.core.interactiveshell import InteractiveShell\n"
    "ip = InteractiveShell.instance()\nip.run_line_magic('load_ext', 'trainguard')\n"
)
BARE_SHELL = "from IPython.core.interactiveshell import InteractiveShell\nip = InteractiveShell.instance()\n"
REPORT_HEAVY = (
    "import sys\n{setup}\nheavy = [m for m in sys.modules if m.split('.')[0] in {roots!r} "
    "or m.startswith('jupyter_trainguard.report')]\nprint(','.join(sorted(heavy)))\n"
)


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds user + system) of one run of `cmd` as a child process."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    import json

    tmp = tempfile.mkdtemp(prefix="trainguard-startup-")
    Path(tmp, "one.ipynb").write_text(json.dumps(NOTEBOOK))
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tmp, "pycache"))
    env["HOME"] = tmp  # no user IPython profile or history file
    env["IPYTHONDIR"] = str(Path(tmp, "ipython"))
    py = sys.executable
    commands = {
        "python -c pass": [py, "-c", "pass"],
        "trainguard scan one.ipynb": [py, "-m", "jupyter_trainguard.cli", "scan", "one.ipynb"],
        "bare IPython shell": [py, "-c", BARE_SHELL],
        "%load_ext trainguard": [py, "-c", LOAD_EXT],
    }
    for cmd in commands.values():  # warm the bytecode cache and the OS file cache
        timed(cmd, env, tmp)
        timed(cmd, env, tmp)
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    for i in range(args.runs):
        order = list(commands.items())
        order = order[i % len(order) :] + order[: i % len(order)]
        for name, cmd in order:
            times[name].append(timed(cmd, env, tmp))
    med = {k: statistics.median(w for w, _ in v) * 1000 for k, v in times.items()}
    cpu = {k: statistics.median(c for _, c in v) * 1000 for k, v in times.items()}
    print(
        f"median of {args.runs} interleaved runs (fresh processes, bytecode cached): wall, and CPU (user+sys, "
        "less exposed to other load on the machine)"
    )
    for name in commands:
        base = "python -c pass" if name != "%load_ext trainguard" else "bare IPython shell"
        extra = (
            f"  (+{med[name] - med[base]:.0f} ms wall, +{cpu[name] - cpu[base]:.0f} ms CPU over {base})"
            if name != base
            else ""
        )
        print(f"  {name:28} wall {med[name]:7.1f} ms  CPU {cpu[name]:7.1f} ms{extra}")
    print(
        f"  %load_ext trainguard costs {med['%load_ext trainguard'] - med['bare IPython shell']:.1f} ms on top of "
        f"the shell; the scan process is {med['trainguard scan one.ipynb']:.0f} ms (target <= 80 ms)"
    )
    scan_setup = (
        "from jupyter_trainguard.cli import main\nimport contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['scan', 'one.ipynb'])"
    )
    for label, setup, heavy in (("scan", scan_setup, SCAN_HEAVY), ("%load_ext", LOAD_EXT, HEAVY)):
        roots = {h for h in heavy if "." not in h}
        out = (
            subprocess.run(
                [py, "-c", REPORT_HEAVY.format(setup=setup, roots=roots)],
                env=env,
                cwd=tmp,
                capture_output=True,
                text=True,
                check=False,
            )
            .stdout.strip()
            .splitlines()
        )
        print(f"  heavy modules imported by {label}: {out[-1] if out and out[-1] else 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
