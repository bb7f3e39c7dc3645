"""Notebook functions: followed at each call (up to a small depth), arguments bound to parameters, the events
they record pointing into the cell that defines them, and mutations of their arguments reaching the caller; also
the calls that run them indirectly (joblib's `delayed`, a hyperparameter tuner's objective)."""

from __future__ import annotations

import ast

from .astutil import call_leaf, text
from .order import run_names
from .rows import covered, overlap
from .state import UNKNOWN
from .values import Obj, Val
from .windows import cut_windows, window_bounds

MAX_DEPTH = 5
STEP_BUDGET = 50_000  # past this many statements loops run a single pass; past twice it calls are not followed
# hyperparameter tuners that call a notebook's objective once per trial and keep the best settings
TUNERS = frozenset({"optimize", "fmin", "gp_minimize", "forest_minimize", "gbrt_minimize", "dummy_minimize",
                    "BayesianOptimization"})


class Functions:
    """Mixin: inlining notebook functions."""

    _yields: list[Val] | None = None  # what the generator function being followed yields
    flags: frozenset = frozenset()  # parameters of the function being followed given a literal True/False

    def inline(self, fval: Val, e: ast.Call, args: list[Val | None], kws: dict[str, Val | None]) -> Val | None:
        """Follow a notebook function for this call; the events it records point into the defining cell."""
        fn = fval.func
        if fn is None or self.depth >= MAX_DEPTH or self.steps > 2 * STEP_BUDGET:
            return self.derive(e, args + list(kws.values()))
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        local = dict(self.env)
        callers: dict[str, str] = {}
        defaults = fn.args.defaults
        for i, p in enumerate(params):
            local.pop(p, None)
            j = i - (len(params) - len(defaults))
            if i < len(args) and args[i] is not None:
                local[p] = args[i]
                if isinstance(e.args[i], ast.Name):
                    callers[p] = e.args[i].id
            elif p in kws and kws[p] is not None:
                local[p] = kws[p]
                kw = next((k for k in e.keywords if k.arg == p), None)
                if kw is not None and isinstance(kw.value, ast.Name):
                    callers[p] = kw.value.id
            elif j >= 0:
                dv = self.expr(defaults[j])
                if dv is not None:
                    local[p] = dv
        for kwa in fn.args.kwonlyargs:
            local.pop(kwa.arg, None)
            if kws.get(kwa.arg) is not None:
                local[kwa.arg] = kws[kwa.arg]
        if fn.args.vararg is not None:
            local[fn.args.vararg.arg] = Val("seq", items=tuple(args[len(params):]))
        named = set(params) | {k.arg for k in fn.args.kwonlyargs}
        consts = dict(self.consts)
        for p in named:
            consts.pop(p, None)
        if fn.args.kwarg is not None:  # `**kwargs`: the keywords no parameter takes (literals readable by name)
            local[fn.args.kwarg.arg] = Val("seq", keys={k: v for k, v in kws.items() if k not in named})
            consts["**" + fn.args.kwarg.arg] = {k.arg: k.value.value for k in e.keywords if k.arg is not None and
                                               k.arg not in named and isinstance(k.value, ast.Constant)}
        given = dict(zip(params[len(params) - len(defaults):], defaults))  # a default, unless the call gives it
        given.update(zip(params, e.args))
        given.update((k.arg, k.value) for k in e.keywords if k.arg is not None)
        lists = {n: spec for n, spec in self.str_lists.items() if n not in named}
        for p, node in given.items():
            self.bind_constant(consts, p, node)
            spec = self.col_spec(node)  # a column list given (`evaluate(['a', 'b'])`) is that list inside
            if spec is not None:
                lists[p] = spec
        flags = frozenset(p for p, node in given.items() if isinstance(node, ast.Constant) and
                          isinstance(node.value, bool))  # `if smote:` with `smote=False` written in the call
        saved = (self.env, self._returns, self.mutated, self.cell, self.consts, self._yields, self.flags,
                 self.str_lists)
        fits_before = len(self.rec.fits)
        self.call_sites.append(self.site(e))
        self.env, self._returns, self.mutated, self.consts, self._yields = local, [], set(), consts, []
        self.flags, self.str_lists = flags, lists
        self.cell = fval.func_cell or self.cell
        self.depth += 1
        try:
            self.block(fn.body)
            rets = [r for r in self._returns if r is not None]
            mutated, inner, yields = self.mutated, self.env, self._yields
        finally:
            self.depth -= 1
            self.call_sites.pop()
            inner_lists = self.str_lists
            self.env, self._returns, self.mutated, self.cell, self.consts, self._yields, self.flags, \
                self.str_lists = saved
            for n in (set(inner_lists) | set(self.str_lists)) - named:  # global column lists changed inside
                if n in inner_lists:
                    self.str_lists[n] = inner_lists[n]
                else:
                    self.str_lists.pop(n, None)
        globs = _globals_of(fn)
        for n in globs:
            if n in inner:
                self.env[n] = inner[n]
        # a global object changed in place (`df[c] = ...`), not rebound: the change stays after the call
        for n in mutated - set(params) - set(globs) - (run_names(fn)[0] if mutated else set()):
            if n in inner and self.env.get(n) is not None and self.env[n] is not inner[n]:
                before = self.env[n]
                self.env[n] = inner[n]
                self.mutated.add(n)
                self.update_aliases(before, inner[n])
        for p, caller in callers.items():
            if p in mutated and p in inner:
                before = self.env.get(caller)
                self.env[caller] = inner[p]
                self.mutated.add(caller)
                if before is not None:
                    self.update_aliases(before, inner[p])
        out = rets[-1] if rets else None
        if out is not None and (bounds := window_bounds(fn, params)) is not None:
            out = cut_windows(out, bounds, given, self.select, e)  # `windows(x, 0, n_train, 20)`: that period
        if _is_generator(fn):  # the caller iterates over what it yields (`validation_data=batches(...)`)
            items = tuple(map(_unnamed, {id(v): v for v in yields}.values()))
            out = Val("seq", items=items, site=self.site(e), func=fn) if items else None  # (func: what yields them)
        new_fits = self.rec.fits[fits_before:]
        if not any(f.kind == "model" for f in new_fits):
            return self.by_hand(fval, e, args, kws, out, new_fits) or out
        return out

    def yielded(self, e: ast.Await | ast.Yield | ast.YieldFrom) -> Val | None:
        """`yield v` in a followed generator function: `v` is one of the values its caller iterates over
        (`yield from parts`: each of them)."""
        v = self.expr(e.value) if e.value is not None else None
        if self._yields is not None and v is not None and not isinstance(e, ast.Await):
            items = v.items if isinstance(e, ast.YieldFrom) and v.kind == "seq" and v.items is not None else (v,)
            self._yields += [i for i in items if i is not None]
        return v

    def by_hand(self, fval: Val, e: ast.Call, args: list, kws: dict, out: Val | None, new_fits: list) -> Val | None:
        """A notebook function predicting by hand (a kNN or a naive Bayes written out): called with features and
        labels of the same rows and other rows to answer for, fitting no model, it returns values drawn from the
        labels. The labels' rows are what it learned from; the other rows, what it predicts."""
        if out is None or out.kind != "data" or not out.rows or fval.func is None:
            return None
        pos = [(i, a) for i, a in enumerate(args) if a is not None and a.is_data and a.rows and a.kind == "data"]
        pair = next(((i, f, y) for (i, f), (_j, y) in zip(pos, pos[1:]) if f.rows == y.rows), None)
        query = next((q for j, q in pos if pair is not None and j not in (pair[0], pair[0] + 1)), None)
        params = [a.arg for a in fval.func.args.posonlyargs + fval.func.args.args]
        if pair is None or query is None or pair[0] + 1 >= len(params) or \
                not _returns_from(fval.func, params[pair[0] + 1]):
            return None
        _i, feats, labels = pair
        if out.all_stats & set(new_fits) or not covered(out.rows, labels.rows | query.rows) or \
                overlap(out.rows, labels.rows) is None:
            return None  # statistics learned in the call (an encoder written out), or rows not from the labels
        key = (id(fval.func), feats.rows)
        obj = self.by_hand_models.get(key)
        if obj is None:
            obj = self.by_hand_models[key] = Obj(f"{fval.func.name}()", "model", self.site(e))
        if any(v is not None and v.hyper for v in args + list(kws.values())):
            obj.multi = 2  # settings varied by a loop: one configuration per pass
        self.supervised(e, obj.cls, feats, labels)
        obj.fit = self.add_fit("model", obj.cls, feats, e, obj=obj, y=labels)
        settings = tuple(text(a) for a, v in zip(e.args, args) if v is None or not v.is_data)
        obj.fit.config = (obj.version, self.pass_stamp, obj.fit.data_name, None, settings)
        return self.prediction(obj, query, "predict", e)

    def bind_constant(self, consts: dict, param: str, node: ast.expr) -> None:
        """A parameter given a literal (or a name bound to one) stands for it inside the call."""
        got = self.constant(node)
        if got is not UNKNOWN:
            consts[param] = got

    def tuned_objective(self, e: ast.Call) -> tuple[Val, list] | None:
        """The notebook function a hyperparameter tuner calls once per trial (`study.optimize(objective)`,
        `fmin(objective, space)`, `gp_minimize(f, dims)`, `BayesianOptimization(f=...)`), and the arguments it gets:
        a node the objective was bound to (`functools.partial(f, X_tr, y_tr)`, `lambda t: f(t, X_tr, y_tr)`) or
        None for what the tuner passes (the trial, the settings)."""
        f = e.func
        leaf = call_leaf(e)
        if leaf not in TUNERS or self.parsed.qualname(f).startswith(("keras_tuner", "kerastuner")):
            return None  # (keras-tuner's classes build models per trial; their `search` is what chooses)
        node = e.args[0] if e.args else next((k.value for k in e.keywords if k.arg in ("f", "fn", "func")), None)
        given: list = []
        if isinstance(node, ast.Call) and self.parsed.qualname(node.func) == "functools.partial" and node.args:
            node, given = node.args[0], list(node.args[1:])
        elif isinstance(node, ast.Lambda) and isinstance(node.body, ast.Call):
            params = {a.arg for a in node.args.args}
            given = [None if isinstance(a, ast.Name) and a.id in params else a for a in node.body.args]
            node = node.body.func
            fval = self.env.get(node.id) if isinstance(node, ast.Name) else None
            return (fval, given) if fval is not None and fval.kind == "func" and fval.func is not None else None
        fval = self.env.get(node.id) if isinstance(node, ast.Name) else None
        if fval is None or fval.kind != "func" or fval.func is None:
            return None
        n = len(fval.func.args.posonlyargs + fval.func.args.args)
        return fval, given + [None] * max(n - len(given), 0)

    def run_objective(self, objective: tuple[Val, list], e: ast.Call) -> None:
        """The tuner runs the objective with new settings per trial and keeps the best: one pass of a loop over
        settings, whose returned score is what the choice reads."""
        fval, given = objective
        nodes = [ast.Name(id="<trial>", ctx=ast.Load()) if g is None else g for g in given]
        call = self.synthetic_call(e, e.func, nodes, [])
        args = [Val("data", hyper=True, site=self.site(e)) if g is None else self.expr(g) for g in given]
        self.loops.append((id(e), "settings", 2))
        try:
            out = self.inline(fval, call, args, {})
        finally:
            self.loops.pop()
        self.note_choice([out], e)
        return None

    def runs_as(self, e: ast.Call, func: ast.expr) -> ast.Call:
        """joblib's `delayed(f)(x, k=v)` runs `f(x, k=v)`."""
        return self.synthetic_call(e, func, list(e.args), list(e.keywords))

    def synthetic_call(self, e: ast.Call, func: ast.expr, args: list, keywords: list) -> ast.Call:
        """A call node standing for what `e` runs, made once per node; kept with `e` itself, so `e` outlives the
        entry and its id names it alone."""
        got = self.deferred.get(id(e))
        if got is None or got[0] is not e or len(got[1].args) != len(args):
            node = ast.copy_location(ast.Call(func=func, args=args, keywords=keywords), e)
            node.end_lineno, node.end_col_offset = e.end_lineno, e.end_col_offset
            got = self.deferred[id(e)] = (e, node)
        return got[1]


_GLOBALS: dict[int, tuple[ast.AST, frozenset]] = {}


def _globals_of(fn: ast.FunctionDef) -> frozenset:
    """Names a function declares `global` (memoised per function node)."""
    hit = _GLOBALS.get(id(fn))
    if hit is None or hit[0] is not fn:
        names = frozenset(n for st in ast.walk(fn) if isinstance(st, ast.Global) for n in st.names)
        if len(_GLOBALS) > 4096:
            _GLOBALS.clear()
        hit = _GLOBALS[id(fn)] = (fn, names)
    return hit[1]


def _returns_from(fn: ast.FunctionDef, param: str) -> bool:
    """Whether what the function returns is computed from this parameter (names assigned from it, transitively)."""
    tainted = {param}
    flows: list[tuple[ast.AST, list]] = []  # (what is read, what it is written to)
    for n in ast.walk(fn):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None:
            flows.append((n.value, n.targets if isinstance(n, ast.Assign) else [n.target]))
        elif isinstance(n, ast.For):
            flows.append((n.iter, [n.target]))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "append", "extend", "insert", "add", "update") and isinstance(n.func.value, ast.Name):
            flows.append((n, [n.func.value]))  # `votes.append(train_y[i])`
    for _ in range(4):
        before = len(tainted)
        for src, targets in flows:
            if _value_names(src) & tainted:
                tainted |= {x.id for t in targets for x in ast.walk(t) if isinstance(x, ast.Name)}
        if len(tainted) == before:
            break
    return any(isinstance(r, ast.Return) and r.value is not None and _value_names(r.value) & tainted
               for r in ast.walk(fn))


def _value_names(node: ast.AST) -> set[str]:
    """The names whose values an expression reads: not a key it only indexes with (`df[df[column] == value]`
    returns rows of `df`, nothing of `column`)."""
    out: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name):
            todo.append(n.value)  # (the key itself is skipped; a computed index still reads its names)
            continue
        todo.extend(ast.iter_child_nodes(n))
    return out


def _unnamed(v: Val, depth: int = 0) -> Val:
    """A yielded value without the names it has inside the generator (`yield bx, by`): outside, it is known by the
    generator's own name."""
    items = v.items
    if v.kind == "seq" and items and depth < 3:
        items = tuple(_unnamed(i, depth + 1) if i is not None else None for i in items)
    return v._replace(name=None, items=items)


def _is_generator(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether `fn` itself yields (a `yield` in a function or lambda nested in it does not count); kept on the
    (read-only) node, as a function is followed at each of its calls."""
    known = getattr(fn, "_tg_generator", None)
    if known is not None:
        return known
    todo: list[ast.AST] = list(fn.body)
    found = False
    while todo and not found:
        n = todo.pop()
        found = isinstance(n, (ast.Yield, ast.YieldFrom))
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo += ast.iter_child_nodes(n)
    fn._tg_generator = found  # type: ignore[union-attr]
    return found
