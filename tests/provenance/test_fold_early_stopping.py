"""Early stopping inside a cross-validation loop on the fold that is then scored: each fold's score is read on the
rows that chose when training stopped (LEAK004, a warning). A fold of its own for stopping, a fixed number of
rounds, or the fold only watched without stopping chooses nothing."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

LOOP = """import numpy as np
import pandas as pd
import lightgbm as lgb
from sklearn.model_selection import KFold, train_test_split
from sklearn.metrics import mean_squared_error
df = pd.read_csv('load.csv')
X, y = df.drop(columns='mw'), df['mw']
scores = []
for tr, va in KFold(5, shuffle=True, random_state=0).split(X):
    X_tr, X_va, y_tr, y_va = X.iloc[tr], X.iloc[va], y.iloc[tr], y.iloc[va]
{body}
    scores.append(mean_squared_error(y_va, m.predict(X_va)))
print(np.mean(scores))"""

STOPPED = """    m = lgb.LGBMRegressor(n_estimators=2000)
    m.fit(X_tr, y_tr, eval_set=[(X_va, y_va)], callbacks=[lgb.early_stopping(50)])"""


def found(body: str) -> list:
    return [f for f in analyze_sources([LOOP.format(body=body)]).findings if f.rule_id.startswith("LEAK")]


def test_early_stopping_on_the_scored_fold_is_a_selection_warning() -> None:
    [f] = found(STOPPED)
    assert f.rule_id == "LEAK004" and f.severity.value == "warning"
    assert "`X_va`" in f.message and "m.predict(X_va)" in f.message and f.evidence["cross_validation"]


@pytest.mark.parametrize("body", [
    STOPPED.replace("callbacks=[lgb.early_stopping(50)]", "callbacks=[lgb.log_evaluation(100)]"),  # watched only
    "    m = lgb.LGBMRegressor(n_estimators=300)\n    m.fit(X_tr, y_tr)",  # a fixed number of rounds
    # stopping on a part carved from the training fold, the held-out fold scored untouched
    "    X_fit, X_stop, y_fit, y_stop = train_test_split(X_tr, y_tr, test_size=0.1, random_state=0)\n"
    "    m = lgb.LGBMRegressor(n_estimators=2000)\n"
    "    m.fit(X_fit, y_fit, eval_set=[(X_stop, y_stop)], callbacks=[lgb.early_stopping(50)])",
])
def test_stopping_that_does_not_read_the_scored_fold_chooses_nothing(body: str) -> None:
    assert found(body) == []


OOF = """import numpy as np
import pandas as pd
import lightgbm as lgb
from sklearn.model_selection import StratifiedKFold
from sklearn.metrics import roc_auc_score
df = pd.read_csv('churn.csv')
X, y = df.drop(columns='left'), df['left']
PARAMS = dict(objective='binary')
oof = np.zeros(len(X))
for tr, va in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
    fit_set = lgb.Dataset(X.iloc[tr], label=y.iloc[tr])
    stop_set = lgb.Dataset(X.iloc[va], label=y.iloc[va])
    booster = lgb.train(PARAMS, fit_set, 1000, valid_sets=[fit_set, stop_set]{stop})
    oof[va] = booster.predict(X.iloc[va], num_iteration=booster.best_iteration)
print('CV AUC', roc_auc_score(y, oof))"""


def test_out_of_fold_predictions_scored_after_the_loop_read_the_stopping_folds() -> None:
    """`oof[va] = m.predict(X.iloc[va])` fills an array made for them: scoring it scores every fold's predictions."""
    [f] = [f for f in analyze_sources([OOF.format(stop=", early_stopping_rounds=50")]).findings
           if f.rule_id.startswith("LEAK")]
    assert f.rule_id == "LEAK004" and f.evidence["cross_validation"]
    assert not [f for f in analyze_sources([OOF.format(stop="")]).findings if f.rule_id.startswith("LEAK")]


def test_predictions_written_into_a_frame_attribute_are_what_its_metric_scores() -> None:
    code = """import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
df = pd.read_csv('loans.csv')
X = df.drop(columns='paid')
model = LogisticRegression().fit(X, df['paid'])
df.guess = model.predict(X)
print(accuracy_score(df['paid'], df.guess))"""
    assert "LEAK007" in {f.rule_id for f in analyze_sources([code]).findings}


LOGGED = """import pandas as pd
import xgboost as xgb
from sklearn.model_selection import StratifiedKFold
train = pd.read_csv('claims.csv')
unlabelled = pd.read_csv('claims_new.csv')
X, y = train.drop(columns='claim').values, train['claim'].values
preds = 0
for tr, va in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
    d_fit, d_stop = xgb.DMatrix(X[tr], y[tr]), xgb.DMatrix(X[va], y[va])
    booster = xgb.train({'objective': 'binary:logistic', 'eval_metric': 'auc'}, d_fit, 1500,
                        [(d_fit, 'fit'), (d_stop, 'held')]STOP, verbose_eval=100)
    preds += booster.predict(xgb.DMatrix(unlabelled.values)) / 5"""


def test_stopping_on_the_fold_whose_logged_score_is_the_only_score() -> None:
    """Each fold's best AUC, logged while the booster stops on that fold, is the only evaluation the notebook
    gives (it predicts only unlabelled rows): those figures were read on the rows that chose when to stop."""
    leaks = [f for f in analyze_sources([LOGGED.replace("STOP", ", early_stopping_rounds=70")]).findings
             if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in leaks] == ["LEAK004"] and leaks[0].severity.value == "warning"
    assert "logged while training" in leaks[0].message
    assert not [f for f in analyze_sources([LOGGED.replace("STOP", "")]).findings if f.rule_id.startswith("LEAK")]


PICKED = """import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.metrics import accuracy_score
df = pd.read_csv('wells.csv')
X, y = df.drop(columns='dry').values, df['dry'].values
{body}"""

INSIDE = """fold_best = []
for tr, va in KFold(5, shuffle=True, random_state=0).split(X):
    best = 0
    for k in [1, 3, 5, 9]:
        m = KNeighborsClassifier(k).fit(X[tr], y[tr])
        acc = accuracy_score(y[va], m.predict(X[va]))
        if acc > best:
            best = acc
    fold_best.append(best)
print(np.mean(fold_best))"""


def test_a_setting_picked_inside_each_fold_by_that_fold_s_score() -> None:
    """`if acc > best` inside the fold loop, on the fold the loop holds out: each fold's figure is the best of
    several tries on its own rows (nested selection is needed for an honest cross-validated score)."""
    [f] = [f for f in analyze_sources([PICKED.format(body=INSIDE)]).findings if f.rule_id.startswith("LEAK")]
    assert f.rule_id == "LEAK004" and f.severity.value == "warning" and f.evidence["cross_validation"]
    assert "inside the fold loop" in f.message and "`acc > best`" in f.message
    assert "held-out fold of `KFold(5, shuffle=True, random_state=0).split(X)`" in f.message
    assert f.evidence["folds"]["code"].startswith("KFold(5")


@pytest.mark.parametrize("body", [
    # a setting chosen by its mean over all folds: cross-validated model selection
    """best, best_k = 0, None
for k in [1, 3, 5, 9]:
    accs = []
    for tr, va in KFold(5, shuffle=True, random_state=0).split(X):
        m = KNeighborsClassifier(k).fit(X[tr], y[tr])
        accs.append(accuracy_score(y[va], m.predict(X[va])))
    if np.mean(accs) > best:
        best, best_k = np.mean(accs), k
print(best_k)""",
    # a membership test on a table of scores looks a name up, it compares no scores
    """totals = {}
for tr, va in KFold(5, shuffle=True, random_state=0).split(X):
    for m in [KNeighborsClassifier(3), KNeighborsClassifier(7)]:
        name = str(m)
        m.fit(X[tr], y[tr])
        acc = accuracy_score(y[va], m.predict(X[va]))
        if name in totals:
            totals[name] += acc / 5
        else:
            totals[name] = acc / 5
print(totals)""",
    # the per-fold pick, then the picked models scored on a part split off before the folds
    """X_dev, X_te, y_dev, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
for tr, va in KFold(5, shuffle=True, random_state=0).split(X_dev):
    best, kept = 0, None
    for k in [1, 3]:
        m = KNeighborsClassifier(k).fit(X_dev[tr], y_dev[tr])
        acc = accuracy_score(y_dev[va], m.predict(X_dev[va]))
        if acc > best:
            best, kept = acc, m
    print(accuracy_score(y_te, kept.predict(X_te)))""",
])
def test_choices_that_do_not_score_a_fold_on_the_rows_that_chose(body: str) -> None:
    assert not [f for f in analyze_sources([PICKED.format(body=body)]).findings
                if f.rule_id == "LEAK004" and f.evidence.get("cross_validation")]


EPOCHS = """import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.model_selection import StratifiedKFold
from sklearn.metrics import f1_score
ids, msk, lab = np.load('ids.npy'), np.load('mask.npy'), np.load('labels.npy')
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5000, 64)
        self.out = nn.Linear(64, 2)
    def forward(self, a, m):
        return self.out((self.emb(a) * m.unsqueeze(-1)).mean(1))
def pair(y_true, y_hat):
    return (y_true == y_hat).mean(), f1_score(y_true, y_hat)
oof = np.zeros((len(lab), 2))
for k, (tr, va) in enumerate(StratifiedKFold(4, shuffle=True, random_state=1).split(lab, lab)):
    fit_dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
        torch.tensor(ids[tr]), torch.tensor(msk[tr]), torch.tensor(lab[tr])), batch_size=64, shuffle=True)
    held_dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
        torch.tensor(ids[va]), torch.tensor(msk[va]), torch.tensor(lab[va])), batch_size=64)
    net = Encoder()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    top = 0.
    for epoch in range(8):
        net.train()
        for batch in fit_dl:
            a, m, y = tuple(t for t in batch)
            loss = F.cross_entropy(net(a, m), y)
            opt.zero_grad(); loss.backward(); opt.step()
        net.eval()
        out = np.zeros((len(va), 2))
        with torch.no_grad():
            for i, batch in enumerate(held_dl):
                a, m, y = tuple(t for t in batch)
                out[i * 64:(i + 1) * 64] = F.softmax(net(a, m), dim=1).numpy()
        acc, f1 = pair(lab[va], out.argmax(1))
        if {cmp}:
            top = f1
            torch.save(net.state_dict(), 'fold{{}}.pt'.format(k))
    net.load_state_dict(torch.load('fold{{}}.pt'.format(k)))
    with torch.no_grad():
        oof[va] = np.concatenate([F.softmax(net(a, m), dim=1).numpy() for a, m, y in held_dl])
print(f1_score(lab, oof.argmax(1)))"""


def test_a_hand_written_fold_loop_keeping_each_fold_s_best_epoch() -> None:
    """The weights of the epoch with the best F1 on the held-out fold are kept (batches unpacked from a tuple,
    predictions written into a preallocated array, the metric inside a helper): the out-of-fold F1 then reads
    the rows that chose the epoch. A fixed threshold checks, it does not choose."""
    [f] = [f for f in analyze_sources([EPOCHS.format(cmp="f1 > top")]).findings if f.rule_id.startswith("LEAK")]
    assert f.rule_id == "LEAK004" and f.evidence["cross_validation"]
    assert not [f for f in analyze_sources([EPOCHS.format(cmp="f1 > 0.9")]).findings if f.rule_id.startswith("LEAK")]


@pytest.mark.parametrize("params", ["{'n_estimators': 5000, 'early_stopping_rounds': 100}",
                                    "dict(n_estimators=5000, early_stopping_rounds=100)"], ids=["literal", "dict"])
def test_early_stopping_given_through_an_unpacked_dict_is_read(params: str) -> None:
    """`XGBRegressor(**params)` with `early_stopping_rounds` in `params`: built to stop early on its eval set."""
    body = (f"    params = {params}\n    m = xgb.XGBRegressor(**params)\n"
            "    m.fit(X_tr, y_tr, eval_set=[(X_va, y_va)], verbose=False)")
    code = LOOP.replace("import lightgbm as lgb", "import xgboost as xgb")
    stopped = [f for f in analyze_sources([code.format(body=body)]).findings if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in stopped] == ["LEAK004"]
    fixed = body.replace(", 'early_stopping_rounds': 100", "").replace(", early_stopping_rounds=100", "")
    assert not [f for f in analyze_sources([code.format(body=fixed)]).findings if f.rule_id.startswith("LEAK")]


def test_models_by_name_each_fitted_in_its_own_branch_stop_on_the_scored_fold() -> None:
    """`for name, template in models.items():` with `if name == 'lgbm':` picking each model's fit call: the name is
    known on each pass, so the boosted model's fit (with its early-stopping `eval_set` on the fold) is the one it
    is scored after, not the forest's plain fit of the other branch."""
    code = """import numpy as np
import pandas as pd
import lightgbm as lgb
from sklearn.base import clone
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import KFold
from sklearn.metrics import mean_squared_error
df = pd.read_csv('load.csv')
X, y = df.drop(columns='mw'), df['mw']
models = {'lgbm': lgb.LGBMRegressor(n_estimators=2000, early_stopping_round=50), 'forest': RandomForestRegressor()}
for name, template in models.items():
    scores = []
    for tr, va in KFold(5, shuffle=True, random_state=0).split(X):
        X_tr, X_va, y_tr, y_va = X.iloc[tr], X.iloc[va], y.iloc[tr], y.iloc[va]
        m = clone(template)
        if name == 'lgbm':
            m.fit(X_tr, y_tr, eval_set=[(X_va, y_va)])
        else:
            m.fit(X_tr, y_tr)
        scores.append(mean_squared_error(y_va, m.predict(X_va)))
    print(name, np.mean(scores))"""
    assert [f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")] == ["LEAK004"]
