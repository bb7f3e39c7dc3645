"""Real-world idioms of the issue-3 second round: pandas/NumPy statistics on the full frame, target encoding by
groupby, column lists held in variables, torch best-epoch selection on a declared test set, loss objects as
scores, loops over (name, model) pairs, sliding windows, explicit seeded torch generators."""

from __future__ import annotations

import pytest

from .nbhelp import ids, of, scan_cells

H = ("import pandas as pd\nimport numpy as np\nfrom sklearn.model_selection import train_test_split, cross_val_score\n"
     "from sklearn.linear_model import LogisticRegression, LinearRegression\n")
FIT = ("X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
       "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))")

CASES = {
    # ---- full-data statistics before the split (LEAK001)
    "fillna_frame_mean": (H + "df = pd.read_csv('a.csv')\ndf = df.fillna(df.mean())\nX = df.drop('y', axis=1)\n"
                          "y = df['y']\n" + FIT, {"LEAK001"}),
    "zscore_by_hand": (H + "df = pd.read_csv('a.csv')\ncols = ['a', 'b']\n"
                       "df[cols] = (df[cols] - df[cols].mean()) / df[cols].std()\nX = df[cols]\ny = df['y']\n" + FIT,
                       {"LEAK001"}),
    "median_inplace_loop": (H + "df = pd.read_csv('a.csv')\nfor c in ['a', 'b']:\n"
                            "    df[c].fillna(df[c].median(), inplace=True)\nX = df.drop(columns=['y'])\n"
                            "y = df['y']\n" + FIT, {"LEAK001"}),
    "numpy_axis0_standardise": (H + "X = np.load('x.npy')\ny = np.load('y.npy')\nX = (X - X.mean(axis=0)) / "
                                "X.std(axis=0)\n" + FIT, {"LEAK001"}),
    "np_min_max_normalise": (H + "df = pd.read_csv('a.csv')\ny = df.y.values\nx0 = df.drop(['y'], axis=1)\n"
                             "X = (x0 - np.min(x0)) / (np.max(x0) - np.min(x0))\n" + FIT, {"LEAK001"}),
    "loc_assign_mean": (H + "df = pd.read_csv('a.csv')\ndf.loc[df['Age'].isna(), 'Age'] = df['Age'].mean()\n"
                        "X = df.drop('y', axis=1)\ny = df['y']\n" + FIT, {"LEAK001"}),
    "apply_lambda_zscore": (H + "df = pd.read_csv('a.csv')\nX = df.drop('y', axis=1).apply(lambda c: (c - c.mean())"
                            " / c.std())\ny = df['y']\n" + FIT, {"LEAK001"}),
    "sklearn_scale_function": (H + "from sklearn import preprocessing\ndf = pd.read_csv('a.csv')\n"
                               "X = preprocessing.scale(df.drop('y', axis=1))\ny = df['y']\n" + FIT, {"LEAK001"}),
    "full_stats_then_cv": (H + "df = pd.read_csv('a.csv')\ndf = df.fillna(df.median())\nX = df.drop('y', axis=1)\n"
                           "y = df['y']\nprint(cross_val_score(LogisticRegression(), X, y, cv=5).mean())",
                           {"LEAK001"}),
    "kaggle_train_file_then_val_split": (H + "train = pd.read_csv('train.csv')\n"
                                         "train['Age'].fillna(train['Age'].median(), inplace=True)\n"
                                         "X = train.drop('Survived', axis=1)\ny = train['Survived']\n" + FIT,
                                         {"LEAK001"}),
    "group_median_imputation": (H + "df = pd.read_csv('a.csv')\ndf['Age'] = df.groupby('Pclass')['Age']."
                                "transform(lambda s: s.fillna(s.median()))\nX = df[['Pclass', 'Age']]\n"
                                "y = df['Survived']\n" + FIT, {"LEAK001"}),
    "group_mean_transform_feature": (H + "df = pd.read_csv('a.csv')\n"
                                     "df['fare_cls'] = df.groupby('Pclass')['Fare'].transform('mean')\n"
                                     "X = df[['Pclass', 'fare_cls']]\ny = df['Survived']\n" + FIT, {"LEAK001"}),
    # frequency encoding over all rows: a training row's count includes the held-out rows of its group
    "group_count_feature": (H + "df = pd.read_csv('a.csv')\n"
                            "df['n_city'] = df.groupby('city')['id'].transform('count')\n"
                            "X = df[['n_city', 'age']]\ny = df['y']\n" + FIT, {"LEAK001"}),
    # ---- statistics that are not preprocessing leakage
    "train_statistics_applied_to_test": (H + "df = pd.read_csv('a.csv')\nX = df.drop('y', axis=1)\ny = df['y']\n"
                                         "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
                                         "X_tr = X_tr.fillna(X_tr.mean())\nX_te = X_te.fillna(X_tr.mean())\n"
                                         "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))", set()),
    "label_binarised_by_median": (H + "df = pd.read_csv('a.csv')\nthr = df['income'].median()\n"
                                  "df['rich'] = (df['income'] > thr).astype(int)\n"
                                  "X = df.drop(columns=['income', 'rich'])\ny = df['rich']\n" + FIT, set()),
    "target_standardised": (H + "df = pd.read_csv('a.csv')\nX = df.drop('price', axis=1)\ny = df['price']\n"
                            "y = (y - y.mean()) / y.std()\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)\n"
                            "print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))", set()),
    "outlier_filter_quantile": (H + "df = pd.read_csv('a.csv')\ndf = df[df['p'] < df['p'].quantile(0.99)]\n"
                                "X = df.drop('y', axis=1)\ny = df['y']\n" + FIT, set()),
    "slice_split_train_stats": (H + "df = pd.read_csv('a.csv')\ntrain_df = df.iloc[:800]\ntest_df = df.iloc[800:]\n"
                                "train_df = train_df.fillna(train_df.mean())\ntest_df = test_df.fillna("
                                "train_df.mean())\nm = LogisticRegression().fit(train_df.drop('y', axis=1), "
                                "train_df['y'])\nprint(m.score(test_df.drop('y', axis=1), test_df['y']))", set()),
    "days_since_first_date": (H + "df = pd.read_csv('a.csv')\ndf['date'] = pd.to_datetime(df['date'])\n"
                              "df['days'] = (df['date'] - df['date'].min()).dt.days\nX = df[['days', 'amount']]\n"
                              "y = df['y']\n" + FIT, set()),
    "printed_mean_only": (H + "df = pd.read_csv('a.csv')\nm = df['Age'].mean()\nprint(f'mean age {m:.1f}')\n"
                          "df.mean(numeric_only=True).plot.bar()\nX = df.drop('y', axis=1).fillna(0)\n"
                          "y = df['y']\n" + FIT, set()),
    "rowwise_mean_feature": (H + "df = pd.read_csv('a.csv')\ndf['avg'] = df[['s1', 's2']].mean(axis=1)\n"
                             "X = df.drop('y', axis=1)\ny = df['y']\n" + FIT, set()),
    "rolling_mean_time_cut": (H + "df = pd.read_csv('a.csv', parse_dates=['date']).sort_values('date')\n"
                              "df['r7'] = df['sales'].rolling(7).mean()\ndf = df.dropna()\nn = int(len(df) * 0.8)\n"
                              "train, test = df.iloc[:n], df.iloc[n:]\nm = LinearRegression().fit(train[['r7']], "
                              "train['sales'])\nprint(m.score(test[['r7']], test['sales']))", set()),
    "image_div_255": (H + "X = np.load('x.npy') / 255.0\ny = np.load('y.npy')\n" + FIT, set()),
    # ---- target leakage through group statistics and column lists
    "groupby_transform_target": (H + "df = pd.read_csv('a.csv')\n"
                                 "df['enc'] = df.groupby('city')['price'].transform('mean')\ncols = ['enc', 'rooms']\n"
                                 "X = df[cols]\ny = df['price']\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)\n"
                                 "print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))", {"LEAK001", "LEAK006"}),
    "groupby_mean_mapped": (H + "df = pd.read_csv('a.csv')\nrate = df.groupby('role')['left'].mean()\n"
                            "df['role_rate'] = df['role'].map(rate)\nX = df[['age', 'role_rate']]\ny = df['left']\n"
                            + FIT, {"LEAK001", "LEAK006"}),
    "count_encoding_not_target": (H + "df = pd.read_csv('a.csv')\nn = df.groupby('city')['id'].count()\n"
                                  "df['city_n'] = df['city'].map(n)\nX = df[['city_n', 'age']]\ny = df['y']\n" + FIT,
                                  set()),
    "features_list_appended_label": (H + "df = pd.read_csv('a.csv')\nfeats = ['a', 'b']\nfeats.append('y')\n"
                                     "X = df[feats]\ny = df['y']\n" + FIT, {"LEAK006"}),
    "comprehension_keeps_label": (H + "df = pd.read_csv('a.csv')\ncols = [c for c in df.columns if c != 'id']\n"
                                  "X = df[cols]\ny = df['y']\n" + FIT, {"LEAK006"}),
    "comprehension_excludes_label": (H + "df = pd.read_csv('a.csv')\n"
                                     "cols = [c for c in df.columns if c not in ['id', 'y']]\nX = df[cols]\n"
                                     "y = df['y']\n" + FIT, set()),
    "loc_column_mask_keeps_label": (H + "df = pd.read_csv('a.csv')\nX = df.loc[:, df.columns != 'id']\n"
                                    "y = df['y']\n" + FIT, {"LEAK006"}),
    "loc_isin_mask_drops_label": (H + "df = pd.read_csv('a.csv')\nX = df.loc[:, ~df.columns.isin(['id', 'y'])]\n"
                                  "y = df['y']\n" + FIT, set()),
    "positional_axis_drop": (H + "df = pd.read_csv('a.csv')\nX = df.drop('y', 1)\ny = df['y']\n" + FIT, set()),
    "numeric_columns_regression_label": (H + "df = pd.read_csv('a.csv')\nX = df.select_dtypes(include='number')\n"
                                         "y = df['price']\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)\n"
                                         "print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))", {"LEAK006"}),
    "numeric_columns_classifier_label_unknown": (H + "df = pd.read_csv('a.csv')\n"
                                                 "X = df.select_dtypes(include='number')\ny = df['label']\n" + FIT,
                                                 set()),
    "drop_list_variable_has_label": (H + "df = pd.read_csv('a.csv')\nto_drop = ['id', 'y']\n"
                                     "X = df.drop(columns=to_drop)\ny = df['y']\n" + FIT, set()),
    # ---- multi-test
    "name_model_pairs_loop": (H + "from sklearn.svm import SVC\ndf = pd.read_csv('a.csv')\nX = df.drop('y', axis=1)\n"
                              "y = df['y']\nX_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
                              "for name, est in [('lr', LogisticRegression()), ('svc', SVC())]:\n"
                              "    est.fit(X_tr, y_tr)\n    print(name, est.score(X_te, y_te))", {"LEAK005"}),
    "model_rebuilt_by_helper_per_setting": (H + "df = pd.read_csv('a.csv')\nX = df.drop('y', axis=1)\n"
                                            "y = df['y']\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)\n"
                                            "def build(c):\n    return LogisticRegression(C=c * 1.0)\n"
                                            "for c in range(1, 4):\n    m = build(c)\n    m.fit(X_tr, y_tr)\n"
                                            "    print(c, m.score(X_te, y_te))", {"LEAK004"}),
    "zip_names_classifiers": (H + "from sklearn.svm import SVC\ndf = pd.read_csv('a.csv')\n"
                              "X_tr, X_te, y_tr, y_te = train_test_split(df[['a', 'b']], df['y'])\n"
                              "names = ['lr', 'svc']\nclfs = [LogisticRegression(), SVC()]\n"
                              "for name, clf in zip(names, clfs):\n    clf.fit(X_tr, y_tr)\n"
                              "    print(name, clf.score(X_te, y_te))", {"LEAK005"}),
    "zip_loop_scored_on_validation_only": (H + "from sklearn.svm import SVC\ndf = pd.read_csv('a.csv')\n"
                                           "X_tr, X_val, y_tr, y_val = train_test_split(df[['a', 'b']], df['y'])\n"
                                           "for name, clf in zip(['lr', 'svc'], [LogisticRegression(), SVC()]):\n"
                                           "    clf.fit(X_tr, y_tr)\n    print(name, clf.score(X_val, y_val))",
                                           {"LEAK005"}),  # the only held-out rows pick the model, whatever the name
    "keras_load_data_test_as_validation": ("from tensorflow import keras\n(x_tr, y_tr), (x_te, y_te) = "
                                           "keras.datasets.mnist.load_data()\nm = keras.Sequential("
                                           "[keras.layers.Flatten(), keras.layers.Dense(10)])\n"
                                           "m.compile(loss='sparse_categorical_crossentropy')\n"
                                           "m.fit(x_tr / 255.0, y_tr, validation_data=(x_te / 255.0, y_te), "
                                           "callbacks=[keras.callbacks.EarlyStopping(patience=2)])", {"LEAK004"}),
    "max_over_models_by_test_score": (H + "from sklearn.svm import SVC\ndf = pd.read_csv('a.csv')\n"
                                      "X_tr, X_te, y_tr, y_te = train_test_split(df[['a', 'b']], df['y'])\n"
                                      "models = [LogisticRegression(), SVC()]\nfor m in models:\n"
                                      "    m.fit(X_tr, y_tr)\nbest = max(models, key=lambda m: m.score(X_te, y_te))",
                                      {"LEAK004", "LEAK005"}),
    "ensemble_scored_once_on_test": (H + "from sklearn.svm import SVC\nfrom sklearn.metrics import roc_auc_score\n"
                                     "df = pd.read_csv('a.csv')\n"
                                     "X_tr, X_te, y_tr, y_te = train_test_split(df[['a', 'b']], df['y'])\n"
                                     "a = LogisticRegression().fit(X_tr, y_tr)\nb = SVC(probability=True).fit(X_tr, "
                                     "y_tr)\np = 0.5 * a.predict_proba(X_te)[:, 1] + 0.5 * b.predict_proba(X_te)[:, 1]"
                                     "\nprint(roc_auc_score(y_te, p))", set()),
    "blend_weight_loop_on_test": (H + "from sklearn.svm import SVC\nfrom sklearn.metrics import roc_auc_score\n"
                                  "df = pd.read_csv('a.csv')\n"
                                  "X_tr, X_te, y_tr, y_te = train_test_split(df[['a', 'b']], df['y'])\n"
                                  "pa = LogisticRegression().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]\n"
                                  "pb = SVC(probability=True).fit(X_tr, y_tr).predict_proba(X_te)[:, 1]\n"
                                  "for w in [0.2, 0.5, 0.8]:\n    print(w, roc_auc_score(y_te, w * pa + (1 - w) * pb))",
                                  {"LEAK005"}),
    "statsmodels_fitted_on_all_rows": (H + "import statsmodels.api as sm\ndf = pd.read_csv('a.csv')\n"
                                       "X = sm.add_constant(df[['a', 'b']])\ny = df['y']\n"
                                       "X_tr, X_te, y_tr, y_te = train_test_split(X, y)\nols = sm.OLS(y, X).fit()\n"
                                       "print(((ols.predict(X_te) - y_te) ** 2).mean())", {"LEAK003"}),
    "statsmodels_fitted_on_train": (H + "import statsmodels.api as sm\ndf = pd.read_csv('a.csv')\n"
                                    "X = sm.add_constant(df[['a', 'b']])\ny = df['y']\n"
                                    "X_tr, X_te, y_tr, y_te = train_test_split(X, y)\n"
                                    "ols = sm.OLS(y_tr, X_tr).fit()\nprint(((ols.predict(X_te) - y_te) ** 2).mean())",
                                    set()),
    "lightning_validates_on_test_loader": ("import torch\nimport pytorch_lightning as pl\n"
                                           "from torch.utils.data import DataLoader, random_split, TensorDataset\n"
                                           "ds = TensorDataset(torch.randn(100, 3), torch.randn(100))\n"
                                           "tr, te = random_split(ds, [80, 20])\ntrainer = pl.Trainer(max_epochs=3)\n"
                                           "trainer.fit(model, DataLoader(tr), DataLoader(te))",
                                           set()),  # validation on the test loader, but no callback selects
    "lightning_validates_on_val_loader": ("import torch\nimport pytorch_lightning as pl\n"
                                          "from torch.utils.data import DataLoader, random_split, TensorDataset\n"
                                          "ds = TensorDataset(torch.randn(100, 3), torch.randn(100))\n"
                                          "tr, val, te = random_split(ds, [70, 15, 15])\n"
                                          "trainer = pl.Trainer(max_epochs=3)\n"
                                          "trainer.fit(model, DataLoader(tr), val_dataloaders=DataLoader(val))\n"
                                          "trainer.test(model, DataLoader(te))", set()),
    # a leaderboard of test scores sorted to rank the models is a pick by the test set (the scores a table holds
    # are still scores); the same table of cross-validated scores ranks nothing of the test set
    "sorted_leaderboard_ranks_by_the_test_set": (H + "from sklearn.svm import SVC\ndf = pd.read_csv('a.csv')\n"
                                           "X = df.drop('y', axis=1)\ny = df['y']\n"
                                           "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
                                           "rows = []\nfor m in [LogisticRegression(), SVC()]:\n"
                                           "    m.fit(X_tr, y_tr)\n    rows.append({'acc': m.score(X_te, y_te)})\n"
                                           "pd.DataFrame(rows).sort_values('acc')", {"LEAK004"}),
    # ---- temporal: sliding windows order the rows by themselves (dated or not)
    "windows_of_dated_series_shuffled": (H + "s = pd.read_csv('load.csv', index_col=0, parse_dates=[0])['mw']."
                                         "values\nX = np.array([s[i:i + 24] for i in range(len(s) - 24)])\n"
                                         "y = s[24:]\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)\n"
                                         "print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))", {"TIME001"}),
    "dated_rows_rebuilt_from_a_dict_without_the_date": (
        H + "d = pd.read_csv('s.csv', parse_dates=['date']).sort_values('date')\n"
        "t = pd.DataFrame({'a': d['a'].values, 'b': d['b'].values, 'y': d['y'].values})\n"
        "X_tr, X_te, y_tr, y_te = train_test_split(t[['a', 'b']], t['y'], random_state=0)\n"
        "print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))", set()),
    "dated_rows_rebuilt_from_a_dict_keeping_the_date": (
        H + "d = pd.read_csv('s.csv', parse_dates=['date']).sort_values('date')\n"
        "t = pd.DataFrame({'date': d['date'].values, 'a': d['a'].values, 'y': d['y'].values})\n"
        "X_tr, X_te, y_tr, y_te = train_test_split(t[['a']], t['y'], random_state=0)\n"
        "print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))", {"TIME001"}),
    "char_ngrams_shuffled": (H + "texts = pd.read_csv('t.csv')['text']\n"
                             "grams = [t[i:i + 3] for t in texts for i in range(len(t) - 2)]\n"
                             "X = np.array([len(g) for g in grams])\ny = np.zeros(len(X))\n" + FIT, set()),
}

TORCH_HEAD = ("import torch\nfrom torch import nn\nfrom torchvision import datasets, transforms\n"
              "from torch.utils.data import DataLoader\ntorch.manual_seed(0)\n"
              "tr = DataLoader(datasets.MNIST('d', train=True, transform=transforms.ToTensor()), batch_size=64, "
              "shuffle=True)\n"
              "te = DataLoader(datasets.MNIST('d', train=False, transform=transforms.ToTensor()), batch_size=999)\n"
              "net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))\n"
              "opt = torch.optim.SGD(net.parameters(), lr=0.1)\ncrit = nn.CrossEntropyLoss()\n")
TORCH_TRAIN = ("    net.train()\n    for x, y in tr:\n        opt.zero_grad()\n        crit(net(x), y).backward()\n"
               "        opt.step()\n    net.eval()\n")
CASES.update({
    "torch_best_epoch_by_test_accuracy": (TORCH_HEAD + "best = 0.0\nfor epoch in range(5):\n" + TORCH_TRAIN +
                                          "    hits = 0\n    with torch.no_grad():\n        for x, y in te:\n"
                                          "            hits += (net(x).argmax(1) == y).sum().item()\n"
                                          "    acc = hits / 10000\n    if acc > best:\n        best = acc\n"
                                          "        torch.save(net.state_dict(), 'best.pt')", {"LEAK004"}),
    "torch_best_epoch_by_test_loss": (TORCH_HEAD + "best = float('inf')\nfor epoch in range(5):\n" + TORCH_TRAIN +
                                      "    test_loss = 0.0\n    with torch.no_grad():\n        for x, y in te:\n"
                                      "            test_loss += crit(net(x), y).item()\n"
                                      "    if test_loss < best:\n        best = test_loss\n"
                                      "        torch.save(net.state_dict(), 'best.pt')", {"LEAK004"}),
    "torch_plateau_scheduler_on_test_loss": (TORCH_HEAD + "sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)\n"
                                             "for epoch in range(5):\n" + TORCH_TRAIN +
                                             "    with torch.no_grad():\n        x, y = next(iter(te))\n"
                                             "        test_loss = crit(net(x), y).item()\n"
                                             "    sched.step(test_loss)", {"LEAK004"}),
    "torch_test_printed_each_epoch_no_choice": (TORCH_HEAD + "for epoch in range(5):\n" + TORCH_TRAIN +
                                                "    hits = 0\n    with torch.no_grad():\n        for x, y in te:\n"
                                                "            hits += (net(x).argmax(1) == y).sum().item()\n"
                                                "    print(epoch, hits / 10000)", set()),
})


@pytest.mark.parametrize("name", sorted(CASES))
def test_idiom(tmp_path, name):
    src, want = CASES[name]
    report = scan_cells(tmp_path, [src])
    got = {i for i in ids(report) if i.startswith(("LEAK", "TIME"))}
    assert got == want


def test_statistic_finding_names_the_statistic_and_the_split(tmp_path):
    report = scan_cells(tmp_path, [H + "df = pd.read_csv('a.csv')", "df = df.fillna(df.mean())",
                                   "X = df.drop('y', axis=1)\ny = df['y']\n" + FIT])
    (hit,) = of(report, "LEAK001")
    assert "`df.mean()`" in hit.message and "train_test_split" in hit.message and "cell 3" in hit.message
    assert hit.location.cell == 1


SEED_TRAIN = "from sklearn.linear_model import LogisticRegression\nimport torch\n"


@pytest.mark.parametrize("gen", ["g = torch.Generator()\ng.manual_seed(3)", "g = torch.Generator().manual_seed(3)"])
def test_explicit_seeded_generator_is_reproducible(tmp_path, gen):
    report = scan_cells(tmp_path, [SEED_TRAIN + gen, "a = torch.randint(0, 9, (50, 2), generator=g).numpy()\n"
                                   "b = torch.randperm(50, generator=g).numpy() % 2\n"
                                   "LogisticRegression().fit(a, b)"])
    assert "SEED003" not in ids(report)


def test_unseeded_generator_or_plain_draw_still_fires(tmp_path):
    report = scan_cells(tmp_path, [SEED_TRAIN + "g = torch.Generator()",
                                   "a = torch.randint(0, 9, (50, 2), generator=g).numpy()\n"
                                   "b = torch.randperm(50).numpy() % 2\nLogisticRegression().fit(a, b)"])
    (hit,) = of(report, "SEED003")
    assert "randint" in hit.message and "randperm" in hit.message
