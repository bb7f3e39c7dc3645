"""Columns of data frames, for target leakage: which frame a value's columns come from, which columns were
removed or selected, which value is a single column (the label), and which columns were computed from which.

`Val.fcols` is `{"frame": key, "removed": frozenset, "selected": list | None, "added": frozenset,
"numeric_only": bool}`; `Val.flabel` is `(frame key, column)` for a single column. `Record.derived` maps
`(frame, column)` to `(columns read to compute it, whether it existed before, whether noise was drawn into it)`."""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable

from ..names import TIME_OPS
from ..parsed import dotted
from .api.numpy_api import RANDOM_DRAWS
from .api.pandas_api import CATEGORY_LABELS
from .astutil import const, kw
from .values import Val

KEEP_COLS = frozenset({"copy", "dropna", "fillna", "reset_index", "sort_values", "sort_index", "query", "sample",
                       "head", "tail", "astype", "drop_duplicates", "replace", "to_numpy", "values", "iloc", "loc",
                       "interpolate", "ffill", "bfill", "set_index", "infer_objects", "clip", "round", "abs"})
LABEL_KEEP = frozenset({"ravel", "reshape", "squeeze", "to_numpy", "map", "apply", "astype", "replace", "fillna",
                        "copy", "values"})


def strings(node: ast.AST | None) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def loc_cols(sl: ast.AST) -> ast.AST | None:
    return sl.elts[1] if isinstance(sl, ast.Tuple) and len(sl.elts) == 2 else None


def has_time_op(node: ast.AST) -> bool:
    """Lagged/rolling versions of a column are known at prediction time: not a derivation from the label."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in TIME_OPS
               for n in ast.walk(node))


def is_grouped(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("groupby",
                                                                                                "pivot_table")
               for n in ast.walk(node))


def numeric_include(e: ast.Call) -> bool:
    """select_dtypes(include='number' / np.number / ['float64', 'int64']) without an exclude list."""
    inc = kw(e, "include") if kw(e, "include") is not None else (e.args[0] if e.args else None)
    if inc is None or kw(e, "exclude") is not None:
        return False
    names = strings(inc) or [dotted(x) for x in (inc.elts if isinstance(inc, (ast.List, ast.Tuple)) else [inc])]
    return bool(names) and all(any(w in str(n).lower() for w in ("number", "float", "int")) for n in names)


class Columns:
    """Mixin: column facts of frames."""

    def label_root(self, flabel: tuple) -> object:
        """The column a label was computed from (`df['log_y'] = np.log(df['y'])` is the task of `y`)."""
        frame, col = flabel
        for _ in range(4):
            refs = self.rec.derived.get((frame, col), (set(),))[0]
            if len(refs) != 1:
                break
            col = next(iter(refs))
        return col

    def init_columns(self) -> None:
        self.str_lists: dict[str, tuple[str, object]] = {}  # names bound to column lists
        self.group_refs: dict[str, set[str]] = {}  # names bound to grouped statistics -> columns read
        self.loop_strs: dict[str, list[str]] = {}  # loop variables over literal column names

    def new_frame(self, v: Val) -> Val:
        v.fcols = {"frame": next(self._ids), "removed": frozenset(), "selected": None, "added": frozenset()}
        return v

    def column_refs(self, node: ast.AST) -> Iterable[str]:
        """Column names read in `node`: df['col'] and df.col where df is a known frame."""
        funcs = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
        for n in ast.walk(node):
            if isinstance(n, ast.Subscript):
                yield from strings(n.slice)
            elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.attr not in KEEP_COLS and \
                    id(n) not in funcs and (v := self.env.get(n.value.id)) is not None and v.fcols is not None:
                yield n.attr

    # ------------------------------------------------------------ statements
    def note_names(self, s: ast.Assign) -> None:
        """Before an assignment: names bound to column lists and to grouped statistics."""
        spec = self.col_spec(s.value)
        grouped = is_grouped(s.value) and set(self.column_refs(s.value))
        for n in s.targets:
            if isinstance(n, ast.Name):
                if spec is not None:
                    self.str_lists[n.id] = spec
                else:
                    self.str_lists.pop(n.id, None)
                if isinstance(s.value, ast.List) and spec is not None:  # typed in: after the rankings read so far
                    self.typed_lists[n.id] = (s.value, len(self.ranked))
                else:
                    self.typed_lists.pop(n.id, None)
                if grouped:
                    self.group_refs[n.id] = grouped
                else:
                    self.group_refs.pop(n.id, None)

    def note_loop(self, target: ast.AST, it: ast.AST) -> None:
        if isinstance(target, ast.Name):
            spec = self.col_spec(it)
            if spec is not None and spec[0] == "sel":
                self.loop_strs[target.id] = list(spec[1])
            else:
                self.loop_strs.pop(target.id, None)

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

    def joined(self, attr: str, e: ast.Call, parts: list) -> Val | None:
        """Frames stacked or joined: their rows and statistics; a `merge`/`join` keeps the statistics that reached
        single named columns on those columns (a column a later aggregation leaves out takes them away). A list of
        frames joined at once (`X.join([A, B])`) gives each of them."""
        parts = [i for p in parts for i in (p.items or () if p is not None and p.kind == "seq" else (p,))]
        out = self.derive(e, parts)
        data = [p for p in parts if p is not None and p.is_data]
        if out is not None and attr == "merge":
            out.rows = left_rows(e, parts) or out.rows
        if out is not None and attr in ("merge", "join") and any(p.cols for p in data):
            out.stats = frozenset().union(*(p.stats for p in data))
            out.cols = {c: s for p in data for c, s in (p.cols or {}).items()}
        return out

    @staticmethod
    def aggregated_cols(recv: Val, e: ast.Call) -> dict | None:
        """The per-column statistics an aggregation by a dict of columns (`agg({'a': 'sum'})`) keeps: those of the
        columns it names; None for any other aggregation."""
        spec = e.args[0] if e.args else None
        if not isinstance(spec, ast.Dict) or not all(isinstance(k, ast.Constant) for k in spec.keys):
            return None
        return {c: s for c, s in (recv.cols or {}).items() if c in {k.value for k in spec.keys}}

    def written_column(self, t: ast.Subscript, frame: ast.Name, base: Val, v: Val | None,
                       rhs: ast.AST | None = None) -> tuple:
        """(column, value, whole column) a write targets: `df['c'] = v`, or `df.loc[mask, 'c'] = v`, where the
        rows the mask picks decide the values too (`df.loc[df.Age >= bins[i], 'band'] = i`: what the bins learned)."""
        sl = t.slice
        if isinstance(sl, ast.Constant) and isinstance(sl.value, str):
            return sl.value, v, t.value is frame
        col = loc_cols(sl) if isinstance(t.value, ast.Attribute) and t.value.attr == "loc" else None
        if not (isinstance(col, ast.Constant) and isinstance(col.value, str)):
            return None, v, False
        v = self.drawn_values(base, v, rhs or t)
        parts = [p for p in (v, self.expr(sl.elts[0])) if p is not None and p.is_data]
        if not parts:
            return col.value, v, True
        return col.value, Val("data", rows=base.rows, stats=frozenset().union(*(p.all_stats for p in parts)),
                                     site=self.site(t), time=frozenset().union(*(p.time for p in parts))), True

    def column_written(self, name: str, base: Val, t: ast.Subscript, v: Val | None, rhs: ast.AST | None) -> Val:
        """`df[c] = rhs`: record what the column was computed from; a removed column comes back."""
        colslice = loc_cols(t.slice) if isinstance(t.value, ast.Attribute) and t.value.attr in ("loc", "at") \
            else (None if isinstance(t.value, ast.Attribute) else t.slice)
        cols = self.col_keys(colslice)
        if not cols or base.fcols is None or rhs is None or has_time_op(rhs):
            return base
        rhs = _without_category_labels(rhs)
        refs = set(self.column_refs(rhs))
        refs.update(*(self.group_refs.get(n.id, ()) for n in ast.walk(rhs) if isinstance(n, ast.Name)))
        fc = dict(base.fcols)
        noisy = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in RANDOM_DRAWS
                    for n in ast.walk(rhs))
        for c in cols:
            # a label drawn with noise from some columns (synthetic data) cannot be read back from them
            self.rec.derived[(fc["frame"], c)] = (refs - {c}, c in refs, noisy)
            fc["added"] = fc["added"] | {c}
            fc["removed"] = fc["removed"] - {c}
        base.fcols = fc
        return base

    def remove_cols(self, name: str, cols: list[str]) -> None:
        v = self.env.get(name)
        if v is not None and v.fcols is not None and cols:
            v.fcols = dict(v.fcols, removed=v.fcols["removed"] | set(cols))

    # ----------------------------------------------------------- expressions
    def subscript_columns(self, base: Val, out: Val, sl: ast.AST, accessor: str | None) -> None:
        """Column facts of `df[...]`, `df.loc[...]`, `df.iloc[...]`."""
        out.fcols, out.flabel = None, None
        if base.fcols is None:
            return
        colpart = loc_cols(sl) if accessor == "loc" else (None if accessor == "iloc" else sl)
        spec = self.col_spec(colpart) if accessor != "iloc" and not isinstance(colpart, ast.Constant) else None
        if spec is not None and (accessor is None or isinstance(sl, ast.Tuple)):
            out.fcols = dict(base.fcols, selected=list(spec[1])) if spec[0] == "sel" else \
                dict(base.fcols, removed=base.fcols["removed"] | spec[1])
        elif accessor in ("iloc", "loc") and isinstance(sl, ast.Tuple):
            if accessor == "loc" and isinstance(colpart, ast.List):
                out.fcols = dict(base.fcols, selected=strings(colpart))
            elif accessor == "loc" and isinstance(colpart, ast.Constant) and len(strings(colpart)) == 1:
                out.flabel = (base.fcols["frame"], strings(colpart)[0])
        elif accessor in ("iloc", "loc") or isinstance(sl, (ast.Slice, ast.Compare, ast.BoolOp, ast.UnaryOp)) or \
                (isinstance(sl, ast.Name) and (v := self.env.get(sl.id)) is not None and v.is_data and v.rows):
            out.fcols = base.fcols  # a row selection keeps the columns
        elif isinstance(sl, ast.List) and strings(sl):
            out.fcols = dict(base.fcols, selected=strings(sl))
        elif isinstance(sl, ast.Constant) and isinstance(sl.value, str):
            out.flabel = (base.fcols["frame"], sl.value)

    def method_columns(self, recv: Val, out: Val, attr: str, e: ast.Call) -> bool:
        """Column facts of a frame method's result; True when an in-place drop was applied to the receiver."""
        if recv.fcols is None:
            out.fcols = None
            out.flabel = recv.flabel if attr in LABEL_KEEP else None
            return False
        out.fcols, out.flabel = None, None
        if attr == "drop":
            cols = self.col_names(e.args[0]) if e.args else self.col_names(kw(e, "columns") or kw(e, "labels"))
            axis = kw(e, "axis")
            if axis is None and len(e.args) > 1:
                axis = e.args[1]  # df.drop('y', 1): the positional axis of older pandas
            if kw(e, "columns") is not None or const(axis) in (1, "columns"):
                sel = recv.fcols.get("selected")
                out.fcols = dict(recv.fcols, removed=recv.fcols["removed"] | set(cols),
                                 selected=None if sel is None else [c for c in sel if c not in cols])
                if const(kw(e, "inplace")) is True and isinstance(e.func.value, ast.Name):
                    self.remove_cols(e.func.value.id, cols)
                    if out.stats - recv.stats:  # columns chosen by something learned (a selector's support)
                        self.rebind(e.func.value.id, self.env.get(e.func.value.id) or recv, out)
                    return True
            else:
                out.fcols = recv.fcols
        elif attr in KEEP_COLS or attr in TIME_OPS:
            out.fcols, out.flabel = recv.fcols, recv.flabel
        elif attr == "select_dtypes" and numeric_include(e):
            out.fcols = dict(recv.fcols, numeric_only=True)
        return False

    def popped(self, recv: Val, e: ast.Call) -> Val | None:
        """`y = df.pop('label')`: the label column leaves the frame."""
        if recv.fcols is None or not isinstance(e.func.value, ast.Name):
            return None
        cols = strings(e.args[0]) if e.args else []
        out = Val("data", rows=recv.rows, stats=recv.all_stats, site=self.site(e), time=recv.time)
        out.flabel = (recv.fcols["frame"], cols[0]) if cols else None
        self.remove_cols(e.func.value.id, cols)
        return out

    # ------------------------------------------------------------ column specs
    def feature_set(self, x: Val, node: ast.AST | None) -> tuple | None:
        """The named columns a model is fitted on, when known (`X_tr[cols]`, a frame of selected columns): a model
        refitted on another feature set is another configuration."""
        if x.fcols and x.fcols.get("selected"):
            return tuple(x.fcols["selected"])
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            spec = self.col_spec(loc_cols(node.slice) or node.slice)
            return tuple(spec[1]) if spec is not None and spec[0] == "sel" else None
        return None

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
                isinstance(node.operand.func.value, ast.Attribute) and \
                node.operand.func.value.attr == "columns" and node.operand.args:
            names = self.col_names(node.operand.args[0])
            return ("except", frozenset(names)) if names else None  # df.loc[:, ~df.columns.isin([...])]
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            return self._comprehension_spec(node)
        return None

    def _comprehension_spec(self, node: ast.ListComp) -> tuple[str, object] | None:
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
        return strings(node)

    def col_names(self, node: ast.AST | None) -> list[str]:
        """Column names of a literal or of a name bound to a literal list."""
        spec = self.col_spec(node) if isinstance(node, ast.Name) else None
        return list(spec[1]) if spec is not None and spec[0] == "sel" else strings(node)


def _without_category_labels(node: ast.AST) -> ast.AST:
    """The expression without the category labels given to `.cat` methods (`.cat.set_categories(order)`): an order
    of the vocabulary, however it was ranked, computes no column from the columns that ranked it."""
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
             n.func.attr in CATEGORY_LABELS]
    if not calls:
        return node
    node = copy.deepcopy(node)
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in CATEGORY_LABELS:
            n.args, n.keywords = [], []
    return node


def left_rows(e: ast.Call, parts: list) -> frozenset | None:
    """The rows of a left merge (`a.merge(b, how='left')`, `pd.merge(a, b, how='left')`): exactly the left frame's,
    with the right frame's columns for them; None for any other merge."""
    left = parts[0] if parts else None
    how = any(k.arg == "how" and isinstance(k.value, ast.Constant) and k.value.value == "left" for k in e.keywords)
    return left.rows if how and left is not None and left.is_data and left.rows else None
