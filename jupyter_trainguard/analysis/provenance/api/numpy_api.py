"""NumPy (and SciPy sparse): constructors, stacking, positional splitting, statistics and random draws."""

from __future__ import annotations

from .table import FuncRow

NP = ("numpy", "scipy")
CLASSES: dict = {}
FUNCS: dict[str, FuncRow] = {
    **{n: FuncRow("build", NP) for n in ("array", "asarray", "asanyarray", "ascontiguousarray", "matrix",
                                         "csr_matrix", "csc_matrix", "coo_matrix", "lil_matrix", "hstack_sparse",
                                         "expand_dims", "squeeze", "reshape", "log1p", "log", "sqrt", "exp",
                                         "where", "nan_to_num", "clip", "abs", "ravel", "transpose")},
    **{n: FuncRow("concat", NP) for n in ("concatenate", "vstack", "row_stack", "append", "r_")},
    **{n: FuncRow("merge", NP) for n in ("hstack", "column_stack", "c_", "dstack", "stack")},
    **{n: FuncRow("array_split", NP) for n in ("split", "array_split")},
    **{n: FuncRow("statistic", NP) for n in ("mean", "median", "std", "var", "min", "max", "amin", "amax",
                                             "nanmean", "nanmedian", "nanstd", "nanvar", "nanmin", "nanmax",
                                             "percentile", "nanpercentile", "quantile", "ptp", "average")},
    **{n: FuncRow("read", NP) for n in ("load", "loadtxt", "genfromtxt", "fromfile", "load_npz")},
    # scipy.stats: every row rescaled with statistics of all the rows (mean/std, ranks, a fitted lambda)
    **{n: FuncRow("scale", ("scipy",)) for n in ("zscore", "rankdata", "boxcox", "yeojohnson")},
    # curves fitted to rows: their parameters are a model (`popt` of scipy's curve_fit, polyfit's coefficients)
    "curve_fit": FuncRow("curve", ("scipy",)),
    "polyfit": FuncRow("curve", ("numpy",)),
    "polyval": FuncRow("curve_apply", ("numpy",)),
    "poly1d": FuncRow("curve_apply", ("numpy",)),
}
CURVE_FITTERS = ("curve_fit", "polyfit")
RANDOM_DRAWS = frozenset({"rand", "randn", "randint", "random", "random_sample", "normal", "uniform", "integers",
                          "standard_normal", "binomial", "poisson", "exponential", "multivariate_normal",
                          "lognormal", "beta", "gamma", "choice", "permutation", "linspace", "arange", "zeros",
                          "ones", "full", "eye", "meshgrid", "empty", "zeros_like", "ones_like"})
# comparisons, differences and correlations written as calls (`torch.eq(y, pred)`, `np.subtract(y, pred)`,
# `pred.eq(y)`, `np.corrcoef(y, pred)`, scipy's `pearsonr`): predictions set against labels through them are
# scored, as with `==` and `-`
COMPARING = frozenset({"eq", "ne", "equal", "not_equal", "isclose", "sub", "subtract", "corrcoef", "pearsonr",
                         "spearmanr"})
