"""PySpark ML pipelines: models compared on one `randomSplit` test part, and a training score reported beside the
held-out one. Whole notebooks through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """from pyspark.ml import Pipeline
from pyspark.ml.feature import VectorAssembler, StandardScaler
from pyspark.ml.classification import LogisticRegression, RandomForestClassifier, GBTClassifier
from pyspark.ml.evaluation import BinaryClassificationEvaluator
df = spark.read.format("csv").option("header", True).load("churn.csv")
train, test = df.randomSplit([0.8, 0.2], seed=7)
stages = [VectorAssembler(inputCols=["a", "b"], outputCol="raw"), StandardScaler(inputCol="raw", outputCol="features")]
evaluator = BinaryClassificationEvaluator(labelCol="label")
"""


def findings(code: str) -> list:
    return [f for f in analyze_sources([HEAD, code]).findings if f.rule_id.startswith("LEAK")]


@pytest.mark.parametrize("models, rules", [
    ("LogisticRegression(), RandomForestClassifier(), GBTClassifier()", ["LEAK005"]),
    ("LogisticRegression()", []),
])
def test_pipelines_compared_on_the_test_part(models: str, rules: list) -> None:
    code = (f"for clf in [{models}]:\n    model = Pipeline(stages=stages + [clf]).fit(train)\n"
            "    print(evaluator.evaluate(model.transform(test)))")
    assert sorted(f.rule_id for f in findings(code)) == rules


def test_a_training_score_beside_the_held_out_score_is_a_warning() -> None:
    code = ("model = Pipeline(stages=stages + [LogisticRegression()]).fit(train)\n"
            "print(evaluator.evaluate(model.transform(train)), evaluator.evaluate(model.transform(test)))")
    [f] = findings(code)
    assert f.rule_id == "LEAK007" and f.severity.value == "warning"
