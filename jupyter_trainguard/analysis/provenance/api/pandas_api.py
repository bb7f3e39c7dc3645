"""pandas: readers, constructors, combining frames, and the methods that select rows or compute statistics."""

from __future__ import annotations

from .table import FuncRow

PD = ("pandas",)
CLASSES: dict = {}
FUNCS: dict[str, FuncRow] = {
    **{n: FuncRow("read", PD) for n in ("read_csv", "read_parquet", "read_excel", "read_sql", "read_json",
                                        "read_feather", "read_table", "read_pickle", "read_hdf", "read_sql_query",
                                        "read_sql_table", "read_fwf", "read_stata", "read_sas", "read_orc")},
    **{n: FuncRow("build", PD) for n in ("DataFrame", "Series", "to_datetime", "to_numeric", "Categorical")},
    "concat": FuncRow("concat", PD),
    "merge": FuncRow("merge", PD),
    **{n: FuncRow("stateless", PD) for n in ("get_dummies", "cut", "crosstab", "melt", "pivot_table")},
    "qcut": FuncRow("statistic", PD),
    # a calendar between two dates (`pd.date_range(df.index.min(), df.index.max())`) holds dates, no rows' values
    **{n: FuncRow("calendar", PD) for n in ("date_range", "bdate_range", "period_range", "timedelta_range")},
}

# methods on frames/series
STAT_METHODS = frozenset({"mean", "median", "std", "var", "min", "max", "mode", "quantile", "sem", "mad", "corr", "cov",
                          "corrwith", "describe"})
# `.cat` methods given category labels (`s.cat.reorder_categories(levels)`: the vocabulary in some order, however
# it was ranked); with methods given a number of rows (`shift`), no value of their arguments reaches the data
CATEGORY_LABELS = frozenset({"reorder_categories", "set_categories", "rename_categories", "add_categories",
                             "remove_categories"})
COUNT_ARGS = frozenset({"shift", "diff", "pct_change", "rolling", "expanding", "round"}) | CATEGORY_LABELS
ROW_HEAD = frozenset({"head", "nlargest", "nsmallest"})
ROW_TAIL = frozenset({"tail"})
ROW_RANDOM = frozenset({"sample"})
ROW_FILTER = frozenset({"query", "where", "filter"})
ROW_ADD = frozenset({"append", "merge", "join", "combine_first"})
META_ATTRS = frozenset({"columns", "shape", "dtypes", "dtype", "size", "ndim", "name", "nbytes",
                        "feature_names_in_", "n_features_in_", "classes_", "empty"})
