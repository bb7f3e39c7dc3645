"""Expressions: names, attributes, subscripts (row selections), operators and collections (comprehensions:
`comprehensions`)."""

from __future__ import annotations

import ast

from ..names import role_from_name
from .api import lookup_class
from .api.pandas_api import META_ATTRS
from .astutil import class_like, index_slice, mask_steps, names_time, range_slice, subscript_name, text
from .columns import KEEP_COLS
from .values import Fit, Obj, Val

SPLIT_NAMES = {"train": "train", "test": "test", "validation": "val", "valid": "val", "val": "val", "dev": "val"}
SELECTOR_ATTRS = frozenset({"support_", "ranking_", "scores_", "pvalues_", "get_support"})
WEIGHT_ATTRS = frozenset({"feature_importances_", "coef_"})  # a fitted model's per-column weights
# (an embedding's word and document vectors: what it learned; a Spark search's best model)
OBJ_ATTRS_SAME = frozenset({"best_estimator_", "estimator", "model", "booster_", "_final_estimator", "hypermodel",
                            "wv", "dv", "docvecs", "bestModel"})
# names bound outside the notebook that are never the notebook's data (builtins are bound from the start)
OUTSIDE_NAMES_NOT_DATA = frozenset({"get_ipython", "display", "In", "Out", "_", "_i", "_ii", "exit", "quit",
                                    "spark", "sc", "sqlContext", "dbutils", "self", "cls"})


class Expressions:
    """Mixin: evaluation of expressions to abstract values."""

    def expr(self, e: ast.expr | None) -> Val | None:
        if e is None or isinstance(e, ast.Constant):
            return None
        if isinstance(e, ast.Name):
            v = self.env.get(e.id)
            if v is None and e.id in self.parsed.aliases:
                return self.class_reference(e)
            return v if v is not None or e.id in self.bound_names else self.outside_value(e)
        if isinstance(e, (ast.Call, ast.Subscript)) and (mode := self.most_frequent_value(e)) is not None:
            return mode  # `s.value_counts().index[0]`: the mode of the counted rows
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Attribute):
            return self.attribute(e)
        if isinstance(e, ast.Subscript):
            return self.subscript(e)
        if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            vals = [self.expr(x) for x in e.elts]
            numbers = bool(e.elts) and all(isinstance(x, ast.Constant) and isinstance(x.value, (int, float))
                                           and not isinstance(x.value, bool) for x in e.elts)
            return Val("seq", items=tuple(vals), site=self.site(e), hyper=numbers)  # numbers: a grid of settings
        if isinstance(e, ast.Dict):
            keys: dict = {}
            for k, v in zip(e.keys, e.values):
                val = self.expr(v)
                if k is not None and isinstance(k, ast.Constant):
                    keys[k.value] = val
                elif k is None and val is not None and val.keys:
                    keys.update(val.keys)
            if e.keys and not any(v is not None for v in keys.values()):
                return None
            return Val("seq", keys=keys, site=self.site(e))  # `{}` too: results get stored into it
        if isinstance(e, (ast.BinOp, ast.BoolOp, ast.Compare, ast.UnaryOp)):
            return self.operator(e)
        if isinstance(e, ast.IfExp):
            self.expr(e.test)
            known = self.known_test(e.test)
            if known is not None:  # `mu if mu is not None else x.mean(0)` with `mu` given: one branch runs
                return self.expr(e.body if known else e.orelse)
            a, b = self.expr(e.body), self.expr(e.orelse)
            if a is not None and a.kind == "obj":
                return a
            return self.derive(e, [a, b]) or a or b
        if isinstance(e, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            return self.comprehension(e)
        if isinstance(e, ast.NamedExpr):
            v = self.expr(e.value)
            self.assign(e.target, v, e.value)
            return v
        if isinstance(e, ast.Starred):
            return self.expr(e.value)
        if isinstance(e, ast.JoinedStr):
            for part in e.values:
                if isinstance(part, ast.FormattedValue):
                    self.expr(part.value)
            return None
        if isinstance(e, (ast.Await, ast.Yield, ast.YieldFrom)):
            return self.yielded(e)
        return None

    def outside_value(self, e: ast.Name) -> Val | None:
        """A name no cell binds (a hidden or removed cell, `%run`, a variable the platform injects): data from
        outside the notebook, bound on first use so every later use reads the same rows."""
        if e.id in OUTSIDE_NAMES_NOT_DATA or e.id.startswith("__") or not isinstance(e.ctx, ast.Load):
            return None
        if self.parsed.star_modules and class_like(e.id):
            return None  # `URLs.PETS`, `Path(...)` after `from fastai.vision.all import *`: a library's class
        v = self.outside.get(e.id)
        if v is None:
            v = self.outside[e.id] = self.source(e, "outside")
            v.name = e.id
        self.env[e.id] = v
        return v

    def operator(self, e: ast.expr) -> Val | None:
        vals = [self.expr(c) for c in ast.iter_child_nodes(e) if isinstance(c, ast.expr)]
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mod) and isinstance(e.left, ast.Constant) and \
                isinstance(e.left.value, str):
            return None  # `'%s(t+%d)' % (c, n)`: a formatted string (a name), as an f-string is
        data = [v for v in vals if v is not None and v.is_data]
        if not data:
            return self.list_arithmetic(e, vals)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Sub) and len(data) == 2 and data[0].rows and \
                not data[1].rows and all(f.cls in ("min", "max") for f in data[1].stats - data[0].all_stats) and \
                names_time(e.left):
            # `d - d.min()` on dates: a time origin (days since the first date) learns nothing to leak; on other
            # values it shifts them by a minimum learned from every row (a min-max scaler without the division)
            data = data[:1]
        out = self.derive(e, data)
        if isinstance(e, (ast.Compare, ast.BinOp)):
            return self.against_labels(out, data, e)  # predictions compared with (or subtracted from) the labels
        return out

    def weights_of(self, fit: Fit) -> Fit:
        """A model's importances or coefficients, learned from its training rows: columns chosen by them (the top
        ten importances) carry what the model learned, as a selector's `support_` does."""
        got = self.weights.get(id(fit))
        if got is None:
            got = self.weights[id(fit)] = Fit("statistic", fit.cls, fit.rows, fit.stats, fit.site, obj=fit.obj,
                                                  data_name=fit.data_name)
            self.rec.fits.append(got)
            self.fit_removed[id(got)] = self.fit_removed.get(id(fit))
        return got

    def attribute(self, e: ast.Attribute) -> Val | None:
        base = self.expr(e.value)
        if base is None and e.attr == "values":
            base = self.data_by_use(e.value)  # `df.values` of a name the analysis cannot follow: a table's rows
        if base is None:
            return None
        if base.kind == "obj":
            if base.obj.attrs is not None:
                return base.obj.attrs.get(e.attr)
            if e.attr in SELECTOR_ATTRS and base.obj.fit is not None:
                self.rank_read(base.obj.fit)
                return Val("data", stats=frozenset({base.obj.fit}), site=self.site(e))  # columns chosen by a fit
            if e.attr == "labels_" and base.obj.learned is not None:  # a clusterer's labels of its own rows
                fitted = Val("data", rows=base.obj.learned.rows, site=self.site(e), name=base.obj.learned.data_name)
                ev = self.add_eval(base.obj, fitted, "labels_", e)
                return Val("data", rows=fitted.rows, stats=frozenset({base.obj.learned}), site=self.site(e),
                           evals=(ev,))
            if e.attr in WEIGHT_ATTRS and base.obj.fit is not None and base.obj.fit.kind == "model":
                self.rank_read(self.weights_of(base.obj.fit))
                return Val("data", stats=frozenset({self.weights_of(base.obj.fit)}), site=self.site(e))
            return base if e.attr in OBJ_ATTRS_SAME else self.fitted_members(base, e)
        if base.kind in ("func", "seq", "module"):
            return None
        if e.attr == "columns":
            return Val("data", stats=base.all_stats if base.rows else base.stats, site=self.site(e))  # names only
        if e.attr in META_ATTRS:
            return None
        stats = base.stats | base.cols[e.attr] if base.cols and e.attr in base.cols else base.stats
        out = Val(base.kind if base.kind != "index" else "data", rows=base.rows, stats=stats, time=base.time,
                  site=self.site(e), evals=base.evals, label=base.label, hyper=base.hyper,
                  cols=base.cols if e.attr in ("values", "T") else None)
        if e.attr in ("values", "T", "index") or base.fcols is None:
            out.fcols, out.flabel = base.fcols, base.flabel
        elif e.attr not in KEEP_COLS:
            out.flabel = (base.fcols["frame"], e.attr)  # df.colname: a single column
        else:
            out.fcols = base.fcols
        return self.transposed_view(base, out) if e.attr == "T" else out

    def looked_up(self, base: Val, e: ast.Subscript) -> Val | None:
        """`model.wv[word]` of a fitted embedding: the vector it learned for that key, carrying its fit (a word of
        a text keeps that text's rows)."""
        fit = base.obj.fit if base.obj is not None and base.obj.role == "transformer" else None
        if fit is None:
            return None
        key = self.expr(e.slice)
        data = key if key is not None and key.is_data else None
        return Val("data", rows=data.rows if data else frozenset(), site=self.site(e),
                   stats=(data.all_stats if data else frozenset()) | {fit}, evals=data.evals if data else ())

    def class_reference(self, e: ast.Name) -> Val | None:
        """An estimator class named without being called (`{'tree': DecisionTreeClassifier}`): calling it later
        builds that estimator."""
        q = self.parsed.qualname(e)
        row = lookup_class(q) if q.rsplit(".", 1)[-1][:1].isupper() else None
        return Val("class", site=self.site(e)) if row is not None and row.role != "data" else None  # (site: the name)

    # ------------------------------------------------------------ subscript
    def subscript(self, e: ast.Subscript) -> Val | None:
        node = e.value
        accessor = None
        if isinstance(node, ast.Attribute) and node.attr in ("iloc", "loc", "at", "iat", "ix"):
            accessor, node = node.attr, node.value
        base = self.expr(node) or self.frame_by_use(node, e.slice, accessor)
        if base is None and self.parsed.qualname(node) == "sys.modules":
            return self.outside.setdefault("sys.modules", Val("obj", obj=Obj(  # the notebook's own namespace
                "module", "namespace", self.site(e), attrs={}), site=self.site(e)))  # (`this.x_train = ...`)
        if base is None:
            got = self.expr(e.slice)  # `np.c_[X]`, `np.r_[a, b]`: the arrays stacked
            stacked = self.derive(e, list(got.items)) if got is not None and got.kind == "seq" and got.items else got
            return stacked if self.parsed.qualname(node) in ("numpy.c_", "numpy.r_") else None
        key = self.constant(e.slice)
        if isinstance(e.slice, ast.Slice) and accessor is None and base.kind in ("seq", "index"):
            cut = self.permutation_cut(base, e.slice, e)  # `idx[:k]` of row positions
            if cut is not None:
                return cut
        if base.kind == "seq":
            if base.items is not None and isinstance(key, int) and -len(base.items) <= key < len(base.items):
                return base.items[key]
            if base.keys is not None and key in base.keys:
                return base.keys[key]
            if (fold := self.fold_of_parts(base, e)) is not None:
                return fold  # `folds[k]` of position parts in a hand-written k-fold
            self.expr(e.slice)
            members = [i for i in list(base.items or ()) + list((base.keys or {}).values()) if i is not None]
            objs = [i for i in members if i.kind == "obj"]
            if objs:
                return objs[0]  # models[i] / models[name]: one of them
            data = [i for i in members if i.is_data]
            lists = [i for i in members if i.kind == "seq"]
            if lists and not data:
                return lists[0]  # windows[key].append(...) in a loop over the keys: one list stands for each
            return self.derive(e, data)  # data[key] for an unknown key: any of them
        if base.kind == "obj":
            return self.looked_up(base, e) or base
        if not base.is_data:
            return None
        rows_part = e.slice
        chosen: frozenset = frozenset()  # `X[:, top]`: columns picked by something learned carry what it learned
        if isinstance(rows_part, ast.Tuple) and rows_part.elts:
            rows_part = rows_part.elts[0]
            for extra in e.slice.elts[1:]:
                cols = self.expr(extra)
                if cols is not None and cols.is_data:
                    chosen |= cols.all_stats
        elif accessor is None and isinstance(rows_part, ast.Tuple):
            rows_part = None
        out = self.select_rows(base, self.sample_part(base, e, accessor, rows_part), accessor, e)
        if chosen and out is not None and out.is_data:
            out.stats = out.stats | chosen
        if out is not None and out.is_data:
            out = self.fresh_copy(base, out)  # a fresh value for its own column facts
            self.subscript_columns(base, out, e.slice, accessor)
            if accessor is None and isinstance(e.slice, (ast.List, ast.Name)):
                out.stats = out.stats | self.typed_after_ranking(base, e.slice)
        return out

    def select_rows(self, base: Val, sl: ast.AST | None, accessor: str | None, e: ast.AST) -> Val:
        """The rows a subscript keeps: positional slices, fold indices and masks select; columns keep all."""
        same = Val(base.kind if base.kind != "index" else "data", rows=base.rows, stats=base.stats, time=base.time,
                   site=self.site(e), evals=base.evals, label=base.label, hyper=base.hyper, cols=base.cols)
        if sl is None:
            return same
        if accessor in ("iloc", "loc") or accessor is None and base.fcols is None:
            sl = range_slice(sl) or sl  # `iloc[list(range(0, n))]`: the slice `:n` (a frame's `df[range(3)]`: columns)
        sl = index_slice(sl, subscript_name(e) or "") or sl if isinstance(e, ast.Subscript) else sl  # df.index[-9:]
        if isinstance(sl, ast.Slice):
            if sl.lower is None and sl.upper is None:
                return same
            bounds = {n.id for b in (sl.lower, sl.upper) if b is not None for n in ast.walk(b)
                      if isinstance(n, ast.Name)}
            counters = {n for names in self.loop_vars for n in bounds & names
                        if not (self.env.get(n) is not None and self.env[n].rows)}  # `i`, not the rows looped over
            if counters and subscript_name(e) in self.row_elements:
                return same  # `t[i:i + 3] for t in texts for i in ...`: characters of one row, not a window of rows
            if counters:
                same.time = same.time | self.evidence("window", e)
                return self.counter_slice(base, same, sl, e, counters)  # a sliding window sweeps all the rows
            if sl.step is not None and sl.lower is None and sl.upper is None:
                return same
            stacked = self.stacked_part(base, sl)
            if stacked is not None:
                same.rows = stacked
                return same
            lower, upper = (self.bound_text(b) if b is not None else None for b in (sl.lower, sl.upper))
            if sl.lower is None:
                return self.select(base, ("pos", upper), "lo", "slice", e)
            if sl.upper is None:
                return self.select(base, ("pos", lower), "hi", "slice", e)
            return self.select(base, ("pos", lower, upper), "mid", "slice", e)
        if isinstance(sl, ast.Constant):
            declared = [t for t in base.rows if len(t) == 1 and isinstance(t[0], tuple) and t[0][0] == "declared"]
            if declared and len(base.rows) == 1 and sl.value in SPLIT_NAMES:  # raw["test"] of a library dataset
                return self.declared_part(base, declared[0][0], SPLIT_NAMES[sl.value], e)
            part = _split_key(sl.value)
            if part is not None and base.fcols is None and accessor is None and base.rows:
                # data of unknown layout (a pickled dict of arrays) indexed by a split's name: that split's part
                return self.declared_part(base, "keyed", part, e)
            if accessor in ("iloc", "iat") or accessor == "loc" and isinstance(sl.value, int):
                return self.select(base, ("row", repr(sl.value)), "one", "slice", e)
            same.cols = None
            if base.cols and sl.value in base.cols:
                same.stats = base.stats | base.cols[sl.value]
            return same  # a column
        if isinstance(sl, ast.Name) and base.rows and self.row_counters.get(sl.id, 0) == subscript_name(e) and \
                (accessor == "iloc" or accessor is None and base.fcols is None):
            return self.select(base, ("row", sl.id), "one", "slice", e)  # `X[i]`, i in range(len(X)): one row
        sl = self.listed_columns(sl)
        if isinstance(sl, ast.List) and sl.elts and all(isinstance(x, ast.Constant) for x in sl.elts):
            same.cols = {x.value: base.cols[x.value] for x in sl.elts if base.cols and x.value in base.cols} or None
            return same  # a list of columns
        idx = self.expr(sl)
        if idx is not None and idx.kind == "index" and idx.step is not None:
            for key, part in idx.items or (idx.step,):  # positions split once or more (`idx[tr]`, then split again)
                base = self.select(base, key, part, "folds", e)
            return base
        if idx is None:
            if accessor == "iloc" and isinstance(sl, (ast.Name, ast.Call, ast.List)):
                return self.select(base, ("mask", text(sl)), "sub", "mask", e)
            return same  # column names (a literal or a name bound to a list of names)
        if idx.kind == "seq" and (union := self.rows_of_parts(base, idx, e)) is not None:
            return union  # `X[np.concatenate([tr, va])]`: the rows of both parts
        if idx.kind == "seq":  # a list of column names: chosen by a statistic when its items carry one
            same.stats = same.stats.union(*(i.stats for i in idx.items or () if i is not None and i.is_data and
                                            not i.rows))
            return same
        if idx.is_data and not idx.rows:  # column names (possibly chosen by a fitted selector)
            same.stats = same.stats | idx.stats
            return same
        if idx.is_data and (isinstance(sl, (ast.Compare, ast.BoolOp, ast.UnaryOp)) or idx.kind == "data"):
            if (member := self.index_membership(base, sl)) is not None:
                return member  # `df[~df.index.isin(train.index)]`: the rest of a selection of `df`
            steps = mask_steps(sl) or self.named_mask_steps(sl)
            if steps:  # `df[df.c.isna()]`, `df[df.t < d]`: the two sides of one test (each test joined by `&`)
                for key, side in steps:
                    base = self.select(base, key, side, "mask", e)
                return base
            if isinstance(sl, ast.UnaryOp) and isinstance(sl.op, ast.Invert):
                return self.select(base, ("mask", text(sl.operand)), "not", "mask", e)
            return self.select(base, self.picked_key(sl, idx), "sub", "mask", e)
        return same

    def bound_text(self, node: ast.expr) -> str:
        """A slice bound as the selection key names it: as written, and a name with the integer literal it is bound
        to (`start = 10` then `x[start:]`, later `start = 250`: other rows). Such a bound proves no overlap (a branch
        may have bound it otherwise); the same name and value on both sides still cut at one place."""
        got = self.constant(node) if isinstance(node, ast.Name) else None
        return f"{node.id}={got}" if type(got) is int and isinstance(node, ast.Name) else _norm(node)

    def named_mask_steps(self, sl: ast.expr) -> list | None:
        """`train_idx = df.step <= cut` (or the labels it keeps, `df[df.step <= cut].index`) then
        `df.loc[train_idx]` (or `df[~train_idx]`): the mask's own test, as if written in place."""
        neg = isinstance(sl, ast.UnaryOp) and isinstance(sl.op, ast.Invert)
        name = sl.operand if neg else sl
        bound = self.bound_nodes.get(name.id) if isinstance(name, ast.Name) else None
        if isinstance(bound, ast.Attribute) and bound.attr == "index" and isinstance(bound.value, ast.Subscript):
            bound = bound.value.slice  # `idx = df[df.part == 'a'].index`: the labels of the rows that mask keeps
            if isinstance(bound, ast.Name) and not neg:
                return self.named_mask_steps(bound)
        steps = mask_steps(bound) if isinstance(bound, (ast.Compare, ast.BoolOp, ast.BinOp)) else None
        if not steps or neg and len(steps) != 1:
            return None
        return [(key, {"sub": "not", "not": "sub"}[side]) for key, side in steps] if neg else steps

    def stacked_part(self, base: Val, sl: ast.Slice) -> frozenset | None:
        """`all_data[:len(train)]` / `all_data[ntrain:]` of frames stacked with `concat([train, test])`: the cut
        at the length of a part the stack holds recovers that part's rows (and the rest), not a new selection."""
        bound = sl.upper if sl.lower is None else sl.lower if sl.upper is None else None
        if isinstance(bound, ast.Name) and isinstance(self.bound_nodes.get(bound.id), ast.expr):
            bound = self.bound_nodes[bound.id]  # `ntrain = train.shape[0]`
        if isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Attribute) and bound.value.attr == "shape":
            part_node = bound.value.value  # `train.shape[0]`
        elif isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len" and bound.args:
            part_node = bound.args[0]
        else:
            return None
        part = self.env.get(part_node.id) if isinstance(part_node, ast.Name) else None
        roots = {tok[0] for tok in part.rows} if part is not None and part.is_data else set()
        all_roots = {tok[0] for tok in base.rows}
        if not roots or not roots < all_roots:
            return None
        first = frozenset(tok for tok in base.rows if tok[0] in roots)
        return first if sl.lower is None else frozenset(base.rows) - first

    def listed_columns(self, sl: ast.AST) -> ast.AST:
        """`df[features]` for a name bound to a known list of column names (grown or shrunk in place as the
        column-list tracking follows it): that list, as a literal."""
        spec = self.col_spec(sl) if isinstance(sl, ast.Name) else None
        if spec is not None and spec[0] == "sel" and spec[1]:
            return ast.List(elts=[ast.Constant(c) for c in spec[1]], ctx=ast.Load())
        return sl


def _norm(node: ast.AST) -> str:
    """A slice boundary as text, so `X[:n]` and `X[n:]` name the same cut."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return "-" + text(node.operand)
    return text(node)


def _split_key(key: object) -> str | None:
    """The split a key names (`"train"`, `"x_test"`, `"cv"`), or None."""
    if not isinstance(key, str):
        return None
    return SPLIT_NAMES.get(key) or ("val" if key.lower() == "cv" else role_from_name(key))
