"""`from sklearn.model_selection import *`: a bare library function named by a star import is that library's
function (its split parts, its cross-validation), as if it had been imported by name; so is one never imported at
all. A notebook function of the same name stays the notebook's, and one imported from another module is not known."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

CODE = """import pandas as pd
{imports}
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
df = pd.read_csv("d.csv")
{defs}X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
for m in [LogisticRegression(), RandomForestClassifier()]:
    print(m.fit(X_tr, y_tr).score(X_te, y_te))"""


def leaks(imports: str, defs: str = "") -> list[str]:
    found = analyze_sources([CODE.format(imports=imports, defs=defs)]).findings
    return sorted(f.rule_id for f in found if f.rule_id.startswith("LEAK"))


def test_a_split_named_through_a_star_import_is_the_library_split() -> None:
    assert leaks("from sklearn.model_selection import *") == ["LEAK005"]
    assert leaks("from sklearn.model_selection import train_test_split") == ["LEAK005"]


def test_a_star_import_does_not_replace_a_notebook_function_or_an_unimported_name() -> None:
    own = "def train_test_split(X, y, random_state=0):\n    return X, X, y, y\n"  # "tests" on the training rows
    assert leaks("from sklearn.model_selection import *", own) == ["LEAK007"]
    # the repository's own helper is not followed: its parts are some parts of the rows, and the two models are
    # compared on the one neither is fitted on; it is no shuffling split of scikit-learn's (a lag feature split
    # by it is not a shuffled time series)
    assert leaks("from helpers import train_test_split") == ["LEAK005"]
    lag = 'df["a"] = df["y"].shift(1)\n'
    rules = {imp: {f.rule_id for f in analyze_sources([CODE.format(imports=imp, defs=lag)]).findings}
             for imp in ("from helpers import train_test_split", "from sklearn.model_selection import *")}
    assert "TIME001" not in rules["from helpers import train_test_split"]
    assert "TIME001" in rules["from sklearn.model_selection import *"]


def test_a_bare_library_function_the_notebook_never_imports_is_that_library_function() -> None:
    """A notebook that calls `train_test_split` without importing or defining it lost the cell that imported it
    (a fragment, a cell deleted after it ran): the call is scikit-learn's."""
    assert leaks("from sklearn.metrics import accuracy_score") == ["LEAK005"]


def test_a_data_name_a_star_import_may_bring_stays_data_and_a_library_class_does_not() -> None:
    """After `from helpers import *`, `Xtrain` (bound by no cell) is data from outside the notebook, as without the
    star import; `URLs` (CamelCase, capitals inside) is a library's class, not rows."""
    scored = ("from helpers import *\nfrom sklearn.linear_model import LogisticRegression\n"
              "model = LogisticRegression().fit(Xtrain, ytrain)\nprint(model.score(Xtrain, ytrain))")
    assert [f.rule_id for f in analyze_sources([scored]).findings if f.rule_id.startswith("LEAK")] == ["LEAK007"]
    paths = ("from fastai.tabular.all import *\nimport pandas as pd\n"
             "a = pd.read_pickle(URLs.path('shop') / 'fit.pkl')\nb = pd.read_pickle(URLs.path('shop') / 'check.pkl')\n"
             "from sklearn.linear_model import LinearRegression\n"
             "m = LinearRegression().fit(a.drop(columns='y'), a.y)\nprint(m.score(b.drop(columns='y'), b.y))")
    assert [f.rule_id for f in analyze_sources([paths]).findings if f.rule_id.startswith("LEAK")] == []
