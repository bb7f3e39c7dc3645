"""`trainguard fix` names cells as every other output does: "cell N" (1-based over all cells, markdown included)
with "[In k]" when the cell has an execution count, in the text report, the diff headers and JSON `where`."""

from __future__ import annotations

import json
import re

import nbformat

from jupyter_trainguard.cli import main
from jupyter_trainguard.findings import cell_label

from .conftest import write_nb
from .test_safe_fixes import sklearn_nb
from .test_unsafe_fixes import LEAKY


def _without_counts(path):
    nb = nbformat.read(str(path), as_version=4)
    for c in nb.cells:
        if c.cell_type == "code":
            c.execution_count = None
            for o in c.outputs:
                o.pop("execution_count", None)
    nbformat.write(nb, str(path))
    return path


def _run(capsys, *args) -> tuple[str, dict]:
    main(["fix", "--diff", *args])
    text = capsys.readouterr().out
    main(["fix", "--diff", "--format", "json", *args])
    return text, json.loads(capsys.readouterr().out)


def test_fix_names_cells_with_their_execution_count(nbdir, capsys):
    path = sklearn_nb(nbdir / "counted.ipynb", seed_cell=False, noise=True)  # md, then code cells [In 1]..[In 4]
    text, data = _run(capsys, str(path))
    assert cell_label(3, 3) == "cell 4 [In 3]"
    assert "added random_state (cell 4 [In 3], cell 5 [In 4])" in text
    assert f"- {path} (cell 4 [In 3], line 6) [SEED004 via random-state, safe]" in text
    assert f"+++ {path} (new cell after cell 2 [In 1])" in text
    assert f"--- {path} (cell 5 [In 4])\n+++ {path} (cell 5 [In 4])" in text
    wheres = [c["where"] for c in data["changes"]]
    assert wheres == ["new cell after cell 2 [In 1]"] + ["cell 4 [In 3]"] * 2 + ["cell 5 [In 4]"] * 2
    assert f"--- {path} (cell 4 [In 3])\n+++ {path} (cell 4 [In 3])" in data["files"][0]["diff"]
    assert not re.search(r"\(cell \d+(, line \d+)?\)", text)  # no cell named without its count


def test_fix_names_cells_plainly_without_execution_counts(nbdir, capsys):
    path = _without_counts(sklearn_nb(nbdir / "fresh.ipynb", seed_cell=False, noise=True))
    text, data = _run(capsys, str(path))
    assert "added random_state (cell 4, cell 5)" in text
    assert f"- {path} (cell 4, line 6) [SEED004 via random-state, safe]" in text
    assert f"+++ {path} (new cell after cell 2)" in text
    assert "[In" not in text and "[In" not in json.dumps(data)
    assert [c["where"] for c in data["changes"]] == ["new cell after cell 2"] + ["cell 4"] * 2 + ["cell 5"] * 2


def test_unsafe_changes_and_left_items_carry_the_execution_count(nbdir, capsys):
    path = write_nb(nbdir / "leaky.ipynb", LEAKY)
    text, data = _run(capsys, "--unsafe", str(path))
    assert "preprocessing moved after the split (cell 5 [In 4])" in text
    assert f"- {path} (cell 4 [In 3], line 2) [LEAK001" in text
    assert "(see cell 5 [In 4])" in text
    assert {(c["rule_id"], c["where"]) for c in data["changes"]} == {
        ("LEAK001", "cell 4 [In 3]"), ("LEAK001", "cell 5 [In 4]"), ("LEAK001", "cell 7 [In 6]"),
        ("TRACK002", "cell 6 [In 5]")}
    # without --unsafe the fixer leaves them; the re-analysis must name the same cells the same way, so each
    # finding is listed once (a different label would list it twice)
    text, data = _run(capsys, str(path))
    left = [(x["rule_id"], x["where"]) for x in data["left"]]
    assert sorted(left) == [("LEAK001", "cell 5 [In 4]"), ("LEAK001", "cell 7 [In 6]"), ("TRACK002", "cell 6 [In 5]")]
    assert f"- {path} (cell 5 [In 4], line 1) [LEAK001]: an unsafe fix is available" in text
    assert not re.search(r"\(cell \d+(, line \d+)?\)", text)


def test_unparsable_cell_reason_found_by_cell_not_by_label_text(nbdir, capsys):
    """The engine reads a cell the fixer cannot parse; the item left names the cell and the reason once."""
    path = write_nb(nbdir / "indented.ipynb", [
        ("md", "# Model"),
        "import numpy as np\nfrom sklearn.ensemble import RandomForestClassifier\nSEED = 1",
        " clf = RandomForestClassifier()\n clf.fit([[1]], [1])",
    ])
    text, data = _run(capsys, "--select", "SEED004", str(path))
    left = [x for x in data["left"] if x["rule_id"] == "SEED004"]
    assert len(left) == 1 and left[0]["where"] == "cell 3 [In 2]"
    assert left[0]["reason"].startswith("cell 3 [In 2] cannot be parsed as Python")
    assert left[0]["reason"].endswith("so it was not fixed automatically")
    assert f"- {path} (cell 3 [In 2], line 1) [SEED004]: cell 3 [In 2] cannot be parsed" in text

    plain = _without_counts(path)
    _, data = _run(capsys, "--select", "SEED004", str(plain))
    left = [x for x in data["left"] if x["rule_id"] == "SEED004"]
    assert len(left) == 1 and left[0]["where"] == "cell 3"
    assert left[0]["reason"].startswith("cell 3 cannot be parsed as Python")
