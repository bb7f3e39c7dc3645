"""Comprehensions: run once per item of a known list (models, frames), else once standing for every item; one over
the rows of data (`[embed(t) for t in texts]`) holds a row for each row it iterates."""

from __future__ import annotations

import ast

from .astutil import literal_words, text, unenumerated
from .permutations import parts_key
from .state import flat_values
from .values import Val


class Comprehensions:
    """Mixin: list, set, dict comprehensions and generator expressions."""

    def comprehension(self, e: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp) -> Val | None:
        if (kept := self.positions_kept(e)) is not None:
            return kept
        saved = dict(self.env)
        self.loop_vars.append({n.id for g in e.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)})
        elements: set[str] = set()
        keep = before = words = None
        chosen: set = set()
        try:
            gen = e.generators[0]
            folds = len(e.generators) == 1 and self.fold_indices(*unenumerated(gen.iter, gen.target))
            it = None if folds else self.expr(gen.iter)
            if isinstance(gen.target, ast.Name) and self.row_wise(e, it, True):
                elements = {gen.target.id} - self.row_elements
            self.row_elements |= elements
            before = set(self.row_values) if elements else None
            within = it is not None and id(it) in self.row_values  # over one row's own items (its words)
            passes = [None] if folds else self.loop_items(it) or [it if it is None or it.kind != "seq" else None]
            outs = []
            kind = "folds" if folds else "models" if any(self.holds_obj(p) for p in passes) else "items"
            if kind == "items" and passes == [None] and self.is_setting_iter(gen.iter, it) and \
                    not isinstance(e, ast.DictComp) and any(isinstance(n, ast.Call) for n in ast.walk(e.elt)):
                kind = "settings"  # `[cost(y_te, p, t) for t in np.linspace(0, 1, 99)]`: one pass per setting
                passes = [Val("data", hyper=True, site=self.site(gen.iter))]
            self.loops.append((id(e), kind, 2 if folds or kind == "settings" else len(passes)))
            words = literal_words(gen.iter, gen.target, len(passes)) if len(e.generators) == 1 and not gen.ifs \
                else None  # `{x: ImageFolder(os.path.join(root, x)) for x in ["train", "val"]}`: one entry a word
            for i, p in enumerate(passes[:8]):
                if not folds:
                    self.assign(gen.target, p, gen.iter)
                    if words:
                        self.consts[gen.target.id] = words[i]
                    bound = self.env.get(gen.target.id) if elements else None
                    if bound is not None:
                        self.row_values[id(bound)] = bound  # one row each pass
                for extra in e.generators[1:]:
                    self.assign(extra.target, self.expr(extra.iter), extra.iter)
                for g in e.generators:
                    for cond in g.ifs:
                        got = self.expr(cond)
                        if got is not None and got.is_data and not got.rows:  # `if c in X.columns[sel.get_support()]`
                            chosen |= {f for f in got.all_stats if f.kind != "statistic"}
                if isinstance(e, ast.DictComp):
                    self.expr(e.key)
                    outs.append(self.expr(e.value))
                else:
                    outs.append(self.expr(e.elt))
            self.loops.pop()
            if words and isinstance(e, ast.DictComp) and isinstance(e.key, ast.Name) and e.key.id == gen.target.id:
                return Val("seq", keys=dict(zip(words, outs)), site=self.site(e))
            if outs and (all(o is not None and o.kind == "obj" for o in outs) or kind == "models" and len(outs) > 1 and
                         all(o is not None and o.kind in ("pred", "score") and o.evals for o in outs)):
                return Val("seq", items=tuple(outs), site=self.site(e))  # (each model's predictions: one item each)
            flat = [i for o in outs for i in (flat_values(o) if o is not None and o.kind == "seq" else (o,))]
            out = self.mapped_rows(e, it, flat) if not folds and self.row_wise(e, it) else \
                self.derive(e, flat)  # [(r.a, r.b) for r in frame.itertuples()]: the frame's rows
            keep = out if within else None  # `[wv[w] for w in doc]`: still one row's items
            if chosen and out is not None and out.is_data and not out.rows:
                out.stats = out.stats | chosen  # names kept by a fitted selector's choice carry what it learned
            return out
        finally:
            if words:  # (the word of the last pass is no longer known after the comprehension)
                self.consts.pop(e.generators[0].target.id, None)
            self.loop_vars.pop()
            self.row_elements -= elements
            if before is not None:
                self.row_values = {k: v for k, v in self.row_values.items() if k in before}
            if keep is not None:
                self.row_values[id(keep)] = keep
            inner = self.env
            self.env = saved
            for k in saved:
                if k in inner:
                    self.env[k] = inner[k]

    def positions_kept(self, e: ast.AST) -> Val | None:
        """`[i for i in range(n) if i not in test_idx]` (`in`: the same side) over row positions: one side of the
        selection that drew or cut `test_idx`."""
        gens = getattr(e, "generators", None)
        if not isinstance(e, (ast.ListComp, ast.GeneratorExp)) or len(gens) != 1 or len(gens[0].ifs) != 1 or \
                not isinstance(gens[0].target, ast.Name):
            return None
        if isinstance(e.elt, ast.Subscript):
            return self.other_folds(e.elt, gens[0].target.id, gens[0].ifs[0])
        if not isinstance(e, ast.ListComp) or not isinstance(e.elt, ast.Name) or e.elt.id != gens[0].target.id:
            return None
        test = gens[0].ifs[0]
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.NotIn))
                and isinstance(test.left, ast.Name) and test.left.id == e.elt.id and
                isinstance(test.comparators[0], ast.Name)):
            return None
        drawn = self.env.get(test.comparators[0].id)
        if isinstance(test.ops[0], ast.In):
            return drawn if drawn is not None and drawn.kind == "index" and drawn.step is not None and \
                self.position_range(gens[0].iter) is not None else None
        return self.positions_left(gens[0].iter, drawn)

    def other_folds(self, elt: ast.Subscript, var: str, test: ast.expr) -> Val | None:
        """`[folds[j] for j in range(k) if j != i]` of position parts: every part but this pass's fold."""
        if not (isinstance(elt.value, ast.Name) and isinstance(elt.slice, ast.Name) and elt.slice.id == var and
                isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotEq) and
                var in {n.id for n in (test.left, test.comparators[0]) if isinstance(n, ast.Name)}):
            return None
        key = parts_key(self.env.get(elt.value.id))
        return Val("seq", items=(self.fold_index(key, "train", elt),), site=self.site(elt)) if key else None

    @staticmethod
    def row_wise(e: ast.AST, it: Val | None, nested: bool = False) -> bool:
        """A comprehension over the rows of data (an array, a list of texts; a frame iterates its columns);
        `nested`: whatever further generators follow the first."""
        return (nested or len(e.generators) == 1) and it is not None and \
            it.kind in ("data", "pred") and bool(it.rows) and it.fcols is None

    def mapped_rows(self, e: ast.AST, it: Val, outs: list) -> Val | None:
        """`[embed(t) for t in X_train]`: one output per row of what is iterated, so its rows (kept by the
        condition, if any), whatever the function builds each output from."""
        out = self.derive(e, [it] + outs)
        if out is None:
            return None
        out.rows = it.rows
        ifs = e.generators[0].ifs
        return self.select(out, ("mask", text(ifs[0])), "sub", "mask", e) if ifs else out

