"""sklearn-pandas: `CategoricalImputer` fills each column's most frequent value by default (a statistic of the rows
it is fitted on) or a given constant (`strategy='constant'`, nothing learned). (`DataFrameMapper` is left to the
unknown-call rules: what it learns depends on the transformers it is given.)"""

from __future__ import annotations

from .table import ClassRow

SP = ("sklearn_pandas",)
CLASSES: dict[str, ClassRow] = {
    "CategoricalImputer": ClassRow("transformer", SP, vocab_when=("strategy", "constant")),
}
FUNCS: dict = {}
