"""gensim: word and document embeddings learn their vectors from the texts they are built with (`Word2Vec(corpus)`,
`build_vocab` then `train`); a text's features looked up in them (`model.wv[word]`, `infer_vector(doc)`) carry
what the whole corpus taught them, as a vectorizer's output does."""

from __future__ import annotations

from .table import ClassRow

GS = ("gensim",)
# the texts given to the constructor are fitted at once: the first positional argument or one of these keywords
CORPUS_KEYWORDS = ("sentences", "corpus_iterable", "documents", "corpus_file")
CLASSES: dict[str, ClassRow] = {n: ClassRow("transformer", GS, fitted_by=CORPUS_KEYWORDS)
                                for n in ("Word2Vec", "FastText", "Doc2Vec")}
FUNCS: dict = {}
