"""The provenance interpreter: runs a notebook's cells (execution order) over abstract values.

Statements bind names to `Val`s; loops over known lists of models run once per model, other loops once; branches
run in sequence; notebook functions are followed at each call (up to a small depth), mutations of their arguments
reaching the caller. Library calls are read through the API table (`api`), names it cannot follow by their use."""

from __future__ import annotations

import ast
import builtins

from ..names import role_from_name
from ..parsed import ParsedNotebook
from .astutil import call_leaf, literal_like
from .by_use import ByUse
from .calls import Calls
from .carried import CarriedWeights
from .columns import Columns
from .comprehensions import Comprehensions
from .containers import Containers
from .crossval import CrossValidation
from .curves import Curves
from .declared import Declared
from .expressions import Expressions
from .fastai_parts import FastaiData
from .files import Files
from .fills import Fills
from .forecasts import Forecasts
from .functions import Functions
from .layout import Layout
from .loops import Loops
from .methods import Methods
from .objects import Objects
from .order import names_of, replay_order
from .permutations import Permutations
from .ranked import Rankings
from .rows import unfilled
from .state import UNKNOWN, Record, State
from .temporal import TimeOrder
from .training import Training, is_no_grad, trains_directly
from .values import Val, joined


class Interpreter(Expressions, Calls, Objects, Functions, Methods, Containers, Columns, Training, TimeOrder, Curves,
                  Forecasts, ByUse, Files, Fills, Declared, Loops, Comprehensions, CarriedWeights, Permutations,
                  Rankings, Layout, CrossValidation, FastaiData, State):
    """Abstract interpretation of one notebook; `run()` returns the `Record` of fits and evaluations."""

    def __init__(self, parsed: ParsedNotebook, strict: bool = False) -> None:
        super().__init__()
        self.parsed = parsed
        self.strict = strict
        self.env: dict[str, Val] = {}
        self.depth = 0
        self._returns: list[Val | None] | None = None
        self.mutated: set[str] = set()
        self.user_classes: dict[str, ast.ClassDef] = {}
        self.model_bodies: dict[int, Val] = {}  # a notebook model class's object: an instance its methods run on
        self.method_cells: dict[int, object] = {}  # id of a notebook class's method -> the cell defining it
        self.fold_loops: list[ast.For | ast.AsyncFor] = []  # the loops over folds the statement is in
        self.loop_vars: list[set[str]] = []  # names bound by the enclosing loops (window bounds use them)
        self.row_elements: set[str] = set()  # names bound to one row each by an enclosing comprehension
        self.row_values: dict[int, Val] = {}  # id -> a value holding one row's own items (comprehensions.py)
        self.row_counters: dict[str, str] = {}  # loop counter -> the name whose rows it counts (`range(len(X))`)
        self.fed_back_names: set[str] = set()  # windows a loop predicts from and feeds its predictions into
        self.transposed: dict[int, Val] = {}  # id -> an array holding one sample per column (layout.py)
        self.typed_lists: dict[str, tuple] = {}  # name -> (list literal typed into it, rankings read before it)
        self.no_grad = 0  # inside `with torch.no_grad():`
        self.steps = 0
        self.bound_names: set[str] = set(dir(builtins))  # names some cell replayed so far binds
        self.string_counts: dict[str, int] = {}  # string literals of the cells replayed so far (files.py)
        self.outside: dict[str, Val] = {}  # data read through names no cell binds (expressions.outside_value)
        self.init_columns()

    def run(self) -> Record:
        return self._replay(replay_order(self.parsed))

    def resume(self, parsed: ParsedNotebook, done: int) -> Record:
        """Continue a finished `run()` on `parsed`, a later version of the notebook whose first `done` cells in
        replay order are the very cells already run, with the same import aliases (the caller checks both): only
        the cells after them are interpreted, and the record equals that of a fresh `run()` over `parsed` (the
        live session's guard analyses its growing history this way)."""
        self.parsed = parsed
        return self._replay(replay_order(parsed)[done:])

    def _replay(self, cells: list) -> Record:
        for pc in cells:
            if pc.tree is None:
                continue
            self.bound_names |= names_of(pc.tree)[0]
            self.note_strings(pc.tree)
            self.cell = pc.cell
            for stmt in pc.tree.body:
                self.statement(stmt)
        self.rec.env = dict(self.env)
        self.rec.__dict__.pop("_detector_cache", None)  # what the detectors worked out about the last run
        return self.rec

    # ----------------------------------------------------------- statements
    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            self.statement(s)
            if isinstance(s, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                break  # what follows in this block never runs (a second `return` left below the first)

    def statement(self, s: ast.stmt) -> None:
        self.steps += 1
        try:
            self._statement(s)
        except RecursionError:
            pass
        except Exception:  # odd code never stops the analysis of the rest of the notebook
            if self.strict:
                raise

    def _statement(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Assign):
            self.note_names(s)
            self.growing = {t.id for t in s.targets if isinstance(t, ast.Name)} if self.loops else set()
            v = self.expr(s.value)
            self.growing = set()
            for t in s.targets:
                self.assign(t, v, s.value)
                self.note_constant(t, s.value)
                if isinstance(t, ast.Name) and self.loops and literal_like(s.value):
                    self.resets[t.id] = self.loops[-1][0]  # `best = np.inf` at the top of each pass
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.expr(s.value), s.value)
        elif isinstance(s, ast.AugAssign):
            cur = self.expr(s.target) if isinstance(s.target, (ast.Name, ast.Subscript, ast.Attribute)) else None
            add = self.expr(s.value)
            if cur is not None and cur.kind == "seq" and cur.items is not None and isinstance(s.op, ast.Add) and \
                    add is not None and add.kind == "seq" and add.items is not None:
                self.assign(s.target, cur._replace(items=cur.items + add.items), s)  # `preds += [p]`
                return
            v = self.derive(s, [cur, add])
            if v is not None and cur is not None and cur.kind == "seq":
                v = cur
            self.assign(s.target, v if v is not None else cur, s)
        elif isinstance(s, ast.Expr):
            self.list_mutation(s.value)
            self.expr(s.value)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self.for_loop(s)
        elif isinstance(s, ast.While):
            self.expr(s.test)
            self.loops.append((id(s), "train" if trains_directly(s.body) else "while", 1))
            self.loop_nodes.append(s)
            self.block(s.body)
            self.loop_nodes.pop()
            self.loops.pop()
            self.block(s.orelse)
        elif isinstance(s, ast.If):
            outer = self.ranked_guard
            self.ranked_guard = outer | self.ranking_tested(self.expr(s.test))
            self.compared_scores(s.test)
            known = self.known_test(s.test)  # (`if VALID:` runs both branches: modes the author switches between)
            try:
                if known is not False:
                    self.block(s.body)
                if known is not True:
                    self.block(s.orelse)
            finally:
                self.ranked_guard = outer
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            quiet = any(is_no_grad(item.context_expr) for item in s.items)
            for item in s.items:
                v = self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, v, item.context_expr)
            self.no_grad += quiet
            try:
                self.block(s.body)
            finally:
                self.no_grad -= quiet
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            self.block(s.body)
            for h in s.handlers:
                self.block(h.body)
            self.block(s.orelse)
            self.block(s.finalbody)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.env[s.name] = Val("func", func=s, func_cell=self.cell, name=s.name)
        elif isinstance(s, ast.ClassDef):
            self.user_classes[s.name] = s
            self.method_cells.update((id(f), self.cell) for f in s.body
                                     if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)))
            self.env[s.name] = Val("func", func=None, func_cell=self.cell, name=s.name)
        elif isinstance(s, ast.Return):
            v = self.expr(s.value) if s.value is not None else None
            if self._returns is not None:
                self._returns.append(v)
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Name):
                    self.env.pop(t.id, None)
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    self.remove_cols(t.value.id, self.col_names(t.slice))
        elif isinstance(s, ast.Match):
            self.expr(s.subject)
            for case in s.cases:
                self.block(case.body)

    def compared_scores(self, test: ast.expr) -> None:
        """`if acc > best:` — a score compared with another non-constant value picks a candidate. A name bound to
        a literal earlier in the same pass of the innermost loop (`best = np.inf` reset on every epoch) is one."""
        here = self.loops[-1][0] if self.loops else None
        for n in ast.walk(test):
            if isinstance(n, ast.Compare):
                parts = [n.left, *n.comparators]
                if sum(not isinstance(p, ast.Constant) and not (isinstance(p, ast.Name) and here is not None and
                                                                 self.resets.get(p.id) == here) for p in parts) < 2 or \
                        all(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in n.ops):
                    continue  # a fixed threshold (acc > 0.9) checks, a membership test (name in scores) looks up
                self.note_choice([self.expr(p) for p in parts if not isinstance(p, ast.Call)], n)

    # ----------------------------------------------------------- assignment
    def assign(self, t: ast.expr, v: Val | None, rhs: ast.AST | None) -> None:
        if isinstance(t, ast.Starred):
            t = t.value
        if isinstance(t, ast.Name):
            self.consts.pop(t.id, None)  # rebound (a loop's variable, an unpacked value): no longer a literal
            self.resets.pop(t.id, None)
            if v is None:
                self.env.pop(t.id, None)
                return
            if v.kind in ("data", "pred", "score") and v.name not in (None, t.id):
                if v.oid is None:
                    v.oid = next(self._ids)
                v = v._replace(name=None)  # another name for the same object
            if v.kind == "score" and role_from_name(t.id) in ("val", "test") and self.train_score(v):
                self.rec.reports.append((self.site(rhs), {"as": t.id, "metric": self.site(rhs).text}))
            if v.kind != "obj" and v.kind != "func":
                v.name = t.id
                held = self.rec.held_out_parts
                for i in range(len(held) - 1, max(len(held) - 8, -1), -1):
                    if held[i].rows == v.rows and held[i].name is None:
                        held[i].name = t.id  # the name a split part is bound to, for messages
                        break
            self.env[t.id] = v
        elif isinstance(t, (ast.Tuple, ast.List)):
            items = v.items if v is not None and v.items is not None else None
            if items is not None and len(items) == len(t.elts):
                for tt, vv in zip(t.elts, items):
                    self.assign(tt, vv, rhs)
            elif v is not None and v.is_data and len(t.elts) > 1 and call_leaf(rhs) != "next":  # an unknown call
                key = ("unpack", id(rhs))  # returning several values: each is some part of the rows (never all)
                for i, tt in enumerate(t.elts):
                    self.assign(tt, self.select(v, key, f"part{i}", "mask", rhs), rhs)
            else:
                for tt in t.elts:
                    self.assign(tt, v if v is None or v.kind != "seq" else None, rhs)
        elif isinstance(t, ast.Subscript):
            self.assign_item(t, v, rhs)
        elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
            base = self.env.get(t.value.id)
            if base is not None and base.kind == "obj" and base.obj.attrs is not None:
                if v is None:
                    base.obj.attrs.pop(t.attr, None)
                else:
                    base.obj.attrs[t.attr] = v  # self.data = ...
            elif base is not None and base.is_data and v is not None and v.is_data:
                self.rebind(t.value.id, base, v)

    def assign_item(self, t: ast.Subscript, v: Val | None, rhs: ast.AST | None) -> None:
        """`df['col'] = expr` / `df.loc[m, 'c'] = expr`: the frame keeps its rows and gains the value's statistics."""
        base_node = t.value
        if isinstance(base_node, ast.Attribute) and base_node.attr in ("loc", "iloc", "at", "iat"):
            base_node = base_node.value
        while isinstance(base_node, ast.Subscript):  # df['Age'][mask] = ...: a write into column 'Age'
            t, base_node = base_node, base_node.value
        if isinstance(base_node, ast.Attribute) and isinstance(base_node.value, ast.Name):
            holder = self.env.get(base_node.value.id)
            if holder is not None and holder.kind == "obj" and holder.obj.attrs is not None:
                cur = holder.obj.attrs.get(base_node.attr)
                if cur is not None and cur.is_data and v is not None and v.is_data:  # self.data[c] = ...
                    holder.obj.attrs[base_node.attr] = Val(cur.kind, rows=self.filled_rows(cur, v),
                                                           stats=cur.stats | v.all_stats,
                                                           site=cur.site, name=cur.name, cols=cur.cols)
                return
            if holder is not None and holder.is_data and v is not None and v.is_data:
                self.rebind(base_node.value.id, holder, v)  # df.Age[i] = value: a write into the frame's column
                return
        if not isinstance(base_node, ast.Name):
            self.expr(base_node)
            return
        base = self.env.get(base_node.id)
        if base is None:
            return
        if base.kind == "seq" and base.keys is not None:
            key = self.constant(t.slice)
            key = ast.dump(t.slice) if key is UNKNOWN else key
            if v is not None:
                base.keys[key] = v  # results[name] = score: a computed key keeps the value too
            return
        if not base.is_data:
            return
        v = self.imputed(v, t)  # a model's predictions filling a named column (not out-of-fold cells `S[idx, i]`)
        col, v, whole = self.written_column(t, base_node, base, v, rhs)
        if v is not None and v.is_data and col is not None and whole:
            cols = dict(base.cols or {})
            cols[col] = v.all_stats
            rows = v.rows if v.rows and unfilled(base.rows) else base.rows  # `pd.DataFrame()`: the first column's
            self.env[base_node.id] = Val(base.kind, rows=rows, stats=base.stats, site=base.site,
                                         time=base.time | v.time | self.datetime_evidence(rhs, col),
                                         name=base_node.id, evals=joined(base.evals, v.evals), label=base.label,
                                         cols=cols,
                                         fcols=base.fcols, flabel=base.flabel, oid=base.oid)
            self.mutated.add(base_node.id)
            self.update_aliases(base, self.env[base_node.id])
        elif v is not None and v.is_data:
            self.rebind(base_node.id, base, v)
        cur = self.env.get(base_node.id)
        if cur is base:  # copy before recording column facts: other names may share the value
            cur = self.env[base_node.id] = base._replace()
        self.column_written(base_node.id, cur, t, v, rhs)

    def rebind(self, name: str, base: Val, v: Val) -> None:
        """A data value mutated in place: same rows (an allocated matrix: those it is filled from), more statistics."""
        stats, time, rows = base.stats | v.all_stats, base.time | v.time, self.filled_rows(base, v)
        evals = joined(base.evals, v.evals) if v.kind == "pred" else base.evals
        if stats == base.stats and time == base.time and rows == base.rows and evals == base.evals:
            return
        # an array made to be filled (`oof = np.zeros(len(X))`) and given predictions (`oof[va] = m.predict(...)`)
        kind = "pred" if v.kind == "pred" and base.rows and all(tok[0][0] == "made" for tok in base.rows) \
            else base.kind
        nv = Val(kind, rows=rows, stats=stats, site=base.site, name=name, evals=evals, time=time,
                 fcols=base.fcols, flabel=base.flabel,
                 label=base.label, items=base.items, keys=base.keys, cols=base.cols, oid=base.oid)
        self.env[name] = nv
        self.mutated.add(name)
        self.update_aliases(base, nv)

    def update_aliases(self, old: Val, new: Val) -> None:
        """An object mutated in place is seen through every name and list that holds it: `for df in [train, test]:
        df.fillna(df.mean(), inplace=True)` changes `train` and `test` themselves."""
        def same(v: Val | None) -> bool:
            return v is old or (old.oid is not None and v is not None and v.oid == old.oid)

        for k, v in list(self.env.items()):
            if v is new:
                continue
            if same(v):
                self.env[k] = new._replace(name=k) if v.name == k else new
                self.mutated.add(k)
            elif v.kind == "seq" and v.items is not None and any(same(i) for i in v.items):
                v.items = tuple(new if same(i) else i for i in v.items)
