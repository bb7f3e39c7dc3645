# ruff: noqa: E501  (the bad/good pairs read best one statement per line)
"""Statistics the preprocessing detector must see (and the look-alikes it must keep ignoring): a column shifted by
its minimum over every row, dates encoded as their place among all the dates seen, and the output (distances,
clusters) of an estimator fitted on features alone used as a feature.

Each case is a bad/good pair of whole notebooks (cells separated by `# %%`) run through the real engine."""

from __future__ import annotations

import pytest

from .pairs import check_pair

PRELUDE = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, cross_val_score
from sklearn.neighbors import NearestNeighbors
shops = pd.read_csv("shops.csv")"""

SPLIT_AND_SCORE = """feats = shops[['floor', 'area', 'open_date']]
a_tr, a_te, b_tr, b_te = train_test_split(feats, shops['sales'], test_size=0.25, random_state=1)
reg = Ridge().fit(a_tr, b_tr)
# %%
print(reg.score(a_te, b_te))"""

NEIGHBOURS = "base = shops[['floor', 'area']]\n"
CROSS_VALIDATED = "print(cross_val_score(Ridge(), shops[['floor', 'gap']], shops['sales'], cv=KFold(5)).mean())"

# (case id, rule the bad code raises, bad code, good code)
PAIRS = [
    ("value-shifted-by-its-minimum-over-all-rows", "LEAK001",
     "shops['floor'] = shops['floor'] - shops['floor'].min()\n# %%\n" + SPLIT_AND_SCORE,
     "shops['open_date'] = pd.to_datetime(shops['open_date'])\nshops['open_date'] = (shops['open_date'] - shops['open_date'].min()).dt.days\n# %%\n" + SPLIT_AND_SCORE),
    ("dates-ordinal-encoded-over-all-rows", "LEAK001",
     "enc = LabelEncoder()\nshops['open_date'] = enc.fit_transform(shops['open_date'])\n# %%\n" + SPLIT_AND_SCORE,
     "enc = LabelEncoder()\nshops['area'] = enc.fit_transform(shops['area'])\nshops['open_date'] = 0\n# %%\n" + SPLIT_AND_SCORE),
    ("distances-to-neighbours-found-among-all-rows", "LEAK001",
     NEIGHBOURS + "near = NearestNeighbors(n_neighbors=4).fit(base)\nshops['gap'] = near.kneighbors(base)[0].mean(axis=1)\n# %%\n" + CROSS_VALIDATED,
     NEIGHBOURS + "shops['gap'] = base['area'] / base['floor']\n# %%\n" + CROSS_VALIDATED),
]


@pytest.mark.parametrize("case,rule,bad,good", PAIRS, ids=[p[0] for p in PAIRS])
def test_bad_leaks_and_good_is_clean(case: str, rule: str, bad: str, good: str) -> None:
    check_pair(PRELUDE, case, rule, bad, good)
