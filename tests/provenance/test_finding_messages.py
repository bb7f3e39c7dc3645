"""What a leak finding says: one test-set choice is one finding however many places read its scores, and a
transform fitted before cross-validation is described as the folds scored with their own statistics."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split, cross_val_score
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression, SGDClassifier
df = pd.read_csv("table.csv")
X, y = df.drop(columns=["label"]), df["label"]
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0)"""


def leaks(code: str) -> list:
    return [f for f in analyze_sources([PRELUDE, code]).findings if f.rule_id.startswith("LEAK")]


def test_scores_read_by_several_choices_are_one_selection_finding() -> None:
    code = """clf = SGDClassifier()
best, best_epoch = 0.0, 0
for epoch in range(20):
    clf.partial_fit(Xtr, ytr, classes=[0, 1])
    acc = clf.score(Xte, yte)
    if acc > best:
        best, best_epoch = acc, epoch
print(max(best, 0.5))"""
    found = [f for f in leaks(code) if f.rule_id == "LEAK004"]
    assert len(found) == 1, [f.message for f in found]
    assert "`acc > best`" in found[0].message and "also" in found[0].message
    assert found[0].evidence["also"]


def test_a_transform_fitted_before_cross_validation_names_the_folds() -> None:
    """Fitted on all the labelled rows, the cross-validation is the evaluation its statistics inflate (LEAK001);
    fitted on the training split, only the cross-validated score that chooses is optimistic, the split's test
    part is untouched (LEAK008, a warning)."""
    code = "Xs = StandardScaler().fit_transform({rows})\nprint(cross_val_score(LogisticRegression(), Xs, {y}, cv=5))"
    [f] = leaks(code.format(rows="X", y="y"))
    assert f.rule_id == "LEAK001"
    assert "(cross-validation)" in f.message and "each held-out fold is scored with statistics learned from its " \
        "own rows" in f.message
    assert "held-out information reaches the features" in f.message
    [f] = leaks(code.format(rows="Xtr", y="ytr"))
    assert f.rule_id == "LEAK008" and f.severity.value == "warning" and f.category == "leakage.validation"
    assert "whole training split" in f.message and "test part stays untouched" in f.message
    assert f.evidence["split"]["cell"] == 1 and f.evidence["evaluation"]["cell"] == 2


def test_a_frame_joined_with_columns_of_its_own_parts_names_no_split() -> None:
    """`pd.concat([test, test[mask]['c']], axis=1)` holds the rows of `test`: statistics learned from `test` reach
    the very rows scored, and no mask is named as a split."""
    code = """test = pd.read_csv("holdout.csv")
test["a"] = test["a"].fillna(test["a"].median())
young = test[test["a"] < 18]["a"]
test = pd.concat([test, young.rename("young")], axis=1)
m = LogisticRegression().fit(Xtr, ytr)
print(m.predict(test))"""
    [f] = [f for f in leaks(code) if f.rule_id == "LEAK001"]
    assert "from the very rows that `m.predict(test)`" in f.message and "split" not in f.message


def test_an_overlap_names_which_side_holds_the_other() -> None:
    part = "m = LogisticRegression().fit(X, y)\nprint((m.predict(Xte) == yte).mean())"
    [f] = [f for f in leaks(part) if f.rule_id == "LEAK003"]
    assert "(`Xte` is part of `X`)" in f.message
    whole = "m = LogisticRegression().fit(Xtr, ytr)\nprint((m.predict(X) == y).mean())"
    [f] = [f for f in leaks(whole) if f.rule_id == "LEAK003"]
    assert "(`X` includes all of `Xtr`)" in f.message


def test_models_compared_inside_pipelines_are_named_by_the_estimator_they_wrap() -> None:
    code = """from sklearn.pipeline import Pipeline
for clf in [LogisticRegression(), SGDClassifier()]:
    pipe = Pipeline([("scale", StandardScaler()), ("model", clf)])
    print(pipe.fit(Xtr, ytr).score(Xte, yte))"""
    found = [f for f in leaks(code) if f.rule_id == "LEAK005"]
    assert len(found) == 1
    assert "`Pipeline(LogisticRegression)`" in found[0].message and "`Pipeline(SGDClassifier)`" in found[0].message


def test_models_compared_through_a_helper_are_named_by_the_cells_that_call_it() -> None:
    """A notebook function fitting and scoring a model per feature set: the cells where it ran are the cells."""
    helper = """def fit_and_test(A, B):
    m = LogisticRegression(C=1.0).fit(A, ytr)
    print(m.score(B, yte))"""
    cells = [PRELUDE, helper, "fit_and_test(Xtr, Xte)", "fit_and_test(Xtr * 2, Xte * 2)"]
    found = [f for f in analyze_sources(cells).findings if f.rule_id == "LEAK005"]
    assert len(found) == 1 and "in cell(s) 3, 4," in found[0].message, [f.message for f in found]


def test_rows_drawn_twice_from_the_same_rows_are_named_as_two_draws() -> None:
    code = """from sklearn.utils import resample
few = df[df["label"] == 1]
fit_rows = resample(few, n_samples=500, random_state=1)
eval_rows = resample(few, n_samples=100, random_state=2)
m = LogisticRegression().fit(fit_rows.drop(columns="label"), fit_rows["label"])
print(m.score(eval_rows.drop(columns="label"), eval_rows["label"]))"""
    found = [f for f in leaks(code) if f.rule_id == "LEAK003"]
    assert len(found) == 1 and "each draw rows at random from the same rows" in found[0].message


def test_a_seeded_split_repeated_later_is_named_where_it_ran_before_the_evaluation() -> None:
    """The same seeded split made again in a later cell holds out the same rows; the finding names the call the
    reader sees just before the evaluation, not the first one."""
    from jupyter_trainguard.engine import analyze_sources
    cells = [PRELUDE, "from sklearn.impute import SimpleImputer\nimp = SimpleImputer().fit(X)",
             "X2 = imp.transform(X)\nA, B, a, b = train_test_split(X2, y, test_size=0.2, random_state=0)",
             "print(LogisticRegression().fit(A, a).score(B, b))"]
    found = [f for f in analyze_sources(cells).findings if f.rule_id == "LEAK001"]
    assert len(found) == 1 and "train_test_split(X2, y" in found[0].message


def test_a_training_score_written_like_its_fit_names_both_lines() -> None:
    """A network called on its training rows to train and again to score reads the same: the lines tell them
    apart."""
    code = """import torch
from torch import nn
Xt = torch.tensor(Xtr.values, dtype=torch.float32)
yt = torch.tensor(ytr.values, dtype=torch.float32)
net = nn.Linear(Xt.shape[1], 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(10):
    loss = nn.functional.mse_loss(net(Xt).squeeze(), yt)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    print(torch.eq(net(Xt).squeeze().round(), yt).float().mean())"""
    found = [f for f in leaks(code) if f.rule_id == "LEAK007"]
    assert len(found) == 1
    assert ", line 13 evaluates the model" in found[0].message and ", line 8:" in found[0].message
