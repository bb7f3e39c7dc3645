"""A fitted transformer read inside a lambda given to `apply`/`map` (`df.text.apply(lambda t: mean_vector(t, w2v))`,
`lambda t: tfidf.transform([t])`): each row's output carries what it learned, so one fitted on every row before the
split reaches the test rows' features; a lambda's own parameter is the row's value, never a fitted object."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from gensim.models import Word2Vec
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
reviews = pd.read_csv("reviews.csv")
def mean_vector(text, model):
    words = [w for w in text.split() if w in model.wv]
    return np.mean([model.wv[w] for w in words], axis=0) if words else np.zeros(model.vector_size)
"""
TAIL = """X = np.vstack(reviews["vec"].values)
X_tr, X_te, y_tr, y_te = train_test_split(X, reviews["stars"], random_state=4)
clf = LogisticRegression(max_iter=500).fit(X_tr, y_tr)
print(clf.score(X_te, y_te))"""


def leaks(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources(list(cells)).findings if f.rule_id.startswith("LEAK"))


def test_an_embedding_trained_on_every_review_then_applied_row_by_row_before_the_split() -> None:
    every = ("w2v = Word2Vec(sentences=[t.split() for t in reviews['text']], vector_size=50, min_count=1)\n"
             "reviews['vec'] = reviews['text'].apply(lambda t: mean_vector(t, w2v))\n")
    assert leaks(HEAD + every, TAIL) == ["LEAK001"]


def test_a_lambda_reading_no_fitted_object_carries_nothing() -> None:
    plain = ("w2v = Word2Vec(sentences=[t.split() for t in reviews['text']], vector_size=50, min_count=1)\n"
             "reviews['vec'] = reviews['text'].apply(lambda w2v: np.array([len(w2v), w2v.count(' ')]))\n")
    assert leaks(HEAD + plain, TAIL) == []
