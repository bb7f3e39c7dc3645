"""Notebooks that call their repository's own modules: a split returned by a project helper
(`X_train, X_test, y_train, y_test, prep = preprocess(df)`) and models built by one from data
(`clf = train_logreg(prep)`), then fitted and scored by another (`evaluate(clf, X_test, y_test)`). A value that
is fitted on features and labels is a model, whatever the unknown call that made it; the part of an unknown split
models are scored on and never fitted on is its held-out part, so two models compared there choose on it.

Whole notebooks run through the real engine."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = ("import pandas as pd\nfrom src.prep import preprocess\n"
        "from src.models import make_logreg, make_forest, evaluate\n"
        "loans = pd.read_csv('loans.csv')\nX_train, X_test, y_train, y_test, prep = preprocess(loans)")
ONE = "logreg = make_logreg(prep)\nlogreg.fit(X_train, y_train)\nevaluate(logreg, X_test, y_test, 'logistic')"
TWO = "forest = make_forest(prep)\nforest.fit(X_train, y_train)\nevaluate(forest, X_test, y_test, 'forest')"


def _leaks(*cells: str) -> list:
    return [f for f in analyze_sources([HEAD, *cells]).findings if f.rule_id.startswith("LEAK")]


def test_two_project_models_scored_side_by_side_on_the_unknown_split_s_held_out_part() -> None:
    found = _leaks(ONE, TWO)
    assert [f.rule_id for f in found] == ["LEAK005"]
    assert "X_test" in found[0].message and "logreg" in found[0].message and "forest" in found[0].message


def test_one_project_model_scored_once_is_clean() -> None:
    assert _leaks(ONE) == []


def test_a_project_model_scored_on_its_training_part_is_overlap() -> None:
    found = _leaks("logreg = make_logreg(prep)\nlogreg.fit(X_train, y_train)\n"
                   "evaluate(logreg, X_train, y_train, 'fit')")
    assert [f.rule_id for f in found] == ["LEAK007"]


GENERATORS = """import pandas as pd
from sklearn.model_selection import train_test_split
from keras.models import model_from_json
from keras.callbacks import ModelCheckpoint, EarlyStopping
from keras.preprocessing.image import ImageDataGenerator
scans = pd.read_csv('scans.csv')
fit_df, hold_df = train_test_split(scans, test_size=0.2, stratify=scans['label'])
fit_gen = ImageDataGenerator(rescale=1 / 255).flow_from_dataframe(fit_df, x_col='path', y_col='label')
hold_X, hold_y = next(ImageDataGenerator(rescale=1 / 255).flow_from_dataframe(hold_df, x_col='path', y_col='label'))
net = model_from_json(open('arch.json').read())
net.compile(optimizer='adam', loss='binary_crossentropy')
net.fit_generator(fit_gen, validation_data=(hold_X, hold_y), epochs=10, callbacks=[{callbacks}])"""


def test_a_network_from_an_unknown_loader_watching_its_only_held_out_batch() -> None:
    """A network the analysis cannot build (`model_from_json`) fitted on a generator of batches with
    `validation_data`: a model whatever made it, so a best checkpoint on the held-out batch picks its weights
    there; watched without a callback that selects, the batch chooses nothing."""
    keep = "ModelCheckpoint('best.h5', monitor='val_loss', save_best_only=True), EarlyStopping(patience=3)"
    found = [f for f in analyze_sources([GENERATORS.format(callbacks=keep)]).findings if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in found] == ["LEAK004"] and "`hold_X`" in found[0].message
    assert not [f for f in analyze_sources([GENERATORS.format(callbacks="")]).findings
                if f.rule_id.startswith("LEAK")]


LOADED = """from keras import Sequential, layers
from keras.callbacks import EarlyStopping
from hive.data import load_parts, balanced_training_part
{parts} = load_parts()
{retrain}model = Sequential([layers.Dense(12, activation='softmax')])
model.compile(loss='sparse_categorical_crossentropy', optimizer='adam', metrics=['accuracy'])
model.fit(fit_ds, epochs=10, validation_data={watched}, callbacks=[EarlyStopping(restore_best_weights=True)])
{scores}"""


def test_the_middle_part_of_a_project_loader_watched_before_its_test_part_is_scored() -> None:
    """Three parts from a project loader, the training part then replaced by another helper's: stopping on the
    second part while the third is scored after it chooses on a validation part, not on the test rows."""
    src = LOADED.format(parts="fit_ds, val_ds, test_ds", retrain="fit_ds = balanced_training_part()\n",
                        watched="val_ds", scores="print(model.evaluate(val_ds))\nprint(model.evaluate(test_ds))")
    assert not [f for f in analyze_sources([src]).findings if f.rule_id.startswith("LEAK")]


def test_the_only_held_out_part_of_a_project_loader_watched_with_early_stopping() -> None:
    src = LOADED.format(parts="fit_ds, test_ds", retrain="", watched="test_ds",
                        scores="print(model.evaluate(test_ds))")
    assert "LEAK004" in {f.rule_id for f in analyze_sources([src]).findings}


METRIC_HELPER = """import pandas as pd
import matplotlib.pyplot as plt
from sklearn.model_selection import train_test_split
from sklearn.linear_model import Ridge
from sklearn.ensemble import RandomForestRegressor
from src.metrics import smape
sales = pd.read_csv('sales.csv')
X_tr, X_te, y_tr, y_te = train_test_split(sales.drop(columns='units'), sales['units'], random_state=3)
for model in [Ridge(), RandomForestRegressor()]:
    model.fit(X_tr, y_tr)
    {use}"""


def test_an_imported_function_setting_predictions_against_their_labels_is_a_metric() -> None:
    """`smape(y_te, model.predict(X_te))` from the project's own module: labels and predictions of the same rows,
    whatever the name, are being compared; two models compared that way on the test part choose there. Plotted
    against each other by a plotting library, nothing is scored."""
    scored = analyze_sources([METRIC_HELPER.format(use="print(smape(y_te, model.predict(X_te)))")]).findings
    assert "LEAK005" in {f.rule_id for f in scored}
    plotted = analyze_sources([METRIC_HELPER.format(use="plt.scatter(y_te, model.predict(X_te))")]).findings
    assert not [f for f in plotted if f.rule_id.startswith("LEAK")]


def test_an_estimator_from_an_unknown_library_fitted_on_numpy_wrapped_features_is_a_model() -> None:
    """`est = hp.estimator(...)` (a library the table does not know) then `est.fit(np.asarray(X_tr), y_tr)`:
    fitted on features and labels, a model; scored on its own training rows, a training score."""
    code = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from tunerlib import estimator
clients = pd.read_csv("clients.csv")
X_tr, X_te, y_tr, y_te = train_test_split(clients.drop(columns="churn"), clients["churn"], random_state=3)
est = estimator.auto_estimator(budget=60)
est.fit(np.ascontiguousarray(X_tr), y_tr)
print(est.score(X_tr, y_tr))
print(est.score(X_te, y_te))"""
    assert sorted(f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")) == ["LEAK007"]


def test_a_list_filled_from_files_the_analysis_cannot_read_then_split_holds_rows() -> None:
    """Texts appended one file at a time (`corpus.append(f.read())`) stay unknown to the analysis; split by
    `train_test_split`, the list holds rows, so a pipeline scored on its own training part is a training score."""
    code = """import os
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.naive_bayes import MultinomialNB
corpus, labels = [], []
for folder, tag in [("mail/spam", 1), ("mail/ham", 0)]:
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as fh:
            corpus.append(fh.read())
            labels.append(tag)
X_tr, X_te, y_tr, y_te = train_test_split(corpus, labels, test_size=0.2, random_state=5)
clf = make_pipeline(TfidfVectorizer(), MultinomialNB()).fit(X_tr, y_tr)
print(clf.score(X_tr, y_tr))
print(clf.score(X_te, y_te))"""
    assert sorted(f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")) == ["LEAK007"]


def test_a_scoring_helper_given_the_training_and_the_test_rows_scores_the_model_on_each() -> None:
    """`report(model, X_tr, y_tr, X_te, y_te)` from another module, named as a scorer: it scores the model on the
    training rows (a training score) and on the test rows; two models reported so are compared on the test rows."""
    code = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from helpers import print_metrics
loans = pd.read_csv("loans.csv")
X_tr, X_te, y_tr, y_te = train_test_split(loans.drop(columns="bad"), loans["bad"], random_state=2)
lr = LogisticRegression().fit(X_tr, y_tr)
print_metrics(lr, X_tr, y_tr, X_te, y_te)
tree = DecisionTreeClassifier(max_depth=4).fit(X_tr, y_tr)
print_metrics(tree, X_tr, y_tr, X_te, y_te)"""
    found = sorted(f.rule_id for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK"))
    assert found == ["LEAK005", "LEAK007", "LEAK007"]
