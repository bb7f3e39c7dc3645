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
    # fills a constant label by default; `imputation_method='frequent'` learns each column's mode
    "CategoricalImputer": ClassRow("transformer", FE, vocab_when=("imputation_method", (None, "missing"))),
    # learned from the rows fitted on: bin edges, power lambdas, tail values, the values sampled from, the columns
    # kept by correlation, constancy or a model's performance
    **{n: ClassRow("transformer", FE) for n in (
        "EqualFrequencyDiscretiser", "EqualWidthDiscretiser", "GeometricWidthDiscretiser", "DecisionTreeDiscretiser",
        "YeoJohnsonTransformer", "BoxCoxTransformer", "EndTailImputer", "RandomSampleImputer",
        "MeanNormalizationScaler", "DropCorrelatedFeatures", "SmartCorrelatedSelection", "DropConstantFeatures",
        "DropDuplicateFeatures", "SelectByShuffling", "SelectBySingleFeaturePerformance", "RecursiveFeatureElimination",
        "RecursiveFeatureAddition", "SelectByTargetMeanPerformance", "DropHighPSIFeatures", "ProbeFeatureSelection")},
    # per-row arithmetic, or a value the notebook gives: nothing learned from other rows
    **{n: ClassRow("stateless", FE) for n in (
        "ArbitraryNumberImputer", "LogTransformer", "LogCpTransformer", "ReciprocalTransformer", "ArcsinTransformer",
        "PowerTransformer", "MathFeatures", "RelativeFeatures", "DatetimeFeatures", "DropFeatures",
        "DropMissingData", "ArbitraryDiscretiser", "ArbitraryOutlierCapper")},
}
FUNCS: dict = {}
