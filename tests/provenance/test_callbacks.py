"""Callbacks that choose by the watched data (early stopping, best checkpoint, a plateau schedule, one the notebook
defines) make the held-out rows a selection set; loggers and fixed schedules do not, whether the list is given
in the call or bound to a name first."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import pandas as pd
from sklearn.model_selection import train_test_split
from tensorflow import keras
df = pd.read_csv("table.csv")
X, y = df[["a", "b"]].values, df["label"].values
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0)
net = keras.Sequential([keras.layers.Dense(8), keras.layers.Dense(1, activation="sigmoid")])
net.compile("adam", "binary_crossentropy")"""

FIT = "net.fit(Xtr, ytr, validation_data=(Xte, yte), epochs=20, callbacks={})\nprint(net.evaluate(Xte, yte))"


def selects(callbacks: str, before: str = "") -> bool:
    rep = analyze_sources([PRELUDE, before + FIT.format(callbacks)])
    return any(f.rule_id == "LEAK004" for f in rep.findings)


@pytest.mark.parametrize("callbacks", [
    "[keras.callbacks.EarlyStopping(patience=3)]",
    "[keras.callbacks.ModelCheckpoint('best.h5', save_best_only=True)]",
    "[keras.callbacks.TensorBoard('logs'), keras.callbacks.ReduceLROnPlateau()]",
    "[MyCallback()]",
])
def test_a_callback_that_can_choose_makes_the_test_rows_a_selection_set(callbacks: str) -> None:
    assert selects(callbacks)


@pytest.mark.parametrize("callbacks", [
    "[keras.callbacks.TensorBoard('logs')]",
    "[keras.callbacks.CSVLogger('log.csv'), keras.callbacks.LearningRateScheduler(lambda e: 1e-3)]",
])
def test_loggers_and_fixed_schedules_choose_nothing(callbacks: str) -> None:
    assert not selects(callbacks)


def test_a_list_bound_to_a_name_is_read_through_the_name() -> None:
    assert not selects("cbs", "tb = keras.callbacks.TensorBoard('logs')\ncbs = [tb]\n")
    assert selects("cbs", "es = keras.callbacks.EarlyStopping()\ncbs = [es]\n")


def test_catboost_keeps_the_best_iteration_on_its_eval_set_unless_told_not_to() -> None:
    head = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
            "from catboost import CatBoostClassifier\ndf = pd.read_csv('table.csv')\n"
            "Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], df['label'], random_state=0)\n")
    fit = "m = CatBoostClassifier(iterations=300{})\nm.fit(Xtr, ytr, eval_set=(Xte, yte))\nprint(m.score(Xte, yte))"

    def picks(extra: str) -> bool:
        return any(f.rule_id == "LEAK004" for f in analyze_sources([head + fit.format(extra)]).findings)

    assert picks("")
    assert not picks(", use_best_model=False")


@pytest.mark.parametrize("fit, picks", [
    ("m.fit(Xtr, ytr, eval_set=[(Xtr, ytr), (Xte, yte)], eval_name=['train', 'test'])", True),  # patience 10
    ("m.fit(Xtr, ytr, eval_set=[(Xte, yte)], patience=30, max_epochs=200)", True),
    ("m.fit(Xtr, ytr, eval_set=[(Xte, yte)], patience=0, max_epochs=50)", False),  # no early stopping
    ("m.fit(X_train=Xtr, y_train=ytr, X_valid=Xte, y_valid=yte, patience=20)", True),  # the 1.x keywords
])
def test_tabnet_stops_early_on_its_eval_set_unless_patience_is_zero(fit: str, picks: bool) -> None:
    """pytorch-tabnet stops when the last watched set stops improving and restores the best epoch's weights."""
    code = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
            "from pytorch_tabnet.tab_model import TabNetClassifier\ndf = pd.read_csv('table.csv')\n"
            "Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']].values, df['label'].values, random_state=0)\n"
            f"m = TabNetClassifier()\n{fit}\nprint((m.predict(Xte) == yte).mean())")
    assert any(f.rule_id == "LEAK004" for f in analyze_sources([code]).findings) is picks


def test_early_stopping_switched_on_by_set_params_selects_on_the_watched_test_rows() -> None:
    from jupyter_trainguard.engine import analyze_sources

    code = """import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split
df = pd.read_csv("t.csv")
Xtr, Xte, ytr, yte = train_test_split(df[["a", "b"]], df["y"], random_state=0)
model = xgb.XGBClassifier(n_estimators=2000)
model.set_params(early_stopping_rounds=50)
model.fit(Xtr, ytr, eval_set=[(Xtr, ytr), (Xte, yte)])"""
    assert "LEAK004" in {f.rule_id for f in analyze_sources([code]).findings}
    quiet = code.replace("model.set_params(early_stopping_rounds=50)", "model.set_params(max_depth=4)")
    assert "LEAK004" not in {f.rule_id for f in analyze_sources([quiet]).findings}


WATCHED = """wide = keras.Sequential([keras.layers.Dense(64), keras.layers.Dense(1, activation="sigmoid")])
wide.compile("adam", "binary_crossentropy")
h1 = net.fit(Xtr, ytr, validation_data=(Xte, yte), epochs=20)
h2 = wide.fit(Xtr, ytr, validation_data=(Xte, yte), epochs=20)
print(h1.history["val_loss"][-1], h2.history["val_loss"][-1])"""


def test_two_models_watched_on_the_only_held_out_rows_are_compared_on_them() -> None:
    """Each model's validation curve on the same held-out rows is its score there: two architectures watched on
    them compete on them. One model trained on in a second call is still one configuration."""
    found = {f.rule_id for f in analyze_sources([PRELUDE, WATCHED]).findings}
    assert "LEAK005" in found
    again = ("net.fit(Xtr, ytr, validation_data=(Xte, yte), epochs=10)\n"
             "net.fit(Xtr, ytr, validation_data=(Xte, yte), epochs=10)")
    assert not {"LEAK004", "LEAK005"} & {f.rule_id for f in analyze_sources([PRELUDE, again]).findings}


def test_a_callback_monitoring_a_training_metric_chooses_nothing_by_the_held_out_rows() -> None:
    assert not selects("[keras.callbacks.EarlyStopping(monitor='loss', patience=3)]")
    assert not selects("[stop]", before="watch = 'accuracy'\nstop = keras.callbacks.EarlyStopping(monitor=watch)\n")
    assert selects("[keras.callbacks.EarlyStopping(monitor='val_accuracy', patience=3)]")


def test_a_notebook_callback_stopping_on_a_training_metric_it_reads_from_the_logs_chooses_nothing() -> None:
    """`if logs.get('accuracy') > 0.95: self.model.stop_training = True` stops on the training accuracy: the
    held-out rows it also watches decide nothing. The same callback reading `val_accuracy` chooses by them."""
    own = ("class Enough(keras.callbacks.Callback):\n"
           "    def on_epoch_end(self, epoch, logs=None):\n"
           "        if logs.get('{metric}') > 0.95:\n"
           "            self.model.stop_training = True\n")
    assert not selects("[Enough()]", before=own.format(metric="accuracy"))
    assert selects("[Enough()]", before=own.format(metric="val_accuracy"))
    assert not selects("[Enough()]", before=own.format(metric="accuracy").replace("logs.get('accuracy')",
                                                                                   "log['accuracy']").replace(
        "logs=None", "log=None"))


def test_a_callback_that_scores_the_held_out_rows_itself_and_writes_the_score_to_the_logs_chooses() -> None:
    """It computes the held-out score, writes it as `logs['auc_val']` (a write, not a read of a training metric)
    and saves the best epoch's model; early stopping on that logged name watches the held-out rows too."""
    own = ("from sklearn.metrics import roc_auc_score\n"
           "class AucKeeper(keras.callbacks.Callback):\n"
           "    def __init__(self, data):\n"
           "        super().__init__()\n"
           "        self.X, self.y, self.best = data[0], data[1], 0\n"
           "    def on_epoch_end(self, epoch, logs=None):\n"
           "        score = roc_auc_score(self.y, self.model.predict(self.X))\n"
           "        logs['auc_val'] = score\n"
           "        if score > self.best:\n"
           "            self.best = score\n"
           "            self.model.save('best.keras')\n")
    assert selects("[AucKeeper((Xte, yte))]", before=own)
    assert selects("[keras.callbacks.EarlyStopping(monitor='auc_val', mode='max')]")


def test_the_tensorflow_docs_progress_dots_choose_nothing() -> None:
    assert not selects("[tfdocs.modeling.EpochDots()]", before="import tensorflow_docs as tfdocs\n")


def test_a_loader_built_inline_is_named_by_its_code() -> None:
    code = ("import torch\nimport pytorch_lightning as pl\nfrom pytorch_lightning.callbacks import EarlyStopping\n"
            "from torch.utils.data import DataLoader, TensorDataset, random_split\n"
            "ds = TensorDataset(torch.load('x.pt'), torch.load('y.pt'))\n"
            "fit_ds, test_ds = random_split(ds, [800, 200])\n"
            "trainer = pl.Trainer(callbacks=[EarlyStopping(monitor='val_loss')])\n"
            "trainer.fit(model, DataLoader(fit_ds, batch_size=32), DataLoader(test_ds, batch_size=32))")
    found = [f for f in analyze_sources([code]).findings if f.rule_id == "LEAK004"]
    assert len(found) == 1 and "`DataLoader(test_ds, batch_size=32)` are passed as" in found[0].message
