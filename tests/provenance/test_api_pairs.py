# ruff: noqa: E501  (the bad/good pairs read best one statement per line)
"""Each API row of the provenance table with a tiny bad/good pair: the bad one leaks, the good one does not.

Every case is a whole notebook (cells separated by `# %%`) run through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

from .pairs import check_pair, leak_ids

SK = """import pandas as pd
import numpy as np
from sklearn.model_selection import train_test_split, cross_val_score, GridSearchCV, KFold
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import accuracy_score
df = pd.read_csv("data.csv")
X, y = df.drop(columns="label"), df["label"]"""

# (case id, rule the bad code raises, bad code, good code)
PAIRS = [
    ("sklearn-scaler-fit_transform", "LEAK001",
     "from sklearn.preprocessing import StandardScaler\nX = StandardScaler().fit_transform(X)\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = LogisticRegression().fit(Xtr, ytr)\nm.score(Xte, yte)",
     "from sklearn.preprocessing import StandardScaler\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "sc = StandardScaler().fit(Xtr)\nm = LogisticRegression().fit(sc.transform(Xtr), ytr)\n"
     "m.score(sc.transform(Xte), yte)"),
    ("sklearn-scaler-fit-on-test", "LEAK001",
     "from sklearn.preprocessing import MinMaxScaler\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "sc = MinMaxScaler()\nXtr = sc.fit_transform(Xtr)\nXte = sc.fit_transform(Xte)\n"
     "m = LogisticRegression().fit(Xtr, ytr)\nprint(accuracy_score(yte, m.predict(Xte)))",
     "from sklearn.preprocessing import MinMaxScaler\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "sc = MinMaxScaler()\nXtr = sc.fit_transform(Xtr)\nXte = sc.transform(Xte)\n"
     "m = LogisticRegression().fit(Xtr, ytr)\nprint(accuracy_score(yte, m.predict(Xte)))"),
    ("sklearn-pca", "LEAK001",
     "from sklearn.decomposition import PCA\nZ = PCA(5).fit_transform(X)\nZtr, Zte, ytr, yte = train_test_split(Z, y)\n"
     "print(Ridge().fit(Ztr, ytr).score(Zte, yte))",
     "from sklearn.decomposition import PCA\nfrom sklearn.pipeline import make_pipeline\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nprint(make_pipeline(PCA(5), Ridge()).fit(Xtr, ytr).score(Xte, yte))"),
    ("sklearn-rfe-selector", "LEAK001",
     "from sklearn.feature_selection import RFE\nsel = RFE(Ridge(), n_features_to_select=3).fit(X, y)\n"
     "Xs = sel.transform(X)\nXtr, Xte, ytr, yte = train_test_split(Xs, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "from sklearn.feature_selection import RFE\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "sel = RFE(Ridge(), n_features_to_select=3).fit(Xtr, ytr)\n"
     "print(Ridge().fit(sel.transform(Xtr), ytr).score(sel.transform(Xte), yte))"),
    ("sklearn-tfidf", "LEAK001",
     "from sklearn.feature_extraction.text import TfidfVectorizer\nT = TfidfVectorizer().fit_transform(df['text'])\n"
     "Ttr, Tte, ytr, yte = train_test_split(T, y)\nclf = LogisticRegression().fit(Ttr, ytr)\n"
     "print(accuracy_score(yte, clf.predict(Tte)))",
     "from sklearn.feature_extraction.text import TfidfVectorizer\n"
     "ttr, tte, ytr, yte = train_test_split(df['text'], y)\nvec = TfidfVectorizer()\n"
     "clf = LogisticRegression().fit(vec.fit_transform(ttr), ytr)\nprint(accuracy_score(yte, clf.predict(vec.transform(tte))))"),
    ("sklearn-column-transformer", "LEAK001",
     "from sklearn.compose import ColumnTransformer\nfrom sklearn.preprocessing import StandardScaler\n"
     "ct = ColumnTransformer([('num', StandardScaler(), ['a', 'b'])])\nXt = ct.fit_transform(X)\n"
     "Xtr, Xte, ytr, yte = train_test_split(Xt, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "from sklearn.compose import ColumnTransformer\nfrom sklearn.preprocessing import StandardScaler\n"
     "from sklearn.pipeline import Pipeline\nct = ColumnTransformer([('num', StandardScaler(), ['a', 'b'])])\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "print(Pipeline([('ct', ct), ('m', Ridge())]).fit(Xtr, ytr).score(Xte, yte))"),
    ("sklearn-cross_val_score", "LEAK001",
     "from sklearn.preprocessing import StandardScaler\nXs = StandardScaler().fit_transform(X)\n"
     "print(cross_val_score(LogisticRegression(), Xs, y, cv=5).mean())",
     "from sklearn.preprocessing import StandardScaler\nfrom sklearn.pipeline import make_pipeline\n"
     "print(cross_val_score(make_pipeline(StandardScaler(), LogisticRegression()), X, y, cv=5).mean())"),
    ("sklearn-gridsearch", "LEAK001",
     "from sklearn.preprocessing import RobustScaler\nXs = RobustScaler().fit_transform(X)\n"
     "gs = GridSearchCV(LogisticRegression(), {'C': [0.1, 1]}).fit(Xs, y)\nprint(gs.best_score_)",
     "from sklearn.preprocessing import RobustScaler\nfrom sklearn.pipeline import make_pipeline\n"
     "gs = GridSearchCV(make_pipeline(RobustScaler(), LogisticRegression()), {'logisticregression__C': [0.1, 1]})\n"
     "gs.fit(X, y)\nprint(gs.best_score_)"),
    ("sklearn-fit-all-score-part", "LEAK003",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = LogisticRegression().fit(X, y)\nprint(m.score(Xte, yte))",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = LogisticRegression().fit(Xtr, ytr)\nprint(m.score(Xte, yte))"),
    ("sklearn-score-on-training-rows", "LEAK007",
     "m = LogisticRegression().fit(X, y)\nprint(accuracy_score(y, m.predict(X)))",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = LogisticRegression().fit(Xtr, ytr)\n"
     "print(accuracy_score(yte, m.predict(Xte)))"),
    ("sklearn-kfold-indices", "LEAK003",
     "for tr, te in KFold(5).split(X):\n    m = Ridge().fit(X, y)\n    print(m.score(X.iloc[te], y.iloc[te]))",
     "for tr, te in KFold(5).split(X):\n    m = Ridge().fit(X.iloc[tr], y.iloc[tr])\n"
     "    print(m.score(X.iloc[te], y.iloc[te]))"),
    ("pandas-fillna-mean", "LEAK001",
     "df = df.fillna(df.mean())\nX, y = df.drop(columns='label'), df['label']\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nmeans = Xtr.mean()\nXtr, Xte = Xtr.fillna(means), Xte.fillna(means)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("pandas-groupby-transform", "LEAK001",
     "df['city_mean'] = df.groupby('city')['price'].transform('mean')\nX = df.drop(columns='label')\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "df['lag'] = df.groupby('city')['price'].transform(lambda s: s.shift(1).rolling(3).mean())\n"
     "X = df.drop(columns='label')\nXtr, Xte, ytr, yte = train_test_split(X, y, shuffle=False)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("pandas-groupby-frequency-encoding", "LEAK001",
     "X['city_n'] = X.groupby('city')['a'].transform('count')\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nfreq = Xtr.groupby('city').size()\n"
     "Xtr = Xtr.assign(city_n=Xtr['city'].map(freq))\nXte = Xte.assign(city_n=Xte['city'].map(freq).fillna(0))\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("pandas-rank-over-all-rows", "LEAK001",
     "X['a_rank'] = X['a'].rank(pct=True)\nXtr, Xte, ytr, yte = train_test_split(X, y, shuffle=False)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "X['a_lag'] = X['a'].shift(1)\nXtr, Xte, ytr, yte = train_test_split(X, y, shuffle=False)\n"
     "print(Ridge().fit(Xtr.fillna(0), ytr).score(Xte.fillna(0), yte))"),
    ("scipy-zscore", "LEAK001",
     "from scipy import stats\nZ = stats.zscore(X)\nZtr, Zte, ytr, yte = train_test_split(Z, y)\n"
     "print(Ridge().fit(Ztr, ytr).score(Zte, yte))",
     "from scipy import stats\nXtr, Xte, ytr, yte = train_test_split(X, y)\nmu, sd = Xtr.mean(), Xtr.std()\n"
     "print(Ridge().fit(stats.zscore(Xtr), ytr).score((Xte - mu) / sd, yte))"),
    ("pandas-manual-zscore", "LEAK001",
     "X = (X - X.mean()) / X.std()\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nmu, sd = Xtr.mean(), Xtr.std()\n"
     "print(Ridge().fit((Xtr - mu) / sd, ytr).score((Xte - mu) / sd, yte))"),
    ("pandas-get-dummies-is-stateless", None,
     "", "X = pd.get_dummies(X)\nXtr, Xte, ytr, yte = train_test_split(X, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("pandas-cut-learned-bin-edges", "LEAK001",
     "X['a_bin'] = pd.cut(X['a'], 5, labels=False)\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "X['a_bin'] = pd.cut(X['a'], [0, 18, 65, 120], labels=False)\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("pandas-concat-duplicates", "LEAK002",
     "X2 = pd.concat([X, X])\ny2 = pd.concat([y, y])\nXtr, Xte, ytr, yte = train_test_split(X2, y2)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nXtr2 = pd.concat([Xtr, Xtr])\nytr2 = pd.concat([ytr, ytr])\n"
     "print(Ridge().fit(Xtr2, ytr2).score(Xte, yte))"),
    ("pandas-positional-halves", "LEAK003",
     "n = len(X) // 2\nm = Ridge().fit(X, y)\nprint(m.score(X[n:], y[n:]))",
     "n = len(X) // 2\nm = Ridge().fit(X[:n], y[:n])\nprint(m.score(X[n:], y[n:]))"),
    ("pandas-sample-and-drop", "LEAK003",
     "train = df.sample(frac=0.8, random_state=0)\ntest = df.drop(train.index)\n"
     "m = Ridge().fit(df.drop(columns='label'), df['label'])\nprint(m.score(test.drop(columns='label'), test['label']))",
     "train = df.sample(frac=0.8, random_state=0)\ntest = df.drop(train.index)\n"
     "m = Ridge().fit(train.drop(columns='label'), train['label'])\nprint(m.score(test.drop(columns='label'), test['label']))"),
    ("numpy-stat", "LEAK001",
     "A = X.values\nA = (A - np.mean(A, axis=0)) / np.std(A, axis=0)\nAtr, Ate, ytr, yte = train_test_split(A, y)\n"
     "print(Ridge().fit(Atr, ytr).score(Ate, yte))",
     "A = X.values\nAtr, Ate, ytr, yte = train_test_split(A, y)\nmu = np.mean(Atr, axis=0)\n"
     "print(Ridge().fit(Atr - mu, ytr).score(Ate - mu, yte))"),
    ("imblearn-smote", "LEAK002",
     "from imblearn.over_sampling import SMOTE\nXr, yr = SMOTE().fit_resample(X, y)\n"
     "Xtr, Xte, ytr, yte = train_test_split(Xr, yr)\nprint(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
     "from imblearn.over_sampling import SMOTE\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "Xtr, ytr = SMOTE().fit_resample(Xtr, ytr)\nprint(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))"),
    ("imblearn-oversample-then-cv", "LEAK002",
     "from imblearn.over_sampling import RandomOverSampler\nXr, yr = RandomOverSampler().fit_resample(X, y)\n"
     "print(cross_val_score(LogisticRegression(), Xr, yr).mean())",
     "from imblearn.over_sampling import RandomOverSampler\nfrom imblearn.pipeline import make_pipeline\n"
     "print(cross_val_score(make_pipeline(RandomOverSampler(), LogisticRegression()), X, y).mean())"),
    ("keras-tokenizer", "LEAK001",
     "from tensorflow.keras.preprocessing.text import Tokenizer\ntok = Tokenizer(num_words=5000)\n"
     "tok.fit_on_texts(df['text'])\nS = tok.texts_to_matrix(df['text'])\nStr, Ste, ytr, yte = train_test_split(S, y)\n"
     "print(LogisticRegression().fit(Str, ytr).score(Ste, yte))",
     "from tensorflow.keras.preprocessing.text import Tokenizer\nttr, tte, ytr, yte = train_test_split(df['text'], y)\n"
     "tok = Tokenizer(num_words=5000)\ntok.fit_on_texts(ttr)\n"
     "print(LogisticRegression().fit(tok.texts_to_matrix(ttr), ytr).score(tok.texts_to_matrix(tte), yte))"),
    ("gensim-word2vec-built-on-every-text", "LEAK001",
     "from gensim.models import Word2Vec\ntoks = df['text'].str.split()\nw2v = Word2Vec(sentences=toks, vector_size=20, min_count=1)\n"
     "V = np.vstack([np.mean([w2v.wv[w] for w in t], axis=0) for t in toks])\nVtr, Vte, ytr, yte = train_test_split(V, y)\n"
     "print(LogisticRegression().fit(Vtr, ytr).score(Vte, yte))",
     "from gensim.models import Word2Vec\ntoks = df['text'].str.split()\nttr, tte, ytr, yte = train_test_split(toks, y)\n"
     "w2v = Word2Vec(ttr, vector_size=20, min_count=1)\n"
     "def embed(doc):\n    return np.mean([w2v.wv[w] for w in doc if w in w2v.wv.key_to_index], axis=0)\n"
     "print(LogisticRegression().fit([embed(t) for t in ttr], ytr).score([embed(t) for t in tte], yte))"),
    ("gensim-doc2vec-build_vocab-and-train", "LEAK001",
     "from gensim.models.doc2vec import Doc2Vec\ntoks = df['text'].str.split()\nd2v = Doc2Vec(vector_size=20)\n"
     "d2v.build_vocab(toks)\nd2v.train(toks, total_examples=d2v.corpus_count, epochs=5)\n"
     "V = np.array([d2v.infer_vector(t) for t in toks])\nVtr, Vte, ytr, yte = train_test_split(V, y)\n"
     "print(LogisticRegression().fit(Vtr, ytr).score(Vte, yte))",
     "from gensim.models.doc2vec import Doc2Vec\ntoks = df['text'].str.split()\nttr, tte, ytr, yte = train_test_split(toks, y)\n"
     "d2v = Doc2Vec(vector_size=20)\nd2v.build_vocab(ttr)\nd2v.train(ttr, total_examples=d2v.corpus_count, epochs=5)\n"
     "print(LogisticRegression().fit([d2v.infer_vector(t) for t in ttr], ytr).score([d2v.infer_vector(t) for t in tte], yte))"),
    ("nltk-freqdist-over-every-text", "LEAK001",
     "import nltk\nwords = [w for t in df['text'] for w in t.lower().split()]\nvocab = [w for w, _ in nltk.FreqDist(words).most_common(500)]\n"
     "def feats(t):\n    seen = set(t.lower().split())\n    return {w: (w in seen) for w in vocab}\n"
     "sets = [(feats(t), c) for t, c in zip(df['text'], df['label'])]\ntrain, test = sets[:800], sets[800:]\n"
     "print(nltk.classify.accuracy(nltk.NaiveBayesClassifier.train(train), test))",
     "import nltk\npairs = list(zip(df['text'], df['label']))\nfit_part, held = pairs[:800], pairs[800:]\n"
     "vocab = [w for w, _ in nltk.FreqDist(w for t, _ in fit_part for w in t.lower().split()).most_common(500)]\n"
     "def feats(t):\n    seen = set(t.lower().split())\n    return {w: (w in seen) for w in vocab}\n"
     "clf = nltk.NaiveBayesClassifier.train([(feats(t), c) for t, c in fit_part])\n"
     "print(nltk.classify.accuracy(clf, [(feats(t), c) for t, c in held]))"),
    ("nltk-corpus-texts-are-rows-of-one-corpus", "LEAK001",
     "import nltk\nfrom nltk.corpus import movie_reviews\n"
     "docs = [(list(movie_reviews.words(f)), c) for c in movie_reviews.categories() for f in movie_reviews.fileids(c)]\n"
     "vocab = list(nltk.FreqDist(w.lower() for w in movie_reviews.words()))[:2000]\n"
     "def feats(d):\n    out = {}\n    for w in vocab:\n        out['has(%s)' % w] = (w in set(d))\n    return out\n"
     "sets = [(feats(d), c) for (d, c) in docs]\nclf = nltk.NaiveBayesClassifier.train(sets[100:])\n"
     "print(nltk.classify.accuracy(clf, sets[:100]))",
     "import nltk\nfrom nltk.corpus import movie_reviews, stopwords\nstop = set(stopwords.words('english'))\n"
     "docs = [([w for w in movie_reviews.words(f) if w not in stop], c) for c in movie_reviews.categories() for f in movie_reviews.fileids(c)]\n"
     "fit_docs, held = docs[100:], docs[:100]\nvocab = list(nltk.FreqDist(w.lower() for (d, c) in fit_docs for w in d))[:2000]\n"
     "def feats(d):\n    out = {}\n    for w in vocab:\n        out['has(%s)' % w] = (w in set(d))\n    return out\n"
     "clf = nltk.NaiveBayesClassifier.train([(feats(d), c) for (d, c) in fit_docs])\n"
     "print(nltk.classify.accuracy(clf, [(feats(d), c) for (d, c) in held]))"),
    ("nltk-classifier-trained-on-every-row", "LEAK003",
     "import nltk\nsets = [({'len': len(t)}, c) for t, c in zip(df['text'], df['label'])]\ntest = sets[800:]\n"
     "clf = nltk.classify.MaxentClassifier.train(sets, max_iter=5)\nprint(nltk.classify.accuracy(clf, test))",
     "import nltk\nsets = [({'len': len(t)}, c) for t, c in zip(df['text'], df['label'])]\ntrain, test = sets[:800], sets[800:]\n"
     "clf = nltk.classify.MaxentClassifier.train(train, max_iter=5)\nprint(nltk.classify.accuracy(clf, test))"),
    ("nltk-sklearn-classifier-on-its-training-rows", "LEAK007",
     "import nltk\nfrom nltk.classify.scikitlearn import SklearnClassifier\nfrom sklearn.svm import LinearSVC\n"
     "sets = [({'len': len(t)}, c) for t, c in zip(df['text'], df['label'])]\ntrain, test = sets[:800], sets[800:]\n"
     "clf = SklearnClassifier(LinearSVC()).train(train)\n"
     "print(accuracy_score([c for _, c in train], clf.classify_many([f for f, _ in train])))",
     "import nltk\nfrom nltk.classify.scikitlearn import SklearnClassifier\nfrom sklearn.svm import LinearSVC\n"
     "sets = [({'len': len(t)}, c) for t, c in zip(df['text'], df['label'])]\ntrain, test = sets[:800], sets[800:]\n"
     "clf = SklearnClassifier(LinearSVC()).train(train)\n"
     "print(accuracy_score([c for _, c in test], clf.classify_many([f for f, _ in test])))"),
    ("surprise-algorithm-fitted-on-the-full-trainset", "LEAK003",
     "from surprise import Dataset, Reader, SVD, accuracy\nfrom surprise.model_selection import train_test_split as split\n"
     "data = Dataset.load_from_df(df[['user', 'item', 'label']], Reader(rating_scale=(1, 5)))\ntrainset, testset = split(data, test_size=0.25)\n"
     "algo = SVD()\nalgo.fit(data.build_full_trainset())\nprint(accuracy.rmse(algo.test(testset)))",
     "from surprise import Dataset, Reader, SVD, accuracy\nfrom surprise.model_selection import train_test_split as split\n"
     "data = Dataset.load_from_df(df[['user', 'item', 'label']], Reader(rating_scale=(1, 5)))\ntrainset, testset = split(data, test_size=0.25)\n"
     "algo = SVD()\nalgo.fit(trainset)\nprint(accuracy.rmse(algo.test(testset)))\ntop = algo.test(trainset.build_anti_testset())"),
    ("surprise-scored-on-its-own-trainset", "LEAK007",
     "from surprise import Dataset, Reader, KNNBasic, accuracy\nfrom surprise.model_selection import train_test_split as split\n"
     "data = Dataset.load_from_df(df[['user', 'item', 'label']], Reader(rating_scale=(1, 5)))\ntrainset, testset = split(data, test_size=0.25)\n"
     "algo = KNNBasic().fit(trainset)\nprint(accuracy.mae(algo.test(trainset.build_testset())))",
     "from surprise import Dataset, Reader, KNNBasic, accuracy\nfrom surprise.model_selection import train_test_split as split\n"
     "data = Dataset.load_from_df(df[['user', 'item', 'label']], Reader(rating_scale=(1, 5)))\ntrainset, testset = split(data, test_size=0.25)\n"
     "algo = KNNBasic().fit(trainset)\nprint(accuracy.mae(algo.test(testset)))"),
    ("pyspark-scaler-fitted-before-randomSplit", "LEAK001",
     "from pyspark.ml.feature import VectorAssembler, StandardScaler\nfrom pyspark.ml.classification import LogisticRegression\nfrom pyspark.ml.evaluation import BinaryClassificationEvaluator\nsdf = spark.read.csv('data.csv', header=True, inferSchema=True)\nsdf = VectorAssembler(inputCols=['a', 'b'], outputCol='raw').transform(sdf)\nev = BinaryClassificationEvaluator(labelCol='label')\nsc = StandardScaler(inputCol='raw', outputCol='features')\nsdf = sc.fit(sdf).transform(sdf)\n"
     "train, test = sdf.randomSplit([0.8, 0.2], seed=1)\nm = LogisticRegression().fit(train)\nprint(ev.evaluate(m.transform(test)))",
     "from pyspark.ml.feature import VectorAssembler, StandardScaler\nfrom pyspark.ml.classification import LogisticRegression\nfrom pyspark.ml.evaluation import BinaryClassificationEvaluator\nsdf = spark.read.csv('data.csv', header=True, inferSchema=True)\nsdf = VectorAssembler(inputCols=['a', 'b'], outputCol='raw').transform(sdf)\nev = BinaryClassificationEvaluator(labelCol='label')\ntrain, test = sdf.randomSplit([0.8, 0.2], seed=1)\nsc = StandardScaler(inputCol='raw', outputCol='features').fit(train)\n"
     "m = LogisticRegression().fit(sc.transform(train))\nprint(ev.evaluate(m.transform(sc.transform(test))))"),
    ("pyspark-model-fitted-on-every-row", "LEAK003",
     "from pyspark.ml.feature import VectorAssembler, StandardScaler\nfrom pyspark.ml.classification import LogisticRegression\nfrom pyspark.ml.evaluation import BinaryClassificationEvaluator\nsdf = spark.read.csv('data.csv', header=True, inferSchema=True)\nsdf = VectorAssembler(inputCols=['a', 'b'], outputCol='raw').transform(sdf)\nev = BinaryClassificationEvaluator(labelCol='label')\ntrain, val, test = sdf.randomSplit([0.6, 0.2, 0.2], seed=1)\nm = LogisticRegression(featuresCol='raw').fit(sdf)\n"
     "print(ev.evaluate(m.transform(test)))",
     "from pyspark.ml.feature import VectorAssembler, StandardScaler\nfrom pyspark.ml.classification import LogisticRegression\nfrom pyspark.ml.evaluation import BinaryClassificationEvaluator\nsdf = spark.read.csv('data.csv', header=True, inferSchema=True)\nsdf = VectorAssembler(inputCols=['a', 'b'], outputCol='raw').transform(sdf)\nev = BinaryClassificationEvaluator(labelCol='label')\ntrain, val, test = sdf.randomSplit([0.6, 0.2, 0.2], seed=1)\nm = LogisticRegression(featuresCol='raw').fit(train)\n"
     "print(ev.evaluate(m.transform(test)))"),
    ("pyspark-time-filter-and-best-model-on-its-training-rows", "LEAK007",
     "from pyspark.sql import functions as F\nfrom pyspark.ml.feature import VectorAssembler, StandardScaler\nfrom pyspark.ml.classification import LogisticRegression\nfrom pyspark.ml.evaluation import BinaryClassificationEvaluator\nsdf = spark.read.csv('data.csv', header=True, inferSchema=True)\nsdf = VectorAssembler(inputCols=['a', 'b'], outputCol='raw').transform(sdf)\nev = BinaryClassificationEvaluator(labelCol='label')\ntrain = sdf.filter(F.col('day') < 300)\ntest = sdf.filter(F.col('day') >= 300)\n"
     "cvm = LogisticRegression(featuresCol='raw').fit(train)\nbest = cvm.bestModel\nprint(ev.evaluate(best.transform(train)))",
     "from pyspark.sql import functions as F\nfrom pyspark.ml.feature import VectorAssembler, StandardScaler\nfrom pyspark.ml.classification import LogisticRegression\nfrom pyspark.ml.evaluation import BinaryClassificationEvaluator\nsdf = spark.read.csv('data.csv', header=True, inferSchema=True)\nsdf = VectorAssembler(inputCols=['a', 'b'], outputCol='raw').transform(sdf)\nev = BinaryClassificationEvaluator(labelCol='label')\ntrain = sdf.filter(F.col('day') < 300)\ntest = sdf.filter(F.col('day') >= 300)\n"
     "cvm = LogisticRegression(featuresCol='raw').fit(train)\nbest = cvm.bestModel\nprint(ev.evaluate(best.transform(test)))"),
    ("numpy-random-choice-fill-from-every-row", "LEAK001",
     "vals = df['a'].dropna().tolist()\ndf['a'] = df['a'].fillna(pd.Series(np.random.choice(vals, size=len(df))))\n"
     "Xtr, Xte, ytr, yte = train_test_split(df.drop(columns='label'), df['label'])\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "Xtr, Xte, ytr, yte = train_test_split(df.drop(columns='label'), df['label'])\nvals = Xtr['a'].dropna().tolist()\n"
     "Xtr['a'] = Xtr['a'].fillna(pd.Series(np.random.choice(vals, size=len(Xtr))))\n"
     "Xte['a'] = Xte['a'].fillna(pd.Series(np.random.choice(vals, size=len(Xte))))\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("sklearn-mutual-information-columns-kept-from-every-row", "LEAK001",
     "from sklearn.feature_selection import mutual_info_classif\nmi = pd.Series(mutual_info_classif(X, y), index=X.columns)\n"
     "keep = mi[mi > 0.05].index\nXtr, Xte, ytr, yte = train_test_split(X[keep], y)\n"
     "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
     "from sklearn.feature_selection import mutual_info_classif\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "mi = pd.Series(mutual_info_classif(Xtr, ytr), index=Xtr.columns)\nkeep = mi[mi > 0.05].index\n"
     "print(LogisticRegression().fit(Xtr[keep], ytr).score(Xte[keep], yte))"),
    ("sklearn-anova-p-values-choose-columns-from-every-row", "LEAK001",
     "from sklearn.feature_selection import f_classif\nF, p = f_classif(X, y)\nkeep = X.columns[p < 0.05]\n"
     "Xtr, Xte, ytr, yte = train_test_split(X[keep], y)\nprint(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
     "from sklearn.feature_selection import f_classif\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "F, p = f_classif(Xtr, ytr)\nkeep = Xtr.columns[p < 0.05]\n"
     "print(LogisticRegression().fit(Xtr[keep], ytr).score(Xte[keep], yte))"),
    ("umap-embedding-of-every-row", "LEAK001",
     "import umap\nemb = umap.UMAP(n_components=5).fit_transform(X)\nEtr, Ete, ytr, yte = train_test_split(emb, y)\n"
     "print(LogisticRegression().fit(Etr, ytr).score(Ete, yte))",
     "import umap\nXtr, Xte, ytr, yte = train_test_split(X, y)\nred = umap.UMAP(n_components=5).fit(Xtr)\n"
     "print(LogisticRegression().fit(red.transform(Xtr), ytr).score(red.transform(Xte), yte))"),
    ("pmdarima-auto-arima-scored-in-sample", "LEAK007",
     "import pmdarima as pm\nfrom sklearn.metrics import mean_absolute_error\nunits = df['units']\n"
     "arima = pm.auto_arima(units, seasonal=False)\nprint(mean_absolute_error(units, arima.predict_in_sample()))",
     "import pmdarima as pm\nfrom sklearn.metrics import mean_absolute_error\nunits = df['units']\n"
     "past, recent = units[:-12], units[-12:]\narima = pm.auto_arima(past, seasonal=False)\n"
     "print(mean_absolute_error(recent, arima.predict(n_periods=12)))"),
    ("pygam-fitted-on-every-row-scored-on-a-split", "LEAK003",
     "from pygam import LinearGAM\ngam = LinearGAM().fit(X, y)\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "print(gam.score(Xte, yte))",
     "from pygam import LinearGAM\nXtr, Xte, ytr, yte = train_test_split(X, y)\ngam = LinearGAM().fit(Xtr, ytr)\n"
     "print(gam.score(Xte, yte))"),
    ("hdbscan-clusters-of-every-row-as-a-feature", "LEAK001",
     "import hdbscan\nX = X.assign(seg=hdbscan.HDBSCAN(min_cluster_size=20).fit_predict(X))\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nprint(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
     "import hdbscan\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))\n"
     "print(hdbscan.HDBSCAN(min_cluster_size=20).fit_predict(Xtr))"),
    ("sklearn-permutation-importance-on-the-test-rows-picks-columns", "LEAK001",
     "from sklearn.inspection import permutation_importance\nfrom sklearn.ensemble import RandomForestClassifier\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nrf = RandomForestClassifier().fit(Xtr, ytr)\n"
     "print(permutation_importance(rf, Xte, yte).importances_mean)\n"
     "print(RandomForestClassifier().fit(Xtr[['a', 'b']], ytr).score(Xte[['a', 'b']], yte))",
     "from sklearn.inspection import permutation_importance\nfrom sklearn.ensemble import RandomForestClassifier\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nrf = RandomForestClassifier().fit(Xtr, ytr)\n"
     "print(permutation_importance(rf, Xtr, ytr).importances_mean)\n"
     "print(RandomForestClassifier().fit(Xtr[['a', 'b']], ytr).score(Xte[['a', 'b']], yte))"),
    ("eli5-permutation-importance-of-every-row-shown-then-columns-typed", "LEAK001",
     "import eli5\nfrom eli5.sklearn import PermutationImportance\nfrom sklearn.ensemble import RandomForestClassifier\n"
     "perm = PermutationImportance(RandomForestClassifier().fit(X, y)).fit(X, y)\neli5.show_weights(perm)\n"
     "Xtr, Xte, ytr, yte = train_test_split(df[['a', 'b']], y)\n"
     "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))",
     "import eli5\nfrom eli5.sklearn import PermutationImportance\nfrom sklearn.ensemble import RandomForestClassifier\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "perm = PermutationImportance(RandomForestClassifier().fit(Xtr, ytr)).fit(Xtr, ytr)\neli5.show_weights(perm)\n"
     "print(LogisticRegression().fit(Xtr[['a', 'b']], ytr).score(Xte[['a', 'b']], yte))"),
    ("keras-image-generator-featurewise-fit", "LEAK001",
     "from tensorflow import keras\nfrom tensorflow.keras.preprocessing.image import ImageDataGenerator\nimgs = np.load('imgs.npy')\n"
     "gen = ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True)\ngen.fit(imgs)\n"
     "Itr, Ite, ytr, yte = train_test_split(imgs, y)\nnet = keras.Sequential()\nnet.fit(gen.flow(Itr, ytr), epochs=2)\n"
     "print(net.evaluate(gen.flow(Ite, yte)))",
     "from tensorflow import keras\nfrom tensorflow.keras.preprocessing.image import ImageDataGenerator\nimgs = np.load('imgs.npy')\n"
     "Itr, Ite, ytr, yte = train_test_split(imgs, y)\ngen = ImageDataGenerator(rotation_range=20, horizontal_flip=True)\n"
     "gen.fit(Itr)\nplain = ImageDataGenerator()\nplain.fit(Ite)\nnet = keras.Sequential()\n"
     "net.fit(gen.flow(Itr, ytr), epochs=2)\nprint(net.evaluate(plain.flow(Ite, yte)))"),
    ("keras-evaluate-overlap", "LEAK003",
     "from tensorflow import keras\nXtr, Xte, ytr, yte = train_test_split(X, y)\nnet = keras.Sequential()\n"
     "net.fit(X, y, epochs=3)\nprint(net.evaluate(Xte, yte))",
     "from tensorflow import keras\nXtr, Xte, ytr, yte = train_test_split(X, y)\nnet = keras.Sequential()\n"
     "net.fit(Xtr, ytr, epochs=3)\nprint(net.evaluate(Xte, yte))"),
    ("keras-normalization-adapt", "LEAK001",
     "from tensorflow.keras import layers\nnorm = layers.Normalization()\nnorm.adapt(X)\nXn = norm(X)\n"
     "Xtr, Xte, ytr, yte = train_test_split(Xn, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "from tensorflow.keras import layers\nXtr, Xte, ytr, yte = train_test_split(X, y)\nnorm = layers.Normalization()\n"
     "norm.adapt(Xtr)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("keras-layer-adapted-inside-the-network", "LEAK001",
     "from tensorflow import keras\nvec = keras.layers.TextVectorization(max_tokens=500)\nvec.adapt(df['text'])\n"
     "ttr, tte, ytr, yte = train_test_split(df['text'], y)\nnet = keras.Sequential([vec, keras.layers.Dense(1)])\n"
     "net.fit(ttr, ytr, epochs=2)\nprint(net.evaluate(tte, yte))",
     "from tensorflow import keras\nttr, tte, ytr, yte = train_test_split(df['text'], y)\n"
     "vec = keras.layers.TextVectorization(max_tokens=500)\nvec.adapt(ttr)\nnet = keras.Sequential()\nnet.add(vec)\n"
     "net.add(keras.layers.Dense(1))\nnet.fit(ttr, ytr, epochs=2)\nprint(net.evaluate(tte, yte))"),
    ("keras-layer-added-after-adapt", "LEAK001",
     "from tensorflow import keras\nnorm = keras.layers.Normalization()\nnorm.adapt(X)\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nnet = keras.Sequential()\nnet.add(norm)\nnet.add(keras.layers.Dense(1))\n"
     "net.fit(Xtr, ytr, epochs=2)\nprint(net.evaluate(Xte, yte))",
     "from tensorflow import keras\nXtr, Xte, ytr, yte = train_test_split(X, y)\nnorm = keras.layers.Normalization()\n"
     "norm.adapt(Xtr)\nnet = keras.Sequential([norm, keras.layers.Dense(1)])\nnet.fit(Xtr, ytr, epochs=2)\n"
     "print(net.evaluate(Xte, yte))"),
    ("keras-functional-model-with-an-adapted-layer", "LEAK001",
     "from tensorflow import keras\nnorm = keras.layers.Normalization()\nnorm.adapt(X)\n"
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\ninp = keras.Input(shape=(8,))\nh = keras.layers.Dense(16)(norm(inp))\n"
     "net = keras.Model(inputs=inp, outputs=keras.layers.Dense(1)(h))\nnet.fit(Xtr, ytr, epochs=2)\nprint(net.evaluate(Xte, yte))",
     "from tensorflow import keras\nXtr, Xte, ytr, yte = train_test_split(X, y)\nnorm = keras.layers.Normalization()\n"
     "norm.adapt(Xtr)\ninp = keras.Input(shape=(8,))\nh = keras.layers.Dense(16)(norm(inp))\n"
     "net = keras.Model(inputs=inp, outputs=keras.layers.Dense(1)(h))\nnet.fit(Xtr, ytr, epochs=2)\nprint(net.evaluate(Xte, yte))"),
    ("keras-functional-branches-adapted-after-building", "LEAK001",
     "from tensorflow import keras\nvec = keras.layers.TextVectorization(max_tokens=500)\ntxt = keras.Input(shape=(1,), dtype='string')\n"
     "num = keras.Input(shape=(4,))\nboth = keras.layers.concatenate([keras.layers.Embedding(500, 8)(vec(txt)), num])\n"
     "net = keras.Model([txt, num], keras.layers.Dense(1)(both))\nvec.adapt(df['text'])\n"
     "ttr, tte, ytr, yte = train_test_split(df['text'], y)\nnet.fit(ttr, ytr, epochs=2)\nprint(net.evaluate(tte, yte))",
     "from tensorflow import keras\nvec = keras.layers.TextVectorization(max_tokens=500)\ntxt = keras.Input(shape=(1,), dtype='string')\n"
     "num = keras.Input(shape=(4,))\nboth = keras.layers.concatenate([keras.layers.Embedding(500, 8)(vec(txt)), num])\n"
     "net = keras.Model([txt, num], keras.layers.Dense(1)(both))\nttr, tte, ytr, yte = train_test_split(df['text'], y)\n"
     "vec.adapt(ttr)\nnet.fit(ttr, ytr, epochs=2)\nprint(net.evaluate(tte, yte))"),
    ("scipy-curve-fit", "LEAK003",
     "from scipy.optimize import curve_fit\ndef line(t, a, b):\n    return a * t + b\n"
     "ttr, tte, ytr, yte = train_test_split(df['t'].values, y.values)\npopt, pcov = curve_fit(line, df['t'].values, y.values)\n"
     "print(((line(tte, *popt) - yte) ** 2).mean())",
     "from scipy.optimize import curve_fit\ndef line(t, a, b):\n    return a * t + b\n"
     "ttr, tte, ytr, yte = train_test_split(df['t'].values, y.values)\npopt, pcov = curve_fit(line, ttr, ytr)\n"
     "print(((line(tte, *popt) - yte) ** 2).mean())"),
    ("numpy-polyfit", "LEAK003",
     "from sklearn.metrics import r2_score\nttr, tte, ytr, yte = train_test_split(df['t'], y)\n"
     "p = np.poly1d(np.polyfit(df['t'], y, 2))\nprint(r2_score(yte, p(tte)))",
     "from sklearn.metrics import r2_score\nttr, tte, ytr, yte = train_test_split(df['t'], y)\n"
     "coef = np.polyfit(ttr, ytr, 2)\nprint(r2_score(yte, np.polyval(coef, tte)))"),
    ("statsmodels-forecast-over-the-test-range", "LEAK003",
     "from statsmodels.tsa.holtwinters import ExponentialSmoothing\nytr, yte = y[:800], y[800:]\nres = ExponentialSmoothing(y).fit()\n"
     "pred = res.predict(start=yte.index[0], end=yte.index[-1])\nprint(((pred - yte) ** 2).mean())",
     "from statsmodels.tsa.holtwinters import ExponentialSmoothing\nytr, yte = y[:800], y[800:]\nres = ExponentialSmoothing(ytr).fit()\n"
     "pred = res.predict(start=yte.index[0], end=yte.index[-1])\nprint(((pred - yte) ** 2).mean())\n"
     "print(((res.predict(len(ytr), len(y) - 1) - yte) ** 2).mean())"),
    ("pandas-columns-chosen-by-correlation-with-the-label", "LEAK001",
     "corr = df.corr()['label']\nkeep = corr[abs(corr) > 0.3].index.drop('label')\n"
     "Xtr, Xte, ytr, yte = train_test_split(df[keep], y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "tr, te = train_test_split(df)\ncorr = tr.corr()['label']\nkeep = corr[abs(corr) > 0.3].index.drop('label')\n"
     "print(Ridge().fit(tr[keep], tr['label']).score(te[keep], te['label']))"),
    ("torch-batches-of-the-whole-dataset", "LEAK003",
     "import torch\nfrom torch.utils.data import TensorDataset, DataLoader, random_split\nds = TensorDataset(torch.tensor(X.values), torch.tensor(y.values))\ntr, te = random_split(ds, [800, 200])\nnet = torch.nn.Linear(8, 1)\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\nfor xb, yb in DataLoader(ds, batch_size=32):\n    opt.zero_grad()\n    loss = torch.nn.functional.mse_loss(net(xb), yb)\n    loss.backward()\n    opt.step()\nwith torch.no_grad():\n    for xb, yb in DataLoader(te):\n        print(torch.nn.functional.mse_loss(net(xb), yb))",
     "import torch\nfrom torch.utils.data import TensorDataset, DataLoader, random_split\nds = TensorDataset(torch.tensor(X.values), torch.tensor(y.values))\ntr, te = random_split(ds, [800, 200])\nnet = torch.nn.Linear(8, 1)\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\nfor xb, yb in DataLoader(tr, batch_size=32):\n    opt.zero_grad()\n    loss = torch.nn.functional.mse_loss(net(xb), yb)\n    loss.backward()\n    opt.step()\nwith torch.no_grad():\n    for xb, yb in DataLoader(te):\n        print(torch.nn.functional.mse_loss(net(xb), yb))"),
    ("torch-random-split", "LEAK003",
     "import torch\nfrom torch.utils.data import TensorDataset, random_split\nds = TensorDataset(torch.tensor(X.values))\n"
     "tr, te = random_split(ds, [800, 200])\nm = Ridge().fit(ds, y)\nprint(m.score(te, y))",
     "import torch\nfrom torch.utils.data import TensorDataset, random_split\nds = TensorDataset(torch.tensor(X.values))\n"
     "tr, te = random_split(ds, [800, 200])\nm = Ridge().fit(tr, y)\nprint(m.score(te, y))"),
    ("xgboost-native-train", "LEAK003",
     "import xgboost as xgb\nXtr, Xte, ytr, yte = train_test_split(X, y)\nbst = xgb.train({}, xgb.DMatrix(X, label=y))\n"
     "print(accuracy_score(yte, bst.predict(xgb.DMatrix(Xte))))",
     "import xgboost as xgb\nXtr, Xte, ytr, yte = train_test_split(X, y)\nbst = xgb.train({}, xgb.DMatrix(Xtr, label=ytr))\n"
     "print(accuracy_score(yte, bst.predict(xgb.DMatrix(Xte))))"),
    ("tf-data-csv-reader", "LEAK007",
     "import tensorflow as tf\nds = tf.data.experimental.CsvDataset('rows.csv', [float()] * 5)\n"
     "val, tr = ds.take(1000).batch(32), ds.skip(1000).batch(32)\n"
     "net = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nnet.compile(loss='mse')\nnet.fit(tr, epochs=3)\n"
     "print(net.evaluate(tr))",
     "import tensorflow as tf\nds = tf.data.experimental.CsvDataset('rows.csv', [float()] * 5)\n"
     "val, tr = ds.take(1000).batch(32), ds.skip(1000).batch(32)\n"
     "net = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nnet.compile(loss='mse')\nnet.fit(tr, epochs=3)\n"
     "print(net.evaluate(val))"),
    ("xgboost-native-cv", "LEAK001",
     "import xgboost as xgb\nXs = StandardScaler().fit_transform(X)\n"
     "res = xgb.cv({}, xgb.DMatrix(Xs, label=y), nfold=5, early_stopping_rounds=20)\nprint(res['test-rmse-mean'].min())",
     "import xgboost as xgb\nres = xgb.cv({}, xgb.DMatrix(X, label=y), nfold=5, early_stopping_rounds=20)\n"
     "print(res['test-rmse-mean'].min())"),
    ("lightgbm-native-cv", "LEAK001",
     "import lightgbm as lgb\nXs = StandardScaler().fit_transform(X)\n"
     "res = lgb.cv({}, lgb.Dataset(Xs, label=y), nfold=5)\nprint(res)",
     "import lightgbm as lgb\nres = lgb.cv({}, lgb.Dataset(X, label=y), nfold=5)\nprint(res)"),
    ("lightgbm-sklearn-wrapper", "LEAK003",
     "from lightgbm import LGBMClassifier\nXtr, Xte, ytr, yte = train_test_split(X, y)\nclf = LGBMClassifier().fit(X, y)\n"
     "print(accuracy_score(yte, clf.predict(Xte)))",
     "from lightgbm import LGBMClassifier\nXtr, Xte, ytr, yte = train_test_split(X, y)\nclf = LGBMClassifier().fit(Xtr, ytr)\n"
     "print(accuracy_score(yte, clf.predict(Xte)))"),
    ("statsmodels-ols", "LEAK003",
     "import statsmodels.api as sm\nXtr, Xte, ytr, yte = train_test_split(X, y)\nres = sm.OLS(y, X).fit()\n"
     "print(((res.predict(Xte) - yte) ** 2).mean())",
     "import statsmodels.api as sm\nXtr, Xte, ytr, yte = train_test_split(X, y)\nres = sm.OLS(ytr, Xtr).fit()\n"
     "print(((res.predict(Xte) - yte) ** 2).mean())"),
    ("prophet-forecast", "LEAK003",
     "from prophet import Prophet\nhist = df.rename(columns={'day': 'ds', 'label': 'y'})[['ds', 'y']]\n"
     "past, future = hist.iloc[:800], hist.iloc[800:]\nm = Prophet().fit(hist)\n"
     "print(((m.predict(future[['ds']])['yhat'].values - future['y'].values) ** 2).mean())",
     "from prophet import Prophet\nhist = df.rename(columns={'day': 'ds', 'label': 'y'})[['ds', 'y']]\n"
     "past, future = hist.iloc[:800], hist.iloc[800:]\nm = Prophet().fit(past)\n"
     "print(((m.predict(future[['ds']])['yhat'].values - future['y'].values) ** 2).mean())"),
    ("user-function-followed", "LEAK001",
     "from sklearn.preprocessing import StandardScaler\ndef prep(frame):\n    return StandardScaler().fit_transform(frame)\n"
     "Xs = prep(X)\nXtr, Xte, ytr, yte = train_test_split(Xs, y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "from sklearn.preprocessing import StandardScaler\ndef prep(a, b):\n    sc = StandardScaler().fit(a)\n"
     "    return sc.transform(a), sc.transform(b)\nXtr, Xte, ytr, yte = train_test_split(X, y)\nXtr, Xte = prep(Xtr, Xte)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("loop-over-models", "LEAK003",
     "from sklearn.tree import DecisionTreeClassifier\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "for m in [LogisticRegression(), DecisionTreeClassifier()]:\n    m.fit(X, y)\n    print(m.score(Xte, yte))",
     "from sklearn.tree import DecisionTreeClassifier\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "for m in [LogisticRegression(), DecisionTreeClassifier()]:\n    m.fit(Xtr, ytr)\n    print(m.score(Xte, yte))"),
    ("boosting-eval_set-of-a-fold", "LEAK001",
     "import lightgbm as lgb\nfrom sklearn.feature_selection import SelectKBest\n"
     "Z = pd.DataFrame(SelectKBest(k=3).fit_transform(X, y))\n"
     "for tr, va in KFold(5, shuffle=True, random_state=0).split(Z):\n"
     "    m = lgb.LGBMClassifier()\n"
     "    m.fit(Z.iloc[tr], y.iloc[tr], eval_set=[(Z.iloc[tr], y.iloc[tr]), (Z.iloc[va], y.iloc[va])])\n"
     "    print(m.best_score_)",
     "import lightgbm as lgb\nfrom sklearn.feature_selection import SelectKBest\n"
     "for tr, va in KFold(5, shuffle=True, random_state=0).split(X):\n"
     "    sel = SelectKBest(k=3).fit(X.iloc[tr], y.iloc[tr])\n"
     "    m = lgb.LGBMClassifier()\n"
     "    m.fit(sel.transform(X.iloc[tr]), y.iloc[tr], eval_set=[(sel.transform(X.iloc[va]), y.iloc[va])])\n"
     "    print(m.best_score_)"),
    ("keras-validation_data", "LEAK001",
     "from sklearn.preprocessing import StandardScaler\nfrom tensorflow import keras\n"
     "Z = StandardScaler().fit_transform(X)\nZtr, Zva, ytr, yva = train_test_split(Z, y)\n"
     "net = keras.Sequential([keras.layers.Dense(1)])\nnet.compile(loss='mse')\n"
     "net.fit(Ztr, ytr, validation_data=(Zva, yva), epochs=5)",
     "from sklearn.preprocessing import StandardScaler\nfrom tensorflow import keras\n"
     "Xtr, Xva, ytr, yva = train_test_split(X, y)\nsc = StandardScaler().fit(Xtr)\n"
     "net = keras.Sequential([keras.layers.Dense(1)])\nnet.compile(loss='mse')\n"
     "net.fit(sc.transform(Xtr), ytr, validation_data=(sc.transform(Xva), yva), epochs=5)"),
    ("sklearn-resample-drawn-twice-from-the-same-rows", "LEAK003",
     "from sklearn.utils import resample\nfew = df[df['label'] == 1]\n"
     "fit_rows = pd.concat([df[df['label'] == 0], resample(few, n_samples=500, random_state=1)])\n"
     "other = pd.read_csv('other.csv')\n"
     "eval_rows = pd.concat([other[other['label'] == 0], resample(few, n_samples=100, random_state=2)])\n"
     "m = LogisticRegression().fit(fit_rows.drop(columns='label'), fit_rows['label'])\n"
     "print(m.score(eval_rows.drop(columns='label'), eval_rows['label']))",
     "from sklearn.utils import resample\nXtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\n"
     "Xb, yb = resample(Xtr, ytr, n_samples=500, random_state=1)\n"
     "print(LogisticRegression().fit(Xb, yb).score(Xte, yte))"),
    ("fit-with-train-keywords", "LEAK007",
     "from pytorch_tabnet.tab_model import TabNetClassifier\nXtr, Xte, ytr, yte = train_test_split(X.values, y.values)\n"
     "clf = TabNetClassifier()\nclf.fit(X_train=Xtr, y_train=ytr)\nprint(accuracy_score(y_true=ytr, y_pred=clf.predict(Xtr)))",
     "from pytorch_tabnet.tab_model import TabNetClassifier\nXtr, Xte, ytr, yte = train_test_split(X.values, y.values)\n"
     "clf = TabNetClassifier()\nclf.fit(X_train=Xtr, y_train=ytr)\nprint(accuracy_score(y_true=yte, y_pred=clf.predict(Xte)))"),
    ("sklearn-column-transformer-learns-what-its-parts-learn", "LEAK001",
     "from sklearn.compose import ColumnTransformer\nfrom sklearn.preprocessing import OneHotEncoder, StandardScaler\n"
     "ct = ColumnTransformer([('onehot', OneHotEncoder(), ['c']), ('scale', StandardScaler(), ['a'])], remainder='passthrough')\n"
     "Z = ct.fit_transform(df.drop(columns='label'))\nZtr, Zte, ytr, yte = train_test_split(Z, y, random_state=0)\n"
     "print(LogisticRegression().fit(Ztr, ytr).score(Zte, yte))",
     "from sklearn.compose import ColumnTransformer\nfrom sklearn.preprocessing import OneHotEncoder\n"
     "ct = ColumnTransformer([('onehot', OneHotEncoder(), ['c'])], remainder='passthrough')\n"
     "Z = ct.fit_transform(df.drop(columns='label'))\nZtr, Zte, ytr, yte = train_test_split(Z, y, random_state=0)\n"
     "print(LogisticRegression().fit(Ztr, ytr).score(Zte, yte))"),
    ("sklearn-legacy-folds-iterated", "LEAK001",
     "from sklearn.cross_validation import KFold\nfrom sklearn.preprocessing import StandardScaler\n"
     "A, b = StandardScaler().fit_transform(X.values), y.values\n"
     "for tr, te in KFold(len(A), n_folds=5, shuffle=True, random_state=0):\n"
     "    m = LogisticRegression().fit(A[tr], b[tr])\n    print(accuracy_score(b[te], m.predict(A[te])))",
     "from sklearn.cross_validation import StratifiedKFold\nfrom sklearn.preprocessing import StandardScaler\n"
     "A, b = X.values, y.values\nfolds = StratifiedKFold(b, n_folds=5)\nfor tr, te in folds:\n"
     "    sc = StandardScaler().fit(A[tr])\n    m = LogisticRegression().fit(sc.transform(A[tr]), b[tr])\n"
     "    print(accuracy_score(b[te], m.predict(sc.transform(A[te]))))"),
    ("sklearn-legacy-modules", "LEAK001",
     "from sklearn.decomposition import RandomizedPCA\nfrom sklearn.cross_validation import train_test_split as tts\n"
     "Z = RandomizedPCA(n_components=3).fit_transform(X)\nZtr, Zte, ytr, yte = tts(Z, y, random_state=0)\n"
     "from sklearn.lda import LDA\nprint(LDA().fit(Ztr, ytr).score(Zte, yte))",
     "from sklearn.decomposition import RandomizedPCA\nfrom sklearn.cross_validation import train_test_split as tts\n"
     "Xtr, Xte, ytr, yte = tts(X, y, random_state=0)\npca = RandomizedPCA(n_components=3).fit(Xtr)\n"
     "from sklearn.lda import LDA\nprint(LDA().fit(pca.transform(Xtr), ytr).score(pca.transform(Xte), yte))"),
    ("unknown-call-never-invents", None, "",
     "import mylib\nXtr, Xte, ytr, yte = train_test_split(X, y)\nXtr, Xte = mylib.prepare(Xtr, Xte)\n"
     "print(Ridge().fit(Xtr, ytr).score(Xte, yte))"),
    ("fastai-tabularpandas-procs-before-a-split", "LEAK001",
     "from fastai.tabular.all import *\nto = TabularPandas(df, procs=[FillMissing, Normalize], cont_names=['a', 'b'], y_names='label')\n"
     "Xtr, Xte, ytr, yte = train_test_split(to.xs, to.y)\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))",
     "from fastai.tabular.all import *\nsplits = RandomSplitter(valid_pct=0.2, seed=0)(range_of(df))\n"
     "to = TabularPandas(df, procs=[FillMissing, Normalize], cont_names=['a', 'b'], y_names='label', splits=splits)\n"
     "print(Ridge().fit(to.train.xs, to.train.y).score(to.valid.xs, to.valid.y))"),
    ("fastai-learner-scored-on-its-training-part", "LEAK007",
     "from fastai.tabular.all import *\ndls = TabularDataLoaders.from_df(df, procs=[Normalize], cont_names=['a', 'b'], y_names='label')\n"
     "learn = tabular_learner(dls)\nlearn.fit_one_cycle(3)\npreds, targs = learn.get_preds(ds_idx=0)\nprint(accuracy_score(targs, preds.argmax(1)))",
     "from fastai.tabular.all import *\ndls = TabularDataLoaders.from_df(df, procs=[Normalize], cont_names=['a', 'b'], y_names='label')\n"
     "learn = tabular_learner(dls)\nlearn.fit_one_cycle(3)\npreds, targs = learn.get_preds()\nprint(accuracy_score(targs, preds.argmax(1)))"),
    ("darts-scaler-over-the-whole-series", "LEAK001",
     "from darts import TimeSeries\nfrom darts.dataprocessing.transformers import Scaler\nfrom darts.models import ExponentialSmoothing\n"
     "from darts.metrics import mape\nseries = Scaler().fit_transform(TimeSeries.from_dataframe(df, 'day', 'label'))\n"
     "fit_part, held = series[:-30], series[-30:]\nm = ExponentialSmoothing()\nm.fit(fit_part)\nprint(mape(held, m.predict(30)))",
     "from darts import TimeSeries\nfrom darts.dataprocessing.transformers import Scaler\nfrom darts.models import ExponentialSmoothing\n"
     "from darts.metrics import mape\nseries = TimeSeries.from_dataframe(df, 'day', 'label')\nfit_part, held = series[:-30], series[-30:]\n"
     "sc = Scaler()\nm = ExponentialSmoothing()\nm.fit(sc.fit_transform(fit_part))\nprint(mape(sc.transform(held), m.predict(30)))"),
    ("darts-backtest-after-scaling-the-whole-series", "LEAK001",
     "from darts import TimeSeries\nfrom darts.dataprocessing.transformers import Scaler\nfrom darts.models import Theta\n"
     "from darts.metrics import mape\nseries = Scaler().fit_transform(TimeSeries.from_dataframe(df, 'day', 'label'))\n"
     "print(mape(series, Theta().historical_forecasts(series, start=0.8, forecast_horizon=7)))",
     "from darts import TimeSeries\nfrom darts.models import Theta\nfrom darts.metrics import mape\n"
     "series = TimeSeries.from_dataframe(df, 'day', 'label')\n"
     "print(mape(series, Theta().historical_forecasts(series, start=0.8, forecast_horizon=7)))"),
]


def _ids(code: str) -> set[str]:
    return leak_ids(SK, code)


@pytest.mark.parametrize("case, rule, bad, good", PAIRS, ids=[p[0] for p in PAIRS])
def test_bad_leaks_and_good_is_clean(case: str, rule: str | None, bad: str, good: str) -> None:
    check_pair(SK, case, rule, bad, good)


def test_columns_chosen_by_a_selector_fitted_on_all_rows_leak() -> None:
    bad = ("from sklearn.feature_selection import RFE\nrfe = RFE(Ridge(), n_features_to_select=3).fit(X, y)\n"
           "cols = X.columns[rfe.support_]\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
           "print(Ridge().fit(Xtr[cols], ytr).score(Xte[cols], yte))")
    good = ("from sklearn.feature_selection import RFE\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
            "rfe = RFE(Ridge(), n_features_to_select=3).fit(Xtr, ytr)\ncols = Xtr.columns[rfe.get_support()]\n"
            "print(Ridge().fit(Xtr[cols], ytr).score(Xte[cols], yte))")
    assert "LEAK001" in _ids(bad)
    assert not _ids(good)


def _selections(code: str) -> list:
    from jupyter_trainguard.analysis.parsed import ParsedNotebook
    from jupyter_trainguard.analysis.provenance import Interpreter
    from jupyter_trainguard.analysis.provenance.detectors import selection_leaks
    from jupyter_trainguard.notebook.load import notebook_from_sources

    nb = notebook_from_sources("<t>", [SK, code])
    return selection_leaks(Interpreter(ParsedNotebook.from_notebook(nb), strict=True).run())


def test_selection_detector_on_early_stopping_and_argmax() -> None:
    early = ("from xgboost import XGBClassifier\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
             "m = XGBClassifier(early_stopping_rounds=10)\nm.fit(Xtr, ytr, eval_set=[(Xte, yte)])")
    val = ("from xgboost import XGBClassifier\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
           "Xa, Xv, ya, yv = train_test_split(Xtr, ytr)\nm = XGBClassifier(early_stopping_rounds=10)\n"
           "m.fit(Xa, ya, eval_set=[(Xv, yv)])\nprint(m.score(Xte, yte))")
    pick = ("Xtr, Xte, ytr, yte = train_test_split(X, y)\nscores = []\nfor c in [0.1, 1.0, 10.0]:\n"
            "    scores.append(LogisticRegression(C=c).fit(Xtr, ytr).score(Xte, yte))\nbest = np.argmax(scores)")
    threshold = ("Xtr, Xte, ytr, yte = train_test_split(X, y)\nacc = LogisticRegression().fit(Xtr, ytr).score(Xte, yte)\n"
                 "if acc > 0.9:\n    print('good')")
    assert [lk.evidence["variable"] for lk in _selections(early)] == ["Xte"]
    assert not _selections(val)
    assert _selections(pick)
    assert not _selections(threshold)


def test_notebook_classes_are_followed_through_self() -> None:
    cls = ("from sklearn.preprocessing import StandardScaler\nclass Study:\n"
           "    def __init__(self, frame):\n        self.data = frame\n"
           "    def prepare(self):\n        self.data = (self.data - self.data.mean()) / self.data.std()\n"
           "    def split(self):\n        return train_test_split(self.data, y, random_state=0)\n")
    bad = cls + ("s = Study(X)\ns.prepare()\nXtr, Xte, ytr, yte = s.split()\n"
                 "print(Ridge().fit(Xtr, ytr).score(Xte, yte))")
    good = cls + ("s = Study(X)\nXtr, Xte, ytr, yte = s.split()\nprint(Ridge().fit(Xtr, ytr).score(Xte, yte))")
    assert "LEAK001" in _ids(bad)
    assert not _ids(good)


def test_a_seeded_split_repeated_in_each_cell_is_one_test_set() -> None:
    split = "Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0)\n"
    code = (split + "a = LogisticRegression().fit(Xtr, ytr)\nprint(a.score(Xte, yte))\n# %%\n" + split +
            "from sklearn.tree import DecisionTreeClassifier\nb = DecisionTreeClassifier().fit(Xtr, ytr)\n"
            "print(accuracy_score(yte, b.predict(Xte)))")
    rep = analyze_sources([SK] + code.split("\n# %%\n"))
    assert "LEAK005" in {f.rule_id for f in rep.findings}
    once = split + "a = LogisticRegression().fit(Xtr, ytr)\nprint(a.score(Xte, yte))\nprint(a.score(Xte, yte))"
    assert "LEAK005" not in {f.rule_id for f in analyze_sources([SK, once]).findings}


TORCH = """import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split
full = TensorDataset(torch.randn(1000, 8), torch.randint(0, 2, (1000,)))
tr, va, te = random_split(full, [700, 150, 150])
train_dl, val_dl, test_dl = DataLoader(tr, batch_size=32), DataLoader(va, batch_size=150), DataLoader(te, batch_size=150)
net = nn.Sequential(nn.Linear(8, 2))
opt = torch.optim.Adam(net.parameters())
"""
LOOP = """best = 0.0
for epoch in range(20):
    net.train()
    for xb, yb in train_dl:
        opt.zero_grad()
        nn.functional.cross_entropy(net(xb), yb).backward()
        opt.step()
    net.eval()
    with torch.no_grad():
        xb, yb = next(iter({loader}))
        acc = (net(xb).argmax(1) == yb).float().mean().item()
    if acc > best:
        best = acc
        torch.save(net.state_dict(), "best.pt")
"""


def _rule_ids(*cells: str) -> set[str]:
    return {f.rule_id for f in analyze_sources(list(cells)).findings}


TORCH_FINAL = """net.load_state_dict(torch.load("best.pt"))
xb, yb = next(iter(test_dl))
print((net(xb).argmax(1) == yb).float().mean().item())
"""


def test_torch_loop_keeping_the_best_epoch_selects_on_what_it_watches() -> None:
    assert "LEAK004" in _rule_ids(TORCH, LOOP.replace("{loader}", "test_dl"))
    assert "LEAK004" not in _rule_ids(TORCH, LOOP.replace("{loader}", "val_dl"), TORCH_FINAL)
    # the network learns only from the training batches: no overlap with the rows it is scored on
    assert not _rule_ids(TORCH, LOOP.replace("{loader}", "val_dl"), TORCH_FINAL) & {"LEAK003", "LEAK007"}


def test_the_middle_part_of_a_three_way_split_is_the_last_word_when_its_test_part_is_never_scored() -> None:
    found = [f for f in analyze_sources([TORCH, LOOP.replace("{loader}", "val_dl")]).findings
             if f.rule_id.startswith("LEAK")]
    assert [f.rule_id for f in found] == ["LEAK004"] and "never scored" in found[0].message
    # the best epoch's weights scored again on the rows that chose them: the one choice, not a second finding
    rescored = LOOP.replace("{loader}", "val_dl") + TORCH_FINAL.replace("test_dl", "val_dl")
    assert sorted(f.rule_id for f in analyze_sources([TORCH, rescored]).findings
                  if f.rule_id.startswith("LEAK")) == ["LEAK004"]


def test_plateau_scheduler_stepped_on_the_test_loss() -> None:
    sched = ("sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)\nfor epoch in range(5):\n"
             "    for xb, yb in train_dl:\n        opt.zero_grad()\n"
             "        nn.functional.cross_entropy(net(xb), yb).backward()\n        opt.step()\n"
             "    with torch.no_grad():\n        xb, yb = next(iter({loader}))\n"
             "        loss = nn.functional.cross_entropy(net(xb), yb).item()\n    sched.step(loss)\n")
    assert "LEAK004" in _rule_ids(TORCH, sched.replace("{loader}", "test_dl"))
    assert "LEAK004" not in _rule_ids(TORCH, sched.replace("{loader}", "val_dl"), TORCH_FINAL.split("\n", 1)[1])


def test_hugging_face_trainer_keeping_the_best_checkpoint_on_test() -> None:
    hf = ("from datasets import load_dataset\nfrom transformers import Trainer, TrainingArguments\n"
          "raw = load_dataset('imdb')\nargs = TrainingArguments('out', load_best_model_at_end=True)\n"
          "trainer = Trainer(model=None, args=args, train_dataset=raw['train'], eval_dataset=raw['{split}'])\n"
          "trainer.train()")
    assert "LEAK004" in _rule_ids(hf.replace("{split}", "test"))
    assert "LEAK004" not in _rule_ids(hf.replace("{split}", "test").replace("load_best_model_at_end=True", ""))


def test_a_notebook_subclass_of_the_trainer_is_still_the_trainer() -> None:
    """`class WeightedTrainer(Trainer)` overriding only its loss is built, fitted and evaluated as a `Trainer`: its
    best checkpoint on the test part is a choice there."""
    hf = ("from datasets import load_dataset\nfrom transformers import Trainer, TrainingArguments\n"
          "class WeightedTrainer(Trainer):\n    def compute_loss(self, model, inputs, return_outputs=False):\n"
          "        return super().compute_loss(model, inputs, return_outputs)\n"
          "raw = load_dataset('imdb')\nargs = TrainingArguments('out', load_best_model_at_end=True)\n"
          "trainer = WeightedTrainer(model=None, args=args, train_dataset=raw['train'], eval_dataset=raw['test'])\n"
          "trainer.train()\nprint(trainer.evaluate())")
    assert "LEAK004" in _rule_ids(hf)
    assert "LEAK004" not in _rule_ids(hf.replace("load_best_model_at_end=True", ""))


def test_false_alarms_seen_on_textbook_notebooks_stay_quiet() -> None:
    split = "Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\n"
    plot = (split + "from sklearn.metrics import confusion_matrix\nm = LogisticRegression().fit(Xtr, ytr)\n"
            "cm = confusion_matrix(yte, m.predict(Xte))\nthresh = cm.max() / 2\n"
            "for i in range(2):\n    for j in range(2):\n        print(cm[i, j] > thresh)")
    disjoint = ("n = len(X) // 2\nparts = pd.concat([X[:n], X[n:]])\nlab = pd.concat([y[:n], y[n:]])\n"
                "Xtr, Xte, ytr, yte = train_test_split(parts, lab, random_state=0)\n"
                "print(Ridge().fit(Xtr, ytr).score(Xte, yte))")
    assert not _ids(plot) | ({"LEAK004"} & {f.rule_id for f in analyze_sources([SK, plot]).findings})
    assert "LEAK002" not in _ids(disjoint)
    by_label = ("ts = df.set_index(pd.to_datetime(df['day']))\n"  # index labels (or columns) of one frame
                "X = pd.concat([ts['2016'], ts['2017']])\ny = X.pop('label')\n"
                "Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\n"
                "print(LogisticRegression().fit(Xtr, ytr).score(Xte, yte))")
    assert _ids(by_label) == set()
    assert "LEAK002" in _ids(by_label.replace("ts['2017']", "ts['2016']"))  # the same part twice: copies


def test_eval_set_with_early_stopping_through_a_params_dict() -> None:
    code = ("from xgboost import XGBClassifier\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
            "params = {'eval_set': [(Xte, yte)], 'early_stopping_rounds': 20}\n"
            "XGBClassifier().fit(Xtr, ytr, **params)")
    assert "LEAK004" in {f.rule_id for f in analyze_sources([SK, code]).findings}


@pytest.mark.parametrize("params,leaks", [
    ("dict(eval_set=[(Xte, yte)], callbacks=[lgb.early_stopping(20)])", True),
    ("dict(eval_set=[(Xte, yte)], early_stopping_rounds=20)", True),
    ("dict(eval_set=[(Xval, yval)], callbacks=[lgb.early_stopping(20)])", False),
    ("dict(n_estimators=200)", False),
])
def test_eval_set_with_early_stopping_through_dict_keywords(params: str, leaks: bool) -> None:
    code = ("import lightgbm as lgb\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
            "Xtr, Xval, ytr, yval = train_test_split(Xtr, ytr)\n"
            f"params = {params}\nm = lgb.LGBMClassifier()\nm.fit(Xtr, ytr, **params)\nprint(m.score(Xte, yte))")
    assert ("LEAK004" in {f.rule_id for f in analyze_sources([SK, code]).findings}) is leaks


def test_frame_rebuilt_without_its_date_column_is_not_time_ordered() -> None:
    dated = ("sales = pd.read_csv('s.csv', parse_dates=['date']).sort_values('date')\n"
             "rows = [(r.a, r.b, r.label) for r in sales.itertuples()]\n")
    rebuilt = dated + ("flat = pd.DataFrame(rows, columns=['a', 'b', 'label'])\n"
                       "Xtr, Xte, ytr, yte = train_test_split(flat[['a', 'b']], flat['label'])\n"
                       "print(Ridge().fit(Xtr, ytr).score(Xte, yte))")
    kept = dated + ("flat = pd.DataFrame(rows, columns=['date', 'b', 'label'])\n"
                    "Xtr, Xte, ytr, yte = train_test_split(flat[['date', 'b']], flat['label'])\n"
                    "print(Ridge().fit(Xtr, ytr).score(Xte, yte))")
    assert "TIME001" not in {f.rule_id for f in analyze_sources([SK, rebuilt]).findings}
    assert "TIME001" in {f.rule_id for f in analyze_sources([SK, kept]).findings}


def test_ten_classifiers_scored_on_the_test_split_in_a_loop() -> None:
    names = ["LogisticRegression", "Ridge"] * 5
    code = ("Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\nmodels = [" +
            ", ".join(f"{n}()" for n in names) + "]\nfor m in models:\n    m.fit(Xtr, ytr)\n"
            "    print(accuracy_score(yte, m.predict(Xte)))")
    assert "LEAK005" in {f.rule_id for f in analyze_sources([SK, code]).findings}


def test_hist_gradient_boosting_validating_on_the_test_split() -> None:
    base = ("from sklearn.ensemble import HistGradientBoostingClassifier\n"
            "Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)\n")
    on_test = base + "m = HistGradientBoostingClassifier().fit(Xtr, ytr, X_val=Xte, y_val=yte)\nprint(m.score(Xte, yte))"
    carved = base + ("Xfit, Xval, yfit, yval = train_test_split(Xtr, ytr, random_state=0)\n"
                     "m = HistGradientBoostingClassifier().fit(Xfit, yfit, X_val=Xval, y_val=yval)\n"
                     "print(m.score(Xte, yte))")
    disabled = base + ("m = HistGradientBoostingClassifier(early_stopping=False).fit(Xtr, ytr, X_val=Xte, y_val=yte)\n"
                       "print(m.score(Xte, yte))")
    assert "LEAK004" in {f.rule_id for f in analyze_sources([SK, on_test]).findings}
    assert "LEAK004" not in {f.rule_id for f in analyze_sources([SK, carved]).findings}
    assert "LEAK004" not in {f.rule_id for f in analyze_sources([SK, disabled]).findings}


DATASET_CLASS = """import pandas as pd
import torch
from torch.utils.data import Dataset, DataLoader, random_split
df = pd.read_csv("table.csv")
class Table(Dataset):
    def __init__(self, frame, mu=None, sd=None):
        x = frame[["a", "b"]].values
        mu = x.mean(0) if mu is None else mu
        sd = x.std(0) if sd is None else sd
        self.x = torch.tensor((x - mu) / sd, dtype=torch.float32)
        self.y = torch.tensor(frame["label"].values)
    def __len__(self):
        return len(self.y)
    def __getitem__(self, i):
        return self.x[i], self.y[i]
net = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
"""
TRAIN_AND_SCORE = """for xb, yb in DataLoader(tr, batch_size=32, shuffle=True):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(net(xb), yb).backward()
    opt.step()
net.eval()
with torch.no_grad():
    hits = sum((net(xb).argmax(1) == yb).sum().item() for xb, yb in DataLoader(va, batch_size=64))
"""


def test_a_dataset_class_normalising_by_its_rows_carries_that_into_every_split() -> None:
    assert "LEAK001" in _rule_ids(DATASET_CLASS, "tr, va = random_split(Table(df), [800, 200])\n" + TRAIN_AND_SCORE)
    # each part normalised by its own rows: the validation rows carry their own mean and spread
    own = "tr_df = df.sample(frac=0.8, random_state=0)\nva_df = df.drop(tr_df.index)\ntr, va = Table(tr_df), Table(va_df)\n"
    assert "LEAK001" in _rule_ids(DATASET_CLASS, own + TRAIN_AND_SCORE)
    given = ("tr_df = df.sample(frac=0.8, random_state=0)\nva_df = df.drop(tr_df.index)\n"
             "x = tr_df[['a', 'b']].values\ntr = Table(tr_df)\nva = Table(va_df, x.mean(0), x.std(0))\n")
    assert not _rule_ids(DATASET_CLASS, given + TRAIN_AND_SCORE) & {"LEAK001", "LEAK003", "LEAK007"}


HAND_ACCURACY = """import torch
from torch import nn
X, y = torch.randn(200, 2), torch.randint(0, 2, (200, 1)).float()
X_train, X_test, y_train, y_test = X[:160], X[160:], y[:160], y[160:]
def accuracy(y_true, y_pred):
    return torch.eq(y_true.squeeze(), y_pred.squeeze()).sum().item() / len(y_true)
net = nn.Linear(2, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(50):
    loss = nn.functional.binary_cross_entropy_with_logits(net(X_train), y_train)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    print(accuracy(y_test, torch.round(torch.sigmoid(net({rows})))))
"""


def test_predictions_compared_with_labels_through_torch_eq_are_scored() -> None:
    """`torch.eq(y, torch.round(p))` is `y == p` written as calls: scoring the training rows is overlap, the
    held-out rows are fine (the loss on the training rows is what training minimises, not a score)."""
    assert "LEAK007" in _rule_ids(HAND_ACCURACY.format(rows="X_train"))
    assert "LEAK007" not in _rule_ids(HAND_ACCURACY.format(rows="X_test"))


def test_numpy_differences_written_as_calls_are_scored() -> None:
    src = ("import numpy as np\nfrom sklearn.linear_model import LinearRegression\n"
           "X, y = np.random.rand(100, 3), np.random.rand(100)\n"
           "m = LinearRegression().fit(X[:80], y[:80])\n"
           "print(np.abs(np.subtract(y[{s}], np.round(m.predict(X[{s}]), 2))).mean())\n")
    assert "LEAK007" in _rule_ids(src.format(s=":80"))
    assert "LEAK007" not in _rule_ids(src.format(s="80:"))


TRAIN_STEP = """import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
X, y = torch.randn(600, 8), torch.randint(0, 2, (600,))
train_dl = DataLoader(TensorDataset(X[:500], y[:500]), batch_size=50)
net = nn.Sequential(nn.Linear(8, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(3):
    for xb, yb in train_dl:
        out = net(xb)
{step}
"""
LOSS_STEP = """        loss = nn.functional.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()"""
HAND_LOSS_STEP = """        loss = ((out[:, 1] - yb.float()) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()"""
ACCURACY = """        print((out.argmax(1) == yb).float().mean().item())"""
TEST_SCORE = """with torch.no_grad():
    print((net(X[500:]).argmax(1) == y[500:]).float().mean().item())"""


def _leak007(*cells: str) -> list:
    return [f for f in analyze_sources(list(cells)).findings if f.rule_id == "LEAK007"]


def test_a_running_training_accuracy_scores_the_training_batches() -> None:
    """The training step's own forward pass set against the batch's labels with `==` is a training score when it
    is the only score the model gets; beside a held-out score it is a training log (as Keras prints one). The loss
    it minimises is not a score, nor is a hand-written loss (a difference that reaches `backward`)."""
    found = _leak007(TRAIN_STEP.format(step=LOSS_STEP + "\n" + ACCURACY))
    assert len(found) == 1 and "training step's own forward pass `net(xb)`" in found[0].message
    assert found[0].severity.value == "error"
    assert _leak007(TRAIN_STEP.format(step=LOSS_STEP + "\n" + ACCURACY), TEST_SCORE) == []
    assert _leak007(TRAIN_STEP.format(step=LOSS_STEP), TEST_SCORE) == []
    assert _leak007(TRAIN_STEP.format(step=HAND_LOSS_STEP), TEST_SCORE) == []


ELSEWHERE = """import numpy as np
from project_helpers import models
X, y = np.random.rand(300, 4), np.random.rand(300)
X_train, X_test, y_train, y_test = X[:240], X[240:], y[:240], y[240:]
net = models.build_regressor(4)
net.fit(X_train, y_train)
print(net.evaluate({rows}, {labels}))
"""


def test_a_model_built_by_a_helper_module_is_a_model_once_fitted_on_features_and_labels() -> None:
    """`models.build_regressor()` from the project's own module cannot be followed; fitted on (X, y) it is a
    model from there on, and scoring it on its training rows is a training score."""
    assert {f.rule_id for f in analyze_sources([ELSEWHERE.format(rows="X_train", labels="y_train")]).findings
            if f.rule_id.startswith("LEAK")} == {"LEAK007"}
    assert not [f for f in analyze_sources([ELSEWHERE.format(rows="X_test", labels="y_test")]).findings
                if f.rule_id.startswith("LEAK")]
    unsupervised = ELSEWHERE.format(rows="X_train", labels="y_train").replace("net.fit(X_train, y_train)",
                                                                             "net.fit(X_train)")
    assert not [f for f in analyze_sources([unsupervised]).findings if f.rule_id.startswith("LEAK")]


DOWNLOADED = """import yfinance as yf
from sklearn.preprocessing import MinMaxScaler
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_squared_error
prices = yf.download("ACME", start="2020-01-01")
{prep}
model = LinearRegression().fit(X_tr, y_tr)
print(mean_squared_error(y_te, model.predict(X_te)))
"""


def test_data_downloaded_by_a_market_data_library_holds_rows() -> None:
    """`yf.download(...)` returns rows like a reader does: a scaler fitted on all of them before the cut leaks."""
    bad = ("X, y = MinMaxScaler().fit_transform(prices[['Open', 'High']].values), prices['Close'].values\n"
           "X_tr, X_te, y_tr, y_te = X[:200], X[200:], y[:200], y[200:]")
    good = ("X, y = prices[['Open', 'High']].values, prices['Close'].values\n"
            "X_tr, X_te, y_tr, y_te = X[:200], X[200:], y[:200], y[200:]\nsc = MinMaxScaler().fit(X_tr)\n"
            "X_tr, X_te = sc.transform(X_tr), sc.transform(X_te)")
    assert "LEAK001" in _rule_ids(DOWNLOADED.format(prep=bad))
    assert "LEAK001" not in _rule_ids(DOWNLOADED.format(prep=good))


def test_a_download_bounded_by_the_dates_of_other_rows_learns_nothing_from_them() -> None:
    """`yf.download(t, start=prices.index.min())`: the first and last dates only bound which new rows are fetched,
    the way a literal date would; the rows fetched carry no statistic of the rows held out later."""
    bounded = ("market = yf.download('^IDX', start=prices.index.min(), end=prices.index.max())\n"
               "prices['m'] = market['Close'].pct_change()\n"
               "X, y = prices[['Open', 'm']].values, prices['Close'].values\n"
               "X_tr, X_te, y_tr, y_te = X[:200], X[200:], y[:200], y[200:]")
    assert "LEAK001" not in _rule_ids(DOWNLOADED.format(prep=bounded))
    scaled = bounded.replace("prices[['Open', 'm']].values", "MinMaxScaler().fit_transform(prices[['Open', 'm']])")
    assert "LEAK001" in _rule_ids(DOWNLOADED.format(prep=scaled))


def test_sklearn_shuffle_keeps_each_arrays_rows() -> None:
    """`shuffle(X_scaled, X, y)` reorders each array alike: the scaled and raw copies still hold the same rows,
    so the same seeded split of each holds out the same test rows, and models scored on either compete there."""
    src = ("import numpy as np\nfrom sklearn.utils import shuffle\nfrom sklearn.model_selection import train_test_split\n"
           "from sklearn.preprocessing import StandardScaler\nfrom sklearn.linear_model import Ridge\n"
           "from sklearn.ensemble import RandomForestRegressor\nfrom sklearn.metrics import r2_score\n"
           "X, y = np.random.rand(200, 3), np.random.rand(200)\nX_tr0, X_te0 = X[:150], X[150:]\n"
           "X_st = StandardScaler().fit(X_tr0).transform(X)\n"
           "X_st, X, y = shuffle(X_st, X, y, random_state=5)\n"
           "a_tr, a_te, y_tr, y_te = train_test_split(X, y, test_size=0.1, random_state=200)\n"
           "b_tr, b_te, yb_tr, yb_te = train_test_split(X_st, y, test_size=0.1, random_state=200)\n"
           "print(r2_score(y_te, RandomForestRegressor().fit(a_tr, y_tr).predict(a_te)))\n"
           "print(r2_score(yb_te, Ridge().fit(b_tr, yb_tr).predict(b_te)))\n")
    assert "LEAK005" in _rule_ids(src)


def test_numpy_index_tricks_stack_the_rows() -> None:
    """`np.c_[df[cols]]` and `np.r_[a, b]` hold the rows they stack: a model scored on them scores those rows."""
    src = ("import numpy as np\nimport pandas as pd\nfrom sklearn.linear_model import LinearRegression\n"
           "df = pd.read_csv('houses.csv')\nX = np.c_[df[['rooms', 'area']]]\ny = np.r_[df['price']]\n"
           "model = LinearRegression().fit(X, y)\nprint(model.score(X, y))\n")
    assert "LEAK007" in _rule_ids(src)


def test_decoded_predictions_and_correlations_with_the_labels_are_scores() -> None:
    """`enc.inverse_transform(model.predict(X))` are still predictions; `np.corrcoef(y, pred)` sets them against
    the labels: on the training rows that is a training score."""
    src = ("import numpy as np\nfrom sklearn.preprocessing import LabelEncoder\n"
           "from sklearn.tree import DecisionTreeClassifier\n"
           "X, raw = np.random.rand(100, 3), np.random.randint(0, 5, 100)\nenc = LabelEncoder()\n"
           "y = enc.fit_transform(raw)\nm = DecisionTreeClassifier().fit(X[:80], y[:80])\n"
           "pred = enc.inverse_transform(m.predict(X[{s}]))\nprint(np.corrcoef(enc.inverse_transform(y[{s}]), pred))\n")
    assert "LEAK007" in _rule_ids(src.format(s=":80"))
    assert "LEAK007" not in _rule_ids(src.format(s="80:"))


HELPER_FRAME = """from project_data import merged_table
from sklearn.preprocessing import StandardScaler
from sklearn.neighbors import KNeighborsRegressor
from sklearn.model_selection import cross_val_score
table = merged_table(2019)
X = StandardScaler().fit_transform({features})
print(cross_val_score(KNeighborsRegressor(), X, {labels}, cv=5).mean())
"""


def test_a_table_from_a_project_helper_is_known_by_its_use() -> None:
    """`table = merged_table()` from the project's own module cannot be followed; indexed by a list of columns,
    through `.loc`, or sent through a table's methods it holds rows (scaled before cross-validation: a leak). A
    single name in brackets may be a dict's key and proves nothing."""
    for features, labels in (("table[['a', 'b']]", "table.loc[:, 'y']"), ("table.dropna()[['a', 'b']]", "table.y")):
        assert "LEAK001" in _rule_ids(HELPER_FRAME.format(features=features, labels=labels)), features
    history = ("from project_data import run_training\nhist = run_training()\nlosses = hist['val_loss']\n"
               "print(min(losses))\n")
    assert not {f.rule_id for f in analyze_sources([history]).findings if f.rule_id.startswith("LEAK")}


def test_xgboost_native_train_watching_a_positional_watchlist() -> None:
    """`xgb.train(params, dtrain, rounds, watchlist, early_stopping_rounds=...)`: the fourth argument is `evals`."""
    head = ("import xgboost as xgb\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
            "dtr, dte = xgb.DMatrix(Xtr, label=ytr), xgb.DMatrix(Xte, label=yte)\n")
    on_test = head + "bst = xgb.train({}, dtr, 400, [(dtr, 'train'), (dte, 'valid')], early_stopping_rounds=20)"
    assert "LEAK004" in {f.rule_id for f in analyze_sources([SK, on_test]).findings}
    carved = (head + "Xa, Xv, ya, yv = train_test_split(Xtr, ytr)\n"
              "da, dv = xgb.DMatrix(Xa, label=ya), xgb.DMatrix(Xv, label=yv)\n"
              "bst = xgb.train({}, da, 400, [(da, 'train'), (dv, 'valid')], early_stopping_rounds=20)\n"
              "print(accuracy_score(yte, bst.predict(dte) > 0.5))")
    assert not {f.rule_id for f in analyze_sources([SK, carved]).findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize("code, leaks", [
    ("A = np.array([r / np.max(r) for r in M])", False),  # each row scaled by its own maximum
    ("A = np.array([r - r.mean() for r in M])", False),
    ("A = M / np.max(M)", True),  # one maximum over every row
    ("A = np.array([r / np.max(M) for r in M])", True),
])
def test_a_statistic_of_one_row_in_a_comprehension_learns_nothing_of_the_others(code: str, leaks: bool) -> None:
    cell = ("M = np.loadtxt('signals.txt')\n" + code +
            "\nAtr, Ate, ytr, yte = train_test_split(A, y)\nprint(Ridge().fit(Atr, ytr).score(Ate, yte))")
    assert ("LEAK001" in _ids(cell)) is leaks


def test_one_file_picked_at_random_to_show_a_prediction_is_a_row_not_a_statistic() -> None:
    pick = ("import os, random\nfrom tensorflow import keras\nnet = keras.Sequential()\n"
            "net.fit(train_gen, epochs=3)\nfiles = os.listdir(valid_dir)\nname = {pick}\n"
            "img = keras.utils.load_img(os.path.join(valid_dir, name))\nprint(net.predict(np.array([img])))")
    assert "LEAK001" not in _ids(pick.replace("{pick}", "random.choice(files)"))
    assert "LEAK001" not in _ids(pick.replace("{pick}", "np.random.choice(files)"))
