"""Session cells found in the saved notebook in a real IPython shell: by the cell id the frontend sent, else by
execution count and source; without the notebook, by execution count alone."""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.ipshell import Shell, loaded_shell

from .notebooks import DATA, FIT, IMPORTS, LEAK

GUARDED = "%%guarded_train --quiet\n" + FIT
EDITED = "\n# edited after the last save"


@pytest.fixture
def shell(tmp_path, monkeypatch):
    pytest.importorskip("sklearn")
    monkeypatch.chdir(tmp_path)
    with loaded_shell(Shell) as sh:  # "%load_ext trainguard" ran as [In 1]
        sh.run(IMPORTS + "\n" + DATA)  # [In 2]
        yield sh


def saved(path):
    """md | load_ext [1] | md | data [2] | leak [3] (saved before an edit) | md | guarded [4]."""
    cells = [
        new_markdown_cell("# Session"),
        new_code_cell("%load_ext trainguard", execution_count=1),
        new_markdown_cell("Data"),
        new_code_cell(IMPORTS + "\n" + DATA, execution_count=2),
        new_code_cell(LEAK + EDITED, execution_count=3),
        new_markdown_cell("Train"),
        new_code_cell(GUARDED, execution_count=4),
    ]
    for i, cell in enumerate(cells):
        cell.id = f"id-{i}"
    nbformat.write(new_notebook(cells=cells), path)
    return str(path)


def leak_of(shell):
    (leak,) = [f for f in shell.ns["_trainguard_last"].static.findings if f.rule_id == "LEAK001"]
    return leak


def test_found_by_cell_id_and_by_count_with_source(shell, tmp_path):
    shell.ns["__session__"] = path = saved(tmp_path / "s.ipynb")
    shell.ip.run_cell(LEAK, store_history=True, cell_id="id-4")  # [In 3]: its source differs from the saved one
    shell.run(GUARDED)  # [In 4], sent without an id: found by its count and (unchanged) source
    run = shell.ns["_trainguard_last"]
    assert run.execution_count == 4
    leak = leak_of(shell)
    assert (leak.location.path, leak.location.cell, leak.location.cell_id, leak.location.execution_count) == (
        path,
        4,
        "id-4",
        3,
    )
    assert leak.location.cell_text == "cell 5 [In 3]"
    assert "cell 5 [In 3]" in leak.message and "cell 7 [In 4]" in leak.message  # the score in the guarded cell
    (track,) = [f for f in run.static.findings if f.rule_id == "TRACK001"]
    assert (track.location.cell, track.location.cell_id, track.location.execution_count) == (6, "id-6", 4)


def test_an_edited_cell_is_not_matched_by_count(shell, tmp_path):
    shell.ns["__session__"] = saved(tmp_path / "s.ipynb")
    shell.run(LEAK)  # [In 3] without an id, and not the source saved as [3]
    shell.run(GUARDED)
    leak = leak_of(shell)
    assert leak.location.cell is None and leak.location.path == "<session>"
    assert leak.location.cell_text == "[In 3]" and "[In 3]" in leak.message and "cell 5" not in leak.message


def test_without_a_notebook_cells_are_named_by_count(shell):
    shell.run(LEAK)
    shell.run(GUARDED)
    leak = leak_of(shell)
    assert leak.location.cell is None and leak.location.execution_count == 3
    assert "cell_index" not in leak.location.to_dict() and leak.location.cell_text == "[In 3]"
    assert "[In 3]" in leak.message and "[In 4]" in leak.message


def test_the_saved_notebook_is_read_again_only_when_the_file_changed(tmp_path, monkeypatch):
    import os

    from jupyter_trainguard import session_cells
    from jupyter_trainguard.notebook import load

    path = tmp_path / "kept.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("a = 1", execution_count=1)]), path)
    reads = []
    real = load.load_notebook
    monkeypatch.setattr(load, "load_notebook", lambda p, *a, **k: reads.append(p) or real(p, *a, **k))
    first = session_cells._notebook_cells(str(path))
    assert session_cells._notebook_cells(str(path)) is first and len(reads) == 1
    nbformat.write(new_notebook(cells=[new_code_cell("a = 1", execution_count=1),
                                       new_code_cell("b = 2", execution_count=2)]), path)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a save within the clock's resolution
    again = session_cells._notebook_cells(str(path))
    assert len(reads) == 2 and [c.source for c in again] == ["a = 1", "b = 2"]
