"""Oversampling before the split: copies of rows land on both sides (overlap, LEAK002), and an oversampler that
interpolates new rows (SMOTE, ADASYN) also builds training rows from the held-out rows' features (preprocessing,
LEAK001); one that copies rows to balance classes sizes its copies by class counts that include the held-out
rows' labels (LEAK001 too), while copies of every row balance nothing. After the split, on the training part
only, neither leaks. A branch a function's literal flag turns off does not run."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from imblearn.over_sampling import SMOTE, ADASYN, RandomOverSampler
from sklearn.model_selection import train_test_split, cross_val_score
from sklearn.linear_model import LogisticRegression
df = pd.read_csv("data.csv")
X, y = df.drop(columns="label"), df["label"]"""


def rules(*cells: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize("sampler, synthetic", [("SMOTE", True), ("ADASYN", True), ("RandomOverSampler", False)])
def test_oversampling_before_the_split(sampler: str, synthetic: bool) -> None:
    code = (f"Xr, yr = {sampler}(random_state=0).fit_resample(X, y)\n"
            "Xtr, Xte, ytr, yte = train_test_split(Xr, yr, random_state=0)\n"
            "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))")
    found = [f for f in analyze_sources([HEAD, code]).findings if f.rule_id.startswith("LEAK")]
    assert {"LEAK001", "LEAK002"} <= {f.rule_id for f in found}
    learned = next(f.message for f in found if f.rule_id == "LEAK001")
    assert ("neighbours" in learned) is synthetic and ("class balance" in learned) is not synthetic
    after = ("Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\n"
             f"Xr, yr = {sampler}(random_state=0).fit_resample(Xtr, ytr)\n"
             "print(LogisticRegression().fit(Xr, yr).score(Xte, yte))")
    assert not rules(after)


def test_rows_upsampled_with_replacement_before_the_split_set_the_class_balance_from_held_out_labels() -> None:
    code = ("from sklearn.utils import resample\nsmall, big = df[df.label == 1], df[df.label == 0]\n"
            "up = resample(small, replace=True, n_samples=len(big), random_state=0)\n"
            "bal = pd.concat([big, up])\n"
            "Xtr, Xte, ytr, yte = train_test_split(bal.drop(columns='label'), bal['label'], random_state=0)\n"
            "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))")
    assert {"LEAK001", "LEAK002"} <= rules(code)


def test_smote_before_cross_validation_and_after_the_split() -> None:
    before_cv = "Xr, yr = SMOTE().fit_resample(X, y)\nprint(cross_val_score(LogisticRegression(), Xr, yr, cv=5))"
    assert {"LEAK001", "LEAK002"} <= rules(before_cv)
    after = ("Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\n"
             "Xtr, ytr = SMOTE().fit_resample(Xtr, ytr)\nprint(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))")
    assert not rules(after)
    message = next(f.message for f in analyze_sources([HEAD, before_cv]).findings if f.rule_id == "LEAK001")
    assert "interpolates" in message and "cross_val_score" in message


PREPARE = """def prepare(X, y, smote={default}):
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    if smote:
        X, y = SMOTE().fit_resample(X, y)
        Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    return Xtr, Xte, ytr, yte
Xtr, Xte, ytr, yte = prepare(X, y{call})
print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))"""


@pytest.mark.parametrize("default, call, leaks", [("False", "", False), ("False", ", smote=True", True),
                                                  ("True", ", smote=False", False), ("True", "", True)])
def test_a_branch_turned_off_by_a_literal_flag_of_the_call_does_not_run(default: str, call: str, leaks: bool) -> None:
    assert ("LEAK002" in rules(PREPARE.format(default=default, call=call))) is leaks


def test_a_global_flag_runs_both_branches() -> None:
    """`USE_SMOTE = False` at the top is a switch the author flips: both modes are analysed."""
    code = PREPARE.format(default="USE_SMOTE", call="")
    assert "LEAK002" in rules("USE_SMOTE = False", code)


def test_the_rows_an_oversampler_was_given_are_training_rows_of_the_model_fitted_on_its_output() -> None:
    """`fit_resample` keeps every row it is given: scoring the model on them is a training-row score (LEAK007's
    family, LEAK003), not held-out rows whose scaler saw them (no LEAK001)."""
    code = ("from sklearn.preprocessing import StandardScaler\n"
            "Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\n"
            "sc = StandardScaler().fit(Xtr)\nXtr_s, Xte_s = sc.transform(Xtr), sc.transform(Xte)\n"
            "Xr, yr = SMOTE(random_state=0).fit_resample(Xtr_s, ytr)\n"
            "clf = LogisticRegression().fit(Xr, yr)\n"
            "print(clf.score(Xtr_s, ytr), clf.score(Xte_s, yte))")
    assert rules(code) == {"LEAK003"}


def test_a_sampler_pipeline_holding_smote_is_an_oversampler() -> None:
    """imblearn's `Pipeline([('over', SMOTE()), ('under', RandomUnderSampler())]).fit_resample(X, y)` resamples as
    its SMOTE step does; a pipeline of undersamplers only makes no rows."""
    code = ("from imblearn.pipeline import Pipeline\nfrom imblearn.under_sampling import RandomUnderSampler\n"
            "steps = Pipeline([('over', {over}), ('under', RandomUnderSampler(random_state=0))])\n"
            "Xr, yr = steps.fit_resample({rows})\nprint(cross_val_score(LogisticRegression(), Xr, yr, cv=5))")
    assert {"LEAK001", "LEAK002"} <= rules(code.format(over="SMOTE(random_state=0)", rows="X, y"))
    assert not rules(code.format(over="RandomUnderSampler(sampling_strategy=0.5)", rows="X, y"))
    # on the training split of a split, only the cross-validated score is optimistic: the test part is untouched
    split = "Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\n"
    assert rules(split + code.format(over="SMOTE(random_state=0)", rows="Xtr, ytr")) == {"LEAK008"}


def test_copies_of_every_row_balance_nothing() -> None:
    code = ("both = pd.concat([df, df])\n"
            "Xtr, Xte, ytr, yte = train_test_split(both.drop(columns='label'), both['label'], random_state=0)\n"
            "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))")
    assert rules(code) == {"LEAK002"}


DRAWN = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.ensemble import RandomForestClassifier
claims = pd.read_csv('claims.csv')
feats, flags = claims.drop(columns='flag').values, claims['flag'].values
rare, common = feats[flags == 1], feats[flags == 0]
{draw}
X = np.concatenate([rare[pick], common])
y = np.concatenate([np.ones(len(common)), np.zeros(len(common))])
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=6)
print(RandomForestClassifier().fit(X_tr, y_tr).score(X_te, y_te))"""


@pytest.mark.parametrize("draw", ["pick = np.random.choice(np.arange(len(rare)), len(common))",
                                  "slots = np.arange(len(rare))\npick = np.random.choice(slots, size=len(common))",
                                  "pick = np.random.choice(len(rare), len(common))"])
def test_row_positions_drawn_with_replacement_copy_rows_before_the_split(draw: str) -> None:
    rules = {f.rule_id for f in analyze_sources([DRAWN.format(draw=draw)]).findings}
    assert "LEAK002" in rules


def test_row_positions_drawn_without_replacement_are_a_subsample() -> None:
    draw = "pick = np.random.choice(len(rare), len(common), replace=False)"
    rules = {f.rule_id for f in analyze_sources([DRAWN.format(draw=draw)]).findings}
    assert not rules & {"LEAK001", "LEAK002", "LEAK003"}


UNDERSAMPLED = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import recall_score
tx = pd.read_csv('payments.csv')
pos = np.array(tx[tx.flag == 1].index)
neg = np.array(tx[tx.flag == 0].index)
def shrink(times):
    keep = np.concatenate([pos, np.random.choice(neg, times * len(pos), replace=False)])
    return tx.iloc[keep, :]
def parts(d):
    return train_test_split(d.drop(columns='flag'), d['flag'], test_size=0.3)
for t in range(1, 4):
    s_tr, s_te, sy_tr, sy_te = parts(shrink(t))
    f_tr, f_te, fy_tr, fy_te = parts(tx)
    clf = LogisticRegression().fit(s_tr, sy_tr)
    print(recall_score({truth}, clf.predict({scored})))"""


def test_a_model_of_an_undersampled_subset_scored_on_a_split_of_all_rows() -> None:
    """Trained on a split of the rows an undersampling kept, scored on the test part of another split of every
    row: that test part holds rows of the undersampled training part (every positive row is in both pools).
    Scored on the subset's own test part, it is clean."""
    found = [f.rule_id for f in analyze_sources([UNDERSAMPLED.format(truth="fy_te", scored="f_te")]).findings]
    assert "LEAK003" in found
    clean = [f.rule_id for f in analyze_sources([UNDERSAMPLED.format(truth="sy_te", scored="s_te")]).findings]
    assert "LEAK003" not in clean


EXTRA = """extra = pd.DataFrame({"text": ["good one", "great stuff", "so nice", "well done"], "label": [1, 1, 1, 1]})
{loop}
Xtr, Xte, ytr, yte = train_test_split(df.drop(columns="label"), df["label"], random_state=0)
print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))"""


@pytest.mark.parametrize("loop, copies", [
    ("for _ in range(5):\n    df = pd.concat([df, extra], ignore_index=True)", True),
    ("df = df.dropna()\nfor _ in range(5):\n    df = pd.concat([df, extra], ignore_index=True)", True),
    ("df = df.dropna()\ndf = pd.concat([df, df])", True),
    ("df = pd.concat([df, extra], ignore_index=True)", False),
    ("for path in ['a.csv', 'b.csv']:\n    part = pd.read_csv(path)\n    df = pd.concat([df, part])", False),
], ids=["loop", "after-dropna", "complete-rows-twice", "once", "new-rows-per-pass"])
def test_the_same_rows_stacked_on_every_pass_of_a_loop_are_copies(loop: str, copies: bool) -> None:
    """`df = pd.concat([df, extra])` repeated by a loop copies `extra`'s rows (made before the loop) from the
    second pass on: copies on both sides of the split. They balance no class (a `dropna` picks complete rows)."""
    assert rules(EXTRA.replace("{loop}", loop)) == ({"LEAK002"} if copies else set())
