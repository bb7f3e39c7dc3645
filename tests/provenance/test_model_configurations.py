"""Configurations a test set can compare: one model object refitted with new settings, on other features, or
once per pass of a loop is several configurations; refitting it the same way is one, and models of different
label columns (two tasks on the same rows) compete for nothing, while a label computed from another
(`log_y` from `y`) is the same task."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_absolute_error
df = pd.read_csv("table.csv")
X = df[["a", "b", "c"]]
Xtr, Xte, ytr, yte = train_test_split(X, df["cases"], test_size=0.2, random_state=0)"""


def compared(*cells: str) -> bool:
    rep = analyze_sources([PRELUDE, *cells])
    return any(f.rule_id == "LEAK005" for f in rep.findings)


def test_one_object_refitted_with_new_settings_is_two_configurations() -> None:
    assert compared("m = RandomForestRegressor()\nm.fit(Xtr, ytr)\nprint(m.score(Xte, yte))",
                    "m.set_params(max_depth=3)\nm.fit(Xtr, ytr)\nprint(m.score(Xte, yte))")


def test_one_object_refitted_per_feature_set_in_a_loop_is_several_configurations() -> None:
    assert compared("m = RandomForestRegressor()\nfor cols in [['a', 'b'], ['a', 'c'], ['b', 'c']]:\n"
                    "    m.fit(Xtr[cols], ytr)\n    print(cols, mean_absolute_error(yte, m.predict(Xte[cols])))")


def test_one_object_refitted_the_same_way_is_one_configuration() -> None:
    assert not compared("m = RandomForestRegressor(random_state=0)\nm.fit(Xtr, ytr)\nprint(m.score(Xte, yte))",
                        "m.fit(Xtr, ytr)\nprint(mean_absolute_error(yte, m.predict(Xte)))")


def test_models_of_two_label_columns_on_the_same_rows_compete_for_nothing() -> None:
    assert not compared("m = RandomForestRegressor()\nm.fit(Xtr, ytr)\nprint(m.score(Xte, yte))",
                        "Xtr2, Xte2, dtr, dte = train_test_split(X, df['deaths'], test_size=0.2, random_state=0)\n"
                        "m.fit(Xtr2, dtr)\nprint(m.score(Xte2, dte))")


def test_a_label_computed_from_the_label_is_the_same_task() -> None:
    assert compared("m = RandomForestRegressor()\nm.fit(Xtr, ytr)\nprint(m.score(Xte, yte))",
                    "df['log_cases'] = np.log1p(df['cases'])\n"
                    "Xtr2, Xte2, ltr, lte = train_test_split(X, df['log_cases'], test_size=0.2, random_state=0)\n"
                    "m2 = RandomForestRegressor().fit(Xtr2, ltr)\nprint(m2.score(Xte2, lte))")


def test_decision_thresholds_tried_on_the_test_rows_are_several_configurations() -> None:
    fit = "m = RandomForestRegressor().fit(Xtr, ytr > 5)\np = m.predict(Xte)\n"
    loop = "for t in [0.3, 0.4, 0.5]:\n    print(t, mean_absolute_error(yte > 5, (p > t).astype(int)))"
    assert compared(fit + loop)
    assert not compared(fit + "print(mean_absolute_error(yte > 5, (p > 0.5).astype(int)))")
    on_validation = ("Xa, Xv, ya, yv = train_test_split(Xtr, ytr, random_state=1)\n"
                     "m = RandomForestRegressor().fit(Xa, ya > 5)\np = m.predict(Xv)\n"
                     "for t in [0.3, 0.4, 0.5]:\n    print(t, mean_absolute_error(yv > 5, (p > t).astype(int)))")
    final = "print(mean_absolute_error(yte > 5, (m.predict(Xte) > 0.4).astype(int)))"
    assert not compared(on_validation, final)  # (the test part scored once, after the thresholds were tried)


def test_the_same_estimator_built_again_with_the_same_settings_is_one_configuration() -> None:
    """Retraining an identical model in a later cell (to plot it, to submit it) and scoring it again compares
    nothing; other settings or other features do."""
    first = "m = RandomForestRegressor(n_estimators=50, random_state=0)\nm.fit(Xtr, ytr)\nprint(m.score(Xte, yte))"
    again = first.replace("m = ", "final = ").replace("m.", "final.")
    assert not compared(first, again)
    assert compared(first, again.replace("n_estimators=50", "n_estimators=500"))
    fewer = ("Xtr2, Xte2 = Xtr[['a', 'b']], Xte[['a', 'b']]\n"
             "final = RandomForestRegressor(n_estimators=50, random_state=0)\nfinal.fit(Xtr2, ytr)\n"
             "print(final.score(Xte2, yte))")
    assert compared(first, fewer)


def test_two_objects_given_other_settings_by_set_params_are_two_configurations() -> None:
    a = "a = RandomForestRegressor()\na.set_params(max_depth=2)\na.fit(Xtr, ytr)\nprint(a.score(Xte, yte))"
    b = "b = RandomForestRegressor()\nb.set_params(max_depth=9)\nb.fit(Xtr, ytr)\nprint(b.score(Xte, yte))"
    assert compared(a, b)


CV_ON = """from sklearn.linear_model import RidgeCV
from sklearn.model_selection import cross_val_score
def cv_rmse(model, X, y):
    return np.sqrt(-cross_val_score(model, X, y, scoring="neg_mean_squared_error", cv=5)).mean()
for model in [RidgeCV(), RandomForestRegressor(random_state=0)]:
    model.fit(Xtr, ytr)
    print(type(model).__name__, cv_rmse(model, {rows}, {labels}))"""


def test_models_compared_by_cross_validation_on_the_test_rows_are_compared_on_them() -> None:
    """Cross-validating candidates on the held-out test rows ranks them by those rows: the test set chooses.
    Cross-validation on the training rows is what it is for."""
    assert compared(CV_ON.format(rows="Xte", labels="yte"))
    assert not compared(CV_ON.format(rows="Xtr", labels="ytr"))


def test_clones_are_new_unfitted_models_and_deep_copies_keep_their_fit() -> None:
    """`clone(est)` is the same estimator unfitted (fitted per candidate, each scored on the test rows: a
    comparison); `copy.deepcopy(model)` keeps what the model learned (scored on its training rows: overlap)."""
    cloned = ("from sklearn.base import clone\nfrom sklearn.linear_model import Ridge\n"
              "for base in [Ridge(), RandomForestRegressor(random_state=0)]:\n"
              "    est = clone(base).fit(Xtr, ytr)\n    print(mean_absolute_error(yte, est.predict(Xte)))")
    assert compared(cloned)
    kept = ("import copy\nm = RandomForestRegressor(random_state=0).fit(Xtr, ytr)\nbest = copy.deepcopy(m)\n"
            "print(mean_absolute_error(ytr, best.predict(Xtr)))")
    assert "LEAK007" in {f.rule_id for f in analyze_sources([PRELUDE, kept]).findings}


def test_a_dummy_baseline_beside_one_model_chooses_nothing() -> None:
    """The baseline learns only the label counts: the model set beside it on the test rows is measured, not chosen;
    two real models beside it are still compared."""
    base = ("from sklearn.dummy import DummyRegressor\nm = RandomForestRegressor().fit(Xtr, ytr)\n"
            "d = DummyRegressor(strategy='mean').fit(Xtr, ytr)\n"
            "print(mean_absolute_error(yte, m.predict(Xte)), mean_absolute_error(yte, d.predict(Xte)))")
    assert not compared(base)
    assert compared(base, "from sklearn.linear_model import Ridge\nr = Ridge().fit(Xtr, ytr)\n"
                          "print(mean_absolute_error(yte, r.predict(Xte)))")


def test_models_of_different_label_columns_of_a_table_from_an_unknown_reader() -> None:
    """`df = spark.sql(...).toPandas()` is known as a table by its use: its columns are followed, so two models
    predicting two of its columns on the same test rows are two tasks, not two configurations."""
    head = ("from sklearn.model_selection import train_test_split\nfrom sklearn.ensemble import RandomForestRegressor\n"
            "from sklearn.metrics import r2_score\ndf = spark.sql('SELECT * FROM flights').toPandas()")
    code = "\n".join(
        f"X, y = df[['a', 'b', 'c']], df['{col}']\nXtr, Xte, ytr, yte = train_test_split(X, y, random_state=42)\n"
        f"m_{col} = RandomForestRegressor().fit(Xtr, ytr)\nprint(r2_score(yte, m_{col}.predict(Xte)))"
        for col in ("price", "revenue"))
    rep = analyze_sources([head, code])
    assert not any(f.rule_id == "LEAK005" for f in rep.findings)
    same = code.replace("df['revenue']", "df['price']")
    assert any(f.rule_id == "LEAK005" for f in analyze_sources([head, same]).findings)


def test_two_networks_built_by_adding_other_layers_to_an_empty_sequential_are_two_configurations() -> None:
    """`Sequential()` says nothing of the network: the layers added after it do, so two of them scored on the test
    rows are compared there (the literal-constructor rule that makes two `RandomForestRegressor(n_estimators=50)`
    one configuration does not apply)."""
    net = ("from keras.models import Sequential\nfrom keras.layers import Dense, Dropout\n"
           "{name} = Sequential()\n{name}.add(Dense({units}, activation='relu'))\n{name}.add(Dense(1))\n"
           "{name}.compile(optimizer='adam', loss='mse')\n{name}.fit(Xtr, ytr, epochs=20)\n"
           "print(mean_absolute_error(yte, {name}.predict(Xte)))")
    assert compared(net.format(name="small", units=8), net.format(name="wide", units=128))


def test_one_object_refitted_on_other_named_columns_by_a_helper_is_two_configurations() -> None:
    helper = ("def evaluate(cols, model):\n    model.fit(Xtr[cols], ytr)\n"
              "    return mean_absolute_error(yte, model.predict(Xte[cols]))\nm = RandomForestRegressor()")
    assert compared(helper, "print(evaluate(['a', 'b'], m))", "print(evaluate(['a', 'b', 'c'], m))")
    assert not compared(helper, "print(evaluate(['a', 'b'], m))", "print(evaluate(['a', 'b'], m))")


@pytest.mark.parametrize("loop", ["for name in models:", "for name in models.keys():", "for name in list(models):"])
def test_models_taken_by_key_in_a_loop_over_the_dict_are_each_scored(loop: str) -> None:
    from jupyter_trainguard.engine import analyze_sources as run
    models = ("from sklearn.linear_model import Ridge\n"
              "models = {'forest': RandomForestRegressor(), 'ridge': Ridge()}\n")
    body = (f"{loop}\n    m = models[name]\n    m.fit(Xtr, ytr)\n"
            "    print(name, mean_absolute_error(yte, m.predict(Xte)))")
    found = [f for f in run([PRELUDE, models + body]).findings if f.rule_id == "LEAK005"]
    assert found and found[0].evidence["models"] == ["RandomForestRegressor", "Ridge"]


def test_models_taken_by_position_in_a_loop_over_their_count_are_several_configurations() -> None:
    models = ("from sklearn.linear_model import Ridge\n"
              "models = {'forest': RandomForestRegressor(), 'ridge': Ridge()}\n")
    by_position = ("for i in range(len(list(models))):\n    m = list(models.values())[i]\n    m.fit(Xtr, ytr)\n"
                   "    print(list(models)[i], mean_absolute_error(yte, m.predict(Xte)))")
    assert compared(models + by_position)
    one = "models = {'forest': RandomForestRegressor()}\n"
    assert not compared(one + by_position.replace("len(list(models))", "len(models)"))


EPOCHS = """import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
train_loader = DataLoader(datasets.MNIST("data", transform=transforms.ToTensor()), batch_size=64, shuffle=True)
test_loader = DataLoader(datasets.MNIST("data", train=False, transform=transforms.ToTensor()), batch_size=256)
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
opt = torch.optim.Adam(model.parameters())
def accuracy(loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct / len(loader.dataset)
for epoch in range(10):
    model.train()
    for x, y in train_loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    print(epoch, accuracy(test_loader))"""


def test_a_network_watched_per_epoch_and_scored_again_after_is_one_model() -> None:
    """Test accuracy printed every epoch, nothing kept by it, then the same network scored once more."""
    after = "print('final', accuracy(test_loader))"
    assert not [f for f in analyze_sources([EPOCHS, after]).findings if f.rule_id.startswith("LEAK")]
    keep_best = EPOCHS.replace("    print(epoch, accuracy(test_loader))",
                               "    acc = accuracy(test_loader)\n    if acc > best:\n        best = acc\n"
                               "        torch.save(model.state_dict(), 'best.pt')")
    keep_best = keep_best.replace("for epoch", "best = 0\nfor epoch")
    assert "LEAK004" in {f.rule_id for f in analyze_sources([keep_best, after]).findings}


def test_neighbours_looked_up_in_the_table_they_index_are_no_evaluation() -> None:
    code = ("import pandas as pd\nfrom sklearn.neighbors import NearestNeighbors\nitems = pd.read_csv('items.csv')\n"
            "knn = NearestNeighbors(metric='cosine').fit(items.values)\n"
            "dist, idx = knn.kneighbors([items.values[3]], n_neighbors=6)\n"
            "similar = [items.index[i] for i in idx.flatten()[1:]]\nprint(similar)")
    assert not [f for f in analyze_sources([code]).findings if f.rule_id.startswith("LEAK")]


def test_the_message_counts_several_models_of_one_class() -> None:
    """Three forests of other depths, built one by one: the finding names the class once, with how many."""
    found = [f for f in analyze_sources([PRELUDE] + [
        f"m{d} = RandomForestRegressor(max_depth={d}).fit(Xtr, ytr)\nprint(m{d}.score(Xte, yte))" for d in (2, 4, 8)
    ]).findings if f.rule_id == "LEAK005"]
    assert found and "`RandomForestRegressor` ×3" in found[0].message


@pytest.mark.parametrize("grid", ["range(1, 20)", "[2, 4, 8]"])
def test_a_model_built_per_setting_in_a_comprehension_is_rebuilt_per_setting(grid: str) -> None:
    """`[RandomForestRegressor(max_depth=d).fit(Xtr, ytr).score(Xte, yte) for d in range(1, 20)]`: one model per
    setting, each scored on the test rows, as a loop over the settings builds them."""
    code = f"scores = [RandomForestRegressor(max_depth=d).fit(Xtr, ytr).score(Xte, yte) for d in {grid}]"
    found = {f.rule_id for f in analyze_sources([PRELUDE, code]).findings}
    assert "LEAK004" in found
    one = "scores = [RandomForestRegressor(max_depth=4).fit(Xtr, ytr).score(Xte, yte)]"
    assert not {r for r in (f.rule_id for f in analyze_sources([PRELUDE, one]).findings) if r.startswith("LEAK")}
