"""Issue 15, ecosystem: text notebooks are read through jupytext when it is installed (percent, light, MyST,
Markdown, paired notebooks) with every cell line mapped back to its file line; without jupytext (really absent from
the process) `.py` notebooks fall back to the own parser; scanning `.ipynb` files never imports jupytext."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from jupyter_trainguard.engine import analyze_path, scan
from jupyter_trainguard.notebook.load import load_notebook

from .nbmake import write_nb

pytest.importorskip("jupytext")

PERCENT = """# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Training notes
# A short note.

# %%
import numpy as np
# %matplotlib inline

# %% tags=["params"]
SEED = 1
LEARNING_RATE = 0


# %%
def scale(x):

    return x * 2
"""
LIGHT = """# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: light
# ---

# A markdown paragraph

import os

# +
BATCH = 8

LEARNING_RATE = 0
# -
"""
MYST = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Experiment

Some prose.

```{code-cell} ipython3
import numpy as np
```

```{code-cell} ipython3
:tags: [params]

EPOCHS = 3
LEARNING_RATE = 0
```
"""
MARKDOWN = """---
jupyter:
  jupytext:
    text_representation:
      extension: .md
      format_name: markdown
  kernelspec:
    display_name: Python 3
    language: python
    name: python3
---

# Experiment

```python
import numpy as np
```

Text between cells.

```python
EPOCHS = 3
LEARNING_RATE = 0
```
"""


def _check_exact_lines(nb, text: str) -> None:
    """Every line of every code cell sits at its mapped file line (magics commented out as jupytext writes)."""
    lines = text.split("\n")
    for cell in nb.code_cells:
        for i, src in enumerate(cell.source.split("\n"), start=1):
            at = lines[cell.file_line_of(i) - 1].strip()
            assert at == src.strip() or at.lstrip("#").strip() == src.strip(), (cell.index, i, at, src)


def _cfg002_file_line(path: Path) -> int:
    (f,) = [f for f in analyze_path(path).findings if f.rule_id == "CFG002"]
    return f.location.file_line


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [
        ("p.py", PERCENT, "py:percent"),
        ("l.py", LIGHT, "py:light"),
        ("m.md", MYST, "md:myst"),
        ("k.md", MARKDOWN, "md:markdown"),
    ],
)
def test_formats_read_through_jupytext_map_lines_exactly(tmp_path, name, text, fmt):
    path = tmp_path / name
    path.write_text(text)
    nb = load_notebook(path)
    assert nb.error is None and nb.format == fmt
    _check_exact_lines(nb, text)
    line = text.split("\n").index("LEARNING_RATE = 0") + 1
    assert _cfg002_file_line(path) == line


def test_magics_are_the_notebooks_not_comments(tmp_path):
    path = tmp_path / "p.py"
    path.write_text(PERCENT)
    nb = load_notebook(path)
    assert "%matplotlib inline" in nb.code_cells[0].source.split("\n")  # as jupytext (and the paired .ipynb) has it
    assert [c.tags for c in nb.code_cells][1] == ("params",)


def test_percent_file_and_its_ipynb_twin_give_the_same_findings(tmp_path):
    import jupytext

    py = tmp_path / "twin.py"
    py.write_text(PERCENT)
    jupytext.write(jupytext.read(py), tmp_path / "twin.ipynb")
    a = {(f.rule_id, f.location.cell, f.location.line) for f in analyze_path(py).findings}
    b = {(f.rule_id, f.location.cell, f.location.line) for f in analyze_path(tmp_path / "twin.ipynb").findings}
    assert a == b and ("CFG002", 2, 2) in a


def _paired(tmp_path: Path) -> tuple[Path, Path]:
    cells = ["import numpy as np", "LEARNING_RATE = 0.1", "x = np.zeros(3)"]
    ipynb = write_nb(tmp_path / "pair.ipynb", cells)
    nb = nbformat.read(str(ipynb), as_version=4)
    for cell, count in zip(nb.cells, (1, 3, 2)):  # ran out of order
        cell.execution_count = count
    nb.metadata["jupytext"] = {"formats": "ipynb,py:percent"}
    nbformat.write(nb, str(ipynb))
    import jupytext

    py = tmp_path / "pair.py"
    jupytext.write(nb, py, fmt="py:percent")
    return ipynb, py


def test_paired_text_notebook_takes_counts_from_its_ipynb_and_is_scanned_once(tmp_path):
    ipynb, py = _paired(tmp_path)
    nb = load_notebook(py)
    assert [c.execution_count for c in nb.code_cells] == [1, 3, 2]
    assert "NB003" in {f.rule_id for f in analyze_path(py).findings}  # out of order, known from the pair
    result = scan([tmp_path])
    assert [Path(r.path).name for r in result.reports] == ["pair.ipynb"]  # the twin is not reported twice


FALLBACK = """
import json, sys
sys.modules["jupytext"] = None  # jupytext absent: any import of it fails
from jupyter_trainguard.notebook.load import iter_notebook_paths, load_notebook
from jupyter_trainguard.engine import analyze_path
out = {}
nb = load_notebook(sys.argv[1])
out["format"] = nb.format
out["cfg002"] = [f.location.file_line for f in analyze_path(sys.argv[1]).findings if f.rule_id == "CFG002"]
out["md_error"] = load_notebook(sys.argv[2]).error
out["walk"] = sorted(p.name for p in iter_notebook_paths([sys.argv[3]])[0])
print(json.dumps(out))
"""


def test_without_jupytext_the_own_parser_reads_py_notebooks(tmp_path):
    py, md = tmp_path / "p.py", tmp_path / "m.md"
    py.write_text(PERCENT)
    md.write_text(MYST)
    res = subprocess.run(
        [sys.executable, "-c", FALLBACK, str(py), str(md), str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    out = json.loads(res.stdout)
    assert out["format"] == "py:percent"
    assert out["cfg002"] == [PERCENT.split("\n").index("LEARNING_RATE = 0") + 1]
    assert "needs jupytext" in out["md_error"]
    assert out["walk"] == ["p.py"]  # Markdown notebooks are not picked up without jupytext


LAZY = """
import sys
from jupyter_trainguard.engine import scan
scan([sys.argv[1]])
before = "jupytext" in sys.modules
scan([sys.argv[2]])
print(before, "jupytext" in sys.modules)
"""


def test_jupytext_is_imported_only_when_a_text_notebook_is_read(tmp_path):
    (tmp_path / "only_ipynb").mkdir()
    write_nb(tmp_path / "only_ipynb" / "a.ipynb", ["LEARNING_RATE = 0"])
    (tmp_path / "only_ipynb" / "README.md").write_text("# docs, not a notebook\n")
    (tmp_path / "text").mkdir()
    (tmp_path / "text" / "p.py").write_text(PERCENT)
    res = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(LAZY), str(tmp_path / "only_ipynb"), str(tmp_path / "text")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.stdout.split() == ["False", "True"], res.stderr


FIXABLE = """# %%
import numpy as np
# %matplotlib inline
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

# %%
X = np.arange(40).reshape(20, 2)
y = np.arange(20) % 2
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25)
# !echo split done
clf = LogisticRegression().fit(X_tr, y_tr)
"""


def test_fix_writes_back_into_a_jupytext_file_keeping_magics_commented(tmp_path):
    from jupyter_trainguard.fix import fix_paths

    path = tmp_path / "fixme.py"
    path.write_text(FIXABLE)
    rep = fix_paths([path], selection=["SEED004"])
    assert not rep.errors, rep.errors
    text = path.read_text()
    assert "train_test_split(X, y, test_size=0.25, random_state=" in text
    assert "\n# %matplotlib inline\n" in text and "\n# !echo split done\n" in text
    assert "SEED004" not in {f.rule_id for f in analyze_path(path).findings}
