"""NLTK: classifiers trained by `Classifier.train(labelled_features)` (or `SklearnClassifier(est).train(...)`) and
scored by `nltk.classify.accuracy(classifier, labelled_features)`; frequency distributions (`FreqDist(words)`) learn
counts from every text they are given, so features chosen by them (`most_common(2000)`) carry those rows'
statistics, as a vectorizer's vocabulary with `max_features` does; a corpus reader's texts (`movie_reviews.words(f)`)
are rows of one corpus, however many calls read them."""

from __future__ import annotations

from .table import ClassRow, FuncRow

NL = ("nltk",)
CLASSES: dict[str, ClassRow] = {n: ClassRow("model", NL) for n in (
    "NaiveBayesClassifier", "DecisionTreeClassifier", "MaxentClassifier", "PositiveNaiveBayesClassifier",
    "SklearnClassifier", "ConditionalExponentialClassifier", "WekaClassifier", "TextCat")}
FUNCS: dict[str, FuncRow] = {
    **{n: FuncRow("statistic", NL) for n in ("FreqDist", "ConditionalFreqDist")},
    "accuracy": FuncRow("metric", NL),
    "train": FuncRow("train", NL),  # `NaiveBayesClassifier.train(train_set)`: a classifier fitted at once
    **{n: FuncRow("corpus", NL) for n in ("words", "sents", "raw", "paras", "tagged_words", "tagged_sents")},
}
# word lists and lexicons of `nltk.corpus`: vocabularies looked up, not texts whose rows are split
LEXICONS = frozenset({"stopwords", "wordnet", "words", "names", "swadesh", "cmudict", "opinion_lexicon", "verbnet",
                      "framenet", "sentiwordnet", "wordnet_ic", "omw"})
