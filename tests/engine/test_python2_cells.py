"""Cells written for Python 2: read line for line as their Python 3 equivalent, so the leak rules still see the
code, while NB001 still says the cell cannot run on a Python 3 kernel. Other syntax errors are not Python 2
(test_salvaged_cells)."""

from __future__ import annotations

import ast

import pytest

from jupyter_trainguard.analysis.python2 import as_python3, parse_python2
from jupyter_trainguard.engine import analyze_path

from .conftest import write_notebook


@pytest.mark.parametrize("old, new", [
    ("print 'acc', acc", "print('acc', acc)"),
    ("print", "print()"),
    ("print x,", "print(x, end=' ')"),
    ("print >>sys.stderr, 'err', x", "print('err', x, file=sys.stderr)"),
    ("if ok: print x", "if ok: print(x)"),
    ("for i in r:\n    print i; print i * 2", "for i in r:\n    print(i); print(i * 2)"),
    ("print 'a %s' % (x,\n    y)  # two lines", "print('a %s' % (x,\n    y))  # two lines"),
    ("exec code", "exec(code)"),
    ("try:\n    f()\nexcept (IOError, OSError), e:\n    pass",
     "try:\n    f()\nexcept (IOError, OSError) as e:\n    pass"),
    ("raise ValueError, 'bad'", "raise ValueError('bad')"),
    ("s = `n`", "s = repr(n)"),
    ("if a <> b:\n    pass", "if a != b:\n    pass"),
])
def test_python2_statements_become_python3_on_the_same_lines(old: str, new: str) -> None:
    assert as_python3(old) == new
    assert parse_python2(old) is not None and old.count("\n") == new.count("\n")


@pytest.mark.parametrize("code", ["print(x)", "print (x, y)", "print = 3", "d = {'print': 1}", "exec(code)"])
def test_python3_code_is_left_alone(code: str) -> None:
    assert as_python3(code) is None


def test_other_syntax_errors_are_not_read_as_python2() -> None:
    assert parse_python2("def f(:\n    pass") is None
    assert parse_python2("print 'x'\nx = = 1") is None


def test_a_python2_notebook_is_analysed_and_still_reported(tmp_path) -> None:
    p = write_notebook(tmp_path / "old.ipynb", [
        "import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.svm import SVC",
        "df = pd.read_csv('d.csv')\nX = StandardScaler().fit_transform(df.drop('y', axis=1))\nprint 'scaled', X.shape",
        "X_train, X_test, y_train, y_test = train_test_split(X, df.y, random_state=0)\n"
        "print 'accuracy: %.3f' % SVC().fit(X_train, y_train).score(X_test, y_test)",
    ])
    found = analyze_path(p).findings
    (leak,) = [f for f in found if f.rule_id == "LEAK001"]
    assert leak.location.cell == 1 and leak.location.line == 2  # the fit, where it stands in the user's cell
    syntax = [f for f in found if f.rule_id == "NB001"]
    assert [(f.location.cell, f.location.line) for f in syntax] == [(1, 3), (2, 2)]
    assert all("Python 2" in f.message and f.evidence["python2"] for f in syntax)


def test_python2_trees_match_their_python3_equivalent() -> None:
    old = "for m in models:\n    print m, m.score(X, y)"
    assert ast.dump(parse_python2(old)) == ast.dump(ast.parse("for m in models:\n    print(m, m.score(X, y))"))
