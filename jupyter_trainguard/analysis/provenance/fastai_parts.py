"""fastai's data objects and learners (api/fastai_api.py). A table or loaders object is an `Obj` whose attributes
are its parts: `.train` / `.valid` (also `train_ds`, `valid_ds`), each with `.xs`, `.y`, `.items` holding that
part's rows of the frame given. The parts come from the splits given (a splitter's row positions, or position
lists of unknown meaning, which pick a subset as a mask does); none given, every row is training data. A learner
keeps its loaders: training fits on their training part; `get_preds` and `validate` evaluate their validation
part (or the loader passed as `dl=`), the first prediction and the second a score."""

from __future__ import annotations

import ast

from .api.fastai_api import FIT_METHODS, LEARNING_PROCS, SELECTING_CALLBACKS
from .astutil import const, kw, text
from .rows import Selection
from .values import Obj, Val

_PARTS = {"train": "train", "train_ds": "train", "valid": "valid", "valid_ds": "valid"}


class FastaiData:
    """Mixin: fastai tables, splitters, loaders and learners."""

    def fastai_construct(self, q: str, role: str, e: ast.Call, args: list, kws: dict) -> Val:
        site = self.site(e)
        if role == "fastai_table":  # TabularPandas(df, procs, cat_names, cont_names, y_names=..., splits=...)
            df = args[0] if args else kws.get("df")
            parts = self.split_parts(df, kws.get("splits"), kw(e, "splits"), e)
            procs = e.args[1] if len(e.args) > 1 else kw(e, "procs")
            return self.fastai_loaders_val(q, df, parts, e, procs, self.label_name(e, 4))
        obj = Obj(q, role, site)
        if role == "fastai_splitter":
            obj.bound = (args[0] if args else kws.get("valid_idx"), None)  # IndexSplitter(valid_idx)
        elif role == "fastai_block":
            obj.inner = (kws.get("splitter").obj if kws.get("splitter") is not None and
                         kws["splitter"].kind == "obj" else None)
        elif role == "fastai_learner":
            self.fastai_learner_obj(obj, args[0] if args else kws.get("dls"), e)
        return Val("obj", obj=obj, site=site)

    def fastai_learner_obj(self, obj: Obj, dls: Val | None, e: ast.Call) -> None:
        obj.attrs = {"dls": dls}
        obj.early = _selecting(kw(e, "cbs"), self.bound_nodes)

    def fastai_function(self, q: str, effect: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        if effect == "fastai_learner":  # tabular_learner(dls, ...), vision_learner(dls, resnet34)
            obj = Obj(q, "fastai_learner", self.site(e))
            self.fastai_learner_obj(obj, args[0] if args else kws.get("dls"), e)
            return Val("obj", obj=obj, site=self.site(e))
        if effect == "fastai_interp":  # ClassificationInterpretation.from_learner(learn): the validation part scored
            learn = args[0] if args else kws.get("learn")
            if learn is not None and learn.kind == "obj" and learn.obj.role == "fastai_learner":
                part = self.learner_part(learn.obj, "valid")
                if part is not None:
                    ev = self.add_eval(learn.obj, part, "from_learner", e, scored=True)
                    return Val("score", site=self.site(e), evals=(ev,))
            return None
        # `TabularDataLoaders.from_df(df, procs=..., y_names=..., valid_idx=...)` and the other loaders' factories
        src = args[0] if args and args[0] is not None and args[0].is_data else None
        if src is None:
            src = self.source(e, "read")
        splits = None
        if kws.get("valid_idx") is not None:
            splits = self.indexed_parts(kws["valid_idx"], kw(e, "valid_idx"), e)
        elif kw(e, "valid_col") is not None:
            splits = self.declared_parts(("fastai split", text(e)), e)
        if splits is None:
            splits = self.random_parts(e)
        parts = self.split_parts(src, splits, None, e)
        return self.fastai_loaders_val(q, src, parts, e, kw(e, "procs"), self.label_name(e, None))

    def fastai_split(self, obj: Obj, e: ast.Call, args: list) -> Val:
        """A splitter called on the items (`RandomSplitter(valid_pct=0.2)(range_of(df))`): the two parts'
        positions."""
        leaf = obj.cls.rsplit(".", 1)[-1]
        if leaf == "IndexSplitter" and obj.bound and obj.bound[0] is not None:
            node = obj.site.node.args[0] if isinstance(obj.site.node, ast.Call) and obj.site.node.args else None
            return self.indexed_parts(obj.bound[0], node, e)
        if leaf in ("ColSplitter", "MaskSplitter", "FuncSplitter", "FileSplitter", "GrandparentSplitter"):
            return self.declared_parts(("fastai split", text(obj.site.node)), e)
        return self.random_parts(e) if leaf != "EndSplitter" else self.declared_parts(self.new_key("split"), e)

    def random_parts(self, e: ast.Call) -> Val:
        return self.declared_parts(self.new_key("split"), e, shuffled=True)

    def declared_parts(self, key: tuple, e: ast.Call, shuffled: bool = False) -> Val:
        """The positions of a split's training part and validation part (fastai's contract: two disjoint parts,
        however they were told apart: at random, by a column's flag, by a list of positions)."""
        if key not in self.rec.selections:
            self.rec.selections[key] = Selection(key, "split", self.site(e))
            self.rec.selections[key].shuffle = shuffled
        return Val("seq", items=tuple(Val("index", step=(key, p), items=((key, p),), site=self.site(e))
                                      for p in ("train", "test")), site=self.site(e))

    def indexed_parts(self, valid: Val, node: ast.AST | None, e: ast.Call) -> Val:
        """The rows at the validation positions given, and the rest."""
        if valid.kind == "index" and valid.step is not None:
            key, side = valid.step
            sel = self.rec.selections.get(key)
            other = {"train": "test", "test": "train"}.get(side) if sel is not None and sel.kind == "split" else None
            if other is not None and len(valid.items or ()) <= 1:
                return Val("seq", items=(Val("index", step=(key, other), items=((key, other),), site=self.site(e)),
                                         valid), site=self.site(e))
        return self.declared_parts(("fastai split", text(node) if node is not None else text(e)), e)

    def split_parts(self, df: Val | None, splits: Val | None, node: ast.AST | None, e: ast.Call) -> tuple:
        """(training rows, validation rows) of `df` by the splits given (positions of each part)."""
        if df is None or not df.is_data:
            return None, None
        if splits is None or splits.kind != "seq" or not splits.items or len(splits.items) < 2:
            return df, None
        if isinstance(node, ast.Name):
            node = self.bound_nodes.get(node.id)
        if not all(p is not None and p.kind == "index" and p.step is not None for p in splits.items[:2]):
            # position lists of unknown meaning (`(list(train_idx), list(valid_idx))`): the two parts of one split
            splits = self.declared_parts(("fastai split", text(node) if node is not None else text(e)), e)
        out: list = []
        for part in splits.items[:2]:
            rows = df
            for key, side in part.items or (part.step,):
                rows = self.select(rows, key, side, "split", e)
            out.append(rows)
        self.rec.held_out_parts.append(out[1])
        return out[0], out[1]

    def fastai_loaders_val(self, q: str, df: Val | None, parts: tuple, e: ast.Call, procs: ast.AST | None,
                           label: str | None) -> Val:
        train, valid = parts
        learned = [p for p in (procs.elts if isinstance(procs, (ast.List, ast.Tuple)) else [procs])
                   if p is not None and text(p).split("(")[0].rsplit(".", 1)[-1] in LEARNING_PROCS]
        fit = self.add_fit("transformer", q + ".procs", train, e) if learned and train is not None else None
        attrs: dict = {"items": df, "xs": self.part_val(df, fit, e, None), "y": self.part_val(df, None, e, label)}
        for name, part in (("train", train), ("valid", valid)):
            if part is None:
                continue
            sub = {"items": part, "xs": self.part_val(part, fit, e, None), "y": self.part_val(part, None, e, label)}
            sub["ys"], sub["x"] = sub["y"], sub["xs"]
            attrs[name] = Val("obj", obj=Obj(q, "fastai_data", self.site(e), attrs=sub), site=self.site(e))
        attrs["ys"], attrs["x"] = attrs["y"], attrs["xs"]
        for name, part in _PARTS.items():
            if part in attrs and name not in attrs:
                attrs[name] = attrs[part]
        return Val("obj", obj=Obj(q, "fastai_data", self.site(e), attrs=attrs), site=self.site(e))

    def part_val(self, rows: Val | None, fit, e: ast.Call, label: str | None) -> Val | None:
        if rows is None:
            return None
        out = Val("data", rows=rows.rows, stats=rows.all_stats | ({fit} if fit is not None else set()),
                  site=self.site(e), evals=rows.evals, time=rows.time)
        if label is not None and rows.fcols is not None:
            out.flabel = (rows.fcols["frame"], label)
        return out

    def label_name(self, e: ast.Call, pos: int | None) -> str | None:
        node = kw(e, "y_names") or (e.args[pos] if pos is not None and len(e.args) > pos else None)
        if isinstance(node, ast.Name):
            node = self.bound_nodes.get(node.id, node)
        got = const(node) if isinstance(node, ast.Constant) else None
        return got if isinstance(got, str) else None

    def learner_part(self, learner: Obj, which: str) -> Val | None:
        dls = (learner.attrs or {}).get("dls")
        if dls is None:
            return None
        if dls.kind == "obj" and dls.obj.attrs is not None:
            part = dls.obj.attrs.get(which)
            return part.obj.attrs.get("items") if part is not None and part.kind == "obj" and part.obj.attrs else None
        return dls if dls.is_data and which == "train" else None

    def fastai_method(self, recv: Val, attr: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        obj = recv.obj
        if obj.role == "fastai_splitter":
            return None
        if obj.role == "fastai_block":  # DataBlock(splitter=...).dataloaders(source)
            if attr not in ("dataloaders", "datasets"):
                return None
            src = args[0] if args and args[0] is not None and args[0].is_data else self.source(e, "read")
            splits = self.fastai_split(obj.inner, e, []) if obj.inner is not None else self.random_parts(e)
            return self.fastai_loaders_val(obj.cls, src, self.split_parts(src, splits, None, e), e, None, None)
        if obj.role == "fastai_data":
            if attr == "dataloaders":
                return recv
            if attr in ("test_dl", "new"):
                return self.derive(e, args[:1])
            return None
        # a learner
        if attr in FIT_METHODS:
            train = self.learner_part(obj, "train")
            if train is not None:
                obj.fit = self.add_fit("model", obj.cls, train, e, obj=obj)
            valid = self.learner_part(obj, "valid")
            if valid is not None and obj.fit is not None:
                early = obj.early or _selecting(kw(e, "cbs"), self.bound_nodes)
                self.rec.eval_sets.append((obj, valid, obj.fit.site, "dls", early))
            return None
        if attr in ("get_preds", "validate", "tta"):
            data = kws.get("dl")
            if data is None or not data.is_data:
                which = "train" if const(kw(e, "ds_idx")) == 0 or e.args and const(e.args[0]) == 0 else "valid"
                data = self.learner_part(obj, which)
            if data is None:
                return None
            if attr == "validate":
                ev = self.add_eval(obj, data, attr, e, scored=True)
                return Val("score", site=self.site(e), evals=(ev,))
            pred = self.prediction(obj, data, attr, e)
            return Val("seq", items=(pred, Val("data", rows=data.rows, site=self.site(e), label=True)),
                       site=self.site(e))
        if attr == "predict" and args and args[0] is not None and args[0].is_data:
            return self.prediction(obj, args[0], attr, e)
        return None


def _selecting(cbs: ast.AST | None, bound: dict) -> bool:
    """Callbacks that keep the best epoch or stop early by the validation metric (`cbs=[SaveModelCallback()]`,
    also through a name bound to them)."""
    if isinstance(cbs, ast.Name):
        cbs = bound.get(cbs.id, cbs)
    return cbs is not None and any(isinstance(n, ast.Name) and n.id in SELECTING_CALLBACKS or
                                   isinstance(n, ast.Attribute) and n.attr in SELECTING_CALLBACKS
                                   for n in ast.walk(cbs))
