"""A labelled test file read on its own is a test set: no model is trained on it, a metric scores it, and it is
scored after every split part (which then were validation sets). A file only predicted (a submission) is not."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.metrics import accuracy_score
train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
X, y = train.drop(columns="y"), train["y"]"""

COMPARE_ON_FILE = """Xt, yt = test.drop(columns="y"), test["y"]
for m in [LogisticRegression(), RandomForestClassifier()]:
    m.fit(X, y)
    print(accuracy_score(yt, m.predict(Xt)))"""

TUNE_ON_VALIDATION = """Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.25, random_state=0)
scores = []
for d in [2, 4, 8]:
    scores.append(DecisionTreeClassifier(max_depth=d).fit(Xtr, ytr).score(Xva, yva))
best = [2, 4, 8][scores.index(max(scores))]"""


def multi_test(*cells: str) -> set[str]:
    found = analyze_sources([PRELUDE, *cells]).findings
    return {f.rule_id for f in found if f.rule_id in ("LEAK004", "LEAK005")}


def test_models_compared_on_a_labelled_test_file() -> None:
    assert multi_test(COMPARE_ON_FILE) == {"LEAK005"}


def test_tuning_on_a_validation_split_before_the_test_file_is_scored_once() -> None:
    final = ("m = DecisionTreeClassifier(max_depth=best).fit(Xtr, ytr)\n"
             "print(accuracy_score(test['y'], m.predict(test.drop(columns='y'))))")
    assert not multi_test(TUNE_ON_VALIDATION, final)


def test_a_test_file_only_predicted_leaves_the_split_part_final() -> None:
    submit = "pd.DataFrame({'y': DecisionTreeClassifier(max_depth=best).fit(X, y).predict(test)}).to_csv('s.csv')"
    assert multi_test(TUNE_ON_VALIDATION, submit) == {"LEAK004"}


def test_a_file_trained_on_is_no_test_set() -> None:
    both = ("full = pd.concat([train, test])\nXf, yf = full.drop(columns='y'), full['y']\n"
            "for m in [LogisticRegression(), RandomForestClassifier()]:\n    m.fit(Xf, yf)\n"
            "    print(accuracy_score(test['y'], m.predict(test.drop(columns='y'))))")
    assert not multi_test(both)


IMAGES = """from tensorflow import keras
from keras.preprocessing.image import ImageDataGenerator
from keras.callbacks import EarlyStopping
gen = ImageDataGenerator(rescale=1 / 255)
train_flow = gen.flow_from_directory("photos/train", target_size=(64, 64))
held_flow = gen.flow_from_directory("photos/held", target_size=(64, 64))
net = keras.Sequential([keras.layers.Flatten(), keras.layers.Dense(5, activation="softmax")])
net.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
net.fit_generator(generator=train_flow, validation_data=held_flow, epochs=30, callbacks=[EarlyStopping(patience=3)])"""


def test_a_folder_of_images_watched_with_early_stopping_is_the_held_out_set() -> None:
    """The only held-out folder decides when training stops: it is chosen by, so it cannot score the result."""
    found = [f for f in analyze_sources([IMAGES]).findings if f.rule_id == "LEAK004"]
    assert len(found) == 1 and "`held_flow`" in found[0].message


def test_a_later_folder_scored_once_makes_the_watched_one_a_validation_set() -> None:
    final = ('last_flow = gen.flow_from_directory("photos/last", target_size=(64, 64))\n'
             "print(net.evaluate(last_flow))")
    assert "LEAK004" not in {f.rule_id for f in analyze_sources([IMAGES, final]).findings}


POOL = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
train = pd.read_csv("train.csv")
unlabelled = pd.read_csv("unlabelled.csv")
n = len(train)
y = train.pop("y")
both = pd.get_dummies(pd.concat([train, unlabelled]))
labelled, new_rows = both[:n], both[n:]
X_tr, X_te, y_tr, y_te = train_test_split(labelled, y, test_size=0.2, random_state=0)
for m in [LogisticRegression(), RandomForestClassifier()]:
    m.fit(X_tr, y_tr)
    print(accuracy_score(y_te, m.predict(X_te)))"""


def test_a_split_of_the_labelled_rows_cut_from_a_stacked_frame_is_the_test_set() -> None:
    """`both[:n]` only recovers the labelled rows: the rows after the cut are never scored, so the split of the
    labelled rows holds out the only test set there is, and the models compared on it are chosen by it."""
    submit = "pd.DataFrame({'y': m.predict(new_rows)}).to_csv('s.csv')"
    assert multi_test_of(POOL, submit) == {"LEAK005"}


def test_the_same_cut_is_a_training_side_when_the_rows_after_it_are_scored() -> None:
    """When the rows after the cut are labelled and scored last, they are the test set and the split before it
    holds out a validation set: comparing models there is what it is for."""
    scored = ("y_new = pd.read_csv('new_labels.csv')['y']\n"
              "print(accuracy_score(y_new, RandomForestClassifier().fit(labelled, y).predict(new_rows)))")
    assert multi_test_of(POOL, scored) == set()
    time_cut = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
                "from sklearn.linear_model import LogisticRegression\nfrom sklearn.ensemble import "
                "RandomForestClassifier\nfrom sklearn.metrics import accuracy_score\n"
                "df = pd.read_csv('days.csv')\nX, y = df.drop(columns='y'), df['y']\n"
                "X_pool, X_last, y_pool, y_last = X[:-100], X[-100:], y[:-100], y[-100:]\n"
                "X_tr, X_va, y_tr, y_va = train_test_split(X_pool, y_pool, test_size=0.2, random_state=0)\n"
                "for m in [LogisticRegression(), RandomForestClassifier()]:\n"
                "    print(accuracy_score(y_va, m.fit(X_tr, y_tr).predict(X_va)))")
    final = "print(accuracy_score(y_last, RandomForestClassifier().fit(X_pool, y_pool).predict(X_last)))"
    assert multi_test_of(time_cut, final) == set()
    assert multi_test_of(time_cut) == set()  # kept aside untouched: a test set for later


def test_a_cut_that_only_samples_rows_leaves_them_the_pool() -> None:
    """`both[:5000]` takes a sample and never the rest: a split of the sample holds out the only test set."""
    sample = POOL.replace("labelled, new_rows = both[:n], both[n:]", "labelled = both[:n][:5000]\ny = y[:5000]")
    assert multi_test_of(sample) == {"LEAK005"}


def multi_test_of(*cells: str) -> set[str]:
    found = analyze_sources(list(cells)).findings
    return {f.rule_id for f in found if f.rule_id in ("LEAK004", "LEAK005")}


EXTRACTED = """import json
import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.metrics import f1_score

def features(path):
    rows = json.load(open(path))
    return np.array([[r["a"], r["b"]] for r in rows]), np.array([r["label"] for r in rows])

X_tr, y_tr = features("train.json")
X_te, y_te = features("final.json")
extra = np.array([len(str(v)) for v in X_te[:, 0]]).reshape(-1, 1)
X_te = np.hstack((X_te, extra))
X_tr = np.hstack((X_tr, np.array([len(str(v)) for v in X_tr[:, 0]]).reshape(-1, 1)))"""


def test_a_test_matrix_built_from_features_extracted_apart_is_a_test_set() -> None:
    """Rows built by the notebook (not read by a reader the table knows), never trained on and scored with
    their labels, are a test set like a labelled file: two models compared there are chosen by it."""
    compare = ("for m in [RandomForestClassifier(random_state=0), GaussianNB()]:\n"
               "    print(f1_score(y_te, m.fit(X_tr, y_tr).predict(X_te), average='macro'))")
    once = "print(f1_score(y_te, GaussianNB().fit(X_tr, y_tr).predict(X_te), average='macro'))"
    assert multi_test_of(EXTRACTED, compare) == {"LEAK005"}
    assert multi_test_of(EXTRACTED, once) == set()


HEAD_HELD = """import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier
df = pd.read_csv("ratings.csv")
A, s = df[["a", "b"]].values, df["s"].values
A_fit, s_fit, A_held, s_held = A[1000:], s[1000:], A[:1000], s[:1000]
for k in range(1, 8):
    knn = KNeighborsClassifier(n_neighbors=k).fit(A_fit, s_fit)
    print(k, (knn.predict(A_held) == s_held).mean())"""


def test_the_first_rows_of_a_cut_are_held_out_when_models_train_on_the_rest() -> None:
    """Which side of a cut is held out is decided by what the models train on, not by position: scoring each
    setting on the head of the rows after training on the tail chooses the setting by the held-out rows."""
    assert multi_test_of(HEAD_HELD) == {"LEAK004"}
    mirrored = HEAD_HELD.replace("A[1000:], s[1000:], A[:1000], s[:1000]", "A[:1000], s[:1000], A[1000:], s[1000:]")
    assert multi_test_of(mirrored) == {"LEAK004"}


FOLD_WINDOWS = """import numpy as np
import pandas as pd
from sklearn.model_selection import TimeSeriesSplit
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_squared_error
import market_feed
series = market_feed.download("prices")  # a library the analysis does not know: its rows are unknown

def windows(values, k):
    X, y = [], []
    for i in range(k, len(values)):
        X.append(values[i - k:i, 0])
        y.append(values[i, 0])
    X, y = np.array(X), np.array(y)
    return X, y

for k in [5, 10, 20]:
    errors = []
    for tr, te in TimeSeriesSplit(n_splits=4).split(series):
        X_tr, y_tr = windows(series[tr], k)
        X_te, y_te = windows(series[te], k)
        m = Ridge().fit(X_tr, y_tr)
        errors.append(mean_squared_error(y_te, m.predict(X_te)))
    print(k, np.mean(errors))"""


def test_rows_built_inside_a_fold_loop_are_cross_validation_not_a_test_file() -> None:
    """Windows rebuilt from each fold of unknown data by a helper carry no fold identity, but they are built per
    fold: choosing the window length by their mean error is cross-validation, not a choice on a test set."""
    assert multi_test_of(FOLD_WINDOWS) == set()


SPLIT_HELD_AGAIN = """Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
Xte, Xva, yte, yva = train_test_split(Xte, yte, test_size=0.5, random_state=0)
best, best_acc = 1, 0.0
for d in [2, 4, 8]:
    acc = DecisionTreeClassifier(max_depth=d).fit(Xtr, ytr).score({first}, {first_y})
    if acc > best_acc:
        best, best_acc = d, acc
final = DecisionTreeClassifier(max_depth=best).fit(Xtr, ytr)
print(accuracy_score({last_y}, final.predict({last})))"""


def test_held_out_rows_split_again_make_the_part_scored_last_the_test_set() -> None:
    """Held-out rows split again give two held-out sets, whichever the split calls its test part: the one scored
    after the choice is the test set, and the setting chosen on the other is built once more and scored once."""
    tuned_on_second_part = SPLIT_HELD_AGAIN.format(first="Xva", first_y="yva", last="Xte", last_y="yte")
    assert multi_test(tuned_on_second_part) == set()
    tuned_on_first_part = SPLIT_HELD_AGAIN.format(first="Xte", first_y="yte", last="Xva", last_y="yva")
    assert multi_test(tuned_on_first_part) == set()
    glance = "print(DecisionTreeClassifier().fit(Xtr, ytr).score(Xva, yva))\n"
    tuned_on_the_part_scored_last = SPLIT_HELD_AGAIN.format(first="Xte", first_y="yte", last="Xte", last_y="yte")
    tuned_on_the_part_scored_last = tuned_on_the_part_scored_last.replace("best, best_acc", glance + "best, best_acc")
    assert "LEAK004" in multi_test(tuned_on_the_part_scored_last)


def test_a_search_fitted_on_the_test_part_stays_a_choice_on_the_test_set() -> None:
    """A model fitted on a split's test part does not make it a training part: a search fitted there chooses by
    the rows the final model is then scored on."""
    search = ("from sklearn.model_selection import GridSearchCV\n"
              "Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)\n"
              "grid = GridSearchCV(DecisionTreeClassifier(), {'max_depth': [2, 4, 8]}, cv=3).fit(Xte, yte)\n"
              "m = DecisionTreeClassifier(**grid.best_params_).fit(Xtr, ytr)\nprint(m.score(Xte, yte))")
    assert "LEAK004" in multi_test(search)


SPLIT_BY_LOOP = """from sklearn.model_selection import StratifiedShuffleSplit
sss = StratifiedShuffleSplit(n_splits=1, test_size=0.2, random_state=0)
for tr, te in sss.split(train, train["y"]):
{body}
Xa, ya = part_a.drop(columns="y"), part_a["y"]
Xb, yb = part_b.drop(columns="y"), part_b["y"]
for m in [LogisticRegression(), RandomForestClassifier()]:
    m.fit(Xa, ya)
    print(accuracy_score(yb, m.predict(Xb)))"""


def test_a_splitter_loop_that_only_takes_the_parts_makes_one_split() -> None:
    """`for tr, te in sss.split(df, df.y): train, test = df.loc[tr], df.loc[te]` is one split whose test part is
    then compared on; a loop that fits in each pass is cross-validation."""
    taken = "    part_a = train.loc[tr]\n    part_b = train.loc[te]"
    assert multi_test(SPLIT_BY_LOOP.format(body=taken)) == {"LEAK005"}
    fitted = taken + "\n    print(LogisticRegression().fit(part_a.drop(columns='y'), part_a['y']).score(" \
                     "part_b.drop(columns='y'), part_b['y']))"
    assert multi_test(SPLIT_BY_LOOP.format(body=fitted)) == set()


THRESHOLD = """from sklearn.metrics import precision_recall_curve, f1_score
import numpy as np
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
m = LogisticRegression().fit(Xtr, ytr)
p = m.predict_proba(Xte)[:, 1]
prec, rec, thr = precision_recall_curve(yte, p)
{pick}
print(f1_score(yte, (p >= t).astype(int)))"""


def test_a_threshold_picked_on_the_test_rows_curve_is_a_choice_on_them() -> None:
    """A precision-recall (or ROC) curve is one score per decision threshold: the best of them, picked on the
    only held-out rows, tunes the threshold on the test set. A threshold fixed in advance picks nothing."""
    assert "LEAK004" in multi_test(THRESHOLD.format(pick="t = thr[np.argmax(2 * prec * rec / (prec + rec + 1e-9))]"))
    assert multi_test(THRESHOLD.format(pick="t = 0.5")) == set()


MIDDLE = """import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import r2_score
df = pd.read_csv("prices.csv")
train, held = df.iloc[:700], df.iloc[700:900]
for m in [Ridge(), RandomForestRegressor()]:
    m.fit(train[['a', 'b']], train['y'])
    print(r2_score(held['y'], m.predict(held[['a', 'b']])))
{final}"""


def test_a_middle_slice_scored_last_is_the_test_set() -> None:
    """`df.iloc[700:900]` no model is trained on, and no later part scored: comparing models there is choosing on
    the test rows; with the rows after it scored once at the end it is a validation part."""
    found = {f.rule_id for f in analyze_sources([MIDDLE.format(final="")]).findings}
    assert "LEAK005" in found
    later = "test = df.iloc[900:]\nprint(r2_score(test['y'], m.predict(test[['a', 'b']])))"
    assert "LEAK005" not in {f.rule_id for f in analyze_sources([MIDDLE.format(final=later)]).findings}


def test_a_middle_slice_before_a_tail_kept_aside_is_a_validation_part() -> None:
    """`test = df.iloc[900:]` bound and never scored yet: the author reserved it, so the middle part the models
    are compared on is a validation part (a tail nobody names, `df.iloc[900:]` unused, reserves nothing)."""
    kept = "test = df.iloc[900:]"
    assert "LEAK005" not in {f.rule_id for f in analyze_sources([MIDDLE.format(final=kept)]).findings}
    unused = "print(len(df.iloc[900:]))"
    assert "LEAK005" in {f.rule_id for f in analyze_sources([MIDDLE.format(final=unused)]).findings}


UNKNOWN_READER = """import pandas as pd
import lakehouse
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
train = pd.read_csv("train.csv")
held = lakehouse.catalog().query("part == 'holdout'")
X, y = train[["a", "b"]], train["y"]
Xt, yt = held[["a", "b"]], held["y"]
for m in [LogisticRegression(), RandomForestClassifier()]:
    m.fit(X, y)
    print(accuracy_score(yt, m.predict(Xt)))"""


def test_models_compared_on_a_table_from_an_unknown_reader() -> None:
    """A table no known reader made (known as a table by its use), never trained on and scored after everything
    else, is a test set as a labelled test file is."""
    assert multi_test(UNKNOWN_READER) == {"LEAK005"}
    trained_on_it = UNKNOWN_READER.replace("m.fit(X, y)", "m.fit(Xt, yt)")
    assert "LEAK005" not in multi_test(trained_on_it)


def test_a_model_fitted_and_scored_on_the_test_file_by_mistake_leaves_it_the_test_file_of_the_others() -> None:
    blunder = ("Xt, yt = test.drop(columns='y'), test['y']\n"
               "odd = DecisionTreeClassifier().fit(Xt, yt)\nprint(odd.score(Xt, yt))")
    assert multi_test(COMPARE_ON_FILE, blunder) == {"LEAK005"}
    trained_on = ("Xt, yt = test.drop(columns='y'), test['y']\n"
                  "both = DecisionTreeClassifier().fit(Xt, yt)\nprint(both.score(X, y))")
    assert not multi_test(COMPARE_ON_FILE, trained_on)  # (a model trained on it and scored elsewhere: a training file)
    own_rows = ("from sklearn.model_selection import GridSearchCV\n"
                "lr = LogisticRegression().fit(X, y)\nprint(lr.score(X, y))\n"
                "grid = GridSearchCV(DecisionTreeClassifier(), {'max_depth': [2, 4]}, cv=5).fit(X, y)\n"
                "print(grid.score(X, y))")
    assert not multi_test(own_rows)  # (the training file scored only by its own models is no test file)


def test_models_compared_on_a_test_file_then_the_chosen_one_refitted_on_every_row() -> None:
    """The chosen model refitted on the training and test rows together, only to be saved, comes after the
    comparison: the test file was still unseen when it chose, so it is the test set the comparison used."""
    refit = ("full_X = pd.concat([X, test.drop(columns='y')])\nfull_y = pd.concat([y, test['y']])\n"
             "final = RandomForestClassifier().fit(full_X, full_y)")
    assert multi_test(COMPARE_ON_FILE, refit) == {"LEAK005"}
    scored_again = refit + "\nprint(accuracy_score(test['y'], final.predict(test.drop(columns='y'))))"
    assert "LEAK005" not in multi_test(COMPARE_ON_FILE, scored_again)  # then it is training data of a scored model


TWO_PIPELINES = """import numpy as np
from sklearn.linear_model import Ridge
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_squared_error
Xa, ya = np.load("tab_train_X.npy"), np.load("tab_train_y.npy")
Xa_test, ya_test = np.load("tab_test_X.npy"), np.load("tab_test_y.npy")
Xs, ys = np.load("seq_train_X.npy"), np.load("seq_train_y.npy")
Xs_test, ys_test = np.load("seq_test_X.npy"), np.load("seq_test_y.npy")"""

TAB_MODELS_COMPARED = """for m in [Ridge(), RandomForestRegressor()]:
    m.fit(Xa, ya)
    print(mean_squared_error(ya_test, m.predict(Xa_test)))"""

SEQ_MODEL_SCORED = """seq = Ridge().fit(Xs.reshape(len(Xs), -1), ys)
print(mean_squared_error(ys_test, seq.predict(Xs_test.reshape(len(Xs_test), -1))))"""


def test_models_compared_on_the_test_file_of_one_pipeline_before_another_pipeline_is_scored() -> None:
    found = analyze_sources([TWO_PIPELINES, TAB_MODELS_COMPARED, SEQ_MODEL_SCORED]).findings
    assert {(f.rule_id, f.location.cell) for f in found if f.rule_id in ("LEAK004", "LEAK005")} == {("LEAK005", 1)}


def test_a_validation_file_of_the_same_training_file_stays_a_validation_set() -> None:
    """Models of the same training file scored on `val` and then on `test`: `val` was the validation set."""
    val_then_test = TAB_MODELS_COMPARED.replace("Xa_test", "Xs_test").replace("ya_test", "ys_test") + \
        "\nfinal = Ridge().fit(Xa, ya)\nprint(mean_squared_error(ya_test, final.predict(Xa_test)))"
    found = analyze_sources([TWO_PIPELINES, val_then_test]).findings
    assert not {f.rule_id for f in found if f.rule_id in ("LEAK004", "LEAK005")}
