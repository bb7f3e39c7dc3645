"""Library objects and notebook classes: constructing them from the API table, calling them (`net(xb)`,
`criterion(out, y)`, a fitted Keras model), and following notebook classes through `self`."""

from __future__ import annotations

import ast
import copy

from .api import lookup_class
from .astutil import const, kw
from .training import stops_early
from .values import Fit, Obj, Val, graph_layers

# the options that make an image generator's `fit` learn statistics of the images it is given
LEARNING_OPTIONS = ("featurewise_center", "featurewise_std_normalization", "zca_whitening")


class Objects:
    """Mixin: constructors, object calls, notebook class instances and their methods."""

    def construct(self, q: str, row, e: ast.Call) -> Val:
        args, kws = self.arguments(e)
        if row.role.startswith("fastai_"):
            return self.fastai_construct(q, row.role, e, args, kws)
        obj = Obj(q, row.role, self.site(e))
        when = row.vocab_when
        wanted = () if when is None else when[1] if isinstance(when[1], tuple) else (when[1],)
        obj.vocab = row.vocab or bool(wanted) and const(kw(e, when[0])) in wanted  # type: ignore[attr-defined]
        if row.role == "splitter":
            obj.shuffle = self.splitter_shuffles(q, e)
        if row.role == "augmenter" and not self.learning_options(e):
            obj.role = "stateless"  # `ImageDataGenerator(rotation_range=20)`: its `fit` learns nothing
        if row.role == "torch":
            self.rec.torch_objects.append(obj)
        if row.role in ("trainer", "config"):
            obj.early = self.early_config(e)
            if row.role == "trainer" and q.startswith("transformers") or q.endswith(("Seq2SeqTrainer", "SFTTrainer")):
                self.trainer(obj, e, args, kws)
            return Val("obj", obj=obj, site=self.site(e))
        if any(k == "settings" for _, k, _ in self.loops):
            obj.multi = 2
        if row.role == "model":  # `Sequential([norm, Dense(1)])`: a layer adapted beforehand keeps its statistics
            obj.layers = tuple(layer_objs(args + list(kws.values())))
        if q.rsplit(".", 1)[-1] in ("ColumnTransformer", "make_column_transformer"):
            parts = _inner_objs(args + list(kws.values()))  # one-hot columns beside passed-through ones learn no value
            obj.vocab = bool(parts) and all(getattr(o, "vocab", False) or o.role == "stateless" for o in parts)
        if q.rsplit(".", 1)[-1].startswith(("Voting", "Stacking")):  # the members it fits a copy of
            obj.members = _named_members(e, _inner_objs(args + list(kws.values())))  # type: ignore[attr-defined]
        if row.role == "search":
            obj.tunes = _grid_keys(e.args[1] if len(e.args) > 1 else kw(e, "param_grid") or
                                       kw(e, "param_distributions"), self.bound_nodes)
        if row.role in ("pipeline", "search"):
            flat = _inner_objs(args + list(kws.values())) or self.searched_class(row.role, e)
            if flat:
                obj.inner = flat[-1]
                if row.role == "pipeline" and flat[-1].role in ("transformer", "stateless", "pipeline") and \
                        flat[-1].role != "model":
                    obj.role = "transformer" if flat[-1].role != "pipeline" else flat[-1].role
                    obj.vocab = all(getattr(f, "vocab", False) for f in flat)  # type: ignore[attr-defined]
                if row.role == "pipeline" and all(f.role in ("resampler", "undersampler") for f in flat) and \
                        any(f.role == "resampler" for f in flat):  # imblearn: `Pipeline([SMOTE(), under])`
                    obj.role, obj.inner = "resampler", next(f for f in flat if f.role == "resampler")
        if row.bound is not None:
            xi, yi = row.bound
            if xi == -1:  # formula models: data=
                obj.bound = (kws.get("data"), None)
            else:
                x = args[xi] if 0 <= xi < len(args) else kws.get("exog") or kws.get("endog")
                y = args[yi] if 0 <= yi < len(args) else kws.get("endog")
                obj.bound = (x, y)
        obj.early = stops_early(e, self.bound_nodes, self.user_classes)
        given = (args[:1] + [kws.get(k) for k in row.fitted_by]) if row.fitted_by else []
        corpus = next((v for v in given if v is not None and v.is_data), None)
        if corpus is not None:  # `Word2Vec(corpus)`: trained as it is built
            self.fit_call(obj, Val("obj", obj=obj, site=self.site(e)), "fit", corpus, None, e, {})
        for name in ("eval_set", "validation_data"):
            if kws.get(name) is not None:
                self.rec.eval_sets.append((obj, kws[name], self.site(e), name, obj.early))
        return Val("obj", obj=obj, site=self.site(e))

    def fitted_in_lambda(self, e: ast.Call) -> frozenset:
        """What the fitted transformers a lambda given to `apply`/`map` reads learned (`df.text.apply(lambda t:
        average_vector(t, w2v))`, `lambda t: tfidf.transform([t])`): each row's output carries it."""
        names = {n.id for a in list(e.args) + [k.value for k in e.keywords] if isinstance(a, ast.Lambda)
                 for n in ast.walk(a.body) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and
                 n.id not in {p.arg for p in a.args.args}}  # (the lambda's own parameters are each row's value)
        vals = [self.env.get(n) for n in names]
        return frozenset(v.obj.fit for v in vals if v is not None and v.kind == "obj" and v.obj.fit is not None and
                         v.obj.role == "transformer" and not getattr(v.obj, "vocab", False))

    def fitted_members(self, base: Val, e: ast.Attribute) -> Val | None:
        """`ensemble.estimators_` (a list) or `named_estimators_` (a dict): a fitted copy of each member, trained
        on the rows the ensemble was fitted on; scored one by one they are models of their own."""
        members, fit = getattr(base.obj, "members", ()), base.obj.fit
        if e.attr not in ("estimators_", "named_estimators_") or not members or fit is None:
            return None
        copies = {}
        for name, m in members:
            c = Obj(m.cls, m.role, m.site)
            c.fit = Fit("model", m.cls, fit.rows, fit.stats, fit.site, obj=c, data_name=fit.data_name,
                        data_site=fit.data_site, config=fit.config)
            copies[name] = Val("obj", obj=c, site=self.site(e))
        if e.attr == "named_estimators_":
            return Val("seq", keys=copies, site=self.site(e))
        return Val("seq", items=tuple(copies.values()), site=self.site(e))

    def searched_class(self, role: str, e: ast.Call) -> list[Obj]:
        """`GridSearchCV(SVD, grid)` (Surprise takes the algorithm's class, not an instance): that estimator."""
        q = self.parsed.qualname(e.args[0]) if role == "search" and e.args else ""
        row = lookup_class(q) if q else None
        return [Obj(q, "model", self.site(e.args[0]))] if row is not None and row.role == "model" else []

    def learning_options(self, e: ast.Call) -> bool:
        """Whether an image generator may be built to learn statistics in `fit` (an option set, or not known)."""
        return bool(e.args) or any(k.arg is None or k.arg in LEARNING_OPTIONS and
                                   self.constant(k.value) not in (False, None) for k in e.keywords)

    def copied(self, effect: str, e: ast.Call, args: list) -> Val | None:
        """`clone(est)`: the same estimator, settings and all, not fitted; `copy.deepcopy(est)` keeps its fit
        (a model kept as the best so far); a copy of data holds the same rows."""
        src = args[0] if args else None
        if src is None or src.kind != "obj":
            return self.derive(e, [src])
        new = copy.copy(src.obj)
        new.site = self.site(e)
        if effect == "clone":
            new.fit = None
        return Val("obj", obj=new, site=self.site(e))

    def user_instance(self, name: str, e: ast.Call, args: list, kws: dict) -> Val:
        cls = self.user_classes[name]
        bases = {self.parsed.qualname(b).rsplit(".", 1)[-1] for b in cls.bases}
        methods = {f.name for f in cls.body if isinstance(f, ast.FunctionDef)}
        if self.is_torch_class(cls):
            obj = Obj(name, "torch", self.site(e))
            self.rec.torch_objects.append(obj)
            return Val("obj", obj=obj, site=self.site(e))
        trains = {"train", "predict"} <= methods and "fit" not in methods and _learns_by_hand(cls, "train")
        if {"fit", "predict"} <= methods or trains or bases & {"BaseEstimator", "ClassifierMixin", "RegressorMixin"}:
            role = "model"
        elif {"fit", "transform"} <= methods or "TransformerMixin" in bases:
            role = "transformer"
        elif bases & {"Dataset", "IterableDataset"}:
            # a dataset holds its arguments' rows and whatever its `__init__` computed from them (a normalisation
            # by the rows' own mean and spread travels with the rows into every split of it)
            obj = Obj(name, "instance", self.site(e), attrs={}, cls_node=cls)
            self.call_method(Val("obj", obj=obj, site=self.site(e)), "__init__", e, args, kws)
            held = [v for v in (obj.attrs or {}).values() if v is not None and v.is_data]
            out = self.derive(e, args + list(kws.values()) + held) or self.source(e, "read")  # reads its files
            counted = (obj.attrs or {}).get(_length_attr(cls))
            if counted is not None and counted.is_data and counted.rows and out.rows != counted.rows:
                out = copy.copy(out)  # its items are these rows: other tables it holds are looked up by them
                out.rows = counted.rows
            return out
        else:
            obj = Obj(name, "instance", self.site(e), attrs={}, cls_node=cls)
            inst = Val("obj", obj=obj, site=self.site(e))
            self.call_method(inst, "__init__", e, args, kws)
            return inst
        # (a model class trained by `train(X, y)`: its class is kept so that the call reads as its fit)
        obj = Obj(name, role, self.site(e), cls_node=cls if role == "model" and trains else None)
        if role == "model" and not trains and self.find_method(cls, "fit") is not None:
            body = self.model_bodies[id(obj)] = Val("obj", obj=Obj(name, "instance", self.site(e), attrs={},
                                                                     cls_node=cls), site=self.site(e))
            self.call_method(body, "__init__", e, args, kws)
        return Val("obj", obj=obj, site=self.site(e))

    def is_torch_class(self, cls: ast.ClassDef, depth: int = 0) -> bool:
        """A notebook class deriving (directly or through notebook classes) from nn.Module/LightningModule."""
        for b in cls.bases:
            leaf = self.parsed.qualname(b).rsplit(".", 1)[-1]
            if leaf in ("Module", "LightningModule"):
                return True
            if isinstance(b, ast.Name) and b.id in self.user_classes and depth < 4 and \
                    self.is_torch_class(self.user_classes[b.id], depth + 1):
                return True
        return False

    def trainer_base(self, cls: ast.ClassDef) -> str | None:
        """The library trainer a notebook class derives from (`class WeightedTrainer(Trainer)` overriding its loss):
        built, fitted and evaluated as that trainer."""
        for b in cls.bases:
            q = self.parsed.qualname(b)
            row = lookup_class(q) if q else None
            if row is not None and row.role == "trainer":
                return q
        return None

    def find_method(self, cls: ast.ClassDef, name: str, depth: int = 0) -> ast.FunctionDef | None:
        for f in cls.body:
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == name:
                return f
        for b in cls.bases:
            if isinstance(b, ast.Name) and b.id in self.user_classes and depth < 4:
                found = self.find_method(self.user_classes[b.id], name, depth + 1)
                if found is not None:
                    return found
        return None

    def user_fit_body(self, obj: Obj, attr: str, e: ast.Call, args: list, kws: dict) -> None:
        """`model.fit(X, y)` of a notebook model class (one with `fit` and `predict`): it stays one model, and its
        own `fit` is followed as well, on an instance of its own (built by its `__init__`), for what it does inside
        (folds, early stopping, inner models and their scores)."""
        body = self.model_bodies.get(id(obj)) if attr == "fit" else None
        if body is not None:
            self.call_method(body, "fit", e, args, kws)

    def call_method(self, inst: Val, name: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        """A method of a notebook class, followed like a function with `self` bound to the instance."""
        fn = self.find_method(inst.obj.cls_node, name)
        if fn is None:
            return self.derive(e, args + list(kws.values()))
        call = ast.Call(func=e.func, args=[ast.Name(id="<self>", ctx=ast.Load())] + list(e.args),
                        keywords=e.keywords)
        ast.copy_location(call, e)
        fval = Val("func", func=fn, func_cell=self.method_cells.get(id(fn), inst.site.cell if inst.site else None))
        return self.inline(fval, call, [inst] + args, kws)

    def call_obj(self, target: Val, e: ast.Call, args: list, kws: dict) -> Val | None:
        """`model(X)`: a fitted Keras model predicting; anything else keeps its arguments' provenance."""
        obj = target.obj
        data = args[0] if args else None
        if obj.role == "loss":
            return self.loss_call(e, args)
        if obj.role == "fastai_splitter":
            return self.fastai_split(obj, e, args)
        if obj.role == "torch" and data is not None and data.is_data:
            return self.torch_call(obj, e, data)
        if obj.fit is not None and obj.role == "model" and data is not None and data.is_data:
            return self.prediction(obj, data, "__call__", e)
        if obj.fit is not None and obj.role == "transformer" and data is not None and data.is_data:
            return Val("data", rows=data.rows, stats=data.all_stats | {obj.fit}, site=self.site(e), evals=data.evals)
        if obj.role == "transformer" and (data is None or not data.is_data):
            # a preprocessing layer applied to a symbolic input (Keras functional API): the tensor it returns
            # carries the layer into whatever model is built from it, adapted before or after
            return Val("graph", items=(target,) + graph_layers(args + list(kws.values())), site=self.site(e))
        return self.derive(e, args + list(kws.values()))


def layer_objs(vals: list) -> list:
    """The preprocessing objects among a network's layers (given as a list, one by one, or as the symbolic tensors
    of a functional model: `keras.Model(inputs, outputs)`)."""
    out = []
    for v in vals:
        members = (v,) if v is not None and v.kind == "obj" else v.items or () \
            if v is not None and v.kind in ("seq", "graph") else ()
        out += [m.obj for m in members if m is not None and m.kind == "obj" and m.obj.role == "transformer"]
    return out


def _grid_keys(node: ast.AST | None, bound: dict) -> frozenset:
    """The settings a search grid varies: the string keys of its dict (or list of dicts), a name bound to one
    followed; a pipeline step's prefix dropped (`model__max_depth` is `max_depth`)."""
    if isinstance(node, ast.Name) and isinstance(bound.get(node.id), ast.expr):
        node = bound[node.id]
    dicts = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    return frozenset(k.value.rsplit("__", 1)[-1] for d in dicts if isinstance(d, ast.Dict) for k in d.keys
                     if isinstance(k, ast.Constant) and isinstance(k.value, str))


def _named_members(e: ast.Call, objs: list) -> tuple:
    """An ensemble's members with their names (`VotingClassifier([("lr", lr), ("rf", rf)])`), or their positions
    where the names are not literals."""
    given = e.args[0] if e.args else kw(e, "estimators")
    names = [const(t.elts[0]) if isinstance(t, ast.Tuple) and t.elts else None
             for t in (given.elts if isinstance(given, (ast.List, ast.Tuple)) else ())]
    return tuple((names[i] if i < len(names) and isinstance(names[i], str) else str(i), o) for i, o in enumerate(objs))


def _inner_objs(vals: list) -> list:
    """The estimators given to a pipeline, search or column transformer (directly, in a list, or in its tuples)."""
    flat = []
    for a in (v for v in vals if v is not None):
        if a.kind == "obj":
            flat.append(a.obj)
        elif a.kind == "seq" and a.items:
            for it in a.items:
                if it is not None and it.kind == "obj":
                    flat.append(it.obj)
                elif it is not None and it.kind == "seq" and it.items:
                    flat += [x.obj for x in it.items if x is not None and x.kind == "obj"]
    return flat


def interpolates(obj: Obj) -> bool:
    """An oversampler that makes new rows between neighbours (SMOTE and its kin, ADASYN), or a sampler pipeline
    holding one: it learns from the rows it is given."""
    return any("SMOTE" in c.rsplit(".", 1)[-1] or c.endswith("ADASYN")
               for c in (obj.cls, obj.inner.cls if obj.inner is not None else ""))


def _learns_by_hand(cls: ast.ClassDef, name: str) -> bool:
    """Whether the class's training method learns by its own arithmetic: it trains no other object (a wrapper whose
    `train` calls `self.clf.fit(X, y)` is followed through its methods instead)."""
    fn = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == name), None)
    return fn is not None and not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                                      n.func.attr.startswith(("fit", "train")) for n in ast.walk(fn))


def _length_attr(cls: ast.ClassDef) -> str | None:
    """The attribute a dataset class counts its items by (`def __len__(self): return len(self.ids)`): the rows
    its items are; the tables `__getitem__` looks each item up in add no rows of their own."""
    for f in cls.body:
        if isinstance(f, ast.FunctionDef) and f.name == "__len__" and f.body:
            ret = f.body[-1]
            call = ret.value if isinstance(ret, ast.Return) else None
            arg = call.args[0] if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
                call.func.id == "len" and len(call.args) == 1 else None
            if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self":
                return arg.attr
    return None


def constant_filter(node: ast.AST | None) -> bool:
    """`VarianceThreshold()` / `VarianceThreshold(threshold=0)`: it drops only the columns constant on the rows it
    saw, learning nothing of how values are distributed."""
    if not isinstance(node, ast.Call):
        return False
    t = kw(node, "threshold") or (node.args[0] if node.args else None)
    return t is None or const(t) in (0, 0.0)
