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
