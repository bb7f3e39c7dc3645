"""`for` loops: a loop over a literal list of models or frames runs once per item (up to a few passes), a loop
over settings (`range`, a list of numbers, `ParameterGrid`) runs once standing for every setting, a loop over a
data loader whose body calls `.backward()` trains, and a loop over fold indices takes each part once. A loop over
row positions (`for i in range(len(X))`) visits one row of X a pass (`X[i]`): what is computed from that row
alone is its own, and what the passes gather holds every row. A window the loop predicts from and feeds its own
predictions back into is a recursive forecast (forecasts.py)."""

from __future__ import annotations

import ast

from .astutil import counted_by, counted_rows, literal_words, text, unenumerated
from .forecasts import recursive_inputs
from .functions import STEP_BUDGET
from .rows import repeats_rows
from .training import trains_directly
from .values import Val

MAX_PASSES = 8  # a loop over a literal list of models runs once per model, up to this many


class Loops:
    """Mixin: `for` statements."""

    def for_loop(self, s: ast.For | ast.AsyncFor) -> None:
        self.loop_vars.append({n.id for n in ast.walk(s.target) if isinstance(n, ast.Name)})
        counted = counted_rows(s.iter) if isinstance(s.target, ast.Name) else None
        saved = self.row_counters.get(s.target.id) if counted else None
        if counted:  # `for i in range(len(X))`: `X[i]` is one row of X each pass
            self.row_counters[s.target.id] = counted
        fed = recursive_inputs(s) - self.fed_back_names
        self.fed_back_names |= fed
        self.loop_nodes.append(s)
        try:
            self._for_loop(s)
        finally:
            self.loop_nodes.pop()
            self.fed_back_names -= fed
            self.loop_vars.pop()
            if counted:
                self.row_counters.pop(s.target.id)
                if saved is not None:
                    self.row_counters[s.target.id] = saved

    def _for_loop(self, s: ast.For | ast.AsyncFor) -> None:
        it_node, target = unenumerated(s.iter, s.target)
        kind = self.fold_indices(it_node, target, s.body) or self.over_position_parts(it_node, target)
        if kind:
            folds = [(id(s), "folds", 2)] if kind == "folds" else []  # (the parts of one split are taken once)
            self.loops.extend(folds)
            self.fold_loops.extend([s] if folds else [])
            self.block(s.body)
            del self.loops[len(self.loops) - len(folds):]
            del self.fold_loops[len(self.fold_loops) - len(folds):]
            self.block(s.orelse)
            return
        self.note_loop(target, it_node)
        indexed = self.indexed_models(it_node, target)
        it = self.expr(it_node) if indexed is None else None
        passes = self.loop_items(it) if indexed is None else indexed[0]
        if passes and len(passes) > 1:
            self.loops.append((id(s), "models" if any(self.holds_obj(p) for p in passes) else "items",
                               len(passes)))
            stamp = self.pass_stamp
            keys = self.dict_keys(it_node, target, len(passes))
            words = literal_words(it_node, target, len(passes))
            counter = _counter(s)
            for i, p in enumerate(passes[:MAX_PASSES if self.steps < STEP_BUDGET else 1]):
                self.pass_stamp = stamp + ((id(s), i),)
                self.assign(target, p if indexed is None else None, it_node)
                if indexed is not None:  # `for i in range(len(models))`: `i` is that pass's position
                    self.consts[target.id] = indexed[1][i]
                if counter is not None:  # `for i, m in enumerate(models)`: `i` too (`preds[i]` is this model's)
                    self.consts[counter[0]] = counter[1] + i
                if keys:  # `for name, frame in parts.items()` / `for name in parts`: the name is that pass's key
                    key_name = target.elts[0].id if isinstance(target, ast.Tuple) else target.id
                    self.consts[key_name] = keys[i]
                    if isinstance(keys[i], str):  # `if name == 'xgb':` known on each pass, as for a loop over words
                        self.pass_words.add(key_name)
                if words:  # `for phase in ['train', 'val']`: the name is that pass's word, and tests on it known
                    self.consts[target.id] = words[i]
                    self.pass_words.add(target.id)
                self.block(s.body)
            if words:
                self.pass_words.discard(target.id)
            if keys:
                self.pass_words.discard(target.elts[0].id if isinstance(target, ast.Tuple) else target.id)
            if words or indexed is not None:
                self.consts.pop(target.id, None)
            if counter is not None:
                self.consts.pop(counter[0], None)
            self.pass_stamp = stamp
            self.loops.pop()
        else:
            kind = "settings" if self.is_setting_iter(it_node, it) else "items"
            if self.over_columns(it_node, it):
                self.column_loops.add(id(s))
            if trains_directly(s.body, self.known_test):
                kind = "train"
            elem = passes[0] if passes else (Val("pred" if it.kind == "pred" else "data", rows=it.rows,
                                                 stats=it.all_stats, site=it.site, time=it.time, evals=it.evals)
                                             if it is not None and it.is_data else None)  # (a prediction's row)
            if kind == "settings":
                elem = Val("data", hyper=True, site=self.site(it_node))
                self.setting_vars[id(s)] = frozenset(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            if not passes and elem is not None and elem.is_data and isinstance(target, (ast.Tuple, ast.List)):
                # `for xb, yb in loader`: the fields of one batch (features, labels) hold the same rows; a splitter
                # the analysis does not know (`for tr, te in splitter.split(df)`) yields parts it cannot tell apart
                # or prove to overlap
                unknown_split = isinstance(it_node, ast.Call) and isinstance(it_node.func, ast.Attribute) and \
                    it_node.func.attr == "split" and len(target.elts) == 2
                for i, name in enumerate(n for n in ast.walk(target) if isinstance(n, ast.Name)):
                    part = self.select(elem, ("unpack", id(it_node)), f"part{i}", "mask", it_node) \
                        if unknown_split else elem
                    self.assign(name, part, it_node)
            else:
                self.assign(target, elem, it_node)
            self.loops.append((id(s), kind, 2 if kind == "settings" else 1))
            self.block(s.body)
            self.loops.pop()
        self.block(s.orelse)

    def one_row(self, v: Val) -> bool:
        """The value holds one row of a loop over rows by position (`X[i]`, i in range(len(X))): what is computed
        over it (`X[i].mean(axis=0)`) is that row's own feature."""
        return bool(v.rows) and all(_row_step(tok, self.row_counters) for tok in v.rows)

    def every_row(self, v: Val) -> Val:
        """A value made from one row each pass of `for i in range(len(X))` (`X[i]`) and gathered pass by pass
        (`feats.append(f(X[i]))`): the gathered list holds every row of X."""
        rows = frozenset(tok[:k] if (k := _row_step(tok, self.row_counters)) else tok for tok in v.rows)
        return v if rows == v.rows else v._replace(rows=rows)

    def indexed_models(self, it_node: ast.AST, target: ast.expr) -> tuple[list, list] | None:
        """A loop over the positions or keys of a list or dict of models the analysis knows (`for i in
        range(len(models))`, `for name in models` / `models.keys()`): one pass per model, with the loop variable
        known (position or key), so `list(models.values())[i]` or `models[name]` reads that pass's model, as a
        loop over the models themselves does. (members, the loop variable's value on each pass)."""
        if not isinstance(target, ast.Name):
            return None
        node = it_node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "sorted") \
                and len(node.args) == 1:
            node = node.args[0]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" and \
                not node.args:
            node = node.func.value
        if isinstance(node, ast.Name):  # `for name in models`: a dict's keys
            seq = self.env.get(node.id)
            if seq is None or seq.kind != "seq" or not seq.keys:
                return None
            members, values = list(seq.keys.values()), list(seq.keys)
        else:
            seq = self.counted(it_node)
            if seq is None:
                return None
            members = list(seq.items) if seq.items is not None else list((seq.keys or {}).values())
            values = list(range(len(members)))
        return (members, values) if len(members) > 1 and any(self.holds_obj(m) for m in members) else None

    def counted(self, it_node: ast.AST) -> Val | None:
        """The list or dict `range(len(models))` counts."""
        if not (isinstance(it_node, ast.Call) and self.parsed.qualname(it_node.func) == "range" and it_node.args
                and not it_node.keywords) or len(it_node.args) > 2:
            return None
        counted = counted_by(it_node.args[-1])
        if len(it_node.args) == 2 and self.constant(it_node.args[0]) != 0 or counted is None:
            return None
        seq = self.expr(counted)
        return seq if seq is not None and seq.kind == "seq" else None

    def dict_keys(self, it_node: ast.AST, target: ast.expr, passes: int) -> list | None:
        """The keys of a dict the analysis knows, when a loop unpacks `(key, value)` from its `.items()` or takes
        its keys (`for name in preds:`, `.keys()`), so that `preds[name]` is that pass's value."""
        node = it_node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "sorted") \
                and node.args:
            node = node.args[0]
        if isinstance(target, ast.Name) and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "keys" and not node.args:
            node = node.func.value
        if isinstance(target, ast.Name) and isinstance(node, ast.Name):
            base = self.env.get(node.id)
        elif not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                  and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                  node.func.attr == "items" and isinstance(node.func.value, ast.Name)):
            return None
        else:
            base = self.env.get(node.func.value.id)
        keys = list(base.keys) if base is not None and base.kind == "seq" and base.keys is not None else None
        return keys if keys is not None and len(keys) == passes else None

    def holds_obj(self, v: Val | None) -> bool:
        if v is None or v.kind == "obj":
            return v is not None
        return v.kind == "seq" and bool(v.items) and any(i is not None and i.kind == "obj" for i in v.items)

    def loop_items(self, it: Val | None) -> list[Val | None] | None:
        if it is None or it.hyper:
            return None
        if it.kind == "seq" and it.items is not None:
            return list(it.items)
        if it.kind == "seq" and it.keys is not None:
            return [Val("data", site=it.site) for _ in it.keys] or None
        return None

    def is_setting_iter(self, node: ast.AST, it: Val | None) -> bool:
        """A loop over hyperparameter values: range/linspace/a literal list of numbers/ParameterGrid."""
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) for e in node.elts):
            return True
        if isinstance(node, ast.Call):
            q = self.parsed.qualname(node.func)
            leaf = q.rsplit(".", 1)[-1]
            return leaf in ("range", "arange", "linspace", "logspace", "ParameterGrid", "ParameterSampler",
                            "product", "geomspace")
        return it is not None and it.hyper

    def stacks_copies(self, e: ast.Call, parts: list) -> bool:
        """Stacking parts that share rows copies rows. In a loop, `df = pd.concat([df, extra])` with `extra`
        made before the loop stacks the same rows once per pass: copies from the second pass on."""
        if not self.accumulating(e):
            return repeats_rows(parts)
        if not self.loop_nodes:
            return False
        inside = {id(n) for n in ast.walk(self.loop_nodes[-1])}
        return any(p is not None and p.is_data and p.rows and p.name not in self.growing and p.site is not None and
                   id(p.site.node) not in inside for p in parts)

    def counter_slice(self, base: Val, same: Val, sl: ast.Slice, e: ast.AST, counters: set) -> Val:
        """A slice bounded by a loop's counter. In a hand-written k-fold (`x[i * n:(i + 1) * n]` held out, and
        `x[:i * n]`, `x[(i + 1) * n:]` around it, in one loop) it takes this pass's fold or the rows around it: a
        part of a fold selection. Any other (`a[i - 60:i]` appended window by window, `X[i:i + bs]` batch by
        batch) sweeps over all the rows."""
        cut = self.fold_cut(sl, e, counters)
        return self.select(base, cut[0], cut[1], "folds", e) if cut is not None else same

    def fold_cut(self, sl: ast.Slice, e: ast.AST, counters: set | None = None) -> tuple | None:
        """The (fold key, part) of a slice bounded by a loop's counter in a hand-written k-fold, else None."""
        if counters is None:
            bounds = {n.id for b in (sl.lower, sl.upper) if b is not None for n in ast.walk(b)
                      if isinstance(n, ast.Name)}
            counters = {n for names in self.loop_vars for n in bounds & names}
        loop = next((n for n in reversed(self.loop_nodes) if isinstance(n, ast.For) and
                     isinstance(n.target, ast.Name) and n.target.id in counters), None) if counters else None
        if loop is None or not isinstance(e, ast.Subscript):
            return None
        return _fold_cut(loop, text(e.value), sl)

    def accumulating(self, e: ast.Call) -> bool:
        """`acc = np.vstack((acc, piece))` in a loop: each pass adds new rows to what the earlier passes stacked
        (the one abstract pass sees `acc` and `piece` as the same rows; they are not copies of each other)."""
        return bool(self.growing) and any(isinstance(n, ast.Name) and n.id in self.growing
                                          for a in e.args for n in ast.walk(a))


def _row_step(tok: tuple, counters: dict) -> int:
    return next((k for k, step in enumerate(tok) if k and step[1] == "one" and isinstance(step[0], tuple) and
                 step[0][0] == "row" and step[0][1] in counters), 0)


def _fold_cut(loop: ast.For, base: str, sl: ast.Slice) -> tuple | None:
    """The fold key and part of a slice of `base` in a hand-written k-fold loop: the middle slice `[a:b]` is the
    held-out fold ("test") when the loop also slices `[:a]` or `[b:]` of the same data, and those are the rows
    around it ("train"); else None."""
    cuts = _loop_cuts(loop).get(base, set())
    lo, hi = (text(b) if b is not None else None for b in (sl.lower, sl.upper))
    if lo is not None and hi is not None:
        return (("folds", lo, hi), "test") if (None, lo) in cuts or (hi, None) in cuts else None
    middle = next(((a, b) for a, b in cuts if a is not None and b is not None and (a == hi or b == lo)), None)
    return (("folds",) + middle, "train") if middle is not None else None


_CUTS: dict[int, tuple] = {}


def _loop_cuts(loop: ast.For) -> dict[str, set]:
    """The slices a loop takes (step-less), by the text of what they slice: {base: {(lower, upper)}} with bounds as
    written (None where absent). Memoised on the (read-only) loop node."""
    hit = _CUTS.get(id(loop))
    if hit is not None and hit[0] is loop:
        return hit[1]
    cuts: dict[str, set] = {}
    for n in ast.walk(loop):
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice) and n.slice.step is None:
            cuts.setdefault(text(n.value), set()).add(
                tuple(text(b) if b is not None else None for b in (n.slice.lower, n.slice.upper)))
    if len(_CUTS) > 4096:
        _CUTS.clear()
    _CUTS[id(loop)] = (loop, cuts)
    return cuts


def _counter(s: ast.For | ast.AsyncFor) -> tuple[str, int] | None:
    """`for i, x in enumerate(xs, start)`: the counter's name and its first value."""
    it, target = s.iter, s.target
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and
            isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)):
        return None
    start = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords if k.arg == "start"), None)
    first = 0 if start is None else start.value if isinstance(start, ast.Constant) else None
    return (target.elts[0].id, first) if isinstance(first, int) and not isinstance(first, bool) else None
