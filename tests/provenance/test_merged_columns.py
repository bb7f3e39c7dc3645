"""Statistics that reached one named column (`clients['cluster'] = KMeans().fit_predict(...)` over every client)
stay on that column through a `merge`/`join` and an aggregation by a dict of columns: a table built from other
columns carries none of them, and one that keeps the column carries them all. Whole notebooks through the real
engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.cluster import KMeans
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
clients = pd.read_csv("clients.csv")
clients["segment"] = KMeans(n_clusters=4).fit_predict(StandardScaler().fit_transform(clients[["visits", "spend"]]))
orders = pd.read_csv("orders.csv")
"""

SCORE = """X_tr, X_te, y_tr, y_te = train_test_split(X, table["amount"], random_state=0)
print(r2_score(y_te, LinearRegression().fit(X_tr, y_tr).predict(X_te)))"""


def rules(build: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([HEAD + build, SCORE]).findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize("build, leaks", [
    ("table = orders.merge(clients, on='client_id').groupby('client_id').agg({'amount': 'sum', 'age': 'first'})"
     ".reset_index()\nX = table[['age']]", False),
    ("table = orders.merge(clients, on='client_id').groupby('client_id').agg({'amount': 'sum', 'segment': 'first'})"
     ".reset_index()\nX = table[['segment']]", True),
    ("table = orders.merge(clients, on='client_id')\nX = table.drop(columns=['amount', 'segment'])", False),
    ("table = orders.merge(clients, on='client_id')\nX = table.drop(columns=['amount'])", True),
])
def test_a_columns_statistics_follow_it_through_a_merge_and_an_aggregation(build: str, leaks: bool) -> None:
    assert ("LEAK001" in rules(build)) is leaks


LOOKUP = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
sales = pd.read_csv("sales.csv")
new = pd.read_csv("new_weeks.csv")
items = sales[["item", "store"]].drop_duplicates()
new = {merge}
data = pd.concat([sales, new], axis=0)
X_tr, X_te, y_tr, y_te = train_test_split(data.drop(columns="units"), data["units"], random_state=0)
print(r2_score(y_te, LinearRegression().fit(X_tr, y_tr).predict(X_te)))"""


@pytest.mark.parametrize("merge, copies", [
    ("new.merge(items, how='left', on='item')", False),
    ("pd.merge(new, items, how='left', on='item')", False),
    ("new.merge(items, how='outer', on='item')", True),  # every item row joins, matched or not: copies of sales rows
])
def test_a_left_merge_keeps_the_left_frames_rows(merge: str, copies: bool) -> None:
    """`new.merge(items, how='left')` gives `new`'s rows the columns of a lookup table built from `sales`: stacking
    it under `sales` copies none of `sales`' rows."""
    ids = {f.rule_id for f in analyze_sources([LOOKUP.format(merge=merge)]).findings}
    assert ("LEAK002" in ids) is copies
