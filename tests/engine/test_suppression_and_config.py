"""Inline suppression, --select/--ignore, severity overrides and [tool.trainguard] discovery."""

from __future__ import annotations

import pytest

from jupyter_trainguard.config import ConfigError, find_pyproject, load_config
from jupyter_trainguard.engine import Selection, analyze_notebook, analyze_path
from jupyter_trainguard.notebook import load_notebook

from .conftest import ids, write_notebook


def test_line_suppression_silences_only_that_rule_on_that_line(tmp_path):
    p = write_notebook(tmp_path / "s.ipynb", ["LR = 0  # trainguard: ignore[CFG002]\nEPOCHS = 0"])
    rep = analyze_path(p)
    assert [f.message for f in rep.findings if f.rule_id == "CFG002"] == ["EPOCHS = 0 must be an integer >= 1."]
    (s,) = rep.suppressed
    assert s.finding.rule_id == "CFG002" and "line 1" in s.reason


def test_cell_top_suppression_and_prefix(tmp_path):
    p = write_notebook(tmp_path / "s.ipynb", ["# trainguard: ignore[CFG]\nLR = 0\nEPOCHS = 0", "BATCH_SIZE = 0"])
    rep = analyze_path(p)
    assert [f.location.cell for f in rep.findings] == [1]
    assert len(rep.suppressed) == 2 and all("cell" in s.reason for s in rep.suppressed)


def test_suppression_of_other_rule_does_not_apply(tmp_path):
    p = write_notebook(tmp_path / "s.ipynb", ["LR = 0  # trainguard: ignore[LEAK001]"])
    assert ids(analyze_path(p)) == ["CFG002"]


def test_bare_ignore_silences_everything_on_the_line(tmp_path):
    p = write_notebook(tmp_path / "s.ipynb", ["x = 1\nLR = 0  # trainguard: ignore"])
    rep = analyze_path(p)
    assert rep.findings == [] and len(rep.suppressed) == 1


def test_select_and_ignore_are_disclosed(tmp_path):
    p = write_notebook(tmp_path / "s.ipynb", ["LR = 0", "print 'x'"])
    nb = load_notebook(p)
    rep, _, _ = analyze_notebook(nb, selection=Selection(select=("CFG",)))
    assert ids(rep) == ["CFG002"]
    assert rep.skipped_rules["NB001"].startswith("not selected")
    rep2, _, _ = analyze_notebook(nb, selection=Selection(ignore=("config",)))
    assert "CFG002" not in ids(rep2) and "NB001" in ids(rep2)
    assert "ignored by --ignore config" in rep2.skipped_rules["CFG002"]


def test_config_discovered_upwards_and_applied(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.trainguard]\nstandard = ["nb/**/std_*"]\nignore = ["NB003"]\n\n'
        '[tool.trainguard.severity]\nCFG002 = "info"\n')
    p = write_notebook(tmp_path / "nb" / "deep" / "std_1.ipynb", ["LR = 0", "b = 1"], counts=[2, 1])
    assert find_pyproject(p) == tmp_path / "pyproject.toml"
    rep = analyze_path(p)
    assert rep.notebook_kind == "standard"
    assert [(f.rule_id, f.severity.value) for f in rep.findings] == [("CFG002", "info")]
    assert "NB003" in rep.skipped_rules


def test_pyproject_without_table_is_skipped(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.trainguard]\nexperimental = ["*"]\n')
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_pyproject(inner / "a.ipynb") == tmp_path / "pyproject.toml"
    assert load_config(inner / "a.ipynb").notebook_kind(inner / "a.ipynb") == "experimental"


@pytest.mark.parametrize("table, message", [
    ('[tool.trainguard]\nstandard = 3\n', "standard must be a string or a list"),
    ('[tool.trainguard.constants.X]\ntype = "complex"\n', "type must be one of"),
    ('[tool.trainguard.constants.X]\nchoise = [1]\n', "unknown keys: choise"),
    ('[tool.trainguard]\nfail_on = "sometimes"\n', "fail_on must be"),
    ('[tool.trainguard\n', "not valid TOML"),
])
def test_malformed_config_is_a_clear_error(tmp_path, table, message):
    (tmp_path / "pyproject.toml").write_text(table)
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path / "x.ipynb", explicit=tmp_path / "pyproject.toml")


def test_no_config_gives_defaults(tmp_path):
    cfg = load_config(tmp_path / "a.ipynb")
    assert cfg.source is None and cfg.notebook_kind(tmp_path / "a.ipynb") == "other"
