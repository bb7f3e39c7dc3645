"""Writing back: other layouts of .ipynb stay byte-identical outside the edited sources; jupytext .py files;
atomic writes that refuse to overwrite a file changed meanwhile."""

from __future__ import annotations

import json

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_trainguard.fix import fix_paths
from jupyter_trainguard.fix.ipynb_splice import splice
from jupyter_trainguard.fix.runner import atomic_write
from jupyter_trainguard.notebook.load import load_notebook

from .conftest import own_targets

CODE = "from sklearn.model_selection import train_test_split\nSEED = 5\nparts = train_test_split([1, 2, 3, 4])\n"


def _layout(indent, sort_keys: bool, newline: str, source_as_string: bool) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("Caf\u00e9 \u2615"), nbformat.v4.new_code_cell(CODE, execution_count=1)]
    nb.cells[1].outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "x"}, execution_count=1)]
    data = json.loads(nbformat.writes(nb))
    if not source_as_string:
        data["cells"][1]["source"] = CODE.splitlines(keepends=True)
    else:
        data["cells"][1]["source"] = CODE
    text = json.dumps(data, indent=indent, sort_keys=sort_keys, ensure_ascii=False)
    return text.replace("\n", newline)


@pytest.mark.parametrize("indent,sort_keys,newline,as_string", [
    (2, False, "\n", False), (4, True, "\r\n", False), (None, False, "\n", True), ("\t", True, "\n", True)])
def test_other_json_layouts_are_kept_byte_for_byte(tmp_path, indent, sort_keys, newline, as_string):
    text = _layout(indent, sort_keys, newline, as_string)
    path = tmp_path / "layout.ipynb"
    path.write_bytes(text.encode("utf-8"))
    fix_paths([path], engine_rules=[], selection=["SEED004"])
    new = path.read_bytes().decode("utf-8")
    fixed = CODE.replace("4])", "4], random_state=SEED)")
    data = json.loads(new)
    src = data["cells"][1]["source"]
    assert ("".join(src) if isinstance(src, list) else src) == fixed
    assert text.count("3, 4])") == 1
    assert new == text.replace("3, 4])", "3, 4], random_state=SEED)")  # the only bytes that changed
    nbformat.validate(nbformat.reads(new, as_version=4))


def test_splice_only_touches_the_source_value():
    text = '{"cells": [{"source": ["a\\n", "b"], "metadata": {"x": [1, 2]}, "cell_type": "code", ' \
           '"outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}'
    out = splice(text, {0: "a\nb\nc"}, [])
    assert out == text.replace('["a\\n", "b"]', '["a\\n", "b\\n", "c"]')
    out = splice(text, {}, [(0, "new")])
    assert out.startswith(text[: text.index("}], ") + 1] + ", {")
    cells = json.loads(out)["cells"]
    assert cells[0] == json.loads(text)["cells"][0] and cells[1]["source"] == ["new"] and "id" not in cells[1]


def test_jupytext_percent_script(tmp_path):
    text = ("# ---\n# jupyter:\n#   jupytext:\n#     formats: ipynb,py:percent\n# ---\n\n"
            "# %% [markdown]\n# Notes\n\n"
            "# %%\nimport numpy as np\nfrom sklearn.model_selection import train_test_split\n\n"
            "# %%\n# %matplotlib inline\nX = np.random.rand(10, 2)\n"
            "train, test = train_test_split(\n    X,\n    test_size=0.3\n)\n\n"
            "# %%\nprint(len(train))\n")
    path = tmp_path / "exp.py"
    path.write_text(text, encoding="utf-8")
    rep = fix_paths([path], engine_rules=[])
    new = path.read_text(encoding="utf-8")
    assert new == text.replace(
        "from sklearn.model_selection import train_test_split\n\n",
        "from sklearn.model_selection import train_test_split\n\n# %%\n"
        "# Seed every random number generator so reruns give the same results (added by trainguard fix).\n"
        "SEED = 42\nnp.random.seed(SEED)\n\n").replace("    test_size=0.3\n)", "    test_size=0.3,\n"
                                                     "    random_state=SEED\n)")
    assert rep.status == "fixed" and {c.rule_id for c in rep.changes} == {"SEED002", "SEED004"}
    nb = load_notebook(path)
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "code", "code", "code"]
    assert own_targets(path, "SEED00") == []
    assert fix_paths([path], engine_rules=[]).status == "no_work"


def test_plain_script_gets_seed_lines_after_the_imports(tmp_path):
    path = tmp_path / "train.py"
    path.write_text("import random\n\nvalue = random.random()\n", encoding="utf-8")
    fix_paths([path], engine_rules=[])
    expected = "import random\nSEED = 42\nrandom.seed(SEED)\n\nvalue = random.random()\n"
    assert path.read_text(encoding="utf-8") == expected


def test_atomic_write_refuses_a_file_changed_meanwhile(tmp_path):
    path = tmp_path / "n.ipynb"
    path.write_bytes(b"one")
    path.chmod(0o640)
    with pytest.raises(RuntimeError):
        atomic_write(str(path), b"two", expected=b"zero")
    assert path.read_bytes() == b"one"
    atomic_write(str(path), b"two", expected=b"one")
    assert path.read_bytes() == b"two" and (path.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["n.ipynb"]


@pytest.mark.parametrize("indent,sort_keys", [(2, False), (None, True)])
def test_inserted_cell_is_a_pure_insertion_in_any_layout(tmp_path, indent, sort_keys):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import numpy as np"), nbformat.v4.new_code_cell("x = np.random.rand(3)")]
    text = json.dumps(json.loads(nbformat.writes(nb)), indent=indent, sort_keys=sort_keys)
    path = tmp_path / "ins.ipynb"
    path.write_text(text, encoding="utf-8")
    fix_paths([path], engine_rules=[])
    new = path.read_text(encoding="utf-8")
    p = next(i for i, (a, b) in enumerate(zip(text, new)) if a != b)
    s = next(i for i, (a, b) in enumerate(zip(reversed(text), reversed(new))) if a != b)
    assert p + s >= len(text)  # nothing of the old text was replaced, only text added
    cells = json.loads(new)["cells"]
    assert len(cells) == 3 and cells[1]["source"][-1] == "np.random.seed(SEED)"
    assert [c["id"] for c in cells[::2]] == [c["id"] for c in json.loads(text)["cells"]]
    nbformat.validate(nbformat.reads(new, as_version=4))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=4), st.data())
def test_splice_equals_rewriting_the_changed_sources(sources, data):
    """For nbformat-written notebooks, splicing new sources gives exactly nbformat's own serialisation."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    text = nbformat.writes(nb) + "\n"
    changed = {i: data.draw(st.text(max_size=40)) for i in range(len(sources)) if data.draw(st.booleans())}
    out = splice(text, changed, [])
    expected = json.loads(text)
    for i, s in changed.items():
        expected["cells"][i]["source"] = s.splitlines(keepends=True) if s else []
    assert json.loads(out) == expected
    assert out == json.dumps(expected, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
