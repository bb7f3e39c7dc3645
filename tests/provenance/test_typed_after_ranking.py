"""Columns typed in by hand after a selector's ranking or a model's importances were read follow that ranking:
when it was learned from rows that are later held out, the test rows' features were chosen with their own labels
(the issue's "feature selection fitted on all rows whose chosen columns are written out later")."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from sklearn.feature_selection import RFE
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.metrics import accuracy_score
df = pd.read_csv('wine.csv')
X, y = df.drop(columns=['quality']), df['quality']"""
TYPED = """X = df[['acidity', 'chlorides', 'density', 'ph']]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
model = LogisticRegression().fit(X_tr, y_tr)
print(accuracy_score(y_te, model.predict(X_te)))"""


def _leaks(*cells: str) -> list:
    return [f for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK")]


def test_columns_typed_after_an_rfe_ranking_on_every_row_carry_it() -> None:
    ranked = "selector = RFE(LogisticRegression(), n_features_to_select=4).fit(X, y)\nprint(selector.ranking_)"
    found = _leaks(ranked, TYPED)
    assert [f.rule_id for f in found] == ["LEAK001"]
    assert "RFE" in found[0].message or "selector" in found[0].message
    assert "written out in cell 3" in found[0].message


def test_columns_typed_after_importances_of_a_model_fitted_on_every_row_carry_them() -> None:
    ranked = ("forest = RandomForestClassifier(random_state=0).fit(X, y)\n"
              "print(pd.Series(forest.feature_importances_, index=X.columns).sort_values())")
    assert [f.rule_id for f in _leaks(ranked, TYPED)] == ["LEAK001"]


def test_a_ranking_learned_on_the_training_split_only_is_clean() -> None:
    split = "X_a, X_b, y_a, y_b = train_test_split(X, y, random_state=0)"
    ranked = "selector = RFE(LogisticRegression(), n_features_to_select=4).fit(X_a, y_a)\nprint(selector.ranking_)"
    typed = ("cols = ['acidity', 'chlorides', 'density', 'ph']\nmodel = LogisticRegression().fit(X_a[['acidity', "
             "'chlorides', 'density', 'ph']], y_a)\nprint(accuracy_score(y_b, model.predict(X_b[['acidity', "
             "'chlorides', 'density', 'ph']])))")
    assert not _leaks(split, ranked, typed)


def test_typed_columns_with_no_ranking_read_choose_nothing() -> None:
    fitted = "forest = RandomForestClassifier(random_state=0).fit(X, y)\nprint(forest.n_estimators)"
    assert "LEAK001" not in [f.rule_id for f in _leaks(fitted, TYPED)]


def test_a_slope_read_per_pass_of_a_rolling_regression_is_a_value_not_a_ranking() -> None:
    rolling = ("slopes = []\nfor i in range(2, len(df)):\n"
               "    lr = LinearRegression().fit(df[['acidity']].values[:i], y.values[:i])\n"
               "    slopes.append(lr.coef_[0])")
    assert "LEAK001" not in [f.rule_id for f in _leaks(rolling, TYPED)]


def test_columns_dropped_by_name_after_a_ranking_leave_its_choice() -> None:
    ranked = "selector = RFE(LogisticRegression(), n_features_to_select=4).fit(X, y)\nprint(selector.support_)"
    rest = ("X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
            "model = LogisticRegression().fit(X_tr, y_tr)\nprint(accuracy_score(y_te, model.predict(X_te)))")
    assert [f.rule_id for f in _leaks(ranked, "X = X.drop(columns=['sugar', 'sulphates'])\n" + rest)] == ["LEAK001"]
    in_place = "X.drop(['sugar', 'sulphates'], axis=1, inplace=True)\n" + rest
    assert [f.rule_id for f in _leaks(ranked, in_place)] == ["LEAK001"]
    assert not _leaks("print(X.shape)", in_place)  # no ranking read: a drop is only a drop
    # dropping the label and an id column makes the feature table: it chooses nothing the ranking said
    made = "X = df.drop(columns=['quality', 'id'])\n" + rest
    assert "LEAK001" not in [f.rule_id for f in _leaks(ranked, made)]


def test_a_drop_of_columns_the_ranking_never_saw_makes_a_table_and_chooses_nothing() -> None:
    """The ranking was fitted on the frame without its label; a later drop that names the label again (and an id)
    rebuilds the feature table: it is not a choice among the ranked columns, whatever the label is called."""
    ranked = ("grades = pd.read_csv('grades.csv')['grade'].values\n"
              "selector = RFE(LogisticRegression(), n_features_to_select=4).fit(X, grades)\n"
              "print(selector.ranking_)")
    rest = ("feats = df.drop(columns=['quality', 'id'])\n"
            "X_tr, X_te, y_tr, y_te = train_test_split(feats, y, random_state=0)\n"
            "model = LogisticRegression().fit(X_tr, y_tr)\nprint(accuracy_score(y_te, model.predict(X_te)))")
    assert "LEAK001" not in [f.rule_id for f in _leaks(ranked, rest)]
    chosen = rest.replace("['quality', 'id']", "['sugar', 'sulphates']").replace("df.drop", "X.drop")
    assert [f.rule_id for f in _leaks(ranked, chosen)] == ["LEAK001"]


def test_the_message_names_the_typed_list_that_built_the_table_the_split_divides() -> None:
    ranked = "selector = RFE(LogisticRegression(), n_features_to_select=4).fit(X, y)\nprint(selector.ranking_)"
    shown = "print(df[['acidity', 'ph']].describe())"
    found = [f for f in _leaks(ranked, shown, TYPED) if f.rule_id == "LEAK001"]
    assert len(found) == 1 and "written out in cell 4" in found[0].message


SPLIT_FIRST = "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)"
SELECTED = "selector = RFE(LogisticRegression(), n_features_to_select=4).fit(X_tr, y_tr)"
CROSS = "from sklearn.model_selection import cross_val_score"


def test_columns_gathered_under_a_test_of_the_ranking_carry_it() -> None:
    """`if selector.support_[i]: keep.append(col)` in a loop over the columns: the list is the ranking's choice, as
    a comprehension over `zip(X.columns, selector.support_)` is; cross-validated over every row, the held-out folds
    hold the rows the selector learned from."""
    gathered = {
        "positions dropped": ("drop = []\nfor i in range(len(selector.support_)):\n"
                              "    if selector.support_[i] == False:\n        drop.append(i)\n"
                              "feats = X.drop(X.columns[drop], axis=1)"),
        "names kept": ("keep = []\nfor i, col in enumerate(X.columns):\n    if selector.support_[i]:\n"
                       "        keep.append(col)\nfeats = X[keep]"),
        "names dropped": ("drop = []\nfor col, kept in zip(X.columns, selector.support_):\n    if not kept:\n"
                          "        drop.append(col)\nfeats = X.drop(drop, axis=1)"),
        "by shape": ("keep = []\nfor i in range(X.shape[1]):\n    if selector.support_[i]:\n"
                     "        keep.append(X.columns[i])\nfeats = X[keep]"),
    }
    scored = CROSS + "\nprint(cross_val_score(LogisticRegression(), feats, y, cv=5).mean())"
    for name, cell in gathered.items():
        found = _leaks(SPLIT_FIRST, SELECTED, cell, scored)
        assert [f.rule_id for f in found] == ["LEAK001"], name
        assert "training part of `train_test_split(X, y, random_state=0)` in cell 2" in found[0].message, name
        assert "held-out folds include the rows it learned from" in found[0].message, name
        # the same list used on the split's own parts: chosen on the training rows, scored on the test rows
        clean = (cell.replace("feats = X", "feats_tr = X_tr").replace("X.columns", "X_tr.columns") +
                 "\nfeats_te = X_te[list(feats_tr.columns)]\n"
                 "model = LogisticRegression().fit(feats_tr, y_tr)\n"
                 "print(accuracy_score(y_te, model.predict(feats_te)))")
        assert not _leaks(SPLIT_FIRST, SELECTED, clean), name


def test_a_selector_fitted_on_the_training_split_then_cross_validated_on_it_is_a_validation_warning() -> None:
    """Cross-validating only the training part keeps the test part untouched: LEAK008 (a warning), not LEAK001."""
    cell = ("keep = [c for c, kept in zip(X_tr.columns, selector.support_) if kept]\n" + CROSS +
            "\nprint(cross_val_score(LogisticRegression(), X_tr[keep], y_tr, cv=5).mean())")
    assert [f.rule_id for f in _leaks(SPLIT_FIRST, SELECTED, cell)] == ["LEAK008"]


def test_a_test_of_a_value_inside_a_loop_over_rows_gathers_no_ranking() -> None:
    """A rolling regression's slope tested per pass over the rows makes a signal, not a choice of columns."""
    rolling = ("signals = []\nfor i in range(2, len(df)):\n"
               "    lr = LinearRegression().fit(df[['acidity']].values[:i], y.values[:i])\n"
               "    if lr.coef_[0] > 0:\n        signals.append(i)\n"
               "feats = X.drop(X.columns[signals], axis=1)")
    scored = CROSS + "\nprint(cross_val_score(LogisticRegression(), feats, y, cv=5).mean())"
    assert "LEAK001" not in [f.rule_id for f in _leaks(rolling, scored)]


def test_a_list_typed_into_a_name_after_the_ranking_carries_it_one_typed_before_does_not() -> None:
    ranked = "forest = RandomForestClassifier().fit(X, y)\nprint(forest.feature_importances_)"
    named = TYPED.replace("X = df[['acidity', 'chlorides', 'density', 'ph']]",
                          "keep = ['acidity', 'chlorides', 'density', 'ph']\nX = df[keep]")
    found = _leaks(ranked, named)
    assert [f.rule_id for f in found] == ["LEAK001"] and "forest.feature_importances_" not in found[0].message
    assert "RandomForestClassifier().fit(X, y)" in found[0].message
    typed_first = "keep = ['acidity', 'chlorides', 'density', 'ph']\n" + ranked
    assert _leaks(typed_first, named.replace("keep = ['acidity', 'chlorides', 'density', 'ph']\n", "")) == []
