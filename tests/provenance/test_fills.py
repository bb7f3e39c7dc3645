"""Fill values learned from other rows. Random-sample imputation: missing cells filled with values drawn at random
from the column's other rows carry a statistic of those rows (held-out rows included when the draw comes before
the split); a random subsample of rows is a row selection, and a fill drawn from the training split alone is
clean. The most frequent value (`s.value_counts().index[0]`, `.idxmax()`) is a mode, as `s.mode()[0]` is; counts
only shown are no statistic of any feature.

Whole notebooks (cells separated by `# %%`) run through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = ("import numpy as np\nimport pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
        "from sklearn.linear_model import LogisticRegression\nhomes = pd.read_csv('homes.csv')")


def _split_first(fill: str) -> str:
    """The split made first, the fill (learned from the training part only) between it and the fit."""
    return ("feats = homes.drop(columns='sold')\n"
            "f_tr, f_te, s_tr, s_te = train_test_split(feats, homes['sold'], random_state=3)\n"
            f"{fill}\nclf = LogisticRegression().fit(f_tr, s_tr)\nprint(clf.score(f_te, s_te))")


SCORE = _split_first("pass")  # split, fit and score, nothing filled


def _findings(*cells: str) -> list:
    return [f for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK")]


@pytest.mark.parametrize("fill", [
    "gaps = homes['rooms'].isna()\n"
    "homes.loc[gaps, 'rooms'] = homes['rooms'].dropna().sample(gaps.sum(), random_state=0).values",
    "drawn = homes.rooms.dropna().sample(homes.rooms.isna().sum())\ndrawn.index = homes[homes.rooms.isna()].index\n"
    "homes.loc[homes.rooms.isna(), 'rooms'] = drawn",
])
def test_values_drawn_from_every_row_before_the_split_leak(fill: str) -> None:
    found = _findings(fill, SCORE)
    assert [f.rule_id for f in found] == ["LEAK001"]
    assert "sample(" in found[0].message and "f_te" in found[0].message


def test_a_random_subsample_of_rows_and_a_fill_from_the_training_split_are_clean() -> None:
    subsample = "homes = homes.sample(500, random_state=0)"
    assert _findings(subsample, SCORE) == []
    assert _findings(_split_first(
        "for part in (f_tr, f_te):\n    gaps = part['rooms'].isna()\n"
        "    part.loc[gaps, 'rooms'] = f_tr['rooms'].dropna().sample(gaps.sum(), random_state=0).values")) == []


@pytest.mark.parametrize("fill", [
    "homes = homes.apply(lambda col: col.fillna(col.value_counts().index[0]))",
    "homes['rooms'] = homes['rooms'].fillna(homes['rooms'].value_counts().idxmax())",
    "homes.rooms.replace(np.nan, homes.rooms.value_counts().keys()[0], inplace=True)",
])
def test_the_most_frequent_value_of_every_row_is_a_mode_learned_before_the_split(fill: str) -> None:
    found = _findings(fill, SCORE)
    assert [f.rule_id for f in found] == ["LEAK001"]
    assert "value_counts()" in found[0].message


def test_counts_shown_or_taken_from_the_training_split_are_clean() -> None:
    shown = "print(homes['rooms'].value_counts())\nprint(homes['rooms'].value_counts().index[0])"
    assert _findings(shown, SCORE) == []
    assert _findings(_split_first(
        "top = f_tr['rooms'].value_counts().index[0]\n"
        "f_tr, f_te = f_tr.fillna({'rooms': top}), f_te.fillna({'rooms': top})")) == []


MODEL_FILL = """from sklearn.ensemble import RandomForestRegressor
known = {frame}[{frame}.rooms.notnull()]
rf_rooms = RandomForestRegressor(random_state=0).fit(known[['area', 'age']], known['rooms'])
{write}"""


@pytest.mark.parametrize("write", [
    "gaps = homes.rooms.isnull()\nhomes.loc[gaps, 'rooms'] = rf_rooms.predict(homes.loc[gaps, ['area', 'age']])",
    "homes['rooms_hat'] = rf_rooms.predict(homes[['area', 'age']])\n"
    "homes.loc[homes.rooms.isnull(), 'rooms'] = homes['rooms_hat']",
])
def test_a_model_fitted_on_every_row_filling_missing_values_is_an_imputer_before_the_split(write: str) -> None:
    """A regressor fitted on the rows whose value is known, its predictions written into the table's cells: a
    model-based imputer. Fitted before the split, the held-out rows' values shaped the fill (LEAK001); its
    predictions over every row, its own training rows among them, are values, not a score (no LEAK003)."""
    found = {f.rule_id for f in _findings(MODEL_FILL.format(frame="homes", write=write), SCORE)}
    assert "LEAK001" in found and "LEAK003" not in found and "LEAK007" not in found


def test_a_model_imputer_fitted_on_the_training_part_only_is_clean() -> None:
    fill = MODEL_FILL.format(frame="f_tr", write="f_tr.loc[f_tr.rooms.isnull(), 'rooms'] = "
                                                 "rf_rooms.predict(f_tr.loc[f_tr.rooms.isnull(), ['area', 'age']])\n"
                                                 "f_te.loc[f_te.rooms.isnull(), 'rooms'] = "
                                                 "rf_rooms.predict(f_te.loc[f_te.rooms.isnull(), ['area', 'age']])")
    assert _findings(_split_first(fill)) == []


def test_out_of_fold_predictions_stored_as_a_column_are_no_imputer() -> None:
    """Stacking: each row's value predicted by the fold model that did not see it, the column then a feature of a
    second model; no fill learned from the held-out rows (the fold models are no imputer)."""
    stack = """from sklearn.model_selection import KFold, cross_val_score
from sklearn.linear_model import Ridge
feats = homes[['area', 'age']]
oof = np.zeros(len(homes))
for tr, va in KFold(5, shuffle=True, random_state=0).split(feats):
    oof[va] = Ridge().fit(feats.iloc[tr], homes['sold'].iloc[tr]).predict(feats.iloc[va])
homes['ridge_oof'] = oof
print(cross_val_score(LogisticRegression(), homes[['area', 'age', 'ridge_oof']], homes['sold'], cv=5))"""
    assert "LEAK001" not in {f.rule_id for f in _findings(stack)}
