"""A guarded cell's SyntaxError in a real ipykernel (nbclient): one error output, the same as a plain cell's."""

from __future__ import annotations

import re

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

ANSI = re.compile(r"\x1b\[[0-9;]*m")
KERNELSPEC = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}


def test_guarded_syntax_error_is_shown_once_as_in_a_plain_cell(tmp_path):
    from nbclient import NotebookClient
    from nbformat.v4 import new_code_cell, new_notebook

    body = "values = [1, 2,\nprint(values)"
    nb = new_notebook(
        cells=[
            new_code_cell("%load_ext trainguard"),
            new_code_cell(body),
            new_code_cell("%%guarded_train --quiet\n" + body),
            new_code_cell("%%guarded_train --quiet\nvalues = [1, 2]"),
        ],
        metadata=KERNELSPEC,
    )
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    plain, guarded, fixed = nb.cells[1], nb.cells[2], nb.cells[3]
    assert [o.output_type for o in guarded.outputs] == ["error"], guarded.outputs  # once, nothing else
    (p,), (g,) = plain.outputs, guarded.outputs
    assert g.ename == p.ename == "SyntaxError"
    assert g.evalue.split(" (")[0] == p.evalue.split(" (")[0] == "incomplete input"  # " (<cell file>, line 2)"

    def text(out, count):
        return ANSI.sub("", "\n".join(out.traceback)).replace(f"In[{count}]", "In[N]")

    shown = text(g, guarded.execution_count)
    assert shown == text(p, plain.execution_count), shown
    assert "interactiveshell" not in shown and "guarded.py" not in shown and "Traceback" not in shown
    assert f"In[{guarded.execution_count}]" in ANSI.sub("", "\n".join(g.traceback))  # the cell's own number
    assert not any(o.output_type == "error" for o in fixed.outputs)
