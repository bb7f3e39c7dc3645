"""Notebook readers: every format, IPython syntax, broken input, line mapping."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbformat.v3 import new_code_cell as v3_code_cell
from nbformat.v3 import new_notebook as v3_notebook
from nbformat.v3 import new_worksheet

from jupyter_trainguard.engine import analyze_path
from jupyter_trainguard.notebook import load_notebook
from jupyter_trainguard.notebook.ipython_syntax import to_python

from .conftest import ids, write_notebook


def test_ipynb_v4_cells_counts_and_ids(tmp_path):
    p = write_notebook(tmp_path / "a.ipynb", ["#md # Title", "x = 1", "y = x + 1"], counts=[None, 1, 2])
    nb = load_notebook(p)
    assert nb.error is None and nb.format == "ipynb" and nb.nbformat[0] == 4
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "code"]
    assert [c.execution_count for c in nb.code_cells] == [1, 2]
    assert all(c.cell_id for c in nb.cells)


def test_v3_notebook_is_upgraded(tmp_path):
    nb3 = v3_notebook(worksheets=[new_worksheet(cells=[v3_code_cell(input="import numpy as np\nz = np.zeros(3)",
                                                                    prompt_number=1)])])
    p = tmp_path / "old.ipynb"
    p.write_text(nbformat.writes(nb3, version=3))
    nb = load_notebook(p)
    assert nb.error is None
    assert any("upgraded from nbformat 3" in w for w in nb.warnings)
    assert nb.code_cells[0].source.startswith("import numpy")
    assert nb.code_cells[0].execution_count == 1


def test_empty_notebook_has_no_findings(tmp_path):
    p = write_notebook(tmp_path / "empty.ipynb", [])
    rep = analyze_path(p)
    assert rep.error is None and rep.findings == [] and rep.cells == 0


def test_line_magics_shell_escapes_and_help_keep_line_numbers():
    src = "%matplotlib inline\n!pip install foo\nfiles = !ls\nlen?\nx = 1\ny = x +"
    code, line_map, magic = to_python(src)
    assert magic is None
    lines = code.split("\n")
    assert len(lines) == 6 and line_map == [1, 2, 3, 4, 5, 6]
    assert "run_line_magic" in lines[0] and "system" in lines[1]
    assert lines[4] == "x = 1"


def test_python_cell_magic_body_is_analysed_with_offset():
    code, line_map, magic = to_python("%%time\nimport random\nrandom.shuffle(a)")
    assert magic == "time" and code.startswith("import random")
    assert line_map == [2, 3]


def test_non_python_cell_magic_is_skipped():
    code, _, magic = to_python("%%bash\nfor i in 1 2; do echo $i; done")
    assert code is None and magic == "bash"


def test_syntax_error_cell_is_a_finding_and_rest_is_analysed(tmp_path):
    p = write_notebook(tmp_path / "s.ipynb", ["print 'py2'", "LEARNING_RATE = 0", "%%bash\necho hi"])
    rep = analyze_path(p)
    syntax = [f for f in rep.findings if f.rule_id == "NB001"]
    assert len(syntax) == 1 and syntax[0].location.cell == 0 and syntax[0].location.line == 1
    assert any(f.rule_id == "CFG002" and f.location.cell == 1 for f in rep.findings)


def test_syntax_error_line_maps_through_cell_magic(tmp_path):
    p = write_notebook(tmp_path / "s.ipynb", ["%%time\nx = 1\ny = (\n"])
    (f,) = [f for f in analyze_path(p).findings if f.rule_id == "NB001"]
    assert f.location.line >= 3


def test_non_utf8_bytes_are_reported_not_fatal(tmp_path):
    p = write_notebook(tmp_path / "latin.ipynb", ["name = 'caf\u00e9'", "LEARNING_RATE = -1"])
    raw = p.read_bytes().replace("caf\u00e9".encode(), b"caf\xe9")
    p.write_bytes(raw)
    rep = analyze_path(p)
    assert rep.error is None
    assert "CFG002" in ids(rep)
    assert any(f.rule_id == "NB002" and "UTF-8" in f.message and f.severity.value == "warning"
               for f in rep.findings)


def test_corrupt_json_is_a_finding(tmp_path):
    p = tmp_path / "broken.ipynb"
    p.write_text('{"cells": [ {"cell_type": "code", "source": "x = 1"')
    rep = analyze_path(p)
    assert rep.error and "not valid JSON" in rep.error
    assert ids(rep) == ["NB002"]


def test_json_without_cells_and_binary_junk(tmp_path):
    p = tmp_path / "list.ipynb"
    p.write_text("[1, 2, 3]")
    assert "not a notebook" in load_notebook(p).error
    q = tmp_path / "junk.ipynb"
    q.write_bytes(bytes(range(256)) * 10)
    assert load_notebook(q).error
    r = tmp_path / "cells_not_list.ipynb"
    r.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "cells": "x", "metadata": {}}))
    assert "cells" in load_notebook(r).error


def test_odd_cells_are_tolerated(tmp_path):
    p = tmp_path / "odd.ipynb"
    p.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 2, "metadata": {}, "cells": [
        "not a dict", {"cell_type": "code"}, {"cell_type": "code", "source": ["a = 1\r\n", "b = a"],
                                               "execution_count": True}]}))
    nb = load_notebook(p)
    assert nb.error is None and len(nb.cells) == 3
    assert nb.cells[2].source == "a = 1\nb = a" and nb.cells[2].execution_count is None
    assert analyze_path(p).error is None


def test_huge_file_is_skipped_with_a_clear_error(tmp_path):
    p = write_notebook(tmp_path / "big.ipynb", ["x = 1"])
    nb = load_notebook(p, max_bytes=10)
    assert "over the" in nb.error


def test_missing_file_is_an_error_not_an_exception(tmp_path):
    assert "cannot read" in load_notebook(tmp_path / "nope.ipynb").error


def test_jupytext_percent_format_maps_file_lines(tmp_path):
    p = tmp_path / "exp.py"
    p.write_text("# ---\n# jupyter:\n#   jupytext:\n#     formats: py:percent\n# ---\n\n"
                 "# %% [markdown]\n# # Title\n\n# %%\nimport numpy as np\n\n# %%\nLEARNING_RATE = 0\n")
    nb = load_notebook(p)
    assert nb.format == "py:percent"
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "code"]
    assert nb.cells[0].source == "# Title"
    (f,) = [f for f in analyze_path(p).findings if f.rule_id == "CFG002"]
    assert f.location.cell == 2 and f.location.line == 1 and f.location.file_line == 14


def test_jupytext_light_format(tmp_path):
    p = tmp_path / "light.py"
    p.write_text("# ---\n# jupyter:\n#   jupytext:\n#     text_representation:\n#       format_name: light\n"
                 "# ---\n\n# A markdown paragraph\n\nimport os\n\n\ndef f(x):\n    y = x\n\n    return y\n\n"
                 "# +\nBATCH_SIZE = 0\nz = 2\n# -\n")
    nb = load_notebook(p)
    assert nb.format == "py:light"
    kinds = [c.cell_type for c in nb.cells]
    assert kinds[0] == "markdown" and kinds.count("code") == 3
    func = next(c for c in nb.cells if c.source.startswith("def f"))
    assert "return y" in func.source
    (f,) = [f for f in analyze_path(p).findings if f.rule_id == "CFG002"]
    assert f.location.file_line == 19


def test_plain_python_file_is_one_cell(tmp_path):
    p = tmp_path / "train.py"
    p.write_text("import torch\n\nEPOCHS = 0\n")
    nb = load_notebook(p)
    assert nb.format == "py" and len(nb.cells) == 1
    (f,) = [f for f in analyze_path(p).findings if f.rule_id == "CFG002"]
    assert f.location.file_line == 3


def test_execution_order_uses_counts_and_flags_out_of_order(tmp_path):
    p = write_notebook(tmp_path / "o.ipynb", ["a = 1", "b = a", "c = b"], counts=[1, 3, 2])
    nb = load_notebook(p)
    assert [c.index for c in nb.execution_order()] == [0, 2, 1]
    rep = analyze_path(p)
    (f,) = [f for f in rep.findings if f.rule_id == "NB003"]
    assert f.location.cell == 2
    q = write_notebook(tmp_path / "ok.ipynb", ["a = 1", "b = a"], counts=[1, 2])
    assert "NB003" not in ids(analyze_path(q))


def test_partial_counts_fall_back_to_document_order(tmp_path):
    p = write_notebook(tmp_path / "p.ipynb", ["a = 1", "b = a", "c = b"], counts=[2, None, 1])
    assert [c.index for c in load_notebook(p).execution_order()] == [0, 1, 2]


def test_a_cell_magic_as_script_exports_write_it_is_read_as_its_body():
    from jupyter_trainguard.notebook.ipython_syntax import to_python

    exported = ("get_ipython().run_cell_magic('time', '', \"m = Ridge().fit(X, y)\\nprint(m.score(X_te, y_te))\\n\")")
    code, line_map, magic = to_python(exported)
    assert magic == "time" and code.splitlines() == ["m = Ridge().fit(X, y)", "print(m.score(X_te, y_te))"]
    assert set(line_map) == {1}  # the body's lines are all on the call's line
    assert to_python("get_ipython().run_cell_magic('bash', '', 'ls -l\\n')")[0] is None  # not Python
    # a call inside other code is an ordinary statement, kept as written
    mixed = "x = 1\nget_ipython().run_cell_magic('time', '', 'y = 2\\n')"
    assert to_python(mixed)[0] == mixed


@pytest.mark.parametrize("magic", ["wandb", "cache model.pkl m", "notify"])
def test_cell_magics_that_run_their_body_are_read_as_python(magic):
    """W&B's `%%wandb` (shows the run beside the output), ipycache's `%%cache` and jupyternotify's `%%notify` run
    the body in the user namespace: a leak inside it is a leak."""
    from jupyter_trainguard.engine import analyze_sources

    head = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split, cross_val_score\n"
            "from sklearn.svm import SVR\ndf = pd.read_csv('d.csv')\ndf = df.fillna(df.mean())\n"
            "X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns='t'), df['t'], random_state=0)")
    body = "m = SVR()\nprint(cross_val_score(m, X_tr, y_tr, cv=5))"
    for cell in (f"%%{magic}\n{body}", f"get_ipython().run_cell_magic({magic.split()[0]!r}, '', {body!r})"):
        report = analyze_sources([head, cell])
        leaks = [f for f in report.findings if f.rule_id == "LEAK001"]
        assert [f.evidence["evaluation"]["code"] for f in leaks] == ["cross_val_score(m, X_tr, y_tr, cv=5)"], cell


def test_a_script_exported_timed_cell_is_analysed():
    from jupyter_trainguard.engine import analyze_sources

    head = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
            "from sklearn.linear_model import LinearRegression\ndf = pd.read_csv('d.csv')\n"
            "X, y = df.drop(columns='t'), df['t']\nreg = LinearRegression().fit(X, y)")
    timed = ("get_ipython().run_cell_magic('time', '', \"X_tr, X_te, y_tr, y_te = train_test_split(X, y)\\n"
             "print(reg.score(X_te, y_te))\\n\")")
    report = analyze_sources([head, timed])
    assert "LEAK003" in {f.rule_id for f in report.findings}
