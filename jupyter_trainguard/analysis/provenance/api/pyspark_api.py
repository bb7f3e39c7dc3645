"""PySpark ML: estimators fitted on a DataFrame (`scaler.fit(df)`, `lr.fit(train)`, `Pipeline(stages=[...]).fit`)
return models whose `transform` applies what they learned (a fitted model's `transform` is its prediction);
`df.randomSplit([0.8, 0.2])` splits rows; an evaluator's `evaluate(predictions)` scores them; `CrossValidator`
and `TrainValidationSplit` search settings on the rows they are fitted on; `spark.read.csv(path)` reads rows."""

from __future__ import annotations

import ast

from .table import ClassRow

SPK = ("pyspark",)
_T = ClassRow("transformer", SPK)
CLASSES: dict[str, ClassRow] = {
    **{n: _T for n in ("StandardScaler", "MinMaxScaler", "MaxAbsScaler", "RobustScaler", "Imputer", "PCA",
                       "ChiSqSelector", "UnivariateFeatureSelector", "VarianceThresholdSelector", "CountVectorizer",
                       "IDF", "Word2Vec", "QuantileDiscretizer")},
    **{n: ClassRow("transformer", SPK, vocab=True) for n in ("StringIndexer", "OneHotEncoder", "VectorIndexer")},
    **{n: ClassRow("stateless", SPK) for n in (
        "VectorAssembler", "Tokenizer", "RegexTokenizer", "StopWordsRemover", "HashingTF", "NGram", "SQLTransformer",
        "Normalizer", "PolynomialExpansion", "Binarizer", "Bucketizer", "IndexToString", "ElementwiseProduct")},
    **{n: ClassRow("model", SPK) for n in (
        "LogisticRegression", "DecisionTreeClassifier", "RandomForestClassifier", "GBTClassifier", "NaiveBayes",
        "LinearSVC", "MultilayerPerceptronClassifier", "FMClassifier", "OneVsRest", "LinearRegression",
        "GeneralizedLinearRegression", "DecisionTreeRegressor", "RandomForestRegressor", "GBTRegressor",
        "FMRegressor", "IsotonicRegression", "AFTSurvivalRegression", "ALS")},
    "Pipeline": ClassRow("pipeline", SPK),
    **{n: ClassRow("search", SPK) for n in ("CrossValidator", "TrainValidationSplit")},
    **{n: ClassRow("evaluator", SPK) for n in (
        "BinaryClassificationEvaluator", "MulticlassClassificationEvaluator", "RegressionEvaluator",
        "ClusteringEvaluator", "RankingEvaluator", "MultilabelClassificationEvaluator")},
}
FUNCS: dict = {}
READ_LEAVES = frozenset({"csv", "parquet", "json", "orc", "text", "load", "table"})


def spark_read(func: ast.expr) -> bool:
    """`spark.read.csv(path)`, `spark.read.format('csv').option(...).load(path)`: a DataFrame reader's read."""
    node = func
    while isinstance(node, (ast.Attribute, ast.Call)):
        if isinstance(node, ast.Attribute) and node.attr == "read" and node is not func:
            return isinstance(func, ast.Attribute) and func.attr in READ_LEAVES
        node = node.value if isinstance(node, ast.Attribute) else node.func
    return False
