"""feature_engine: encoders that only rename the categories they saw (one-hot columns, arbitrary ordinal codes)
learn nothing about how values are distributed; those that order, count or average by them do."""

from __future__ import annotations

from .table import ClassRow

FE = ("feature_engine",)
CLASSES: dict[str, ClassRow] = {
    "OneHotEncoder": ClassRow("transformer", FE, vocab=True),
    # `encoding_method='arbitrary'` numbers the categories as seen; the default orders them by the target's mean
    "OrdinalEncoder": ClassRow("transformer", FE, vocab_when=("encoding_method", "arbitrary")),
    **{n: ClassRow("transformer", FE) for n in ("RareLabelEncoder", "DecisionTreeEncoder", "PRatioEncoder",
                                                "StringSimilarityEncoder")},
}
FUNCS: dict = {}
