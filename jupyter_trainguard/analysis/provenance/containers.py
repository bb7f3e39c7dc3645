"""Python lists and dicts the notebook fills (`scores.append(s)`, `windows[key].append(w)`, `results.items()`):
their items keep their provenance; matrices allocated with one row per row of some data, to be filled row by row
(`np.zeros((len(texts), 100))`), are rows of that data, and any other allocated matrix holds the rows of the data
it is filled from (`W = np.empty((n - k, k, 1))`, then `W[i] = X[i:i + k]`). Rows kept by membership or by a
filter's test (`df[~df.index.isin(train.index)]`, `df.query(...)`, Spark's `df.filter(F.col('d') < cut)`) are
selections of the rows they are taken from."""

from __future__ import annotations

import ast

from .astutil import index_slice, kw, mask_steps, text
from .values import Val

ALLOCATORS = ("zeros", "empty", "ones", "full")


class Containers:
    """Mixin: methods of lists and dicts; rows kept by index membership or a filter."""

    def list_arithmetic(self, e: ast.expr, vals: list) -> Val | None:
        """`[part] * 3` and `[a] + [b]`: lists whose items are the same values, repeated or joined."""
        seqs = [v for v in vals if v is not None and v.kind == "seq" and v.items is not None]
        if not isinstance(e, ast.BinOp) or not seqs:
            return None
        if isinstance(e.op, ast.Mult) and len(seqs) == 1:
            return Val("seq", items=seqs[0].items * 2, site=self.site(e))  # twice shows the repetition
        if isinstance(e.op, ast.Add) and len(seqs) == 2:
            return Val("seq", items=seqs[0].items + seqs[1].items, site=self.site(e))
        return None

    def filtered(self, recv: Val, e: ast.Call) -> Val:
        """`df.query('a > 1')`, a Spark DataFrame's `filter(F.col('day') < cut)`: the rows the test keeps (each test
        joined by `&` one side of a selection of its own, as in `df[(df.d >= a) & (df.d < b)]`)."""
        steps = mask_steps(e.args[0]) if e.func.attr == "filter" else None  # type: ignore[attr-defined]
        if not steps:
            return self.select(recv, ("mask", text(e.args[0])), "sub", "mask", e)
        for key, side in steps:
            recv = self.select(recv, key, side, "mask", e)
        return recv

    def builtin(self, leaf: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        """Python's containers and iteration helpers (`zip`, `max`, `sorted`, `list`, `dict`, `enumerate`)."""
        if leaf == "zip" and args and all(a is not None and a.kind == "seq" for a in args):
            if all(a.items is not None for a in args):
                n = min(len(a.items) for a in args)
                return Val("seq", items=tuple(Val("seq", items=tuple(a.items[i] for a in args)) for i in range(n)))
            # a range of settings beside the lists filled for them: one tuple stands for every pass's
            return Val("seq", items=(Val("seq", items=tuple(a.items[0] if a.items else None for a in args)),))
        if leaf in ("max", "min", "sorted"):
            if kw(e, "key") is not None or not all(a is not None and a.kind == "seq" and a.keys is not None and
                                                   not a.items for a in args):
                self.note_choice(args, e)  # (a dict's names sorted or maxed without a key function: no score read)
            self.keyed_items(e, args)
        if leaf == "map" and (out := self.mapped(e, args)) is not None:
            return out
        if leaf in ("list", "tuple", "sorted", "reversed", "iter", "set") and args and args[0] is not None:
            return args[0]
        if leaf in ("list", "tuple", "set") and not args and not kws:
            return Val("seq", items=(), site=self.site(e))  # `cols = list()`: filled by `.append` later
        if leaf == "dict" and not args and not kws:
            return Val("seq", keys={}, site=self.site(e))  # `d = dict()`, as `{}`: results get stored into it
        if leaf == "dict" and (kws or args and args[0] is not None and args[0].keys is not None):
            keys = dict(args[0].keys) if args and args[0] is not None and args[0].keys is not None else {}
            keys.update(kws)  # constants too: `dict(early_stopping_rounds=50)` passed on as `**params` stops early
            return Val("seq", keys=keys, site=self.site(e))
        if leaf == "enumerate" and args and args[0] is not None and args[0].kind == "seq" and args[0].items:
            return Val("seq", items=tuple(Val("seq", items=(None, i)) for i in args[0].items))
        if leaf == "next" and args and args[0] is not None and args[0].kind == "seq" and args[0].items:
            return args[0].items[0]
        return self.derive(e, args + list(kws.values()))

    def dropped_index(self, recv: Val, e: ast.Call) -> Val | None:
        """`df.drop(train.index)`: the complement of a selection of `df`; `df.drop(df.index[-12:])`: the rows
        around that positional slice (`df.iloc[:-12]`); another index dropped: a subset of unknown rows. None when
        the call drops columns."""
        idx = kw(e, "index") or (e.args[0] if e.args else None)
        cut = index_slice(idx, text(e.func.value)) if isinstance(e.func, ast.Attribute) else None
        if cut is not None and (cut.lower is not None or cut.upper is not None):
            sides = [self.select(recv, ("pos", self.bound_text(b)), side, "slice", e)
                     for b, side in ((cut.lower, "lo"), (cut.upper, "hi")) if b is not None]
            return sides[0] if len(sides) == 1 else sides[0]._replace(rows=sides[0].rows | sides[1].rows)
        if kw(e, "index") is None and not (isinstance(idx, ast.Attribute) and idx.attr == "index"):
            return None
        inner = idx.value if isinstance(idx, ast.Attribute) and idx.attr == "index" else idx
        other = self.env.get(inner.id) if isinstance(inner, ast.Name) else None
        for tok in other.rows if other is not None and recv.rows else ():
            for base in recv.rows:  # df.drop(train.index): the complement of a selection of df
                if len(tok) == len(base) + 1 and tok[: len(base)] == base:
                    return self.select(recv, tok[-1][0], "rest", "mask", e)
        return self.select(recv, ("mask", "drop " + text(idx)), "sub", "mask", e)

    def index_membership(self, base: Val, sl: ast.AST) -> Val | None:
        """`df[~df.index.isin(train.index)]` (`df.loc[...]`, `train.index.values`, `list(train.index)`), where
        `train` is a selection of `df`'s rows: the rows it left out, as `df.drop(train.index)`; without `~`, the rows
        it kept."""
        neg = isinstance(sl, ast.UnaryOp) and isinstance(sl.op, ast.Invert)
        call = sl.operand if neg else sl
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "isin" and
                isinstance(call.func.value, ast.Attribute) and call.func.value.attr == "index" and
                len(call.args) == 1 and not call.keywords):
            return None
        arg = call.args[0]
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "list" and arg.args:
            arg = arg.args[0]
        if isinstance(arg, ast.Attribute) and arg.attr == "values":
            arg = arg.value
        if not (isinstance(arg, ast.Attribute) and arg.attr == "index" and isinstance(arg.value, ast.Name)):
            return None
        other = self.env.get(arg.value.id)
        for tok in other.rows if other is not None else ():
            for row in base.rows:
                if len(tok) == len(row) + 1 and tok[: len(row)] == row:
                    return self.select(base, tok[-1][0], "rest" if neg else tok[-1][1], "mask", sl)
        return None

    def keyed_items(self, e: ast.Call, args: list) -> None:
        """`max(models, key=...)` / `sorted(..., key=...)` over a known list: the key runs on every item."""
        key = next((k.value for k in e.keywords if k.arg == "key"), None)
        if isinstance(key, ast.Lambda) and len(key.args.args) == 1 and args and args[0] is not None and \
                args[0].kind == "seq" and args[0].items:
            self.key_over_items(key, list(args[0].items))

    def key_over_items(self, key: ast.Lambda, items: list) -> None:
        """`max(models, key=lambda m: m.score(X_te, y_te))`: the key scores every item to pick one."""
        param = key.args.args[0].arg
        saved = self.env.get(param)
        self.loops.append((id(key), "models", len(items)))
        try:
            picked = []
            for item in items[:8]:
                if item is not None:
                    self.env[param] = item
                    picked.append(self.expr(key.body))
            self.note_choice(picked, key)
        finally:
            self.loops.pop()
            if saved is None:
                self.env.pop(param, None)
            else:
                self.env[param] = saved

    def mapped(self, e: ast.Call, args: list) -> Val | None:
        """`map(lambda x, y: m.score(x, y), [X_tr, X_te], [y_tr, y_te])`: the function run on each tuple of items of
        known lists, as a comprehension over them would."""
        fn, seqs = (e.args[0] if e.args else None), args[1:]
        if not isinstance(fn, ast.Lambda) or not seqs or len(fn.args.args) != len(seqs) or \
                not all(s is not None and s.kind == "seq" and s.items for s in seqs):
            return None
        names = [a.arg for a in fn.args.args]
        saved = {n: self.env.get(n) for n in names}
        n = min(len(s.items) for s in seqs)
        self.loops.append((id(fn), "items", n))
        outs = []
        try:
            for i in range(min(n, 8)):
                for name, s in zip(names, seqs):
                    self.env[name] = s.items[i]
                outs.append(self.expr(fn.body))
        finally:
            self.loops.pop()
            for name, v in saved.items():
                if v is None:
                    self.env.pop(name, None)
                else:
                    self.env[name] = v
        return Val("seq", items=tuple(outs), site=self.site(e))

    def seq_method(self, recv: Val, attr: str, e: ast.Call, args: list) -> Val | None:
        if attr in ("index", "sort"):
            self.note_choice([recv], e)  # scores.index(max(scores)), scores.sort()
        if attr == "reshape" and recv.hyper and recv.items is None:
            return self.source(e, "made")  # `np.arange(15).reshape(-1, 1)`: a range made into a feature matrix
        if attr == "items" and recv.keys is not None:
            return Val("seq", items=tuple(Val("seq", items=(None, v)) for v in recv.keys.values()))
        if attr == "values" and recv.keys is not None:
            return Val("seq", items=tuple(recv.keys.values()))
        if attr == "keys":  # the names, a pass per key when iterated (loops.dict_keys reads each pass's key)
            return Val("seq", items=tuple(None for _ in recv.keys), site=self.site(e)) if recv.keys else None
        if attr == "get" and recv.keys is not None and e.args and isinstance(e.args[0], ast.Constant):
            return recv.keys.get(e.args[0].value)
        if attr in ("append", "extend", "insert"):
            new = [self.every_row(a) if a is not None and a.is_data else a for a in args if a is not None] \
                if not self.ranked_guard else args[-1:]
            if attr == "extend" and new and new[0] is not None and new[0].kind == "seq" and new[0].items:
                new = list(new[0].items)
            new = self.guarded_items(new)
            if isinstance(e.func.value, ast.Name):
                items = tuple(recv.items or ()) + tuple(new)
                self.env[e.func.value.id] = Val("seq", items=items, keys=recv.keys, site=recv.site,
                                                name=e.func.value.id)
            else:
                self.append_in_dict(e.func.value, tuple(new))
        return None

    def append_in_dict(self, target: ast.expr, new: tuple) -> None:
        """`windows[key].append(w)`: the list stored under that key grows (under every key, for a key the
        analysis cannot read: a loop over the keys appends to each)."""
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)) or not new:
            return
        base = self.env.get(target.value.id)
        if base is None or base.kind != "seq" or base.keys is None:
            return
        key = self.constant(target.slice)  # a literal, or a loop's name bound to this pass's key
        names = [key] if isinstance(key, (str, int, float)) and key in base.keys else list(base.keys)
        for k in names:
            old = base.keys[k]
            if old is not None and old.kind == "seq" and old.keys is None:
                base.keys[k] = Val("seq", items=tuple(old.items or ()) + new, site=old.site)

    def preallocated(self, leaf: str, e: ast.Call) -> Val | None:
        """`np.zeros((X.shape[0], k))`: a matrix with a row for each row of `X`. (A vector, `np.zeros(len(X))`, is
        as often one feature column of them, stacked with others by `np.vstack(...).T`: new values.)"""
        shape = e.args[0] if e.args else kw(e, "shape")  # (`np.empty(shape=(len(X), k))`)
        if leaf not in ALLOCATORS or not isinstance(shape, (ast.Tuple, ast.List)) or \
                len(shape.elts) < 2:
            return None
        n = shape.elts[0]
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1:
            of = n.args[0]
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "shape" and \
                isinstance(n.slice, ast.Constant) and n.slice.value == 0:
            of = n.value.value
        else:
            return None
        v = self.expr(of)
        return Val("data", rows=v.rows, site=self.site(e)) if v is not None and v.is_data and v.rows else None

    def allocation(self, leaf: str, e: ast.Call) -> Val:
        """New values (`np.random.rand(n)`, `np.arange(n)`); a matrix allocated empty (`np.zeros((n, k))`) is
        remembered as one, to take the rows of the data written into it (`filled_rows`)."""
        v = self.source(e, "made")
        shape = e.args[0] if e.args else kw(e, "shape")  # (`np.empty(shape=(len(X), k))`)
        if leaf in ALLOCATORS and isinstance(shape, (ast.Tuple, ast.List)) and len(shape.elts) >= 2:
            self.allocations |= {tok[0] for tok in v.rows}
        return v

    def filled_rows(self, base: Val, v: Val) -> frozenset:
        """The rows of an allocated matrix after windows of data are written into it row by row in a loop
        (`W[i, :, :] = X[i:i + k]`): those of the data, the first time; else its own. (A whole value written into
        one row, `oof[i, :] = clf.predict(X_te)`, or a statistic of one segment, fills no row with rows.)"""
        if v.rows and base.rows and all(tok[0] in self.allocations for tok in base.rows) and \
                any(ev[0] == "window" for ev in v.time) and not all(tok[0] in self.allocations for tok in v.rows):
            return v.rows
        return base.rows

    def indexed_subset(self, leaf: str, args: list, kws: dict, e: ast.Call) -> Val | None:
        """torch's `Subset(ds, idx)` and `DataLoader(ds, sampler=SubsetRandomSampler(idx))` with fold or split
        indices: the rows of `ds` those indices select, as `ds[idx]` would (a sampler stands for its indices)."""
        if leaf in ("SubsetRandomSampler", "SubsetSampler"):
            return args[0] if args and args[0] is not None and args[0].kind == "index" else None
        idx = kws.get("indices" if leaf == "Subset" else "sampler")
        idx = args[1] if idx is None and leaf == "Subset" and len(args) > 1 else idx
        base = args[0] if args else kws.get("dataset")
        if idx is None or idx.kind != "index" or idx.step is None or base is None or not base.is_data:
            return None
        for key, part in idx.items or (idx.step,):
            base = self.select(base, key, part, "folds", e)
        return base
