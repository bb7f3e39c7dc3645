"""The guard analyses what the kernel holds: a corrected re-run replaces a cell that never compiled (real shell)."""

from __future__ import annotations

from tests.ipshell import run_with_id

BROKEN = "%%guarded_train\nimport numpy as np\nw = np.ones(3\n"
FIXED = "%%guarded_train\nimport numpy as np\nw = np.ones(3)\n"


def nb001(shell):
    return [f for f in shell.last.findings if f.rule_id == "NB001"]


def test_syntax_error_then_corrected_rerun_no_longer_poisons_the_session(shell):
    shell.run("import numpy as np\ndata = np.arange(10)")
    bad = shell.run(BROKEN, ok=False)
    assert isinstance(bad.error_in_exec, SyntaxError)
    assert nb001(shell), "the broken cell itself is reported"
    shell.run(FIXED)
    assert nb001(shell) == []
    shell.run("%%guarded_train --strict\ntotal = float(w.sum()) + float(data.sum())")
    assert nb001(shell) == [] and shell.last.status == "ok"
    assert shell.ns["total"] == 48.0


def test_plain_cell_with_a_syntax_error_drops_out_too(shell):
    shell.run("x = (1,", ok=False)
    shell.run("%%guarded_train --strict\ny = 2")
    assert nb001(shell) == [] and shell.last.status == "ok"


def test_refused_cell_is_not_part_of_the_session(shell):
    shell.run("%%guarded_train --strict\nz = (", ok=False)
    assert shell.last.status == "refused"
    shell.run("%%guarded_train --strict\nz = 3")
    assert shell.last.status == "ok" and shell.ns["z"] == 3


def test_with_cell_ids_a_rerun_replaces_its_earlier_version(shell):
    run_with_id(shell, "import numpy as np", "setup")
    run_with_id(shell, "w = np.ones(3\n", "prep", ok=False)  # never compiled
    run_with_id(shell, "%%guarded_train\nv = 1", "train")
    assert shell.last.static.cells == 3  # %load_ext, setup, train: the broken prep never ran
    run_with_id(shell, "w = np.ones(3)", "prep")
    run_with_id(shell, "w = np.ones(4)", "prep")  # ran, then re-run: only the latest version is in the kernel
    run_with_id(shell, "%%guarded_train --strict\nv = w.sum()", "train")
    assert shell.last.status == "ok" and shell.ns["v"] == 4.0
    assert nb001(shell) == []
    assert len(shell.ip.history_manager.input_hist_raw) - 1 == 7
    assert shell.last.static.cells == 4  # %load_ext, setup, prep (latest run), train (latest run)
