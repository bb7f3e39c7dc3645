"""Cross-cell dataflow for ML notebooks: where data comes from, how it was split, what was fitted on it.

One pass over the top-level statements of every cell in execution order (loops and branches analysed once,
notebook-defined helper functions inlined at each call, up to a small depth). Every data expression becomes a
`Value` that knows its ancestors, its split role (train/val/test, from split calls, slicing or names), the
transformers whose output reached it, resampling/duplication, time-order evidence and column facts. Estimators are
`Est` objects shared by all names bound to them, so `fit` then `transform`/`predict` on another name is followed.
Rules read the recorded events (`fits`, `splits`, `scores`, `eval_uses`, `selections`, ...), never the AST again.
Unknown calls propagate their data arguments conservatively; nothing here imports an ML library.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..notebook.model import Cell
from .names import (
    CV_FUNCS,
    DATE_WORD,
    EVAL_KWARGS,
    METRIC_HINTS,
    ML_ROOTS,
    MODEL_SUFFIXES,
    PIPELINES,
    PREDICT_METHODS,
    RESAMPLERS_UP,
    SEARCHES,
    SPLITTERS,
    TIME_OPS,
    TORCH_MODULE_BASES,
    TRANSFORMERS,
    role_from_name,
)
from .parsed import ParsedNotebook, dotted, last_part

HOLDOUT = ("val", "test")
_COUNTER = itertools.count(1)
STAT_METHODS = frozenset({"mean", "median", "std", "var", "min", "max", "mode", "quantile"})
NP_STATS = frozenset({"mean", "median", "std", "var", "min", "max", "amin", "amax", "nanmean", "nanmedian", "nanstd",
                      "nanvar", "nanmin", "nanmax", "percentile", "nanpercentile", "quantile", "ptp"})
RANDOM_DRAWS = frozenset({"rand", "randn", "randint", "random", "random_sample", "normal", "uniform", "integers",
                          "standard_normal", "binomial", "poisson", "exponential", "multivariate_normal",
                          "lognormal", "beta", "gamma", "choice", "permutation"})
ARRAY_BUILDERS = frozenset({"array", "asarray", "DataFrame", "Series", "concatenate", "vstack", "hstack", "c_",
                            "column_stack", "stack", "concat"})
SCALE_FUNCS = frozenset(f"sklearn.preprocessing.{f}" for f in ("scale", "minmax_scale", "robust_scale",
                                                                 "maxabs_scale", "quantile_transform",
                                                                 "power_transform"))
SM_MODELS = frozenset({"OLS", "WLS", "GLS", "GLM", "Logit", "Probit", "MNLogit", "Poisson", "NegativeBinomial",
                       "QuantReg", "RLM", "ols", "wls", "gls", "glm", "logit", "probit", "mnlogit", "poisson",
                       "quantreg", "rlm"})
_GROUPED = frozenset({"groupby", "rolling", "expanding", "ewm", "resample", "pivot_table"})
_RANGES = ("range", "np.arange", "numpy.arange", "np.linspace", "np.logspace", "numpy.linspace")
_DATA_CLASSES = frozenset({"Dataset", "DMatrix", "Pool", "DataLoader", "TensorDataset", "DataFrame", "Series",
                           "Tensor", "Subset", "ConcatDataset", "IterableDataset", "DatasetDict"})
_META_ATTRS = frozenset({"columns", "shape", "dtypes", "dtype", "size", "ndim", "classes_", "feature_names_in_",
                         "n_features_in_", "str", "dt", "cat", "name"})
# methods that keep the frame's columns (so column facts survive them)
_COL_KEEP = frozenset({"copy", "dropna", "fillna", "reset_index", "sort_values", "sort_index", "query", "sample",
                       "head", "tail", "astype", "drop_duplicates", "replace", "to_numpy", "values", "iloc", "loc",
                       "interpolate", "ffill", "bfill", "set_index", "infer_objects", "clip", "round", "abs"})


@dataclass(eq=False)
class Est:
    """An estimator/transformer/splitter object (shared by every name bound to it)."""

    cls: str
    ekind: str  # transformer | model | pipeline | search | resampler | splitter | torch | unknown
    cell: Cell | None
    line: int | None
    name: str | None = None
    multi: bool = False  # stands for several objects (a loop over models / hyperparameters)
    hyper: bool = False  # built from a loop's hyperparameter value
    shuffle: bool | None = None  # for splitters
    fitted: FitEvent | None = None
    node: ast.AST | None = None


@dataclass(eq=False)
class Value:
    """An abstract data value (or estimator, prediction, score)."""

    vid: int
    kind: str  # data | est | pred | score | hyper | func | tuple
    parents: tuple = ()
    name: str | None = None
    cell: Cell | None = None
    line: int | None = None
    role: str | None = None  # train | val | test | fold_train | fold_val
    strong: bool = False  # role from a split (call, slice, fold), not only a name
    taints: frozenset = frozenset()  # transformer FitEvents whose output reached this value
    resampled: frozenset = frozenset()  # Resample events
    dup: frozenset = frozenset()  # duplication events
    time: frozenset = frozenset()  # (evidence, cell index, line) of time-order evidence
    cols: dict | None = None  # {"frame": key, "removed": set, "selected": list|None}
    label: tuple | None = None  # (frame key, column) when this is the target column
    est: Est | None = None
    fit: FitEvent | None = None  # for predictions/scores: the fit that produced them
    score: bool = False
    train_score: bool = False  # a metric on training data
    hyper: bool = False
    items: tuple | None = None  # for tuples/lists with known elements
    keys: dict | None = None  # for dict literals with string keys
    func: ast.FunctionDef | None = None
    node: ast.AST | None = field(default=None, repr=False)  # the expression that produced it
    _anc: frozenset | None = field(default=None, repr=False)

    def text(self, limit: int = 40) -> str:
        """The variable name, else the (shortened) source expression."""
        if self.name:
            return self.name
        if self.node is not None:
            try:
                text = ast.unparse(self.node)
            except Exception:  # pragma: no cover - unparse of odd nodes
                return "an expression"
            return text if len(text) <= limit else text[: limit - 3] + "..."
        return "an expression"

    @property
    def anc(self) -> frozenset[int]:
        """Ids of this value and every value it was derived from (computed on first use)."""
        if self._anc is None:
            stack = [self]
            while stack:
                top = stack[-1]
                todo = [p for p in top.parents if p._anc is None]
                if todo:
                    stack.extend(todo)
                    continue
                stack.pop()
                if top._anc is None:
                    top._anc = frozenset((top.vid,)).union(*(p._anc for p in top.parents))
        return self._anc


@dataclass(eq=False)
class FitEvent:
    eid: int
    est: Est
    method: str
    data: Value | None
    y: Value | None
    cell: Cell
    node: ast.AST
    loops: tuple = ()


@dataclass(eq=False)
class SplitEvent:
    sid: int
    func: str
    kind: str  # split | cv | slice | folds | search
    inputs: list
    outputs: list
    cell: Cell
    node: ast.AST
    shuffle: bool | None = True
    random_state: bool = False
    sources: list = field(default_factory=list)  # the input each output was split from (when known)


@dataclass(eq=False)
class ScoreEvent:
    fit: FitEvent | None
    est: Est | None
    data: Value
    method: str
    cell: Cell
    node: ast.AST
    loops: tuple
    result: Value | None = None


@dataclass(eq=False)
class Event:
    """A generic event (resampling, duplication, eval-set use, selection, label use, time op)."""

    what: str
    cell: Cell
    node: ast.AST
    detail: dict = field(default_factory=dict)


class Flow:
    """Run the analysis once; rules read the recorded events."""

    MAX_DEPTH = 3

    def __init__(self, parsed: ParsedNotebook, strict: bool = False):
        self.strict = strict  # re-raise internal errors (tests) instead of skipping the statement
        self.parsed = parsed
        self.env: dict[str, Value] = {}
        self.fits: list[FitEvent] = []
        self.splits: list[SplitEvent] = []
        self.scores: list[ScoreEvent] = []
        self.resamples: list[Event] = []
        self.dups: list[Event] = []
        self.eval_uses: list[Event] = []
        self.selections: list[Event] = []
        self.label_leaks: list[Event] = []
        self.reports: list[Event] = []  # train-score reported with a val/test label
        # (frame, col) -> (columns read to compute it, sequence number of the assignment)
        # ... and whether the column already existed (it was read to compute itself)
        self.derived_cols: dict[tuple, tuple[set, int, bool]] = {}
        self.torch_classes: set[str] = set()
        self.loops: list[tuple[int, str]] = []
        self.depth = 0
        self.cell: Cell | None = None
        self.stmt: ast.stmt | None = None
        self.value_by_id: dict[int, Value] = {}
        self._ret: list[Value | None] | None = None
        self.taint_owner: dict[int, FitEvent] = {}
        self.const_lists: set[str] = set()  # names bound to literal lists of numbers (hyperparameter grids)
        self.transform_uses: list = []
        # names bound to column lists: ("sel", [cols]) for a literal list, ("except", {cols}) for
        # [c for c in df.columns if c not in (...)]
        self.str_lists: dict[str, tuple[str, object]] = {}
        # names bound to grouped statistics (rate = df.groupby('k')['y'].mean()) -> the columns they read
        self.group_refs: dict[str, set[str]] = {}
        self.loop_strs: dict[str, list[str]] = {}  # loop variables over literal column names
        # results of metric calls (accuracy_score(...), crit(out, y), pred == y), and whether computed in a loop over
        # models or hyperparameter values
        self.metric_vals: list[tuple[Value, bool]] = []
        self.pl_trainers: set[str] = set()  # names bound to Lightning Trainers
        self.sm_data: dict[int, tuple] = {}  # id(Est) of a statsmodels model -> (exog, endog) given at construction
        self.plateaus: set[str] = set()  # names bound to ReduceLROnPlateau schedulers
        self.loss_fns: set[str] = set()  # names bound to loss objects (criterion = nn.CrossEntropyLoss())
        self.stat_eids: set[int] = set()  # FitEvents that are pandas/NumPy statistics (mean, std, median, ...)
        self.stat_cols: dict[int, set[str]] = {}  # statistic FitEvent -> columns its result was assigned to

    # ----------------------------------------------------------------- values
    def new(self, kind: str = "data", parents: Iterable[Value | None] = (), node: ast.AST | None = None,
            **kw) -> Value:
        vid = next(_COUNTER)
        ps = [p for p in parents if p is not None and p.kind not in ("est", "func")]
        v = Value(vid=vid, kind=kind, parents=tuple(ps), cell=self.cell, line=getattr(node, "lineno", None),
                  node=node)
        if ps:
            roles = {p.role for p in ps if p.role}
            if len(roles) == 1:
                v.role = roles.pop()
                v.strong = any(p.strong for p in ps if p.role == v.role)
            v.taints = _union(p.taints for p in ps)
            v.resampled = _union(p.resampled for p in ps)
            v.dup = _union(p.dup for p in ps)
            v.time = _union(p.time for p in ps)
            v.score = any(p.score for p in ps)
            v.train_score = any(p.train_score for p in ps)
            v.hyper = any(p.hyper for p in ps)
            fits = {p.fit for p in ps if p.fit is not None}
            v.fit = fits.pop() if len(fits) == 1 else None
            data_ps = [p for p in ps if p.kind in ("data", "pred")]
            if len(data_ps) == 1:
                v.cols, v.label = data_ps[0].cols, data_ps[0].label
        for k, val in kw.items():
            setattr(v, k, val)
        self.value_by_id[vid] = v
        return v

    def loc(self, node: ast.AST) -> dict:
        return {"cell": self.cell.index if self.cell else None, "line": getattr(node, "lineno", None)}

    # --------------------------------------------------------------- driving
    def run(self) -> Flow:
        for pc in self.parsed.cells:
            if pc.tree is None:
                continue
            self.cell = pc.cell
            for stmt in pc.tree.body:
                self.statement(stmt)
        return self

    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            self.statement(s)

    def statement(self, s: ast.stmt) -> None:
        outer = self.stmt
        if self.depth == 0 or self.stmt is None:
            self.stmt = s
        try:
            self._statement(s)
        except RecursionError:
            pass
        except Exception:  # odd code must never stop the analysis of the rest of the notebook
            if self.depth == 0 and not self.strict:
                pass
            else:
                raise
        finally:
            self.stmt = outer

    def _statement(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Assign):
            if isinstance(s.value, ast.Call) and last_part(self.parsed.qualname(s.value.func)).endswith("Loss"):
                self.loss_fns.update(n.id for n in s.targets if isinstance(n, ast.Name))
            if isinstance(s.value, ast.Call) and last_part(self.parsed.qualname(s.value.func)) == "ReduceLROnPlateau":
                self.plateaus.update(n.id for n in s.targets if isinstance(n, ast.Name))
            if isinstance(s.value, ast.Call) and self.parsed.qualname(s.value.func).split(".")[0] in (
                    "pytorch_lightning", "lightning") and last_part(self.parsed.qualname(s.value.func)) == "Trainer":
                self.pl_trainers.update(n.id for n in s.targets if isinstance(n, ast.Name))
            spec = self.col_spec(s.value)
            grouped = _is_grouped(s.value) and set(_column_refs(s.value, self.env))
            for n in s.targets:
                if isinstance(n, ast.Name):
                    if spec is not None:
                        self.str_lists[n.id] = spec
                    else:
                        self.str_lists.pop(n.id, None)
                    if grouped:
                        self.group_refs[n.id] = grouped
                    else:
                        self.group_refs.pop(n.id, None)
            if isinstance(s.value, (ast.List, ast.Tuple)) and s.value.elts and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and
                    not isinstance(e.value, bool) for e in s.value.elts) or self._numeric_range(s.value):
                self.const_lists.update(n.id for n in s.targets if isinstance(n, ast.Name))
            else:
                self.const_lists.difference_update(n.id for n in s.targets if isinstance(n, ast.Name))
            v = self.expr(s.value)
            for t in s.targets:
                self.assign(t, v, s.value)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.expr(s.value), s.value)
        elif isinstance(s, ast.AugAssign):
            v = self.expr(s.value)
            if isinstance(s.target, ast.Name):
                old = self.env.get(s.target.id)
                if old is not None or v is not None:
                    self.env[s.target.id] = self.new("data" if not (v and v.score) else "score", [old, v], s)
        elif isinstance(s, ast.Expr):
            self.list_mutation(s.value)
            self.expr(s.value)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self.for_loop(s)
        elif isinstance(s, ast.While):
            self.expr(s.test)
            self.loops.append((id(s), "while"))
            self.block(s.body)
            self.loops.pop()
            self.block(s.orelse)
        elif isinstance(s, ast.If):
            self.check_selection(s.test, s)
            self.expr(s.test)
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                v = self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, v, item.context_expr)
            self.block(s.body)
        elif isinstance(s, ast.Try):
            self.block(s.body)
            for h in s.handlers:
                self.block(h.body)
            self.block(s.orelse)
            self.block(s.finalbody)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.env[s.name] = self.new("func", func=s)
        elif isinstance(s, ast.ClassDef):
            bases = {last_part(self.parsed.qualname(b)) for b in s.bases}
            if bases & set(TORCH_MODULE_BASES) or bases & self.torch_classes:
                self.torch_classes.add(s.name)
        elif isinstance(s, ast.Return):
            v = self.expr(s.value) if s.value is not None else None
            if self._ret is not None:
                self._ret.append(v)
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    self.remove_cols(t.value.id, _strings(t.slice))

    def for_loop(self, s: ast.For | ast.AsyncFor) -> None:
        it = s.iter
        target = s.target
        if isinstance(it, ast.Call) and dotted(it.func) == "enumerate" and it.args:
            it = it.args[0]
            if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                target = target.elts[1]
        kind = "other"
        # for tr, te in kf.split(X, y)
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "split":
            recv = self.expr(it.func.value)
            if recv is not None and recv.kind == "est" and recv.est.ekind == "splitter":
                data = [self.expr(a) for a in it.args]
                outs = [self.new("data", data[:1], it, role="fold_train", strong=True),
                        self.new("data", data[:1], it, role="fold_val", strong=True)]
                self.splits.append(SplitEvent(next(_COUNTER), recv.est.cls, "folds", [d for d in data[:1] if d],
                                              outs, self.cell, it, shuffle=recv.est.shuffle))
                if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                    for t, o in zip(target.elts, outs):
                        self.assign(t, o, it)
                self.loops.append((id(s), "folds"))
                self.block(s.body)
                self.loops.pop()
                return
        if isinstance(it, ast.Call) and dotted(it.func) == "zip" and isinstance(target, ast.Tuple) and \
                len(target.elts) == len(it.args) and not it.keywords:
            vals = [self.expr(a) for a in it.args]
            if any(v is not None and v.kind == "est" for v in vals):
                # for name, clf in zip(names, classifiers): one model per pass
                for t, v in zip(target.elts, vals):
                    self.assign(t, v if v is None or v.kind == "est" else self.new("data", [v], it), it)
                self.loops.append((id(s), "models"))
                self.block(s.body)
                self.loops.pop()
                self.block(s.orelse)
                return
        strs = self.col_spec(it)
        if isinstance(target, ast.Name):
            if strs is not None and strs[0] == "sel":
                self.loop_strs[target.id] = list(strs[1])
            else:
                self.loop_strs.pop(target.id, None)
        v = self.expr(it)
        grid = isinstance(it, ast.Call) and last_part(self.parsed.qualname(it.func)) in ("ParameterGrid",
                                                                                         "ParameterSampler", "product")
        if grid or (isinstance(it, ast.Name) and it.id in self.const_lists) \
                or isinstance(it, ast.Call) and dotted(it.func) in _RANGES \
                or isinstance(it, (ast.List, ast.Tuple)) and it.elts and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, (int, float, str)) for e in it.elts) \
                or (v is not None and v.kind == "hyper"):
            kind = "hyper"
            self.assign(target, self.new("hyper", [], it, hyper=True), it)
        elif v is not None and v.kind == "est":
            kind = "models"
            self.assign(target, v, it)
        elif v is not None and v.items and any(i is not None and i.kind == "est" for i in v.items):
            kind = "models"
            est_item = next(i for i in v.items if i is not None and i.kind == "est")
            self.assign(target, est_item, it)
        elif v is not None and v.items and isinstance(target, ast.Tuple) and (pairs := [
                i for i in v.items if i is not None and i.kind == "tuple" and i.items and
                len(i.items) == len(target.elts) and any(j is not None and j.kind == "est" for j in i.items)]):
            kind = "models"  # for name, model in [("lr", LogisticRegression()), ("rf", RandomForest())]
            est_item = next(j for j in pairs[0].items if j is not None and j.kind == "est")
            est_item.est.multi = est_item.est.multi or len(v.items) > 1
            self.assign(target, pairs[0], it)
        elif v is not None:
            self.assign(target, self.new(v.kind if v.kind != "tuple" else "data", [v], it), it)
        else:
            for n in _names(target):
                self.env.pop(n, None)
        self.loops.append((id(s), kind))
        self.block(s.body)
        self.loops.pop()
        self.block(s.orelse)

    # ------------------------------------------------------------ assignment
    def assign(self, t: ast.expr, v: Value | None, rhs: ast.expr) -> None:
        if isinstance(t, ast.Starred):
            t = t.value
        if isinstance(t, ast.Name):
            if v is None:
                self.env.pop(t.id, None)
                return
            self.env[t.id] = self.named(t.id, v, rhs)
        elif isinstance(t, (ast.Tuple, ast.List)):
            items = v.items if v is not None and v.items is not None else None
            if items is not None and len(items) == len(t.elts):
                nodes = rhs.elts if isinstance(rhs, (ast.Tuple, ast.List)) and len(rhs.elts) == len(t.elts) \
                    else [rhs] * len(t.elts)
                for tt, vv, nn in zip(t.elts, items, nodes):
                    self.assign(tt, vv, nn)
            else:
                for tt in t.elts:
                    self.assign(tt, self.new(v.kind if v.kind in ("data", "pred", "score") else "data", [v], rhs)
                                if v is not None and v.kind != "est" else v, rhs)
        elif isinstance(t, ast.Subscript):
            base, colslice = t.value, t.slice
            if isinstance(base, ast.Attribute) and base.attr in ("loc", "iloc", "at", "iat") and \
                    isinstance(base.value, ast.Name):  # df.loc[rows, 'col'] = ...
                colslice = _loc_cols(t.slice) if base.attr in ("loc", "at") else None
                base = base.value
            if isinstance(base, ast.Name) and base.id in self.env:
                old = self.env[base.id]
                if old.kind == "est":
                    return
                nv = self.new(old.kind if old.kind != "tuple" else "data", [old, v], rhs)
                if old.role:
                    nv.role, nv.strong = old.role, old.strong
                nv.cols, nv.label = old.cols, old.label
                nv.name = base.id
                if old.keys is not None:
                    nv.keys = dict(old.keys)
                    key = _const(t.slice)
                    if isinstance(key, str) and v is not None:
                        nv.keys[key] = v
                cols = self.col_keys(colslice)
                if v is not None and cols:
                    for eid in v.taints & self.stat_eids:
                        self.stat_cols.setdefault(eid, set()).update(cols)
                if cols and old.cols is not None and not _has_time_op(rhs):
                    refs = set(_column_refs(rhs, self.env))
                    refs.update(*(self.group_refs.get(n, ()) for n in _names(rhs)))
                    for c in cols:
                        self.derived_cols[(old.cols["frame"], c)] = (refs - {c}, next(_COUNTER), c in refs)
                        if c in old.cols["removed"]:
                            nv.cols = dict(old.cols, removed=old.cols["removed"] - {c})
                if isinstance(rhs, ast.Call) and "to_datetime" in self.parsed.qualname(rhs.func):
                    nv.time = nv.time | {("datetime", self.cell.index, rhs.lineno)}
                self.env[base.id] = nv

    def _in_config_loop(self) -> bool:
        return any(kind in ("hyper", "models") for _, kind in self.loops)

    def _numeric_range(self, node: ast.AST) -> bool:
        """range(...), np.arange/linspace/logspace(...) or list(range(...)): a grid of hyperparameter values."""
        if isinstance(node, ast.Call) and dotted(node.func) == "list" and len(node.args) == 1:
            node = node.args[0]
        return isinstance(node, ast.Call) and (dotted(node.func) in _RANGES or self.parsed.qualname(node.func) in (
            "numpy.arange", "numpy.linspace", "numpy.logspace", "numpy.geomspace"))

    def col_spec(self, node: ast.AST | None) -> tuple[str, object] | None:
        """A column list known statically: a literal list of names, a name bound to one, or a comprehension
        over `df.columns` that only excludes named columns."""
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(
                isinstance(x, ast.Constant) and isinstance(x.value, str) for x in node.elts):
            return ("sel", [x.value for x in node.elts])
        if isinstance(node, ast.Name):
            return self.str_lists.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self.col_spec(node.left), self.col_spec(node.right)
            if a is not None and b is not None and a[0] == b[0] == "sel":
                return ("sel", list(a[1]) + list(b[1]))
            return None
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.NotEq) and \
                isinstance(node.left, ast.Attribute) and node.left.attr == "columns" and \
                isinstance(node.comparators[0], ast.Constant) and isinstance(node.comparators[0].value, str):
            return ("except", frozenset({node.comparators[0].value}))  # df.loc[:, df.columns != 'id']
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert) and isinstance(node.operand, ast.Call) \
                and isinstance(node.operand.func, ast.Attribute) and node.operand.func.attr == "isin" and \
                isinstance(node.operand.func.value, ast.Attribute) and node.operand.func.value.attr == "columns" \
                and node.operand.args:
            names = self.col_names(node.operand.args[0])
            return ("except", frozenset(names)) if names else None  # df.loc[:, ~df.columns.isin([...])]
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            gen = node.generators[0]
            it = gen.iter.args[0] if isinstance(gen.iter, ast.Call) and dotted(gen.iter.func) == "list" and \
                gen.iter.args else gen.iter
            if not (isinstance(it, ast.Attribute) and it.attr == "columns" and isinstance(gen.target, ast.Name)
                    and isinstance(node.elt, ast.Name) and node.elt.id == gen.target.id):
                return None
            excluded: set[str] = set()
            for cond in gen.ifs:
                if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1 and isinstance(cond.left, ast.Name)
                        and cond.left.id == gen.target.id and isinstance(cond.ops[0], (ast.NotIn, ast.NotEq))):
                    return None
                other = cond.comparators[0]
                spec = self.col_spec(other)
                names = [other.value] if isinstance(other, ast.Constant) and isinstance(other.value, str) else \
                    list(spec[1]) if spec is not None and spec[0] == "sel" else \
                    [x.value for x in other.elts if isinstance(x, ast.Constant)] if isinstance(other, ast.Set) \
                    else None
                if names is None:
                    return None
                excluded.update(names)
            return ("except", frozenset(excluded))
        return None

    def col_keys(self, node: ast.AST | None) -> list[str]:
        """Column names an assignment target may write: literals, and names built from a loop over literal
        names (`df[col + '_te']`, `df[f'{col}_mean']`, `df[col]`)."""
        if isinstance(node, ast.Name) and node.id in self.loop_strs:
            return list(self.loop_strs[node.id])
        if isinstance(node, (ast.BinOp, ast.JoinedStr)):
            parts = [node.left, node.right] if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) else \
                [p.value if isinstance(p, ast.FormattedValue) else p for p in node.values] \
                if isinstance(node, ast.JoinedStr) else []
            loop = {p.id for p in parts if isinstance(p, ast.Name) and p.id in self.loop_strs}
            if len(loop) != 1 or not all(isinstance(p, ast.Name) and p.id in loop or isinstance(p, ast.Constant)
                                         and isinstance(p.value, str) for p in parts):
                return []
            var = loop.pop()
            return ["".join(val if isinstance(p, ast.Name) else p.value for p in parts)
                    for val in self.loop_strs[var]]
        return _strings(node)

    def col_names(self, node: ast.AST | None) -> list[str]:
        """Column names of a literal or of a name bound to a literal list."""
        spec = self.col_spec(node) if isinstance(node, ast.Name) else None
        return list(spec[1]) if spec is not None and spec[0] == "sel" else _strings(node)

    def list_mutation(self, e: ast.expr) -> None:
        """features.append('x') / .remove('y') / .extend([...]) on a known column list."""
        if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name)
                and e.func.value.id in self.str_lists):
            return
        name, attr = e.func.value.id, e.func.attr
        kind, cols = self.str_lists[name]
        arg = self.col_names(e.args[0]) if e.args else []
        if kind == "sel" and attr in ("append", "extend", "remove", "insert") and arg:
            if attr == "insert":
                arg = self.col_names(e.args[1]) if len(e.args) > 1 else []
            self.str_lists[name] = ("sel", [c for c in cols if c not in arg] if attr == "remove" else
                                    list(cols) + arg)
        else:
            self.str_lists.pop(name, None)

    def named(self, name: str, v: Value, rhs: ast.expr) -> Value:
        if v.kind in ("est", "func", "hyper"):
            if v.kind == "est" and v.est.name is None:
                v.est.name = name
            return v
        nrole = role_from_name(name)
        if v.name is not None and v.name != name and v.kind in ("data", "pred", "score"):
            v = self.alias_copy(v)
        if nrole and v.role is None and v.kind == "data":
            parent = self._row_subset_parent(rhs)
            if parent is not None:
                v.role, v.strong = nrole, True
                self.slice_split(parent, v, rhs)
            elif not v.parents:
                v.role, v.strong = nrole, False
        elif nrole and v.role in ("train", "test", "val") and nrole in HOLDOUT and v.role in HOLDOUT \
                and v.role != nrole and v.strong:
            v.role = nrole  # positional holdout named as validation (or the reverse)
        v.name = name
        return v

    def alias_copy(self, v: Value) -> Value:
        nv = self.new(v.kind, [v])
        for f in ("role", "strong", "cols", "label", "fit", "score", "train_score", "items", "keys"):
            setattr(nv, f, getattr(v, f))
        return nv

    def _row_subset_parent(self, rhs: ast.expr) -> Value | None:
        node = rhs
        while isinstance(node, ast.Attribute) and node.attr in ("values", "copy", "reset_index"):
            node = node.value
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("copy", "reset_index", "to_numpy"):
            node = node.func.value
        if isinstance(node, ast.Subscript):
            sl = node.slice
            if isinstance(sl, ast.Constant) and isinstance(sl.value, str):
                return None
            base = node.value
            if isinstance(base, ast.Attribute) and base.attr in ("iloc", "loc"):
                base = base.value
            return self.env.get(base.id) if isinstance(base, ast.Name) else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("sample", "drop", "query", "head", "tail", "take"):
            if node.func.attr == "drop" and not any(k.arg == "index" for k in node.keywords) and not (
                    node.args and isinstance(node.args[0], ast.Attribute) and node.args[0].attr == "index"):
                return None
            base = node.func.value
            return self.env.get(base.id) if isinstance(base, ast.Name) else None
        return None

    def slice_split(self, parent: Value, v: Value, node: ast.expr) -> None:
        for s in self.splits:
            if s.kind == "slice" and s.inputs and s.inputs[0] is parent:
                s.outputs.append(v)
                return
        random = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sample"
        self.splits.append(SplitEvent(next(_COUNTER), "slice", "slice", [parent], [v], self.cell, node,
                                      shuffle=random, random_state=_kw(node, "random_state") is not None
                                      if isinstance(node, ast.Call) else True))

    def remove_cols(self, name: str, cols: list[str]) -> None:
        v = self.env.get(name)
        if v is not None and v.cols is not None and cols:
            nv = self.alias_copy(v)
            nv.cols = dict(v.cols, removed=v.cols["removed"] | set(cols))
            nv.name = name
            self.env[name] = nv

    # ----------------------------------------------------------- expressions
    def expr(self, e: ast.expr | None) -> Value | None:
        if e is None:
            return None
        if isinstance(e, ast.Name):
            return self.env.get(e.id)
        if isinstance(e, ast.Constant):
            return None
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Attribute):
            base = self.expr(e.value)
            if base is None:
                return None
            if base.kind == "est":
                return None
            if e.attr in _META_ATTRS:
                return None
            v = self.new(base.kind if base.kind in ("data", "pred", "score") else "data", [base], e)
            if e.attr in ("values", "T", "index") or base.cols is None:
                pass
            elif e.attr not in _COL_KEEP:  # df.colname: a single column
                v.cols = None
                v.label = (base.cols["frame"], e.attr)
            return v
        if isinstance(e, ast.Subscript):
            return self.subscript(e)
        if isinstance(e, (ast.Tuple, ast.List)):
            vals = [self.expr(x) for x in e.elts]
            if not any(vals):
                return self.new("data", [], e) if isinstance(e, ast.List) and not e.elts else None
            if all(v is not None and v.kind == "est" for v in vals):
                est = vals[0].est
                est.multi = est.multi or len(vals) > 1
                return vals[0]
            v = self.new("tuple", vals, e, items=tuple(vals))
            return v
        if isinstance(e, ast.Dict):
            vals = [self.expr(x) for x in e.values]
            if vals and all(v is not None and v.kind == "est" for v in vals):
                vals[0].est.multi = vals[0].est.multi or len(vals) > 1
                return vals[0]
            keys = {}
            for k, val in zip(e.keys, vals):
                kc = _const(k) if k is not None else None
                if isinstance(kc, str) and val is not None:
                    keys[kc] = val
            return self.new("data", vals, e, keys=keys, items=None)
        if isinstance(e, (ast.BinOp, ast.BoolOp, ast.Compare, ast.UnaryOp, ast.IfExp, ast.JoinedStr,
                          ast.FormattedValue, ast.Starred, ast.Set)):
            vals = [self.expr(c) for c in ast.iter_child_nodes(e) if isinstance(c, ast.expr)]
            vals = [v for v in vals if v is not None and v.kind != "est"]
            if not vals:
                return None
            # comparing predictions with labels (torch-style accuracy) is a score
            compared = isinstance(e, (ast.Compare, ast.BinOp)) and any(v.kind == "pred" for v in vals) and any(
                v.kind == "data" for v in vals)
            scored = any(v.score for v in vals) or compared
            out = self.new("score" if scored else "data", vals, e, score=scored)
            if compared:
                self.metric_vals.append((out, self._in_config_loop()))
            return out
        if isinstance(e, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            return self.comprehension(e)
        if isinstance(e, ast.NamedExpr):
            v = self.expr(e.value)
            self.assign(e.target, v, e.value)
            return v
        if isinstance(e, ast.Lambda):
            return None
        return None

    def comprehension(self, e: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp) -> Value | None:
        saved = dict(self.env)
        try:
            for gen in e.generators:
                it = self.expr(gen.iter)
                if it is not None and it.kind == "est":
                    self.assign(gen.target, it, gen.iter)
                elif it is not None and it.items and any(i is not None and i.kind == "est" for i in it.items):
                    self.assign(gen.target, next(i for i in it.items if i is not None and i.kind == "est"), gen.iter)
                elif it is not None:
                    self.assign(gen.target, self.new("data", [it], gen.iter), gen.iter)
            self.loops.append((id(e), "models"))
            if isinstance(e, ast.DictComp):
                out = self.new("data", [self.expr(e.key), self.expr(e.value)], e)
            else:
                out = self.expr(e.elt)
            self.loops.pop()
            return out
        finally:
            keep = self.env
            self.env = saved
            for k, v in keep.items():  # comprehension-local names vanish, estimator fits stay recorded
                if k not in saved:
                    continue
                self.env[k] = v

    def subscript(self, e: ast.Subscript) -> Value | None:
        base_node = e.value
        accessor = None
        if isinstance(base_node, ast.Attribute) and base_node.attr in ("iloc", "loc", "at", "iat", "ix"):
            accessor = base_node.attr
            base = self.expr(base_node.value)
        else:
            base = self.expr(base_node)
        if base is None:
            self.expr(e.slice)  # grid[scores.index(max(scores))]: the index can still pick by score
            return None
        key = _const(e.slice)
        if base.items is not None and isinstance(key, int) and -len(base.items) <= key < len(base.items):
            return base.items[key]
        if base.keys is not None and isinstance(key, str) and key in base.keys:
            return base.keys[key]
        if base.kind == "est":
            if not base.est.multi:
                return base
            one = Est(base.est.cls, base.est.ekind, self.cell, e.lineno, node=base.est.node)
            return self.new("est", [], e, est=one)
        idx = self.expr(e.slice)
        v = self.new(base.kind if base.kind in ("data", "pred", "score") else "data", [base, idx], e)
        if idx is not None and idx.taints & self.stat_eids:  # df[df.x > df.x.mean()]: a row filter
            v.taints = base.taints | (idx.taints - self.stat_eids)
        sl = e.slice
        if isinstance(sl, ast.Slice) and sl.lower is not None and sl.upper is not None and \
                set(_names(sl.lower)) & set(_names(sl.upper)):  # series[i:i + window]: sliding windows
            v.time = v.time | {("window", self.cell.index, e.lineno)}
        if idx is not None and idx.role and idx.strong and idx.role.startswith("fold"):
            v.role, v.strong = idx.role, True
        elif base.role:
            v.role, v.strong = base.role, base.strong
        elif isinstance(key, str) and base.cols is None and key in ("train", "test", "validation", "valid", "val"):
            v.role, v.strong = role_from_name(key), True  # a predefined split of a dataset dict
        v.cols, v.label = None, None
        if base.cols is not None:
            sl = e.slice
            colpart = _loc_cols(sl) if accessor == "loc" else (None if accessor == "iloc" else sl)
            spec = self.col_spec(colpart) if accessor != "iloc" and not (
                isinstance(colpart, ast.Constant)) else None
            if spec is not None and (accessor is None or isinstance(sl, ast.Tuple)):
                v.cols = dict(base.cols, selected=list(spec[1])) if spec[0] == "sel" else \
                    dict(base.cols, removed=base.cols["removed"] | spec[1])
            elif accessor in ("iloc", "loc") and isinstance(sl, ast.Tuple):
                if accessor == "loc" and isinstance(colpart, ast.List):
                    v.cols = dict(base.cols, selected=_strings(colpart))
                elif accessor == "loc" and len(_strings(colpart)) == 1 and isinstance(colpart, ast.Constant):
                    v.label = (base.cols["frame"], _strings(colpart)[0])
            elif accessor in ("iloc", "loc") or (idx is not None and idx.kind == "data") or isinstance(sl, ast.Slice):
                v.cols = base.cols  # a row selection keeps the columns
            elif isinstance(sl, ast.List) and _strings(sl):
                v.cols = dict(base.cols, selected=_strings(sl))
            elif isinstance(sl, ast.Constant) and isinstance(sl.value, str):
                v.label = (base.cols["frame"], sl.value)
        return v

    # ------------------------------------------------------------------ calls
    def call(self, e: ast.Call) -> Value | None:
        func = e.func
        q = self.parsed.qualname(func)
        leaf = last_part(q) if q else ""
        if isinstance(func, ast.Attribute):
            recv_node = func.value
            # chained fit(...).predict(...) / Pipeline(...).fit(...)
            recv = self.expr(recv_node) if not (isinstance(recv_node, ast.Name) and recv_node.id in
                                                self.parsed.aliases and recv_node.id not in self.env) else None
            if recv is not None:
                return self.method(recv, func.attr, e, q)
        if isinstance(func, ast.Name) and func.id in self.env:
            target = self.env[func.id]
            if target.kind == "func" and target.func is not None:
                return self.inline(target.func, e, target.cell)
            if target.kind == "est":
                return self.apply_model(target.est, e, "__call__")
        args = [self.expr(a) for a in e.args]
        kws = {k.arg: self.expr(k.value) for k in e.keywords}
        root = q.split(".")[0] if q else ""
        if leaf in ("train_test_split",) or q in ("torch.utils.data.random_split", "numpy.split") or \
                leaf == "random_split":
            return self.split_call(e, q, args)
        if leaf in CV_FUNCS:
            est = args[0] if args else kws.get("estimator")
            data = args[1] if len(args) > 1 else kws.get("X")
            cv = kws.get("cv")
            shuffle = cv.est.shuffle if cv is not None and cv.kind == "est" else False
            if data is not None:
                self.splits.append(SplitEvent(next(_COUNTER), leaf, "cv", [data], [], self.cell, e, shuffle=shuffle))
            out = self.new("score", [data], e, score=True)
            if est is not None and est.kind == "est":
                self.fit_event(est.est, "cv", data, args[2] if len(args) > 2 else kws.get("y"), e)
            return out
        if q and (leaf in ("train", "cv") and root in ("xgboost", "lightgbm", "catboost")):
            return self.booster_train(e, q, args, kws)
        if leaf == "resample" and root == "sklearn":
            rep = _kw(e, "replace")
            if rep is None or (isinstance(rep, ast.Constant) and rep.value is True):
                v = self.new("data", args, e)
                ev = Event("resample", self.cell, e, {"call": "resample", **self.loc(e)})
                self.resamples.append(ev)
                v.resampled = v.resampled | {id(ev)}
                return v
        if leaf in ("concat", "concatenate", "vstack", "row_stack", "append", "r_") and root in ("pandas", "numpy"):
            return self.concat(e, args)
        if root in ("torchvision", "torchtext", "torchaudio", "tensorflow_datasets") and ".datasets." in q \
                or q in ("datasets.load_dataset", "tensorflow_datasets.load"):
            return self.dataset_call(e, args)
        if root in ("keras", "tensorflow") and ".datasets." in q and leaf == "load_data":
            # (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()
            parts = [self.new("tuple", [], e, items=tuple(self.new("data", [], e, role=r, strong=True)
                                                          for _ in range(2))) for r in ("train", "test")]
            return self.new("tuple", [], e, items=tuple(parts))
        if isinstance(func, ast.Attribute) and func.attr in ("fit", "validate") and isinstance(func.value, ast.Name) \
                and func.value.id in self.pl_trainers:
            # Lightning: trainer.fit(model, train_dataloaders, val_dataloaders)
            val = args[2] if len(args) > 2 else kws.get("val_dataloaders")
            for v in _flatten(val) if val is not None else ():
                if v.role == "test" and v.strong:
                    self.eval_uses.append(Event("eval", self.cell, e, {
                        "kwarg": "val_dataloaders", "variable": v.name or ast.unparse(
                            e.args[2] if len(e.args) > 2 else _kw(e, "val_dataloaders")),
                        "early_stopping": True, **self.loc(e), "est": "Trainer",
                        "split_cell": v.cell.index + 1 if v.cell else None}))
                    break
        if isinstance(func, ast.Attribute) and func.attr == "step" and isinstance(func.value, ast.Name) and \
                func.value.id in self.plateaus:
            self.check_selection_args(args, e)  # ReduceLROnPlateau.step(metric): the metric steers training
        est = self.constructor(e, q, leaf, root, args, kws)
        if est is not None:
            return est
        if q.startswith("sklearn.metrics") or any(h in leaf for h in METRIC_HINTS) or (
                isinstance(func, ast.Name) and func.id in self.loss_fns) or (
                q.startswith("torch.nn.functional.") and (leaf.endswith("_loss") or "entropy" in leaf)):
            data = [a for a in args + list(kws.values()) if a is not None]
            if not data:
                return None
            v = self.new("score", data, e, score=True)
            self.metric_vals.append((v, self._in_config_loop()))
            pos = [a for a in args[:2] if a is not None]
            if pos and (all(a.role in ("train", "fold_train") or a.train_score for a in pos) or any(
                    a.kind == "pred" and a.train_score for a in pos)):
                v.train_score = True
                self.note_score_label(v, e)
            return v
        if leaf in ("read_csv", "read_parquet", "read_excel", "read_sql", "read_json", "read_feather",
                    "read_table", "load", "loadtxt", "genfromtxt", "load_dataset") or leaf.startswith(
                        ("load_", "fetch_", "make_")) and root in ("sklearn", "pandas", "numpy", "datasets", ""):
            v = self.new("data", args, e)
            if _kw(e, "parse_dates") is not None:
                v.time = v.time | {("parse_dates", self.cell.index, e.lineno)}
            if root == "pandas":
                v.cols = {"frame": id(v), "removed": frozenset(), "selected": None}
            return v
        if q in ("pandas.to_datetime",):
            v = self.new("data", args, e)
            return v
        if leaf in ("print", "display", "len", "type", "isinstance", "plot", "show", "figure", "log_metric",
                    "log_metrics", "log_param", "log_params", "log"):
            if leaf in ("print", "display", "log_metric", "log_metrics", "log"):
                self.note_print(e)
            if leaf == "len":
                return None
            return None
        if leaf in ("max", "min", "argmax", "argmin", "sorted", "nanargmax", "nanargmin"):
            self.check_selection_args(args + list(kws.values()), e)
            key = _kw(e, "key")
            if leaf in ("max", "min", "sorted") and isinstance(key, ast.Lambda) and len(key.args.args) == 1 and \
                    args and args[0] is not None and args[0].kind == "est":
                # max(models, key=lambda m: m.score(X_test, y_test)): each model is scored to pick one
                param, saved = key.args.args[0].arg, self.env.get(key.args.args[0].arg)
                self.env[param] = args[0]
                self.loops.append((id(key), "models"))
                try:
                    picked = self.expr(key.body)
                finally:
                    self.loops.pop()
                    if saved is None:
                        self.env.pop(param, None)
                    else:
                        self.env[param] = saved
                self.check_selection_args([picked], e)
        data = [a for a in args + list(kws.values()) if a is not None and a.kind != "est"]
        if not data and (leaf in RANDOM_DRAWS or (root in ("numpy", "pandas") and leaf in ARRAY_BUILDERS)):
            # data made in the notebook (random draws, literal arrays, frames built from them) is data too
            v = self.new("data", (), e)
            if root == "pandas":
                v.cols = {"frame": id(v), "removed": frozenset(), "selected": None}
            return v
        if data:
            kind = "score" if any(d.score for d in data) else ("hyper" if all(d.kind == "hyper" for d in data)
                                                               else "data")
            out = self.new(kind, data, e)
            if q in SCALE_FUNCS and args and args[0] is not None and args[0].kind == "data" and e.args:
                self.statistic(args[0], out, e, leaf, e.args[0])  # sklearn.preprocessing.scale(X)
            elif root == "numpy" and leaf in NP_STATS and args and args[0] is not None and args[0].kind == "data" \
                    and e.args:
                self.statistic(args[0], out, e, f"np.{leaf}", e.args[0])
            return out
        return None

    def dataset_call(self, e: ast.Call, args: list) -> Value:
        """A library dataset (torchvision `MNIST(train=False)`, `load_dataset(split="test")`): its split is
        declared by the `train=`/`split=` argument, which is as strong as a split call."""
        v = self.new("data", args, e)
        role = _declared_split(e)
        if role:
            v.role, v.strong = role, True
        return v

    def constructor(self, e: ast.Call, q: str, leaf: str, root: str, args: list, kws: dict) -> Value | None:
        if not leaf or not leaf[0].isupper() and leaf not in ("make_pipeline", "make_column_transformer"):
            return None
        if leaf in _DATA_CLASSES:
            return None
        is_torch = leaf in self.torch_classes or (root in ("torch", "torchvision", "timm", "transformers") and (
            ".nn." in q or q.startswith(("torchvision.models", "timm", "transformers"))) and leaf not in
            ("CrossEntropyLoss", "MSELoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "L1Loss"))
        if root == "statsmodels" and leaf in SM_MODELS:
            # sm.OLS(y, X) / smf.ols('y ~ x', data=df): the data is given here, `.fit()` takes none
            est = Est(q, "model", self.cell, e.lineno, node=e)
            formula = leaf[0].islower()
            x = kws.get("data") if formula else (args[1] if len(args) > 1 else kws.get("exog"))
            y = None if formula else (args[0] if args else kws.get("endog"))
            self.sm_data[id(est)] = (x, y)
            return self.new("est", [], e, est=est)
        if leaf in TRANSFORMERS:
            ekind = "transformer"
        elif leaf in PIPELINES:
            ekind = "pipeline"
        elif leaf in SEARCHES:
            ekind = "search"
        elif leaf in SPLITTERS:
            ekind = "splitter"
        elif leaf.startswith(RESAMPLERS_UP) or (root == "imblearn" and "Over" in leaf):
            ekind = "resampler"
        elif root == "imblearn" and "Sampler" in leaf or leaf in ("NearMiss", "TomekLinks", "ClusterCentroids"):
            ekind = "undersampler"
        elif is_torch and leaf not in ("DataLoader", "Dataset", "TensorDataset"):
            ekind = "torch"
        elif root in ML_ROOTS and (leaf.endswith(MODEL_SUFFIXES) or root in ("xgboost", "lightgbm", "catboost")
                                   or ".linear_model." in q or ".ensemble." in q or ".svm." in q or
                                   ".neighbors." in q or ".tree." in q or ".naive_bayes." in q or
                                   ".neural_network." in q or ".cluster." in q):
            ekind = "model"
        elif not root and leaf.endswith(("Classifier", "Regressor", "Regression", "SVC", "SVR", "NB", "Ridge",
                                         "Lasso", "ElasticNet")):
            ekind = "model"
        else:
            return None
        hyper = any(a is not None and a.hyper for a in list(args) + list(kws.values()))
        shuffle = None
        if ekind == "splitter":
            sh = _kw(e, "shuffle")
            shuffle = bool(sh.value) if isinstance(sh, ast.Constant) else (leaf in ("ShuffleSplit",
                                                                                    "StratifiedShuffleSplit",
                                                                                    "GroupShuffleSplit"))
        # built anew on each pass of a loop over hyperparameter values: it stands for several models
        rebuilt = ekind in ("model", "pipeline", "search", "torch") and any(k == "hyper" for _, k in self.loops)
        est = Est(q, ekind, self.cell, e.lineno, multi=hyper or rebuilt, hyper=hyper, shuffle=shuffle, node=e)
        if any(k.arg in EVAL_KWARGS for k in e.keywords):
            self.check_eval_kwargs(est, e, kws)
        return self.new("est", [], e, est=est)

    def inline(self, fn: ast.FunctionDef, e: ast.Call, home: Cell | None = None) -> Value | None:
        """Analyse a notebook function's body for this call (events point into the cell that defines it)."""
        args = [self.expr(a) for a in e.args]
        kws = {k.arg: self.expr(k.value) for k in e.keywords}
        if self.depth >= self.MAX_DEPTH:
            data = [a for a in args + list(kws.values()) if a is not None and a.kind != "est"]
            return self.new("data", data, e) if data else None
        saved_env, saved_ret = self.env, self._ret
        local = dict(self.env)
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        defaults = fn.args.defaults
        for i, p in enumerate(params):
            j = i - (len(params) - len(defaults))
            local.pop(p, None)
            if i < len(args) and args[i] is not None:
                local[p] = args[i]
            elif p in kws and kws[p] is not None:
                local[p] = kws[p]
            elif j >= 0:
                dv = self.expr(defaults[j])
                if dv is not None:
                    local[p] = dv
        for kwa in fn.args.kwonlyargs:
            local.pop(kwa.arg, None)
            if kws.get(kwa.arg) is not None:
                local[kwa.arg] = kws[kwa.arg]
        self.env, self._ret = local, []
        self.depth += 1
        caller_cell = self.cell
        self.cell = home or caller_cell
        try:
            self.block(fn.body)
            rets = [r for r in self._ret if r is not None]
        finally:
            self.depth -= 1
            self.cell = caller_cell
            glob, local_names = _scope_of(fn)
            for n, v in self.env.items():
                if (n in glob or (n in saved_env and n not in local_names)) and saved_env.get(n) is not v:
                    saved_env[n] = v
            self.env, self._ret = saved_env, saved_ret
        if not rets:
            return None
        return rets[-1]

    def split_call(self, e: ast.Call, q: str, args: list) -> Value:
        leaf = last_part(q)
        shuffle_kw = _kw(e, "shuffle")
        shuffle = not (isinstance(shuffle_kw, ast.Constant) and shuffle_kw.value is False)
        data = [a for a in args if a is not None]
        outs: list[Value] = []
        if leaf == "train_test_split":
            n = max(len(e.args), 1)
            for i in range(n):
                src = args[i] if i < len(args) else None
                outs.append(self.new("data", [src], e, role="train", strong=True))
                outs.append(self.new("data", [src], e, role="test", strong=True))
        else:
            src = args[0] if args else None
            k = 2
            if len(e.args) > 1 and isinstance(e.args[1], (ast.List, ast.Tuple)):
                k = len(e.args[1].elts) + (1 if leaf == "split" else 0)
            roles = ["train", "test"] if k == 2 else ["train"] + ["val"] * (k - 2) + ["test"]
            outs = [self.new("data", [src], e, role=r, strong=True) for r in roles]
            shuffle = leaf == "random_split"
        if leaf == "split" and e.args and isinstance(e.args[0], ast.Call) and isinstance(e.args[0].func,
                                                                                         ast.Attribute) \
                and e.args[0].func.attr == "sample":
            shuffle = True
        for i, o in enumerate(outs):
            src = args[i // 2] if leaf == "train_test_split" and i // 2 < len(args) else (args[0] if args else None)
            if src is not None:
                o.cols, o.label, o.time = src.cols, src.label, src.time
        rs = _kw(e, "random_state") is not None or _kw(e, "generator") is not None
        if leaf == "train_test_split":
            sources = [args[i // 2] if i // 2 < len(args) else None for i in range(len(outs))]
        else:
            sources = [args[0] if args else None] * len(outs)
        self.splits.append(SplitEvent(next(_COUNTER), q, "split", data, outs, self.cell, e, shuffle=shuffle,
                                      random_state=rs, sources=sources))
        return self.new("tuple", [], e, items=tuple(outs))

    def concat(self, e: ast.Call, args: list) -> Value | None:
        axis = _kw(e, "axis")
        if axis is not None and _const(axis) in (1, "columns"):
            flat = args[0].items if args and args[0] is not None and args[0].items else args
            return self.new("data", [a for a in flat if a is not None], e) if any(flat) else None
        parts = args[0].items if args and args[0] is not None and args[0].items is not None else args
        parts = [p for p in parts if p is not None and p.kind != "est"]
        if not parts:
            return None
        v = self.new("data", parts, e)
        if len(parts) >= 2:
            for a, b in itertools.combinations(parts, 2):
                if a.vid == b.vid or a.anc == b.anc:
                    ev = Event("duplicate", self.cell, e, {**self.loc(e)})
                    self.dups.append(ev)
                    v.dup = v.dup | {id(ev)}
                    break
                if a.vid in b.anc or b.vid in a.anc:
                    ev = Event("augment", self.cell, e, {**self.loc(e)})
                    self.resamples.append(ev)
                    v.resampled = v.resampled | {id(ev)}
                    break
        if parts and all(p.cols is not None for p in parts[:1]):
            v.cols, v.label = parts[0].cols, parts[0].label
        return v

    def booster_train(self, e: ast.Call, q: str, args: list, kws: dict) -> Value:
        est = Est(q, "model", self.cell, e.lineno, node=e)
        data = args[1] if len(args) > 1 else kws.get("dtrain") or kws.get("train_set")
        self.fit_event(est, "train", data, None, e)
        self.check_eval_kwargs(est, e, kws)
        return self.new("est", [], e, est=est)

    # ---------------------------------------------------------------- methods
    def method(self, recv: Value, attr: str, e: ast.Call, q: str) -> Value | None:
        if recv.kind == "est":
            return self.est_method(recv, attr, e)
        if recv.kind == "func":
            return None
        args = [self.expr(a) for a in e.args]
        kws = {k.arg: self.expr(k.value) for k in e.keywords}
        inplace = _kw(e, "inplace")
        data = [a for a in args + list(kws.values()) if a is not None and a.kind != "est"]
        if attr == "drop" and (_kw(e, "index") is not None or (e.args and isinstance(e.args[0], ast.Attribute)
                                                               and e.args[0].attr == "index")):
            data = []  # dropping the rows of another split: the result holds none of that split's rows
        if attr in ("append", "extend", "update", "add", "insert") and isinstance(e.func.value, ast.Name):
            nv = self.new(recv.kind if recv.kind != "tuple" else "data", [recv] + data, e)
            if attr == "append" and data and recv.cols is not None and any(d.anc & recv.anc for d in data):
                ev = Event("duplicate" if any(d.anc == recv.anc for d in data) else "augment", self.cell, e,
                           self.loc(e))
                (self.dups if ev.what == "duplicate" else self.resamples).append(ev)
                if ev.what == "duplicate":
                    nv.dup = nv.dup | {id(ev)}
                else:
                    nv.resampled = nv.resampled | {id(ev)}
            nv.name = e.func.value.id
            nv.items = None
            self.env[e.func.value.id] = nv
            return None
        if attr == "pop" and recv.cols is not None and isinstance(e.func.value, ast.Name):
            cols = _strings(e.args[0]) if e.args else []
            v = self.new("data", [recv], e)
            v.cols, v.label = None, (recv.cols["frame"], cols[0]) if cols else None
            self.remove_cols(e.func.value.id, cols)
            return v
        if attr in ("items", "values", "keys") and recv.kind == "tuple":
            return recv
        v = self.new(recv.kind if recv.kind in ("data", "pred", "score") else "data", [recv] + data, e)
        if recv.items is not None and attr in ("copy",):
            v.items = recv.items
        if attr in ("sample",):
            rep = _kw(e, "replace")
            frac = _kw(e, "frac")
            if (isinstance(rep, ast.Constant) and rep.value is True) or (
                    isinstance(frac, ast.Constant) and isinstance(frac.value, (int, float)) and frac.value > 1):
                ev = Event("resample", self.cell, e, {"call": "sample(replace=True)", **self.loc(e)})
                self.resamples.append(ev)
                v.resampled = v.resampled | {id(ev)}
        if attr in STAT_METHODS and recv.kind == "data":
            self.statistic(recv, v, e, attr, e.func.value)
        elif attr in ("apply", "transform") and recv.kind == "data" and (stat := _lambda_stat(e) or (
                _const(e.args[0]) if attr == "transform" and e.args and _const(e.args[0]) in STAT_METHODS
                else None)):
            # df.apply(lambda c: (c - c.mean()) / c.std()); df.groupby(k)['age'].transform('median')
            self.statistic(recv, v, e, stat, e.func.value, grouped_ok=True)
        if attr in TIME_OPS:
            v.time = v.time | {("op:" + attr, self.cell.index, e.lineno)}
        if attr == "set_index" or attr == "sort_values":
            names = _strings(e.args[0]) if e.args else _strings(_kw(e, "by") or _kw(e, "keys"))
            if any(DATE_WORD.search(n) for n in names):
                v.time = v.time | {(attr + ":" + names[0], self.cell.index, e.lineno)}
        if attr in ("idxmax", "idxmin", "nlargest", "nsmallest", "max", "min", "argmax",
                    "argmin") and recv.score:
            self.selection(recv, e)
        # column facts
        if recv.cols is not None:
            if attr == "drop":
                cols = self.col_names(e.args[0]) if e.args else self.col_names(_kw(e, "columns") or
                                                                                _kw(e, "labels"))
                axis = _kw(e, "axis")
                if axis is None and len(e.args) > 1:
                    axis = e.args[1]  # df.drop('y', 1): the positional axis of older pandas
                is_cols = _kw(e, "columns") is not None or (axis is not None and _const(axis) in (1, "columns"))
                if is_cols:
                    v.cols = dict(recv.cols, removed=recv.cols["removed"] | set(cols), selected=None
                                  if recv.cols.get("selected") is None else [c for c in recv.cols["selected"]
                                                                             if c not in cols])
                    if isinstance(inplace, ast.Constant) and inplace.value is True and isinstance(
                            e.func.value, ast.Name):
                        self.remove_cols(e.func.value.id, cols)
                        return None
                v.label = None
            elif attr in _COL_KEEP or attr in TIME_OPS:
                v.cols, v.label = recv.cols, recv.label
            elif attr == "select_dtypes" and _numeric_include(e):
                v.cols, v.label = dict(recv.cols, numeric_only=True), None  # numeric columns, the label maybe
            elif attr in ("map", "apply", "astype", "replace", "fillna") and recv.label:
                v.cols, v.label = None, recv.label
            else:
                v.cols = None
                v.label = recv.label if attr in ("ravel", "reshape", "squeeze", "to_numpy") else None
        if isinstance(inplace, ast.Constant) and inplace.value is True and isinstance(e.func.value, ast.Name):
            v.name = e.func.value.id
            self.env[e.func.value.id] = v
            return None
        if isinstance(inplace, ast.Constant) and inplace.value is True and isinstance(e.func.value, ast.Subscript):
            self.assign(e.func.value, v, e)  # df[col].fillna(..., inplace=True) rewrites the column
            return None
        return v

    def statistic(self, recv: Value, out: Value, e: ast.Call, what: str, recv_node: ast.AST,
                  grouped_ok: bool = False) -> None:
        """A statistic over the rows (`df.mean()`, `df[c].median()`, `np.std(X, axis=0)`) behaves like a fitted
        transformer: its result carries the rows' information into whatever it is combined with."""
        if recv.role in HOLDOUT or recv.role in ("fold_val", "train", "fold_train") and recv.strong:
            return
        axis = _const(_kw(e, "axis"))
        calls = {n.func.attr for n in ast.walk(recv_node) if isinstance(n, ast.Call) and
                 isinstance(n.func, ast.Attribute)}
        if axis in (1, "columns") or calls & (_GROUPED - {"groupby"}) or "groupby" in calls and not grouped_ok:
            return  # row-wise or windowed (rolling/ewm) statistics; grouped ones only through transform
        column = recv.label[1] if recv.label is not None else _stat_column(recv_node)
        if column is not None and DATE_WORD.search(str(column)):
            return  # the latest date of a frame is not a learned statistic
        est = Est(f"{what}()", "statistic", self.cell, e.lineno, node=e)
        est.name = column
        fe = self.fit_event(est, what, recv, None, e)
        out.taints = out.taints | {fe.eid}
        self.taint_owner[fe.eid] = fe
        self.stat_eids.add(fe.eid)

    def est_method(self, recv: Value, attr: str, e: ast.Call) -> Value | None:
        est = recv.est
        args = [self.expr(a) for a in e.args]
        kws = {k.arg: self.expr(k.value) for k in e.keywords}
        x = args[0] if args else kws.get("X") or kws.get("x")
        y = args[1] if len(args) > 1 else kws.get("y")
        if attr in ("fit", "fit_regularized") and id(est) in self.sm_data and not args:
            x, y = self.sm_data[id(est)]
        if attr == "split" and est.ekind == "splitter":
            return self.new("data", [x], e)
        if attr in ("fit", "fit_transform", "fit_resample", "fit_predict", "fit_on_texts", "partial_fit",
                    "train_on_batch", "fit_generator", "adapt"):
            if est.ekind == "search" and x is not None:
                self.splits.append(SplitEvent(next(_COUNTER), est.cls, "cv", [x], [], self.cell, e,
                                              shuffle=False))
            if est.ekind in ("torch",):
                return None
            fe = self.fit_event(est, attr, x, y, e)
            self.check_eval_kwargs(est, e, kws)
            if attr == "fit_resample" and est.ekind == "resampler":
                ev = Event("resample", self.cell, e, {"call": f"{last_part(est.cls)}.fit_resample", **self.loc(e)})
                self.resamples.append(ev)
                outs = [self.new("data", [a], e) for a in (x, y)]
                for o in outs:
                    o.resampled = o.resampled | {id(ev)}
                return self.new("tuple", [], e, items=tuple(outs))
            if attr == "fit_transform" or (attr == "fit_predict" and est.ekind == "transformer"):
                out = self.new("data", [x], e)
                if est.ekind in ("transformer", "pipeline"):
                    out.taints = out.taints | {fe.eid}
                    self.taint_owner[fe.eid] = fe
                out.cols = None
                return out
            if attr == "fit_predict":
                return self.new("pred", [x], e, fit=fe)
            return recv  # fit returns self
        if attr in ("transform", "inverse_transform", "texts_to_sequences", "texts_to_matrix"):
            out = self.new("data", [x], e)
            if est.fitted is not None and est.ekind in ("transformer", "pipeline"):
                out.taints = out.taints | {est.fitted.eid}
            self.transform_uses.append((est, x, e, self.cell))
            return out
        if attr in PREDICT_METHODS:
            return self.apply_model(est, e, attr, x, y)
        if attr == "set_params" and any(v is not None and v.hyper for v in list(args) + list(kws.values())):
            est.hyper = est.multi = True
        if attr in ("set_params", "compile", "to", "cuda", "cpu", "eval", "train", "double", "float", "items",
                    "values", "copy", "clone"):
            return recv
        if attr in ("best_estimator_", "get_booster"):
            return recv
        return None

    def apply_model(self, est: Est, e: ast.Call, method: str, x: Value | None = None,
                    y: Value | None = None) -> Value | None:
        if method == "__call__":
            args = [self.expr(a) for a in e.args]
            x = args[0] if args else None
            if est.ekind != "torch":
                return self.new("data", [x], e) if x is not None else None
        if x is None:
            return None
        kind = "score" if method in ("score", "evaluate") else "pred"
        out = self.new(kind, [x, y], e, fit=est.fitted, score=kind == "score")
        out.cols = None
        ev = ScoreEvent(est.fitted, est, x, method, self.cell, e, tuple(self.loops), out)
        self.scores.append(ev)
        fitted_data = est.fitted.data if est.fitted is not None else None
        if x.role in ("train", "fold_train") or (fitted_data is not None and fitted_data.vid == x.vid):
            out.train_score = True
            if kind == "score":
                self.note_score_label(out, e)
        return out

    def fit_event(self, est: Est, method: str, x: Value | None, y: Value | None, e: ast.AST) -> FitEvent:
        fe = FitEvent(next(_COUNTER), est, method, x, y, self.cell, e, tuple(self.loops))
        est.fitted = fe
        self.fits.append(fe)
        return fe

    def check_eval_kwargs(self, est: Est, e: ast.Call, kws: dict) -> None:
        early = any(k.arg in ("early_stopping_rounds", "callbacks", "early_stopping") for k in e.keywords)
        for k in e.keywords:
            if k.arg in EVAL_KWARGS and kws.get(k.arg) is not None:
                tests = [v for v in _flatten(kws[k.arg]) if v.role == "test" and v.strong]
                if tests:
                    v = next((t for t in tests if t.name), tests[0])
                    self.eval_uses.append(Event("eval", self.cell, e, {
                        "kwarg": k.arg, "variable": v.name or ast.unparse(k.value), "early_stopping": early,
                        **self.loc(e), "est": est.name or last_part(est.cls),
                        "split_cell": v.cell.index + 1 if v.cell else None}))

    # ------------------------------------------------------------- selection
    def check_selection(self, test: ast.expr, node: ast.AST) -> None:
        for n in ast.walk(test):
            if isinstance(n, ast.Compare):
                parts = [n.left, *n.comparators]
                if sum(not isinstance(p, ast.Constant) for p in parts) < 2:
                    continue  # a fixed threshold (acc > 0.9) is a check, not a choice between candidates
                for part in parts:
                    if any(isinstance(x, ast.Call) for x in ast.walk(part)):
                        continue
                    v = self.expr(part)
                    if v is not None and v.score:
                        self.selection(v, node)
                        return

    def check_selection_args(self, vals: list, node: ast.AST) -> None:
        for v in vals:
            if v is not None and v.score:
                self.selection(v, node)
                return

    def selection(self, v: Value, node: ast.AST) -> None:
        self.selections.append(Event("select", self.cell, node, {"value": v, **self.loc(node)}))

    # ----------------------------------------------------------- reporting
    def note_score_label(self, v: Value, e: ast.AST) -> None:
        stmt = self.stmt
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                for n in _names(t):
                    if role_from_name(n) in HOLDOUT:
                        self.reports.append(Event("report", self.cell, e, {"as": n, "metric": v.text(60),
                                                                           **self.loc(e)}))
                        return
        if stmt is not None and _label_says_holdout(stmt):
            self.reports.append(Event("report", self.cell, e, {"as": "printed label", "metric": v.text(60),
                                                               **self.loc(e)}))

    def note_print(self, e: ast.Call) -> None:
        if not _label_says_holdout(e):
            return
        for n in ast.walk(e):
            if isinstance(n, ast.Name):
                v = self.env.get(n.id)
                if v is not None and v.train_score and v.kind == "score" and (
                        role_from_name(n.id) not in ("train",)):
                    self.reports.append(Event("report", self.cell, e, {"as": "printed label", "variable": n.id,
                                                                       **self.loc(e)}))
                    return


# ------------------------------------------------------------------ helpers
_SCOPES: dict[int, tuple[ast.AST, set, set]] = {}


def _scope_of(fn: ast.FunctionDef) -> tuple[set, set]:
    """(global names, local names) of a notebook function, memoised per function node."""
    hit = _SCOPES.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1], hit[2]
    glob, local = set(), {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    for n in ast.walk(fn):
        if isinstance(n, ast.Global):
            glob.update(n.names)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            local.add(n.id)
    if len(_SCOPES) > 5000:
        _SCOPES.clear()
    _SCOPES[id(fn)] = (fn, glob, local)
    return glob, local


def _union(sets: Iterable[frozenset]) -> frozenset:
    out = _EMPTY
    for x in sets:
        if x:
            out = x if not out else out | x
    return out


_EMPTY: frozenset = frozenset()


def _flatten(v: Value) -> list[Value]:
    out, stack = [], [v]
    while stack:
        x = stack.pop()
        out.append(x)
        if x.items:
            stack.extend(i for i in reversed(x.items) if i is not None)
    return out


def _kw(call: ast.AST, name: str) -> ast.expr | None:
    if not isinstance(call, ast.Call):
        return None
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def _const(node: ast.AST | None):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        v = node.operand.value
        return -v if isinstance(v, (int, float)) else None
    return None


def _declared_split(e: ast.Call) -> str | None:
    """'train' | 'val' | 'test' from a dataset call's `train=True/False` or `split="..."` constant."""
    train = _const(_kw(e, "train"))
    if isinstance(train, bool):
        return "train" if train else "test"
    split = _const(_kw(e, "split"))
    if isinstance(split, str):
        low = split.lower()
        if "test" in low:
            return "test"
        if "val" in low or low.startswith("dev"):
            return "val"
        if "train" in low:
            return "train"
    return None


def _strings(node: ast.AST | None) -> list[str]:
    if node is None:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _loc_cols(sl: ast.AST) -> ast.AST | None:
    if isinstance(sl, ast.Tuple) and len(sl.elts) == 2:
        return sl.elts[1]
    return None


def _column_refs(node: ast.AST, env: dict) -> Iterable[str]:
    """Column names read in `node`: df['col'] and df.col where df is a known data frame."""
    funcs = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    for n in ast.walk(node):
        if isinstance(n, ast.Subscript):
            yield from _strings(n.slice)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.attr not in _COL_KEEP and \
                id(n) not in funcs and (v := env.get(n.value.id)) is not None and v.cols is not None:
            yield n.attr


def _numeric_include(e: ast.Call) -> bool:
    """select_dtypes(include='number' / np.number / ['float64', 'int64']) without an exclude list."""
    inc = _kw(e, "include") if _kw(e, "include") is not None else (e.args[0] if e.args else None)
    if inc is None or _kw(e, "exclude") is not None:
        return False
    names = _strings(inc) or [dotted(x) for x in (inc.elts if isinstance(inc, (ast.List, ast.Tuple)) else [inc])]
    return bool(names) and all(any(w in str(n).lower() for w in ("number", "float", "int")) for n in names)


def _stat_column(node: ast.AST) -> str | None:
    """The column a grouped statistic aggregates: `df.groupby(k)['age']` -> 'age'."""
    if isinstance(node, ast.Subscript):
        names = _strings(node.slice)
        return names[0] if len(names) == 1 else None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call):
        return node.attr
    return None


def _lambda_stat(e: ast.Call) -> str | None:
    """`apply(lambda c: (c - c.mean()) / c.std())` (column-wise, the default axis): the statistic's name."""
    if any(k.arg == "axis" and _const(k.value) in (1, "columns") for k in e.keywords):
        return None
    fn = e.args[0] if e.args else None
    if not isinstance(fn, ast.Lambda) or len(fn.args.args) != 1:
        return None
    param = fn.args.args[0].arg
    for n in ast.walk(fn.body):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in STAT_METHODS and \
                isinstance(n.func.value, ast.Name) and n.func.value.id == param:
            return n.func.attr
    return None


def _is_grouped(node: ast.AST) -> bool:
    """Does the expression compute a grouped statistic (`df.groupby(k)[c].mean()`, `pivot_table`)?"""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("groupby",
                                                                                                "pivot_table")
               for n in ast.walk(node))


def _has_time_op(node: ast.AST) -> bool:
    """Lagged/rolling versions of a column are known at prediction time: not a derivation from the label."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in TIME_OPS
               for n in ast.walk(node))


def _names(t: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]


_HOLD_WORDS = ("test", "valid", "validation", "val ", "val_", "val:", "holdout", "hold-out", "unseen", "dev ")


def _texts(node: ast.AST) -> Iterable[str]:
    """String literals of a statement or call, looking only one level into calls/f-strings/keywords."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        for v in node.values:
            yield from _texts(v)
    elif isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, (ast.Constant, ast.JoinedStr)):
            yield from _texts(node.func.value)  # "Test acc: {}".format(acc)
        for a in node.args:
            yield from _texts(a)
        for k in node.keywords:
            yield from _texts(k.value)
    elif isinstance(node, ast.Expr):
        yield from _texts(node.value)
    elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        yield from _texts(node.value)
    elif isinstance(node, ast.BinOp):  # "Test acc: %.2f" % acc
        yield from _texts(node.left)
    elif isinstance(node, (ast.Dict, ast.Tuple, ast.List)):
        for v in (node.keys + node.values if isinstance(node, ast.Dict) else node.elts):
            if v is not None:
                yield from _texts(v)


def _label_says_holdout(node: ast.AST) -> bool:
    texts = [t.lower() for t in _texts(node)]
    if not texts:
        return False
    joined = " ".join(texts)
    return any(w in joined for w in _HOLD_WORDS) and "train" not in joined


def analyze(parsed: ParsedNotebook, strict: bool = False) -> Flow:
    """The notebook's dataflow (computed once per notebook; rules share it through `ctx.cache`)."""
    return Flow(parsed, strict).run()


def flow_of(ctx) -> Flow:
    """The cached `Flow` for a rule context."""
    flow = ctx.cache.get("dataflow")
    if flow is None:
        flow = ctx.cache["dataflow"] = analyze(ctx.parsed)
    return flow
