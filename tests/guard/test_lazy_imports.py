"""The guard imports torch only when it is already imported or the cell uses it."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_guarded_numpy_cell_does_not_import_torch(tmp_path):
    code = textwrap.dedent("""
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        ip = InteractiveShell.instance()
        ip.run_cell("%load_ext trainguard", store_history=True)
        ip.run_cell("import numpy as np\\nX_train = np.arange(20.).reshape(10, 2)\\nX_test = X_train[:3]",
                    store_history=True)
        r = ip.run_cell("%%guarded_train --quiet --seed 1\\ntotal = X_train.sum()", store_history=True)
        assert r.success, r.error_in_exec
        run = ip.user_ns["_trainguard_last"]
        print("DATA001" in [f.rule_id for f in run.findings], run.memory["backend"], "torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-3:] == ["True", "rss", "False"]
