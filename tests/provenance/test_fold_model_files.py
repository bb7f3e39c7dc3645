"""Models saved by every pass of a loop over folds under a name made from the pass's counter, and one of them read
back by a literal name after the loop: that model was trained on other folds' rows, so scoring it on the fold the
last pass left in its variables scores it on rows it trained on. Read back inside the loop, or scored on a test
part split off before the folds, it is clean.

Whole notebooks run through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = ("import pickle\nimport joblib\nimport pandas as pd\n"
        "from sklearn.model_selection import KFold, train_test_split\n"
        "from sklearn.ensemble import RandomForestRegressor\nfrom sklearn.metrics import mean_absolute_error\n"
        "sales = pd.read_csv('sales.csv')\nX, y = sales.drop(columns='units'), sales['units']\n"
        "X_dev, X_hold, y_dev, y_hold = train_test_split(X, y, random_state=4)\n"
        "folds = KFold(n_splits=4, shuffle=True, random_state=4)")
SAVE = {
    "pickle": ("for k, (tr, va) in enumerate(folds.split(X_dev)):\n"
               "    reg = RandomForestRegressor().fit(X_dev.iloc[tr], y_dev.iloc[tr])\n"
               "    pickle.dump(reg, open('reg_' + str(k) + '.pkl', 'wb'))", "pickle.load(open('reg_0.pkl', 'rb'))"),
    "joblib": ("for k, (tr, va) in enumerate(folds.split(X_dev)):\n"
               "    reg = RandomForestRegressor().fit(X_dev.iloc[tr], y_dev.iloc[tr])\n"
               "    joblib.dump(reg, f'models/fold{k}.joblib')", "joblib.load('models/fold1.joblib')"),
}


def _leaks(*cells: str) -> list:
    return [f for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK")]


@pytest.mark.parametrize("how", sorted(SAVE))
def test_a_fold_model_read_back_after_the_loop_and_scored_on_the_last_fold_overlaps(how: str) -> None:
    save, load = SAVE[how]
    found = _leaks(save, f"best = {load}\nprint(mean_absolute_error(y_dev.iloc[va], best.predict(X_dev.iloc[va])))")
    assert [f.rule_id for f in found] == ["LEAK003"]
    assert "best.predict(X_dev.iloc[va])" in found[0].message and "read back by" in found[0].message
    assert "saved pass by pass in a fold loop" in found[0].message


@pytest.mark.parametrize("how", sorted(SAVE))
def test_scored_on_the_part_held_out_before_the_folds_it_is_clean(how: str) -> None:
    save, load = SAVE[how]
    assert _leaks(save, f"best = {load}\nprint(mean_absolute_error(y_hold, best.predict(X_hold)))") == []


def test_each_fold_model_read_back_inside_the_loop_on_its_own_fold_is_clean() -> None:
    save = SAVE["pickle"][0]
    again = ("for k, (tr, va) in enumerate(folds.split(X_dev)):\n"
             "    reg = pickle.load(open('reg_' + str(k) + '.pkl', 'rb'))\n"
             "    print(mean_absolute_error(y_dev.iloc[va], reg.predict(X_dev.iloc[va])))")
    assert _leaks(save, again) == []
