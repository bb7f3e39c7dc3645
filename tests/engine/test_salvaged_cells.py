"""A cell that one broken statement stops from parsing: its other statements are analysed on their own lines, and
NB001 still reports the error and names the lines it skipped."""

from __future__ import annotations

import ast

import pytest

from jupyter_trainguard.analysis.parsed import parse_code
from jupyter_trainguard.analysis.salvage import salvage
from jupyter_trainguard.engine import analyze_path

from .conftest import write_notebook


def _salvaged(code: str) -> tuple[str, list[tuple[int, int]]] | None:
    tree, error = parse_code(code)
    assert tree is None and error is not None
    got = salvage(code, error)
    return None if got is None else (ast.unparse(got[0]), got[1])


@pytest.mark.parametrize("code, kept, skipped", [
    ("x = 1\ny = (2,\nz = 3", "x = 1\nz = 3", [(2, 2)]),  # an unclosed bracket: the statements after it stay
    ("a = 1\nif a:\n    b = = 2\nelse:\n    c = 3\nd = 4", "a = 1\nd = 4", [(2, 5)]),  # the whole compound
    ("@dec\ndef f(:\n    pass\ng()", "g()", [(1, 3)]),  # with its decorator
    ("x = 1\ny = 2 3\nz = 4 5\nw = 6", "x = 1\nw = 6", [(2, 2), (3, 3)]),  # two broken statements
])
def test_the_statement_that_does_not_parse_is_skipped(code: str, kept: str, skipped: list[tuple[int, int]]) -> None:
    assert _salvaged(code) == (kept, skipped)


@pytest.mark.parametrize("code", [
    "x = = 1",  # nothing else to read
    "if True:\n  x = 1\n y = 2",  # the broken line is inside the only statement
    "a = 1 1\nb = 2 2\nc = 3 3\nd = 4 4\ne = 5 5\nf = 6",  # more broken statements than are worth skipping
])
def test_nothing_is_salvaged_when_no_statement_is_left_or_the_errors_go_on(code: str) -> None:
    assert _salvaged(code) is None


def test_lines_keep_their_numbers() -> None:
    tree, error = parse_code("x = (1,\n\nmodel.fit(X, y)")
    got = salvage("x = (1,\n\nmodel.fit(X, y)", error)  # type: ignore[arg-type]
    assert got is not None and got[0].body[0].lineno == 3


def test_a_leak_beside_a_broken_statement_is_found_and_the_error_still_reported(tmp_path) -> None:
    p = write_notebook(tmp_path / "broken.ipynb", [
        "import pandas as pd\nfrom sklearn.linear_model import LinearRegression\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.metrics import mean_squared_error",
        "df = pd.read_csv('houses.csv')\nX_train, X_test, y_train, y_test = train_test_split(df[['a', 'b']], df.p)\n"
        "reg = LinearRegression().fit(X_train, y_train)",
        "print('test', mean_squared_error(y_test, reg.predict(X_test)))\n"
        "plt.plot(y_test, reg.predict(X_test)\n"  # the author dropped a bracket after running it
        "print('train', mean_squared_error(y_train, reg.predict(X_train)))",
    ])
    found = analyze_path(p).findings
    (leak,) = [f for f in found if f.rule_id == "LEAK007"]
    assert (leak.location.cell, leak.location.line) == (2, 3)
    (syntax,) = [f for f in found if f.rule_id == "NB001"]
    assert syntax.location.cell == 2 and "without the statement it stops (line 2)" in syntax.message
    assert syntax.evidence["skipped_lines"] == [[2, 2]] and not syntax.evidence["python2"]


def test_a_cell_with_nothing_left_is_only_reported(tmp_path) -> None:
    p = write_notebook(tmp_path / "broken.ipynb", ["x = = 1"])
    (syntax,) = [f for f in analyze_path(p).findings if f.rule_id == "NB001"]
    assert syntax.message == "Syntax error: invalid syntax" and syntax.evidence["skipped_lines"] == []
