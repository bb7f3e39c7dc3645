"""fastai's tables, splitters, loaders and learners (api/fastai_api.py, provenance/fastai_parts.py): a
`TabularPandas(df, ..., splits=...)` splits the frame's rows into `.train` and `.valid` (the two parts of one split,
however their positions were made), its `Normalize`/`FillMissing` procs learn on the training part, loaders'
factories hold out the rows `valid_idx` names (a random fifth by default), and a learner trains on the training
part, watches the validation part, and predicts or scores it with `get_preds`/`validate`."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """import numpy as np
import pandas as pd
from fastai.tabular.all import *
from sklearn.ensemble import RandomForestRegressor
from sklearn.tree import DecisionTreeRegressor
from sklearn.metrics import mean_squared_error
sales = pd.read_csv("sales.csv")
"""
BY_DATE = """early = (sales.year < 2019) | (sales.month < 7)
fit_pos = np.where(early)[0]
check_pos = np.where(~early)[0]
splits = (list(fit_pos), list(check_pos))
"""
BY_CHANCE = "splits = RandomSplitter(valid_pct=0.25, seed=7)(range_of(sales))\n"
TABLE = """tab = TabularPandas(sales, [Categorify, FillMissing], ["shop"], ["size", "age"], y_names="price",
                   splits=splits)
xs, ys = tab.train.xs, tab.train.y
vxs, vys = tab.valid.xs, tab.valid.y
"""
ONE = """tree = DecisionTreeRegressor(min_samples_leaf=20).fit(xs, ys)
print(mean_squared_error(vys, tree.predict(vxs)))
"""
TWO = ONE + """forest = RandomForestRegressor(n_estimators=50).fit(xs, ys)
print(mean_squared_error(vys, forest.predict(vxs)))
"""


def leaks(*cells: str) -> list[str]:
    return sorted(f.rule_id for f in analyze_sources(list(cells)).findings if f.rule_id.startswith("LEAK"))


def test_models_compared_on_the_validation_part_of_a_table_split_by_positions_of_a_date_mask() -> None:
    assert leaks(HEAD + BY_DATE + TABLE, TWO) == ["LEAK005"]
    assert leaks(HEAD + BY_DATE + TABLE, ONE) == []


def test_models_compared_on_the_validation_part_of_a_random_splitter() -> None:
    assert leaks(HEAD + BY_CHANCE + TABLE, TWO) == ["LEAK005"]
    assert leaks(HEAD + BY_CHANCE + TABLE, ONE) == []


def test_the_training_part_scored_is_the_model_s_own_rows() -> None:
    own = "tree = DecisionTreeRegressor().fit(xs, ys)\nprint(mean_squared_error(ys, tree.predict(xs)))\n"
    assert leaks(HEAD + BY_CHANCE + TABLE, own) == ["LEAK007"]


def test_normalize_learned_on_every_row_of_an_unsplit_table_then_split_by_scikit_learn() -> None:
    unsplit = """from sklearn.model_selection import train_test_split
tab = TabularPandas(sales, procs=[Categorify, FillMissing, Normalize], cat_names=["shop"],
                    cont_names=["size", "age"], y_names="price")
X_tr, X_te, y_tr, y_te = train_test_split(tab.xs, tab.y, random_state=0)
tree = DecisionTreeRegressor().fit(X_tr, y_tr)
print(mean_squared_error(y_te, tree.predict(X_te)))
"""
    assert leaks(HEAD + unsplit) == ["LEAK001"]
    # split first: the procs learn on the training part only
    assert leaks(HEAD + BY_CHANCE + TABLE.replace("[Categorify, FillMissing]", "[Categorify, Normalize]"), ONE) == []


LEARNER = """dls = TabularDataLoaders.from_df(sales, procs=[Categorify, Normalize], cat_names=["shop"],
                                 cont_names=["size", "age"], y_names="price"{valid})
learn = tabular_learner(dls, metrics=rmse)
learn.fit_one_cycle(4{cbs})
print(learn.validate())
"""


def test_a_learner_keeping_its_best_epoch_by_the_validation_part_it_is_then_scored_on() -> None:
    keep = ", cbs=SaveModelCallback(monitor='_rmse')"
    assert leaks(HEAD + LEARNER.format(valid="", cbs=keep)) == ["LEAK004"]
    assert leaks(HEAD + LEARNER.format(valid=", valid_idx=list(range(800, 1000))", cbs=keep)) == ["LEAK004"]
    assert leaks(HEAD + LEARNER.format(valid="", cbs="")) == []
    named = "keep = [EarlyStoppingCallback(monitor='valid_loss', patience=2)]\n"
    assert leaks(HEAD + named + LEARNER.format(valid="", cbs=", cbs=keep")) == ["LEAK004"]


def test_two_learners_compared_on_the_validation_part_their_fits_report() -> None:
    second = """wide = tabular_learner(dls, layers=[400, 200], metrics=rmse)
wide.fit_one_cycle(4)
print(wide.validate())
"""
    assert leaks(HEAD + LEARNER.format(valid="", cbs=""), second) == ["LEAK005"]


def test_predictions_of_the_training_part_by_get_preds_scored() -> None:
    train_preds = """preds, targs = learn.get_preds(ds_idx=0)
print(mean_squared_error(targs, preds))
"""
    assert leaks(HEAD + LEARNER.format(valid="", cbs=""), train_preds) == ["LEAK007"]
    assert leaks(HEAD + LEARNER.format(valid="", cbs=""), train_preds.replace("ds_idx=0", "")) == []


def test_library_classes_of_a_star_import_are_not_data_read_from_outside() -> None:
    """`path = URLs.path('sales')` after `from fastai.tabular.all import *`: `URLs` is the library's class, so
    two pickles saved under that folder are two files, not the same rows read twice."""
    saved = """path = URLs.path("sales")
save_pickle(path/"fit.pkl", xs)
save_pickle(path/"check.pkl", vxs)
"""
    loaded = """xs = load_pickle(path/"fit.pkl")
vxs = load_pickle(path/"check.pkl")
recent = xs.age < 5
tree = DecisionTreeRegressor().fit(xs[recent], ys[recent])
print(mean_squared_error(vys, tree.predict(vxs)))
"""
    assert leaks(HEAD + BY_CHANCE + TABLE + saved, loaded) == []
