"""`trainguard scan` as its own process: what it imports, and that its start-up shortcuts change no result."""

from __future__ import annotations

import gc
import subprocess
import sys

import nbformat

from jupyter_trainguard.cli import main

# as benchmarks/cli_startup.py checks, plus OpenSSL (`hashlib`), which a scan does not need either
HEAVY = ("torch", "pandas", "sklearn", "ipywidgets", "jupyter_server", "libcst", "jupyter_trainguard.report",
         "jupyter_trainguard.magics", "_hashlib",
         "IPython", "prompt_toolkit", "jedi")  # magics are read with IPython's transformer, loaded on its own


def leaky_notebook(path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%matplotlib inline\n!pip install -q scikit-learn\n"
                                  "import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n"
                                  "from sklearn.model_selection import train_test_split"),
        nbformat.v4.new_code_cell("%%time\nrows = !wc -l d.csv\nfiles = %ls\nimport math"),
        nbformat.v4.new_code_cell("df = pd.read_csv('d.csv')\n"
                                  "X = StandardScaler().fit_transform(df.drop(columns='y'))\n"
                                  "X_tr, X_te, y_tr, y_te = train_test_split(X, df['y'], random_state=0)"),
        nbformat.v4.new_code_cell("from sklearn.linear_model import LogisticRegression\n"
                                  "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))"),
    ]
    nbformat.write(nb, path)
    return path


def test_scan_process_imports_nothing_heavy_and_prints_what_main_prints(tmp_path, capsys):
    p = leaky_notebook(tmp_path / "leaky.ipynb")
    code = ("import sys\nfrom jupyter_trainguard.cli import main\nsys.argv = ['trainguard', 'scan', sys.argv[1]]\n"
            "code = main()\nsys.stdout.flush()\n"
            f"heavy = [m for m in sys.modules if m in {HEAVY!r} or m.split('.')[0] in {HEAVY!r}]\n"
            "print('HEAVY', ','.join(sorted(heavy)), file=sys.stderr)\nsys.exit(code)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert "HEAVY \n" in proc.stderr, proc.stderr
    assert proc.returncode == 1 and "LEAK001" in proc.stdout
    assert main(["scan", str(p)]) == 1
    assert capsys.readouterr().out == proc.stdout


def test_main_in_a_process_of_its_own_leaves_the_collector_as_it_was(tmp_path, capsys):
    """Called as a function (tests, other tools), the CLI neither freezes objects nor leaves collection off."""
    p = leaky_notebook(tmp_path / "leaky.ipynb")
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    assert main(["scan", str(p), "--format", "json"]) == 1
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    gc.disable()
    try:
        assert main(["rules"]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
    capsys.readouterr()
