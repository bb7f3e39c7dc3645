# ruff: noqa: E501  (the bad/good pairs read best one statement per line)
"""Values the interpreter must not lose (or invent) on their way from a fit to a score: a helper's branch on a
parameter left None, rows appended to a frame as a repeated list, lists built empty and filled later, predictions gathered with `+=` or written into a frame's column, estimators of libraries outside
the API table, data of unknown layout indexed by a split's name, numbers that only name or shift columns, and a global frame changed in place by a helper.

Each case is a bad/good pair of whole notebooks (cells separated by `# %%`) run through the real engine."""

from __future__ import annotations

import pytest

from .pairs import check_pair

PRELUDE = """import pickle
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import Ridge, LogisticRegression
from sklearn.metrics import mean_squared_error, accuracy_score, roc_auc_score
df = pd.read_csv("series.csv")"""

LAGGED = """def lagged(frame, k):
    cols = list()
    for i in range(1, k + 1):
        cols.append(frame.shift(i))
    cols.append(frame)
    return pd.concat(cols, axis=1).dropna()
feats = lagged(df[['a', 'b']], 3)
Xtr, Xva, ytr, yva = train_test_split(feats, df['c'].iloc[3:], test_size=0.3)
m = Ridge().fit(Xtr, ytr)
"""

GATHERED = """def report(truth, raw):
    picked = []
    for i in range(len(raw)):
        if raw[i] > 0.5:
            picked += [raw[i]]
        else:
            picked += [0]
    return accuracy_score(truth, picked)
Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['label'], test_size=0.25)
clf = LogisticRegression().fit(Xtr, ytr)
"""

OTHER_LIBRARY = """from factorlib.models import FactorRegression
Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['c'])
fm = FactorRegression(rank=4)
fm.fit(Xtr, ytr)
"""

KEYED = """with open('arrays.pkl', 'rb') as fh:
    store = dict()
    store['digits'] = pickle.load(fh)
Xtr, ytr = store['digits']['x_train'], store['digits']['y_train']
Xte, yte = store['digits']['x_test'], store['digits']['y_test']
clf = LogisticRegression().fit(Xtr, ytr)
"""

COLUMN = """Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['label'], test_size=0.2)
clf = LogisticRegression().fit(Xtr, ytr)
"""

HORIZON = """steps = (df['t'].max() - df['t'].min()).days
target = 'c(t+%d)' % steps
df[target] = df['c'].shift(-steps)
"""

APPENDED = """pos, neg = df[df['label'] == 1], df[df['label'] == 0]
"""

CENTRE = """def centre(frame, means=None):
    if means is None:
        means = frame.mean()
    return frame - means
Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['c'], test_size=0.25, random_state=0)
"""

PER_KEY = """from sklearn.preprocessing import MinMaxScaler
prices = {{"a": df[["a"]].values, "b": df[["b"]].values}}
held = {{}}
sc = MinMaxScaler()
for name, p in prices.items():
    sc.fit(p[:len(p) // 2])
    held[name] = {fit_test}
win = {{"a": [], "b": []}}
nxt = {{"a": [], "b": []}}
for key in list(held.keys()):
    for i in range(30, 200):
        win[key].append(held[key][i - 30:i, 0])
        nxt[key].append(held[key][i, 0])
    win[key], nxt[key] = np.array(win[key]), np.array(nxt[key])
model = Ridge().fit(np.random.rand(100, 30), np.random.rand(100))
for key in list(win.keys()):
    print(mean_squared_error(nxt[key], model.predict(win[key])))"""

# (case id, rule the bad code raises, bad code, good code)
EMBEDDED = """from gensim.models import KeyedVectors
vectors = KeyedVectors.load_word2vec_format("vectors.txt")
def embed(text, size=8):
    vec = np.zeros(size).reshape((1, size))
    for w in text.split():
        vec += vectors[w].reshape((1, size))
    return vec
Xtr, Xte, ytr, yte = train_test_split(df['text'], df['label'], random_state=0)
Etr = np.concatenate([embed(t) for t in Xtr])
Ete = np.concatenate([embed(t) for t in Xte])
clf = LogisticRegression().fit(Etr, ytr)
"""

CLASSES = """from sklearn.tree import DecisionTreeClassifier
Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['label'], random_state=0)
kinds = {'tree': DecisionTreeClassifier, 'logistic': LogisticRegression}
for name, kind in kinds.items():
    m = kind()
    m.fit(Xtr, ytr)
"""

LISTED = """from sklearn.ensemble import RandomForestClassifier
new = pd.read_csv("new.csv")
new["fare"] = new["fare"].fillna(new["fare"].mean())
cols = {kept}
{grow}clf = RandomForestClassifier().fit(df[cols], df["label"])
print(accuracy_score(new["label"], clf.predict(new[cols])))
"""

INPLACE = """from sklearn.ensemble import RandomForestClassifier
new = pd.read_csv("new.csv")
new.loc[:, "fare"].fillna(new[new["b"] == 3]["fare"].mean(), inplace=True)
clf = RandomForestClassifier().fit(df[{kept}], df["label"])
print(accuracy_score(new["label"], clf.predict(new[{kept}])))
"""

BANDS = """tr, te = train_test_split(df, random_state=0)
_, bins = pd.qcut({source}, 4, retbins=True)
for part in [tr, te]:
    part["band"] = 0
    for i in range(1, 4):
        part.loc[part["a"] >= bins[i], "band"] = i
m = LogisticRegression().fit(tr[["band", "b"]], tr["label"])
print(m.score(te[["band", "b"]], te["label"]))
"""

PAIRS = [
    ("a-branch-on-a-parameter-left-none-runs-alone", "LEAK001",
     CENTRE + "m = Ridge().fit(centre(Xtr), ytr)\nprint(m.score(centre(Xte), yte))",
     CENTRE + "m = Ridge().fit(centre(Xtr), ytr)\nprint(m.score(centre(Xte, Xtr.mean()), yte))"),
    ("rows-appended-as-repeated-list-items", "LEAK002",
     APPENDED + "bal = neg.append([pos] * 3, ignore_index=True)\nXtr, Xte, ytr, yte = train_test_split(bal[['a', 'b']], bal['label'])\n"
     "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
     "Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['label'])\ntr = pd.concat([Xtr, ytr], axis=1)\n"
     "bal = tr.append([tr[tr['label'] == 1]] * 3, ignore_index=True)\n"
     "print(LogisticRegression().fit(bal[['a', 'b']], bal['label']).score(Xte, yte))"),
    ("list-built-empty-and-appended-in-a-helper", "LEAK007",
     LAGGED + "print(mean_squared_error(ytr, m.predict(Xtr)))",
     LAGGED + "print(mean_squared_error(yva, m.predict(Xva)))"),
    ("predictions-gathered-with-plus-equals", "LEAK007",
     GATHERED + "print(report(ytr, clf.predict(Xtr)))",
     GATHERED + "print(report(yte, clf.predict(Xte)))"),
    ("estimator-of-a-library-outside-the-table", "LEAK007",
     OTHER_LIBRARY + "print(mean_squared_error(ytr, fm.predict(Xtr)))",
     OTHER_LIBRARY + "print(mean_squared_error(yte, fm.predict(Xte)))"),
    ("unknown-layout-data-indexed-by-split-names", "LEAK007",
     KEYED + "print(accuracy_score(ytr, clf.predict(Xtr)))",
     KEYED + "print(accuracy_score(yte, clf.predict(Xte)))"),
    ("predictions-written-into-a-frame-column", "LEAK007",
     COLUMN + "res = pd.DataFrame({'y': ytr})\n# %%\nres['pred'] = clf.predict_proba(Xtr)[:, 1]\n# %%\nprint(roc_auc_score(res['y'], res['pred']))",
     COLUMN + "res = pd.DataFrame({'y': yte})\n# %%\nres['pred'] = clf.predict_proba(Xte)[:, 1]\n# %%\nprint(roc_auc_score(res['y'], res['pred']))"),
    ("statistic-in-a-column-name-or-a-shift-is-no-feature", "LEAK001",
     HORIZON + "df['a'] = df['a'] / df['a'].max()\nX, y = df[['a', 'b']].iloc[:-steps], df[target].iloc[:-steps]\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     HORIZON + "X, y = df[['a', 'b']].iloc[:-steps], df[target].iloc[:-steps]\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("a-list-of-frames-joined-at-once", "LEAK001",
     "from sklearn.model_selection import cross_val_score\ngrp = pd.DataFrame()\ngrp['med'] = df.groupby('b')['a'].transform('median')\nX = df[['a']].join([grp])\n"
     "print(cross_val_score(Ridge(), X, df['c'], cv=5))",
     "from sklearn.model_selection import cross_val_score\ngrp = pd.DataFrame()\ngrp['twice'] = df['a'] * 2\nX = df[['a']].join([grp])\n"
     "print(cross_val_score(Ridge(), X, df['c'], cv=5))"),
    ("a-metric-helper-from-another-module", "LEAK007",
     "from project.evaluation import calculate_metrics, plotPredictions\nXtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['c'])\n"
     "m = Ridge().fit(Xtr, ytr)\nprint(calculate_metrics(ytr, m.predict(Xtr)))\nplotPredictions(ytr, m.predict(Xtr))",
     "from project.evaluation import calculate_metrics, plotPredictions\nXtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['c'])\n"
     "m = Ridge().fit(Xtr, ytr)\nprint(calculate_metrics(yte, m.predict(Xte)))\nplotPredictions(ytr, m.predict(Xtr))"),
    ("a-model-given-to-a-scoring-helper-from-another-module", "LEAK007",
     "import project.report as rp\nXtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['c'])\n"
     "m = LogisticRegression().fit(Xtr, ytr)\nrp.print_metrics(m, Xtr, ytr)",
     "import project.report as rp\nXtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['c'])\n"
     "m = LogisticRegression().fit(Xtr, ytr)\nrp.print_metrics(m, Xte, yte)"),
    ("values-of-a-table-from-a-project-loader", "LEAK001",
     "import project.data as pdata\nraw = pdata.get_song_table()\nX, y = raw.values[:, :5], raw['hit']\n"
     "X = (X - X.mean(axis=0)) / X.std(axis=0)\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
     "import project.data as pdata\nraw = pdata.get_song_table()\nX, y = raw.values[:, :5], raw['hit']\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nmu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)\n"
     "print(LogisticRegression().fit((Xtr - mu) / sd, ytr).score((Xte - mu) / sd, yte))"),
    ("windows-yielded-then-stacked-from-a-list-of-lists", "LEAK007",
     "def windows(frame, n):\n    m = frame[['a', 'b']].values\n    for s, e in zip(range(0, len(m) - n), range(n, len(m))):\n"
     "        yield m[s:e, :]\nfit_part, hold_part = df.iloc[:800], df.iloc[800:]\n"
     "W = np.concatenate(list([list(windows(fit_part, 20))])).astype(np.float32)\n"
     "V = np.concatenate(list([list(windows(hold_part, 20))])).astype(np.float32)\n"
     "m = Ridge().fit(W.reshape(len(W), -1), fit_part['c'].values[20:])\n"
     "print(mean_squared_error(fit_part['c'].values[20:], m.predict(W.reshape(len(W), -1))))",
     "def windows(frame, n):\n    m = frame[['a', 'b']].values\n    for s, e in zip(range(0, len(m) - n), range(n, len(m))):\n"
     "        yield m[s:e, :]\nfit_part, hold_part = df.iloc[:800], df.iloc[800:]\n"
     "W = np.concatenate(list([list(windows(fit_part, 20))])).astype(np.float32)\n"
     "V = np.concatenate(list([list(windows(hold_part, 20))])).astype(np.float32)\n"
     "m = Ridge().fit(W.reshape(len(W), -1), fit_part['c'].values[20:])\n"
     "print(mean_squared_error(hold_part['c'].values[20:], m.predict(V.reshape(len(V), -1))))"),
    ("tables-from-a-project-helper-given-to-a-split", "LEAK007",
     "from prep import preprocess\nfeats, target = preprocess()\nXtr, Xte, ytr, yte = train_test_split(feats, target)\n"
     "m = Ridge().fit(Xtr, ytr)\nprint(mean_squared_error(ytr, m.predict(Xtr)))",
     "from prep import preprocess\nfeats, target = preprocess()\nXtr, Xte, ytr, yte = train_test_split(feats, target)\n"
     "m = Ridge().fit(Xtr, ytr)\nprint(mean_squared_error(yte, m.predict(Xte)))"),
    ("features-kept-by-their-correlation-with-the-label-over-all-rows", "LEAK001",
     "cor = df.corr()\nstrength = abs(cor['c'])\nkeep = [k for k in strength[strength > 0.2].index]\nkeep.remove('c')\n"
     "Xtr, Xte, ytr, yte = train_test_split(df[keep], df['c'])\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['c'])\ncor = pd.concat([Xtr, ytr], axis=1).corr()\n"
     "strength = abs(cor['c'])\nkeep = [k for k in strength[strength > 0.2].index]\nkeep.remove('c')\n"
     "print(Ridge().fit(Xtr[keep], ytr).score(Xte[keep], yte))"),
    ("rows-mapped-one-by-one-by-a-comprehension", "LEAK007",
     EMBEDDED + "print(accuracy_score(ytr, clf.predict(Etr)))",
     EMBEDDED + "print(accuracy_score(yte, clf.predict(Ete)))\nkept = [embed(t) for t in Xte if len(t) > 3]"),
    ("estimator-classes-kept-uncalled-in-a-dict", "LEAK007",
     CLASSES + "    print(name, accuracy_score(ytr, m.predict(Xtr)))",
     CLASSES + "    print(name, accuracy_score(yte, m.predict(Xte)))"),
    ("columns-kept-by-a-list-bound-to-a-name", "LEAK001",
     LISTED.format(kept="['a', 'fare']", grow=""),
     LISTED.format(kept="['a', 'b']", grow="")),
    ("a-column-filled-in-place-reaches-only-the-features-that-use-it", "LEAK001",
     INPLACE.format(kept="['a', 'fare']"), INPLACE.format(kept="['a', 'b']")),
    ("a-band-written-by-a-mask-of-learned-bins", "LEAK001",
     BANDS.format(source="df['a']"), BANDS.format(source="tr['a']")),
    ("a-global-frame-filled-in-place-by-a-helper", "LEAK001",
     "def impute(col):\n    df[col] = df[col].fillna(df[col].mode()[0])\n# %%\nfor c in ['a', 'b']:\n    impute(c)\n"
     "Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['label'])\nprint(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
     "def impute(col):\n    frame = df.copy()\n    frame[col] = frame[col].fillna(frame[col].mode()[0])\n# %%\nfor c in ['a', 'b']:\n    impute(c)\n"
     "Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['label'])\nprint(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))"),
    ("windows-appended-to-lists-in-a-dict-per-key", "LEAK001",
     PER_KEY.format(fit_test="sc.fit_transform(p[len(p) // 2:])"),
     PER_KEY.format(fit_test="sc.transform(p[len(p) // 2:])")),
]


@pytest.mark.parametrize("case,rule,bad,good", PAIRS, ids=[p[0] for p in PAIRS])
def test_bad_leaks_and_good_is_clean(case: str, rule: str, bad: str, good: str) -> None:
    check_pair(PRELUDE, case, rule, bad, good)


def test_models_compared_on_rows_mapped_by_a_comprehension_share_the_test_rows() -> None:
    """Each comprehension keeps the rows it iterates: two models scored on the mapped test texts are compared on
    the same test rows."""
    from jupyter_trainguard.engine import analyze_sources
    code = EMBEDDED + "for m in [LogisticRegression(), Ridge()]:\n    print(m.fit(Etr, ytr).score(Ete, yte))"
    assert "LEAK005" in {f.rule_id for f in analyze_sources([PRELUDE, code]).findings}


PREALLOCATED = """def embed(texts):
    out = np.zeros((len(texts), 8))
    for i, t in enumerate(texts):
        out[i, :] = len(t)
    return out
texts, labels = df['text'], df['label']
m = LogisticRegression().fit(embed(texts[:800]), labels[:800])
# %%
print(accuracy_score(labels[{part}], m.predict(embed(texts[{part}]))))"""


@pytest.mark.parametrize("part, leaks", [(":800", True), ("800:", False)])
def test_a_matrix_allocated_per_row_of_its_input_keeps_those_rows(part: str, leaks: bool) -> None:
    """`np.zeros((len(texts), 8))` filled row by row holds a row for each text: features built again for the
    training texts are the training rows."""
    from .pairs import leak_ids
    assert ("LEAK007" in leak_ids(PRELUDE, PREALLOCATED.format(part=part))) is leaks


def test_a_column_list_grown_in_place_selects_what_it_holds_then() -> None:
    """`cols.append('fare')` after `cols = ['a', 'b']`: the list now holds the imputed column, and only then."""
    from .pairs import leak_ids
    assert "LEAK001" in leak_ids(PRELUDE, LISTED.format(kept="['a', 'b']", grow="cols.append('fare')\n"))
    assert not leak_ids(PRELUDE, LISTED.format(kept="['a', 'b', 'fare']", grow="cols.remove('fare')\n"))


WINDOWED = """from sklearn.preprocessing import MinMaxScaler
values = df[['close']].values
{scale}
class Windows:
    def __init__(self, data, k):
        self.data, self.k = data, k
    def build(self):
        self.w = np.empty((len(self.data) - self.k, self.k + 1, 1))
        for i in range(len(self.data) - self.k):
            self.w[i, :, :] = self.data[i:i + self.k + 1, :]
        return self.w
{windows}
m = Ridge().fit(Wtr[:, :-1, 0], Wtr[:, -1, 0])
print(mean_squared_error(Wte[:, -1, 0], m.predict(Wte[:, :-1, 0])))"""


@pytest.mark.parametrize("scale, windows, leaks", [
    ("scaled = MinMaxScaler().fit_transform(values)",
     "W = Windows(scaled, 10).build()\nWtr, Wte = W[:-100], W[-100:]", True),
    ("sc = MinMaxScaler().fit(values[:800])\ntr, te = sc.transform(values[:800]), sc.transform(values[800:])",
     "Wtr, Wte = Windows(tr, 10).build(), Windows(te, 10).build()", False)])
def test_a_matrix_allocated_empty_holds_the_windows_written_into_it(scale: str, windows: str, leaks: bool) -> None:
    """`W = np.empty((n - k, k + 1, 1))` filled with `W[i] = X[i:i + k + 1]`: its rows are the rows of `X`, so
    a scaler fitted on all of `X` reaches the windows cut off for testing."""
    from .pairs import leak_ids
    assert ("LEAK001" in leak_ids(PRELUDE, WINDOWED.format(scale=scale, windows=windows))) is leaks


def test_predictions_written_into_a_row_of_an_allocation_are_no_rows_of_it() -> None:
    """`oof[i, :] = clf.predict(X_te)` stores one fold's predictions of every test row in one row: the matrix's
    rows are folds, and its mean over them (`axis=0`) learns nothing from the test rows."""
    from .pairs import leak_ids
    code = ("from sklearn.model_selection import KFold\nX, y = df[['a', 'b']].values, df['label'].values\n"
            "X_tr, X_te, y_tr, y_te = X[:800], X[800:], y[:800], y[800:]\noof = np.zeros((5, len(X_te)))\n"
            "for i, (a, b) in enumerate(KFold(5).split(X_tr)):\n"
            "    oof[i, :] = Ridge().fit(X_tr[a], y_tr[a]).predict(X_te)\n"
            "blend = oof.mean(axis=0)\nprint(mean_squared_error(y_te, blend))")
    assert "LEAK001" not in leak_ids(PRELUDE, code)


def test_a_table_from_an_unknown_reader_is_known_by_its_columns() -> None:
    """`raw = ticker.history(...)` (a library the analysis does not know) indexed by a list of column names bound to
    a name is a table: a scaler fitted on all of it before the split leaks."""
    from .pairs import leak_ids
    code = ("import yfinance as yf\ncols = ['open', 'close']\nraw = yf.Ticker('ABC').history(start='2020-01-01')\n"
            "X = MinMaxScaler().fit_transform(raw[cols])\nXtr, Xte, ytr, yte = train_test_split(X, raw['y'])\n"
            "print(mean_squared_error(yte, Ridge().fit(Xtr, ytr).predict(Xte)))")
    assert "LEAK001" in leak_ids(PRELUDE + "\nfrom sklearn.preprocessing import MinMaxScaler", code)
