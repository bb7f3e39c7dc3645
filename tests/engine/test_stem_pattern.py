"""`[tool.trainguard.constants]` naming patterns that refer to the notebook: `{stem}` is its file name."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_path

from .conftest import write_notebook

TOML = """[tool.trainguard.constants.OUTPUT_DIR]
type = "str"
pattern = "^outputs/{stem}(/|$)"
"""


def _cfg001(path) -> list[str]:
    return [f.message for f in analyze_path(path).findings if f.rule_id == "CFG001"]


def test_output_dir_must_follow_the_notebook_name(tmp_path):
    (tmp_path / "pyproject.toml").write_text(TOML)
    good = write_notebook(tmp_path / "nb" / "churn_v2.ipynb", ['OUTPUT_DIR = "outputs/churn_v2"'])
    nested = write_notebook(tmp_path / "nb" / "churn_v2_b.ipynb", ['OUTPUT_DIR = "outputs/churn_v2_b/run1"'])
    bad = write_notebook(tmp_path / "nb" / "churn_v3.ipynb", ['OUTPUT_DIR = "outputs/churn_v2"'])
    assert _cfg001(good) == [] and _cfg001(nested) == []
    [msg] = _cfg001(bad)
    assert "naming convention" in msg and "churn_v3" in msg


def test_stem_is_escaped_as_a_literal(tmp_path):
    (tmp_path / "pyproject.toml").write_text(TOML)
    dotted = write_notebook(tmp_path / "exp.1.ipynb", ['OUTPUT_DIR = "outputs/expx1"'])
    assert _cfg001(dotted)  # the dot in the notebook name is not a regex wildcard
