"""A test part split off and never touched again reserves nothing: the validation part carved beside it is the
notebook's last word, so settings compared on it are chosen by the only score reported. Once any call takes the
test part (a score, a prediction, a watched fit), the validation part is a selection set again."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import pandas as pd
from sklearn.model_selection import KFold, train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
df = pd.read_csv("leads.csv")
X, y = df.drop(columns=["label"]), df["label"]
X_full, X_test, y_full, y_test = train_test_split(X, y, test_size=0.2, random_state=1)
X_train, X_val, y_train, y_val = train_test_split(X_full, y_full, test_size=0.25, random_state=1)"""

SWEEP = """for C in [0.01, 0.1, 1, 10]:
    m = LogisticRegression(C=C).fit(X_train, y_train)
    print(C, accuracy_score(y_val, m.predict(X_val)))"""


def rules(*cells: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([PRELUDE, *cells]).findings if f.category == "leakage.multi-test"}


def test_settings_compared_on_validation_rows_with_the_test_part_never_touched_choose_on_the_reported_score() -> None:
    found = [f for f in analyze_sources([PRELUDE, SWEEP]).findings if f.category == "leakage.multi-test"]
    assert found and "never scored" in found[0].message
    models = ("from sklearn.tree import DecisionTreeClassifier\n"
              "for m in [LogisticRegression(), DecisionTreeClassifier()]:\n"
              "    m.fit(X_train, y_train)\n    print(accuracy_score(y_val, m.predict(X_val)))")
    assert "LEAK005" in rules(models)


def test_the_test_part_scored_after_the_sweep_makes_the_validation_part_a_selection_set() -> None:
    final = "best = LogisticRegression(C=1).fit(X_train, y_train)\nprint(accuracy_score(y_test, best.predict(X_test)))"
    assert not rules(SWEEP, final)


def test_the_test_part_only_predicted_still_counts_as_taken() -> None:
    assert not rules(SWEEP, "pred = m.predict(X_test)")


def test_the_test_part_given_to_a_helper_the_analysis_cannot_follow_counts_as_taken() -> None:
    """`show_results(final, X_test, y_test)` from another module may score them: the sweep is not the last word."""
    final = ("from helpers import show_results\nfinal = LogisticRegression(C=1).fit(X_full, y_full)\n"
             "show_results(final, X_test, y_test)")
    assert not rules(SWEEP, final)


def test_fold_parts_collected_in_lists_are_folds_not_one_split() -> None:
    folds = ("Xs, Vs, ys, vs = [], [], [], []\nfor k, (tr, te) in enumerate(KFold(5).split(X_train)):\n"
             "    Xs.append(X_train.iloc[tr]); Vs.append(X_train.iloc[te])\n"
             "    ys.append(y_train.iloc[tr]); vs.append(y_train.iloc[te])")
    sweep = ("def objective(C):\n    acc = []\n    for i in range(5):\n"
             "        m = LogisticRegression(C=C).fit(Xs[i], ys[i])\n"
             "        acc.append(accuracy_score(vs[i], m.predict(Vs[i])))\n    return sum(acc) / 5\n"
             "for C in [0.1, 1, 10]:\n    print(C, objective(C))")
    assert not rules(folds, sweep)


def test_a_test_part_only_summarised_is_not_taken() -> None:
    """Its latest date or its mean read (to size a forecast horizon, to describe it) scores nothing: the validation
    part is still the last word. A scaler fitted on it prepares it for scoring: taken."""
    summary = "horizon = X_test['day'].max() - X_full['day'].max()\nprint(X_test.mean())"
    assert "LEAK005" in rules(summary, SWEEP.replace("print(C, ", "print(horizon, C, "),
                              "from sklearn.tree import DecisionTreeClassifier\n"
                              "for m in [LogisticRegression(), DecisionTreeClassifier()]:\n"
                              "    m.fit(X_train, y_train)\n    print(accuracy_score(y_val, m.predict(X_val)))")
    scaled = "from sklearn.preprocessing import StandardScaler\nXt = StandardScaler().fit_transform(X_test)"
    assert not rules(scaled, SWEEP)


RESPLIT = """for seed in range(10):
    X_full, X_test, y_full, y_test = train_test_split(X, y, test_size=0.2, random_state=seed)
    X_train, X_val, y_train, y_val = train_test_split(X_full, y_full, test_size=0.25, random_state=seed)
    m = LogisticRegression().fit(X_train, y_train)
    print(seed, accuracy_score(y_val, m.predict(X_val)))"""


def test_the_test_part_of_the_same_rows_split_again_and_scored_counts_as_taken() -> None:
    """The sweep on the first split's validation part, then the same rows split again with other seeds and the
    last split's test part scored: the notebook reports a test score, so the sweep is not its last word."""
    final = "final = LogisticRegression(C=1).fit(X_full, y_full)\nprint(accuracy_score(y_test, final.predict(X_test)))"
    assert not rules(SWEEP, RESPLIT, final)
    assert "LEAK004" in rules(SWEEP, RESPLIT)  # split again, but no test part is ever scored
